//! `Racecheck`: the block model as a consumer of a kernel's events, fed the
//! way a source (trace, PTX) feeds it (DESIGN.md section 7).

use smem_model::kernel::{BarrierKind, BlockInfo, Consumer, Event, KernelInfo, Site};
use smem_model::{
    ComputeCapability, Error, HazardKind, LaneSet, Op, Racecheck, Severity, WarpRequest,
};

fn access(site: u64, op: Op, f: impl Fn(u32) -> Option<u32>) -> Event<'static> {
    Event::Access {
        site: Site::pc(site),
        request: WarpRequest::from_fn(op, 4, |l| f(l.get())).unwrap(),
    }
}

fn syncthreads(site: u64) -> Event<'static> {
    Event::Barrier {
        site: Site::pc(site),
        lanes: LaneSet::FULL,
        id: 0,
        threads: None,
        kind: BarrierKind::Sync,
    }
}

/// The reverse kernel of 64 threads, one block, with or without its barrier.
fn reverse(check: &mut Racecheck, block: [u32; 3], barrier: bool) -> Result<(), Error> {
    check.begin_block(&BlockInfo::new(block, None))?;
    for warp in 0..2 {
        check.event(
            warp,
            &access(0x10, Op::Store, |l| Some(4 * (32 * warp + l))),
        )?;
        if barrier {
            check.event(warp, &syncthreads(0x20))?;
        }
        check.event(
            warp,
            &access(0x30, Op::Load, |l| Some(4 * (63 - 32 * warp - l))),
        )?;
    }
    check.end_block()
}

#[test]
fn blocks_of_a_kernel_are_merged_by_pair_of_sites_with_the_lowest_block_as_example() {
    let mut check = Racecheck::new();
    check
        .begin_kernel(&KernelInfo::named("reverse").with_block_dim([64, 1, 1]))
        .unwrap();
    reverse(&mut check, [1, 0, 0], false).unwrap();
    reverse(&mut check, [0, 1, 0], true).unwrap();
    reverse(&mut check, [0, 0, 1], false).unwrap();
    reverse(&mut check, [2, 0, 0], false).unwrap();
    check.end_kernel().unwrap();
    let kernels = check.into_kernels();
    assert_eq!(kernels.len(), 1);
    let kernel = &kernels[0];
    assert_eq!(kernel.name(), "reverse");
    assert_eq!(kernel.capability(), ComputeCapability::Sm90);
    assert_eq!((kernel.blocks(), kernel.requests()), (4, 16));
    let findings: Vec<_> = kernel.hazards().collect();
    assert_eq!(findings.len(), 1);
    let finding = findings[0];
    assert_eq!(finding.example().kind(), HazardKind::ReadWrite);
    assert_eq!(finding.example().severity(), Severity::Error);
    // Three racy blocks of 256 bytes each; the lowest (z, y, x) is (1,0,0).
    assert_eq!((finding.blocks(), finding.bytes()), (3, 768));
    assert_eq!(finding.block(), [1, 0, 0]);
    assert!(!kernel.is_clean());
}

#[test]
fn a_block_of_unknown_size_is_sized_by_its_highest_warp() {
    // No thread count anywhere: the block's events are held to its end.
    let mut check = Racecheck::new();
    check.begin_kernel(&KernelInfo::named("k")).unwrap();
    reverse(&mut check, [0, 0, 0], true).unwrap();
    check.end_kernel().unwrap();
    // With 2 warps, the barrier completes: clean. (Sized 1024 threads, it
    // would be a barrier error: warps 2 to 31 never reach it.)
    assert!(check.kernels()[0].is_clean());
    assert_eq!(check.kernels()[0].blocks(), 1);
}

#[test]
fn unmodelled_events_are_counted_by_name_and_cp_async_groups_are_modelled() {
    let mut check = Racecheck::new().with_capability(ComputeCapability::Sm80);
    check
        .begin_kernel(&KernelInfo::named("tma").with_capability(ComputeCapability::Sm90))
        .unwrap();
    check
        .begin_block(&BlockInfo::new([0, 0, 0], Some(32)))
        .unwrap();
    let site = Site::pc(0x40);
    let lanes = LaneSet::FULL;
    for _ in 0..2 {
        let tma = Event::Unmodelled {
            site,
            lanes,
            name: "UTMALDG",
        };
        check.event(0, &tma).unwrap();
    }
    check
        .event(0, &Event::CpAsyncCommit { site, lanes })
        .unwrap();
    check.end_block().unwrap();
    check.end_kernel().unwrap();
    let kernel = &check.kernels()[0];
    // The capability asked for wins over the source's.
    assert_eq!(kernel.capability(), ComputeCapability::Sm80);
    let not_checked: Vec<_> = kernel.not_checked().collect();
    assert_eq!(not_checked, [("UTMALDG", 2)]);
    assert!(kernel.is_clean());
}

