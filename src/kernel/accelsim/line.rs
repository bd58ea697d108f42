//! One line of an Accel-Sim / NVBit trace: a one-pass byte parser.
//!
//! The API is three functions:
//!
//! - [`line()`]: one line (without its line end) into a [`Line`]: a header, a
//!   thread-block or warp marker, an [`Instruction`], ...;
//! - [`header`]: a header line `-key = value` into a [`Header`], which
//!   [`Kernel::apply`] folds into the [`Context`] the instruction lines need;
//! - [`classify`]: an opcode into its [`Class`], the one table that says which
//!   SASS instructions access shared memory or synchronise, and how.
//!
//! Most users want whole traces as events instead:
//! [`Trace`](super::Trace) reads files and kernel lists with this parser.
//!
//! Source: the Accel-Sim framework (github.com/accel-sim/accel-sim-framework),
//! `util/tracer_nvbit/tracer_tool/tracer_tool.cu` (the writer, tracer versions
//! 3 to 5) and `gpu-simulator/trace-parser/trace_parser.cc` (the reader).
//!
//! A kernel's trace starts with header lines `-key = value` (`-kernel name`,
//! `-binary version` such as `90` for sm_90, `-shmem base_addr`, `-enable
//! lineinfo`, `-accelsim tracer version`) and `#` comment lines. In the
//! post-processed `.traceg` form, instructions are grouped under `#BEGIN_TB`,
//! `thread block = x,y,z`, `warp = N`, `insts = N` and `#END_TB`, and each
//! instruction line reads
//!
//! ```text
//! [line_num] PC MASK DEST_NUM [R.. dests] OPCODE SRC_NUM [R.. srcs] MEM_WIDTH [MODE ADDRESSES] [IMMEDIATE]
//! ```
//!
//! PC and MASK in hexadecimal (MASK is the active mask and the predicate, so
//! inactive lanes are off). `line_num` is there when the kernel was traced
//! with `TRACE_LINEINFO=1` from a binary built with `-lineinfo`: the source
//! line (the tracer writes the number only; `FILE:N` is read too). The raw
//! `.trace` form written by the tracer puts `cta_x cta_y cta_z warp` (and, with
//! `TOOL_TRACE_CORE`, `sm warp_in_sm`) before that, as do all lines of tracer
//! versions before 3. The parser finds the PC by the shape of the line (a
//! hexadecimal mask of 8 digits, a register count, that many registers, an
//! opcode), so every variant reads the same.
//!
//! MEM_WIDTH is 0 for instructions without memory operand. Otherwise MODE says
//! how the addresses of the active lanes (in lane order) are written:
//!
//! - `0` (list_all): one hexadecimal address per active lane;
//! - `1` (base_stride): a hexadecimal base and a decimal stride; used only when
//!   the active lanes are contiguous, lane `first + i` having `base + i * stride`;
//! - `2` (base_delta): a hexadecimal base (the first active lane's address) and
//!   one decimal difference from the previous active lane for each other active
//!   lane.
//!
//! Addresses are computed with checked arithmetic: one past 2^64 (or below 0)
//! is an error, not a wrapped address.
//!
//! Shared-memory instructions are `LDS`, `STS`, `ATOMS`, `LDSM` and `STSM`
//! ([`classify`]). The access width comes from the opcode (`LDS.U.128`: 16
//! bytes, `LDS.U8`: 1, no size: 4), not from MEM_WIDTH, which the tracer
//! derives from the first number in the opcode and so gets wrong for
//! `LDSM.16.M88.4`; the matrix count of `LDSM`/`STSM` is the `.2` or `.4`
//! suffix (none: one matrix), `MT88` their `.trans`. Opcodes are read by the
//! crate's one op-name parser ([`OpName`]). NVBit reports shared addresses as generic
//! addresses: when the header gives a shared base address, it is subtracted.

use crate::kernel::BarrierKind;
use crate::request::trace_atomic_kind;
use crate::{AtomicKind, Op, OpName, WARP_SIZE};

/// The message of a line that is neither a header, a marker nor an
/// instruction (how a file that is not a trace at all is told apart).
pub const NOT_AN_INSTRUCTION: &str = "not an instruction line: expected [ids] PC MASK DEST_NUM \
                                      [dests] OPCODE SRC_NUM [srcs] MEM_WIDTH [MODE ADDRESSES]";

/// What the header says that instruction lines need to be read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    /// `-shmem base_addr`: the generic address of shared address 0 (0: the
    /// trace gives shared addresses as they are).
    pub shmem_base: u64,
    /// `-enable lineinfo`: instruction lines start with a source line number.
    pub lineinfo: bool,
}

/// What the header says about the kernel whose instructions follow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kernel {
    /// `-kernel name` (mangled, as the trace gives it).
    pub name: String,
    /// `-binary version`, e.g. 86 for sm_86.
    pub binary_version: Option<u32>,
    /// The shared base address and lineinfo flag.
    pub context: Context,
}

impl Kernel {
    /// Folds a header into the kernel; headers that matter nothing here are
    /// ignored, as Accel-Sim does.
    pub fn apply(&mut self, header: &Header<'_>) {
        match *header {
            Header::KernelName(name) => name.clone_into(&mut self.name),
            Header::BinaryVersion(version) => self.binary_version = version,
            Header::ShmemBase(base) => self.context.shmem_base = base,
            Header::LineInfo(on) => self.context.lineinfo = on,
            Header::Other { .. } => {}
        }
    }
}

/// A header line `-key = value`, by key. Values that do not parse read as
/// Accel-Sim reads them: no binary version, a base address of 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header<'a> {
    /// `-kernel name = NAME`.
    KernelName(&'a str),
    /// `-binary version = 86`.
    BinaryVersion(Option<u32>),
    /// `-shmem base_addr = 0x...`.
    ShmemBase(u64),
    /// `-enable lineinfo = 1`.
    LineInfo(bool),
    /// Any other key (or a line without `=`, whose value is empty).
    Other {
        /// The key, trimmed.
        key: &'a str,
        /// The value, trimmed.
        value: &'a str,
    },
}

/// One line of a trace.
// An instruction is some 200 bytes, built where it is returned: boxing it
// would cost an allocation a line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    /// Empty, or whitespace only.
    Blank,
    /// `-key = value`.
    Header(Header<'a>),
    /// `#BEGIN_TB`: a thread block's instructions follow.
    BeginBlock,
    /// `#END_TB`.
    EndBlock,
    /// Any other line starting with `#`.
    Comment,
    /// `thread block = x,y,z`.
    ThreadBlock([u32; 3]),
    /// `warp = N`: the warp (in its block) of the instructions that follow.
    Warp(u32),
    /// `insts = N`: how many instruction lines the warp has.
    Insts(u64),
    /// An instruction.
    Instruction(Instruction<'a>),
}

/// A source line, where the trace has lineinfo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLine<'a> {
    /// The file, when the line number is written `FILE:N` (Accel-Sim's tracer
    /// writes the number only).
    pub file: Option<&'a str>,
    /// The line number.
    pub line: u32,
}

/// What an opcode does to shared memory ([`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Class {
    /// A shared-memory access the model predicts: its op and the bytes each
    /// lane accesses.
    Shared {
        /// The op.
        op: Op,
        /// Bytes a lane.
        width: u32,
    },
    /// One round of nvcc's compare-and-swap loop (`ATOMS.CAST.SPIN`,
    /// `ATOMS.CAST.SPIN.64`): the try of the lanes still pending, costed by
    /// [`BankConfig::cas_round_cost`](crate::BankConfig::cas_round_cost)
    /// under the emulated atomic `op` (`atom.add.f32` at 4 bytes, `atom.add.u64`
    /// at 8: the kinds measured; the SASS does not say which was emulated, and
    /// a round costs the same for each). The round's `LDS` is a trace
    /// instruction of its own.
    CasRound {
        /// The emulated atomic.
        op: Op,
        /// Bytes a lane.
        width: u32,
    },
    /// An instruction that touches shared memory but that the model cannot
    /// predict from the trace, named by its family: `LDGSTS` (Accel-Sim
    /// records its global source addresses, not the shared ones), the TMA
    /// copies (`UTMALDG`, `UTMASTG`, `UBLKCP`, ...), and the like. Counted and
    /// named, never folded into [`Class::Other`].
    Unmodelled {
        /// The family, e.g. `LDGSTS`.
        name: &'static str,
    },
    /// A constant-memory load (`LDC`, `ULDC`: `ld.const`), with the bytes
    /// each lane reads. Accel-Sim's NVBit tracer records no addresses for
    /// constant memory (MEM_WIDTH 0): `addressed` is false and
    /// [`Instruction::addresses`] is all 0. Where a line carries addresses (a
    /// tracer that records them, in the same formats as shared ones), they are
    /// read as they are, offsets in the constant bank, and `addressed` is
    /// true. Not a shared-memory request.
    Constant {
        /// Bytes a lane.
        width: u32,
        /// Whether the line gave the active lanes' addresses.
        addressed: bool,
    },
    /// A barrier (`BAR.SYNC`, `BAR.ARV`, `BAR.RED`, `BAR` alone: PTX `bar`,
    /// `barrier`): its id and thread count are the line's immediates
    /// ([`Instruction::barrier`]).
    Barrier {
        /// Sync, arrive or reduce.
        kind: BarrierKind,
    },
    /// `WARPSYNC` (`__syncwarp(mask)`): its mask is the line's immediate
    /// ([`Instruction::immediates`]).
    SyncWarp,
    /// `NOP`. On sm_90, nvcc compiles a `__syncwarp()` in converged code to a
    /// `NOP` (seen in the SASS of tools/racecheck/cases.cu, CUDA 13.0), so a
    /// source reports it as a `__syncwarp` of its active lanes: a modelling
    /// choice, without which every warp-synchronous kernel written correctly
    /// would race.
    Nop,
    /// A memory fence (`MEMBAR`: `membar`, `fence`, `__threadfence*()`).
    Fence,
    /// `LDGDEPBAR`: `cp.async.commit_group`.
    CpAsyncCommit,
    /// `DEPBAR` (`DEPBAR.LE SB0, N`): `cp.async.wait_group N` (the line's
    /// immediate; none: 0, `cp.async.wait_all`).
    CpAsyncWait,
    /// `ARRIVES.LDGSTSBAR`: `cp.async.mbarrier.arrive`.
    CpAsyncArrive,
    /// Any other instruction: not a shared-memory request.
    Other,
}

/// An instruction line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Thread block (x, y, z) and warp, where the line carries them (the raw
    /// `.trace` form); in the `.traceg` form they come from the
    /// [`Line::ThreadBlock`] and [`Line::Warp`] lines before.
    pub block_warp: Option<([u32; 3], u32)>,
    /// The source line, with lineinfo.
    pub source: Option<SourceLine<'a>>,
    /// The PC, as the trace gives it (an offset in the kernel).
    pub pc: u64,
    /// The active mask.
    pub mask: u32,
    /// The opcode with its modifiers, e.g. `LDS.U.128`.
    pub opcode: &'a str,
    /// What the opcode does to shared memory.
    pub class: Class,
    /// For [`Class::Shared`] and [`Class::CasRound`]: each active lane's
    /// shared address (the generic address less the header's base), by lane;
    /// inactive lanes hold 0. For
    /// [`Class::Constant`] with addresses: each active lane's address as the
    /// trace gives it. Empty (all 0) for other instructions, whose addresses
    /// are not read.
    pub addresses: [u32; WARP_SIZE],
    /// The rest of the line after the opcode (`SRC_NUM [srcs] MEM_WIDTH
    /// ...`), read only on demand ([`Instruction::immediates`]).
    pub operands: &'a [u8],
}

impl Instruction<'_> {
    /// The numbers after the operand list, `SRC_NUM [srcs] MEM_WIDTH
    /// [IMMEDIATES]`, hexadecimal (`0x40`) or decimal, each may end in `,`;
    /// at most 4, up to the first token that is not such a number (`-1` is
    /// not: a `WARPSYNC` with it has no mask read, which reads as all lanes).
    /// Read on demand: only synchronising instructions need them.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::accelsim::line::{self, Context, Line};
    ///
    /// let Ok(Line::Instruction(bar)) = line::line(b"0290 ffffffff 0 BAR.SYNC 0 0 0x1, 0x40", &Context::default()) else {
    ///     panic!("an instruction");
    /// };
    /// assert_eq!(bar.immediates(), vec![1, 0x40]);
    /// assert_eq!(bar.barrier(), (1, Some(64)));
    /// ```
    pub fn immediates(&self) -> Vec<u64> {
        let mut tokens = self
            .operands
            .split(|&b| is_space(b))
            .filter(|t| !t.is_empty());
        let number = |t: &[u8]| {
            let t = t.strip_suffix(b",").unwrap_or(t);
            match t {
                [b'0', b'x' | b'X', ..] => hex(t),
                _ => decimal(t).filter(|_| !t.starts_with(b"+")),
            }
        };
        let Some(srcs) = tokens.next().and_then(number) else {
            return Vec::new();
        };
        // The source registers, then MEM_WIDTH (0 for these instructions).
        let skip = usize::try_from(srcs)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        tokens.skip(skip).map_while(number).take(4).collect()
    }

    /// A barrier's id and thread count, from its immediates: none or `0`,
    /// barrier 0 for the whole block; one, that barrier for the whole block;
    /// two, the barrier and its count (both 0: barrier 0 for the whole
    /// block). An id or count past `u32::MAX` reads as `u32::MAX`, which no
    /// consumer accepts.
    pub fn barrier(&self) -> (u32, Option<u32>) {
        let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        match self.immediates()[..] {
            [] | [0] => (0, None),
            [id] => (narrow(id), None),
            [0, 0, ..] => (0, None),
            [id, count, ..] => (narrow(id), Some(narrow(count))),
        }
    }
}

