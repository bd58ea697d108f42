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
//! Costs: the string calls parse the op name (a few comparisons) on every
//! call; [`smem_op_parse`] parses it once into an [`smem_op`], and the `_op`
//! calls ([`smem_wavefronts_op`], [`smem_cost_op`], ...) and the batches
//! ([`smem_wavefronts_batch`], [`smem_cost_batch`]) then cost what the Rust
//! calls do (`benches/capi.rs` measures both side by side). No allocation
//! except for an error's message.
//!
//! Threads: one configuration may be shared by any number of threads calling
//! the request functions at once (they only read it); only
//! [`smem_config_set_bank_bytes`] and [`smem_config_free`] must not run while
//! another call uses the same configuration. Error messages are per thread.
//!
//! Freed configurations: a handle carries a tag, so a call with a handle
//! already freed answers `SMEM_ERR_FREED` (a second free too) instead of a
//! wrong count or an abort. The library keeps freed configurations' memory
//! and hands the oldest out again only once 64 more have been freed, so a
//! stale handle is detected until then; after that it may name a newer
//! configuration. A pointer that never came from [`smem_config_new`] is not
//! detected.
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

use std::cell::{RefCell, UnsafeCell};
use std::collections::VecDeque;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use smem_model::{
    AccessWidth, BankConfig, ComputeCapability, Cost, Error, LaneSet, Op, OpName, SharedMemConfig,
    WarpRequest,
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
/// A configuration already freed (or an `smem_op` not made by
/// [`smem_op_parse`]).
pub const SMEM_ERR_FREED: c_int = -10;
/// An argument out of its range: a number of warps an SM cannot hold (0, or
/// more than 64 on sm_90).
pub const SMEM_ERR_ARGUMENT: c_int = -11;

/// Lanes in a warp.
pub const SMEM_WARP_SIZE: usize = 32;
/// The most transactions one request takes on any capability: 1.x serves a
/// 16-byte access in 4 parts of 2 half-warps of up to 16 steps.
pub const SMEM_MAX_TRANSACTIONS: u32 = 128;

/// A bank configuration (opaque to C): `smem_config` in `smem.h`.
///
/// The tag tells a live configuration from a freed one; the configuration is
/// in a cell because [`smem_config_set_bank_bytes`] changes it through the
/// pointer C holds.
#[allow(non_camel_case_types)]
pub struct smem_config {
    tag: AtomicU32,
    config: UnsafeCell<BankConfig>,
}

// Shared by threads that only read it (the request calls); writes
// (`smem_config_set_bank_bytes`) are documented as not concurrent with any
// other call on the same configuration.
unsafe impl Sync for smem_config {}

/// The tag of a live configuration.
const LIVE: u32 = 0x5e3c_11fe;
/// The tag of a freed one.
const FREED: u32 = 0x5e3c_dead;
/// Freed configurations kept before the oldest is handed out again.
const QUARANTINE: usize = 64;

/// Freed configurations (their addresses), oldest first. Their memory is never
/// returned to the allocator, so reading a stale handle's tag is defined.
static FREED_CONFIGS: Mutex<VecDeque<usize>> = Mutex::new(VecDeque::new());

impl smem_config {
    #[inline(always)]
    fn get(&self) -> BankConfig {
        // Only `smem_config_set_bank_bytes` writes, never concurrently (see
        // the type's docs).
        unsafe { *self.config.get() }
    }
}

/// An op parsed once by [`smem_op_parse`]: `smem_op` in `smem.h`, a value
/// to pass by value and keep. Opaque: the tag, the width the name gave and
/// the op's index.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smem_op {
    /// `0x5e` in the top byte, the named width in bytes in the second, the
    /// op's index in `Op::ALL` in the low 16 bits.
    pub opaque: u32,
}

/// The top byte of a parsed op.
const OP_TAG: u32 = 0x5e00_0000;

impl smem_op {
    fn new(name: OpName) -> Self {
        let index = Op::ALL.iter().position(|&op| op == name.op());
        let width = name.width().map_or(0, AccessWidth::bytes);
        // Every op is in Op::ALL; an index past it would fail `decode`.
        let index = index.unwrap_or(0xffff) as u32;
        smem_op {
            opaque: OP_TAG | width << 16 | index,
        }
    }

