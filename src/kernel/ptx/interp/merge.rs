//! Which shared accesses ptxas merges into one wider SASS access, predicted
//! from the PTX: `LDS.64`/`LDS.128` from scalar loads, `STS.32`/`.64`/`.128`
//! from scalar stores.
//!
//! Every rule below was measured with nvcc/ptxas 13.0 for sm_90 (compile
//! only: `cuobjdump -sass` beside the PTX) in tests/data/ptx/ptxas_merging
//! and tests/data/ptx/ptxas_merging_more (`merges.json` in each lists every
//! probe kernel's PTX and SASS; the folder README has the table), and in the
//! matmul fixture (32 `ld.shared.f32` of a row ran as 8 `LDS.128`).
//!
//! **Alignment is proved statically, as ptxas proves it.** A merge is one
//! SASS instruction for every lane and every execution, so ptxas merges only
//! where the address expression proves the merged access naturally aligned:
//! known low bits of symbol + constant offsets + multiples (`mul`, `shl`,
//! `and` masks, `xor`/`or` of aligned values, `selp` and loop-carried values
//! that agree, of these last only their shared alignment (`unroll4_256` in
//! tests/data/ptx/nvcc_loops); measured: `ld4_mul48`, `ld4_and`,
//! `ld4_shr`, `ld4_xor`, `p_selp`, `p_loop`, `ld4_param16`, `ld2_param8`),
//! and never where a parameter scales by 4 only (`ld2_unknown`, `ld4_unknown`, `st4_unknown`).
//! A shared variable contributes the alignment of the offset ptxas placed it
//! at, not the offset itself (`q_t4_at16` and `q_u4_at8` merge as 16- and
//! 8-aligned; `q_u4_at8_off8` and `p_s4_pad12` do not merge accesses that
//! the exact offset would make 16-aligned). [`known_low_bits`] is that
//! proof: a flow-insensitive fixed point over the function's registers. The
//! run-time alignment of the addresses is not used (it would predict merges
//! ptxas cannot prove).
//!
//! **Branches.** ptxas if-converts (or hoists over) forward branches, and
//! loads merge across those as in straight-line code (see [`if_converted`]).
//!
//! **Loops.** ptxas unrolls loops with a constant trip count and merges the
//! accesses of consecutive iterations; [`unroll`](super::unroll) lays them
//! out as if unrolled and groups them by the same rules (measured in
//! tests/data/ptx/ptxas_unrolling; a loop of parameter trip count is not
//! merged across iterations, as measured: `ldparam_*`, `l1_step4_param`).
//!
//! **Constant addresses** (`[sym+k]`, a register holding `sym`) are exact
//! once ptxas has placed the variables: they merge across variables packed
//! into one chunk ([`shared_low`]).
//!
//! **Where the evidence does not settle a case the pass does not merge:**
//! across arms longer than [`MAX_ARM`], stores of different element widths
//! (a store of another width also ends the stores before it, measured),
//! 64-bit stores with 32-bit ones. Measured and not predicted: ptxas
//! narrows a 64-bit load whose high word is unused (`mixld_*`).

use super::ir::{Inst, IntBin, IntUn, Kind, Merge, Reg, SharedVar, Space, Src};

use crate::kernel::ptx::ops::Half;

/// What the address expression proves about a value: its low `bits` bits
/// equal `value`'s (the known-bits lattice; `bits` 0 knows nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Low {
    bits: u32,
    value: u64,
}

/// The shared window starts 1 KiB into the SASS address space on sm_90
/// (`UMOV UR4, 0x400` before every shared address in the probes' SASS), so a
/// variable placed at offset 0 is known 1024-aligned, no more.
const WINDOW_ALIGN_BITS: u32 = 10;

impl Low {
    pub(super) const UNKNOWN: Low = Low { bits: 0, value: 0 };

    pub(super) fn exact(value: u64) -> Low {
        Low { bits: 64, value }
    }

    /// The low `bits` bits zero (a multiple of `2^bits`).
    pub(super) fn aligned(bits: u32) -> Low {
        Low {
            bits: bits.min(64),
            value: 0,
        }
    }

    fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    fn norm(self) -> Low {
        Low {
            bits: self.bits,
            value: self.value & self.mask(),
        }
    }

    fn truncate(self, bits: u32) -> Low {
        Low {
            bits: self.bits.min(bits),
            value: self.value,
        }
        .norm()
    }

    /// What both values have in common (the meet of the lattice).
    fn meet(self, other: Low) -> Low {
        let agree = (self.value ^ other.value).trailing_zeros();
        Low {
            bits: self.bits.min(other.bits).min(agree),
            value: self.value,
        }
        .norm()
    }

    pub(super) fn add(self, other: Low) -> Low {
        Low {
            bits: self.bits.min(other.bits),
            value: self.value.wrapping_add(other.value),
        }
        .norm()
    }

    fn sub(self, other: Low) -> Low {
        Low {
            bits: self.bits.min(other.bits),
            value: self.value.wrapping_sub(other.value),
        }
        .norm()
    }

    /// Only the known zero bits at the bottom: a multiple of `2^zeros`.
    fn aligned_part(self) -> Low {
        Low::aligned(self.zeros())
    }

    /// Known trailing zeros.
    fn zeros(self) -> u32 {
        self.bits.min(self.value.trailing_zeros())
    }

    /// `a * b` modulo `2^n` depends only on the operands' low bits: with
    /// `a = a0 + 2^ka x`, `b = b0 + 2^kb y`, the unknown terms are multiples
    /// of `2^(ka + tz(b0))` and `2^(kb + tz(a0))`.
    pub(super) fn mul(self, other: Low) -> Low {
        let bits = (self.bits + other.zeros())
            .min(other.bits + self.zeros())
            .min(64);
        Low {
            bits,
            value: self.value.wrapping_mul(other.value),
        }
        .norm()
    }

