//! The Accel-Sim / NVBit trace format: what `smem trace` reads of it.
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
//! inactive lanes are off). The raw `.trace` form written by the tracer puts
//! `cta_x cta_y cta_z warp` (and, with `TOOL_TRACE_CORE`, `sm warp_in_sm`)
//! before that, as do all lines of tracer versions before 3. `smem` finds the
//! PC by the shape of the line (a hexadecimal mask of 8 digits, a register
//! count, that many registers, an opcode), so every variant reads the same.
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
//! Shared-memory instructions are `LDS`, `STS`, `ATOMS`, `LDSM` and `STSM`. The
//! access width comes from the opcode (`LDS.U.128`: 16 bytes, `LDS.U8`: 1,
//! no size: 4), not from MEM_WIDTH, which the tracer derives from the first
//! number in the opcode and so gets wrong for `LDSM.16.M88.4`; the matrix
//! count of `LDSM`/`STSM` is the `.2` or `.4` suffix (none: one matrix).
//! NVBit reports shared addresses as generic addresses: when the header gives a
//! shared base address, it is subtracted.

use smallvec::SmallVec;
use smem_model::{Matrices, Op, WARP_SIZE};

/// What the header says about the kernel whose instructions follow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kernel {
    /// `-kernel name`.
    pub name: String,
    /// `-binary version`, e.g. 86 for sm_86.
    pub binary_version: Option<u32>,
    /// `-shmem base_addr`: the generic address of shared address 0.
    pub shmem_base: u64,
    /// `-enable lineinfo`: instruction lines start with a source line number.
    pub lineinfo: bool,
}

impl Kernel {
    /// Reads one header line (`-key = value`) into the kernel; unknown keys and
    /// values that do not parse are ignored, as Accel-Sim does.
    pub fn header(&mut self, line: &str) {
        let Some((key, value)) = line.trim_start_matches('-').split_once('=') else {
            return;
        };
        let value = value.trim();
        match key.trim() {
            "kernel name" => self.name = value.to_owned(),
            "binary version" => self.binary_version = value.parse().ok(),
            "shmem base_addr" => self.shmem_base = parse_hex(value).unwrap_or(0),
            "enable lineinfo" => self.lineinfo = value == "1",
            _ => {}
        }
    }
}

/// A shared-memory instruction of the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// The PC, as the trace gives it (an offset in the kernel).
    pub pc: u64,
    /// The opcode with its modifiers, e.g. `LDS.U.128`.
    pub opcode: &'a str,
    /// The op and the bytes each lane accesses.
    pub op: Op,
    pub width: u32,
    /// Each lane's shared address (the generic address less the base).
    pub addresses: [Option<u32>; WARP_SIZE],
}

/// Whether a line might be a shared-memory instruction: a cheap test that lets
/// the reader skip the other instructions without splitting them.
pub fn may_be_shared(line: &str) -> bool {
    line.contains("LDS") || line.contains("STS") || line.contains("ATOMS")
}

/// The op and width of a shared-memory opcode, `None` for any other opcode.
fn shared_op(opcode: &str) -> Result<Option<(Op, u32)>, String> {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default();
    let modifiers: SmallVec<[&str; 4]> = parts.collect();
    let matrices = || {
        if modifiers.contains(&"4") {
            Matrices::X4
        } else if modifiers.contains(&"2") {
            Matrices::X2
        } else {
            Matrices::X1
        }
    };
    let bits = modifiers.iter().find_map(|m| {
        let digits = m
            .strip_prefix('U')
            .or_else(|| m.strip_prefix('S'))
            .unwrap_or(m);
        digits.parse::<u32>().ok()
    });
    Ok(Some(match base {
        "LDS" => (Op::Load, bits.unwrap_or(32) / 8),
        "STS" => (Op::Store, bits.unwrap_or(32) / 8),
        "ATOMS" => {
            let bits = bits.unwrap_or(32);
            if bits != 32 {
                return Err(format!(
                    "{opcode}: the model has 32-bit shared atomics only, not {bits}-bit"
                ));
            }
            (Op::Atomic, 4)
        }
        "LDSM" => (Op::LdMatrix(matrices()), 16),
        "STSM" => (Op::StMatrix(matrices()), 16),
        _ => return Ok(None),
    }))
}

/// A hexadecimal number of at most 64 bits, with or without `0x`. By hand
/// rather than `u64::from_str_radix`, which a trace calls tens of times a line
/// and which takes several times as long for its generality.
fn parse_hex(text: &str) -> Option<u64> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text)
        .as_bytes();
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut value = 0u64;
    for &b in digits {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        value = value << 4 | u64::from(digit);
    }
    Some(value)
}

