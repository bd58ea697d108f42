// Tells the tests which target they were built for, so that they can drive
// the matching C and C++ compilers (through the `cc` crate).
fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=SMEM_CAPI_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