    /// The op and the width its name gives (`None`: the caller's).
    fn decode(self) -> Result<(Op, Option<AccessWidth>), Failure> {
        let op = (self.opaque & 0xff00_0000 == OP_TAG)
            .then(|| Op::ALL.get((self.opaque & 0xffff) as usize))
            .flatten()
            .copied();
        // No `Error` built on this path: it sits in every `_op` call.
        let width = match (self.opaque >> 16) & 0xff {
            0 => Ok(None),
            1 => Ok(Some(AccessWidth::B1)),
            2 => Ok(Some(AccessWidth::B2)),
            4 => Ok(Some(AccessWidth::B4)),
            8 => Ok(Some(AccessWidth::B8)),
            16 => Ok(Some(AccessWidth::B16)),
            _ => Err(()),
        };
        match (op, width) {
            (Some(op), Ok(width)) => Ok((op, width)),
            _ => {
                set_error(format!(
                    "op {:#010x} was not made by smem_op_parse",
                    self.opaque
                ));
                Err(Failure(SMEM_ERR_FREED))
            }
        }
    }

    /// The op and the request's width: `width`, checked against the name's,
    /// or the name's when `width` is 0.
    ///
    /// In every per-request call: the common cases (a width the name agrees
    /// with, or 0 for a name that gives one) take a few instructions, with no
    /// `Result` of a decoded width; everything else, errors included, goes
    /// to [`resolve_slow`](Self::resolve_slow).
    #[inline(always)]
    fn resolve(self, width: u32) -> Result<(Op, u32), Failure> {
        // The named widths `smem_op_parse` writes: 0 (none), 1, 2, 4, 8, 16.
        const NAMED: u32 = 1 | 1 << 1 | 1 << 2 | 1 << 4 | 1 << 8 | 1 << 16;
        let named = (self.opaque >> 16) & 0xff;
        let op = match self.opaque & 0xff00_0000 == OP_TAG && named < 32 && NAMED >> named & 1 == 1
        {
            true => Op::ALL.get((self.opaque & 0xffff) as usize).copied(),
            false => None,
        };
        match op {
            Some(op) if width != 0 && (named == 0 || named == width) => Ok((op, width)),
            Some(op) if width == 0 && named != 0 => Ok((op, named)),
            _ => self.resolve_slow(width),
        }
    }

    /// [`resolve`](Self::resolve) the long way: the op's fixed width for
    /// width 0, and every error.
    #[cold]
    #[inline(never)]
    fn resolve_slow(self, width: u32) -> Result<(Op, u32), Failure> {
        let (op, named) = self.decode()?;
        match (width, named) {
            (0, Some(named)) => Ok((op, named.bytes())),
            (0, None) => match op.fixed_width() {
                Some(only) => Ok((op, only.bytes())),
                None => {
                    set_error(format!(
                        "width 0 asks for the width of the op's name, but {op} names none: give 1, 2, 4, 8 or 16"
                    ));
                    Err(Failure(SMEM_ERR_WIDTH))
                }
            },
            (width, Some(named)) if width != named.bytes() => Err(Error::WidthContradicted {
                op,
                named: named.bytes(),
                given: width,
            }
            .into()),
            (width, _) => Ok((op, width)),
        }
    }
}

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

#[cold]
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
    #[cold]
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
            Error::WarpsPerSm { .. } => SMEM_ERR_ARGUMENT,
            Error::LaneCount { .. } => SMEM_ERR_INTERNAL,
            _ => SMEM_ERR_INTERNAL,
        };
        set_error(error.to_string());
        Failure(code)
    }
}

#[cold]
fn null(what: &str) -> Failure {
    set_error(format!("{what} is NULL"));
    Failure(SMEM_ERR_NULL)
}

/// Runs `body`, turning its failure or a panic into a status code.
#[inline(always)]
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
#[inline(always)]
unsafe fn read<'a, T>(pointer: *const T, what: &str) -> Result<&'a T, Failure> {
    unsafe { pointer.as_ref() }.ok_or_else(|| null(what))
}

