//! serde: every type with an invariant refuses on the way in what its
//! constructor refuses, with the constructor's message; every value reads back
//! as it was written.
#![cfg(feature = "serde")]

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;
use smem_model::{
    AccessWidth, Bank, BankConfig, BankSet, Carveout, Classification, ComputeCapability, Cost,
    DynamicLayout, ElementType, Error, Fix, Lane, LaneSet, Launch, Matrices, Occupancy,
    OccupancyLimit, Op, Partition, SharedMemConfig, Swizzle, TileAccess, TileLayout, TmaSwizzle,
    WarpRequest, WordAccess, WriteCollision,
};

/// `value` written and read back.
fn again<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let text = serde_json::to_string(value).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{text} reads back: {err}"))
}

/// The message of reading `value` as a `T`, which must fail.
fn refused<T: DeserializeOwned + std::fmt::Debug>(value: serde_json::Value) -> String {
    let text = value.to_string();
    match serde_json::from_str::<T>(&text) {
        Ok(read) => panic!("{text} was read as {read:?}"),
        // serde_json locates an error inside a nested value; the message is
        // the constructor's.
        Err(err) => {
            let place = format!(" at line {} column {}", err.line(), err.column());
            let message = err.to_string();
            message.strip_suffix(&place).unwrap_or(&message).to_owned()
        }
    }
}

/// Asserts that reading `value` fails with the message of `expected`.
#[track_caller]
fn refuses_with<T: DeserializeOwned + std::fmt::Debug>(value: serde_json::Value, expected: Error) {
    let message = refused::<T>(value);
    assert_eq!(message, expected.to_string());
}

#[test]
fn lanes_and_banks_are_0_to_31() {
    assert_eq!(
        serde_json::to_string(&Lane::new(31).unwrap()).unwrap(),
        "31"
    );
    assert_eq!(serde_json::from_str::<Lane>("31").unwrap().get(), 31);
    for lane in [32, 255, 256, u32::MAX] {
        refuses_with::<Lane>(json!(lane), Error::LaneOutOfRange { lane });
    }
    assert_eq!(
        refused::<Lane>(json!(32)),
        "lane 32 does not exist: a warp has lanes 0 to 31"
    );
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    assert_eq!(again(&sm90.bank_of(31 * 4)), sm90.bank_of(31 * 4));
    assert_eq!(serde_json::from_str::<Bank>("7").unwrap().index(), 7);
    for bank in [32, 255] {
        refuses_with::<Bank>(json!(bank), Error::BankOutOfRange { bank, banks: 32 });
    }
    assert_eq!(
        refused::<Bank>(json!(40)),
        "bank 40 does not exist: the configuration has 32 banks"
    );
}

#[test]
fn lane_and_bank_sets_are_lists() {
    let set = LaneSet::from_bits(0x8000_0005);
    assert_eq!(serde_json::to_string(&set).unwrap(), "[0,2,31]");
    assert_eq!(again(&set), set);
    refuses_with::<LaneSet>(json!([0, 32]), Error::LaneOutOfRange { lane: 32 });
    let banks: BankSet = (0..4u32)
        .map(|word| BankConfig::new(ComputeCapability::Sm90).bank_of(8 * word))
        .collect();
    assert_eq!(serde_json::to_string(&banks).unwrap(), "[0,2,4,6]");
    assert_eq!(again(&banks), banks);
    refuses_with::<BankSet>(
        json!([1, 99]),
        Error::BankOutOfRange {
            bank: 99,
            banks: 32,
        },
    );
}

