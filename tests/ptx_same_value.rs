//! The PTX interpreter's value numbering and compute-sanitizer's same-value
//! rule ([`smem_model::Block::access_unchanged`]): the nine kernels measured
//! on an H200 (`tests/data/device/samevalue/`) interpreted from the PTX nvcc
//! made of them give racecheck's verdicts; small kernels check that equal
//! expressions of the same global data are equal, different inputs differ,
//! and a global store between two loads of one address makes them differ;
//! and a property test checks that the interpreter never calls two stores
//! equal whose values can differ.

use proptest::prelude::*;
use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::{HazardKind, KernelRaces, Racecheck};

const MEASURED: &str = include_str!("data/device/samevalue/samevalue.ptx");

/// The race findings of one launch of `kernel` in `text`.
fn races(text: &str, kernel: &str, grid: u32, threads: u32) -> KernelRaces {
    let module = ptx::parse(text).unwrap();
    let kernel = Kernel::new(&module, Some(kernel)).unwrap();
    let launch = KernelLaunch::new([grid, 1, 1], [threads, 1, 1]).unwrap();
    let mut check = Racecheck::new();
    kernel.run(&launch, &RunOptions::new(), &mut check).unwrap();
    check.into_kernels().remove(0)
}

/// Each finding as (kind, bytes).
fn findings(races: &KernelRaces) -> Vec<(HazardKind, u64)> {
    races
        .hazards()
        .map(|h| (h.example().kind(), h.bytes()))
        .collect()
}

#[test]
fn the_nine_measured_kernels_give_racechecks_verdicts() {
    use HazardKind::{ReadWrite, WriteWrite};
    // racecheck.txt: kernels 0 and 2 0 hazards; 1 and 3 WAW; 4 and 5 WAR;
    // 6 and 8 RAW; 7 WAW. Each hazard covers s[0..32] (128 bytes).
    for (name, expected) in [
        ("_Z14waw_same_constv", None),
        ("_Z8waw_diffv", Some(WriteWrite)),
        ("_Z15waw_same_loadedPKi", None),
        ("_Z15waw_diff_loadedPKi", Some(WriteWrite)),
        ("_Z13raw_unchangedv", Some(ReadWrite)),
        ("_Z11raw_changedv", Some(ReadWrite)),
        ("_Z16raw_after_silentv", Some(ReadWrite)),
        ("_Z16waw_after_silentv", Some(WriteWrite)),
        ("_Z16raw_changed_latev", Some(ReadWrite)),
    ] {
        let races = races(MEASURED, name, 1, 64);
        let expected: Vec<_> = expected.map(|kind| (kind, 128)).into_iter().collect();
        assert_eq!(findings(&races), expected, "{name}: {races:?}");
    }
}

/// A kernel of one block of 64 threads: warp 0 runs `a`, warp 1 runs `b`,
/// each leaving a value in `%r10`, which it stores to `s[lane]`; no barrier.
/// `%rd1` is `g` (a global pointer parameter), `%r2` the lane, `%rd2` the
/// lane's byte offset (`4 * lane`, 64-bit).
fn two_warps(a: &str, b: &str) -> String {
    format!(
        r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 .ptr .global .align 4 g)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<400>;
    .reg .b64 %rd<400>;
    .shared .align 4 .b8 s[128];
    ld.param.u64 %rd1, [g];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    mul.wide.u32 %rd2, %r2, 4;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, s;
    add.s32 %r5, %r4, %r3;
    setp.lt.u32 %p1, %r1, 32;
    @!%p1 bra WARP1;
{a}
    st.shared.u32 [%r5], %r10;
    bra.uni END;
WARP1:
{b}
    st.shared.u32 [%r5], %r10;
END:
    ret;
}}
"#
    )
}

/// `%r10 = g[lane + k]` (the load at `%rdN`, `N` from `reg`).
fn load(k: u32, reg: u32) -> String {
    format!(
        "    add.s64 %rd{reg}, %rd1, %rd2;\n    ld.global.u32 %r10, [%rd{reg}+{}];\n",
        4 * k
    )
}

fn verdict(a: &str, b: &str) -> Vec<(HazardKind, u64)> {
    findings(&races(&two_warps(a, b), "k", 1, 64))
}

#[test]
fn equal_expressions_of_the_same_global_data_are_equal() {
    // s[lane] = g[lane] * 3 + g[lane + 1], by both warps.
    let expr = format!(
        "{}    mul.lo.u32 %r11, %r10, 3;\n{}    add.u32 %r10, %r11, %r10;\n",
        load(0, 10),
        load(1, 11)
    );
    assert_eq!(verdict(&expr, &expr), vec![]);
    // The same through a shuffle, a selp and a move.
    let moved = format!(
        "{expr}    shfl.sync.idx.b32 %r12, %r10, %r2, 31, -1;\n    \
         selp.b32 %r13, %r12, 0, %p1;\n    mov.b32 %r10, %r13;\n"
    );
    let moved_b = moved.replace("%p1;", "%p3;").replacen(
        "    selp",
        "    setp.eq.u32 %p3, %r1, %r1;\n    selp",
        1,
    );
    assert_eq!(verdict(&moved, &moved_b), vec![]);
}

