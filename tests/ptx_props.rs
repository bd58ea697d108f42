//! The PTX reader against a model of the text it reads: random functions
//! (register ranges and single registers, a shared array, labels, guarded
//! instructions whose operands are registers, immediates in every notation,
//! addresses, vectors, special registers, symbols and branch targets) are
//! written out as PTX with random white space and comments between the
//! tokens, read back, and every instruction compared with what was written:
//! registers by the number their declaration gives them, labels by the
//! instruction they stand before.
#![cfg(all(feature = "ptx", feature = "proptest"))]

use std::fmt::Write;

use proptest::prelude::*;
use smem_model::kernel::ptx::{self, Address, AddressBase, Immediate, Operand, RegId, Special};

mod cases;

/// Register declarations of the model: (prefix, range length or single).
const DECLS: [(&str, Option<u32>); 4] = [
    ("%r", Some(12)),
    ("%rd", Some(5)),
    ("%p", Some(4)),
    ("%acc", None),
];

/// The model's registers as (name, number): declaration order.
fn registers() -> Vec<(String, u32)> {
    let mut out = Vec::new();
    let mut next = 0;
    for (prefix, count) in DECLS {
        match count {
            Some(count) => {
                for i in 0..count {
                    out.push((format!("{prefix}{i}"), next));
                    next += 1;
                }
            }
            None => {
                out.push((prefix.to_owned(), next));
                next += 1;
            }
        }
    }
    out
}

const MNEMONICS: [&str; 8] = [
    "mov.u32",
    "ld.shared.v4.f32",
    "st.shared.u32",
    "cp.async.cg.shared.global.L2::128B",
    "setp.lt.s32",
    "mbarrier.try_wait.parity.shared::cta.b64",
    "bra.uni",
    "ret",
];

/// An immediate and how it is written.
#[derive(Debug, Clone)]
enum Imm {
    Dec(i64),
    Hex(u64),
    F32(u32),
    F64(u64),
}

#[derive(Debug, Clone)]
enum Op {
    Reg(usize),
    Imm(Imm),
    /// Base: a register, the shared array, or none; offset; whether `+-N`.
    Addr(Option<Option<usize>>, i64, bool),
    Vector(Vec<Option<usize>>),
    Tid(u8),
    Symbol,
    Label(usize),
}

#[derive(Debug, Clone)]
struct Inst {
    guard: Option<(usize, bool)>,
    mnemonic: usize,
    operands: Vec<Op>,
    /// Labels defined right before it (indices into the label list).
    labels: Vec<usize>,
}

fn imm() -> impl Strategy<Value = Imm> {
    prop_oneof![
        any::<i64>().prop_map(|v| Imm::Dec(v.max(-i64::MAX))),
        any::<u64>().prop_map(Imm::Hex),
        any::<u32>().prop_map(Imm::F32),
        any::<u64>().prop_map(Imm::F64),
    ]
}

fn operand(registers: usize, labels: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..registers).prop_map(Op::Reg),
        imm().prop_map(Op::Imm),
        (
            prop_oneof![
                (0..registers).prop_map(|r| Some(Some(r))),
                Just(Some(None)),
                Just(None)
            ],
            -4096i64..4096,
            any::<bool>()
        )
            .prop_map(|(base, offset, plus_minus)| Op::Addr(base, offset, plus_minus)),
        prop::collection::vec(prop::option::weighted(0.9, 0..registers), 1..5).prop_map(Op::Vector),
        (0u8..3).prop_map(Op::Tid),
        Just(Op::Symbol),
        (0..labels).prop_map(Op::Label),
    ]
}