#[test]
fn widths_and_capabilities_parse_as_their_constructors() {
    assert_eq!(serde_json::to_string(&AccessWidth::B16).unwrap(), "16");
    assert_eq!(again(&AccessWidth::B2), AccessWidth::B2);
    refuses_with::<AccessWidth>(json!(12), Error::InvalidWidth { width: 12 });
    assert_eq!(
        serde_json::to_string(&ComputeCapability::Sm90).unwrap(),
        "\"sm_90\""
    );
    assert_eq!(
        serde_json::from_str::<ComputeCapability>("\"sm_86\"").unwrap(),
        ComputeCapability::Sm86
    );
    // A byte split inside a multi-byte character panicked.
    for given in ["sm_1é", "sm_9é", "compute_8é"] {
        refuses_with::<ComputeCapability>(
            json!(given),
            Error::UnknownCapability {
                given: given.into(),
            },
        );
        refuses_with::<BankConfig>(
            json!({"capability": given, "bank_width": "FourBytes"}),
            Error::UnknownCapability {
                given: given.into(),
            },
        );
    }
    refuses_with::<ComputeCapability>(
        json!("sm_40"),
        Error::UnknownCapability {
            given: "sm_40".into(),
        },
    );
}

#[test]
fn bank_configs_refuse_a_width_their_capability_lacks() {
    for config in [
        BankConfig::new(ComputeCapability::Sm90),
        BankConfig::new(ComputeCapability::Sm13),
        BankConfig::new(ComputeCapability::Sm35).with_shared_mem_config(SharedMemConfig::EightByte),
    ] {
        assert_eq!(again(&config), config);
    }
    assert_eq!(
        serde_json::to_value(BankConfig::new(ComputeCapability::Sm90)).unwrap(),
        json!({"capability": "sm_90", "bank_width": "FourBytes"})
    );
    // sm_90 with 8-byte banks computed with rules that disagree with its own
    // bank width.
    let hopper8 = json!({"capability": "sm_90", "bank_width": "EightBytes"});
    refuses_with::<BankConfig>(
        hopper8.clone(),
        Error::BankWidthUnsupported {
            width: 8,
            capability: ComputeCapability::Sm90,
        },
    );
    assert_eq!(
        refused::<BankConfig>(hopper8),
        "compute capability 9.0 has no 8-byte banks: only 3.x has 8-byte banks (in eight-byte \
         mode), every capability 4-byte banks"
    );
    let kepler8 = json!({"capability": "3.5", "bank_width": "EightBytes"});
    assert_eq!(
        serde_json::from_value::<BankConfig>(kepler8).unwrap(),
        BankConfig::new(ComputeCapability::Sm35).with_shared_mem_config(SharedMemConfig::EightByte)
    );
}

