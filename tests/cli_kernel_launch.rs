//! `smem kernel`'s launch checks against what an H200 did with the same
//! launches (tests/data/ncu/probes.txt, sources in tools/device/ncu33/): a
//! launch the driver refuses is an error with status 2, one that needs the
//! shared-memory opt-in runs and says so.
#![cfg(feature = "cli")]

use std::process::Output;

use serde_json::Value;

mod support;
use support::{stderr, stdout};

const PROBES: &str = "tests/data/ncu/probes.ptx";
const REQNTID: &str = "tools/device/ncu33/reqntid.ptx";

fn kernel(args: &[&str]) -> Output {
    support::smem("kernel", args)
}

/// Measured: `.reqntid 64` accepts 64x1x1 only (32x1x1, 128x1x1 and 32x2x1
/// refused with CUDA_ERROR_INVALID_VALUE); `.maxntid 64` refuses 128x1x1
/// only (32x2x1 accepted).
#[test]
fn reqntid_and_maxntid_refuse_the_blocks_the_driver_refused() {
    let measured = [
        ("req64", "64", true),
        ("req64", "32", false),
        ("req64", "128", false),
        ("req64", "32,2", false),
        ("max64", "64", true),
        ("max64", "32", true),
        ("max64", "128", false),
        ("max64", "32,2", true),
    ];
    for (name, block, accepted) in measured {
        let output = kernel(&[REQNTID, "--kernel", name, "--grid", "1", "--block", block]);
        let code = output.status.code();
        assert_eq!(
            code,
            Some(if accepted { 0 } else { 2 }),
            "{name} {block}: {}",
            stderr(&output)
        );
    }
    let output = kernel(&[
        REQNTID, "--kernel", "req64", "--grid", "1", "--block", "32,2",
    ]);
    assert_eq!(
        stderr(&output),
        "error: launch refused: block 32x2x1 is not the kernel's .reqntid 64x1x1 (the driver \
         refuses any other block: CUDA_ERROR_INVALID_VALUE)\n"
    );
    let output = kernel(&[
        REQNTID, "--kernel", "max64", "--grid", "1", "--block", "128",
    ]);
    assert_eq!(
        stderr(&output),
        "error: launch refused: block 128x1x1 has 128 threads, more than the 64 the kernel's \
         .maxntid 64x1x1 allows (CUDA_ERROR_INVALID_VALUE)\n"
    );
}