    fn shl(self, by: u64) -> Low {
        if by >= 64 {
            return Low::exact(0);
        }
        Low {
            bits: (self.bits + by as u32).min(64),
            value: self.value << by,
        }
        .norm()
    }

    /// A right shift within `width` bits: the result's low bits come from the
    /// operand's bits `by` and up.
    fn shr(self, by: u64, width: u32) -> Low {
        let known = self.bits.min(width);
        Low {
            bits: known.saturating_sub(by.min(64) as u32),
            value: u32::try_from(by)
                .ok()
                .and_then(|b| self.value.checked_shr(b))
                .unwrap_or(0),
        }
        .norm()
    }

    /// Known zero and one bits, as masks.
    fn split(self) -> (u64, u64) {
        let m = self.mask();
        (m & !self.value, m & self.value)
    }

    fn from_split(zeros: u64, ones: u64) -> Low {
        let bits = (zeros | ones).trailing_ones();
        Low { bits, value: ones }.norm()
    }

    fn and(self, other: Low) -> Low {
        let ((za, oa), (zb, ob)) = (self.split(), other.split());
        Low::from_split(za | zb, oa & ob)
    }

    fn or(self, other: Low) -> Low {
        let ((za, oa), (zb, ob)) = (self.split(), other.split());
        Low::from_split(za & zb, oa | ob)
    }

    fn xor(self, other: Low) -> Low {
        Low {
            bits: self.bits.min(other.bits),
            value: self.value ^ other.value,
        }
        .norm()
    }
}

/// What ptxas knows of a shared symbol's address (`Src::Shared`, the
/// variable's placed offset plus a constant): the alignment of the offset
/// the variable was placed at, plus the constant exactly.
fn symbol_low(offset: u32, shared: &[SharedVar]) -> Low {
    let var = shared
        .iter()
        .filter(|v| {
            v.offset <= offset && (v.dynamic || offset < v.offset.saturating_add(v.bytes.max(1)))
        })
        .max_by_key(|v| v.offset);
    match var {
        Some(v) => Low::aligned(v.offset.trailing_zeros().min(WINDOW_ALIGN_BITS))
            .add(Low::exact(u64::from(offset - v.offset))),
        None => Low::UNKNOWN,
    }
}

/// What is proved of the address of shared symbol offset `offset` less the
/// offset itself: the alignment of the offset its variable was placed at
/// (an unrolled loop's address that adds registers to a symbol keeps the
/// symbol's offset among its bytes past the root).
pub(super) fn placement_low(offset: i64, shared: &[SharedVar]) -> Low {
    Low::aligned(symbol_low(u32::try_from(offset).unwrap_or(u32::MAX), shared).bits)
}

/// What is proved of the root of constant shared addresses (`[sym+k]`, or
/// a register holding `sym`): the offsets are the shared addresses
/// themselves, exact once ptxas has placed the variables, so the root is the
/// window's start, 1 KiB aligned. Measured: constant addresses merge across
/// variables packed into one 16-byte chunk as their exact offsets allow
/// (`pk_*`, `pk4_*` in tests/data/ptx/ptxas_unrolling: `.align 4` words at
/// 0, 4, 8, 12 are one `LDS.128`), unlike addresses that add a register to
/// a symbol (`p_s4_pad12`), where only the placement's alignment is known.
pub(super) fn shared_low(_members: &[Candidate], _shared: &[SharedVar]) -> Low {
    Low::aligned(WINDOW_ALIGN_BITS)
}

/// What is proved of register `r` on entering the loop `head..=end`: the
/// meet of its definitions outside the loop (a loop's own steps of an
/// induction are accounted for apart, see [`unroll`](super::unroll)).
pub(super) fn entry_low_bits(
    insts: &[Inst],
    head: usize,
    end: usize,
    r: Reg,
    facts: &[Low],
    shared: &[SharedVar],
) -> Low {
    let known: Vec<Option<Low>> = facts.iter().map(|&f| Some(f)).collect();
    let mut out: Option<Low> = None;
    for (k, inst) in insts.iter().enumerate() {
        if (head..=end).contains(&k) {
            continue;
        }
        for (d, low) in definitions(&inst.kind, &known, shared) {
            if d == r {
                let low = low.unwrap_or(Low::UNKNOWN);
                out = Some(out.map_or(low, |o| o.meet(low)));
            }
        }
    }
    out.unwrap_or(Low::UNKNOWN)
}

/// The proof of every register's low bits, over the whole function: each
/// register gets the meet of what all its definitions give (a guarded
/// definition too: the old value stays possible, and is some other
/// definition's), and where there are several, only the alignment they
/// share: ptxas proves no more of a value that flows in from two places
/// (tests/data/ptx/nvcc_loops, `unroll4_256`: a pointer set to a 256-aligned
/// base + 8 and stepped by 16 in a loop is 8 mod 16 in every trip, yet its
/// four loads at -8..+4 are two `LDS.64`, not one `LDS.128`). Registers
/// read before any definition are not considered:
/// PTX from nvcc and Triton defines before it reads.
pub(super) fn known_low_bits(insts: &[Inst], regs: usize, shared: &[SharedVar]) -> Vec<Low> {
    let mut facts: Vec<Option<Low>> = vec![None; regs];
    // Each pass only lowers facts, and a fact has at most 65 values: the
    // passes end. Real code settles in two or three; past the cap every
    // fact is dropped (no merge is then predicted), which is safe.
    for _ in 0..64 {
        let mut changed = false;
        for inst in insts {
            for (d, low) in definitions(&inst.kind, &facts, shared) {
                let Some(slot) = facts.get_mut(d as usize) else {
                    continue;
                };
                let Some(low) = low else { continue };
                let new = match *slot {
                    None => low,
                    Some(old) => old.meet(low).aligned_part(),
                };
                if *slot != Some(new) {
                    *slot = Some(new);
                    changed = true;
                }
            }
        }
        if !changed {
            return facts
                .into_iter()
                .map(|f| f.unwrap_or(Low::UNKNOWN))
                .collect();
        }
    }
    vec![Low::UNKNOWN; regs]
}

