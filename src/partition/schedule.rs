//! The scheduler: applies a [`BankConfig`]'s rules to a request, step by step.
//!
//! Every rule reduces to the same shape. Each lane's access is a *key*: the
//! aligned group of banks it touches and the *slot* it needs from them (two lanes
//! with the same key are served by the same bank reads; two lanes with the same
//! group and different slots conflict). Lanes are cut into phases, phases are
//! scheduled one after another, and inside a phase a scheduler decides which
//! lanes go in each step. One generic function serves both the counting path and
//! the full partition, so the two cannot disagree.

use super::affine::{self, Affine};
use super::types::{Phases, Repeat, Sink, Totals};
use crate::bank::Rules;
use crate::lane::WARP_SIZE;
use crate::{AccessWidth, BankConfig, BankWidth, LaneSet, Op, WarpRequest};

/// How steps are formed inside a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheduler {
    /// Step `k` serves, in every bank group, the `k`-th distinct slot (in order of
    /// first appearance by lane) and every lane that needs it.
    Multicast,
    /// 1.x: step serves the lowest waiting lane's slot to every lane that needs it,
    /// plus the lowest waiting lane of each other bank.
    SingleWord,
}

/// log2 of Kepler's 256-byte segment (64 words of 4 bytes; Programming Guide
/// v4.2, F.5.3).
const KEPLER_SEGMENT_SHIFT: u32 = 8;

/// The rules resolved for one request: everything the inner loops need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    scheduler: Scheduler,
    /// Lanes per phase after any merge: 8, 16 or 32.
    phase_lanes: u32,
    /// Accesses split into this many 4-byte parts (1.x only), each scheduled alone.
    parts: u32,
    /// How a lane's address becomes its key.
    shape: Shape,
    /// 2.x 128-bit accesses cost one step more than their degree in every phase.
    extra_step: bool,
    /// Each step is taken this many times: 2 for `cas`, which costs twice
    /// the other atomics (measured on sm_90, tests/data/hw-corpus/sm90-atomics.jsonl).
    repeat: u32,
}

impl Plan {
    pub(crate) fn new(config: BankConfig, request: &WarpRequest) -> Plan {
        let op = request.op();
        let width = request.width();
        let rules = config.rules();
        let bank_bytes = config.bank_width().bytes();
        let row_bytes = config.bank_count() * bank_bytes;

        let mut phase_lanes = config.phase_lanes(op, width);
        if config.merges_paired_loads()
            && op == Op::Load
            && phase_lanes < WARP_SIZE as u32
            && pairs_share_addresses(request)
        {
            phase_lanes *= 2;
        }

        let parts = config.parts(width);
        // Atomics and cp.async count lanes, not distinct words: lanes on one
        // address are not merged (measured on sm_90, sections 2.1 to 2.3).
        let counts_lanes = matches!(op, Op::Atomic(_) | Op::Reduction(_) | Op::CpAsync(_));
        let key_bytes = match op {
            _ if counts_lanes => width.bytes().max(bank_bytes),
            _ if parts > 1 => 4,
            _ => width.bytes().max(bank_bytes),
        };
        let group_shift = key_bytes.trailing_zeros();
        let group_mask = row_bytes / key_bytes - 1;
        let slot_shift = match (op, config.bank_width(), rules) {
            _ if counts_lanes => None,
            // In four-byte mode a Kepler bank is still 64 bits wide: one read
            // delivers 32-bit words `i` and `i + 32` of a 256-byte segment, so
            // the segment is the slot.
            (_, BankWidth::FourBytes, Rules::Kepler) => Some(KEPLER_SEGMENT_SHIFT),
            _ => Some(group_shift),
        };
        Plan {
            scheduler: match config.broadcast() {
                crate::Broadcast::SingleWord if !counts_lanes => Scheduler::SingleWord,
                _ => Scheduler::Multicast,
            },
            phase_lanes,
            parts,
            shape: Shape {
                group_shift,
                group_mask,
                slot_shift,
                // Where the slot is the key's address, its low bits name the
                // group and only the bits above vary within one.
                filter_shift: if slot_shift == Some(group_shift) {
                    (group_mask + 1).trailing_zeros()
                } else {
                    0
                },
            },
            extra_step: rules == Rules::Fermi
                && width == AccessWidth::B16
                && matches!(op, Op::Load | Op::Store),
            repeat: if matches!(op.atomic(), Some(crate::AtomicKind::Cas)) {
                2
            } else {
                1
            },
        }
    }

    /// The phases' lane sets, in the order served.
    fn phases(&self) -> impl Iterator<Item = LaneSet> {
        let size = self.phase_lanes;
        (0..WARP_SIZE as u32 / size).map(move |i| LaneSet::range(i * size, (i + 1) * size))
    }
}

