//! The block model against a deliberately naive reference: every pair of
//! accesses of a random program of warps separated by `__syncthreads()`,
//! compared byte by byte (DESIGN.md section 7). Within one barrier interval
//! every pair of different threads touching one byte, at least one writing,
//! both not atomics, races: between warps an error, between lanes of one
//! warp (different instructions, no `__syncwarp()` between them) a warning.
//! Accesses are 1, 2, 4 or 8 bytes wide, so that the model's shadow (one
//! record per 4-byte word with a mask of its bytes) is checked byte by byte,
//! and the bytes each hazard covers are compared too.
//!
//! Two kinds of programs: every access an instruction of its own, and
//! programs that every warp runs (the same instructions, some executed again
//! as in a loop, some skipped by some warps), where many warps read the same
//! words from one instruction before a write or across barriers: the model's
//! shared records (one record for the warps in step) are checked there.

use proptest::prelude::*;
use smem_model::{Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};

mod cases;

/// One access of the program: warp, barrier interval, site, op, lane addresses.
#[derive(Debug, Clone)]
struct Access {
    warp: u32,
    interval: usize,
    site: u64,
    op: Op,
    width: u32,
    lanes: Vec<(u32, u32)>,
    /// Whether the warp executes `__syncwarp()` right before it.
    syncwarp: bool,
    /// Its place in its warp's program order.
    seq: usize,
}

/// A program: warps, intervals, and per warp and interval a list of
/// accesses (op index, active mask, address slot per lane).
fn program() -> impl Strategy<Value = (u32, Vec<Access>)> {
    (1u32..=3, 1usize..=3).prop_flat_map(|(warps, intervals)| {
        let access = (
            (0u8..3, 0usize..4),
            any::<u32>(),
            prop::collection::vec((0u32..6, 0u32..4), 32),
            any::<bool>(),
        );
        let per = prop::collection::vec(prop::collection::vec(access, 0..3), intervals);
        prop::collection::vec(per, warps as usize).prop_map(move |by_warp| {
            let mut all = Vec::new();
            let mut site = 0;
            for (w, by_interval) in by_warp.into_iter().enumerate() {
                for (interval, accesses) in by_interval.into_iter().enumerate() {
                    for ((op, width), mask, slots, syncwarp) in accesses {
                        site += 1;
                        let op = [Op::Load, Op::Store, Op::ATOMIC_ADD][op as usize];
                        // Atomics of 4 and 8 bytes only.
                        let width = match (op, [1, 2, 4, 8][width]) {
                            (Op::Load | Op::Store, w) | (_, w @ (4 | 8)) => w,
                            _ => 4,
                        };
                        // Sparse masks, so that few lanes share a slot.
                        let mask = mask & mask.rotate_left(7) & mask.rotate_left(13);
                        let lanes = (0..32)
                            .filter(|l| mask >> l & 1 == 1)
                            .map(|l| {
                                let (slot, byte) = slots[l as usize];
                                // Aligned to the width, within a few words.
                                (l, (4 * slot + byte) & !(width - 1))
                            })
                            .collect();
                        all.push(Access {
                            warp: w as u32,
                            interval,
                            site,
                            op,
                            width,
                            lanes,
                            syncwarp,
                            seq: site as usize,
                        });
                    }
                }
            }
            (warps, all)
        })
    })
}

/// One instruction of a program every warp runs: op index, width index,
/// active mask, per lane an address slot, how far each warp's addresses are
/// shifted (0: all warps touch the same bytes), whether it runs twice (a
/// loop), the warps that skip it, and whether `__syncwarp()` comes first.
type Instruction = ((u8, usize), u32, Vec<(u32, u32)>, u32, bool, u32, bool);

/// A program that every warp runs: per barrier interval a list of
/// instructions. Sites are shared by the warps, so that warps in step share
/// shadow records; the masks are dense, so that many lanes and warps touch
/// the same words.
fn spmd_program() -> impl Strategy<Value = (u32, Vec<Access>)> {
    let instruction = (
        (0u8..3, 0usize..4),
        prop_oneof![Just(u32::MAX), any::<u32>(), 1u32..4],
        prop::collection::vec((0u32..6, 0u32..4), 32),
        prop_oneof![3 => Just(0u32), 1 => 1u32..3],
        any::<bool>(),
        prop_oneof![4 => Just(0u32), 1 => any::<u32>()],
        prop_oneof![4 => Just(false), 1 => Just(true)],
    );
    (
        1u32..=4,
        prop::collection::vec(prop::collection::vec(instruction, 0..4), 1..=3),
    )
        .prop_map(|(warps, intervals): (u32, Vec<Vec<Instruction>>)| {
            let mut all = Vec::new();
            for w in 0..warps {
                let (mut site, mut seq) = (0, 0);
                for (interval, instructions) in intervals.iter().enumerate() {
                    for ((op, width), mask, slots, shift, twice, skip, syncwarp) in instructions {
                        site += 1;
                        if skip >> w & 1 == 1 {
                            continue;
                        }
                        let op = [Op::Load, Op::Store, Op::ATOMIC_ADD][*op as usize];
                        let width = match (op, [1, 2, 4, 8][*width]) {
                            (Op::Load | Op::Store, w) | (_, w @ (4 | 8)) => w,
                            _ => 4,
                        };
                        let lanes: Vec<(u32, u32)> = (0..32)
                            .filter(|l| mask >> l & 1 == 1)
                            .map(|l| {
                                let (slot, byte) = slots[l as usize];
                                (l, (4 * (slot + shift * w) + byte) & !(width - 1))
                            })
                            .collect();
                        for _ in 0..1 + usize::from(*twice) {
                            seq += 1;
                            all.push(Access {
                                warp: w,
                                interval,
                                site,
                                op,
                                width,
                                lanes: lanes.clone(),
                                syncwarp: *syncwarp,
                                seq,
                            });
                        }
                    }
                }
            }
            (warps, all)
        })
}

