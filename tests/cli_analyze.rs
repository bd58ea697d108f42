//! `smem analyze` end to end: the built binary on known accesses (the totals,
//! the diagram, `--json` read back, `--svg`), and each kind of bad input with
//! its exact message and exit status.
#![cfg(feature = "cli")]

use std::fs;
use std::process::Output;

use serde_json::Value;

mod support;
use support::{stderr, stdout};

/// Runs `smem analyze ARGS`.
fn analyze(args: &[&str]) -> Output {
    support::smem("analyze", args)
}

/// `smem analyze --json ARGS`, parsed.
fn json(args: &[&str]) -> Value {
    support::json("analyze", args)
}

/// The totals line of the text output.
fn totals(output: &Output) -> String {
    let out = stdout(output);
    out.lines()
        .find(|line| line.starts_with("wavefronts: "))
        .unwrap_or_else(|| panic!("no totals line in\n{out}"))
        .to_owned()
}

/// Asserts a failure with status 1, nothing on stdout and exactly `message` on stderr.
fn fails_with(args: &[&str], message: &str) {
    let output = analyze(args);
    assert_eq!(stderr(&output), message, "{args:?}");
    assert_eq!(stdout(&output), "", "{args:?}");
    assert_eq!(output.status.code(), Some(1), "{args:?}");
}

#[test]
fn padded_column_is_one_wavefront() {
    let output = analyze(&["lane*33*4"]);
    assert!(output.status.success());
    assert_eq!(
        totals(&output),
        "wavefronts: 1   ideal: 1   bank conflicts: 0   parallel"
    );
    assert!(stdout(&output).starts_with(
        "LDS.32 on compute capability 9.0 (sm_90, Hopper): 32 banks x 4 bytes\n\
         addresses: lane*33*4\n  lanes  0-7     0x0  0x84 0x108 0x18c"
    ));
}

#[test]
fn unpadded_column_is_32_wavefronts() {
    let output = analyze(&["lane*32*4"]);
    assert_eq!(
        totals(&output),
        "wavefronts: 32   ideal: 1   bank conflicts: 31   serial (32-way)"
    );
    // One diagram row per wavefront, each serving one lane from bank 0.
    let out = stdout(&output);
    let rows: Vec<&str> = out
        .lines()
        .filter(|line| line.ends_with(" lane 7") || line.ends_with(" lane 31"))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].starts_with("   8   7  .  ."), "{out}");
    assert!(rows[1].starts_with("  32  31  .  ."), "{out}");
}

#[test]
fn the_diagram_shows_banks_across_and_wavefronts_down() {
    let output = analyze(&["lane*8"]);
    let out = stdout(&output);
    let expected = "\
bank diagram: banks across, wavefronts down; each cell is the lane the bank serves
  wf   0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
   1   0  .  1  .  2  .  3  .  4  .  5  .  6  .  7  .  8  .  9  . 10  . 11  . 12  . 13  . 14  . 15  .  lanes 0-15
   2  16  . 17  . 18  . 19  . 20  . 21  . 22  . 23  . 24  . 25  . 26  . 27  . 28  . 29  . 30  . 31  .  lanes 16-31
  N lane served   . idle bank   red: bank busy in several wavefronts of one phase
";
    assert!(out.ends_with(expected), "{out}");
    // Not a terminal: no colour codes.
    assert!(!out.contains('\u{1b}'));
}

#[test]
fn broadcasts_are_marked() {
    let output = analyze(&["(lane/4)*4"]);
    let out = stdout(&output);
    assert!(
        out.contains(
            "   1   0  4  8 12 16 20 24 28  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  lanes 0-31\n       *  *  *  *  *  *  *  *\n"
        ),
        "{out}"
    );
    assert!(out.contains("* word read or written by several lanes (lowest shown)"));
}

