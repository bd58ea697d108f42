//! The shadow's shared records (one record for the warps whose records of a
//! word are alike, lanes run in batches) against the plain encoding (one
//! record per warp, each lane on its own, as the model was before sharing):
//! on random programs with every kind of event the block model takes, the
//! two reports must be the same: the same hazards (kind, severity, the two
//! instructions and what they do, the bytes) and barrier errors, and the same
//! result of every call. Only a hazard's example may differ: where several
//! warps share a record, the example names the lowest of them that races,
//! where one record per warp named the first made. `tests/block_reference.rs`
//! checks the model against a naive all-pairs reference on the programs that
//! reference understands (accesses, `__syncthreads()`, `__syncwarp()`).

use proptest::prelude::*;

use super::{
    AccessKind, BarrierError, Block, BlockReport, HazardAccess, HazardKind, Severity, SyncOp,
};
use crate::{ComputeCapability, CpAsync, Error, LaneSet, Op, WarpRequest};

/// One step of the program every warp runs.
#[derive(Debug, Clone)]
enum Step {
    /// An access: op, width, active lanes, per lane a word slot and byte,
    /// and how far each warp's addresses are shifted (0: every warp touches
    /// the same bytes).
    Access {
        op: Op,
        width: u32,
        mask: u32,
        slots: Vec<(u32, u32)>,
        shift: u32,
    },
    Sync(SyncOp),
}

/// A program of steps, and per step the warps that skip it (so that warps
/// fall out of step, and shared records split).
type Program = Vec<(Step, u32)>;

fn step() -> impl Strategy<Value = Step> {
    let op = prop_oneof![
        4 => Just(Op::Load),
        3 => Just(Op::Store),
        1 => Just(Op::ATOMIC_ADD),
        1 => Just(Op::CpAsync(CpAsync::Ca)),
    ];
    let access = (
        op,
        0usize..5,
        prop_oneof![Just(u32::MAX), any::<u32>(), 0u32..4],
        prop::collection::vec((0u32..8, 0u32..4), 32),
        prop_oneof![3 => Just(0u32), 1 => 1u32..3],
    )
        .prop_map(|(op, width, mask, slots, shift)| {
            let width = match (op, [1, 2, 4, 8, 16][width]) {
                (Op::Load | Op::Store, w) => w,
                (Op::CpAsync(_), w) => w.max(4),
                (_, w) => w.clamp(4, 8),
            };
            Step::Access {
                op,
                width,
                mask,
                slots,
                shift,
            }
        });
    let sync = prop_oneof![
        3 => Just(SyncOp::Threads),
        1 => (1u32..3).prop_map(|id| SyncOp::Named { id, threads: 64 }),
        1 => (1u32..3).prop_map(|id| SyncOp::Arrive { id, threads: 64 }),
        2 => prop_oneof![Just(u32::MAX), any::<u32>()]
            .prop_map(|m| SyncOp::Warp(LaneSet::from_bits(m))),
        1 => Just(SyncOp::Fence),
        1 => Just(SyncOp::CpAsyncCommit),
        1 => (0u32..2).prop_map(|pending| SyncOp::CpAsyncWait { pending }),
        1 => Just(SyncOp::CpAsyncArrive),
    ];
    prop_oneof![3 => access, 1 => sync.prop_map(Step::Sync)]
}

fn program() -> impl Strategy<Value = (u32, Program, bool)> {
    (
        1u32..=4,
        prop::collection::vec((step(), prop_oneof![4 => Just(0u32), 1 => 0u32..16]), 0..24),
        any::<bool>(),
    )
}

