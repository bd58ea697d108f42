//! What the interpreter's hot loop needs to know of each instruction before
//! it runs, worked out once per program: which register operands leave the
//! instruction's results unknown when they are unknown (item 3 of issue 35,
//! "basic blocks prepared once").
//!
//! A kernel that computes on data the model does not hold (dxtc's colours,
//! read from global memory) spends most of its instructions on values
//! unknown in every lane. Such an instruction's results are unknown in a
//! lane as soon as one operand it cannot do without is: `add`, `sub`, `xor`,
//! shifts, `min`/`max`, float arithmetic and comparisons need both operands
//! (`ops::add`, `ops::compare`, `float_op`, ...). `and`, `or` and `mul`
//! need the other operand unless it is zero (all ones for `or`), which an
//! immediate shows before the run. The interpreter then forgets the results
//! in one step ([`Prepared::unknown_results`]), without reading the lanes.
//! Value numbering is respected: where the instruction numbers its results,
//! an operand counts as missing only where it is neither known nor numbered,
//! since a numbered lane's result gets a number.

use super::super::ops::IntType;
use super::ir::{FloatOp, Function, IntBin, Kind, Reg, Src};

/// No register (an unused slot).
const NONE: Reg = Reg::MAX;

/// One instruction's facts for the fast path: its register operands, which
/// of them it cannot do without, and its destinations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepared {
    /// The register operands, the first `count`.
    regs: [Reg; 4],
    count: u8,
    /// Bit `i`: the results are unknown in a lane where `regs[i]` is.
    strict: u8,
    /// Results are unknown in a lane where every register operand is
    /// unknown (the kinds `unknown_results` has always forgotten: each needs
    /// a known operand to know anything; those with a non-register operand
    /// other than `Src::Unknown` are left out).
    all: bool,
    /// An operand it cannot do without is never known (`Src::Unknown`).
    never: bool,
    /// The destinations (unused slots [`NONE`]); none: the fast path does
    /// not apply.
    dsts: [Reg; 2],
    /// Whether the instruction numbers its results ([`Plan::wants`]; set by
    /// the plan, which reads this table in the same step).
    ///
    /// [`Plan::wants`]: super::number::Plan::wants
    pub(crate) wanted: bool,
}

impl Prepared {
    /// An instruction the fast path leaves alone.
    const SLOW: Prepared = Prepared {
        regs: [NONE; 4],
        count: 0,
        strict: 0,
        all: false,
        never: false,
        dsts: [NONE; 2],
        wanted: false,
    };

    /// The facts of `kind`.
    pub(crate) fn of(kind: &Kind) -> Prepared {
        // Operands, and whether each is one the result cannot do without.
        let (dsts, ops, all): ([Option<Reg>; 2], Vec<(Src, bool)>, bool) = match *kind {
            Kind::IntBin { op, t, d, a, b } => {
                let (sa, sb) = match op {
                    IntBin::Add { .. }
                    | IntBin::Sub { .. }
                    | IntBin::Mul24(_)
                    | IntBin::Div
                    | IntBin::Rem
                    | IntBin::Min
                    | IntBin::Max
                    | IntBin::Xor
                    | IntBin::Shl
                    | IntBin::Shr => (true, true),
                    // `ops::mul`: a known 0 (all 64 bits) decides.
                    IntBin::Mul(_) => (imm_not(b, |x| x == 0), imm_not(a, |x| x == 0)),
                    // `ops::and`: a known 0 (of the type's bits) decides.
                    IntBin::And => (
                        imm_not(b, |x| t.trunc(x) == 0),
                        imm_not(a, |x| t.trunc(x) == 0),
                    ),
                    // `ops::or`: known ones decide.
                    IntBin::Or => (imm_not(b, |x| ones(t, x)), imm_not(a, |x| ones(t, x))),
                };
                ([Some(d), None], vec![(a, sa), (b, sb)], true)
            }
            Kind::Set { d, a, b, .. } => ([Some(d), None], vec![(a, true), (b, true)], true),
            Kind::PredBin { d, a, b, .. } => ([Some(d), None], vec![(a, false), (b, false)], true),
            // One operand: the all-unknown rule is the strict one.
            Kind::IntUn { d, a, .. }
            | Kind::Cvt { d, a, .. }
            | Kind::Mov { d, a, .. }
            | Kind::CvtaWindow { d, a, .. }
            | Kind::PredNot { d, a } => ([Some(d), None], vec![(a, false)], true),
            // `ops::mad`: `c` is added (needed); the product needs both
            // factors unless one is a known 0.
            Kind::Mad { d, a, b, c, .. } => (
                [Some(d), None],
                vec![
                    (a, imm_not(b, |x| x == 0)),
                    (b, imm_not(a, |x| x == 0)),
                    (c, true),
                ],
                true,
            ),
            Kind::Mad24 { d, a, b, c, .. } | Kind::Bfe { d, a, b, c, .. } => {
                ([Some(d), None], vec![(a, true), (b, true), (c, true)], true)
            }
            // `float_op`: `a` always, `b` for binary operations, `c` for `fma`.
            Kind::Float { op, d, a, b, c, .. } => {
                let needs = match op {
                    FloatOp::Neg | FloatOp::Abs => 1,
                    FloatOp::Fma => 3,
                    _ => 2,
                };
                (
                    [Some(d), None],
                    vec![(a, true), (b, needs >= 2), (c, needs == 3)],
                    true,
                )
            }
            Kind::Selp { d, a, b, c, .. } => (
                [Some(d), None],
                vec![(a, false), (b, false), (c, false)],
                true,
            ),
            // A comparison needs both operands; a third predicate may decide
            // (`.and` with false, `.or` with true).
            Kind::Setp {
                p,
                q,
                a,
                b,
                combine,
                ..
            } => match combine {
                None => ([p, q], vec![(a, true), (b, true)], true),
                Some((_, c, _)) => ([p, q], vec![(a, false), (b, false), (c, false)], true),
            },
            _ => return Prepared::SLOW,
        };
        let mut out = Prepared::SLOW;
        for (slot, d) in out.dsts.iter_mut().zip(dsts) {
            *slot = d.unwrap_or(NONE);
        }
        if out.dsts == [NONE; 2] {
            return Prepared::SLOW;
        }
        out.all = all;
        for (src, strict) in ops {
            match src {
                Src::Reg(r) => {
                    out.regs[usize::from(out.count)] = r;
                    out.strict |= u8::from(strict) << out.count;
                    out.count += 1;
                }
                Src::Unknown => out.never |= strict,
                // A known operand: the all-unknown rule never holds.
                _ => out.all = false,
            }
        }
        out
    }

