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
       !     !     !     !     !     !     !     !     !     !     !     !     !     !     !     !
   2  16  . 17  . 18  . 19  . 20  . 21  . 22  . 23  . 24  . 25  . 26  . 27  . 28  . 29  . 30  . 31  .  lanes 16-31
       !     !     !     !     !     !     !     !     !     !     !     !     !     !     !     !
  N lane served   . idle bank   ! bank busy in several wavefronts of one phase (a conflict)
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
    assert!(out.contains("* word shared by several lanes (lowest shown)"));
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
    assert_eq!(
        report["classification"],
        serde_json::json!({"kind": "parallel", "ways": 1})
    );
    assert_eq!(report["schema"], "smem-analyze/1");
    assert_eq!(report["source"], "lane<16 ? lane*8 : -");
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
    assert_eq!(
        report["classification"],
        serde_json::json!({"kind": "serial", "ways": 32})
    );
    assert_eq!(report["verdict"], "serial (32-way)");
    let transactions = report["transactions"].as_array().unwrap();
    assert_eq!(transactions.len(), 32);
    assert_eq!(transactions[5]["lanes"], serde_json::json!([5]));
    assert_eq!(transactions[5]["words"][0]["word"], 5 * 32);
}

#[test]
fn broadcast_words_and_write_collisions_in_json() {
    let load = json(&["0"]);
    assert_eq!(
        load["classification"],
        serde_json::json!({"kind": "broadcast", "ways": 1})
    );
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
        "error: invalid address expression: expected a number, a name, `(` or `-`, found `)`\n  lane*)\n       ^\n",
    );
    fails_with(
        &["(lane%8*16"],
        "error: invalid address expression: expected `)` to close the `(` at column 1, found the end of the expression\n  (lane%8*16\n            ^\n",
    );
    fails_with(
        &["tid*4"],
        "error: invalid address expression: unknown name `tid`: the names are `lane`, `warpSize`, `threadIdx.x/y/z`, `blockDim.x/y/z` (with --block), and those given with --define NAME=VALUE\n  tid*4\n  ^^^\n",
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
        "error: a warp has 32 lanes, but 3 addresses were given\n",
    );
    let mut list = vec!["0"; 31];
    list.push("x");
    fails_with(
        &[&list.join(",")],
        "error: entry 31 of the address list is `x`: unknown name `x`: the names are `lane`, \
         `warpSize`, `threadIdx.x/y/z`, `blockDim.x/y/z` (with --block), and those given with \
         --define NAME=VALUE; expected a byte address from 0 to 4294967295 or `-` for an \
         inactive lane\n",
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
            "error: invalid value 'ldx' for '--op <OP>': unknown op \"ldx\": expected LDS, STS, ATOMS"
        ),
        "{err}"
    );
    let output = analyze(&["--arch", "sm_40", "0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains(r#"unknown compute capability "sm_40""#));
    let output = analyze(&[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("<ADDRESSES>..."));
    // A mistyped option is a usage error, not an address expression; an
    // expression that starts with `-` is still an address.
    let output = analyze(&["--nope", "lane*4"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("error: unexpected argument '--nope' found"),
        "{}",
        stderr(&output)
    );
    assert!(analyze(&["-lane*4+256"]).status.success());
}

// ---------------------------------------------------------------------------
// Issue 12, item 11, and issue 17: what a new user types.

#[test]
fn an_expression_starting_with_a_minus_is_an_expression_not_an_option() {
    // Lane 0 reads the last word, lane 31 the first: a reversed permutation.
    let report = json(&["-lane*4 + 124"]);
    assert_eq!(report["addresses"][0], 124);
    assert_eq!(report["addresses"][31], 0);
    assert_eq!(report["wavefronts"], 1);
    // Options may still follow, and come before.
    let output = analyze(&["-lane*4+124", "--arch", "sm_80", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["arch"], "sm_80");
    assert_eq!(report["wavefronts"], 1);
    // -D with its value attached, and after the expression.
    let report = json(&["-lane*k+124", "-Dk=4"]);
    assert_eq!(report["addresses"][1], 120);
}

#[test]
fn a_list_starting_with_a_minus_is_a_list() {
    // Lane 0 inactive, the others s[lane]: typed without quotes, 32 arguments.
    let mut list: Vec<String> = vec!["-".to_owned()];
    list.extend((1..32).map(|lane| (4 * lane).to_string()));
    let args: Vec<&str> = list.iter().map(String::as_str).collect();
    let report = json(&args);
    assert_eq!(report["addresses"][0], Value::Null);
    assert_eq!(report["addresses"][1], 4);
    assert_eq!(report["wavefronts"], 1);
    // The same as one argument with commas, and with -1 for the inactive lane.
    let report = json(&[&list.join(",").replacen('-', "-1", 1)]);
    assert_eq!(report["addresses"][0], Value::Null);
    assert_eq!(report["addresses"][31], 124);
}

#[test]
fn constant_expressions_are_expressions_not_lists() {
    for (text, address) in [("4 * 8", 32), ("0x100 + 4", 0x104), ("010", 8)] {
        let report = json(&[text]);
        assert_eq!(report["source"], text);
        assert_eq!(report["addresses"][0], address, "{text}");
        assert_eq!(report["addresses"][31], address, "{text}");
        assert_eq!(report["classification"]["kind"], "broadcast", "{text}");
    }
    // C's unary operators, literals and sizeof.
    let report = json(&["(lane & ~1) * sizeof(float) + 0b0"]);
    assert_eq!(report["addresses"][3], 8);
    let report = json(&["!lane * 4"]);
    assert_eq!(
        (
            report["addresses"][0].clone(),
            report["addresses"][1].clone()
        ),
        (4.into(), 0.into())
    );
}

#[test]
fn a_few_numbers_are_an_expression_error_with_a_hint_about_lists() {
    fails_with(
        &["0 4 8"],
        "error: invalid address expression: expected an operator, found `4`\n  0 4 8\n    ^\n\
         (a list of addresses needs 32 entries; this one has 3)\n",
    );
}

#[test]
fn defines_name_constants() {
    let report = json(&[
        "-D",
        "k=3",
        "--define",
        "base=0x400 + k*128",
        "base + lane*4*k",
    ]);
    assert_eq!(report["addresses"][2], 0x400 + 3 * 128 + 24);
    fails_with(
        &["-D", "k=lane", "lane*k"],
        "error: invalid --define: a constant cannot use `lane`\n  k=lane\n    ^^^^\n",
    );
    fails_with(
        &["-D", "k", "lane*k"],
        "error: invalid --define: expected NAME=VALUE\n  k\n  ^\n",
    );
}

#[test]
fn a_dash_reads_the_addresses_from_stdin() {
    let output = support::smem_with_stdin("analyze", &["-"], b"lane*33*4\n");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        totals(&output),
        "wavefronts: 1   ideal: 1   bank conflicts: 0   parallel"
    );
    // A list, one address a line, as a script would print it.
    let lines: String = (0..32).map(|lane| format!("{}\n", 128 * lane)).collect();
    let output = support::smem_with_stdin("analyze", &["--json", "-"], lines.as_bytes());
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["wavefronts"], 32);
    let output = support::smem_with_stdin("analyze", &["-"], b"  \n");
    assert_eq!(
        stderr(&output),
        "error: stdin is empty: expected an address expression or a list of 32 addresses\n"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn several_archs_side_by_side() {
    let output = analyze(&[
        "--arch", "sm_90", "--arch", "sm_35", "--arch", "1.3", "lane*8",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.starts_with("LDS.32 compared: 3 requests\n"), "{out}");
    assert!(
        support::has_row(
            &out,
            &[
                "sm_90",
                "32",
                "x",
                "4",
                "B",
                "lane*8",
                "2",
                "1",
                "1",
                "50.0%",
                "conflicted",
                "(2-way)"
            ]
        ),
        "{out}"
    );
    assert!(
        support::has_row(
            &out,
            // A Kepler bank moves 64 bits, of which these floats use half.
            &["sm_35", "32", "x", "4", "B", "lane*8", "1", "1", "0", "50.0%", "parallel"]
        ),
        "{out}"
    );
    assert!(
        support::has_row(
            &out,
            &[
                "sm_13",
                "16",
                "x",
                "4",
                "B",
                "lane*8",
                "4",
                "2",
                "2",
                "50.0%",
                "conflicted",
                "(2-way)"
            ]
        ),
        "{out}"
    );
}

#[test]
fn several_layouts_side_by_side_and_in_json() {
    let output = analyze(&["lane*32*4", "lane*33*4", "(lane ^ (lane/8))*4"]);
    let out = stdout(&output);
    assert!(
        support::has_row(
            &out,
            &[
                "sm_90",
                "32",
                "x",
                "4",
                "B",
                "lane*32*4",
                "32",
                "1",
                "31",
                "3.1%",
                "serial",
                "(32-way)"
            ]
        ),
        "{out}"
    );
    assert!(
        support::has_row(
            &out,
            &[
                "sm_90",
                "32",
                "x",
                "4",
                "B",
                "lane*33*4",
                "1",
                "1",
                "0",
                "100.0%",
                "parallel"
            ]
        ),
        "{out}"
    );
    let report = json(&[
        "--arch",
        "H100",
        "--arch",
        "RTX 4090",
        "lane*32*4",
        "lane*33*4",
    ]);
    assert_eq!(report["schema"], "smem-analyze-compare/1");
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    let summary: Vec<(String, String, u64)> = cases
        .iter()
        .map(|c| {
            (
                c["arch"].as_str().unwrap().to_owned(),
                c["source"].as_str().unwrap().to_owned(),
                c["wavefronts"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("sm_90".into(), "lane*32*4".into(), 32),
            ("sm_90".into(), "lane*33*4".into(), 1),
            ("sm_89".into(), "lane*32*4".into(), 32),
            ("sm_89".into(), "lane*33*4".into(), 1),
        ]
    );
    // Every case has the one-request shape, classification included.
    assert_eq!(
        cases[0]["classification"],
        serde_json::json!({"kind": "serial", "ways": 32})
    );
    fails_with(
        &["--svg", "x.svg", "lane*4", "lane*8"],
        "error: --svg draws one request: give one --arch and one set of addresses\n",
    );
}

#[test]
fn svg_to_stdout() {
    let output = analyze(&["--svg", "-", "--op", "st", "(lane/2)*4"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let svg = stdout(&output);
    assert!(svg.starts_with("<?xml"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    // No file named `-` is written.
    assert!(!std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("-")
        .exists());
    // Write collisions are drawn as collisions, marked and explained.
    assert!(svg.contains("x write collision: one write lands"), "{svg}");
    assert!(svg.contains("(write collision: one write lands, which one is undefined)"));
    assert!(!svg.contains("word shared by several lanes"));
    fails_with(
        &["--svg", "-", "--json", "lane*4"],
        "error: --svg - and --json both write to stdout: choose one\n",
    );
}

#[test]
fn write_collisions_are_not_drawn_as_broadcasts() {
    let output = analyze(&["--op", "st", "(lane/2)*4"]);
    let out = stdout(&output);
    assert!(
        out.contains(
            "write collision: lanes 0-1 store to 0x0; one write lands, which one is undefined\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("\n       x  x  x  x  x  x  x  x  x  x  x  x  x  x  x  x\n"),
        "{out}"
    );
    assert!(out.contains("x write collision: lanes store to one address, one write lands"));
    assert!(!out.contains("word shared"), "{out}");
    // Two lanes storing different bytes of one word do not collide.
    let out = stdout(&analyze(&["--op", "st", "--width", "2", "lane*2"]));
    assert!(!out.contains("write collision"), "{out}");
}

#[test]
fn bank_bandwidth_counts_distinct_bytes() {
    let used = |args: &[&str]| {
        let report = json(args);
        (
            report["distinct_bytes"].as_u64().unwrap(),
            report["bank_bandwidth_used"].as_f64().unwrap(),
        )
    };
    // The issue's three cases that all read "100% of the peak" before.
    assert_eq!(used(&["lane == 0 ? 0 : -"]), (4, 4.0 / 128.0));
    assert_eq!(used(&["0"]), (4, 4.0 / 128.0));
    assert_eq!(used(&["--width", "1", "lane"]), (32, 32.0 / 128.0));
    assert_eq!(used(&["lane*4"]), (128, 1.0));
    assert_eq!(used(&["lane*8"]), (128, 0.5));
    let out = stdout(&analyze(&["0"]));
    assert!(
        out.contains(
            "bank bandwidth used: 3.1% (4 bytes distinct in 1 wavefront of at most 128 bytes)\n"
        ),
        "{out}"
    );
    assert!(!out.contains("of the peak"));
    // Kepler: a bank moves 64 bits in both bank modes, so doubles at stride 1
    // fill their one wavefront (it said 200% with 128-byte wavefronts).
    for mode in ["4", "8"] {
        let report = json(&[
            "--arch",
            "sm_35",
            "--bank-mode",
            mode,
            "--width",
            "8",
            "lane*8",
        ]);
        assert_eq!(report["wavefronts"], 1, "{mode}");
        assert_eq!(report["distinct_bytes"], 256, "{mode}");
        assert_eq!(report["bank_bandwidth_used"].as_f64(), Some(1.0), "{mode}");
    }
    let out = stdout(&analyze(&["--arch", "sm_35", "--width", "8", "lane*8"]));
    assert!(
        out.contains(
            "bank bandwidth used: 100.0% (256 bytes distinct in 1 wavefront of at most 256 bytes)\n"
        ),
        "{out}"
    );
}

#[test]
fn arch_names_a_new_user_types() {
    for (name, sm) in [
        ("sm90", "sm_90"),
        ("SM_90", "sm_90"),
        ("90", "sm_90"),
        ("hopper", "sm_90"),
        ("H100", "sm_90"),
        ("A100", "sm_80"),
        ("RTX 4090", "sm_89"),
        ("geforce-rtx-3090", "sm_86"),
    ] {
        assert_eq!(json(&["--arch", name, "lane*4"])["arch"], sm, "{name}");
    }
    // CUDA 12's name for Thor is an alias, and says so.
    let output = analyze(&["--arch", "sm_101", "--json", "lane*4"]);
    assert!(output.status.success());
    assert_eq!(
        stderr(&output),
        "note: sm_101 is CUDA 12's name for compute capability 11.0 (sm_110, Thor); using 11.0\n"
    );
    let output = analyze(&["--arch", "sm_1é", "lane*4"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "unknown compute capability \"sm_1é\": expected a version (\"8.6\", \"sm_86\", \"sm86\", \
             \"86\", \"compute_86\", \"sm_90a\"), a GPU (\"A100\", \"H100\", \"RTX 4090\", ...) or an \
             architecture (\"ampere\", \"hopper\", ...); the versions are 1.0, 1.1, 1.2, 1.3, 2.0, \
             2.1, 3.0, 3.2, 3.5, 3.7, 5.0, 5.2, 5.3, 6.0, 6.1, 6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, \
             8.9, 9.0, 10.0, 10.3, 11.0, 12.0, 12.1"
        ),
        "{}",
        stderr(&output)
    );
}

/// The new ops: every atomic kind and width, cp.async, with the loop's
/// rounds, Nsight's blind spot and the cycles where measured.
#[test]
fn atomics_cp_async_and_cycles() {
    let output = analyze(&["--op", "atom.add.f32", "0"]);
    assert!(output.status.success());
    let out = stdout(&output);
    assert!(
        out.starts_with("ATOMS.ADD.F32 on compute capability 9.0"),
        "{out}"
    );
    assert!(out.contains("compare-and-swap loop (nvcc emulates ATOMS.ADD.F32): 32 rounds (32 LDS + 64 ATOMS wavefronts)"), "{out}");
    assert!(
        out.contains("cycles (measured on sm_90): the shared pipe is busy 96 cycles"),
        "{out}"
    );
    let out = stdout(&analyze(&["--op", "atom.add", "--width", "8", "lane*8"]));
    assert!(out.starts_with("ATOMS.ADD.64 on"), "{out}");
    assert!(out.contains("compare-and-swap loop"), "{out}");
    let out = stdout(&analyze(&["--op", "cp.async.cg", "lane*16"]));
    assert!(out.contains("not visible to Nsight Compute"), "{out}");
    let out = stdout(&analyze(&["lane*4"]));
    assert!(
        out.contains("a dependent load takes 29.3 cycles for one warp"),
        "{out}"
    );
    let out = stdout(&analyze(&["--arch", "sm_80", "--op", "atom.cas", "lane*4"]));
    assert!(
        out.contains(
            "cycles: timing was measured on compute capability 9.0 only: 8.0 was not measured"
        ),
        "{out}"
    );
    fails_with(
        &["--arch", "sm_75", "--op", "cp.async.ca", "lane*4"],
        "error: LDGSTS does not exist on compute capability 7.5: it needs 8.0 or later\n",
    );
    fails_with(
        &["--op", "atom.inc", "--width", "8", "0"],
        "error: ATOMS.INC accesses 4 bytes per lane, but an access width of 8 bytes was given\n",
    );
    let json: serde_json::Value = serde_json::from_slice(
        &analyze(&["--json", "--op", "red.add", "--width", "8", "0"]).stdout,
    )
    .unwrap();
    assert_eq!(json["instructions"], 32);
    assert_eq!(json["load_wavefronts"], 32);
    assert_eq!(json["cycles"]["pipe"], 96 + 32);
}

/// Every report says where its capability's bank rules come from.
#[test]
fn the_rules_source_is_named() {
    for (arch, source) in [
        (
            "sm_90",
            "\nbank rules: measured on this capability with Nsight Compute (the hardware corpus, \
             tests/data/hw-corpus; `smem verify` re-checks it)\n",
        ),
        (
            "sm_80",
            "\nbank rules: those measured on sm_90, applied here: 7.0 and later share them as far \
             as published sources tell (not measured on this capability)\n",
        ),
        (
            "sm_61",
            "\nbank rules: the CUDA C++ Programming Guide's 4-byte rule; wider accesses are a \
             modelling choice (not measured)\n",
        ),
        (
            "sm_20",
            "\nbank rules: the CUDA C++ Programming Guide's for this capability (not measured)\n",
        ),
    ] {
        let output = analyze(&["--arch", arch, "lane*4"]);
        let out = stdout(&output);
        assert!(out.contains(source), "{arch}: {out}");
    }
    // One cycle is not "1 cycles".
    let out = stdout(&analyze(&["lane*4"]));
    assert!(out.contains("the shared pipe is busy 1 cycle;"), "{out}");
}

/// `threadIdx` and `blockDim` with `--block`: a kernel's index expression as
/// written, for the lanes of warp `--warp`.
#[test]
fn thread_indices_with_a_block_shape() {
    // A 16x16 block reading a [16][17] float tile down... across rows: warp 1
    // holds rows 2 and 3.
    let as_lane = analyze(&[
        "--json",
        "--block",
        "16x16",
        "--warp",
        "1",
        "(threadIdx.y*17 + threadIdx.x)*4",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&as_lane.stdout).unwrap();
    let addresses: Vec<u64> = report["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = (32..64u64).map(|t| ((t / 16) * 17 + t % 16) * 4).collect();
    assert_eq!(addresses, expected);
    // blockDim, and threadIdx.z of a 3-D block.
    let report = support::json(
        "analyze",
        &[
            "--block",
            "8x2x4",
            "--warp",
            "1",
            "(threadIdx.z*blockDim.y*blockDim.x + threadIdx.y*8 + threadIdx.x)*4",
        ],
    );
    assert_eq!(report["addresses"][0], 32 * 4);
    assert_eq!(report["wavefronts"], 1);
    // A block of 48 threads: lanes 16-31 of warp 1 have no thread.
    let report = support::json(
        "analyze",
        &["--block", "48", "--warp", "1", "threadIdx.x*4"],
    );
    assert_eq!(report["addresses"][15], 47 * 4);
    assert_eq!(report["addresses"][16], serde_json::Value::Null);
    fails_with(
        &["threadIdx.x*4"],
        "error: invalid address expression: `threadIdx.x` needs the block's shape: give --block \
         X, XxY or XxYxZ\n  threadIdx.x*4\n  ^^^^^^^^^^^\n",
    );
    let output = analyze(&["--block", "64", "--warp", "2", "threadIdx.x*4"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: warp 2 does not exist: a block of 64x1x1 threads has warps 0 to 1\n"
    );
    let output = analyze(&["--block", "64x32", "threadIdx.x*4"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("a block of 2048 threads: a block has 1 to 1024"),
        "{}",
        stderr(&output)
    );
}

/// `--layout` stores the tile as Triton or CuTe names it: the addresses given
/// are offsets in the packed tile, and the request is where the layout puts
/// them, with the layout's index formula printed.
#[test]
fn a_named_layout_moves_the_access() {
    let column = ["--tile", "32x32", "--layout", "Swizzle<5,0,5>", "lane*32*4"];
    let output = analyze(&column);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        totals(&output),
        "wavefronts: 1   ideal: 1   bank conflicts: 0   parallel"
    );
    assert!(stdout(&output).starts_with(
        "LDS.32 on compute capability 9.0 (sm_90, Hopper): 32 banks x 4 bytes\n\
         addresses: lane*32*4\n\
         layout: Swizzle<5,0,5> on the 32x32 tile of 4-byte elements: \
         (row, col) at 4 * (row * 32 + (col ^ (row % 32)))\n  \
         the addresses given are offsets in the packed tile, 4 * (row * 32 + col); \
         the request is where the layout stores those elements\n  \
         lanes  0-7     0x0  0x84 0x108"
    ));
    // ldmatrix.x4 of a 16x16 block of a 64-wide half tile: 32 wavefronts packed
    // (each matrix's 8 rows in the same 4 banks), 4 under Triton's layout.
    let ldsm = ["--op", "ldsm.x4", "((lane%16)*64 + (lane/16)*8)*2"];
    let packed = json(&ldsm);
    assert_eq!(packed["wavefronts"], 32);
    let mut args = vec![
        "--tile",
        "64x64",
        "--element",
        "half",
        "--layout",
        "triton:8,1,8",
    ];
    args.extend(ldsm);
    let report = json(&args);
    assert_eq!(report["wavefronts"], 4);
    assert_eq!(report["bank_conflicts"], 0);
    assert_eq!(
        report["layout"],
        serde_json::json!({
            "name": "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8}>",
            "rows": 64,
            "cols": 64,
            "element_bytes": 2,
            "index": "row * 64 + (col ^ ((row % 8) * 8))",
        })
    );
    // Lane 1 gives row 1, column 0 (offset 128); the layout stores it at
    // column 8, 16 bytes on.
    assert_eq!(report["tile_offsets"][1], 128);
    assert_eq!(report["addresses"][1], 128 + 16);
    assert_eq!(report["tile_offsets"], packed["addresses"]);
    // Without --layout neither key is there.
    assert!(packed.get("layout").is_none() && packed.get("tile_offsets").is_none());
}

/// `smem analyze --layout` reads every spelling `smem advise --layout` does,
/// to the same layout (one parser).
#[test]
fn layout_spellings_are_advise_s() {
    for layout in [
        "pad:8",
        "swizzle:2,3,3",
        "Swizzle<3,3,3>",
        "tma:128",
        "triton:8,2,4",
        "nvmma:128",
        "nvmma:0",
    ] {
        let tile = ["--tile", "64x64", "--element", "half", "--layout", layout];
        let mut args = tile.to_vec();
        args.push("lane*128");
        let analyzed = json(&args);
        let mut args = tile.to_vec();
        args.push("column");
        let advised = support::json("advise", &args);
        assert_eq!(
            analyzed["layout"]["index"], advised["original"]["index"],
            "{layout}"
        );
    }
}

/// Bad layouts and accesses the layout cannot take, each with its message.
#[test]
fn bad_layouts_are_refused_with_their_reason() {
    for (layout, message) in [
        (
            "zigzag",
            "`zigzag` is not a layout: expected pad:N, swizzle:B,M,S, Swizzle<B,M,S>, \
             tma:BYTES, triton:VEC,PERPHASE,MAXPHASE or nvmma:BYTES",
        ),
        (
            "triton:3,1,8",
            "Triton's vec must be a power of two up to 65536, not 3",
        ),
        ("tma:16", "TMA swizzle of 16 bytes: expected 32, 64 or 128"),
        ("pad:x", "`x` in `pad:x` is not a number"),
        ("swizzle:3,0,2", "swizzle bit ranges overlap"),
    ] {
        let output = analyze(&["--tile", "8x8", "--layout", layout, "lane"]);
        assert_eq!(output.status.code(), Some(2), "{layout}");
        assert!(
            stderr(&output).contains(message),
            "{layout}: {}",
            stderr(&output)
        );
    }
    // --layout needs --tile, --tile and --element need --layout.
    for args in [
        &["--layout", "pad:1", "lane"][..],
        &["--tile", "8x8", "lane"],
        &["--element", "half", "lane"],
    ] {
        let output = analyze(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("required arguments were not provided"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let swizzled = ["--tile", "8x8", "--layout", "Swizzle<3,0,3>"];
    let with = |rest: &[&'static str]| [&swizzled[..], rest].concat();
    fails_with(
        &["--tile", "8x8", "--layout", "nvmma:96", "lane"],
        "error: NVMMA swizzle width of 96 bytes: expected 0, 32, 64 or 128\n",
    );
    fails_with(
        &with(&["lane*4 + 256"]),
        "error: lane 0: bytes 256 to 259 are outside the 8x8 tile of 256 bytes \
         (with --layout the addresses are offsets in the packed tile)\n",
    );
    fails_with(
        &with(&["--width", "8", "lane*8"]),
        "error: lane 4: its 8-byte access at offset 32 covers elements (1, 0) to (1, 1), \
         which the layout does not keep together\n",
    );
    fails_with(
        &with(&["--op", "ldc", "lane*4"]),
        "error: --layout places a tile in shared memory; --op ldc reads constant memory\n",
    );
}

/// Several address sets under one layout: the layout once, under the heading.
#[test]
fn a_named_layout_in_a_comparison() {
    let output = analyze(&[
        "--tile",
        "32x32",
        "--layout",
        "pad:1",
        "lane*32*4",
        "lane*4",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.starts_with(
            "LDS.32 compared: 2 requests\nlayout: pad:1 on the 32x32 tile of 4-byte elements: \
             (row, col) at 4 * (row * 33 + col)\n"
        ),
        "{out}"
    );
    let report = json(&[
        "--tile",
        "32x32",
        "--layout",
        "pad:1",
        "lane*32*4",
        "lane*4",
    ]);
    assert_eq!(report["layout"]["index"], "row * 33 + col");
    assert_eq!(report["cases"][0]["wavefronts"], 1);
    assert_eq!(report["cases"][0]["addresses"][1], 33 * 4);
    assert_eq!(report["cases"][1]["tile_offsets"][1], 4);
}
