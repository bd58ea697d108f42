//! `smem racecheck` end to end on the traces of `tests/data/racecheck` (written
//! by its `make_traces.py` from tools/racecheck/cases.cu): the racy kernels
//! report their hazards, the correct ones nothing, the exit status says which,
//! and bad input is a clear error with status 2.
#![cfg(feature = "cli")]

use std::process::Output;

use serde_json::Value;

mod support;
use support::{stderr, stdout, TempFile};

const DATA: &str = "tests/data/racecheck";

fn racecheck(args: &[&str]) -> Output {
    support::smem("racecheck", args)
}

fn case(name: &str) -> String {
    format!("{DATA}/{name}.traceg")
}

/// The JSON report of one trace (whatever the exit status).
fn json(name: &str) -> Value {
    let output = racecheck(&["--json", &case(name)]);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&output)))
}

#[test]
fn correct_kernels_report_nothing_and_exit_0() {
    for name in [
        "ab_sync",
        "reverse_sync",
        "transpose_sync",
        "matmul_sync",
        "warp_reduce_syncwarp",
    ] {
        let output = racecheck(&[&case(name)]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        assert!(
            stdout(&output).ends_with("  no hazards, no barrier errors\n"),
            "{name}: {}",
            stdout(&output)
        );
        let report = json(name);
        assert_eq!(report["hazards"], Value::Array(vec![]), "{name}");
        assert_eq!(report["barrier_errors"], Value::Array(vec![]), "{name}");
    }
}

#[test]
fn the_ab_race_names_both_threads_and_lines() {
    let output = racecheck(&[&case("ab_race")]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "kernel ab_race(int*) (sm_90), 1 block:\n  \
         error read-write: pc 0x0080 (line 28) and pc 0x00e0 (line 29), 1 block, 4 bytes\n    \
         e.g. block (0,0,0) byte 0x400: write by warp 0 lane 0, read by warp 1 lane 0\n"
    );
    let report = json("ab_race");
    let hazard = &report["hazards"][0];
    assert_eq!(hazard["kind"], "read-write");
    assert_eq!(hazard["severity"], "error");
    assert_eq!(hazard["first"]["pc"], 0x80);
    assert_eq!(hazard["first"]["warp"], 0);
    assert_eq!(hazard["first"]["line"], "line 28");
    assert_eq!(hazard["second"]["pc"], 0xe0);
    assert_eq!(hazard["second"]["warp"], 1);
    assert_eq!(hazard["bytes"], 4);
    assert_eq!(report["schema"], "smem-racecheck/1");
}

#[test]
fn reverse_without_syncthreads_races_on_all_256_bytes_in_both_forms() {
    for file in [
        case("reverse_nosync"),
        format!("{DATA}/reverse_nosync.trace"),
    ] {
        let output = racecheck(&["--json", &file]);
        assert_eq!(output.status.code(), Some(1), "{file}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let hazards = report["hazards"].as_array().unwrap();
        assert_eq!(hazards.len(), 1, "{file}");
        assert_eq!(hazards[0]["kind"], "read-write");
        assert_eq!(
            (
                hazards[0]["first"]["pc"].as_u64(),
                hazards[0]["second"]["pc"].as_u64()
            ),
            (Some(0xe0), Some(0x100))
        );
        assert_eq!(hazards[0]["bytes"], 256);
    }
}

/// Hazards of a report as (severity, kind) counts.
fn counts(report: &Value) -> (usize, usize) {
    let hazards = report["hazards"].as_array().unwrap();
    let errors = hazards.iter().filter(|h| h["severity"] == "error").count();
    (errors, hazards.len() - errors)
}

#[test]
fn transpose_with_the_barrier_missing_or_moved_races() {
    let missing = json("transpose_nosync");
    let moved = json("transpose_moved");
    // Moving the barrier before the writes orders nothing that matters: the
    // same hazards as without it.
    let without_kernel = |report: &Value| -> Vec<Value> {
        let mut hazards = report["hazards"].as_array().unwrap().clone();
        for h in &mut hazards {
            h.as_object_mut().unwrap().remove("kernel");
        }
        hazards
    };
    assert!(without_kernel(&missing) == without_kernel(&moved));
    let (errors, warnings) = counts(&missing);
    assert!(errors > 0 && warnings > 0, "{errors} {warnings}");
    assert!(missing["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["kind"] == "read-write"));
}

#[test]
fn matmul_without_either_barrier_races() {
    // Without the second barrier, the next tile's stores race with this
    // tile's loads of other warps' elements (write-after-read).
    let second = json("matmul_no_second");
    assert!(counts(&second).0 > 0);
    let first = json("matmul_no_first");
    assert!(counts(&first).0 > 0);
    assert!(first["barrier_errors"].as_array().unwrap().is_empty());
}

#[test]
fn divergent_syncthreads_are_barrier_errors() {
    let output = racecheck(&[&case("divergent_ifelse")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains(
        "barrier error: barrier 0 is completed by warps at different instructions: \
         warp(s) 1 at site 0x80, warp(s) 0 at site 0x110 (1 block, e.g. block (0,0,0))"
    ));
    let report = json("divergent_lanes");
    let errors = report["barrier_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(
        errors[0]["message"],
        "divergent barrier 0 at site 0x100: lanes 0-15 of warp 0 reach it, lanes 16-31 do not"
    );
    assert_eq!(errors[0]["error"]["type"], "divergent-lanes");
}

#[test]
fn warp_synchronous_code_without_syncwarp_is_a_warning() {
    let report = json("warp_reduce_nosync");
    let (errors, warnings) = counts(&report);
    assert_eq!(errors, 0);
    assert!(warnings > 0);
}

#[test]
fn a_fence_does_not_fix_a_race_and_a_named_barrier_orders_only_its_warps() {
    let fence = json("fence_race");
    assert_eq!(fence["hazards"].as_array().unwrap().len(), 1);
    let named = json("named_barrier");
    let hazards = named["hazards"].as_array().unwrap();
    assert_eq!(hazards.len(), 1);
    // Thread 64 (warp 2) races with thread 0; thread 32 (warp 1) is ordered.
    assert_eq!(hazards[0]["second"]["warp"], 2);
}

#[test]
fn warps_with_different_numbers_of_barriers() {
    let output = racecheck(&[&case("bad_barrier_counts")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains(
        "barrier error: barrier 0 (site 0x120) waits for 2 warps but only warp(s) 1 reach it; \
         warp(s) 0 never do"
    ));
}

#[test]
fn bad_input_is_an_error_with_status_2() {
    for (name, message) in [
        (
            "bad_named_count",
            "bad_named_count.traceg:23: barrier 1 waits for 48 threads: the count must be a \
             nonzero multiple of 32 of at most the block's 96 threads (its warps times 32)",
        ),
        (
            "bad_no_warps",
            "bad_no_warps.traceg:17: thread block (0,0,0) has no warps",
        ),
        (
            "bad_interleaved",
            "bad_interleaved.traceg:24: thread block (1,0,0) begins before thread block (0,0,0) \
             ends (#END_TB)",
        ),
    ] {
        let output = racecheck(&[&case(name)]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(
            stderr(&output).contains(message),
            "{name}: {}",
            stderr(&output)
        );
    }
    let missing = racecheck(&["no-such-file.traceg"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("error: no-such-file.traceg: cannot read:"));
    // Not a trace at all.
    let junk = TempFile::new("junk.traceg", b"hello world\n");
    let output = racecheck(&[junk.name()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(":1: not an instruction line"),
        "{}",
        stderr(&output)
    );
    // A barrier line with an absurd source count: no operands, barrier 0.
    let absurd = TempFile::from_lines(
        "absurd.traceg",
        &[
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 0",
            "0000 ffffffff 0 BAR.SYNC 18446744073709551615 0 0x1 0x40",
            "#END_TB",
        ],
    );
    let output = racecheck(&[absurd.name()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // --threads out of range.
    let output = racecheck(&["-j", "0", &case("ab_race")]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr(&output), "error: --threads 0: expected 1 to 64\n");
    // More than 32 warps.
    let many = TempFile::from_lines(
        "many.traceg",
        &[
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 40",
            "0000 ffffffff 0 EXIT 0 0",
            "#END_TB",
        ],
    );
    let output = racecheck(&[many.name()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("a block of 1312 threads is not possible on compute capability 9.0"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn pre_v3_lines_inside_a_traceg_block_belong_to_it() {
    // Lines that carry block and warp ids inside #BEGIN_TB ... #END_TB (as
    // pre-v3 tracers wrote them) are the marked block's, not a second block.
    let trace = TempFile::from_lines(
        "prev3.traceg",
        &[
            "-block dim = (64,1,1)",
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 0",
            "0 0 0 0 0430 00000001 0 STS 2 R1 R2 4 1 0x400 4",
            "warp = 1",
            "0 0 0 1 0440 00000001 1 R3 LDS 1 R2 4 1 0x400 4",
            "#END_TB",
        ],
    );
    let output = racecheck(&[trace.name()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("error read-write: pc 0x0430 and pc 0x0440, 1 block, 4 bytes"));
}

#[test]
fn a_named_barrier_without_a_count_waits_for_the_whole_block() {
    let trace = TempFile::from_lines(
        "named_all.traceg",
        &[
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 0",
            "0010 00000001 0 STS 2 R1 R2 4 1 0x400 4",
            "0020 ffffffff 0 BAR.SYNC 0 0 0x1",
            "warp = 1",
            "0020 ffffffff 0 BAR.SYNC 0 0 0x1",
            "0030 00000001 1 R3 LDS 1 R2 4 1 0x400 4",
            "#END_TB",
        ],
    );
    let output = racecheck(&[trace.name()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
}

#[test]
fn the_output_does_not_depend_on_the_thread_count() {
    let files: Vec<String> = ["matmul_no_second", "transpose_nosync", "divergent_lanes"]
        .iter()
        .map(|n| case(n))
        .collect();
    let mut args: Vec<&str> = vec!["--json", "-j", "1"];
    args.extend(files.iter().map(String::as_str));
    let one = racecheck(&args);
    args[2] = "3";
    let three = racecheck(&args);
    assert_eq!(one.stdout, three.stdout);
    assert_eq!(one.status.code(), Some(1));
}

/// A CAS loop (`LDS` then `ATOMS.CAST.SPIN`, round after round) is the
/// atomic it emulates: two warps' loops on one word, or two lanes' of one
/// warp, race with nothing; a plain store to the word by another warp races
/// with the loop's read and its try; in both trace forms (block and warp by
/// markers, or on each line).
#[test]
fn compare_and_swap_loops_are_atomics() {
    let fixture = racecheck(&["tests/data/traces/cas-loop.traceg"]);
    assert_eq!(fixture.status.code(), Some(0), "{}", stdout(&fixture));
    let round = |warp: &str, mask: &str| {
        [
            format!("{warp}0100 {mask} 1 R4 LDS 1 R2 4 1 0x400 0"),
            format!("{warp}0110 {mask} 0 ATOMS.CAST.SPIN 3 R2 R4 R6 4 1 0x400 0"),
        ]
    };
    let block = |warps: &[&[[String; 2]]], raw: bool| {
        let mut lines = vec!["-block dim = (64,1,1)".to_owned()];
        if !raw {
            lines.extend(["#BEGIN_TB".to_owned(), "thread block = 0,0,0".to_owned()]);
        }
        for (w, rounds) in warps.iter().enumerate() {
            if !raw {
                lines.push(format!("warp = {w}"));
            }
            for round in *rounds {
                lines.extend(round.iter().cloned());
            }
            let prefix = if raw {
                format!("0 0 0 {w} ")
            } else {
                String::new()
            };
            lines.push(format!("{prefix}0200 ffffffff 0 EXIT 0 0"));
        }
        if !raw {
            lines.push("#END_TB".to_owned());
        }
        lines
    };
    for raw in [false, true] {
        let prefix = |w: u32| {
            if raw {
                format!("0 0 0 {w} ")
            } else {
                String::new()
            }
        };
        // Two warps, two lanes each, on one word: lane 0 wins the first round.
        let warp = |w| [round(&prefix(w), "00000003"), round(&prefix(w), "00000002")];
        let (w0, w1) = (warp(0), warp(1));
        let lines = block(&[&w0, &w1], raw);
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let trace = TempFile::from_lines("cas-atomic.traceg", &lines);
        let output = racecheck(&[trace.name()]);
        assert_eq!(
            (output.status.code(), stdout(&output).contains("no hazards")),
            (Some(0), true),
            "raw {raw}: {}{}",
            stdout(&output),
            stderr(&output)
        );
        // A plain store by warp 0, a loop by warp 1: both the loop's read and
        // its try race with the store.
        let store = [
            format!("{}0080 00000001 0 STS 2 R2 R3 4 1 0x400 0", prefix(0)),
            format!("{}0090 00000001 0 BRA 0 0", prefix(0)),
        ];
        let w1 = [round(&prefix(1), "00000001")];
        let lines = block(&[&[store], &w1], raw);
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let trace = TempFile::from_lines("cas-store.traceg", &lines);
        let output = racecheck(&[trace.name()]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let out = stdout(&output);
        assert!(
            out.contains("error write-write: pc 0x0080 and pc 0x0100, 1 block, 4 bytes")
                && out.contains("error write-write: pc 0x0080 and pc 0x0110, 1 block, 4 bytes"),
            "raw {raw}: {out}"
        );
    }
}