#[test]
fn impossible_block_sizes_are_errors_naming_the_value() {
    // -block dim = (65536,65536,1): the product overflows u32.
    let mut check = Racecheck::new();
    check
        .begin_kernel(&KernelInfo::named("k").with_block_dim([65536, 65536, 1]))
        .unwrap();
    let err = check
        .begin_block(&BlockInfo::new([0, 0, 0], None))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a block of 65536 x 65536 x 1 = 4294967296 threads is not possible on compute \
         capability 9.0: expected 1 to 1024"
    );
    // A block of unknown size with warp 40, then warp u32::MAX.
    let mut check = Racecheck::new();
    check.begin_kernel(&KernelInfo::named("k")).unwrap();
    check.begin_block(&BlockInfo::new([0, 0, 0], None)).unwrap();
    let fence = Event::Fence {
        site: Site::pc(0),
        lanes: LaneSet::FULL,
    };
    assert_eq!(
        check.event(40, &fence).unwrap_err().to_string(),
        "a block of 1312 threads is not possible on compute capability 9.0: expected 1 to 1024"
    );
    assert_eq!(
        check.event(u32::MAX, &fence).unwrap_err().to_string(),
        "warp 4294967295 does not exist: the block has 32 warps, numbered from 0"
    );
    // A block of known size: its warps only.
    check
        .begin_block(&BlockInfo::new([1, 0, 0], Some(64)))
        .unwrap();
    assert_eq!(
        check.event(1 << 27, &fence),
        Err(Error::WarpOutOfRange {
            warp: 1 << 27,
            warps: 2
        })
    );
}

#[test]
fn a_block_of_unknown_size_holds_a_bounded_number_of_events() {
    let mut check = Racecheck::new();
    check.begin_block(&BlockInfo::new([0, 0, 0], None)).unwrap();
    let fence = Event::Fence {
        site: Site::pc(0),
        lanes: LaneSet::FULL,
    };
    for _ in 0..Racecheck::MAX_HELD {
        check.event(0, &fence).unwrap();
    }
    assert_eq!(
        check.event(0, &fence).unwrap_err().to_string(),
        "a block of unknown size (no thread count for it or its kernel) has 262145 events \
         before its end: at most 262144 are held"
    );
}

/// One block's events: the racy reverse kernel's, or a variant of it.
fn variant(v: u32) -> Vec<(u32, Event<'static>)> {
    let store = |warp: u32| access(0x10, Op::Store, move |l| Some(4 * (32 * warp + l)));
    let load = |warp: u32| access(0x30, Op::Load, move |l| Some(4 * (63 - 32 * warp - l)));
    let lone = Event::Barrier {
        site: Site::pc(0x50),
        lanes: LaneSet::FULL,
        id: 1,
        threads: None,
        kind: BarrierKind::Sync,
    };
    match v {
        // The racy reverse.
        0 => vec![(0, store(0)), (0, load(0)), (1, store(1)), (1, load(1))],
        // With its barrier: differs at the second event.
        1 => vec![
            (0, store(0)),
            (0, syncthreads(0x20)),
            (0, load(0)),
            (1, store(1)),
            (1, syncthreads(0x20)),
            (1, load(1)),
        ],
        // A prefix of the racy one.
        2 => vec![(0, store(0)), (0, load(0)), (1, store(1))],
        // The racy one and one more write, racing with warp 0's load.
        3 => vec![
            (0, store(0)),
            (0, load(0)),
            (1, store(1)),
            (1, load(1)),
            (1, access(0x40, Op::Store, |l| Some(4 * l))),
        ],
        // A barrier only warp 0 reaches: a barrier error.
        _ => vec![(0, store(0)), (0, lone), (1, store(1)), (1, load(1))],
    }
}

/// A block: its id, its thread count (else its kernel's) and its variant.
type Blk = ([u32; 3], Option<u32>, u32);

/// Runs kernels' blocks, each kernel's blocks after its name.
fn run_blocks(check: Racecheck, kernels: &[(&str, &[Blk])]) -> Vec<smem_model::KernelRaces> {
    let mut check = check;
    for &(name, blocks) in kernels {
        check
            .begin_kernel(&KernelInfo::named(name).with_block_dim([64, 1, 1]))
            .unwrap();
        for &(id, threads, v) in blocks {
            check.begin_block(&BlockInfo::new(id, threads)).unwrap();
            for (warp, event) in variant(v) {
                check.event(warp, &event).unwrap();
            }
            check.end_block().unwrap();
        }
    }
    check.end_kernel().unwrap();
    check.into_kernels()
}

