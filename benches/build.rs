// Compiles the C caller of benches/capi.rs (capi_caller.c) against the
// checked-in smem.h; its calls resolve to the smem-capi crate this package
// depends on.
fn main() {
    cc::Build::new()
        .file("capi_caller.c")
        .include("../capi/include")
        .warnings_into_errors(true)
        .compile("capi_caller");
    println!("cargo:rerun-if-changed=capi_caller.c");
    println!("cargo:rerun-if-changed=../capi/include/smem.h");
}
