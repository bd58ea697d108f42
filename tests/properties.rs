//! Property tests: the fast scheduler against the slow reference partitioner
//! (`tests/reference`), and the invariants every partition must keep.
//!
//! The requests come from the crate's own exported strategies
//! (`smem_model::strategy`), so this file needs the `proptest` feature:
//! `cargo test --all-features --test properties`.
#![cfg(feature = "proptest")]

mod cases;
mod reference;

use proptest::prelude::*;
use proptest::sample::select;

use reference::Family;
use smem_model::strategy::{config, config_and_request, config_for, request_for, request_with};
use smem_model::{
    AccessWidth, AtomicKind, BankConfig, BankWidth, Classification, ComputeCapability, LaneSet, Op,
    SharedMemConfig, WarpRequest,
};

/// The number of 4-byte parts 1.x splits an access into (1 elsewhere).
fn parts(config: BankConfig, request: &WarpRequest) -> u32 {
    if reference::family(config) == Family::Tesla && request.width().bytes() > 4 {
        request.width().bytes() / 4
    } else {
        1
    }
}

/// `request` with the addresses of its active lanes permuted by `perm` (a
/// permutation of `0..32`): the i-th active lane gets the address of the j-th
/// active lane, where j is the i-th entry of `perm` below the number of active
/// lanes. The active set is unchanged.
fn permute_active(request: &WarpRequest, perm: &[usize]) -> WarpRequest {
    let lanes: Vec<_> = request.active().iter().collect();
    let order: Vec<usize> = perm.iter().copied().filter(|&j| j < lanes.len()).collect();
    let mut addresses = [None; 32];
    for (i, lane) in lanes.iter().enumerate() {
        addresses[lane.index()] = request.address(lanes[order[i]]);
    }
    WarpRequest::new(request.op(), request.width().bytes(), addresses).unwrap()
}

/// Configurations whose loads and stores of at most 4 bytes are one 32-lane
/// phase served by multicast: 2.0 and later, in every bank mode.
fn multicast_config() -> impl Strategy<Value = BankConfig> {
    let capabilities: Vec<_> = ComputeCapability::ALL
        .into_iter()
        .filter(|cc| cc.major() >= 2)
        .collect();
    select(capabilities).prop_flat_map(config_for)
}

/// Requests whose every phase is served by multicast: any request from 2.0 on,
/// and 1.x atomics.
fn multicast_request() -> impl Strategy<Value = (BankConfig, WarpRequest)> {
    let tesla_atomics = select(vec![ComputeCapability::Sm12, ComputeCapability::Sm13])
        .prop_flat_map(|cc| {
            let config = BankConfig::new(cc);
            (
                Just(config),
                request_with(config, Op::ATOMIC_ADD, AccessWidth::B4),
            )
        });
    prop_oneof![
        9 => multicast_config().prop_flat_map(|config| (Just(config), request_for(config))),
        1 => tesla_atomics,
    ]
}

/// Requests of the atomics nvcc emulates with a compare-and-swap loop, on
/// capabilities that have them (drawn directly: filtering all requests for
/// them rejects too many).
fn cas_loop_request() -> impl Strategy<Value = (BankConfig, WarpRequest)> {
    let loops: Vec<(Op, AccessWidth)> = Op::ALL
        .iter()
        .flat_map(|&op| op.widths().iter().map(move |&width| (op, width)))
        .filter(|&(op, width)| op.is_cas_loop(width))
        .collect();
    (config(), select(loops))
        .prop_filter("the capability has the op", |(config, (op, width))| {
            config.check_access(*op, *width).is_ok()
        })
        .prop_flat_map(|(config, (op, width))| (Just(config), request_with(config, op, width)))
}

