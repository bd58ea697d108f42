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
    /// The register operands (unused slots [`NONE`]).
    regs: [Reg; 4],
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
        let mut n = 0;
        for (src, strict) in ops {
            match src {
                Src::Reg(r) => {
                    out.regs[n] = r;
                    out.strict |= u8::from(strict) << n;
                    n += 1;
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
    #[inline]
    pub(crate) fn unknown_results(
        &self,
        (known, nums, base): (&mut [u32], &mut [u32], usize),
        mask: u32,
        numbering: bool,
    ) -> bool {
        if self.dsts[0] == NONE && self.dsts[1] == NONE {
            return false;
        }
        let numbering = numbering && self.wanted;
        let mut missing = self.never;
        let mut all = self.all;
        for (i, &r) in self.regs.iter().enumerate() {
            if r == NONE {
                break;
            }
            let i_reg = base + r as usize;
            let seen = known[i_reg] | if numbering { nums[i_reg] } else { 0 };
            let none = seen & mask == 0;
            missing |= none && self.strict >> i & 1 == 1;
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