/// The configuration behind a handle, if it is live.
///
/// # Safety
/// `config` is NULL or from [`smem_config_new`] (freed or not).
#[inline(always)]
unsafe fn live<'a>(config: *const smem_config) -> Result<&'a smem_config, Failure> {
    let config = unsafe { read(config, "config") }?;
    if config.tag.load(Ordering::Acquire) != LIVE {
        return Err(freed());
    }
    Ok(config)
}

#[cold]
fn freed() -> Failure {
    set_error("config was freed: smem_config_free was called on it before".to_string());
    Failure(SMEM_ERR_FREED)
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

/// The request of a parsed op.
///
/// # Safety
/// As [`smem_wavefronts_op`].
#[inline(always)]
unsafe fn request(
    op: smem_op,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
) -> Result<WarpRequest, Failure> {
    let (op, width) = op.resolve(width)?;
    let addresses = unsafe { read(addresses.cast::<[u32; 32]>(), "addresses") }?;
    Ok(WarpRequest::from_offsets(
        op,
        width,
        LaneSet::from_bits(active_mask),
        addresses,
    )?)
}

/// `count` of the request of `op`, `width`, `mask` and `addresses`, the
/// request used where `from_offsets` built it: moving it out of its `Result`
/// copies 130 bytes, about a tenth of what the whole call costs (issue 23: the
/// cost calls within 1.3x of Rust's `from_offsets` + `cost`).
#[inline(always)]
fn counted<T>(
    op: Op,
    width: u32,
    mask: u32,
    addresses: &[u32; 32],
    count: impl FnOnce(&WarpRequest) -> Result<T, Error>,
) -> Result<T, Error> {
    match WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), addresses) {
        Ok(ref request) => count(request),
        Err(error) => Err(error),
    }
}

/// A [`Cost`] as C has it.
#[inline(always)]
fn c_cost(cost: Cost) -> smem_cost {
    smem_cost {
        wavefronts: cost.wavefronts(),
        ideal_wavefronts: cost.ideal_wavefronts(),
        bank_conflicts: cost.bank_conflicts(),
        ways: cost.ways(),
    }
}

/// `op` parsed, or the status of the failed parse.
///
/// # Safety
/// `op` is NULL or a NUL-terminated string.
unsafe fn parsed(op: *const c_char) -> Result<smem_op, c_int> {
    let mut parsed = smem_op::default();
    match unsafe { smem_op_parse(op, &mut parsed) } {
        SMEM_OK => Ok(parsed),
        status => Err(status),
    }
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
        config = Some(BankConfig::new(capability));
        Ok(())
    });
    let Some(config) = config else {
        return std::ptr::null_mut();
    };
    // The oldest freed configuration once enough are kept, else a new one.
    let reused = {
        let mut freed = FREED_CONFIGS.lock().unwrap_or_else(|e| e.into_inner());
        if freed.len() > QUARANTINE {
            freed.pop_front()
        } else {
            None
        }
    };
    match reused {
        Some(address) => {
            let reused = address as *mut smem_config;
            // Freed, so no other call may use it (the contract of smem_config_free).
            unsafe {
                *(*reused).config.get() = config;
                (*reused).tag.store(LIVE, Ordering::Release);
            }
            reused
        }
        None => Box::into_raw(Box::new(smem_config {
            tag: AtomicU32::new(LIVE),
            config: UnsafeCell::new(config),
        })),
    }
}