#[test]
fn identical_blocks_reuse_the_reference_report_with_the_same_findings() {
    // The first block of each kernel is its reference; later blocks equal
    // it, differ from it, stop early, go past its end, or have another size.
    let a: &[Blk] = &[
        ([5, 0, 0], None, 0),
        ([4, 0, 0], None, 0),
        ([3, 0, 0], None, 1),
        ([2, 0, 0], None, 2),
        ([1, 0, 0], None, 0),
        ([0, 1, 0], None, 3),
        ([0, 0, 0], Some(96), 0),
        ([6, 0, 0], None, 0),
    ];
    let b: &[Blk] = &[
        ([3, 0, 0], None, 4),
        ([1, 0, 0], None, 4),
        ([2, 0, 0], None, 0),
        ([0, 0, 0], None, 4),
    ];
    let kernels = [("a", a), ("b", b)];
    let memo = run_blocks(Racecheck::new(), &kernels);
    let plain = run_blocks(Racecheck::new().without_memo(), &kernels);
    assert_eq!(memo, plain);
    // What both found: in "a", the reverse race (warp 0's load of warp 1's
    // store) in every block but the one with a barrier, the prefix included,
    // the example from the lowest block that has it.
    let race = memo[0]
        .hazards()
        .find(|f| f.example().second().site() == 0x30)
        .unwrap();
    assert_eq!((race.blocks(), race.block()), (7, [0, 0, 0]));
    assert_eq!(memo[0].blocks(), 8);
    // In "b", the barrier error of three blocks, the example from block 0.
    let error = memo[1].barrier_errors().next().unwrap();
    assert_eq!((error.blocks(), error.block()), (3, [0, 0, 0]));
}

#[test]
fn the_reference_is_bounded() {
    // A block of more events than the bound is no reference: the next
    // blocks run, with the same findings.
    let events = u32::try_from(Racecheck::MAX_REFERENCE).unwrap() + 1;
    let run = |check: Racecheck| {
        let mut check = check;
        check
            .begin_kernel(&KernelInfo::named("long").with_block_dim([64, 1, 1]))
            .unwrap();
        for x in 0..2 {
            check.begin_block(&BlockInfo::new([x, 0, 0], None)).unwrap();
            for i in 0..events {
                let op = if i % 2 == 0 { Op::Store } else { Op::Load };
                check
                    .event(i % 2, &access(0x10 + u64::from(i % 2), op, |l| Some(4 * l)))
                    .unwrap();
            }
            check.end_block().unwrap();
        }
        check.end_kernel().unwrap();
        check.into_kernels()
    };
    let memo = run(Racecheck::new());
    assert_eq!(memo, run(Racecheck::new().without_memo()));
    assert_eq!(memo[0].hazards().next().unwrap().blocks(), 2);
}

/// Blocks whose hazards come before, between and after the kernel's so far
/// (in the order of severity, kind and sites): each pair of sites is one
/// finding, in that order, counted in every block that has it, its example
/// from the lowest block.
#[test]
fn new_hazards_of_later_blocks_go_in_order_among_the_kernels() {
    // Each pair (s, t): warp 0 stores at site s, warp 1 loads at site t, on
    // a word of its own.
    type Pairs = &'static [(u64, u64)];
    let blocks: [([u32; 3], Pairs); 3] = [
        ([2, 0, 0], &[(0x10, 0x50), (0x30, 0x70)]),
        ([1, 0, 0], &[(0x20, 0x40), (0x30, 0x70), (0x40, 0x90)]),
        ([0, 0, 0], &[(0x00, 0x10), (0x10, 0x50), (0x40, 0x90)]),
    ];
    let mut check = Racecheck::new();
    check
        .begin_kernel(&KernelInfo::named("pairs").with_block_dim([64, 1, 1]))
        .unwrap();
    for (id, pairs) in blocks {
        check.begin_block(&BlockInfo::new(id, None)).unwrap();
        for &(s, t) in pairs {
            let word = u32::try_from(s).unwrap();
            check
                .event(0, &access(s, Op::Store, |l| (l == 0).then_some(word)))
                .unwrap();
            check
                .event(1, &access(t, Op::Load, |l| (l == 0).then_some(word)))
                .unwrap();
        }
        check.end_block().unwrap();
    }
    check.end_kernel().unwrap();
    let kernel = &check.into_kernels()[0];
    let found: Vec<_> = kernel
        .hazards()
        .map(|f| {
            let h = f.example();
            (h.first().site(), h.second().site(), f.blocks(), f.block())
        })
        .collect();
    assert_eq!(
        found,
        [
            (0x00, 0x10, 1, [0, 0, 0]),
            (0x10, 0x50, 2, [0, 0, 0]),
            (0x20, 0x40, 1, [1, 0, 0]),
            (0x30, 0x70, 2, [1, 0, 0]),
            (0x40, 0x90, 2, [0, 0, 0]),
        ]
    );
    assert!(kernel
        .hazards()
        .all(|f| f.example().severity() == Severity::Error && f.bytes() == 4 * f.blocks()));
}

