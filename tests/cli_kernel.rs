//! `smem kernel` end to end on the measured fixtures of tests/data/ptx: the
//! ncu metrics in `--json` equal the measurements, Triton inputs take their
//! metadata, races set the exit status, and bad input is a clear error with
//! status 2.
#![cfg(feature = "cli")]

use std::process::Output;

use serde_json::Value;

mod support;
use support::{stderr, stdout};

const DATA: &str = "tests/data/ptx";

fn kernel(args: &[&str]) -> Output {
    support::smem("kernel", args)
}

fn json(args: &[&str]) -> (Value, Option<i32>) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = kernel(&all);
    let value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&output), stderr(&output)));
    (value, output.status.code())
}

fn metric(report: &Value, name: &str) -> u64 {
    report["ncu_metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == name)
        .map_or(0, |m| m["predicted"].as_u64().unwrap())
}

fn ncu(fixture: &str, name: &str) -> u64 {
    let text = std::fs::read_to_string(format!("{DATA}/{fixture}/ncu.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["key"][name].as_u64().unwrap()
}

#[test]
fn transpose_predicts_ncus_counts_and_names_the_conflicting_line() {
    let ptx = format!("{DATA}/transpose_coalesced/kernel.ptx");
    let (report, status) = json(&[&ptx, "--grid", "8,8", "--block", "32,8", "--by-line"]);
    assert_eq!(status, Some(0));
    // Each prediction named by the counter it equals (instruction level),
    // the unit-level ones as lower bounds; on this small grid (64 blocks)
    // ncu measured no arbitration, so those are equal too.
    for (name, relation) in [
        ("smsp__sass_inst_executed_op_shared_ld.sum", "equal"),
        ("smsp__sass_inst_executed_op_shared_st.sum", "equal"),
        (
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "at_least",
        ),
        (
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "at_least",
        ),
        (
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "at_least",
        ),
    ] {
        assert_eq!(
            metric(&report, name),
            ncu("transpose_coalesced", name),
            "{name}"
        );
        let entry = report["ncu_metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["metric"] == name)
            .unwrap();
        assert_eq!(entry["relation"], relation, "{name}");
        assert_eq!(entry["reason"].is_string(), relation != "equal", "{name}");
    }
    assert_eq!(
        metric(
            &report,
            "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
        ),
        ncu(
            "transpose_coalesced",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
        )
    );
    assert_eq!(metric(&report, "L1 Wavefronts Shared Excessive"), 63_488);
    assert_eq!(report["schema"], "smem-kernel/2");
    assert_eq!(report["blocks_run"], 64);
    assert_eq!(report["sampled"], false);
    // The column reads of the tile are the worst line.
    let worst = &report["by_line"][0];
    assert!(worst["source_line"]
        .as_str()
        .unwrap()
        .starts_with("transpose_coalesced.cu:"));
    assert_eq!(worst["bank_conflicts"], 63_488);
}

/// Before compute capability 7.0 Nsight Compute does not run: on 5.x and
/// 6.x the totals are given under nvprof's counters (`nvprof_metrics`, as
/// `smem trace` gives them), on 3.x and earlier under none, said so.
#[test]
fn pre_volta_launches_name_nvprof_counters() {
    let ptx = format!("{DATA}/transpose_coalesced/kernel.ptx");
    let launch = [ptx.as_str(), "--grid", "8,8", "--block", "32,8"];
    let (volta, _) = json(&[&launch[..], &["--arch", "sm_70"]].concat());
    let (pascal, status) = json(&[&launch[..], &["--arch", "sm_61"]].concat());
    assert_eq!(status, Some(0));
    assert_eq!(pascal["ncu_metrics"], serde_json::json!([]));
    let nvprof = pascal["nvprof_metrics"].as_array().unwrap();
    let find = |name: &str| {
        nvprof
            .iter()
            .find(|m| m["metric"] == name)
            .unwrap_or_else(|| panic!("{name} in {pascal}"))
    };
    // The same totals as on Volta (4-byte accesses: the same rules), each
    // under nvprof's name, CUPTI's counterpart of Nsight Compute's metric.
    for (nvprof_name, kind, ncu_name) in [
        (
            "inst_executed_shared_loads",
            "metric",
            "smsp__sass_inst_executed_op_shared_ld.sum",
        ),
        (
            "shared_load_transactions",
            "metric",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        ),
        (
            "shared_ld_bank_conflict",
            "event",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        ),
        (
            "shared_store_transactions",
            "metric",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        ),
    ] {
        let m = find(nvprof_name);
        assert_eq!(m["kind"], kind, "{nvprof_name}");
        assert_eq!(
            m["predicted"].as_u64().unwrap(),
            metric(&volta, ncu_name),
            "{nvprof_name}"
        );
    }
    assert!(volta.get("nvprof_metrics").is_none(), "{volta}");
    let text = stdout(&kernel(&[&launch[..], &["--arch", "sm_61"]].concat()));
    assert!(
        text.contains("nvprof counter") && text.contains("shared_ld_bank_conflict"),
        "{text}"
    );
    assert!(!text.contains("l1tex__"), "{text}");
    // Kepler: no names, and the reason.
    let (kepler, _) = json(&[&launch[..], &["--arch", "sm_35"]].concat());
    assert_eq!(kepler["ncu_metrics"], serde_json::json!([]));
    assert!(kepler.get("nvprof_metrics").is_none(), "{kepler}");
    let text = stdout(&kernel(&[&launch[..], &["--arch", "sm_35"]].concat()));
    assert!(
        text.contains("no profiler names for compute capability 3.x"),
        "{text}"
    );
}

#[test]
fn a_triton_kernel_json_gives_block_and_shared_bytes() {
    // fx_colsum: 4 warps, 1024 dynamic bytes, from kernel.json; M = N = stride = 512.
    let meta = format!("{DATA}/triton_colsum/kernel.json");
    // Status 0: the warps' stores of the same column sums to one tile are no
    // write-write hazard (compute-sanitizer's same-value rule; the sums of
    // global data are equal by value numbering).
    let (report, status) = json(&[
        &meta, "--grid", "8", "--arg", "2=512", "--arg", "3=512", "--arg", "4=512",
    ]);
    assert_eq!(status, Some(0));
    assert!(report["races"]["hazards"].as_array().unwrap().is_empty());
    assert_eq!(report["kernel"], "fx_colsum");
    assert_eq!(report["block"], serde_json::json!([128, 1, 1]));
    assert_eq!(report["dynamic_shared"], 1024);
    for name in [
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "smsp__sass_inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    ] {
        assert_eq!(metric(&report, name), ncu("triton_colsum", name), "{name}");
    }
}

#[test]
fn races_and_barrier_errors_set_exit_status_1() {
    let ptx = format!("{DATA}/racy_neighbour/kernel.ptx");
    let (report, status) = json(&[&ptx, "--grid", "2", "--block", "128"]);
    assert_eq!(status, Some(1));
    assert!(!report["races"]["hazards"].as_array().unwrap().is_empty());
    let ptx = format!("{DATA}/divergent_barrier/kernel.ptx");
    let output = kernel(&[&ptx, "--grid", "1", "--block", "64"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("barrier error"),
        "{}",
        stdout(&output)
    );
}

/// The `file:line`s compute-sanitizer names in a fixture's report, after
/// `marker` (`Write Thread`, `Read Thread`, `Barrier error` ...).
fn sanitizer_lines(fixture: &str, report: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{DATA}/{fixture}/{report}")).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.rsplit_once(" in ").map(|(_, at)| at.trim().to_owned()))
        .filter(|at| at.contains(".cu:"))
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

/// The PTX text of line `n` (from 1) of a fixture.
fn ptx_line(fixture: &str, n: u64) -> String {
    let text = std::fs::read_to_string(format!("{DATA}/{fixture}/kernel.ptx")).unwrap();
    text.lines().nth(n as usize - 1).unwrap().trim().to_owned()
}

#[test]
fn races_name_the_lines_compute_sanitizer_names() {
    // racy_neighbour (2 blocks of 128): compute-sanitizer's racecheck reports
    // a write at racy_neighbour.cu:10 racing with reads at :12, first in
    // block (0,0,0) (racecheck.txt).
    let fixture = "racy_neighbour";
    assert_eq!(
        sanitizer_lines(fixture, "racecheck.txt"),
        ["racy_neighbour.cu:10", "racy_neighbour.cu:12"]
    );
    let ptx = format!("{DATA}/{fixture}/kernel.ptx");
    let (report, status) = json(&[&ptx, "--grid", "2", "--block", "128"]);
    assert_eq!(status, Some(1));
    let hazards = report["races"]["hazards"].as_array().unwrap();
    assert_eq!(hazards.len(), 4, "{hazards:#?}");
    for h in hazards {
        assert_eq!(h["kind"], "read-write");
        assert_eq!(h["first"]["access"], "write");
        assert_eq!(h["first"]["source_line"], "racy_neighbour.cu:10");
        assert_eq!(h["second"]["access"], "read");
        assert_eq!(h["second"]["source_line"], "racy_neighbour.cu:12");
        // The PTX lines are decimal line numbers of the instructions.
        let first = ptx_line(fixture, h["first"]["ptx_line"].as_u64().unwrap());
        let second = ptx_line(fixture, h["second"]["ptx_line"].as_u64().unwrap());
        assert!(first.starts_with("st.shared.u32"), "{first}");
        assert!(second.starts_with("ld.shared.u32"), "{second}");
        assert_eq!(h["blocks"], 2);
        assert_eq!(h["example_block"], serde_json::json!([0, 0, 0]));
    }
    // The errors are the pairs across warps: thread 32 (warp 1 lane 0)
    // writes the word thread 31 (warp 0 lane 31) reads, 4 bytes a block
    // boundary, 4 boundaries (3 inside, 1 wrapping), 2 blocks.
    let error = &hazards[0];
    assert_eq!(error["severity"], "error");
    assert_eq!(error["bytes"], 32);
    assert_eq!(error["example_address"], 0x80);
    assert_eq!(
        error["first"],
        serde_json::json!({"ptx_line": 43, "source_line": "racy_neighbour.cu:10",
            "warp": 1, "lane": 0, "thread": [32, 0, 0], "access": "write"})
    );
    assert_eq!(
        error["second"],
        serde_json::json!({"ptx_line": 48, "source_line": "racy_neighbour.cu:12",
            "warp": 0, "lane": 31, "thread": [31, 0, 0], "access": "read"})
    );
    let output = kernel(&[&ptx, "--grid", "2", "--block", "128"]);
    let text = stdout(&output);
    assert!(
        text.contains(
            "races: 4 hazards, 0 barrier errors\n  \
             error read-write: write at PTX line 43 (racy_neighbour.cu:10) and read at \
             PTX line 48 (racy_neighbour.cu:12), in 2 blocks, 32 bytes\n    \
             e.g. block (0,0,0) byte 0x80: write by thread (32,0,0) (warp 1 lane 0), \
             read by thread (31,0,0) (warp 0 lane 31)\n"
        ),
        "{text}"
    );

    // divergent_barrier (1 block of 64): synccheck's barrier error is at
    // divergent_barrier.cu:10 in block (0,0,0) (synccheck.txt).
    let fixture = "divergent_barrier";
    assert_eq!(
        sanitizer_lines(fixture, "synccheck.txt"),
        ["divergent_barrier.cu:10"]
    );
    let ptx = format!("{DATA}/{fixture}/kernel.ptx");
    let (report, status) = json(&[&ptx, "--grid", "1", "--block", "64"]);
    assert_eq!(status, Some(1));
    let errors = report["races"]["barrier_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    for e in errors {
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains("PTX line 48 (divergent_barrier.cu:10)"),
            "{message}"
        );
        assert!(ptx_line(fixture, 48).starts_with("bar.sync"));
        assert_eq!(e["example_block"], serde_json::json!([0, 0, 0]));
    }
    assert_eq!(errors[1]["error"]["type"], "divergent-lanes");
    assert_eq!(errors[1]["error"]["site"], 48);
    let output = kernel(&[&ptx, "--grid", "1", "--block", "64"]);
    let text = stdout(&output);
    assert!(
        text.contains(
            "  barrier error: divergent barrier 0 at PTX line 48 (divergent_barrier.cu:10): \
             lanes 0-15 of warp 0 reach it, lanes 16-31 do not (in 1 block, e.g. block (0,0,0))\n"
        ),
        "{text}"
    );

    // named_barriers: neither racecheck nor synccheck finds anything.
    assert!(sanitizer_lines("named_barriers", "racecheck.txt").is_empty());
    let ptx = format!("{DATA}/named_barriers/kernel.ptx");
    let (report, status) = json(&[&ptx, "--grid", "1", "--block", "128"]);
    assert_eq!(status, Some(0));
    assert_eq!(report["races"]["hazards"], serde_json::json!([]));
    assert_eq!(report["races"]["barrier_errors"], serde_json::json!([]));
}

/// A store skipped when a word of global memory is 0: the model does not
/// hold global memory, so the branch is data-dependent; no `.loc`.
const DATA_DEPENDENT_BRANCH: &str = "\
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 k_param_0)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<6>;
\t.reg .b64 %rd<3>;
\t.shared .align 4 .b32 s[128];
\tld.param.u64 %rd1, [k_param_0];
\tcvta.to.global.u64 %rd2, %rd1;
\tmov.u32 %r1, %tid.x;
\tld.global.u32 %r2, [%rd2];
\tsetp.eq.u32 %p1, %r2, 0;
\t@%p1 bra SKIP;
\tshl.b32 %r3, %r1, 2;
\tmov.u32 %r4, s;
\tadd.s32 %r5, %r4, %r3;
\tst.shared.u32 [%r5], %r1;
SKIP:
\tret;
}
";

#[test]
fn notes_say_which_way_a_data_dependent_branch_went_and_ask_for_lineinfo() {
    let ptx = support::TempFile::new("dd-branch.ptx", DATA_DEPENDENT_BRANCH.as_bytes());
    let output = kernel(&[ptx.name(), "--grid", "1", "--block", "64"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    // Lanes of unknown condition fall through: both warps store.
    assert!(text.contains("2 shared-memory requests"), "{text}");
    assert!(
        text.contains(
            "\ndata-dependent branch: 1 instruction, PTX line 16: the condition comes from \
             memory the model does not hold: lanes where it is unknown were taken as not \
             branching (on to the next instruction; a `ret` or `exit` not taken), so the \
             shared accesses and barriers of the path they skipped are missing for them, \
             those of the path they took may be extra, and a barrier error after it may be \
             the model's\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "\nno source lines: the PTX has no .loc; compile with `nvcc -ptx -lineinfo` to see \
             the CUDA line of each instruction\n"
        ),
        "{text}"
    );
    assert!(!text.contains("source line 0"), "{text}");
    let (report, _) = json(&[ptx.name(), "--grid", "1", "--block", "64"]);
    let note = &report["notes"][0];
    assert_eq!(note["kind"], "data-dependent branch");
    assert_eq!(note["ptx_line"], 16);
    assert_eq!(note["source_line"], Value::Null);
    assert!(
        note["meaning"]
            .as_str()
            .unwrap()
            .contains("taken as not branching"),
        "{note}"
    );
    // nvcc -lineinfo's PTX: no such note.
    let ptx = format!("{DATA}/racy_neighbour/kernel.ptx");
    let text = stdout(&kernel(&[&ptx, "--grid", "2", "--block", "128"]));
    assert!(!text.contains("no source lines"), "{text}");
}

#[test]
fn data_dependent_atomics_are_listed_not_guessed() {
    let ptx = format!("{DATA}/histogram_atomics/kernel.ptx");
    let output = kernel(&[&ptx, "--grid", "16", "--block", "256", "--arg", "2=16384"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "data-dependent address: 1 instruction, PTX line 79 \
             (device_atomic_functions.hpp:112): the address comes from memory the model \
             does not hold (a global load, an atomic's result): counted as an instruction, \
             left out of the wavefronts and the race check\n"
        ),
        "{text}"
    );
    // Counted as instructions (ncu's 512 ATOMS), their cost not guessed.
    assert!(
        text.contains(
            "address unknown: 512 requests counted as instructions, \
             their wavefronts and races not (ATOMS.ADD.32 512)"
        ),
        "{text}"
    );
    assert!(!text.contains("not modelled"), "{text}");
    let (report, _) = json(&[&ptx, "--grid", "16", "--block", "256", "--arg", "2=16384"]);
    assert_eq!(
        report["notes"][0]["source_line"],
        "device_atomic_functions.hpp:112"
    );
    assert!(
        text.contains(
            "races: none found in 16 blocks (512 requests of unknown address not checked)"
        ),
        "{text}"
    );
    let atoms = "smsp__sass_inst_executed_op_shared_atom.sum";
    assert!(
        text.contains(&format!("{atoms}  "))
            && text.contains("at least 0 [1] (512 requests of unknown address)")
            && text.contains("[1] requests of unknown (data-dependent) address are counted"),
        "{text}"
    );
    let (report, status) = json(&[&ptx, "--grid", "16", "--block", "256", "--arg", "2=16384"]);
    assert_eq!(status, Some(0));
    assert_eq!(metric(&report, atoms), ncu("histogram_atomics", atoms));
    let wavefronts = report["ncu_metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum")
        .unwrap();
    assert_eq!(
        (
            wavefronts["predicted"].as_u64(),
            wavefronts["not_costed"].as_u64()
        ),
        (Some(0), Some(512))
    );
    assert_eq!(report["unknown_address"]["ATOMS.ADD.32"], 512);
    assert_eq!(report["not_modelled"], serde_json::json!({}));
}

#[test]
fn bad_input_is_an_error_with_status_2() {
    let ptx = format!("{DATA}/reduce_strided/kernel.ptx");
    let output = kernel(&[&ptx, "--grid", "64", "--block", "256"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: kernel parameter 2 (_Z7reduce1PKiPij_param_2, unsigned int) has no value: \
         scalar parameters must be given\n"
    );
    let output = kernel(&[&ptx, "--grid", "64", "--block", "256", "--arg", "n=1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(
            "error: the kernel has no parameter n: its parameters are 0: _Z7reduce1PKiPij_param_0"
        ),
        "{}",
        stderr(&output)
    );
    let output = kernel(&["Cargo.toml", "--grid", "1", "--block", "32"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("error: Cargo.toml: PTX line 1, column 1: expected"),
        "{}",
        stderr(&output)
    );
    let output = kernel(&[&ptx, "--grid", "0", "--block", "32"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("every dimension must be at least 1"),
        "{}",
        stderr(&output)
    );
}

/// What the interpreter does not evaluate is listed, text and JSON: the
/// results of those instructions are unknown (Triton softmax's `div.full` and
/// `ex2.approx`; none of them touches shared memory).
#[test]
fn instructions_not_interpreted_are_listed() {
    let meta = format!("{DATA}/triton_softmax/kernel.json");
    let args = [
        meta.as_str(),
        "--grid",
        "128",
        "--arg",
        "2=781",
        "--arg",
        "3=781",
        "--arg",
        "4=128",
        "--arg",
        "5=781",
    ];
    let output = kernel(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "not interpreted, their results unknown: 16 instructions in the PTX \
             (div.full.f32 8, ex2.approx.f32 8)"
        ),
        "{text}"
    );
    let (report, _) = json(&args);
    assert_eq!(
        report["opaque"],
        serde_json::json!({"div.full.f32": 8, "ex2.approx.f32": 8})
    );
    // A kernel that leaves nothing opaque says nothing.
    let ptx = format!("{DATA}/transpose_coalesced/kernel.ptx");
    let output = kernel(&[&ptx, "--grid", "8,8", "--block", "32,8"]);
    assert!(!stdout(&output).contains("not interpreted"));
}

/// Issue 36 item 6: ldmatrix on a capability without it (7.0: LDSM needs
/// 7.5) is neither counted nor dropped without a word: the report counts the
/// refused requests and names the first with its PTX line, in text and JSON.
#[test]
fn requests_a_capability_lacks_are_counted_as_refused() {
    let ptx = format!("{DATA}/ldmatrix_stmatrix/kernel.ptx");
    let args = [
        &ptx, "--grid", "1", "--block", "128", "--arch", "sm_70", "--arg", "1=0",
    ];
    let output = kernel(&args);
    let text = stdout(&output);
    let line = text
        .lines()
        .find(|l| l.starts_with("refused on sm_70: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with(
            "refused on sm_70: 20 requests, not counted above: PTX line 64: \
             ldmatrix.sync.aligned.m8n8.x4.shared.b16: LDSM.x4 does not exist on compute \
             capability 7.0: it needs 7.5 or later; "
        ),
        "{line}"
    );
    assert!(line.ends_with(" (and 17 more)"), "{line}");
    let (report, _) = json(&args);
    assert_eq!(report["refused"], 20);
    assert_eq!(report["refused_examples"].as_array().unwrap().len(), 3);
    assert_eq!(report["refused_examples"][0]["ptx_line"], 64);
    // On sm_90 nothing is refused.
    let (report, _) = json(&[&ptx, "--grid", "1", "--block", "128", "--arg", "1=0"]);
    assert_eq!(report["refused"], 0);
}

const NCU: &str = "tests/data/ncu";

/// `--ncu`: the naive transpose's raw export and Source page. Every counter
/// predicted and measured; the load conflicts all the layout's (63,488, no
/// arbitration); line 16 responsible, measured and predicted.
#[test]
fn ncu_export_is_compared_counter_by_counter() {
    let ptx = format!("{DATA}/transpose_naive_smem/kernel.ptx");
    let raw = format!("{NCU}/transpose_naive_smem/raw.csv");
    let source = format!("{NCU}/transpose_naive_smem/source_cuda_sass.csv");
    let launch = [
        ptx.as_str(),
        "--grid",
        "8,8",
        "--block",
        "32,32",
        "--arg",
        "2=256",
        "--arg",
        "3=256",
        "--ncu",
        &raw,
        "--ncu",
        &source,
    ];
    let output = kernel(&launch);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("launch ID 0, transposeNaiveShared(float *, const float *, int, int)"),
        "{text}"
    );
    for row in [
        &[
            "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "=",
            "65536",
            "65536",
            "equal",
        ][..],
        &[
            "L1",
            "Wavefronts",
            "Shared",
            "Excessive",
            "(Source",
            "page)",
            "=",
            "63488",
            "63488",
            "equal",
        ],
        &[
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "at",
            "least",
            "63488",
            "[1]",
            "63488",
            "equal",
        ],
        &["op_ld", "63488", "63488", "0", "(65536", "-", "65536)", "0"],
        &[
            "transpose_naive_smem.cu:16",
            "65536",
            "/",
            "65536",
            "2048",
            "/",
            "2048",
            "63488",
            "/",
            "63488",
        ],
    ] {
        assert!(support::has_row(&text, row), "{row:?} in\n{text}");
    }
    let (report, status) = json(&launch);
    assert_eq!(status, Some(0));
    let c = &report["ncu_comparison"];
    assert_eq!(c["launch_id"], 0);
    assert!(
        c["counters"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["holds"] == true),
        "{c}"
    );
    assert_eq!(c["units"][0]["unit"], "op_ld");
    assert_eq!(
        (
            c["units"][0]["layout"].as_u64(),
            c["units"][0]["arbitration"].as_u64()
        ),
        (Some(63_488), Some(0))
    );
    assert_eq!(
        c["source_lines"][0]["source_line"],
        "transpose_naive_smem.cu:16"
    );
    assert_eq!(c["source_lines"][0]["measured"]["excessive"], 63_488);
    assert_eq!(c["source_lines"][0]["predicted"]["excessive"], 63_488);
}

/// matrixMul (200 blocks): no layout conflict; the 38 and 4,825 conflicts
/// ncu's unit-level counters show are arbitration, said so.
#[test]
fn ncu_arbitration_is_told_from_the_layout() {
    let ptx = format!("{DATA}/matmul/kernel.ptx");
    // The raw page (the details page is another run: 5,259 there).
    let details = format!("{NCU}/matmul/raw.csv");
    let output = kernel(&[
        &ptx, "--grid", "20,10", "--block", "32,32", "--arg", "3=320", "--arg", "4=640", "--ncu",
        &details,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        support::has_row(
            &text,
            &["op_ld", "38", "0", "38", "(3072038", "-", "3072000)", "0"]
        ),
        "{text}"
    );
    assert!(
        support::has_row(
            &text,
            &["op_st", "4825", "0", "4825", "(132825", "-", "128000)", "0"]
        ),
        "{text}"
    );
    assert!(
        text.contains("the layout has no bank conflict: the 4863 the unit-level counters"),
        "{text}"
    );
    assert!(
        support::has_row(
            &text,
            &[
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                "at",
                "least",
                "0",
                "[1]",
                "4825",
                "4825",
                "more"
            ]
        ),
        "{text}"
    );
}

/// A Triton kernel against the Source page of the SASS view (no CUDA
/// lines): LDGSTS's wavefronts beyond the shared side's ideal are the
/// bypass rule's (its copies' src-size predicates are not `P0`), and every
/// named counter holds.
#[test]
fn ncu_triton_source_page_by_kind() {
    let dir = format!("{DATA}/triton_matmul_w2");
    let raw = format!("{NCU}/triton/raw.csv");
    let source = format!("{NCU}/triton/source_sass.csv");
    let (report, status) = json(&[
        &dir, "--grid", "16", "--arg", "3=256", "--arg", "4=256", "--arg", "5=256", "--arg",
        "6=256", "--arg", "7=256", "--arg", "8=256", "--ncu", &raw, "--ncu", &source,
    ]);
    assert_eq!(status, Some(0), "{report}");
    let c = &report["ncu_comparison"];
    let kinds = c["source_by_kind"].as_array().unwrap();
    let ldgsts = kinds.iter().find(|k| k["kind"] == "LDGSTS").unwrap();
    assert_eq!(
        (
            ldgsts["measured"]["ideal"].as_u64(),
            ldgsts["measured"]["wavefronts"].as_u64(),
            ldgsts["predicted"]["wavefronts"].as_u64()
        ),
        (Some(10_240), Some(14_336), Some(14_336))
    );
    assert!(
        c["counters"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["holds"] == true),
        "{c}"
    );
}

/// Bad `--ncu` input: a file that is not an export, no launch matching,
/// several matching, a CUDA-only Source page, a pre-Volta arch: status 2,
/// said why.
#[test]
fn ncu_bad_input_is_an_error_with_status_2() {
    let ptx = format!("{DATA}/transpose_naive_smem/kernel.ptx");
    let base = [
        ptx.as_str(),
        "--grid",
        "8,8",
        "--block",
        "32,32",
        "--arg",
        "2=256",
        "--arg",
        "3=256",
    ];
    let cases: [(&[&str], &str); 6] = [
        (&["--ncu", "README.md"], "Nsight Compute CSV export: README.md: not one: no header row starting with \"ID\""),
        (&["--ncu", "tests/data/ncu/matmul/raw.csv"], "no launch of _Z20transposeNaiveSharedPfPKfii with this grid and block in the Nsight Compute export; its launches: ID 0 void MatrixMulCUDA<32>"),
        (&["--ncu", "tests/data/ncu/transpose_naive_smem/source_cuda.csv"], "export with --page source --print-source sass, or cuda,sass"),
        (&["--ncu", "tests/data/ncu/transpose_naive_smem/raw.csv", "--ncu", "tests/data/ncu/transpose_naive_smem/details.csv"], "a second export of the same page"),
        (&["--ncu", "tests/data/ncu/transpose_naive_smem/raw.csv", "--arch", "sm_61"], "--ncu compares Nsight Compute's counters, which exist from compute capability 7.0 on"),
        (&["--ncu", "tests/data/ncu/no-such.csv"], "tests/data/ncu/no-such.csv: cannot read it"),
    ];
    for (extra, message) in cases {
        let output = kernel(&[&base[..], extra].concat());
        assert_eq!(output.status.code(), Some(2), "{extra:?}");
        assert!(
            stderr(&output).contains(message),
            "{extra:?}: {}",
            stderr(&output)
        );
    }
    let ptx = format!("{DATA}/ldmatrix_stmatrix/kernel.ptx");
    let raw = format!("{NCU}/ldmatrix_stmatrix/raw.csv");
    let launch = [
        ptx.as_str(),
        "--grid",
        "1",
        "--block",
        "128",
        "--arg",
        "1=128",
        "--ncu",
        &raw,
    ];
    let output = kernel(&launch);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("2 launches of _Z16ldmatrixStmatrixPji with this grid and block"),
        "{}",
        stderr(&output)
    );
    let output = kernel(&[&launch[..], &["--ncu-id", "0"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("launch ID 0, ldmatrixStmatrix(unsigned int *, int)"));
}

/// `smem help kernel` defines every term it prints and gives the counters
/// to profile with, exactly as the comparison reads them.
#[test]
fn help_defines_the_terms() {
    let output = support::smem("help", &["kernel"]);
    let text = stdout(&output);
    for term in [
        "request ",
        "wavefront ",
        "ideal ",
        "bank conflicts ",
        "= N ",
        "at least N ",
        "about N ",
        "arbitration ",
        "layout ",
    ] {
        assert!(text.contains(&format!("\n  {term}")), "{term:?} in {text}");
    }
    assert!(
        text.contains(&smem_model::kernel::ncu::profile::METRICS.join(",")),
        "{text}"
    );
}

/// Issue 36 item 2: what a PTX declares is not allocated past the
/// interpreter's limit: four million registers for 1,024 threads (34 GB, an
/// abort after 7.6 GB), or 130 param arrays of 64 KiB, are "not modelled"
/// with the bytes and the limit, status 2; the same registers for one warp
/// fit and run.
#[test]
fn declared_state_past_the_interpreters_limit_is_not_modelled() {
    let regs = support::TempFile::new(
        "regs.ptx",
        b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
          .reg .b32 %r<4000000>;\n.shared .align 4 .b8 s[128];\nmov.u32 %r1, %tid.x;\n\
          mov.u32 %r2, s;\nst.shared.u32 [%r2], %r1;\nret;\n}\n",
    );
    let output = kernel(&[regs.name(), "--grid", "1", "--block", "1024"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: not modelled: k's registers and param space take 33792000000 bytes for a \
         block of 32 warps, past the interpreter's limit of 1073741824 bytes\n"
    );
    let output = kernel(&[regs.name(), "--grid", "1", "--block", "32"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let mut text = String::from(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n",
    );
    for i in 0..130 {
        text.push_str(&format!(".param .b8 p{i}[65536];\n"));
    }
    text.push_str("ret;\n}\n");
    let params = support::TempFile::new("params.ptx", text.as_bytes());
    let output = kernel(&[params.name(), "--grid", "1", "--block", "1024"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("error: not modelled: k's registers and param space take "),
        "{}",
        stderr(&output)
    );
}

/// Issue 36 item 1: Triton metadata whose `num_warps` times 32 passes 2^32
/// (134,217,729 warps wrapped to a block of 32 threads) is refused as a block
/// past 1,024 threads, where no `.reqntid` gives the block.
#[test]
fn a_triton_num_warps_past_the_limit_is_refused() {
    let dir = std::env::temp_dir().join(format!("smem-test-{}-warps", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = format!("{DATA}/triton_colsum");
    // Without its `.reqntid` (which would give the block), as older Triton
    // versions wrote it.
    let ptx = std::fs::read_to_string(format!("{source}/kernel.ptx")).unwrap();
    let ptx: String = ptx
        .lines()
        .filter(|l| !l.trim_start().starts_with(".reqntid"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("kernel.ptx"), ptx).unwrap();
    let meta = std::fs::read_to_string(format!("{source}/kernel.json")).unwrap();
    let mut meta: Value = serde_json::from_str(&meta).unwrap();
    meta["num_warps"] = Value::from(134_217_729u64);
    std::fs::write(dir.join("kernel.json"), meta.to_string()).unwrap();
    let json_path = dir.join("kernel.json");
    let output = kernel(&[
        json_path.to_str().unwrap(),
        "--grid",
        "8",
        "--arg",
        "2=512",
        "--arg",
        "3=512",
        "--arg",
        "4=512",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        stderr(&output).starts_with("error: launch of grid 8x1x1 and block 4294967295x1x1: "),
        "{}",
        stderr(&output)
    );
}

/// `--max` caps the hazards kept (default 4096); the rest are counted and
/// said to be (issue 36: 100,000 hazards on one word gave 830 MB of text).
/// Here 200 stores to one word from warp 1's lane 0, each its own PTX
/// line, after warp 0's: 200 write-write hazards.
#[test]
fn max_caps_the_hazards_listed_and_counts_the_rest() {
    let mut text = String::from(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<4>;\n.shared .align 4 .b8 s[4];\n\
         mov.u32 %r1, %tid.x;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra $L0;\n\
         st.shared.u32 [s], 1;\n$L0:\nsetp.ne.u32 %p1, %r1, 32;\n@%p1 bra $L1;\n",
    );
    for i in 0..200 {
        text.push_str(&format!("st.shared.u32 [s], {i};\n"));
    }
    text.push_str("$L1:\nret;\n}\n");
    let ptx = support::TempFile::new("many-hazards.ptx", text.as_bytes());
    let output = kernel(&[ptx.name(), "--grid", "1", "--block", "64", "--max", "3"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("races: 200 hazards, 0 barrier errors\n"),
        "{out}"
    );
    assert_eq!(out.matches("  error write-write: ").count(), 3, "{out}");
    assert!(
        out.contains("  197 more hazards not listed (--max 3)\n"),
        "{out}"
    );
    let (report, _) = json(&[ptx.name(), "--grid", "1", "--block", "64", "--max", "3"]);
    assert_eq!(report["races"]["hazards"].as_array().unwrap().len(), 3);
    assert_eq!(report["races"]["hazards_not_listed"], 197);
    // The default lists all 200, and says nothing of a rest.
    let (report, _) = json(&[ptx.name(), "--grid", "1", "--block", "64"]);
    assert_eq!(report["races"]["hazards"].as_array().unwrap().len(), 200);
    assert!(report["races"].get("hazards_not_listed").is_none());
}

/// Issue 35 items 1 and 2: blocks interpreted once per kind (`--no-reuse`
/// interprets every one) and on several threads (`--threads`): the report
/// is the same byte for byte, text and JSON, on a Triton matmul (cp.async
/// copies from block-dependent global addresses) and on matrixMul (global
/// loads of block-dependent addresses stored to shared memory).
#[test]
fn reuse_and_threads_do_not_change_the_report() {
    let triton = [
        &format!("{DATA}/triton_matmul_w2")[..],
        "--grid",
        "16",
        "--arg",
        "3=256",
        "--arg",
        "4=256",
        "--arg",
        "5=256",
        "--arg",
        "6=256",
        "--arg",
        "7=256",
        "--arg",
        "8=256",
    ];
    let matmul = [
        &format!("{DATA}/matmul/kernel.ptx")[..],
        "--grid",
        "20,10",
        "--block",
        "32,32",
        "--arg",
        "3=320",
        "--arg",
        "4=640",
    ];
    for launch in [&triton[..], &matmul[..]] {
        for format in [&[][..], &["--json"][..]] {
            let run = |extra: &[&str]| {
                let mut args: Vec<&str> = launch.to_vec();
                args.extend_from_slice(format);
                args.extend_from_slice(extra);
                let output = kernel(&args);
                assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
                stdout(&output)
            };
            let plain = run(&["--no-reuse", "--threads", "1"]);
            for extra in [
                &[][..],
                &["--threads", "1"],
                &["-j", "3"],
                &["--no-reuse", "-j", "2"],
                &["--no-progress"],
            ] {
                assert_eq!(run(extra), plain, "{launch:?} {extra:?}");
            }
        }
    }
    let output = kernel(&[&triton[..], &["--threads", "0"]].concat());
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr(&output), "error: --threads must be at least 1\n");
}

/// Issue 36 item 3: the whole run has a budget. A grid of 2^31 - 1 blocks
/// of three warps needs at least 6.4 billion warp instructions, past the
/// default 2^32: refused before the first block. A loop of a parameter's
/// trip count (each block under its own budget) stops after its first
/// block, every block running alike.
#[test]
fn the_whole_run_has_a_budget() {
    let ret = support::TempFile::new(
        "ret.ptx",
        b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n",
    );
    let output = kernel(&[ret.name(), "--grid", "2147483647", "--block", "96"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: the launch needs more than the run's budget of 4294967296 warp instructions: at \
         least 6442450941 for its 2147483647 blocks; give a larger budget (smem kernel \
         --budget) or run a sample of the blocks (--sample)\n"
    );
    // Within the budget: a sample.
    let output = kernel(&[
        ret.name(),
        "--grid",
        "2147483647",
        "--block",
        "96",
        "--sample",
        "3",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let looped = support::TempFile::new(
        "loop.ptx",
        b".version 8.0\n.target sm_90\n.address_size 64\n\
          .visible .entry k(.param .u32 n)\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n\
          .shared .align 4 .b8 s[128];\nld.param.u32 %r1, [n];\nmov.u32 %r2, 0;\n\
          LOOP:\nsetp.ge.u32 %p1, %r2, %r1;\n@%p1 bra DONE;\nst.shared.u32 [s], %r2;\n\
          add.s32 %r2, %r2, 1;\nbra LOOP;\nDONE:\nret;\n}\n",
    );
    let output = kernel(&[
        looped.name(),
        "--grid",
        "100000",
        "--block",
        "32",
        "--arg",
        "n=1000",
        "--budget",
        "1000000",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: the launch needs more than the run's budget of 1000000 warp instructions: at \
         least 500500000 (5005 in its first 1 of 100000 blocks); give a larger budget (smem \
         kernel --budget) or run a sample of the blocks (--sample)\n"
    );
}

/// An export without a counter the model predicts (the H200 exports of
/// tests/data/ncu/hopper lack `..._op_atom`'s unit-level conflicts) is
/// compared on what it has, the rest listed, not an error.
#[test]
fn counters_an_export_lacks_are_listed_not_compared() {
    let dir = format!("{NCU}/hopper/globalToShmemAsyncCopy");
    let ptx = format!("{dir}/globalToShmemAsyncCopy.ptx");
    let raw = format!("{dir}/raw3.csv");
    let launch = [
        ptx.as_str(),
        "--kernel",
        "MatrixMulAsyncCopyMultiStageSharedState<16>",
        "--grid",
        "16,16",
        "--block",
        "16,18",
        "--arg",
        "3=256",
        "--arg",
        "4=256",
        "--ncu",
        &raw,
    ];
    // Status 1: synccheck's "Missing wait" of cuda::pipeline's shared state
    // is found (tests/data/ncu/hopper/README.md).
    let output = kernel(&launch);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    let absent = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum";
    assert!(
        text.contains(&format!(
            "not in the export, not compared: {absent} (add it to ncu --metrics)\n"
        )),
        "{text}"
    );
    // Its atomics are measured and equal (2,560 instructions and wavefronts).
    assert!(
        support::has_row(
            &text,
            &[
                "smsp__sass_inst_executed_op_shared_atom.sum",
                "=",
                "2560",
                "2560",
                "equal"
            ]
        ),
        "{text}"
    );
    let (report, status) = json(&launch);
    assert_eq!(status, Some(1));
    let c = &report["ncu_comparison"];
    assert_eq!(c["absent"], serde_json::json!([absent]));
    let row = c["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == absent)
        .unwrap();
    assert_eq!(
        (&row["measured"], &row["holds"]),
        (&Value::Null, &Value::Null)
    );
    // op_atom's split needs the counter: left out; op_ld's and op_st's stay.
    let units: Vec<&str> = c["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["unit"].as_str().unwrap())
        .collect();
    assert_eq!(units, ["op_ld", "op_st"]);
}

/// The export's compute capability column names the GPU to predict for when
/// --arch is not given (the raw page's device attributes, the details page's
/// `CC`: 9.0 on the H200); an --arch other than it, or a `.target` that GPU
/// does not run, is refused naming both.
#[test]
fn the_export_gives_the_gpu_and_refuses_another() {
    let ptx = std::fs::read_to_string(format!("{DATA}/transpose_naive_smem/kernel.ptx")).unwrap();
    assert!(ptx.contains("\n.target sm_90\n"));
    let retarget = |target: &str, tag: &str| {
        support::TempFile::new(
            tag,
            ptx.replace("\n.target sm_90\n", &format!("\n.target {target}\n"))
                .as_bytes(),
        )
    };
    let sm80 = retarget("sm_80", "target-sm80.ptx");
    let launch = |ptx: &str, extra: &[&str]| {
        let mut args = vec![
            ptx.to_owned(),
            "--grid".into(),
            "8,8".into(),
            "--block".into(),
            "32,32".into(),
            "--arg".into(),
            "2=256".into(),
            "--arg".into(),
            "3=256".into(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        kernel(&args)
    };
    let raw = format!("{NCU}/transpose_naive_smem/raw.csv");
    let details = format!("{NCU}/transpose_naive_smem/details.csv");
    let alone = stdout(&launch(sm80.name(), &[]));
    assert!(alone.contains("predicted for sm_80"), "{alone}");
    for export in [&raw, &details] {
        let output = launch(sm80.name(), &["--ncu", export]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(text.contains("predicted for sm_90"), "{export}: {text}");
        assert!(!text.contains("differs by"), "{export}: {text}");
    }
    let sm100a = retarget("sm_100a", "target-sm100a.ptx");
    let output = launch(sm100a.name(), &["--ncu", &raw]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "the Nsight Compute export was measured on compute capability 9.0, which does not \
             run this PTX (.target sm_100a;"
        ),
        "{}",
        stderr(&output)
    );
    let output = launch(sm80.name(), &["--ncu", &details, "--arch", "sm_80"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "the Nsight Compute export was measured on compute capability 9.0, not the 8.0 \
             given (--arch, Python arch=)"
        ),
        "{}",
        stderr(&output)
    );
}
