//! Warp-wide shared-memory requests: one instruction, 32 lanes.

use core::fmt;

use smallvec::SmallVec;

use crate::lane::WARP_SIZE;
use crate::{Error, Lane, LaneSet};

mod op_name;
#[cfg(feature = "trace")]
pub(crate) use op_name::trace_atomic_kind;
pub use op_name::OpName;

/// The 8x8 matrices an `ldmatrix`/`stmatrix` instruction moves: how many
/// (`.x1`/`.x2`/`.x4`) and whether transposed (`.trans`).
///
/// The count decides how many lanes give row addresses. `.trans` only changes
/// which registers receive which elements, not which rows are read: the
/// transposed forms cost what the plain ones do (measured on sm_90, 119
/// random requests of `ldmatrix`/`stmatrix` `.trans`, every count:
/// tests/data/hw-corpus/sm90-ldsm-trans.jsonl), so they are variants of one
/// type rather than ops of their own.
///
/// # Example
///
/// ```
/// use smem_model::{Matrices, Op};
///
/// // ldmatrix.sync.aligned.m8n8.x4.shared.b16: the A fragment of an m16n8k16 MMA.
/// let op = Op::LdMatrix(Matrices::X4);
/// assert_eq!(Matrices::X4.count(), 4);
/// assert_eq!(op.to_string(), "LDSM.x4");
/// assert_eq!(Matrices::X2.address_lanes().len(), 16);
/// // ldmatrix .x4.trans: the B fragment from a row-major tile.
/// assert_eq!(Matrices::X4.transposed(), Matrices::X4Trans);
/// assert_eq!(Op::LdMatrix(Matrices::X4Trans).to_string(), "LDSM.x4.trans");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Matrices {
    /// `.x1`: one matrix; lanes 0-7 give the row addresses.
    X1,
    /// `.x2`: two matrices; lanes 0-15 give the row addresses.
    X2,
    /// `.x4`: four matrices; lanes 0-31 give the row addresses.
    X4,
    /// `.x1.trans`: one matrix, transposed (SASS `.MT88`).
    X1Trans,
    /// `.x2.trans`: two matrices, transposed.
    X2Trans,
    /// `.x4.trans`: four matrices, transposed.
    X4Trans,
}

impl Matrices {
    /// Every form: the plain ones, then the transposed ones.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Matrices;
    ///
    /// assert_eq!(Matrices::ALL.iter().filter(|m| m.is_transposed()).count(), 3);
    /// ```
    pub const ALL: [Matrices; 6] = [
        Matrices::X1,
        Matrices::X2,
        Matrices::X4,
        Matrices::X1Trans,
        Matrices::X2Trans,
        Matrices::X4Trans,
    ];

    /// The number of matrices: 1, 2 or 4.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Matrices;
    ///
    /// assert_eq!(Matrices::X4.count(), 4);
    /// assert_eq!(Matrices::X2Trans.count(), 2);
    /// ```
    pub const fn count(self) -> u32 {
        match self {
            Matrices::X1 | Matrices::X1Trans => 1,
            Matrices::X2 | Matrices::X2Trans => 2,
            Matrices::X4 | Matrices::X4Trans => 4,
        }
    }

    /// Whether the form is `.trans`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Matrices;
    ///
    /// assert!(Matrices::X1Trans.is_transposed());
    /// assert!(!Matrices::X1.is_transposed());
    /// ```
    pub const fn is_transposed(self) -> bool {
        match self {
            Matrices::X1 | Matrices::X2 | Matrices::X4 => false,
            Matrices::X1Trans | Matrices::X2Trans | Matrices::X4Trans => true,
        }
    }

    /// The `.trans` form of the same count.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Matrices;
    ///
    /// assert_eq!(Matrices::X2.transposed(), Matrices::X2Trans);
    /// assert_eq!(Matrices::X2Trans.transposed(), Matrices::X2Trans);
    /// ```
    pub const fn transposed(self) -> Self {
        match self {
            Matrices::X1 | Matrices::X1Trans => Matrices::X1Trans,
            Matrices::X2 | Matrices::X2Trans => Matrices::X2Trans,
            Matrices::X4 | Matrices::X4Trans => Matrices::X4Trans,
        }
    }

    /// The plain (not transposed) form with `count` matrices, if there is one.
    ///
    /// For reading a count from data, such as the `width` of an `ldsm` corpus
    /// record.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Matrices;
    ///
    /// assert_eq!(Matrices::from_count(2), Some(Matrices::X2));
    /// assert_eq!(Matrices::from_count(3), None);
    /// ```
    pub const fn from_count(count: u32) -> Option<Self> {
        match count {
            1 => Some(Matrices::X1),
            2 => Some(Matrices::X2),
            4 => Some(Matrices::X4),
            _ => None,
        }
    }

    /// The lanes whose addresses the instruction reads: `0..8 * count`.
    ///
    /// Lane `8m + r` gives the address of row `r` of matrix `m` (PTX ISA,
    /// `ldmatrix`), with or without `.trans`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Matrices;
    ///
    /// assert_eq!(Matrices::X1.address_lanes().to_string(), "0-7");
    /// assert_eq!(Matrices::X4.address_lanes().len(), 32);
    /// ```
    pub const fn address_lanes(self) -> LaneSet {
        LaneSet::range(0, 8 * self.count())
    }

    /// `.trans` after the count in [`Op`]'s display, or nothing.
    const fn trans_suffix(self) -> &'static str {
        if self.is_transposed() {
            ".trans"
        } else {
            ""
        }
    }
}

/// The operation of a shared-memory atomic or reduction (`atom.shared.OP`,
/// `red.shared.OP`).
///
/// The integer kinds are native on sm_90 at 32 bits (`ATOMS.OP`); 64-bit
/// `exch` and `cas` are native too. Float add and 64-bit integer add are
/// emulated by nvcc with a compare-and-swap loop (tests/data/hw-corpus/sm90-atomics.jsonl,
/// measured on sm_90); see [`Op::is_cas_loop`] for which ones the model
/// treats as loops.
///
/// # Example
///
/// ```
/// use smem_model::{AtomicKind, Op};
///
/// // atomicCAS(&lock, 0, 1) on shared memory: atom.shared.cas.b32.
/// let op = Op::Atomic(AtomicKind::Cas);
/// assert_eq!(op.to_string(), "ATOMS.CAS");
/// assert_eq!(AtomicKind::Cas.ptx(), "cas");
/// assert_eq!("add.f32".parse::<AtomicKind>()?, AtomicKind::AddF32);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum AtomicKind {
    /// Integer add: `.u32`/`.s32` (4 bytes, native) or `.u64` (8 bytes, a
    /// compare-and-swap loop on sm_90).
    Add,
    /// `add.f32` (4 bytes): a compare-and-swap loop on sm_90.
    AddF32,
    /// `add.f64` (8 bytes): a compare-and-swap loop in the model (a modelling
    /// choice: not measured).
    AddF64,
    /// `exch.b32` / `exch.b64`: native at both widths.
    Exch,
    /// `cas.b32` / `cas.b64`: native, costing twice the other kinds.
    Cas,
    /// `min.u32`/`.s32`/`.u64`/`.s64`.
    Min,
    /// `max.u32`/`.s32`/`.u64`/`.s64`.
    Max,
    /// `inc.u32` (4 bytes only).
    Inc,
    /// `dec.u32` (4 bytes only).
    Dec,
    /// `and.b32` / `and.b64`.
    And,
    /// `or.b32` / `or.b64`.
    Or,
    /// `xor.b32` / `xor.b64`.
    Xor,
}

impl AtomicKind {
    /// Every kind.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::AtomicKind;
    ///
    /// assert_eq!(AtomicKind::ALL.len(), 12);
    /// assert!(AtomicKind::ALL.contains(&AtomicKind::Min));
    /// ```
    pub const ALL: [AtomicKind; 12] = [
        AtomicKind::Add,
        AtomicKind::AddF32,
        AtomicKind::AddF64,
        AtomicKind::Exch,
        AtomicKind::Cas,
        AtomicKind::Min,
        AtomicKind::Max,
        AtomicKind::Inc,
        AtomicKind::Dec,
        AtomicKind::And,
        AtomicKind::Or,
        AtomicKind::Xor,
    ];