/// A step of a program of wide accesses: 16-byte lanes each on a quad of
/// its own (coarse quads, [`super::shadow::COARSE_BIT`]), or on quads some
/// lanes share, and 4- and 8-byte lanes over the same words (four 4-byte
/// lanes one after the other make a quad coarse, others split them), in a
/// window of 64 quads; and the syncs of [`step`].
fn wide_step() -> impl Strategy<Value = Step> {
    let op = prop_oneof![
        4 => Just(Op::Load),
        3 => Just(Op::Store),
        1 => Just(Op::ATOMIC_ADD),
        1 => Just(Op::CpAsync(CpAsync::Cg)),
    ];
    let access = (
        op,
        prop_oneof![4 => Just(16u32), 1 => Just(8u32), 2 => Just(4u32)],
        prop_oneof![3 => Just(u32::MAX), 1 => Just(0xffffu32), 1 => any::<u32>()],
        // Lane `l` on slot `(stride * l + offset) % slots` of the width.
        (
            prop_oneof![3 => Just(1u32), 1 => Just(3u32), 1 => Just(2u32)],
            0u32..64,
            prop_oneof![3 => Just(64u32), 1 => Just(8u32)],
        ),
        prop_oneof![2 => Just(0u32), 1 => Just(32u32), 1 => 1u32..4],
    )
        .prop_map(|(op, width, mask, (stride, offset, slots), shift)| {
            // cp.async.cg copies 16 bytes, .ca 4, 8 or 16.
            let (op, width) = match op {
                Op::CpAsync(_) if width < 16 => (Op::CpAsync(CpAsync::Ca), width),
                Op::Load | Op::Store | Op::CpAsync(_) => (op, width),
                _ => (op, width.min(8)),
            };
            let slots = (0..32)
                .map(|l| ((stride * l + offset) % slots * width / 4, 0))
                .collect();
            Step::Access {
                op,
                width,
                mask,
                slots,
                shift,
            }
        });
    let sync = prop_oneof![
        3 => Just(SyncOp::Threads),
        1 => (1u32..3).prop_map(|id| SyncOp::Named { id, threads: 64 }),
        2 => prop_oneof![Just(u32::MAX), any::<u32>()]
            .prop_map(|m| SyncOp::Warp(LaneSet::from_bits(m))),
        1 => Just(SyncOp::CpAsyncCommit),
        1 => (0u32..2).prop_map(|pending| SyncOp::CpAsyncWait { pending }),
    ];
    prop_oneof![4 => access, 1 => sync.prop_map(Step::Sync)]
}

fn wide_program() -> impl Strategy<Value = (u32, Program, bool)> {
    (
        1u32..=4,
        prop::collection::vec(
            (wide_step(), prop_oneof![4 => Just(0u32), 1 => 0u32..16]),
            0..24,
        ),
        any::<bool>(),
    )
}

/// The report of the program as [`run`] gives it, whole (each hazard's
/// example too), with quads made coarse or not.
fn run_whole(
    warps: u32,
    program: &Program,
    round_robin: bool,
    fine: bool,
) -> (Result<BlockReport, Error>, Vec<Result<(), Error>>) {
    let mut block = Block::new(ComputeCapability::Sm90, 32 * warps).unwrap();
    block.shadow.fine = fine;
    let lists: Vec<_> = (0..warps).map(|w| events(program, w)).collect();
    let mut results = Vec::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for (w, list) in lists.iter().enumerate() {
            let events = if round_robin {
                list.get(i..=i).unwrap_or(&[])
            } else if i == 0 {
                &list[..]
            } else {
                &[]
            };
            for (site, event) in events {
                results.push(match event {
                    Ok(request) => block.access(w as u32, *site, request),
                    Err(op) => block.sync(w as u32, *site, LaneSet::FULL, *op),
                });
            }
        }
    }
    (block.try_finish(), results)
}

/// One warp's events of the program.
fn events(program: &Program, warp: u32) -> Vec<(u64, Result<WarpRequest, SyncOp>)> {
    let mut out = Vec::new();
    for (site, (step, skip)) in program.iter().enumerate() {
        if skip >> warp & 1 == 1 {
            continue;
        }
        let site = site as u64;
        match step {
            Step::Access {
                op,
                width,
                mask,
                slots,
                shift,
            } => {
                let request = WarpRequest::from_fn(*op, *width, |lane| {
                    let (slot, byte) = slots[lane.index()];
                    (mask >> lane.index() & 1 == 1)
                        .then_some((4 * (slot + shift * warp) + byte) & !(width - 1))
                });
                out.push((site, Ok(request.unwrap())));
            }
            Step::Sync(op) => out.push((site, Err(*op))),
        }
    }
    out
}

/// The report of the program, warps given one after the other or one event
/// of each in turn, and every call's result.
fn run(warps: u32, program: &Program, round_robin: bool, plain: bool) -> Outcome {
    let mut block = Block::new(ComputeCapability::Sm90, 32 * warps).unwrap();
    block.shadow.plain = plain;
    run_on(block, warps, program, round_robin)
}

