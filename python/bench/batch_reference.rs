//! The Rust side of `python/bench/batch.py`: the per-request cost of
//! `WarpRequest::from_offsets` + `BankConfig::wavefronts` (and `cost`) on the
//! same rows the Python script times, so the two are read side by side:
//! `cargo run --release -p smem-python --example batch_reference [SECONDS]`.
//!
//! The rows are the benchmarks' mix of 4-byte sm_90 loads (benches/common),
//! repeated to 65,536 requests, as `batch.py` builds them.

use std::hint::black_box;
use std::time::{Duration, Instant};

use smem_model::{BankConfig, ComputeCapability, LaneSet, Op, WarpRequest};

#[path = "../../benches/common/mod.rs"]
#[allow(dead_code)]
mod common;

/// Best nanoseconds per request of `f` over `rows`, repeated for about `budget`.
fn ns_per_request(rows: &[[u32; 32]], budget: Duration, f: impl Fn(&[u32; 32]) -> u32) -> f64 {
    let start = Instant::now();
    let mut best = f64::INFINITY;
    let mut sink = 0u32;
    while start.elapsed() < budget {
        let t = Instant::now();
        for row in rows {
            sink = sink.wrapping_add(f(black_box(row)));
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / rows.len() as f64);
    }
    black_box(sink);
    best
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let budget = Duration::from_secs_f64(seconds);
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mix: Vec<[u32; 32]> = common::mix(4)
        .iter()
        .map(|r| r.to_array().map(|a| a.unwrap_or(0)))
        .collect();
    let rows: Vec<[u32; 32]> = mix.iter().copied().cycle().take(65_536).collect();
    let total: u64 = rows
        .iter()
        .map(|o| {
            let r = WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, o).unwrap();
            u64::from(config.wavefronts(&r).unwrap())
        })
        .sum();
    let wavefronts = ns_per_request(&rows, budget, |o| {
        let r = WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, o).unwrap();
        config.wavefronts(&r).unwrap()
    });
    let cost = ns_per_request(&rows, budget, |o| {
        let r = WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, o).unwrap();
        config.cost(&r).unwrap().ways()
    });
    let wide: Vec<[i64; 32]> = rows.iter().map(|r| r.map(i64::from)).collect();
    let start = Instant::now();
    let mut best = f64::INFINITY;
    while start.elapsed() < budget {
        let t = Instant::now();
        let mut sink = 0;
        for row in &wide {
            let mut offsets = [0u32; 32];
            for (o, &v) in offsets.iter_mut().zip(black_box(row)) {
                *o = u32::try_from(v).unwrap();
            }
            let r = WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, &offsets).unwrap();
            sink += config.wavefronts(&r).unwrap();
        }
        black_box(sink);
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / wide.len() as f64);
    }
    println!("rust i64 narrowed + from_offsets + wavefronts {best:7.1} ns/request");
    println!("rust {} requests, wavefronts total {total}", rows.len());
    println!("rust from_offsets + wavefronts  {wavefronts:7.1} ns/request");
    println!("rust from_offsets + cost        {cost:7.1} ns/request");
}