    /// The PTX spelling, as in `atom.shared.<kind>` (the corpus's `atom` field):
    /// `add`, `add.f32`, `add.f64`, `exch`, `cas`, `min`, `max`, `inc`, `dec`,
    /// `and`, `or`, `xor`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::AtomicKind;
    ///
    /// assert_eq!(AtomicKind::AddF64.ptx(), "add.f64");
    /// ```
    pub const fn ptx(self) -> &'static str {
        match self {
            AtomicKind::Add => "add",
            AtomicKind::AddF32 => "add.f32",
            AtomicKind::AddF64 => "add.f64",
            AtomicKind::Exch => "exch",
            AtomicKind::Cas => "cas",
            AtomicKind::Min => "min",
            AtomicKind::Max => "max",
            AtomicKind::Inc => "inc",
            AtomicKind::Dec => "dec",
            AtomicKind::And => "and",
            AtomicKind::Or => "or",
            AtomicKind::Xor => "xor",
        }
    }

    /// The widths the kind has in PTX for shared memory.
    ///
    /// Source: PTX ISA, `atom` and `red`: `inc`/`dec` are `.u32` only; float
    /// adds have the width of their type; the rest have 32- and 64-bit forms.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, AtomicKind};
    ///
    /// assert_eq!(AtomicKind::Inc.widths(), &[AccessWidth::B4]);
    /// assert_eq!(AtomicKind::Cas.widths(), &[AccessWidth::B4, AccessWidth::B8]);
    /// ```
    pub const fn widths(self) -> &'static [AccessWidth] {
        match self {
            AtomicKind::AddF32 | AtomicKind::Inc | AtomicKind::Dec => &[AccessWidth::B4],
            AtomicKind::AddF64 => &[AccessWidth::B8],
            AtomicKind::Add
            | AtomicKind::Exch
            | AtomicKind::Cas
            | AtomicKind::Min
            | AtomicKind::Max
            | AtomicKind::And
            | AtomicKind::Or
            | AtomicKind::Xor => &[AccessWidth::B4, AccessWidth::B8],
        }
    }

    /// The kind as it follows `ATOMS.` in [`Op`]'s display: the PTX spelling
    /// in capitals.
    const fn sass(self) -> &'static str {
        match self {
            AtomicKind::Add => "ADD",
            AtomicKind::AddF32 => "ADD.F32",
            AtomicKind::AddF64 => "ADD.F64",
            AtomicKind::Exch => "EXCH",
            AtomicKind::Cas => "CAS",
            AtomicKind::Min => "MIN",
            AtomicKind::Max => "MAX",
            AtomicKind::Inc => "INC",
            AtomicKind::Dec => "DEC",
            AtomicKind::And => "AND",
            AtomicKind::Or => "OR",
            AtomicKind::Xor => "XOR",
        }
    }

    /// Whether `red.shared` has the kind: every kind but `exch` and `cas`
    /// (PTX ISA, `red`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::AtomicKind;
    ///
    /// assert!(AtomicKind::Add.has_reduction());
    /// assert!(!AtomicKind::Cas.has_reduction());
    /// ```
    pub const fn has_reduction(self) -> bool {
        !matches!(self, AtomicKind::Exch | AtomicKind::Cas)
    }
}

impl fmt::Display for AtomicKind {
    /// Writes the PTX spelling ([`AtomicKind::ptx`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx())
    }
}

impl core::str::FromStr for AtomicKind {
    type Err = Error;

    /// Parses the PTX spelling ([`AtomicKind::ptx`]); `add.u32`, `add.s32`,
    /// `add.u64` and the like name [`AtomicKind::Add`] and its siblings too,
    /// since the type of an integer kind only decides its width.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownAtomic`] naming the text.
    fn from_str(text: &str) -> Result<Self, Error> {
        let (name, ty) = match text.split_once('.') {
            Some((name, ty)) => (name, Some(ty)),
            None => (text, None),
        };
        let integer = matches!(
            ty,
            None | Some("u32" | "s32" | "b32" | "u64" | "s64" | "b64")
        );
        Ok(match (name, ty) {
            ("add", Some("f32")) => AtomicKind::AddF32,
            ("add", Some("f64")) => AtomicKind::AddF64,
            ("add", _) if integer => AtomicKind::Add,
            ("exch", _) if integer => AtomicKind::Exch,
            ("cas", _) if integer => AtomicKind::Cas,
            ("min", _) if integer => AtomicKind::Min,
            ("max", _) if integer => AtomicKind::Max,
            ("inc", _) if integer => AtomicKind::Inc,
            ("dec", _) if integer => AtomicKind::Dec,
            ("and", _) if integer => AtomicKind::And,
            ("or", _) if integer => AtomicKind::Or,
            ("xor", _) if integer => AtomicKind::Xor,
            _ => {
                return Err(Error::UnknownAtomic {
                    given: crate::error::bounded(text),
                })
            }
        })
    }
}

/// The cache qualifier of `cp.async`: `.ca` (through L1) or `.cg` (bypassing L1).
///
/// Only the shared-memory side of the copy is modelled (tests/data/hw-corpus/sm90-cp-async.jsonl,
/// measured on sm_90).
///
/// # Example
///
/// ```
/// use smem_model::{CpAsync, Op};
///
/// assert_eq!(Op::CpAsync(CpAsync::Ca).to_string(), "LDGSTS");
/// assert_eq!(Op::CpAsync(CpAsync::Cg).to_string(), "LDGSTS.BYPASS");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CpAsync {
    /// `cp.async.ca.shared.global` of 4, 8 or 16 bytes (`LDGSTS.E`, `.E.64`, `.E.128`).
    Ca,
    /// `cp.async.cg.shared.global` of 16 bytes (`LDGSTS.E.BYPASS.128`): its
    /// shared-memory writes are not seen by Nsight Compute's l1tex LSU
    /// wavefront counters (measured on sm_90), only by the SASS-level
    /// `sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts`.
    Cg,
}

/// The operation of a shared-memory instruction.
///
/// The op decides the phase split and, for some ops, the access widths it
/// has; its `Display` form is the SASS mnemonic family, as in Nsight Compute's
/// source view.
///
/// # Example
///
/// ```
/// use smem_model::{AccessWidth, AtomicKind, Matrices, Op};
///
/// // atomicAdd(&hist[bin], 1) on shared memory compiles to ATOMS.ADD.
/// let op = Op::Atomic(AtomicKind::Add);
/// assert_eq!(op.to_string(), "ATOMS.ADD");
/// assert!(op.writes());
/// assert_eq!(op.widths(), &[AccessWidth::B4, AccessWidth::B8]);
/// assert_eq!(Op::StMatrix(Matrices::X2).to_string(), "STSM.x2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Op {
    /// A load (`LDS`, `ld.shared`).
    Load,
    /// A store (`STS`, `st.shared`).
    Store,
    /// An atomic read-modify-write with a return value (`atom.shared.*`:
    /// `ATOMS`, or nvcc's compare-and-swap loop for the kinds it emulates).
    Atomic(AtomicKind),
    /// A reduction: an atomic without a return value (`red.shared.*`; SASS
    /// issues `ATOMS` with `RZ` as the destination). Costed as the atomic
    /// (measured on sm_90 for add; the other kinds a modelling choice).
    Reduction(AtomicKind),
    /// `ldmatrix.sync.aligned.m8n8` (`LDSM`): loads 8x8 matrices of 16-bit
    /// elements, each row 16 bytes at an address given by one lane.
    LdMatrix(Matrices),
    /// `stmatrix.sync.aligned.m8n8` (`STSM`): the store counterpart of `LdMatrix`.
    StMatrix(Matrices),
    /// `cp.async` (`LDGSTS`): an asynchronous copy from global to shared memory;
    /// the model covers its shared-memory writes.
    CpAsync(CpAsync),
}

impl Op {
    /// `atom.shared.add.u32`, the atomic the model had before every kind
    /// was modelled: `Op::Atomic(AtomicKind::Add)`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, Op};
    ///
    /// assert_eq!(Op::ATOMIC_ADD, Op::Atomic(AtomicKind::Add));
    /// ```
    pub const ATOMIC_ADD: Op = Op::Atomic(AtomicKind::Add);

