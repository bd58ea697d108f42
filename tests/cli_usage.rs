//! Usage errors exit with status 2 in every subcommand, with clap's message
//! naming the argument: an unknown option, and `smem analyze`'s mistyped
//! option among its address expressions.
#![cfg(feature = "cli")]

mod support;
use support::stderr;

const SUBCOMMANDS: [&str; 9] = [
    "report",
    "analyze",
    "trace",
    "kernel",
    "occupancy",
    "racecheck",
    "advise",
    "archs",
    "verify",
];

#[test]
fn an_unknown_option_is_a_usage_error_in_every_subcommand() {
    for subcommand in SUBCOMMANDS {
        let output = support::smem(subcommand, &["--nope"]);
        assert_eq!(output.status.code(), Some(2), "smem {subcommand} --nope");
        let err = stderr(&output);
        assert!(
            err.starts_with("error: unexpected argument '--nope' found"),
            "smem {subcommand} --nope: {err}"
        );
        assert!(err.contains("Usage: smem "), "smem {subcommand}: {err}");
    }
}

#[test]
fn an_unknown_subcommand_is_a_usage_error() {
    let output = support::smem("op-names", &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with("error: unrecognized subcommand 'op-names'"));
}
