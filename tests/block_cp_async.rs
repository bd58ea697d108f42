//! `cp.async` in the block model (PTX ISA, cp.async.wait_group /
//! cp.async.wait_all, completion mechanisms for asynchronous copy operations):
//! a `cp.async` write is a write at its shared address that completes only
//! when its thread waits for its group; other threads see it only through a
//! barrier passed after that wait. Every access that can see it incomplete,
//! the issuing thread's own included, races with it.

use smem_model::{
    AccessKind, Block, ComputeCapability, CpAsync, HazardKind, LaneSet, Op, Severity, SyncOp,
    WarpRequest,
};

const SM80: ComputeCapability = ComputeCapability::Sm80;

/// `cp.async.cg.shared.global` of 16 bytes a lane: lane `l` of warp `w`
/// writes bytes `512 * w + 16 * l` onwards.
fn copy(warp: u32) -> WarpRequest {
    WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |l| {
        Some(512 * warp + 16 * l.get())
    })
    .unwrap()
}

/// Lane `l` of a warp reads 16 bytes at `512 * from + 16 * l`.
fn read(from: u32) -> WarpRequest {
    WarpRequest::from_fn(Op::Load, 16, |l| Some(512 * from + 16 * l.get())).unwrap()
}

fn sync(block: &mut Block, warp: u32, site: u64, op: SyncOp) {
    block.sync(warp, site, LaneSet::FULL, op).unwrap();
}

/// Each warp copies its 512 bytes, then the steps in `between` run on both
/// warps, then each warp reads the other's bytes.
fn pipeline(between: &[SyncOp]) -> smem_model::BlockReport {
    let mut block = Block::new(SM80, 64).unwrap();
    for warp in 0..2 {
        block.access(warp, 0x10, &copy(warp)).unwrap();
        for (i, &op) in between.iter().enumerate() {
            sync(&mut block, warp, 0x20 + i as u64, op);
        }
        block.access(warp, 0x80, &read(1 - warp)).unwrap();
    }
    block.finish()
}

#[test]
fn wait_then_barrier_makes_the_copy_visible_to_other_warps() {
    let report = pipeline(&[
        SyncOp::CpAsyncCommit,
        SyncOp::CpAsyncWait { pending: 0 },
        SyncOp::Threads,
    ]);
    assert!(report.is_clean(), "{report}");
    // cp.async.mbarrier.arrive then a barrier, likewise.
    assert!(pipeline(&[SyncOp::CpAsyncArrive, SyncOp::Threads]).is_clean());
}

/// Copies completed through `cp.async.mbarrier.arrive` leave the check at the
/// arrive, as compute-sanitizer's racecheck forgets them there (measured on an
/// H200: tests/data/ptx/mbarrier_sanitizer, `cpasync_mbar_nowait`): read by
/// the other warp after it with nothing else ordering them, no hazard. With
/// the wait instead, the same reads race. Within the copy's warp a read while
/// it is in flight stands (racecheck's warning, measured:
/// tests/data/ptx/async_sanitizer, `noinc_bar_before_arrive`); another warp's
/// read then is dropped with the copy (a modelling choice: racecheck's verdict
/// between warps follows the GPU's timing), and races if the copy never
/// completes.
#[test]
fn copies_completed_through_an_mbarrier_leave_the_check_at_the_arrive() {
    let report = pipeline(&[SyncOp::CpAsyncArrive]);
    assert!(report.is_clean(), "{report}");
    let report = pipeline(&[SyncOp::CpAsyncCommit, SyncOp::CpAsyncWait { pending: 0 }]);
    assert!(!report.is_clean());
    for arrive in [true, false] {
        let mut block = Block::new(SM80, 64).unwrap();
        block.access(0, 0x10, &copy(0)).unwrap();
        block.access(1, 0x80, &read(0)).unwrap();
        if arrive {
            sync(&mut block, 0, 0x20, SyncOp::CpAsyncArrive);
        }
        assert_eq!(block.finish().hazards().len(), usize::from(!arrive));
    }
    // Lane l reads what lane l ^ 1 copies, before the warp's arrive.
    let mut block = Block::new(SM80, 32).unwrap();
    block.access(0, 0x10, &copy(0)).unwrap();
    let partner = WarpRequest::from_fn(Op::Load, 16, |l| Some(16 * (l.get() ^ 1))).unwrap();
    block.access(0, 0x80, &partner).unwrap();
    sync(&mut block, 0, 0x20, SyncOp::CpAsyncArrive);
    let report = block.finish();
    assert_eq!(report.hazards().len(), 1, "{report}");
    assert_eq!(
        report.hazards()[0].to_string(),
        "warning read-write: cp.async write at site 0x10 by warp 0 lane 1 and read at site 0x80 \
         by warp 0 lane 0 on 512 byte(s), e.g. 0x10"
    );
}