/// The registers an instruction defines and what each is proved to hold
/// (`None`: an operand has no fact yet in this pass).
fn definitions(
    kind: &Kind,
    facts: &[Option<Low>],
    shared: &[SharedVar],
) -> Vec<(Reg, Option<Low>)> {
    let src = |s: &Src| -> Option<Low> {
        match *s {
            Src::Reg(r) => facts.get(r as usize).copied().flatten(),
            Src::Imm(v) => Some(Low::exact(v)),
            Src::Shared(o) => Some(symbol_low(o, shared)),
            Src::Special(_) | Src::Param(_) | Src::Unknown => Some(Low::UNKNOWN),
        }
    };
    let imm = |s: &Src| match *s {
        Src::Imm(v) => Some(v),
        _ => None,
    };
    match kind {
        Kind::Mov { bits, d, a } => vec![(*d, src(a).map(|l| l.truncate(*bits)))],
        Kind::IntBin { op, t, d, a, b } => {
            let w = t.bits();
            let low = match op {
                IntBin::Add { sat: false } => src(a).zip(src(b)).map(|(a, b)| a.add(b)),
                IntBin::Sub { sat: false } => src(a).zip(src(b)).map(|(a, b)| a.sub(b)),
                IntBin::Mul(Half::Lo | Half::Wide) => src(a).zip(src(b)).map(|(a, b)| a.mul(b)),
                IntBin::Mul24(Half::Lo) => src(a)
                    .zip(src(b))
                    .map(|(a, b)| a.truncate(24).mul(b.truncate(24))),
                IntBin::And => src(a).zip(src(b)).map(|(a, b)| a.and(b)),
                IntBin::Or => src(a).zip(src(b)).map(|(a, b)| a.or(b)),
                IntBin::Xor => src(a).zip(src(b)).map(|(a, b)| a.xor(b)),
                IntBin::Shl => match imm(b) {
                    Some(by) => src(a).map(|a| a.shl(by)),
                    None => Some(Low::UNKNOWN),
                },
                IntBin::Shr => match imm(b) {
                    Some(by) => src(a).map(|a| a.shr(by, w)),
                    None => Some(Low::UNKNOWN),
                },
                _ => Some(Low::UNKNOWN),
            };
            vec![(*d, low.map(|l| l.truncate(w)))]
        }
        Kind::IntUn { op, t, d, a } => {
            let low = match op {
                IntUn::Neg => src(a).map(|a| Low::exact(0).sub(a)),
                IntUn::Not => src(a).map(|a| Low {
                    bits: a.bits,
                    value: !a.value,
                }),
                _ => Some(Low::UNKNOWN),
            };
            vec![(*d, low.map(|l| l.norm().truncate(t.bits())))]
        }
        Kind::Mad {
            half: Half::Lo | Half::Wide,
            sat: false,
            t,
            d,
            a,
            b,
            c,
        } => {
            let width = match kind {
                Kind::Mad {
                    half: Half::Wide, ..
                } => 2 * t.bits(),
                _ => t.bits(),
            };
            let low = src(a)
                .zip(src(b))
                .zip(src(c))
                .map(|((a, b), c)| a.mul(b).add(c).truncate(width));
            vec![(*d, low)]
        }
        Kind::Selp { bits, d, a, b, .. } => {
            vec![(
                *d,
                src(a).zip(src(b)).map(|(a, b)| a.meet(b).truncate(*bits)),
            )]
        }
        Kind::Cvt {
            dst: super::ir::Ty::Int(dt),
            src: super::ir::Ty::Int(st),
            sat: false,
            d,
            a,
            ..
        } => vec![(*d, src(a).map(|a| a.truncate(st.bits().min(dt.bits()))))],
        Kind::CvtaWindow {
            base: window,
            to_generic,
            bits,
            d,
            a,
        } => {
            let base = Low::exact(*window);
            let low = src(a).map(|a| {
                if *to_generic {
                    a.add(base)
                } else {
                    a.sub(base)
                }
            });
            vec![(*d, low.map(|l| l.truncate(*bits)))]
        }
        other => writes(other)
            .into_iter()
            .map(|d| (d, Some(Low::UNKNOWN)))
            .collect(),
    }
}

/// The registers an instruction writes (an over-approximation is safe: it
/// only stops a merge or drops a fact).
pub(super) fn writes(kind: &Kind) -> Vec<Reg> {
    match kind {
        Kind::Mov { d, .. }
        | Kind::Pack { d, .. }
        | Kind::IntBin { d, .. }
        | Kind::IntUn { d, .. }
        | Kind::Mad { d, .. }
        | Kind::Mad24 { d, .. }
        | Kind::Bfe { d, .. }
        | Kind::Bfi { d, .. }
        | Kind::Prmt { d, .. }
        | Kind::Lop3 { d, .. }
        | Kind::PredBin { d, .. }
        | Kind::PredNot { d, .. }
        | Kind::Float { d, .. }
        | Kind::Set { d, .. }
        | Kind::Selp { d, .. }
        | Kind::Cvt { d, .. }
        | Kind::CvtaWindow { d, .. }
        | Kind::Vote { d, .. }
        | Kind::Activemask { d }
        | Kind::Redux { d, .. } => vec![*d],
        Kind::Setp { p, q, .. } => p.iter().chain(q).copied().collect(),
        Kind::Unpack { ds, .. } | Kind::Ld { ds, .. } => ds.iter().flatten().copied().collect(),
        Kind::Atom { d, .. } => d.iter().copied().collect(),
        Kind::LdMatrix { ds, .. }
        | Kind::Wmma { ds, .. }
        | Kind::Wgmma { ds, .. }
        | Kind::Unmodelled { ds }
        | Kind::Opaque { ds, .. } => ds.clone(),
        Kind::Shfl { d, p, .. } => std::iter::once(*d).chain(*p).collect(),
        Kind::Elect { d, p } => d.iter().chain(p).copied().collect(),
        Kind::Bar {
            kind: super::ir::BarKind::Red { dst, .. },
            ..
        } => dst.iter().copied().collect(),
        _ => Vec::new(),
    }
}