/// Requests of the ops with a fast path of their own, on capabilities that
/// have them: native atomics and reductions of every kind and width and
/// `cp.async` (the lane-counting path), and 8- and 16-byte loads and stores
/// (the wide path's vectorised phases, merged or not).
fn fast_path_request() -> impl Strategy<Value = (BankConfig, WarpRequest)> {
    let ops: Vec<(Op, AccessWidth)> = Op::ALL
        .iter()
        .flat_map(|&op| op.widths().iter().map(move |&width| (op, width)))
        .filter(|&(op, width)| match op {
            Op::Atomic(_) | Op::Reduction(_) => !op.is_cas_loop(width),
            Op::CpAsync(_) => true,
            Op::Load | Op::Store => width.bytes() >= 8,
            _ => false,
        })
        .collect();
    (config(), select(ops))
        .prop_filter("the capability has the op", |(config, (op, width))| {
            config.check_access(*op, *width).is_ok()
        })
        .prop_flat_map(|(config, (op, width))| (Just(config), request_with(config, op, width)))
}

fn narrow_width() -> impl Strategy<Value = AccessWidth> {
    select(vec![AccessWidth::B1, AccessWidth::B2, AccessWidth::B4])
}

fn any_width() -> impl Strategy<Value = AccessWidth> {
    select(vec![
        AccessWidth::B1,
        AccessWidth::B2,
        AccessWidth::B4,
        AccessWidth::B8,
        AccessWidth::B16,
    ])
}

fn kepler() -> impl Strategy<Value = ComputeCapability> {
    select(vec![
        ComputeCapability::Sm30,
        ComputeCapability::Sm32,
        ComputeCapability::Sm35,
        ComputeCapability::Sm37,
    ])
}

proptest! {
    // The central check: many cases, each a few microseconds (20,000 unless
    // PROPTEST_CASES says otherwise).
    #![proptest_config(cases::cases(20_000))]

    /// The fast model and the reference agree on every transaction (phase, part,
    /// lanes, in order) and on every total.
    #[test]
    fn fast_partition_matches_reference((config, request) in config_and_request()) {
        let fast = config.partition(&request).unwrap();
        let slow = reference::partition(config, &request);

        let fast_steps: Vec<(u32, u32, u32, LaneSet)> =
            fast.transactions().map(|t| (t.round(), t.phase(), t.part(), t.lanes())).collect();
        let slow_steps: Vec<(u32, u32, u32, LaneSet)> =
            slow.transactions.iter().map(|t| (t.round, t.phase, t.part, t.lanes)).collect();
        prop_assert_eq!(fast_steps, slow_steps);
        prop_assert_eq!(
            (fast.load_wavefronts(), fast.instructions()),
            (slow.loads, slow.rounds)
        );

        prop_assert_eq!(config.wavefronts(&request).unwrap(), fast.wavefronts());
        let cost = config.cost(&request).unwrap();
        prop_assert_eq!(cost, fast.cost());
        prop_assert_eq!(
            (cost.wavefronts(), cost.ideal_wavefronts(), cost.ways()),
            (slow.wavefronts(), slow.ideal, slow.ways)
        );
        prop_assert_eq!(fast.wavefronts(), slow.wavefronts());
        prop_assert_eq!(fast.transactions().len() as u32, slow.wavefronts());
        prop_assert_eq!(fast.ideal_wavefronts(), slow.ideal);
        prop_assert_eq!(fast.bank_conflicts(), slow.wavefronts() - slow.ideal);
        prop_assert_eq!(fast.ways(), slow.ways);
        // Distinct bytes, the obvious way: every byte of every active lane in a set.
        let bytes: std::collections::BTreeSet<u64> = request
            .active_addresses()
            .flat_map(|(_, a)| (0..u64::from(request.width().bytes())).map(move |b| u64::from(a) + b))
            .collect();
        prop_assert_eq!(fast.distinct_bytes() as usize, bytes.len());
        match fast.bandwidth_fraction() {
            None => prop_assert_eq!(slow.wavefronts(), 0),
            Some(f) => {
                let capacity = f64::from(slow.wavefronts()) * f64::from(config.wavefront_bytes());
                prop_assert_eq!(f, bytes.len() as f64 / capacity);
                // The wavefronts never move more than they can.
                prop_assert!(f <= 1.0, "{}", f);
            }
        }
    }
}

