//! Held-out launches of public kernels nobody here wrote (issue 33's "done
//! when"): seven launches of `../shared/ptx-corpus` PTX measured on an H200
//! (tests/data/ncu/README.md, `heldout/<n>/launch.txt` and `raw.csv`).
//! `smem kernel --ncu` on each must find every counter it names "=" equal
//! to the measurement and every "at least" at or below it, and its race
//! verdict must be compute-sanitizer's.
//!
//! The PTX is read from `../shared/ptx-corpus` (or `SMEM_PTX_CORPUS`); where
//! it is absent (a fresh clone) the test says so on stderr and passes, unless
//! `SMEM_REQUIRE_SHARED` is set (CI sets it).
#![cfg(feature = "cli")]

use std::path::PathBuf;

use serde_json::Value;

mod support;
use support::stderr;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("SMEM_PTX_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/ptx-corpus"),
    }
}

/// `smem kernel` arguments for a launch.txt line: file, kernel, grid,
/// block, dynamic bytes, then the arguments (`p` a buffer, left to the
/// tool's fake pointer; `u:`, `f:`, `h:` values, in parameter order).
fn arguments(line: &str, dir: &std::path::Path) -> Vec<String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let mut args = vec![
        dir.join(fields[0]).display().to_string(),
        "--kernel".into(),
        fields[1].into(),
        "--grid".into(),
        fields[2].into(),
        "--block".into(),
        fields[3].into(),
        "--dynamic-shared".into(),
        fields[4].into(),
        "--arch".into(),
        "sm_90".into(),
        "--json".into(),
    ];
    for (index, arg) in fields[5..].iter().enumerate() {
        if let Some((_, value)) = arg.split_once(':') {
            args.push("--arg".into());
            args.push(format!("{index}={value}"));
        }
    }
    args
}

#[test]
fn held_out_public_kernels_match_the_h200() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        assert!(
            std::env::var_os("SMEM_REQUIRE_SHARED").is_none(),
            "the PTX corpus is missing at {} and SMEM_REQUIRE_SHARED is set",
            dir.display()
        );
        eprintln!(
            "note: skipping the held-out kernels: no PTX corpus at {} (set SMEM_PTX_CORPUS)",
            dir.display()
        );
        return;
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ncu/heldout");
    let mut equal = 0;
    for n in 1..=7 {
        let launch = std::fs::read_to_string(data.join(format!("{n}/launch.txt"))).unwrap();
        let mut args = arguments(launch.trim(), &dir);
        let raw = data.join(format!("{n}/raw.csv"));
        args.extend(["--ncu".into(), raw.display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = support::smem("kernel", &args);
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{n}: {e}: {}", stderr(&output)));
        for row in report["ncu_comparison"]["counters"].as_array().unwrap() {
            let (relation, holds) = (row["relation"].as_str().unwrap(), &row["holds"]);
            if relation == "estimate" || holds.is_null() {
                continue;
            }
            assert_eq!(holds, true, "launch {n}: {row}");
            equal += usize::from(relation == "equal");
        }
        // compute-sanitizer's racecheck (racecheck.txt): hazards only in the
        // softmax whose tmp is reused without a barrier.
        let racecheck = std::fs::read_to_string(data.join(format!("{n}/racecheck.txt"))).unwrap();
        let sanitizer_races = !racecheck.contains("0 hazards displayed (0 errors, 0 warnings)");
        let races = report["races"]["hazards"].as_array().unwrap();
        assert_eq!(
            !races.is_empty(),
            sanitizer_races,
            "launch {n}: {}",
            report["races"]
        );
    }
    // Every instruction-level count of the six launches without a CAS loop.
    assert_eq!(equal, 26);
}