/// How an instruction bounds the stretches in which accesses may merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bound {
    /// Neither (arithmetic, global and param accesses: `p_ld_stglobal_ld`
    /// merged two shared loads around a global store).
    Neither,
    /// Ends the stores' stretch (a shared or generic load:
    /// `st_ld_st` did not merge).
    Stores,
    /// Ends the loads' stretch (a shared or generic store: `ld_st_ld`).
    Loads,
    /// Ends both: control flow, barriers (`ld_bar_ld`, `st_bar_st`), fences
    /// (`ld_fence_ld`), atomics, asynchronous copies, matrix accesses, calls.
    Both,
}

pub(super) fn bound(kind: &Kind) -> Bound {
    let shared_side = |space: &Space| matches!(space, Space::Shared | Space::Generic);
    match kind {
        Kind::Ld { space, .. } if shared_side(space) => Bound::Stores,
        Kind::St { space, .. } if shared_side(space) => Bound::Loads,
        Kind::Ld { .. }
        | Kind::St { .. }
        | Kind::Mov { .. }
        | Kind::Pack { .. }
        | Kind::Unpack { .. }
        | Kind::IntBin { .. }
        | Kind::IntUn { .. }
        | Kind::Mad { .. }
        | Kind::Mad24 { .. }
        | Kind::Bfe { .. }
        | Kind::Bfi { .. }
        | Kind::Prmt { .. }
        | Kind::Lop3 { .. }
        | Kind::PredBin { .. }
        | Kind::PredNot { .. }
        | Kind::Float { .. }
        | Kind::Setp { .. }
        | Kind::Set { .. }
        | Kind::Selp { .. }
        | Kind::Cvt { .. }
        | Kind::CvtaWindow { .. }
        | Kind::Opaque { .. }
        | Kind::Nop => Bound::Neither,
        _ => Bound::Both,
    }
}

/// Arms longer than this are left as branches: the longest measured, loads
/// merged across arms of 2 to 32 arithmetic instructions and of 1 to 8
/// global stores alike (`skip_alu*`, `skip_stg*` in
/// tests/data/ptx/ptxas_unrolling); past 32 is a modelling choice.
const MAX_ARM: usize = 32;

/// The short forward branches ptxas if-converts (predicates the arm instead
/// of branching around it), by the index of each branch, arm end and join
/// they involve, each mapped to the join. Measured (tests/data/ptx/
/// ptxas_merging_more, `branches.ptx`): loads merge across a branch over a
/// global store (`b1_ld_skip`, `ld_branch_ld`), an if/else of global stores
/// (`b2_ld_diamond`), arithmetic (`b7_ld_skip_alu`) or a shared load, which
/// ptxas then runs unconditionally inside the merged load (`b5_ld_skip_ld`:
/// one `LDS.128`), on a data-dependent or a uniform predicate
/// (`b6_ld_skip_param`); not across a shared store (`b4_ld_skip_st_other`);
/// stores do not merge across any (`b3_st_skip`). An arm qualifies when it
/// holds at most [`MAX_ARM`] instructions, none of them a shared or generic
/// store, atomic, barrier, fence, call or branch, and no other branch
/// enters it or its join.
fn if_converted(
    insts: &[Inst],
    targets: &std::collections::HashSet<u32>,
) -> std::collections::HashMap<usize, usize> {
    let mut incoming: std::collections::HashMap<u32, u32> = Default::default();
    for inst in insts {
        if let Kind::Bra { target } = inst.kind {
            *incoming.entry(target).or_default() += 1;
        }
    }
    let single = |t: usize| incoming.get(&(t as u32)) == Some(&1);
    // An arm `from..to`, entered only by falling through, or by the branch
    // to its first instruction (`labelled`: the else-arm).
    let clean = |from: usize, to: usize, labelled: bool| {
        to - from <= MAX_ARM
            && insts[from..to].iter().enumerate().all(|(k, inst)| {
                (labelled && k == 0 || !targets.contains(&((from + k) as u32)))
                    && matches!(bound(&inst.kind), Bound::Neither | Bound::Stores)
            })
    };
    let mut out = std::collections::HashMap::new();
    for (i, inst) in insts.iter().enumerate() {
        let (Kind::Bra { target }, Some(_)) = (&inst.kind, inst.guard) else {
            continue;
        };
        let l = *target as usize;
        if l <= i + 1 || l > insts.len() || !single(l) {
            continue;
        }
        if clean(i + 1, l, false) {
            out.insert(i, l);
            out.insert(l, l);
            continue;
        }
        // if/else: the then-arm ends in `bra.uni JOIN`, the else-arm runs
        // from `l` to JOIN.
        let end = l - 1;
        if let (Kind::Bra { target: join }, None) = (&insts[end].kind, insts[end].guard) {
            let join = *join as usize;
            if join > l
                && join <= insts.len()
                && single(join)
                && clean(i + 1, end, false)
                && clean(l, join, true)
            {
                for k in [i, end, l, join] {
                    out.insert(k, join);
                }
            }
        }
    }
    out
}

/// Where an access's address comes from: a register (after following
/// `add d, r, imm` in the same stretch of code) or the shared space's own
/// addresses (`[sym+k]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Root {
    Reg(Reg),
    Shared,
}

/// An access that may merge.
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    index: usize,
    /// The base register as written (a write to it ends the candidate).
    base: Option<Reg>,
    root: Root,
    /// Bytes from the root.
    offset: i64,
    /// Bytes accessed.
    bytes: u32,
    /// Bytes of each element (stores merge at most four: `p_st16_8`).
    piece: u32,
    /// Inside a branch ptxas if-converts: it may fold into a merged load
    /// issued before the branch, never issue one itself.
    conditional: bool,
}

