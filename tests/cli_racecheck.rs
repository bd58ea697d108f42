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
            stdout(&output)
                .ends_with("  no hazards, no barrier errors\n0 errors, 0 warnings over 1 kernel\n"),
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
         e.g. block (0,0,0) byte 0x400: write by warp 0 lane 0, read by warp 1 lane 0\n\
         1 error, 0 warnings over 1 kernel\n"
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
    assert_eq!(report["schema"], "smem-racecheck/2");
    assert_eq!(report["summary"]["errors"], 1);
    assert_eq!(report["summary"]["warnings"], 0);
    assert_eq!(report["summary"]["kernels"], 1);
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
        "barrier error: barrier 0 at site 0x120 waits for 2 warps but only warp(s) 1 reach it; \
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
    assert!(
        stderr(&missing).starts_with("error: cannot read no-such-file.traceg: No such file"),
        "{}",
        stderr(&missing)
    );
    // Not a trace at all.
    let junk = TempFile::new("junk.traceg", b"hello world\n");
    let output = racecheck(&[junk.name()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("junk.traceg: line 1: neither a corpus record (a JSON object) nor an Accel-Sim trace line"),
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
    // Usage errors: status 2.
    for args in [
        &["--max", "x", "a.traceg"][..],
        &["--nope", "a.traceg"],
        &[],
    ] {
        let output = racecheck(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    // More than 32 warps.
    let many = TempFile::from_lines(
        "many.traceg",
        &[
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 40",
            "0000 ffffffff 0 STS 2 R1 R2 4 1 0x0 4",
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
fn several_files_are_one_report_with_one_summary() {
    let files: Vec<String> = ["matmul_no_second", "transpose_nosync", "divergent_lanes"]
        .iter()
        .map(|n| case(n))
        .collect();
    let mut args: Vec<&str> = vec!["--json"];
    args.extend(files.iter().map(String::as_str));
    let output = racecheck(&args);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["kernels"], 3);
    let (errors, warnings) = counts(&report);
    let barrier = report["barrier_errors"].as_array().unwrap().len();
    assert_eq!(report["summary"]["errors"], (errors + barrier) as u64);
    assert_eq!(report["summary"]["warnings"], warnings as u64);
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

/// `smem racecheck` reads what `smem trace` reads: a kernel list (its files
/// relative to its folder), standard input, and says "xz-compressed data"
/// for a broken `.xz`.
#[test]
fn kernel_lists_stdin_and_xz_are_read_as_smem_trace_reads_them() {
    let dir = std::env::temp_dir().join(format!("smem-racecheck-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(case("ab_race"), dir.join("kernel-1.traceg")).unwrap();
    std::fs::copy(case("ab_sync"), dir.join("kernel-2.traceg")).unwrap();
    std::fs::write(
        dir.join("kernelslist.g"),
        "kernel-1.traceg\nkernel-2.traceg\n",
    )
    .unwrap();
    let list = dir.join("kernelslist.g").display().to_string();
    let output = racecheck(&[&list]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("error read-write: pc 0x0080 (line 28)"),
        "{out}"
    );
    assert!(
        out.ends_with("1 error, 0 warnings over 2 kernels\n"),
        "{out}"
    );

    let trace = std::fs::read(case("ab_race")).unwrap();
    let piped = support::smem_with_stdin("racecheck", &["-"], &trace);
    assert_eq!(piped.status.code(), Some(1));
    assert_eq!(stdout(&piped), stdout(&racecheck(&[&case("ab_race")])));

    // The xz magic bytes, then nothing valid.
    let broken = TempFile::new("broken.traceg.xz", b"\xfd7zXZ\x00garbage");
    let output = racecheck(&[broken.name()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("xz-compressed data"),
        "{}",
        stderr(&output)
    );
}

/// The same reason is printed at most 3 times, then counted: a kernel list
/// of many missing files is a few lines, not one per file.
#[test]
fn repeated_errors_are_capped_with_a_count() {
    let names: Vec<String> = (0..1000).map(|i| format!("kernel-{i}.traceg")).collect();
    let dir = std::env::temp_dir().join(format!("smem-racecheck-missing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("kernelslist.g");
    std::fs::write(&list, names.join("\n")).unwrap();
    let output = racecheck(&[&list.display().to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 4, "{err}");
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("error: 997 more errors like the above: No such file or directory"),
        "{err}"
    );
}

/// Bad sizes and warp ids are errors naming the value, never a panic or a
/// block of 0 threads.
#[test]
fn impossible_warps_and_block_sizes_name_the_value() {
    let block = |header: &str, warp: &str| {
        TempFile::from_lines(
            "bad-size.traceg",
            &[
                header,
                "#BEGIN_TB",
                "thread block = 0,0,0",
                warp,
                "0010 ffffffff 0 STS 2 R1 R2 4 1 0x0 4",
                "#END_TB",
            ],
        )
    };
    for (header, warp, message) in [
        (
            "-block dim = (65536,65536,1)",
            "warp = 0",
            ":1: `-block dim = (65536,65536,1)` is 4294967296 threads, more than fit 32 bits",
        ),
        (
            "-block dim = (2048,1,1)",
            "warp = 0",
            "bad-size.traceg: a block of 2048 threads is not possible on compute capability \
             9.0: expected 1 to 1024",
        ),
        (
            "-kernel name = k",
            "warp = 4294967295",
            ":4: warp 4294967295 is past the last warp id, 134217727",
        ),
        (
            "-kernel name = k",
            "warp = 134217727",
            ":5: warp 134217727 does not exist: the block has 32 warps, numbered from 0",
        ),
        (
            "-block dim = (64,1,1)",
            "warp = 2",
            ":5: warp 2 does not exist: the block has 2 warps, numbered from 0",
        ),
    ] {
        let trace = block(header, warp);
        let output = racecheck(&[trace.name()]);
        assert_eq!(output.status.code(), Some(2), "{header} {warp}");
        assert!(
            stderr(&output).contains(message),
            "{header} {warp}: {}",
            stderr(&output)
        );
    }
}

/// Instructions the model cannot check are counted and named, in the text
/// and in `--json`; `--max` bounds what is printed, not what is counted.
#[test]
fn unchecked_instructions_are_named_and_max_bounds_the_listing() {
    let trace = TempFile::from_lines(
        "unchecked.traceg",
        &[
            "-block dim = (64,1,1)",
            "-binary version = 80",
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 0",
            "0010 ffffffff 0 LDGSTS.E.BYPASS.LTC128B.128 2 R1 R2 16 1 0x7f0000000000 16",
            "0020 ffffffff 0 STS 2 R1 R2 4 1 0x0 4",
            "0030 ffffffff 0 STS 2 R1 R2 4 1 0x100 4",
            "warp = 1",
            "0040 ffffffff 1 R3 LDS 1 R2 4 1 0x0 4",
            "0050 ffffffff 1 R3 LDS 1 R2 4 1 0x100 4",
            "#END_TB",
        ],
    );
    let output = racecheck(&["--max", "1", trace.name()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("  1 more hazard not listed (--max 1)\n"),
        "{out}"
    );
    assert!(
        out.contains("  not checked (shared-memory instructions the model does not cover): LDGSTS"),
        "{out}"
    );
    assert!(
        out.ends_with("2 errors, 0 warnings over 1 kernel; 1 instruction not checked\n"),
        "{out}"
    );
    let output = racecheck(&["--json", trace.name()]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["not_checked"][0]["count"], 1);
    assert_eq!(report["summary"]["not_checked"], 1);
    assert_eq!(report["hazards"].as_array().unwrap().len(), 2);
    assert!(report["kernels"][0].get("hazards_not_listed").is_none());
    let output = racecheck(&["--json", "--max", "1", trace.name()]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["hazards"].as_array().unwrap().len(), 1);
    assert_eq!(report["kernels"][0]["hazards"], 2);
    assert_eq!(report["kernels"][0]["hazards_not_listed"], 1);
    assert_eq!(report["summary"]["errors"], 2);
}

/// `--max` bounds memory, not only what is printed: 100,000 hazards on one
/// word (a store of warp 1, then warp 0's stores from 100,000 instructions),
/// 3 listed and the rest counted (issue 36: `--max 3` on this 3.4 MB trace
/// grew to GBs).
#[test]
fn max_bounds_the_hazards_kept_and_counts_the_rest() {
    let mut lines = vec![
        "-block dim = (64,1,1)".to_owned(),
        "#BEGIN_TB".to_owned(),
        "thread block = 0,0,0".to_owned(),
        "warp = 1".to_owned(),
        "fffff0 00000001 0 STS 2 R1 R2 4 1 0x0 4".to_owned(),
        "warp = 0".to_owned(),
    ];
    for pc in 0..100_000 {
        lines.push(format!("{:04x} 00000001 0 STS 2 R1 R2 4 1 0x0 4", 16 * pc));
    }
    lines.push("#END_TB".to_owned());
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let trace = TempFile::from_lines("many.traceg", &lines);
    let output = racecheck(&["--max", "3", trace.name()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let out = stdout(&output);
    assert_eq!(out.matches(" write-write: ").count(), 3, "{out}");
    assert!(
        out.contains("  99997 more hazards not listed (--max 3)\n"),
        "{out}"
    );
    assert!(
        out.ends_with("100000 errors, 0 warnings over 1 kernel\n"),
        "{out}"
    );
}

/// Issue 21's check that nothing is skipped silently: every shared-memory
/// instruction `smem trace` counts (requests, those with no lane active, and
/// those not modelled) is one `smem racecheck` checked or counts as not
/// checked, on every trace of `tests/data` and on one with every unmodelled
/// kind (cp.async's LDGSTS, TMA, wgmma operands, mbarriers).
#[test]
fn every_shared_instruction_is_checked_or_counted() {
    let unmodelled = TempFile::from_lines(
        "unmodelled.traceg",
        &[
            "-kernel name = k",
            "-binary version = 90",
            "-shmem base_addr = 0x7f0000000000",
            "#BEGIN_TB",
            "thread block = 0,0,0",
            "warp = 0",
            "0010 ffffffff 0 LDGSTS.E.BYPASS.LTC128B.128 2 R4 R12 16 1 0x7a0000000000 16",
            "0020 ffffffff 0 UTMALDG.2D 2 R4 R12 0",
            "0030 ffffffff 0 HGMMA.64x64x16.F32 2 R4 R12 0",
            "0040 ffffffff 0 SYNCS.ARRIVE.TRANS64 2 R4 R12 0",
            "0050 00000000 0 STS 2 R1 R2 4 1 0x7f0000000400 4",
            "0060 ffffffff 0 STS.128 2 R1 R2 16 1 0x7f0000000400 16",
            "#END_TB",
        ],
    );
    let mut files: Vec<String> = ["tests/data/racecheck", "tests/data/traces"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "traceg"))
        .map(|path| path.display().to_string())
        .collect();
    files.push("tests/data/traces/kernels/kernelslist.g".to_owned());
    files.push(unmodelled.name().to_owned());
    files.sort();
    let mut instructions = 0;
    for file in &files {
        let traced = support::smem("trace", &["--json", "--no-progress", file]);
        let traced: Value = serde_json::from_slice(&traced.stdout).unwrap();
        let not_modelled: u64 = traced["not_modelled"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        let counted = traced["requests"].as_u64().unwrap()
            + traced["predicated_off"].as_u64().unwrap()
            + not_modelled;
        let checked = racecheck(&["--json", file]);
        let checked: Value = serde_json::from_slice(&checked.stdout).unwrap();
        let requests: u64 = checked["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["requests"].as_u64().unwrap())
            .sum();
        let not_checked = checked["summary"]["not_checked"].as_u64().unwrap();
        assert_eq!(requests + not_checked, counted, "{file}");
        instructions += counted;
        if file == unmodelled.name() {
            assert_eq!((requests, not_checked), (2, 4));
        }
    }
    assert!(
        files.len() >= 25 && instructions > 1_500,
        "{instructions}: {files:?}"
    );
}

/// `smem racecheck ARGS`'s peak resident memory in kilobytes (read from /proc
/// while it runs), and its exit status.
#[cfg(target_os = "linux")]
fn peak_kb(args: &[&str]) -> (u64, Option<i32>) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_smem"))
        .arg("racecheck")
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let started = std::time::Instant::now();
    let code = loop {
        if let Some(code) = child.try_wait().unwrap() {
            break code.code();
        }
        assert!(started.elapsed().as_secs() < 120, "racecheck did not end");
        if let Some(kb) = std::fs::read_to_string(&status).ok().and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        }) {
            peak = peak.max(kb);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    (peak, code)
}

/// Issue 21's block that took 1.46 GB and 48 s: 32 warps each read all
/// 228 KB of shared memory, 16 bytes a lane, from 8 instructions (as a
/// trace, end to end). No hazard (reads only), in bounded memory.
#[cfg(target_os = "linux")]
#[test]
fn thirty_two_warps_reading_all_shared_memory_is_checked_in_bounded_memory() {
    let mut lines = vec![
        "-kernel name = readall".to_owned(),
        "-binary version = 90".to_owned(),
        "-block dim = (1024,1,1)".to_owned(),
        "#BEGIN_TB".to_owned(),
        "thread block = 0,0,0".to_owned(),
    ];
    for warp in 0..32 {
        lines.push(format!("warp = {warp}"));
        for i in 0..228 * 1024 / 512 {
            let pc = 0x100 + 16 * (i % 8);
            lines.push(format!(
                "{pc:04x} ffffffff 1 R4 LDS.128 1 R2 16 1 {:#x} 16",
                512 * i
            ));
        }
    }
    lines.push("#END_TB".to_owned());
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let trace = TempFile::from_lines("readall.traceg", &lines);
    let output = racecheck(&["--json", trace.name()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["kernels"][0]["requests"], 32 * 456);
    assert_eq!(report["summary"]["errors"], 0);
    let (peak, code) = peak_kb(&["--json", trace.name()]);
    assert_eq!(code, Some(0));
    assert!(peak > 0 && peak < 200_000, "{peak} kB");
}

/// Issue 21's inputs that took memory without bound (5 M `warp = N` lines in
/// one block, 289 MB; 2 M raw lines of new block ids with instructions that
/// are not shared, 1.68 GB), a million lines each: racecheck's peak memory
/// stays that of reading, whatever the number of lines.
#[cfg(target_os = "linux")]
#[test]
fn lines_that_hold_nothing_take_no_memory() {
    use std::io::Write as _;
    let write = |tag: &str, head: &str, line: &dyn Fn(usize) -> String, tail: &str| {
        let path = TempFile::path_for(tag);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        out.write_all(head.as_bytes()).unwrap();
        for i in 0..1_000_000 {
            out.write_all(line(i).as_bytes()).unwrap();
        }
        out.write_all(tail.as_bytes()).unwrap();
        out.flush().unwrap();
        TempFile { path }
    };
    let warps = write(
        "warps.traceg",
        "-kernel name = k\n#BEGIN_TB\nthread block = 0,0,0\n",
        &|i| format!("warp = {}\n", i % 32),
        "#END_TB\n",
    );
    let blocks = write(
        "blocks.traceg",
        "-kernel name = k\n",
        &|i| format!("{i} 0 0 0 0010 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0\n"),
        "",
    );
    for file in [&warps, &blocks] {
        let (peak, _) = peak_kb(&["--json", file.name()]);
        assert!(peak > 0 && peak < 48_000, "{}: {peak} kB", file.name());
    }
}