    /// Whether the instruction's results are unknown (and unnumbered) in
    /// every lane of `mask`, given each register's known lanes (`known`)
    /// and numbered ones (`nums`, consulted only where the instruction
    /// numbers its results: `numbering` and [`wanted`](Self::wanted)) from
    /// `base`; then they are forgotten there.
    #[inline(always)]
    pub(crate) fn unknown_results(
        &self,
        (known, nums, base): (&mut [u32], &mut [u32], usize),
        mask: u32,
        numbering: bool,
    ) -> bool {
        if self.dsts[0] == NONE && self.dsts[1] == NONE {
            return false;
        }
        // Numbered lanes count as present only where the instruction numbers.
        let numbered = if numbering && self.wanted {
            u32::MAX
        } else {
            0
        };
        let mut missing = self.never;
        let mut all = self.all;
        for (j, &r) in self.regs[..usize::from(self.count)].iter().enumerate() {
            let i = base + r as usize;
            let none = (known[i] | nums[i] & numbered) & mask == 0;
            missing |= none & (self.strict >> j & 1 == 1);
            all &= none;
        }
        if !(missing || all) {
            return false;
        }
        for &d in &self.dsts {
            if d != NONE {
                known[base + d as usize] &= !mask;
                nums[base + d as usize] &= !mask;
            }
        }
        true
    }
}

/// Whether `x` is an immediate and `decides` is false of it: the operand
/// beside it is then needed (a register may hold the deciding value).
fn imm_not(x: Src, decides: impl Fn(u64) -> bool) -> bool {
    matches!(x, Src::Imm(v) if !decides(v))
}

fn ones(t: IntType, x: u64) -> bool {
    t.trunc(x) == t.trunc(u64::MAX)
}