/// [`run`] on a block model given (new, or reset after another block).
fn run_on(mut block: Block, warps: u32, program: &Program, round_robin: bool) -> Outcome {
    let lists: Vec<_> = (0..warps).map(|w| events(program, w)).collect();
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
    let mut results = Vec::new();
    for (w, (site, event)) in order {
        results.push(match event {
            Ok(request) => block.access(w, *site, request),
            Err(op) => block.sync(w, *site, LaneSet::FULL, *op),
        });
    }
    let report = block.try_finish().map(|report| {
        let hazards = report
            .hazards()
            .iter()
            .map(|h| {
                let side = |a: &HazardAccess| (a.site(), a.access());
                (
                    h.kind(),
                    h.severity(),
                    side(h.first()),
                    side(h.second()),
                    h.bytes(),
                )
            })
            .collect();
        (hazards, report.barrier_errors().to_vec())
    });
    (report, results)
}

/// What a run gives: the report as compared and every call's result.
type Outcome = (
    Result<(Vec<Compared>, Vec<BarrierError>), Error>,
    Vec<Result<(), Error>>,
);

/// A hazard as compared: all but its example's threads and address.
type Compared = (
    HazardKind,
    Severity,
    (u64, AccessKind),
    (u64, AccessKind),
    u32,
);

