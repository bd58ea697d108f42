//! `smem report` end to end: the tour runs with no arguments (the README's
//! first command), its tables hold the model's figures, each section fits on a
//! screen, and it runs on every compute capability without failing.
#![cfg(feature = "cli")]

use std::process::Output;

mod support;
use support::{has_row, stdout};

/// Runs `smem report ARGS`.
fn report(args: &[&str]) -> Output {
    support::smem("report", args)
}

/// The sections, split at their numbered headings.
fn sections(text: &str) -> Vec<String> {
    let mut sections: Vec<String> = vec![String::new()];
    for line in text.lines() {
        let numbered = line
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if numbered {
            sections.push(String::new());
        }
        let last = sections.last_mut().unwrap();
        last.push_str(line);
        last.push('\n');
    }
    sections
}

#[test]
fn runs_without_arguments_on_sm_90() {
    let output = report(&[]);
    assert!(output.status.success());
    assert!(output.stderr.is_empty());
    let out = stdout(&output);
    assert!(out.starts_with(
        "smem report: the shared-memory model on compute capability 9.0 (sm_90, Hopper)\n"
    ));
    let titles: Vec<&str> = out
        .lines()
        .filter(|l| l.len() > 3 && l.as_bytes()[0].is_ascii_digit() && &l[1..3] == ". ")
        .collect();
    assert_eq!(
        titles,
        [
            "1. Parallel, serial and broadcast access (sm_90)",
            "2. Strided access, s[stride * lane] (sm_90)",
            "3. Transposing through a 32x32 tile (sm_90)",
            "4. Kepler's bank modes: four bytes vs eight bytes (sm_35)",
            "5. Carving int, float and char arrays from extern __shared__ (sm_90)",
            "6. Blocks per SM by shared memory (sm_90)",
        ]
    );
    // Plain text when not on a terminal.
    assert!(!out.contains('\u{1b}'));
}

#[test]
fn each_section_fits_on_a_screen() {
    let out = stdout(&report(&[]));
    for section in sections(&out) {
        let lines = section.lines().count();
        assert!(lines <= 45, "{lines} lines:\n{section}");
        assert!(
            section.lines().all(|l| l.chars().count() <= 120),
            "a line too wide:\n{section}"
        );
    }
}

#[test]
fn parallel_serial_and_broadcast() {
    let out = stdout(&report(&["--section", "access"]));
    assert!(has_row(
        &out,
        &["v", "=", "s[lane]", "each", "lane", "its", "own", "bank", "1", "1", "0", "parallel"]
    ));
    assert!(has_row(
        &out,
        &[
            "v",
            "=",
            "s[0]",
            "one",
            "word",
            "for",
            "the",
            "whole",
            "warp",
            "1",
            "1",
            "0",
            "broadcast"
        ]
    ));
    assert!(has_row(
        &out,
        &[
            "v",
            "=",
            "tile[lane][0]",
            "column",
            "of",
            "float[32][32]",
            "32",
            "1",
            "31",
            "serial",
            "(32-way)"
        ]
    ));
    assert!(has_row(
        &out,
        &[
            "atomicAdd(&s[0],",
            "1)",
            "one",
            "counter",
            "for",
            "the",
            "warp",
            "32",
            "1",
            "31",
            "serial",
            "(32-way)"
        ]
    ));
    // The small diagram of s[2 * lane].
    assert!(out.contains("   2  16  . 17  . 18"), "{out}");
}

#[test]
fn the_stride_table() {
    let out = stdout(&report(&["--section", "strides"]));
    // stride, float wavefronts and conflicts, double wavefronts and conflicts.
    for row in [
        ["1", "1", "0", "2", "0"],
        ["2", "2", "1", "4", "2"],
        ["3", "1", "0", "2", "0"],
        ["16", "16", "15", "32", "30"],
        ["32", "32", "31", "32", "30"],
        ["33", "1", "0", "2", "0"],
    ] {
        assert!(has_row(&out, &row), "{row:?} in\n{out}");
    }
    let rows = out
        .lines()
        .filter(|l| l.split_whitespace().count() == 5 && l.trim().as_bytes()[0].is_ascii_digit())
        .count();
    assert_eq!(rows, 33);
    assert!(out.contains("floats: wavefronts = gcd(stride, 32) for every stride above"));
}

#[test]
fn the_transpose_tile() {
    let out = stdout(&report(&["--section", "transpose"]));
    assert!(
        has_row(&out, &["float", "tile[32][32]", "1", "32", "31", "4096"]),
        "{out}"
    );
    assert!(has_row(
        &out,
        &["float", "tile[32][33]", "(padded)", "1", "1", "0", "4224"]
    ));
    assert!(has_row(
        &out,
        &[
            "float",
            "tile[32][32],",
            "column",
            "^",
            "row",
            "1",
            "1",
            "0",
            "4096"
        ]
    ));
}

#[test]
fn keplers_modes_and_the_stride_3_counterexample() {
    // On sm_35 whatever --arch says.
    let out = stdout(&report(&["--arch", "sm_86", "--section", "kepler"]));
    assert!(out.starts_with("4. Kepler's bank modes: four bytes vs eight bytes (sm_35)\n"));
    assert!(has_row(
        &out,
        &["float", "s[3", "*", "lane]", "1", "2", "8-byte", "mode", "is", "worse"]
    ));
    assert!(has_row(
        &out,
        &["double", "s[3", "*", "lane]", "2", "1", "8-byte", "mode", "is", "better"]
    ));
    assert!(has_row(&out, &["double", "s[lane]", "1", "1"]));
    assert!(out.contains("lanes 1 and 22 read 64-bit words 1 and 33, both in bank 1"));
}

