//! The crate against GPGPU-Sim's shared-memory path, side by side in one
//! run, per request: `BankConfig::wavefronts` on sm_90 and GPGPU-Sim's
//! `warp_inst_t::generate_mem_accesses` (`case shared_space:`) followed by
//! `ldst_unit::shared_cycle` once a cycle, re-created from its source in
//! `common/gpgpusim.rs` (file, function and commit cited there), with the
//! options of every configuration it ships from Fermi on. Three inputs:
//! the rotating mix of 16 full-warp 4-byte loads (`common::mix(4)`), the
//! same of 16-byte loads (`common::mix(16)`), and every request of the
//! hardware corpus (`corpus::corpus()`, 4,404 requests), each given to both
//! as built (a request, or its active mask and one address per lane).
//!
//! Before timing, the two are compared on every request and the agreement is
//! printed per kind of request (stderr). GPGPU-Sim's model is meant to match
//! for loads and stores of up to 4 bytes (one 32-lane phase, the most
//! distinct words in one bank): asserted. Elsewhere it is not: it takes one
//! address per lane as one word and the whole warp as one phase (8- and
//! 16-byte accesses, matrix rows, `cp.async`), merges atomics on one word as
//! loads (PTX `atom` is issued as a load), and has no compare-and-swap loop.
//!
//! Run briefly:
//! `cargo bench -p smem-bench --bench gpgpusim -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};

// Only `mix` is used here.
#[allow(dead_code)]
mod common;
// Only `corpus` is used here.
#[allow(dead_code)]
#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/gpgpusim.rs"]
mod gpgpusim;

/// A request as GPGPU-Sim's warp instruction holds it: the active mask and
/// each lane's `memreqaddr[0]`.
fn as_gpgpusim(request: &WarpRequest) -> (u32, [u64; 32]) {
    (
        request.active().bits(),
        request.to_array().map(|a| a.map_or(0, u64::from)),
    )
}

/// The kind of request, for the agreement table.
fn kind(request: &WarpRequest) -> &'static str {
    let (op, bytes) = (request.op(), request.width().bytes());
    match op {
        Op::Load | Op::Store if bytes <= 4 => "ld/st of 1-4 bytes",
        Op::Load | Op::Store if bytes == 8 => "ld/st of 8 bytes",
        Op::Load | Op::Store => "ld/st of 16 bytes",
        Op::LdMatrix(_) | Op::StMatrix(_) => "ldmatrix/stmatrix",
        Op::CpAsync(_) => "cp.async",
        _ if op.is_cas_loop(request.width()) => "compare-and-swap loops",
        _ => "native atomics",
    }
}

/// Compares the two on `requests`, prints the agreement per kind, and
/// asserts it where GPGPU-Sim's model is meant to hold.
fn compare(name: &str, config: BankConfig, requests: &[WarpRequest]) {
    let mut table: Vec<(&str, usize, usize)> = Vec::new();
    let mut stats = gpgpusim::Stats::default();
    for request in requests {
        let ours = config.wavefronts(request).unwrap();
        let (active, memreqaddr) = as_gpgpusim(request);
        let theirs =
            gpgpusim::instruction(&gpgpusim::Config::TESTED, active, &memreqaddr, &mut stats);
        let kind = kind(request);
        if kind == "ld/st of 1-4 bytes" {
            assert_eq!(ours, theirs, "GPGPU-Sim's rule holds here: {request:?}");
        }
        match table.iter_mut().find(|row| row.0 == kind) {
            Some(row) => {
                row.1 += 1;
                row.2 += usize::from(ours == theirs);
            }
            None => table.push((kind, 1, usize::from(ours == theirs))),
        }
    }
    for (kind, total, same) in table {
        eprintln!("gpgpusim agreement, {name}: {kind}: {same} of {total} equal");
    }
}

fn bench(c: &mut Criterion) {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let sets = [
        ("mix/4B".to_string(), common::mix(4)),
        ("mix/16B".to_string(), common::mix(16)),
        {
            let corpus = corpus::corpus();
            (format!("corpus/{}", corpus.len()), corpus)
        },
    ];
    for (name, requests) in &sets {
        compare(name, config, requests);
    }
    let mut group = c.benchmark_group("gpgpusim");
    for (name, requests) in &sets {
        let instructions: Vec<(u32, [u64; 32])> = requests.iter().map(as_gpgpusim).collect();
        group.throughput(Throughput::Elements(requests.len() as u64));
        group.bench_function(format!("smem-model/{name}"), |b| {
            b.iter(|| {
                requests
                    .iter()
                    .map(|r| config.wavefronts(black_box(r)).unwrap())
                    .sum::<u32>()
            })
        });
        group.bench_function(format!("gpgpu-sim/{name}"), |b| {
            let mut stats = gpgpusim::Stats::default();
            b.iter(|| {
                instructions
                    .iter()
                    .map(|(active, memreqaddr)| {
                        gpgpusim::instruction(
                            &gpgpusim::Config::TESTED,
                            *active,
                            black_box(memreqaddr),
                            &mut stats,
                        )
                    })
                    .sum::<u32>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
