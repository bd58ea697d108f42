//! Op names as people hold them: SASS from traces and disassembly
//! (`LDS.U.128`, `ATOMS.CAS.64`, `LDSM.16.MT88.4`, `LDGSTS.E.BYPASS.128`),
//! PTX (`ld.shared.v4.f32`, `atom.shared.cas.b64`,
//! `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`), and the crate's short
//! names (`LDS`, `ldsm.x4`, `atom.cas`). The one parser behind `Op`'s
//! `FromStr`, the CLI, the C API and the Python module.

use core::fmt;
use core::str::FromStr;

use super::{AccessWidth, AtomicKind, CpAsync, Matrices, Op};
use crate::error::bounded;
use crate::Error;

/// An op as its name spells it: the [`Op`], and the access width the name
/// fixes, if it fixes one (`LDS.128`, `ld.shared.v2.f32`, `ATOMS.CAS.64`,
/// `atom.add.u64`).
///
/// A name without a size (`LDS`, `atom.add`) leaves the width to the caller,
/// though SASS writes 32-bit accesses so; an op of one width (`ldmatrix`,
/// `cp.async.cg`, `inc`) has it whatever the name says.
///
/// # Grammar
///
/// Dot-separated words, in any case. The first names the family: `LDS`/`ld`/`load`,
/// `STS`/`st`/`store`, `ATOMS`/`atom`/`atomic`, `RED`/`reds`/`red`/`reduction`,
/// `LDSM`/`ldmatrix`, `STSM`/`stmatrix`, `LDGSTS` and `cp.async`. Then, in any
/// order:
///
/// - sizes: SASS bits (`8`, `16`, `32`, `64`, `128`, `U8`, `S16`, ...), PTX types
///   (`u8` ... `b128`, `f16`, `f32`, `f64`, ...) and vectors (`v2`, `v4`);
///   the width is the type's size times the vector's length;
/// - the atomic kind (`add`, `exch`, `cas`, `min`, `max`, `inc`, `dec`, `and`,
///   `or`, `xor`; none is `add`), a float type making `add` the float add;
/// - matrices: `x1`/`x2`/`x4` and `trans` (PTX), or `16` with `M88`/`MT88` and a
///   count `2`/`4` (SASS, none for one);
/// - cp.async's cache: `ca`/`cg` (PTX) or `BYPASS` (SASS, `.cg`);
/// - words that change nothing here: the state space (`shared`, `shared::cta`,
///   `global` for cp.async), `sync`, `aligned`, `m8n8`, `volatile`, memory
///   orders and scopes (`relaxed`, `acquire`, `release`, `acq_rel`, `weak`,
///   `cta`, `gpu`, `sys`, `cluster`), SASS `U` and `E`, rounding (`ftz`, `rn`),
///   cp.async's cache hints (`L2::128B`, `LTC128B`, `ZFILL`);
/// - SASS atomics' `POPC` and `ARRIVE`, which change nothing here either:
///   `ATOMS.POPC.INC.32` is what nvcc makes of `atomicAdd(&s, 1u)` whose
///   result is unused (the warp's lanes on one word add their count at once;
///   `tests/data/ptx/histogram_atomics/kernel.sass`, nvcc 13 for sm_90), read
///   as the 32-bit `inc` it names; `ATOMS.ARRIVE.64` is `mbarrier.arrive` on
///   sm_80 to sm_89 (cuobjdump of sm_89 code: an atomic on the barrier's
///   64-bit word), read as a 64-bit atomic add. Both are 32- or 64-bit atomics
///   on one word a lane, which is what the model costs.
///
/// Anything else is an error: `shared::cluster` (distributed shared memory is
/// not modelled), `ATOMS.CAST.SPIN` (one round of nvcc's compare-and-swap loop,
/// not an op: name the atomic it emulates), `cp.async.bulk` (TMA).
///
/// # Example
///
/// ```
/// use smem_model::{AccessWidth, AtomicKind, CpAsync, Matrices, Op, OpName};
///
/// let name: OpName = "LDS.U.128".parse()?;
/// assert_eq!((name.op(), name.width()), (Op::Load, Some(AccessWidth::B16)));
/// let name: OpName = "ld.shared.v2.f32".parse()?;
/// assert_eq!((name.op(), name.width()), (Op::Load, Some(AccessWidth::B8)));
/// let name: OpName = "ATOMS.CAS.64".parse()?;
/// assert_eq!((name.op(), name.width()), (Op::Atomic(AtomicKind::Cas), Some(AccessWidth::B8)));
/// let name: OpName = "LDSM.16.MT88.4".parse()?;
/// assert_eq!(name.op(), Op::LdMatrix(Matrices::X4Trans));
/// let name: OpName = "cp.async.cg.shared.global".parse()?;
/// assert_eq!((name.op(), name.width()), (Op::CpAsync(CpAsync::Cg), Some(AccessWidth::B16)));
/// // No size: the caller's width decides.
/// let name: OpName = "LDS".parse()?;
/// assert_eq!(name.width(), None);
/// assert_eq!(name.with_width(8)?, AccessWidth::B8);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpName {
    op: Op,
    /// The width the name's size words give, before the op's fixed width.
    named: Option<AccessWidth>,
}

