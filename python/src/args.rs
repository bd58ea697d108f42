//! Python arguments to the model's values, checked before anything is
//! allocated: a sequence's length before its items, an integer's range before
//! it is narrowed. Bad input is a `ValueError` (a value out of range, naming
//! the argument) or a `TypeError` (not an integer, not a sequence), never an
//! abort, a panic or an `OverflowError` with no argument named; messages quote
//! at most [`QUOTE_CHARS`] characters of what was given.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyString, PyTuple};

use smem_model::{BankConfig, ComputeCapability, Error, Op, OpName, SharedMemConfig, WARP_SIZE};

/// The most characters of a given text or value an error message quotes.
pub const QUOTE_CHARS: usize = 64;

/// `text` itself when short, else its first [`QUOTE_CHARS`] characters and `…`.
pub fn bounded(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// The crate's error as a `ValueError`, any text it quotes from the input cut
/// to a bounded prefix (a 10 MB arch name gives a short message).
pub fn value_error(error: Error) -> PyErr {
    let error = match error {
        Error::UnknownCapability { given } => Error::UnknownCapability {
            given: bounded(&given),
        },
        Error::UnknownOp { given } => Error::UnknownOp {
            given: bounded(&given),
        },
        Error::UnknownAtomic { given } => Error::UnknownAtomic {
            given: bounded(&given),
        },
        other => other,
    };
    PyValueError::new_err(error.to_string())
}

/// A short description of a Python value for a message: its repr, cut to a
/// bounded prefix; an integer too long to print (Python refuses past 4300
/// digits) by its size.
pub fn describe(value: &Bound<'_, PyAny>) -> String {
    if let Ok(repr) = value.repr() {
        return bounded(&repr.to_string_lossy());
    }
    match value
        .call_method0("bit_length")
        .and_then(|bits| bits.extract::<u64>())
    {
        Ok(bits) => format!("an integer of {bits} bits"),
        Err(_) => format!("a {} object", type_name(value)),
    }
}

pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |name| bounded(&name.to_string_lossy()))
}

/// An unsigned integer argument from 0 to `max`, else `ValueError` naming
/// `name` and the range (`max_text`, e.g. `"2^32 - 1"`), or `TypeError` for a
/// value that is not an integer.
fn unsigned(value: &Bound<'_, PyAny>, name: &str, max: u64, max_text: &str) -> PyResult<u64> {
    let out_of_range = || {
        PyValueError::new_err(format!(
            "{name}: {} is not an integer from 0 to {max_text}",
            describe(value)
        ))
    };
    match value.extract::<u64>() {
        Ok(v) if v <= max => Ok(v),
        Ok(_) => Err(out_of_range()),
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Err(out_of_range()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: expected an integer, got {}",
            type_name(value)
        ))),
    }
}

/// A `u32` argument (`width`, `bank_bytes`, `warps`, ...).
pub fn u32_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u32> {
    unsigned(value, name, u64::from(u32::MAX), "2^32 - 1").map(|v| v as u32)
}

/// A `u64` argument (`base`).
pub fn u64_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    unsigned(value, name, u64::MAX, "2^64 - 1")
}

/// The capability from a name (`"sm_90"`, `"8.6"`, `"H100"`, what
/// `torch.cuda.get_device_name()` says) or a `(major, minor)` pair (what
/// `torch.cuda.get_device_capability()` says).
pub fn capability(arch: &Bound<'_, PyAny>) -> PyResult<ComputeCapability> {
    if let Ok(name) = arch.cast::<PyString>() {
        return name.to_cow()?.parse().map_err(value_error);
    }
    if let Ok(pair) = arch.cast::<PyTuple>() {
        if pair.len() == 2 {
            let major = u32_arg(&pair.get_item(0)?, "arch[0]")?;
            let minor = u32_arg(&pair.get_item(1)?, "arch[1]")?;
            return ComputeCapability::new(major, minor).ok_or_else(|| {
                value_error(Error::UnknownCapability {
                    given: format!("({major}, {minor})"),
                })
            });
        }
    }
    Err(PyTypeError::new_err(format!(
        "arch: expected a name such as \"sm_90\" or \"NVIDIA H100 80GB HBM3\", or a \
         (major, minor) pair such as (9, 0); got {}",
        describe(arch)
    )))
}

/// `arch=` (`from_py_with`): [`capability`].
pub fn arch(value: &Bound<'_, PyAny>) -> PyResult<ComputeCapability> {
    capability(value)
}

/// `from_py_with` readers of `u32` arguments, each naming its argument in
/// its errors.
macro_rules! u32_args {
    ($($f:ident => $name:literal),* $(,)?) => {
        $(
            #[doc = concat!("`", $name, "=` (`from_py_with`).")]
            pub fn $f(value: &Bound<'_, PyAny>) -> PyResult<u32> {
                u32_arg(value, $name)
            }
        )*
    };
}

