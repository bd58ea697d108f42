//! The C API of `smem-model`: `libsmem.a` and `libsmem.so`, declared in
//! `capi/include/smem.h` (checked in; `tests/header.rs` checks it against
//! these definitions).
//!
//! A simulator written in C or C++ (GPGPU-Sim, Accel-Sim, gem5) calls
//! [`smem_wavefronts`] once per shared-memory instruction with what it holds:
//! the op, the access width, the 32-bit active mask and 32 shared-window
//! offsets. Every function that can fail returns `SMEM_OK` (0) or a negative
//! `SMEM_ERR_*` code and leaves a message for [`smem_last_error`]; a panic
//! inside the library is caught and reported as `SMEM_ERR_INTERNAL`, so none
//! crosses the boundary.
//!
//! Costs: a call parses the op name (a few comparisons) and then costs what
//! the Rust call does: tens of nanoseconds for [`smem_wavefronts`], no
//! allocation except for an error's message.
//!
//! # Example
//!
//! The same calls from Rust (the C test in `tests/c/` makes them from C):
//!
//! ```
//! use smem::*;
//! use std::ffi::CStr;
//!
//! let config = unsafe { smem_config_new(c"sm_90".as_ptr()) };
//! assert!(!config.is_null());
//! // s[2 * lane] on floats: a 2-way bank conflict.
//! let offsets: [u32; 32] = core::array::from_fn(|lane| 8 * lane as u32);
//! let mut wavefronts = 0;
//! let status = unsafe {
//!     smem_wavefronts(config, c"LDS".as_ptr(), 4, u32::MAX, offsets.as_ptr(), &mut wavefronts)
//! };
//! assert_eq!((status, wavefronts), (SMEM_OK, 2));
//! // A misaligned active lane is an error with a message.
//! let status = unsafe {
//!     smem_wavefronts(config, c"LDS".as_ptr(), 16, 1 << 1, offsets.as_ptr(), &mut wavefronts)
//! };
//! assert_eq!(status, SMEM_ERR_MISALIGNED);
//! let message = unsafe { CStr::from_ptr(smem_last_error()) }.to_str().unwrap();
//! assert!(message.starts_with("misaligned address: lane 1"), "{message}");
//! unsafe { smem_config_free(config) };
//! ```

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use smem_model::{
    BankConfig, ComputeCapability, Error, LaneSet, OpName, SharedMemConfig, WarpRequest,
};

/// Success.
pub const SMEM_OK: c_int = 0;
/// A pointer argument was NULL.
pub const SMEM_ERR_NULL: c_int = -1;
/// The op name (or an arch name) names nothing known, or no op (`red.exch`).
pub const SMEM_ERR_UNKNOWN: c_int = -2;
/// The width is not 1, 2, 4, 8 or 16, or not one the op has.
pub const SMEM_ERR_WIDTH: c_int = -3;
/// An active lane's address is not a multiple of the width.
pub const SMEM_ERR_MISALIGNED: c_int = -4;
/// An active lane's access runs past the shared window.
pub const SMEM_ERR_OUTSIDE_WINDOW: c_int = -5;
/// The capability lacks the op, or this width of it.
pub const SMEM_ERR_UNSUPPORTED_OP: c_int = -6;
/// More transactions than the buffer holds.
pub const SMEM_ERR_CAPACITY: c_int = -7;
/// A caught panic: a bug in the library.
pub const SMEM_ERR_INTERNAL: c_int = -8;
/// Timing asked of a capability that was not measured (only sm_90 was).
pub const SMEM_ERR_NOT_MEASURED: c_int = -9;

/// Lanes in a warp.
pub const SMEM_WARP_SIZE: usize = 32;
/// The most transactions one request takes on any capability: 1.x serves a
/// 16-byte access in 4 parts of 2 half-warps of up to 16 steps.
pub const SMEM_MAX_TRANSACTIONS: u32 = 128;

