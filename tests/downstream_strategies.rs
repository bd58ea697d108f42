//! The exported strategies used exactly as a downstream simulator would use them:
//! `use smem_model::strategy::...` inside `proptest!`.
#![cfg(feature = "proptest")]

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use smem_model::strategy::{
    active_mask, config, config_and_request, config_for, op_and_width_for, request, request_for,
    request_with,
};
use smem_model::{AccessWidth, AtomicKind, BankConfig, BankWidth, ComputeCapability, Op};

proptest! {
    /// What a simulator relies on: every generated request partitions, the
    /// counting path agrees with the partition, and the totals are consistent.
    #[test]
    fn wavefronts_cover_the_ideal_and_conflicts_are_the_excess(
        (config, request) in config_and_request(),
    ) {
        let partition = config.partition(&request)?;
        prop_assert_eq!(config.wavefronts(&request)?, partition.wavefronts());
        prop_assert!(partition.wavefronts() >= partition.ideal_wavefronts());
        prop_assert_eq!(
            partition.bank_conflicts(),
            partition.wavefronts() - partition.ideal_wavefronts()
        );
        prop_assert_eq!(partition.transactions().len() as u32, partition.wavefronts());
        prop_assert_eq!(request.active().is_empty(), partition.wavefronts() == 0);
    }

    /// Requests for one configuration use only ops it has, aligned addresses and
    /// the window.
    #[test]
    fn request_for_stays_valid(
        (config, request) in config().prop_flat_map(|c| (Just(c), request_for(c))),
    ) {
        prop_assert!(config.check_op(request.op()).is_ok());
        let width = request.width().bytes();
        let window = config.capability().shared_window_size();
        for (_, address) in request.active_addresses() {
            prop_assert_eq!(address % width, 0);
            prop_assert!(u64::from(address) + u64::from(width) <= u64::from(window));
        }
    }

    /// sm_90 requests: every op of sm_90 appears, and each request partitions.
    #[test]
    fn sm90_requests_partition(request in request()) {
        let sm90 = BankConfig::new(ComputeCapability::Sm90);
        prop_assert!(sm90.partition(&request).is_ok());
    }

    /// `request_with` keeps the op and width it was given.
    #[test]
    fn request_with_keeps_op_and_width(
        (config, op, width, request) in config().prop_flat_map(|config| {
            op_and_width_for(config).prop_flat_map(move |(op, width)| {
                (Just(config), Just(op), Just(width), request_with(config, op, width))
            })
        }),
    ) {
        prop_assert_eq!(request.op(), op);
        prop_assert_eq!(request.width(), width);
        prop_assert!(config.partition(&request).is_ok());
    }

    /// Masking lanes off never adds a phase: the ideal count can only drop.
    #[test]
    fn masking_never_raises_the_ideal(
        (config, request) in config_and_request(),
        mask in active_mask(),
    ) {
        let masked = request.with_mask(mask);
        prop_assert_eq!(masked.active(), request.active().intersection(mask));
        prop_assert!(
            config.partition(&masked)?.ideal_wavefronts()
                <= config.partition(&request)?.ideal_wavefronts()
        );
    }
}