u32_args!(
    width => "width",
    bank_bytes => "bank_bytes",
    warps => "warps",
    bits => "bits",
    base_bit => "base",
    shift => "shift",
    offset => "offset",
    vector => "vector",
    row => "row",
    col => "col",
    index => "index",
    rows => "rows",
    cols => "cols",
    element_bytes => "element_bytes",
    padding => "padding",
    tile_base => "base",
    threads => "threads",
    warp => "warp",
    mask => "mask",
    lanes_mask => "lanes",
    barrier_id => "id",
    pending => "pending",
    static_bytes => "static_bytes",
    dynamic_bytes => "dynamic_bytes",
    registers => "registers",
);

/// `site=` (`from_py_with`): any 64-bit number the caller names a place by.
pub fn site(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    u64_arg(value, "site")
}

/// `opt_in=`, `carveout=` (`from_py_with`): `None` or a `u32`.
pub fn opt_in(value: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    optional_u32(value, "opt_in")
}

/// `threads=` of a launch's block (`from_py_with`): `None` or a `u32`.
pub fn block_threads(value: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    optional_u32(value, "threads")
}

/// `sample=` (`from_py_with`): `None` or a number of blocks.
pub fn sample(value: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    if value.is_none() {
        return Ok(None);
    }
    u64_arg(value, "sample").map(Some)
}

/// `carveout=` (`from_py_with`).
pub fn carveout(value: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    optional_u32(value, "carveout")
}

fn optional_u32(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<u32>> {
    if value.is_none() {
        return Ok(None);
    }
    u32_arg(value, name).map(Some)
}

/// `base=` (`from_py_with`): `None` or an address.
pub fn base(value: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    if value.is_none() {
        return Ok(None);
    }
    u64_arg(value, "base").map(Some)
}

/// The bank configuration for `capability`, with Kepler's eight-byte mode
/// when `bank_bytes` is 8.
pub fn config(capability: ComputeCapability, bank_bytes: u32) -> PyResult<BankConfig> {
    let mode = match bank_bytes {
        4 => SharedMemConfig::FourByte,
        8 => SharedMemConfig::EightByte,
        other => {
            return Err(PyValueError::new_err(format!(
                "bank width of {other} bytes: expected 4 or 8"
            )))
        }
    };
    Ok(BankConfig::new(capability).with_shared_mem_config(mode))
}

/// The op from its name (SASS, PTX or the model's spelling).
pub fn op(op: &str) -> PyResult<Op> {
    op.parse::<OpName>().map(OpName::op).map_err(value_error)
}

/// The op and the access width of a request: `width` checked against the
/// width the name gives (`"LDS.128"` is 16 bytes; given 4 it is an error).
pub fn op_and_width(op: &str, width: u32) -> PyResult<(Op, u32)> {
    let name: OpName = op.parse().map_err(value_error)?;
    let width = name.with_width(width).map_err(value_error)?;
    Ok((name.op(), width.bytes()))
}

/// The length of a sequence argument, without reading it: a length past
/// `ssize_t` is a `ValueError`, an object without one a `TypeError`.
pub fn sequence_len(value: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    if value.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected a sequence, got str"
        )));
    }
    match value.len() {
        Ok(len) => Ok(len),
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Err(PyValueError::new_err(
            format!("{name}: more than 2^63 - 1 items were given"),
        )),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: expected a sequence, got {}",
            type_name(value)
        ))),
    }
}

/// A sequence of one item per lane, its length checked before it is read.
pub fn lanes_sequence<'a, 'py>(
    value: &'a Bound<'py, PyAny>,
    name: &str,
) -> PyResult<&'a Bound<'py, PyAny>> {
    let len = sequence_len(value, name)?;
    if len != WARP_SIZE {
        return Err(PyValueError::new_err(format!(
            "{name}: a warp has 32 lanes, but {len} items were given"
        )));
    }
    Ok(value)
}

/// The 32 addresses of a warp (`None` for an inactive lane) from a sequence
/// whose length is checked before any item is read: `range(2**62)` or a
/// 2^28-element array is refused without being walked or copied.
pub fn lanes(addresses: &Bound<'_, PyAny>) -> PyResult<[Option<u64>; WARP_SIZE]> {
    let len = match addresses.len() {
        Ok(len) => len,
        Err(e) if e.is_instance_of::<PyOverflowError>(addresses.py()) => {
            return Err(PyValueError::new_err(
                "a warp has 32 lanes, but more than 2^63 - 1 addresses were given",
            ))
        }
        Err(_) => {
            return Err(PyTypeError::new_err(format!(
                "addresses: expected a sequence of 32 integers or None, got {}",
                type_name(addresses)
            )))
        }
    };
    if addresses.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "addresses: expected a sequence of 32 integers or None, got str",
        ));
    }
    if len != WARP_SIZE {
        return Err(value_error(Error::LaneCount { given: len }));
    }
    let mut out = [None; WARP_SIZE];
    for (lane, slot) in out.iter_mut().enumerate() {
        let item = addresses.get_item(lane)?;
        if item.is_none() {
            continue;
        }
        *slot = Some(item.extract::<u64>().map_err(|_| {
            PyValueError::new_err(format!(
                "lane {lane}: address {} is not an integer from 0 to 2^64 - 1",
                describe(&item)
            ))
        })?);
    }
    Ok(out)
}
