//! Bad input never panics, as a property: every public type is built from
//! arbitrary input, through its constructors and through serde from arbitrary
//! JSON, and every public method is called on what comes out. A case passes
//! when nothing panics (overflow checks are on in test builds) and the few
//! answers that must agree do.
//!
//! Each block runs proptest's default number of cases (256), or as many as
//! `PROPTEST_CASES` asks for:
//! `PROPTEST_CASES=100000 cargo test --release --all-features --test no_panic_props`.
#![cfg(all(feature = "corpus", feature = "proptest"))]

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};
use smem_model::{
    AccessWidth, Bank, BankConfig, BankSet, Carveout, Classification, ComputeCapability, Cost,
    Double2, DynamicLayout, Element, ElementType, Fix, Float4, Lane, LaneSet, Launch, Matrices,
    Occupancy, Op, Partition, SharedMemConfig, SharedMemory, StoreOrder, Swizzle, TileAccess,
    TileLayout, TmaSwizzle, WarpRequest, WriteCollision, WARP_SIZE,
};

// ------------------------------------------------------------------ inputs

/// A `u32` that is often an edge: 0, small, a power of two, near the top.
fn number() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => 0..40u32,
        2 => (0..32u32).prop_map(|shift| 1 << shift),
        1 => (0..32u32).prop_map(|shift| (1u32 << shift).wrapping_sub(1)),
        1 => (0..16u32).prop_map(|down| u32::MAX - down),
        2 => any::<u32>(),
    ]
}

fn capability() -> impl Strategy<Value = ComputeCapability> {
    select(ComputeCapability::ALL.to_vec())
}

fn config() -> impl Strategy<Value = BankConfig> {
    (
        capability(),
        select(vec![
            SharedMemConfig::Default,
            SharedMemConfig::FourByte,
            SharedMemConfig::EightByte,
        ]),
    )
        .prop_map(|(cc, mode)| BankConfig::new(cc).with_shared_mem_config(mode))
}

fn op() -> impl Strategy<Value = Op> {
    // Every op, atomics of every kind and cp.async included.
    select(Op::ALL.to_vec())
}

fn width() -> impl Strategy<Value = u32> {
    prop_oneof![4 => select(vec![1u32, 2, 4, 8, 16]), 1 => number()]
}

/// 32 optional addresses: arbitrary, or multiples of a width near 0 (where
/// conflicts are), or evenly spaced.
fn addresses() -> impl Strategy<Value = [Option<u32>; WARP_SIZE]> {
    let lane = prop_oneof![
        1 => Just(None),
        3 => number().prop_map(Some),
        3 => (0..64u32, select(vec![1u32, 2, 4, 8, 16])).prop_map(|(i, w)| Some(i * w)),
    ];
    let spaced = (number(), number(), any::<u32>()).prop_map(|(base, stride, absent)| {
        core::array::from_fn(|lane| {
            (absent >> lane & 1 == 0).then(|| base.wrapping_add(stride.wrapping_mul(lane as u32)))
        })
    });
    prop_oneof![proptest::array::uniform32(lane), spaced,]
}

/// A JSON value built from edge numbers, strings, lists and objects whose
/// keys are the fields of the crate's types, so that some land.
fn json_value() -> impl Strategy<Value = Value> {
    let keys = select(vec![
        "op",
        "width",
        "addresses",
        "capability",
        "bank_width",
        "wavefronts",
        "ideal_wavefronts",
        "ways",
        "address",
        "lanes",
        "config",
        "request",
        "rows",
        "cols",
        "element_bytes",
        "pitch",
        "swizzle",
        "base",
        "bits",
        "shift",
        "vector",
        "elements",
        "name",
        "size",
        "align",
        "arrays",
        "element",
        "len",
        "offset",
        "blocks_per_sm",
        "allocated_per_block",
        "carveout",
        "limit",
        "word",
        "bank",
        "static_bytes",
        "dynamic_bytes",
        "opt_in",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        select(vec![
            "Load",
            "Store",
            "Atomic",
            "X4",
            "sm_90",
            "3.5",
            "9.0",
            "sm_1x",
            "FourBytes",
            "EightBytes",
            "SharedMemory",
            "BlocksPerSm",
            "float",
            "",
            "Percent",
            "B128",
        ])
        .prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 32, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..34).prop_map(Value::from),
            proptest::collection::btree_map(keys.clone(), inner, 0..6).prop_map(|map| {
                Value::Object(map.into_iter().map(|(k, v)| (k.into(), v)).collect())
            }),
        ]
    })
}