/// Reads one line (without its `\n`; a trailing `\r` is whitespace).
///
/// # Errors
///
/// A description of what is malformed: [`NOT_AN_INSTRUCTION`] for a line of
/// no known shape; for a shared-memory instruction, a count or address that
/// does not parse, too few addresses, an unknown address mode, an address past
/// 2^64 or outside the 32-bit shared window, a 64-bit shared atomic; a marker
/// line (`thread block`, `warp`, `insts`) whose value does not parse.
pub fn line<'a>(bytes: &'a [u8], context: &Context) -> Result<Line<'a>, String> {
    let text = trim(bytes);
    let Some(&first) = text.first() else {
        return Ok(Line::Blank);
    };
    match first {
        b'-' => Ok(Line::Header(header(text))),
        b'#' => Ok(if text.starts_with(b"#BEGIN_TB") {
            Line::BeginBlock
        } else if text.starts_with(b"#END_TB") {
            Line::EndBlock
        } else {
            Line::Comment
        }),
        b't' if text.starts_with(b"thread block") => {
            let value = marker_value(text, b"thread block")?;
            let mut xyz = [0u32; 3];
            let mut parts = value.split(|&b| b == b',');
            for slot in &mut xyz {
                *slot = parts
                    .next()
                    .and_then(|p| decimal(trim(p)))
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| bad_marker("thread block = X,Y,Z", value))?;
            }
            if parts.next().is_some() {
                return Err(bad_marker("thread block = X,Y,Z", value));
            }
            Ok(Line::ThreadBlock(xyz))
        }
        b'w' if text.starts_with(b"warp") => {
            let value = marker_value(text, b"warp")?;
            decimal(value)
                .and_then(|v| u32::try_from(v).ok())
                .map(Line::Warp)
                .ok_or_else(|| bad_marker("warp = N", value))
        }
        b'i' if text.starts_with(b"insts") => {
            let value = marker_value(text, b"insts")?;
            decimal(value)
                .map(Line::Insts)
                .ok_or_else(|| bad_marker("insts = N", value))
        }
        _ => instruction(text, context),
    }
}

/// Reads a header line `-key = value` (the leading `-` and surrounding
/// whitespace are optional). Text that is not UTF-8 is read lossily: a kernel
/// name with such bytes keeps them as U+FFFD... in the name it is compared by.
pub fn header(bytes: &[u8]) -> Header<'_> {
    let text = trim(bytes);
    let text = text.strip_prefix(b"-").unwrap_or(text);
    let (key, value) = match memchr_byte(b'=', text) {
        Some(at) => (trim(&text[..at]), trim(&text[at + 1..])),
        None => (text, &text[text.len()..]),
    };
    let value_str = std::str::from_utf8(value).unwrap_or("");
    match key {
        b"kernel name" => Header::KernelName(match std::str::from_utf8(value) {
            Ok(name) => name,
            // The longest valid prefix: names are compared, not decoded.
            Err(err) => std::str::from_utf8(&value[..err.valid_up_to()]).unwrap_or(""),
        }),
        b"binary version" => Header::BinaryVersion(value_str.parse().ok()),
        b"shmem base_addr" => Header::ShmemBase(hex(value).unwrap_or(0)),
        b"enable lineinfo" => Header::LineInfo(value == b"1"),
        _ => Header::Other {
            key: std::str::from_utf8(key).unwrap_or(""),
            value: value_str,
        },
    }
}

/// The shared-memory class of an opcode: the one table of which SASS
/// instructions `smem` models, and how.
///
/// # Errors
///
/// A shared atomic of a size other than 32 or 64 bits.
pub fn classify(opcode: &str) -> Result<Class, String> {
    // Most instructions of a trace neither touch shared memory nor
    // synchronise: every opcode below starts with one of these letters, so
    // the rest are told by their first byte.
    if !matches!(
        opcode.as_bytes().first(),
        Some(b'A' | b'B' | b'D' | b'H' | b'I' | b'L' | b'M' | b'N' | b'Q' | b'S' | b'U' | b'W')
    ) {
        return Ok(Class::Other);
    }
    let (base, modifiers) = match opcode.as_bytes().iter().position(|&b| b == b'.') {
        Some(dot) => (&opcode[..dot], &opcode[dot + 1..]),
        None => (opcode, ""),
    };
    // Told by the base's length and first two letters before any name is
    // compared: only the bases matched below pass (`interesting_bases`
    // checks it).
    let b = base.as_bytes();
    if !matches!(
        (b.len(), b.first(), b.get(1)),
        (3, Some(b'L'), Some(b'D'))
            | (3, Some(b'S'), Some(b'T'))
            | (3, Some(b'B'), Some(b'A'))
            | (3, Some(b'N'), Some(b'O'))
            | (4, Some(b'L'), Some(b'D'))
            | (4, Some(b'S'), Some(b'T'))
            | (4, Some(b'U'), Some(b'L'))
            | (5, Some(b'A'), Some(b'T'))
            | (5, Some(b'H' | b'I' | b'Q' | b'B'), Some(b'G'))
            | (5, Some(b'S'), Some(b'Y'))
            | (6, Some(b'L'), Some(b'D'))
            | (6, Some(b'U'), Some(b'T' | b'B'))
            | (6, Some(b'M' | b'D'), Some(b'E'))
            | (7, Some(b'U'), Some(b'T' | b'B'))
            | (7, Some(b'A'), Some(b'R'))
            | (8, Some(b'U'), Some(b'T'))
            | (8, Some(b'W'), Some(b'A'))
            | (9, Some(b'L'), Some(b'D'))
    ) {
        return Ok(Class::Other);
    }
    // The commonest widths without reading the modifiers (as `OpName`
    // reads them, below).
    let shared = |op, width| Ok(Class::Shared { op, width });
    match opcode {
        _ if base != "LDS" && base != "STS" => {}
        "LDS" | "LDS.U" | "LDS.U.32" | "LDS.32" => return shared(Op::Load, 4),
        "STS" | "STS.32" => return shared(Op::Store, 4),
        "LDS.U.64" | "LDS.64" => return shared(Op::Load, 8),
        "STS.64" => return shared(Op::Store, 8),
        "LDS.U.128" | "LDS.128" => return shared(Op::Load, 16),
        "STS.128" => return shared(Op::Store, 16),
        _ => {}
    }
    // The shared accesses: the library's one op-name parser reads their
    // spellings (and says how a trace's opcode it does not know is read).
    if let Some(read) = OpName::from_trace_opcode(opcode) {
        let (op, width, cas_round) = read?;
        return Ok(if cas_round {
            Class::CasRound { op, width }
        } else {
            Class::Shared { op, width }
        });
    }
    let bits = || access_bits(modifiers);
    let has = |name: &str| modifiers.split('.').any(|m| m == name);
    Ok(match base {
        // cp.async: every spelling (`LDGSTS.E`, `.E.64`, `.E.128`,
        // `.E.BYPASS.LTC128B.128`, ...).
        "LDGSTS" => Class::Unmodelled { name: "LDGSTS" },
        // TMA and bulk copies to and from shared memory.
        "UTMALDG" | "UTMASTG" | "UTMAPF" | "UTMAREDG" | "UTMACCTL" | "UBLKCP" | "UBLKRED"
        | "UBLKPF" => Class::Unmodelled {
            name: "TMA (UTMALDG, UTMASTG, UBLKCP, ...)",
        },
        // Warpgroup MMA reads its operands from shared memory by descriptor.
        "HGMMA" | "IGMMA" | "QGMMA" | "BGMMA" => Class::Unmodelled {
            name: "GMMA (wgmma operands)",
        },
        // Synchronisation.
        "BAR" => Class::Barrier {
            kind: if has("ARV") {
                BarrierKind::Arrive
            } else if has("RED") {
                BarrierKind::Reduce
            } else {
                BarrierKind::Sync
            },
        },
        "WARPSYNC" => Class::SyncWarp,
        "NOP" => Class::Nop,
        "MEMBAR" => Class::Fence,
        "LDGDEPBAR" => Class::CpAsyncCommit,
        "DEPBAR" => Class::CpAsyncWait,
        "ARRIVES" => Class::CpAsyncArrive,
        // mbarrier operations (`SYNCS.ARRIVE.TRANS64`, `SYNCS.PHASECHK`, ...)
        // read and write their barrier word in shared memory.
        "SYNCS" => Class::Unmodelled {
            name: "SYNCS (mbarrier)",
        },
        // Constant-memory loads (`ld.const`; ULDC into a uniform register):
        // `LDC`, `LDC.64`, `LDC.U8`, ... (no size: 32 bits).
        "LDC" | "ULDC" => Class::Constant {
            width: bits().unwrap_or(32) / 8,
            addressed: false,
        },
        _ => Class::Other,
    })
}

/// The op and width of a generic memory instruction (`LD`, `ST`, `ATOM`,
/// `RED`, any modifiers), which is a shared-memory request when its addresses
/// fall in the shared window; `None` for other opcodes.
fn generic_op(opcode: &str) -> Option<(Op, u32)> {
    // The base told first, by its bytes: most instructions are none of these.
    let bytes = opcode.as_bytes();
    let base_len = match bytes {
        [b'L', b'D', ..] | [b'S', b'T', ..] => 2,
        [b'R', b'E', b'D', ..] => 3,
        [b'A', b'T', b'O', b'M', ..] => 4,
        _ => return None,
    };
    if bytes.get(base_len).is_some_and(|&b| b != b'.') {
        return None;
    }
    let (base, modifiers) = opcode.split_once('.').unwrap_or((opcode, ""));
    let has = |name: &str| modifiers.split('.').any(|m| m == name);
    let bits = access_bits(modifiers).unwrap_or(32);
    use AtomicKind as K;
    let kind = || {
        trace_atomic_kind(
            modifiers,
            if has("F32") || has("FTZ") {
                K::AddF32
            } else {
                K::Add
            },
        )
    };
    let op = match base {
        "LD" => Op::Load,
        "ST" => Op::Store,
        "ATOM" => Op::Atomic(kind()),
        "RED" => Op::Reduction(kind()),
        _ => return None,
    };
    matches!(bits, 8 | 16 | 32 | 64 | 128).then_some((op, bits / 8))
}

/// The access size in bits: the first modifier that is a number, with or
/// without a U/S (unsigned, signed) prefix: `LDS.U.128`, `LDS.U8`, `STS.64`.
fn access_bits(modifiers: &str) -> Option<u32> {
    modifiers.split('.').find_map(|m| {
        let digits = m
            .strip_prefix('U')
            .or_else(|| m.strip_prefix('S'))
            .unwrap_or(m);
        digits.parse::<u32>().ok()
    })
}

/// `value` of a marker line `NAME = value`.
fn marker_value<'a>(text: &'a [u8], name: &[u8]) -> Result<&'a [u8], String> {
    let rest = trim(&text[name.len()..]);
    match rest.strip_prefix(b"=") {
        Some(value) => Ok(trim(value)),
        None => Err(NOT_AN_INSTRUCTION.to_owned()),
    }
}

fn bad_marker(shape: &str, value: &[u8]) -> String {
    format!(
        "expected `{shape}`, found `{}`",
        String::from_utf8_lossy(&value[..value.len().min(64)])
    )
}

