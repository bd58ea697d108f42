//! `smem analyze --op` reads every spelling the library's `OpName` reads, its
//! size giving the width, and refuses a `--width` the name contradicts.
#![cfg(feature = "cli")]

mod support;
use support::{stderr, stdout};

fn totals(args: &[&str]) -> String {
    let output = support::smem("analyze", args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    let out = stdout(&output);
    out.lines()
        .find(|line| line.starts_with("wavefronts: "))
        .unwrap_or_else(|| panic!("no totals line in\n{out}"))
        .to_owned()
}

/// Spellings from traces, SASS and PTX give the same request as the short name
/// and `--width`.
#[test]
fn sass_and_ptx_spellings_give_their_width() {
    for (spellings, short) in [
        (
            &["LDS.U.128", "LDS.128", "ld.shared.v4.f32", "ld.shared.b128"][..],
            &["--op", "ld", "--width", "16"][..],
        ),
        (
            &["STS.64", "st.shared.v2.u32"],
            &["--op", "st", "--width", "8"],
        ),
        (
            &["ATOMS.CAS.64", "atom.shared.cas.b64"],
            &["--op", "atom.cas", "--width", "8"],
        ),
        (
            &["ATOMS.POPC.INC.32", "atom.shared.inc.u32"],
            &["--op", "atom.inc", "--width", "4"],
        ),
        (
            &["ATOMS.ARRIVE.64", "atom.shared.add.u64"],
            &["--op", "atom.add", "--width", "8"],
        ),
        (
            &[
                "LDSM.16.MT88.4",
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
            ],
            &["--op", "ldsm.x4"],
        ),
        (
            &["LDGSTS.E.BYPASS.128", "cp.async.cg.shared.global"],
            &["--op", "cp.async.cg"],
        ),
    ] {
        let mut args = short.to_vec();
        args.push("lane*16");
        let expected = totals(&args);
        for spelling in spellings {
            assert_eq!(
                totals(&["--op", spelling, "lane*16"]),
                expected,
                "{spelling}"
            );
            // The same width given again is not a contradiction.
            let width = short
                .iter()
                .position(|&a| a == "--width")
                .map_or("16", |i| short[i + 1]);
            assert_eq!(
                totals(&["--op", spelling, "--width", width, "lane*16"]),
                expected,
                "{spelling}"
            );
        }
    }
}

#[test]
fn a_width_the_name_contradicts_is_an_error() {
    let output = support::smem(
        "analyze",
        &["--op", "atom.add.u64", "--width", "4", "lane*8"],
    );
    assert_eq!(
        stderr(&output),
        "error: the op's name gives ATOMS.ADD 8 bytes per lane, but an access width of 4 bytes was given\n"
    );
    assert_eq!(stdout(&output), "");
    assert_eq!(output.status.code(), Some(1));
}
