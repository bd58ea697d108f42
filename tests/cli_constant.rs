//! `smem analyze --op ldc`: a warp's constant-memory load, one serialised
//! constant-cache request per distinct address (per half-warp on 1.x).
#![cfg(feature = "cli")]

mod support;
use support::{stderr, stdout};

#[test]
fn distinct_addresses_are_serialised() {
    let output = support::smem("analyze", &["--op", "ldc", "lane/8*4"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).starts_with(
        "LDC.32 on sm_90: 4 serialised constant-cache requests (4 distinct addresses)\n  \
         0x0000: lanes 0-7\n"
    ));
    for (expr, arch, wavefronts) in [
        ("0", "sm_90", 1),
        ("lane*4", "sm_90", 32),
        ("lane%2*8", "sm_80", 2),
        ("0", "sm_13", 2),
        ("lane/16*4", "sm_13", 2),
        ("lane*4", "sm_13", 32),
    ] {
        let report = support::json("analyze", &["--op", "ldc", "--arch", arch, expr]);
        assert_eq!(report["wavefronts"], wavefronts, "{expr} on {arch}");
        assert_eq!(report["op"], "LDC");
        assert_eq!(report["schema"], "smem-analyze-ldc/1");
    }
    let report = support::json("analyze", &["--op", "ld.const", "--width", "8", "lane%3*8"]);
    assert_eq!(report["distinct_addresses"], serde_json::json!([0, 8, 16]));
}

#[test]
fn past_the_constant_bank_is_an_error() {
    let output = support::smem("analyze", &["--op", "ldc", "65536"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: lane 0 reads constant bytes 0x10000 to 0x10004, past the end of the 65536-byte constant bank\n"
    );
}
