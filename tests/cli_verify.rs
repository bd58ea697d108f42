//! `smem verify` end to end: the built binary on the hardware corpus and on small
//! corpora written for each failure mode, checking the report, the error
//! messages and the exit status, which are what scripts and CI rely on.
#![cfg(feature = "cli")]

use std::fs;
use std::path::Path;
use std::process::Output;

mod support;
use support::{stderr, stdout, TempFile};

/// Runs `smem ARGS` from the crate root (the first argument is the subcommand).
fn smem(args: &[&str]) -> Output {
    support::smem(args[0], &args[1..])
}

/// The hardware corpus shipped with the crate (see its README).
const HW_CORPUS: &str = "tests/data/hw-corpus";

/// The last line of stdout, where `exact: N/M` must be.
fn last_line(output: &Output) -> String {
    stdout(output).lines().last().unwrap_or_default().to_owned()
}

/// A record of an `sm_90` load whose 32 lanes access `width` bytes at
/// `offset(lane)`, with the given measurement.
fn record(width: u32, offset: impl Fn(i64) -> i64, wavefronts: u32, conflicts: u32) -> String {
    let offsets: Vec<String> = (0..32).map(|lane| offset(lane).to_string()).collect();
    format!(
        r#"{{"arch":"sm_90","op":"ld","width":{width},"offsets":[{}],"wavefronts":{wavefronts},"ncu_bank_conflicts":{conflicts}}}"#,
        offsets.join(",")
    )
}

/// `float s[]; ... = s[lane];` as measured on `sm_90`: one wavefront.
fn good_line() -> String {
    record(4, |lane| 4 * lane, 1, 0)
}

/// The acceptance check of the issues: all 4,026 measured patterns of every
/// kind, exit 0.
#[test]
fn whole_hardware_corpus_is_exact() {
    let files = [
        "sm90-calib.jsonl",
        "sm90-merge.jsonl",
        "sm90-structured.jsonl",
        "sm90-atomics.jsonl",
        "sm90-cp-async.jsonl",
        "sm90-store-winners.jsonl",
        "sm90-timing.jsonl",
        "sm90-ldsm-trans.jsonl",
    ]
    .map(|name| format!("{HW_CORPUS}/{name}"));
    let mut args = vec!["verify"];
    args.extend(files.iter().map(String::as_str));
    let output = smem(&args);
    assert_eq!(
        last_line(&output),
        "exact: 4025/4025",
        "{}",
        stdout(&output)
    );
    assert_eq!(stderr(&output), "");
    assert!(output.status.success());
    let out = stdout(&output);
    assert!(!out.contains("mismatches"), "{out}");
    // One table row per (kind, op, width), e.g. the 51 atomics of the first
    // three files and the 63 64-bit CAS of the atomics file.
    for row in [
        &["access", "atom.add", "4", "51", "51"][..],
        &["atomics", "atom.cas", "8", "63", "63"],
        &["cp.async", "cp.async.cg", "16", "34", "34"],
        &["timing", "ld", "latency", "16", "7", "7"],
        &["access", "ldsm.trans", "4", "23", "23"],
        &["access", "stsm.trans", "1", "20", "20"],
    ] {
        assert!(
            out.lines()
                .any(|line| line.split_whitespace().eq(row.iter().copied())),
            "{row:?} in {out}"
        );
    }
    for kind in [
        "access: 3034/3034 exact",
        "atomics: 708/708 exact",
        "cp.async: 136/136 exact",
        "winners: 85/85 exact",
        "timing: 62/62 exact",
        "  (timing figures claimed, within 2%: latency at every warp count; throughput from 12 warps, but not merged 8-byte loads)",
    ] {
        assert!(out.lines().any(|line| line == kind), "{kind} in {out}");
    }
}

