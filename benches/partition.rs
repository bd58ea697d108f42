//! The partition in a simulator's inner loop: counting wavefronts and building
//! full partitions over a rotating mix of requests, so the branch predictor sees
//! a realistic stream rather than one request repeated.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};

/// A deterministic mix: conflict-free, broadcast, 2- to 32-way strided and
/// pseudo-random 4-byte loads.
fn mix(width: u32) -> Vec<WarpRequest> {
    let mut requests = Vec::new();
    for stride in [1u32, 2, 3, 4, 8, 16, 32, 33] {
        requests.push(
            WarpRequest::from_fn(Op::Load, width, |l| Some(l.get() * stride * width)).unwrap(),
        );
    }
    requests.push(WarpRequest::from_fn(Op::Load, width, |_| Some(256)).unwrap());
    let mut state = 0x9e37_79b9u32;
    for _ in 0..7 {
        requests.push(
            WarpRequest::from_fn(Op::Load, width, |_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                Some(state % 4096 / width * width)
            })
            .unwrap(),
        );
    }
    requests
}

fn bench(c: &mut Criterion) {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mut group = c.benchmark_group("sm_90");

    for (name, width) in [("4B", 4), ("16B", 16)] {
        let requests = mix(width);
        group.throughput(Throughput::Elements(requests.len() as u64));
        group.bench_function(format!("wavefronts/mix/{name}"), |b| {
            b.iter(|| {
                requests
                    .iter()
                    .map(|r| config.wavefronts(black_box(r)).unwrap())
                    .sum::<u32>()
            })
        });
        group.bench_function(format!("partition/mix/{name}"), |b| {
            b.iter(|| {
                requests
                    .iter()
                    .map(|r| config.partition(black_box(r)).unwrap().wavefronts())
                    .sum::<u32>()
            })
        });
    }

    // The worst case: 32 distinct words in one bank.
    let serial = [WarpRequest::from_fn(Op::Load, 4, |l| Some(l.get() * 128)).unwrap()];
    group.throughput(Throughput::Elements(1));
    group.bench_function("wavefronts/serial/4B", |b| {
        b.iter(|| config.wavefronts(black_box(&serial[0])).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
