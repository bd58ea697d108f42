//! `smem occupancy` end to end: blocks per SM, the carveout and the binding
//! limit for launches whose answers the library's tests pin (several measured
//! on an H200), `--json` read back, and bad input.
#![cfg(feature = "cli")]

use std::process::Output;

use serde_json::Value;

mod support;
use support::{stderr, stdout};

/// Runs `smem occupancy ARGS`.
fn occupancy(args: &[&str]) -> Output {
    support::smem("occupancy", args)
}

/// `smem occupancy --json ARGS`, parsed.
fn json(args: &[&str]) -> Value {
    support::json("occupancy", args)
}

#[test]
fn the_issue_example_on_sm_86() {
    let output = occupancy(&["--arch", "sm_86", "--static", "12288", "--dynamic", "4096"]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output),
        "compute capability 8.6 (sm_86, Ampere)\n  \
         shared memory: 100 KB per SM, 48 KB per block (99 KB with the opt-in), allocated in units of 128 bytes\n\
         launch: 12288 static + 4096 dynamic bytes, limit 49152 bytes per block\n\
         per block: 17408 bytes (1024 reserved by the driver), rounded up to 17408 bytes allocated\n\
         carveout: 100 KB of shared memory on the SM (no preference: the most shared memory)\n\
         blocks per SM: 5\n\
         limit: shared memory: 102400 / 17408 bytes = 5\n\
         (shared memory only: registers and threads per block may allow fewer blocks)\n"
    );
}

#[test]
fn json_reads_back() {
    let report = json(&["--arch", "sm_86", "--static", "12288", "--dynamic", "4096"]);
    assert_eq!(report["arch"], "sm_86");
    assert_eq!(report["allocated_per_block"], 17408);
    assert_eq!(report["carveout"], 102400);
    assert_eq!(report["blocks_per_sm"], 5);
    assert_eq!(report["limit"], "shared memory");
    assert_eq!(report["opt_in"], Value::Null);
}

#[test]
fn measured_on_an_h200() {
    // 12 KB static + 4 KB dynamic + 1 KB reserved on sm_90: 13 blocks.
    let report = json(&["--static", "12K", "--dynamic", "4K"]);
    assert_eq!(report["arch"], "sm_90");
    assert_eq!(
        (
            report["blocks_per_sm"].as_u64(),
            report["carveout"].as_u64()
        ),
        (Some(13), Some(228 * 1024))
    );
    // Preferring half the shared memory: a 132 KB carveout holds 7 blocks.
    let half = json(&["--static", "12K", "--dynamic", "4K", "--carveout", "50"]);
    assert_eq!(half["blocks_per_sm"], 7);
    assert_eq!(half["carveout"], 132 * 1024);
    assert_eq!(half["carveout_preference_percent"], 50);
}

#[test]
fn opt_in_past_48_kb() {
    let output = occupancy(&["--dynamic", "100K"]);
    assert_eq!(
        stderr(&output),
        "error: launch fails: 0 bytes of static and 102400 bytes of dynamic shared memory exceed \
         the per-block limit of 49152 bytes on compute capability 9.0; --opt-in allows up to 232448 bytes per block\n"
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");

    let report = json(&["--dynamic", "100K", "--opt-in"]);
    assert_eq!(report["opt_in"], 102400);
    assert_eq!(report["allocated_per_block"], 103424);
    assert_eq!(report["blocks_per_sm"], 2);
    // An explicit opt-in value, larger than the launch.
    let report = json(&["--dynamic", "100K", "--opt-in", "200K"]);
    assert_eq!(report["opt_in"], 204800);
    assert_eq!(report["blocks_per_sm"], 2);
}

#[test]
fn the_blocks_per_sm_cap_binds() {
    let output = occupancy(&["--arch", "7.5"]);
    let out = stdout(&output);
    assert!(out.contains("\nblocks per SM: 16\n"), "{out}");
    assert!(
        out.contains("\nlimit: the 16 blocks an SM of compute capability 7.5 holds at most\n"),
        "{out}"
    );
    assert_eq!(json(&["--arch", "sm_90"])["limit"], "blocks per SM");
}

#[test]
fn bad_input() {
    let output = occupancy(&["--dynamic", "4X"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with(
        "error: invalid value '4X' for '--dynamic <BYTES>': expected a number of bytes such as 4096 or 4K, found `4X`\n"
    ));

    let output = occupancy(&["--carveout", "150"]);
    assert_eq!(
        stderr(&output),
        "error: carveout preference of 150 percent is over 100\n"
    );
    assert_eq!(output.status.code(), Some(1));

    let output = occupancy(&["--static", "49K"]);
    assert_eq!(
        stderr(&output),
        "error: 50176 bytes of static shared memory exceed the 49152-byte static limit of \
         compute capability 9.0; use dynamic shared memory and opt in\n"
    );
    assert_eq!(output.status.code(), Some(1));

    let output = occupancy(&["--arch", "sm_99"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains(r#"unknown compute capability "sm_99""#));
}