proptest! {
    // PROPTEST_CASES, when set, gives the number of cases.
    #![proptest_config(match std::env::var_os("PROPTEST_CASES") {
        Some(_) => ProptestConfig::default(),
        None => ProptestConfig::with_cases(3_000),
    })]

    /// Shared records and batched lanes report exactly what one record per
    /// warp and one lane at a time report: the same hazards with the same
    /// bytes, the same barrier errors, the same errors.
    #[test]
    fn shared_records_report_as_plain_ones((warps, program, round_robin) in program()) {
        let shared = run(warps, &program, round_robin, false);
        let plain = run(warps, &program, round_robin, true);
        prop_assert_eq!(shared, plain);
    }

    /// Coarse quads report exactly what four cells of their own report:
    /// the same hazards with the same examples and bytes, the same errors;
    /// and, as any shared records, what the plain encoding reports.
    #[test]
    fn coarse_quads_report_as_words_of_their_own(
        (warps, program, round_robin) in wide_program(),
    ) {
        prop_assert_eq!(
            run_whole(warps, &program, round_robin, false),
            run_whole(warps, &program, round_robin, true)
        );
        prop_assert_eq!(
            run(warps, &program, round_robin, false),
            run(warps, &program, round_robin, true)
        );
    }

    /// A block model reset after another block reports what a new one
    /// reports: nothing of the first block (its records, its warps' order
    /// through `__syncwarp` and barriers, whose `seen` is not zeroed) shows
    /// in the second.
    #[test]
    fn a_reset_block_reports_as_a_new_one(
        (warps, program, round_robin) in program(),
        (before_warps, before, before_round_robin) in program(),
    ) {
        let mut block = Block::new(ComputeCapability::Sm90, 32 * before_warps).unwrap();
        let lists: Vec<_> = (0..before_warps).map(|w| events(&before, w)).collect();
        for _ in 0..2 {
            // Twice, each warp's events in turn or warp after warp: steps of
            // warps out of step.
            for (w, list) in lists.iter().enumerate() {
                for (site, event) in list.iter().skip(usize::from(before_round_robin) * w) {
                    let _ = match event {
                        Ok(request) => block.access(w as u32, *site, request),
                        Err(op) => block.sync(w as u32, *site, LaneSet::FULL, *op),
                    };
                }
            }
            let _ = block.take_report();
            block.reset(ComputeCapability::Sm90, 32 * before_warps).unwrap();
        }
        block.reset(ComputeCapability::Sm90, 32 * warps).unwrap();
        let reused = run_on(block, warps, &program, round_robin);
        prop_assert_eq!(reused, run(warps, &program, round_robin, false));
    }

    /// A block's hazards sort as by their keys, whether the sites pack
    /// into a 64-bit key (below 2^31) or not, and however many there are.
    #[test]
    fn hazards_sort_by_their_keys(
        (keys, seed) in (0..3, any::<u64>()).prop_flat_map(|(sites, seed)| {
            // Sites that all pack (up to the last below 2^31), some just
            // past that, or any.
            let site = move || match sites {
                0 => prop_oneof![3 => 0u64..64, 1 => (1u64 << 31) - 4..1 << 31].boxed(),
                1 => prop_oneof![3 => 0u64..64, 1 => (1u64 << 31) - 4..(1 << 31) + 4].boxed(),
                _ => prop_oneof![3 => 0u64..64, 1 => any::<u64>()].boxed(),
            };
            let key = (any::<bool>(), any::<bool>(), site(), site());
            (prop::collection::btree_set(key, 0..200), Just(seed))
        }),
    ) {
        let access = |site, warp| HazardAccess {
            site,
            warp,
            lane: crate::Lane::from_index(0),
            access: AccessKind::Read,
        };
        let mut hazards: Vec<super::Hazard> = keys
            .iter()
            .enumerate()
            .map(|(i, &(warning, write_write, first, second))| super::Hazard {
                kind: if write_write { HazardKind::WriteWrite } else { HazardKind::ReadWrite },
                severity: if warning { Severity::Warning } else { Severity::Error },
                first: access(first, i as u32),
                second: access(second, 0),
                address: i as u32,
                bytes: 1,
            })
            .collect();
        // A shuffle, as the order hazards are found in.
        let mut state = seed | 1;
        for i in (1..hazards.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            hazards.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let mut expected = hazards.clone();
        expected.sort_unstable_by_key(|h| (h.severity, h.kind, h.first.site, h.second.site));
        super::sort_hazards(&mut hazards);
        prop_assert_eq!(hazards, expected);
    }

    /// The address helpers' passes over lanes next to each other (all 32,
    /// half a warp) give what a loop over the active lanes gives.
    #[test]
    fn address_helpers_read_the_active_lanes(
        active in prop_oneof![
            Just(u32::MAX),
            Just(0xffff_0000u32),
            Just(0x0000_ffffu32),
            (0u32..32, 1u32..=32).prop_map(|(low, n)| (u32::MAX >> (32 - n)) << low),
            1u32..,
        ],
        addresses in prop_oneof![
            prop::array::uniform32(0u32..4096),
            (0u32..2048, 0u32..16, any::<bool>()).prop_map(|(base, stride, down)| {
                core::array::from_fn(|l| {
                    let step = stride * l as u32;
                    if down { base + 512 - step } else { base + step }
                })
            }),
        ],
    ) {
        let lanes: Vec<u32> = (0..32)
            .filter(|l| active >> l & 1 != 0)
            .map(|l| addresses[l])
            .collect();
        let highest = lanes.iter().copied().max().unwrap_or(0);
        prop_assert_eq!(super::highest_address(active, &addresses), highest);
        let rising = lanes.windows(2).all(|p| p[0] < p[1]);
        let falling = lanes.windows(2).all(|p| p[0] > p[1]);
        prop_assert_eq!(super::monotonic(active, &addresses), rising || falling);
        let run = super::lane_run(active);
        let next_to_each_other = lanes.len() == (32 - active.leading_zeros() - active.trailing_zeros()) as usize;
        prop_assert_eq!(run.is_some(), next_to_each_other);
        if let Some(run) = run {
            prop_assert_eq!(run.len(), lanes.len());
            prop_assert_eq!(run.start, active.trailing_zeros() as usize);
        }
    }
}

/// Steps go on from block to block, so that `seen` is not zeroed; past half
/// the range of a step, a reset zeroes it and steps start again from 0.
#[test]
fn steps_start_again_from_zero_past_half_their_range() {
    let mut block = Block::new(ComputeCapability::Sm90, 64).unwrap();
    let store = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get())).unwrap();
    block.access(0, 1, &store).unwrap();
    // Half the lanes: their entries of `seen` take the step.
    let half = LaneSet::range(0, 16);
    block.sync(0, 2, half, SyncOp::Warp(half)).unwrap();
    block.sync(1, 2, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.sync(0, 3, LaneSet::FULL, SyncOp::Threads).unwrap();
    assert_eq!(block.warps[0].floor, 3, "the barrier's step");
    block.access(1, 4, &store).unwrap();
    let _ = block.take_report();
    block.reset(ComputeCapability::Sm90, 64).unwrap();
    // Warp 0 ran 3 instructions, warp 1 two: both start from 3.
    assert_eq!([block.warps[0].step, block.warps[1].step], [3, 3]);
    assert_eq!(block.warps[0].seen.as_ref().unwrap()[5][7], 2, "not zeroed");
    assert!(
        block.warps[1].seen.is_none(),
        "never a __syncwarp of some lanes"
    );
    assert_eq!(block.warps[0].floor, 0);
    block.warps[1].step = u32::MAX / 2 + 1;
    block.reset(ComputeCapability::Sm90, 64).unwrap();
    assert_eq!([block.warps[0].step, block.warps[1].step], [0, 0]);
    assert!(block.warps[0].seen.is_none(), "zeroed");
    assert_eq!(block.warps[0].floor, 0);
}