#[test]
fn costs_refuse_ideal_wavefronts_above_the_wavefronts() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let request = WarpRequest::from_fn(Op::Load, 16, |lane| Some(32 * lane.get())).unwrap();
    let cost = sm90.cost(&request).unwrap();
    assert_eq!(
        serde_json::to_value(cost).unwrap(),
        json!({"wavefronts": 8, "ideal_wavefronts": 4, "ways": 2, "load_wavefronts": 0, "instructions": 1, "visible_to_nsight": true})
    );
    // Costs written before the compare-and-swap loops read as one instruction.
    assert_eq!(
        serde_json::from_value::<Cost>(json!({"wavefronts": 8, "ideal_wavefronts": 4, "ways": 2}))
            .unwrap(),
        cost
    );
    assert_eq!(again(&cost), cost);
    assert_eq!(again(&Cost::default()), Cost::default());
    // bank_conflicts() overflowed on this one.
    let err = Error::InvalidCost {
        wavefronts: 1,
        ideal_wavefronts: 2,
        ways: 1,
    };
    refuses_with::<Cost>(
        json!({"wavefronts": 1, "ideal_wavefronts": 2, "ways": 1}),
        err.clone(),
    );
    assert_eq!(
        err.to_string(),
        "a cost of 1 wavefronts cannot have 2 ideal wavefronts and 1 ways: each must be at most \
         the wavefronts, and zero exactly when they are"
    );
    // The compare-and-swap loop's fields: 32 rounds need 32 loads and 64 tries.
    let looped = json!({"wavefronts": 64, "ideal_wavefronts": 2, "ways": 32,
        "load_wavefronts": 32, "instructions": 32, "visible_to_nsight": true});
    assert_eq!(
        again(&serde_json::from_value::<Cost>(looped.clone()).unwrap()),
        serde_json::from_value::<Cost>(looped).unwrap()
    );
    let err = Error::InvalidLoopCost {
        wavefronts: 8,
        load_wavefronts: 0,
        instructions: 0,
    };
    refuses_with::<Cost>(
        json!({"wavefronts": 8, "ideal_wavefronts": 4, "ways": 2, "load_wavefronts": 0,
            "instructions": 0, "visible_to_nsight": true}),
        err.clone(),
    );
    assert_eq!(
        err.to_string(),
        "a cost of 8 wavefronts with 0 load wavefronts and 0 instructions is neither one \
         instruction without loads nor a compare-and-swap loop (at least 1 load wavefront and 2 \
         wavefronts a round)"
    );
    for (wavefronts, loads, instructions, visible) in [
        (8, 1, 2, true),
        (8, 5, 5, true),
        (64, 32, 32, false),
        (0, 1, 0, true),
    ] {
        refuses_with::<Cost>(
            json!({"wavefronts": wavefronts, "ideal_wavefronts": wavefronts.min(1), "ways": wavefronts.min(1),
                "load_wavefronts": loads, "instructions": instructions, "visible_to_nsight": visible}),
            Error::InvalidLoopCost {
                wavefronts,
                load_wavefronts: loads,
                instructions,
            },
        );
    }
    for (wavefronts, ideal_wavefronts, ways) in [(2, 1, 3), (0, 0, 1), (3, 0, 3), (3, 1, 0)] {
        refuses_with::<Cost>(
            json!({"wavefronts": wavefronts, "ideal_wavefronts": ideal_wavefronts, "ways": ways}),
            Error::InvalidCost {
                wavefronts,
                ideal_wavefronts,
                ways,
            },
        );
    }
}

#[test]
fn requests_are_built_by_their_constructor() {
    let request = WarpRequest::from_fn(Op::Store, 8, |lane| {
        (lane.get() != 3).then(|| 8 * lane.get())
    })
    .unwrap();
    let value = serde_json::to_value(request).unwrap();
    assert_eq!(value["op"], json!("Store"));
    assert_eq!(value["width"], json!(8));
    assert_eq!(value["addresses"][2], json!(16));
    assert_eq!(value["addresses"][3], json!(null));
    assert_eq!(again(&request), request);
    let ldsm =
        WarpRequest::from_fn(Op::LdMatrix(Matrices::X2), 16, |lane| Some(16 * lane.get())).unwrap();
    assert_eq!(again(&ldsm), ldsm);

    let addresses = |f: fn(u32) -> Option<u32>| (0..32).map(f).collect::<Vec<_>>();
    refuses_with::<WarpRequest>(
        json!({"op": "Load", "width": 4, "addresses": addresses(|lane| Some(2 + 4 * lane))}),
        Error::Misaligned {
            lane: 0,
            address: 2,
            width: 4,
        },
    );
    refuses_with::<WarpRequest>(
        json!({"op": "Load", "width": 12, "addresses": addresses(Some)}),
        Error::InvalidWidth { width: 12 },
    );
    refuses_with::<WarpRequest>(
        json!({"op": {"Atomic": "Inc"}, "width": 8, "addresses": addresses(|lane| Some(8 * lane))}),
        Error::WidthMismatch {
            op: Op::Atomic(smem_model::AtomicKind::Inc),
            width: 8,
            expected: 4,
        },
    );
    refuses_with::<WarpRequest>(
        json!({"op": "Load", "width": 4, "addresses": [0, 4]}),
        Error::LaneCount { given: 2 },
    );
}