#[test]
fn different_inputs_differ() {
    let write_write = vec![(HazardKind::WriteWrite, 128)];
    // g[lane] against g[lane + 1].
    assert_eq!(verdict(&load(0, 10), &load(1, 10)), write_write);
    // The same loads in a different expression.
    let a = format!("{}    add.u32 %r10, %r10, 1;\n", load(0, 10));
    let b = format!("{}    add.u32 %r10, %r10, 2;\n", load(0, 10));
    assert_eq!(verdict(&a, &b), write_write);
    // A signed and an unsigned byte load of one address.
    let a = "    add.s64 %rd10, %rd1, %rd2;\n    ld.global.u8 %r10, [%rd10];\n";
    let b = "    add.s64 %rd10, %rd1, %rd2;\n    ld.global.s8 %r10, [%rd10];\n";
    assert_eq!(verdict(a, b), write_write);
    // An atomic's old value is equal to nothing.
    let a = "    add.s64 %rd10, %rd1, %rd2;\n    atom.global.add.u32 %r10, [%rd10], 0;\n";
    assert_eq!(verdict(a, a), write_write);
}

#[test]
fn a_global_store_between_two_loads_of_one_address_makes_them_differ() {
    // Warp 0 loads g[lane], then stores to g; warp 1's load comes after the
    // store (the interpreter runs warp 0 first): a new value, a WAW.
    let a = format!("{}    st.global.u32 [%rd1+256], %r2;\n", load(0, 10));
    let b = load(0, 10);
    assert_eq!(verdict(&a, &b), vec![(HazardKind::WriteWrite, 128)]);
    // Without the store, or with a store to local memory, the same.
    assert_eq!(verdict(&load(0, 10), &b), vec![]);
}

#[test]
fn shared_memory_keeps_numbers() {
    // Both warps copy g[lane] through shared memory and back: store, load
    // (another address), store again. The loaded value is the stored one.
    let copy = format!(
        "{}    st.shared.u32 [%r5+0], %r10;\n    ld.shared.u32 %r10, [%r5];\n",
        load(0, 10)
    );
    let races = races(&two_warps(&copy, &copy), "k", 1, 64);
    // Warp 1's two stores write what warp 0 left: no WAW; warp 1's load
    // still reads what warp 0 wrote (RAW), and warp 0's load races with
    // warp 1's first store only as a read before a write of the same value
    // (WAR still counts).
    // (Were the loaded value not the stored one, warp 0's second store would
    // leave another number and warp 1's first store would be a WAW.)
    let kinds: Vec<HazardKind> = findings(&races).iter().map(|f| f.0).collect();
    assert!(kinds.contains(&HazardKind::ReadWrite), "{races:?}");
    assert!(!kinds.contains(&HazardKind::WriteWrite), "{races:?}");
}

/// An expression over `g[lane + k]` and constants.
#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Load(u32),
    Const(u32),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
}

impl Expr {
    fn eval(&self, g: &[u32], lane: usize) -> u32 {
        match self {
            Expr::Load(k) => g[lane + *k as usize],
            Expr::Const(c) => *c,
            Expr::Add(a, b) => a.eval(g, lane).wrapping_add(b.eval(g, lane)),
            Expr::Mul(a, b) => a.eval(g, lane).wrapping_mul(b.eval(g, lane)),
            Expr::Xor(a, b) => a.eval(g, lane) ^ b.eval(g, lane),
        }
    }

    /// PTX leaving the value in `%r{next}`; registers from `next` up.
    fn ptx(&self, out: &mut String, next: &mut u32) -> u32 {
        let r = *next;
        *next += 1;
        match self {
            Expr::Load(k) => {
                out.push_str(&format!(
                    "    add.s64 %rd{r}, %rd1, %rd2;\n    ld.global.u32 %r{r}, [%rd{r}+{}];\n",
                    4 * k
                ));
            }
            Expr::Const(c) => out.push_str(&format!("    mov.u32 %r{r}, {c};\n")),
            Expr::Add(a, b) | Expr::Mul(a, b) | Expr::Xor(a, b) => {
                let (x, y) = (a.ptx(out, next), b.ptx(out, next));
                let op = match self {
                    Expr::Add(..) => "add.u32",
                    Expr::Mul(..) => "mul.lo.u32",
                    _ => "xor.b32",
                };
                out.push_str(&format!("    {op} %r{r}, %r{x}, %r{y};\n"));
            }
        }
        r
    }