/// The load-merge condition measured on sm_90: every pair of active lanes
/// `(n, n ^ 1)`, or every pair `(n, n ^ 2)`, has one address. Pairs with an
/// inactive lane do not count against it.
fn pairs_share_addresses(request: &WarpRequest) -> bool {
    let active = request.active();
    if active.is_empty() {
        return false;
    }
    let addresses = request.raw_addresses();
    [1usize, 2].iter().any(|&x| {
        (0..WARP_SIZE).all(|n| {
            let bits = active.bits();
            let both = bits >> n & 1 == 1 && bits >> (n ^ x) & 1 == 1;
            !both || addresses[n] == addresses[n ^ x]
        })
    })
}

/// Where a phase's steps go: its index and its part (1.x wide accesses).
#[derive(Debug, Clone, Copy)]
struct At {
    phase: u8,
    part: u8,
}

/// One 4-byte word per lane, 32 banks of 4 bytes: accesses of up to 4 bytes.
const WORD_KEYS: Shape = Shape::keyed_by_address(2, 31);
/// Two words per lane in 16 pairs of banks: 8-byte accesses.
const DOUBLE_WORD_KEYS: Shape = Shape::keyed_by_address(3, 15);
/// Four words per lane in 8 quads of banks: 16-byte accesses and matrix rows.
const QUAD_WORD_KEYS: Shape = Shape::keyed_by_address(4, 7);

/// The word path ([`Path::Word`](super::types::Path::Word)): one phase of 32
/// lanes keyed by word. Full warps at evenly spaced words take the closed
/// form; the rest, the scalar scheduler. (`Plan::new` would give the same
/// shape; the tests compare the two.)
#[inline(always)]
pub(super) fn word<S: Sink>(request: &WarpRequest, sink: &mut S) -> Totals {
    let lanes = request.active();
    if lanes.is_empty() {
        return Totals::default();
    }
    let addresses = request.raw_addresses();
    let affine = if lanes.bits() == u32::MAX {
        Affine::of(addresses).and_then(|affine| affine.ways(2, 32))
    } else {
        None
    };
    let steps = match affine {
        Some(ways) => {
            if S::STEPS {
                for lanes in affine::steps(32, ways) {
                    sink.step(0, 0, LaneSet::from_bits(lanes));
                }
            }
            ways
        }
        None => multicast_keys(
            &mut Tally::new(),
            WORD_KEYS,
            addresses,
            0,
            lanes,
            At { phase: 0, part: 0 },
            sink,
        ),
    };
    Totals {
        wavefronts: steps,
        ideal: 1,
        ways: steps,
        ..Totals::ZERO
    }
}

/// The planner's path ([`Path::Planned`](super::types::Path::Planned)):
/// every rule resolved by [`Plan::new`].
pub(super) fn planned<S: Sink>(config: BankConfig, request: &WarpRequest, sink: &mut S) -> Totals {
    let plan = Plan::new(config, request);
    let mut tally = Tally::new();
    let mut totals = Totals::default();
    let active = request.active();
    for part in 0..plan.parts {
        for (phase, phase_set) in plan.phases().enumerate() {
            let lanes = phase_set.intersection(active);
            if lanes.is_empty() {
                continue;
            }
            let (phase, part8) = (phase as u8, part as u8);
            let at = At { phase, part: part8 };
            let mut steps = match plan.scheduler {
                Scheduler::Multicast if plan.repeat > 1 => {
                    let repeat = &mut Repeat(&mut *sink, plan.repeat);
                    let addresses = request.raw_addresses();
                    plan.repeat
                        * multicast(&mut tally, &plan, addresses, 4 * part, lanes, at, repeat)
                }
                Scheduler::Multicast => multicast(
                    &mut tally,
                    &plan,
                    request.raw_addresses(),
                    4 * part,
                    lanes,
                    at,
                    sink,
                ),
                Scheduler::SingleWord => {
                    let keys = Keys::new(&plan, request, part, lanes);
                    single_word(&keys, phase, part8, sink)
                }
            };
            if plan.extra_step {
                sink.step(phase, part8, LaneSet::EMPTY);
                steps += 1;
            }
            totals.ideal += plan.repeat;
            totals.wavefronts += steps;
            totals.ways = totals.ways.max(steps);
        }
    }
    totals
}