#[test]
fn write_collisions_have_two_lanes_or_more() {
    let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(4 * (lane.get() / 8))).unwrap();
    let collisions = store.write_collisions();
    assert_eq!(
        serde_json::to_value(collisions[1]).unwrap(),
        json!({"address": 4, "lanes": [8, 9, 10, 11, 12, 13, 14, 15], "phase_lanes": 32})
    );
    // Written before the measured store order: the warp is one phase.
    let old: WriteCollision =
        serde_json::from_value(json!({"address": 4, "lanes": [8, 9, 10, 11, 12, 13, 14, 15]}))
            .unwrap();
    assert_eq!(old, collisions[1]);
    let err = Error::CollisionPhase { phase_lanes: 12 };
    assert_eq!(
        err.to_string(),
        "a store's phases are 8, 16 or 32 lanes, not 12"
    );
    refuses_with::<WriteCollision>(
        json!({"address": 0, "lanes": [3, 4], "phase_lanes": 12}),
        err,
    );
    for collision in &collisions {
        assert_eq!(&again(collision), collision);
    }
    let err = Error::CollisionLanes { lanes: 1 };
    assert_eq!(
        err.to_string(),
        "a write collision needs at least 2 lanes, but 1 were given"
    );
    refuses_with::<WriteCollision>(json!({"address": 0, "lanes": [3]}), err);
    refuses_with::<WriteCollision>(
        json!({"address": 0, "lanes": [3, 40]}),
        Error::LaneOutOfRange { lane: 40 },
    );
}

#[test]
fn partitions_are_computed_again_and_must_agree() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let stride2 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get())).unwrap();
    let partition = sm90.partition(&stride2).unwrap();
    let value = serde_json::to_value(&partition).unwrap();
    assert_eq!(value["wavefronts"], json!(2));
    assert_eq!(value["classification"], json!({"Conflicted": {"ways": 2}}));
    assert_eq!(
        value["transactions"][1]["lanes"],
        json!((16..32).collect::<Vec<_>>())
    );
    assert_eq!(
        value["transactions"][0]["words"][0],
        json!({"word": 0, "bank": 0, "lanes": [0]})
    );
    assert_eq!(again(&partition), partition);
    // Only the configuration and the request are needed.
    let bare = json!({"config": value["config"], "request": value["request"]});
    assert_eq!(
        serde_json::from_value::<Partition>(bare).unwrap(),
        partition
    );

    let mut lying = value.clone();
    lying["wavefronts"] = json!(1);
    let err = Error::Inconsistent {
        quantity: "wavefronts",
        given: 1,
        computed: 2,
    };
    assert_eq!(
        err.to_string(),
        "wavefronts: 1 given, but 2 computed from the rest of the value"
    );
    refuses_with::<Partition>(lying, err);
    let mut lying = value.clone();
    lying["classification"] = json!("Parallel");
    assert_eq!(
        refused::<Partition>(lying),
        "the classification given, parallel, differs from the one computed from the request, \
         conflicted (2-way)"
    );
    // The capability's own checks: stmatrix on an A100, an access past the window.
    let stsm =
        WarpRequest::from_fn(Op::StMatrix(Matrices::X4), 16, |lane| Some(16 * lane.get())).unwrap();
    let a100 = BankConfig::new(ComputeCapability::Sm80);
    refuses_with::<Partition>(
        json!({"config": a100, "request": stsm}),
        a100.partition(&stsm).unwrap_err(),
    );
    let far = WarpRequest::from_fn(Op::Load, 4, |_| Some(0x4000_0000)).unwrap();
    refuses_with::<Partition>(
        json!({"config": sm90, "request": far}),
        sm90.partition(&far).unwrap_err(),
    );
    // A word access has no invariant beyond its bank's.
    let word = WordAccess {
        word: 33,
        bank: sm90.bank_of(4),
        lanes: LaneSet::from_bits(3),
    };
    assert_eq!(again(&word), word);
    refuses_with::<WordAccess>(
        json!({"word": 1, "bank": 32, "lanes": [0]}),
        Error::BankOutOfRange {
            bank: 32,
            banks: 32,
        },
    );
    for classification in [Classification::Empty, Classification::Serial { ways: 32 }] {
        assert_eq!(again(&classification), classification);
    }
}