/// A bank configuration (opaque to C): `smem_config` in `smem.h`.
#[allow(non_camel_case_types)]
pub struct smem_config(BankConfig);

/// What a request costs: `smem_cost` in `smem.h`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smem_cost {
    /// Wavefronts (transactions).
    pub wavefronts: u32,
    /// The wavefronts without bank conflicts.
    pub ideal_wavefronts: u32,
    /// `wavefronts - ideal_wavefronts`.
    pub bank_conflicts: u32,
    /// Steps of the busiest phase.
    pub ways: u32,
}

/// One transaction of a partition: `smem_transaction` in `smem.h`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smem_transaction {
    /// The lanes it serves, bit `i` = lane `i`.
    pub lanes: u32,
    /// The banks it touches, bit `i` = bank `i`.
    pub banks: u32,
    /// Its phase.
    pub phase: u32,
    /// The 4-byte part it moves (1.x), else 0.
    pub part: u32,
}

/// What one instruction costs in cycles on sm_90: `smem_timing` in `smem.h`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct smem_timing {
    /// Cycles the SM's shared pipe is busy: one per wavefront.
    pub pipe_cycles: u32,
    /// Cycles from issue to the loaded value for one warp alone; NaN for ops
    /// other than loads (not measured).
    pub latency: f64,
    /// Cycles per instruction when `warps` warps each run a dependent chain of
    /// it; NaN where `latency` is.
    pub latency_cycles_per_instruction: f64,
    /// Cycles per instruction when `warps` warps issue it independently; NaN
    /// where the model claims nothing (fewer than 16 warps, 8-byte loads
    /// whose half-warps merge).
    pub throughput_cycles_per_instruction: f64,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: String) {
    // Messages never hold NUL; if one did, it is cut there rather than lost.
    let message = CString::new(message).unwrap_or_else(|e| {
        let end = e.nul_position();
        CString::new(&e.into_vec()[..end]).unwrap_or_default()
    });
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
}

/// A failure: its code, with the message already set.
struct Failure(c_int);

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let code = match &error {
            Error::UnknownOp { .. }
            | Error::UnknownCapability { .. }
            | Error::UnknownAtomic { .. }
            | Error::NoReduction { .. } => SMEM_ERR_UNKNOWN,
            Error::InvalidWidth { .. }
            | Error::WidthMismatch { .. }
            | Error::WidthUnavailable { .. }
            | Error::WidthContradicted { .. } => SMEM_ERR_WIDTH,
            Error::Misaligned { .. } => SMEM_ERR_MISALIGNED,
            Error::OutsideWindow { .. } | Error::OutsideGenericWindow { .. } => {
                SMEM_ERR_OUTSIDE_WINDOW
            }
            Error::UnsupportedOp { .. } | Error::UnsupportedAccess { .. } => {
                SMEM_ERR_UNSUPPORTED_OP
            }
            Error::NotMeasured { .. } => SMEM_ERR_NOT_MEASURED,
            _ => SMEM_ERR_INTERNAL,
        };
        set_error(error.to_string());
        Failure(code)
    }
}

fn null(what: &str) -> Failure {
    set_error(format!("{what} is NULL"));
    Failure(SMEM_ERR_NULL)
}

/// Runs `body`, turning its failure or a panic into a status code.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SMEM_OK,
        Ok(Err(Failure(code))) => code,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(format!("internal error in smem (please report it): {what}"));
            SMEM_ERR_INTERNAL
        }
    }
}

/// # Safety
/// `pointer` is NULL or valid for reads of `T`.
unsafe fn read<'a, T>(pointer: *const T, what: &str) -> Result<&'a T, Failure> {
    unsafe { pointer.as_ref() }.ok_or_else(|| null(what))
}

/// # Safety
/// `text` is NULL or a NUL-terminated string.
unsafe fn text<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(null(what));
    }
    unsafe { CStr::from_ptr(text) }.to_str().map_err(|_| {
        set_error(format!("{what} is not UTF-8"));
        Failure(SMEM_ERR_UNKNOWN)
    })
}

