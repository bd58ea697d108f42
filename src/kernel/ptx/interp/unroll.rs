//! ptxas's unrolling of loops with a constant trip count, as far as it
//! changes the shared instructions: the accesses of consecutive iterations
//! merge as straight-line code does ([`merge`](super::merge)).
//!
//! Measured with ptxas 13.0 for sm_90 (tests/data/ptx/ptxas_unrolling, 247
//! probe kernels with ncu's executed counts, and `loops.ptx` in
//! tests/data/ptx/ptxas_merging_more): a loop whose counter starts at a
//! constant, steps by a constant and is compared with a constant (an
//! immediate or a register set to one, `ld_regbound*`) is unrolled fully
//! for every small body and trip count measured (2 to 512 loads, to 1,024
//! stores, `ld_t*`, `st_t*`; nested up to 16 x 16, `nest_*`), however it
//! counts (`ld_down*`, `ld_ne8`, `ld_le8`, `ldidx_step2`, `ld_while8`, ...),
//! and its accesses merge by the straight-line rules: eight loads at
//! `base + 4*i` are two `LDS.128`, five are `LDS.128` + `LDS`. Where the
//! body is larger ptxas unrolls by 4, 8 or 16 instead and still merges
//! inside the unrolled body, which executes the same merged accesses
//! (`ld_t8_k64`, `ld_t32_k32`, `ld_t64_k16`, `stu_t8_k64`, ...); with about
//! 100 or more instructions in the body it does not unroll at all
//! (`ld_t4_k96`, `ld_t*_k128`, `stu_t4_k128`). A trip count from a
//! parameter is unrolled by 4 without merges (`ldparam_*`,
//! `l1_step4_param`), and `.pragma "nounroll"` keeps the loop
//! (`ld_nounroll*`).
//!
//! **How it is modelled: a static unrolling of the merge analysis, not of
//! the code.** The interpreter still runs the loop as written (so its step
//! counts, per-instruction reports and values are the PTX's); the merge
//! pass instead walks the body once with every register as an affine form
//! `entry value + k + per * iteration` (the induction analysis), lays the
//! accesses of all `trips` iterations out as if unrolled, and groups them
//! with the straight-line rules. The outcome is a table per access, one
//! [`Merge`] per iteration, which the interpreter looks up by the loop
//! counter's value when the access runs ([`LoopMerges::at`]). Unrolling the
//! code itself would need every register of the body renamed per copy;
//! the tables keep the interpreter's program as the PTX's.
//!
//! **Limits.** [`MAX_UNROLLED`] (trips times body), [`MAX_BODY`] and
//! [`MAX_FULL`] are the largest measured that merge; past them nothing
//! merges across iterations (ptxas unrolls partly there, with fewer merges
//! or none: `ld_t1024`, `ld_t2048`, `st_t2048`, `ldv2_t1024`; not modelled).
//! Only innermost loops whose body is one straight block (no branch in or
//! out but the back edge, and a top-tested loop's exit) are recognised;
//! accesses of an outer loop's consecutive iterations are not merged with
//! each other (in the probes every inner loop covers whole 16-byte chunks,
//! so this never showed). ptxas sometimes peels one iteration and unrolls
//! the rest by an odd factor, losing the alignment and every merge
//! (`ld_t64_k32`: 64 `LDS`); that choice is not predicted. A `nounroll`
//! pragma keeps the loop whose header block it opens, or every loop of the
//! function when it stands between the parameters and the body or at module
//! scope, and does nothing elsewhere (PTX ISA, `.pragma "nounroll"`;
//! measured: tests/data/ptx/ptxas_pragmas); nvcc marks every loop it
//! unrolled itself so, and unrolls small constant loops fully
//! (tests/data/ptx/nvcc_loops).

use std::collections::{BTreeMap, HashMap};

use super::ir::{Compare, Inst, IntBin, Kind, LoopMerges, Merge, Reg, SharedVar, Src};
use super::merge::{self, Bound, Candidate, Low, Root};
use crate::kernel::ptx::ops::{self, Half, Value};

/// The largest loop, trips times body (PTX instructions from the loop's
/// label to its back edge, both included), measured to merge across all its
/// iterations: 5,120 (`st_t1024`, 1,024 trips of 5; `ld_t512` 512 of 6,
/// `ldv2_t512` 512 of 7, `ld_t64_k64` 64 of 70); 6,144 did not (`ld_t1024`:
/// ptxas unrolled it partly, 511 `LDS`/`LDS.64`/`LDS.128` for 1,024 loads;
/// `ldv2_t1024` 7,168, `st_t2048` 10,240 neither). Between the two is a
/// modelling choice; past it nothing merges across iterations.
pub(super) const MAX_UNROLLED: usize = 5120;

