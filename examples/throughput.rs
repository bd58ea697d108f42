//! Requests per second of the model and of the map-based baseline cycle
//! simulators use today, on the same rotating mix of 4-byte sm_90 loads, in one
//! run: `cargo run --release --example throughput [SECONDS]`.
//!
//! For careful numbers use `cargo bench`; this is for reproducing the ratio
//! anywhere in a few seconds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use smem_model::{BankConfig, ComputeCapability};

#[path = "../benches/common/mod.rs"]
mod common;

/// Runs `f` over `requests` repeatedly for about `budget`; requests per second.
fn rate<T>(requests: &[T], budget: Duration, mut f: impl FnMut(&T) -> u32) -> f64 {
    let start = Instant::now();
    let mut done = 0u64;
    let mut sink = 0u32;
    while start.elapsed() < budget {
        for _ in 0..1000 {
            for r in requests {
                sink = sink.wrapping_add(f(black_box(r)));
            }
        }
        done += 1000 * requests.len() as u64;
    }
    black_box(sink);
    done as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let budget = Duration::from_secs_f64(seconds);
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mix = common::mix(4);
    let wavefronts = rate(&mix, budget, |r| config.wavefronts(r).unwrap());
    let partitions = rate(&mix, budget, |r| config.partition(r).unwrap().wavefronts());
    let serial = rate(&[common::serial()], budget, |r| {
        config.wavefronts(r).unwrap()
    });
    let shuffled = rate(&[common::serial_shuffled()], budget, |r| {
        config.wavefronts(r).unwrap()
    });
    let baseline = rate(&mix, budget, common::baseline_wavefronts);
    println!("mix of {} 4-byte sm_90 loads, {seconds} s each:", mix.len());
    for (name, r) in [
        ("model, wavefronts", wavefronts),
        ("model, full partition", partitions),
        ("model, serial", serial),
        ("model, serial shuffled", shuffled),
        ("map-based baseline", baseline),
    ] {
        println!(
            "  {name:<22} {:>8.1} M requests/s  {:>7.1} ns/request",
            r / 1e6,
            1e9 / r
        );
    }
    println!("  model / baseline: {:.0}x", wavefronts / baseline);
}