/// # Safety
/// As [`smem_wavefronts`].
unsafe fn request(
    op: *const c_char,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
) -> Result<WarpRequest, Failure> {
    let name: OpName = unsafe { text(op, "op") }?.parse()?;
    // The width checked against the name's (`LDS.128` given 4 is an error).
    let width = name.with_width(width)?.bytes();
    let addresses = unsafe { read(addresses.cast::<[u32; 32]>(), "addresses") }?;
    Ok(WarpRequest::from_offsets(
        name.op(),
        width,
        LaneSet::from_bits(active_mask),
        addresses,
    )?)
}

/// The configuration a device of `arch` starts in, or NULL for an unknown
/// arch (with the message in [`smem_last_error`]).
///
/// # Safety
///
/// `arch` is NULL or a NUL-terminated string. Free the result with
/// [`smem_config_free`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let hopper = unsafe { smem_config_new(c"sm_90a".as_ptr()) };
/// assert!(!hopper.is_null());
/// assert!(unsafe { smem_config_new(c"sm_40".as_ptr()) }.is_null());
/// unsafe { smem_config_free(hopper) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_config_new(arch: *const c_char) -> *mut smem_config {
    let mut config = None;
    guard(|| {
        let capability: ComputeCapability = unsafe { text(arch, "arch") }?.parse()?;
        config = Some(Box::new(smem_config(BankConfig::new(capability))));
        Ok(())
    });
    config.map_or(std::ptr::null_mut(), Box::into_raw)
}

/// Frees a configuration from [`smem_config_new`]; NULL is ignored.
///
/// # Safety
///
/// `config` is NULL or from [`smem_config_new`], not freed before.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// unsafe { smem_config_free(smem_config_new(c"8.6".as_ptr())) };
/// unsafe { smem_config_free(std::ptr::null_mut()) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_config_free(config: *mut smem_config) {
    if !config.is_null() {
        drop(unsafe { Box::from_raw(config) });
    }
}

/// Kepler's bank mode, as `cudaDeviceSetSharedMemConfig`: `bank_bytes` 4 or 8
/// on 3.x; elsewhere the width is fixed and nothing changes.
///
/// # Safety
///
/// `config` is NULL or a live configuration.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let kepler = unsafe { smem_config_new(c"sm_35".as_ptr()) };
/// // s[3 * lane] on floats: conflict-free in four-byte mode, 2-way in eight-byte mode.
/// let stride3: [u32; 32] = core::array::from_fn(|lane| 12 * lane as u32);
/// let mut n = 0;
/// unsafe { smem_wavefronts(kepler, c"LDS".as_ptr(), 4, !0, stride3.as_ptr(), &mut n) };
/// assert_eq!(n, 1);
/// assert_eq!(unsafe { smem_config_set_bank_bytes(kepler, 8) }, SMEM_OK);
/// unsafe { smem_wavefronts(kepler, c"LDS".as_ptr(), 4, !0, stride3.as_ptr(), &mut n) };
/// assert_eq!(n, 2);
/// assert_eq!(unsafe { smem_config_set_bank_bytes(kepler, 2) }, SMEM_ERR_WIDTH);
/// unsafe { smem_config_free(kepler) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_config_set_bank_bytes(
    config: *mut smem_config,
    bank_bytes: u32,
) -> c_int {
    guard(|| {
        let config = unsafe { config.as_mut() }.ok_or_else(|| null("config"))?;
        let mode = match bank_bytes {
            4 => SharedMemConfig::FourByte,
            8 => SharedMemConfig::EightByte,
            _ => {
                set_error(format!("bank width of {bank_bytes} bytes: expected 4 or 8"));
                return Err(Failure(SMEM_ERR_WIDTH));
            }
        };
        config.0 = config.0.with_shared_mem_config(mode);
        Ok(())
    })
}