#[test]
fn launches_and_occupancies() {
    let launch = Launch::new(ComputeCapability::Sm90, 12288, 4096).with_opt_in(8192);
    assert_eq!(again(&launch), launch);
    let occupancy = launch.occupancy_with(Carveout::Percent(50)).unwrap();
    assert_eq!(again(&occupancy), occupancy);
    assert_eq!(again(&Carveout::Percent(7)), Carveout::Percent(7));
    let small = Launch::new(ComputeCapability::Sm90, 0, 0)
        .occupancy()
        .unwrap();
    assert_eq!(again(&small), small);
    let with_block = launch.with_block(256, 64);
    assert_eq!(again(&with_block), with_block);
    let by_registers = with_block.occupancy().unwrap();
    assert_eq!(again(&by_registers), by_registers);
    let value = serde_json::to_value(occupancy).unwrap();
    assert_eq!(
        value,
        json!({"blocks_per_sm": 7, "allocated_per_block": 17408, "carveout": 135168,
               "limit": "SharedMemory", "preferred_carveout": 135168,
               "allowed": [null, null, 7, 32, 64]})
    );
    // Data written before the thread limits: the four figures alone still read.
    let old: Occupancy = serde_json::from_value(
        json!({"blocks_per_sm": 7, "allocated_per_block": 17408, "carveout": 135168,
               "limit": "SharedMemory"}),
    )
    .unwrap();
    assert_eq!(
        (old.blocks_per_sm(), old.limit()),
        (7, OccupancyLimit::SharedMemory)
    );
    // Blocks that are not the fewest the limits allow.
    let mut fewer = value.clone();
    fewer["allowed"] = json!([5, null, 7, 32, 64]);
    refuses_with::<Occupancy>(
        fewer,
        Error::InvalidOccupancy {
            blocks: 7,
            allocated: 17408,
            carveout: 135168,
        },
    );
    let mut lying = value.clone();
    lying["blocks_per_sm"] = json!(9);
    lying["allowed"] = json!([null, null, 9, 32, 64]);
    let err = Error::InvalidOccupancy {
        blocks: 9,
        allocated: 17408,
        carveout: 135168,
    };
    assert_eq!(
        err.to_string(),
        "9 blocks per SM of 17408 bytes each do not match a carveout of 135168 bytes: shared \
         memory bounds the blocks at carveout / allocation, the blocks-per-SM limit at that or \
         fewer"
    );
    refuses_with::<Occupancy>(lying, err);
    refuses_with::<Occupancy>(
        json!({"blocks_per_sm": 1, "allocated_per_block": 0, "carveout": 100,
               "limit": "SharedMemory"}),
        Error::InvalidOccupancy {
            blocks: 1,
            allocated: 0,
            carveout: 100,
        },
    );
}