/// The largest body measured to merge across iterations at any trip count
/// (ptxas unrolling by 4 where it does not unroll fully): 70 (`ld_t8_k64`
/// .. `ld_t64_k64`, `stu_t8_k64`). Bodies of 102 and more were not unrolled
/// at all unless fully ([`MAX_FULL`]; `ld_t4_k96`, `ld_t4_k128`,
/// `ld_t3_k128`, `stu_t4_k128`); 71 to 101 is a modelling choice.
pub(super) const MAX_BODY: usize = 70;

/// Larger bodies merge where ptxas unrolls them fully, which it did up to
/// trips times body 376 (`ld_t4_k88`: 4 x 94; `ld_t3_k100` 3 x 106,
/// `ld_t2_k128` 2 x 134) and not from 402 (`ld_t3_k128`; `ld_t4_k96`
/// 408, `ld_t2_k256` 524). Between the two is a modelling choice.
pub(super) const MAX_FULL: usize = 376;

/// A loop ptxas unrolls: instructions `head..=end` (`end` the back edge),
/// its counter, and how many times the body runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counted {
    head: usize,
    end: usize,
    counter: Reg,
    bits: u32,
    start: u64,
    step: i64,
    /// Where the counter is stepped.
    inc: usize,
    trips: u32,
    /// A top-tested loop's exit branch (`@p bra OUT` near the top).
    exit: Option<usize>,
}