    /// Every op, each atomic kind and matrix form spelled out: loads,
    /// stores, the atomics, the reductions (every kind but `exch` and `cas`),
    /// `ldmatrix`, `stmatrix` (plain and `.trans`) and `cp.async`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op};
    ///
    /// // What a Turing GPU has: no stmatrix, no cp.async.
    /// let turing = BankConfig::new(ComputeCapability::Sm75);
    /// let ops = Op::ALL.iter().filter(|&&op| turing.check_op(op).is_ok()).count();
    /// assert_eq!(ops, Op::ALL.len() - 8);
    /// ```
    pub const ALL: [Op; 38] = {
        use AtomicKind as K;
        [
            Op::Load,
            Op::Store,
            Op::Atomic(K::Add),
            Op::Atomic(K::AddF32),
            Op::Atomic(K::AddF64),
            Op::Atomic(K::Exch),
            Op::Atomic(K::Cas),
            Op::Atomic(K::Min),
            Op::Atomic(K::Max),
            Op::Atomic(K::Inc),
            Op::Atomic(K::Dec),
            Op::Atomic(K::And),
            Op::Atomic(K::Or),
            Op::Atomic(K::Xor),
            Op::Reduction(K::Add),
            Op::Reduction(K::AddF32),
            Op::Reduction(K::AddF64),
            Op::Reduction(K::Min),
            Op::Reduction(K::Max),
            Op::Reduction(K::Inc),
            Op::Reduction(K::Dec),
            Op::Reduction(K::And),
            Op::Reduction(K::Or),
            Op::Reduction(K::Xor),
            Op::LdMatrix(Matrices::X1),
            Op::LdMatrix(Matrices::X2),
            Op::LdMatrix(Matrices::X4),
            Op::LdMatrix(Matrices::X1Trans),
            Op::LdMatrix(Matrices::X2Trans),
            Op::LdMatrix(Matrices::X4Trans),
            Op::StMatrix(Matrices::X1),
            Op::StMatrix(Matrices::X2),
            Op::StMatrix(Matrices::X4),
            Op::StMatrix(Matrices::X1Trans),
            Op::StMatrix(Matrices::X2Trans),
            Op::StMatrix(Matrices::X4Trans),
            Op::CpAsync(CpAsync::Ca),
            Op::CpAsync(CpAsync::Cg),
        ]
    };

    /// Whether the op writes shared memory.
    ///
    /// Writes never merge phases and never broadcast.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, CpAsync, Matrices, Op};
    ///
    /// assert!(!Op::Load.writes());
    /// assert!(!Op::LdMatrix(Matrices::X4).writes());
    /// assert!(Op::Store.writes());
    /// // An atomic reads and writes; cp.async writes shared memory.
    /// assert!(Op::Atomic(AtomicKind::Cas).writes());
    /// assert!(Op::CpAsync(CpAsync::Cg).writes());
    /// ```
    pub const fn writes(self) -> bool {
        !matches!(self, Op::Load | Op::LdMatrix(_))
    }

    /// The atomic kind, for atomics and reductions.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, Op};
    ///
    /// assert_eq!(Op::Reduction(AtomicKind::Or).atomic(), Some(AtomicKind::Or));
    /// assert_eq!(Op::Load.atomic(), None);
    /// ```
    pub const fn atomic(self) -> Option<AtomicKind> {
        match self {
            Op::Atomic(kind) | Op::Reduction(kind) => Some(kind),
            _ => None,
        }
    }

    /// Whether nvcc emulates the op at `width` with a compare-and-swap loop
    /// (LDS + `ATOMS.CAST.SPIN`, repeated): `add.f32`, 64-bit integer `add`
    /// (both measured on sm_90, tests/data/hw-corpus/sm90-atomics.jsonl), and, as a modelling
    /// choice until measured, `add.f64` and the 64-bit `min`, `max`, `and`,
    /// `or`, `xor`. Only `exch` and `cas` are native at 64 bits.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, AtomicKind, Op};
    ///
    /// assert!(Op::Atomic(AtomicKind::AddF32).is_cas_loop(AccessWidth::B4));
    /// assert!(Op::Reduction(AtomicKind::Add).is_cas_loop(AccessWidth::B8));
    /// assert!(!Op::Atomic(AtomicKind::Add).is_cas_loop(AccessWidth::B4));
    /// assert!(!Op::Atomic(AtomicKind::Exch).is_cas_loop(AccessWidth::B8));
    /// ```
    pub const fn is_cas_loop(self, width: AccessWidth) -> bool {
        match self.atomic() {
            Some(AtomicKind::AddF32 | AtomicKind::AddF64) => true,
            Some(AtomicKind::Exch | AtomicKind::Cas) | None => false,
            Some(_) => matches!(width, AccessWidth::B8),
        }
    }

    /// The widths the op has: every width for loads and stores; 16 bytes (a
    /// matrix row) for `ldmatrix`/`stmatrix` and `cp.async.cg`; 4, 8 and 16
    /// for `cp.async.ca`; [`AtomicKind::widths`] for atomics and reductions.
    ///
    /// Building a request of another width is an [`Error::WidthMismatch`]
    /// (ops of one width) or an [`Error::WidthUnavailable`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, CpAsync, Op};
    ///
    /// assert_eq!(Op::Load.widths().len(), 5);
    /// assert_eq!(Op::CpAsync(CpAsync::Ca).widths(), &[AccessWidth::B4, AccessWidth::B8, AccessWidth::B16]);
    /// ```
    pub const fn widths(self) -> &'static [AccessWidth] {
        match self {
            Op::Load | Op::Store => &[
                AccessWidth::B1,
                AccessWidth::B2,
                AccessWidth::B4,
                AccessWidth::B8,
                AccessWidth::B16,
            ],
            Op::Atomic(kind) | Op::Reduction(kind) => kind.widths(),
            Op::LdMatrix(_) | Op::StMatrix(_) | Op::CpAsync(CpAsync::Cg) => &[AccessWidth::B16],
            Op::CpAsync(CpAsync::Ca) => &[AccessWidth::B4, AccessWidth::B8, AccessWidth::B16],
        }
    }

    /// The only width the op has, if it has only one.
    ///
    /// Building a request of such an op with another width is an
    /// [`Error::WidthMismatch`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, AtomicKind, Matrices, Op};
    ///
    /// assert_eq!(Op::Load.fixed_width(), None);
    /// assert_eq!(Op::Atomic(AtomicKind::Inc).fixed_width(), Some(AccessWidth::B4));
    /// assert_eq!(Op::Atomic(AtomicKind::Add).fixed_width(), None);
    /// // Each ldmatrix lane gives a 16-byte row: 8 halves.
    /// assert_eq!(Op::LdMatrix(Matrices::X1).fixed_width(), Some(AccessWidth::B16));
    /// ```
    pub const fn fixed_width(self) -> Option<AccessWidth> {
        match self.widths() {
            [only] => Some(*only),
            _ => None,
        }
    }

    /// Checks that the op has `width`.
    ///
    /// # Errors
    ///
    /// [`Error::WidthMismatch`] for an op of one width given another;
    /// [`Error::WidthUnavailable`] for one of several widths given none of them;
    /// [`Error::NoReduction`] for `red` of `exch` or `cas`, which PTX lacks.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, AtomicKind, Error, Op};
    ///
    /// assert_eq!(Op::Atomic(AtomicKind::Cas).check_width(AccessWidth::B8), Ok(()));
    /// let err = Op::Atomic(AtomicKind::Min).check_width(AccessWidth::B2).unwrap_err();
    /// assert_eq!(err.to_string(), "ATOMS.MIN has no 2-byte form: it takes 4 or 8 bytes per lane");
    /// ```
    pub fn check_width(self, width: AccessWidth) -> Result<(), Error> {
        if matches!(self, Op::Load | Op::Store) {
            return Ok(());
        }
        if let Op::Reduction(kind @ (AtomicKind::Exch | AtomicKind::Cas)) = self {
            return Err(Error::NoReduction { kind });
        }
        let widths = self.widths();
        if widths.contains(&width) {
            return Ok(());
        }
        Err(match widths {
            [only] => Error::WidthMismatch {
                op: self,
                width: width.bytes(),
                expected: only.bytes(),
            },
            _ => Error::WidthUnavailable {
                op: self,
                width: width.bytes(),
            },
        })
    }

    /// The lanes whose addresses the op uses: all 32, except for the matrix ops.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{LaneSet, Matrices, Op};
    ///
    /// assert_eq!(Op::Store.address_lanes(), LaneSet::FULL);
    /// assert_eq!(Op::LdMatrix(Matrices::X2).address_lanes(), LaneSet::range(0, 16));
    /// ```
    pub const fn address_lanes(self) -> LaneSet {
        match self {
            Op::LdMatrix(m) | Op::StMatrix(m) => m.address_lanes(),
            _ => LaneSet::FULL,
        }
    }
}

impl fmt::Display for Op {
    /// Writes the SASS mnemonic family: `LDS`, `STS`, `ATOMS.CAS`, `RED.ADD`
    /// (PTX `red`, issued as `ATOMS` with no destination), `LDSM.x4`, `STSM.x2`,
    /// `LDGSTS`, `LDGSTS.BYPASS`. Atomics nvcc emulates keep their PTX kind
    /// (`ATOMS.ADD.F32`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Load => f.write_str("LDS"),
            Op::Store => f.write_str("STS"),
            Op::Atomic(kind) => write!(f, "ATOMS.{}", kind.sass()),
            Op::Reduction(kind) => write!(f, "RED.{}", kind.sass()),
            Op::LdMatrix(m) => write!(f, "LDSM.x{}{}", m.count(), m.trans_suffix()),
            Op::StMatrix(m) => write!(f, "STSM.x{}{}", m.count(), m.trans_suffix()),
            Op::CpAsync(CpAsync::Ca) => f.write_str("LDGSTS"),
            Op::CpAsync(CpAsync::Cg) => f.write_str("LDGSTS.BYPASS"),
        }
    }
}

