//! The partition in a simulator's inner loop, on sm_90: counting wavefronts and
//! building full partitions over a rotating mix of requests (so the branch
//! predictor sees a stream, not one request repeated), the worst case, and the
//! map-based baseline side by side. Throughput is per request.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem_model::{BankConfig, ComputeCapability};

mod common;

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

criterion_group!(benches, bench);
criterion_main!(benches);