/// The tokens of a line, split at ASCII whitespace as
/// `str::split_ascii_whitespace` does, on the stack: a line in list mode has
/// some 45 tokens, and a trace hundreds of millions of lines.
fn tokens(line: &str) -> SmallVec<[&str; 64]> {
    let bytes = line.as_bytes();
    let mut tokens = SmallVec::new();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if start < i {
            // Both ends sit next to ASCII bytes or the line's ends: char boundaries.
            tokens.push(&line[start..i]);
        }
    }
    tokens
}

fn is_decimal(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `tokens[lead..]` starts with `PC MASK DEST_NUM [dests] OPCODE`,
/// after `lead` decimal fields.
fn fits(tokens: &[&str], lead: usize) -> bool {
    let field = |i: usize| tokens.get(i).copied().unwrap_or_default();
    if !tokens[..lead.min(tokens.len())]
        .iter()
        .all(|t| is_decimal(t))
    {
        return false;
    }
    let mask = field(lead + 1);
    if parse_hex(field(lead)).is_none() || mask.len() != 8 || parse_hex(mask).is_none() {
        return false;
    }
    let Ok(dests) = field(lead + 2).parse::<usize>() else {
        return false;
    };
    dests <= 8
        && (0..dests).all(|i| field(lead + 3 + i).starts_with('R'))
        && field(lead + 3 + dests)
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_uppercase())
}

/// Parses an instruction line; `Ok(None)` for instructions that do not access
/// shared memory.
///
/// # Errors
///
/// A description of what is malformed: a line whose shape is not an
/// instruction's, a count or address that does not parse, too few addresses,
/// an unknown address mode, a 64-bit shared atomic, an address outside the
/// 32-bit shared window.
pub fn parse<'a>(line: &'a str, kernel: &Kernel) -> Result<Option<Instruction<'a>>, String> {
    let tokens = tokens(line);
    let expected = usize::from(kernel.lineinfo);
    let lead = [expected, 0, 1, 4, 5, 6, 7]
        .into_iter()
        .find(|&lead| fits(&tokens, lead))
        .ok_or_else(|| {
            "not an instruction line: expected [ids] PC MASK DEST_NUM [dests] OPCODE SRC_NUM \
             [srcs] MEM_WIDTH [MODE ADDRESSES]"
                .to_owned()
        })?;
    let mut next = lead;
    let mut take = || {
        let token = tokens.get(next).copied();
        next += 1;
        token
    };
    let pc = take().and_then(parse_hex).unwrap_or_default();
    let mask = take().and_then(parse_hex).unwrap_or_default() as u32;
    let dests: usize = take().and_then(|t| t.parse().ok()).unwrap_or_default();
    for _ in 0..dests {
        take();
    }
    let opcode = take().unwrap_or_default();
    let Some((op, width)) = shared_op(opcode)? else {
        return Ok(None);
    };
    let count = |what: &str, token: Option<&str>| -> Result<usize, String> {
        token
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("{opcode}: expected {what}, found {}", shown(token)))
    };
    let srcs = count("the source register count", take())?;
    for _ in 0..srcs {
        take();
    }
    let mem_width = count("the memory width", take())?;
    if mem_width == 0 {
        return Err(format!(
            "{opcode}: memory width 0: the line has no addresses"
        ));
    }
    let mode = take();
    let active: SmallVec<[usize; WARP_SIZE]> = set_lanes(mask).collect();
    let mut generic = [None; WARP_SIZE];
    let address = |token: Option<&str>| {
        token.and_then(parse_hex).ok_or_else(|| {
            format!(
                "{opcode}: expected a hexadecimal address, found {}",
                shown(token)
            )
        })
    };
    let offset = |token: Option<&str>| -> Result<i64, String> {
        token.and_then(|t| t.parse().ok()).ok_or_else(|| {
            format!(
                "{opcode}: expected a decimal offset, found {}",
                shown(token)
            )
        })
    };
    match mode {
        Some("0") => {
            for &lane in &active {
                generic[lane] = Some(address(take())?);
            }
        }
        Some("1") => {
            let base = address(take())?;
            let stride = offset(take())?;
            if let (Some(&first), Some(&last)) = (active.first(), active.last()) {
                if last - first + 1 != active.len() {
                    return Err(format!(
                        "{opcode}: base_stride addresses need contiguous active lanes, but the mask is {mask:08x}"
                    ));
                }
                for (i, &lane) in active.iter().enumerate() {
                    generic[lane] = Some(base.wrapping_add_signed(stride * i as i64));
                }
            }
        }
        Some("2") => {
            if let Some((&first, rest)) = active.split_first() {
                let mut current = address(take())?;
                generic[first] = Some(current);
                for &lane in rest {
                    current = current.wrapping_add_signed(offset(take())?);
                    generic[lane] = Some(current);
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
    let mut addresses = [None; WARP_SIZE];
    for (lane, generic) in generic.iter().enumerate() {
        let Some(generic) = *generic else { continue };
        let shared = if kernel.shmem_base != 0 && generic >= kernel.shmem_base {
            generic - kernel.shmem_base
        } else {
            generic
        };
        addresses[lane] = Some(u32::try_from(shared).map_err(|_| {
            format!(
                "{opcode}: lane {lane} has address {generic:#x}, which is not a shared address \
                 (the header's shmem base_addr is {:#x})",
                kernel.shmem_base
            )
        })?);
    }
    Ok(Some(Instruction {
        pc,
        opcode,
        op,
        width,
        addresses,
    }))
}

/// The lanes set in `mask`, in order.
fn set_lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        let lane = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        (lane < WARP_SIZE).then_some(lane)
    })
}