impl OpName {
    /// The op.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, Op, OpName};
    ///
    /// let name: OpName = "red.shared.add.u32".parse()?;
    /// assert_eq!(name.op(), Op::Reduction(AtomicKind::Add));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn op(self) -> Op {
        self.op
    }

    /// The access width the name fixes: its size words (`.128`, `.v4.f32`,
    /// `.u64`), else the op's only width ([`Op::fixed_width`]), else `None`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, OpName};
    ///
    /// assert_eq!("STS.64".parse::<OpName>()?.width(), Some(AccessWidth::B8));
    /// assert_eq!("ldsm.x4".parse::<OpName>()?.width(), Some(AccessWidth::B16));
    /// assert_eq!("atom.shared.add".parse::<OpName>()?.width(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn width(self) -> Option<AccessWidth> {
        match self.named {
            Some(width) => Some(width),
            None => self.op.fixed_width(),
        }
    }

    /// The access width of a request of this op given `width` bytes by the
    /// caller: `width`, checked against the name and the op.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`] unless `width` is 1, 2, 4, 8 or 16.
    /// - [`Error::WidthContradicted`] when the name's size says another width
    ///   (`atom.add.u64` given 4 bytes).
    /// - [`Error::WidthMismatch`], [`Error::WidthUnavailable`] when the op
    ///   lacks the width ([`Op::check_width`]).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, Error, OpName};
    ///
    /// let name: OpName = "atom.add.u64".parse()?;
    /// assert_eq!(name.with_width(8)?, AccessWidth::B8);
    /// let err = name.with_width(4).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "the op's name gives ATOMS.ADD 8 bytes per lane, but an access width of 4 bytes was given"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn with_width(self, width: u32) -> Result<AccessWidth, Error> {
        let width = AccessWidth::from_bytes(width)?;
        if let Some(named) = self.named {
            if named != width {
                return Err(Error::WidthContradicted {
                    op: self.op,
                    named: named.bytes(),
                    given: width.bytes(),
                });
            }
        }
        self.op.check_width(width)?;
        Ok(width)
    }

    /// The width of a request of this op: `width` checked as
    /// [`with_width`](Self::with_width) when given, else the name's
    /// ([`width`](Self::width)), else `default`.
    ///
    /// For front ends whose width argument is optional.
    ///
    /// # Errors
    ///
    /// As [`with_width`](Self::with_width), for `width` or for `default`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, OpName};
    ///
    /// let lds128: OpName = "LDS.128".parse()?;
    /// assert_eq!(lds128.width_or(None, 4)?, AccessWidth::B16);
    /// let lds: OpName = "LDS".parse()?;
    /// assert_eq!(lds.width_or(None, 4)?, AccessWidth::B4);
    /// assert!(lds128.width_or(Some(4), 4).is_err());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn width_or(self, width: Option<u32>, default: u32) -> Result<AccessWidth, Error> {
        match (width, self.width()) {
            (Some(width), _) => self.with_width(width),
            (None, Some(width)) => Ok(width),
            (None, None) => self.with_width(default),
        }
    }
}

impl From<Op> for OpName {
    /// The op with no width named.
    fn from(op: Op) -> Self {
        OpName { op, named: None }
    }
}

