//! What a simulator pays per request for each part of the API, on the sm_90
//! mixes of `benches/` (16 full-warp requests), as a table of nanoseconds
//! per request (the best of 9 interleaved rounds, so that a busy machine
//! shows ratios it can trust):
//! `cargo run --release --example api_costs`.
//!
//! One item at a time, a fixed number of rounds, for instruction counts:
//! `cargo build --release --example api_costs && valgrind --tool=callgrind
//! target/release/examples/api_costs words/4B 1000` (then divide the
//! inclusive count of `run_item` by 16,000). The criterion group `api` of
//! `benches/partition.rs` measures the same items.

use std::hint::black_box;
use std::time::Instant;

use smem_model::{AtomicKind, BankConfig, ComputeCapability, LaneSet, Op, Partition, WarpRequest};

#[allow(dead_code)]
#[path = "../benches/common/mod.rs"]
mod common;

/// The inputs of every item.
struct Inputs {
    config: BankConfig,
    offsets: Vec<[u32; 32]>,
    generic: Vec<[u64; 32]>,
    by_name: Vec<(&'static str, Vec<WarpRequest>)>,
    partitions4: Vec<Partition>,
    partitions16: Vec<Partition>,
}

const BASE: u64 = 0x7f00_0000_0000;

fn inputs() -> Inputs {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let offsets_of = |width: u32| -> Vec<[u32; 32]> {
        common::mix(width)
            .iter()
            .map(|r| r.to_array().map(|a| a.unwrap_or(0)))
            .collect()
    };
    let requests = |op: Op, width: u32, mask: u32| -> Vec<WarpRequest> {
        offsets_of(width)
            .iter()
            .map(|o| WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), o).unwrap())
            .collect()
    };
    let partial = 0x7fff_fffe;
    let by_name = vec![
        ("load/4B", requests(Op::Load, 4, u32::MAX)),
        ("load/16B", requests(Op::Load, 16, u32::MAX)),
        ("load/8B", requests(Op::Load, 8, u32::MAX)),
        ("load-partial/8B", requests(Op::Load, 8, partial)),
        (
            "atom.add/4B",
            requests(Op::Atomic(AtomicKind::Add), 4, u32::MAX),
        ),
        (
            "atom.cas/4B",
            requests(Op::Atomic(AtomicKind::Cas), 4, u32::MAX),
        ),
        (
            "atom.exch/8B",
            requests(Op::Atomic(AtomicKind::Exch), 8, u32::MAX),
        ),
        ("store/4B", requests(Op::Store, 4, u32::MAX)),
        ("store/16B", requests(Op::Store, 16, u32::MAX)),
    ];
    let partitions = |width: u32| -> Vec<Partition> {
        common::mix(width)
            .iter()
            .map(|r| config.partition(r).unwrap())
            .collect()
    };
    let offsets = offsets_of(4);
    let generic = offsets
        .iter()
        .map(|o| o.map(|a| BASE + u64::from(a)))
        .collect();
    Inputs {
        config,
        offsets,
        generic,
        by_name,
        partitions4: partitions(4),
        partitions16: partitions(16),
    }
}

/// The items, by name: what each runs over its inputs once.
const ITEMS: [&str; 20] = [
    "from_offsets/4B",
    "from_generic/4B",
    "wavefronts/load/4B",
    "wavefronts/load/16B",
    "wavefronts/load/8B",
    "wavefronts/load-partial/8B",
    "wavefronts/atom.add/4B",
    "wavefronts/atom.cas/4B",
    "wavefronts/atom.exch/8B",
    "partition/load/4B",
    "partition/load/8B",
    "partition/atom.add/4B",
    "partition/atom.exch/8B",
    "write_collisions/store/4B",
    "write_collisions/store/16B",
    "words/4B",
    "words/16B",
    "banks/4B",
    "lanes/4B",
    "lanes/16B",
];

/// Runs `f` on every transaction of `partitions`, `rounds` times.
fn per_transaction(
    partitions: &[Partition],
    rounds: u32,
    f: impl Fn(&smem_model::Transaction) -> u64,
) -> u64 {
    let mut sum = 0u64;
    for _ in 0..rounds {
        for p in black_box(partitions) {
            sum += p.transactions().map(|t| f(&t)).sum::<u64>();
        }
    }
    sum
}