#[test]
fn a_barrier_without_the_wait_leaves_the_copy_incomplete() {
    let report = pipeline(&[SyncOp::CpAsyncCommit, SyncOp::Threads]);
    let h = &report.hazards()[0];
    assert_eq!(
        (h.severity(), h.kind()),
        (Severity::Error, HazardKind::ReadWrite)
    );
    assert_eq!(h.first().access(), AccessKind::AsyncCopy);
    assert_eq!(h.second().access(), AccessKind::Read);
    assert_eq!(h.bytes(), 1024);
    assert_eq!(
        h.to_string(),
        // Warp 0 is released from the barrier first: it reads warp 1's bytes.
        "error read-write: cp.async write at site 0x10 by warp 1 lane 0 and read at site 0x80 \
         by warp 0 lane 0 on 1024 byte(s), e.g. 0x200"
    );
}

#[test]
fn the_wait_without_a_barrier_orders_nothing_for_other_warps() {
    let report = pipeline(&[SyncOp::CpAsyncCommit, SyncOp::CpAsyncWait { pending: 0 }]);
    assert_eq!(report.hazards().len(), 1);
    assert_eq!(report.hazards()[0].severity(), Severity::Error);
    // A barrier before the wait does not help either: the copy may land
    // after the other warp's read.
    let report = pipeline(&[
        SyncOp::CpAsyncCommit,
        SyncOp::Threads,
        SyncOp::CpAsyncWait { pending: 0 },
    ]);
    assert_eq!(report.hazards().len(), 1, "{report}");
}

#[test]
fn the_issuing_thread_reads_its_copy_only_after_its_wait() {
    for (wait, races) in [(false, true), (true, false)] {
        let mut block = Block::new(SM80, 32).unwrap();
        block.access(0, 0x10, &copy(0)).unwrap();
        sync(&mut block, 0, 0x20, SyncOp::CpAsyncCommit);
        if wait {
            sync(&mut block, 0, 0x30, SyncOp::CpAsyncWait { pending: 0 });
        }
        // Each lane reads the 16 bytes it copied itself.
        block.access(0, 0x40, &read(0)).unwrap();
        let report = block.finish();
        assert_eq!(!report.is_clean(), races, "wait {wait}: {report}");
        if races {
            // Its own warp: a warning, as racecheck's for the other lanes of
            // the warp ("(Warp Level Programming) ... (invalid memcpy_async
            // synchronization)", measured: tests/data/ptx/async_sanitizer,
            // waitgroup_nowait); for the thread itself a modelling choice.
            let h = &report.hazards()[0];
            assert_eq!(h.severity(), Severity::Warning);
            assert_eq!(h.first().thread(), h.second().thread());
        }
    }
}

