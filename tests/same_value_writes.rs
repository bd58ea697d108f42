//! compute-sanitizer's same-value rule in the block model
//! ([`Block::access_unchanged`]): the nine kernels measured on an H200
//! (compute-sanitizer racecheck, CUDA 13, 2026-11-26;
//! `tests/data/device/samevalue/`: `samevalue.cu`, `racecheck.txt`), each
//! written as the block events its two warps give, in the order the kernel's
//! spin or program order puts them. Every kernel is one block of 64 threads
//! with no barrier between the two accesses that matter; `s` is
//! `__shared__ int s[32]`, so warp `w` lane `l` touches byte `4 * l`.

use smem_model::{Block, ComputeCapability, HazardKind, LaneSet, Op, Severity, WarpRequest};

const STORE: u64 = 1;
const LOAD: u64 = 2;
const LATER: u64 = 3;

fn s(op: Op) -> WarpRequest {
    WarpRequest::from_fn(op, 4, |l| Some(4 * l.get())).unwrap()
}

fn block() -> Block {
    Block::new(ComputeCapability::Sm90, 64).unwrap()
}

/// The hazards of a finished block as (kind, first site, second site, bytes).
fn hazards(block: Block) -> Vec<(HazardKind, u64, u64, u32)> {
    let report = block.finish();
    assert!(report.barrier_errors().is_empty());
    report
        .hazards()
        .iter()
        .map(|h| {
            assert_eq!(h.severity(), Severity::Error);
            (h.kind(), h.first().site(), h.second().site(), h.bytes())
        })
        .collect()
}

/// `s[lane] = x` by warp 0, then by warp 1 (the same instruction); warp 1's
/// lanes `unchanged` store what warp 0 stored.
fn both_warps_store(unchanged: LaneSet) -> Vec<(HazardKind, u64, u64, u32)> {
    let mut b = block();
    b.access(0, STORE, &s(Op::Store)).unwrap();
    b.access_unchanged(1, STORE, &s(Op::Store), unchanged)
        .unwrap();
    b.syncthreads(10).unwrap();
    // if (threadIdx.x == 0) sink = s[0];
    let read0 = WarpRequest::from_fn(Op::Load, 4, |l| (l.get() == 0).then_some(0)).unwrap();
    b.access(0, 11, &read0).unwrap();
    hazards(b)
}

/// `if (tid < 32) s[tid] = v; __syncthreads();` first: every kernel from 4 on.
fn after_first_store() -> Block {
    let mut b = block();
    b.access(0, 0, &s(Op::Store)).unwrap();
    b.syncthreads(0).unwrap();
    b
}

#[test]
fn kernel_0_both_warps_store_the_constant_7_no_hazard() {
    // "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
    assert_eq!(both_warps_store(LaneSet::FULL), vec![]);
}

#[test]
fn kernel_1_warps_store_their_warp_id_waw() {
    // "Potential WAW hazard ... Current Value : 1, Incoming Value : 0", 33 errors.
    assert_eq!(
        both_warps_store(LaneSet::EMPTY),
        vec![(HazardKind::WriteWrite, STORE, STORE, 128)]
    );
}

#[test]
fn kernel_2_both_warps_store_the_same_global_values_no_hazard() {
    // g[lane] is equal for both warps at run time: 0 hazards.
    assert_eq!(both_warps_store(LaneSet::FULL), vec![]);
}

#[test]
fn kernel_3_warps_store_different_global_values_waw() {
    // g[tid]: "Current Value : 132, Incoming Value : 100", 33 errors.
    assert_eq!(
        both_warps_store(LaneSet::EMPTY),
        vec![(HazardKind::WriteWrite, STORE, STORE, 128)]
    );
}

#[test]
fn kernel_4_unchanged_store_while_another_warp_reads_war() {
    // Warp 1 reads s[lane] while warp 0 writes the 0 already there: WAR,
    // "Current Value : 0, Incoming Value : 0", 129 errors.
    let mut b = after_first_store();
    b.access(1, LOAD, &s(Op::Load)).unwrap();
    b.access_unchanged(0, LATER, &s(Op::Store), LaneSet::FULL)
        .unwrap();
    assert_eq!(hazards(b), vec![(HazardKind::ReadWrite, LOAD, LATER, 128)]);
}

#[test]
fn kernel_5_changing_store_while_another_warp_reads_war() {
    let mut b = after_first_store();
    b.access(1, LOAD, &s(Op::Load)).unwrap();
    b.access(0, LATER, &s(Op::Store)).unwrap();
    assert_eq!(hazards(b), vec![(HazardKind::ReadWrite, LOAD, LATER, 128)]);
}

#[test]
fn kernel_6_read_after_an_unchanged_store_raw() {
    // Warp 0 writes the 5 already there; warp 1 reads later (after a spin).
    let mut b = after_first_store();
    b.access_unchanged(0, STORE, &s(Op::Store), LaneSet::FULL)
        .unwrap();
    b.access(1, LATER, &s(Op::Load)).unwrap();
    assert_eq!(hazards(b), vec![(HazardKind::ReadWrite, STORE, LATER, 128)]);
}

#[test]
fn kernel_7_changing_store_after_an_unchanged_store_waw() {
    // Warp 0 writes the 5 already there; warp 1 later writes 9: WAW.
    let mut b = after_first_store();
    b.access_unchanged(0, STORE, &s(Op::Store), LaneSet::FULL)
        .unwrap();
    b.access(1, LATER, &s(Op::Store)).unwrap();
    assert_eq!(
        hazards(b),
        vec![(HazardKind::WriteWrite, STORE, LATER, 128)]
    );
}

