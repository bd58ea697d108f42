//! Every pattern of the hardware corpus (`tests/data/hw-corpus`, see its README)
//! is predicted exactly for sm_90.
#![cfg(feature = "corpus")]

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use smem_model::corpus::{self, Summary};

fn check_file(name: &str) -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hw-corpus")
        .join(name);
    let reader = BufReader::new(File::open(&path).unwrap());
    let mut summary = Summary::default();
    for record in corpus::read(reader, name) {
        let record = record.unwrap();
        assert_eq!(record.arch, "sm_90");
        let check = record.check(None).unwrap();
        summary.add(&record, &check);
    }
    for (record, check) in summary.mismatches().iter().take(5) {
        eprintln!("{record:?}\n  predicted {check:?}");
    }
    summary
}

#[test]
fn calibration_patterns_are_exact() {
    let s = check_file("sm90-calib.jsonl");
    assert_eq!((s.exact(), s.total()), (805, 805));
}

#[test]
fn merge_patterns_are_exact() {
    let s = check_file("sm90-merge.jsonl");
    assert_eq!((s.exact(), s.total()), (312, 312));
}

#[test]
fn structured_patterns_are_exact() {
    let s = check_file("sm90-structured.jsonl");
    assert_eq!((s.exact(), s.total()), (1798, 1798));
}

/// The counting path (`BankConfig::cost`, which takes the vectorised word count
/// and the closed forms where it can) matches every measurement too, not only
/// the partition that `Record::check` builds.
#[test]
fn the_counting_path_matches_every_measurement() {
    let mut counted = 0;
    for name in [
        "sm90-calib.jsonl",
        "sm90-merge.jsonl",
        "sm90-structured.jsonl",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/hw-corpus")
            .join(name);
        for record in corpus::read(BufReader::new(File::open(&path).unwrap()), name) {
            let record = record.unwrap();
            let capability = record.capability().unwrap();
            let request = record.request(capability).unwrap();
            let cost = smem_model::BankConfig::new(capability)
                .cost(&request)
                .unwrap();
            assert_eq!(
                Some(cost.wavefronts()),
                record.wavefronts,
                "{name}: {record:?}"
            );
            if let Some(conflicts) = record.ncu_bank_conflicts {
                if matches!(request.op(), smem_model::Op::Load | smem_model::Op::Store) {
                    assert_eq!(cost.bank_conflicts(), conflicts, "{name}: {record:?}");
                }
            }
            counted += 1;
        }
    }
    assert_eq!(counted, 2915);
}
