//! The block model: races, barriers, fences, warp-level hazards, bad input
//! (DESIGN.md section 7).

use smem_model::{
    AccessKind, BarrierError, Block, ComputeCapability, Error, HazardKind, Lane, LaneSet, Op,
    Severity, SyncOp, WarpRequest,
};

const SM90: ComputeCapability = ComputeCapability::Sm90;

fn req(op: Op, f: impl Fn(u32) -> Option<u32>) -> WarpRequest {
    WarpRequest::from_fn(op, 4, |l: Lane| f(l.get())).unwrap()
}

fn one(op: Op, lane: u32, address: u32) -> WarpRequest {
    req(op, |l| (l == lane).then_some(address))
}

#[test]
fn different_warps_race_without_a_barrier() {
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
    block.access(1, 2, &one(Op::Store, 5, 0)).unwrap();
    let report = block.finish();
    assert_eq!(report.hazards().len(), 1);
    let h = &report.hazards()[0];
    assert_eq!(h.kind(), HazardKind::WriteWrite);
    assert_eq!(h.severity(), Severity::Error);
    assert_eq!((h.first().warp(), h.first().lane().get()), (0, 0));
    assert_eq!((h.second().warp(), h.second().lane().get()), (1, 5));
    assert_eq!(h.second().thread(), 37);
    assert_eq!(h.bytes(), 4);
    assert_eq!(
        h.to_string(),
        "error write-write: write at site 0x1 by warp 0 lane 0 and write at site 0x2 by warp 1 lane 5 on 4 byte(s), e.g. 0x0"
    );
}

#[test]
fn the_order_the_warps_are_given_in_does_not_matter() {
    // Warp 1's store is given first, then warp 0 reads: still a race.
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(1, 2, &one(Op::Store, 0, 8)).unwrap();
    block.access(0, 1, &one(Op::Load, 0, 8)).unwrap();
    let report = block.finish();
    let h = &report.hazards()[0];
    assert_eq!(h.kind(), HazardKind::ReadWrite);
    assert_eq!(
        (h.first().site(), h.first().access()),
        (1, AccessKind::Read)
    );
    assert_eq!(
        (h.second().site(), h.second().access()),
        (2, AccessKind::Write)
    );
}