/// A line past the limit is an error naming the file, the line and the
/// limit, at once: `/dev/zero` (one endless line) ends in an error, not out
/// of memory.
#[test]
fn an_endless_line_is_an_error_not_an_allocation() {
    let output = smem(&["verify", "/dev/zero"]);
    assert_eq!(
        stderr(&output),
        "error: /dev/zero:1: line longer than the 1048576-byte limit of a line\n"
    );
    assert_eq!(last_line(&output), "exact: 0/0");
    assert_eq!(output.status.code(), Some(1));
    // A line just under the limit is read (and is bad JSON, reported as such).
    let long = "x".repeat(smem_model::corpus::MAX_LINE_BYTES);
    let corpus = TempFile::from_lines("long", &[&long, &good_line()]);
    let output = smem(&["verify", corpus.name()]);
    assert!(stderr(&output).starts_with(&format!("error: {}:1: expected value", corpus.name())));
    assert_eq!(last_line(&output), "exact: 1/1");
}

/// A record kind the reader does not know is an error naming the field.
#[test]
fn unknown_record_kinds_name_the_field() {
    let measure = good_line().replace(r#""op":"ld","#, r#""op":"ld","measure":"bandwidth","#);
    let op = good_line().replace(r#""op":"ld""#, r#""op":"tma""#);
    let cache = good_line().replace(r#""op":"ld""#, r#""op":"cp.async","cache":"cs""#);
    let atom = good_line().replace(r#""op":"ld""#, r#""op":"atom","atom":"fmax""#);
    let corpus = TempFile::from_lines("kinds", &[&measure, &op, &cache, &atom]);
    let output = smem(&["verify", corpus.name()]);
    let name = corpus.name();
    assert_eq!(
        stderr(&output),
        format!(
            "error: {name}:1: field `measure`: unknown measure \"bandwidth\": expected latency or throughput\n\
             error: {name}:2: field `op`: unknown op \"tma\": expected ld, st, atom, ldsm, ldsm.trans, stsm, stsm.trans or cp.async\n\
             error: {name}:3: field `cache`: unknown cache \"cs\": expected ca or cg\n\
             error: {name}:4: field `atom`: unknown atomic operation \"fmax\": expected add, add.f32, add.f64, exch, cas, min, max, inc, dec, and, or or xor\n"
        )
    );
    assert_eq!(output.status.code(), Some(1));
}

/// Each file on its own, so that a regression names the file it is in.
#[test]
fn each_hardware_corpus_file_is_exact() {
    for (name, total) in [
        ("sm90-calib.jsonl", 805),
        ("sm90-merge.jsonl", 312),
        ("sm90-structured.jsonl", 1798),
        ("sm90-atomics.jsonl", 708),
        ("sm90-cp-async.jsonl", 136),
        ("sm90-store-winners.jsonl", 85),
        ("sm90-timing.jsonl", 62),
        ("sm90-throughput-streams.jsonl", 369),
        ("sm90-ldsm-trans.jsonl", 119),
    ] {
        let output = smem(&["verify", &format!("{HW_CORPUS}/{name}")]);
        assert_eq!(
            last_line(&output),
            format!("exact: {total}/{total}"),
            "{name}"
        );
        assert!(output.status.success(), "{name}");
    }
}

/// A parse error and an error found while predicting both name `FILE:LINE`, and
/// neither stops the good lines from being checked.
#[test]
fn bad_lines_are_located_and_reading_goes_on() {
    // Line 2 is cut short; line 3 has lane 3 at offset 14, not a multiple of 4.
    let truncated = &good_line()[..good_line().len() - 40];
    let misaligned = record(4, |lane| if lane == 3 { 14 } else { 4 * lane }, 1, 0);
    let corpus = TempFile::from_lines("bad-lines", &[&good_line(), truncated, &misaligned]);
    let output = smem(&["verify", corpus.name()]);
    let name = corpus.name();
    assert_eq!(
        stderr(&output),
        format!(
            "error: {name}:2: EOF while parsing a list at column {}\n\
             error: {name}:3: misaligned address: lane 3 accesses 4 bytes at offset 14 \
             (shared address 0x40e), \
             which is not a multiple of 4\n",
            truncated.len()
        )
    );
    let out = stdout(&output);
    assert!(
        out.ends_with("\nnot checked: 2 lines (errors on stderr; not counted below)\nexact: 1/1\n"),
        "{out}"
    );
    assert_eq!(output.status.code(), Some(1));
}

/// Bytes that are not UTF-8 spoil their own line only.
#[test]
fn invalid_utf8_is_one_bad_line() {
    let path =
        std::env::temp_dir().join(format!("smem-cli-verify-{}-utf8.jsonl", std::process::id()));
    let corpus = TempFile { path };
    let mut bytes = good_line().into_bytes();
    bytes.extend_from_slice(b"\n\xff\xfe\n");
    bytes.extend_from_slice(good_line().as_bytes());
    fs::write(&corpus.path, bytes).unwrap();
    let output = smem(&["verify", corpus.name()]);
    assert_eq!(
        stderr(&output),
        format!(
            "error: {}:2: cannot read: stream did not contain valid UTF-8\n",
            corpus.name()
        )
    );
    assert_eq!(last_line(&output), "exact: 2/2");
    assert_eq!(output.status.code(), Some(1));
}

/// A record the model disagrees with is printed with everything needed to
/// investigate it, and fails the run.
#[test]
fn wrong_measurement_is_shown_in_full() {
    // s[2 * lane] is 2-way on sm_90; the line claims 1 wavefront.
    let wrong = record(4, |lane| 8 * lane, 1, 0);
    let corpus = TempFile::from_lines("wrong", &[&good_line(), &wrong]);
    let output = smem(&["verify", corpus.name()]);
    let offsets: Vec<String> = (0..32).map(|lane| (8 * lane).to_string()).collect();
    let expected = format!(
        "\nmismatches: 1\n\
         {}:2: ld width 4, arch sm_90\n  \
         offsets: [{}]\n  \
         wavefronts: predicted 2, measured 1 (differs)\n  \
         bank conflicts: predicted 1, measured 0 (differs)\n\
         exact: 1/2\n",
        corpus.name(),
        offsets.join(", ")
    );
    let out = stdout(&output);
    assert!(out.ends_with(&expected), "{out}");
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(1));
}

/// A record without measured wavefronts cannot be exact, and says why.
#[test]
fn missing_measurement_is_not_exact() {
    let unmeasured = good_line().replace(r#""wavefronts":1,"#, "");
    let corpus = TempFile::from_lines("unmeasured", &[&unmeasured]);
    let output = smem(&["verify", corpus.name()]);
    let out = stdout(&output);
    assert!(
        out.contains("  wavefronts: predicted 1, measured none\n"),
        "{out}"
    );
    assert_eq!(last_line(&output), "exact: 0/1");
    assert_eq!(output.status.code(), Some(1));
}

/// `--arch` predicts for the capability given, not the record's `arch`.
#[test]
fn arch_option_overrides_the_records_arch() {
    // double s[lane]: two wavefronts on sm_90 (two half-warp phases), one on
    // sm_35 in four-byte mode (words i and i + 32 share a 64-bit bank row).
    let doubles = record(8, |lane| 8 * lane, 2, 0);
    let corpus = TempFile::from_lines("arch", &[&doubles]);

    let own = smem(&["verify", corpus.name()]);
    assert!(stdout(&own).starts_with("predicted for: each record's own arch\n"));
    assert_eq!(last_line(&own), "exact: 1/1");
    assert!(own.status.success());

    // The same capability spelt another way changes nothing.
    let same = smem(&["verify", "--arch", "9.0", corpus.name()]);
    assert_eq!(last_line(&same), "exact: 1/1");
    assert!(same.status.success());

    let kepler = smem(&["verify", "--arch", "sm_35", corpus.name()]);
    let out = stdout(&kepler);
    assert!(
        out.starts_with("predicted for: compute capability 3.5 (--arch)\n"),
        "{out}"
    );
    assert!(
        out.contains("  wavefronts: predicted 1, measured 2 (differs)\n"),
        "{out}"
    );
    assert_eq!(last_line(&kepler), "exact: 0/1");
    assert_eq!(kepler.status.code(), Some(1));
}

/// Under `--arch`, records the capability cannot execute are errors, located.
#[test]
fn arch_option_reports_ops_the_capability_lacks() {
    // ldmatrix needs 7.5: on Kepler every ldsm record is an error, not a guess.
    let output = smem(&[
        "verify",
        "--arch",
        "sm_35",
        &format!("{HW_CORPUS}/sm90-structured.jsonl"),
    ]);
    let err = stderr(&output);
    assert!(
        err.lines()
            .all(|line| line.starts_with(&format!("error: {HW_CORPUS}/sm90-structured.jsonl:"))),
        "{err}"
    );
    assert!(err.contains("LDSM.x1 does not exist on compute capability 3.5: it needs 7.5 or later"));
    assert!(err.contains("STSM.x4 does not exist on compute capability 3.5: it needs 9.0 or later"));
    // 54 ldsm and 54 stsm records in this file.
    let out = stdout(&output);
    assert!(out.contains("\nnot checked: 108 lines "), "{out}");
    // Kepler serves many of the other patterns differently: only the first few
    // mismatches are shown in full.
    assert!(out.contains(" (first 5 shown)\n"), "{out}");
    assert_eq!(out.matches("\n  offsets: [").count(), 5, "{out}");
    assert_eq!(output.status.code(), Some(1));
}

/// A capability that does not exist is refused before any file is read, with
/// the library's message.
#[test]
fn unknown_arch_is_a_usage_error() {
    let output = smem(&[
        "verify",
        "--arch",
        "sm_40",
        &format!("{HW_CORPUS}/sm90-merge.jsonl"),
    ]);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(
        err.contains(
            r#"unknown compute capability "sm_40": expected a version ("8.6", "sm_86", "sm86", "86", "compute_86", "sm_90a"), a GPU ("A100", "H100", "RTX 4090", ...) or an architecture ("ampere", "hopper", ...); the versions are 1.0, 1.1,"#
        ),
        "{err}"
    );
    assert_eq!(stdout(&output), "");
}

/// Missing files and directories are named, fail the run, and do not stop the
/// other files from being checked.
#[test]
fn unreadable_files_are_named_and_the_rest_still_checked() {
    let missing = Path::new("tests/data/hw-corpus/no-such-file.jsonl");
    let output = smem(&[
        "verify",
        missing.to_str().unwrap(),
        HW_CORPUS,
        &format!("{HW_CORPUS}/sm90-merge.jsonl"),
    ]);
    let err = stderr(&output);
    assert!(
        err.starts_with(
            "error: cannot read tests/data/hw-corpus/no-such-file.jsonl: No such file or directory"
        ),
        "{err}"
    );
    assert!(
        err.contains("error: cannot read tests/data/hw-corpus: is a directory\n"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let out = stdout(&output);
    assert!(
        out.contains("\nnot read: 2 files (errors on stderr)\n"),
        "{out}"
    );
    assert_eq!(last_line(&output), "exact: 312/312");
    assert_eq!(output.status.code(), Some(1));
}

/// `verify` without files is a usage error (status 2), not an empty success.
#[test]
fn files_are_required() {
    let output = smem(&["verify"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("<FILE>..."));
}

/// Issue 17: an empty corpus checks nothing, which is a failure, not a pass.
#[test]
fn an_empty_corpus_fails() {
    let empty = support::TempFile::new("verify-empty", b"");
    let output = support::smem("verify", &[empty.name()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: no records: the file held nothing to check\n"
    );
    assert!(stdout(&output).ends_with("exact: 0/0\n"));
    let report = {
        let output = support::smem("verify", &["--json", empty.name()]);
        assert_eq!(output.status.code(), Some(1));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    assert_eq!(report["passed"], false);
    assert_eq!(report["total"], 0);
}

/// Issue 17: a trace given to verify is one clear error, not a flood of serde's.
#[test]
fn a_trace_file_is_one_clear_error() {
    let output = support::smem("verify", &["tests/data/traces/kernels/kernel-2.traceg"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "error: tests/data/traces/kernels/kernel-2.traceg is not a corpus (JSON lines): its \
             first line is not a JSON object but a trace's (`"
        ),
        "{err}"
    );
    assert!(err.ends_with("`); `smem trace FILE` reads Accel-Sim and NVBit traces\n"));
}

#[test]
fn json_report_has_a_schema() {
    let report = support::json("verify", &[&format!("{HW_CORPUS}/sm90-merge.jsonl")]);
    assert_eq!(report["schema"], "smem-verify/1");
    assert_eq!(report["arch"], serde_json::Value::Null);
    assert_eq!(report["passed"], true);
    assert_eq!(report["exact"], report["total"]);
    assert!(report["total"].as_u64().unwrap() > 0);
    assert!(report["rows"][0]["op"].is_string());
}

/// Measurements that cannot be are input errors naming the field, the lane or
/// key and the value: a winner that is no lane, zero runs, cycles that are not
/// a positive number.
#[test]
fn impossible_measurements_are_input_errors() {
    let zeros = vec!["0"; 32].join(",");
    let winners = |winners: &str, runs: u32| {
        format!(
            r#"{{"arch":"sm_90","op":"st","width":1,"offsets":[{zeros}],"winners":[{winners}],"runs":{runs}}}"#
        )
    };
    let mut lane_32 = vec!["0"; 32];
    lane_32[5] = "32";
    let mut minus_2 = vec!["0"; 32];
    minus_2[0] = "-2";
    let offsets: Vec<String> = (0..32).map(|lane| (4 * lane).to_string()).collect();
    let timing = |cycles: &str| {
        format!(
            r#"{{"arch":"sm_90","op":"ld","width":4,"offsets":[{}],"measure":"latency","cycles_per_instruction":{{{cycles}}}}}"#,
            offsets.join(",")
        )
    };
    let lines = [
        winners(&lane_32.join(","), 8),
        winners(&minus_2.join(","), 8),
        winners(&zeros, 0),
        timing(r#""warps_1":-24.0"#),
        timing(r#""warps_4":0.0"#),
        winners(&zeros, 8),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let corpus = TempFile::from_lines("impossible", &lines);
    let output = smem(&["verify", corpus.name()]);
    let name = corpus.name();
    assert_eq!(
        stderr(&output),
        format!(
            "error: {name}:1: field `winners`: lane 5's winner is 32, not a lane (0 to 31) or -1 (inactive)\n\
             error: {name}:2: field `winners`: lane 0's winner is -2, not a lane (0 to 31) or -1 (inactive)\n\
             error: {name}:3: field `runs`: 0 runs measured nothing; expected 1 or more\n\
             error: {name}:4: field `cycles_per_instruction`: `warps_1` is -24 cycles; a measurement is a positive number\n\
             error: {name}:5: field `cycles_per_instruction`: `warps_4` is 0 cycles; a measurement is a positive number\n"
        )
    );
    // The good line is still checked; the bad ones make the run fail.
    assert_eq!(last_line(&output), "exact: 1/1");
    assert_eq!(output.status.code(), Some(1));
}

/// A timing record measured only where the model claims nothing (throughput
/// of 4 warps) has nothing compared: it is not counted as exact, nor as a
/// mismatch, and the report says so.
#[test]
fn a_record_with_nothing_compared_is_not_exact() {
    let offsets: Vec<String> = (0..32).map(|lane| (4 * lane).to_string()).collect();
    let line = format!(
        r#"{{"arch":"sm_90","op":"ld","width":4,"offsets":[{}],"measure":"throughput","wavefronts":1,"cycles_per_instruction":{{"warps_4":1.13}}}}"#,
        offsets.join(",")
    );
    let corpus = TempFile::from_lines("uncompared", &[&line, &good_line()]);
    let output = smem(&["verify", corpus.name()]);
    let out = stdout(&output);
    assert!(
        out.contains("not compared: 1 record (no figure the model claims; not counted below)\n"),
        "{out}"
    );
    assert!(!out.contains("timing:"), "{out}");
    assert!(!out.contains("mismatches"), "{out}");
    assert_eq!(last_line(&output), "exact: 1/1");
    assert_eq!(stderr(&output), "");
    assert!(output.status.success());
}