/// Loads and stores of 8 or 16 bytes on 5.0 and later
/// ([`Path::Wide`](super::types::Path::Wide)), keyed by `DOUBLE_WORD_KEYS` or
/// `QUAD_WORD_KEYS`: what `Plan::new` would resolve, with the key shape
/// constant. Evenly spaced full warps take the closed form.
///
/// `vector` is a faster scheduler of the phases, given by the caller (the
/// vectorised one, where the CPU has it): `None` from it falls back to the
/// scalar scheduler.
#[inline(always)]
pub(super) fn wide<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    sink: &mut S,
    vector: impl FnOnce(&[u32; WARP_SIZE], u32, Phases, &mut S) -> Option<Totals>,
) -> Totals {
    let shape = if request.width() == AccessWidth::B8 {
        DOUBLE_WORD_KEYS
    } else {
        QUAD_WORD_KEYS
    };
    let active = request.active();
    let addresses = request.raw_addresses();
    // One phase is a lane per bank group: 16 lanes of 8 bytes, 8 of 16.
    let groups = shape.group_mask + 1;
    let affine = if active.bits() == u32::MAX {
        // A broadcast may merge phases (below); the closed form has none.
        Affine::of(addresses)
            .filter(|affine| !affine.is_broadcast())
            .and_then(|affine| affine.ways(shape.group_shift, groups))
    } else {
        None
    };
    if let Some(ways) = affine {
        let phases = WARP_SIZE as u32 / groups;
        if S::STEPS {
            for phase in 0..phases {
                for lanes in affine::steps(groups, ways) {
                    sink.step(
                        phase as u8,
                        0,
                        LaneSet::from_bits(lanes << (phase * groups)),
                    );
                }
            }
        }
        return Totals {
            wavefronts: phases * ways,
            ideal: phases,
            ways,
            ..Totals::ZERO
        };
    }
    let mut phase_lanes = groups;
    if config.merges_paired_loads() && request.op() == Op::Load && pairs_share_addresses(request) {
        phase_lanes *= 2;
    }
    let keyed = Phases {
        key_shift: shape.group_shift,
        group_bits: groups.trailing_zeros(),
        phase_bits: phase_lanes.trailing_zeros(),
        merge: true,
        repeat: 1,
    };
    if let Some(totals) = vector(addresses, active.bits(), keyed, sink) {
        return totals;
    }
    phases(shape, addresses, active, phase_lanes, sink)
}

/// The lane-counting path ([`Path::Lanes`](super::types::Path::Lanes)):
/// native 32-bit `ATOMS` (and `red`, and 64-bit `exch`/`cas`) and `cp.async`.
/// Every active lane is served on its own, so step `k` of a phase serves the
/// `k`-th active lane of each bank group, and a phase costs the most active
/// lanes in one group (`cas` twice that).
///
/// Source: measured on sm_90 (tests/data/hw-corpus/sm90-atomics.jsonl: native
/// 32-bit atomics cost the largest number of active lanes in one bank,
/// same-address lanes not merged, `cas` twice; 64-bit `exch`/`cas` two
/// half-warp phases keyed by 8-byte bank pair; tests/data/hw-corpus/sm90-cp-async.jsonl
/// for `cp.async`); on other capabilities the phases are
/// [`BankConfig::phase_lanes`]'s modelling choice. `Plan::new` resolves the
/// same rule, and the tests compare the two on every capability.
///
/// `vector` is a faster scheduler given by the caller (the vectorised one,
/// where the CPU has it): `None` from it runs the scalar one.
#[inline(always)]
pub(super) fn lanes<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    sink: &mut S,
    vector: impl FnOnce(&[u32; WARP_SIZE], u32, Phases, &mut S) -> Option<Totals>,
) -> Totals {
    let active = request.active().bits();
    if active == 0 {
        return Totals::default();
    }
    let phases = Phases::of_lanes(config, request);
    let addresses = request.raw_addresses();
    if let Some(totals) = vector(addresses, active, phases, sink) {
        return totals;
    }
    lanes_scalar(addresses, active, phases, sink)
}

/// [`lanes`] one lane at a time: each lane's step is the number of active
/// lanes of its group before it in its phase.
pub(super) fn lanes_scalar<S: Sink>(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    phases: Phases,
    sink: &mut S,
) -> Totals {
    let phase_lanes = 1u32 << phases.phase_bits;
    let group_mask = (1u32 << phases.group_bits) - 1;
    let repeat = phases.repeat;
    let mut totals = Totals::default();
    for phase in 0..WARP_SIZE as u32 / phase_lanes {
        let lanes = LaneSet::range(phase * phase_lanes, (phase + 1) * phase_lanes).bits() & active;
        if lanes == 0 {
            continue;
        }
        let mut count = [0u8; WARP_SIZE];
        let mut step_lanes = [0u32; WARP_SIZE];
        let mut rest = lanes;
        while rest != 0 {
            let lane = rest.trailing_zeros();
            rest &= rest - 1;
            let group = ((addresses[lane as usize] >> phases.key_shift) & group_mask) as usize;
            let rank = count[group];
            count[group] = rank + 1;
            if S::STEPS {
                step_lanes[rank as usize] |= 1 << lane;
            }
        }
        let steps = u32::from(count.iter().copied().max().unwrap_or(0));
        if S::STEPS {
            for &lanes in &step_lanes[..steps as usize] {
                for _ in 0..repeat {
                    sink.step(phase as u8, 0, LaneSet::from_bits(lanes));
                }
            }
        }
        totals.ideal += repeat;
        totals.wavefronts += repeat * steps;
        totals.ways = totals.ways.max(repeat * steps);
    }
    totals
}

