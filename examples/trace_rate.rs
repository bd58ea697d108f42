//! The end-to-end rate of `smem trace` (on 1 and 2 threads) and of `smem
//! racecheck` (the library's sequential reader, `Trace`, into the block
//! model) beside a plain line count of the same file, measured side by side
//! in one run: the numbers of the README's performance section.
//!
//! ```sh
//! cargo build --release --features cli
//! cargo run --release --example gen_trace -- 2000000 > /tmp/t.traceg
//! cargo run --release --example trace_rate -- /tmp/t.traceg 1 2
//! ```
//!
//! Arguments: the trace, then the thread counts to try (default 1 and 2).
//! Each command runs `SMEM_RATE_ROUNDS` times (default 5), alternating, and
//! the fastest run of each is kept: on a shared machine the fastest is the
//! one least disturbed. `wc -l` reads the file from the page cache, so the
//! first round also warms the cache for both. The load average before and
//! after is printed: compare ratios within one run, not across runs.
//!
//! `smem` is looked for beside this example's directory
//! (`target/release/smem`), or at `$SMEM`. With `$SMEM_OLD` (another build,
//! e.g. of an earlier commit), that binary runs too, in the same rounds, so
//! old and new are compared side by side.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn smem_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SMEM") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the example's own path");
    // target/release/examples/trace_rate -> target/release/smem
    exe.parent()
        .and_then(|examples| examples.parent())
        .map(|dir| dir.join("smem"))
        .expect("a target directory")
}

/// Runs `command` and returns how long it took and its standard output.
fn timed(command: &mut Command) -> (Duration, Vec<u8>) {
    let started = Instant::now();
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|err| panic!("cannot run {command:?}: {err}"));
    let elapsed = started.elapsed();
    // `smem racecheck` exits 1 when it found hazards.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{command:?} failed"
    );
    (elapsed, output.stdout)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: trace_rate TRACE [THREADS...]  (make TRACE with the gen_trace example)");
        std::process::exit(2);
    };
    let mut threads: Vec<String> = args.collect();
    if threads.is_empty() {
        threads = vec!["1".to_owned(), "2".to_owned()];
    }
    let rounds: usize = std::env::var("SMEM_RATE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let smem = smem_path();
    let bytes = std::fs::metadata(&file).expect("the trace exists").len();
    println!(
        "{file}: {:.1} MB; {} cores; load average before: {}",
        bytes as f64 / 1e6,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_average()
    );
    let mut binaries = vec![("smem", smem)];
    if let Some(old) = std::env::var_os("SMEM_OLD") {
        binaries.push(("old smem", PathBuf::from(old)));
    }
    let mut best_wc = Duration::MAX;
    let mut best: Vec<Vec<Duration>> = vec![vec![Duration::MAX; threads.len()]; binaries.len()];
    let mut best_racecheck = vec![Duration::MAX; binaries.len()];
    let mut requests = 0u64;
    for _ in 0..rounds {
        let (wc, _) = timed(Command::new("wc").args(["-l", &file]));
        best_wc = best_wc.min(wc);
        for ((_, binary), best) in binaries.iter().zip(&mut best) {
            for (n, best) in threads.iter().zip(best.iter_mut()) {
                let (elapsed, out) = timed(Command::new(binary).args([
                    "trace",
                    "--json",
                    "--no-progress",
                    "-j",
                    n,
                    &file,
                ]));
                *best = (*best).min(elapsed);
                let report: serde_json::Value =
                    serde_json::from_slice(&out).expect("smem trace --json prints JSON");
                requests = report["requests"].as_u64().unwrap_or(0);
            }
        }
        for ((_, binary), best) in binaries.iter().zip(&mut best_racecheck) {
            let (elapsed, _) = timed(Command::new(binary).args(["racecheck", "--json", &file]));
            *best = (*best).min(elapsed);
        }
    }
    println!(
        "wc -l: {:.3} s ({:.2} GB/s); best of {rounds}",
        best_wc.as_secs_f64(),
        bytes as f64 / best_wc.as_secs_f64() / 1e9
    );
    for ((name, _), best) in binaries.iter().zip(&best) {
        for (n, elapsed) in threads.iter().zip(best) {
            let seconds = elapsed.as_secs_f64();
            println!(
                "{name} trace -j {n}: {seconds:.3} s, {:.2} million requests/s, {:.2} GB/s, \
             {:.1} x wc -l",
                requests as f64 / seconds / 1e6,
                bytes as f64 / seconds / 1e9,
                seconds / best_wc.as_secs_f64()
            );
        }
    }
    for ((name, _), best) in binaries.iter().zip(&best_racecheck) {
        let seconds = best.as_secs_f64();
        println!(
            "{name} racecheck: {seconds:.3} s, {:.2} million requests/s, {:.2} GB/s, \
             {:.1} x wc -l",
            requests as f64 / seconds / 1e6,
            bytes as f64 / seconds / 1e9,
            seconds / best_wc.as_secs_f64()
        );
    }
    println!("load average after: {}", load_average());
}
