//! The API a simulator calls per instruction: requests from a mask and offsets
//! or generic addresses, op names, cheap accessors checked against slow
//! references, owned transactions, and the errors with their messages.

use smem_model::{
    BankConfig, ComputeCapability, Error, Lane, LaneSet, Matrices, Op, Partition, Transaction,
    WarpRequest, WriteCollision,
};

fn xorshift(seed: u32) -> impl FnMut() -> u32 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    }
}

#[test]
fn from_offsets_matches_from_fn_and_ignores_inactive_lanes() {
    let mut next = xorshift(7);
    for round in 0..500 {
        let width = 1u32 << (round % 5);
        let mask = next();
        let offsets: [u32; 32] = std::array::from_fn(|_| next() % 8192 / width * width);
        // Stale, misaligned values in the inactive lanes.
        let stale: [u32; 32] =
            std::array::from_fn(|l| if mask >> l & 1 == 1 { offsets[l] } else { 1 });
        let expected = WarpRequest::from_fn(Op::Store, width, |l| {
            (mask >> l.get() & 1 == 1).then(|| offsets[l.index()])
        })
        .unwrap();
        let request = WarpRequest::from_offsets(Op::Store, width, LaneSet::from_bits(mask), &stale);
        assert_eq!(request, Ok(expected), "width {width} mask {mask:#x}");
    }
}

#[test]
fn from_offsets_ignores_matrix_lanes_past_the_rows() {
    let offsets: [u32; 32] = std::array::from_fn(|l| if l < 8 { 16 * l as u32 } else { 3 });
    let x1 =
        WarpRequest::from_offsets(Op::LdMatrix(Matrices::X1), 16, LaneSet::FULL, &offsets).unwrap();
    assert_eq!(x1.active(), LaneSet::range(0, 8));
    assert_eq!(
        WarpRequest::from_offsets(Op::LdMatrix(Matrices::X2), 16, LaneSet::FULL, &offsets),
        Err(Error::Misaligned {
            lane: 8,
            address: 3,
            width: 16
        })
    );
}

#[test]
fn from_offsets_checks_the_width() {
    let offsets = [0u32; 32];
    let err = WarpRequest::from_offsets(Op::Load, 12, LaneSet::FULL, &offsets).unwrap_err();
    assert_eq!(
        err.to_string(),
        "access width of 12 bytes is not supported: expected 1, 2, 4, 8 or 16"
    );
    let inc = Op::Atomic(smem_model::AtomicKind::Inc);
    let err = WarpRequest::from_offsets(inc, 8, LaneSet::FULL, &offsets).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ATOMS.INC accesses 4 bytes per lane, but an access width of 8 bytes was given"
    );
    let err =
        WarpRequest::from_offsets(Op::Load, 8, LaneSet::from_bits(1 << 9), &[4; 32]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "misaligned address: lane 9 accesses 8 bytes at 0x4, which is not a multiple of 8"
    );
}

#[test]
fn from_generic_translates_into_the_window() {
    let base = 0x0000_7f12_3400_0000u64;
    let mut next = xorshift(11);
    for _ in 0..200 {
        let mask = next();
        let offsets: [u32; 32] = std::array::from_fn(|_| next() % 65536 * 4);
        let generic: [u64; 32] = std::array::from_fn(|l| {
            if mask >> l & 1 == 1 {
                base + u64::from(offsets[l])
            } else {
                u64::from(next()) // anything: a global address, 0, ...
            }
        });
        let mask = LaneSet::from_bits(mask);
        assert_eq!(
            WarpRequest::from_generic(Op::Load, 4, mask, &generic, base),
            WarpRequest::from_offsets(Op::Load, 4, mask, &offsets)
        );
    }
    // The last byte of the 4 GiB window.
    let top = [base + u64::from(u32::MAX); 32];
    let request = WarpRequest::from_generic(Op::Load, 1, LaneSet::FULL, &top, base).unwrap();
    assert_eq!(request.address(Lane::new(0).unwrap()), Some(u32::MAX));
    // ... which the capability's own window then refuses.
    let err = BankConfig::new(ComputeCapability::Sm90)
        .wavefronts(&request)
        .unwrap_err();
    assert!(matches!(err, Error::OutsideWindow { lane: 0, .. }), "{err}");
}

