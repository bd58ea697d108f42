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
            "1 access on 32x32 of 4-byte elements, pitch 32 (compute capability 9.0)\n\
             layouts tried, one line per outcome, best first:\n"
        ),
        "{out}"
    );
    // One line per outcome, each fix with its index: the 16 odd paddings that
    // also work are counted, not listed one by one.
    assert!(
        out.contains(
            "\n  1. 1 wavefront (ideal 1), conflict-free, 17 layouts: Swizzle<5,0,5>, \
             index row * 32 + (col ^ (row % 32)), 0 extra bytes; also 1 element of padding \
             per row, index row * 33 + col, 128 extra bytes; and 15 more layouts\n"
        ),
        "{out}"
    );
    assert!(!out.contains("3 elements of padding"), "{out}");
    assert!(
        out.contains(
            "\n  6. 32 wavefronts (ideal 1), 2 layouts: as given, index row * 32 + col, \
             0 extra bytes; also 32 elements of padding per row, index row * 64 + col, \
             4096 extra bytes\n"
        ),
        "{out}"
    );
    assert!(out.contains(
        "  access 0 (LDS): lanes 0-31 meet in bank 0 (32 distinct words, 32 wavefronts)\n"
    ));
    assert!(
        out.ends_with(
            "as given: as given, index row * 32 + col: 32 wavefronts (ideal 1), 0 extra bytes\n\
             best: Swizzle<5,0,5>, index row * 32 + (col ^ (row % 32)): 1 wavefront (ideal 1), \
             0 extra bytes\n\
             stores not judged: add fill (or store-row, store-column) for the stores that fill \
             the tile; a layout that suits the loads may make them conflict\n"
        ),
        "{out}"
    );
}

