//! `cp.async` in the block model against a deliberately naive reference, on
//! random programs that every warp runs: loads, stores, atomics and
//! `cp.async` copies, `cp.async.commit_group`, `cp.async.wait_group 0` or
//! `1` and `cp.async.mbarrier.arrive` by all lanes or some, `__syncwarp()`,
//! and `__syncthreads()` between intervals; pieces of the program run again
//! as a loop would, so a warp's copies to one word complete again and again
//! (DESIGN.md section 7; PTX ISA, cp.async.wait_group, completion mechanisms
//! for asynchronous copy operations).
//!
//! The reference, pair by pair and byte by byte: each lane's copy is issued
//! at its instruction and completes at its warp's first later wait that the
//! lane executes and that covers its group (never, if none does); a copy
//! whose lane executes a `cp.async.mbarrier.arrive` first completes there and
//! races with accesses of its own warp only, none after the arrive
//! (racecheck forgets it there: tests/data/ptx/mbarrier_sanitizer,
//! tests/data/ptx/async_sanitizer). Two
//! accesses of different instructions to one byte, at least one writing
//! (a copy writes), not both atomics:
//! - issued while the other is a copy still in flight (issued earlier in the
//!   warp's order and not yet complete, for the same warp; for other warps,
//!   issued in the copy's barrier interval up to the one it completes in):
//!   a warning within the copy's warp (the issuing thread's own included),
//!   an error between warps;
//! - else, between warps, an error when they are in one barrier interval
//!   (a copy counted at its completion);
//! - else, lanes of one warp (not the same lane): a warning unless a
//!   `__syncwarp()` or a barrier comes after the earlier one's completion
//!   and before the later one.

use proptest::prelude::*;
use smem_model::{
    Block, ComputeCapability, CpAsync, HazardKind, LaneSet, Op, Severity, SyncOp, WarpRequest,
};

mod cases;

/// One step of the program.
#[derive(Debug, Clone)]
enum Step {
    /// op, width, active lanes, per lane a word slot and byte, and how far
    /// each warp's addresses are shifted.
    Access {
        op: Op,
        width: u32,
        mask: u32,
        slots: Vec<(u32, u32)>,
        shift: u32,
    },
    Commit,
    /// `cp.async.wait_group pending` by the lanes.
    Wait {
        pending: u32,
        lanes: u32,
    },
    /// `cp.async.mbarrier.arrive` by the lanes.
    Arrive {
        lanes: u32,
    },
    Syncwarp,
}

/// A piece of the program: steps run `times` times in a row, skipped by
/// the warps of `skip`.
type Piece = (Vec<Step>, u32, u32);

fn step() -> impl Strategy<Value = Step> {
    let op = prop_oneof![
        2 => Just(Op::Load),
        2 => Just(Op::Store),
        1 => Just(Op::ATOMIC_ADD),
        3 => Just(Op::CpAsync(CpAsync::Ca)),
    ];
    // Few lanes, so that a wait often completes some lanes of a word's copy
    // and not others.
    let lanes = prop_oneof![2 => Just(u32::MAX), 2 => 0u32..8, 1 => any::<u32>()];
    let access = (
        op,
        0usize..4,
        prop_oneof![any::<u32>(), 1u32..16],
        prop::collection::vec((0u32..4, 0u32..4), 32),
        prop_oneof![3 => Just(0u32), 1 => 1u32..3],
    )
        .prop_map(|(op, width, mask, slots, shift)| {
            let width = match (op, [1, 2, 4, 8][width]) {
                (Op::Load | Op::Store, w) => w,
                (Op::CpAsync(_), _) => [4, 8, 16, 16][width],
                (_, w) => w.clamp(4, 8),
            };
            // Sparse masks, so that few lanes share a word.
            let mask = mask & mask.rotate_left(7) & mask.rotate_left(13) | mask & 3;
            Step::Access {
                op,
                width,
                mask,
                slots,
                shift,
            }
        });
    prop_oneof![
        4 => access,
        2 => Just(Step::Commit),
        2 => ((0u32..2), lanes.clone()).prop_map(|(pending, lanes)| Step::Wait { pending, lanes }),
        1 => lanes.prop_map(|lanes| Step::Arrive { lanes }),
        1 => Just(Step::Syncwarp),
    ]
}

fn program() -> impl Strategy<Value = (u32, Vec<Vec<Piece>>)> {
    let piece = (
        prop::collection::vec(step(), 1..4),
        prop_oneof![1 => Just(1u32), 2 => 2u32..5],
        prop_oneof![4 => Just(0u32), 1 => any::<u32>()],
    );
    (
        1u32..=3,
        prop::collection::vec(prop::collection::vec(piece, 0..4), 1..=3),
    )
}

