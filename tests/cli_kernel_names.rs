//! `smem kernel` on names a user holds (issue 33, items 5 and 6): kernels by
//! C++ name or prefix, arguments with the source's types and Triton's Python
//! names, every missing scalar at once, and inputs from a `.cu`, a Triton
//! cache root and a group file.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::{stderr, stdout};

const DATA: &str = "tests/data/ptx";

fn kernel(args: &[&str]) -> Output {
    support::smem("kernel", args)
}

fn report(args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = kernel(&all);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn failure(args: &[&str]) -> String {
    let output = kernel(args);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    stderr(&output)
}

/// A scratch directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smem-names-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_kernel_by_its_cpp_name_or_a_prefix_gives_the_mangled_ones_answer() {
    let ptx = format!("{DATA}/transpose_coalesced/kernel.ptx");
    let launch = ["--grid", "8,8", "--block", "32,8"];
    let by = |name: &str| {
        let mut args = vec![ptx.as_str(), "--kernel", name];
        args.extend(launch);
        report(&args)
    };
    let mangled = by("_Z18transposeCoalescedPfPKf");
    for name in [
        "transposeCoalesced",
        "transposeCoal",
        "transposeCoalesced(float*, float const*)",
    ] {
        let r = by(name);
        assert_eq!(r["kernel"], "_Z18transposeCoalescedPfPKf", "{name}");
        assert_eq!(r["wavefronts"], mangled["wavefronts"], "{name}");
    }
    let err = failure(&[
        &ptx,
        "--kernel",
        "transposeNaive",
        "--grid",
        "1",
        "--block",
        "32",
    ]);
    assert_eq!(
        err,
        "error: the PTX module has no kernel named transposeNaive: its kernels are \
         _Z18transposeCoalescedPfPKf (transposeCoalesced(float*, float const*))\n"
    );
}

#[test]
fn an_int_takes_a_negative_value_and_every_missing_scalar_is_named() {
    // predOffFlag(int* out, int arg): `arg` is a `.u32` in PTX, an `int` in
    // C++; any value but 0 turns on the guarded load and store.
    let flag = format!("{DATA}/pred_off_flag/kernel.ptx");
    let requests = |value: &str| {
        let arg = format!("1={value}");
        report(&[&flag, "--grid", "1", "--block", "128", "--arg", &arg])["requests"].clone()
    };
    assert_eq!(requests("-1"), requests("1"));
    assert_ne!(requests("-1"), requests("0"));
    assert_eq!(
        failure(&[
            &flag,
            "--grid",
            "1",
            "--block",
            "128",
            "--arg",
            "1=2147483648"
        ]),
        "error: value 2147483648 of kernel parameter _Z11predOffFlagPii_param_1 does not read \
         as int\n"
    );

    // reduce1(const int*, int*, unsigned n): `n` is unsigned, so -1 is refused.
    let ptx = format!("{DATA}/reduce_strided/kernel.ptx");
    let base = [ptx.as_str(), "--grid", "64", "--block", "256"];
    let with = |more: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(more);
        failure(&args)
    };
    assert_eq!(
        with(&[]),
        "error: kernel parameter 2 (_Z7reduce1PKiPij_param_2, unsigned int) has no value: \
         scalar parameters must be given\n"
    );
    assert_eq!(
        with(&["--arg", "2=-1"]),
        "error: value -1 of kernel parameter _Z7reduce1PKiPij_param_2 does not read as \
         unsigned int\n"
    );
    assert_eq!(
        with(&["--arg", "2=16", "--arg", "_Z7reduce1PKiPij_param_2=16"]),
        "error: kernel parameter 2 (_Z7reduce1PKiPij_param_2) is given twice: give each \
         argument once\n"
    );
}

