//! nvcc's compare-and-swap loop for the shared atomics sm_90 lacks in
//! hardware (tests/data/hw-corpus/sm90-atomics.jsonl, measured on sm_90 for `add.f32` and
//! 64-bit `add`; the other emulated kinds follow the same rule as a modelling
//! choice, see [`Op::is_cas_loop`](crate::Op::is_cas_loop)).
//!
//! Each round, the lanes still pending load their word (an ordinary load of
//! those lanes, under the capability's load rules) and try an
//! `ATOMS.CAST.SPIN`. In each phase (the warp at 4 bytes, half-warps at 8) the
//! lowest pending lane of each bank group tries; a try fails when a lane of an
//! earlier phase that succeeded this round has the same address. Each phase
//! with pending lanes costs 2 ATOMS wavefronts. Rounds are the ATOMS
//! instructions executed. The lowest pending lane always succeeds, so a warp
//! needs at most 32 rounds.
//!
//! Two implementations: [`run`], the slow one that reads as the rule does
//! (each round builds the pending lanes' load and has it scheduled), and
//! [`direct`], which counts the same totals and reports the same steps in
//! O(rounds + lanes) without scheduling a load, for the capabilities whose
//! load rules it knows (2.x and from 5.0 on). The property tests compare the
//! two on every capability (tests/properties.rs, and the tests below).
//!
//! A leaf: the caller gives the loads' cost and the lanes' key classes, and
//! it calls nothing above.

use super::types::{Sink, Totals};
use crate::bank::Rules;
use crate::lane::WARP_SIZE;
use crate::{BankConfig, LaneSet, Op, WarpRequest};

/// ATOMS wavefronts of one phase's try (measured on sm_90).
const TRY_WAVEFRONTS: u32 = 2;

/// The loop's totals, the slow way: `wavefronts` are the ATOMS wavefronts, `loads` the LDS
/// wavefronts, `rounds` the ATOMS instructions; each try is reported to `sink`
/// as two steps serving the phase's pending lanes. `load_wavefronts` gives the
/// wavefronts of a load request under `config`.
pub(super) fn run<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    sink: &mut S,
    mut load_wavefronts: impl FnMut(&WarpRequest) -> u32,
) -> Totals {
    let width = request.width();
    let addresses = request.raw_addresses();
    let phase_lanes = config.phase_lanes(request.op(), width);
    let key_bytes = width.bytes().max(config.bank_width().bytes());
    let groups = config.bank_count() * config.bank_width().bytes() / key_bytes;
    let group = |lane: usize| (addresses[lane] / key_bytes) % groups;
    let mut pending = request.active().bits();
    let mut totals = Totals {
        rounds: 0,
        ..Totals::ZERO
    };
    while pending != 0 {
        let round = totals.rounds;
        if S::STEPS {
            sink.round(round as u8);
        }
        // The loads of the pending lanes.
        let load = WarpRequest::from_raw(Op::Load, width, LaneSet::from_bits(pending), addresses);
        totals.loads += load_wavefronts(&load);
        // The tries, phase by phase.
        let mut succeeded = 0u32;
        let mut phases_tried = 0;
        for phase in 0..WARP_SIZE as u32 / phase_lanes {
            let lanes = LaneSet::range(phase * phase_lanes, (phase + 1) * phase_lanes).bits();
            let trying = pending & lanes;
            if trying == 0 {
                continue;
            }
            phases_tried += 1;
            if S::STEPS {
                for _ in 0..TRY_WAVEFRONTS {
                    sink.step(phase as u8, 0, LaneSet::from_bits(trying));
                }
            }
            let mut taken = 0u64;
            let mut rest = trying;
            while rest != 0 {
                let lane = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let bit = 1u64 << group(lane);
                if taken & bit != 0 {
                    continue;
                }
                taken |= bit;
                // Fails when an earlier phase's winner wrote the same address.
                let mut earlier = succeeded;
                let mut clash = false;
                while earlier != 0 {
                    let other = earlier.trailing_zeros() as usize;
                    earlier &= earlier - 1;
                    clash |= addresses[other] == addresses[lane];
                }
                if !clash {
                    succeeded |= 1 << lane;
                }
            }
        }
        if round == 0 {
            totals.ideal = TRY_WAVEFRONTS * phases_tried;
        }
        totals.wavefronts += TRY_WAVEFRONTS * phases_tried;
        totals.rounds += 1;
        pending &= !succeeded;
    }
    totals.ways = totals.rounds;
    totals
}