impl core::str::FromStr for Op {
    type Err = Error;

    /// Reads an op by any name [`OpName`] reads: SASS (`LDS.U.128`,
    /// `ATOMS.CAS.64`, `LDSM.16.MT88.4`, `LDGSTS.E.BYPASS.128`), PTX
    /// (`ld.shared.v4.f32`, `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`,
    /// `cp.async.cg.shared.global`) or the short names and the
    /// [`Display`](fmt::Display) form (`LDS`, `store`, `atom.cas`,
    /// `red.add.f32`, `ldsm.x4.trans`, `cp.async.ca`), in any case. An atomic
    /// without a kind (`atom`, `ATOMS`, `red`) is `add`.
    ///
    /// The width a name gives (`.128`, `.u64`) is dropped here: parse an
    /// [`OpName`] to keep it and check a request's width against it.
    ///
    /// # Errors
    ///
    /// As [`OpName`]'s `from_str`: [`Error::UnknownOp`] for text that names no
    /// op, and the width errors for a size the op lacks (`ATOMS.INC.64`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, CpAsync, Error, Matrices, Op};
    ///
    /// assert_eq!("LDS".parse::<Op>()?, Op::Load);
    /// assert_eq!("LDS.U.128".parse::<Op>()?, Op::Load);
    /// assert_eq!("store".parse::<Op>()?, Op::Store);
    /// assert_eq!("ldmatrix.x4".parse::<Op>()?, Op::LdMatrix(Matrices::X4));
    /// assert_eq!("LDSM.16.MT88.4".parse::<Op>()?, Op::LdMatrix(Matrices::X4Trans));
    /// assert_eq!("atom.shared.cas.b64".parse::<Op>()?, Op::Atomic(AtomicKind::Cas));
    /// assert_eq!("red.add.f32".parse::<Op>()?, Op::Reduction(AtomicKind::AddF32));
    /// assert_eq!("atom".parse::<Op>()?, Op::ATOMIC_ADD);
    /// assert_eq!("cp.async.cg.shared.global".parse::<Op>()?, Op::CpAsync(CpAsync::Cg));
    /// // Every op reads back from its Display form.
    /// for op in Op::ALL {
    ///     assert_eq!(op.to_string().parse::<Op>()?, op);
    /// }
    /// assert!(matches!("ldmatrix.x3".parse::<Op>(), Err(Error::UnknownOp { .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Self, Error> {
        text.parse::<OpName>().map(OpName::op)
    }
}

/// The bytes each lane accesses: 1, 2, 4, 8 or 16.
///
/// An enum rather than a number so that a width, once built, is always one the
/// hardware has. Wider accesses are served in more phases (see
/// [`BankConfig`](crate::BankConfig)).
///
/// # Example
///
/// ```
/// use smem_model::AccessWidth;
///
/// // float4 v = reinterpret_cast<float4*>(s)[lane]: one LDS.128.
/// let width = AccessWidth::from_bytes(16)?;
/// assert_eq!(width, AccessWidth::B16);
/// assert_eq!(width.bytes(), 16);
/// assert_eq!(u32::from(width), 16);
/// assert!(AccessWidth::B4 < AccessWidth::B8);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "u32", try_from = "u32"))]
pub enum AccessWidth {
    /// 8 bits (`char`).
    B1,
    /// 16 bits (`short`, `half`).
    B2,
    /// 32 bits (`int`, `float`).
    B4,
    /// 64 bits (`double`, `float2`).
    B8,
    /// 128 bits (`float4`).
    B16,
}

impl AccessWidth {
    /// The width of `bytes` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidWidth`] unless `bytes` is 1, 2, 4, 8 or 16.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, Error};
    ///
    /// // sizeof(double)
    /// assert_eq!(AccessWidth::from_bytes(8)?, AccessWidth::B8);
    /// // A float3 is not one access: it compiles to three 4-byte ones.
    /// assert_eq!(AccessWidth::from_bytes(12), Err(Error::InvalidWidth { width: 12 }));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn from_bytes(bytes: u32) -> Result<Self, Error> {
        Ok(match bytes {
            1 => AccessWidth::B1,
            2 => AccessWidth::B2,
            4 => AccessWidth::B4,
            8 => AccessWidth::B8,
            16 => AccessWidth::B16,
            width => return Err(Error::InvalidWidth { width }),
        })
    }

    /// The width in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, WarpRequest};
    ///
    /// let float4 = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get()))?;
    /// assert_eq!(float4.width().bytes(), 16);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn bytes(self) -> u32 {
        match self {
            AccessWidth::B1 => 1,
            AccessWidth::B2 => 2,
            AccessWidth::B4 => 4,
            AccessWidth::B8 => 8,
            AccessWidth::B16 => 16,
        }
    }
}

impl TryFrom<u32> for AccessWidth {
    type Error = Error;
    fn try_from(bytes: u32) -> Result<Self, Error> {
        AccessWidth::from_bytes(bytes)
    }
}

impl From<AccessWidth> for u32 {
    fn from(width: AccessWidth) -> u32 {
        width.bytes()
    }
}

/// One warp-wide shared-memory instruction: its op, its access width, and for
/// each of the 32 lanes a byte address in the shared window, or nothing when the
/// lane is inactive.
///
/// Construction checks what does not depend on the compute capability: the width,
/// the alignment of every active address (the hardware faults on a misaligned
/// one) and 32-bit overflow. What depends on it (the op's availability, the size
/// of the shared window) is checked by [`BankConfig::partition`](crate::BankConfig::partition).
///
/// For `ldmatrix`/`stmatrix` only lanes `0..8 * matrices` give addresses, as in
/// PTX; the other lanes' addresses are ignored and those lanes are inactive.
///
/// A request with no active lane is valid: it takes no wavefront.
///
/// # Example
///
/// ```
/// use smem_model::{AccessWidth, LaneSet, Op, WarpRequest};
///
/// // From a closure of the lane: `s[lane]` on floats.
/// let a = WarpRequest::from_fn(Op::Load, 4, |lane| Some(lane.get() * 4))?;
/// assert_eq!((a.op(), a.width()), (Op::Load, AccessWidth::B4));
/// assert_eq!(a.active(), LaneSet::FULL);
/// // From an array, with an inactive lane.
/// let mut addrs = [Some(0); 32];
/// addrs[3] = None;
/// let b = WarpRequest::new(Op::Store, 4, addrs)?;
/// assert_eq!(b.active().len(), 31);
/// // From an iterator, then restricted to the lower half-warp.
/// let c = WarpRequest::try_from_iter(Op::Load, 8, (0..32).map(|i| Some(i * 8)))?
///     .with_mask(LaneSet::from_bits(0xffff));
/// assert_eq!(c.active().len(), 16);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct WarpRequest {
    op: Op,
    width: AccessWidth,
    active: LaneSet,
    addresses: [u32; WARP_SIZE],
}