#[test]
fn the_carve_and_its_launch_size() {
    let out = stdout(&report(&["--section", "carve"]));
    assert!(
        has_row(&out, &["integerData", "int", "0", "16", "0x400"]),
        "{out}"
    );
    assert!(has_row(&out, &["floatData", "float", "16", "12", "0x410"]));
    assert!(has_row(
        &out,
        &["charData", "unsigned", "char", "28", "5", "0x41c"]
    ));
    assert!(
        out.contains("launch with kernel<<<grid, block, 33>>>: 33 bytes of dynamic shared memory")
    );
    assert!(
        out.contains("error: misaligned carve: float array `floatData` would start at offset 5")
    );
}

#[test]
fn blocks_per_sm() {
    let out = stdout(&report(&["--section", "occupancy"]));
    assert!(
        has_row(
            &out,
            &["16384", "17408", "13", "228", "KB", "shared", "memory"]
        ),
        "{out}"
    );
    assert!(has_row(
        &out,
        &["0", "1024", "32", "228", "KB", "32", "blocks", "per", "SM", "at", "most"]
    ));
    assert!(has_row(
        &out,
        &["102400", "yes", "103424", "2", "228", "KB", "shared", "memory"]
    ));
    // Nothing past the opt-in maximum of 227 KB.
    assert!(has_row(
        &out,
        &["232448", "yes", "233472", "1", "228", "KB", "shared", "memory"]
    ));
    let on_turing = stdout(&report(&["--arch", "sm_75", "--section", "occupancy"]));
    assert!(!on_turing.contains("\n         100"), "{on_turing}");
}

#[test]
fn every_capability_gets_a_report() {
    for arch in [
        "1.0", "1.1", "1.2", "1.3", "2.0", "2.1", "3.0", "3.2", "3.5", "3.7", "5.0", "5.2", "5.3",
        "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0",
        "10.3", "11.0", "12.0", "12.1",
    ] {
        let output = report(&["--arch", arch]);
        assert!(output.status.success(), "{arch}");
        let out = stdout(&output);
        assert!(out.contains("6. Blocks per SM"), "{arch}");
    }
    // What a capability cannot do is said, not guessed: 1.0 has no shared atomics.
    let out = stdout(&report(&["--arch", "1.0", "--section", "access"]));
    assert!(out.contains(
        "n/a: ATOMS.ADD does not exist on compute capability 1.0: it needs 1.2 or later"
    ));
}

#[test]
fn unknown_arch_or_section() {
    let output = report(&["--arch", "sm_40"]);
    assert_eq!(output.status.code(), Some(2));
    let output = report(&["--section", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("possible values: access, strides"));
}

/// Issue 17: on 1.x the doubles line under the stride table said "no conflict"
/// beside a row with 4; every sentence is now computed from the model.
#[test]
fn the_text_agrees_with_the_table_on_1x_and_kepler() {
    let out = stdout(&report(&["--arch", "1.3", "--section", "strides"]));
    assert!(has_row(&out, &["1", "2", "0", "8", "4"]), "{out}");
    assert!(
        out.contains("doubles: stride 1 takes 8 wavefronts (ideal 4, 4 bank conflicts);"),
        "{out}"
    );
    assert!(!out.contains("with no conflict"));
    let out = stdout(&report(&["--arch", "sm_90", "--section", "strides"]));
    assert!(out.contains("doubles: stride 1 takes 2 wavefronts (ideal 2, no bank conflict);"));
    // Kepler's four-byte mode: a [32][32] column is 16 wavefronts, and the text says so.
    let out = stdout(&report(&["--arch", "sm_35", "--section", "transpose"]));
    assert!(
        has_row(&out, &["float", "tile[32][32]", "1", "16", "15", "4096"]),
        "{out}"
    );
    assert!(
        out.contains("in bank 3 for every lane: 16 wavefronts."),
        "{out}"
    );
    assert!(!out.contains("32-way"));
    // The intro and the footnote describe the capability's own rules.
    let out = stdout(&report(&["--arch", "1.3"]));
    assert!(
        out.contains("A half-warp's access is served in wavefronts"),
        "{out}"
    );
    assert!(out.contains("one such word per wavefront"), "{out}");
    let out = stdout(&report(&["--arch", "3.5"]));
    assert!(
        out.contains("each at most one 64-bit row per bank"),
        "{out}"
    );
    assert!(out.contains("different 64-bit rows of one bank"), "{out}");
}

#[test]
fn json_has_a_schema_and_the_tables() {
    let report = support::json("report", &["--arch", "1.3"]);
    assert_eq!(report["schema"], "smem-report/1");
    assert_eq!(report["arch"], "sm_13");
    assert_eq!(report["banks"], 16);
    let sections = report["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 6);
    let strides = &sections[1];
    assert_eq!(strides["name"], "strides");
    let row = &strides["tables"][0][0];
    assert_eq!(row["stride"], 1);
    assert_eq!(row["double: wavefronts"], 8);
    assert_eq!(row["conflicts 2"], 4);
    assert!(strides["text"]
        .as_str()
        .unwrap()
        .contains("4 bank conflicts"));
    let only = support::json("report", &["--section", "kepler"]);
    assert_eq!(only["sections"].as_array().unwrap().len(), 1);
}

#[test]
fn occupancy_and_trace_json_have_a_schema() {
    let report = support::json("occupancy", &["--arch", "sm_86", "--dynamic", "4096"]);
    assert_eq!(report["schema"], "smem-occupancy/1");
    let report = support::json("trace", &["tests/data/traces/labelled.jsonl"]);
    assert_eq!(report["schema"], "smem-trace/1");
}