/// Every instruction's facts, by function.
pub(crate) fn prepare(functions: &[Function]) -> Vec<Vec<Prepared>> {
    functions
        .iter()
        .map(|f| f.insts.iter().map(|i| Prepared::of(&i.kind)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::super::ops::{self, Cmp, Half, IntType, Value};
    use super::super::ir::{Compare, IntBin, Kind, Src};
    use super::Prepared;

    const OPS: [IntBin; 16] = [
        IntBin::Add { sat: false },
        IntBin::Add { sat: true },
        IntBin::Sub { sat: false },
        IntBin::Mul(Half::Lo),
        IntBin::Mul(Half::Hi),
        IntBin::Mul(Half::Wide),
        IntBin::Mul24(Half::Lo),
        IntBin::Div,
        IntBin::Rem,
        IntBin::Min,
        IntBin::Max,
        IntBin::And,
        IntBin::Or,
        IntBin::Xor,
        IntBin::Shl,
        IntBin::Shr,
    ];

    const TYPES: [IntType; 4] = [IntType::U16, IntType::S32, IntType::U32, IntType::U64];

    /// Values that decide an operation alone (0, all ones in a type) come
    /// up often.
    fn value() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            Just(u64::MAX),
            Just(0xffff),
            Just(0xffff_ffff),
            any::<u64>()
        ]
    }

    /// Operand `i` (register `i`, or an immediate) and its value: known,
    /// or unknown where `unknown`.
    fn operand(i: u32, imm: bool, x: u64, unknown: bool) -> (Src, Value) {
        if imm {
            (Src::Imm(x), Value::known(x))
        } else if unknown {
            (Src::Reg(i), Value::UNKNOWN)
        } else {
            (Src::Reg(i), Value::known(x))
        }
    }

    /// Whether the fast path forgets `kind`'s results in one lane whose
    /// registers 0 to 2 are known as `known` says (bit `i`, register `i`).
    fn forgets(kind: &Kind, known: u32) -> bool {
        let mut k: Vec<u32> = (0..4).map(|i| known >> i & 1).collect();
        let mut n = vec![0u32; 4];
        Prepared::of(kind).unknown_results((&mut k, &mut n, 0), 1, false)
    }

    proptest! {
        /// Where the fast path forgets an instruction's results, running
        /// it gives unknown: it never forgets what the interpreter knows.
        #[test]
        fn forgotten_results_are_unknown(
            op in 0..OPS.len(),
            t in 0..TYPES.len(),
            (x, y, z) in (value(), value(), value()),
            (ia, ib, ic) in (any::<bool>(), any::<bool>(), any::<bool>()),
            known in 0u32..8,
        ) {
            let (op, t) = (OPS[op], TYPES[t]);
            let (a, va) = operand(0, ia, x, known & 1 == 0);
            let (b, vb) = operand(1, ib, y, known & 2 == 0);
            let (c, vc) = operand(2, ic, z, known & 4 == 0);
            let bin = Kind::IntBin { op, t, d: 3, a, b };
            if forgets(&bin, known) {
                prop_assert_eq!(op.eval(t, va, vb), Value::UNKNOWN);
            }
            let mad = Kind::Mad { t, half: Half::Lo, sat: false, d: 3, a, b, c };
            if forgets(&mad, known) {
                prop_assert_eq!(ops::mad(t, Half::Lo, va, vb, vc, false), Value::UNKNOWN);
            }
            let cmp = Compare::Int(t, Cmp::Lt);
            let setp = Kind::Setp { cmp, p: Some(3), q: None, a, b, combine: None };
            if forgets(&setp, known) {
                prop_assert_eq!(ops::compare(t, Cmp::Lt, va, vb), None);
            }
        }
    }

    #[test]
    fn one_unknown_operand_is_enough_where_the_other_cannot_decide() {
        let t = IntType::U32;
        let add = Kind::IntBin {
            op: IntBin::Add { sat: false },
            t,
            d: 2,
            a: Src::Reg(0),
            b: Src::Reg(1),
        };
        assert!(forgets(&add, 0b10));
        assert!(forgets(&add, 0b01));
        assert!(!forgets(&add, 0b11));
        // `and` with a register: it may hold 0, which decides.
        let and = Kind::IntBin {
            op: IntBin::And,
            t,
            d: 2,
            a: Src::Reg(0),
            b: Src::Reg(1),
        };
        assert!(!forgets(&and, 0b10));
        assert!(forgets(&and, 0b00));
        // `and` with 12: the unknown operand is needed; with 0 it is not.
        let and12 = Kind::IntBin {
            op: IntBin::And,
            t,
            d: 2,
            a: Src::Reg(0),
            b: Src::Imm(12),
        };
        assert!(forgets(&and12, 0b0));
        let and0 = Kind::IntBin {
            op: IntBin::And,
            t,
            d: 2,
            a: Src::Reg(0),
            b: Src::Imm(0),
        };
        assert!(!forgets(&and0, 0b0));
    }

    #[test]
    fn a_numbered_operand_counts_where_the_instruction_numbers() {
        let t = IntType::U32;
        let add = Kind::IntBin {
            op: IntBin::Add { sat: false },
            t,
            d: 2,
            a: Src::Reg(0),
            b: Src::Imm(1),
        };
        let mut p = Prepared::of(&add);
        let (mut k, mut n) = (vec![0u32; 3], vec![1u32, 0, 0]);
        // Not numbering: the number does not matter.
        assert!(p.unknown_results((&mut k, &mut n, 0), 1, true));
        p.wanted = true;
        n[0] = 1;
        assert!(!p.unknown_results((&mut k, &mut n, 0), 1, true));
        assert!(p.unknown_results((&mut k, &mut n, 0), 1, false));
    }
}