#[test]
fn tiles_and_swizzles_are_built_by_their_constructors() {
    let swizzle = Swizzle::new(3, 4, 3).unwrap();
    assert_eq!(
        serde_json::to_value(swizzle).unwrap(),
        json!({"bits": 3, "base": 4, "shift": 3})
    );
    assert_eq!(again(&swizzle), swizzle);
    refuses_with::<Swizzle>(
        json!({"bits": 3, "base": 0, "shift": 2}),
        Error::SwizzleOverlap { bits: 3, shift: 2 },
    );
    refuses_with::<Swizzle>(
        json!({"bits": 3, "base": 30, "shift": 3}),
        Error::SwizzleWidth {
            bits: 3,
            base: 30,
            shift: 3,
        },
    );

    let tile = TileLayout::new(32, 32, 4)
        .unwrap()
        .with_swizzle(Swizzle::new(5, 0, 5).unwrap())
        .unwrap()
        .with_base(0x400)
        .unwrap();
    assert_eq!(again(&tile), tile);
    let padded = TileLayout::new(64, 8, 16).unwrap().with_padding(1).unwrap();
    assert_eq!(again(&padded), padded);
    let tma = TileLayout::new(8, 32, 4)
        .unwrap()
        .with_tma_swizzle(TmaSwizzle::B128)
        .unwrap();
    assert_eq!(again(&tma), tma);
    // Triton's wide NVMMA rows: column tiles, written only when there are some.
    let wide = TileLayout::new(8, 64, 4)
        .unwrap()
        .with_nvmma_swizzle(128)
        .unwrap();
    assert_eq!(again(&wide), wide);
    assert_eq!(serde_json::to_value(wide).unwrap()["tile_cols"], 32);
    assert!(serde_json::to_value(tma)
        .unwrap()
        .get("tile_cols")
        .is_none());
    refuses_with::<TileLayout>(
        json!({"rows": 8, "cols": 64, "element_bytes": 4, "pitch": 64, "tile_cols": 32}),
        Error::ColumnTiles {
            cols: 64,
            tile_cols: 32,
            padding: 32,
        },
    );
    refuses_with::<TileLayout>(
        json!({"rows": 0, "cols": 4, "element_bytes": 4, "pitch": 4}),
        Error::EmptyTile { rows: 0, cols: 4 },
    );
    refuses_with::<TileLayout>(
        json!({"rows": 4, "cols": 4, "element_bytes": 4, "pitch": 3}),
        Error::PitchTooSmall { pitch: 3, cols: 4 },
    );
    refuses_with::<TileLayout>(
        json!({"rows": 4, "cols": 4, "element_bytes": 3, "pitch": 4}),
        Error::InvalidWidth { width: 3 },
    );
    refuses_with::<TileLayout>(
        json!({"rows": 3, "cols": 4, "element_bytes": 4, "pitch": 4,
               "swizzle": {"bits": 3, "base": 0, "shift": 3}}),
        TileLayout::new(3, 4, 4)
            .unwrap()
            .with_swizzle(Swizzle::new(3, 0, 3).unwrap())
            .unwrap_err(),
    );
    refuses_with::<TileLayout>(
        json!({"rows": 4, "cols": 4, "element_bytes": 4, "pitch": 4, "base": u32::MAX}),
        TileLayout::new(4, 4, 4)
            .unwrap()
            .with_base(u32::MAX)
            .unwrap_err(),
    );

    let column = TileAccess::column(Op::Load, 0, 3, 1);
    assert_eq!(again(&column), column);
    let ldsm = TileAccess::ldmatrix(Matrices::X4, |m| (8 * (m % 2), 8 * (m / 2)));
    assert_eq!(again(&ldsm), ldsm);
    refuses_with::<TileAccess>(
        json!({"op": "Load", "vector": 1, "elements": [[0, 0]]}),
        Error::LaneCount { given: 1 },
    );
    assert_eq!(
        refused::<TileAccess>(json!({"op": "Load", "elements": vec![[0, 0]; 32]})),
        "missing field `vector`"
    );
    let fix = Fix::Swizzle(swizzle);
    assert_eq!(again(&fix), fix);
    assert_eq!(again(&Fix::Tma(TmaSwizzle::B64)), Fix::Tma(TmaSwizzle::B64));
}

#[test]
fn advice_serialises() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let accesses = [TileAccess::column(Op::Store, 0, 0, 1)];
    let advice = TileLayout::new(32, 32, 4)
        .unwrap()
        .advise(sm90, &accesses)
        .unwrap();
    let value = serde_json::to_value(&advice).unwrap();
    assert_eq!(value["original"]["wavefronts"], json!(32));
    assert_eq!(value["config"], serde_json::to_value(sm90).unwrap());
    assert!(value["candidates"]
        .as_array()
        .is_some_and(|c| !c.is_empty()));
}

