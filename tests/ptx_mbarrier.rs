//! mbarrier pipelines, bulk and tensor copies against compute-sanitizer on
//! an H200 (tests/data/ptx/mbarrier_sanitizer, README.md there): each of
//! the probe's 26 kernels run through `smem kernel --json`, its barrier
//! errors compared with synccheck's ("Missing wait", "Barrier overflow",
//! "Missing init") and its races with racecheck's. Two of racecheck's
//! verdicts are real races it does not see, and the model follows it there:
//! the unwaited reads after a tensor copy (`tensor_nowait`: racecheck checks
//! no tensor copy's bytes) and after `cp.async` writes completed through
//! `cp.async.mbarrier.arrive.noinc` (`cpasync_mbar_nowait`: it forgets those
//! at the arrive; tests/ptx_async_sanitizer.rs has the rest of that rule).
#![cfg(feature = "cli")]

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

mod support;
use support::stderr;

/// The probe's cases, in the order of its `which` parameter.
const CASES: &[&str] = &[
    "pc_ok",
    "pc_nowait",
    "bulk_ok",
    "bulk_nowait",
    "tensor_ok",
    "tensor_nowait",
    "arrive_over_count",
    "arrive_extra_threads",
    "never_completes",
    "tma_store_nofence",
    "tma_store_fence",
    "reuse_noinval",
    "reuse_inval",
    "reinit_noinval",
    "parity_semantics",
    "expect_tx_short",
    "expect_tx_over",
    "no_init",
    "pipeline_ok",
    "pipeline_noempty",
    "cpasync_mbar_ok",
    "cpasync_mbar_nowait",
    "cpasync_mbar_inc",
    "complete_tx_manual",
    "write_tma_dst_while_pending",
    "wait_parity1_first",
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ptx/mbarrier_sanitizer")
}

/// synccheck's error kinds in its output (`Barrier error detected. X.`).
fn synccheck(case: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir().join(format!("san/synccheck_{case}.txt"))).unwrap();
    text.lines()
        .filter_map(|l| l.split("Barrier error detected. ").nth(1))
        .map(|k| k.trim_end_matches('.').to_owned())
        .collect()
}

/// Whether racecheck reported a hazard.
fn racecheck(case: &str) -> bool {
    let text = std::fs::read_to_string(dir().join(format!("san/racecheck_{case}.txt"))).unwrap();
    !text.contains("RACECHECK SUMMARY: 0 hazards displayed")
}

#[test]
fn mbarrier_verdicts_match_compute_sanitizer() {
    let ptx = dir().join("mbar.ptx").display().to_string();
    for (which, case) in CASES.iter().enumerate() {
        let which = format!("0={which}");
        let output = support::smem(
            "kernel",
            &[
                &ptx,
                "--grid",
                "1",
                "--block",
                "64",
                "--arg",
                &which,
                "--tensor-map",
                // The probe's map: 64 x 64 u32, boxes of 8 rows of 32.
                "4=dims:64x64,box:8x32,elem:4",
                "--json",
            ],
        );
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{case}: {e}: {}", stderr(&output)));
        let races = &report["races"];
        let kinds: BTreeSet<String> = races["barrier_errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| match e["error"]["misuse"].as_str().unwrap() {
                "missing-wait" => "Missing wait".to_owned(),
                "overflow" => "Barrier overflow".to_owned(),
                "missing-init" => "Missing init".to_owned(),
                other => other.to_owned(),
            })
            .collect();
        assert_eq!(kinds, synccheck(case), "{case}: barrier errors");
        let hazards = !races["hazards"].as_array().unwrap().is_empty();
        assert_eq!(hazards, racecheck(case), "{case}: races");
    }
}

/// A wait on a phase that never completes: answered "incomplete" once (as
/// the GPU's bounded wait saw it, `run_never_completes.txt`), noted, and
/// no barrier error (synccheck reports none).
#[test]
fn a_phase_that_never_completes_is_noted() {
    let ptx = dir().join("mbar.ptx").display().to_string();
    let output = support::smem(
        "kernel",
        &[&ptx, "--grid", "1", "--block", "64", "--arg", "0=8"],
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("mbarrier phase never completes"),
        "{text}{}",
        stderr(&output)
    );
    assert!(text.contains("races: none found in 1 block"), "{text}");
}

/// The cases racecheck is silent on though their reads race: the model is
/// too, and says that a tensor copy's bytes were not checked.
#[test]
fn races_racecheck_does_not_see_are_not_reported() {
    let ptx = dir().join("mbar.ptx").display().to_string();
    for (which, tensor) in [("0=5", true), ("0=21", false)] {
        let output = support::smem(
            "kernel",
            &[
                &ptx,
                "--grid",
                "1",
                "--block",
                "64",
                "--arg",
                which,
                "--tensor-map",
                "4=dims:64x64,box:8x32,elem:4",
            ],
        );
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            text.contains("races: none found in 1 block"),
            "{which}: {text}"
        );
        assert_eq!(
            text.contains(
                "  not race-checked: the shared bytes of 1 tensor copy (compute-sanitizer's \
                 racecheck checks none)"
            ),
            tensor,
            "{which}: {text}"
        );
    }
}