fn memchr_byte(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// The value of each hexadecimal digit; 0xff for other bytes.
const HEX: [u8; 256] = {
    let mut table = [0xff; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// A hexadecimal number of 1 to 16 digits, with or without `0x`: by table,
/// without a branch per digit (a list-mode line has 32 of them).
fn hex(token: &[u8]) -> Option<u64> {
    let digits = match token {
        [b'0', b'x' | b'X', rest @ ..] => rest,
        _ => token,
    };
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut value = 0u64;
    let mut bad = 0u8;
    for &b in digits {
        let digit = HEX[usize::from(b)];
        bad |= digit;
        value = value << 4 | u64::from(digit & 0xf);
    }
    (bad & 0xf0 == 0).then_some(value)
}

/// A decimal number of at most 19 digits (so that it fits a `u64` unchecked),
/// with an optional `+`.
fn decimal(token: &[u8]) -> Option<u64> {
    let digits = token.strip_prefix(b"+").unwrap_or(token);
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut value = 0u64;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + u64::from(digit);
    }
    Some(value)
}

/// A signed decimal number that fits an `i64`.
fn signed(token: &[u8]) -> Option<i64> {
    match token.strip_prefix(b"-") {
        Some(digits) if !digits.starts_with(b"+") => {
            decimal(digits).and_then(|v| 0i64.checked_sub_unsigned(v))
        }
        Some(_) => None,
        None => decimal(token).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Whitespace between fields: ASCII whitespace and, for speed, any other
/// control byte (which no well-formed field holds).
fn is_space(b: u8) -> bool {
    b <= b' '
}

fn trim(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}

/// Whitespace-separated tokens, read left to right.
struct Tokens<'a> {
    line: &'a [u8],
    at: usize,
}

impl<'a> Tokens<'a> {
    fn next(&mut self) -> Option<&'a [u8]> {
        let line = self.line;
        let mut i = self.at;
        while i < line.len() && is_space(line[i]) {
            i += 1;
        }
        if i == line.len() {
            self.at = i;
            return None;
        }
        let start = i;
        while i < line.len() && !is_space(line[i]) {
            i += 1;
        }
        self.at = i;
        Some(&line[start..i])
    }

    #[inline(always)]
    fn skip_space(&mut self) {
        // In a local: the loop keeps it in a register.
        let line = self.line;
        let mut at = self.at;
        while let Some(&b) = line.get(at) {
            if !is_space(b) {
                break;
            }
            at += 1;
        }
        self.at = at;
    }

    /// The token at `start`, for an error message; moves past it.
    #[cold]
    #[inline(never)]
    fn token_from(&mut self, start: usize) -> Option<&'a [u8]> {
        self.at = start;
        self.next()
    }

    /// The next token as a hexadecimal number of 1 to 16 digits, with or
    /// without `0x` ([`hex`]); on failure, the token (`None` at the end of
    /// the line). Sixteen bytes at a time with SSE2 ([`sse2`], x86-64) where
    /// the line has them after the token's start, else eight at a time in a
    /// `u64` ([`swar`]): the same value or error either way.
    #[inline(always)]
    fn hex(&mut self) -> Result<u64, Option<&'a [u8]>> {
        self.skip_space();
        let line = self.line;
        let start = self.at;
        let mut digits = start;
        if digits + 1 < line.len() && line[digits] == b'0' && line[digits + 1] | 0x20 == b'x' {
            digits += 2;
        }
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if let Some(block) = line.get(digits..).and_then(<[u8]>::first_chunk::<16>) {
            let count = sse2::hex(block).and_then(|(count, value)| {
                // Sixteen digits: the token must end there.
                (count < 16 || line.get(digits + 16).is_none_or(|&b| is_space(b)))
                    .then_some((count, value))
            });
            return match count {
                Some((count, value)) => {
                    self.at = digits + count;
                    Ok(value)
                }
                None => Err(self.token_from(start)),
            };
        }
        match swar_hex(line, digits) {
            Some((count, value)) => {
                self.at = digits + count;
                Ok(value)
            }
            None => Err(self.token_from(start)),
        }
    }

    /// The next token when it is one space, `0x` (or `0X`) and 1 to 16
    /// hexadecimal digits, as [`Tokens::hex`] reads it; `None` (and
    /// nothing read) for any other spelling or where the line has fewer than
    /// 19 bytes from here.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn spaced_prefixed_hex(&mut self) -> Option<u64> {
        let line = self.line;
        let at = self.at;
        // One bounds check for the prefix and the digits' block; the prefix
        // compared as one number (` 0x`, the `x` lower-cased).
        let (prefix, block) = line
            .get(at..)?
            .first_chunk::<19>()?
            .split_first_chunk::<3>()?;
        let prefix = u32::from_le_bytes([prefix[0], prefix[1], prefix[2] | 0x20, 0]);
        if prefix != u32::from_le_bytes([b' ', b'0', b'x', 0]) {
            return None;
        }
        let digits = at + 3;
        let (count, value) = sse2::hex(block.first_chunk::<16>()?)?;
        if count == 16 && !line.get(digits + 16).is_none_or(|&b| is_space(b)) {
            return None;
        }
        self.at = digits + count;
        Some(value)
    }

    /// The next token as a decimal number ([`decimal`]): read in place
    /// when it is plain digits (the counts and widths of every line), else
    /// as a token.
    #[inline(always)]
    fn decimal(&mut self) -> Result<u64, Option<&'a [u8]>> {
        let start = self.at;
        self.skip_space();
        if let Some((end, value)) = plain_decimal(self.line, self.at) {
            self.at = end;
            return Ok(value);
        }
        self.at = start;
        self.decimal_token()
    }

    #[inline(never)]
    fn decimal_token(&mut self) -> Result<u64, Option<&'a [u8]>> {
        let start = self.at;
        match self.next() {
            Some(token) => decimal(token).ok_or(Some(token)),
            None => {
                self.at = start;
                Err(None)
            }
        }
    }

    /// The next token as a signed decimal number ([`signed`]), read in place
    /// when it is plain digits with an optional `-`.
    #[inline(always)]
    fn signed(&mut self) -> Result<i64, Option<&'a [u8]>> {
        let start = self.at;
        self.skip_space();
        let negative = self.line.get(self.at) == Some(&b'-');
        if let Some((end, value)) = plain_decimal(self.line, self.at + usize::from(negative)) {
            // At most 18 digits: within an i64 either way.
            let value = value as i64;
            self.at = end;
            return Ok(if negative { -value } else { value });
        }
        self.at = start;
        self.signed_token()
    }

    #[inline(never)]
    fn signed_token(&mut self) -> Result<i64, Option<&'a [u8]>> {
        match self.next() {
            Some(token) => signed(token).ok_or(Some(token)),
            None => Err(None),
        }
    }
}

/// A run of 1 to 18 decimal digits at `at` ending at whitespace or the end of
/// the line: where it ends and its value (which fits an `i64`). `None` for
/// anything else (a sign, another byte, more digits), which [`decimal`] and
/// [`signed`] then read as a token.
#[inline(always)]
fn plain_decimal(line: &[u8], at: usize) -> Option<(usize, u64)> {
    let mut i = at;
    let mut value = 0u64;
    while let Some(&b) = line.get(i) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value * 10 + u64::from(digit);
        i += 1;
        if i - at > 18 {
            return None;
        }
    }
    (i > at && line.get(i).is_none_or(|&b| is_space(b))).then_some((i, value))
}

/// The hexadecimal digits at `digits` (after any `0x`), eight at a time
/// ([`swar`]): how many and their value; `None` if they are not 1 to 16
/// digits ending at whitespace or the end of the line.
#[inline(always)]
fn swar_hex(line: &[u8], digits: usize) -> Option<(usize, u64)> {
    let first = swar::load(line, digits);
    let count = match swar::spaces(first) {
        0 => match swar::spaces(swar::load(line, digits + 8)) {
            0 if line.get(digits + 16).is_none_or(|&b| is_space(b)) => 16,
            0 => 17,
            high => 8 + high.trailing_zeros() as usize / 8,
        },
        low => low.trailing_zeros() as usize / 8,
    };
    let value = match count {
        1..=8 => swar::hex(first, count),
        9..=16 => swar::hex(first, count - 8)
            .zip(swar::hex(swar::load(line, digits + count - 8), 8))
            .map(|(high, low)| high << 32 | low),
        _ => None,
    };
    value.map(|value| (count, value))
}

/// Hexadecimal numbers sixteen bytes at a time with SSE2, which every x86-64
/// CPU has (it is part of the architecture's baseline, so no detection at run
/// time is needed: the module exists only where the compiler may assume it).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(unsafe_code)]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128,
        _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16,
        _mm_set1_epi8, _mm_slli_epi16, _mm_srli_epi16, _mm_sub_epi8,
    };

    /// [`window_masks`](super::window_masks) sixteen bytes at a time.
    #[inline(always)]
    pub(super) fn window_masks(window: &[u8; super::WINDOW]) -> (u64, u64, u64) {
        let (mut space, mut newline, mut high) = (0u64, 0u64, 0u64);
        for (i, block) in window.chunks_exact(16).enumerate() {
            // SAFETY: SSE2 is assumed by this module's cfg; the load reads
            // the 16 bytes of `block`, at any alignment.
            let (s, n, h) = unsafe {
                let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
                let at_most_space = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x20)), v);
                (
                    _mm_movemask_epi8(at_most_space) as u32,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) as u32,
                    _mm_movemask_epi8(v) as u32,
                )
            };
            space |= u64::from(s) << (16 * i);
            newline |= u64::from(n) << (16 * i);
            high |= u64::from(h) << (16 * i);
        }
        (space, newline, high)
    }

    /// The hexadecimal digits at the start of `block`, up to the first byte
    /// that is at most 0x20 (whitespace, a control byte) or the block's end:
    /// how many (1 to 16) and their value, the first the most significant;
    /// `None` if there are none or one of them is not a hexadecimal digit.
    #[inline(always)]
    pub(super) fn hex(block: &[u8; 16]) -> Option<(usize, u64)> {
        // SAFETY: the intrinsics need SSE2, which this module's cfg says the
        // compiler may assume on every CPU the program runs on; the one load
        // reads exactly the 16 bytes of `block`, at any alignment.
        let (count, valid, bytes) = unsafe {
            // The high bit of each byte of `v` that is at most `max`, unsigned.
            let at_most =
                |v: __m128i, max: u8| _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(max as i8)), v);
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let spaces = _mm_movemask_epi8(at_most(v, 0x20)) as u32;
            let count = (spaces | 1 << 16).trailing_zeros() as usize;
            // '0'-'9' less '0' are 0-9; 'a'-'f' and 'A'-'F' (lower-cased by
            // setting bit 5) less 'a' are 0-5; any other byte is neither.
            let digit = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            let is_digit = at_most(digit, 9);
            let letter = _mm_sub_epi8(
                _mm_or_si128(v, _mm_set1_epi8(0x20)),
                _mm_set1_epi8(b'a' as i8),
            );
            let is_letter = at_most(letter, 5);
            let valid = _mm_movemask_epi8(_mm_or_si128(is_digit, is_letter)) as u32;
            // Each byte's value (0 for bytes that are not digits: those past
            // the token are shifted out below).
            let nibbles = _mm_or_si128(
                _mm_and_si128(is_digit, digit),
                _mm_and_si128(is_letter, _mm_add_epi8(letter, _mm_set1_epi8(10))),
            );
            // Pairs of bytes into one (the first the high nibble), then the
            // eight bytes, in order, into a u64.
            let pairs = _mm_or_si128(
                _mm_and_si128(_mm_slli_epi16::<4>(nibbles), _mm_set1_epi16(0xf0)),
                _mm_srli_epi16::<8>(nibbles),
            );
            let bytes = _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64;
            (count, valid, bytes)
        };
        let used = (1u32 << count) - 1;
        if count == 0 || valid & used != used {
            return None;
        }
        Some((count, bytes.swap_bytes() >> (4 * (16 - count))))
    }
}

/// Whether the CPU has AVX2, for [`other_line_end`]'s masks (checked once
/// a chunk; the answer is cached by the standard library).
#[inline]
pub(crate) fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// [`window_masks`] 32 bytes at a time, where the CPU has AVX2 (told at run
/// time: it is not part of x86-64's baseline).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_set1_epi8,
    };

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn window_masks(window: &[u8; super::WINDOW]) -> (u64, u64, u64) {
        let at = window.as_ptr().cast::<__m256i>();
        // SAFETY: two unaligned 32-byte loads, of the window's 64 bytes.
        let (low, high) = unsafe { (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1))) };
        let masks = |v: __m256i| {
            let at_most_space = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x20)), v);
            let newline = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\n' as i8));
            (
                u64::from(_mm256_movemask_epi8(at_most_space) as u32),
                u64::from(_mm256_movemask_epi8(newline) as u32),
                u64::from(_mm256_movemask_epi8(v) as u32),
            )
        };
        let (s0, n0, h0) = masks(low);
        let (s1, n1, h1) = masks(high);
        (s0 | s1 << 32, n0 | n1 << 32, h0 | h1 << 32)
    }
}

/// Hexadecimal numbers eight digits at a time, in a `u64` (SWAR: SIMD
/// within a register), for the addresses of list-mode lines.
mod swar {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;

    /// The 8 bytes of `line` from `at`, little-endian, zero past its end.
    #[inline(always)]
    pub(super) fn load(line: &[u8], at: usize) -> u64 {
        match line.get(at..at + 8) {
            Some(&[a, b, c, d, e, f, g, h]) => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
            _ => load_end(line, at),
        }
    }

    /// [`load`] near the end of the line.
    #[cold]
    #[inline(never)]
    fn load_end(line: &[u8], at: usize) -> u64 {
        let mut bytes = [0u8; 8];
        let rest = line.get(at..).unwrap_or_default();
        let n = rest.len().min(8);
        bytes[..n].copy_from_slice(&rest[..n]);
        u64::from_le_bytes(bytes)
    }

    /// The high bit of each byte that is at most 0x20 (a space, a control
    /// byte, the zero padding); exact for the lowest such byte, which is all
    /// that is used.
    pub(super) fn spaces(x: u64) -> u64 {
        x.wrapping_sub(ONES * 0x21) & !x & HIGH
    }

    /// The high bit of each zero byte; exact for the lowest one, which is
    /// all that is used.
    #[inline(always)]
    pub(super) fn zeros(x: u64) -> u64 {
        x.wrapping_sub(ONES) & !x & HIGH
    }

    /// `byte` in each of the eight bytes.
    pub(super) const fn splat(byte: u8) -> u64 {
        ONES * byte as u64
    }

    /// The high bit of each byte (of 7-bit bytes) that is at least `low`.
    fn at_least(x: u64, low: u8) -> u64 {
        ((x | HIGH).wrapping_sub(ONES * u64::from(low))) & HIGH
    }

    /// The value of the first `count` (1 to 8) bytes of `x` as hexadecimal
    /// digits, the first the most significant; `None` if one is not a digit.
    #[inline(always)]
    pub(super) fn hex(x: u64, count: usize) -> Option<u64> {
        debug_assert!((1..=8).contains(&count));
        // The digits moved to the top bytes: the bytes below read as leading zeros.
        let x = x << (64 - 8 * count);
        let used = HIGH << (64 - 8 * count);
        let ascii = !x & HIGH;
        let lower = x | (ONES * 0x20);
        let digit = at_least(x, b'0') & !at_least(x, b'9' + 1);
        let letter = at_least(lower, b'a') & !at_least(lower, b'f' + 1);
        if (digit | letter) & ascii & used != used {
            return None;
        }
        // '0'-'9' are 0x30-0x39, 'a'-'f' and 'A'-'F' 0x61-0x66 and 0x41-0x46:
        // the low nibble, plus 9 where bit 6 is set. Bytes below `used` are 0.
        let nibbles = (x & (ONES * 0x0f)) + ((x >> 6) & ONES) * 9;
        let nibbles = nibbles & (u64::MAX << (64 - 8 * count));
        // Pack: pairs of bytes, then of 16-bit and of 32-bit halves, the
        // lower-addressed (more significant) one on top.
        let v = ((nibbles << 4) | (nibbles >> 8)) & 0x00ff_00ff_00ff_00ff;
        let v = ((v << 8) | (v >> 16)) & 0x0000_ffff_0000_ffff;
        let v = ((v << 16) | (v >> 32)) & 0xffff_ffff;
        Some(v)
    }
}

/// Tokens before the opcode looked at when finding the PC: at most 7 leading
/// fields, PC, mask, the register count and 8 registers, the opcode.
const PREFIX: usize = 20;

