//! The nvprof counter names `smem trace` gives pre-Volta traces, checked
//! against NVIDIA's own mapping: CUPTI's documentation (Cupti 13.0, sections
//! 2.13.3 and 2.13.4) maps each nvprof metric and event to the Perfworks
//! (Nsight Compute) metric it corresponds to on compute capability 7.0, where
//! both profilers run. `tests/data/device/cupti_mapping.tsv` holds its
//! shared-memory rows (extracted on the device by
//! `tools/device/cupti_mapping.py`). Each nvprof counter the tool names for a
//! Pascal trace must map to the Nsight Compute metric the tool names for the
//! same total of the same ops on Volta.
#![cfg(feature = "cli")]

use std::collections::HashMap;

use serde_json::Value;

mod support;

const MAPPING: &str = include_str!("data/device/cupti_mapping.tsv");

/// `(kind, nvprof name)` -> Perfworks metric or formula ("" where CUPTI gives none).
fn mapping() -> HashMap<(String, String), String> {
    MAPPING
        .lines()
        .filter(|line| !line.starts_with('#'))
        .skip(1) // the header
        .map(|line| {
            let mut cells = line.split('\t');
            let kind = cells.next().unwrap().to_owned();
            let name = cells.next().unwrap().to_owned();
            let perfworks = cells.next().unwrap_or("").to_owned();
            ((kind, name), perfworks)
        })
        .collect()
}

fn counters(report: &Value, key: &str) -> Vec<Value> {
    report[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} in {report}"))
        .clone()
}

#[test]
fn the_extract_is_the_documents_shared_rows() {
    let map = mapping();
    // The rows of the two tables that mention shared memory: 11 metrics, 8 events.
    assert_eq!(map.len(), 19);
    assert_eq!(
        map[&("metric".into(), "shared_load_transactions".into())],
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    );
    assert_eq!(
        map[&("event".into(), "shared_st_bank_conflict".into())],
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
    );
}

/// Every nvprof counter named for the Pascal sample trace is in CUPTI's
/// table with its kind (metric or event), and maps to the Nsight Compute
/// metric named for the same total and ops when the same trace is read as
/// compute capability 7.0. For the request counts CUPTI's equivalent is the
/// non-SASS instruction counter (`smsp__inst_executed_op_shared_ld.sum`),
/// which, measured on sm_90 (tests/data/device/predicated_off.json), also
/// counts instructions predicated off in every lane; the tool names the SASS
/// counter that leaves them out (`smsp__sass_inst_executed_...`), as its
/// requests do. The two differ by exactly that: the test pins it.
#[test]
fn nvprof_names_map_to_the_nsight_compute_names_of_volta() {
    let map = mapping();
    let file = "tests/data/traces/pascal.traceg";
    let pascal = support::json("trace", &[file]);
    let volta = support::json("trace", &["--arch", "sm_70", file]);
    assert_eq!(volta["archs"], serde_json::json!(["sm_70"]));
    let ncu = counters(&volta, "ncu_metrics");
    let nvprof = counters(&pascal, "nvprof_metrics");
    assert_eq!(nvprof.len(), 7, "{pascal}");
    for counter in &nvprof {
        let name = counter["metric"].as_str().unwrap();
        let kind = counter["kind"].as_str().unwrap();
        let perfworks = map
            .get(&(kind.to_owned(), name.to_owned()))
            .unwrap_or_else(|| panic!("{kind} {name} is not in CUPTI's table"));
        // CUPTI maps nvprof's transactions and conflict events to the
        // unit-level `l1tex__` counters, not to the instruction-level
        // `smsp__sass_l1tex_` ones the tool names equal.
        let twin = ncu
            .iter()
            .filter(|m| {
                counter["total"] == "requests"
                    || m["metric"].as_str().unwrap().starts_with("l1tex__")
            })
            .find(|m| m["total"] == counter["total"] && m["ops"] == counter["ops"])
            .unwrap_or_else(|| panic!("no Nsight Compute counter for {counter} in {volta}"));
        let ncu_name = twin["metric"].as_str().unwrap();
        // CUPTI's atomics formula sums three counters; the first is the plain one.
        let first_term = perfworks.split(" + ").next().unwrap();
        if counter["total"] == "requests" {
            assert_eq!(first_term, ncu_name.replacen("sass_", "", 1), "{name}");
        } else {
            assert_eq!(first_term, ncu_name, "{name}");
        }
    }
}