#[test]
fn from_generic_names_the_lane_outside_the_window() {
    let base = 0x1_0000_0000u64;
    let mut addresses = [base; 32];
    addresses[5] = base - 4; // below the window
    addresses[20] = base + (1 << 32); // one past its end
    let err = WarpRequest::from_generic(Op::Load, 4, LaneSet::FULL, &addresses, base).unwrap_err();
    assert_eq!(
        err,
        Error::OutsideGenericWindow {
            lane: 5,
            address: 0xffff_fffc,
            base
        }
    );
    assert_eq!(
        err.to_string(),
        "lane 5 accesses generic address 0xfffffffc, outside the 4 GiB shared window that \
         starts at 0x100000000"
    );
    let mask = LaneSet::from_bits(!(1 << 5));
    let err = WarpRequest::from_generic(Op::Load, 4, mask, &addresses, base).unwrap_err();
    assert_eq!(
        err.to_string(),
        "lane 20 accesses generic address 0x200000000, outside the 4 GiB shared window that \
         starts at 0x100000000"
    );
    // Inactive, the same lanes are ignored.
    let mask = LaneSet::from_bits(!(1 << 5 | 1 << 20));
    assert!(WarpRequest::from_generic(Op::Load, 4, mask, &addresses, base).is_ok());
    // Misaligned is checked on the translated offset.
    addresses[5] = base + 2;
    let err = WarpRequest::from_generic(Op::Load, 4, LaneSet::from_bits(1 << 5), &addresses, base)
        .unwrap_err();
    assert_eq!(
        err,
        Error::Misaligned {
            lane: 5,
            address: 2,
            width: 4
        }
    );
}

#[test]
fn op_names_read_back() {
    let ops = Op::ALL;
    for op in ops {
        assert_eq!(op.to_string().parse::<Op>(), Ok(op));
        assert_eq!(op.to_string().to_lowercase().parse::<Op>(), Ok(op));
    }
    for (name, op) in [
        ("load", Op::Load),
        ("ld", Op::Load),
        ("Store", Op::Store),
        ("atom", Op::ATOMIC_ADD),
        ("atomic", Op::ATOMIC_ADD),
        ("atom.cas", Op::Atomic(smem_model::AtomicKind::Cas)),
        ("red.add.u64", Op::Reduction(smem_model::AtomicKind::Add)),
        ("cp.async.cg", Op::CpAsync(smem_model::CpAsync::Cg)),
        ("LDGSTS", Op::CpAsync(smem_model::CpAsync::Ca)),
        ("ldmatrix.x2", Op::LdMatrix(Matrices::X2)),
        ("stmatrix.X4", Op::StMatrix(Matrices::X4)),
        ("ldsm.x1", Op::LdMatrix(Matrices::X1)),
        ("ld.shared", Op::Load),
        ("LDS.U.128", Op::Load),
        ("LDSM.16.MT88.4", Op::LdMatrix(Matrices::X4Trans)),
        ("stsm.x2.trans", Op::StMatrix(Matrices::X2Trans)),
    ] {
        assert_eq!(name.parse::<Op>(), Ok(op), "{name}");
    }
    for bad in [
        "",
        "lds.x4",
        "ldmatrix",
        "ldmatrix.x3",
        "LDG",
        "load ",
        "ld.global",
    ] {
        let err = bad.parse::<Op>().unwrap_err();
        assert_eq!(
            err,
            Error::UnknownOp {
                given: bad.to_string()
            }
        );
    }
    assert_eq!(
        "LDG".parse::<Op>().unwrap_err().to_string(),
        "unknown op \"LDG\": expected LDS, STS, ATOMS[.KIND], RED.KIND, LDSM.xN[.trans], STSM.xN[.trans] or LDGSTS[.BYPASS] \
         (sizes and modifiers as SASS writes them: LDS.U.128, ATOMS.CAS.64, LDSM.16.MT88.4, LDGSTS.E.BYPASS.128), \
         PTX (ld.shared.v4.f32, atom.shared.cas.b64, red.shared.add.u32, ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16, \
         cp.async.cg.shared.global) or load, store, atom.KIND, red.KIND, ldmatrix.xN, stmatrix.xN, cp.async.ca, cp.async.cg \
         (KIND: add, add.f32, add.f64, exch, cas, min, max, inc, dec, and, or, xor; N: 1, 2, 4)"
    );
}