fn function() -> impl Strategy<Value = Vec<Inst>> {
    let registers = registers().len();
    let labels = 3;
    let inst = (
        prop::option::of((0..4usize, any::<bool>())),
        0..MNEMONICS.len(),
        prop::collection::vec(operand(registers, labels), 0..4),
        0..labels,
    );
    prop::collection::vec(inst, 1..12).prop_flat_map(move |insts| {
        let n = insts.len();
        // Where each label stands: before instruction 0..=n-1.
        prop::collection::vec(0..n, labels).prop_map(move |places| {
            insts
                .iter()
                .enumerate()
                .map(|(i, (guard, mnemonic, operands, target))| Inst {
                    guard: *guard,
                    mnemonic: *mnemonic,
                    // A branch's one operand is a label of its function: the
                    // reader refuses any other target (eff780d).
                    operands: if MNEMONICS[*mnemonic].starts_with("bra") {
                        vec![Op::Label(*target)]
                    } else {
                        operands.clone()
                    },
                    labels: (0..labels).filter(|&l| places[l] == i).collect(),
                })
                .collect()
        })
    })
}

/// White space and comments between tokens, chosen by `pick`.
fn gap(pick: u8) -> &'static str {
    match pick % 7 {
        0 => " ",
        1 => "\t",
        2 => "  /* c */ ",
        3 => " /* two\nlines */ ",
        4 => "\n\t",
        5 => " // to the end of the line\n",
        _ => "",
    }
}

fn write_imm(out: &mut String, imm: &Imm) {
    match *imm {
        Imm::Dec(v) => write!(out, "{v}").unwrap(),
        Imm::Hex(v) => write!(out, "0x{v:X}").unwrap(),
        Imm::F32(v) => write!(out, "0f{v:08X}").unwrap(),
        Imm::F64(v) => write!(out, "0d{v:016x}").unwrap(),
    }
}

/// The text of the function (and the module around it).
fn render(insts: &[Inst], gaps: &[u8]) -> String {
    let names = registers();
    let mut gaps = gaps.iter().cycle();
    let mut gap = || gap(*gaps.next().unwrap());
    let mut out = String::from(".version 8.7\n.target sm_90\n.address_size 64\n");
    out.push_str(".visible .entry k()\n{\n");
    for (prefix, count) in DECLS {
        let ty = if prefix == "%p" { ".pred" } else { ".b32" };
        match count {
            Some(count) => writeln!(out, "\t.reg {ty} {prefix}<{count}>;").unwrap(),
            None => writeln!(out, "\t.reg {ty} {prefix};").unwrap(),
        }
    }
    out.push_str("\t.shared .align 16 .b8 smem[1024];\n");
    for inst in insts {
        for label in &inst.labels {
            writeln!(out, "L{label}:").unwrap();
        }
        out.push('\t');
        if let Some((p, negated)) = inst.guard {
            let bang = if negated { "!" } else { "" };
            write!(out, "@{bang}%p{p}{}", gap()).unwrap();
            out.push(' ');
        }
        out.push_str(MNEMONICS[inst.mnemonic]);
        for (i, op) in inst.operands.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { "," });
            out.push_str(gap());
            match op {
                Op::Reg(r) => out.push_str(&names[*r].0),
                Op::Imm(imm) => write_imm(&mut out, imm),
                Op::Addr(base, offset, plus_minus) => {
                    out.push('[');
                    out.push_str(gap());
                    match base {
                        Some(Some(r)) => out.push_str(&names[*r].0),
                        Some(None) => out.push_str("smem"),
                        None => {}
                    }
                    match (base, *offset) {
                        (None, offset) => write!(out, "{}", offset.unsigned_abs()).unwrap(),
                        (_, 0) => {}
                        (_, offset) if offset < 0 && *plus_minus => {
                            write!(out, "{}+{}-{}", gap(), gap(), -offset).unwrap();
                        }
                        (_, offset) if offset < 0 => write!(out, "-{}", -offset).unwrap(),
                        (_, offset) => write!(out, "+{}{offset}", gap()).unwrap(),
                    }
                    out.push_str(gap());
                    out.push(']');
                }
                Op::Vector(items) => {
                    out.push('{');
                    for (j, item) in items.iter().enumerate() {
                        if j > 0 {
                            out.push_str(", ");
                        }
                        match item {
                            Some(r) => out.push_str(&names[*r].0),
                            None => out.push('_'),
                        }
                    }
                    out.push('}');
                }
                Op::Tid(c) => write!(out, "%tid.{}", ["x", "y", "z"][usize::from(*c)]).unwrap(),
                Op::Symbol => out.push_str("smem"),
                Op::Label(l) => write!(out, "L{l}").unwrap(),
            }
        }
        out.push_str(gap());
        out.push_str(";\n");
    }
    out.push_str("\tret;\n}\n");
    out
}