impl WarpRequest {
    /// A request from one optional address per lane.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`] when `width` is not 1, 2, 4, 8 or 16.
    /// - [`Error::WidthMismatch`] when `op` has a fixed width (4 for atomics, 16 for
    ///   the matrix ops) and `width` is another.
    /// - [`Error::Misaligned`] when an active lane's address is not a multiple of
    ///   `width`.
    ///
    /// An aligned access never runs past `u32::MAX` (the width divides 2^32);
    /// accesses past the capability's shared window, the top of the address
    /// space included, are refused by [`BankConfig::partition`](crate::BankConfig::partition).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, WarpRequest};
    ///
    /// // int s[]; if (lane % 2 == 0) s[lane] = x;
    /// let mut addresses = [None; 32];
    /// for lane in (0..32).step_by(2) {
    ///     addresses[lane] = Some(4 * lane as u32);
    /// }
    /// let request = WarpRequest::new(Op::Store, 4, addresses)?;
    /// assert_eq!(request.active().bits(), 0x5555_5555);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn new(op: Op, width: u32, addresses: [Option<u32>; WARP_SIZE]) -> Result<Self, Error> {
        Self::from_fn(op, width, |lane| addresses[lane.index()])
    }

    /// A request from a slice of exactly 32 optional addresses.
    ///
    /// # Errors
    ///
    /// [`Error::LaneCount`] when the slice does not hold 32 entries; otherwise
    /// [`Error::InvalidWidth`], [`Error::WidthMismatch`], [`Error::Misaligned`], as
    /// [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Lane, Op, WarpRequest};
    ///
    /// // Addresses collected at run time, e.g. from a trace.
    /// let trace: Vec<Option<u32>> = (0..32).map(|lane| Some(0x400 + 4 * lane)).collect();
    /// let request = WarpRequest::from_slice(Op::Load, 4, &trace)?;
    /// assert_eq!(request.address(Lane::new(1)?), Some(0x404));
    /// // Half a warp is not a request.
    /// assert_eq!(
    ///     WarpRequest::from_slice(Op::Load, 4, &trace[..16]),
    ///     Err(Error::LaneCount { given: 16 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_slice(op: Op, width: u32, addresses: &[Option<u32>]) -> Result<Self, Error> {
        let addresses: &[Option<u32>; WARP_SIZE] =
            addresses.try_into().map_err(|_| Error::LaneCount {
                given: addresses.len(),
            })?;
        Self::new(op, width, *addresses)
    }

    /// A request whose lane `l` has the address `f(l)`, or is inactive when `f`
    /// returns `None`.
    ///
    /// The closest to kernel code: the closure is the index expression, with the
    /// lane in place of `threadIdx.x % 32`, and `None` where the lane is masked off.
    ///
    /// Cost: 32 calls of `f` and a few nanoseconds more; no allocation.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidWidth`], [`Error::WidthMismatch`], [`Error::Misaligned`], as
    /// [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Matrices, Op, WarpRequest};
    ///
    /// // float s[]; if (lane < 24) v = s[2 * lane];
    /// let request =
    ///     WarpRequest::from_fn(Op::Load, 4, |lane| (lane.get() < 24).then(|| 8 * lane.get()))?;
    /// assert_eq!(request.active().len(), 24);
    ///
    /// // ldmatrix.x1: rows of a row-major 8x64 half tile, 128 bytes apart. Lanes 8
    /// // to 31 give no row, so their addresses are ignored.
    /// let rows = |lane: Lane| Some(128 * lane.get());
    /// let x1 = WarpRequest::from_fn(Op::LdMatrix(Matrices::X1), 16, rows)?;
    /// assert_eq!(x1.active().to_string(), "0-7");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_fn(
        op: Op,
        width: u32,
        mut f: impl FnMut(Lane) -> Option<u32>,
    ) -> Result<Self, Error> {
        let width = checked_width(op, width)?;
        let mut request = WarpRequest {
            op,
            width,
            active: LaneSet::EMPTY,
            addresses: [0; WARP_SIZE],
        };
        // Lane sets as plain bits and the alignment checked once for the warp:
        // this constructor sits in every trace reader's inner loop.
        let address_lanes = op.address_lanes().bits();
        let low_bits = width.bytes() - 1;
        let (mut active, mut misaligned) = (0u32, 0u32);
        for (index, slot) in request.addresses.iter_mut().enumerate() {
            let address = f(Lane::from_index(index));
            // Without branches: a lane's bit is 1 when it gives an address
            // the op reads (inactive lanes keep address 0).
            let on = u32::from(address.is_some()) & (address_lanes >> index);
            let address = address.unwrap_or(0) & on.wrapping_neg();
            *slot = address;
            active |= on << index;
            misaligned |= u32::from(address & low_bits != 0) << index;
        }
        if misaligned != 0 {
            // The first misaligned lane, as a lane-by-lane check would report.
            let lane = Lane::from_index(misaligned.trailing_zeros() as usize);
            check_address(lane, request.addresses[lane.index()], width)?;
        }
        request.active = LaneSet::from_bits(active);
        Ok(request)
    }

    /// A request from an iterator of exactly 32 optional addresses.
    ///
    /// # Errors
    ///
    /// [`Error::LaneCount`] when the iterator does not yield 32 items; otherwise
    /// [`Error::InvalidWidth`], [`Error::WidthMismatch`], [`Error::Misaligned`], as
    /// [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, Op, WarpRequest};
    ///
    /// // s[lane % 4]: four words, each read by eight lanes and broadcast.
    /// let offsets = [0, 4, 8, 12].into_iter().cycle().take(32).map(Some);
    /// let request = WarpRequest::try_from_iter(Op::Load, 4, offsets)?;
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).wavefronts(&request)?, 1);
    ///
    /// let short = WarpRequest::try_from_iter(Op::Load, 4, (0..31).map(|lane| Some(4 * lane)));
    /// assert_eq!(short, Err(Error::LaneCount { given: 31 }));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn try_from_iter(
        op: Op,
        width: u32,
        addresses: impl IntoIterator<Item = Option<u32>>,
    ) -> Result<Self, Error> {
        let addresses: SmallVec<[Option<u32>; WARP_SIZE]> = addresses.into_iter().collect();
        Self::from_slice(op, width, &addresses)
    }

    /// A request from what a simulator holds: an active mask and 32 byte
    /// offsets into the shared window, one per lane.
    ///
    /// The lanes outside `mask` are inactive and their offsets are ignored,
    /// whatever they hold (stale values from an earlier instruction are fine: an
    /// inactive lane is never [`Error::Misaligned`]). For `ldmatrix`/`stmatrix`
    /// the lanes past `8 * matrices` are inactive too, as in [`new`](Self::new).
    ///
    /// Cost: a few nanoseconds (one branch-free pass over the 32 lanes, no
    /// allocation); below [`BankConfig::wavefronts`](crate::BankConfig::wavefronts)
    /// of the same request (see `benches/partition.rs`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidWidth`], [`Error::WidthMismatch`], and
    /// [`Error::Misaligned`] naming the lowest active lane whose offset is not a
    /// multiple of `width`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, Lane, LaneSet, Op, WarpRequest};
    ///
    /// // A simulator's view of `if (lane < 16) v = s[2 * lane];`: the upper lanes
    /// // hold stale, misaligned offsets.
    /// let mut offsets = [3u32; 32];
    /// for lane in 0..16 {
    ///     offsets[lane] = 8 * lane as u32;
    /// }
    /// let request = WarpRequest::from_offsets(Op::Load, 4, LaneSet::from_bits(0xffff), &offsets)?;
    /// assert_eq!(request.address(Lane::new(20)?), None);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).wavefronts(&request)?, 1);
    /// // An active lane's offset must be aligned.
    /// assert_eq!(
    ///     WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, &offsets),
    ///     Err(Error::Misaligned { lane: 16, address: 3, width: 4 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_offsets(
        op: Op,
        width: u32,
        mask: LaneSet,
        offsets: &[u32; WARP_SIZE],
    ) -> Result<Self, Error> {
        let width = checked_width(op, width)?;
        let active = mask.bits() & op.address_lanes().bits();
        let low_bits = width.bytes() - 1;
        let mut addresses = [0u32; WARP_SIZE];
        let mut misaligned = 0u32;
        // Branch-free and vectorisable: inactive lanes become 0 (so that equal
        // requests compare and hash equal) and so are never misaligned.
        for ((slot, &offset), &bit) in addresses.iter_mut().zip(offsets).zip(&LANE_BITS) {
            let keep = u32::from(active & bit != 0).wrapping_neg();
            *slot = offset & keep;
            misaligned |= *slot & low_bits;
        }
        if misaligned != 0 {
            first_misaligned(&addresses, width)?;
        }
        Ok(WarpRequest {
            op,
            width,
            active: LaneSet::from_bits(active),
            addresses,
        })
    }

    /// A request from an active mask and 32 generic (flat) addresses, translated
    /// into the shared window that starts at generic address `window_base`.
    ///
    /// This is `cvta.to.shared`: an active lane's shared offset is
    /// `address - window_base`, and the window spans the 4 GiB of offsets a
    /// `u32` holds. Whether the offset lies inside the shared memory the
    /// capability has is then checked by
    /// [`BankConfig::partition`](crate::BankConfig::partition) (as
    /// [`Error::OutsideWindow`]). Lanes outside `mask` are ignored, as in
    /// [`from_offsets`](Self::from_offsets).
    ///
    /// Cost: a few nanoseconds, as [`from_offsets`](Self::from_offsets); no
    /// allocation.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`], [`Error::WidthMismatch`] as [`new`](Self::new).
    /// - [`Error::OutsideGenericWindow`] naming the lowest active lane whose
    ///   address is below `window_base` or 4 GiB or more above it.
    /// - [`Error::Misaligned`] naming the lowest active lane whose shared offset
    ///   is not a multiple of `width`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Lane, LaneSet, Op, WarpRequest};
    ///
    /// // GPGPU-Sim-style generic addresses: the shared window of this SM starts at
    /// // 0x7f00_0000_0000. Lane 31 is inactive and holds a global address.
    /// let base = 0x7f00_0000_0000u64;
    /// let mut addresses = [0xdead_beefu64; 32];
    /// for lane in 0..31 {
    ///     addresses[lane] = base + 0x100 + 4 * lane as u64;
    /// }
    /// let mask = LaneSet::from_bits(0x7fff_ffff);
    /// let request = WarpRequest::from_generic(Op::Store, 4, mask, &addresses, base)?;
    /// assert_eq!(request.address(Lane::new(1)?), Some(0x104));
    /// assert_eq!(request.address(Lane::new(31)?), None);
    /// // An active lane outside the window is an error naming it.
    /// let err = WarpRequest::from_generic(Op::Store, 4, LaneSet::FULL, &addresses, base);
    /// assert_eq!(
    ///     err,
    ///     Err(Error::OutsideGenericWindow { lane: 31, address: 0xdead_beef, base })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_generic(
        op: Op,
        width: u32,
        mask: LaneSet,
        addresses: &[u64; WARP_SIZE],
        window_base: u64,
    ) -> Result<Self, Error> {
        let width = checked_width(op, width)?;
        let active = mask.bits() & op.address_lanes().bits();
        let low_bits = width.bytes() - 1;
        // One branch-free pass that vectorises: inactive lanes become 0, and
        // an address below the base wraps round to a huge offset, so one test
        // of the high half covers both ends of the window.
        let mut offsets = [0u32; WARP_SIZE];
        let (mut outside, mut misaligned) = (0u32, 0u32);
        for i in 0..WARP_SIZE {
            let keep = u32::from(active & LANE_BITS[i] != 0).wrapping_neg();
            let offset = addresses[i].wrapping_sub(window_base);
            let low = offset as u32 & keep;
            outside |= (offset >> 32) as u32 & keep;
            misaligned |= low & low_bits;
            offsets[i] = low;
        }
        if outside != 0 {
            let index = (0..WARP_SIZE)
                .find(|&i| {
                    active >> i & 1 == 1 && addresses[i].wrapping_sub(window_base) >> 32 != 0
                })
                .unwrap_or(0);
            return Err(Error::OutsideGenericWindow {
                lane: index as u8,
                address: addresses[index],
                base: window_base,
            });
        }
        if misaligned != 0 {
            first_misaligned(&offsets, width)?;
        }
        Ok(WarpRequest {
            op,
            width,
            active: LaneSet::from_bits(active),
            addresses: offsets,
        })
    }

    /// The same request with every lane outside `mask` made inactive.
    ///
    /// A mask only removes lanes: a lane that is inactive stays inactive.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet, Op, WarpRequest};
    ///
    /// // The last iteration of a loop over 52 floats: only lanes 0-19 are in bounds.
    /// let full = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * (32 + lane.get())))?;
    /// let tail = full.with_mask(LaneSet::range(0, 52 - 32));
    /// assert_eq!(tail.active().len(), 20);
    /// assert_eq!(tail.address(Lane::new(25)?), None);
    /// assert_eq!(tail.with_mask(LaneSet::FULL).active(), tail.active());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn with_mask(mut self, mask: LaneSet) -> Self {
        self.active = self.active.intersection(mask);
        // Inactive lanes hold 0, so that equal requests compare and hash equal.
        let active = self.active.bits();
        for (index, address) in self.addresses.iter_mut().enumerate() {
            *address &= ((active >> index) & 1).wrapping_neg();
        }
        self
    }

    /// The operation.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{LaneSet, Op, WarpRequest};
    ///
    /// // Only the lower half-warp stores.
    /// let request = WarpRequest::from_fn(Op::Store, 8, |lane| (lane.get() < 16).then(|| 8 * lane.get()))?;
    /// assert_eq!(request.op(), Op::Store);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn op(&self) -> Op {
        self.op
    }

    /// The access width of each lane.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{LaneSet, Op, WarpRequest};
    ///
    /// // Only the lower half-warp stores.
    /// let request = WarpRequest::from_fn(Op::Store, 8, |lane| (lane.get() < 16).then(|| 8 * lane.get()))?;
    /// assert_eq!(request.width().bytes(), 8);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn width(&self) -> AccessWidth {
        self.width
    }

    /// The active lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{LaneSet, Op, WarpRequest};
    ///
    /// // Only the lower half-warp stores.
    /// let request = WarpRequest::from_fn(Op::Store, 8, |lane| (lane.get() < 16).then(|| 8 * lane.get()))?;
    /// assert_eq!(request.active(), LaneSet::range(0, 16));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn active(&self) -> LaneSet {
        self.active
    }

    /// The address of `lane`, or `None` when it is inactive.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, WarpRequest};
    ///
    /// // double s[]; if (lane != 3) v = s[lane];
    /// let request =
    ///     WarpRequest::from_fn(Op::Load, 8, |lane| (lane.get() != 3).then(|| 8 * lane.get()))?;
    /// assert_eq!(request.address(Lane::new(2)?), Some(16));
    /// assert_eq!(request.address(Lane::new(3)?), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn address(&self, lane: Lane) -> Option<u32> {
        self.active
            .contains(lane)
            .then(|| self.addresses[lane.index()])
    }

    /// Each active lane with its address, in lane order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, WarpRequest};
    ///
    /// // Only the first three lanes load a double.
    /// let request =
    ///     WarpRequest::from_fn(Op::Load, 8, |lane| (lane.get() < 3).then(|| 8 * lane.get()))?;
    /// let pairs: Vec<(u32, u32)> =
    ///     request.active_addresses().map(|(lane, address)| (lane.get(), address)).collect();
    /// assert_eq!(pairs, [(0, 0), (1, 8), (2, 16)]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn active_addresses(&self) -> impl Iterator<Item = (Lane, u32)> + '_ {
        self.active
            .iter()
            .map(|lane| (lane, self.addresses[lane.index()]))
    }

    /// The active lanes as bits and the 32 addresses (inactive lanes' are
    /// meaningless): what an inner loop over the lanes reads without the
    /// lane set's iterator.
    pub(crate) const fn raw(&self) -> (u32, &[u32; WARP_SIZE]) {
        (self.active.bits(), &self.addresses)
    }

    /// The 32 lanes' addresses as an array, `None` for inactive lanes.
    ///
    /// The same form [`new`](Self::new) takes, so a request can be edited lane by
    /// lane and rebuilt.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, WarpRequest};
    ///
    /// // short s[]; if (lane % 4 != 0) s[lane] = x;
    /// let every_fourth_idle = |lane: Lane| (lane.get() % 4 != 0).then(|| 2 * lane.get());
    /// let request = WarpRequest::from_fn(Op::Store, 2, every_fourth_idle)?;
    /// let mut addresses = request.to_array();
    /// assert_eq!(addresses[..3], [None, Some(2), Some(4)]);
    /// addresses[0] = Some(0);
    /// assert_eq!(WarpRequest::new(Op::Store, 2, addresses)?.active().len(), 25);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn to_array(&self) -> [Option<u32>; WARP_SIZE] {
        core::array::from_fn(|i| self.address(Lane::from_index(i)))
    }

    /// A request of `op` at `width` (which the op has) whose `active` lanes
    /// are at `addresses` (aligned): for requests the model derives from
    /// checked ones, such as a compare-and-swap loop's loads.
    pub(crate) fn from_raw(
        op: Op,
        width: AccessWidth,
        active: LaneSet,
        addresses: &[u32; WARP_SIZE],
    ) -> WarpRequest {
        let bits = active.bits();
        WarpRequest {
            op,
            width,
            active,
            addresses: core::array::from_fn(|i| if bits >> i & 1 == 1 { addresses[i] } else { 0 }),
        }
    }

    /// The addresses as stored, inactive lanes included (their value is
    /// meaningless); for the scheduler's tight loops.
    pub(crate) const fn raw_addresses(&self) -> &[u32; WARP_SIZE] {
        &self.addresses
    }

    /// Lanes that write the same bytes in this instruction.
    ///
    /// When several lanes of one store write the same location, exactly one write
    /// lands and which one is undefined (CUDA C++ Programming Guide, shared-memory
    /// section of the compute-capability appendix). Accesses are aligned and of one
    /// width, so two lanes write the same bytes exactly when their addresses are
    /// equal; each collision is one such address with its lanes, in address order
    /// of first appearance (lowest lane first).
    ///
    /// Loads and atomics never collide: loads broadcast, and atomics are applied
    /// one after another.
    ///
    /// Cost: where the CPU has AVX2 and every key (address / width) is below
    /// 65,535 (every shared offset of 4 bytes or wider), one vectorised pass
    /// that marks each lane sharing its key with an earlier lane (the word
    /// path's 16-bit comparison), then, only when some lane does, each
    /// lane's first lane with its key and the groups in lane order; otherwise
    /// one pass that hashes the keys into 64 buckets and compares the lanes
    /// sharing a bucket. Measured on full-warp stores of the benchmark mixes
    /// (`examples/api_costs.rs`, `benches/partition.rs` group `api`): about
    /// 1.6 times [`BankConfig::wavefronts`](crate::BankConfig::wavefronts) of
    /// a 4-byte request for 4-byte stores and 1.9 times for 16-byte ones (33
    /// and 39 ns against 21 ns; 488 and 548 instructions against 265,
    /// callgrind); a few nanoseconds for loads. No allocation (at most 16
    /// collisions, all held inline).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, StoreOrder, WarpRequest};
    ///
    /// // Every lane stores to s[lane / 8].
    /// let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(lane.get() / 8 * 4))?;
    /// let collisions = store.write_collisions();
    /// assert_eq!(collisions.len(), 4);
    /// assert_eq!(collisions[1].address(), 4);
    /// assert_eq!(collisions[1].lanes().to_string(), "8-15");
    /// assert_eq!(collisions[1].winner(StoreOrder::HighestLane).map(|l| l.get()), Some(15));
    /// assert_eq!(collisions[1].winner(StoreOrder::Undefined), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn write_collisions(&self) -> SmallVec<[WriteCollision; 16]> {
        let mut collisions: SmallVec<[WriteCollision; 16]> = SmallVec::new();
        let active = self.active.bits();
        if !matches!(self.op, Op::Store | Op::StMatrix(_) | Op::CpAsync(_))
            || active.count_ones() < 2
        {
            return collisions;
        }
        // The phases of sm_90's stores (tests/data/hw-corpus/sm90-store-winners.jsonl).
        let phase_lanes = match (self.op, self.width) {
            (Op::StMatrix(_), _) | (_, AccessWidth::B16) => 8,
            (_, AccessWidth::B8) => 16,
            _ => 32,
        };
        // Accesses are aligned: two lanes write the same bytes exactly when
        // their keys (address / width) are equal.
        let shift = self.width.bytes().trailing_zeros();
        #[cfg(target_arch = "x86_64")]
        if let Some((followers, first)) =
            crate::partition::followers(&self.addresses, active, shift)
        {
            // Each lane that follows an earlier one with its key joins that
            // key's first lane; first lanes in increasing order are the
            // collisions in order of first appearance.
            let mut joined = [0u32; WARP_SIZE];
            let mut heads = 0u32;
            let mut rest = followers;
            while rest != 0 {
                let lane = rest.trailing_zeros();
                rest &= rest - 1;
                let head = u32::from(first[lane as usize]) & 31;
                heads |= 1 << head;
                joined[head as usize] |= 1 << lane;
            }
            while heads != 0 {
                let head = heads.trailing_zeros();
                heads &= heads - 1;
                collisions.push(WriteCollision {
                    address: self.addresses[head as usize],
                    lanes: LaneSet::from_bits(joined[head as usize] | 1 << head),
                    phase_lanes,
                });
            }
            return collisions;
        }
        self.write_collisions_hashed(active, shift, phase_lanes, &mut collisions);
        collisions
    }

    /// [`write_collisions`](Self::write_collisions) without the vectorised
    /// pass: the active lanes hashed by key into 64 buckets (strided stores
    /// land one lane a bucket); only lanes sharing a bucket can share an
    /// address, and each such bucket is split by address. At most 32 x 32
    /// comparisons however the addresses fall, usually none; no allocation.
    fn write_collisions_hashed(
        &self,
        active: u32,
        shift: u32,
        phase_lanes: u8,
        collisions: &mut SmallVec<[WriteCollision; 16]>,
    ) {
        let mut table = [0u32; 64];
        let (mut used, mut shared) = (0u64, 0u64);
        let mut rest = active;
        while rest != 0 {
            let lane = rest.trailing_zeros();
            rest &= rest - 1;
            let word = self.addresses[lane as usize] >> shift;
            let bucket = ((word ^ word >> 6 ^ word >> 12 ^ word >> 18) & 63) as usize;
            shared |= used & 1 << bucket;
            used |= 1 << bucket;
            table[bucket] |= 1 << lane;
        }
        while shared != 0 {
            let bucket = shared.trailing_zeros() as usize;
            shared &= shared - 1;
            let mut lanes = table[bucket];
            while lanes.count_ones() > 1 {
                let address = self.addresses[lanes.trailing_zeros() as usize];
                let mut same = 0u32;
                let mut rest = lanes;
                while rest != 0 {
                    let lane = rest.trailing_zeros();
                    rest &= rest - 1;
                    same |= u32::from(self.addresses[lane as usize] == address) << lane;
                }
                if same.count_ones() > 1 {
                    collisions.push(WriteCollision {
                        address,
                        lanes: LaneSet::from_bits(same),
                        phase_lanes,
                    });
                }
                lanes &= !same;
            }
        }
        // In order of first appearance: by lowest lane (stable, and at most 16).
        collisions.sort_unstable_by_key(|c| c.lanes.bits().trailing_zeros());
    }
}