/// Marks the shared loads and stores ptxas merges ([`Merge`]) in one
/// function's straight-line code, after the loops ptxas unrolls have been
/// marked ([`unroll`](super::unroll)). `facts` are [`known_low_bits`]'s.
pub(super) fn merge_accesses(insts: &mut [Inst], facts: &[Low], shared: &[SharedVar]) {
    let targets: std::collections::HashSet<u32> = insts
        .iter()
        .filter_map(|i| match i.kind {
            Kind::Bra { target } => Some(target),
            _ => None,
        })
        .collect();
    // `d = r + k` relations that hold here: established by a definition in
    // straight-line code, dropped when either side is written again or
    // control flow joins (a branch target; an instruction after a jump,
    // `ret` or `exit` is reached only through one).
    let mut offsets = Offsets::default();
    let (mut loads, mut stores): (Vec<Candidate>, Vec<Candidate>) = Default::default();
    let (mut load_regs, mut store_regs) = (OpenRegs::default(), OpenRegs::default());
    let mut groups: Vec<Group> = Vec::new();
    let converted = if_converted(insts, &targets);
    // The join of the if-converted branch being passed, and the registers
    // written since it began (their `d = r + k` relations hold on one path).
    let mut region: Option<usize> = None;
    let mut region_writes: Vec<Reg> = Vec::new();
    let low_of = |root: Root, members: &[Candidate]| -> Low {
        match root {
            Root::Reg(r) => facts.get(r as usize).copied().unwrap_or(Low::UNKNOWN),
            Root::Shared => shared_low(members, shared),
        }
    };
    for (i, inst) in insts.iter().enumerate() {
        if region == Some(i) {
            region = None;
            for &d in &region_writes {
                offsets.forget(d);
            }
            region_writes.clear();
        }
        let passed = converted.get(&i).copied();
        if let Some(join) = passed {
            // An if-converted branch (or its arm's end or join): loads merge
            // across it, stores do not (`b3_st_skip`).
            flush(&mut stores, true, &low_of, &mut groups);
            if matches!(inst.kind, Kind::Bra { .. }) && inst.guard.is_some() {
                region = Some(join);
            }
        } else if targets.contains(&(i as u32)) {
            flush(&mut loads, false, &low_of, &mut groups);
            flush(&mut stores, true, &low_of, &mut groups);
            offsets.clear();
        }
        let bound = match (passed, &inst.kind) {
            (Some(_), Kind::Bra { .. }) => Bound::Neither,
            _ => bound(&inst.kind),
        };
        let found = candidate(i, inst, &offsets.map).map(|mut c| {
            c.conditional = region.is_some();
            c
        });
        stretch_step(
            inst,
            found,
            bound,
            (&mut loads, &mut stores),
            &low_of,
            &mut groups,
        );
        let written = writes(&inst.kind);
        if written.is_empty() {
            continue;
        }
        if region.is_some() {
            region_writes.extend(&written);
        }
        // An access whose base changes after it (even by its own load)
        // cannot merge with the accesses after the change.
        if load_regs.hit(&loads, &written) {
            flush(&mut loads, false, &low_of, &mut groups);
        }
        if store_regs.hit(&stores, &written) {
            flush(&mut stores, true, &low_of, &mut groups);
        }
        for &r in &written {
            offsets.written(r);
        }
        // A register holding a symbol's address is a constant address
        // (`pk_ld_reg`, `pk_st_reg`).
        if let (
            Kind::Mov {
                bits: 32..,
                d,
                a: Src::Shared(o),
            },
            None,
        ) = (&inst.kind, inst.guard)
        {
            offsets.insert(*d, (Root::Shared, i64::from(*o)));
        }
        if let (
            Kind::IntBin {
                op: IntBin::Add { sat: false },
                d,
                a,
                b,
                ..
            },
            None,
        ) = (&inst.kind, inst.guard)
        {
            let (reg, k) = match (a, b) {
                (Src::Reg(r), Src::Imm(k)) | (Src::Imm(k), Src::Reg(r)) => (*r, *k as i64),
                _ => continue,
            };
            if reg != *d {
                let (root, base) = offsets
                    .map
                    .get(&reg)
                    .copied()
                    .unwrap_or((Root::Reg(reg), 0));
                offsets.insert(*d, (root, base.wrapping_add(k)));
            }
        }
    }
    flush(&mut loads, false, &low_of, &mut groups);
    flush(&mut stores, true, &low_of, &mut groups);
    for g in groups {
        for (k, &(index, at)) in g.members.iter().enumerate() {
            let merge = if k == g.carrier {
                Merge::Carry {
                    width: g.width,
                    back: at,
                }
            } else {
                Merge::Folded {
                    delta: at,
                    width: g.width,
                }
            };
            match &mut insts[index].kind {
                Kind::Ld { merge: m, .. } | Kind::St { merge: m, .. } => *m = merge,
                _ => {}
            }
        }
    }
}

/// The `d = root + k` relations that hold at a point of straight-line code,
/// with the registers defined from each root, so that a write drops the
/// relations it ends in time proportional to them (a scan of every relation
/// at every instruction was quadratic: 100,000 `add`s of one base took 12 s).
#[derive(Debug, Default)]
struct Offsets {
    map: std::collections::HashMap<Reg, (Root, i64)>,
    /// For a register root, the registers whose relation was defined from it
    /// (some may have been redefined since: checked when dropped).
    users: std::collections::HashMap<Reg, Vec<Reg>>,
}

impl Offsets {
    fn insert(&mut self, d: Reg, relation: (Root, i64)) {
        if let Root::Reg(r) = relation.0 {
            self.users.entry(r).or_default().push(d);
        }
        self.map.insert(d, relation);
    }

    /// Control flow joins: nothing holds.
    fn clear(&mut self) {
        self.map.clear();
        self.users.clear();
    }

    /// `d`'s own relation no longer holds.
    fn forget(&mut self, d: Reg) {
        self.map.remove(&d);
    }