#[test]
fn colour_when_asked() {
    let output = analyze(&["--color", "always", "lane*8"]);
    assert!(
        stdout(&output).contains("\u{1b}[31m"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_list_of_32_addresses() {
    // s[2 * lane] written out, with lane 31 inactive.
    let mut list: Vec<String> = (0..31).map(|lane| (8 * lane).to_string()).collect();
    list.push("-".to_owned());
    let output = analyze(&[&list.join(",")]);
    assert_eq!(
        totals(&output),
        "wavefronts: 2   ideal: 1   bank conflicts: 1   conflicted (2-way)"
    );
    // Spaces work as separators too, and hexadecimal addresses.
    let hex: Vec<String> = (0..32).map(|lane| format!("{:#x}", 4 * lane)).collect();
    let output = analyze(&hex.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        totals(&output),
        "wavefronts: 1   ideal: 1   bank conflicts: 0   parallel"
    );
}

#[test]
fn inactive_lanes_and_json() {
    let report = json(&["lane<16 ? lane*8 : -"]);
    assert_eq!(report["wavefronts"], 1);
    assert_eq!(report["bank_conflicts"], 0);
    assert_eq!(report["classification"], "Parallel");
    assert_eq!(report["addresses"][15], 120);
    assert_eq!(report["addresses"][16], Value::Null);
    let first = &report["transactions"][0];
    assert_eq!(first["lanes"].as_array().unwrap().len(), 16);
    assert_eq!(first["words"][1]["bank"], 2);
}

#[test]
fn json_of_a_serial_access() {
    let report = json(&["lane*32*4"]);
    assert_eq!(report["arch"], "sm_90");
    assert_eq!(report["op"], "LDS");
    assert_eq!(report["wavefronts"], 32);
    assert_eq!(report["ideal_wavefronts"], 1);
    assert_eq!(report["bank_conflicts"], 31);
    assert_eq!(report["ways"], 32);
    assert_eq!(report["classification"]["Serial"]["ways"], 32);
    assert_eq!(report["verdict"], "serial (32-way)");
    let transactions = report["transactions"].as_array().unwrap();
    assert_eq!(transactions.len(), 32);
    assert_eq!(transactions[5]["lanes"], serde_json::json!([5]));
    assert_eq!(transactions[5]["words"][0]["word"], 5 * 32);
}

#[test]
fn broadcast_words_and_write_collisions_in_json() {
    let load = json(&["0"]);
    assert_eq!(load["classification"], "Broadcast");
    assert_eq!(
        load["transactions"][0]["broadcast_words"][0]["lanes"]
            .as_array()
            .unwrap()
            .len(),
        32
    );
    let store = json(&["--op", "st", "(lane/2)*4"]);
    assert_eq!(store["write_collisions"].as_array().unwrap().len(), 16);
    assert_eq!(store["write_collisions"][1]["address"], 4);
    assert_eq!(
        store["write_collisions"][1]["lanes"],
        serde_json::json!([2, 3])
    );
}

#[test]
fn ops_widths_and_bank_modes() {
    let cases: [(&[&str], u64); 8] = [
        (&["--width", "16", "(lane%8)*16"], 4),
        (&["--width", "8", "lane*8"], 2),
        (&["--op", "atom", "0"], 32),
        (&["--op", "atoms", "(lane%4)*4"], 8),
        (&["--op", "ldsm.x4", "(lane%8)*128 + (lane/8)*16"], 32),
        (&["--op", "ldsm.x4", "(lane%8)*144 + (lane/8)*16"], 4),
        (&["--arch", "sm_35", "4*3*lane"], 1),
        (&["--arch", "sm_35", "--bank-mode", "8", "4*3*lane"], 2),
    ];
    for (args, wavefronts) in cases {
        assert_eq!(json(args)["wavefronts"], wavefronts, "{args:?}");
    }
    assert_eq!(
        json(&["--op", "stsm.x2", "lane*16"])["op"],
        "STSM.x2",
        "stmatrix exists on sm_90"
    );
}

#[test]
fn svg_is_written() {
    let path = std::env::temp_dir().join(format!("smem-cli-analyze-{}.svg", std::process::id()));
    let output = analyze(&["--svg", path.to_str().unwrap(), "lane*8"]);
    assert!(output.status.success(), "{}", stderr(&output));
    // The text output is still printed.
    assert!(totals(&output).starts_with("wavefronts: 2"));
    let svg = fs::read_to_string(&path).expect("the SVG was written");
    let _ = fs::remove_file(&path);
    assert!(svg.starts_with(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""
    ));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(">LDS.32 on sm_90: lane*8</text>"), "{svg}");
    assert!(svg.contains(">2 wavefronts (ideal 1, 1 bank conflict): conflicted (2-way)</text>"));
    // One cell per bank and wavefront, and a tooltip on each busy one.
    assert_eq!(svg.matches("<title>bank ").count(), 32);
}

#[test]
fn an_expression_that_does_not_parse_shows_where() {
    fails_with(
        &["lane*)"],
        "error: invalid address expression: expected a number, `lane`, `(` or `-`, found `)`\n  lane*)\n       ^\n",
    );
    fails_with(
        &["(lane%8*16"],
        "error: invalid address expression: expected `)` to close the `(` at column 1, found the end of the expression\n  (lane%8*16\n            ^\n",
    );
    fails_with(
        &["tid*4"],
        "error: invalid address expression: unknown name `tid`: the only variable is `lane`\n  tid*4\n  ^^^\n",
    );
}

#[test]
fn an_expression_that_fails_for_a_lane() {
    fails_with(
        &["4/lane"],
        "error: cannot evaluate the address expression: division by zero for lane 0\n  4/lane\n   ^\n",
    );
    fails_with(
        &["lane-1"],
        "error: lane 0 has address -1: expected 0 to 4294967295 (a 32-bit shared address)\n",
    );
}

#[test]
fn a_list_of_the_wrong_length() {
    fails_with(
        &["0,4,8"],
        "error: a warp has 32 lanes, but 3 addresses were given\n",
    );
    fails_with(
        &["0,4,x"],
        "error: entry 2 of the address list is `x`: expected a byte address from 0 to 4294967295 or `-` for an inactive lane\n",
    );
}

#[test]
fn accesses_the_model_refuses() {
    fails_with(
        &["lane*4+2"],
        "error: misaligned address: lane 0 accesses 4 bytes at 0x2, which is not a multiple of 4\n",
    );
    fails_with(
        &["--op", "atom", "--width", "16", "0"],
        "error: ATOMS.ADD has no 16-byte form: it takes 4 or 8 bytes per lane\n",
    );
    fails_with(
        &["--arch", "sm_80", "--op", "stsm.x4", "lane*16"],
        "error: STSM.x4 does not exist on compute capability 8.0: it needs 9.0 or later\n",
    );
    fails_with(
        &["--width", "3", "0"],
        "error: access width of 3 bytes is not supported: expected 1, 2, 4, 8 or 16\n",
    );
}

#[test]
fn an_unwritable_svg_path() {
    fails_with(
        &["--svg", "/nonexistent-dir/x.svg", "0"],
        "error: cannot write /nonexistent-dir/x.svg: No such file or directory (os error 2)\n",
    );
}

#[test]
fn unknown_arch_or_op_is_a_usage_error() {
    let output = analyze(&["--op", "ldx", "0"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.starts_with(
            "error: invalid value 'ldx' for '--op <OP>'\n  [possible values: ld, st, atom, ldsm.x1, ldsm.x2, ldsm.x4, stsm.x1, stsm.x2, stsm.x4, ldc]\n"
        ),
        "{err}"
    );
    let output = analyze(&["--arch", "sm_40", "0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains(r#"unknown compute capability "sm_40""#));
    let output = analyze(&[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("<ADDRESSES>..."));
}