// ------------------------------------------------------------------ methods

/// Every method of a request, and of its partition and cost under `config`.
fn exercise_request(config: BankConfig, request: &WarpRequest) {
    let _ = format!("{request:?}");
    let array = request.to_array();
    for lane in Lane::all() {
        assert_eq!(request.address(lane), array[lane.index()]);
    }
    assert_eq!(request.active_addresses().count(), request.active().len());
    assert_eq!(request.with_mask(LaneSet::FULL), *request);
    for collision in request.write_collisions() {
        for order in [
            StoreOrder::Undefined,
            StoreOrder::LowestLane,
            StoreOrder::HighestLane,
        ] {
            let _ = collision.winner(order);
        }
        let _ = (collision.address(), collision.lanes());
    }
    let _ = (
        config.check_op(request.op()),
        config.phase_lanes(request.op(), request.width()),
    );
    let _ = (
        config.parts(request.width()),
        config.bank_count(),
        config.broadcast(),
    );
    let _ = (config.merges_paired_loads(), config.bank_width().bytes());
    let (partition, cost) = (config.partition(request), config.cost(request));
    assert_eq!(
        config.wavefronts(request),
        cost.as_ref()
            .map(|cost| cost.wavefronts())
            .map_err(Clone::clone)
    );
    let Ok(partition) = partition else {
        let _ = partition.unwrap_err().to_string();
        return;
    };
    exercise_partition(&partition);
    assert_eq!(cost, Ok(partition.cost()));
}

fn exercise_partition(partition: &Partition) {
    let cost = partition.cost();
    let _ = (cost.bank_conflicts(), cost.ways(), cost.ideal_wavefronts());
    let _ = (
        partition.bank_conflicts(),
        partition.ways(),
        partition.bandwidth_fraction(),
    );
    let _ = (
        partition.classification().to_string(),
        partition.config(),
        partition.request(),
    );
    assert_eq!(
        partition.transactions().len() as u32,
        partition.wavefronts()
    );
    for transaction in partition.transactions() {
        let _ = (transaction.lanes(), transaction.phase(), transaction.part());
        let _ = (transaction.banks(), transaction.broadcast_words().count());
        for word in transaction.words() {
            let _ = (word.is_broadcast(), word.bank.to_string(), word.word);
        }
        let _ = transaction.serves(Lane::new(31).unwrap());
    }
    // Every partition reads back through serde as it was.
    let json = serde_json::to_string(partition).unwrap();
    assert_eq!(
        &serde_json::from_str::<Partition>(&json).unwrap(),
        partition
    );
    let json = serde_json::to_string(&cost).unwrap();
    assert_eq!(serde_json::from_str::<Cost>(&json).unwrap(), cost);
}

fn exercise_capability(cc: ComputeCapability) {
    let _ = (
        cc.version(),
        cc.major(),
        cc.minor(),
        cc.sm_name(),
        cc.architecture(),
    );
    let _ = (
        cc.to_string(),
        cc.architecture().to_string(),
        cc.shared_memory_per_sm(),
    );
    let _ = (
        cc.max_shared_memory_per_block(),
        cc.reserved_shared_memory_per_block(),
    );
    let _ = (
        cc.shared_window_size(),
        cc.has_shared_atomics(),
        cc.has_ldmatrix(),
    );
    let _ = (cc.has_stmatrix(), cc.default_shared_memory_per_block());
    let _ = (
        cc.shared_allocation_unit(),
        cc.max_blocks_per_sm(),
        cc.shared_carveouts_kb(),
    );
    assert_eq!(cc.sm_name().parse::<ComputeCapability>(), Ok(cc));
}

fn exercise_launch(launch: Launch, percent: u32) {
    let _ = (
        launch.capability(),
        launch.static_bytes(),
        launch.dynamic_bytes(),
    );
    let _ = (launch.opt_in(), launch.limit(), launch.check());
    for carveout in [Carveout::Default, Carveout::Percent(percent)] {
        if let Ok(occupancy) = launch.occupancy_with(carveout) {
            exercise_occupancy(occupancy);
        }
    }
    let _ = launch.occupancy();
}