/// Over many draws the strategies reach every capability, both Kepler modes,
/// every op family, the sm_90 load merge and conflicts, broadcasts and empty
/// requests: the mix a downstream property test needs.
#[test]
fn strategies_reach_every_rule() {
    let mut runner = TestRunner::deterministic();
    let strategy = config_and_request();
    let mut capabilities = std::collections::BTreeSet::new();
    let (mut eight_byte, mut atomics, mut ldsm, mut stsm, mut merged) = (0, 0, 0, 0, 0);
    let (mut conflicted, mut broadcast, mut empty, mut partial) = (0, 0, 0, 0);
    for _ in 0..20_000 {
        let (config, request) = strategy.new_tree(&mut runner).unwrap().current();
        let partition = config.partition(&request).unwrap();
        capabilities.insert(config.capability());
        eight_byte += usize::from(config.bank_width() == BankWidth::EightBytes);
        match request.op() {
            Op::Atomic(_) | Op::Reduction(_) => atomics += 1,
            Op::LdMatrix(_) => ldsm += 1,
            Op::StMatrix(_) => stsm += 1,
            _ => {}
        }
        let phase = config.phase_lanes(request.op(), request.width());
        if request.op() == Op::Load
            && config.merges_paired_loads()
            && phase < 32
            && !request.active().is_empty()
            && partition
                .transactions()
                .any(|t| t.lanes().len() as u32 > phase)
        {
            merged += 1;
        }
        conflicted += usize::from(partition.bank_conflicts() > 0);
        empty += usize::from(request.active().is_empty());
        partial += usize::from(!request.active().is_empty() && request.active().len() < 32);
        broadcast +=
            usize::from(partition.classification() == smem_model::Classification::Broadcast);
    }
    assert_eq!(capabilities.len(), ComputeCapability::ALL.len());
    for (name, count) in [
        ("eight-byte mode", eight_byte),
        ("atomics", atomics),
        ("ldmatrix", ldsm),
        ("stmatrix", stsm),
        ("merged loads", merged),
        ("conflicts", conflicted),
        ("broadcasts", broadcast),
        ("empty requests", empty),
        ("partial masks", partial),
    ] {
        assert!(count >= 20, "only {count} draws with {name}");
    }
}

#[test]
fn config_for_keeps_the_capability_and_only_kepler_has_two_modes() {
    let mut runner = TestRunner::deterministic();
    for cc in ComputeCapability::ALL {
        let strategy = config_for(cc);
        let widths: std::collections::BTreeSet<u32> = (0..64)
            .map(|_| {
                let config = strategy.new_tree(&mut runner).unwrap().current();
                assert_eq!(config.capability(), cc);
                config.bank_width().bytes()
            })
            .collect();
        let expected: &[u32] = if cc.major() == 3 { &[4, 8] } else { &[4] };
        assert_eq!(widths.into_iter().collect::<Vec<_>>(), expected, "{cc}");
    }
}

#[test]
fn op_and_width_for_lists_exactly_the_supported_ops() {
    let mut runner = TestRunner::deterministic();
    for cc in ComputeCapability::ALL {
        let config = BankConfig::new(cc);
        let strategy = op_and_width_for(config);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let (op, width) = strategy.new_tree(&mut runner).unwrap().current();
            assert_eq!(config.check_access(op, width), Ok(()), "{cc} {op}");
            assert_eq!(op.check_width(width), Ok(()), "{cc} {op}");
            seen.insert((op.to_string(), width.bytes()));
        }
        // Every op and width the capability has: loads and stores of 5 widths;
        // from 1.2 the ten 32-bit atomics and eight 32-bit reductions but the
        // float ones; from 2.0 float add at 4 bytes and the 64-bit add, exch,
        // cas; from 3.2 the 64-bit min, max, and, or, xor; from 6.0 add.f64;
        // LDSM x3 and its .trans x3 from 7.5; cp.async .ca x3 and .cg from 8.0;
        // STSM x3 and its .trans x3 from 9.0.
        let at_least = |major, minor| usize::from(cc.version() >= (major, minor));
        let expected = 10
            + 18 * at_least(1, 2)
            + (2 + 4) * at_least(2, 0)
            + 10 * at_least(3, 2)
            + 2 * at_least(6, 0)
            + 6 * at_least(7, 5)
            + 4 * at_least(8, 0)
            + 6 * at_least(9, 0);
        assert_eq!(seen.len(), expected, "{cc}: {seen:?}");
    }
}

#[test]
#[should_panic(
    expected = "ATOMS.INC accesses 4 bytes per lane, but an access width of 8 bytes was given"
)]
fn request_with_rejects_a_width_the_op_lacks() {
    let _ = request_with(
        BankConfig::new(ComputeCapability::Sm90),
        Op::Atomic(AtomicKind::Inc),
        AccessWidth::B8,
    );
}
