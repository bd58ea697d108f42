//! The partition in a simulator's inner loop, on sm_90: counting wavefronts and
//! building full partitions over a rotating mix of requests (so the branch
//! predictor sees a stream, not one request repeated), the worst case, and the
//! map-based baseline side by side. Throughput is per request.
//!
//! The `api` group puts what a simulator pays around the count next to it, in
//! one run: building a request from a mask and offsets (`from_offsets`) or
//! generic addresses (`from_generic`), `wavefronts`, and the accessors
//! (`words` and `banks` of every transaction, `write_collisions` of the same
//! addresses stored), and `wavefronts`/`partition` of native atomics
//! (`atom.add`, `atom.cas`, 64-bit `atom.exch`) and 8-byte loads (full and
//! partial warps) on the same addresses, to read as ratios to the 4-byte
//! mix's `wavefronts`. Run `cargo bench -p smem-bench --bench partition -- api`
//! briefly.
//!
//! The `cas_loop` group counts (`cost`) and partitions the atomics nvcc runs
//! as a compare-and-swap loop (`corpus::cas_loops`: `atomicAdd` on floats and
//! 64-bit `atomicAdd`, each on one hot word, at strides 1, 2 and 32 and on
//! the random warps of the mix), and every request of the hardware corpus
//! (`corpus::corpus`), per request.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use smem_model::{BankConfig, ComputeCapability, LaneSet, Op, WarpRequest};

mod common;
#[path = "common/corpus.rs"]
mod corpus;

/// `wavefronts/NAME` and `partition/NAME`: counting and partitioning each of
/// `requests` in turn, per request.
fn count_and_partition(
    group: &mut BenchmarkGroup<'_, WallTime>,
    config: BankConfig,
    name: &str,
    requests: &[WarpRequest],
) {
    group.throughput(Throughput::Elements(requests.len() as u64));
    group.bench_function(format!("wavefronts/{name}"), |b| {
        b.iter(|| {
            requests
                .iter()
                .map(|r| config.wavefronts(black_box(r)).unwrap())
                .sum::<u32>()
        })
    });
    group.bench_function(format!("partition/{name}"), |b| {
        b.iter(|| {
            requests
                .iter()
                .map(|r| config.partition(black_box(r)).unwrap().wavefronts())
                .sum::<u32>()
        })
    });
}

fn bench(c: &mut Criterion) {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mix4 = common::mix(4);
    let mix16 = common::mix(16);
    let serial = [common::serial()];
    let shuffled = [common::serial_shuffled()];

    let mut group = c.benchmark_group("sm_90");
    for (name, requests) in [
        ("mix/4B", &mix4[..]),
        ("serial/4B", &serial[..]),
        ("serial-shuffled/4B", &shuffled[..]),
        ("mix/16B", &mix16[..]),
    ] {
        count_and_partition(&mut group, config, name, requests);
    }
    group.throughput(Throughput::Elements(mix4.len() as u64));
    group.bench_function("baseline-maps/mix/4B", |b| {
        b.iter(|| {
            mix4.iter()
                .map(|r| common::baseline_wavefronts(black_box(r)))
                .sum::<u32>()
        })
    });
    group.finish();
}