fn exercise_occupancy(occupancy: Occupancy) {
    let _ = (occupancy.blocks_per_sm(), occupancy.allocated_per_block());
    let _ = (occupancy.carveout(), occupancy.limit().to_string());
    let json = serde_json::to_string(&occupancy).unwrap();
    assert_eq!(serde_json::from_str::<Occupancy>(&json).unwrap(), occupancy);
}

fn exercise_swizzle(swizzle: Swizzle, offset: u32) {
    let _ = (
        swizzle.bits(),
        swizzle.base(),
        swizzle.shift(),
        swizzle.is_identity(),
    );
    let _ = (swizzle.block(), swizzle.period(), swizzle.to_string());
    assert_eq!(swizzle.apply(swizzle.apply(offset)), offset);
}

fn exercise_tile(tile: TileLayout, access: &TileAccess, config: BankConfig, row: u32, col: u32) {
    let _ = (
        tile.rows(),
        tile.cols(),
        tile.pitch(),
        tile.padding(),
        tile.element_bytes(),
    );
    let _ = (
        tile.swizzle(),
        tile.base(),
        tile.bytes(),
        tile.extra_bytes(),
    );
    if let Ok(offset) = tile.offset(row, col) {
        assert_eq!(tile.element_at(offset), Some((row, col)));
    }
    let _ = (
        tile.address(row, col),
        tile.element_at(row),
        tile.check_fits(config.capability()),
    );
    if let Ok(request) = tile.request(access) {
        exercise_request(config, &request);
    }
    // The advisor tries every candidate layout: kept to tiles that are quick.
    if tile.bytes() <= 1 << 16 {
        if let Ok(advice) = tile.advise(config, std::slice::from_ref(access)) {
            let _ = (
                advice.to_string(),
                advice.best(),
                advice.original(),
                advice.config(),
            );
            for candidate in advice.candidates() {
                let _ = (
                    candidate.fix().to_string(),
                    candidate.layout(),
                    candidate.extra_bytes(),
                );
                let _ = (candidate.bank_conflicts(), candidate.is_conflict_free());
            }
            for conflict in advice.conflicts() {
                let _ = (
                    conflict.access(),
                    conflict.op(),
                    conflict.phase(),
                    conflict.bank(),
                );
                let _ = (conflict.lanes(), conflict.words(), conflict.ways());
            }
            let _ = serde_json::to_string(&advice).unwrap();
        }
    }
    let json = serde_json::to_string(&tile).unwrap();
    assert_eq!(serde_json::from_str::<TileLayout>(&json).unwrap(), tile);
}

fn exercise_access(access: &TileAccess) {
    let _ = (
        access.op(),
        access.vector(),
        access.lanes(),
        access.elements().count(),
    );
    let _ = access.element(Lane::new(0).unwrap());
    let json = serde_json::to_string(access).unwrap();
    assert_eq!(&serde_json::from_str::<TileAccess>(&json).unwrap(), access);
}