/// Frees a configuration from [`smem_config_new`]; NULL is ignored.
///
/// Returns `SMEM_OK`, or `SMEM_ERR_FREED` for a configuration already freed
/// (a second free is detected and changes nothing; see the module docs for
/// how long).
///
/// # Safety
///
/// `config` is NULL or from [`smem_config_new`], and no other call uses it
/// while this one runs.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let config = unsafe { smem_config_new(c"8.6".as_ptr()) };
/// assert_eq!(unsafe { smem_config_free(config) }, SMEM_OK);
/// // A second free and a use after free are errors, not an abort.
/// assert_eq!(unsafe { smem_config_free(config) }, SMEM_ERR_FREED);
/// let offsets = [0u32; 32];
/// let mut n = 0;
/// let status =
///     unsafe { smem_wavefronts(config, c"LDS".as_ptr(), 4, !0, offsets.as_ptr(), &mut n) };
/// assert_eq!(status, SMEM_ERR_FREED);
/// assert_eq!(unsafe { smem_config_free(std::ptr::null_mut()) }, SMEM_OK);
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_config_free(config: *mut smem_config) -> c_int {
    guard(|| {
        let Some(handle) = (unsafe { config.as_ref() }) else {
            return Ok(());
        };
        if handle
            .tag
            .compare_exchange(LIVE, FREED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(freed());
        }
        FREED_CONFIGS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(config as usize);
        Ok(())
    })
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
        let config = unsafe { live(config) }?;
        let mode = match bank_bytes {
            4 => SharedMemConfig::FourByte,
            8 => SharedMemConfig::EightByte,
            _ => {
                set_error(format!("bank width of {bank_bytes} bytes: expected 4 or 8"));
                return Err(Failure(SMEM_ERR_WIDTH));
            }
        };
        // Not concurrent with any other call on this configuration (its contract).
        unsafe { *config.config.get() = config.get().with_shared_mem_config(mode) };
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
    match unsafe { parsed(op) } {
        Ok(op) => unsafe {
            smem_wavefronts_op(config, op, width, active_mask, addresses, wavefronts)
        },
        Err(status) => status,
    }
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
    match unsafe { parsed(op) } {
        Ok(op) => unsafe {
            smem_wavefronts_generic_op(
                config,
                op,
                width,
                active_mask,
                addresses,
                window_base,
                wavefronts,
            )
        },
        Err(status) => status,
    }
}

/// As [`smem_wavefronts_generic`], for an op parsed by [`smem_op_parse`];
/// `width` 0 takes the width the op's name gives.
///
/// # Safety
///
/// As [`smem_wavefronts_generic`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// unsafe { smem_op_parse(c"ld.shared.f64".as_ptr(), &mut op) };
/// let base = 0x7f00_0000_0000u64;
/// let generic: [u64; 32] = core::array::from_fn(|lane| base + 8 * lane as u64);
/// let mut n = 0;
/// let status =
///     unsafe { smem_wavefronts_generic_op(sm90, op, 0, !0, generic.as_ptr(), base, &mut n) };
/// assert_eq!((status, n), (SMEM_OK, 2));
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_wavefronts_generic_op(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    active_mask: u32,
    addresses: *const u64,
    window_base: u64,
    wavefronts: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let (op, width) = op.resolve(width)?;
        let addresses = unsafe { read(addresses.cast::<[u64; 32]>(), "addresses") }?;
        let mask = LaneSet::from_bits(active_mask);
        let request = WarpRequest::from_generic(op, width, mask, addresses, window_base)?;
        let out = unsafe { wavefronts.as_mut() }.ok_or_else(|| null("wavefronts"))?;
        *out = config.wavefronts(&request)?;
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
    match unsafe { parsed(op) } {
        Ok(op) => unsafe { smem_cost_op(config, op, width, active_mask, addresses, cost) },
        Err(status) => status,
    }
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
    match unsafe { parsed(op) } {
        Ok(op) => unsafe {
            smem_partition_op(
                config,
                op,
                width,
                active_mask,
                addresses,
                transactions,
                capacity,
                count,
            )
        },
        Err(status) => status,
    }
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
/// // No SM holds 0 warps (or more than 64).
/// let status =
///     unsafe { smem_timing_of(sm90, c"LDS".as_ptr(), 4, !0, floats.as_ptr(), 0, &mut timing) };
/// assert_eq!(status, SMEM_ERR_ARGUMENT);
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
    match unsafe { parsed(op) } {
        Ok(op) => unsafe {
            smem_timing_op(config, op, width, active_mask, addresses, warps, timing)
        },
        Err(status) => status,
    }
}