fn api(c: &mut Criterion) {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mut group = c.benchmark_group("api");
    for width in [4u32, 16] {
        let requests = common::mix(width);
        let offsets: Vec<[u32; 32]> = requests
            .iter()
            .map(|r| r.to_array().map(|a| a.unwrap_or(3)))
            .collect();
        let base = 0x7f00_0000_0000u64;
        let generic: Vec<[u64; 32]> = offsets
            .iter()
            .map(|o| o.map(|a| base + u64::from(a)))
            .collect();
        let stores: Vec<WarpRequest> = offsets
            .iter()
            .map(|o| WarpRequest::from_offsets(Op::Store, width, LaneSet::FULL, o).unwrap())
            .collect();
        let partitions: Vec<_> = requests
            .iter()
            .map(|r| config.partition(r).unwrap())
            .collect();
        let name = format!("mix/{width}B");
        group.throughput(Throughput::Elements(requests.len() as u64));
        group.bench_function(format!("from_offsets/{name}"), |b| {
            b.iter(|| {
                offsets
                    .iter()
                    .map(|o| {
                        let r =
                            WarpRequest::from_offsets(Op::Load, width, LaneSet::FULL, black_box(o));
                        r.unwrap().active().bits()
                    })
                    .fold(0, u32::wrapping_add)
            })
        });
        group.bench_function(format!("from_generic/{name}"), |b| {
            b.iter(|| {
                generic
                    .iter()
                    .map(|g| {
                        let r = WarpRequest::from_generic(
                            Op::Load,
                            width,
                            LaneSet::FULL,
                            black_box(g),
                            base,
                        );
                        r.unwrap().active().bits()
                    })
                    .fold(0, u32::wrapping_add)
            })
        });
        group.bench_function(format!("wavefronts/{name}"), |b| {
            b.iter(|| {
                requests
                    .iter()
                    .map(|r| config.wavefronts(black_box(r)).unwrap())
                    .sum::<u32>()
            })
        });
        group.bench_function(format!("words-all-transactions/{name}"), |b| {
            b.iter(|| {
                black_box(&partitions)
                    .iter()
                    .flat_map(|p| p.transactions())
                    .map(|t| t.words().len())
                    .sum::<usize>()
            })
        });
        group.bench_function(format!("lanes-all-transactions/{name}"), |b| {
            b.iter(|| {
                black_box(&partitions)
                    .iter()
                    .flat_map(|p| p.transactions())
                    .map(|t| t.lanes().len())
                    .sum::<usize>()
            })
        });
        group.bench_function(format!("banks-all-transactions/{name}"), |b| {
            b.iter(|| {
                black_box(&partitions)
                    .iter()
                    .flat_map(|p| p.transactions())
                    .map(|t| t.banks().len())
                    .sum::<usize>()
            })
        });
        group.bench_function(format!("write_collisions/{name}"), |b| {
            b.iter(|| {
                stores
                    .iter()
                    .map(|r| black_box(r).write_collisions().len())
                    .sum::<usize>()
            })
        });
    }
    // ldmatrix.x4 row addresses of a row-major half tile at pitches of 128 to
    // 256 bytes (conflicted and padded), as a simulator meets them.
    let ldsm: Vec<WarpRequest> = (0..16u32)
        .map(|i| {
            let pitch = 128 + 16 * (i % 9);
            WarpRequest::from_fn(Op::LdMatrix(smem_model::Matrices::X4), 16, |l| {
                Some(l.get() % 8 * pitch + l.get() / 8 * 16 + 2048 * (i / 9))
            })
            .unwrap()
        })
        .collect();
    group.throughput(Throughput::Elements(ldsm.len() as u64));
    group.bench_function("wavefronts/ldmatrix.x4", |b| {
        b.iter(|| {
            ldsm.iter()
                .map(|r| config.wavefronts(black_box(r)).unwrap())
                .sum::<u32>()
        })
    });
    group.bench_function("partition/ldmatrix.x4", |b| {
        b.iter(|| {
            ldsm.iter()
                .map(|r| config.partition(black_box(r)).unwrap().wavefronts())
                .sum::<u32>()
        })
    });
    // Native atomics (the lane-counting path) and 8-byte accesses (the wide
    // path's vectorised half-warps), on the addresses of the 4- and 8-byte
    // mixes: full warps, and the same with lanes 0 and 31 off (no closed form).
    let offsets_of = |width: u32| -> Vec<[u32; 32]> {
        common::mix(width)
            .iter()
            .map(|r| r.to_array().map(|a| a.unwrap_or(0)))
            .collect()
    };
    let partial = LaneSet::from_bits(0x7fff_fffe);
    let rows: [(&str, Op, u32, LaneSet); 5] = [
        (
            "atom.add/mix/4B",
            Op::Atomic(smem_model::AtomicKind::Add),
            4,
            LaneSet::FULL,
        ),
        (
            "atom.cas/mix/4B",
            Op::Atomic(smem_model::AtomicKind::Cas),
            4,
            LaneSet::FULL,
        ),
        (
            "atom.exch/mix/8B",
            Op::Atomic(smem_model::AtomicKind::Exch),
            8,
            LaneSet::FULL,
        ),
        ("load/mix/8B", Op::Load, 8, LaneSet::FULL),
        ("load/mix-partial/8B", Op::Load, 8, partial),
    ];
    for (name, op, width, mask) in rows {
        let requests: Vec<WarpRequest> = offsets_of(width)
            .iter()
            .map(|o| WarpRequest::from_offsets(op, width, mask, o).unwrap())
            .collect();
        count_and_partition(&mut group, config, name, &requests);
    }
    // Per transaction: the first transaction of each request.
    let requests = common::mix(16);
    let partitions: Vec<_> = requests
        .iter()
        .map(|r| config.partition(r).unwrap())
        .collect();
    group.throughput(Throughput::Elements(partitions.len() as u64));
    group.bench_function("words-one-transaction/mix/16B", |b| {
        b.iter(|| {
            black_box(&partitions)
                .iter()
                .map(|p| p.transactions().next().unwrap().words().len())
                .sum::<usize>()
        })
    });
    group.finish();
}

fn cas_loop(c: &mut Criterion) {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mut group = c.benchmark_group("cas_loop");
    let corpus = corpus::corpus();
    let loops: Vec<WarpRequest> = corpus
        .iter()
        .filter(|r| r.op().is_cas_loop(r.width()))
        .copied()
        .collect();
    for (name, requests) in [
        ("add.f32/4B".to_string(), corpus::cas_loops(4)),
        ("add.u64/8B".to_string(), corpus::cas_loops(8)),
        (format!("corpus-loops/{}", loops.len()), loops),
        (format!("corpus/{}", corpus.len()), corpus),
    ] {
        group.throughput(Throughput::Elements(requests.len() as u64));
        group.bench_function(format!("cost/{name}"), |b| {
            b.iter(|| {
                requests
                    .iter()
                    .map(|r| config.cost(black_box(r)).unwrap().load_wavefronts())
                    .sum::<u32>()
            })
        });
        group.bench_function(format!("partition/{name}"), |b| {
            b.iter(|| {
                requests
                    .iter()
                    .map(|r| config.partition(black_box(r)).unwrap().load_wavefronts())
                    .sum::<u32>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, api, cas_loop);
criterion_main!(benches);