/// The wavefronts of one warp instruction.
///
/// # Safety
///
/// `config` is NULL or a live configuration; `op` NULL or a NUL-terminated
/// string; `addresses` NULL or valid for reading 32 `u32`; `wavefronts` NULL
/// or valid for writing one.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// // A column of float tile[32][32], lanes 16-31 inactive (their offsets are ignored).
/// let mut column: [u32; 32] = core::array::from_fn(|lane| 128 * lane as u32);
/// column[20] = 3;
/// let mut n = 0;
/// let status =
///     unsafe { smem_wavefronts(sm90, c"STS".as_ptr(), 4, 0xffff, column.as_ptr(), &mut n) };
/// assert_eq!((status, n), (SMEM_OK, 16));
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_wavefronts(
    config: *const smem_config,
    op: *const c_char,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    wavefronts: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { read(config, "config") }?;
        let request = unsafe { request(op, width, active_mask, addresses) }?;
        let out = unsafe { wavefronts.as_mut() }.ok_or_else(|| null("wavefronts"))?;
        *out = config.0.wavefronts(&request)?;
        Ok(())
    })
}

/// As [`smem_wavefronts`], from generic addresses: each active lane's shared
/// offset is `address - window_base`.
///
/// # Safety
///
/// As [`smem_wavefronts`], with `addresses` valid for reading 32 `u64`.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let base = 0x7f00_0000_0000u64;
/// let generic: [u64; 32] = core::array::from_fn(|lane| base + 8 * lane as u64);
/// let mut n = 0;
/// let status = unsafe {
///     smem_wavefronts_generic(sm90, c"LDS".as_ptr(), 4, !0, generic.as_ptr(), base, &mut n)
/// };
/// assert_eq!((status, n), (SMEM_OK, 2));
/// // Below the window's base: an error naming the lane.
/// let status = unsafe {
///     smem_wavefronts_generic(sm90, c"LDS".as_ptr(), 4, !0, generic.as_ptr(), base + 4, &mut n)
/// };
/// assert_eq!(status, SMEM_ERR_OUTSIDE_WINDOW);
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_wavefronts_generic(
    config: *const smem_config,
    op: *const c_char,
    width: u32,
    active_mask: u32,
    addresses: *const u64,
    window_base: u64,
    wavefronts: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { read(config, "config") }?;
        let name: OpName = unsafe { text(op, "op") }?.parse()?;
        let width = name.with_width(width)?.bytes();
        let addresses = unsafe { read(addresses.cast::<[u64; 32]>(), "addresses") }?;
        let mask = LaneSet::from_bits(active_mask);
        let request = WarpRequest::from_generic(name.op(), width, mask, addresses, window_base)?;
        let out = unsafe { wavefronts.as_mut() }.ok_or_else(|| null("wavefronts"))?;
        *out = config.0.wavefronts(&request)?;
        Ok(())
    })
}

/// The wavefronts, ideal wavefronts, bank conflicts and ways.
///
/// # Safety
///
/// As [`smem_wavefronts`], with `cost` NULL or valid for writing.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// // double d = s[4 * lane]: four lanes of each half-warp in one pair of banks.
/// let offsets: [u32; 32] = core::array::from_fn(|lane| 32 * lane as u32);
/// let mut cost = smem_cost::default();
/// unsafe { smem_cost_of(sm90, c"LDS".as_ptr(), 8, !0, offsets.as_ptr(), &mut cost) };
/// assert_eq!(cost, smem_cost { wavefronts: 8, ideal_wavefronts: 2, bank_conflicts: 6, ways: 4 });
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_cost_of(
    config: *const smem_config,
    op: *const c_char,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    cost: *mut smem_cost,
) -> c_int {
    guard(|| {
        let config = unsafe { read(config, "config") }?;
        let request = unsafe { request(op, width, active_mask, addresses) }?;
        let out = unsafe { cost.as_mut() }.ok_or_else(|| null("cost"))?;
        let c = config.0.cost(&request)?;
        *out = smem_cost {
            wavefronts: c.wavefronts(),
            ideal_wavefronts: c.ideal_wavefronts(),
            bank_conflicts: c.bank_conflicts(),
            ways: c.ways(),
        };
        Ok(())
    })
}