#[test]
fn a_barrier_both_passed_orders_them_held_events_included() {
    let mut block = Block::new(SM90, 64).unwrap();
    // Warp 0 runs ahead past the barrier: its load is held until warp 1 arrives.
    block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
    block.sync(0, 2, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.access(0, 3, &one(Op::Load, 0, 4)).unwrap();
    block.access(1, 1, &one(Op::Store, 0, 4)).unwrap();
    block.sync(1, 2, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.access(1, 3, &one(Op::Load, 0, 0)).unwrap();
    assert!(block.finish().is_clean());
}

#[test]
fn reads_never_race_with_reads_and_a_thread_never_with_itself() {
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(0, 1, &req(Op::Load, |_| Some(0))).unwrap();
    block.access(1, 2, &req(Op::Load, |_| Some(0))).unwrap();
    // Lane 3 of warp 0 writes and reads its own word, twice.
    block.access(0, 3, &one(Op::Store, 3, 64)).unwrap();
    block.access(0, 4, &one(Op::Load, 3, 64)).unwrap();
    block.access(0, 5, &one(Op::Store, 3, 64)).unwrap();
    assert!(block.finish().is_clean());
}

#[test]
fn atomics_never_race_with_atomics_but_do_with_loads() {
    let mut block = Block::new(SM90, 128).unwrap();
    for warp in 0..4 {
        block
            .access(warp, 1, &req(Op::ATOMIC_ADD, |l| Some(4 * (l % 4))))
            .unwrap();
    }
    let mut clean = Block::new(SM90, 128).unwrap();
    for warp in 0..4 {
        clean
            .access(warp, 1, &req(Op::ATOMIC_ADD, |l| Some(4 * (l % 4))))
            .unwrap();
    }
    assert!(clean.finish().is_clean());
    // Lane 1 of warp 2 reads the word the other warps' lanes 0, 4, ... and its
    // own warp's lanes 0, 4, ... incremented.
    block.access(2, 9, &one(Op::Load, 1, 0)).unwrap();
    let report = block.finish();
    assert_eq!(report.hazards().len(), 2, "{report}");
    assert_eq!(report.hazards()[1].severity(), Severity::Warning);
    let h = &report.hazards()[0];
    assert_eq!(h.severity(), Severity::Error);
    assert_eq!(h.kind(), HazardKind::ReadWrite);
    assert_eq!(h.first().access(), AccessKind::Atomic);
    assert_eq!(h.second().access(), AccessKind::Read);
}

#[test]
fn lanes_of_one_store_collide_but_do_not_race() {
    let mut block = Block::new(SM90, 32).unwrap();
    block.access(0, 1, &req(Op::Store, |_| Some(0))).unwrap();
    assert!(block.finish().is_clean());
}

#[test]
fn lanes_of_one_warp_race_as_a_warning_until_syncwarp() {
    let shift = |sync: bool| {
        let mut block = Block::new(SM90, 32).unwrap();
        block
            .access(0, 1, &req(Op::Store, |l| Some(4 * l)))
            .unwrap();
        if sync {
            block
                .sync(0, 2, LaneSet::FULL, SyncOp::Warp(LaneSet::FULL))
                .unwrap();
        }
        block
            .access(0, 3, &req(Op::Load, |l| Some(4 * ((l + 1) % 32))))
            .unwrap();
        block.finish()
    };
    assert!(shift(true).is_clean());
    let report = shift(false);
    assert_eq!(report.hazards().len(), 1);
    let h = &report.hazards()[0];
    assert_eq!(
        (h.severity(), h.kind()),
        (Severity::Warning, HazardKind::ReadWrite)
    );
    assert_eq!(h.bytes(), 128);
    // A __syncwarp of the lower half-warp only orders the lower half-warp:
    // lane 15 still reads lane 16's word.
    let mut block = Block::new(SM90, 32).unwrap();
    block
        .access(0, 1, &req(Op::Store, |l| Some(4 * l)))
        .unwrap();
    block
        .sync(
            0,
            2,
            LaneSet::range(0, 16),
            SyncOp::Warp(LaneSet::range(0, 16)),
        )
        .unwrap();
    block
        .access(0, 3, &req(Op::Load, |l| (l < 16).then_some(4 * (l + 1))))
        .unwrap();
    let report = block.finish();
    assert_eq!(report.hazards().len(), 1);
    assert_eq!(report.hazards()[0].bytes(), 4);
    assert_eq!(report.hazards()[0].address(), 64);
}

#[test]
fn a_fence_never_removes_a_hazard() {
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
    block.sync(0, 2, LaneSet::FULL, SyncOp::Fence).unwrap();
    block.sync(1, 2, LaneSet::FULL, SyncOp::Fence).unwrap();
    block.access(1, 3, &one(Op::Load, 0, 0)).unwrap();
    let report = block.finish();
    assert_eq!(report.hazards().len(), 1);
    assert!(report.barrier_errors().is_empty());
}

#[test]
fn named_barriers_order_only_the_warps_that_take_part() {
    let mut block = Block::new(SM90, 128).unwrap();
    let pair = SyncOp::Named { id: 1, threads: 64 };
    // Warps 0 and 1 exchange through bar.sync 1, 64; warp 2 reads without it.
    block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
    block.sync(0, 2, LaneSet::FULL, pair).unwrap();
    block.sync(1, 2, LaneSet::FULL, pair).unwrap();
    block.access(1, 3, &one(Op::Load, 0, 0)).unwrap();
    block.access(2, 4, &one(Op::Load, 0, 0)).unwrap();
    let report = block.finish();
    assert!(report.barrier_errors().is_empty(), "{report}");
    assert_eq!(report.hazards().len(), 1);
    assert_eq!(report.hazards()[0].second().warp(), 2);
}

/// A barrier of some of the block's warps orders the lanes of each of them
/// (as `__syncwarp` does), though the block's other warps keep their records.
#[test]
fn a_named_barrier_orders_the_lanes_of_a_warp_that_takes_part() {
    let run = |barrier: bool| {
        let mut block = Block::new(SM90, 64).unwrap();
        let alone = SyncOp::Named { id: 1, threads: 32 };
        block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
        if barrier {
            block.sync(0, 2, LaneSet::FULL, alone).unwrap();
        }
        block.access(0, 3, &one(Op::Load, 1, 0)).unwrap();
        block.access(0, 4, &one(Op::Store, 2, 4)).unwrap();
        if barrier {
            block.sync(0, 5, LaneSet::FULL, alone).unwrap();
        }
        block.access(0, 6, &one(Op::Load, 3, 4)).unwrap();
        block.finish()
    };
    let report = run(true);
    assert!(report.is_clean(), "{report}");
    // Without the barriers, lane 1 reads what lane 0 wrote, unordered (a
    // warning: lanes of one warp), and lane 3 what lane 2 wrote.
    let report = run(false);
    assert_eq!(report.hazards().len(), 2, "{report}");
    assert!(report
        .hazards()
        .iter()
        .all(|h| h.severity() == Severity::Warning));
}

#[test]
fn divergent_syncthreads_in_both_branches() {
    // if (threadIdx.x < 32) { s[t] = 1; __syncthreads(); } else { __syncthreads(); x = s[t - 32]; }
    let mut block = Block::new(SM90, 64).unwrap();
    block
        .access(0, 1, &req(Op::Store, |l| Some(4 * l)))
        .unwrap();
    block.sync(0, 2, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.sync(1, 3, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.access(1, 4, &req(Op::Load, |l| Some(4 * l))).unwrap();
    let report = block.finish();
    assert_eq!(
        report.barrier_errors(),
        [BarrierError::DifferentSites {
            id: 0,
            sites: vec![(2, vec![0]), (3, vec![1])]
        }]
    );
    assert_eq!(
        report.barrier_errors()[0].to_string(),
        "barrier 0 is completed by warps at different instructions: warp(s) 0 at site 0x2, warp(s) 1 at site 0x3"
    );
    // The barrier still orders them (the hardware releases it on the count).
    assert!(report.hazards().is_empty());
}

#[test]
fn divergent_lanes_and_unreached_barriers() {
    // if (threadIdx.x % 32 < 16) __syncthreads();
    let mut block = Block::new(SM90, 64).unwrap();
    for warp in 0..2 {
        block
            .sync(warp, 7, LaneSet::range(0, 16), SyncOp::Threads)
            .unwrap();
    }
    let report = block.finish();
    assert_eq!(report.barrier_errors().len(), 2);
    assert_eq!(
        report.barrier_errors()[0].to_string(),
        "divergent barrier 0 at site 0x7: lanes 0-15 of warp 0 reach it, lanes 16-31 do not"
    );
    // if (threadIdx.x < 64) __syncthreads(); in a block of 96
    let mut block = Block::new(SM90, 96).unwrap();
    block.access(2, 1, &one(Op::Store, 0, 0)).unwrap();
    block.sync(0, 5, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.sync(1, 5, LaneSet::FULL, SyncOp::Threads).unwrap();
    block.access(0, 6, &one(Op::Load, 0, 0)).unwrap();
    let report = block.finish();
    assert_eq!(
        report.barrier_errors()[0].to_string(),
        "barrier 0 at site 0x5 waits for 3 warps but only warp(s) 0-1 reach it; warp(s) 2 never do"
    );
    // Released with warps 0 and 1, the held load is still checked: it races.
    assert_eq!(report.hazards().len(), 1);
}

#[test]
fn barriers_in_different_orders_deadlock() {
    let mut block = Block::new(SM90, 64).unwrap();
    let (a, b) = (
        SyncOp::Named { id: 1, threads: 64 },
        SyncOp::Named { id: 2, threads: 64 },
    );
    block.sync(0, 1, LaneSet::FULL, a).unwrap();
    block.sync(0, 2, LaneSet::FULL, b).unwrap();
    block.sync(1, 3, LaneSet::FULL, b).unwrap();
    block.sync(1, 4, LaneSet::FULL, a).unwrap();
    let report = block.finish();
    assert!(report.barrier_errors().len() >= 2, "{report}");
    assert!(report
        .barrier_errors()
        .iter()
        .all(|e| matches!(e, BarrierError::Unreached { .. })));
}

#[test]
fn count_mismatch_and_syncwarp_mask() {
    let mut block = Block::new(SM90, 128).unwrap();
    block
        .sync(0, 1, LaneSet::FULL, SyncOp::Named { id: 3, threads: 64 })
        .unwrap();
    block
        .sync(1, 2, LaneSet::FULL, SyncOp::Named { id: 3, threads: 96 })
        .unwrap();
    block
        .sync(2, 3, LaneSet::FULL, SyncOp::Warp(LaneSet::range(0, 16)))
        .unwrap();
    let report = block.finish();
    let messages: Vec<String> = report
        .barrier_errors()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        messages[0],
        "barrier 3 is reached with a count of 64 threads, then by warp 1 at site 0x2 with 96"
    );
    assert_eq!(
        messages[2],
        "__syncwarp at site 0x3 in warp 2: lanes 16-31 execute it with a mask of 0x0000ffff that excludes them"
    );
}

#[test]
fn bad_input_is_a_typed_error() {
    assert_eq!(
        Block::new(SM90, 0).unwrap_err(),
        Error::BlockThreads {
            threads: 0,
            limit: 1024,
            capability: SM90
        }
    );
    assert_eq!(
        Block::new(ComputeCapability::Sm13, 1024)
            .unwrap_err()
            .to_string(),
        "a block of 1024 threads is not possible on compute capability 1.3: expected 1 to 512"
    );
    let mut block = Block::new(SM90, 64).unwrap();
    let err = block.access(2, 0, &one(Op::Load, 0, 0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "warp 2 does not exist: the block has 2 warps, numbered from 0"
    );
    let err = block
        .sync(0, 0, LaneSet::FULL, SyncOp::Named { id: 1, threads: 96 })
        .unwrap_err();
    assert_eq!(
        err,
        Error::BarrierCount {
            id: 1,
            count: 96,
            block_threads: 64
        }
    );
    assert_eq!(
        block
            .sync(
                0,
                0,
                LaneSet::FULL,
                SyncOp::Named {
                    id: 20,
                    threads: 32
                }
            )
            .unwrap_err()
            .to_string(),
        "barrier 20 does not exist: a block has barriers 0 to 15"
    );
    let err = block
        .access(0, 0, &one(Op::Load, 0, 228 * 1024))
        .unwrap_err();
    assert!(matches!(err, Error::OutsideWindow { .. }), "{err}");
}

#[test]
fn held_events_are_bounded() {
    let mut block = Block::new(SM90, 64).unwrap();
    block.sync(0, 0, LaneSet::FULL, SyncOp::Threads).unwrap();
    let load = one(Op::Load, 0, 0);
    let mut result = Ok(());
    for _ in 0..=Block::MAX_PENDING {
        result = block.access(0, 1, &load);
        if result.is_err() {
            break;
        }
    }
    let err = result.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} instructions wait behind barriers that other warps have not reached: a block holds at most {}",
            Block::MAX_PENDING + 1,
            Block::MAX_PENDING
        )
    );
}

#[test]
fn a_partial_last_warp_counts_only_its_threads() {
    // 48 threads: warp 1 has lanes 0-15; its full-mask barrier is not divergent.
    let mut block = Block::new(SM90, 48).unwrap();
    block.sync(0, 1, LaneSet::FULL, SyncOp::Threads).unwrap();
    block
        .sync(1, 1, LaneSet::range(0, 16), SyncOp::Threads)
        .unwrap();
    assert!(block.finish().is_clean());
}

#[test]
fn block_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Block>();
    assert_send_sync::<smem_model::BlockReport>();
    assert_send_sync::<smem_model::Hazard>();
    assert_send_sync::<smem_model::HazardAccess>();
    assert_send_sync::<BarrierError>();
    assert_send_sync::<SyncOp>();
    assert_send_sync::<smem_model::ConstantLoad>();
}

/// 32 warps read all 228 KB of shared memory, 16 bytes a lane, from 8
/// instructions, with no barrier.
fn read_all(block: &mut Block, warp_major: bool, rotate: bool) -> Result<(), Error> {
    let window = SM90.shared_window_size();
    let read = |block: &mut Block, warp: u32, site: u64| -> Result<(), Error> {
        for base in (0..window).step_by(512) {
            // Rotated, each warp's lanes read other words: out of step.
            let load = WarpRequest::from_fn(Op::Load, 16, |l| {
                let lane = if rotate {
                    (l.get() + warp) % 32
                } else {
                    l.get()
                };
                Some(base + 16 * lane)
            })?;
            block.access(warp, site, &load)?;
        }
        Ok(())
    };
    if warp_major {
        for warp in 0..32 {
            for site in 0..8u64 {
                read(block, warp, site)?;
            }
        }
    } else {
        for site in 0..8u64 {
            for warp in 0..32 {
                read(block, warp, site)?;
            }
        }
    }
    Ok(())
}

/// Issue 21's worst case for memory: one block of 32 warps that each read all
/// 228 KB of shared memory from 8 instructions, with no barrier. The warps
/// are in step, so each word keeps one record per instruction for all 32
/// warps (466,944 records, 14 MiB; the per-byte shadow of ee664fa took
/// 1.46 GB, the per-warp records of 2026-11-26 morning refused the block at
/// 2^21): the block runs, in either order of its warps, and a write after the
/// reads races with every read instruction.
#[test]
fn thirty_two_warps_reading_all_228_kb_from_8_instructions_fit() {
    for warp_major in [false, true] {
        let mut block = Block::new(SM90, 1024).unwrap();
        read_all(&mut block, warp_major, false).unwrap();
        // Lane 0 of warp 5 writes bytes 0-3: every other warp's lane 0 read
        // them, from each of the 8 instructions.
        block.access(5, 9, &one(Op::Store, 0, 0)).unwrap();
        let report = block.try_finish().unwrap();
        let found: Vec<_> = report
            .hazards()
            .iter()
            .map(|h| {
                (
                    h.severity(),
                    h.kind(),
                    h.first().site(),
                    h.second().site(),
                    h.bytes(),
                )
            })
            .collect();
        let expected: Vec<_> = (0..8)
            .map(|site| (Severity::Error, HazardKind::ReadWrite, site, 9, 4))
            .collect();
        assert_eq!(found, expected);
        // The example names the lowest warp that read: warp 0.
        assert_eq!(report.hazards()[0].first().warp(), 0);
    }
}

/// The same reads with each warp's lanes rotated by its number: no two warps
/// touch a word with the same lane, so each needs a record of its own
/// (14.9 M); the model holds at most 2^21 and refuses the block with a typed
/// error naming that limit, instead of growing.
#[test]
fn a_block_needing_more_shadow_records_than_the_bound_is_refused() {
    let mut block = Block::new(SM90, 1024).unwrap();
    let err = read_all(&mut block, false, true).unwrap_err();
    assert_eq!(err, Error::ShadowFull { limit: 1 << 21 });
    assert_eq!(
        err.to_string(),
        "a block's accesses between two barriers of all its warps need more than 2097152 \
         shadow records (one per 4-byte word, instruction, kind of access and set of warps \
         in step): not modelled"
    );
    // Every later call says the same.
    let again = block.access(0, 9, &one(Op::Load, 0, 0));
    assert_eq!(again, Err(Error::ShadowFull { limit: 1 << 21 }));
}

/// The same reads (from 4 instructions) with a `__syncthreads()` after each
/// instruction fit: a barrier of the whole block empties the shadow.
#[test]
fn barriers_of_the_whole_block_empty_the_shadow() {
    let mut block = Block::new(SM90, 1024).unwrap();
    let window = SM90.shared_window_size();
    for site in 0..4u64 {
        for warp in 0..32 {
            for base in (0..window).step_by(512) {
                let load =
                    WarpRequest::from_fn(Op::Load, 16, |l| Some(base + 16 * l.get())).unwrap();
                block.access(warp, site, &load).unwrap();
            }
        }
        block.syncthreads(100 + site).unwrap();
    }
    assert!(block.try_finish().unwrap().is_clean());
}

/// A producer warp writes and arrives (`bar.arrive 1, 64`); the consumer warp
/// waits (`bar.sync 1, 64`) and reads: ordered, and not a barrier error
/// although the two are at different instructions (PTX ISA, `bar.arrive`).
#[test]
fn an_arrival_orders_the_producer_before_the_waiting_consumer() {
    let arrive = SyncOp::Arrive { id: 1, threads: 64 };
    let wait = SyncOp::Named { id: 1, threads: 64 };
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
    block.sync(0, 2, LaneSet::FULL, arrive).unwrap();
    block.sync(1, 3, LaneSet::FULL, wait).unwrap();
    block.access(1, 4, &one(Op::Load, 0, 0)).unwrap();
    let report = block.finish();
    assert!(report.is_clean(), "{report:?}");
}

/// What the producer does after its arrival is ordered after nothing the
/// consumer did: a write there races with the consumer's read, and the
/// consumer's write before its wait races with the producer's later read.
#[test]
fn an_arrival_does_not_order_the_producers_later_accesses() {
    let arrive = SyncOp::Arrive { id: 1, threads: 64 };
    let wait = SyncOp::Named { id: 1, threads: 64 };
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(1, 10, &one(Op::Store, 0, 8)).unwrap();
    block.sync(1, 11, LaneSet::FULL, wait).unwrap();
    block.access(1, 12, &one(Op::Load, 0, 0)).unwrap();
    block.sync(0, 2, LaneSet::FULL, arrive).unwrap();
    block.access(0, 3, &one(Op::Store, 0, 0)).unwrap();
    block.access(0, 4, &one(Op::Load, 0, 8)).unwrap();
    let report = block.finish();
    let mut kinds: Vec<_> = report
        .hazards()
        .iter()
        .map(|h| (h.kind(), h.first().site(), h.second().site()))
        .collect();
    kinds.sort_unstable_by_key(|k| (k.1, k.2));
    assert_eq!(
        kinds,
        [
            (HazardKind::ReadWrite, 3, 12),
            (HazardKind::ReadWrite, 4, 10),
        ]
    );
}

/// Two warps that both only arrive complete the barrier without waiting and
/// order nothing between them.
#[test]
fn arrivals_alone_order_nothing() {
    let arrive = SyncOp::Arrive { id: 2, threads: 64 };
    let mut block = Block::new(SM90, 64).unwrap();
    block.access(0, 1, &one(Op::Store, 0, 0)).unwrap();
    block.sync(0, 2, LaneSet::FULL, arrive).unwrap();
    block.sync(1, 2, LaneSet::FULL, arrive).unwrap();
    block.access(1, 3, &one(Op::Load, 0, 0)).unwrap();
    let report = block.finish();
    assert_eq!(report.hazards().len(), 1, "{report:?}");
    assert!(report.barrier_errors().is_empty(), "{report:?}");
}

#[test]
fn a_hazards_bytes_are_counted_however_many_rows_and_pages_it_spans() {
    // Warp 0 stores one word in each of `rows` rows of `stride` bytes, 32
    // rows an instruction (a row of 64 bytes is one run of 16 words of a
    // hazard's bytes, a row of 4 KiB a page of its bitmap), warp 1 reads
    // them back without a barrier: one hazard of 4 bytes a row. Around the counts where the
    // block model keeps a hazard's bytes otherwise: 1 run, 8 runs in
    // place, 32 runs, then pages.
    for stride in [64, 68, 4096] {
        for rows in [1u32, 2, 8, 9, 31, 32, 33, 40, 53] {
            let mut block = Block::new(SM90, 64).unwrap();
            for site in 0..rows.div_ceil(32) {
                let lanes = |l: u32| {
                    let row = 32 * site + l;
                    (row < rows).then_some(stride * row)
                };
                block.access(0, 1, &req(Op::Store, lanes)).unwrap();
                block.access(1, 9, &req(Op::Load, lanes)).unwrap();
            }
            let report = block.finish();
            assert_eq!(report.hazards().len(), 1);
            assert_eq!(
                report.hazards()[0].bytes(),
                4 * rows,
                "stride {stride}, {rows} rows"
            );
        }
    }
}