/// The tutorials' 16x16 tiles (a block of 16x16 threads: a warp is two rows
/// of 16): rows go on into the next row, columns into the next column. The
/// expected figures are bank arithmetic by hand: floats at pitch P put
/// element (r, c) in bank (P * r + c) % 32.
#[test]
fn sixteen_by_sixteen_tiles_as_the_tutorials_use_them() {
    // The shared-memory transpose: tile[ty][tx] = in[...]; out[...] = tile[tx][ty].
    let report = support::json("advise", &["--tile", "16x16", "store-row", "column"]);
    // Pitch 16: the store is conflict-free (rows 0 and 1 fill banks 0-31);
    // the read of columns 0 and 1 puts rows r and r + 2 in one bank: 8-way.
    assert_eq!(report["original"]["wavefronts"], 1 + 8);
    assert_eq!(
        report["conflicts"][0]["reason"],
        "access 1 (LDS): lanes 0,2,4,6,8,10,12,14 meet in bank 0 (8 distinct words, 8 wavefronts)"
    );
    let padded = |n: &str| {
        report["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["fix"] == format!("{n} of padding per row"))
            .map(|c| c["wavefronts"].as_u64().unwrap())
            .unwrap()
    };
    // Pitch 17: both 2-way (row 1 reaches word 32, bank 0; 17 * 15 + 1 =
    // 256 is bank 0 too). Pitch 18: the store 2-way (words 32, 33), the
    // columns' banks 18r % 32 all distinct.
    assert_eq!(padded("1 element"), 2 + 2);
    assert_eq!(padded("2 elements"), 2 + 1);
    // Only an XOR swizzle serves both.
    assert_eq!(report["best"]["fix"], "Swizzle<4,0,4>");
    assert_eq!(report["best"]["wavefronts"], 2);
    assert_eq!(report["best"]["index"], "row * 16 + (col ^ (row % 16))");
    // Each pattern works on 16x16 (each failed with "outside the tile").
    for pattern in [
        "row",
        "store-row",
        "column",
        "store-column",
        "diagonal",
        "transpose",
        "fill",
        "matmul",
    ] {
        let output = support::smem("advise", &["--tile", "16x16", pattern]);
        assert!(output.status.success(), "{pattern}: {}", stderr(&output));
    }
    // A tile smaller than a warp: the lanes past it take no part.
    let report = support::json("advise", &["--tile", "4x4", "row"]);
    assert_eq!(report["original"]["wavefronts"], 1);
}

/// Stores are judged with the loads: the classic matmul's tile fills
/// (As[ty][tx], Bs[ty][tx]) are part of `matmul`, and a padding that leaves
/// its reads alone makes the fills conflict.
#[test]
fn stores_are_judged_with_the_loads() {
    let report = support::json(
        "advise",
        &["--tile", "16x16", "--layout", "pad:16", "matmul"],
    );
    let ops: Vec<&str> = report["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["op"].as_str().unwrap())
        .collect();
    // Pitch 32: rows 0 and 1 of the fill are 32 words apart, one bank: each
    // store 2 wavefronts. The reads: As[ty][0] of rows 0 and 1, also one bank.
    assert_eq!(ops, ["STS", "STS", "LDS"]);
    assert_eq!(report["original"]["wavefronts"], 2 + 2 + 2 + 1);
    assert_eq!(report["best"]["wavefronts"], 4);
    // Loads alone are said to leave the stores unjudged; with a store, not.
    let loads = stdout(&support::smem("advise", &["--tile", "32x32", "column"]));
    assert!(loads.contains("\nstores not judged: add fill"), "{loads}");
    let both = stdout(&support::smem(
        "advise",
        &["--tile", "64x64", "--element", "half", "fill", "ldmatrix"],
    ));
    assert!(!both.contains("stores not judged"), "{both}");
    // The fill of a half tile: 16 bytes a lane, 4 wavefronts a warp
    // (512 bytes), conflict-free in the packed tile and under TMA 128B.
    let report = support::json("advise", &["--tile", "64x64", "--element", "half", "fill"]);
    assert_eq!(report["original"]["wavefronts"], 4);
    assert_eq!(report["original"]["conflict_free"], true);
}

/// On sm_90 a TMA mode is named with the XOR swizzle it applies, which is
/// what a kernel filling the tile with cp.async or STS must compute.
#[test]
fn tma_modes_come_with_their_xor_swizzle() {
    let output = support::smem(
        "advise",
        &["--tile", "64x64", "--element", "half", "ldmatrix"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.starts_with("16 accesses on 64x64 of 2-byte elements"),
        "{out}"
    );
    assert!(
        out.contains(
            "\n  1. 64 wavefronts (ideal 64), conflict-free, 5 layouts: TMA 128B swizzle = \
             Swizzle<3,3,3>, index row * 64 + (col ^ ((row % 8) * 8)), 0 extra bytes; also 8 \
             elements of padding per row, index row * 72 + col, 1024 extra bytes; and 3 more \
             layouts\n"
        ),
        "{out}"
    );
    assert!(out.contains(
        "\nTMA modes are the layouts a TMA load writes (cp.async.bulk.tensor with that \
         CUtensorMapSwizzle); a kernel that fills the tile with cp.async or st.shared gets the \
         same layout by storing at the swizzle's index\n"
    ));
    // The 16 ldmatrix.x4 conflict in four alike ways: one line each.
    assert!(out.contains(
        "\n  accesses 0, 4, 8, 12 (LDSM.x4): lanes 0-7 meet in bank 0 (8 distinct words, 8 wavefronts)\n"
    ), "{out}");
    // Before Hopper there is no TMA: no mode, no note.
    let output = support::smem(
        "advise",
        &[
            "--tile",
            "64x64",
            "--element",
            "half",
            "--arch",
            "sm_80",
            "ldmatrix",
        ],
    );
    let out = stdout(&output);
    assert!(!out.contains("TMA"), "{out}");
    assert!(
        out.contains(": Swizzle<3,3,3>, index row * 64 + (col ^ ((row % 8) * 8))"),
        "{out}"
    );
}

/// `ldmatrix` on tiles other than 64 columns: each matrix read once, odd
/// edges by .x2, and a tile that is not whole matrices refused by name.
#[test]
fn ldmatrix_on_any_tile() {
    for (tile, accesses, as_given) in [
        // Rows of 64 bytes: rows r and r + 2 of a matrix share banks, 4-way.
        ("32x32", 4, 64),
        ("64x32", 8, 128),
        // The whole 64x128 tile, not its top-left 64x64.
        ("64x128", 32, 1024),
        // Rows of 32 bytes, 2-way; the last 8 rows by one ldmatrix.x2.
        ("24x16", 2, 12),
    ] {
        let report = support::json("advise", &["--tile", tile, "--element", "half", "ldmatrix"]);
        assert_eq!(report["original"]["wavefronts"], as_given, "{tile}");
        assert_eq!(report["best"]["conflict_free"], true, "{tile}");
        let shown = stdout(&support::smem(
            "advise",
            &["--tile", tile, "--element", "half", "ldmatrix"],
        ));
        assert!(
            shown.starts_with(&format!("{accesses} accesses on {tile} ")),
            "{shown}"
        );
    }
    let output = support::smem(
        "advise",
        &["--tile", "20x32", "--element", "half", "ldmatrix"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: a tile of 20 rows and 32 columns is not a whole number of ldmatrix matrices of \
         8 rows and 8 columns (16 bytes of 2-byte elements)\n"
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
    assert_eq!(report["best"]["name"], "TMA 128B swizzle = Swizzle<3,3,3>");
    assert_eq!(
        report["best"]["index"],
        "row * 64 + (col ^ ((row % 8) * 8))"
    );
    let outcomes = report["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 4);
    assert_eq!(outcomes[0]["wavefronts"], 64);
    assert_eq!(outcomes[0]["fixes"][0], "TMA 128B swizzle");
    assert_eq!(outcomes[3]["fixes"][0], "as given");
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

/// The layout as given by the name Triton or CuTe gives it, with its index.
#[test]
fn layouts_by_name() {
    let report = support::json(
        "advise",
        &[
            "--tile",
            "128x64",
            "--element",
            "half",
            "--layout",
            "triton:8,1,8",
            "ldmatrix",
        ],
    );
    assert_eq!(
        report["original"]["index"],
        "row * 64 + (col ^ ((row % 8) * 8))"
    );
    assert_eq!(report["original"]["conflict_free"], true);
    for (layout, index) in [
        ("Swizzle<3,3,3>", "row * 64 + (col ^ ((row % 8) * 8))"),
        ("swizzle:2,3,3", "row * 64 + (col ^ ((row % 4) * 8))"),
        ("nvmma:128", "row * 64 + (col ^ ((row % 8) * 8))"),
        ("triton:8,2,4", "row * 64 + (col ^ ((row / 2 % 4) * 8))"),
        ("pad:8", "row * 72 + col"),
    ] {
        let output = support::smem(
            "advise",
            &[
                "--tile",
                "64x64",
                "--element",
                "half",
                "--layout",
                layout,
                "ldmatrix",
            ],
        );
        let out = stdout(&output);
        assert!(
            out.contains(&format!("\nas given: as given, index {index}: ")),
            "{layout}: {out}{}",
            stderr(&output)
        );
    }
    for (layout, message) in [
        (
            "triton:3,1,8",
            "Triton's vec must be a power of two up to 65536, not 3",
        ),
        ("nvmma:96", ""),
        ("tma:16", "TMA swizzle of 16 bytes: expected 32, 64 or 128"),
        (
            "zigzag",
            "`zigzag` is not a layout: expected pad:N, swizzle:B,M,S",
        ),
        ("swizzle:3,0,2", "swizzle bit ranges overlap"),
    ] {
        let output = support::smem("advise", &["--tile", "64x64", "--layout", layout, "row"]);
        if message.is_empty() {
            assert_eq!(output.status.code(), Some(1), "{layout}");
            assert_eq!(
                stderr(&output),
                "error: NVMMA swizzle width of 96 bytes: expected 0, 32, 64 or 128\n"
            );
        } else {
            assert_eq!(output.status.code(), Some(2), "{layout}");
            assert!(
                stderr(&output).contains(message),
                "{layout}: {}",
                stderr(&output)
            );
        }
    }
    let report = support::json(
        "advise",
        &[
            "--tile",
            "64x32",
            "--element",
            "half",
            "--layout",
            "tma:64",
            "ldmatrix",
        ],
    );
    assert_eq!(
        report["original"]["index"],
        "row * 32 + (col ^ ((row / 2 % 4) * 8))"
    );
    // Rows wider than the NVMMA swizzle: column tiles of its width, as Triton
    // stores them; narrower rows, which Triton refuses, are refused by name.
    let report = support::json(
        "advise",
        &[
            "--tile",
            "8x64",
            "--element",
            "float",
            "--layout",
            "nvmma:128",
            "row",
        ],
    );
    assert_eq!(
        report["original"]["index"],
        "(col / 32) * 256 + row * 32 + ((col % 32) ^ ((row % 8) * 4))"
    );
    let output = support::smem(
        "advise",
        &[
            "--tile",
            "8x16",
            "--element",
            "float",
            "--layout",
            "nvmma:128",
            "row",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: rows of 64 bytes are narrower than the 128-byte NVMMA swizzle, which Triton \
         refuses: give rows of at least 128 bytes\n"
    );
}