/// The quadratic definition: for each active lane not yet seen, the lanes
/// with its address.
fn collisions_by_definition(request: &WarpRequest) -> Vec<WriteCollision> {
    let mut seen = LaneSet::EMPTY;
    let mut out = Vec::new();
    for (lane, address) in request.active_addresses() {
        if seen.contains(lane) {
            continue;
        }
        let lanes: LaneSet = request
            .active_addresses()
            .filter(|&(_, a)| a == address)
            .map(|(l, _)| l)
            .collect();
        seen = seen.union(lanes);
        if lanes.len() > 1 {
            out.push((address, lanes));
        }
    }
    // Compare through the public accessors.
    let store = |address: u32, lanes: LaneSet| {
        // At the request's width: a collision knows its store's phases.
        let width = request.width().bytes();
        WarpRequest::from_fn(Op::Store, width, |l| lanes.contains(l).then_some(address))
            .unwrap()
            .write_collisions()[0]
    };
    out.into_iter().map(|(a, l)| store(a, l)).collect()
}

#[test]
fn write_collisions_match_the_definition() {
    let mut next = xorshift(3);
    let mut collided = 0;
    for round in 0..2000 {
        let width = 1u32 << (round % 5);
        let span = [4u32, 64, 256, 4096][round % 4];
        // Offsets near zero, across 2^16 and 2^18 (the vectorised pass
        // compares 16-bit keys) and high in the 4 GiB window.
        let base = [0u32, 0, 0xfff0, 0x3_ff00, 0xffff_0000][round / 4 % 5];
        let offsets: [u32; 32] = std::array::from_fn(|_| base + next() % span / width * width);
        let mask = LaneSet::from_bits(if round % 3 == 0 { u32::MAX } else { next() });
        let store = WarpRequest::from_offsets(Op::Store, width, mask, &offsets).unwrap();
        let fast = store.write_collisions();
        assert_eq!(
            &fast[..],
            &collisions_by_definition(&store)[..],
            "{store:?}"
        );
        collided += usize::from(!fast.is_empty());
        let load = WarpRequest::from_offsets(Op::Load, width, mask, &offsets).unwrap();
        assert!(load.write_collisions().is_empty());
    }
    assert!(collided > 500, "{collided}");
}

fn partition(cc: ComputeCapability, width: u32, stride: u32) -> Partition {
    let request = WarpRequest::from_fn(Op::Load, width, |l| Some(l.get() * stride)).unwrap();
    BankConfig::new(cc).partition(&request).unwrap()
}

#[test]
fn owned_transactions_equal_borrowed_ones() {
    for cc in [
        ComputeCapability::Sm13,
        ComputeCapability::Sm20,
        ComputeCapability::Sm35,
        ComputeCapability::Sm90,
    ] {
        for (width, stride) in [(4, 4), (4, 128), (8, 8), (16, 16), (16, 48)] {
            let p = partition(cc, width, stride);
            let borrowed: Vec<Transaction> = p.transactions().collect();
            let by_ref: Vec<Transaction> = (&p).into_iter().collect();
            let owned: Vec<Transaction> = p.clone().into_iter().collect();
            assert_eq!(borrowed.len() as u32, p.wavefronts());
            assert_eq!((&borrowed, &by_ref), (&owned, &owned));
        }
    }
}

#[test]
fn on_1x_a_lane_is_in_one_transaction_per_part() {
    // double d = s[lane] on 1.3: two 4-byte parts, each served per half-warp.
    let p = partition(ComputeCapability::Sm13, 8, 8);
    let lane0 = Lane::new(0).unwrap();
    let serving: Vec<u32> = p
        .transactions()
        .filter(|t| t.serves(lane0))
        .map(|t| t.part())
        .collect();
    assert_eq!(serving, [0, 1]);
}

#[test]
fn on_2x_a_128_bit_access_has_transactions_that_serve_no_lane() {
    let p = partition(ComputeCapability::Sm20, 16, 16);
    let empty = p.transactions().filter(|t| t.lanes().is_empty()).count();
    assert_eq!((p.wavefronts(), empty), (8, 4));
    for t in p.transactions().filter(|t| t.lanes().is_empty()) {
        assert!(t.words().is_empty() && t.banks().is_empty());
    }
}