fn shown(token: Option<&str>) -> String {
    match token {
        Some(token) => format!("`{token}`"),
        None => "the end of the line".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel() -> Kernel {
        Kernel {
            shmem_base: 0x7f00_0000_0000,
            ..Kernel::default()
        }
    }

    #[test]
    fn headers() {
        let mut k = Kernel::default();
        k.header("-kernel name = _Z9transposePfS_");
        k.header("-binary version = 86");
        k.header("-shmem base_addr = 0x00007ff000000000");
        k.header("-enable lineinfo = 1");
        k.header("-nvbit version = 1.7");
        assert_eq!(k.name, "_Z9transposePfS_");
        assert_eq!(k.binary_version, Some(86));
        assert_eq!(k.shmem_base, 0x7ff0_0000_0000);
        assert!(k.lineinfo);
    }

    #[test]
    fn widths_and_matrix_counts_come_from_the_opcode() {
        let cases = [
            ("LDS", Op::Load, 4),
            ("LDS.U.128", Op::Load, 16),
            ("LDS.64", Op::Load, 8),
            ("LDS.U8", Op::Load, 1),
            ("STS.S16", Op::Store, 2),
            ("ATOMS.ADD", Op::Atomic, 4),
            ("ATOMS.POPC.INC.32", Op::Atomic, 4),
            ("LDSM.16.M88", Op::LdMatrix(Matrices::X1), 16),
            ("LDSM.16.MT88.2", Op::LdMatrix(Matrices::X2), 16),
            ("STSM.16.M88.4", Op::StMatrix(Matrices::X4), 16),
        ];
        for (opcode, op, width) in cases {
            assert_eq!(shared_op(opcode), Ok(Some((op, width))), "{opcode}");
        }
        assert_eq!(shared_op("LDG.E.128"), Ok(None));
        assert_eq!(
            shared_op("ATOMS.CAS.64"),
            Err("ATOMS.CAS.64: the model has 32-bit shared atomics only, not 64-bit".to_owned())
        );
    }

    #[test]
    fn the_three_address_modes() {
        let k = kernel();
        let stride = "0040 ffffffff 1 R4 LDS.U.128 1 R2 16 1 0x7f0000000400 16 0";
        let i = parse(stride, &k).unwrap().unwrap();
        assert_eq!((i.pc, i.op, i.width), (0x40, Op::Load, 16));
        assert_eq!(i.addresses[31], Some(0x400 + 31 * 16));
        // Lanes 0, 1 and 4 active: deltas from the previous active lane.
        let delta = "0050 00000013 0 STS 2 R3 R4 4 2 0x7f0000000400 128 -64";
        let i = parse(delta, &k).unwrap().unwrap();
        assert_eq!(
            i.addresses[..5],
            [Some(0x400), Some(0x480), None, None, Some(0x440)]
        );
        let list = "0060 00000005 1 R1 ATOMS.ADD 2 R2 R3 4 0 0x00007f0000000010 0x00007f0000000020";
        let i = parse(list, &k).unwrap().unwrap();
        assert_eq!(i.addresses[..3], [Some(0x10), None, Some(0x20)]);
    }

    #[test]
    fn leading_ids_and_line_numbers_are_skipped() {
        let k = kernel();
        let raw = "3 0 0 1 0040 0000ffff 1 R4 LDS 1 R2 4 1 0x7f0000000000 4 0";
        let i = parse(raw, &k).unwrap().unwrap();
        assert_eq!(i.addresses[15], Some(60));
        assert_eq!(i.addresses[16], None);
        let lineinfo = Kernel {
            lineinfo: true,
            ..kernel()
        };
        let numbered = "42 0040 ffffffff 1 R4 LDS 1 R2 4 1 0x7f0000000000 4";
        assert!(parse(numbered, &lineinfo).unwrap().is_some());
        assert_eq!(
            parse("0070 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0", &k),
            Ok(None)
        );
    }

    #[test]
    fn malformed_lines() {
        let k = kernel();
        let err = |line| parse(line, &k).unwrap_err();
        assert!(err("LDS 1 2 3").starts_with("not an instruction line"));
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
            "LDS: lane 0 has address 0x100000000, which is not a shared address (the header's shmem base_addr is 0x7f0000000000)"
        );
    }
}