    /// `r` is written: its own relation and those of the registers defined
    /// from it no longer hold.
    fn written(&mut self, r: Reg) {
        self.map.remove(&r);
        for d in self.users.remove(&r).unwrap_or_default() {
            if self
                .map
                .get(&d)
                .is_some_and(|&(root, _)| root == Root::Reg(r))
            {
                self.map.remove(&d);
            }
        }
    }
}

/// The registers the open candidates of a stretch depend on (their bases and
/// register roots), kept in step with the stretch so that asking whether an
/// instruction's writes end it costs its writes, not the stretch's length:
/// straight-line code of n shared loads was n^2 / 2 scans (200,000 loads
/// took 44 s, issue 36).
///
/// A stretch only grows at its end or is emptied whole ([`flush`] drains
/// it), and candidates are made in program order, so the stretch is the one
/// last seen while its first candidate is; what was pushed since is its
/// tail past the length last seen.
#[derive(Debug, Default)]
struct OpenRegs {
    /// The instruction of the stretch's first candidate when last seen.
    first: Option<usize>,
    /// Its length then.
    len: usize,
    /// How many of its candidates depend on each register.
    regs: std::collections::HashMap<Reg, u32>,
}

impl OpenRegs {
    /// Whether a write of `written` ends a candidate of `open`: as
    /// `open.iter().any(..)` over each candidate's base and register root.
    fn hit(&mut self, open: &[Candidate], written: &[Reg]) -> bool {
        let first = open.first().map(|c| c.index);
        if first != self.first || open.len() < self.len {
            self.regs.clear();
            self.len = 0;
            self.first = first;
        }
        for c in &open[self.len..] {
            let root = match c.root {
                Root::Reg(r) => Some(r),
                Root::Shared => None,
            };
            for r in c.base.into_iter().chain(root) {
                *self.regs.entry(r).or_default() += 1;
            }
        }
        self.len = open.len();
        written.iter().any(|r| self.regs.contains_key(r))
    }
}

/// The open stretches of loads and stores after instruction `inst`, whose
/// mergeable access (if any) is `found` and whose effect on the stretches is
/// `bound`: a stretch it ends is grouped into `groups`.
pub(super) fn stretch_step(
    inst: &Inst,
    found: Option<Candidate>,
    bound: Bound,
    (loads, stores): (&mut Vec<Candidate>, &mut Vec<Candidate>),
    low_of: &dyn Fn(Root, &[Candidate]) -> Low,
    groups: &mut Vec<Group>,
) {
    match (found, bound) {
        (Some(c), Bound::Stores) => {
            flush(stores, true, low_of, groups);
            loads.push(c);
        }
        (Some(c), Bound::Loads) => {
            flush(loads, false, low_of, groups);
            // A store of another element width ends the stores before it
            // (`mix_32_64_32` in tests/data/ptx/ptxas_unrolling: 32-bit
            // stores at +0 and +4 around a 64-bit one at +8 stay apart; the
            // widths in turn, `mix_32_32_64`, `mix_64_32_32`, merge each).
            if stores.last().is_some_and(|s| s.piece != c.piece) {
                flush(stores, true, low_of, groups);
            }
            stores.push(c);
        }
        (_, Bound::Stores) => flush(stores, true, low_of, groups),
        (_, Bound::Loads) => {
            flush(loads, false, low_of, groups);
            // A store that does not merge (guarded, volatile, another
            // width) stands between the stores around it.
            flush(stores, true, low_of, groups);
        }
        (_, Bound::Both) => {
            flush(loads, false, low_of, groups);
            flush(stores, true, low_of, groups);
        }
        (_, Bound::Neither) => {}
    }
    // Volatile and ordered loads stay as written and keep their place.
    if matches!(
        inst.kind,
        Kind::Ld {
            merge: Merge::Never,
            space: Space::Shared,
            ..
        }
    ) {
        flush(loads, false, low_of, groups);
    }
}

/// A merged access: its members (an id ordered as the accesses run: the
/// instruction's index, or an unrolled loop's iteration and position; and
/// bytes past the merged access's start), which of them issues it, and its
/// width.
pub(super) struct Group {
    pub members: Vec<(usize, u32)>,
    pub carrier: usize,
    pub width: u32,
}

/// The access an instruction makes that may merge: an unguarded,
/// non-volatile shared load of 32- or 64-bit pieces (`ld16_*`, `ld8_4`: 8-
/// and 16-bit loads never merged), or such a store of 16-, 32- or 64-bit
/// pieces (`p_st8_*`: 8-bit stores never merged), of 8 bytes at most
/// (`ld_guard_same`, `p_guard_same`, `p_guard_st`: guarded accesses never
/// merged; `ld_volatile4`: volatile loads never merged).
fn candidate(
    index: usize,
    inst: &Inst,
    offsets: &std::collections::HashMap<Reg, (Root, i64)>,
) -> Option<Candidate> {
    let (addr, bytes, piece) = mergeable(inst)?;
    let (base, root, from_root) = match addr.base {
        Src::Reg(r) => {
            let (root, k) = offsets.get(&r).copied().unwrap_or((Root::Reg(r), 0));
            (Some(r), root, k)
        }
        Src::Shared(o) => (None, Root::Shared, i64::from(o)),
        _ => return None,
    };
    Some(Candidate {
        index,
        base,
        root,
        offset: from_root.wrapping_add(addr.offset),
        bytes,
        piece,
        conditional: false,
    })
}

/// [`candidate`]'s access with its address given (`root` plus `offset`
/// bytes, the offset included): an unrolled loop's access in one iteration,
/// `id` its place in the unrolled order.
pub(super) fn candidate_at(id: usize, inst: &Inst, root: Root, offset: i64) -> Option<Candidate> {
    let (_, bytes, piece) = mergeable(inst)?;
    Some(Candidate {
        index: id,
        base: None,
        root,
        offset,
        bytes,
        piece,
        conditional: false,
    })
}