/// FlashInfer prefill's shape: a warp stores a row a word a lane (`STS`:
/// lanes 0-3 on one quad, 4-7 on the next, ...), then reads it back 16
/// bytes a lane (`LDSM` rows) with no `__syncwarp`. Four lanes of a quad
/// take one record ([`super::shadow::AFFINE_BIT`]), a 16-byte lane's read
/// joins it, and the report is the one of four cells of their own, examples
/// too.
#[test]
fn a_row_stored_a_word_a_lane_is_one_record_a_quad() {
    let store = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get())).unwrap();
    // Lanes 0-7: lane l reads quad (l + 1) % 8, stored by lanes 4 ((l + 1)
    // % 8) to 4 ((l + 1) % 8) + 3, none of them l.
    let read = WarpRequest::from_fn(Op::Load, 16, |l| {
        (l.get() < 8).then_some(16 * ((l.get() + 1) % 8))
    })
    .unwrap();
    let run = |fine: bool| {
        let mut block = Block::new(ComputeCapability::Sm90, 32).unwrap();
        block.shadow.fine = fine;
        block.access(0, 1, &store).unwrap();
        block.access(0, 2, &read).unwrap();
        let state = (
            block.shadow.records,
            block.shadow.cell(5),
            block.shadow.coarse(4),
        );
        (state, block.finish())
    };
    let ((records, cell, coarse), report) = run(false);
    // The store waited unwritten until the read; a record a lane and word.
    assert_eq!(records, 64);
    let lanes: Vec<(u32, u8)> = cell.iter().map(|r| (r.lanes, r.lane_stride)).collect();
    assert_eq!(lanes, [(1 << 5, 0), (1 << 0, 0)], "as word 5's cell");
    assert!(coarse, "one record for the four lanes, one for the read");
    let ((_, fine_cell, fine_coarse), fine_report) = run(true);
    assert_eq!((cell, false), (fine_cell, fine_coarse));
    assert_eq!(report, fine_report);
    // A warning within the warp, on every byte read.
    assert_eq!(report.hazards().len(), 1);
    let h = &report.hazards()[0];
    assert_eq!(
        (h.kind(), h.severity(), h.bytes()),
        (HazardKind::ReadWrite, Severity::Warning, 128)
    );
    assert_eq!((h.first().lane().get(), h.second().lane().get()), (4, 0));
}

/// Warps in step on one word share one record; a warp that goes on alone
/// takes its own, right after the shared one.
#[test]
fn warps_in_step_share_a_record_until_one_merges() {
    let mut block = Block::new(ComputeCapability::Sm90, 128).unwrap();
    let read = WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * l.get())).unwrap();
    for warp in 0..4 {
        block.access(warp, 1, &read).unwrap();
    }
    // Nothing races: the accesses wait in `deferred`, unwritten.
    assert_eq!((block.shadow.records, block.shadow.deferred.len()), (0, 4));
    block.settle();
    assert_eq!(block.shadow.records, 32);
    assert!(block.shadow.cell(0).iter().all(|r| r.warps == 0b1111));
    // Warp 2 reads again from the same instruction: its record moves on.
    block.access(2, 1, &read).unwrap();
    block.settle();
    assert_eq!(block.shadow.records, 64);
    let warps: Vec<u32> = block.shadow.cell(5).iter().map(|r| r.warps).collect();
    assert_eq!(warps, [0b1011, 0b0100]);
    // Warp 0 falls in with warp 2 again (a read where the block only
    // read: it waits in `deferred` too).
    block.access(0, 1, &read).unwrap();
    assert_eq!(block.shadow.deferred.len(), 1);
    block.settle();
    assert_eq!(block.shadow.records, 64);
    let warps: Vec<u32> = block.shadow.cell(5).iter().map(|r| r.warps).collect();
    assert_eq!(warps, [0b1010, 0b0101]);
}