/// The multicast schedule of `active` in phases of `phase_lanes` lanes.
#[inline(always)]
fn phases<S: Sink>(
    shape: Shape,
    addresses: &[u32; WARP_SIZE],
    active: LaneSet,
    phase_lanes: u32,
    sink: &mut S,
) -> Totals {
    let mut tally = Tally::new();
    let mut totals = Totals::default();
    for phase in 0..WARP_SIZE as u32 / phase_lanes {
        let lanes =
            LaneSet::range(phase * phase_lanes, (phase + 1) * phase_lanes).intersection(active);
        if lanes.is_empty() {
            continue;
        }
        let at = At {
            phase: phase as u8,
            part: 0,
        };
        let steps = multicast_keys(&mut tally, shape, addresses, 0, lanes, at, sink);
        tally.clear(shape);
        totals.ideal += 1;
        totals.wavefronts += steps;
        totals.ways = totals.ways.max(steps);
    }
    totals
}

/// The keys of one phase's active lanes, in lane order (for the 1.x scheduler).
struct Keys {
    len: usize,
    lanes: [u8; WARP_SIZE],
    groups: [u32; WARP_SIZE],
    slots: [u32; WARP_SIZE],
}

impl Keys {
    #[inline]
    fn new(plan: &Plan, request: &WarpRequest, part: u32, lanes: LaneSet) -> Keys {
        let addresses = request.raw_addresses();
        let mut keys = Keys {
            len: 0,
            lanes: [0; WARP_SIZE],
            groups: [0; WARP_SIZE],
            slots: [0; WARP_SIZE],
        };
        let mut bits = lanes.bits();
        while bits != 0 {
            let lane = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            // Parts are the 4-byte pieces of a wide 1.x access; no overflow, since
            // the request was checked against the shared window.
            let address = addresses[lane] + 4 * part;
            let i = keys.len;
            let (group, slot) = plan.shape.key(lane, address);
            keys.lanes[i] = lane as u8;
            keys.groups[i] = group as u32;
            keys.slots[i] = slot;
            keys.len += 1;
        }
        keys
    }

    #[inline]
    fn same(&self, i: usize, j: usize) -> bool {
        self.groups[i] == self.groups[j] && self.slots[i] == self.slots[j]
    }
}

/// Step `k` serves the `k`-th distinct slot of every group. Returns the step count.
///
/// The common key shapes (a slot that is the key's address, 4, 8 or 16 bytes
/// wide, in 32 banks of 4 bytes) get their own copy of the loop, with the shifts
/// and masks as constants.
#[inline]
fn multicast<S: Sink>(
    tally: &mut Tally,
    plan: &Plan,
    addresses: &[u32; WARP_SIZE],
    offset: u32,
    lanes: LaneSet,
    at: At,
    sink: &mut S,
) -> u32 {
    let mut run = |shape: Shape, sink: &mut S| {
        let steps = multicast_keys(tally, shape, addresses, offset, lanes, at, sink);
        tally.clear(shape);
        steps
    };
    // The common shapes get their own copy of the loop, shifts and masks constant.
    match plan.shape {
        WORD_KEYS => run(WORD_KEYS, sink),
        DOUBLE_WORD_KEYS => run(DOUBLE_WORD_KEYS, sink),
        QUAD_WORD_KEYS => run(QUAD_WORD_KEYS, sink),
        other => run(other, sink),
    }
}

/// How a lane's address becomes its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    /// log2 of the bytes one key covers: addresses `>> group_shift` name a bank group.
    group_shift: u32,
    /// Bank groups - 1.
    group_mask: u32,
    /// Addresses `>> slot_shift` name the slot; `None`: the slot is the lane (atomics).
    slot_shift: Option<u32>,
    /// Slots `>> filter_shift` vary within a bank group: the bits that feed the
    /// multicast scheduler's filter of slots already seen.
    filter_shift: u32,
}

impl Shape {
    /// Keys of `1 << shift` bytes in `mask + 1` groups, the slot being the key's
    /// address.
    const fn keyed_by_address(shift: u32, mask: u32) -> Shape {
        Shape {
            group_shift: shift,
            group_mask: mask,
            slot_shift: Some(shift),
            filter_shift: (mask + 1).trailing_zeros(),
        }
    }