/// The leading fields tried, after the one the header implies: none (the
/// `.traceg` form), a source line, block and warp ids (4), with a source line
/// (5), with the SM and warp in SM (6), with a source line (7).
const LEADS: [usize; 6] = [0, 1, 4, 5, 6, 7];

/// The first tokens of a line, read as far as needed.
struct Prefix<'a> {
    tokens: Tokens<'a>,
    seen: [&'a [u8]; PREFIX],
    count: usize,
}

impl<'a> Prefix<'a> {
    fn get(&mut self, i: usize) -> Option<&'a [u8]> {
        while self.count <= i && self.count < PREFIX {
            let token = self.tokens.next()?;
            self.seen[self.count] = token;
            self.count += 1;
        }
        (i < self.count).then(|| self.seen[i])
    }

    /// Whether the tokens after `lead` leading decimal fields are `PC MASK
    /// DEST_NUM [dests] OPCODE`; the opcode's index if so.
    fn fits(&mut self, lead: usize) -> Option<usize> {
        for i in 0..lead {
            let token = self.get(i)?;
            // The field right before the PC may be a source line `FILE:N`.
            let ok = decimal(token).is_some()
                || (lead % 2 == 1 && i == lead - 1 && source_line(token).is_some());
            if !ok {
                return None;
            }
        }
        hex(self.get(lead)?)?;
        let mask = self.get(lead + 1)?;
        if mask.len() != 8 {
            return None;
        }
        hex(mask)?;
        let dests = decimal(self.get(lead + 2)?)?;
        if dests > 8 {
            return None;
        }
        let dests = dests as usize;
        for i in 0..dests {
            if self.get(lead + 3 + i)?.first() != Some(&b'R') {
                return None;
            }
        }
        let opcode = lead + 3 + dests;
        self.get(opcode)?
            .first()
            .is_some_and(u8::is_ascii_uppercase)
            .then_some(opcode)
    }
}

/// A source line token: `N` or `FILE:N`.
fn source_line(token: &[u8]) -> Option<SourceLine<'_>> {
    let (file, number) = match token.iter().rposition(|&b| b == b':') {
        Some(at) => (Some(&token[..at]), &token[at + 1..]),
        None => (None, token),
    };
    let line = u32::try_from(decimal(number)?).ok()?;
    let file = match file {
        Some(file) => Some(std::str::from_utf8(file).ok().filter(|f| !f.is_empty())?),
        None => None,
    };
    Some(SourceLine { file, line })
}

fn shown(token: Option<&[u8]>) -> String {
    match token {
        Some(token) => format!(
            "`{}`",
            String::from_utf8_lossy(&token[..token.len().min(64)])
        ),
        None => "the end of the line".to_owned(),
    }
}

/// The start of an instruction line, up to its opcode.
struct Start<'a> {
    block_warp: Option<([u32; 3], u32)>,
    source: Option<SourceLine<'a>>,
    pc: u64,
    mask: u32,
    opcode: &'a [u8],
}

/// The common shape, `PC MASK DEST_NUM [dests] OPCODE` with nothing before,
/// read in one pass; `None` when the line has another.
fn plain_start<'a>(tokens: &mut Tokens<'a>) -> Option<Start<'a>> {
    let pc = tokens.hex().ok()?;
    tokens.skip_space();
    let mask_at = tokens.at;
    let line = tokens.line;
    // A full warp, the commonest mask, compared rather than decoded.
    let mask = if line.get(mask_at..mask_at + 8) == Some(b"ffffffff")
        && line.get(mask_at + 8).is_none_or(|&b| is_space(b))
    {
        tokens.at = mask_at + 8;
        u64::from(u32::MAX)
    } else {
        tokens.hex().ok()?
    };
    if tokens.at - mask_at != 8 {
        return None;
    }
    let dests = tokens.decimal().ok()?;
    if dests > 8 {
        return None;
    }
    for _ in 0..dests {
        if tokens.next()?.first() != Some(&b'R') {
            return None;
        }
    }
    let opcode = tokens.next()?;
    opcode.first()?.is_ascii_uppercase().then_some(Start {
        block_warp: None,
        source: None,
        pc,
        mask: mask as u32,
        opcode,
    })
}

/// The opcode as text: checked to be ASCII inline (every SASS opcode is),
/// by the full UTF-8 check otherwise.
#[inline(always)]
fn opcode_text(opcode: &[u8]) -> Result<&str, String> {
    if opcode.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        #[allow(unsafe_code)]
        return Ok(unsafe { std::str::from_utf8_unchecked(opcode) });
    }
    std::str::from_utf8(opcode).map_err(|_| "the opcode is not UTF-8 text".to_owned())
}

/// Any shape: the leading fields found by trying each count in turn.
fn any_start<'a>(text: &'a [u8], context: &Context) -> Result<(Start<'a>, usize), String> {
    let mut prefix = Prefix {
        tokens: Tokens { line: text, at: 0 },
        seen: [&[]; PREFIX],
        count: 0,
    };
    let expected = usize::from(context.lineinfo);
    let (lead, opcode_at) = std::iter::once(expected)
        .chain(LEADS.into_iter().filter(|&l| l != expected))
        .find_map(|lead| prefix.fits(lead).map(|at| (lead, at)))
        .ok_or_else(|| NOT_AN_INSTRUCTION.to_owned())?;
    let field = |i: usize| prefix.seen[i];
    let block_warp = (lead >= 4).then(|| {
        let id = |i: usize| decimal(field(i)).map_or(0, |v| v as u32);
        ([id(0), id(1), id(2)], id(3))
    });
    let source = if lead % 2 == 1 {
        source_line(field(lead - 1))
    } else {
        None
    };
    let opcode = field(opcode_at);
    // The opcode is a slice of `text`: the addresses start after it.
    let end = opcode.as_ptr() as usize - text.as_ptr() as usize + opcode.len();
    let start = Start {
        block_warp,
        source,
        pc: hex(field(lead)).unwrap_or_default(),
        mask: hex(field(lead + 1)).unwrap_or_default() as u32,
        opcode,
    };
    Ok((start, end))
}

/// Whether `bytes` is an instruction line of the common shape (`PC MASK
/// DEST_NUM [dests] OPCODE ...`, no leading fields, no lineinfo) whose
/// opcode neither touches shared memory nor synchronises ([`Class::Other`],
/// and not a generic access the shared window could hold): what [`line()`]
/// would read as such an instruction, told from the line's start alone. A
/// reader that only wants events skips these lines (some 96% of a real
/// trace's) without reading the rest; `false` says nothing, and the line is
/// read in full.
///
/// # Example
///
/// ```
/// use smem_model::kernel::accelsim::line::{is_other_instruction, Context};
///
/// let context = Context::default();
/// assert!(is_other_instruction(b"0030 ffffffff 1 R59 HFMA2.MMA 2 R255 R255 0 0", &context));
/// assert!(!is_other_instruction(b"0090 ffffffff 0 STS 2 R3 R4 4 1 0x400 4 0", &context));
/// assert!(!is_other_instruction(b"00a0 ffffffff 0 BAR.SYNC 0 0 0", &context));
/// ```
#[inline]
pub fn is_other_instruction(bytes: &[u8], context: &Context) -> bool {
    if context.lineinfo {
        return false;
    }
    // The shape `plain_start` reads, checked eight bytes at a time without
    // building anything; anything unusual (a sign, a long count, a register
    // that is not `R..`) answers `false`, and the full reading decides.
    let n = bytes.len();
    let mut i = 0;
    while i < n && is_space(bytes[i]) {
        i += 1;
    }
    // PC: 1 to 16 hexadecimal digits, perhaps after `0x`, then whitespace.
    if i + 1 < n && bytes[i] == b'0' && bytes[i + 1] | 0x20 == b'x' {
        i += 2;
    }
    let Some(end) = token_end(bytes, i) else {
        return false;
    };
    if end == i
        || end - i > 16
        || end == n
        || bytes[i..end].iter().any(|&b| HEX[usize::from(b)] == 0xff)
    {
        return false;
    }
    // One space is the rule; more are read as the full reading reads them.
    i = skip(bytes, end);
    // MASK: exactly 8 hexadecimal digits.
    let mask = swar::load(bytes, i);
    let zero_mask = mask == u64::from_le_bytes(*b"00000000");
    if mask != u64::from_le_bytes(*b"ffffffff")
        && !zero_mask
        && bytes
            .get(i..i + 8)
            .is_none_or(|m| m.iter().any(|&b| HEX[usize::from(b)] == 0xff))
    {
        return false;
    }
    if !bytes.get(i + 8).is_some_and(|&b| is_space(b)) {
        return false;
    }
    // DEST_NUM: one digit, 0 to 8, then that many registers `R..`.
    i = skip(bytes, i + 8);
    let dests = match bytes.get(i) {
        Some(&d @ b'0'..=b'8') if bytes.get(i + 1).is_some_and(|&b| is_space(b)) => d - b'0',
        _ => return false,
    };
    i += 1;
    for _ in 0..dests {
        i = skip(bytes, i);
        if bytes.get(i) != Some(&b'R') {
            return false;
        }
        match token_end(bytes, i) {
            Some(end) => i = end,
            None => return false,
        }
    }
    // OPCODE: an uppercase letter, then ASCII up to whitespace.
    i = skip(bytes, i);
    if !bytes.get(i).is_some_and(u8::is_ascii_uppercase) {
        return false;
    }
    let Some(end) = token_end(bytes, i) else {
        return false;
    };
    let Ok(opcode) = opcode_text(&bytes[i..end]) else {
        return false;
    };
    matches!(classify(opcode), Ok(Class::Other))
        && (context.shmem_base == 0 || zero_mask || generic_op(opcode).is_none())
}

/// Bytes of a line's start read at once by [`other_line_end`].
const WINDOW: usize = 64;

/// The end of the line at `buf[start..]` (the index of its newline, or
/// `len`) when that line is what [`is_other_instruction`] calls an other
/// instruction, told from the 64 bytes at its start in one pass: where its
/// first whitespace-separated fields begin and end, its first newline, its
/// non-ASCII bytes, as bit masks, then the fields checked by their shape
/// (`PC MASK DEST_NUM [R.. dests] OPCODE`, with a decimal line number first
/// where the header turns lineinfo on) and the opcode's base looked up in
/// the short list of those that matter ([`interesting_base`]). `None` says
/// nothing: the line is short of 64 bytes before `len`, its fields are
/// spelled in another way that [`line()`] also reads (`0x` before the PC, a
/// source file, a count `+1`), or it is anything else; the caller reads it
/// in full.
///
/// The bytes `buf[len..]` are never looked at. Some 96% of a real trace's
/// lines are other instructions, each skipped here in about a hundred
/// instructions (cutting the line included), where the token-by-token
/// reading took about 340.
///
/// `AVX2` says to compute the masks with AVX2: only where the CPU has it
/// ([`avx2_available`]), in code compiled for it (`read_chunk`'s AVX2 copy).
#[inline(always)]
pub(crate) fn other_line_end<const AVX2: bool>(
    buf: &[u8],
    start: usize,
    len: usize,
    context: &Context,
) -> Option<usize> {
    let window: &[u8; WINDOW] = buf.get(start..len)?.first_chunk::<WINDOW>()?;
    let (space, newline, high) = window_masks::<AVX2>(window);
    // The line's bytes in the window: up to its newline.
    let line = match newline {
        0 => u64::MAX,
        bits => (1u64 << bits.trailing_zeros()) - 1,
    };
    let word = !space & line;
    let mut fields = Fields {
        starts: word & !(word << 1),
        // A field's end is the whitespace (or newline) after it; a field
        // running to the window's end has none here.
        ends: !word & (word << 1),
    };
    // The shape the tracer writes, `PC MASK DEST_NUM `, told from the
    // whitespace at once: the PC up to the first whitespace, then 8 bytes and
    // one whitespace, one byte and one whitespace. Other spellings are read
    // field by field.
    let pc = (!word).trailing_zeros() as usize;
    let (mask_at, dests) =
        if !context.lineinfo && (1..=16).contains(&pc) && (!word >> (pc + 1)) & 0x7ff == 0x500 {
            if !hex_digits(window, 0, pc) {
                return None;
            }
            let past = !((1u64 << (pc + 12)) - 1);
            fields.starts &= past;
            fields.ends &= past;
            (pc + 1, pc + 10)
        } else {
            if context.lineinfo {
                // The source line number (any_start's first try with lineinfo).
                let (begin, end) = fields.next()?;
                if end - begin > 19 || !window[begin..end].iter().all(u8::is_ascii_digit) {
                    return None;
                }
            }
            let (begin, end) = fields.next()?;
            if !hex_digits(window, begin, end - begin) {
                return None;
            }
            let (mask_at, end) = fields.next()?;
            if end - mask_at != 8 {
                return None;
            }
            let (dests, end) = fields.next()?;
            if end - dests != 1 {
                return None;
            }
            (mask_at, dests)
        };
    // (The PC, 1 to 16 hexadecimal digits as `Tokens::hex` reads them, is
    // checked above.) MASK: 8 hexadecimal digits; all-zero noted (a generic
    // access with no lane is no request).
    let mask = window_load(window, mask_at);
    let zero_mask = mask == u64::from_le_bytes(*b"00000000");
    if mask != u64::from_le_bytes(*b"ffffffff") && !zero_mask && swar::hex(mask, 8).is_none() {
        return None;
    }
    // DEST_NUM: one digit, 0 to 8, then as many registers `R..`.
    let dests = match window[dests] {
        d @ b'0'..=b'8' => d - b'0',
        _ => return None,
    };
    for _ in 0..dests {
        let (begin, _) = fields.next()?;
        if window[begin] != b'R' {
            return None;
        }
    }
    // OPCODE: an uppercase letter, ASCII (as `opcode_text` checks it).
    let (begin, end) = fields.next()?;
    let opcode_bytes = ((1u64 << (end - begin)) - 1) << begin;
    if !window[begin].is_ascii_uppercase() || high & opcode_bytes != 0 {
        return None;
    }
    // The base: up to the first `.` or whitespace, as a little-endian
    // number; a base of 8 bytes or more has none in `key`.
    let key = window_load(window, begin);
    let stops = swar::spaces(key) | swar::zeros(key ^ swar::splat(b'.'));
    if stops == 0 {
        // Of the bases of 8 bytes and more, these are the ones that matter.
        let long = [*b"WARPSYNC", *b"UTMAREDG", *b"UTMACCTL", *b"LDGDEPBA"];
        if long.iter().any(|b| u64::from_le_bytes(*b) == key) {
            return None;
        }
    } else {
        let base = stops.trailing_zeros() as usize / 8;
        let base = key & ((1u64 << (8 * base)) - 1);
        if interesting_base(base) {
            return None;
        }
        // A generic access is a shared request where an active lane's
        // address is in the window above the header's base.
        if context.shmem_base != 0 && !zero_mask && generic_base(base) {
            return None;
        }
    }
    Some(if newline != 0 {
        start + newline.trailing_zeros() as usize
    } else {
        let end = start + end;
        memchr::memchr(b'\n', &buf[end..len]).map_or(len, |n| end + n)
    })
}