proptest! {
    #![proptest_config(cases::cases(10_000))]

    /// The ops with a fast path of their own (native atomics, reductions,
    /// `cp.async`; 8- and 16-byte loads and stores) give the reference's
    /// transactions (phase, lanes, in order) and totals, counted and
    /// recorded.
    #[test]
    fn fast_paths_match_reference((config, request) in fast_path_request()) {
        let fast = config.partition(&request).unwrap();
        let slow = reference::partition(config, &request);
        let fast_steps: Vec<(u32, u32, LaneSet)> =
            fast.transactions().map(|t| (t.phase(), t.part(), t.lanes())).collect();
        let slow_steps: Vec<(u32, u32, LaneSet)> =
            slow.transactions.iter().map(|t| (t.phase, t.part, t.lanes)).collect();
        prop_assert_eq!(fast_steps, slow_steps);
        let cost = config.cost(&request).unwrap();
        prop_assert_eq!(cost, fast.cost());
        prop_assert_eq!(
            (cost.wavefronts(), cost.ideal_wavefronts(), cost.ways()),
            (slow.wavefronts(), slow.ideal, slow.ways)
        );
    }
}

proptest! {
    /// Full warps at evenly spaced addresses (`base + stride * lane`, strides
    /// of any sign, word-sized or not, every width): the closed form the model
    /// takes for them gives the reference's transactions and count.
    #[test]
    fn evenly_spaced_warps_match_reference(
        config in multicast_config(),
        op in select(vec![Op::Load, Op::Store]),
        width in any_width(),
        offset in 0u32..64,
        stride in prop_oneof![
            select(vec![0i32, 1, 2, 4, 8, 16, 32, 64, 96, 128, -32, -128, 33, -1]),
            -190i32..=190,
        ],
    ) {
        // Inside every multicast capability's window (48 KB at the least):
        // 31 steps stay within 24 KB of the base.
        let base = 24 * 1024 + offset / width.bytes() * width.bytes();
        let stride = stride % (768 / width.bytes() as i32 + 1);
        let step = stride * width.bytes() as i32;
        let request = WarpRequest::from_fn(op, width.bytes(), |lane| {
            Some(base.wrapping_add_signed(step * lane.get() as i32))
        }).unwrap();
        let fast = config.partition(&request).unwrap();
        let slow = reference::partition(config, &request);
        let fast_steps: Vec<LaneSet> = fast.transactions().map(|t| t.lanes()).collect();
        let slow_steps: Vec<LaneSet> = slow.transactions.iter().map(|t| t.lanes).collect();
        prop_assert_eq!(fast_steps, slow_steps);
        prop_assert_eq!(config.wavefronts(&request).unwrap(), slow.wavefronts());
        let cost = config.cost(&request).unwrap();
        prop_assert_eq!(
            (cost.wavefronts(), cost.ideal_wavefronts(), cost.ways()),
            (slow.wavefronts(), slow.ideal, slow.ways)
        );
    }
}

proptest! {
    #![proptest_config(cases::cases(4096))]

    /// The compare-and-swap loops (counted directly on 2.x and from 5.0 on,
    /// by the slow loop on Kepler) give the reference loop's transactions
    /// (round, phase, lanes, in order), loads, rounds and totals, counted and
    /// recorded, on every capability that has them.
    #[test]
    fn cas_loops_match_reference((config, request) in cas_loop_request()) {
        let fast = config.partition(&request).unwrap();
        let slow = reference::cas_loop(config, &request);
        let fast_steps: Vec<(u32, u32, LaneSet)> =
            fast.transactions().map(|t| (t.round(), t.phase(), t.lanes())).collect();
        let slow_steps: Vec<(u32, u32, LaneSet)> =
            slow.transactions.iter().map(|t| (t.round, t.phase, t.lanes)).collect();
        prop_assert_eq!(fast_steps, slow_steps);
        prop_assert_eq!(
            (fast.load_wavefronts(), fast.instructions()),
            (slow.loads, slow.rounds)
        );
        let cost = config.cost(&request).unwrap();
        prop_assert_eq!(cost, fast.cost());
        prop_assert_eq!(
            (cost.wavefronts(), cost.ideal_wavefronts(), cost.ways()),
            (slow.wavefronts(), slow.ideal, slow.ways)
        );
    }
}