/// One event of a warp.
#[derive(Debug, Clone)]
enum Event {
    Access {
        site: u64,
        op: Op,
        width: u32,
        lanes: Vec<(u32, u32)>,
    },
    Sync(u32, SyncOp),
    Barrier,
}

/// One warp's events.
fn events(program: &[Vec<Piece>], warp: u32) -> Vec<Event> {
    let mut out = Vec::new();
    let mut site = 0;
    for (interval, pieces) in program.iter().enumerate() {
        if interval > 0 {
            out.push(Event::Barrier);
        }
        for (steps, times, skip) in pieces {
            let first = site;
            for _ in 0..*times {
                site = first;
                for step in steps {
                    site += 1;
                    if skip >> warp & 1 == 1 {
                        continue;
                    }
                    out.push(match step {
                        Step::Access {
                            op,
                            width,
                            mask,
                            slots,
                            shift,
                        } => Event::Access {
                            site,
                            op: *op,
                            width: *width,
                            lanes: (0..32)
                                .filter(|l| mask >> l & 1 == 1)
                                .map(|l| {
                                    let (slot, byte) = slots[l as usize];
                                    (l, (4 * (slot + shift * warp) + byte) & !(width - 1))
                                })
                                .collect(),
                        },
                        Step::Commit => Event::Sync(u32::MAX, SyncOp::CpAsyncCommit),
                        Step::Wait { pending, lanes } => {
                            Event::Sync(*lanes, SyncOp::CpAsyncWait { pending: *pending })
                        }
                        Step::Arrive { lanes } => Event::Sync(*lanes, SyncOp::CpAsyncArrive),
                        Step::Syncwarp => {
                            Event::Sync(u32::MAX, SyncOp::Warp(LaneSet::from_bits(u32::MAX)))
                        }
                    });
                }
            }
        }
    }
    out
}

/// A hazard as compared: severity, kind, lower site, higher site, and the
/// number of distinct bytes.
type Found = (Severity, HazardKind, u64, u64, u32);

/// One lane's access as the reference sees it.
#[derive(Debug, Clone, Copy)]
struct Lane {
    warp: u32,
    lane: u32,
    site: u64,
    op: Op,
    address: u32,
    width: u32,
    /// Its place in the warp's events, and its barrier interval.
    seq: usize,
    interval: usize,
    /// Where a copy completes (event, interval); a plain access completes
    /// where it is issued; a copy never waited for, never.
    done: Option<(usize, usize)>,
    /// A copy completed through `cp.async.mbarrier.arrive`.
    arrived: bool,
}