/// Without `--block`, the `.reqntid` block is the launch's; without either,
/// the message says what would have given one.
#[test]
fn reqntid_is_the_default_block() {
    let output = kernel(&[REQNTID, "--kernel", "req64", "--grid", "1"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("block 64x1x1 (64 threads)"),
        "{}",
        stdout(&output)
    );
    let output = kernel(&[REQNTID, "--kernel", "max64", "--grid", "1"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: --block is needed (the kernel has no .reqntid, no Triton metadata gives \
         num_warps)\n"
    );
}

/// Measured on sm_90: 49,152 bytes without the opt-in, 232,448 with it; one
/// word more refused (cudaErrorInvalidValue). Between the two the launch runs
/// and the report says it needs the opt-in; past the opt-in maximum (4 GiB
/// included, which once aborted allocating it) it is refused before anything
/// runs.
#[test]
fn shared_memory_over_the_limits() {
    let launch = |bytes: &str| {
        kernel(&[
            PROBES,
            "--kernel",
            "_Z10bigDynamicPi",
            "--grid",
            "1",
            "--block",
            "64",
            "--dynamic-shared",
            bytes,
        ])
    };
    let json = |bytes: &str| -> Value {
        let output = kernel(&[
            PROBES,
            "--kernel",
            "_Z10bigDynamicPi",
            "--grid",
            "1",
            "--block",
            "64",
            "--dynamic-shared",
            bytes,
            "--json",
        ]);
        serde_json::from_slice(&output.stdout).unwrap()
    };
    // 48 KiB: no opt-in needed.
    let output = launch("49152");
    assert_eq!(output.status.code(), Some(0));
    assert!(!stdout(&output).contains("opt-in"), "{}", stdout(&output));
    assert_eq!(json("49152")["needs_opt_in"], false);
    // 48 KiB + 4 and 227 KiB: run with the opt-in.
    for bytes in ["49156", "232448"] {
        let output = launch(bytes);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            stdout(&output).contains(&format!(
                "(needs the opt-in: {bytes} bytes of shared memory are more than the 49152 a \
                 block gets without it; on the GPU, cudaFuncSetAttribute(kernel, \
                 cudaFuncAttributeMaxDynamicSharedMemorySize, {bytes}) before the launch)"
            )),
            "{}",
            stdout(&output)
        );
        assert_eq!(json(bytes)["needs_opt_in"], true);
    }
    // 227 KiB + 4, and 4 GiB - 1: refused.
    for bytes in ["232452", "4294967295"] {
        let output = launch(bytes);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            stderr(&output),
            format!(
                "error: launch fails: 0 bytes of static and {bytes} bytes of dynamic shared \
                 memory exceed the per-block limit of 232448 bytes on compute capability 9.0\n"
            )
        );
    }
    // On sm_80 the opt-in maximum is 163 KB (the capability table).
    let output = kernel(&[
        PROBES,
        "--kernel",
        "_Z10bigDynamicPi",
        "--grid",
        "1",
        "--block",
        "64",
        "--dynamic-shared",
        "166913",
        "--arch",
        "sm_80",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("per-block limit of 166912 bytes on compute capability 8.0"),
        "{}",
        stderr(&output)
    );
}

/// Static shared memory over 48 KB: ptxas refuses the kernel, so does the
/// model (and a 4 GiB array does not abort allocating it).
#[test]
fn static_shared_over_48_kb_is_refused() {
    let dir = std::env::temp_dir().join(format!("smem-launch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (bytes, shown) in [("49168", "49168"), ("4294967295", "4294967295")] {
        let path = dir.join(format!("static{bytes}.ptx"));
        std::fs::write(
            &path,
            format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
                 .reg .b32 %r<3>;\n.shared .align 16 .b8 s[{bytes}];\nmov.u32 %r1, s;\n\
                 st.shared.u32 [%r1], %r1;\nret;\n}}\n"
            ),
        )
        .unwrap();
        let output = kernel(&[path.to_str().unwrap(), "--grid", "1", "--block", "32"]);
        assert_eq!(output.status.code(), Some(2));
        assert!(
            stderr(&output).starts_with(&format!(
                "error: {shown} bytes of static shared memory exceed the 49152-byte static \
                 limit of compute capability 9.0"
            )),
            "{}",
            stderr(&output)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Measured (compute-sanitizer memcheck on an H200, probes.txt): 64 threads
/// storing `dyn[tid]` with 128 dynamic bytes after 64 static ones; thread 32
/// writes 4 bytes at 0x4c0, past the end. The launch faults
/// (cudaErrorIllegalAddress without memcheck): an error, status 2.
#[test]
fn an_access_past_the_shared_memory_is_memchecks_error() {
    let launch = |bytes: &str| {
        kernel(&[
            PROBES,
            "--kernel",
            "_Z10oobDynamicPi",
            "--grid",
            "1",
            "--block",
            "64",
            "--dynamic-shared",
            bytes,
        ])
    };
    let output = launch("128");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: invalid __shared__ write of size 4 bytes at st.shared.u32, PTX line 45 \
         (probes.cu:15), by thread (32,0,0) in block (0,0,0): access to 0x4c0 is out of bounds \
         (the block's shared memory is 0x400 to 0x4c0: 192 bytes, static and dynamic); 32 \
         lanes of its warp are out of bounds\n"
    );
    let output = launch("256");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// `--sample`: the totals are the sample's, said so, and estimated for the
/// whole grid; on a grid whose blocks all do the same work the estimate is
/// what Nsight Compute measured for the whole launch
/// (tests/data/ptx/reduce_strided/ncu.json). `--sample 0` is refused.
#[test]
fn a_sample_is_labelled_and_estimated_for_the_grid() {
    let ptx = "tests/data/ptx/reduce_strided/kernel.ptx";
    let launch = [
        ptx,
        "--grid",
        "64",
        "--block",
        "256",
        "--dynamic-shared",
        "1024",
        "--arg",
        "2=16384",
        "--sample",
        "4",
    ];
    let output = kernel(&launch);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "sample: 180 shared-memory requests: 600 wavefronts (180 ideal), 420 bank \
             conflicts\nestimated for all 64 blocks (the sample's totals x 64 / 4; an \
             estimate): 2880 shared-memory requests: 9600 wavefronts (2880 ideal), 6720 bank \
             conflicts\n"
        ),
        "{text}"
    );
    let mut json_args = launch.to_vec();
    json_args.push("--json");
    let report: Value = serde_json::from_slice(&kernel(&json_args).stdout).unwrap();
    let measured: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/data/ptx/reduce_strided/ncu.json").unwrap(),
    )
    .unwrap();
    assert_eq!(
        (report["blocks_run"].as_u64(), report["sampled"].as_bool()),
        (Some(4), Some(true))
    );
    let estimate = &report["estimated_totals"];
    assert_eq!(estimate["scale"], 16.0);
    // The sample's counters are its own: its stores x 16 are the grid's.
    let stores = "smsp__sass_inst_executed_op_shared_st.sum";
    let predicted = report["ncu_metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == stores)
        .and_then(|m| m["predicted"].as_u64())
        .unwrap();
    assert_eq!(Some(predicted * 16), measured["key"][stores].as_u64());
    assert_eq!(
        estimate["requests"],
        measured["key"]["smsp__sass_inst_executed_op_shared_ld.sum"]
            .as_u64()
            .unwrap()
            + measured["key"]["smsp__sass_inst_executed_op_shared_st.sum"]
                .as_u64()
                .unwrap()
    );
    // The whole grid: no estimate.
    let mut whole = launch[..9].to_vec();
    whole.push("--json");
    let report: Value = serde_json::from_slice(&kernel(&whole).stdout).unwrap();
    assert!(report.get("estimated_totals").is_none(), "{report}");
    let mut zero = launch.to_vec();
    zero[10] = "0";
    let output = kernel(&zero);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("error: invalid value '0' for '--sample <N>'"),
        "{}",
        stderr(&output)
    );
}