#[test]
fn a_triton_kernel_takes_its_python_names_and_refuses_a_constexpr() {
    let json = format!("{DATA}/triton_softmax/kernel.json");
    let base = [json.as_str(), "--grid", "128"];
    let named = {
        let mut args = base.to_vec();
        args.extend([
            "--arg",
            "input_row_stride=781",
            "--arg",
            "output_row_stride=781",
            "--arg",
            "n_rows=128",
            "--arg",
            "n_cols=781",
        ]);
        report(&args)
    };
    let by_index = {
        let mut args = base.to_vec();
        args.extend([
            "--arg", "2=781", "--arg", "3=781", "--arg", "4=128", "--arg", "5=781",
        ]);
        report(&args)
    };
    assert_eq!(named["wavefronts"], by_index["wavefronts"]);
    assert_eq!(named["by_op"], by_index["by_op"]);
    let mut args = base.to_vec();
    args.extend(["--arg", "n_cols=781"]);
    assert_eq!(
        failure(&args),
        "error: kernel parameters 2 (input_row_stride, i32), 3 (output_row_stride, i32), 4 \
         (n_rows, i32) have no value: scalar parameters must be given\n"
    );
    // The fixtures' source is in the repository, so the def's constexprs are
    // known: BLOCK_SIZE is one.
    let dir = scratch("constexpr");
    let ttgir = std::fs::read_to_string(format!("{DATA}/triton_softmax/kernel.ttgir")).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DATA)
        .join("triton_fixtures.py");
    let ttgir = ttgir.replace(
        "/work/main/.devjob/triton/triton_fixtures.py",
        &source.display().to_string(),
    );
    std::fs::write(dir.join("fx_softmax.ttgir"), ttgir).unwrap();
    for x in ["ptx", "json"] {
        std::fs::copy(
            format!("{DATA}/triton_softmax/kernel.{x}"),
            dir.join(format!("fx_softmax.{x}")),
        )
        .unwrap();
    }
    let dir_arg = dir.display().to_string();
    assert_eq!(
        failure(&[&dir_arg, "--grid", "128", "--arg", "BLOCK_SIZE=1024"]),
        "error: BLOCK_SIZE is a constexpr of the Triton kernel: its value is compiled into the \
         PTX (recompile to change it), it is not a launch argument\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A cache root of two entries: the kernel is picked by name, and the group
/// file of an entry resolves to the same PTX.
#[test]
fn a_triton_cache_root_and_a_group_file_resolve() {
    let root = scratch("cache");
    for (hash, fixture, name) in [
        ("4ba0c4db", "triton_softmax", "fx_softmax"),
        ("9e1f0a2c", "triton_colsum", "fx_colsum"),
    ] {
        let d = root.join(hash);
        std::fs::create_dir_all(&d).unwrap();
        for x in ["ptx", "json", "ttgir"] {
            std::fs::copy(
                format!("{DATA}/{fixture}/kernel.{x}"),
                d.join(format!("{name}.{x}")),
            )
            .unwrap();
        }
        let children: Vec<String> = ["ptx", "json", "ttgir"]
            .iter()
            .map(|x| {
                format!(
                    "\"{name}.{x}\": \"{}\"",
                    d.join(format!("{name}.{x}")).display()
                )
            })
            .collect();
        std::fs::write(
            d.join(format!("__grp__{name}.json")),
            format!("{{\"child_paths\": {{{}}}}}", children.join(", ")),
        )
        .unwrap();
    }
    let root_arg = root.display().to_string();
    let err = failure(&[&root_arg, "--grid", "128"]);
    assert_eq!(
        err,
        format!(
            "error: {root_arg}: holds 2 kernels: fx_softmax (4ba0c4db), fx_colsum (9e1f0a2c); \
             name one (--kernel, Python's kernel=): a kernel name, a prefix of one, or of its \
             hash directory\n"
        )
    );
    let args = [
        "--grid", "128", "--arg", "2=781", "--arg", "3=781", "--arg", "4=128", "--arg", "5=781",
    ];
    let from_root = {
        let mut a = vec![root_arg.as_str(), "--kernel", "fx_soft"];
        a.extend(args);
        report(&a)
    };
    let by_hash = {
        let mut a = vec![root_arg.as_str(), "--kernel", "4ba0"];
        a.extend(args);
        report(&a)
    };
    let group = root
        .join("4ba0c4db/__grp__fx_softmax.json")
        .display()
        .to_string();
    let from_group = {
        let mut a = vec![group.as_str()];
        a.extend(args);
        report(&a)
    };
    let fixture = {
        let json = format!("{DATA}/triton_softmax/kernel.json");
        let mut a = vec![json.as_str()];
        a.extend(args);
        report(&a)
    };
    for r in [&from_root, &by_hash, &from_group] {
        assert_eq!(r["kernel"], "fx_softmax");
        assert_eq!(r["block"], fixture["block"]);
        assert_eq!(r["dynamic_shared"], fixture["dynamic_shared"]);
        assert_eq!(r["wavefronts"], fixture["wavefronts"]);
        assert_eq!(r["by_op"], fixture["by_op"]);
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// With no nvcc on PATH a `.cu` is refused with the command to run; with one
/// (pip's nvidia-cuda-nvcc, or a CUDA install) it is compiled and gives what
/// its measured PTX gives.
#[test]
fn a_cu_file_is_compiled_or_refused_with_the_command() {
    let cu = format!("{DATA}/transpose_coalesced/transpose_coalesced.cu");
    let output = Command::new(env!("CARGO_BIN_EXE_smem"))
        .args(["kernel", &cu, "--grid", "8,8", "--block", "32,8"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", "")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "error: {cu}: nvcc is not on PATH, so the .cu cannot be compiled here: run `nvcc \
             -ptx -lineinfo -arch=sm_90 -o {} {cu}` where it is and give the .ptx (nvcc needs no \
             GPU: `pip install nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-crt` installs \
             it)\n",
            cu.replace(".cu", ".ptx")
        )
    );
    let on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("nvcc").is_file()));
    if !on_path {
        eprintln!("nvcc is not on PATH: the compiled .cu is not checked");
        return;
    }
    // A column of a 32x32 float tile: each warp's store is 32-way
    // conflicted, its load conflict-free.
    let dir = scratch("cu");
    let column = dir.join("column.cu");
    std::fs::write(
        &column,
        "__global__ void column(float *out, int shift) {\n\
         \x20 __shared__ float s[32 * 32];\n\
         \x20 s[threadIdx.x * 32] = threadIdx.x + shift;\n\
         \x20 __syncthreads();\n\
         \x20 out[threadIdx.x] = s[threadIdx.x];\n\
         }\n",
    )
    .unwrap();
    let column = column.display().to_string();
    let r = report(&[
        &column, "--kernel", "column", "--grid", "1", "--block", "32", "--arg", "1=-1",
    ]);
    assert_eq!(r["kernel"], "_Z6columnPfi");
    assert_eq!(r["arch"], "sm_90");
    assert_eq!(
        (&r["requests"], &r["wavefronts"], &r["bank_conflicts"]),
        (
            &serde_json::json!(2),
            &serde_json::json!(33),
            &serde_json::json!(31)
        )
    );
    let r = report(&[
        &column, "--arch", "sm_80", "--grid", "1", "--block", "32", "--arg", "1=0",
    ]);
    assert_eq!(r["arch"], "sm_80");
    let _ = std::fs::remove_dir_all(&dir);
}