/// A loop that copies 16 bytes a lane to the same slot each iteration
/// (`cp.async; cp.async.commit_group; cp.async.wait_group 1`, no barrier):
/// each completed copy joins the warp's completed record of that site and
/// word, as a write made at the wait would, so the shadow stays at a few
/// records a word however long the loop runs (it grew by one record a word
/// per iteration, and every access checked them all: the fuzz target
/// `ptx_run`'s timeout).
#[test]
fn a_copy_loop_keeps_a_few_records_a_word() {
    let mut block = Block::new(ComputeCapability::Sm90, 64).unwrap();
    let copy = |warp: u32| {
        WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |l| {
            Some(16 * (32 * warp + l.get()))
        })
        .unwrap()
    };
    // 64 lanes of 16 bytes: 256 words.
    let words = 256;
    for iteration in 0..1_000 {
        for warp in 0..2 {
            block.access(warp, 1, &copy(warp)).unwrap();
            block
                .sync(warp, 2, LaneSet::FULL, SyncOp::CpAsyncCommit)
                .unwrap();
            block
                .sync(warp, 3, LaneSet::FULL, SyncOp::CpAsyncWait { pending: 1 })
                .unwrap();
        }
        // Per word: the completed copies, and the one still in flight.
        assert!(
            block.shadow.records <= 2 * words,
            "iteration {iteration}: {} records",
            block.shadow.records
        );
    }
    // A lane's copy of the next iteration races with its copy still in
    // flight (within its warp: a warning, as racecheck's WAW with a copy
    // of the warp in flight); a partial completion (half the lanes) joins
    // the same way.
    for warp in 0..2 {
        block
            .sync(
                warp,
                4,
                LaneSet::range(0, 16),
                SyncOp::CpAsyncWait { pending: 0 },
            )
            .unwrap();
        block
            .sync(
                warp,
                4,
                LaneSet::range(16, 32),
                SyncOp::CpAsyncWait { pending: 0 },
            )
            .unwrap();
    }
    assert_eq!(block.shadow.records, words);
    assert_eq!(block.shadow.pending, 0);
    let report = block.finish();
    assert_eq!(report.hazards().len(), 1);
    let h = &report.hazards()[0];
    assert_eq!(
        (h.kind(), h.severity()),
        (HazardKind::WriteWrite, Severity::Warning)
    );
    assert_eq!(
        (h.first().site(), h.second().site(), h.bytes()),
        (1, 1, 1024)
    );
}

/// In a block of one warp, a `__syncwarp()` of all lanes orders everything
/// before it for every thread, as a barrier does: the records before it are
/// gone, and what comes after is still checked.
#[test]
fn a_full_syncwarp_in_a_one_warp_block_orders_all_before_it() {
    let mut block = Block::new(ComputeCapability::Sm90, 32).unwrap();
    let lane = |l: u32| WarpRequest::from_fn(Op::Store, 4, |x| (x.get() == l).then_some(0));
    let read = WarpRequest::from_fn(Op::Load, 4, |x| (x.get() == 2).then_some(0)).unwrap();
    block.access(0, 1, &lane(0).unwrap()).unwrap();
    block
        .sync(0, 2, LaneSet::FULL, SyncOp::Warp(LaneSet::FULL))
        .unwrap();
    assert_eq!(block.shadow.records, 0);
    block.access(0, 3, &lane(1).unwrap()).unwrap();
    block.access(0, 4, &read).unwrap();
    let report = block.finish();
    let sites: Vec<_> = report
        .hazards()
        .iter()
        .map(|h| (h.severity(), h.first().site(), h.second().site()))
        .collect();
    assert_eq!(sites, [(Severity::Warning, 3, 4)]);
}