fn reference(lists: &[Vec<Event>]) -> Vec<Found> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut all = Vec::new();
    // Per warp, the events that order its lanes (`__syncwarp()`, barriers).
    let mut orders: Vec<Vec<usize>> = Vec::new();
    for (warp, list) in lists.iter().enumerate() {
        let interval_at = |seq: usize| {
            list[..seq]
                .iter()
                .filter(|e| matches!(e, Event::Barrier))
                .count()
        };
        let commits_before = |seq: usize| {
            list[..seq]
                .iter()
                .filter(|e| matches!(e, Event::Sync(_, SyncOp::CpAsyncCommit)))
                .count() as u32
        };
        orders.push(
            (0..list.len())
                .filter(|&i| matches!(list[i], Event::Barrier | Event::Sync(_, SyncOp::Warp(_))))
                .collect(),
        );
        for (seq, event) in list.iter().enumerate() {
            let Event::Access {
                site,
                op,
                width,
                lanes,
            } = event
            else {
                continue;
            };
            let group = commits_before(seq);
            for &(lane, address) in lanes {
                let mut arrived = false;
                let done = if matches!(op, Op::CpAsync(_)) {
                    let end = (seq + 1..list.len()).find(|&t| match list[t] {
                        Event::Sync(lanes, SyncOp::CpAsyncWait { pending }) => {
                            lanes >> lane & 1 == 1
                                && (pending == 0
                                    || group < commits_before(t).saturating_sub(pending))
                        }
                        Event::Sync(lanes, SyncOp::CpAsyncArrive) => lanes >> lane & 1 == 1,
                        _ => false,
                    });
                    arrived = end
                        .is_some_and(|t| matches!(list[t], Event::Sync(_, SyncOp::CpAsyncArrive)));
                    end.map(|t| (t, interval_at(t)))
                } else {
                    Some((seq, interval_at(seq)))
                };
                all.push(Lane {
                    warp: warp as u32,
                    lane,
                    site: *site,
                    op: *op,
                    address,
                    width: *width,
                    seq,
                    interval: interval_at(seq),
                    done,
                    arrived,
                });
            }
        }
    }
    let writes = |op: Op| op != Op::Load;
    let atomic = |op: Op| op == Op::ATOMIC_ADD;
    let copy = |op: Op| matches!(op, Op::CpAsync(_));
    let mut found: BTreeMap<(Severity, HazardKind, u64, u64), BTreeSet<u32>> = BTreeMap::new();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.warp == b.warp && a.seq == b.seq {
                // One instruction: a write collision at most.
                continue;
            }
            if !(writes(a.op) || writes(b.op)) || (atomic(a.op) && atomic(b.op)) {
                continue;
            }
            let bytes = a.address.max(b.address)..(a.address + a.width).min(b.address + b.width);
            if bytes.is_empty() {
                continue;
            }
            // A copy completed through an mbarrier: its own warp's accesses
            // before the arrive only.
            let gone = |x: &Lane, y: &Lane| {
                x.arrived && (x.warp != y.warp || x.done.is_some_and(|(t, _)| t < y.seq))
            };
            if gone(a, b) || gone(b, a) {
                continue;
            }
            // Whether `y` is issued while the copy `x` is in flight.
            let in_flight = |x: &Lane, y: &Lane| {
                copy(x.op)
                    && if x.warp == y.warp {
                        x.seq < y.seq && x.done.is_none_or(|(t, _)| y.seq < t)
                    } else {
                        x.interval <= y.interval && x.done.is_none_or(|(_, i)| y.interval <= i)
                    }
            };
            let severity = if in_flight(a, b) || in_flight(b, a) {
                if a.warp == b.warp {
                    Severity::Warning
                } else {
                    Severity::Error
                }
            } else if a.warp != b.warp {
                // Both complete (or plain); the earlier is the one whose
                // completion's interval is not after the other's issue.
                let complete = |x: &Lane| x.done.map_or(usize::MAX, |(_, i)| i);
                let (ca, cb) = (complete(a), complete(b));
                if ca < b.interval || cb < a.interval {
                    continue;
                }
                Severity::Error
            } else {
                if a.lane == b.lane {
                    continue;
                }
                let (early, late) = if a.seq < b.seq { (a, b) } else { (b, a) };
                let from = early.done.unwrap().0;
                if orders[a.warp as usize]
                    .iter()
                    .any(|&o| from < o && o < late.seq)
                {
                    continue;
                }
                Severity::Warning
            };
            let kind = if writes(a.op) && writes(b.op) {
                HazardKind::WriteWrite
            } else {
                HazardKind::ReadWrite
            };
            let key = (severity, kind, a.site.min(b.site), a.site.max(b.site));
            found.entry(key).or_default().extend(bytes);
        }
    }
    found
        .into_iter()
        .map(|((s, k, a, b), bytes)| (s, k, a, b, bytes.len() as u32))
        .collect()
}

/// The model's hazards, the warps' events given warp after warp or one
/// event of each warp in turn.
fn model(lists: &[Vec<Event>], round_robin: bool) -> Vec<Found> {
    let warps = lists.len() as u32;
    let mut block = Block::new(ComputeCapability::Sm90, 32 * warps).unwrap();
    let mut order = Vec::new();
    if round_robin {
        let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for (w, list) in lists.iter().enumerate() {
                if let Some(e) = list.get(i) {
                    order.push((w as u32, e));
                }
            }
        }
    } else {
        for (w, list) in lists.iter().enumerate() {
            order.extend(list.iter().map(|e| (w as u32, e)));
        }
    }
    for (w, event) in order {
        match event {
            Event::Barrier => block.sync(w, 0, LaneSet::FULL, SyncOp::Threads).unwrap(),
            Event::Access {
                site,
                op,
                width,
                lanes,
            } => {
                let request = WarpRequest::from_fn(*op, *width, |lane| {
                    lanes.iter().find(|l| l.0 == lane.get()).map(|l| l.1)
                })
                .unwrap();
                block.access(w, *site, &request).unwrap();
            }
            Event::Sync(lanes, op) => block
                .sync(w, 1000, LaneSet::from_bits(*lanes), *op)
                .unwrap(),
        }
    }
    let report = block.finish();
    assert!(report.barrier_errors().is_empty());
    let mut found: Vec<Found> = report
        .hazards()
        .iter()
        .map(|h| {
            let (a, b) = (h.first().site(), h.second().site());
            (h.severity(), h.kind(), a, b, h.bytes())
        })
        .collect();
    found.sort();
    found
}

proptest! {
    #![proptest_config(cases::cases(2_000))]

    /// The model reports exactly the reference's pairs and bytes, whatever
    /// order the warps' events are given in.
    #[test]
    fn copies_agree_with_all_pairs((warps, program) in program()) {
        let lists: Vec<Vec<Event>> = (0..warps).map(|w| events(&program, w)).collect();
        let slow = reference(&lists);
        let fast = model(&lists, false);
        prop_assert_eq!(&fast, &model(&lists, true));
        prop_assert_eq!(fast, slow);
    }
}