/// The address, bytes and element bytes of an access that may merge (see
/// [`candidate`]).
fn mergeable(inst: &Inst) -> Option<(&super::ir::Addr, u32, u32)> {
    if inst.guard.is_some() {
        return None;
    }
    let (addr, piece, count) = match &inst.kind {
        Kind::Ld {
            space: Space::Shared,
            piece,
            ds,
            addr,
            merge: Merge::None,
        } if matches!(piece, 32 | 64) => (addr, *piece, ds.len() as u32),
        Kind::St {
            space: Space::Shared,
            piece,
            srcs,
            addr,
            merge: Merge::None,
        } if matches!(piece, 16 | 32 | 64) => (addr, *piece, srcs.len() as u32),
        _ => return None,
    };
    let bytes = piece / 8 * count;
    (bytes <= 8).then_some((addr, bytes, piece / 8))
}

/// Groups a stretch's candidates by root and marks what merges.
pub(super) fn flush(
    open: &mut Vec<Candidate>,
    stores: bool,
    low_of: &dyn Fn(Root, &[Candidate]) -> Low,
    groups: &mut Vec<Group>,
) {
    let mut by_root: std::collections::BTreeMap<(Root, u32), Vec<Candidate>> = Default::default();
    for c in open.drain(..) {
        // Stores merge only with stores of their own piece width (mixed
        // widths were not measured).
        let class = if stores { c.piece } else { 0 };
        by_root.entry((c.root, class)).or_default().push(c);
    }
    for ((root, _), members) in by_root {
        if members.len() < 2 {
            continue;
        }
        let low = low_of(root, &members);
        let align_bits = low.bits.min(4);
        if stores {
            merge_stores(&members, low, align_bits, groups);
        } else {
            merge_loads(&members, low, align_bits, groups);
        }
    }
}

/// The root's address modulo 16, as far as proved (the bits above
/// `align_bits` are not used).
fn residue(low: Low) -> i64 {
    (low.value & 15) as i64
}

/// An access's address modulo 16 as far as proved: `None` where its natural
/// alignment is not.
fn position(c: &Candidate, low: Low, align_bits: u32) -> Option<i64> {
    let pos = residue(low).wrapping_add(c.offset);
    let natural = c.bytes.trailing_zeros();
    (natural <= align_bits && pos.rem_euclid(i64::from(c.bytes)) == 0).then_some(pos)
}

/// Loads: in a proved 16-byte chunk, any three or four words loaded are one
/// `LDS.128` over the chunk, reading words the PTX does not (`ld3_aligned16`,
/// `ld4_off4`, `ld_w013`, `ld_w023`, `ld_w123`, `p_ldv2_b32_3`); otherwise
/// the two words of a proved 8-byte half, loaded apart, are one `LDS.64`
/// (`ld2_aligned8`, `ld4_off8`, `ld_w23`, `ld8b_*`); two words in different
/// halves stay apart (`ld2_off4`, `ld_w02`, `ld_w03`, `ld_w13`). Program
/// order does not matter (`ld_rev4`); the first load issues the merged one.
fn merge_loads(members: &[Candidate], low: Low, align_bits: u32, groups: &mut Vec<Group>) {
    if align_bits < 3 {
        return;
    }
    // (chunk start, members and their word masks), chunks of 16 or 8 bytes.
    let chunk = if align_bits >= 4 { 16 } else { 8 };
    let mut chunks: std::collections::BTreeMap<i64, Vec<(usize, u32)>> = Default::default();
    for (k, c) in members.iter().enumerate() {
        let Some(pos) = position(c, low, align_bits) else {
            continue;
        };
        let start = pos.div_euclid(chunk);
        let words = ((1u32 << (c.bytes / 4)) - 1) << (pos.rem_euclid(chunk) / 4);
        let list = chunks.entry(start * chunk).or_default();
        // A word loaded twice: the second load stays as written.
        if list.iter().all(|&(_, w)| w & words == 0) {
            list.push((k, words));
        }
    }
    for (start, list) in chunks {
        let all: u32 = list.iter().map(|&(_, w)| w).fold(0, |a, b| a | b);
        if chunk == 16 && all.count_ones() >= 3 && list.len() >= 2 {
            push_group(members, low, start, 16, &list, false, groups);
            continue;
        }
        for half in [0b0011u32, 0b1100] {
            let part: Vec<(usize, u32)> = list
                .iter()
                .copied()
                .filter(|&(_, w)| w & half != 0)
                .collect();
            let words: u32 = part.iter().map(|&(_, w)| w).fold(0, |a, b| a | b);
            if part.len() == 2 && words == half {
                let at = start + if half == 0b1100 { 8 } else { 0 };
                push_group(members, low, at, 8, &part, false, groups);
            }
        }
    }
}