#[test]
fn whole_word_lanes_on_one_word_report_as_lane_by_lane() {
    // Tiled matrix product without its barrier: warp 0 stores two rows of
    // 32 words; then each warp reads a row at one address per half warp
    // (`As[ty][k]`) and words shared by lanes l and l + 16 (`Bs[k][tx]`),
    // 4, 8 and 16 bytes a lane. Lanes on one word are one batch; the report,
    // examples included, must be the lane-by-lane one (`plain`: each lane
    // its own batch). One warp writes, so no record stands for several warps
    // and the examples are comparable.
    let run = |plain: bool| {
        let mut block = Block::new(ComputeCapability::Sm90, 64).unwrap();
        block.shadow.plain = plain;
        let store =
            |row: u32| WarpRequest::from_fn(Op::Store, 4, |l| Some(128 * row + 4 * l.get()));
        block.access(0, 1, &store(0).unwrap()).unwrap();
        block.access(0, 2, &store(1).unwrap()).unwrap();
        for warp in 0..2 {
            let halves = |width: u32, a: u32, b: u32| {
                WarpRequest::from_fn(Op::Load, width, |l| Some(if l.get() < 16 { a } else { b }))
            };
            let pairs = |width: u32| {
                WarpRequest::from_fn(Op::Load, width, |l| Some(width * (l.get() % 16)))
            };
            block.access(warp, 3, &halves(4, 20, 160).unwrap()).unwrap();
            block.access(warp, 4, &pairs(4).unwrap()).unwrap();
            block.access(warp, 5, &halves(8, 200, 8).unwrap()).unwrap();
            block.access(warp, 6, &pairs(8).unwrap()).unwrap();
            block.access(warp, 7, &pairs(16).unwrap()).unwrap();
            // A store over the row by pairs of lanes: a write collision
            // within the instruction, and hazards with the reads above.
            let store_pairs = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * (l.get() % 16)));
            block.access(warp, 8, &store_pairs.unwrap()).unwrap();
        }
        block.finish().hazards().to_vec()
    };
    let batched = run(false);
    assert_eq!(batched, run(true));
    assert!(batched.len() > 10, "{batched:?}");
    assert!(batched.iter().any(|h| h.severity() == Severity::Warning));
}

/// Accesses that race with nothing wait in `deferred`, unwritten, and a
/// barrier of the whole block drops them; the first access that may race
/// with one writes them all first, and the race is found as without
/// deferring (plain records, which never defer).
#[test]
fn clean_accesses_wait_unwritten_until_one_may_race() {
    let row = |op, row: u32| WarpRequest::from_fn(op, 4, |l| Some(128 * row + 4 * l.get()));
    let run = |plain: bool| {
        let mut block = Block::new(ComputeCapability::Sm90, 64).unwrap();
        block.shadow.plain = plain;
        // Each warp stores its row: no word in common.
        block.access(0, 1, &row(Op::Store, 0).unwrap()).unwrap();
        block.access(1, 1, &row(Op::Store, 1).unwrap()).unwrap();
        let waiting = (block.shadow.deferred.len(), block.shadow.records);
        block.syncthreads(2).unwrap();
        let dropped = block.shadow.deferred.len();
        // Warp 0 reads warp 1's row, ordered after its store by the barrier;
        // every lane of warp 1 reads one word of warp 0's row (a batch).
        block.access(0, 3, &row(Op::Load, 1).unwrap()).unwrap();
        let one = WarpRequest::from_fn(Op::Load, 4, |_| Some(8)).unwrap();
        block.access(1, 5, &one).unwrap();
        let ordered = block.shadow.deferred.len();
        // Warp 1 stores its row again: nothing orders warp 0's read before it.
        block.access(1, 4, &row(Op::Store, 1).unwrap()).unwrap();
        let settled = (block.shadow.deferred.len(), block.shadow.records);
        (waiting, dropped, ordered, settled, block.finish())
    };
    let (waiting, dropped, ordered, settled, report) = run(false);
    assert_eq!((waiting, dropped, ordered), ((2, 0), 0, 2));
    // The two reads written (32 records and 1), then warp 1's store beside
    // the first: 65 records.
    assert_eq!(settled, (0, 65));
    let (.., plain) = run(true);
    assert_eq!(report, plain);
    let hazards = report.hazards();
    assert_eq!(hazards.len(), 1);
    assert_eq!(
        (hazards[0].kind(), hazards[0].severity(), hazards[0].bytes()),
        (HazardKind::ReadWrite, Severity::Error, 128)
    );
    assert_eq!(
        (hazards[0].first().site(), hazards[0].second().site()),
        (3, 4)
    );
}
