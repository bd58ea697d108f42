//! `smem_model.triton_kernel` on real Triton compiled kernels, pinned.
//!
//! tests/data/device/triton_real/triton_check.json is what
//! tools/device/triton_check.py printed on the device machine (an H200,
//! Triton 3.6.0, torch 2.11.0+cu130, Python 3.12.3, the abi3 wheel of this
//! crate installed with pip): for each Triton fixture of tests/data/ptx, the
//! object the `@triton.jit` launch returned (a `CompiledKernel`) given to
//! `triton_kernel` with the call's own arguments (torch tensors, ints, a
//! float), and for two of them also the object `triton.compile` returned.
//! This test runs the library on the committed PTX of the same fixture and
//! asserts the same counts, so the Python helper's reading of a real
//! compiled kernel (its PTX, `num_warps`, `shared`, target) and the
//! library's own reading of the committed files agree.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::tally::Tally;
use smem_model::ComputeCapability;

fn data(path: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check() -> Value {
    serde_json::from_str(&data("tests/data/device/triton_real/triton_check.json")).unwrap()
}

/// The runs made on the committed kernels: the JIT's own, and
/// `triton.compile` of the JIT's source object (the same kernel).
fn same_kernel_runs(check: &Value) -> Vec<&Value> {
    check["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            let how = r["how"].as_str().unwrap();
            how.starts_with("jit launch") || how.starts_with("triton.compile(compiled.src)")
        })
        .collect()
}

/// What the library gives for the committed PTX of `fixture`, launched as
/// the device run was (grid, `num_warps` * 32 threads, `shared` dynamic
/// bytes, the scalar arguments; tensors left to fake pointers), in the form
/// `TraceSummary.to_dict()` has.
fn library_summary(fixture: &str, result: &Value) -> (Value, u64, u64) {
    let text = data(&format!("tests/data/ptx/{fixture}/kernel.ptx"));
    let module = ptx::parse(&text).unwrap();
    let meta = &result["metadata"];
    let kernel = Kernel::new(&module, meta["name"].as_str()).unwrap();
    let grid: Vec<u32> = result["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .chain([1, 1])
        .collect();
    let warps = meta["num_warps"].as_u64().unwrap() as u32;
    let mut launch = KernelLaunch::new([grid[0], grid[1], grid[2]], [warps * 32, 1, 1])
        .unwrap()
        .with_dynamic_shared(meta["shared"].as_u64().unwrap() as u32);
    for (i, arg) in result["args"].as_array().unwrap().iter().enumerate() {
        if arg.is_number() {
            launch = launch.with_arg(format!("{i}={arg}").parse().unwrap());
        }
    }
    let mut tally = Tally::new().with_capability(ComputeCapability::Sm90);
    let run = kernel.run(&launch, &RunOptions::new(), &mut tally).unwrap();
    let totals = |t: smem_model::kernel::tally::Totals| {
        serde_json::json!({
            "requests": t.requests,
            "wavefronts": t.wavefronts,
            "ideal_wavefronts": t.ideal_wavefronts,
            "bank_conflicts": t.bank_conflicts,
            "conflicted_requests": t.conflicted_requests,
            "worst_ways": t.worst_ways,
        })
    };
    let by_op: BTreeMap<String, Value> = tally
        .by_op()
        .into_iter()
        .map(|((op, width), t)| (format!("{op}.{}", width.bytes() * 8), totals(t)))
        .collect();
    (
        serde_json::json!({ "totals": totals(tally.totals()), "by_op": by_op }),
        run.blocks_run,
        run.warp_instructions,
    )
}

#[test]
fn every_triton_fixture_was_checked_on_a_real_compiled_kernel() {
    let check = check();
    assert_eq!(check["triton"], "3.6.0");
    assert_eq!(check["errors"].as_array().unwrap().len(), 0);
    let runs = same_kernel_runs(&check);
    let fixtures: std::collections::BTreeSet<&str> = runs
        .iter()
        .map(|r| r["fixture"].as_str().unwrap())
        .collect();
    assert_eq!(
        fixtures.into_iter().collect::<Vec<_>>(),
        [
            "triton_colsum",
            "triton_layer_norm",
            "triton_matmul",
            "triton_matmul_w2",
            "triton_softmax",
            "triton_transpose"
        ]
    );
    for r in &runs {
        assert_eq!(
            r["compiled_type"], "triton.compiler.compiler.CompiledKernel",
            "{r}"
        );
        // ncu's instruction counts exactly, its wavefronts within 1%: the
        // device run compared them with the committed ncu.json.
        assert_eq!(r["instructions_exact"], true, "{}", r["fixture"]);
        assert_eq!(r["wavefronts_within_1pct"], true, "{}", r["fixture"]);
        assert_eq!(r["run"]["sampled"], false);
        // The compiled PTX is the committed one but for the source path
        // (the `.file` line and the same path's bytes in the DWARF strings):
        // every changed line of the recorded diff is one of those.
        for line in r["ptx_diff"].as_array().unwrap().iter().skip(2) {
            let line = line.as_str().unwrap();
            if line.starts_with("@@") {
                continue;
            }
            let body = line[1..].trim_start();
            assert!(
                body.starts_with(".file") || body.starts_with(".b8"),
                "{}: {line}",
                r["fixture"]
            );
        }
    }
}

#[test]
fn the_device_runs_equal_the_library_on_the_committed_ptx() {
    let check = check();
    for r in same_kernel_runs(&check) {
        let fixture = r["fixture"].as_str().unwrap();
        let (summary, blocks, warp_instructions) = library_summary(fixture, r);
        let device = &r["run"]["summary"];
        let (summary, device) = (
            without_bypass_cost(&summary, fixture),
            without_bypass_cost(device, fixture),
        );
        assert_eq!(summary["totals"], device["totals"], "{fixture}");
        assert_eq!(fold_trans(&summary["by_op"]), device["by_op"], "{fixture}");
        assert_eq!(
            blocks,
            r["run"]["blocks_run"].as_u64().unwrap(),
            "{fixture}"
        );
        assert_eq!(
            warp_instructions,
            r["run"]["warp_instructions"].as_u64().unwrap(),
            "{fixture}"
        );
    }
}

#[test]
fn a_kernel_compiled_without_the_jit_specialization_is_another_kernel() {
    // triton.compile(ASTSource(...)) without the JIT's divisibility
    // attributes gives other PTX (half the shared bytes): its counts are its
    // own, not the measured fixture's, and the device run says so.
    let check = check();
    let other: Vec<&Value> = check["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["how"]
                .as_str()
                .unwrap()
                .contains("without the JIT's specialization")
        })
        .collect();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0]["ptx_equals_committed_but_file_lines"], false);
    assert_eq!(other[0]["metadata"]["shared"], 512);
    assert_eq!(other[0]["instructions_exact"], false);
}