proptest! {
    #![proptest_config(cases::cases(2048))]

    /// A compare-and-swap loop ends: every round at least one lane succeeds,
    /// so there are at most as many rounds as active lanes, and at least as
    /// many as the most lanes on one address; each round loads at least one
    /// wavefront and tries in 2 ATOMS wavefronts per phase with pending lanes.
    #[test]
    fn cas_loops_end((config, request) in cas_loop_request()) {
        let partition = config.partition(&request).unwrap();
        let active = request.active().len() as u32;
        let rounds = partition.instructions();
        prop_assert!(rounds <= active);
        let most_on_one_address = request
            .active_addresses()
            .map(|(_, a)| request.active_addresses().filter(|&(_, b)| b == a).count() as u32)
            .max()
            .unwrap_or(0);
        prop_assert!(rounds >= most_on_one_address);
        prop_assert!(partition.load_wavefronts() >= rounds);
        prop_assert_eq!(partition.wavefronts() % 2, 0);
        prop_assert!(partition.wavefronts() >= 2 * rounds);
        prop_assert!(partition.wavefronts() <= 4 * rounds);
        // Every active lane tries in the first round.
        let first: LaneSet = partition
            .transactions()
            .filter(|t| t.round() == 0)
            .fold(LaneSet::EMPTY, |acc, t| acc.union(t.lanes()));
        prop_assert_eq!(first, request.active());
    }

    /// The reference's step assignment agrees with the degree definition of the
    /// rules (the sum of the phases' degrees) wherever steps are multicast. The
    /// 1.x single broadcast can only take more steps than the degree, since a step
    /// still reads one word per bank.
    #[test]
    fn reference_steps_agree_with_degrees((config, request) in config_and_request()) {
        let steps = reference::partition(config, &request).wavefronts();
        let degrees = reference::wavefronts_by_degree(config, &request);
        if request.op().is_cas_loop(request.width()) {
            return Ok(());
        }
        if reference::family(config) == Family::Tesla && !reference::counts_lanes(request.op()) {
            prop_assert!(steps >= degrees);
        } else {
            prop_assert_eq!(steps, degrees);
        }
    }

    /// Every active lane is served exactly once per part; inactive lanes never.
    #[test]
    fn every_active_lane_is_served_once_per_part((config, request) in config_and_request()) {
        // A loop serves its pending lanes every round (see `cas_loops_end`).
        if request.op().is_cas_loop(request.width()) {
            return Ok(());
        }
        // cas serves each step twice: keep one of each pair.
        let partition = config.partition(&request).unwrap();
        let repeat = if request.op().atomic() == Some(AtomicKind::Cas) { 2 } else { 1 };
        let active = request.active();
        let parts = parts(config, &request);
        for part in 0..parts {
            let mut served = LaneSet::EMPTY;
            let mut count = 0;
            for t in partition.transactions().filter(|t| t.part() == part).step_by(repeat) {
                prop_assert!(t.lanes().intersection(served).is_empty(), "lane served twice");
                served = served.union(t.lanes());
                count += t.lanes().len();
            }
            prop_assert_eq!(served, active);
            prop_assert_eq!(count, active.len());
        }
        prop_assert!(partition.transactions().all(|t| t.part() < parts));
        // A transaction's lanes all belong to its phase.
        let mut size = reference::phase_size(config, request.op(), request.width()) as u32;
        if reference::merges(config, &request) {
            size *= 2;
        }
        for t in partition.transactions() {
            prop_assert!(t.phase() < 32 / size);
            let phase = LaneSet::range(t.phase() * size, (t.phase() + 1) * size);
            prop_assert_eq!(t.lanes().intersection(phase), t.lanes());
        }
    }

    /// Within one transaction no bank delivers two rows: one distinct word per
    /// bank, except on 3.x in four-byte mode, where a 64-bit bank row delivers
    /// words i and i + 32 of one 256-byte segment together. Atomics never share a
    /// word between lanes, and 1.x broadcasts at most one word per step.
    #[test]
    fn transactions_are_conflict_free((config, request) in config_and_request()) {
        // A loop's transactions are its tries, by every pending lane.
        if request.op().is_cas_loop(request.width()) {
            return Ok(());
        }
        let partition = config.partition(&request).unwrap();
        let kepler_four = config.capability().major() == 3
            && config.bank_width() == BankWidth::FourBytes;
        for t in partition.transactions() {
            let words = t.words();
            for w in &words {
                prop_assert_eq!(w.bank.index() as u32, w.word % config.bank_count());
                prop_assert!(!w.lanes.is_empty());
                prop_assert_eq!(w.lanes.intersection(t.lanes()), w.lanes);
                if reference::counts_lanes(request.op()) {
                    prop_assert_eq!(w.lanes.len(), 1, "atomic lanes share {:?}", w);
                }
            }
            for a in &words {
                for b in &words {
                    if a.bank == b.bank && a.word != b.word {
                        prop_assert!(
                            kepler_four && a.word / 64 == b.word / 64,
                            "bank {} delivers words {} and {} in one step of {:?}",
                            a.bank, a.word, b.word, request
                        );
                    }
                }
            }
            if config.capability().major() == 1 {
                prop_assert!(t.broadcast_words().count() <= 1);
            }
            // Every lane served appears in the words.
            let covered = words.iter().fold(LaneSet::EMPTY, |acc, w| acc.union(w.lanes));
            prop_assert_eq!(covered, t.lanes());
            prop_assert_eq!(t.banks().len(), {
                let mut banks: Vec<_> = words.iter().map(|w| w.bank).collect();
                banks.dedup();
                banks.len()
            });
        }
    }

    /// Permuting the addresses among the active lanes never changes the
    /// wavefronts of a 1-, 2- or 4-byte access on 2.0 and later: the warp is one
    /// phase, served by multicast, so the count is the degree of the set of
    /// addresses, whichever lane holds which. (Not true on 1.x, where half-warps
    /// are separate phases and the single-broadcast steps depend on lane order,
    /// nor for wider accesses, whose phases are half- or quarter-warps.)
    #[test]
    fn permuting_lanes_keeps_narrow_wavefronts(
        (config, request) in multicast_config().prop_flat_map(|config| {
            let ops = [Op::Load, Op::Store, Op::ATOMIC_ADD]
                .into_iter()
                .filter(|&op| config.check_op(op).is_ok())
                .collect::<Vec<_>>();
            (Just(config), (select(ops), narrow_width()))
                .prop_flat_map(|(config, (op, width))| {
                    let width = if op == Op::ATOMIC_ADD { AccessWidth::B4 } else { width };
                    (Just(config), request_with(config, op, width))
                })
        }),
        perm in Just((0..32).collect::<Vec<usize>>()).prop_shuffle(),
    ) {
        let permuted = permute_active(&request, &perm);
        prop_assert_eq!(permuted.active(), request.active());
        prop_assert_eq!(config.wavefronts(&permuted).unwrap(), config.wavefronts(&request).unwrap());
    }

    /// Adding an active lane never lowers the wavefront count, wherever steps are
    /// multicast (2.0 on, and 1.x atomics).
    ///
    /// With the sm_90 load merge this still holds: adding a lane only adds pairs,
    /// so it can break the pair condition but never establish it (a request whose
    /// lanes merge had them merge before the lane was added, unless it was empty);
    /// and un-merging cannot lower the count, since the degree of two phases
    /// together is at most the sum of their degrees.
    ///
    /// It is FALSE for 1.x loads and stores: the single-broadcast step picks the
    /// lowest waiting lane's word, and a new low lane can change that choice for
    /// the better (see `tesla_single_broadcast_is_not_monotone` below).
    ///
    /// It is FALSE for nvcc's compare-and-swap loops too: a new lane in the
    /// lower half-warp can take a bank pair from a lane whose address an upper
    /// lane shares, and so let that upper lane succeed a round earlier (fewer
    /// ATOMS tries in all). Loops are left out here.
    #[test]
    fn adding_a_lane_never_lowers_wavefronts(
        (config, request) in multicast_request(),
        pick in any::<prop::sample::Index>(),
    ) {
        let lanes: Vec<_> = request.active().iter().collect();
        if lanes.is_empty() || request.op().is_cas_loop(request.width()) {
            return Ok(());
        }
        let lane = *pick.get(&lanes);
        let without = request.with_mask(LaneSet::from_bits(!(1u32 << lane.index())));
        prop_assert!(
            config.wavefronts(&without).unwrap() <= config.wavefronts(&request).unwrap(),
            "adding lane {} lowers the wavefronts", lane
        );
    }

    /// A uniform address is one wavefront for loads of at most 4 bytes from 2.0
    /// on; on 1.x it is one per active half-warp (the ideal), never a conflict.
    #[test]
    fn uniform_narrow_loads_are_one_wavefront_per_phase(
        config in config(),
        width in narrow_width(),
        address in any::<u32>(),
        mask in smem_model::strategy::active_mask(),
    ) {
        let bytes = width.bytes();
        let address = address % (config.capability().shared_window_size() / bytes) * bytes;
        let request = WarpRequest::from_fn(Op::Load, bytes, |_| Some(address))
            .unwrap()
            .with_mask(mask);
        let partition = config.partition(&request).unwrap();
        let active = request.active();
        if active.is_empty() {
            prop_assert_eq!(partition.wavefronts(), 0);
            prop_assert_eq!(partition.classification(), Classification::Empty);
        } else {
            if config.capability().major() >= 2 {
                prop_assert_eq!(partition.wavefronts(), 1);
            } else {
                let halves = u32::from(mask.bits() & 0xffff != 0) + u32::from(mask.bits() >> 16 != 0);
                prop_assert_eq!(partition.ideal_wavefronts(), halves);
                prop_assert_eq!(partition.wavefronts(), partition.ideal_wavefronts());
            }
            let expected = if active.len() > 1 {
                Classification::Broadcast
            } else {
                Classification::Parallel
            };
            prop_assert_eq!(partition.classification(), expected);
        }
    }
}