/// One block of 64 threads: warp 1 stores to word 0 at a high site, then
/// warp 0 stores to it from each of `sites`: one hazard a site. (A load
/// would wait for warp 1's next event, `Racecheck` holding it back for a
/// compare-and-swap, and meet only the records warp 0 keeps.)
fn one_word(check: &mut Racecheck, block: [u32; 3], sites: core::ops::Range<u64>) {
    let lane0 = |l: u32| (l == 0).then_some(0);
    check.begin_block(&BlockInfo::new(block, None)).unwrap();
    check.event(1, &access(1 << 40, Op::Store, lane0)).unwrap();
    for site in sites {
        check.event(0, &access(site, Op::Store, lane0)).unwrap();
    }
    check.end_block().unwrap();
}

/// Hazards past the cap are counted, one a pair of instructions over all
/// blocks, and not listed (issue 36: 100,000 hazards on one word took
/// 830 MB in `smem kernel`, and `racecheck --max 3` grew to GBs).
#[test]
fn hazards_past_the_cap_are_counted_not_listed() {
    // The default cap, 100,000 hazards in one block.
    let mut check = Racecheck::new();
    check
        .begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))
        .unwrap();
    one_word(&mut check, [0, 0, 0], 0..100_000);
    check.end_kernel().unwrap();
    let k = &check.kernels()[0];
    assert_eq!(k.hazards().len(), smem_model::Block::MAX_HAZARDS);
    assert_eq!(k.hazards_not_listed(), 100_000 - 4096);
    assert_eq!(k.hazards_not_listed_of(Severity::Error), 100_000 - 4096);
    assert_eq!(k.hazards_not_listed_of(Severity::Warning), 0);
    assert!(k.hazards_not_listed_exact());
    // The first listed: the lowest sites, found first.
    assert_eq!(k.hazards().last().unwrap().example().first().site(), 4095);

    // A cap of 10 over two blocks that share half their pairs: 150 pairs,
    // each counted once; a listed pair counts both blocks.
    let mut check = Racecheck::new().with_max_hazards(10).without_memo();
    check
        .begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))
        .unwrap();
    one_word(&mut check, [0, 0, 0], 0..100);
    one_word(&mut check, [1, 0, 0], 50..150);
    one_word(&mut check, [2, 0, 0], 0..10);
    check.end_kernel().unwrap();
    let k = &check.kernels()[0];
    assert_eq!(k.hazards().len(), 10);
    assert_eq!(k.hazards_not_listed(), 140);
    let blocks: Vec<u64> = k.hazards().map(|f| f.blocks()).collect();
    assert_eq!(blocks, [2; 10]);

    // A cap of 0 lists nothing and still finds the kernel racy.
    let mut check = Racecheck::new().with_max_hazards(0);
    check
        .begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))
        .unwrap();
    one_word(&mut check, [0, 0, 0], 0..3);
    check.end_kernel().unwrap();
    let k = &check.kernels()[0];
    assert_eq!((k.hazards().len(), k.hazards_not_listed()), (0, 3));
    assert!(!k.is_clean());
}

/// Past `Block::MAX_NOT_LISTED` hazards not listed the count stops growing
/// and says it is a lower bound: warps 0 and 1 take turns storing to one
/// word, each store its own instruction, so each races with the other
/// warp's latest 32 (about 380,000 pairs).
#[test]
fn the_count_past_its_bound_is_a_lower_bound() {
    let mut check = Racecheck::new();
    check
        .begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))
        .unwrap();
    check.begin_block(&BlockInfo::new([0, 0, 0], None)).unwrap();
    let lane0 = |l: u32| (l == 0).then_some(0);
    for site in 0..12_000u64 {
        let warp = (site % 2) as u32;
        check.event(warp, &access(site, Op::Store, lane0)).unwrap();
    }
    check.end_kernel().unwrap();
    let k = &check.kernels()[0];
    assert_eq!(k.hazards().len(), smem_model::Block::MAX_HAZARDS);
    assert_eq!(
        k.hazards_not_listed(),
        smem_model::Block::MAX_NOT_LISTED as u64
    );
    assert!(!k.hazards_not_listed_exact());
}