#[test]
fn wait_group_completes_all_but_the_most_recent_groups() {
    // Double buffering: stage 0 then stage 1 in flight, wait_group 1 completes
    // stage 0 only.
    let mut block = Block::new(SM80, 64).unwrap();
    let stage = |s: u32| {
        WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |l| {
            Some(1024 * s + 16 * l.get())
        })
        .unwrap()
    };
    let load =
        |s: u32| WarpRequest::from_fn(Op::Load, 16, |l| Some(1024 * s + 16 * l.get())).unwrap();
    // Warp 0 copies both stages, warp 1 reads them after the barrier.
    block.access(0, 0x10, &stage(0)).unwrap();
    sync(&mut block, 0, 0x18, SyncOp::CpAsyncCommit);
    block.access(0, 0x20, &stage(1)).unwrap();
    sync(&mut block, 0, 0x28, SyncOp::CpAsyncCommit);
    sync(&mut block, 0, 0x30, SyncOp::CpAsyncWait { pending: 1 });
    sync(&mut block, 0, 0x40, SyncOp::Threads);
    sync(&mut block, 1, 0x40, SyncOp::Threads);
    block.access(1, 0x50, &load(0)).unwrap();
    block.access(1, 0x60, &load(1)).unwrap();
    let report = block.finish();
    // Stage 1 is still in flight: its read races, stage 0's does not.
    assert_eq!(report.hazards().len(), 1, "{report}");
    let h = &report.hazards()[0];
    assert_eq!((h.first().site(), h.second().site()), (0x20, 0x60));
}

/// A loop that commits `cp.async` groups and never waits for them is refused
/// past `Block::MAX_OPEN_GROUPS`, with a message naming the warp, the count
/// and the limit (each open group keeps its copies pending: without the bound
/// the check's time grows with the square of the iterations); a pipeline that
/// waits every iteration runs on.
#[test]
fn copy_groups_never_waited_for_are_refused_past_the_bound() {
    use smem_model::{Block, ComputeCapability, CpAsync, Error, LaneSet, Op, SyncOp, WarpRequest};
    let copy = WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |l| Some(16 * l.get())).unwrap();
    let mut block = Block::new(ComputeCapability::Sm90, 64).unwrap();
    let mut refused = None;
    for i in 0..1000 {
        block.access(1, 1, &copy).unwrap();
        if let Err(e) = block.sync(1, 2, LaneSet::FULL, SyncOp::CpAsyncCommit) {
            refused = Some((i, e));
            break;
        }
    }
    let (at, err) = refused.unwrap();
    assert_eq!(at, Block::MAX_OPEN_GROUPS);
    assert_eq!(
        err,
        Error::OpenCopyGroups {
            warp: 1,
            groups: 65,
            limit: 64
        }
    );
    assert_eq!(
        err.to_string(),
        "warp 1 has 65 cp.async groups committed and not waited for \
         (cp.async.wait_group / wait_all), more than the 64 the race checker follows: not modelled"
    );
    // Waiting for all but one group each iteration keeps one open.
    let mut block = Block::new(ComputeCapability::Sm90, 64).unwrap();
    for _ in 0..1000 {
        block.access(1, 1, &copy).unwrap();
        block
            .sync(1, 2, LaneSet::FULL, SyncOp::CpAsyncCommit)
            .unwrap();
        block
            .sync(1, 3, LaneSet::FULL, SyncOp::CpAsyncWait { pending: 1 })
            .unwrap();
    }
}

/// The conflicts held while a copy is in flight are bounded (65,536, the
/// block model's docs): past that the oldest are noted as if the copy were
/// seen, so a copy completed through an mbarrier after more reads than that
/// has its hazard, where one read fewer than the bound leaves none.
#[test]
fn conflicts_held_for_a_copy_in_flight_are_bounded() {
    // Each read of warp 0's 512 bytes conflicts on 128 words.
    let held = |reads: u32| {
        let mut block = Block::new(SM80, 64).unwrap();
        block.access(0, 0x10, &copy(0)).unwrap();
        for _ in 0..reads {
            block.access(1, 0x80, &read(0)).unwrap();
        }
        sync(&mut block, 0, 0x20, SyncOp::CpAsyncArrive);
        block.finish()
    };
    assert!(held(65_536 / 128).is_clean());
    assert_eq!(held(65_536 / 128 + 1).hazards().len(), 1);
}
