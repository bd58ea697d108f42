//! Every error, with its exact message, and the auto traits of the public types.

use smem_model::{
    AccessWidth, AtomicKind, BankConfig, ComputeCapability, CpAsync, Error, Lane, Matrices, Op,
    WarpRequest,
};

fn one_lane(op: Op, width: u32, lane: u32, address: u32) -> Result<WarpRequest, Error> {
    WarpRequest::from_fn(op, width, |l| (l.get() == lane).then_some(address))
}

#[test]
fn misaligned_address_names_lane_and_address() {
    let err = one_lane(Op::Load, 4, 5, 6).unwrap_err();
    assert_eq!(
        err,
        Error::Misaligned {
            lane: 5,
            address: 6,
            width: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "misaligned address: lane 5 accesses 4 bytes at 0x6, which is not a multiple of 4"
    );
    let err = one_lane(Op::Store, 16, 31, 0x1008).unwrap_err();
    assert_eq!(
        err.to_string(),
        "misaligned address: lane 31 accesses 16 bytes at 0x1008, which is not a multiple of 16"
    );
    // The first misaligned lane is named.
    let err =
        WarpRequest::from_fn(Op::Load, 8, |l| Some(if l.get() >= 3 { 4 } else { 0 })).unwrap_err();
    assert_eq!(
        err,
        Error::Misaligned {
            lane: 3,
            address: 4,
            width: 8
        }
    );
    // Inactive lanes are not checked.
    assert!(one_lane(Op::Load, 4, 0, 0)
        .unwrap()
        .address(Lane::new(1).unwrap())
        .is_none());
}

#[test]
fn invalid_width() {
    let expected = "access width of 3 bytes is not supported: expected 1, 2, 4, 8 or 16";
    let err = WarpRequest::from_fn(Op::Load, 3, |_| Some(0)).unwrap_err();
    assert_eq!(err, Error::InvalidWidth { width: 3 });
    assert_eq!(err.to_string(), expected);
    assert_eq!(
        AccessWidth::from_bytes(3).unwrap_err().to_string(),
        expected
    );
    assert_eq!(
        AccessWidth::try_from(0).unwrap_err().to_string(),
        "access width of 0 bytes is not supported: expected 1, 2, 4, 8 or 16"
    );
    assert_eq!(
        AccessWidth::try_from(32).unwrap_err().to_string(),
        "access width of 32 bytes is not supported: expected 1, 2, 4, 8 or 16"
    );
    // An invalid width is reported before a width mismatch.
    assert_eq!(
        WarpRequest::from_fn(Op::ATOMIC_ADD, 3, |_| Some(0)).unwrap_err(),
        Error::InvalidWidth { width: 3 }
    );
}

#[test]
fn width_mismatch() {
    let inc = Op::Atomic(AtomicKind::Inc);
    let err = WarpRequest::from_fn(inc, 8, |_| Some(0)).unwrap_err();
    assert_eq!(
        err,
        Error::WidthMismatch {
            op: inc,
            width: 8,
            expected: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "ATOMS.INC accesses 4 bytes per lane, but an access width of 8 bytes was given"
    );
    let cg = Op::CpAsync(CpAsync::Cg);
    assert_eq!(
        WarpRequest::from_fn(cg, 8, |_| Some(0))
            .unwrap_err()
            .to_string(),
        "LDGSTS.BYPASS accesses 16 bytes per lane, but an access width of 8 bytes was given"
    );
    // Ops of several widths name them all.
    let err = WarpRequest::from_fn(Op::ATOMIC_ADD, 16, |_| Some(0)).unwrap_err();
    assert_eq!(
        err,
        Error::WidthUnavailable {
            op: Op::ATOMIC_ADD,
            width: 16
        }
    );
    assert_eq!(
        err.to_string(),
        "ATOMS.ADD has no 16-byte form: it takes 4 or 8 bytes per lane"
    );
    let ca = Op::CpAsync(CpAsync::Ca);
    assert_eq!(
        WarpRequest::from_fn(ca, 2, |_| Some(0))
            .unwrap_err()
            .to_string(),
        "LDGSTS has no 2-byte form: it takes 4, 8 or 16 bytes per lane"
    );
    // PTX has no red.shared.cas.
    let err = WarpRequest::from_fn(Op::Reduction(AtomicKind::Cas), 4, |_| Some(0)).unwrap_err();
    assert_eq!(
        err,
        Error::NoReduction {
            kind: AtomicKind::Cas
        }
    );
    assert_eq!(
        err.to_string(),
        "red.shared.cas does not exist: a reduction has no return value, and PTX has cas only as atom.shared.cas"
    );
    // An atomic kind from text.
    assert_eq!("add.u64".parse::<AtomicKind>(), Ok(AtomicKind::Add));
    let err = "fadd".parse::<AtomicKind>().unwrap_err();
    assert_eq!(
        err,
        Error::UnknownAtomic {
            given: "fadd".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown atomic operation \"fadd\": expected add, add.f32, add.f64, exch, cas, min, max, inc, dec, and, or or xor (an integer type such as .u64 may follow)"
    );
    let err = WarpRequest::from_fn(Op::LdMatrix(Matrices::X4), 4, |_| Some(0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "LDSM.x4 accesses 16 bytes per lane, but an access width of 4 bytes was given"
    );
    let err = WarpRequest::from_fn(Op::StMatrix(Matrices::X2), 8, |_| None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "STSM.x2 accesses 16 bytes per lane, but an access width of 8 bytes was given"
    );
}

/// An aligned access of a power-of-two width never runs past `u32::MAX` (the
/// width divides 2^32), so no request can overflow: the alignment check
/// comes first and catches every address that would. The last
/// aligned accesses are accepted by the request and rejected by the window.
#[test]
fn address_overflow() {
    for (width, address) in [
        (16, 0xFFFF_FFF0),
        (8, 0xFFFF_FFF8),
        (4, 0xFFFF_FFFC),
        (1, 0xFFFF_FFFF),
    ] {
        let request = one_lane(Op::Load, width, 0, address).unwrap();
        let err = BankConfig::new(ComputeCapability::Sm90)
            .partition(&request)
            .unwrap_err();
        assert_eq!(
            err,
            Error::OutsideWindow {
                lane: 0,
                address,
                end: 1 << 32,
                window: 228 * 1024,
                capability: ComputeCapability::Sm90,
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "lane 0 accesses bytes {address:#x} to 0x100000000, past the end of the \
                 233472-byte shared window of compute capability 9.0"
            )
        );
    }
    // Unaligned addresses near the top are misaligned, not overflowing.
    assert_eq!(
        one_lane(Op::Load, 8, 2, 0xFFFF_FFFC).unwrap_err(),
        Error::Misaligned {
            lane: 2,
            address: 0xFFFF_FFFC,
            width: 8
        }
    );
}

#[test]
fn outside_window() {
    let sm75 = BankConfig::new(ComputeCapability::Sm75);
    assert_eq!(ComputeCapability::Sm75.shared_window_size(), 65536);
    let inside = one_lane(Op::Load, 4, 0, 65532).unwrap();
    assert_eq!(sm75.wavefronts(&inside).unwrap(), 1);
    let outside = one_lane(Op::Load, 4, 9, 65536).unwrap();
    let expected = "lane 9 accesses bytes 0x10000 to 0x10004, past the end of the 65536-byte \
                    shared window of compute capability 7.5";
    assert_eq!(sm75.partition(&outside).unwrap_err().to_string(), expected);
    assert_eq!(sm75.wavefronts(&outside).unwrap_err().to_string(), expected);
    // 1.x has 16 KB.
    let tesla = BankConfig::new(ComputeCapability::Sm13);
    let err = tesla
        .partition(&one_lane(Op::Store, 16, 0, 16384).unwrap())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "lane 0 accesses bytes 0x4000 to 0x4010, past the end of the 16384-byte shared window \
         of compute capability 1.3"
    );
}

#[test]
fn unsupported_op() {
    let check = |cc, op, expected: &str| {
        let config = BankConfig::new(cc);
        let request = WarpRequest::from_fn(op, op.widths()[0].bytes(), |_| Some(0)).unwrap();
        assert_eq!(config.check_op(op).unwrap_err().to_string(), expected);
        assert_eq!(
            config.partition(&request).unwrap_err().to_string(),
            expected
        );
        assert_eq!(
            config.wavefronts(&request).unwrap_err().to_string(),
            expected
        );
    };
    check(
        ComputeCapability::Sm70,
        Op::LdMatrix(Matrices::X4),
        "LDSM.x4 does not exist on compute capability 7.0: it needs 7.5 or later",
    );
    check(
        ComputeCapability::Sm80,
        Op::StMatrix(Matrices::X2),
        "STSM.x2 does not exist on compute capability 8.0: it needs 9.0 or later",
    );
    check(
        ComputeCapability::Sm11,
        Op::ATOMIC_ADD,
        "ATOMS.ADD does not exist on compute capability 1.1: it needs 1.2 or later",
    );
    check(
        ComputeCapability::Sm75,
        Op::CpAsync(CpAsync::Cg),
        "LDGSTS.BYPASS does not exist on compute capability 7.5: it needs 8.0 or later",
    );
    check(
        ComputeCapability::Sm13,
        Op::Atomic(AtomicKind::AddF32),
        "ATOMS.ADD.F32 does not exist on compute capability 1.3: it needs 2.0 or later",
    );
    check(
        ComputeCapability::Sm52,
        Op::Reduction(AtomicKind::AddF64),
        "RED.ADD.F64 does not exist on compute capability 5.2: it needs 6.0 or later",
    );
    // Widths that came later than their op.
    let min64 = WarpRequest::from_fn(Op::Atomic(AtomicKind::Min), 8, |_| Some(0)).unwrap();
    let err = BankConfig::new(ComputeCapability::Sm30)
        .partition(&min64)
        .unwrap_err();
    assert_eq!(
        err,
        Error::UnsupportedAccess {
            op: Op::Atomic(AtomicKind::Min),
            width: 8,
            capability: ComputeCapability::Sm30,
            required: ComputeCapability::Sm32,
        }
    );
    assert_eq!(
        err.to_string(),
        "8-byte ATOMS.MIN does not exist on compute capability 3.0: it needs 3.2 or later"
    );
    let exch64 = WarpRequest::from_fn(Op::Atomic(AtomicKind::Exch), 8, |_| Some(0)).unwrap();
    assert_eq!(
        BankConfig::new(ComputeCapability::Sm12)
            .cost(&exch64)
            .unwrap_err()
            .to_string(),
        "8-byte ATOMS.EXCH does not exist on compute capability 1.2: it needs 2.0 or later"
    );
    assert!(BankConfig::new(ComputeCapability::Sm20)
        .cost(&exch64)
        .is_ok());
    assert_eq!(
        BankConfig::new(ComputeCapability::Sm70)
            .check_op(Op::LdMatrix(Matrices::X1))
            .unwrap_err(),
        Error::UnsupportedOp {
            op: Op::LdMatrix(Matrices::X1),
            capability: ComputeCapability::Sm70,
            required: ComputeCapability::Sm75,
        }
    );
    // The op is checked before the window.
    let far = WarpRequest::from_fn(Op::ATOMIC_ADD, 4, |_| Some(1 << 20)).unwrap();
    assert!(matches!(
        BankConfig::new(ComputeCapability::Sm10).partition(&far),
        Err(Error::UnsupportedOp { .. })
    ));
}

#[test]
fn lane_count() {
    let err = WarpRequest::from_slice(Op::Load, 4, &[Some(0); 31]).unwrap_err();
    assert_eq!(err, Error::LaneCount { given: 31 });
    assert_eq!(
        err.to_string(),
        "a warp has 32 lanes, but 31 addresses were given"
    );
    let err = WarpRequest::try_from_iter(Op::Load, 4, (0..33).map(|_| None)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a warp has 32 lanes, but 33 addresses were given"
    );
    let err = WarpRequest::try_from_iter(Op::Load, 4, core::iter::empty()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a warp has 32 lanes, but 0 addresses were given"
    );
}

#[test]
fn lane_out_of_range() {
    let err = Lane::new(32).unwrap_err();
    assert_eq!(err, Error::LaneOutOfRange { lane: 32 });
    assert_eq!(
        err.to_string(),
        "lane 32 does not exist: a warp has lanes 0 to 31"
    );
    assert_eq!(
        Lane::new(u32::MAX).unwrap_err().to_string(),
        "lane 4294967295 does not exist: a warp has lanes 0 to 31"
    );
    assert_eq!(Lane::new(31).unwrap().get(), 31);
}

#[test]
fn unknown_capability() {
    let err = "sm_40".parse::<ComputeCapability>().unwrap_err();
    assert_eq!(
        err,
        Error::UnknownCapability {
            given: "sm_40".to_owned()
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown compute capability \"sm_40\": expected a version (\"8.6\", \"sm_86\", \
         \"sm86\", \"86\", \"compute_86\", \"sm_90a\"), a GPU (\"A100\", \"H100\", \
         \"RTX 4090\", ...) or an architecture (\"ampere\", \"hopper\", ...); the versions \
         are 1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 3.0, 3.2, 3.5, 3.7, 5.0, 5.2, 5.3, 6.0, 6.1, 6.2, \
         7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 10.3, 11.0, 12.0, 12.1"
    );
}

#[test]
fn malformed_record_message() {
    let err = Error::MalformedRecord {
        source_name: "sm90.jsonl".to_owned(),
        line: 12,
        reason: "missing field `op`".to_owned(),
    };
    assert_eq!(err.to_string(), "sm90.jsonl:12: missing field `op`");
}

/// Every public type can cross threads (after dtolnay's `test_autotrait`).
#[test]
fn public_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<smem_model::AccessWidth>();
    assert_send_sync::<smem_model::Architecture>();
    assert_send_sync::<smem_model::Bank>();
    assert_send_sync::<smem_model::BankConfig>();
    assert_send_sync::<smem_model::BankSet>();
    assert_send_sync::<smem_model::BankWidth>();
    assert_send_sync::<smem_model::Broadcast>();
    assert_send_sync::<smem_model::Classification>();
    assert_send_sync::<smem_model::ComputeCapability>();
    assert_send_sync::<smem_model::Error>();
    assert_send_sync::<smem_model::Lane>();
    assert_send_sync::<smem_model::LaneIter>();
    assert_send_sync::<smem_model::LaneSet>();
    assert_send_sync::<smem_model::Matrices>();
    assert_send_sync::<smem_model::Op>();
    assert_send_sync::<smem_model::Partition>();
    assert_send_sync::<smem_model::SharedMemConfig>();
    assert_send_sync::<smem_model::StoreOrder>();
    assert_send_sync::<smem_model::Transaction>();
    assert_send_sync::<smem_model::IntoTransactions>();
    assert_send_sync::<smem_model::Transactions<'static>>();
    assert_send_sync::<smem_model::WarpRequest>();
    assert_send_sync::<smem_model::WordAccess>();
    assert_send_sync::<smem_model::WriteCollision>();
    // Errors box into `dyn Error + Send + Sync`.
    let boxed: Box<dyn std::error::Error + Send + Sync> =
        Box::new(Error::LaneOutOfRange { lane: 40 });
    assert_eq!(
        boxed.to_string(),
        "lane 40 does not exist: a warp has lanes 0 to 31"
    );
}

/// Errors quote a bounded prefix of the text they name: a 10 MB arch, op or
/// atomic kind makes a message of a few hundred bytes, not of 10 MB.
#[test]
fn long_inputs_are_quoted_in_part() {
    let long = "x".repeat(10 << 20);
    let tail = format!("... ({} bytes)", 10 << 20);
    let arch = long.parse::<ComputeCapability>().unwrap_err();
    let prefix = "x".repeat(64);
    assert_eq!(
        arch,
        Error::UnknownCapability {
            given: format!("{prefix}{tail}")
        }
    );
    let op = long.parse::<Op>().unwrap_err();
    assert_eq!(
        op,
        Error::UnknownOp {
            given: format!("{prefix}{tail}")
        }
    );
    let kind = long.parse::<AtomicKind>().unwrap_err();
    assert_eq!(
        kind,
        Error::UnknownAtomic {
            given: format!("{prefix}{tail}")
        }
    );
    for message in [arch.to_string(), op.to_string(), kind.to_string()] {
        assert!(message.len() < 1_000, "{} bytes", message.len());
        assert!(
            message.contains(&format!("\"{prefix}{tail}\"")),
            "{message}"
        );
    }
    // A multi-byte character at the cut is kept whole or left out, never split.
    let accents = "é".repeat(1_000);
    let Error::UnknownOp { given } = accents.parse::<Op>().unwrap_err() else {
        panic!("not UnknownOp")
    };
    assert_eq!(given, format!("{}... (2000 bytes)", "é".repeat(32)));
}

/// A request's width that contradicts the width its op's name gives is an
/// error naming both.
#[test]
fn a_width_the_op_name_contradicts() {
    let name: smem_model::OpName = "atom.add.u64".parse().unwrap();
    assert_eq!(name.op(), Op::Atomic(AtomicKind::Add));
    assert_eq!(name.width(), Some(AccessWidth::B8));
    let err = name.with_width(4).unwrap_err();
    assert_eq!(
        err,
        Error::WidthContradicted {
            op: Op::Atomic(AtomicKind::Add),
            named: 8,
            given: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "the op's name gives ATOMS.ADD 8 bytes per lane, but an access width of 4 bytes was given"
    );
    let err = "ld.shared.v2.f32"
        .parse::<smem_model::OpName>()
        .unwrap()
        .with_width(16);
    assert_eq!(
        err.unwrap_err().to_string(),
        "the op's name gives LDS 8 bytes per lane, but an access width of 16 bytes was given"
    );
}
