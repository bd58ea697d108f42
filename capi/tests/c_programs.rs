//! Builds the C test (`tests/c/smem_test.c`) against `libsmem.a` and the C++
//! example (`examples/gpgpusim_shared.cpp`) against `libsmem.so` with the
//! system compilers (found by the `cc` crate), runs them, and checks what they
//! print. Both include the checked-in `include/smem.h`, so a declaration that
//! does not compile fails here.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The directory holding a fresh `libsmem.a` and `libsmem.so`.
///
/// `cargo test` builds only the rlib of this crate, so the test builds the C
/// libraries itself, once, with `cargo build -p smem-capi` into a target
/// directory of its own under `target/tmp` (no lock shared with the running
/// `cargo test`; incremental after the first run).
fn artifacts() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi-build");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            let status = Command::new(cargo)
                .args(["build", "--quiet", "-p", "smem-capi", "--target-dir"])
                .arg(&target)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .unwrap();
            assert!(status.success(), "cargo build -p smem-capi failed");
            target.join("debug")
        })
        .clone()
}

fn compiler(cpp: bool) -> Command {
    let target = env!("SMEM_CAPI_TARGET");
    let mut build = cc::Build::new();
    build
        .cpp(cpp)
        .target(target)
        .host(target)
        .opt_level(0)
        .cargo_metadata(false)
        .out_dir(std::env::temp_dir());
    build.get_compiler().to_command()
}

fn run(program: &Path) -> String {
    let output = Command::new(program).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        output.status.success(),
        "{}:\n{stdout}\n{stderr}",
        program.display()
    );
    stdout
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn c_test_against_the_static_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let library = artifacts().join("libsmem.a");
    assert!(library.exists(), "{} was not built", library.display());
    let exe = scratch("smem_test");
    let status = compiler(false)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("tests/c/smem_test.c"))
        .arg(&library)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success(), "compiling the C test");
    let out = run(&exe);
    let last = out.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{out}");
    let passed: u32 = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 60, "{out}");
}

#[test]
fn cpp_example_against_the_shared_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = artifacts();
    assert!(dir.join("libsmem.so").exists(), "libsmem.so was not built");
    let exe = scratch("gpgpusim_shared");
    let status = compiler(true)
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("examples/gpgpusim_shared.cpp"))
        .arg("-L")
        .arg(&dir)
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .args(["-lsmem", "-o"])
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success(), "compiling the C++ example");
    let out = run(&exe);
    let expected = [
        "float s[lane]                   1 cycles  lanes per wavefront: ffffffff",
        "float s[2 * lane]               2 cycles  lanes per wavefront: 0000ffff ffff0000",
        "double s[lane]                  2 cycles  lanes per wavefront: 0000ffff ffff0000",
        "float4 s[lane]                  4 cycles  lanes per wavefront: 000000ff 0000ff00 00ff0000 ff000000",
        "atomicAdd(&hist[lane % 4])      4 cycles",
        "error: unknown compute capability \"sm_1x\"",
        "error -3: the op's name gives LDS 16 bytes per lane, but an access width of 4 bytes was given",
    ];
    for line in expected {
        assert!(
            out.lines().any(|l| l.starts_with(line)),
            "{line:?} not in\n{out}"
        );
    }
    let column = out.lines().find(|l| l.starts_with("float tile")).unwrap();
    assert!(column.contains("32 cycles"), "{out}");
}
