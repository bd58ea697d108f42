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
         blocks per SM each limit allows:\n  \
         shared memory:    5  (102400 / 17408 bytes)  <- binds\n  \
         blocks per SM:   16  (the most an SM of compute capability 8.6 holds)\n\
         blocks per SM: 5\n\
         limited by: shared memory\n\
         (shared memory and blocks only: give --threads and --registers for the warp and register limits)\n"
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
        out.contains(
            "\n  blocks per SM:   16  (the most an SM of compute capability 7.5 holds)  <- binds\n"
        ),
        "{out}"
    );
    assert!(out.contains("\nlimited by: blocks per SM\n"), "{out}");
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

/// Threads and registers: the calculator's limits side by side, the binding
/// one marked, warps and percent (the numbers of `cuda_occupancy.h`, which
/// `tests/occupancy.rs` checks point by point).
#[test]
fn threads_and_registers() {
    let output = occupancy(&["--threads", "256", "--registers", "64", "--dynamic", "16K"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains(
            "block: 256 threads = 8 warps, 64 registers a thread: 16384 registers allocated \
             (each warp's 2048 rounded up to 256)\n\
             blocks per SM each limit allows:\n  \
             warps per SM:     8  (64 warps per SM / 8 a block)\n  \
             registers:        4  (65536 registers per SM in 4 partitions of whole warps, 16384 a block)  <- binds\n  \
             shared memory:   13  (233472 / 17408 bytes)\n  \
             blocks per SM:   32  (the most an SM of compute capability 9.0 holds)\n  \
             barriers:        64  (block barriers per SM, one a block)\n\
             blocks per SM: 4: 32 of 64 warps, 50.0% occupancy\n\
             limited by: registers\n"
        ),
        "{out}"
    );
    assert!(!out.contains("give --threads"), "{out}");
    let report = json(&["--threads", "256", "--registers", "64", "--dynamic", "16K"]);
    assert_eq!(report["blocks_per_sm"], 4);
    assert_eq!(report["limit"], "registers");
    assert_eq!(report["limits"], serde_json::json!(["registers"]));
    assert_eq!(report["warps_per_sm"], 32);
    assert_eq!(report["max_warps_per_sm"], 64);
    assert_eq!(report["occupancy_percent"], 50.0);
    assert_eq!(report["allowed"]["warps"], 8);
    assert_eq!(report["allowed"]["shared_memory"], 13);
    assert_eq!(report["allocated_registers_per_block"], 16384);
    // A V100 block of 128 threads and 32 registers: warps and registers bind together.
    let report = json(&["--arch", "7.0", "--threads", "128", "--registers", "32"]);
    assert_eq!(report["blocks_per_sm"], 16);
    assert_eq!(report["limits"], serde_json::json!(["warps", "registers"]));
    assert_eq!(report["allowed"]["shared_memory"], Value::Null);
    assert_eq!(report["allowed"]["barriers"], Value::Null);
    // Threads without registers: the register file sets no limit.
    let report = json(&["--arch", "8.6", "--threads", "1024"]);
    assert_eq!(report["blocks_per_sm"], 1);
    assert_eq!(report["limit"], "warps");
    assert_eq!(report["allowed"]["registers"], Value::Null);
    assert!((report["occupancy_percent"].as_f64().unwrap() - 200.0 / 3.0).abs() < 1e-9);
}

/// A preference a block does not fit in is overridden by the driver: said on
/// stderr and in `--json`, the answer still printed.
#[test]
fn an_overridden_carveout_is_warned_about() {
    let output = occupancy(&["--static", "12K", "--carveout", "0"]);
    assert!(output.status.success());
    assert_eq!(
        stderr(&output),
        "warning: the 0% carveout preference (0 bytes) is overridden: a block's 13312 bytes do \
         not fit in it, so the driver uses 16384 bytes\n"
    );
    assert!(stdout(&output).contains("\nblocks per SM: 1\n"));
    let report = json(&["--static", "12K", "--carveout", "0"]);
    assert_eq!(report["carveout_overridden"], true);
    let output = occupancy(&["--static", "12K", "--carveout", "50"]);
    assert_eq!(stderr(&output), "");
    assert_eq!(
        json(&["--static", "12K", "--carveout", "50"])["carveout_overridden"],
        false
    );
}

#[test]
fn impossible_blocks_are_refused_with_the_reason() {
    for (args, message) in [
        (
            &["--threads", "1024", "--registers", "255"][..],
            "error: a block of 1024 threads of 255 registers is allocated 262144 registers, more \
             than the 65536 a block of compute capability 9.0 may hold: the launch fails\n",
        ),
        (
            &["--threads", "128", "--registers", "256"][..],
            "error: 256 registers a thread exceed the 255 a thread of compute capability 9.0 may use\n",
        ),
        (
            &["--threads", "2048"][..],
            "error: a block of 2048 threads is not possible on compute capability 9.0: expected 1 to 1024\n",
        ),
        (
            &["--threads", "0"][..],
            "error: a block of 0 threads is not possible on compute capability 9.0: expected 1 to 1024\n",
        ),
        (
            &["--arch", "2.0", "--threads", "128"][..],
            "error: occupancy by threads and registers is not modelled for compute capability 2.0: \
             the model starts at 3.0\n",
        ),
    ] {
        let output = occupancy(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&output), message, "{args:?}");
        assert_eq!(stdout(&output), "");
    }
    // --registers alone is a usage error.
    let output = occupancy(&["--registers", "32"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--threads <N>"),
        "{}",
        stderr(&output)
    );
}