/// As [`smem_wavefronts`], for an op parsed by [`smem_op_parse`]; `width` 0 takes the
/// width the op's name gives.
///
/// # Safety
///
/// As [`smem_wavefronts`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// assert_eq!(unsafe { smem_op_parse(c"LDS.128".as_ptr(), &mut op) }, SMEM_OK);
/// let offsets: [u32; 32] = core::array::from_fn(|lane| 16 * lane as u32);
/// let mut n = 0;
/// let status = unsafe { smem_wavefronts_op(sm90, op, 0, !0, offsets.as_ptr(), &mut n) };
/// assert_eq!((status, n), (SMEM_OK, 4));
/// // A width that contradicts the name's is an error.
/// let status = unsafe { smem_wavefronts_op(sm90, op, 4, !0, offsets.as_ptr(), &mut n) };
/// assert_eq!(status, SMEM_ERR_WIDTH);
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_wavefronts_op(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    wavefronts: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let (op, width) = op.resolve(width)?;
        let addresses = unsafe { read(addresses.cast::<[u32; 32]>(), "addresses") }?;
        let out = unsafe { wavefronts.as_mut() }.ok_or_else(|| null("wavefronts"))?;
        *out = counted(op, width, active_mask, addresses, |r| config.wavefronts(r))?;
        Ok(())
    })
}

/// As [`smem_cost_of`], for an op parsed by [`smem_op_parse`]; `width` 0 takes the
/// width the op's name gives.
///
/// # Safety
///
/// As [`smem_cost_of`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// assert_eq!(unsafe { smem_op_parse(c"LDS.128".as_ptr(), &mut op) }, SMEM_OK);
/// let offsets: [u32; 32] = core::array::from_fn(|lane| 16 * lane as u32);
/// let mut cost = smem_cost::default();
/// let status = unsafe { smem_cost_op(sm90, op, 16, !0, offsets.as_ptr(), &mut cost) };
/// assert_eq!((status, cost.wavefronts, cost.bank_conflicts), (SMEM_OK, 4, 0));
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_cost_op(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    cost: *mut smem_cost,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let (op, width) = op.resolve(width)?;
        let addresses = unsafe { read(addresses.cast::<[u32; 32]>(), "addresses") }?;
        let out = unsafe { cost.as_mut() }.ok_or_else(|| null("cost"))?;
        *out = c_cost(counted(op, width, active_mask, addresses, |r| {
            config.cost(r)
        })?);
        Ok(())
    })
}

