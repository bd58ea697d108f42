//! Capacity limits and occupancy: against the driver's own answers measured on
//! an H200 (`tests/data/device/`), and at, just under and just over every limit
//! of the capacity table for 3.5, 7.5, 8.0, 8.6 and 9.0.

use smem_model::{Carveout, ComputeCapability, Error, Launch, OccupancyLimit};

const KB: u32 = 1024;

/// Every `occ` line of the H200 measurement: the model must give the driver's
/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` answer.
#[test]
fn occupancy_matches_the_driver_on_an_h200() {
    let data = include_str!("data/device/sm90-h200-layout-occupancy.txt");
    let mut checked = 0;
    for line in data.lines().filter(|l| l.starts_with("occ ")) {
        let field = |key: &str| -> i64 {
            let start = line.find(&format!("{key}=")).unwrap() + key.len() + 1;
            line[start..]
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let carveout = match field("carveout") {
            -1 => Carveout::Default,
            p => Carveout::Percent(p as u32),
        };
        let launch = Launch::new(
            ComputeCapability::Sm90,
            field("static") as u32,
            field("dynamic") as u32,
        );
        // Dynamic sizes past 48 KB were measured with the opt-in set to the maximum.
        let launch = if field("static") + field("dynamic") > 48 * 1024 {
            launch.with_opt_in(227 * KB - field("static") as u32)
        } else {
            launch
        };
        let blocks = launch.occupancy_with(carveout).unwrap().blocks_per_sm();
        assert_eq!(i64::from(blocks), field("blocks"), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 77);
}

#[test]
fn the_measured_launch_limits_hold() {
    let cc = ComputeCapability::Sm90;
    assert_eq!(Launch::new(cc, 12288, 36864).check(), Ok(()));
    assert_eq!(
        Launch::new(cc, 12288, 36865).check(),
        Err(Error::LaunchTooLarge {
            static_bytes: 12288,
            dynamic_bytes: 36865,
            limit: 48 * KB,
            capability: cc
        })
    );
    let opted = |dynamic| Launch::new(cc, 12288, dynamic).with_opt_in(220160);
    assert_eq!(opted(220160).check(), Ok(()));
    assert!(matches!(
        opted(220161).check(),
        Err(Error::LaunchTooLarge { limit: 232448, .. })
    ));
}

/// (capability, per-block maximum with the opt-in, bytes per SM).
const TABLE: [(ComputeCapability, u32, u32); 5] = [
    (ComputeCapability::Sm35, 48 * KB, 48 * KB),
    (ComputeCapability::Sm75, 64 * KB, 64 * KB),
    (ComputeCapability::Sm80, 163 * KB, 164 * KB),
    (ComputeCapability::Sm86, 99 * KB, 100 * KB),
    (ComputeCapability::Sm90, 227 * KB, 228 * KB),
];

#[test]
fn capacity_table_values() {
    for (cc, max_block, per_sm) in TABLE {
        assert_eq!(cc.max_shared_memory_per_block(), max_block, "{cc}");
        assert_eq!(cc.shared_memory_per_sm(), per_sm, "{cc}");
        assert_eq!(cc.default_shared_memory_per_block(), 48 * KB, "{cc}");
        let reserved = if cc.major() >= 8 { KB } else { 0 };
        assert_eq!(cc.reserved_shared_memory_per_block(), reserved, "{cc}");
    }
}

#[test]
fn static_limit_at_under_and_over() {
    for (cc, _, _) in TABLE {
        assert_eq!(Launch::new(cc, 48 * KB, 0).check(), Ok(()), "{cc}");
        assert_eq!(Launch::new(cc, 48 * KB - 16, 16).check(), Ok(()), "{cc}");
        assert_eq!(
            Launch::new(cc, 48 * KB + 16, 0)
                .check()
                .unwrap_err()
                .to_string(),
            format!(
                "{} bytes of static shared memory exceed the 49152-byte static limit of \
                 compute capability {cc}; use dynamic shared memory and opt in",
                48 * KB + 16
            )
        );
    }
}

#[test]
fn default_per_block_limit_at_under_and_over() {
    for (cc, _, _) in TABLE {
        let launch = |dynamic| Launch::new(cc, 4 * KB, dynamic);
        assert_eq!(launch(44 * KB).check(), Ok(()), "{cc}");
        assert_eq!(launch(44 * KB - 1).check(), Ok(()), "{cc}");
        assert_eq!(
            launch(44 * KB + 1).check().unwrap_err().to_string(),
            format!(
                "launch fails: 4096 bytes of static and 45057 bytes of dynamic shared memory \
                 exceed the per-block limit of 49152 bytes on compute capability {cc}"
            )
        );
    }
}

#[test]
fn opt_in_limit_at_under_and_over() {
    for (cc, max_block, _) in TABLE {
        let most = max_block - 4 * KB;
        let launch = |dynamic| Launch::new(cc, 4 * KB, dynamic).with_opt_in(most);
        assert_eq!(launch(most).check(), Ok(()), "{cc}");
        assert_eq!(launch(most - 1).check(), Ok(()), "{cc}");
        assert!(
            matches!(launch(most + 1).check(), Err(Error::LaunchTooLarge { .. })),
            "{cc}"
        );
        // An attribute past the maximum is refused by cudaFuncSetAttribute.
        let err = Launch::new(cc, 4 * KB, 0)
            .with_opt_in(most + 1)
            .check()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "opt-in of {} bytes of dynamic shared memory exceeds the {most} bytes compute \
                 capability {cc} allows beside 4096 bytes of static shared memory",
                most + 1
            )
        );
    }
}

/// Hand-worked from cuda_occupancy.h's rules (allocation = static + reserved +
/// dynamic rounded up to the unit; the default carveout is the whole SM).
#[test]
fn occupancy_cases_worked_by_hand() {
    // 9.0: 12288 + 1024 + 4096 = 17408 (a multiple of 128); 233472 / 17408 = 13.4.
    let o = Launch::new(ComputeCapability::Sm90, 12288, 4096)
        .occupancy()
        .unwrap();
    assert_eq!(
        (o.blocks_per_sm(), o.allocated_per_block(), o.carveout()),
        (13, 17408, 228 * KB)
    );
    // 8.6 (the smem occupancy example): 12288 + 1024 + 4096 = 17408; 102400 / 17408 = 5.9.
    let o = Launch::new(ComputeCapability::Sm86, 12288, 4096)
        .occupancy()
        .unwrap();
    assert_eq!(
        (o.blocks_per_sm(), o.limit()),
        (5, OccupancyLimit::SharedMemory)
    );
    // 7.5: unit 256, no reserve: 1000 -> 1024; 65536 / 1024 = 64, capped at 16 blocks.
    let o = Launch::new(ComputeCapability::Sm75, 1000, 0)
        .occupancy()
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.allocated_per_block()), (16, 1024));
    assert_eq!(o.limit(), OccupancyLimit::BlocksPerSm);
    // 7.5 preferring L1: the 32 KB carveout holds 32768 / 1024 = 32, still capped.
    let o = Launch::new(ComputeCapability::Sm75, 1000, 0)
        .occupancy_with(Carveout::Percent(0))
        .unwrap();
    assert_eq!(o.carveout(), 32 * KB);
    // 8.0 preferring L1 (0 KB): one 40 KB block does not fit, so the driver takes
    // the smallest carveout that holds it, 64 KB: one block.
    let o = Launch::new(ComputeCapability::Sm80, 40 * KB, 0)
        .occupancy_with(Carveout::Percent(0))
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.carveout()), (1, 64 * KB));
    // 3.5: unit 256, 48 KB per SM: 3 KB + 1 byte -> 3328; 49152 / 3328 = 14.8.
    let o = Launch::new(ComputeCapability::Sm35, 3 * KB, 1)
        .occupancy()
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.allocated_per_block()), (14, 3328));
    // 3.5 preferring L1 (a 16 KB split): a 20 KB block does not fit, and before
    // 7.0 the header then uses all 48 KB: two blocks.
    let o = Launch::new(ComputeCapability::Sm35, 20 * KB, 0)
        .occupancy_with(Carveout::Percent(0))
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.carveout()), (2, 48 * KB));
    // ... and one that fits takes the 16 KB split: 16384 / 5120 = 3.
    let o = Launch::new(ComputeCapability::Sm35, 5 * KB, 0)
        .occupancy_with(Carveout::Percent(0))
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.carveout()), (3, 16 * KB));
    // No shared memory at all (8.0 still reserves 1 KB): 164 KB / 1 KB = 164, capped at 32.
    let o = Launch::new(ComputeCapability::Sm80, 0, 0)
        .occupancy()
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.allocated_per_block()), (32, 1024));
    // 6.1 with nothing: no allocation, the block limit binds.
    let o = Launch::new(ComputeCapability::Sm61, 0, 0)
        .occupancy()
        .unwrap();
    assert_eq!((o.blocks_per_sm(), o.allocated_per_block()), (32, 0));
}

#[test]
fn a_carveout_over_100_percent_is_an_error() {
    let err = Launch::new(ComputeCapability::Sm90, 0, 0)
        .occupancy_with(Carveout::Percent(101))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "carveout preference of 101 percent is over 100"
    );
}

/// Two blocks fill the SM exactly at half its shared memory; one byte more and
/// only one fits.
#[test]
fn per_sm_capacity_at_under_and_over() {
    for (cc, _, per_sm) in TABLE {
        let half = per_sm / 2 - cc.reserved_shared_memory_per_block();
        let blocks = |dynamic: u32| {
            Launch::new(cc, 0, dynamic)
                .with_opt_in(cc.max_shared_memory_per_block())
                .occupancy()
                .unwrap()
                .blocks_per_sm()
        };
        assert_eq!(blocks(half), 2, "{cc}");
        assert_eq!(blocks(half - 1), 2, "{cc}");
        assert_eq!(blocks(half + 1), 1, "{cc}");
    }
}

/// A field of a JSON line, as an integer.
fn int(line: &serde_json::Value, key: &str) -> i64 {
    line[key]
        .as_i64()
        .unwrap_or_else(|| panic!("{key} in {line}"))
}

/// The capability a data line names (`"9.0"`).
fn capability(line: &serde_json::Value) -> ComputeCapability {
    let text = line["cc"].as_str().unwrap();
    let (major, minor) = text.split_once('.').unwrap();
    ComputeCapability::new(major.parse().unwrap(), minor.parse().unwrap()).unwrap()
}

/// The launch a calculator or runtime line describes.
fn launch_of(
    line: &serde_json::Value,
    cc: ComputeCapability,
    registers: u32,
) -> (Launch, Carveout) {
    let dynamic = int(line, "dynamic_shared") as u32;
    let static_bytes = int(line, "static_shared") as u32;
    let mut launch =
        Launch::new(cc, static_bytes, dynamic).with_block(int(line, "threads") as u32, registers);
    // Past 48 KB the calculator was given the opt-in for exactly the dynamic
    // size, and the runtime the capability's most.
    if static_bytes + dynamic > 48 * KB {
        launch = launch.with_opt_in(dynamic);
    }
    let carveout = match int(line, "carveout") {
        -1 => Carveout::Default,
        p => Carveout::Percent(p as u32),
    };
    (launch, carveout)
}

/// The calculator's names of the limiting factors.
fn factor(limit: OccupancyLimit) -> &'static str {
    match limit {
        OccupancyLimit::Warps => "warps",
        OccupancyLimit::Registers => "registers",
        OccupancyLimit::SharedMemory => "shared_memory",
        OccupancyLimit::BlocksPerSm => "blocks",
        OccupancyLimit::Barriers => "barriers",
    }
}

/// NVIDIA's occupancy calculator (`cuda_occupancy.h` of CUDA 13.0) over every
/// capability it knows, 3.5 to 12.1 (tests/data/device/README.md): the
/// model's tables equal the properties the header was given and what it says
/// itself, and at every launch the model gives the header's blocks, warps,
/// limiting factors, each limit alone and the allocations; where the header
/// says 0 blocks (the block cannot run), the model refuses the launch.
#[test]
fn occupancy_matches_nvidias_calculator_for_every_capability() {
    let data = include_str!("data/device/occupancy_calculator.jsonl");
    let (mut devices, mut points, mut refused) = (0, 0, 0);
    for text in data.lines() {
        let line: serde_json::Value = serde_json::from_str(text).unwrap();
        let cc = capability(&line);
        if line["kind"] == "device" {
            let table = [
                ("max_threads_per_sm", cc.max_warps_per_sm() * 32),
                ("regs_per_sm", cc.registers_per_sm()),
                ("regs_per_block", cc.max_registers_per_block()),
                ("shared_per_sm", cc.shared_memory_per_sm()),
                ("shared_per_block", cc.default_shared_memory_per_block()),
                ("shared_per_block_optin", cc.max_shared_memory_per_block()),
                (
                    "reserved_shared_per_block",
                    cc.reserved_shared_memory_per_block(),
                ),
                ("header_shared_granularity", cc.shared_allocation_unit()),
                ("header_register_granularity", cc.register_allocation_unit()),
                ("header_max_blocks_per_sm", cc.max_blocks_per_sm()),
                ("header_subpartitions", cc.register_partitions()),
            ];
            for (key, model) in table {
                assert_eq!(int(&line, key), i64::from(model), "{key} of {cc}");
            }
            assert!(cc.models_thread_occupancy());
            devices += 1;
            continue;
        }
        let registers = int(&line, "registers") as u32;
        let (launch, carveout) = launch_of(&line, cc, registers);
        let expected = int(&line, "blocks_per_sm");
        let occupancy = match launch.occupancy_with(carveout) {
            Ok(occupancy) => occupancy,
            Err(err) => {
                assert_eq!(expected, 0, "{text}: {err}");
                refused += 1;
                continue;
            }
        };
        assert_eq!(i64::from(occupancy.blocks_per_sm()), expected, "{text}");
        assert_eq!(
            occupancy.warps_per_sm().map(i64::from),
            Some(int(&line, "warps_per_sm")),
            "{text}"
        );
        let limits: Vec<&str> = occupancy.limits().map(factor).collect();
        let header: Vec<&str> = line["limiting"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(limits, header, "{text}");
        for (limit, key) in [
            (OccupancyLimit::Warps, "limit_warps"),
            (OccupancyLimit::Registers, "limit_registers"),
            (OccupancyLimit::SharedMemory, "limit_shared"),
            (OccupancyLimit::BlocksPerSm, "limit_blocks"),
            (OccupancyLimit::Barriers, "limit_barriers"),
        ] {
            let model = occupancy.allowed_by(limit).map_or(-1, i64::from);
            assert_eq!(model, int(&line, key), "{key}: {text}");
        }
        assert_eq!(
            occupancy.allocated_registers_per_block().map(i64::from),
            Some(int(&line, "allocated_registers_per_block")),
            "{text}"
        );
        let allocated = if occupancy.allowed_by(OccupancyLimit::SharedMemory).is_none() {
            0
        } else {
            occupancy.allocated_per_block()
        };
        assert_eq!(
            i64::from(allocated),
            int(&line, "allocated_shared_per_block"),
            "{text}"
        );
        points += 1;
    }
    assert_eq!(devices, 21);
    assert_eq!(points + refused, 3356);
    assert_eq!(refused, 789);
}

/// The runtime's `cudaOccupancyMaxActiveBlocksPerMultiprocessor` on an H100
/// and on an H200 (tests/data/device/README.md): 1,376 launches of 17 kernel
/// builds each, with the registers `cudaFuncGetAttributes` reported. Where the
/// runtime says 0 the launch failed ("too many resources requested for
/// launch"), and the model refuses it.
#[test]
fn occupancy_matches_the_runtime_on_an_h100_and_an_h200() {
    for data in [
        include_str!("data/device/occupancy_runtime_h100.jsonl"),
        include_str!("data/device/occupancy_runtime.jsonl"),
    ] {
        let (mut points, mut refused) = (0, 0);
        for text in data.lines() {
            let line: serde_json::Value = serde_json::from_str(text).unwrap();
            if line["kind"] != "occupancy" {
                continue;
            }
            let cc = ComputeCapability::Sm90;
            let registers = int(&line, "num_regs") as u32;
            let (mut launch, carveout) = launch_of(&line, cc, registers);
            // The runtime was measured with the opt-in at the capability's most.
            launch = launch.with_opt_in(cc.max_shared_memory_per_block() - launch.static_bytes());
            let expected = int(&line, "runtime_blocks_per_sm");
            match launch.occupancy_with(carveout) {
                Ok(occupancy) => {
                    assert_eq!(i64::from(occupancy.blocks_per_sm()), expected, "{text}");
                    points += 1;
                }
                Err(err) => {
                    assert_eq!(expected, 0, "{text}: {err}");
                    refused += 1;
                }
            }
        }
        assert_eq!((points + refused, refused), (1376, 264));
    }
}