/// Runs `item` over its inputs `rounds` times; a value to keep.
#[inline(never)]
fn run_item(inputs: &Inputs, item: &str, rounds: u32) -> u64 {
    let config = inputs.config;
    let named = |name: &str| -> &[WarpRequest] {
        &inputs.by_name.iter().find(|(n, _)| *n == name).unwrap().1
    };
    let mut sum = 0u64;
    match item.split_once('/').unwrap() {
        ("from_offsets", _) => {
            for _ in 0..rounds {
                for o in &inputs.offsets {
                    let r = WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, black_box(o));
                    sum += u64::from(r.unwrap().active().bits());
                }
            }
        }
        ("from_generic", _) => {
            for _ in 0..rounds {
                for g in &inputs.generic {
                    let r =
                        WarpRequest::from_generic(Op::Load, 4, LaneSet::FULL, black_box(g), BASE);
                    sum += u64::from(r.unwrap().active().bits());
                }
            }
        }
        ("wavefronts", name) => {
            let requests = named(name);
            for _ in 0..rounds {
                for r in requests {
                    sum += u64::from(config.wavefronts(black_box(r)).unwrap());
                }
            }
        }
        ("partition", name) => {
            let requests = named(name);
            for _ in 0..rounds {
                for r in requests {
                    sum += u64::from(config.partition(black_box(r)).unwrap().wavefronts());
                }
            }
        }
        ("write_collisions", name) => {
            let requests = named(name);
            for _ in 0..rounds {
                for r in requests {
                    sum += black_box(r).write_collisions().len() as u64;
                }
            }
        }
        ("words", "4B") => {
            sum = per_transaction(&inputs.partitions4, rounds, |t| t.words().len() as u64)
        }
        ("words", _) => {
            sum = per_transaction(&inputs.partitions16, rounds, |t| t.words().len() as u64)
        }
        ("banks", _) => {
            sum = per_transaction(&inputs.partitions4, rounds, |t| t.banks().len() as u64)
        }
        ("lanes", "4B") => {
            sum = per_transaction(&inputs.partitions4, rounds, |t| t.lanes().len() as u64)
        }
        ("lanes", _) => {
            sum = per_transaction(&inputs.partitions16, rounds, |t| t.lanes().len() as u64)
        }
        _ => {
            eprintln!("unknown item {item}: one of {ITEMS:?}");
            std::process::exit(2);
        }
    }
    sum
}

fn main() {
    let inputs = inputs();
    let mut args = std::env::args().skip(1);
    if let Some(item) = args.next() {
        let rounds = args
            .next()
            .map_or(1000, |r| r.parse().expect("a number of rounds"));
        println!("{item}: {}", run_item(&inputs, &item, rounds));
        return;
    }
    let rounds = 20_000;
    let mut best = [f64::MAX; ITEMS.len()];
    for _ in 0..9 {
        for (item, best) in ITEMS.iter().zip(&mut best) {
            let start = Instant::now();
            black_box(run_item(&inputs, item, rounds));
            let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(rounds) / 16.0;
            *best = best.min(ns);
        }
    }
    let transactions = |ps: &[Partition]| ps.iter().map(|p| p.wavefronts()).sum::<u32>();
    println!("ns per request (best of 9 rounds of {rounds} x 16 requests, sm_90):");
    for (item, ns) in ITEMS.iter().zip(best) {
        let note = match *item {
            "words/4B" | "banks/4B" | "lanes/4B" => {
                let t = f64::from(transactions(&inputs.partitions4)) / 16.0;
                format!("  ({:.1} ns per transaction, {t:.1} a request)", ns / t)
            }
            "words/16B" | "lanes/16B" => {
                let t = f64::from(transactions(&inputs.partitions16)) / 16.0;
                format!("  ({:.1} ns per transaction, {t:.1} a request)", ns / t)
            }
            _ => String::new(),
        };
        println!("{item:28} {ns:8.1}{note}");
    }
}