/// Bit `i` for lane `i`: masks from a table rather than a variable shift, so
/// that the constructors' lane loops vectorise without AVX2.
const LANE_BITS: [u32; WARP_SIZE] = {
    let mut bits = [0; WARP_SIZE];
    let mut i = 0;
    while i < WARP_SIZE {
        bits[i] = 1 << i;
        i += 1;
    }
    bits
};

fn checked_width(op: Op, width: u32) -> Result<AccessWidth, Error> {
    let width = AccessWidth::from_bytes(width)?;
    op.check_width(width)?;
    Ok(width)
}

/// The error for the lowest lane of `addresses` (inactive lanes hold 0) that is
/// not a multiple of `width`; `Ok` when there is none.
#[cold]
fn first_misaligned(addresses: &[u32; WARP_SIZE], width: AccessWidth) -> Result<(), Error> {
    for (index, &address) in addresses.iter().enumerate() {
        check_address(Lane::from_index(index), address, width)?;
    }
    Ok(())
}

fn check_address(lane: Lane, address: u32, width: AccessWidth) -> Result<(), Error> {
    let bytes = width.bytes();
    if !address.is_multiple_of(bytes) {
        return Err(Error::Misaligned {
            lane: lane.index() as u8,
            address,
            width: bytes,
        });
    }
    // Aligned and a power of two wide, the access ends at or below 2^32.
    Ok(())
}