impl fmt::Display for OpName {
    /// Writes the op ([`Op`]'s display) and, when the name gave a width that
    /// is not the op's only one, `/` and the width in bytes: `LDS/16`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.named {
            Some(width) if self.op.fixed_width().is_none() => {
                write!(f, "{}/{}", self.op, width.bytes())
            }
            _ => write!(f, "{}", self.op),
        }
    }
}

/// The longest name read; longer ones are refused without looking at them
/// (the longest real spelling, `ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16`,
/// has 50 bytes).
const MAX_NAME: usize = 128;

/// The family a name's first word gives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Load,
    Store,
    Atomic,
    Reduction,
    LdMatrix,
    StMatrix,
    /// `LDGSTS`: SASS, the cache from `BYPASS`.
    Ldgsts,
    /// `cp.async`: PTX, the cache from `ca`/`cg`.
    CpAsync,
}

/// What the words after the first said.
#[derive(Default)]
struct Words {
    /// Bytes of the element type or SASS size.
    size: Option<u32>,
    /// Whether the type is a float type.
    float: bool,
    /// Elements per lane (`v2`, `v4`).
    vector: Option<u32>,
    kind: Option<AtomicKind>,
    /// The matrix count, and whether SASS spelled the matrix shape.
    count: Option<u32>,
    sass_shape: bool,
    trans: bool,
    cache: Option<CpAsync>,
    /// SASS `E` (the 64-bit address form): on LDGSTS it means 32 bits.
    extended: bool,
}

/// The bytes of a PTX type word, and whether it is a float type.
fn ptx_type(word: &str) -> Option<(u32, bool)> {
    const TYPES: [(&str, u32, bool); 17] = [
        ("b8", 1, false),
        ("u8", 1, false),
        ("s8", 1, false),
        ("b16", 2, false),
        ("u16", 2, false),
        ("s16", 2, false),
        ("f16", 2, true),
        ("bf16", 2, true),
        ("b32", 4, false),
        ("u32", 4, false),
        ("s32", 4, false),
        ("f32", 4, true),
        ("b64", 8, false),
        ("u64", 8, false),
        ("s64", 8, false),
        ("f64", 8, true),
        ("b128", 16, false),
    ];
    TYPES
        .iter()
        .find(|(name, ..)| name.eq_ignore_ascii_case(word))
        .map(|&(_, bytes, float)| (bytes, float))
}

/// The bytes of a SASS size word: `8` ... `128`, with or without `U`/`S`.
fn sass_size(word: &str) -> Option<u32> {
    let digits = match word.as_bytes().first() {
        Some(b'U' | b'u' | b'S' | b's') => &word[1..],
        _ => word,
    };
    match digits {
        "8" => Some(1),
        "16" => Some(2),
        "32" => Some(4),
        "64" => Some(8),
        "128" => Some(16),
        _ => None,
    }
}

fn atomic_kind(word: &str) -> Option<AtomicKind> {
    const KINDS: [(&str, AtomicKind); 10] = [
        ("add", AtomicKind::Add),
        ("exch", AtomicKind::Exch),
        ("cas", AtomicKind::Cas),
        ("min", AtomicKind::Min),
        ("max", AtomicKind::Max),
        ("inc", AtomicKind::Inc),
        ("dec", AtomicKind::Dec),
        ("and", AtomicKind::And),
        ("or", AtomicKind::Or),
        ("xor", AtomicKind::Xor),
    ];
    KINDS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(word))
        .map(|&(_, kind)| kind)
}

/// Words that change nothing about the request's cost.
fn neutral(word: &str, family: Family) -> bool {
    let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(word));
    if is(&["shared", "shared::cta"]) {
        return true;
    }
    match family {
        Family::Load | Family::Store => is(&[
            "u", "volatile", "relaxed", "acquire", "release", "weak", "cta", "gpu", "sys",
            "cluster",
        ]),
        Family::Atomic | Family::Reduction => is(&[
            "relaxed", "acquire", "release", "acq_rel", "cta", "gpu", "sys", "cluster", "ftz",
            "rn", "strong", "popc", "arrive",
        ]),
        Family::LdMatrix | Family::StMatrix => is(&["sync", "aligned", "m8n8"]),
        Family::Ldgsts => is(&["ltc64b", "ltc128b", "ltc256b", "zfill"]),
        Family::CpAsync => is(&[
            "global",
            "l2::64b",
            "l2::128b",
            "l2::256b",
            "l2::cache_hint",
        ]),
    }
}

