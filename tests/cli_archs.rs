//! `smem archs`: every capability with the names `--arch` accepts, its banks,
//! shared memory and the source of its rules, as text and JSON; every name it
//! lists is accepted back.
#![cfg(feature = "cli")]

use serde_json::Value;
use smem_model::ComputeCapability;

mod support;
use support::{has_row, stdout};

#[test]
fn the_table_lists_every_capability() {
    let output = support::smem("archs", &[]);
    assert!(output.status.success());
    let out = stdout(&output);
    assert!(
        has_row(
            &out,
            &[
                "9.0", "sm_90", "Hopper", "32", "x", "4", "B", "228", "KB", "48", "KB", "227",
                "KB", "measured", "H100"
            ]
        ),
        "{out}"
    );
    assert!(
        has_row(
            &out,
            &[
                "3.5",
                "sm_35",
                "Kepler",
                "32",
                "x",
                "4/8",
                "B",
                "48",
                "KB",
                "48",
                "KB",
                "48",
                "KB",
                "guide+choice",
                "K20"
            ]
        ),
        "{out}"
    );
    assert!(
        has_row(
            &out,
            &[
                "1.3", "sm_13", "Tesla", "16", "x", "4", "B", "16", "KB", "16", "KB", "16", "KB",
                "guide", "GTX", "280"
            ]
        ),
        "{out}"
    );
    assert!(
        has_row(
            &out,
            &[
                "8.6", "sm_86", "Ampere", "32", "x", "4", "B", "100", "KB", "48", "KB", "99", "KB",
                "sm_90's", "RTX", "3090"
            ]
        ),
        "{out}"
    );
    for cc in ComputeCapability::ALL {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().nth(1) == Some(cc.sm_name())),
            "{cc} missing"
        );
    }
    assert!(
        out.contains("  11.0: sm_110, 11.0, sm_101, 10.1, Thor,"),
        "{out}"
    );
}

#[test]
fn json_has_a_schema_and_every_name_parses_back() {
    let report = support::json("archs", &[]);
    assert_eq!(report["schema"], "smem-archs/1");
    let all = report["capabilities"].as_array().unwrap();
    assert_eq!(all.len(), ComputeCapability::ALL.len());
    for (entry, cc) in all.iter().zip(ComputeCapability::ALL) {
        assert_eq!(entry["sm"], cc.sm_name());
        assert_eq!(entry["shared_memory_per_sm"], cc.shared_memory_per_sm());
        let names = entry["names"].as_array().unwrap().iter();
        let aliases = entry["aliases"].as_array().unwrap().iter();
        for name in names.chain(aliases).map(|n| n.as_str().unwrap()) {
            assert_eq!(name.parse::<ComputeCapability>(), Ok(cc), "{name}");
        }
    }
    let rules: Vec<&Value> = all.iter().map(|c| &c["rules"]).collect();
    assert_eq!(rules[0], "documented");
    assert_eq!(rules[8], "documented-and-chosen");
    assert_eq!(all[23]["rules"], "measured");
    assert_eq!(all[20]["rules"], "measured-on-sm90");
    assert_eq!(all[8]["bank_widths"], serde_json::json!([4, 8]));
}

#[test]
fn names_work_in_every_subcommand_with_arch() {
    let output = support::smem("occupancy", &["--arch", "RTX 4090", "--dynamic", "1024"]);
    assert!(output.status.success(), "{}", support::stderr(&output));
    assert!(stdout(&output).contains("8.9"), "{}", stdout(&output));
    let output = support::smem("report", &["--arch", "ampere", "--section", "access"]);
    assert!(output.status.success());
    assert_eq!(
        support::stderr(&output),
        "note: ampere is taken as compute capability 8.0 (sm_80, A100); Ampere is also 8.6, 8.7: \
         name the GPU or version where capacities matter\n"
    );
}