proptest! {
    #![proptest_config(cases::cases(10_000))]

    /// DESIGN.md section 5: for naturally aligned 8- and 16-byte loads and stores,
    /// Kepler's eight-byte mode never takes more wavefronts than its four-byte
    /// mode, nor than 2.0 on the same request. (The claim is false for 4-byte
    /// accesses: see `kepler_eight_byte_mode_is_worse_for_stride_three_floats` in
    /// tests/guide_examples.rs.)
    #[test]
    fn kepler_eight_byte_mode_never_worse_for_wide_accesses(
        (cc, request) in (
            kepler(),
            select(vec![Op::Load, Op::Store]),
            select(vec![AccessWidth::B8, AccessWidth::B16]),
        )
            .prop_flat_map(|(cc, op, width)| {
                (Just(cc), request_with(BankConfig::new(cc), op, width))
            }),
    ) {
        let four = BankConfig::new(cc).with_shared_mem_config(SharedMemConfig::FourByte);
        let eight = BankConfig::new(cc).with_shared_mem_config(SharedMemConfig::EightByte);
        let fermi = BankConfig::new(ComputeCapability::Sm20);
        let e = eight.wavefronts(&request).unwrap();
        prop_assert!(e <= four.wavefronts(&request).unwrap());
        prop_assert!(e <= fermi.wavefronts(&request).unwrap());
    }
}

/// 1.x single broadcast is not monotone in the active lanes. Lanes 1, 2, 3 read
/// words A (bank 0), B, B (bank 1): step 1 broadcasts A (lane 1) and serves lane 2
/// for bank 1; lane 3 waits for step 2. Add lane 0 on word B: step 1 now
/// broadcasts B to lanes 0, 2 and 3 and serves lane 1 for bank 0, so one step.
#[test]
fn tesla_single_broadcast_is_not_monotone() {
    let config = BankConfig::new(ComputeCapability::Sm13);
    let (a, b) = (0, 4);
    let with = WarpRequest::from_fn(Op::Load, 4, |lane| match lane.get() {
        0 | 2 | 3 => Some(b),
        1 => Some(a),
        _ => None,
    })
    .unwrap();
    let without = with.with_mask(LaneSet::from_bits(0b1110));
    assert_eq!(config.wavefronts(&without).unwrap(), 2);
    assert_eq!(config.wavefronts(&with).unwrap(), 1);
    assert_eq!(reference::partition(config, &without).wavefronts(), 2);
    assert_eq!(reference::partition(config, &with).wavefronts(), 1);
}