impl fmt::Debug for WarpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarpRequest")
            .field("op", &self.op)
            .field("width", &self.width.bytes())
            .field("addresses", &self.to_array())
            .finish()
    }
}

/// Which write lands when several lanes of one store write the same bytes.
///
/// The hardware gives no guarantee ([`Undefined`](Self::Undefined)); simulators that
/// need a deterministic result pick a lane.
///
/// # Example
///
/// ```
/// use smem_model::{Lane, Op, StoreOrder, WarpRequest};
///
/// // s[0] = lane; by every lane of the warp.
/// let store = WarpRequest::from_fn(Op::Store, 4, |_| Some(0))?;
/// let collision = store.write_collisions()[0];
/// assert_eq!(collision.winner(StoreOrder::default()), None);
/// assert_eq!(collision.winner(StoreOrder::LowestLane), Some(Lane::new(0)?));
/// assert_eq!(collision.winner(StoreOrder::HighestLane), Some(Lane::new(31)?));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum StoreOrder {
    /// As CUDA specifies: one of the writes lands, which one is undefined.
    #[default]
    Undefined,
    /// The lowest-numbered lane's write lands.
    LowestLane,
    /// The highest-numbered lane's write lands (what a serial loop over the lanes
    /// would leave).
    HighestLane,
    /// What sm_90 does, measured: the store's phases are served in order
    /// (the whole warp for accesses of up to 4 bytes, half-warps for 8,
    /// quarter-warps for 16; each 8-lane matrix of `stmatrix`), within a phase
    /// the lowest active lane's write lands, and a later phase overwrites an
    /// earlier one. So the winner is the lowest lane of the last phase that
    /// writes the address.
    ///
    /// Source: 165 store patterns measured on an H100 (85 of them in
    /// tests/data/hw-corpus/sm90-store-winners.jsonl), each run 8 times with the
    /// same winners every time; the model predicts all of them. The
    /// programming model still calls the winner undefined, so code must not
    /// rely on it; `stmatrix` and `cp.async` follow the same rule as a
    /// modelling choice (not measured).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, StoreOrder, WarpRequest};
    ///
    /// // double d[]; d[0] = x by lanes 3 and 20: half-warps, so lane 20's phase is later.
    /// let store = WarpRequest::from_fn(Op::Store, 8, |lane| Some(if [3, 20].contains(&lane.get()) { 0 } else { 8 + 8 * lane.get() }))?;
    /// let order = StoreOrder::LowestLaneOfLastPhase;
    /// assert_eq!(store.write_collisions()[0].winner(order), Some(Lane::new(20)?));
    /// // float f[]; f[0] = x by the same lanes: one phase, the lowest lane lands.
    /// let floats = WarpRequest::from_fn(Op::Store, 4, |lane| Some(if [3, 20].contains(&lane.get()) { 0 } else { 4 + 4 * lane.get() }))?;
    /// assert_eq!(floats.write_collisions()[0].winner(order), Some(Lane::new(3)?));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    LowestLaneOfLastPhase,
}