/// The fields of a line's window, left to right, as bit masks of where
/// they start and end.
struct Fields {
    starts: u64,
    ends: u64,
}

impl Fields {
    /// The next field's start and end, if it ends inside the window.
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        let begin = self.starts.trailing_zeros() as usize;
        let end = self.ends.trailing_zeros() as usize;
        if begin >= WINDOW || end >= WINDOW {
            return None;
        }
        self.starts &= self.starts - 1;
        self.ends &= self.ends - 1;
        Some((begin, end))
    }
}

/// The 8 bytes of `window` from `at`, little-endian, zero past its end.
#[inline(always)]
fn window_load(window: &[u8; WINDOW], at: usize) -> u64 {
    match window.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        Some(bytes) => u64::from_le_bytes(*bytes),
        None => swar::load(window, at),
    }
}

/// `bytes`, little-endian, as a number: the key of an opcode base.
const fn key(bytes: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < bytes.len() {
        key |= (bytes[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// Whether an opcode base (of at most 7 bytes, as [`key`]) is one that
/// [`classify`] gives a class other than [`Class::Other`]: the bases its
/// table names (those of 8 bytes and more are checked by
/// [`other_line_end`]). `classify_agrees_with_the_base_list` checks the two lists
/// agree.
#[inline(always)]
fn interesting_base(base: u64) -> bool {
    const LDS: u64 = key(b"LDS");
    const STS: u64 = key(b"STS");
    const ATOMS: u64 = key(b"ATOMS");
    const LDSM: u64 = key(b"LDSM");
    const STSM: u64 = key(b"STSM");
    const LDGSTS: u64 = key(b"LDGSTS");
    const UTMALDG: u64 = key(b"UTMALDG");
    const UTMASTG: u64 = key(b"UTMASTG");
    const UTMAPF: u64 = key(b"UTMAPF");
    const UBLKCP: u64 = key(b"UBLKCP");
    const UBLKRED: u64 = key(b"UBLKRED");
    const UBLKPF: u64 = key(b"UBLKPF");
    const HGMMA: u64 = key(b"HGMMA");
    const IGMMA: u64 = key(b"IGMMA");
    const QGMMA: u64 = key(b"QGMMA");
    const BGMMA: u64 = key(b"BGMMA");
    const BAR: u64 = key(b"BAR");
    const NOP: u64 = key(b"NOP");
    const MEMBAR: u64 = key(b"MEMBAR");
    const DEPBAR: u64 = key(b"DEPBAR");
    const ARRIVES: u64 = key(b"ARRIVES");
    const SYNCS: u64 = key(b"SYNCS");
    const LDC: u64 = key(b"LDC");
    const ULDC: u64 = key(b"ULDC");
    matches!(
        base,
        LDS | STS
            | ATOMS
            | LDSM
            | STSM
            | LDGSTS
            | UTMALDG
            | UTMASTG
            | UTMAPF
            | UBLKCP
            | UBLKRED
            | UBLKPF
            | HGMMA
            | IGMMA
            | QGMMA
            | BGMMA
            | BAR
            | NOP
            | MEMBAR
            | DEPBAR
            | ARRIVES
            | SYNCS
            | LDC
            | ULDC
    )
}

/// Whether an opcode base is a generic access's ([`generic_op`]).
#[inline(always)]
fn generic_base(base: u64) -> bool {
    const LD: u64 = key(b"LD");
    const ST: u64 = key(b"ST");
    const ATOM: u64 = key(b"ATOM");
    const RED: u64 = key(b"RED");
    matches!(base, LD | ST | ATOM | RED)
}

/// Whether `window[at..at + count]` (`count` at most 16) are hexadecimal
/// digits, eight at a time.
#[inline(always)]
fn hex_digits(window: &[u8; WINDOW], at: usize, count: usize) -> bool {
    match count {
        0 => false,
        1..=8 => swar::hex(window_load(window, at), count).is_some(),
        9..=16 => {
            swar::hex(window_load(window, at), 8).is_some()
                && swar::hex(window_load(window, at + 8), count - 8).is_some()
        }
        _ => false,
    }
}

/// For the 64 bytes of `window`, a bit for each (bit i for byte i): bytes
/// that are whitespace or control bytes (at most 0x20, [`is_space`]),
/// newlines, and bytes that are not ASCII.
#[inline(always)]
fn window_masks<const AVX2: bool>(window: &[u8; WINDOW]) -> (u64, u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is true only where the CPU has AVX2
        // (`other_line_end`'s contract).
        #[allow(unsafe_code)]
        return unsafe { avx2::window_masks(window) };
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    return sse2::window_masks(window);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let (mut space, mut newline, mut high) = (0u64, 0u64, 0u64);
        for (i, &b) in window.iter().enumerate() {
            space |= u64::from(is_space(b)) << i;
            newline |= u64::from(b == b'\n') << i;
            high |= u64::from(b >= 0x80) << i;
        }
        (space, newline, high)
    }
}

/// Past the whitespace at `at`: one byte as a rule, more where there are.
#[inline(always)]
fn skip(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_space(b)) {
        at += 1;
    }
    at
}

/// Where the token at `at` ends (its first whitespace, or the line's end),
/// eight bytes at a time; `None` for a token of 64 bytes or more (no field
/// of an instruction's start is so long).
#[inline(always)]
fn token_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut at = at;
    for _ in 0..8 {
        if at >= bytes.len() {
            return Some(bytes.len());
        }
        let spaces = swar::spaces(swar::load(bytes, at));
        if spaces != 0 {
            return Some((at + spaces.trailing_zeros() as usize / 8).min(bytes.len()));
        }
        at += 8;
    }
    None
}

/// Reads an instruction line (trimmed, not empty), built where it is
/// returned (an instruction is some 200 bytes: no copies).
#[inline(always)]
fn instruction<'a>(text: &'a [u8], context: &Context) -> Result<Line<'a>, String> {
    let mut tokens = Tokens { line: text, at: 0 };
    let plain = if context.lineinfo {
        None
    } else {
        plain_start(&mut tokens)
    };
    let start = match plain {
        Some(start) => start,
        None => {
            let (start, end) = any_start(text, context)?;
            tokens.at = end;
            start
        }
    };
    // The opcode starts with an ASCII letter and holds no whitespace; it is
    // checked to be UTF-8 once, here.
    let opcode = opcode_text(start.opcode)?;
    let mut class = classify(opcode)?;
    // A generic LD/ST/ATOM/RED is a shared-memory request when every active
    // lane's address falls in the shared window, as Accel-Sim resolves it.
    let generic = match class {
        Class::Other if context.shmem_base != 0 && start.mask != 0 => generic_op(opcode),
        _ => None,
    };
    if let Some((op, width)) = generic {
        class = Class::Shared { op, width };
    }
    let mut line = Line::Instruction(Instruction {
        block_warp: start.block_warp,
        source: start.source,
        pc: start.pc,
        mask: start.mask,
        opcode,
        class,
        addresses: [0; WARP_SIZE],
        operands: text.get(tokens.at..).unwrap_or_default(),
    });
    if let (Class::Constant { width, .. }, Line::Instruction(instruction)) = (class, &mut line) {
        // Addresses only where the line has them (Accel-Sim's tracer writes
        // MEM_WIDTH 0 for constant memory).
        let addressed = read_addresses(&mut tokens, context, instruction, Space::Constant)?;
        instruction.class = Class::Constant { width, addressed };
    }
    // A CAS round's addresses are read and checked as an ATOMS line's (its
    // cost depends only on its mask, but a malformed or out-of-window address
    // is an error all the same).
    if let (Class::Shared { .. } | Class::CasRound { .. }, Line::Instruction(instruction)) =
        (class, &mut line)
    {
        let space = if generic.is_some() {
            Space::Generic
        } else {
            Space::Shared
        };
        let read = read_addresses(&mut tokens, context, instruction, space);
        match read {
            Ok(true) => {}
            // A generic access outside the window (or unreadable, or without
            // addresses): not a shared-memory request.
            Ok(false) | Err(_) if generic.is_some() => {
                instruction.class = Class::Other;
                instruction.addresses = [0; WARP_SIZE];
            }
            Ok(false) => {
                return Err(format!(
                    "{opcode}: memory width 0: the line has no addresses"
                ))
            }
            Err(err) => return Err(err),
        }
    }
    Ok(line)
}

/// Which addresses an instruction line's are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Space {
    /// A shared-memory instruction's: generic or shared addresses.
    Shared,
    /// A generic LD/ST/ATOM's: a shared request only in the shared window.
    Generic,
    /// A constant load's: offsets in the constant bank, as they are.
    Constant,
}