/// As [`smem_partition`], for an op parsed by [`smem_op_parse`]; `width` 0 takes the
/// width the op's name gives.
///
/// # Safety
///
/// As [`smem_partition`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// assert_eq!(unsafe { smem_op_parse(c"LDS.128".as_ptr(), &mut op) }, SMEM_OK);
/// let offsets: [u32; 32] = core::array::from_fn(|lane| 16 * lane as u32);
/// let mut out = [smem_transaction::default(); SMEM_MAX_TRANSACTIONS as usize];
/// let mut count = 0;
/// let status = unsafe {
///     smem_partition_op(sm90, op, 0, !0, offsets.as_ptr(), out.as_mut_ptr(),
///                       SMEM_MAX_TRANSACTIONS, &mut count)
/// };
/// assert_eq!((status, count, out[3].lanes), (SMEM_OK, 4, 0xff00_0000));
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_partition_op(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    transactions: *mut smem_transaction,
    capacity: u32,
    count: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let request = unsafe { request(op, width, active_mask, addresses) }?;
        let count = unsafe { count.as_mut() }.ok_or_else(|| null("count"))?;
        if transactions.is_null() && capacity > 0 {
            return Err(null("transactions"));
        }
        let partition = config.partition(&request)?;
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

/// As [`smem_timing_of`], for an op parsed by [`smem_op_parse`]; `width` 0 takes the
/// width the op's name gives.
///
/// # Safety
///
/// As [`smem_timing_of`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// assert_eq!(unsafe { smem_op_parse(c"LDS.128".as_ptr(), &mut op) }, SMEM_OK);
/// let offsets: [u32; 32] = core::array::from_fn(|lane| 16 * lane as u32);
/// let mut timing = smem_timing::default();
/// let status = unsafe { smem_timing_op(sm90, op, 0, !0, offsets.as_ptr(), 16, &mut timing) };
/// assert_eq!((status, timing.pipe_cycles), (SMEM_OK, 4));
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_timing_op(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    active_mask: u32,
    addresses: *const u32,
    warps: u32,
    timing: *mut smem_timing,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let request = unsafe { request(op, width, active_mask, addresses) }?;
        let out = unsafe { timing.as_mut() }.ok_or_else(|| null("timing"))?;
        // The per-warp figures of a count an SM cannot hold would be NaN:
        // an argument error says so instead of a success with no figure.
        smem_model::Timing::check_warps(warps)?;
        let t = config.timing(&request)?;
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

/// Parses an op name once, for the `_op` calls: any name the library reads
/// (SASS `"LDS.U.128"`, `"ATOMS.CAS.64"`, `"LDSM.16.MT88.4"`; PTX
/// `"ld.shared.v4.f32"`, `"atom.shared.add.u64"`; `"LDS"`, `"ldsm.x4"`,
/// `"cp.async.cg"`), with the width it gives, if any.
///
/// # Safety
///
/// `name` is NULL or a NUL-terminated string; `out` NULL or valid for writing.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let mut op = smem_op::default();
/// assert_eq!(unsafe { smem_op_parse(c"ATOMS.CAS.64".as_ptr(), &mut op) }, SMEM_OK);
/// assert_eq!(smem_op_width(op), 8);
/// assert_eq!(unsafe { smem_op_parse(c"LDG.E".as_ptr(), &mut op) }, SMEM_ERR_UNKNOWN);
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_op_parse(name: *const c_char, out: *mut smem_op) -> c_int {
    guard(|| {
        let name: OpName = unsafe { text(name, "op") }?.parse()?;
        let out = unsafe { out.as_mut() }.ok_or_else(|| null("out"))?;
        *out = smem_op::new(name);
        Ok(())
    })
}

/// The access width in bytes that a parsed op's name gives (`"LDS.128"`: 16,
/// `"ldsm.x4"`: 16), or 0 when it gives none (`"LDS"`) or `op` was not made by
/// [`smem_op_parse`].
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let mut op = smem_op::default();
/// unsafe { smem_op_parse(c"LDS".as_ptr(), &mut op) };
/// assert_eq!(smem_op_width(op), 0);
/// unsafe { smem_op_parse(c"ldmatrix.sync.aligned.m8n8.x4.shared.b16".as_ptr(), &mut op) };
/// assert_eq!(smem_op_width(op), 16);
/// ```
#[no_mangle]
pub extern "C" fn smem_op_width(op: smem_op) -> u32 {
    match op.decode() {
        Ok((op, named)) => named.or(op.fixed_width()).map_or(0, AccessWidth::bytes),
        Err(_) => 0,
    }
}

/// The `n` requests' `masks` and `addresses` (`n` x 32, request `i`'s at
/// `32 * i`), checked for NULL and for a length that overflows.
///
/// # Safety
/// As [`smem_wavefronts_batch`].
unsafe fn batch<'a>(
    n: usize,
    masks: *const u32,
    addresses: *const u32,
) -> Result<(&'a [u32], &'a [[u32; 32]]), Failure> {
    if n == 0 {
        return Ok((&[], &[]));
    }
    if masks.is_null() {
        return Err(null("masks"));
    }
    if addresses.is_null() {
        return Err(null("addresses"));
    }
    if n > isize::MAX as usize / 128 {
        set_error(format!("{n} requests do not fit in memory"));
        return Err(Failure(SMEM_ERR_CAPACITY));
    }
    Ok(unsafe {
        (
            std::slice::from_raw_parts(masks, n),
            std::slice::from_raw_parts(addresses.cast::<[u32; 32]>(), n),
        )
    })
}

/// The failure of request `i` of a batch: the error's code, its message
/// prefixed with the request's index.
#[cold]
#[inline(never)]
fn batch_error(i: usize, error: Error) -> Failure {
    let Failure(code) = Failure::from(error.clone());
    set_error(format!("request {i}: {error}"));
    Failure(code)
}

/// The wavefronts of `n` warp instructions of one op and width: request `i`
/// has the active mask `masks[i]` and the 32 offsets `addresses[32 * i ..
/// 32 * i + 32]`, and its count goes to `wavefronts[i]`.
///
/// One call for a whole trace's worth of requests: the per-call checks are
/// paid once. On an error, requests before the failing one have their counts
/// written, and the message names the failing request (`"request 7: ..."`).
///
/// # Safety
///
/// `config` as in [`smem_wavefronts`]; for `n` > 0, `masks` valid for reading
/// `n` `u32`, `addresses` for reading `32 * n`, and `wavefronts` for writing
/// `n` (NULL is reported).
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// unsafe { smem_op_parse(c"LDS".as_ptr(), &mut op) };
/// // s[stride * lane] on floats for strides 1, 2 and 32.
/// let mut addresses = Vec::new();
/// for stride in [1u32, 2, 32] {
///     addresses.extend((0..32).map(|lane| 4 * stride * lane));
/// }
/// let masks = [!0u32; 3];
/// let mut wavefronts = [0u32; 3];
/// let status = unsafe {
///     smem_wavefronts_batch(sm90, op, 4, 3, masks.as_ptr(), addresses.as_ptr(),
///                           wavefronts.as_mut_ptr())
/// };
/// assert_eq!((status, wavefronts), (SMEM_OK, [1, 2, 32]));
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_wavefronts_batch(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    n: usize,
    masks: *const u32,
    addresses: *const u32,
    wavefronts: *mut u32,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let (op, width) = op.resolve(width)?;
        let (masks, addresses) = unsafe { batch(n, masks, addresses) }?;
        if n > 0 && wavefronts.is_null() {
            return Err(null("wavefronts"));
        }
        for (i, (&mask, addresses)) in masks.iter().zip(addresses).enumerate() {
            let count = counted(op, width, mask, addresses, |r| config.wavefronts(r))
                .map_err(|error| batch_error(i, error))?;
            unsafe { wavefronts.add(i).write(count) };
        }
        Ok(())
    })
}