#[test]
fn element_types_and_layouts_are_built_by_their_constructors() {
    let half2 = ElementType::new("__half2", 4, 4).unwrap();
    assert_eq!(again(&half2), half2);
    refuses_with::<ElementType>(
        json!({"name": "float3", "size": 12, "align": 4}),
        Error::ElementSize {
            name: "float3".into(),
            size: 12,
            align: 4,
        },
    );
    refuses_with::<ElementType>(
        json!({"name": "empty", "size": 0, "align": 1}),
        Error::ElementSize {
            name: "empty".into(),
            size: 0,
            align: 1,
        },
    );
    let layout = DynamicLayout::new()
        .array::<u8>("c", 7)
        .unwrap()
        .array::<f64>("d", 2)
        .unwrap();
    let value = serde_json::to_value(&layout).unwrap();
    assert_eq!(value["arrays"][1]["offset"], json!(8));
    assert_eq!(value["launch_bytes"], json!(24));
    assert_eq!(again(&layout), layout);
    let mut lying = value.clone();
    lying["arrays"][1]["offset"] = json!(7);
    refuses_with::<DynamicLayout>(
        lying,
        Error::Inconsistent {
            quantity: "offset",
            given: 7,
            computed: 8,
        },
    );
    let mut lying = value;
    lying["launch_bytes"] = json!(23);
    refuses_with::<DynamicLayout>(
        lying,
        Error::Inconsistent {
            quantity: "launch bytes",
            given: 23,
            computed: 24,
        },
    );
    let float = json!({"name": "float", "size": 4, "align": 4});
    refuses_with::<DynamicLayout>(
        json!({"arrays": [{"name": "a", "element": float, "len": 0}]}),
        Error::EmptyArray { name: "a".into() },
    );
    refuses_with::<DynamicLayout>(
        json!({"arrays": [{"name": "a", "element": float, "len": u32::MAX}]}),
        Error::SizeOverflow {
            name: "a".into(),
            len: u64::from(u32::MAX),
            element_size: 4,
        },
    );
}

#[test]
fn plain_enums_round_trip() {
    for op in [Op::Load, Op::ATOMIC_ADD, Op::StMatrix(Matrices::X1)] {
        assert_eq!(again(&op), op);
    }
    assert_eq!(
        again(&ComputeCapability::Sm121.architecture()),
        ComputeCapability::Sm121.architecture()
    );
    assert_eq!(again(&TmaSwizzle::B32), TmaSwizzle::B32);
}

#[test]
fn constant_loads_are_built_by_their_constructor() {
    let load = smem_model::ConstantLoad::from_fn(4, |lane| {
        (lane.get() % 2 == 0).then(|| 4 * (lane.get() % 6))
    })
    .unwrap();
    let value = serde_json::to_value(load).unwrap();
    assert_eq!(value["width"], json!(4));
    assert_eq!(value["addresses"][4], json!(16));
    assert_eq!(value["addresses"][5], json!(null));
    assert_eq!(again(&load), load);
    let last = |address: u32| {
        let mut addresses = vec![None; 32];
        addresses[31] = Some(address);
        json!({"width": 8, "addresses": addresses})
    };
    refuses_with::<smem_model::ConstantLoad>(
        last(65536),
        smem_model::ConstantLoad::from_fn(8, |lane| (lane.get() == 31).then_some(65536))
            .unwrap_err(),
    );
    refuses_with::<smem_model::ConstantLoad>(
        last(4),
        Error::Misaligned {
            lane: 31,
            address: 4,
            width: 8,
        },
    );
    refuses_with::<smem_model::ConstantLoad>(
        json!({"width": 4, "addresses": []}),
        Error::LaneCount { given: 0 },
    );
}