/// A hazard as compared: severity, kind, lower site, higher site, and the
/// number of distinct bytes.
type Found = (Severity, HazardKind, u64, u64, u32);

/// What the naive reference finds.
fn reference(accesses: &[Access]) -> Vec<Found> {
    use std::collections::{BTreeMap, BTreeSet};
    let writes = |op: Op| op != Op::Load;
    let atomic = |op: Op| op == Op::ATOMIC_ADD;
    let mut found: BTreeMap<(Severity, HazardKind, u64, u64), BTreeSet<u32>> = BTreeMap::new();
    for (i, a) in accesses.iter().enumerate() {
        for b in &accesses[i + 1..] {
            if a.interval != b.interval || !(writes(a.op) || writes(b.op)) {
                continue;
            }
            if atomic(a.op) && atomic(b.op) {
                continue;
            }
            // Lanes of one warp: ordered by a __syncwarp() between them
            // (a warp's accesses are listed in its program order).
            let synced = a.warp == b.warp
                && accesses.iter().any(|c| {
                    c.warp == a.warp
                        && c.interval == a.interval
                        && c.syncwarp
                        && a.seq < c.seq
                        && c.seq <= b.seq
                });
            if a.warp == b.warp && synced {
                continue;
            }
            let severity = if a.warp == b.warp {
                Severity::Warning
            } else {
                Severity::Error
            };
            let kind = if writes(a.op) && writes(b.op) {
                HazardKind::WriteWrite
            } else {
                HazardKind::ReadWrite
            };
            let key = (severity, kind, a.site.min(b.site), a.site.max(b.site));
            for &(la, xa) in &a.lanes {
                for &(lb, xb) in &b.lanes {
                    if a.warp == b.warp && la == lb {
                        continue;
                    }
                    for byte in xa.max(xb)..(xa + a.width).min(xb + b.width) {
                        found.entry(key).or_default().insert(byte);
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .map(|((s, k, a, b), bytes)| (s, k, a, b, bytes.len() as u32))
        .collect()
}

/// One warp's events: `None` for a `__syncthreads()`, a site without a
/// request for a `__syncwarp()`.
fn events(
    accesses: &[Access],
    warp: u32,
    intervals: usize,
) -> Vec<Option<(u64, Option<WarpRequest>)>> {
    let mut out = Vec::new();
    for interval in 0..intervals {
        if interval > 0 {
            out.push(None);
        }
        for a in accesses
            .iter()
            .filter(|a| a.warp == warp && a.interval == interval)
        {
            if a.syncwarp {
                out.push(Some((u64::MAX, None)));
            }
            let request = WarpRequest::from_fn(a.op, a.width, |lane| {
                a.lanes.iter().find(|l| l.0 == lane.get()).map(|l| l.1)
            })
            .unwrap();
            out.push(Some((a.site, Some(request))));
        }
    }
    out
}

/// The model's hazards, the warps' events given warp after warp or one
/// event of each warp in turn.
fn model(warps: u32, accesses: &[Access], intervals: usize, round_robin: bool) -> Vec<Found> {
    let mut block = Block::new(ComputeCapability::Sm90, 32 * warps).unwrap();
    let lists: Vec<_> = (0..warps).map(|w| events(accesses, w, intervals)).collect();
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
            None => block
                .sync(w, 0, smem_model::LaneSet::FULL, smem_model::SyncOp::Threads)
                .unwrap(),
            Some((site, Some(request))) => block.access(w, *site, request).unwrap(),
            Some((site, None)) => block
                .sync(
                    w,
                    *site,
                    smem_model::LaneSet::FULL,
                    smem_model::SyncOp::Warp(smem_model::LaneSet::FULL),
                )
                .unwrap(),
        }
    }
    let report = block.finish();
    assert!(report.barrier_errors().is_empty());
    report
        .hazards()
        .iter()
        .map(|h| {
            let (a, b) = (h.first().site(), h.second().site());
            (h.severity(), h.kind(), a, b, h.bytes())
        })
        .collect()
}

proptest! {
    #![proptest_config(cases::cases(2_000))]

    /// The model reports exactly the reference's pairs, whatever order the
    /// warps' events are given in (a byte keeps up to 8 instructions per warp
    /// and kind, more than these programs have).
    #[test]
    fn block_agrees_with_all_pairs((warps, accesses) in program()) {
        let intervals = accesses.iter().map(|a| a.interval + 1).max().unwrap_or(1);
        let slow = reference(&accesses);
        let mut fast = model(warps, &accesses, intervals, false);
        // The order the warps' events are given in changes nothing.
        prop_assert_eq!(&fast, &model(warps, &accesses, intervals, true));
        fast.sort();
        prop_assert_eq!(fast, slow);
    }

    /// The same on programs that every warp runs: warps in step share
    /// records, and a write after many warps' reads, reads again from one
    /// instruction, and reads in later barrier intervals are all checked.
    #[test]
    fn block_agrees_with_all_pairs_when_warps_run_one_program((warps, accesses) in spmd_program()) {
        let intervals = accesses.iter().map(|a| a.interval + 1).max().unwrap_or(1);
        let slow = reference(&accesses);
        let mut fast = model(warps, &accesses, intervals, false);
        prop_assert_eq!(&fast, &model(warps, &accesses, intervals, true));
        fast.sort();
        prop_assert_eq!(fast, slow);
    }
}