// ------------------------------------------------------------------ properties

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// Requests from every constructor, with masks, under every configuration.
    #[test]
    fn requests_and_partitions(
        config in config(),
        op in op(),
        width in width(),
        addresses in addresses(),
        mask in any::<u32>(),
        (base, stride, seed) in (number(), number(), any::<u64>()),
        pairs in proptest::collection::vec((number(), 0..40u32), 0..40),
        text in "[0-9, ]{0,40}",
        (generic, window_base) in (proptest::array::uniform32(any::<u64>()), any::<u64>()),
        name in "[A-Z.0-9x]{0,12}",
    ) {
        let built = WarpRequest::new(op, width, addresses);
        prop_assert_eq!(&WarpRequest::from_slice(op, width, &addresses), &built);
        if let Ok(request) = built {
            exercise_request(config, &request);
            exercise_request(config, &request.with_mask(LaneSet::from_bits(mask)));
        }
        for request in [
            WarpRequest::strided(op, width, base, stride),
            WarpRequest::broadcast(op, width, base),
            WarpRequest::shuffled(op, width, base, seed),
            WarpRequest::from_elements(op, width, base, |lane| addresses[lane.index()]),
            WarpRequest::from_banks(config, op, &pairs),
            WarpRequest::parse_banks(config, op, &text),
            WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), &addresses.map(|a| a.unwrap_or(3))),
            WarpRequest::from_generic(op, width, LaneSet::from_bits(mask), &generic, window_base),
        ] {
            match request {
                Ok(request) => exercise_request(config, &request),
                Err(err) => { let _ = err.to_string(); }
            }
        }
        let _ = (config.bank_of(base), config.word_of(stride));
        // An op by its mnemonic: it reads back as it is written.
        if let Ok(op) = name.parse::<Op>() {
            prop_assert_eq!(op.to_string().parse::<Op>(), Ok(op));
        }
        prop_assert_eq!(op.to_string().parse::<Op>(), Ok(op));
        let _ = AccessWidth::from_bytes(width).map(|w| (w.bytes(), u32::from(w)));
    }

    /// Lanes, banks, their sets, capabilities and widths from any number.
    #[test]
    fn small_values(n in number(), m in number(), bits in any::<u32>(), text in "\\PC{0,12}") {
        let lane = Lane::new(n);
        prop_assert_eq!(lane.is_ok(), n < 32);
        if let Ok(lane) = lane {
            let _ = (lane.index(), lane.get(), lane.to_string());
        }
        let set = LaneSet::from_bits(bits);
        let range = LaneSet::range(n, m);
        let _ = (set.len(), set.is_empty(), set.first(), set.last(), set.to_string());
        let _ = (set.union(range), set.intersection(range), set.iter().rev().count());
        let _ = format!("{set:?}");
        let mut copy = set;
        if let Ok(lane) = Lane::new(n % 64) {
            copy.insert(lane);
            copy.remove(lane);
            prop_assert!(!copy.contains(lane));
        }
        let banks: BankSet = (0..32).filter(|bit| bits >> bit & 1 == 1)
            .map(|word| BankConfig::new(ComputeCapability::Sm90).bank_of(4 * word))
            .collect();
        prop_assert_eq!(banks.bits(), bits);
        let _ = (banks.len(), banks.is_empty(), banks.iter().count(), format!("{banks:?}"));
        if let Some(cc) = ComputeCapability::new(n, m) {
            exercise_capability(cc);
        }
        for cc in ComputeCapability::ALL {
            exercise_capability(cc);
        }
        // Any text as a capability: a value or an error, never a panic.
        let _ = text.parse::<ComputeCapability>();
        let _ = format!("sm_{n}{text}").parse::<ComputeCapability>();
        let _ = Matrices::from_count(n).map(|m| (m.count(), m.address_lanes()));
    }

    /// Launches and occupancies, on every capability.
    #[test]
    fn launches(cc in capability(), s in number(), d in number(), opt in number(), percent in number()) {
        exercise_launch(Launch::new(cc, s, d), percent);
        exercise_launch(Launch::new(cc, s, d).with_opt_in(opt), percent % 128);
    }

    /// Tiles, swizzles and accesses from any numbers.
    #[test]
    fn tiles(
        (rows, cols, element) in (number(), number(), width()),
        (pitch, padding, base) in (number(), number(), number()),
        (bits, sbase, shift) in (0..12u32, 0..12u32, 0..20u32),
        mode in select(vec![TmaSwizzle::B32, TmaSwizzle::B64, TmaSwizzle::B128]),
        (op, vector, row, col, warp) in (op(), width(), number(), number(), number()),
        config in config(),
        offset in any::<u32>(),
    ) {
        let swizzle = Swizzle::new(bits, sbase, shift);
        if let Ok(swizzle) = swizzle {
            exercise_swizzle(swizzle, offset);
        }
        let _ = (mode.span(), mode.byte_swizzle(), mode.for_element(element), mode.to_string());
        let accesses = [
            TileAccess::row(op, row, col, vector),
            TileAccess::column(op, row, col, vector),
            TileAccess::diagonal(op, row, col, vector),
            TileAccess::matmul_a(row, col, warp),
            TileAccess::matmul_b(row, col, warp),
            TileAccess::transposed_copy(row)[0],
            TileAccess::ldmatrix(Matrices::X4, |m| (row.wrapping_add(m), col)),
            TileAccess::stmatrix(Matrices::X2, |m| (row, col.wrapping_mul(m))),
            TileAccess::from_fn(op, vector, |lane| (lane.get() != warp % 32).then_some((row, col))),
        ];
        for access in &accesses {
            exercise_access(access);
            exercise_access(&access.with_mask(LaneSet::from_bits(offset)));
        }
        let _ = TileLayout::column_padding(config, element, cols);
        let Ok(tile) = TileLayout::new(rows % 300, cols % 300, element) else { return Ok(()) };
        let mut tiles = vec![tile];
        tiles.extend(tile.with_pitch(pitch % 600));
        tiles.extend(tile.with_padding(padding % 40));
        tiles.extend(tile.with_base(base));
        tiles.extend(tile.with_tma_swizzle(mode));
        if let Ok(swizzle) = swizzle {
            tiles.extend(tile.with_swizzle(swizzle));
        }
        for tile in tiles {
            for access in &accesses[..4] {
                exercise_tile(tile, access, config, row % 300, col % 300);
            }
        }
    }

    /// Element types, layouts and arenas from any sizes, names and indices.
    #[test]
    fn arenas(
        cc in capability(),
        (size, align, len) in (number(), number(), 0..5000usize),
        lens in proptest::collection::vec(0..300usize, 0..6),
        (dynamic, opt, index) in (0..70_000u32, number(), 0..400usize),
        name in "\\PC{0,6}",
        config in config(),
    ) {
        let element = ElementType::new(name.clone(), size, align);
        let mut layout = DynamicLayout::new();
        if let Ok(element) = &element {
            let _ = (element.name(), element.size(), element.align());
            let _ = layout.push(&name, element.clone(), len);
        }
        for (i, &n) in lens.iter().enumerate() {
            let element = [ElementType::of::<u8>(), ElementType::of::<f64>(), ElementType::of::<Float4>()][i % 3].clone();
            let _ = layout.push("a", element, n);
        }
        let sorted = layout.sorted_by_alignment();
        prop_assert!(sorted.launch_bytes() <= layout.launch_bytes());
        let _ = (layout.padding_bytes(), sorted.padding_bytes(), layout.arrays().len());
        for placed in layout.arrays() {
            let _ = (placed.name(), placed.element(), placed.len(), placed.is_empty());
            let _ = (placed.offset(), placed.bytes(), placed.padding_before());
        }
        let json = serde_json::to_string(&layout).unwrap();
        prop_assert_eq!(serde_json::from_str::<DynamicLayout>(&json).unwrap(), layout);

        let mut kernel = SharedMemory::builder(cc);
        let statics = kernel.declare::<f32>("s", len);
        let grid = kernel.declare_2d::<u16>("g", index % 40, lens.len());
        kernel.opt_in(opt);
        let _ = kernel.static_bytes();
        let Ok(mut block) = kernel.launch(dynamic) else { return Ok(()) };
        let _ = (block.launch(), block.bank_config(), block.dynamic_start(), block.dynamic_bytes_left());
        let _ = block.set_bank_config(config);
        let ext = block.extern_array::<Double2>("e");
        let carved = block.carve::<i32>("c", index);
        let carved2 = block.carve::<u8>("b", len);
        for info in block.arrays() {
            let _ = (info.name(), info.element(), info.address(), info.bytes(), info.origin());
        }
        if let Ok(array) = statics {
            exercise_array(&mut block, array, index, 1.5);
        }
        if let Ok(array) = grid {
            let _ = array.index(index % 7, index % 5);
            exercise_array(&mut block, array, index, 7);
        }
        if let Ok(array) = ext {
            exercise_array(&mut block, array, index, Double2([1.0, 2.0]));
        }
        if let Ok(array) = carved {
            exercise_array(&mut block, array, index, -3);
        }
        if let Ok(array) = carved2 {
            exercise_array(&mut block, array, index, 9);
        }
    }

    /// A block of warps: accesses, barriers of every kind, fences, in any
    /// order and from any warp, then the report; and constant loads.
    #[test]
    fn blocks_and_constant_loads(
        cc in capability(),
        threads in prop_oneof![1..1100u32, number()],
        steps in proptest::collection::vec(
            (0..6u32, 0..40u32, any::<u64>(), op(), addresses(), (number(), number(), any::<u32>())),
            0..12,
        ),
        width in width(),
        constant in addresses(),
    ) {
        if let Ok(load) = smem_model::ConstantLoad::from_fn(width, |lane| constant[lane.index()]) {
            let _ = (load.width(), load.active(), load.distinct_addresses(LaneSet::from_bits(steps.len() as u32)));
            for cc in ComputeCapability::ALL {
                let _ = load.requests(cc);
            }
            let json = serde_json::to_string(&load).unwrap();
            prop_assert_eq!(serde_json::from_str::<smem_model::ConstantLoad>(&json).unwrap(), load);
        }
        let Ok(mut block) = smem_model::Block::new(cc, threads) else { return Ok(()) };
        let _ = (block.warps(), block.threads());
        for (kind, warp, site, op, addresses, (id, count, lanes)) in steps {
            let lanes = LaneSet::from_bits(lanes);
            let result = match kind {
                0 | 1 => match WarpRequest::new(op, 4, addresses) {
                    Ok(request) => block.access(warp, site, &request),
                    Err(_) => match WarpRequest::new(op, 16, addresses) {
                        Ok(request) => block.access(warp, site, &request),
                        Err(err) => Err(err),
                    },
                },
                2 => block.syncthreads(site),
                3 => block.sync(warp, site, lanes, smem_model::SyncOp::Named { id: id % 20, threads: count }),
                4 => block.sync(warp, site, lanes, smem_model::SyncOp::Warp(lanes)),
                _ => block.sync(warp, site, lanes, smem_model::SyncOp::Fence),
            };
            if let Err(err) = result {
                let _ = err.to_string();
            }
        }
        let report = block.finish();
        let _ = (report.is_clean(), report.to_string(), serde_json::to_string(&report).unwrap());
        for hazard in report.hazards() {
            let _ = (hazard.kind(), hazard.severity(), hazard.address(), hazard.bytes());
            for access in [hazard.first(), hazard.second()] {
                let _ = (access.site(), access.warp(), access.lane(), access.thread(), access.access().writes());
            }
        }
        for error in report.barrier_errors() {
            let _ = error.to_string();
        }
    }

    /// serde from arbitrary JSON: a value or an error for every type, and a
    /// value that is read back is one its constructors build: its methods
    /// work and it writes and reads back the same.
    #[test]
    fn serde_from_arbitrary_json(value in json_value()) {
        read_everything(value);
    }

    /// serde from JSON shaped like the types, with edge numbers: most values
    /// reach the checks.
    #[test]
    fn serde_from_shaped_json(
        (a, b, c, d) in (number(), number(), number(), number()),
        small in proptest::collection::vec(0..40u32, 4),
        addresses in addresses(),
        op in op(),
        cc in capability(),
        eight in any::<bool>(),
    ) {
        let width = if eight { "EightBytes" } else { "FourBytes" };
        let config = json!({"capability": cc, "bank_width": width});
        let request = json!({"op": op, "width": small[0] % 17, "addresses": addresses});
        for value in [
            json!(a), json!(small[1]),
            config.clone(),
            request.clone(),
            json!({"config": config, "request": request}),
            json!({"config": config, "request": request, "wavefronts": small[2], "ways": small[3]}),
            json!({"wavefronts": small[0], "ideal_wavefronts": small[1], "ways": small[2]}),
            json!({"address": a, "lanes": small}),
            json!({"blocks_per_sm": small[0], "allocated_per_block": b, "carveout": c, "limit": "SharedMemory"}),
            json!({"blocks_per_sm": small[0], "allocated_per_block": b, "carveout": c, "limit": "BlocksPerSm"}),
            json!({"rows": small[0], "cols": small[1], "element_bytes": small[2], "pitch": small[3], "base": d,
                   "swizzle": {"bits": small[0] % 8, "base": small[1] % 8, "shift": small[2] % 8}}),
            json!({"bits": a % 40, "base": b % 40, "shift": c % 40}),
            json!({"name": "t", "size": a, "align": b}),
            json!({"arrays": [{"name": "x", "element": {"name": "t", "size": small[0], "align": small[1]}, "len": c},
                              {"name": "y", "element": {"name": "u", "size": 4, "align": 4}, "len": small[2]}]}),
            json!({"op": op, "vector": small[0], "elements": addresses.map(|a| a.map(|a| [a, a % 7]))}),
            json!({"capability": cc, "static_bytes": a, "dynamic_bytes": b, "opt_in": c}),
            json!({"word": a, "bank": small[0], "lanes": small}),
            json!({"width": small[0] % 17, "addresses": addresses}),
        ] {
            read_everything(value);
        }
    }
}

