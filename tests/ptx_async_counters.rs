//! TMA copies, mbarriers and distributed shared memory against Nsight
//! Compute on an H200 (tests/data/ncu/s4e_async, README.md there): none of
//! them is a shared-memory request, and `smem kernel` counts none (the LSU
//! counters hold only the kernel's own LDS/STS), while distributed accesses
//! are listed as not modelled, never taken for local ones.
#![cfg(feature = "cli")]

use std::path::PathBuf;

use serde_json::Value;

mod support;
use support::stderr;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ncu/s4e_async")
}

/// The counters of launch `id` of an export.
fn measured(file: &str, id: usize, metric: &str) -> f64 {
    let text = std::fs::read_to_string(dir().join(file)).unwrap();
    let start = text.find("\"ID\"").unwrap();
    let mut reader = csv::Reader::from_reader(&text.as_bytes()[start..]);
    let header = reader.headers().unwrap().clone();
    let col = header.iter().position(|h| h == metric).unwrap();
    let row = reader
        .records()
        .map(Result::unwrap)
        .find(|r| r[0] == id.to_string())
        .unwrap();
    row[col].replace(',', "").parse().unwrap_or(0.0)
}

fn run(args: &[&str]) -> Value {
    let output = support::smem("kernel", args);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stderr(&output)))
}

fn predicted(report: &Value, metric: &str) -> f64 {
    report["ncu_metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == metric)
        .map_or(0.0, |m| m["predicted"].as_f64().unwrap())
}

const LSU: [&str; 4] = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
];

#[test]
fn tma_tile_loads_are_not_lsu_requests() {
    let ptx = dir().join("tma.ptx").display().to_string();
    // Launch 0 of ncu_tma.csv: 256x64 (CUDA order) fp16, box 32x16 at (32, 8),
    // no swizzle, into the 1,024-byte-aligned base; no copy back, one LDS
    // of the tile by thread 0.
    let report = run(&[
        &ptx,
        "--kernel",
        "tma_load_kernel",
        "--grid",
        "1",
        "--block",
        "128",
        "--dynamic-shared",
        "98304",
        "--tensor-map",
        "0=dims:64x256,box:16x32,elem:2",
        "--arg",
        "1=2",
        "--arg",
        // int4 {32, 8, 0, 0}
        "2=0x00000000000000000000000800000020",
        "--arg",
        "3=0",
        "--arg",
        "4=0",
        "--arg",
        "5=1024",
        "--arg",
        "6=2048",
        "--arg",
        "9=0",
        "--json",
    ]);
    for metric in LSU {
        assert_eq!(
            predicted(&report, metric),
            measured("ncu_tma.csv", 0, metric),
            "{metric}"
        );
    }
    assert!(report["races"]["hazards"].as_array().unwrap().is_empty());
    assert!(report["races"]["barrier_errors"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn distributed_shared_accesses_are_listed_never_counted_as_local() {
    let ptx = dir().join("cluster.ptx").display().to_string();
    // The cases of ncu_cluster.csv, launch by launch; the cluster comes from
    // the kernel's .reqnctapercluster.
    let remote = [
        Some("ld.shared::cluster.u32"),
        Some("ld.shared::cluster.u32"),
        Some("st.shared::cluster.u32"),
        Some("st.shared::cluster.u32"),
        Some("atom.shared::cluster.add.u32"),
        None,
        Some("ld.shared::cluster.u32"),
        None,
    ];
    for (case, remote) in remote.iter().enumerate() {
        let which = format!("0={case}");
        let report = run(&[
            &ptx, "--grid", "2", "--block", "32", "--arg", &which, "--json",
        ]);
        for metric in LSU
            .iter()
            .chain(&["smsp__sass_inst_executed_op_shared_atom.sum"])
        {
            assert_eq!(
                predicted(&report, metric),
                measured("ncu_cluster.csv", case, metric),
                "case {case}: {metric}"
            );
        }
        let listed = report["not_modelled"].as_object().unwrap();
        match remote {
            Some(name) => {
                let dshared = measured(
                    "ncu_cluster_ext_ac.csv",
                    case,
                    "smsp__sass_inst_executed_op_dshared.sum",
                );
                assert_eq!(listed[*name].as_f64().unwrap(), dshared, "case {case}");
            }
            None => assert!(listed.is_empty(), "case {case}: {listed:?}"),
        }
    }
}