/// Stores: never widened over bytes the PTX does not write. An aligned
/// block of four elements (or two of 64 bits) all written is one store of
/// the block (`st4_aligned16`, `st_rev4`, `st8`, `st64_2`, `stv2_2`,
/// `st16_4`); else an aligned block of two (`st2_aligned8`, `st3`,
/// `st_w123`, `st4_off8`, `st8b_4`, `st16_2`); at most 16 bytes and at most
/// four elements (`p_st16_8`: eight 16-bit stores are two `STS.64`). The
/// last store issues the merged one (its values are all computed by then).
fn merge_stores(members: &[Candidate], low: Low, align_bits: u32, groups: &mut Vec<Group>) {
    let piece = members[0].piece;
    let mut placed: Vec<(usize, i64)> = Vec::new();
    for (k, c) in members.iter().enumerate() {
        if let Some(pos) = position(c, low, align_bits) {
            // A byte written twice: leave the later store as written.
            if placed.iter().all(|&(j, p)| {
                p.saturating_add(i64::from(members[j].bytes)) <= pos
                    || pos.saturating_add(i64::from(c.bytes)) <= p
            }) {
                placed.push((k, pos));
            }
        }
    }
    let mut used = vec![false; members.len()];
    // A vector store first in its 16-byte chunk keeps the scalar stores
    // after it as written (`mixd_v2_32_32`, `mixd_v2hi_32_32` in
    // tests/data/ptx/ptxas_unrolling: `STS.64` + 2 `STS`), where a scalar
    // store first merges them all (`mixd_32_v2_32`, `mixd_32_32_v2`: one
    // `STS.128`).
    let vector = |c: &Candidate| c.bytes > c.piece;
    for &(k, pos) in &placed {
        let chunk = pos.div_euclid(16);
        let first = placed
            .iter()
            .filter(|&&(_, p)| p.div_euclid(16) == chunk)
            .map(|&(j, _)| j)
            .min();
        if first.is_some_and(|j| vector(&members[j]) && !vector(&members[k])) {
            used[k] = true;
        }
    }
    for elements in [4u32, 2] {
        let width = piece * elements;
        if width > 16 || width.trailing_zeros() > align_bits {
            continue;
        }
        let mut blocks: std::collections::BTreeMap<i64, Vec<(usize, u32)>> = Default::default();
        for &(k, pos) in placed.iter().filter(|&&(k, _)| !used[k]) {
            let start = pos.div_euclid(i64::from(width)) * i64::from(width);
            if pos.saturating_add(i64::from(members[k].bytes))
                <= start.saturating_add(i64::from(width))
            {
                blocks
                    .entry(start)
                    .or_default()
                    .push((k, (pos - start) as u32));
            }
        }
        for (start, list) in blocks {
            let bytes: u32 = list.iter().map(|&(k, _)| members[k].bytes).sum();
            if bytes == width && list.len() >= 2 {
                for &(k, _) in &list {
                    used[k] = true;
                }
                push_group(members, low, start, width, &list, true, groups);
            }
        }
    }
}

/// Records a merged access of `width` bytes at `start` (root-relative plus
/// the proved residue) made of `list`'s members.
fn push_group(
    members: &[Candidate],
    low: Low,
    start: i64,
    width: u32,
    list: &[(usize, u32)],
    last_issues: bool,
    groups: &mut Vec<Group>,
) {
    let start_from_root = start.wrapping_sub(residue(low));
    let mut out: Vec<(usize, u32)> = list
        .iter()
        .map(|&(k, _)| {
            let c = &members[k];
            (c.index, c.offset.wrapping_sub(start_from_root) as u32)
        })
        .collect();
    out.sort_unstable();
    let carrier = if last_issues {
        out.len() - 1
    } else {
        // The first load that runs whichever way the branches go.
        let unconditional = |&(index, _): &(usize, u32)| {
            list.iter()
                .any(|&(k, _)| members[k].index == index && !members[k].conditional)
        };
        match out.iter().position(unconditional) {
            Some(k) => k,
            None => return,
        }
    };
    groups.push(Group {
        members: out,
        carrier,
        width,
    });
}

/// The known-bits operations are sound: whatever values agree with the
/// operands' facts, the result agrees with the result's fact.
#[cfg(all(test, feature = "proptest"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// A fact of `bits` bits taken from `seed`, and a value that agrees with
    /// it (its other bits from `noise`).
    fn fact(seed: u64, bits: u32, noise: u64) -> (Low, u64) {
        let low = Low { bits, value: seed }.norm();
        (low, low.value | (noise & !low.mask()))
    }

    fn agrees(low: Low, value: u64) -> bool {
        value & low.mask() == low.value
    }

    proptest! {
        #[test]
        fn operations_are_sound(
            (sa, ka, na) in (any::<u64>(), 0u32..=64, any::<u64>()),
            (sb, kb, nb) in (any::<u64>(), 0u32..=64, any::<u64>()),
            by in 0u64..70,
        ) {
            let (a, x) = fact(sa, ka, na);
            let (b, y) = fact(sb, kb, nb);
            prop_assert!(agrees(a.add(b), x.wrapping_add(y)));
            prop_assert!(agrees(a.sub(b), x.wrapping_sub(y)));
            prop_assert!(agrees(a.mul(b), x.wrapping_mul(y)));
            prop_assert!(agrees(a.and(b), x & y));
            prop_assert!(agrees(a.or(b), x | y));
            prop_assert!(agrees(a.xor(b), x ^ y));
            prop_assert!(agrees(a.shl(by), x.checked_shl(by as u32).unwrap_or(0)));
            prop_assert!(agrees(a.shr(by, 64), x.checked_shr(by as u32).unwrap_or(0)));
            let x32 = x & 0xffff_ffff;
            prop_assert!(agrees(a.truncate(32).shr(by, 32), x32.checked_shr(by as u32).unwrap_or(0)));
            prop_assert!(agrees(a.truncate(24), x));
            let m = a.meet(b);
            prop_assert!(agrees(m, x) && agrees(m, y));
        }
    }

    #[test]
    fn what_ptxas_proves_is_proved() {
        let tid = Low::UNKNOWN;
        let sym = Low::aligned(WINDOW_ALIGN_BITS);
        // (tid & 15) << 4 + sym: 16-aligned.
        let a = tid.and(Low::exact(15)).shl(4).add(sym);
        assert!(a.bits >= 4 && a.value & 15 == 0);
        // (tid & 3) * 48: 16-aligned (`ld4_mul48`).
        assert!(tid.and(Low::exact(3)).mul(Low::exact(48)).zeros() >= 4);
        // 4 * param: 4-aligned only (`ld2_unknown`).
        assert_eq!(Low::exact(4).mul(tid).zeros(), 2);
        // (tid * 4) & ~15 (`ld4_and`).
        assert!(tid.mul(Low::exact(4)).and(Low::exact(!15)).zeros() >= 4);
        // selp of sym + 16 and sym + 64 (`p_selp`).
        assert!(
            sym.add(Low::exact(16))
                .meet(sym.add(Low::exact(64)))
                .zeros()
                >= 4
        );
    }
}