/// Per-lane key classes: for each active lane, the first active lane with its
/// key (`address >> shift`); what `followers` gives where the CPU has it.
pub(super) type Classes = [u8; WARP_SIZE];

/// The loop's totals computed directly, reported to `sink` exactly as
/// [`run`] reports them, where the loads follow the rules it knows: 2.x and
/// from 5.0 on (four-byte banks, multicast loads in the tries' own phases,
/// keyed as the tries are, and sm_90's merged 8-byte loads). `None` (nothing
/// reported) elsewhere: Kepler's loads are keyed by 64-bit bank words and, at
/// 8 bytes, served by the whole warp, and 1.x has no loop at all; [`run`]
/// serves those.
///
/// Why it needs no load schedule: in each (phase, bank group) only the
/// lowest pending lane tries, so the pending lanes of each are always a tail
/// of its lanes in lane order, and an address is still loaded exactly while
/// its last lane in the phase is pending. A round's load is then, per phase,
/// the most of those last lanes still pending in one group (for sm_90's
/// merged 8-byte loads, per group over the warp, an address pending in both
/// halves counted once). A try fails only on an address an earlier phase's
/// winner took this round: one bit per key class. Each round visits only the
/// groups with pending lanes, and a group is visited once per round it has
/// any, so a loop costs O(rounds + lanes) bit operations where the reference
/// schedules a load each round.
///
/// `classes` gives, for each active lane, the first active lane with its
/// key (any value for inactive lanes).
#[inline(always)]
pub(super) fn direct<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    sink: &mut S,
    classes: impl FnOnce(&[u32; WARP_SIZE], u32, u32) -> Classes,
) -> Option<Totals> {
    let width = request.width();
    let bytes = width.bytes();
    let phase_lanes = config.phase_lanes(request.op(), width);
    let known = matches!(
        config.rules(),
        Rules::Fermi | Rules::Maxwell | Rules::Measured
    ) && config.bank_width().bytes() == 4
        && matches!(bytes, 4 | 8)
        && config.phase_lanes(Op::Load, width) == phase_lanes;
    if !known {
        return None;
    }
    let shift = bytes.trailing_zeros();
    let groups = config.bank_count() * 4 / bytes;
    let addresses = request.raw_addresses();
    let active = request.active().bits();
    // sm_90 serves an 8-byte load's half-warps together when its lanes pair
    // up on addresses (`Plan::new`'s rule): checked each round.
    let merges = config.merges_paired_loads() && phase_lanes < WARP_SIZE as u32;
    let phase_shift = phase_lanes.trailing_zeros();
    let phases = WARP_SIZE >> phase_shift;
    let class = classes(addresses, active, shift);

    // The pending lanes of each (phase, group), per phase the groups with
    // any; the last lane of each class in its phase (lanes taken from the
    // highest down, so the first of a class met is its last); for merged
    // loads, the last lane of each class in the lower half.
    let mut pending_in = [[0u32; WARP_SIZE]; 2];
    let mut busy = [0u32; 2];
    let mut last = 0u32;
    let mut seen = 0u64;
    let mut last_low = [0u8; WARP_SIZE];
    let mut rest = active;
    while rest != 0 {
        let lane = 31 - rest.leading_zeros() as usize;
        rest &= !(1 << lane);
        // Masked to what they are (phases below 2, groups below 32) so that
        // the indexing needs no bounds checks.
        let phase = (lane >> phase_shift) & 1;
        let group = ((addresses[lane] >> shift) & (groups - 1) & 31) as usize;
        pending_in[phase][group] |= 1 << lane;
        busy[phase] |= 1 << group;
        let c = usize::from(class[lane] & 31);
        let key = 1u64 << (c + WARP_SIZE * phase);
        if seen & key == 0 {
            seen |= key;
            last |= 1 << lane;
            last_low[c] = lane as u8;
        }
    }
    // The load of the first round, per phase; each round's tries give the
    // next round's.
    let mut load = [0u32; 2];
    for (phase, load) in load.iter_mut().enumerate().take(phases) {
        *load = most_last(&pending_in[phase], busy[phase], last);
    }
    let mut twin = [0u32; WARP_SIZE];
    let (mut same1, mut same2) = (0, 0);
    if merges {
        let mut upper = last & 0xffff_0000;
        while upper != 0 {
            let lane = upper.trailing_zeros() as usize;
            upper &= upper - 1;
            let c = usize::from(class[lane] & 31);
            // A class whose first lane is in the lower half has lanes there.
            if c < 16 {
                twin[lane] = 1 << last_low[c];
            }
        }
        // Pairs of lanes (n, n ^ 1) and (n, n ^ 2) on one address.
        let same = |x: usize| {
            (0..WARP_SIZE).fold(0u32, |same, lane| {
                same | u32::from(class[lane] == class[lane ^ x]) << lane
            })
        };
        (same1, same2) = (same(1), same(2));
    }

    let mut pending = active;
    let mut totals = Totals {
        rounds: 0,
        ..Totals::ZERO
    };
    if phases == 1 {
        // One phase (4 bytes): every try succeeds, so each round takes the
        // lowest pending lane of every busy group, with no class to check.
        while pending != 0 {
            if S::STEPS {
                sink.round(totals.rounds as u8);
                for _ in 0..TRY_WAVEFRONTS {
                    sink.step(0, 0, LaneSet::from_bits(pending));
                }
            }
            totals.loads += load[0];
            let mut next_load = 0;
            let mut groups_busy = busy[0];
            while groups_busy != 0 {
                let group = groups_busy.trailing_zeros() as usize;
                groups_busy &= groups_busy - 1;
                let lanes = &mut pending_in[0][group];
                pending &= !(*lanes & lanes.wrapping_neg());
                *lanes &= *lanes - 1;
                if *lanes == 0 {
                    busy[0] &= !(1 << group);
                }
                next_load = next_load.max((*lanes & last).count_ones());
            }
            load[0] = next_load;
            totals.wavefronts += TRY_WAVEFRONTS;
            totals.rounds += 1;
        }
        totals.ideal = TRY_WAVEFRONTS * u32::from(active != 0);
        totals.ways = totals.rounds;
        return Some(totals);
    }
    while pending != 0 {
        let round = totals.rounds;
        if S::STEPS {
            sink.round(round as u8);
        }
        totals.loads += if merges && paired(pending, same1, same2) {
            merged_load(&pending_in, busy[0] | busy[1], last, &twin)
        } else {
            load[0] + load[1]
        };
        let mut succeeded = 0u32;
        let mut winners = 0u32;
        let mut phases_tried = 0;
        for phase in 0..phases {
            let lanes = LaneSet::range(
                (phase << phase_shift) as u32,
                ((phase + 1) << phase_shift) as u32,
            );
            let trying = pending & lanes.bits();
            if trying == 0 {
                continue;
            }
            phases_tried += 1;
            if S::STEPS {
                for _ in 0..TRY_WAVEFRONTS {
                    sink.step(phase as u8, 0, LaneSet::from_bits(trying));
                }
            }
            // Every busy group is visited: the next round's load of the
            // phase is the most last lanes left pending in one of them.
            let mut next_load = 0;
            let mut groups_busy = busy[phase];
            while groups_busy != 0 {
                let group = groups_busy.trailing_zeros() as usize;
                groups_busy &= groups_busy - 1;
                let lanes = &mut pending_in[phase][group];
                let lane = lanes.trailing_zeros() as usize & 31;
                let c = 1 << (class[lane] & 31);
                // Lanes of one phase and class are in one group, so a winner
                // of the class is an earlier phase's (none in the first).
                if phase == 0 || winners & c == 0 {
                    winners |= c;
                    succeeded |= 1 << lane;
                    *lanes &= *lanes - 1;
                    if *lanes == 0 {
                        busy[phase] &= !(1 << group);
                    }
                }
                next_load = next_load.max((*lanes & last).count_ones());
            }
            load[phase] = next_load;
        }
        if round == 0 {
            totals.ideal = TRY_WAVEFRONTS * phases_tried;
        }
        totals.wavefronts += TRY_WAVEFRONTS * phases_tried;
        totals.rounds += 1;
        pending &= !succeeded;
    }
    totals.ways = totals.rounds;
    Some(totals)
}