/// Several lanes of one store writing the same bytes.
///
/// Returned by [`WarpRequest::write_collisions`]. Collisions are a correctness
/// matter rather than a speed one: only one of the values lands.
///
/// # Example
///
/// ```
/// use smem_model::{Op, WarpRequest};
///
/// // s[lane / 2] = x: lanes 2k and 2k + 1 race for every word.
/// let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(4 * (lane.get() / 2)))?;
/// let collisions = store.write_collisions();
/// assert_eq!(collisions.len(), 16);
/// assert_eq!(collisions[1].address(), 4);
/// assert_eq!(collisions[1].lanes().to_string(), "2-3");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteCollision {
    address: u32,
    lanes: LaneSet,
    /// Lanes per phase of the store (32, 16 or 8), for
    /// [`StoreOrder::LowestLaneOfLastPhase`].
    phase_lanes: u8,
}

impl WriteCollision {
    /// A collision read from data: as [`WarpRequest::write_collisions`]
    /// finds them, at least two lanes.
    #[cfg(feature = "serde")]
    pub(crate) fn checked(address: u32, lanes: LaneSet, phase_lanes: u32) -> Result<Self, Error> {
        if lanes.len() < 2 {
            return Err(Error::CollisionLanes {
                lanes: lanes.len() as u32,
            });
        }
        if ![8, 16, 32].contains(&phase_lanes) {
            return Err(Error::CollisionPhase { phase_lanes });
        }
        Ok(WriteCollision {
            address,
            lanes,
            phase_lanes: phase_lanes as u8,
        })
    }

    /// The lanes per phase of the store: 32 for accesses of up to 4 bytes,
    /// 16 for 8, 8 for 16 and for `stmatrix` (sm_90's phases, measured in
    /// tests/data/hw-corpus/sm90-store-winners.jsonl).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, WarpRequest};
    ///
    /// // Lanes 2l and 2l + 1 store 8 bytes to one address.
    /// let store = WarpRequest::from_fn(Op::Store, 8, |lane| Some(8 * (lane.get() / 2)))?;
    /// let collision = store.write_collisions()[1];
    /// assert_eq!(collision.phase_lanes(), 16);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn phase_lanes(&self) -> u32 {
        self.phase_lanes as u32
    }

    /// The address written.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, WarpRequest};
    ///
    /// // Lanes 2l and 2l + 1 store 8 bytes to one address.
    /// let store = WarpRequest::from_fn(Op::Store, 8, |lane| Some(8 * (lane.get() / 2)))?;
    /// let collision = store.write_collisions()[1];
    /// assert_eq!(collision.address(), 8);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn address(&self) -> u32 {
        self.address
    }

    /// The lanes writing it: the candidates for the value that lands.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Op, WarpRequest};
    ///
    /// // Lanes 2l and 2l + 1 store 8 bytes to one address.
    /// let store = WarpRequest::from_fn(Op::Store, 8, |lane| Some(8 * (lane.get() / 2)))?;
    /// let collision = store.write_collisions()[1];
    /// assert_eq!(collision.lanes().to_string(), "2-3");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn lanes(&self) -> LaneSet {
        self.lanes
    }

    /// The lane whose write lands under `order`, or `None` when it is
    /// [`StoreOrder::Undefined`] (every lane in [`lanes`](Self::lanes) is a
    /// candidate).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, StoreOrder, WarpRequest};
    ///
    /// // Lanes 3, 9 and 30 store to slot 0; every other lane to a slot of its own.
    /// let slot = |lane: u32| if [3, 9, 30].contains(&lane) { 0 } else { lane + 1 };
    /// let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(4 * slot(lane.get())))?;
    /// let [collision] = store.write_collisions()[..] else { panic!("one collision") };
    /// assert_eq!(collision.winner(StoreOrder::LowestLane), Some(Lane::new(3)?));
    /// assert_eq!(collision.winner(StoreOrder::HighestLane), Some(Lane::new(30)?));
    /// assert_eq!(collision.winner(StoreOrder::Undefined), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn winner(&self, order: StoreOrder) -> Option<Lane> {
        match order {
            StoreOrder::Undefined => None,
            StoreOrder::LowestLane => self.lanes.first(),
            StoreOrder::HighestLane => self.lanes.last(),
            StoreOrder::LowestLaneOfLastPhase => {
                let size = u32::from(self.phase_lanes);
                let last = self.lanes.last()?.get() / size;
                self.lanes
                    .intersection(LaneSet::range(last * size, (last + 1) * size))
                    .first()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorised pass of `write_collisions` (where this CPU has it)
    /// finds what the hashed one finds, in the same order; it answers every
    /// store whose keys fit 16 bits and declines the others.
    #[test]
    fn write_collision_passes_agree() {
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let (mut vectorised, mut collided) = (0, 0);
        for round in 0..20_000 {
            let width = 1u32 << (round % 5);
            let span = [4u32, 64, 256, 4096, 1 << 20][round / 5 % 5];
            let base = [0u32, 0xfff0, 0x3_ff00][round / 25 % 3];
            let offsets: [u32; 32] = core::array::from_fn(|_| base + next() % span / width * width);
            let mask = if round % 3 == 0 {
                u32::MAX
            } else {
                next() & next() | next()
            };
            let op = [
                Op::Store,
                Op::StMatrix(Matrices::X4),
                Op::CpAsync(crate::CpAsync::Cg),
            ][round % 7 / 5 * (1 + round % 2)];
            let width = if op == Op::Store { width } else { 16 };
            let offsets = offsets.map(|o| o / width * width);
            let Ok(store) =
                WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), &offsets)
            else {
                continue;
            };
            let fast = store.write_collisions();
            let mut hashed = SmallVec::new();
            let phase_lanes = fast.first().map_or(0, |c| c.phase_lanes);
            let shift = width.trailing_zeros();
            store.write_collisions_hashed(store.active.bits(), shift, phase_lanes, &mut hashed);
            if store.active.len() < 2 {
                continue;
            }
            assert_eq!(fast, hashed, "{store:?}");
            collided += usize::from(!fast.is_empty());
            #[cfg(target_arch = "x86_64")]
            {
                let answered =
                    crate::partition::followers(&store.addresses, store.active.bits(), shift)
                        .is_some();
                let keys_fit = store.active_addresses().all(|(_, a)| a >> shift < 0xffff);
                let has = is_x86_feature_detected!("avx2");
                assert_eq!(answered, has && keys_fit, "{store:?}");
                vectorised += usize::from(answered);
            }
        }
        assert!(collided > 5_000, "{collided}");
        #[cfg(target_arch = "x86_64")]
        assert!(
            !is_x86_feature_detected!("avx2") || vectorised > 5_000,
            "{vectorised}"
        );
    }

    #[test]
    fn matrix_ops_ignore_lanes_past_their_rows() {
        let x1 =
            WarpRequest::from_fn(Op::LdMatrix(Matrices::X1), 16, |l| Some(l.get() * 16)).unwrap();
        assert_eq!(x1.active(), LaneSet::range(0, 8));
        // An unaligned address in an ignored lane is not an error: PTX never reads it.
        let x2 = WarpRequest::from_fn(Op::StMatrix(Matrices::X2), 16, |l| {
            Some(if l.get() < 16 { l.get() * 16 } else { 3 })
        })
        .unwrap();
        assert_eq!(x2.active(), LaneSet::range(0, 16));
    }

    #[test]
    fn loads_and_atomics_have_no_write_collisions() {
        let uniform = |op| WarpRequest::from_fn(op, 4, |_| Some(0)).unwrap();
        assert!(uniform(Op::Load).write_collisions().is_empty());
        assert!(uniform(Op::ATOMIC_ADD).write_collisions().is_empty());
        assert_eq!(uniform(Op::Store).write_collisions().len(), 1);
    }
}