impl FromStr for OpName {
    type Err = Error;

    /// Reads a name by the grammar in [`OpName`]'s docs.
    ///
    /// A parse costs a few comparisons per word and allocates only for an
    /// error.
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownOp`] for a word the grammar lacks, a word given twice,
    ///   a matrix op without its count, or a name longer than 128 bytes (quoting at
    ///   most a bounded prefix of it).
    /// - [`Error::InvalidWidth`] when the sizes make a width the hardware
    ///   lacks (`ld.shared.v4.f64`: 32 bytes).
    /// - [`Error::NoReduction`] for `red` of `exch` or `cas`.
    /// - [`Error::WidthMismatch`], [`Error::WidthUnavailable`] when the op
    ///   lacks the named width (`ATOMS.INC.64`).
    fn from_str(text: &str) -> Result<Self, Error> {
        let unknown = || Error::UnknownOp {
            given: bounded(text),
        };
        if text.len() > MAX_NAME {
            return Err(unknown());
        }
        let mut words = text.split('.');
        let head = words.next().unwrap_or_default();
        let is = |word: &str, names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(word));
        let family = if is(head, &["lds", "ld", "load"]) {
            Family::Load
        } else if is(head, &["sts", "st", "store"]) {
            Family::Store
        } else if is(head, &["atoms", "atom", "atomic"]) {
            Family::Atomic
        } else if is(head, &["red", "reds", "reduction"]) {
            Family::Reduction
        } else if is(head, &["ldsm", "ldmatrix"]) {
            Family::LdMatrix
        } else if is(head, &["stsm", "stmatrix"]) {
            Family::StMatrix
        } else if is(head, &["ldgsts"]) {
            Family::Ldgsts
        } else if is(head, &["cp"]) && words.next().is_some_and(|w| is(w, &["async"])) {
            Family::CpAsync
        } else {
            return Err(unknown());
        };
        let mut w = Words::default();
        // Sets a word's slot once: a second value is an error.
        fn once<T>(slot: &mut Option<T>, value: T) -> Result<(), ()> {
            match slot.replace(value) {
                None => Ok(()),
                Some(_) => Err(()),
            }
        }
        for word in words {
            let matrices = matches!(family, Family::LdMatrix | Family::StMatrix);
            let atomic = matches!(family, Family::Atomic | Family::Reduction);
            let taken = if neutral(word, family) {
                Ok(())
            } else if matrices {
                if is(word, &["x1", "1"]) {
                    once(&mut w.count, 1)
                } else if is(word, &["x2", "2"]) {
                    once(&mut w.count, 2)
                } else if is(word, &["x4", "4"]) {
                    once(&mut w.count, 4)
                } else if is(word, &["trans"]) && !w.trans {
                    w.trans = true;
                    Ok(())
                } else if is(word, &["m88", "mt88"]) && !w.sass_shape {
                    w.sass_shape = true;
                    w.trans |= is(word, &["mt88"]);
                    Ok(())
                } else if is(word, &["16", "b16"]) {
                    // The element size, 16 bits: the only one of m8n8.
                    once(&mut w.size, 2)
                } else {
                    Err(())
                }
            } else if let (true, Some(kind)) = (atomic, atomic_kind(word)) {
                once(&mut w.kind, kind)
            } else if let Some((bytes, float)) = ptx_type(word) {
                w.float = float;
                once(&mut w.size, bytes)
            } else if let Some(bytes) = sass_size(word) {
                once(&mut w.size, bytes)
            } else if is(word, &["v2"]) && !atomic {
                once(&mut w.vector, 2)
            } else if is(word, &["v4"]) && !atomic {
                once(&mut w.vector, 4)
            } else if family == Family::CpAsync && is(word, &["ca"]) {
                once(&mut w.cache, CpAsync::Ca)
            } else if (family == Family::CpAsync && is(word, &["cg"]))
                || (family == Family::Ldgsts && is(word, &["bypass"]))
            {
                once(&mut w.cache, CpAsync::Cg)
            } else if is(word, &["e"]) && matches!(family, Family::Ldgsts) && !w.extended {
                w.extended = true;
                Ok(())
            } else {
                Err(())
            };
            taken.map_err(|()| unknown())?;
        }
        let (op, named) = match family {
            Family::Load | Family::Store => {
                let op = if family == Family::Load {
                    Op::Load
                } else {
                    Op::Store
                };
                let named = match (w.size, w.vector) {
                    (Some(size), vector) => Some(size * vector.unwrap_or(1)),
                    // `ld.shared.v4` names no type: nothing to multiply.
                    (None, Some(_)) => return Err(unknown()),
                    (None, None) => None,
                };
                (op, named)
            }
            Family::Atomic | Family::Reduction => {
                let kind = match (w.kind.unwrap_or(AtomicKind::Add), w.float, w.size) {
                    (AtomicKind::Add, true, Some(4)) => AtomicKind::AddF32,
                    (AtomicKind::Add, true, Some(8)) => AtomicKind::AddF64,
                    // f16 and bf16 atomics, and float kinds other than add:
                    // not modelled.
                    (_, true, _) => return Err(unknown()),
                    (kind, false, _) => kind,
                };
                let op = if family == Family::Atomic {
                    Op::Atomic(kind)
                } else {
                    Op::Reduction(kind)
                };
                (op, w.size)
            }
            Family::LdMatrix | Family::StMatrix => {
                // PTX and the short names say the count; SASS leaves it out for one.
                let count = match (w.count, w.sass_shape) {
                    (Some(count), _) => count,
                    (None, true) => 1,
                    (None, false) => return Err(unknown()),
                };
                let mut matrices = Matrices::from_count(count).ok_or_else(unknown)?;
                if w.trans {
                    matrices = matrices.transposed();
                }
                let op = if family == Family::LdMatrix {
                    Op::LdMatrix(matrices)
                } else {
                    Op::StMatrix(matrices)
                };
                // The `16`/`b16` is the element, not the lane's 16-byte row.
                (op, None)
            }
            Family::Ldgsts => {
                let cache = w.cache.unwrap_or(CpAsync::Ca);
                // `LDGSTS.E` is the 32-bit copy; no size and no `E` (the
                // crate's `LDGSTS`) names none.
                let size = w.size.or(w.extended.then_some(4));
                (Op::CpAsync(cache), size)
            }
            Family::CpAsync => {
                let cache = w.cache.ok_or_else(unknown)?;
                (Op::CpAsync(cache), w.size)
            }
        };
        if let Op::Reduction(kind @ (AtomicKind::Exch | AtomicKind::Cas)) = op {
            return Err(Error::NoReduction { kind });
        }
        let named = named.map(AccessWidth::from_bytes).transpose()?;
        if let Some(width) = named {
            op.check_width(width)?;
        }
        Ok(OpName { op, named })
    }
}

impl OpName {
    /// A shared access's SASS opcode as a trace prints it (`LDS`, `STS`,
    /// `ATOMS`, `LDSM`, `STSM` and their modifiers): its op, its width in
    /// bytes (not yet checked against the op: the request's constructor
    /// says what is wrong with it), and whether it is a round of nvcc's
    /// compare-and-swap loop (`ATOMS.CAST.SPIN`); `None` for other opcodes.
    ///
    /// The opcode is read by the grammar above (a name without a size is 32
    /// bits, as SASS writes them). Where the grammar refuses it, it is read
    /// by its family and few words, as the trace reader always read such
    /// opcodes, so that a modifier this crate does not list (a later
    /// architecture's, say) never makes a trace's line an error: the size
    /// from the first word that is a number of bits (`64`, `U16`), else 32;
    /// for `ATOMS`, the first kind among `CAS`, `EXCH`, `MIN`, `MAX`, `INC`,
    /// `DEC`, `AND`, `OR`, `XOR` (upper-case, as SASS spells them) in its
    /// words, else `add`; for `LDSM`/`STSM`, the count from a word `4` or
    /// `2`, else one matrix (not transposed). `ATOMS.CAST.SPIN` is read this
    /// way only: a 64-bit round is one of the 64-bit integer add's loop, any
    /// other of the float add's (`tests/data/hw-corpus/sm90-atomics.jsonl`).
    ///
    /// # Errors
    ///
    /// An `ATOMS` whose size is not 32 or 64 bits (the message names the
    /// opcode and the size).
    #[cfg(feature = "trace")]
    pub(crate) fn from_trace_opcode(opcode: &str) -> Option<Result<(Op, u32, bool), String>> {
        let (base, modifiers) = opcode.split_once('.').unwrap_or((opcode, ""));
        if !matches!(base, "LDS" | "STS" | "ATOMS" | "LDSM" | "STSM") {
            return None;
        }
        let has = |word: &str| modifiers.split('.').any(|m| m == word);
        let cas_round = base == "ATOMS" && has("CAST");
        if !cas_round {
            if let Ok(name) = opcode.parse::<OpName>() {
                return Some(Ok((
                    name.op(),
                    name.width().map_or(4, AccessWidth::bytes),
                    false,
                )));
            }
        }
        // The first size word, with or without its `U`/`S`, as bits.
        let bits = modifiers.split('.').find_map(|m| {
            let digits = m
                .strip_prefix('U')
                .or_else(|| m.strip_prefix('S'))
                .unwrap_or(m);
            digits.parse::<u32>().ok()
        });
        let matrices = || {
            if has("4") {
                Matrices::X4
            } else if has("2") {
                Matrices::X2
            } else {
                Matrices::X1
            }
        };
        Some(Ok(match base {
            "LDS" => (Op::Load, bits.unwrap_or(32) / 8, false),
            "STS" => (Op::Store, bits.unwrap_or(32) / 8, false),
            "LDSM" => (Op::LdMatrix(matrices()), 16, false),
            "STSM" => (Op::StMatrix(matrices()), 16, false),
            _ if cas_round => match bits {
                Some(64) => (Op::Atomic(AtomicKind::Add), 8, true),
                _ => (Op::Atomic(AtomicKind::AddF32), 4, true),
            },
            _ => {
                let kind = trace_atomic_kind(modifiers, AtomicKind::Add);
                let bits = bits.unwrap_or(32);
                if bits != 32 && bits != 64 {
                    return Some(Err(format!(
                        "{opcode}: shared atomics are 32- or 64-bit, not {bits}-bit"
                    )));
                }
                (Op::Atomic(kind), bits / 8, false)
            }
        }))
    }
}

/// The operation a SASS atomic's modifiers name (`ATOMS.CAS.64`,
/// `ATOM.E.MIN.S32`, `RED.E.ADD.F32.FTZ.RN`; upper case, as SASS writes
/// them), `otherwise` when they name none of these: the one table for
/// [`OpName::from_trace_opcode`] and the trace reader's global atomics.
#[cfg(feature = "trace")]
pub(crate) fn trace_atomic_kind(modifiers: &str, otherwise: AtomicKind) -> AtomicKind {
    use AtomicKind as K;
    [
        ("CAS", K::Cas),
        ("EXCH", K::Exch),
        ("MIN", K::Min),
        ("MAX", K::Max),
        ("INC", K::Inc),
        ("DEC", K::Dec),
        ("AND", K::And),
        ("OR", K::Or),
        ("XOR", K::Xor),
    ]
    .into_iter()
    .find(|(name, _)| modifiers.split('.').any(|m| m == *name))
    .map_or(otherwise, |(_, kind)| kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Op, Option<u32>) {
        let name: OpName = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        (name.op(), name.width().map(AccessWidth::bytes))
    }

    /// Every spelling the issue lists, and the ones traces and nvdisasm print.
    #[test]
    fn sass_spellings() {
        use AtomicKind as K;
        for (text, op, width) in [
            ("LDS", Op::Load, None),
            ("LDS.U.128", Op::Load, Some(16)),
            ("LDS.128", Op::Load, Some(16)),
            ("LDS.U.64", Op::Load, Some(8)),
            ("LDS.U8", Op::Load, Some(1)),
            ("LDS.S16", Op::Load, Some(2)),
            ("STS.64", Op::Store, Some(8)),
            ("STS.U8", Op::Store, Some(1)),
            ("ATOMS.ADD", Op::Atomic(K::Add), None),
            ("ATOMS.CAS.64", Op::Atomic(K::Cas), Some(8)),
            ("ATOMS.EXCH.64", Op::Atomic(K::Exch), Some(8)),
            ("ATOMS.INC", Op::Atomic(K::Inc), Some(4)),
            ("ATOMS.MIN.S32", Op::Atomic(K::Min), Some(4)),
            ("ATOMS.POPC.INC.32", Op::Atomic(K::Inc), Some(4)),
            ("ATOMS.ARRIVE.64", Op::Atomic(K::Add), Some(8)),
            ("ATOMS.ADD.F32", Op::Atomic(K::AddF32), Some(4)),
            ("RED.ADD.F64", Op::Reduction(K::AddF64), Some(8)),
            ("LDSM.16.M88", Op::LdMatrix(Matrices::X1), Some(16)),
            ("LDSM.16.M88.2", Op::LdMatrix(Matrices::X2), Some(16)),
            ("LDSM.16.M88.4", Op::LdMatrix(Matrices::X4), Some(16)),
            ("LDSM.16.MT88.4", Op::LdMatrix(Matrices::X4Trans), Some(16)),
            ("STSM.16.M88.4", Op::StMatrix(Matrices::X4), Some(16)),
            ("STSM.16.MT88.2", Op::StMatrix(Matrices::X2Trans), Some(16)),
            ("LDGSTS", Op::CpAsync(CpAsync::Ca), None),
            ("LDGSTS.E", Op::CpAsync(CpAsync::Ca), Some(4)),
            ("LDGSTS.E.64", Op::CpAsync(CpAsync::Ca), Some(8)),
            ("LDGSTS.E.128", Op::CpAsync(CpAsync::Ca), Some(16)),
            ("LDGSTS.E.BYPASS.128", Op::CpAsync(CpAsync::Cg), Some(16)),
            (
                "LDGSTS.E.BYPASS.LTC128B.128",
                Op::CpAsync(CpAsync::Cg),
                Some(16),
            ),
            ("LDGSTS.BYPASS", Op::CpAsync(CpAsync::Cg), Some(16)),
        ] {
            assert_eq!(parse(text), (op, width), "{text}");
        }
    }

    #[test]
    fn ptx_spellings() {
        use AtomicKind as K;
        for (text, op, width) in [
            ("ld.shared.v4.f32", Op::Load, Some(16)),
            ("ld.shared.u32", Op::Load, Some(4)),
            ("ld.shared::cta.v2.b64", Op::Load, Some(16)),
            ("ld.volatile.shared.f64", Op::Load, Some(8)),
            ("ld.relaxed.cta.shared.u16", Op::Load, Some(2)),
            ("ld.shared.b128", Op::Load, Some(16)),
            ("ld.shared", Op::Load, None),
            ("st.shared.u8", Op::Store, Some(1)),
            ("st.shared.v2.f16", Op::Store, Some(4)),
            ("atom.shared.cas.b64", Op::Atomic(K::Cas), Some(8)),
            ("atom.shared.add.u32", Op::Atomic(K::Add), Some(4)),
            ("atom.shared.add.u64", Op::Atomic(K::Add), Some(8)),
            ("atom.shared.add.f32", Op::Atomic(K::AddF32), Some(4)),
            (
                "atom.relaxed.cta.shared.exch.b32",
                Op::Atomic(K::Exch),
                Some(4),
            ),
            ("atom.add.u64", Op::Atomic(K::Add), Some(8)),
            ("red.shared.add.u32", Op::Reduction(K::Add), Some(4)),
            ("red.shared.xor.b64", Op::Reduction(K::Xor), Some(8)),
            (
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                Op::LdMatrix(Matrices::X4Trans),
                Some(16),
            ),
            (
                "ldmatrix.sync.aligned.m8n8.x2.shared::cta.b16",
                Op::LdMatrix(Matrices::X2),
                Some(16),
            ),
            (
                "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
                Op::StMatrix(Matrices::X1Trans),
                Some(16),
            ),
            (
                "cp.async.cg.shared.global",
                Op::CpAsync(CpAsync::Cg),
                Some(16),
            ),
            ("cp.async.ca.shared.global", Op::CpAsync(CpAsync::Ca), None),
            (
                "cp.async.ca.shared.global.L2::128B",
                Op::CpAsync(CpAsync::Ca),
                None,
            ),
        ] {
            assert_eq!(parse(text), (op, width), "{text}");
        }
    }

    #[test]
    fn short_spellings() {
        for (text, op) in [
            ("ldsm.x4.trans", Op::LdMatrix(Matrices::X4Trans)),
            ("stsm.trans.x2", Op::StMatrix(Matrices::X2Trans)),
            ("ldmatrix.x1", Op::LdMatrix(Matrices::X1)),
            ("cp.async.ca", Op::CpAsync(CpAsync::Ca)),
            ("atom", Op::ATOMIC_ADD),
            ("reduction.or", Op::Reduction(AtomicKind::Or)),
        ] {
            assert_eq!(parse(text).0, op, "{text}");
        }
        for op in Op::ALL {
            assert_eq!(parse(&op.to_string()).0, op);
        }
    }

    #[test]
    fn bad_names() {
        for bad in [
            "",
            ".",
            "lds.x4",
            "ldmatrix",
            "ldsm.trans",
            "ldmatrix.x3",
            "ldsm.x2.x4",
            "LDS.128.64",
            "ld.shared.v4",
            "ld.shared::cluster.u32",
            "ld.global.u32",
            "ATOMS.CAST.SPIN",
            "ATOMS.CAST.SPIN.64",
            "atom.shared.add.f16",
            "atom.shared.min.f32",
            "atom.shared.add.cas",
            "cp.async",
            "cp.async.bulk.shared::cluster.global",
            "cp",
            "LDG.E.128",
            "load ",
            "LDS.",
        ] {
            assert_eq!(
                bad.parse::<OpName>(),
                Err(Error::UnknownOp {
                    given: bad.to_string()
                }),
                "{bad}"
            );
        }
    }

    #[test]
    fn named_widths_the_op_lacks() {
        assert_eq!(
            "ld.shared.v4.f64".parse::<OpName>(),
            Err(Error::InvalidWidth { width: 32 })
        );
        assert_eq!(
            "ATOMS.INC.64".parse::<OpName>().unwrap_err().to_string(),
            "ATOMS.INC accesses 4 bytes per lane, but an access width of 8 bytes was given"
        );
        assert_eq!(
            "atom.shared.min.u16"
                .parse::<OpName>()
                .unwrap_err()
                .to_string(),
            "ATOMS.MIN has no 2-byte form: it takes 4 or 8 bytes per lane"
        );
        assert_eq!(
            "red.shared.cas.b32".parse::<OpName>(),
            Err(Error::NoReduction {
                kind: AtomicKind::Cas
            })
        );
    }

    #[test]
    fn a_given_width_that_contradicts_the_name() {
        let name: OpName = "LDS.U.128".parse().unwrap();
        assert_eq!(name.with_width(16), Ok(AccessWidth::B16));
        let err = name.with_width(4).unwrap_err();
        assert_eq!(
            err,
            Error::WidthContradicted {
                op: Op::Load,
                named: 16,
                given: 4
            }
        );
        assert_eq!(
            err.to_string(),
            "the op's name gives LDS 16 bytes per lane, but an access width of 4 bytes was given"
        );
        // One-width ops keep their own error.
        let ldsm: OpName = "LDSM.16.M88.4".parse().unwrap();
        assert_eq!(
            ldsm.with_width(4).unwrap_err().to_string(),
            "LDSM.x4 accesses 16 bytes per lane, but an access width of 4 bytes was given"
        );
        assert_eq!(
            "LDS".parse::<OpName>().unwrap().with_width(3),
            Err(Error::InvalidWidth { width: 3 })
        );
    }

    #[test]
    fn a_long_name_is_quoted_in_part() {
        let long = "LDS.".repeat(2_500_000);
        let err = long.parse::<OpName>().unwrap_err();
        let message = err.to_string();
        assert!(message.len() < 1_000, "{} bytes", message.len());
        assert!(
            message.starts_with("unknown op \"LDS.LDS.LDS."),
            "{message}"
        );
        assert!(message.contains("... (10000000 bytes)"), "{message}");
    }
}