/// A phase's load wavefronts: the most addresses pending in one of its
/// `busy` groups, each counted by its last lane.
#[inline(always)]
fn most_last(pending_in: &[u32; WARP_SIZE], mut busy: u32, last: u32) -> u32 {
    let mut most = 0;
    while busy != 0 {
        let group = busy.trailing_zeros() as usize;
        busy &= busy - 1;
        most = most.max((pending_in[group] & last).count_ones());
    }
    most
}

/// A merged 8-byte load's wavefronts: per group, the addresses pending in
/// either half, an upper-half address whose lower-half twin is pending
/// counted once.
#[inline(always)]
fn merged_load(
    pending_in: &[[u32; WARP_SIZE]; 2],
    mut busy: u32,
    last: u32,
    twin: &[u32; WARP_SIZE],
) -> u32 {
    let mut most = 0;
    while busy != 0 {
        let group = busy.trailing_zeros() as usize;
        busy &= busy - 1;
        let (low, high) = (pending_in[0][group], pending_in[1][group]);
        let mut distinct = (low & last).count_ones() + (high & last).count_ones();
        let mut upper = high & last;
        while upper != 0 {
            let lane = upper.trailing_zeros() as usize;
            upper &= upper - 1;
            distinct -= u32::from(twin[lane] & low != 0);
        }
        most = most.max(distinct);
    }
    most
}

