//! Bad input never panics: every public constructor and operation is driven
//! with extreme values (0, 1, powers of two, the limits of the capacity table,
//! `u32::MAX`, `usize::MAX`) on every capability, with overflow checks on, and
//! must answer with a value or an error. It found an overflow in
//! `TileLayout`'s size check, pinned below.

use smem_model::*;

#[test]
fn a_tile_too_large_for_64_bits_is_a_span_overflow() {
    assert_eq!(
        TileLayout::new(u32::MAX, u32::MAX, 16),
        Err(Error::SpanOverflow {
            base: 0,
            bytes: u64::MAX
        })
    );
}

#[test]
fn tile_layouts_and_patterns_at_extremes() {
    let vals = [
        0u32,
        1,
        2,
        3,
        4,
        7,
        8,
        15,
        16,
        31,
        32,
        33,
        64,
        1000,
        65535,
        1 << 20,
        u32::MAX - 1,
        u32::MAX,
    ];
    let cfgs = [
        BankConfig::new(ComputeCapability::Sm90),
        BankConfig::new(ComputeCapability::Sm13),
        BankConfig::new(ComputeCapability::Sm20),
        BankConfig::new(ComputeCapability::Sm35).with_shared_mem_config(SharedMemConfig::EightByte),
    ];
    for &a in &vals {
        for &b in &vals {
            for &c in &vals {
                let _ = Swizzle::new(a, b, c);
                if let Ok(t) = TileLayout::new(a, b, c) {
                    let _ = t.with_pitch(a);
                    let _ = t.with_padding(b);
                    let _ = t.with_base(c);
                    for m in [TmaSwizzle::B32, TmaSwizzle::B64, TmaSwizzle::B128] {
                        let _ = t.with_tma_swizzle(m);
                    }
                    if let Ok(s) = Swizzle::new(a % 8, b % 8, c % 16) {
                        let _ = t.with_swizzle(s);
                    }
                    for acc in [
                        TileAccess::row(Op::Load, a, b, c),
                        TileAccess::column(Op::Store, c, a, b),
                        TileAccess::diagonal(Op::Load, b, c, a),
                        TileAccess::matmul_a(a, b, c),
                        TileAccess::matmul_b(c, b, a),
                    ] {
                        let _ = t.request(&acc);
                        if a < 70 && b < 70 {
                            for cfg in cfgs {
                                let _ = t.advise(cfg, std::slice::from_ref(&acc));
                            }
                        }
                    }
                }
                for cfg in cfgs {
                    let _ = TileLayout::column_padding(cfg, a, b);
                    for op in [
                        Op::Load,
                        Op::Store,
                        Op::ATOMIC_ADD,
                        Op::LdMatrix(Matrices::X4),
                    ] {
                        let _ = WarpRequest::strided(op, a, b, c);
                        let _ = WarpRequest::broadcast(op, a, b);
                        let _ = WarpRequest::shuffled(op, a, b, c as u64);
                        let _ = WarpRequest::from_banks(cfg, op, &[(a, b), (b, c), (c, a)]);
                    }
                    let _ = WarpRequest::parse_banks(cfg, Op::Load, &format!("{a},{b}; {c},{a}"));
                }
            }
        }
    }
    for cfg in cfgs {
        for text in [
            "",
            ";",
            "1",
            "1,",
            ",1",
            "a,b",
            "1,2;;3,4",
            "99999999999,1",
            "-1,2",
            "1,2,3",
        ] {
            let _ = WarpRequest::parse_banks(cfg, Op::Load, text);
        }
    }
}

#[test]
fn arena_launches_and_requests_at_extremes() {
    let vals = [
        0u32,
        1,
        3,
        4,
        16,
        1023,
        1024,
        49151,
        49152,
        49153,
        65536,
        1 << 20,
        u32::MAX - 1,
        u32::MAX,
    ];
    for cc in ComputeCapability::ALL {
        for &a in &vals {
            for &b in &vals {
                let l = Launch::new(cc, a, b);
                let _ = l.check();
                let _ = l.occupancy();
                for &c in &vals {
                    let _ = l.with_opt_in(c).occupancy_with(Carveout::Percent(c % 202));
                }
                let _ = ElementType::new("t", a, b);
                let mut k = SharedMemory::builder(cc);
                let _ = k.declare::<f64>("x", a as usize);
                let _ = k.declare_2d::<u8>("y", a as usize, b as usize);
                let _ = k.declare_2d::<f32>("z", usize::MAX, b as usize);
                if b < 300_000 {
                    if let Ok(mut m) = k.opt_in(b).launch(b) {
                        let _ = m.carve::<u8>("c", a as usize);
                        let _ = m.carve::<f64>("d", b as usize);
                        let _ = m.extern_array::<Float4>("e");
                        if let Ok(e) = m.extern_array::<u32>("w") {
                            let _ = m.write(e, a as usize, 1);
                            let _ = m.read(e, b as usize);
                            let _ = m.warp_load(e, |l| Some(l.index() * a as usize));
                            let _ = m.warp_store(
                                e,
                                |l| Some((l.index() * b as usize, 3)),
                                StoreOrder::Undefined,
                            );
                        }
                    }
                }
                let mut d = DynamicLayout::new();
                let _ = d.push("p", ElementType::of::<f64>(), a as usize);
                let _ = d.push("q", ElementType::of::<u8>(), usize::MAX);
                let cfg = BankConfig::new(cc);
                for w in [1u32, 2, 4, 8, 16] {
                    for op in [
                        Op::Load,
                        Op::Store,
                        Op::ATOMIC_ADD,
                        Op::LdMatrix(Matrices::X2),
                        Op::StMatrix(Matrices::X4),
                    ] {
                        if let Ok(r) = WarpRequest::from_fn(op, w, |l| {
                            Some(a.wrapping_mul(l.get()).wrapping_add(b) / w * w)
                        }) {
                            let _ = cfg.wavefronts(&r);
                            if let Ok(p) = cfg.partition(&r) {
                                for t in p.transactions() {
                                    let _ = t.words();
                                    let _ = t.banks();
                                }
                                let _ = p.classification();
                            }
                            let _ = r.write_collisions();
                        }
                    }
                }
            }
        }
    }
}