/// As [`smem_wavefronts_batch`], writing each request's [`smem_cost`] to
/// `costs[i]`.
///
/// # Safety
///
/// As [`smem_wavefronts_batch`], with `costs` valid for writing `n` items.
///
/// # Example
///
/// ```
/// use smem::*;
///
/// let sm90 = unsafe { smem_config_new(c"sm_90".as_ptr()) };
/// let mut op = smem_op::default();
/// unsafe { smem_op_parse(c"STS.64".as_ptr(), &mut op) };
/// let addresses: Vec<u32> = (0..64).map(|i| 8 * (i % 32) * (1 + i / 32)).collect();
/// let mut costs = [smem_cost::default(); 2];
/// let status = unsafe {
///     smem_cost_batch(sm90, op, 0, 2, [!0u32; 2].as_ptr(), addresses.as_ptr(),
///                     costs.as_mut_ptr())
/// };
/// assert_eq!(status, SMEM_OK);
/// assert_eq!((costs[0].wavefronts, costs[1].wavefronts), (2, 4));
/// // A misaligned lane in the second request: the first's cost is written.
/// let mut bad = addresses.clone();
/// bad[33] = 4;
/// let status = unsafe {
///     smem_cost_batch(sm90, op, 0, 2, [!0u32; 2].as_ptr(), bad.as_ptr(), costs.as_mut_ptr())
/// };
/// assert_eq!(status, SMEM_ERR_MISALIGNED);
/// let message = unsafe { std::ffi::CStr::from_ptr(smem_last_error()) }.to_str().unwrap();
/// assert!(message.starts_with("request 1: misaligned address: lane 1"), "{message}");
/// unsafe { smem_config_free(sm90) };
/// ```
#[no_mangle]
pub unsafe extern "C" fn smem_cost_batch(
    config: *const smem_config,
    op: smem_op,
    width: u32,
    n: usize,
    masks: *const u32,
    addresses: *const u32,
    costs: *mut smem_cost,
) -> c_int {
    guard(|| {
        let config = unsafe { live(config) }?.get();
        let (op, width) = op.resolve(width)?;
        let (masks, addresses) = unsafe { batch(n, masks, addresses) }?;
        if n > 0 && costs.is_null() {
            return Err(null("costs"));
        }
        for (i, (&mask, addresses)) in masks.iter().zip(addresses).enumerate() {
            let cost = counted(op, width, mask, addresses, |r| config.cost(r))
                .map_err(|error| batch_error(i, error))?;
            unsafe { costs.add(i).write(c_cost(cost)) };
        }
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