/// The transactions in the order served: writes `min(count, capacity)` of
/// them and their number to `*count`; `SMEM_ERR_CAPACITY` when `capacity` is
/// too small (`SMEM_MAX_TRANSACTIONS` always suffices).
///
/// # Safety
///
/// As [`smem_wavefronts`], with `transactions` NULL (only when `capacity` is
/// 0) or valid for writing `capacity` items, and `count` valid for writing.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// // float4 v = s4[lane]: one wavefront per quarter-warp, each over all 32 banks.
/// let offsets: [u32; 32] = core::array::from_fn(|lane| 16 * lane as u32);
/// let mut out = [smem_transaction::default(); SMEM_MAX_TRANSACTIONS as usize];
/// let mut count = 0;
/// let status = unsafe {
///     smem_partition(sm90, c"LDS".as_ptr(), 16, !0, offsets.as_ptr(), out.as_mut_ptr(),
///                    SMEM_MAX_TRANSACTIONS, &mut count)
/// };
/// assert_eq!((status, count), (SMEM_OK, 4));
/// assert_eq!(out[1], smem_transaction { lanes: 0xff00, banks: !0, phase: 1, part: 0 });
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_partition(
    config: *const smem_config,
    op: *const c_char,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    transactions: *mut smem_transaction,
    capacity: u32,
    count: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { read(config, "config") }?;
        let request = unsafe { request(op, width, active_mask, addresses) }?;
        let count = unsafe { count.as_mut() }.ok_or_else(|| null("count"))?;
        if transactions.is_null() && capacity > 0 {
            return Err(null("transactions"));
        }
        let partition = config.0.partition(&request)?;
        *count = partition.wavefronts();
        for (i, t) in partition.transactions().take(capacity as usize).enumerate() {
            let item = smem_transaction {
                lanes: t.lanes().bits(),
                banks: t.banks().bits(),
                phase: t.phase(),
                part: t.part(),
            };
            unsafe { transactions.add(i).write(item) };
        }
        if *count > capacity {
            set_error(format!(
                "the request takes {} transactions but the buffer holds {capacity}",
                *count
            ));
            return Err(Failure(SMEM_ERR_CAPACITY));
        }
        Ok(())
    })
}

/// What the instruction costs in cycles on sm_90 (the measured timing model of
/// `BankConfig::timing`), with `warps` warps of one SM running it.
///
/// # Safety
///
/// As [`smem_wavefronts`], with `timing` NULL or valid for writing.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let floats: [u32; 32] = core::array::from_fn(|lane| 4 * lane as u32);
/// let mut timing = smem_timing::default();
/// let status =
///     unsafe { smem_timing_of(sm90, c"LDS".as_ptr(), 4, !0, floats.as_ptr(), 16, &mut timing) };
/// assert_eq!((status, timing.pipe_cycles), (SMEM_OK, 1));
/// assert!(timing.latency > 20.0 && timing.latency_cycles_per_instruction < timing.latency);
/// // Stores were not timed for latency; other capabilities not at all.
/// unsafe { smem_timing_of(sm90, c"STS".as_ptr(), 4, !0, floats.as_ptr(), 16, &mut timing) };
/// assert!(timing.latency.is_nan());
/// let sm80 = unsafe { smem_config_new(c"sm_80".as_ptr()) };
/// let status =
///     unsafe { smem_timing_of(sm80, c"LDS".as_ptr(), 4, !0, floats.as_ptr(), 16, &mut timing) };
/// assert_eq!(status, SMEM_ERR_NOT_MEASURED);
/// unsafe { smem_config_free(sm80) };
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_timing_of(
    config: *const smem_config,
    op: *const c_char,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    warps: u32,
    timing: *mut smem_timing,
) -> c_int {
    guard(|| {
        let config = unsafe { read(config, "config") }?;
        let request = unsafe { request(op, width, active_mask, addresses) }?;
        let out = unsafe { timing.as_mut() }.ok_or_else(|| null("timing"))?;
        let t = config.0.timing(&request)?;
        *out = smem_timing {
            pipe_cycles: t.pipe_cycles(),
            latency: t.latency().unwrap_or(f64::NAN),
            latency_cycles_per_instruction: t
                .latency_cycles_per_instruction(warps)
                .unwrap_or(f64::NAN),
            throughput_cycles_per_instruction: t
                .throughput_cycles_per_instruction(warps)
                .unwrap_or(f64::NAN),
        };
        Ok(())
    })
}