#[test]
fn kernel_8_read_after_a_changing_store_raw() {
    let mut b = after_first_store();
    b.access(0, STORE, &s(Op::Store)).unwrap();
    b.access(1, LATER, &s(Op::Load)).unwrap();
    assert_eq!(hazards(b), vec![(HazardKind::ReadWrite, STORE, LATER, 128)]);
}

#[test]
fn only_the_changing_lanes_race() {
    // Lanes 0-15 of warp 1 store what warp 0 stored, lanes 16-31 something
    // else: the hazard covers the 64 bytes of lanes 16-31, and its example
    // names the first changing lane.
    let mut b = block();
    b.access(0, STORE, &s(Op::Store)).unwrap();
    b.access_unchanged(1, STORE, &s(Op::Store), LaneSet::range(0, 16))
        .unwrap();
    let report = b.finish();
    assert_eq!(report.hazards().len(), 1);
    let hazard = &report.hazards()[0];
    assert_eq!(
        (hazard.kind(), hazard.bytes()),
        (HazardKind::WriteWrite, 64)
    );
    assert_eq!(hazard.address(), 64);
    assert_eq!(hazard.second().lane().index(), 16);
}

#[test]
fn an_unchanged_store_still_races_with_an_atomic_and_a_pending_copy() {
    // An atomic reads as well as writes; a cp.async not yet waited for has
    // not landed: neither is an earlier plain write of the same value.
    let mut b = block();
    b.access(0, 1, &s(Op::ATOMIC_ADD)).unwrap();
    b.access_unchanged(1, 2, &s(Op::Store), LaneSet::FULL)
        .unwrap();
    assert_eq!(hazards(b), vec![(HazardKind::WriteWrite, 1, 2, 128)]);
    let mut b = block();
    let copy = WarpRequest::from_fn(Op::CpAsync(smem_model::CpAsync::Ca), 4, |l| {
        Some(4 * l.get())
    })
    .unwrap();
    b.access(0, 1, &copy).unwrap();
    b.access_unchanged(1, 2, &s(Op::Store), LaneSet::FULL)
        .unwrap();
    assert_eq!(hazards(b).len(), 1);
}

#[test]
fn unchanged_is_ignored_but_for_stores() {
    // A load after a store races whatever the caller says of its lanes.
    let mut b = block();
    b.access(0, 1, &s(Op::Store)).unwrap();
    b.access_unchanged(1, 2, &s(Op::Load), LaneSet::FULL)
        .unwrap();
    assert_eq!(hazards(b), vec![(HazardKind::ReadWrite, 1, 2, 128)]);
}

#[test]
fn lanes_of_one_warp_follow_the_same_rule() {
    // Lane l + 1 stores over what lane l stored, no __syncwarp: a warning,
    // unless it stores the same value.
    let run = |unchanged: LaneSet| {
        let mut b = Block::new(ComputeCapability::Sm90, 32).unwrap();
        b.access(0, 1, &s(Op::Store)).unwrap();
        let next = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * ((l.get() + 1) % 32))).unwrap();
        b.access_unchanged(0, 2, &next, unchanged).unwrap();
        b.finish()
    };
    let racy = run(LaneSet::EMPTY);
    assert_eq!(racy.hazards().len(), 1);
    assert_eq!(racy.hazards()[0].severity(), Severity::Warning);
    assert!(run(LaneSet::FULL).is_clean());
}

#[test]
fn an_unchanged_store_held_behind_a_barrier_keeps_its_lanes() {
    // Warp 1 waits at a named barrier of warps 1 and 2; its store is held
    // until warp 2 arrives, then run against warp 0's store, which no barrier
    // orders: with its unchanged lanes, as given.
    let run = |unchanged: LaneSet| {
        let mut b = Block::new(ComputeCapability::Sm90, 96).unwrap();
        let bar = smem_model::SyncOp::Named { id: 1, threads: 64 };
        b.access(0, 1, &s(Op::Store)).unwrap();
        b.sync(1, 5, LaneSet::FULL, bar).unwrap();
        b.access_unchanged(1, 6, &s(Op::Store), unchanged).unwrap();
        b.sync(2, 5, LaneSet::FULL, bar).unwrap();
        hazards(b)
    };
    assert_eq!(run(LaneSet::FULL), vec![]);
    assert_eq!(
        run(LaneSet::EMPTY),
        vec![(HazardKind::WriteWrite, 1, 6, 128)]
    );
}

#[test]
fn racecheck_passes_unchanged_lanes_on_and_tells_blocks_apart_by_them() {
    use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Site};
    use smem_model::Racecheck;

    // Block 0: both warps store the same values; block 1: different ones.
    // Block 1's events equal block 0's but for the unchanged lanes, so it
    // must not reuse block 0's report.
    let mut check = Racecheck::new();
    check
        .begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))
        .unwrap();
    let store = Event::Access {
        site: Site::pc(STORE),
        request: s(Op::Store),
    };
    for (block, unchanged) in [(0, LaneSet::FULL), (1, LaneSet::EMPTY), (2, LaneSet::FULL)] {
        check
            .begin_block(&BlockInfo::new([block, 0, 0], None))
            .unwrap();
        check.event(0, &store).unwrap();
        check.event_unchanged(1, &store, unchanged).unwrap();
        check.end_block().unwrap();
    }
    check.end_kernel().unwrap();
    let kernel = &check.kernels()[0];
    assert_eq!((kernel.blocks(), kernel.requests()), (3, 6));
    let findings: Vec<_> = kernel.hazards().collect();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].example().kind(), HazardKind::WriteWrite);
    assert_eq!((findings[0].block(), findings[0].blocks()), ([1, 0, 0], 1));
}