/// [`Classes`] the scalar way, into `class` (which holds each lane's own
/// index): each active lane joins the class of the first earlier active lane
/// with its key.
pub(super) fn scalar_classes(
    class: &mut Classes,
    addresses: &[u32; WARP_SIZE],
    active: u32,
    shift: u32,
) {
    let mut rest = active;
    while rest != 0 {
        let lane = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let mut earlier = active & ((1u32 << lane) - 1);
        while earlier != 0 {
            let other = earlier.trailing_zeros() as usize;
            earlier &= earlier - 1;
            if addresses[other] >> shift == addresses[lane] >> shift {
                class[lane] = class[other];
                break;
            }
        }
    }
}

/// `Plan::new`'s load-merge condition on the pending lanes: every pair of
/// them `(n, n ^ 1)`, or every pair `(n, n ^ 2)`, on one address (`same1`,
/// `same2`: the lanes whose partner has their address).
#[inline(always)]
fn paired(pending: u32, same1: u32, same2: u32) -> bool {
    let partner1 = (pending & 0x5555_5555) << 1 | (pending >> 1) & 0x5555_5555;
    let partner2 = (pending & 0x3333_3333) << 2 | (pending >> 2) & 0x3333_3333;
    pending & partner1 & !same1 == 0 || pending & partner2 & !same2 == 0
}