/// The loops of `insts` with a constant trip count that ptxas unrolls (see
/// the module docs): a guarded backward `bra` to a label no other branch
/// targets, the body between them free of branches, returns and calls; its
/// guard set by an unguarded `setp` of the counter against a constant;
/// the counter written in the body only by one unguarded `add`/`sub` of an
/// immediate, and set to an immediate by the straight-line code before. A
/// top-tested loop (`TOP: setp; @p bra OUT; body; bra TOP; OUT:`) likewise,
/// its exit branch the one branch in the body (`ld_while8`: unrolled and
/// merged as the bottom-tested form).
fn counted_loops(insts: &[Inst]) -> Vec<Counted> {
    let mut incoming: HashMap<usize, u32> = HashMap::new();
    for inst in insts {
        if let Kind::Bra { target } = inst.kind {
            *incoming.entry(target as usize).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for (end, inst) in insts.iter().enumerate() {
        let Kind::Bra { target } = inst.kind else {
            continue;
        };
        let head = target as usize;
        if head >= end || incoming.get(&head) != Some(&1) || incoming.contains_key(&end) {
            continue;
        }
        let body = &insts[head..end];
        let branches: Vec<usize> = (head..end)
            .filter(|&k| matches!(insts[k].kind, Kind::Bra { .. }))
            .collect();
        let plain = body.iter().enumerate().all(|(k, i)| {
            !matches!(i.kind, Kind::Ret | Kind::Exit | Kind::Call { .. })
                && (k == 0 || !incoming.contains_key(&(head + k)))
        });
        if !plain {
            continue;
        }
        let found = match (inst.guard, branches.as_slice()) {
            (Some((p, negated)), []) => counted(insts, head, end, (end, p, negated), None),
            (None, &[exit]) => match (&insts[exit].kind, insts[exit].guard) {
                (Kind::Bra { target }, Some((p, negated))) if *target as usize == end + 1 => {
                    counted(insts, head, end, (exit, p, negated), Some(exit))
                }
                _ => None,
            },
            _ => None,
        };
        out.extend(found);
    }
    out
}

/// The loop `head..=end` if its counter runs a constant number of trips:
/// `test` is the branch that decides (its index, guard and negation), the
/// back edge itself or, for a top-tested loop, the `exit` branch.
fn counted(
    insts: &[Inst],
    head: usize,
    end: usize,
    (test, p, negated): (usize, Reg, bool),
    exit: Option<usize>,
) -> Option<Counted> {
    // The guard's last definition before the test.
    let (at, setp) = (head..test)
        .rev()
        .find(|&k| merge::writes(&insts[k].kind).contains(&p))
        .map(|k| (k, &insts[k]))?;
    let Kind::Setp {
        cmp: Compare::Int(t, cmp),
        p: sp,
        q: sq,
        a,
        b,
        combine: None,
    } = setp.kind
    else {
        return None;
    };
    if setp.guard.is_some() {
        return None;
    }
    // `q` is the negation of `p`.
    let flip = negated ^ (sp != Some(p) && sq == Some(p));
    // The bound: an immediate, or a register set to one before the loop
    // and not written in it (`ld_regbound8`, `ld_regbound32`: ptxas
    // propagates the constant and unrolls as for an immediate).
    let constant = |s: Src| match s {
        Src::Imm(v) => Some(v),
        Src::Reg(r) if (head..end).all(|k| !merge::writes(&insts[k].kind).contains(&r)) => {
            start_value(insts, head, r)
        }
        _ => None,
    };
    let (counter, bound, counter_first) = match (a, b) {
        (Src::Reg(r), b) if constant(b).is_some() && Src::Reg(r) != b => (r, constant(b)?, true),
        (a, Src::Reg(r)) if constant(a).is_some() => (r, constant(a)?, false),
        _ => return None,
    };
    // The counter's one step in the body.
    let mut inc = None;
    for (k, inst) in insts.iter().enumerate().take(end).skip(head) {
        if !merge::writes(&inst.kind).contains(&counter) {
            continue;
        }
        let Kind::IntBin {
            op: op @ (IntBin::Add { sat: false } | IntBin::Sub { sat: false }),
            t: it,
            d,
            a,
            b,
        } = inst.kind
        else {
            return None;
        };
        let by = match (op, a, b) {
            (_, Src::Reg(r), Src::Imm(v)) if r == d => v,
            (IntBin::Add { .. }, Src::Imm(v), Src::Reg(r)) if r == d => v,
            _ => return None,
        };
        let bits = it.bits();
        let by = sign_extend(by, bits);
        let step = if matches!(op, IntBin::Sub { .. }) {
            by.wrapping_neg()
        } else {
            by
        };
        if inc.is_some() || inst.guard.is_some() {
            return None;
        }
        inc = Some((k, step, bits));
    }
    let (inc_at, step, bits) = inc?;
    let start = start_value(insts, head, counter)?;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    // Run the counter: the compare sees it stepped when the step comes first.
    let mut v = start & mask;
    let body = end - head + 1;
    let most = if body <= MAX_BODY {
        MAX_UNROLLED / body
    } else {
        MAX_FULL / body
    };
    // A top-tested loop's test runs once more than its body.
    for test_runs in 1..=most as u32 + u32::from(exit.is_some()) {
        let next = (v as i64).wrapping_add(step) as u64 & mask;
        let seen = if inc_at < at { next } else { v };
        let x = Value::known(seen);
        let y = Value::known(bound);
        let (x, y) = if counter_first { (x, y) } else { (y, x) };
        let taken = ops::compare(t, cmp, x, y)? ^ flip;
        if taken == exit.is_some() {
            let trips = test_runs - u32::from(exit.is_some());
            return (trips > 0).then_some(Counted {
                head,
                end,
                counter,
                bits,
                start: start & mask,
                step,
                inc: inc_at,
                trips,
                exit,
            });
        }
        v = next;
    }
    None
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// The immediate the counter holds on entering the loop: its last
/// definition in the straight-line code before `head` (guarded branches
/// leaving it are passed over; a label or a jump ends the search).
fn start_value(insts: &[Inst], head: usize, counter: Reg) -> Option<u64> {
    let targets: std::collections::HashSet<usize> = insts
        .iter()
        .filter_map(|i| match i.kind {
            Kind::Bra { target } => Some(target as usize),
            _ => None,
        })
        .collect();
    for k in (0..head).rev() {
        let inst = &insts[k];
        if matches!(inst.kind, Kind::Bra { .. } | Kind::Ret | Kind::Exit) && inst.guard.is_none() {
            return None;
        }
        if merge::writes(&inst.kind).contains(&counter) {
            return match (&inst.kind, inst.guard) {
                (Kind::Mov { a: Src::Imm(v), .. }, None) => Some(*v),
                _ => None,
            };
        }
        if targets.contains(&k) {
            return None;
        }
    }
    None
}

/// A value in the body as `sum of terms + k + per * iteration`, each term a
/// register's value on entering the loop times a coefficient; `shared`: a
/// shared symbol's address is part of `k`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Affine {
    terms: Vec<(Reg, i64)>,
    shared: bool,
    k: i64,
    per: i64,
}

impl Affine {
    fn constant(k: i64) -> Affine {
        Affine {
            terms: Vec::new(),
            shared: false,
            k,
            per: 0,
        }
    }

    fn register(r: Reg, per: i64) -> Affine {
        Affine {
            terms: vec![(r, 1)],
            shared: false,
            k: 0,
            per,
        }
    }

    /// The constant it is, if it is one.
    fn as_constant(&self) -> Option<i64> {
        (self.terms.is_empty() && !self.shared && self.per == 0).then_some(self.k)
    }

    fn add(&self, o: &Affine) -> Option<Affine> {
        if self.shared && o.shared {
            return None;
        }
        let mut terms = self.terms.clone();
        for &(r, c) in &o.terms {
            match terms.iter_mut().find(|t| t.0 == r) {
                Some(t) => t.1 = t.1.wrapping_add(c),
                None => terms.push((r, c)),
            }
        }
        terms.retain(|t| t.1 != 0);
        terms.sort_unstable();
        Some(Affine {
            terms,
            shared: self.shared || o.shared,
            k: self.k.wrapping_add(o.k),
            per: self.per.wrapping_add(o.per),
        })
    }

    /// Times a constant (a symbol's address only by 1).
    fn scale(&self, c: i64) -> Option<Affine> {
        if self.shared && c != 1 {
            return None;
        }
        let mut terms: Vec<(Reg, i64)> = self
            .terms
            .iter()
            .map(|&(r, x)| (r, x.wrapping_mul(c)))
            .collect();
        terms.retain(|t| t.1 != 0);
        Some(Affine {
            terms,
            shared: self.shared,
            k: self.k.wrapping_mul(c),
            per: self.per.wrapping_mul(c),
        })
    }

    fn mul(&self, o: &Affine) -> Option<Affine> {
        match (self.as_constant(), o.as_constant()) {
            (_, Some(c)) => self.scale(c),
            (Some(c), _) => o.scale(c),
            _ => None,
        }
    }
}

/// A root that is a sum of registers times coefficients (plus a symbol's
/// address, `true`), and what is proved of it.
type Sum = (Vec<(Reg, i64)>, bool, Low);

/// Roots that are sums of registers are numbered down from here (no
/// function has this many registers).
const SUM_ROOTS: Reg = Reg::MAX;

/// What an instruction computes, as an affine form of `form`'s operands
/// (`None`: not affine, or not understood).
fn affine_value(kind: &Kind, form: &dyn Fn(&Src) -> Option<Affine>) -> Option<Affine> {
    match kind {
        Kind::Mov { bits, a, .. } if *bits >= 32 => form(a),
        Kind::Cvt {
            dst: super::ir::Ty::Int(dt),
            src: super::ir::Ty::Int(st),
            sat: false,
            a,
            ..
        } if dt.bits() >= 32 && st.bits() >= 32 => form(a),
        Kind::IntBin { op, a, b, .. } => {
            let (a, b) = (form(a)?, form(b)?);
            match op {
                IntBin::Add { sat: false } => a.add(&b),
                IntBin::Sub { sat: false } => a.add(&b.scale(-1)?),
                IntBin::Mul(Half::Lo | Half::Wide) => a.mul(&b),
                IntBin::Shl => match b.as_constant() {
                    Some(k) if (0..32).contains(&k) => a.scale(1i64 << k),
                    _ => None,
                },
                _ => None,
            }
        }
        Kind::Mad {
            half: Half::Lo | Half::Wide,
            sat: false,
            a,
            b,
            c,
            ..
        } => form(a)?.mul(&form(b)?)?.add(&form(c)?),
        _ => None,
    }
}

/// The loops `.pragma "nounroll"` keeps (PTX ISA, `.pragma "nounroll"`;
/// measured: tests/data/ptx/ptxas_pragmas): all of the function's (`all`:
/// a pragma at module scope or between its parameters and its body), or
/// those whose header block a pragma in the body opens (`heads`: the index
/// of the instruction after each). ptxas unrolls the others as it would
/// without any pragma, and ignores one that opens no loop header.
#[derive(Debug, Default)]
pub(super) struct Keep {
    pub all: bool,
    pub heads: Vec<usize>,
}

/// Marks the accesses of every unrolled loop of `insts` with their merges
/// per iteration ([`Merge::Loop`] into the returned tables, which the
/// function keeps). `facts` are [`merge::known_low_bits`]'s.
pub(super) fn merge_loops(
    insts: &mut [Inst],
    facts: &[Low],
    shared: &[SharedVar],
    keep: &Keep,
) -> Vec<LoopMerges> {
    let mut tables = Vec::new();
    if keep.all {
        return tables;
    }
    for l in counted_loops(insts) {
        if keep.heads.contains(&l.head) {
            continue;
        }
        let found = loop_groups(insts, &l, facts, shared);
        for (pos, merges) in found {
            let index = l.head + pos;
            let first =
                (l.start as i64).wrapping_add(if l.inc < index { l.step } else { 0 }) as u64;
            let mask = if l.bits >= 64 {
                u64::MAX
            } else {
                (1u64 << l.bits) - 1
            };
            let table = u32::try_from(tables.len()).unwrap_or(u32::MAX);
            tables.push(LoopMerges {
                counter: l.counter,
                bits: l.bits,
                first: first & mask,
                step: l.step,
                merges,
            });
            match &mut insts[index].kind {
                Kind::Ld { merge: m, .. } | Kind::St { merge: m, .. } => *m = Merge::Loop { table },
                _ => {}
            }
        }
    }
    tables
}

/// The merges of each access of loop `l` (by its position in the body), one
/// per iteration: the body's accesses laid out `trips` times and grouped as
/// straight-line code.
fn loop_groups(
    insts: &[Inst],
    l: &Counted,
    facts: &[Low],
    shared_vars: &[SharedVar],
) -> BTreeMap<usize, Vec<Merge>> {
    let shared = shared_vars;
    let body = &insts[l.head..l.end];
    let len = body.len();
    // Registers the body writes, and the inductions among them: written
    // only by unguarded `add r, r, imm` / `sub r, r, imm`.
    let mut step_of: HashMap<Reg, Option<i64>> = HashMap::new();
    for inst in body {
        for d in merge::writes(&inst.kind) {
            let step = match (&inst.kind, inst.guard) {
                (
                    Kind::IntBin {
                        op: IntBin::Add { sat: false },
                        d: dd,
                        a: Src::Reg(r),
                        b: Src::Imm(v),
                        t,
                    },
                    None,
                ) if *r == d && *dd == d => Some(sign_extend(*v, t.bits())),
                (
                    Kind::IntBin {
                        op: IntBin::Sub { sat: false },
                        d: dd,
                        a: Src::Reg(r),
                        b: Src::Imm(v),
                        t,
                    },
                    None,
                ) if *r == d && *dd == d => Some(sign_extend(*v, t.bits()).wrapping_neg()),
                _ => None,
            };
            let e = step_of.entry(d).or_insert(Some(0));
            *e = match (*e, step) {
                (Some(a), Some(b)) => Some(a.wrapping_add(b)),
                _ => None,
            };
        }
    }
    // Forms at the top of an iteration.
    let initial = |r: Reg| -> Option<Affine> {
        if r == l.counter {
            return Some(Affine {
                per: l.step,
                ..Affine::constant(l.start as i64)
            });
        }
        match step_of.get(&r) {
            None => Some(Affine::register(r, 0)),
            Some(Some(per)) => Some(Affine::register(r, *per)),
            Some(None) => None,
        }
    };
    let mut forms: HashMap<Reg, Option<Affine>> = HashMap::new();
    let form = |forms: &HashMap<Reg, Option<Affine>>, s: &Src| -> Option<Affine> {
        match *s {
            Src::Reg(r) => forms.get(&r).cloned().unwrap_or_else(|| initial(r)),
            Src::Imm(v) => Some(Affine::constant(v as i64)),
            Src::Shared(o) => Some(Affine {
                shared: true,
                ..Affine::constant(i64::from(o))
            }),
            _ => None,
        }
    };
    // Each access's address (position in the body -> form of base + offset).
    let mut at: Vec<Option<Affine>> = vec![None; len];
    for (pos, inst) in body.iter().enumerate() {
        if let Kind::Ld { addr, .. } | Kind::St { addr, .. } = &inst.kind {
            at[pos] = form(&forms, &addr.base)
                .and_then(|f| f.add(&Affine::constant(addr.offset)))
                .filter(|f| f.shared || !f.terms.is_empty());
        }
        let written = merge::writes(&inst.kind);
        if written.is_empty() {
            continue;
        }
        let value = if inst.guard.is_some() {
            None
        } else {
            affine_value(&inst.kind, &|s| form(&forms, s))
        };
        for d in written {
            forms.insert(d, value.clone());
        }
    }
    // The entry value's known low bits: for an induction, the meet of its
    // definitions before the loop (the steps are in the forms).
    let entry_low = |r: Reg| -> Low {
        match step_of.get(&r) {
            None => facts.get(r as usize).copied().unwrap_or(Low::UNKNOWN),
            Some(_) => merge::entry_low_bits(insts, l.head, l.end, r, facts, shared),
        }
    };
    // Each address's root: a register, the shared addresses, or a sum of
    // terms (numbered past every register, with what is proved of it).
    let mut sums: Vec<Sum> = Vec::new();
    let mut root_of = |f: &Affine| -> Root {
        match (f.terms.as_slice(), f.shared) {
            ([(r, 1)], false) => Root::Reg(*r),
            ([], true) => Root::Shared,
            (terms, shared) => {
                let id = match sums.iter().position(|s| s.0 == terms && s.1 == shared) {
                    Some(id) => id,
                    None => {
                        let mut low = if shared {
                            merge::placement_low(f.k, shared_vars)
                        } else {
                            Low::exact(0)
                        };
                        for &(r, c) in terms {
                            low = low.add(entry_low(r).mul(Low::exact(c as u64)));
                        }
                        sums.push((terms.to_vec(), shared, low));
                        sums.len() - 1
                    }
                };
                Root::Reg(SUM_ROOTS.wrapping_sub(id as Reg))
            }
        }
    };
    let roots: Vec<Option<Root>> = at.iter().map(|f| f.as_ref().map(&mut root_of)).collect();
    let low_of = |root: Root, members: &[Candidate]| -> Low {
        match root {
            Root::Reg(r) if r > SUM_ROOTS - sums.len() as Reg => sums
                .get((SUM_ROOTS - r) as usize)
                .map_or(Low::UNKNOWN, |s| s.2),
            Root::Reg(r) => entry_low(r),
            Root::Shared => merge::shared_low(members, shared_vars),
        }
    };
    // Lay the iterations out and group them.
    let mut groups = Vec::new();
    let (mut loads, mut stores): (Vec<Candidate>, Vec<Candidate>) = Default::default();
    let mut merging = vec![false; len];
    for it in 0..l.trips as usize {
        for (pos, inst) in body.iter().enumerate() {
            let id = it * len + pos;
            let found = at[pos].as_ref().zip(roots[pos]).and_then(|(f, root)| {
                let offset = f.k.wrapping_add(f.per.wrapping_mul(it as i64));
                merge::candidate_at(id, inst, root, offset)
            });
            merging[pos] |= found.is_some();
            // The exit branch goes once the loop is unrolled.
            let bound = if l.exit == Some(l.head + pos) {
                Bound::Neither
            } else {
                merge::bound(&inst.kind)
            };
            merge::stretch_step(
                inst,
                found,
                bound,
                (&mut loads, &mut stores),
                &low_of,
                &mut groups,
            );
        }
    }
    merge::flush(&mut loads, false, &low_of, &mut groups);
    merge::flush(&mut stores, true, &low_of, &mut groups);
    let mut out: BTreeMap<usize, Vec<Merge>> = BTreeMap::new();
    for (pos, _) in merging.iter().enumerate().filter(|m| *m.1) {
        out.insert(pos, vec![Merge::None; l.trips as usize]);
    }
    for g in groups {
        for (k, &(id, delta)) in g.members.iter().enumerate() {
            let (it, pos) = (id / len, id % len);
            let merge = if k == g.carrier {
                Merge::Carry {
                    width: g.width,
                    back: delta,
                }
            } else {
                Merge::Folded {
                    delta,
                    width: g.width,
                }
            };
            if let Some(v) = out.get_mut(&pos) {
                v[it] = merge;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_value_picks_the_iteration() {
        let m = LoopMerges {
            counter: 0,
            bits: 32,
            first: 8,
            step: -1,
            merges: vec![
                Merge::Carry { width: 16, back: 0 },
                Merge::Folded {
                    delta: 4,
                    width: 16,
                },
            ],
        };
        assert_eq!(m.at(Some(8)), Merge::Carry { width: 16, back: 0 });
        assert_eq!(
            m.at(Some(7)),
            Merge::Folded {
                delta: 4,
                width: 16
            }
        );
        assert_eq!(m.at(Some(6)), Merge::None);
        assert_eq!(m.at(Some(9)), Merge::None);
        assert_eq!(m.at(None), Merge::None);
        let up = LoopMerges {
            step: 4,
            first: 0xffff_fffc,
            ..m
        };
        assert_eq!(
            up.at(Some(0)),
            Merge::Folded {
                delta: 4,
                width: 16
            }
        );
        assert_eq!(up.at(Some(2)), Merge::None);
    }
}