fn exercise_array<T: Element>(
    block: &mut SharedMemory,
    array: smem_model::Array<T>,
    index: usize,
    value: T,
) {
    let _ = (
        array.address(),
        array.len(),
        array.is_empty(),
        array.rows(),
        array.cols(),
    );
    let _ = (block.name(array), block.address(array, index));
    let _ = block.write(array, index, value);
    let _ = block.read(array, index);
    let _ = block.read(array, 0);
    let indices = |lane: Lane| (lane.index() != index % 32).then_some(index / 2 + lane.index() / 3);
    if let Ok(load) = block.warp_load(array, indices) {
        let _ = (load.values(), load.partition().wavefronts());
    }
    for order in [StoreOrder::Undefined, StoreOrder::HighestLane] {
        if let Ok(store) = block.warp_store(array, |lane| indices(lane).map(|i| (i, value)), order)
        {
            let _ = (store.partition().wavefronts(), store.collisions().len());
        }
    }
    let _ = block.read(array, index / 2);
}

/// `value` read as every deserialisable type; what is read is exercised.
fn read_everything(value: Value) {
    fn read<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
        serde_json::from_value(value.clone()).ok()
    }
    let _ = read::<Lane>(&value).map(|lane| lane.index());
    let _ = read::<Bank>(&value).map(|bank| bank.index());
    let _ = read::<LaneSet>(&value).map(|set| set.len());
    let _ = read::<BankSet>(&value).map(|set| set.len());
    let _ = read::<AccessWidth>(&value).map(|width| width.bytes());
    let _ = read::<Op>(&value).map(|op| (op.writes(), op.fixed_width(), op.address_lanes()));
    if let Some(cc) = read::<ComputeCapability>(&value) {
        exercise_capability(cc);
    }
    let config = read::<BankConfig>(&value);
    if let Some(config) = config {
        // The width read is the width in force: its rules agree with it.
        let _ = (
            config.bank_count(),
            config.word_of(u32::MAX),
            config.bank_of(u32::MAX),
        );
    }
    if let Some(request) = read::<WarpRequest>(&value) {
        exercise_request(BankConfig::new(ComputeCapability::Sm90), &request);
        exercise_request(BankConfig::new(ComputeCapability::Sm13), &request);
    }
    if let Some(partition) = read::<Partition>(&value) {
        exercise_partition(&partition);
    }
    if let Some(cost) = read::<Cost>(&value) {
        let _ = (cost.bank_conflicts(), cost.ways(), cost.ideal_wavefronts());
    }
    if let Some(collision) = read::<WriteCollision>(&value) {
        assert!(collision.winner(StoreOrder::LowestLane).is_some());
    }
    let _ = read::<Classification>(&value).map(|c| c.to_string());
    if let Some(launch) = read::<Launch>(&value) {
        exercise_launch(launch, 50);
    }
    if let Some(occupancy) = read::<Occupancy>(&value) {
        exercise_occupancy(occupancy);
    }
    let _ = read::<Carveout>(&value);
    if let Some(swizzle) = read::<Swizzle>(&value) {
        exercise_swizzle(swizzle, 12345);
    }
    if let Some(tile) = read::<TileLayout>(&value) {
        let access = TileAccess::row(Op::Load, 0, 0, 1);
        exercise_tile(
            tile,
            &access,
            BankConfig::new(ComputeCapability::Sm90),
            1,
            1,
        );
    }
    if let Some(access) = read::<TileAccess>(&value) {
        exercise_access(&access);
        let sm90 = BankConfig::new(ComputeCapability::Sm90);
        for element in [1, 4, 16] {
            let tile = TileLayout::new(64, 64, element).unwrap();
            exercise_tile(tile, &access, sm90, 3, 5);
        }
    }
    let _ = read::<Fix>(&value).map(|fix| fix.to_string());
    let _ = read::<TmaSwizzle>(&value).map(|mode| mode.span());
    if let Some(element) = read::<ElementType>(&value) {
        let _ = DynamicLayout::new().push("x", element, 3);
    }
    if let Some(layout) = read::<DynamicLayout>(&value) {
        assert!(layout.sorted_by_alignment().launch_bytes() <= layout.launch_bytes());
    }
    let _ = read::<smem_model::WordAccess>(&value).map(|w| w.is_broadcast());
    if let Some(load) = read::<smem_model::ConstantLoad>(&value) {
        let _ = (
            load.width(),
            load.active(),
            load.distinct_addresses(LaneSet::FULL),
        );
        for cc in ComputeCapability::ALL {
            let _ = load.requests(cc);
        }
    }
    let _ = read::<smem_model::SyncOp>(&value);
    let _ = read::<smem_model::corpus::Record>(&value).map(|r| r.check(None));
}