/// What the reader must give for a model operand.
fn expected(op: &Op, insts: &[Inst]) -> Operand<'static> {
    let reg = |r: usize| Operand::Reg {
        id: RegId(registers()[r].1),
        component: None,
        negated: false,
    };
    match op {
        Op::Reg(r) => reg(*r),
        Op::Imm(imm) => Operand::Imm(match *imm {
            Imm::Dec(v) => Immediate::Int(v),
            Imm::Hex(v) => Immediate::Int(v as i64),
            Imm::F32(v) => Immediate::F32(v),
            Imm::F64(v) => Immediate::F64(v),
        }),
        Op::Addr(base, offset, _) => Operand::Address(Address {
            base: match base {
                Some(Some(r)) => AddressBase::Reg(RegId(registers()[*r].1)),
                Some(None) => AddressBase::Symbol("smem"),
                None => AddressBase::Absolute,
            },
            offset: if base.is_none() {
                offset.unsigned_abs() as i64
            } else {
                *offset
            },
        }),
        Op::Vector(items) => Operand::Vector(
            items
                .iter()
                .map(|item| item.map_or(Operand::Sink, reg))
                .collect(),
        ),
        Op::Tid(c) => Operand::Special(Special::Tid, Some(*c)),
        Op::Symbol => Operand::Symbol {
            name: "smem",
            offset: 0,
        },
        Op::Label(l) => {
            let target = insts.iter().position(|inst| inst.labels.contains(l));
            Operand::Label(target.unwrap() as u32)
        }
    }
}

proptest! {
    #![proptest_config(cases::cases(2_000))]

    #[test]
    fn reads_what_was_written(insts in function(), gaps in prop::collection::vec(any::<u8>(), 1..64)) {
        let text = render(&insts, &gaps);
        let module = ptx::parse(&text).map_err(|err| TestCaseError::fail(format!("{err}\n{text}")))?;
        let k = &module.functions[0];
        prop_assert_eq!(k.instructions.len(), insts.len() + 1);
        prop_assert_eq!(k.register_count, registers().len() as u32);
        for (inst, read) in insts.iter().zip(&k.instructions) {
            prop_assert_eq!(read.mnemonic, MNEMONICS[inst.mnemonic]);
            let first = if inst.guard.is_some() { "@" } else { read.mnemonic };
            prop_assert!(read.text.starts_with(first) && !read.text.ends_with(';'), "{}", read.text);
            let guard = read.guard.map(|g| (g.reg, g.negated));
            let want = inst.guard.map(|(p, negated)| (RegId(12 + 5 + p as u32), negated));
            prop_assert_eq!(guard, want);
            let want: Vec<_> = inst.operands.iter().map(|op| expected(op, &insts)).collect();
            prop_assert_eq!(&read.operands[..], &want[..], "{}", text);
        }
        let targets: Vec<u32> = k.labels.iter().map(|label| label.target).collect();
        let mut want = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            want.extend(inst.labels.iter().map(|_| i as u32));
        }
        prop_assert_eq!(targets, want);
    }

    /// Any prefix of a well-formed module reads or fails with a PTX error
    /// located in the text (never a panic).
    #[test]
    fn prefixes_fail_cleanly(insts in function(), cut in any::<prop::sample::Index>()) {
        let text = render(&insts, &[0]);
        let mut end = cut.index(text.len() + 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let prefix = &text[..end];
        match ptx::parse(prefix) {
            Ok(_) => {}
            Err(smem_model::Error::PtxSyntax { line, column, .. }) => {
                prop_assert!(line >= 1 && line <= prefix.split('\n').count());
                prop_assert!(column >= 1);
            }
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }
}