/// ATOMS wavefronts of one round (one `ATOMS.CAST.SPIN`) whose pending lanes
/// are `request`'s active lanes: [`TRY_WAVEFRONTS`] for each phase with a
/// pending lane, as [`run`] counts each round.
pub(super) fn try_wavefronts(config: BankConfig, request: &WarpRequest) -> u32 {
    let phase_lanes = config.phase_lanes(request.op(), request.width());
    let pending = request.active().bits();
    let phases_tried = (0..WARP_SIZE as u32 / phase_lanes)
        .filter(|&phase| {
            pending & LaneSet::range(phase * phase_lanes, (phase + 1) * phase_lanes).bits() != 0
        })
        .count() as u32;
    TRY_WAVEFRONTS * phases_tried
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Lane;
    use crate::{AccessWidth, AtomicKind, ComputeCapability};

    /// What a sink is told: each round's steps as (round, phase, lanes).
    #[derive(Default, Debug, PartialEq, Eq)]
    struct Steps(Vec<(u8, u8, u32)>, u8);

    impl Sink for Steps {
        const STEPS: bool = true;
        fn step(&mut self, phase: u8, part: u8, lanes: LaneSet) {
            assert_eq!(part, 0);
            self.0.push((self.1, phase, lanes.bits()));
        }
        fn round(&mut self, round: u8) {
            self.1 = round;
        }
    }

    /// The slow loop, its loads scheduled by the crate's own dispatch.
    fn slow<S: Sink>(config: BankConfig, request: &WarpRequest, sink: &mut S) -> Totals {
        run(config, request, sink, |load| {
            config.wavefronts(load).expect("the loop's loads are valid")
        })
    }

    fn classes(addresses: &[u32; WARP_SIZE], active: u32, shift: u32) -> Classes {
        let mut class = core::array::from_fn(|lane| lane as u8);
        scalar_classes(&mut class, addresses, active, shift);
        class
    }

    /// `direct` against `run`: the same totals counted, the same steps
    /// reported, on the capabilities it answers for; `None` only for Kepler
    /// (1.x has no loop).
    fn agree(config: BankConfig, request: &WarpRequest) -> Result<(), String> {
        let Some(fast) = direct(config, request, &mut super::super::types::Count, classes) else {
            return if config.rules() == Rules::Kepler {
                Ok(())
            } else {
                Err(format!("no answer on {config:?}"))
            };
        };
        let slow_totals = slow(config, request, &mut super::super::types::Count);
        if fast != slow_totals {
            return Err(format!("counted {fast:?}, slow {slow_totals:?}"));
        }
        let (mut fast_steps, mut slow_steps) = (Steps::default(), Steps::default());
        let recorded = direct(config, request, &mut fast_steps, classes);
        slow(config, request, &mut slow_steps);
        if recorded != Some(fast) || fast_steps != slow_steps {
            return Err(format!("steps {fast_steps:?}, slow {slow_steps:?}"));
        }
        Ok(())
    }

    use crate::partition::tests::configs;

    /// Each lane's address, or `None` for an inactive lane.
    type Lanes = fn(u32) -> Option<u32>;

    fn request(kind: AtomicKind, width: u32, lane: impl Fn(u32) -> Option<u32>) -> WarpRequest {
        WarpRequest::from_fn(Op::Atomic(kind), width, |l: Lane| lane(l.get())).unwrap()
    }

    /// Named cases: every lane on one word (32 rounds, the 8-byte upper
    /// half failing behind the lower), the half-warps on one word each,
    /// pairs that merge sm_90's 8-byte loads in some rounds and not others,
    /// conflict-free and one-bank strides, inactive lanes, an empty warp.
    #[test]
    fn named_cases_agree() {
        let cases: [(AtomicKind, u32, Lanes); 13] = [
            (AtomicKind::AddF32, 4, |_| Some(256)),
            (AtomicKind::Add, 8, |_| Some(256)),
            (AtomicKind::Add, 8, |l| Some(8 * (l / 16))),
            (AtomicKind::Add, 8, |l| Some(8 * (l / 2))),
            (AtomicKind::Add, 8, |l| Some(128 * (l / 4) + 8 * (l % 2))),
            (AtomicKind::Add, 8, |l| Some(128 * (l % 3))),
            (AtomicKind::AddF32, 4, |l| Some(4 * l)),
            (AtomicKind::AddF32, 4, |l| Some(128 * l)),
            (AtomicKind::AddF32, 4, |l| Some((l * 13 + 7) % 32 * 128)),
            (AtomicKind::AddF32, 4, |l| {
                (l % 3 != 0).then_some(128 * (l % 5))
            }),
            (AtomicKind::AddF64, 8, |l| (l > 20).then_some(8 * (l % 4))),
            (AtomicKind::Max, 8, |l| Some(256 * (l % 2))),
            (AtomicKind::AddF32, 4, |_| None),
        ];
        for (kind, width, lane) in &cases {
            let request = request(*kind, *width, lane);
            for config in configs() {
                if config.check_access(request.op(), request.width()).is_err() {
                    continue;
                }
                if let Err(message) = agree(config, &request) {
                    panic!("{request:?} on {config:?}: {message}");
                }
            }
        }
    }

    #[test]
    fn one_word_for_the_whole_warp() {
        let sm90 = BankConfig::new(ComputeCapability::Sm90);
        // 32 rounds; each loads one word: 32 LDS and 64 ATOMS wavefronts
        // (DESIGN.md 2.2's example).
        let add = request(AtomicKind::AddF32, 4, |_| Some(0));
        let totals = direct(sm90, &add, &mut super::super::types::Count, classes).unwrap();
        assert_eq!(
            (totals.rounds, totals.loads, totals.wavefronts, totals.ideal),
            (32, 32, 64, 2)
        );
        // 64 bits: each round the lower half-warp's lowest lane wins and the
        // upper's fails on its address, until the lower half is done; the
        // pending lanes pair up, so the load merges to one wavefront.
        let add = request(AtomicKind::Add, 8, |_| Some(0));
        let totals = direct(sm90, &add, &mut super::super::types::Count, classes).unwrap();
        assert_eq!(
            (totals.rounds, totals.loads, totals.wavefronts),
            (32, 32, 96)
        );
        assert_eq!(add.width(), AccessWidth::B8);
    }

    #[cfg(feature = "proptest")]
    mod props {
        use proptest::prelude::*;
        use proptest::sample::select;

        use super::*;
        use crate::strategy::{config, request_with};

        /// A loop's op and width the configuration has.
        fn loop_request() -> impl Strategy<Value = (BankConfig, WarpRequest)> {
            let loops: Vec<(Op, AccessWidth)> = Op::ALL
                .iter()
                .flat_map(|&op| op.widths().iter().map(move |&width| (op, width)))
                .filter(|&(op, width)| op.is_cas_loop(width))
                .collect();
            (config(), select(loops))
                .prop_filter("the capability has the op", |(config, (op, width))| {
                    config.check_access(*op, *width).is_ok()
                })
                .prop_flat_map(|(config, (op, width))| {
                    (Just(config), request_with(config, op, width))
                })
        }

        /// Many lanes on few words: each lane on one of up to 4 elements
        /// (of a few bank rows, or of one bank), or inactive.
        fn crowded_request() -> impl Strategy<Value = (BankConfig, WarpRequest)> {
            let element = prop_oneof![0u32..96, (0u32..8).prop_map(|row| 32 * row)];
            let words = proptest::collection::vec(element, 1..5);
            (
                select(configs()),
                select(vec![(AtomicKind::AddF32, 4u32), (AtomicKind::Add, 8)]),
                words,
                proptest::array::uniform32(0usize..6),
            )
                .prop_filter(
                    "the capability has the op",
                    |(config, (kind, width), _, _)| {
                        config
                            .check_access(
                                Op::Atomic(*kind),
                                AccessWidth::from_bytes(*width).unwrap(),
                            )
                            .is_ok()
                    },
                )
                .prop_map(|(config, (kind, width), words, picks)| {
                    let request = WarpRequest::from_fn(Op::Atomic(kind), width, |lane| {
                        let pick = picks[lane.index()];
                        (pick < words.len()).then(|| width * words[pick])
                    })
                    .unwrap();
                    (config, request)
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            #[test]
            fn direct_matches_the_slow_loop((config, request) in loop_request()) {
                prop_assert_eq!(agree(config, &request), Ok(()));
            }

            #[test]
            fn direct_matches_the_slow_loop_on_crowded_words(
                (config, request) in crowded_request()
            ) {
                prop_assert_eq!(agree(config, &request), Ok(()));
            }
        }
    }
}
