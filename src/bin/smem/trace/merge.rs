//! `smem trace --merge`: the `--json` reports of several runs (over different
//! files, machines, Dask workers) added into one, as one run over all their
//! files would report it.
//!
//! Every count is a sum and the worst ways a maximum (`Totals::merge` of
//! the library), so the merged totals, per-op totals, Nsight Compute
//! predictions and counts equal one run's exactly. The instruction ranking
//! is merged from the instructions each report lists (its `--top`): an
//! instruction below the top of every report is missing from it, so the
//! merged `top` is exact only when the reports listed every instruction.
//! `by_line` is left out.
//!
//! Sums are checked: a count that would pass 2^64 - 1 is an error naming it,
//! never a wrapped number reported as success. Time is linear in the entries
//! of the reports (each instruction and metric is found through a map).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_json::{json, Map, Value};
use smem_model::kernel::tally::Totals;

/// The schema every merged report must carry.
const SCHEMA: &str = "smem-trace/1";

/// The lists of profiler counters, each summed by name.
const METRIC_KEYS: [&str; 2] = ["ncu_metrics", "nvprof_metrics"];

/// The counts summed as they are.
const SUMS: [&str; 7] = [
    "other_instructions",
    "predicated_off",
    "constant_loads",
    "constant_requests",
    "constant_loads_without_addresses",
    "lines_not_analysed",
    "files_not_read",
];

fn totals(value: &Value) -> Result<Totals, String> {
    serde_json::from_value(value.clone()).map_err(|e| format!("totals: {e}"))
}

/// `sum + more`, or an error naming the count that would pass 2^64 - 1.
fn add(sum: u64, more: u64, what: &dyn std::fmt::Display) -> Result<u64, String> {
    sum.checked_add(more)
        .ok_or_else(|| format!("{what}: the sum passes 2^64 - 1 ({sum} + {more})"))
}

/// `total.merge(more)`, each sum checked first.
fn merge_totals(
    total: &mut Totals,
    more: &Totals,
    what: &dyn std::fmt::Display,
) -> Result<(), String> {
    for (name, sum, other) in [
        ("requests", total.requests, more.requests),
        ("wavefronts", total.wavefronts, more.wavefronts),
        (
            "ideal_wavefronts",
            total.ideal_wavefronts,
            more.ideal_wavefronts,
        ),
        ("bank_conflicts", total.bank_conflicts, more.bank_conflicts),
        (
            "conflicted_requests",
            total.conflicted_requests,
            more.conflicted_requests,
        ),
    ] {
        add(sum, other, &format_args!("{what}: `{name}`"))?;
    }
    total.merge(more);
    Ok(())
}