    /// The (group, slot) of `lane` at `address`.
    #[inline(always)]
    fn key(self, lane: usize, address: u32) -> (usize, u32) {
        let group = ((address >> self.group_shift) & self.group_mask) as usize;
        let slot = match self.slot_shift {
            Some(shift) => address >> shift,
            None => lane as u32,
        };
        (group, slot)
    }
}

/// What the multicast scheduler keeps while it visits a phase's lanes.
struct Tally {
    /// Per group: a 64-bit filter of the slots seen so far. A clear bit proves
    /// a slot new, so the exact search for an earlier lane with the same key
    /// runs only when the bit is set: regular strides never set a bit twice for
    /// different slots, and a broadcast finds its match at the first lane.
    seen: [u64; WARP_SIZE],
    /// Per group: distinct slots so far.
    distinct: [u8; WARP_SIZE],
    /// Per lane: its step (partitions only).
    rank: [u8; WARP_SIZE],
    /// Per step: its lanes (partitions only).
    step_lanes: [u32; WARP_SIZE],
}

impl Tally {
    fn new() -> Tally {
        Tally {
            seen: [0; WARP_SIZE],
            distinct: [0; WARP_SIZE],
            rank: [0; WARP_SIZE],
            step_lanes: [0; WARP_SIZE],
        }
    }

    /// Readies the tally for the next phase after one keyed by `shape`.
    ///
    /// Only the shape's groups were written (`step_lanes` is cleared as the
    /// steps are reported, and `rank` is read only for lanes of the phase that
    /// wrote it): clearing those, not the whole tally, is what lets a
    /// quarter-warp phase cost a quarter.
    #[inline(always)]
    fn clear(&mut self, shape: Shape) {
        let groups = shape.group_mask as usize + 1;
        self.seen[..groups].fill(0);
        self.distinct[..groups].fill(0);
    }

    #[inline(always)]
    fn visit(
        &mut self,
        shape: Shape,
        addresses: &[u32; WARP_SIZE],
        offset: u32,
        all: u32,
        lane: usize,
        steps: bool,
    ) {
        let (group, slot) = shape.key(lane, addresses[lane] + offset);
        let bit = 1u64 << ((slot >> shape.filter_shift) & 63);
        let before = self.seen[group];
        self.seen[group] = before | bit;
        if before & bit != 0 {
            let mut earlier = all & ((1u32 << lane) - 1);
            while earlier != 0 {
                let j = earlier.trailing_zeros() as usize;
                earlier &= earlier - 1;
                if shape.key(j, addresses[j] + offset) == (group, slot) {
                    if steps {
                        let r = self.rank[j];
                        self.rank[lane] = r;
                        self.step_lanes[r as usize] |= 1 << lane;
                    }
                    return;
                }
            }
        }
        let r = self.distinct[group];
        self.distinct[group] = r + 1;
        if steps {
            self.rank[lane] = r;
            self.step_lanes[r as usize] |= 1 << lane;
        }
    }
}

/// Schedules one phase's `lanes` by the multicast rule. Returns the step
/// count; call [`Tally::clear`] before the next phase.
#[inline(always)]
fn multicast_keys<S: Sink>(
    tally: &mut Tally,
    shape: Shape,
    addresses: &[u32; WARP_SIZE],
    offset: u32,
    lanes: LaneSet,
    at: At,
    sink: &mut S,
) -> u32 {
    let all = lanes.bits();
    // A full warp, the usual case, takes a loop of fixed length.
    if all == u32::MAX {
        for lane in 0..WARP_SIZE {
            tally.visit(shape, addresses, offset, all, lane, S::STEPS);
        }
    } else {
        let mut rest = all;
        while rest != 0 {
            let lane = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            tally.visit(shape, addresses, offset, all, lane, S::STEPS);
        }
    }
    // The busiest group's count, taken once rather than lane by lane.
    let groups = shape.group_mask as usize + 1;
    let steps = tally.distinct[..groups].iter().copied().max().unwrap_or(0);
    if S::STEPS {
        for lanes in &mut tally.step_lanes[..steps as usize] {
            sink.step(at.phase, at.part, LaneSet::from_bits(*lanes));
            *lanes = 0;
        }
    }
    u32::from(steps)
}