/// This thread's last error message, `""` if none: valid until the next call
/// that fails on this thread.
///
/// # Example
///
/// ```
/// use smem::*;
/// use std::ffi::CStr;
///
/// assert!(unsafe { smem_config_new(c"sm_1x".as_ptr()) }.is_null());
/// let message = unsafe { CStr::from_ptr(smem_last_error()) }.to_str().unwrap();
/// assert!(message.starts_with("unknown compute capability \"sm_1x\""), "{message}");
/// ```
#[no_mangle]
pub extern "C" fn smem_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The library version, e.g. `"0.1.0"`.
///
/// # Example
///
/// ```
/// use std::ffi::CStr;
///
/// let version = unsafe { CStr::from_ptr(smem::smem_version()) };
/// assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
/// ```
#[no_mangle]
pub extern "C" fn smem_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_a_status_and_a_message() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, SMEM_ERR_INTERNAL);
        let message = unsafe { CStr::from_ptr(smem_last_error()) };
        assert_eq!(
            message.to_str().unwrap(),
            "internal error in smem (please report it): boom"
        );
    }

    #[test]
    fn a_message_with_a_nul_is_cut_there() {
        set_error("before\0after".to_string());
        let message = unsafe { CStr::from_ptr(smem_last_error()) };
        assert_eq!(message.to_str().unwrap(), "before");
    }

    #[test]
    fn every_error_has_a_code() {
        let cases = [
            (Error::UnknownOp { given: "x".into() }, SMEM_ERR_UNKNOWN),
            (Error::InvalidWidth { width: 3 }, SMEM_ERR_WIDTH),
            (
                Error::Misaligned {
                    lane: 1,
                    address: 2,
                    width: 4,
                },
                SMEM_ERR_MISALIGNED,
            ),
            (
                Error::OutsideGenericWindow {
                    lane: 0,
                    address: 0,
                    base: 1,
                },
                SMEM_ERR_OUTSIDE_WINDOW,
            ),
            (Error::LaneCount { given: 3 }, SMEM_ERR_INTERNAL),
        ];
        for (error, code) in cases {
            let message = error.to_string();
            assert_eq!(Failure::from(error).0, code);
            let last = unsafe { CStr::from_ptr(smem_last_error()) };
            assert_eq!(last.to_str().unwrap(), message);
        }
    }
}

#[cfg(test)]
mod bound {
    use super::*;
    use smem_model::Op;

    /// `SMEM_MAX_TRANSACTIONS` is the most any request takes, and some
    /// request takes it.
    #[test]
    fn max_transactions_is_tight() {
        let mut most = 0;
        for capability in ComputeCapability::ALL {
            let config = BankConfig::new(capability);
            for width in [1u32, 2, 4, 8, 16] {
                for stride in [1u32, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] {
                    let offsets: [u32; 32] = core::array::from_fn(|l| l as u32 * stride * width);
                    for op in [Op::Load, Op::Store] {
                        let request =
                            WarpRequest::from_offsets(op, width, LaneSet::FULL, &offsets).unwrap();
                        if let Ok(n) = config.wavefronts(&request) {
                            most = most.max(n);
                        }
                    }
                }
            }
        }
        assert_eq!(most, SMEM_MAX_TRANSACTIONS);
    }
}