fn totals_value(totals: &Totals) -> Map<String, Value> {
    match serde_json::to_value(totals) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Merges the reports in `paths` into one `smem-trace/1` report.
pub(super) fn merge(paths: &[impl AsRef<Path>]) -> Result<Value, String> {
    let mut files: Vec<Value> = Vec::new();
    let mut archs: BTreeSet<String> = BTreeSet::new();
    let mut total = Totals::default();
    let mut sums: BTreeMap<&str, u64> = SUMS.iter().map(|k| (*k, 0)).collect();
    let mut not_modelled: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_op: BTreeMap<String, Totals> = BTreeMap::new();
    // Per profiler key, metric name -> (the entry's other fields, predicted,
    // ops), in the order first seen.
    type Metrics = Vec<(String, Map<String, Value>, u64, BTreeSet<String>)>;
    let mut metrics: BTreeMap<&str, Metrics> = BTreeMap::new();
    let mut top: Vec<(String, Map<String, Value>, Totals)> = Vec::new();
    // Where each instruction (and each metric of a list) is, so that a
    // report of many entries merges in linear time.
    let mut top_index: HashMap<String, usize> = HashMap::new();
    let mut metric_index: HashMap<(&str, String), usize> = HashMap::new();
    let mut listed = 0;
    for path in paths {
        let path = path.as_ref();
        let name = path.display();
        let text = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        let report: Value = serde_json::from_slice(&text)
            .map_err(|e| format!("{name}: not a JSON report of smem trace --json: {e}"))?;
        if report["schema"] != SCHEMA {
            return Err(format!(
                "{name}: not a report of smem trace --json (its schema is {}, not \"{SCHEMA}\")",
                report["schema"]
            ));
        }
        let at = |what: &str, e: String| format!("{name}: {what}: {e}");
        let report_totals = totals(&report).map_err(|e| at("the totals", e))?;
        merge_totals(
            &mut total,
            &report_totals,
            &format_args!("{name}: the totals"),
        )?;
        files.extend(report["files"].as_array().cloned().unwrap_or_default());
        for arch in report["archs"].as_array().into_iter().flatten() {
            archs.extend(arch.as_str().map(str::to_owned));
        }
        for (key, sum) in &mut sums {
            let count = report[*key]
                .as_u64()
                .ok_or_else(|| format!("{name}: `{key}` is not a count"))?;
            *sum = add(*sum, count, &format_args!("{name}: `{key}`"))?;
        }
        for (op, count) in report["not_modelled"].as_object().into_iter().flatten() {
            let sum = not_modelled.entry(op.clone()).or_default();
            let what = format_args!("{name}: not modelled `{op}`");
            *sum = add(*sum, count.as_u64().unwrap_or(0), &what)?;
        }
        for (op, value) in report["by_op"].as_object().into_iter().flatten() {
            let op_totals = totals(value).map_err(|e| at(op, e))?;
            let what = format_args!("{name}: {op}");
            merge_totals(by_op.entry(op.clone()).or_default(), &op_totals, &what)?;
        }
        for key in METRIC_KEYS {
            let known_metrics = metrics.entry(key).or_default();
            for metric in report[key].as_array().into_iter().flatten() {
                let metric_name = metric["metric"].as_str().unwrap_or_default().to_owned();
                let predicted = metric["predicted"].as_u64().unwrap_or(0);
                let ops = metric["ops"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|o| o.as_str().map(str::to_owned));
                match metric_index.get(&(key, metric_name.clone())) {
                    Some(&at) => {
                        let known = &mut known_metrics[at];
                        known.2 = add(known.2, predicted, &format_args!("{name}: {metric_name}"))?;
                        known.3.extend(ops);
                        // A sum is exact only where every part is: the
                        // weaker relation (and its reason) wins.
                        let rank = |v: Option<&Value>| match v.and_then(Value::as_str) {
                            Some("estimate") => 2,
                            Some("at_least") => 1,
                            _ => 0,
                        };
                        if rank(metric.get("relation")) > rank(known.1.get("relation")) {
                            for field in ["relation", "reason"] {
                                if let Some(v) = metric.get(field) {
                                    known.1.insert(field.into(), v.clone());
                                }
                            }
                        }
                    }
                    None => {
                        metric_index.insert((key, metric_name.clone()), known_metrics.len());
                        // `total`, and nvprof's `kind`, as the first report gives them.
                        let mut fields = metric.as_object().cloned().unwrap_or_default();
                        for field in ["metric", "predicted", "ops"] {
                            fields.remove(field);
                        }
                        known_metrics.push((metric_name, fields, predicted, ops.collect()));
                    }
                }
            }
        }
        let entries = report["top"].as_array().cloned().unwrap_or_default();
        listed = listed.max(entries.len());
        for entry in entries {
            let Value::Object(entry) = entry else {
                continue;
            };
            let key = entry
                .get("instruction")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let entry_totals = totals(&Value::Object(entry.clone())).map_err(|e| at(&key, e))?;
            match top_index.get(&key) {
                Some(&at) => {
                    let what = format_args!("{name}: {key}");
                    merge_totals(&mut top[at].2, &entry_totals, &what)?;
                }
                None => {
                    top_index.insert(key.clone(), top.len());
                    top.push((key, entry, entry_totals));
                }
            }
        }
    }
    // Most bank conflicts first, then the order the reports list them.
    top.sort_by_key(|(.., t)| std::cmp::Reverse(t.bank_conflicts));
    top.truncate(listed);
    let mut out = Map::new();
    out.insert("schema".into(), json!(SCHEMA));
    out.insert("files".into(), Value::Array(files));
    out.insert("archs".into(), json!(archs));
    out.extend(totals_value(&total));
    for (key, sum) in &sums {
        if !key.starts_with("lines") && !key.starts_with("files") {
            out.insert((*key).into(), json!(sum));
        }
    }
    out.insert("not_modelled".into(), json!(not_modelled));
    for key in ["lines_not_analysed", "files_not_read"] {
        out.insert(key.into(), json!(sums[key]));
    }
    out.insert(
        "by_op".into(),
        Value::Object(
            by_op
                .iter()
                .map(|(op, t)| (op.clone(), Value::Object(totals_value(t))))
                .collect(),
        ),
    );
    for key in METRIC_KEYS {
        let list = metrics.remove(key).unwrap_or_default();
        // As one run prints it: nvprof's list only when it has entries.
        if key == "nvprof_metrics" && list.is_empty() {
            continue;
        }
        let entries = list
            .into_iter()
            .map(|(metric, fields, predicted, ops)| {
                let mut entry = Map::new();
                entry.insert("metric".into(), json!(metric));
                entry.extend(fields);
                entry.insert("predicted".into(), json!(predicted));
                entry.insert("ops".into(), json!(ops));
                Value::Object(entry)
            })
            .collect();
        out.insert(key.into(), Value::Array(entries));
    }
    out.insert(
        "top".into(),
        Value::Array(
            top.into_iter()
                .map(|(_, mut entry, t)| {
                    entry.extend(totals_value(&t));
                    Value::Object(entry)
                })
                .collect(),
        ),
    );
    Ok(Value::Object(out))
}