/// 1.x: each step broadcasts the lowest waiting lane's word and serves the lowest
/// waiting lane of every other bank. Returns the step count.
fn single_word<S: Sink>(keys: &Keys, phase: u8, part: u8, sink: &mut S) -> u32 {
    let mut waiting: u32 = if keys.len == WARP_SIZE {
        u32::MAX
    } else {
        (1 << keys.len) - 1
    };
    let mut steps = 0;
    while waiting != 0 {
        let first = waiting.trailing_zeros() as usize;
        let mut served = 0u32;
        let mut banks_used = 1u32 << keys.groups[first];
        for i in (0..keys.len).filter(|&i| waiting >> i & 1 == 1) {
            let bank = 1u32 << keys.groups[i];
            if keys.same(i, first) {
                served |= 1 << i;
            } else if banks_used & bank == 0 {
                banks_used |= bank;
                served |= 1 << i;
            }
        }
        waiting &= !served;
        steps += 1;
        if S::STEPS {
            let lanes = (0..keys.len)
                .filter(|&i| served >> i & 1 == 1)
                .fold(0u32, |acc, i| acc | 1 << keys.lanes[i]);
            sink.step(phase, part, LaneSet::from_bits(lanes));
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::super::types::{Count, Path};
    use super::*;
    use crate::ComputeCapability;

    /// The word and wide paths skip the planner for loads and stores of up to
    /// 4 bytes on 2.x and 5.0+, and of 8 and 16 bytes on 5.0+ (`Path::of`
    /// picks them); the planner must agree with
    /// the shortcuts everywhere they are taken.
    #[test]
    fn the_shortcuts_are_what_the_planner_would_do() {
        for cc in ComputeCapability::ALL {
            let config = BankConfig::new(cc);
            let rules = config.rules();
            for op in [Op::Load, Op::Store] {
                for width in [1, 2, 4, 8, 16] {
                    let (shape, lanes) = match width {
                        1 | 2 | 4
                            if matches!(rules, Rules::Fermi | Rules::Maxwell | Rules::Measured) =>
                        {
                            (WORD_KEYS, 32)
                        }
                        8 if matches!(rules, Rules::Maxwell | Rules::Measured) => {
                            (DOUBLE_WORD_KEYS, 16)
                        }
                        16 if matches!(rules, Rules::Maxwell | Rules::Measured) => {
                            (QUAD_WORD_KEYS, 8)
                        }
                        _ => continue,
                    };
                    // Distinct addresses: no merge of paired loads.
                    let request =
                        WarpRequest::from_fn(op, width, |l| Some(l.get() * width)).unwrap();
                    let plan = Plan::new(config, &request);
                    assert_eq!(plan.shape, shape, "{cc} {op} {width}");
                    assert_eq!(shape.group_mask + 1, lanes);
                    assert_eq!(
                        (plan.phase_lanes, plan.parts, plan.extra_step),
                        (lanes, 1, false),
                        "{cc} {op} {width}"
                    );
                    assert_eq!(plan.scheduler, Scheduler::Multicast);
                    let (path, fast) = if lanes == 32 {
                        (Path::Word, word(&request, &mut Count))
                    } else {
                        let fast = wide(config, &request, &mut Count, |_, _, _, _| None);
                        (Path::Wide, fast)
                    };
                    assert_eq!(Path::of(config, &request), path, "{cc} {op} {width}");
                    assert_eq!(planned(config, &request, &mut Count), fast);
                }
            }
        }
    }

    /// A xorshift generator: the tests' warps, the same on every run.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The most distinct words in one bank, by brute force.
    fn brute_force(addresses: &[u32; WARP_SIZE], active: u32) -> u32 {
        (0..32)
            .map(|bank| {
                let mut words: Vec<u32> = (0..WARP_SIZE)
                    .filter(|&l| active >> l & 1 == 1)
                    .map(|l| addresses[l] >> 2)
                    .filter(|w| w % 32 == bank)
                    .collect();
                words.sort_unstable();
                words.dedup();
                words.len() as u32
            })
            .max()
            .unwrap()
    }

    /// The scalar scheduler, the vectorised count (where this CPU has it) and
    /// the closed form (where it applies) agree with brute force on warps
    /// drawn from small and large address ranges, full and partial.
    #[test]
    fn every_word_path_agrees_with_brute_force() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for n in 0..20_000 {
            // The vectorised count takes addresses below 2^18.
            let range = [8u64, 128, 1024, 4096, 1 << 18, 1 << 32][n % 6];
            let mut addresses: [u32; WARP_SIZE] =
                std::array::from_fn(|_| (next() % range) as u32 & !3);
            if n % 5 == 0 {
                // Arithmetic sequences, wrapping ones included.
                let base = next() as u32 & if n % 4 == 0 { 0x3_fffc } else { !3 };
                let stride = (next() % 512) as u32 * 4;
                let stride = if n % 10 == 0 {
                    stride.wrapping_neg()
                } else {
                    stride
                };
                addresses =
                    std::array::from_fn(|i| base.wrapping_add(stride.wrapping_mul(i as u32)));
            }
            let active = if n % 3 == 0 {
                u32::MAX
            } else {
                next() as u32 | 1 << (n % 32)
            };
            let expected = brute_force(&addresses, active);
            let lanes = LaneSet::from_bits(active);
            let scalar = multicast_keys(
                &mut Tally::new(),
                WORD_KEYS,
                &addresses,
                0,
                lanes,
                At { phase: 0, part: 0 },
                &mut Count,
            );
            assert_eq!(scalar, expected, "{addresses:?} {active:#x}");
            if let Some(ways) = vector_ways(&addresses, active) {
                assert_eq!(ways, expected, "{addresses:?} {active:#x}");
            }
            if let Some(ways) = Affine::of(&addresses)
                .filter(|_| active == u32::MAX)
                .and_then(|affine| affine.ways(2, 32))
            {
                assert_eq!(ways, expected, "{addresses:?}");
            }
        }
    }

    /// Records every step, for comparing schedulers.
    #[cfg(target_arch = "x86_64")]
    #[derive(Default)]
    struct Steps(Vec<(u8, u8, u32)>);

    #[cfg(target_arch = "x86_64")]
    impl Sink for Steps {
        const STEPS: bool = true;
        fn step(&mut self, phase: u8, part: u8, lanes: LaneSet) {
            self.0.push((phase, part, lanes.bits()));
        }
    }

    /// The vectorised quarter-warp scheduler (where this CPU has it) reports
    /// the same steps and totals as the scalar one, on warps of 16-byte keys
    /// drawn from small ranges (shared quad words, crowded groups) and large
    /// ones, full and partial.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn quarter_warp_schedulers_agree() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut compared = 0;
        for n in 0..20_000 {
            let range = [32u64, 128, 512, 4096, 1 << 18][n % 5];
            let addresses: [u32; WARP_SIZE] =
                std::array::from_fn(|_| (next() % range) as u32 & !15);
            let active = match n % 4 {
                0 => u32::MAX,
                1 => next() as u32,
                2 => next() as u32 & 0x00ff_ff00,
                _ => 1 << (n % 32),
            };
            let lanes = LaneSet::from_bits(active);
            let mut scalar = Steps::default();
            let expected = phases(QUAD_WORD_KEYS, &addresses, lanes, 8, &mut scalar);
            let mut vector = Steps::default();
            if let Some(totals) = super::super::simd::quarter_warps(&addresses, active, &mut vector)
            {
                assert_eq!(totals, expected, "{addresses:?} {active:#x}");
                assert_eq!(vector.0, scalar.0, "{addresses:?} {active:#x}");
                let counted = super::super::simd::quarter_warps(&addresses, active, &mut Count);
                assert_eq!(counted, Some(expected));
                compared += 1;
            }
        }
        // Every warp where the CPU has AVX2 (this one's addresses are all below 2^18).
        let expected = if super::super::simd::available() {
            20_000
        } else {
            0
        };
        assert_eq!(compared, expected);
    }

    /// The vectorised phase scheduler (where this CPU has it) reports the same
    /// steps and totals as the scalar ones, counting and recording: lanes on
    /// their own (atomics, cp.async: every shape the lane-counting path
    /// takes, `cas`'s repeat included) against [`lanes_scalar`], merged keys
    /// (8-byte half-warps, merged 8- and 16-byte phases) against the
    /// multicast scheduler; warps from small ranges (shared keys, crowded
    /// groups) and large ones, full and partial.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn phase_schedulers_agree() {
        let mut next = xorshift(0x3c6e_f372_fe94_f82bu64);
        // (key_shift, group_bits, phase_bits, merge, repeat)
        let shapes = [
            (2, 5, 5, false, 1),
            (2, 5, 5, false, 2),
            (3, 5, 5, false, 1),
            (2, 4, 4, false, 1),
            (3, 4, 4, false, 2),
            (4, 3, 3, false, 1),
            (3, 4, 4, true, 1),
            (3, 4, 5, true, 1),
            (4, 3, 4, true, 1),
        ];
        let (mut compared, mut empty) = (0, 0);
        for n in 0..30_000 {
            let (key_shift, group_bits, phase_bits, merge, repeat) = shapes[n % shapes.len()];
            let keyed = Phases {
                key_shift,
                group_bits,
                phase_bits,
                merge,
                repeat,
            };
            // The largest range is the largest window (228 KB).
            let range = [32u64, 128, 512, 4096, 228 << 10][n / 9 % 5];
            let mut addresses: [u32; WARP_SIZE] =
                std::array::from_fn(|_| (next() % range) as u32 >> key_shift << key_shift);
            if n % 11 == 0 {
                // Lane pairs on one key (what merges a load's phases).
                addresses = std::array::from_fn(|i| addresses[i & !1]);
            }
            let active = match n / 3 % 4 {
                0 => u32::MAX,
                1 => next() as u32 | 1,
                2 => next() as u32 & 0x00ff_ff00,
                _ => 1 << (n % 32),
            };
            if active == 0 {
                empty += 1;
                continue;
            }
            let mut scalar = Steps::default();
            let expected = if merge {
                let shape = Shape::keyed_by_address(key_shift, (1 << group_bits) - 1);
                phases(
                    shape,
                    &addresses,
                    LaneSet::from_bits(active),
                    1 << phase_bits,
                    &mut scalar,
                )
            } else {
                lanes_scalar(&addresses, active, keyed, &mut scalar)
            };
            let mut vector = Steps::default();
            if let Some(totals) = super::super::simd::phases(&addresses, active, keyed, &mut vector)
            {
                assert_eq!(totals, expected, "{keyed:?} {addresses:?} {active:#x}");
                assert_eq!(vector.0, scalar.0, "{keyed:?} {addresses:?} {active:#x}");
                let counted = super::super::simd::phases(&addresses, active, keyed, &mut Count);
                assert_eq!(
                    counted,
                    Some(expected),
                    "{keyed:?} {addresses:?} {active:#x}"
                );
                compared += 1;
            }
        }
        // Every warp with a lane where the CPU has AVX2 (addresses inside the
        // largest window, every shape fits).
        let expected = if super::super::simd::available() {
            30_000 - empty
        } else {
            0
        };
        assert_eq!(compared, expected);
    }

    /// The vectorised word scheduler (where this CPU has it) reports the same
    /// steps as the scalar one, on warps drawn from small ranges (shared
    /// words, crowded banks) and large ones, full and partial, inactive lanes
    /// below the first active one included.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn word_schedulers_agree() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let mut compared = 0;
        for n in 0..20_000 {
            let range = [8u64, 64, 256, 1024, 4096, 1 << 18][n % 6];
            let mut addresses: [u32; WARP_SIZE] =
                std::array::from_fn(|_| (next() % range) as u32 & !3);
            if n % 7 == 0 {
                // Serial: one bank, rows shuffled.
                let rows = next();
                addresses = std::array::from_fn(|i| ((rows >> (i % 8)) as u32 % 64) * 128);
            }
            let active = match n % 4 {
                0 => u32::MAX,
                1 => next() as u32 | 1 << (n % 32),
                2 => (next() as u32) & 0xffff_0000 | 1 << 31,
                _ => 1 << (n % 32),
            };
            let lanes = LaneSet::from_bits(active);
            let mut scalar = Steps::default();
            let at = At { phase: 0, part: 0 };
            let expected = multicast_keys(
                &mut Tally::new(),
                WORD_KEYS,
                &addresses,
                0,
                lanes,
                at,
                &mut scalar,
            );
            let mut vector = Steps::default();
            if let Some(steps) = super::super::simd::word_steps(&addresses, active, &mut vector) {
                assert_eq!(steps, expected, "{addresses:?} {active:#x}");
                assert_eq!(vector.0, scalar.0, "{addresses:?} {active:#x}");
                compared += 1;
            }
        }
        // Every warp where the CPU has AVX2 (this one's addresses are all below 2^18).
        let expected = if super::super::simd::available() {
            20_000
        } else {
            0
        };
        assert_eq!(compared, expected);
    }

    /// The vectorised count, where this CPU has it.
    fn vector_ways(addresses: &[u32; WARP_SIZE], active: u32) -> Option<u32> {
        #[cfg(target_arch = "x86_64")]
        return super::super::simd::word_ways(addresses, active, u32::MAX);
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (addresses, active);
            None
        }
    }

    /// The vectorised count is taken exactly where the CPU has AVX2 (so the
    /// test above exercised it here) and every address is below 2^18; it gives
    /// 32 for a serial warp whose rows run backwards, and leaves the exact
    /// window check to `validate` when the OR of the addresses passes the limit.
    #[test]
    fn the_vectorised_path_runs_where_the_cpu_has_it() {
        let serial: [u32; WARP_SIZE] = std::array::from_fn(|i| 128 * (31 - i as u32));
        #[cfg(target_arch = "x86_64")]
        {
            let has = super::super::simd::available();
            assert_eq!(vector_ways(&serial, u32::MAX), has.then_some(32));
            assert_eq!(
                super::super::simd::word_ways(&serial, u32::MAX, 128 * 31 - 1),
                None
            );
            let mut high = serial;
            high[7] = 1 << 18;
            assert_eq!(vector_ways(&high, u32::MAX), None);
            assert_eq!(vector_ways(&high, !(1 << 7)), None);
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(vector_ways(&serial, u32::MAX), None);
    }
}