/// Reads `SRC_NUM [srcs] MEM_WIDTH MODE ADDRESSES` into the addresses (shared
/// ones, or constant ones for [`Space::Constant`]); `Ok(false)` when
/// MEM_WIDTH is 0, the line having no addresses.
fn read_addresses(
    tokens: &mut Tokens<'_>,
    context: &Context,
    instruction: &mut Instruction<'_>,
    space: Space,
) -> Result<bool, String> {
    let generic = space == Space::Generic;
    let opcode = instruction.opcode;
    let expected = |what: &str, token: Option<&[u8]>| {
        format!("{opcode}: expected {what}, found {}", shown(token))
    };
    let srcs = tokens
        .decimal()
        .map_err(|t| expected("the source register count", t))?;
    // Bounded by the line: a count larger than the registers there ends here.
    for _ in 0..srcs {
        if tokens.next().is_none() {
            break;
        }
    }
    let mem_width = tokens
        .decimal()
        .map_err(|t| expected("the memory width", t))?;
    if mem_width == 0 {
        return Ok(false);
    }
    let address = |t| expected("a hexadecimal address", t);
    let offset = |t| expected("a decimal offset", t);
    let base = context.shmem_base;
    // Generic to shared: less the base, when the address is at or above it.
    // Inline and without a message; the message is built only on failure.
    let offset_of = |address: u64| -> Option<u32> {
        let offset = if space == Space::Constant {
            address
        } else if base != 0 && address >= base {
            address - base
        } else if generic {
            // A generic address below the window: global or local memory.
            return None;
        } else {
            address
        };
        u32::try_from(offset).ok()
    };
    let not_in_window = |lane: usize, address: u64| -> String {
        if space == Space::Constant {
            format!(
                "{opcode}: lane {lane} has address {address:#x}, which is not a constant-bank offset"
            )
        } else if generic && (base == 0 || address < base) {
            format!("{opcode}: lane {lane}: not a shared address")
        } else {
            format!(
                "{opcode}: lane {lane} has address {address:#x}, which is not a shared address \
                 (the header's shmem base_addr is {base:#x})"
            )
        }
    };
    let shared = |lane: usize, address: u64| match offset_of(address) {
        Some(offset) => Ok(offset),
        None => Err(not_in_window(lane, address)),
    };
    let mask = instruction.mask;
    let addresses = &mut instruction.addresses;
    match tokens.next() {
        Some(b"0") => {
            let mut rest = mask;
            // The common spelling, ` 0x` and at most 16 digits, read without
            // the general token steps; anything else by them, from there on.
            // In the window above a nonzero base (every address of a
            // shared access as traced), the offset is the difference, with
            // no other step; anything else goes by `shared`, which says why.
            let windowed = space != Space::Constant && base != 0;
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            while rest != 0 {
                let lane = rest.trailing_zeros() as usize;
                let Some(address) = tokens.spaced_prefixed_hex() else {
                    break;
                };
                let offset = address.wrapping_sub(base);
                addresses[lane] = if windowed && address >= base && offset <= u64::from(u32::MAX) {
                    offset as u32
                } else {
                    shared(lane, address)?
                };
                rest &= rest - 1;
            }
            while rest != 0 {
                let lane = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                addresses[lane] = shared(lane, tokens.hex().map_err(address)?)?;
            }
        }
        Some(b"1") => {
            let start = tokens.hex().map_err(address)?;
            let stride = tokens.signed().map_err(offset)?;
            if mask != 0 {
                let first = mask.trailing_zeros();
                // Contiguous: the mask shifted down is a run of ones from bit 0
                // (its population count then its length, without POPCNT).
                let run = mask >> first;
                let count = 32 - run.leading_zeros();
                if run & run.wrapping_add(1) != 0 {
                    return Err(format!(
                        "{opcode}: base_stride addresses need contiguous active lanes, but the mask is {mask:08x}"
                    ));
                }
                // The last lane's step is the largest in magnitude: if its
                // address is in range, every one is.
                let last = i64::from(count - 1);
                if stride
                    .checked_mul(last)
                    .and_then(|step| start.checked_add_signed(step))
                    .is_none()
                {
                    let i = (0..count)
                        .find(|&i| {
                            stride
                                .checked_mul(i64::from(i))
                                .and_then(|step| start.checked_add_signed(step))
                                .is_none()
                        })
                        .unwrap_or(count - 1);
                    let lane = first + i;
                    return Err(format!(
                        "{opcode}: lane {lane}'s address {start:#x} + {i} x {stride} is \
                         outside the 64-bit address space (0 to 2^64 - 1)"
                    ));
                }
                let lanes = first as usize..(first + count) as usize;
                let end = start.wrapping_add_signed(stride.wrapping_mul(last));
                if let (true, Some(first_offset), Some(_)) = (
                    base == 0 || (start >= base && end >= base),
                    offset_of(start),
                    offset_of(end),
                ) {
                    // Every address is on one side of the base: the offsets
                    // run from the first lane's to the last's, both in the
                    // window, so all are, and the rest is arithmetic.
                    let mut offset = first_offset;
                    for slot in &mut addresses[lanes] {
                        *slot = offset;
                        offset = offset.wrapping_add(stride as u32);
                    }
                } else {
                    let mut generic = start;
                    for (slot, lane) in addresses[lanes.clone()].iter_mut().zip(lanes) {
                        *slot = shared(lane, generic)?;
                        generic = generic.wrapping_add_signed(stride);
                    }
                }
            }
        }
        Some(b"2") => {
            if mask != 0 {
                let mut rest = mask;
                let first = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let mut current = tokens.hex().map_err(address)?;
                addresses[first] = shared(first, current)?;
                while rest != 0 {
                    let lane = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let delta = tokens.signed().map_err(offset)?;
                    current = current.checked_add_signed(delta).ok_or_else(|| {
                        format!(
                            "{opcode}: lane {lane}'s address {current:#x} + {delta} is outside \
                             the 64-bit address space (0 to 2^64 - 1)"
                        )
                    })?;
                    addresses[lane] = shared(lane, current)?;
                }
            }
        }
        other => {
            return Err(format!(
                "{opcode}: unknown address mode {}: expected 0 (list), 1 (base and stride) or 2 (base and deltas)",
                shown(other)
            ))
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AccessWidth, Matrices};

    fn context() -> Context {
        Context {
            shmem_base: 0x7f00_0000_0000,
            lineinfo: false,
        }
    }

    fn parse<'a>(text: &'a str, context: &Context) -> Result<Instruction<'a>, String> {
        match line(text.as_bytes(), context)? {
            Line::Instruction(i) => Ok(i),
            other => panic!("not an instruction: {other:?}"),
        }
    }

    fn shared(i: &Instruction<'_>) -> Option<(Op, u32)> {
        match i.class {
            Class::Shared { op, width } => Some((op, width)),
            _ => None,
        }
    }

    /// List-mode addresses in the window above the base (the direct
    /// difference), below it (taken as they are), spelled `0X`, past the
    /// 32-bit window, and with no base at all.
    #[test]
    fn list_addresses_on_each_side_of_the_base() {
        let i = parse(
            "0000 0000000f 1 R1 LDS 1 R2 4 0 0x7f0000000400 0x400 0X7F0000000010 0x7f00fffffffc 0",
            &context(),
        )
        .unwrap();
        assert_eq!(i.addresses[..5], [0x400, 0x400, 0x10, 0xffff_fffc, 0]);
        let err = parse(
            "0000 00000003 1 R1 LDS 1 R2 4 0 0x7f0000000400 0x7f0100000000 0",
            &context(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "LDS: lane 1 has address 0x7f0100000000, which is not a shared address \
             (the header's shmem base_addr is 0x7f0000000000)"
        );
        let no_base = Context {
            shmem_base: 0,
            lineinfo: false,
        };
        let i = parse(
            "0000 00000003 1 R1 LDS 1 R2 4 0 0x400 0xfffffffc 0",
            &no_base,
        )
        .unwrap();
        assert_eq!(i.addresses[..3], [0x400, 0xffff_fffc, 0]);
        assert!(parse("0000 00000001 1 R1 LDS 1 R2 4 0 0x100000000 0", &no_base).is_err());
    }

    /// A CAS round's addresses are read as an ATOMS line's (they were once
    /// left at 0).
    #[test]
    fn cas_rounds_have_their_addresses() {
        let i = parse(
            "0110 0000000f 0 ATOMS.CAST.SPIN 3 R2 R4 R6 4 0 0x7f0000000400 0x7f0000000404 \
             0x7f0000000408 0x7f000000040c 0",
            &context(),
        )
        .unwrap();
        assert!(matches!(i.class, Class::CasRound { width: 4, .. }));
        assert_eq!(i.addresses[..5], [0x400, 0x404, 0x408, 0x40c, 0]);
        let i = parse(
            "0110 00000003 0 ATOMS.CAST.SPIN.64 3 R2 R4 R6 8 1 0x7f0000000500 0",
            &context(),
        )
        .unwrap();
        assert!(matches!(i.class, Class::CasRound { width: 8, .. }));
        assert_eq!(i.addresses[..3], [0x500, 0x500, 0]);
    }

    #[test]
    fn headers() {
        let mut k = Kernel::default();
        for text in [
            "-kernel name = _Z9transposePfS_",
            "-binary version = 86",
            "-shmem base_addr = 0x00007ff000000000",
            "-enable lineinfo = 1",
            "-nvbit version = 1.7",
        ] {
            k.apply(&header(text.as_bytes()));
        }
        assert_eq!(k.name, "_Z9transposePfS_");
        assert_eq!(k.binary_version, Some(86));
        assert_eq!(k.context.shmem_base, 0x7ff0_0000_0000);
        assert!(k.context.lineinfo);
        assert_eq!(
            header(b"-nvbit version = 1.7"),
            Header::Other {
                key: "nvbit version",
                value: "1.7"
            }
        );
        assert_eq!(header(b"-binary version = x"), Header::BinaryVersion(None));
    }

    #[test]
    fn markers() {
        let c = context();
        assert_eq!(line(b"  ", &c), Ok(Line::Blank));
        assert_eq!(line(b"#BEGIN_TB", &c), Ok(Line::BeginBlock));
        assert_eq!(line(b"#END_TB\r", &c), Ok(Line::EndBlock));
        assert_eq!(line(b"#traces format = ...", &c), Ok(Line::Comment));
        assert_eq!(
            line(b"thread block = 3,1,0", &c),
            Ok(Line::ThreadBlock([3, 1, 0]))
        );
        assert_eq!(line(b"warp = 7", &c), Ok(Line::Warp(7)));
        assert_eq!(line(b"insts = 138", &c), Ok(Line::Insts(138)));
        assert_eq!(
            line(b"warp = x", &c),
            Err("expected `warp = N`, found `x`".to_owned())
        );
        assert_eq!(
            line(b"thread block = 1,2", &c),
            Err("expected `thread block = X,Y,Z`, found `1,2`".to_owned())
        );
    }

    /// The trace reader's classification before its shared opcodes went
    /// through `OpName::from_trace_opcode` (commit c210dd7, as it was; the
    /// `OpName` of then, which did not know `POPC` and `ARRIVE`).
    #[allow(clippy::too_many_lines)]
    fn old_classify(opcode: &str) -> Result<Class, String> {
        // Most instructions of a trace neither touch shared memory nor
        // synchronise: every opcode below starts with one of these letters, so
        // the rest are told by their first byte.
        if !matches!(
            opcode.as_bytes().first(),
            Some(b'A' | b'B' | b'D' | b'H' | b'I' | b'L' | b'M' | b'N' | b'Q' | b'S' | b'U' | b'W')
        ) {
            return Ok(Class::Other);
        }
        let (base, modifiers) = match opcode.as_bytes().iter().position(|&b| b == b'.') {
            Some(dot) => (&opcode[..dot], &opcode[dot + 1..]),
            None => (opcode, ""),
        };
        // Told by the base's length and first two letters before any name is
        // compared: only the bases matched below pass (`interesting_bases`
        // checks it).
        let b = base.as_bytes();
        if !matches!(
            (b.len(), b.first(), b.get(1)),
            (3, Some(b'L'), Some(b'D'))
                | (3, Some(b'S'), Some(b'T'))
                | (3, Some(b'B'), Some(b'A'))
                | (3, Some(b'N'), Some(b'O'))
                | (4, Some(b'L'), Some(b'D'))
                | (4, Some(b'S'), Some(b'T'))
                | (4, Some(b'U'), Some(b'L'))
                | (5, Some(b'A'), Some(b'T'))
                | (5, Some(b'H' | b'I' | b'Q' | b'B'), Some(b'G'))
                | (5, Some(b'S'), Some(b'Y'))
                | (6, Some(b'L'), Some(b'D'))
                | (6, Some(b'U'), Some(b'T' | b'B'))
                | (6, Some(b'M' | b'D'), Some(b'E'))
                | (7, Some(b'U'), Some(b'T' | b'B'))
                | (7, Some(b'A'), Some(b'R'))
                | (8, Some(b'U'), Some(b'T'))
                | (8, Some(b'W'), Some(b'A'))
                | (9, Some(b'L'), Some(b'D'))
        ) {
            return Ok(Class::Other);
        }
        // The commonest widths without reading the modifiers (the same as the
        // rules below give them).
        let shared = |op, width| Ok(Class::Shared { op, width });
        match opcode {
            _ if base != "LDS" && base != "STS" => {}
            "LDS" | "LDS.U" | "LDS.U.32" | "LDS.32" => return shared(Op::Load, 4),
            "STS" | "STS.32" => return shared(Op::Store, 4),
            "LDS.U.64" | "LDS.64" => return shared(Op::Load, 8),
            "STS.64" => return shared(Op::Store, 8),
            "LDS.U.128" | "LDS.128" => return shared(Op::Load, 16),
            "STS.128" => return shared(Op::Store, 16),
            _ => {}
        }
        let bits = || access_bits(modifiers);
        // The library's one op-name parser reads every spelling it knows
        // (`LDSM.16.MT88.4` is `.x4.trans`, `ATOMS.ADD.F32` the float add); the
        // rules below read the rest by base and size as before (`ATOMS.POPC.INC`,
        // modifiers it does not list), so no line read before is refused now.
        if matches!(base, "LDS" | "STS" | "ATOMS" | "LDSM" | "STSM")
            && !modifiers.split('.').any(|m| m == "CAST")
        {
            if let Ok(name) = opcode.parse::<OpName>().and_then(|n| {
                if modifiers
                    .split('.')
                    .any(|m| m.eq_ignore_ascii_case("POPC") || m.eq_ignore_ascii_case("ARRIVE"))
                {
                    Err(crate::Error::NoReduction {
                        kind: AtomicKind::Add,
                    })
                } else {
                    Ok(n)
                }
            }) {
                return shared(name.op(), name.width().map_or(4, AccessWidth::bytes));
            }
        }
        // The matrix count of LDSM/STSM: the `.2` or `.4` suffix, none for one.
        let matrices = || {
            let has = |n| modifiers.split('.').any(|m| m == n);
            if has("4") {
                Matrices::X4
            } else if has("2") {
                Matrices::X2
            } else {
                Matrices::X1
            }
        };
        let has = |name: &str| modifiers.split('.').any(|m| m == name);
        let (op, width) = match base {
            "LDS" => (Op::Load, bits().unwrap_or(32) / 8),
            "STS" => (Op::Store, bits().unwrap_or(32) / 8),
            "ATOMS" => {
                // The CAS loop's try (nvcc's emulation of float and 64-bit add):
                // its cost is per round, not per lane (tests/data/hw-corpus/sm90-atomics.jsonl).
                if has("CAST") {
                    return Ok(match bits() {
                        Some(64) => Class::CasRound {
                            op: Op::Atomic(AtomicKind::Add),
                            width: 8,
                        },
                        _ => Class::CasRound {
                            op: Op::Atomic(AtomicKind::AddF32),
                            width: 4,
                        },
                    });
                }
                let kind = super::trace_atomic_kind(modifiers, AtomicKind::Add);
                let bits = bits().unwrap_or(32);
                if bits != 32 && bits != 64 {
                    return Err(format!(
                        "{opcode}: shared atomics are 32- or 64-bit, not {bits}-bit"
                    ));
                }
                (Op::Atomic(kind), bits / 8)
            }
            // Spellings `OpName` refuses: the count as the suffix says.
            "LDSM" => (Op::LdMatrix(matrices()), 16),
            "STSM" => (Op::StMatrix(matrices()), 16),
            // cp.async: every spelling (`LDGSTS.E`, `.E.64`, `.E.128`,
            // `.E.BYPASS.LTC128B.128`, ...).
            "LDGSTS" => return Ok(Class::Unmodelled { name: "LDGSTS" }),
            // TMA and bulk copies to and from shared memory.
            "UTMALDG" | "UTMASTG" | "UTMAPF" | "UTMAREDG" | "UTMACCTL" | "UBLKCP" | "UBLKRED"
            | "UBLKPF" => {
                return Ok(Class::Unmodelled {
                    name: "TMA (UTMALDG, UTMASTG, UBLKCP, ...)",
                })
            }
            // Warpgroup MMA reads its operands from shared memory by descriptor.
            "HGMMA" | "IGMMA" | "QGMMA" | "BGMMA" => {
                return Ok(Class::Unmodelled {
                    name: "GMMA (wgmma operands)",
                })
            }
            // Synchronisation.
            "BAR" => {
                return Ok(Class::Barrier {
                    kind: if has("ARV") {
                        BarrierKind::Arrive
                    } else if has("RED") {
                        BarrierKind::Reduce
                    } else {
                        BarrierKind::Sync
                    },
                })
            }
            "WARPSYNC" => return Ok(Class::SyncWarp),
            "NOP" => return Ok(Class::Nop),
            "MEMBAR" => return Ok(Class::Fence),
            "LDGDEPBAR" => return Ok(Class::CpAsyncCommit),
            "DEPBAR" => return Ok(Class::CpAsyncWait),
            "ARRIVES" => return Ok(Class::CpAsyncArrive),
            // mbarrier operations (`SYNCS.ARRIVE.TRANS64`, `SYNCS.PHASECHK`, ...)
            // read and write their barrier word in shared memory.
            "SYNCS" => {
                return Ok(Class::Unmodelled {
                    name: "SYNCS (mbarrier)",
                })
            }
            // Constant-memory loads (`ld.const`; ULDC into a uniform register):
            // `LDC`, `LDC.64`, `LDC.U8`, ... (no size: 32 bits).
            "LDC" | "ULDC" => {
                return Ok(Class::Constant {
                    width: bits().unwrap_or(32) / 8,
                    addressed: false,
                })
            }
            _ => return Ok(Class::Other),
        };
        Ok(Class::Shared { op, width })
    }

    /// Every opcode of the shared families made of up to four words from
    /// the SASS and PTX spellings (and junk) reads as before: the same class
    /// or the same message. The only changes: names with `POPC` or `ARRIVE`,
    /// now read by `OpName`'s grammar, that also name a float type
    /// (`ATOMS.POPC.ADD.F32`: a float add, was an integer add) or a kind in
    /// lower case (`ATOMS.POPC.cas`: a compare-and-swap, was an add; the old
    /// rules read upper case only), spellings no tool prints.
    #[test]
    fn shared_opcodes_read_as_before() {
        let bases = ["LDS", "STS", "ATOMS", "LDSM", "STSM"];
        let words = [
            "U", "S", "E", "8", "16", "32", "64", "128", "7", "256", "U8", "S16", "U32", "S32",
            "U64", "F32", "F64", "F16", "ADD", "CAS", "EXCH", "MIN", "MAX", "INC", "DEC", "AND",
            "OR", "XOR", "POPC", "ARRIVE", "CAST", "SPIN", "M88", "MT88", "2", "4", "x4", "x2",
            "trans", "ZD", "STRONG", "GPU", "", "cas", "popc",
        ];
        let mut checked = 0;
        let mut changed = Vec::new();
        let mut check = |opcode: &str| {
            let (old, new) = (old_classify(opcode), classify(opcode));
            checked += 1;
            if old != new {
                changed.push(format!("{opcode}: {old:?} -> {new:?}"));
            }
        };
        for base in bases {
            check(base);
            for a in words {
                check(&format!("{base}.{a}"));
                for b in words {
                    check(&format!("{base}.{a}.{b}"));
                    for c in [
                        "POPC", "INC", "ARRIVE", "64", "32", "F32", "MT88", "4", "ZD", "SPIN",
                    ] {
                        check(&format!("{base}.{a}.{b}.{c}"));
                    }
                }
            }
        }
        let expected_change = |line: &String| {
            let opcode = line.split(':').next().unwrap_or("");
            let words: Vec<&str> = opcode.split('.').collect();
            words[0] == "ATOMS"
                && words
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case("POPC") || w.eq_ignore_ascii_case("ARRIVE"))
                && words
                    .iter()
                    .any(|w| matches!(*w, "F32" | "F64") || w.chars().any(char::is_lowercase))
        };
        let unexpected: Vec<&String> = changed.iter().filter(|l| !expected_change(l)).collect();
        assert!(
            unexpected.is_empty(),
            "{} of {checked}: {unexpected:#?}",
            unexpected.len()
        );
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn widths_and_matrix_counts_come_from_the_opcode() {
        let cases = [
            ("LDS", Op::Load, 4),
            ("LDS.U.128", Op::Load, 16),
            ("LDS.64", Op::Load, 8),
            ("LDS.U8", Op::Load, 1),
            ("STS.S16", Op::Store, 2),
            ("ATOMS.ADD", Op::ATOMIC_ADD, 4),
            ("ATOMS.POPC.INC.32", Op::Atomic(AtomicKind::Inc), 4),
            ("ATOMS.CAS.64", Op::Atomic(AtomicKind::Cas), 8),
            ("ATOMS.EXCH", Op::Atomic(AtomicKind::Exch), 4),
            ("ATOMS.MIN.S32", Op::Atomic(AtomicKind::Min), 4),
            ("LDSM.16.MT88.4", Op::LdMatrix(Matrices::X4Trans), 16),
            ("LDSM.16.M88", Op::LdMatrix(Matrices::X1), 16),
            ("LDSM.16.MT88.2", Op::LdMatrix(Matrices::X2Trans), 16),
            ("LDSM.16.MT88", Op::LdMatrix(Matrices::X1Trans), 16),
            ("STSM.16.MT88.4", Op::StMatrix(Matrices::X4Trans), 16),
            ("ATOMS.ADD.F32", Op::Atomic(AtomicKind::AddF32), 4),
            ("STSM.16.M88.4", Op::StMatrix(Matrices::X4), 16),
        ];
        for (opcode, op, width) in cases {
            assert_eq!(
                classify(opcode),
                Ok(Class::Shared { op, width }),
                "{opcode}"
            );
        }
        assert_eq!(classify("LDG.E.128"), Ok(Class::Other));
        // Every spelling `OpName` knows is read as it reads it, the common
        // ones told without it included.
        for opcode in [
            "LDS",
            "LDS.U",
            "LDS.U.32",
            "LDS.32",
            "STS",
            "STS.32",
            "LDS.U.64",
            "LDS.64",
            "STS.64",
            "LDS.U.128",
            "LDS.128",
            "STS.128",
            "LDS.U8",
            "STS.S16",
            "ATOMS.CAS.64",
            "ATOMS.INC",
            "LDSM.16.M88.2",
            "LDSM.16.MT88.4",
            "STSM.16.MT88",
        ] {
            let name: OpName = opcode.parse().unwrap();
            let width = name.width().map_or(4, AccessWidth::bytes);
            assert_eq!(
                classify(opcode),
                Ok(Class::Shared {
                    op: name.op(),
                    width
                }),
                "{opcode}"
            );
        }
        for (ldc, width) in [("LDC", 4), ("LDC.64", 8), ("LDC.U8", 1), ("ULDC.64", 8)] {
            assert_eq!(
                classify(ldc),
                Ok(Class::Constant {
                    width,
                    addressed: false
                }),
                "{ldc}"
            );
        }
        // Accel-Sim's tracer writes no addresses for constant memory; another
        // tracer's are read as they are (no shared base subtracted).
        let c = context();
        let i = parse("0060 ffffffff 1 R9 LDC 0 0 0", &c).unwrap();
        assert_eq!(
            i.class,
            Class::Constant {
                width: 4,
                addressed: false
            }
        );
        let i = parse("0060 00000003 1 R9 LDC.64 1 R2 8 0 0x8 0x10", &c).unwrap();
        assert_eq!(
            i.class,
            Class::Constant {
                width: 8,
                addressed: true
            }
        );
        assert_eq!(i.addresses[..3], [8, 16, 0]);
        assert!(parse("0060 00000001 1 R9 LDC 1 R2 4 0 0x100000000", &c)
            .unwrap_err()
            .contains("not a constant-bank offset"));
        for ldgsts in [
            "LDGSTS.E",
            "LDGSTS.E.64",
            "LDGSTS.E.128",
            "LDGSTS.E.BYPASS.LTC128B.128",
        ] {
            assert_eq!(classify(ldgsts), Ok(Class::Unmodelled { name: "LDGSTS" }));
        }
        assert_eq!(
            classify("ATOMS.CAST.SPIN.64"),
            Ok(Class::CasRound {
                op: Op::Atomic(AtomicKind::Add),
                width: 8
            })
        );
        assert_eq!(
            classify("ATOMS.CAST.SPIN"),
            Ok(Class::CasRound {
                op: Op::Atomic(AtomicKind::AddF32),
                width: 4
            })
        );
        assert!(matches!(
            classify("UTMALDG.2D"),
            Ok(Class::Unmodelled { .. })
        ));
        assert_eq!(
            classify("ATOMS.CAS.128"),
            Err("ATOMS.CAS.128: shared atomics are 32- or 64-bit, not 128-bit".to_owned())
        );
    }

    #[test]
    fn the_three_address_modes() {
        let c = context();
        let stride = "0040 ffffffff 1 R4 LDS.U.128 1 R2 16 1 0x7f0000000400 16 0";
        let i = parse(stride, &c).unwrap();
        assert_eq!((i.pc, shared(&i)), (0x40, Some((Op::Load, 16))));
        assert_eq!(i.addresses[31], 0x400 + 31 * 16);
        // Lanes 0, 1 and 4 active: deltas from the previous active lane.
        let delta = "0050 00000013 0 STS 2 R3 R4 4 2 0x7f0000000400 128 -64";
        let i = parse(delta, &c).unwrap();
        assert_eq!(i.mask, 0x13);
        assert_eq!(i.addresses[..5], [0x400, 0x480, 0, 0, 0x440]);
        let list = "0060 00000005 1 R1 ATOMS.ADD 2 R2 R3 4 0 0x00007f0000000010 0x00007f0000000020";
        let i = parse(list, &c).unwrap();
        assert_eq!(i.addresses[..3], [0x10, 0, 0x20]);
        // Base and stride over lanes 4 to 7 only.
        let part = "0070 000000f0 1 R1 LDS 1 R2 4 1 0x7f0000000100 -4";
        let i = parse(part, &c).unwrap();
        assert_eq!(i.addresses[3..8], [0, 0x100, 0xfc, 0xf8, 0xf4]);
    }

    #[test]
    fn leading_ids_and_line_numbers() {
        let c = context();
        let raw = "3 0 0 1 0040 0000ffff 1 R4 LDS 1 R2 4 1 0x7f0000000000 4 0";
        let i = parse(raw, &c).unwrap();
        assert_eq!(i.block_warp, Some(([3, 0, 0], 1)));
        assert_eq!(i.addresses[15], 60);
        assert_eq!(i.addresses[16], 0);
        let lineinfo = Context {
            lineinfo: true,
            ..c
        };
        let numbered = "42 0040 ffffffff 1 R4 LDS 1 R2 4 1 0x7f0000000000 4";
        let i = parse(numbered, &lineinfo).unwrap();
        assert_eq!(
            i.source,
            Some(SourceLine {
                file: None,
                line: 42
            })
        );
        assert_eq!(i.block_warp, None);
        let filed = "kernel.cu:17 0040 ffffffff 1 R4 LDS 1 R2 4 1 0x7f0000000000 4";
        let i = parse(filed, &lineinfo).unwrap();
        assert_eq!(
            i.source,
            Some(SourceLine {
                file: Some("kernel.cu"),
                line: 17
            })
        );
        let i = parse("0070 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0", &c).unwrap();
        assert_eq!((i.opcode, i.class), ("IMAD.MOV.U32", Class::Other));
    }

    /// Lines of every shape near the common one, with odd bytes where the
    /// fields are: whenever the fast check says a line is an other
    /// instruction, the full reading ([`line()`]) agrees, and the end it
    /// gives is the line's; and it does say so of the common lines.
    #[test]
    fn other_line_end_agrees_with_the_full_reading() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut random = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let opcodes = [
            "IMAD.MOV.U32",
            "HFMA2.MMA",
            "LDG.E.128",
            "S2R",
            "BRA",
            "EXIT",
            "LDS",
            "LDS.U.128",
            "STS",
            "ATOMS.ADD",
            "LDSM.16.MT88.4",
            "BAR.SYNC",
            "WARPSYNC",
            "WARPSYNCX",
            "NOP",
            "NOPE",
            "LDC",
            "ULDC.64",
            "LD.E",
            "LD",
            "ST.E.64",
            "ATOM.E.ADD",
            "RED.E.ADD",
            "LDGDEPBAR",
            "LDGSTS.E",
            "DEPBAR.LE",
            "MEMBAR.SC",
            "SYNCS.ARRIVE",
            "UTMALDG.2D",
            "UTMAREDG",
            "HGMMA.64x64",
            "ARRIVES.X",
            "LDSX",
            "STG.E",
            "Imad",
            "I\u{e9}MAD",
            "LDS\u{e9}",
        ];
        let fields = [
            "0010",
            "1",
            "ffffffffffffffff",
            "1ffffffffffffffff",
            "0x10",
            "+1",
            "zz",
            "08",
            "9",
            "ffffffff",
            "00000000",
            "0000ffff",
            "0000fffg",
            "R1",
            "R255",
            "P0",
            "-1",
            "",
        ];
        let spaces = [" ", " ", " ", " ", "  ", "\t", "\x0b", "\r"];
        let mut fast = 0;
        for _ in 0..200_000 {
            let mut text = String::new();
            if random(8) == 0 {
                text.push_str(spaces[random(spaces.len())]);
            }
            let lineinfo = random(4) == 0;
            if lineinfo || random(16) == 0 {
                text.push_str(["42", "7", "a.cu:3", "+3", "x"][random(5)]);
                text.push_str(spaces[random(spaces.len())]);
            }
            let pc = format!("{:0width$x}", random(1 << 20), width = 1 + random(6));
            text.push_str(if random(10) == 0 {
                fields[random(fields.len())]
            } else {
                &pc
            });
            text.push_str(spaces[random(spaces.len())]);
            let mask = ["ffffffff", "00000000", "0000ffff", "8000000F"][random(4)];
            text.push_str(if random(10) == 0 {
                fields[random(fields.len())]
            } else {
                mask
            });
            text.push_str(spaces[random(spaces.len())]);
            let dests = random(4);
            text.push_str(&if random(10) == 0 {
                fields[random(fields.len())].to_owned()
            } else {
                dests.to_string()
            });
            for _ in 0..dests {
                text.push_str(spaces[random(spaces.len())]);
                text.push_str(if random(10) == 0 {
                    fields[random(fields.len())]
                } else {
                    "R12"
                });
            }
            text.push_str(spaces[random(spaces.len())]);
            text.push_str(opcodes[random(opcodes.len())]);
            let rest = [
                "",
                " 2 R255 R255 0 0",
                " 1 R2 4 1 0x7f0000000400 4 0",
                " 1 R2 16 0 0x7f0000000400 0x7f0000000410 0x7f0000000420 0x7f0000000430 \
                 0x7f0000000440 0x7f0000000450 0x7f0000000460 0x7f0000000470 0",
                " 0 0 0x1, 0x40",
            ];
            text.push_str(rest[random(rest.len())]);
            let mut bytes = text.into_bytes();
            if random(16) == 0 && !bytes.is_empty() {
                let at = random(bytes.len());
                bytes[at] = [0xff, b'\n', 0, b'.', b' '][random(5)];
            }
            let line_len = bytes
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(bytes.len());
            // The next line, or stale bytes past the length.
            bytes.push(b'\n');
            bytes.extend_from_slice(b"0020 ffffffff 0 BRA 0 0 0\n");
            bytes.resize(bytes.len() + random(80), b'x');
            let len = bytes.len() - random(2) * random(bytes.len() - line_len);
            let context = Context {
                shmem_base: [0, 0x7f00_0000_0000][random(2)],
                lineinfo,
            };
            let Some(end) = other_line_end::<false>(&bytes, 0, len, &context) else {
                assert!(
                    !avx2_available() || other_line_end::<true>(&bytes, 0, len, &context).is_none()
                );
                continue;
            };
            if avx2_available() {
                assert_eq!(other_line_end::<true>(&bytes, 0, len, &context), Some(end));
            }
            fast += 1;
            let shown = String::from_utf8_lossy(&bytes[..line_len]);
            assert_eq!(end, line_len.min(len), "{shown:?}");
            match line(&bytes[..end], &context) {
                Ok(Line::Instruction(i)) => assert_eq!(i.class, Class::Other, "{shown:?}"),
                other => panic!("{shown:?}: {other:?}"),
            }
        }
        assert!(fast > 20_000, "the fast check read {fast} lines");
        // The real traces' common lines.
        let c = context();
        for text in [
            "0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0 ",
            "0080 00000000 1 R6 LDG.E.64 1 R28 8 1 0x0 0 0 ",
            "0300 ffffffff 0 BRA 0 0 0 ",
        ] {
            let mut bytes = text.as_bytes().to_vec();
            bytes.resize(100, b'\n');
            assert_eq!(
                other_line_end::<false>(&bytes, 0, 100, &c),
                Some(text.len()),
                "{text}"
            );
        }
    }

    #[test]
    fn malformed_lines() {
        let c = context();
        let err = |text: &str| line(text.as_bytes(), &c).unwrap_err();
        assert_eq!(err("LDS 1 2 3"), NOT_AN_INSTRUCTION);
        assert_eq!(
            err("0040 00000003 1 R4 LDS 1 R2 4 0 0x7f0000000000"),
            "LDS: expected a hexadecimal address, found the end of the line"
        );
        assert_eq!(
            err("0040 00000005 1 R4 LDS 1 R2 4 1 0x7f0000000000 4"),
            "LDS: base_stride addresses need contiguous active lanes, but the mask is 00000005"
        );
        assert_eq!(
            err("0040 00000001 1 R4 LDS 1 R2 4 7 0x0"),
            "LDS: unknown address mode `7`: expected 0 (list), 1 (base and stride) or 2 (base and deltas)"
        );
        assert_eq!(
            err("0040 00000001 1 R4 LDS 1 R2 4 0 0x100000000"),
            "LDS: lane 0 has address 0x100000000, which is not a shared address (the header's \
             shmem base_addr is 0x7f0000000000)"
        );
        assert_eq!(
            err("0040 00000001 1 R4 LDS 1 R2"),
            "LDS: expected the memory width, found the end of the line"
        );
    }

    /// Reads the first token of `line` as a hexadecimal number every way
    /// there is, and checks that they agree with the digit-by-digit reading
    /// of the token ([`hex`] of [`Tokens::next`]): the same value and end,
    /// or the same error (the same token, or the end of the line).
    fn check_hex(line: &[u8]) {
        let mut reference = Tokens { line, at: 0 };
        let expected = match reference.next() {
            Some(token) => hex(token).ok_or(Some(token)),
            None => Err(None),
        };
        let mut tokens = Tokens { line, at: 0 };
        let got = tokens.hex();
        let shown = String::from_utf8_lossy(line);
        assert_eq!(got, expected, "{shown:?}");
        if got.is_ok() {
            assert_eq!(tokens.at, reference.at, "{shown:?}");
        }
        // The two decoders, side by side on the digits after any `0x`.
        let mut digits = line.iter().take_while(|&&b| is_space(b)).count();
        if line.get(digits) == Some(&b'0')
            && line.get(digits + 1).is_some_and(|&b| b | 0x20 == b'x')
        {
            digits += 2;
        }
        let swar = swar_hex(line, digits);
        assert_eq!(swar.map(|(_, v)| v), expected.ok(), "swar {shown:?}");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if let Some(block) = line.get(digits..).and_then(<[u8]>::first_chunk::<16>) {
            let simd = sse2::hex(block).filter(|&(count, _)| {
                count < 16 || line.get(digits + 16).is_none_or(|&b| is_space(b))
            });
            assert_eq!(simd, swar, "sse2 {shown:?}");
        }
    }

    /// The sixteen-at-a-time (SSE2) and eight-at-a-time (SWAR) hexadecimal
    /// readers agree with the digit-by-digit one on every length, digit, case,
    /// prefix, malformed byte and neighbouring byte, with the token at the
    /// end of the line (the short reads) and far from it (the SIMD ones).
    #[test]
    fn simd_hex_agrees_with_the_table() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"0123456789abcdefABCDEFxXgG:/ -+\t\x00\x7f\x80\xe1\xff";
        let tails: [&[u8]; 4] = [b"", b" 0x1234567890", b"                    ffff", b"0"];
        for _ in 0..200_000 {
            let len = (random() % 20) as usize;
            let mut token: Vec<u8> = (0..len)
                .map(|_| {
                    let r = random();
                    if r % 4 == 0 {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    } else {
                        b"0123456789abcdefABCDEF"[(r >> 8) as usize % 22]
                    }
                })
                .collect();
            let prefix: &[u8] = match random() % 4 {
                0 => b"0x",
                1 => b"0X",
                _ => b"",
            };
            token.splice(0..0, prefix.iter().copied());
            let lead = (random() % 3) as usize;
            for tail in tails {
                let mut line = vec![b' '; lead];
                line.extend_from_slice(&token);
                line.extend_from_slice(tail);
                check_hex(&line);
            }
        }
        for line in [
            &b""[..],
            b"   ",
            b"0x",
            b"0x ",
            b"0X",
            b"0",
            b"x1",
            b"0x0x1",
            b"ffffffffffffffff",
            b"ffffffffffffffff ",
            b"0xffffffffffffffff                 ",
            b"0x1ffffffffffffffff                ",
            b"10000000000000000                  ",
            b"0x7f4a3c0003a8 0x7f4a3c000a2c 0x7f4a3c000638",
            b"7F4A3C0003A8                       ",
            b"7f4a3c0003a8g                      ",
            b"123456789abcdef\xff                 ",
        ] {
            check_hex(line);
        }
    }

    /// [`simd_hex_agrees_with_the_table`] on tokens drawn by proptest:
    /// hexadecimal digits mixed with any byte, with or without `0x`.
    #[cfg(feature = "proptest")]
    mod props {
        use proptest::prelude::*;

        fn byte() -> impl Strategy<Value = u8> {
            prop_oneof![
                4 => proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                1 => any::<u8>(),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(20_000))]
            #[test]
            fn simd_hex_agrees_with_the_table(
                lead in 0usize..3,
                prefix in proptest::sample::select(vec![&b""[..], b"0x", b"0X"]),
                token in proptest::collection::vec(byte(), 0..20),
                tail in proptest::collection::vec(byte(), 0..24),
                space in any::<bool>(),
            ) {
                let mut line = vec![b' '; lead];
                line.extend_from_slice(prefix);
                line.extend_from_slice(&token);
                if space {
                    line.push(b' ');
                }
                line.extend_from_slice(&tail);
                super::check_hex(&line);
            }
        }
    }

    /// Issue 12, item 7: `stride * i` and `base + stride * i` are checked.
    #[test]
    fn addresses_past_2_to_the_64_are_errors() {
        let c = Context::default();
        let err = |text: &str| line(text.as_bytes(), &c).unwrap_err();
        assert_eq!(
            err("0040 ffffffff 1 R4 LDS 1 R2 4 1 0xfffffffffffffff0 4"),
            "LDS: lane 4's address 0xfffffffffffffff0 + 4 x 4 is outside the 64-bit address \
             space (0 to 2^64 - 1)"
        );
        assert_eq!(
            err("0040 00000003 1 R4 LDS 1 R2 4 1 0x0 -4"),
            "LDS: lane 1's address 0x0 + 1 x -4 is outside the 64-bit address space (0 to 2^64 - 1)"
        );
        assert_eq!(
            err("0040 ffffffff 1 R4 LDS 1 R2 4 1 0x0 9223372036854775807"),
            "LDS: lane 2's address 0x0 + 2 x 9223372036854775807 is outside the 64-bit address \
             space (0 to 2^64 - 1)"
        );
        // A window at the top of the address space, so that lane 0 is in it.
        let top = Context {
            shmem_base: 0xffff_ffff_0000_0000,
            lineinfo: false,
        };
        let err = |text: &str| line(text.as_bytes(), &top).unwrap_err();
        assert_eq!(
            err("0040 00000003 1 R4 LDS 1 R2 4 2 0xfffffffffffffffc 8"),
            "LDS: lane 1's address 0xfffffffffffffffc + 8 is outside the 64-bit address space \
             (0 to 2^64 - 1)"
        );
    }

    /// Issue 12, item 8: a huge SRC_NUM ends with the line, not after 2^64 steps.
    #[test]
    fn a_huge_source_count_is_bounded_by_the_line() {
        let c = context();
        let text = "0040 ffffffff 1 R4 LDS 9999999999999999999 R2 4 1 0x7f0000000000 4";
        assert_eq!(
            line(text.as_bytes(), &c).unwrap_err(),
            "LDS: expected the memory width, found the end of the line"
        );
    }

    /// Every base `classify` reads passes its quick test by length and first
    /// letters (a base added to the table but not to the test would read as
    /// `Other`).
    #[test]
    fn interesting_bases() {
        for base in [
            "LDS",
            "STS",
            "ATOMS",
            "LDSM",
            "STSM",
            "LDGSTS",
            "UTMALDG",
            "UTMASTG",
            "UTMAPF",
            "UTMAREDG",
            "UTMACCTL",
            "UBLKCP",
            "UBLKRED",
            "UBLKPF",
            "HGMMA",
            "IGMMA",
            "QGMMA",
            "BGMMA",
            "BAR",
            "WARPSYNC",
            "NOP",
            "MEMBAR",
            "LDGDEPBAR",
            "DEPBAR",
            "ARRIVES",
            "SYNCS",
            "LDC",
            "ULDC",
        ] {
            assert_ne!(classify(base), Ok(Class::Other), "{base}");
            assert_ne!(classify(&format!("{base}.X")), Ok(Class::Other), "{base}.X");
        }
    }

    /// The fast test of `is_other_instruction` never contradicts the full
    /// reading: every line it passes reads as an instruction of class
    /// `Other`, on every trace line of the tests' data and on lines made
    /// from every opcode family, with and without a shared base.
    #[test]
    fn other_instructions_are_told_as_the_full_reading_tells_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for folder in ["traces", "traces/kernels", "racecheck"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path
                    .extension()
                    .is_some_and(|e| e == "traceg" || e == "trace")
                {
                    let text = std::fs::read(&path).unwrap();
                    lines.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
                }
            }
        }
        let opcodes = [
            "IMAD.MOV.U32",
            "LDS",
            "LDS.U.128",
            "STS.64",
            "LD.E",
            "ST.E.64",
            "ATOM.E.ADD",
            "RED.E.ADD",
            "ATOMS.CAS",
            "ATOMS.CAST.SPIN",
            "LDSM.16.M88.4",
            "LDGSTS.E",
            "BAR.SYNC",
            "WARPSYNC",
            "NOP",
            "MEMBAR.SC.CTA",
            "DEPBAR.LE",
            "LDGDEPBAR",
            "ARRIVES.LDGSTSBAR.64",
            "SYNCS.ARRIVE",
            "LDC",
            "ULDC.64",
            "UTMALDG.2D",
            "HGMMA.64x128x16",
            "HFMA2.MMA",
            "EXIT",
            "BRA",
            "S2R",
            "LDG.E",
            "ATOMS.POPC.INC.32",
            "ATOMS.ADD.16",
            "Lé",
        ];
        for opcode in opcodes {
            for mask in ["ffffffff", "00000000", "0000ffff"] {
                lines.push(
                    format!("0010 {mask} 1 R1 {opcode} 1 R2 4 1 0x7f0000000400 4 0").into_bytes(),
                );
                lines.push(format!("0010 {mask} 0 {opcode} 0 0 0").into_bytes());
                lines.push(format!("  0010 {mask} 0 {opcode}").into_bytes());
            }
        }
        let mut told = 0;
        for bytes in &lines {
            for context in [
                Context::default(),
                Context {
                    shmem_base: 0x7f0000000000,
                    lineinfo: false,
                },
                Context {
                    shmem_base: 0,
                    lineinfo: true,
                },
            ] {
                if is_other_instruction(bytes, &context) {
                    told += 1;
                    let text = String::from_utf8_lossy(bytes);
                    match line(bytes, &context) {
                        Ok(Line::Instruction(i)) => assert_eq!(i.class, Class::Other, "{text}"),
                        other => panic!("{text}: {other:?}"),
                    }
                }
            }
        }
        assert!(told > 100, "{told}");
    }
}
