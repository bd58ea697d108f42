//! The benchmarks of `smem-model` (see `partition.rs` and `capi.rs`). This
//! library holds only the C side of `capi.rs`. Run them with
//! `cargo bench -p smem-bench` from the repository root.

/// The functions of `capi_caller.c` (compiled by `build.rs`): C loops calling
/// the C API, each returning the sum of the counts or `u32::MAX` on an error.
/// Declared here, in the library, so that the archive is linked with it.
pub mod capi_caller {
    use std::ffi::{c_char, c_void};

    use smem::{smem_cost, smem_op};

    // `config` is an `smem_config *` (opaque here); every pointer is valid for
    // `n` requests (32 offsets each).
    unsafe extern "C" {
        pub fn caller_wavefronts_string(
            config: *const c_void,
            op: *const c_char,
            width: u32,
            n: usize,
            masks: *const u32,
            addresses: *const u32,
        ) -> u32;
        pub fn caller_wavefronts_op(
            config: *const c_void,
            op: smem_op,
            width: u32,
            n: usize,
            masks: *const u32,
            addresses: *const u32,
        ) -> u32;
        pub fn caller_wavefronts_batch(
            config: *const c_void,
            op: smem_op,
            width: u32,
            n: usize,
            masks: *const u32,
            addresses: *const u32,
            out: *mut u32,
        ) -> u32;
        pub fn caller_cost_op(
            config: *const c_void,
            op: smem_op,
            width: u32,
            n: usize,
            masks: *const u32,
            addresses: *const u32,
        ) -> u32;
        pub fn caller_cost_batch(
            config: *const c_void,
            op: smem_op,
            width: u32,
            n: usize,
            masks: *const u32,
            addresses: *const u32,
            out: *mut smem_cost,
        ) -> u32;
    }
}