/// A summary without what `cp.async.cg` costs beyond its requests: the
/// device runs were recorded by a library that costed a copy with a src-size
/// register at its shared side; since session 6 (issue 34) the copies that
/// read follow the bypass rule (`tests/ncu_profile.rs`, exact on
/// `triton_matmul_w2`), so only their requests and the other ops' figures
/// can still agree. The totals keep their requests and ideal wavefronts.
fn without_bypass_cost(summary: &Value, fixture: &str) -> Value {
    let mut s = summary.clone();
    if let Some(entry) = s["by_op"].get_mut("LDGSTS.BYPASS.128") {
        let requests = entry["requests"].clone();
        assert!(requests.as_u64().unwrap() > 0, "{fixture}");
        *entry = serde_json::json!({ "requests": requests });
        let totals = &mut s["totals"];
        *totals = serde_json::json!({
            "requests": totals["requests"],
            "ideal_wavefronts": totals["ideal_wavefronts"],
        });
    }
    s
}

/// `by_op` with each `.trans` form added into its plain one: the device runs
/// were recorded by a library that did not keep `ldmatrix`/`stmatrix`'s
/// `.trans` apart (issue 34 keeps it; the counts are the same requests).
fn fold_trans(by_op: &serde_json::Value) -> serde_json::Value {
    let mut folded = serde_json::Map::new();
    for (op, counts) in by_op.as_object().unwrap() {
        let plain = op.replace(".trans", "");
        let entry = folded.entry(plain).or_insert_with(|| serde_json::json!({}));
        for (field, value) in counts.as_object().unwrap() {
            let value = value.as_u64().unwrap();
            let old = entry.get(field).and_then(serde_json::Value::as_u64);
            let new = match (field.as_str(), old) {
                ("worst_ways", Some(old)) => old.max(value),
                (_, Some(old)) => old + value,
                (_, None) => value,
            };
            entry[field] = new.into();
        }
    }
    serde_json::Value::Object(folded)
}