    fn code(&self) -> String {
        let (mut out, mut next) = (String::new(), 20);
        let r = self.ptx(&mut out, &mut next);
        out.push_str(&format!("    mov.b32 %r10, %r{r};\n"));
        out
    }
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        (0u32..3).prop_map(Expr::Load),
        (0u32..3).prop_map(Expr::Const)
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| Expr::Xor(Box::new(a), Box::new(b))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Never equal unless certain: when warp 1's store is taken as writing
    /// what warp 0 stored (no WAW), the two expressions agree in every lane
    /// on random global data; the same expression is always taken as equal.
    #[test]
    fn stores_called_equal_are_equal(a in expr(), b in expr(), data in prop::collection::vec(any::<u32>(), 64 * 4)) {
        let clean = verdict(&a.code(), &b.code()).is_empty();
        if a == b {
            prop_assert!(clean);
        }
        if clean {
            for g in data.chunks(64) {
                for lane in 0..32 {
                    prop_assert_eq!(a.eval(g, lane), b.eval(g, lane), "lane {}", lane);
                }
            }
        }
    }
}

const PROBES: &str = include_str!("data/ncu/probes.ptx");

/// Measured on an H200 (tests/data/ncu/probes.txt, "racecheck ex2"): four
/// warps storing `exp2f(in[lane])` to `buf[lane]` have no hazard. The
/// interpreter does not evaluate `ex2.approx.f32`, but the same opcode of
/// equal operands is an equal value. Loading `in[tid]` instead (each warp
/// its own inputs) is a write-write race.
#[test]
fn equal_operands_of_an_instruction_not_evaluated_are_equal_values() {
    let name = "_Z13ex2ReplicatedPfPKf";
    assert_eq!(findings(&races(PROBES, name, 1, 128)), vec![]);
    let own = PROBES.replacen("and.b64  \t%rd6, %rd5, 124;", "mov.b64 \t%rd6, %rd5;", 1);
    assert_ne!(own, PROBES);
    assert_eq!(
        findings(&races(&own, name, 1, 128)),
        vec![(HazardKind::WriteWrite, 128)]
    );
}

/// The same in small kernels: another input, another opcode or modifier,
/// another immediate operand: another value.
#[test]
fn instructions_not_evaluated_differ_where_their_operands_or_opcodes_do() {
    let ex2 = |k: u32, op: &str| format!("{}    {op} %r10, %r10;\n", load(k, 10));
    let write_write = vec![(HazardKind::WriteWrite, 128)];
    let approx = ex2(0, "ex2.approx.f32");
    assert_eq!(verdict(&approx, &approx), vec![]);
    assert_eq!(verdict(&approx, &ex2(1, "ex2.approx.f32")), write_write);
    assert_eq!(verdict(&approx, &ex2(0, "ex2.approx.ftz.f32")), write_write);
    let div = |imm: &str| format!("{}    div.full.f32 %r10, %r10, {imm};\n", load(0, 10));
    assert_eq!(verdict(&div("0f40000000"), &div("0f40000000")), vec![]);
    assert_eq!(verdict(&div("0f40000000"), &div("0f40400000")), write_write);
    // An input the interpreter cannot number (a volatile load): unequal.
    let volatile =
        "    add.s64 %rd10, %rd1, %rd2;\n    ld.volatile.global.u32 %r10, [%rd10];\n    \
                    ex2.approx.f32 %r10, %r10;\n";
    assert_eq!(verdict(volatile, volatile), write_write);
}

/// `mma.sync` is warp-collective: a lane's result depends on every lane's
/// fragments. Two warps with the same fragments store equal results; where
/// they differ in lanes 1 to 31 only, lane 0's results differ too (its own
/// operands are the same in both warps): all 128 bytes race.
#[test]
fn a_warp_collective_instruction_is_equal_only_over_the_whole_warp() {
    let mma = |other: u32| {
        format!(
            "{}    mov.b32 %r40, %r10;\n{}    mov.b32 %r41, %r10;\n    \
             setp.eq.u32 %p2, %r2, 0;\n    selp.b32 %r20, %r40, %r41, %p2;\n    \
             mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {{%r10, %r11, %r12, %r13}}, \
             {{%r20, %r40}}, {{%r40}}, {{%r40, %r40, %r40, %r40}};\n",
            load(0, 10),
            load(other, 11)
        )
    };
    // Warp 0: every lane's A fragment is g[lane]; warp 1 the same.
    assert_eq!(verdict(&mma(0), &mma(0)), vec![]);
    // Warp 1: lanes 1 to 31 take g[lane + 2]; lane 0 still g[0].
    assert_eq!(
        verdict(&mma(0), &mma(2)),
        vec![(HazardKind::WriteWrite, 128)]
    );
}
