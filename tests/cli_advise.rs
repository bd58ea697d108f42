//! `smem advise`: the tile advisor from the command line, as text and JSON,
//! and its usage errors.
#![cfg(feature = "cli")]

mod support;
use support::{stderr, stdout};

#[test]
fn a_column_of_a_32x32_float_tile() {
    let output = support::smem("advise", &["--tile", "32x32", "column"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.starts_with(
            "1 accesses on 32x32 of 4-byte elements, pitch 32 (compute capability 9.0)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("\n  1. Swizzle<5,0,5>: 1 wavefronts (ideal 1), 0 extra bytes\n"),
        "{out}"
    );
    assert!(out.contains(
        "  access 0 (LDS): lanes 0-31 meet in bank 0 (32 distinct words, 32 wavefronts)\n"
    ));
    assert!(
        out.ends_with(
            "as given: as given (32 wavefronts, ideal 1, 0 extra bytes)\n\
         best: Swizzle<5,0,5> (1 wavefronts, ideal 1, 0 extra bytes)\n"
        ),
        "{out}"
    );
}

#[test]
fn ldmatrix_of_a_half_tile_in_json() {
    let report = support::json(
        "advise",
        &["--tile", "64x64", "--element", "half", "ldmatrix"],
    );
    assert_eq!(report["schema"], "smem-advise/1");
    assert_eq!(report["element_bytes"], 2);
    // As given: each matrix's 8 rows are 128 bytes apart, all in 4 banks: 8-way.
    assert_eq!(report["original"]["wavefronts"], 16 * 4 * 8);
    assert_eq!(report["best"]["fix"], "TMA 128B swizzle");
    assert_eq!(report["best"]["wavefronts"], 16 * 4);
    assert_eq!(report["best"]["conflict_free"], true);
    let conflicts = report["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 16);
    assert_eq!(conflicts[0]["op"], "LDSM.x4");
    assert_eq!(conflicts[0]["ways"], 8);
}

#[test]
fn the_arch_changes_the_advice() {
    // Kepler in its default four-byte mode: doubles down a column of [32][32].
    let report = support::json(
        "advise",
        &[
            "--tile",
            "32x32",
            "--element",
            "double",
            "--arch",
            "sm_35",
            "column",
        ],
    );
    assert_eq!(report["arch"], "sm_35");
    assert_eq!(report["original"]["wavefronts"], 32);
    // One warp-wide phase for 8 bytes on 3.x: the best swizzle still takes 2.
    assert_eq!(report["best"]["fix"], "Swizzle<4,0,5>");
    assert_eq!(
        (
            report["best"]["wavefronts"].clone(),
            report["best"]["ideal_wavefronts"].clone()
        ),
        (2.into(), 1.into())
    );
    // On sm_90 8-byte accesses are served in half-warps: ideal 2, and reached.
    let report = support::json(
        "advise",
        &["--tile", "32x32", "--element", "double", "column"],
    );
    assert_eq!(report["best"]["wavefronts"], 2);
    assert_eq!(report["best"]["conflict_free"], true);
}

#[test]
fn bad_tiles_and_accesses() {
    let output = support::smem("advise", &["--tile", "32", "column"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`32` is not ROWSxCOLS: expected e.g. 32x32"),
        "{}",
        stderr(&output)
    );
    let output = support::smem(
        "advise",
        &["--tile", "32x32", "--element", "banana", "column"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("`banana` is not a size in bytes or a type"));
    let output = support::smem("advise", &["--tile", "32x32", "zigzag"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("invalid value 'zigzag'"));
    let output = support::smem("advise", &["--tile", "0x32", "column"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("error: "),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output), "");
}
