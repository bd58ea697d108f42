//! The C API against the Rust calls it wraps, side by side in one run, per
//! request, on sm_90: a C loop (`capi_caller.c`, compiled by the cc crate)
//! calling `smem_wavefronts` with the op as a string, `smem_wavefronts_op`
//! with the op parsed once, and `smem_wavefronts_batch` once for all the
//! requests; the same for the cost (`smem_cost_op`, `smem_cost_batch`); and
//! Rust's `WarpRequest::from_offsets` + `BankConfig::wavefronts` (`cost`) on
//! the same masks and offsets, the configuration and op passed as run-time
//! data as the C side has them. Target (issue 23): the `_op` and batch calls
//! within 1.3x of Rust. Run briefly:
//! `cargo bench -p smem-bench --bench capi -- --warm-up-time 1 --measurement-time 3`.

use std::ffi::c_void;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem::{smem_config_free, smem_config_new, smem_cost, smem_op, smem_op_parse};
use smem_bench::capi_caller::*;
use smem_model::{BankConfig, ComputeCapability, LaneSet, Op, WarpRequest};

// Only `mix` is used here.
#[allow(dead_code)]
mod common;

fn bench(c: &mut Criterion) {
    let rust = BankConfig::new(ComputeCapability::Sm90);
    let handle = unsafe { smem_config_new(c"sm_90".as_ptr()) };
    assert!(!handle.is_null());
    // Opaque to the C side's declarations here.
    let config = handle.cast_const().cast::<c_void>();
    let mut op = smem_op::default();
    assert_eq!(unsafe { smem_op_parse(c"LDS".as_ptr(), &mut op) }, 0);
    let mut group = c.benchmark_group("capi");
    for width in [4u32, 16] {
        let requests = common::mix(width);
        let n = requests.len();
        let offsets: Vec<[u32; 32]> = requests
            .iter()
            .map(|r| r.to_array().map(|a| a.unwrap_or(3)))
            .collect();
        let flat: Vec<u32> = offsets.iter().flatten().copied().collect();
        let masks = vec![u32::MAX; n];
        let mut out = vec![0u32; n];
        let mut costs = vec![smem_cost::default(); n];
        let expected: u32 = requests.iter().map(|r| rust.wavefronts(r).unwrap()).sum();
        let name = format!("mix/{width}B");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("rust-from_offsets+wavefronts/{name}"), |b| {
            b.iter(|| {
                // The configuration and op as run-time data, as the C calls
                // have them (a constant one would let the compiler fold).
                let (rust, op) = black_box((rust, Op::Load));
                offsets
                    .iter()
                    .zip(&masks)
                    .map(|(o, &m)| {
                        let r = WarpRequest::from_offsets(
                            op,
                            width,
                            LaneSet::from_bits(m),
                            black_box(o),
                        );
                        rust.wavefronts(&r.unwrap()).unwrap()
                    })
                    .sum::<u32>()
            })
        });
        let (masks_p, flat_p) = (masks.as_ptr(), flat.as_ptr());
        let total =
            unsafe { caller_wavefronts_string(config, c"LDS".as_ptr(), width, n, masks_p, flat_p) };
        assert_eq!(total, expected);
        group.bench_function(format!("c-wavefronts-string/{name}"), |b| {
            b.iter(|| unsafe {
                caller_wavefronts_string(
                    config,
                    c"LDS".as_ptr(),
                    width,
                    n,
                    masks_p,
                    black_box(flat_p),
                )
            })
        });
        assert_eq!(
            unsafe { caller_wavefronts_op(config, op, width, n, masks_p, flat_p) },
            expected
        );
        group.bench_function(format!("c-wavefronts_op/{name}"), |b| {
            b.iter(|| unsafe {
                caller_wavefronts_op(config, op, width, n, masks_p, black_box(flat_p))
            })
        });
        let out_p = out.as_mut_ptr();
        assert_eq!(
            unsafe { caller_wavefronts_batch(config, op, width, n, masks_p, flat_p, out_p) },
            expected
        );
        group.bench_function(format!("c-wavefronts_batch/{name}"), |b| {
            b.iter(|| unsafe {
                caller_wavefronts_batch(config, op, width, n, masks_p, black_box(flat_p), out_p)
            })
        });
        let conflicts: u32 = requests
            .iter()
            .map(|r| rust.cost(r).unwrap().bank_conflicts())
            .sum();
        group.bench_function(format!("rust-from_offsets+cost/{name}"), |b| {
            b.iter(|| {
                // The configuration and op as run-time data, as the C calls
                // have them (a constant one would let the compiler fold).
                let (rust, op) = black_box((rust, Op::Load));
                offsets
                    .iter()
                    .zip(&masks)
                    .map(|(o, &m)| {
                        let r = WarpRequest::from_offsets(
                            op,
                            width,
                            LaneSet::from_bits(m),
                            black_box(o),
                        );
                        rust.cost(&r.unwrap()).unwrap().bank_conflicts()
                    })
                    .sum::<u32>()
            })
        });
        assert_eq!(
            unsafe { caller_cost_op(config, op, width, n, masks_p, flat_p) },
            conflicts
        );
        group.bench_function(format!("c-cost_op/{name}"), |b| {
            b.iter(|| unsafe { caller_cost_op(config, op, width, n, masks_p, black_box(flat_p)) })
        });
        let costs_p = costs.as_mut_ptr();
        assert_eq!(
            unsafe { caller_cost_batch(config, op, width, n, masks_p, flat_p, costs_p) },
            conflicts
        );
        group.bench_function(format!("c-cost_batch/{name}"), |b| {
            b.iter(|| unsafe {
                caller_cost_batch(config, op, width, n, masks_p, black_box(flat_p), costs_p)
            })
        });
    }
    group.finish();
    unsafe { smem_config_free(handle) };
}

criterion_group!(benches, bench);
criterion_main!(benches);
