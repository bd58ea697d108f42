//! The fuzz targets' seeds and every crash they found, replayed on stable Rust
//! through the code the targets run (`fuzz/src/lib.rs`, included here).
//!
//! Each target `T` has its seeds in `fuzz/corpus/T/seed-*` and its minimised
//! crashes, once fixed, in `fuzz/artifacts/T/`; a file in either that panics
//! fails this test with its path. CONTRIBUTING.md says how to run the fuzzers.
#![cfg(all(
    feature = "corpus",
    feature = "trace",
    feature = "ptx",
    feature = "resolve",
    feature = "ncu"
))]

use std::fs;
use std::path::Path;

#[allow(dead_code, unreachable_pub)]
#[path = "../fuzz/src/lib.rs"]
mod targets;

/// Runs `check` on every file of the seed corpus and of the artifacts of
/// `target`; returns how many seeds there were.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut seeds = 0;
    for (folder, seeds_only) in [("corpus", true), ("artifacts", false)] {
        let Ok(entries) = fs::read_dir(root.join(folder).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy();
            if (seeds_only && !name.starts_with("seed-")) || name.starts_with('.') {
                continue;
            }
            let data = fs::read(&path).unwrap();
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                panic!("{} fails the `{target}` target", path.display());
            }
            seeds += usize::from(seeds_only);
        }
    }
    seeds
}

#[test]
fn request_corpus() {
    assert!(replay("request", targets::request) >= 10);
}

#[test]
fn record_corpus() {
    assert!(replay("record", targets::record) >= 10);
}

#[test]
fn expr_corpus() {
    assert!(replay("expr", targets::expr) >= 10);
}

#[test]
fn trace_line_corpus() {
    assert!(replay("trace_line", targets::trace_line) >= 10);
}

#[test]
fn ptx_corpus() {
    assert!(replay("ptx", targets::ptx) >= 10);
}

#[test]
fn ptx_run_corpus() {
    assert!(replay("ptx_run", targets::ptx_run) >= 10);
}

#[test]
fn ncu_csv_corpus() {
    assert!(replay("ncu_csv", targets::ncu_csv) >= 10);
}

#[test]
fn launch_args_corpus() {
    assert!(replay("launch_args", targets::launch_args) >= 10);
}

#[test]
fn triton_meta_corpus() {
    assert!(replay("triton_meta", targets::triton_meta) >= 10);
}
