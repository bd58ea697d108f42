//! Batches: N warp instructions of one op and width, given as numpy arrays
//! (N x 32 addresses, N lane masks), answered as numpy arrays. The arch and op
//! are parsed once, the arrays are read in place (no copy of a C-contiguous
//! array), and the loop runs without the GIL, so the cost per request is the
//! Rust cost (`python/README.md` has the numbers).

use numpy::ndarray::{ArrayView1, ArrayView2};
use numpy::{
    dtype, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyAny;

use smem_model::{BankConfig, ComputeCapability, LaneSet, Op, WarpRequest, WARP_SIZE};

use crate::args::{self, bounded};

/// A request's lane masks: one for every row, or one per row.
enum Masks<'a> {
    All(u32),
    PerRow(ArrayView1<'a, u32>),
}

impl Masks<'_> {
    fn get(&self, row: usize) -> u32 {
        match self {
            Masks::All(mask) => *mask,
            Masks::PerRow(masks) => masks[row],
        }
    }
}

/// Why a row was refused: found without the GIL, raised with it; or
/// (`row` None) why the batch was, its answers not fitting in memory.
struct RowError {
    row: Option<usize>,
    message: String,
}

impl RowError {
    /// The answers of `rows` rows, `out` numbers each, cannot be allocated.
    fn memory(rows: usize, out: usize) -> Self {
        RowError {
            row: None,
            message: format!(
                "{rows} rows: their answers ({out} uint32 a row) do not fit in memory"
            ),
        }
    }

    fn into_py(self) -> PyErr {
        match self.row {
            Some(row) => PyValueError::new_err(format!("row {row}: {}", self.message)),
            None => PyMemoryError::new_err(self.message),
        }
    }
}

/// One element type of an addresses array, read as a 64-bit address or as
/// the value it is when it is not one (a negative `int64`).
trait Address: numpy::Element + Copy + Default + Send + Sync {
    fn address(self) -> Result<u64, i64>;

    /// The value as a shared offset, if it is one.
    fn offset(self) -> Option<u32>;

    /// The row as shared offsets without conversion, where it already is one.
    fn offsets(_row: &[Self]) -> Option<&[u32; WARP_SIZE]> {
        None
    }
}

impl Address for u32 {
    fn offset(self) -> Option<u32> {
        Some(self)
    }

    fn address(self) -> Result<u64, i64> {
        Ok(u64::from(self))
    }

    fn offsets(row: &[u32]) -> Option<&[u32; WARP_SIZE]> {
        row.try_into().ok()
    }
}

impl Address for i32 {
    fn offset(self) -> Option<u32> {
        u32::try_from(self).ok()
    }

    fn address(self) -> Result<u64, i64> {
        u64::try_from(self).map_err(|_| i64::from(self))
    }
}

impl Address for u64 {
    fn offset(self) -> Option<u32> {
        u32::try_from(self).ok()
    }

    fn address(self) -> Result<u64, i64> {
        Ok(self)
    }
}

impl Address for i64 {
    fn offset(self) -> Option<u32> {
        u32::try_from(self).ok()
    }

    fn address(self) -> Result<u64, i64> {
        u64::try_from(self).map_err(|_| self)
    }
}

/// Narrows an active lane's value to a shared offset in `offsets`.
fn narrow<T: Address>(mask: u32, row: &[T], offsets: &mut [u32; WARP_SIZE]) -> Result<(), String> {
    for (lane, (&value, offset)) in row.iter().zip(offsets.iter_mut()).enumerate() {
        match value.offset() {
            Some(o) => *offset = o,
            None if mask >> lane & 1 == 1 => return Err(bad_offset(lane, value)),
            None => {}
        }
    }
    Ok(())
}

/// Generic addresses of the active lanes, as `u64`.
fn widen<T: Address>(mask: u32, row: &[T], generic: &mut [u64; WARP_SIZE]) -> Result<(), String> {
    for (lane, (&value, slot)) in row.iter().zip(generic.iter_mut()).enumerate() {
        match value.address() {
            Ok(address) => *slot = address,
            Err(negative) if mask >> lane & 1 == 1 => return Err(negative_address(lane, negative)),
            Err(_) => {}
        }
    }
    Ok(())
}

fn negative_address(lane: usize, value: i64) -> String {
    format!("lane {lane}: address {value} is not an integer from 0 to 2^64 - 1")
}

/// Why `value` is no shared offset: negative, or past 32 bits.
fn bad_offset<T: Address>(lane: usize, value: T) -> String {
    match value.address() {
        Err(negative) => negative_address(lane, negative),
        Ok(address) => format!(
            "lane {lane}: address {address:#x} is past the 32-bit shared address space \
             (give base= for generic addresses)"
        ),
    }
}

/// Runs `answer` on every row's request, `OUT` numbers a row, without the
/// GIL. A C-contiguous array is read in place; any other layout row by row
/// through a 32-lane buffer, never copied whole (a broadcast view of 2^30
/// rows costs no memory to read).
fn run<T: Address, const OUT: usize>(
    py: Python<'_>,
    rows: ArrayView2<'_, T>,
    masks: &Masks<'_>,
    (op, width, base): (Op, u32, Option<u64>),
    answer: impl Fn(&WarpRequest) -> Result<[u32; OUT], smem_model::Error> + Send + Sync,
) -> Result<Vec<u32>, RowError> {
    // The answers are allocated before any row is read, and a batch too
    // large for memory is MemoryError (issue 36: a broadcast view of 2^42
    // rows aborted the interpreter in `with_capacity`).
    let mut out = Vec::new();
    let room = rows
        .nrows()
        .checked_mul(OUT)
        .filter(|&n| n <= isize::MAX as usize / 4)
        .ok_or(())
        .and_then(|n| out.try_reserve_exact(n).map_err(|_| ()));
    if room.is_err() {
        return Err(RowError::memory(rows.nrows(), OUT));
    }
    py.detach(|| {
        let mut one = |row: usize, lanes: &[T]| {
            let fail = |message| RowError {
                row: Some(row),
                message,
            };
            let mask = masks.get(row);
            let lanes_set = LaneSet::from_bits(mask);
            let request = match base {
                None => {
                    // Rows of u32 offsets, the simulator's common case, are
                    // read in place; others narrowed into a buffer.
                    let mut buffer = [0u32; WARP_SIZE];
                    let offsets = match T::offsets(lanes) {
                        Some(offsets) => offsets,
                        None => {
                            narrow(mask, lanes, &mut buffer).map_err(fail)?;
                            &buffer
                        }
                    };
                    WarpRequest::from_offsets(op, width, lanes_set, offsets)
                }
                Some(base) => {
                    let mut generic = [0u64; WARP_SIZE];
                    widen(mask, lanes, &mut generic).map_err(fail)?;
                    WarpRequest::from_generic(op, width, lanes_set, &generic, base)
                }
            }
            .map_err(|e| fail(e.to_string()))?;
            out.extend(answer(&request).map_err(|e| fail(e.to_string()))?);
            Ok(())
        };
        if let Some(all) = rows.as_slice() {
            for (row, lanes) in all.chunks_exact(WARP_SIZE).enumerate() {
                one(row, lanes)?;
            }
        } else {
            let mut buffer = [T::default(); WARP_SIZE];
            for (row, lanes) in rows.rows().into_iter().enumerate() {
                for (slot, &value) in buffer.iter_mut().zip(lanes.iter()) {
                    *slot = value;
                }
                one(row, &buffer)?;
            }
        }
        Ok(out)
    })
}

/// The validated arguments every batch function shares.
struct Batch<'py> {
    addresses: Bound<'py, PyUntypedArray>,
    masks: Option<Bound<'py, PyArray1<u32>>>,
    all: u32,
    n: usize,
}

/// `addresses` as an N x 32 numpy array of uint32, int32, int64 or uint64,
/// `masks` as None, an int (every row) or N uint32 masks.
fn batch<'py>(
    addresses: &Bound<'py, PyAny>,
    masks: Option<&Bound<'py, PyAny>>,
) -> PyResult<Batch<'py>> {
    let py = addresses.py();
    py.import("numpy").map_err(|_| {
        PyTypeError::new_err("the batch functions take numpy arrays: pip install numpy")
    })?;
    let array = addresses.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "addresses: expected a numpy array of shape (N, 32), got {} (numpy.asarray makes one)",
            args::type_name(addresses)
        ))
    })?;
    let shape = array.shape();
    if shape.len() != 2 || shape[1] != WARP_SIZE {
        return Err(PyValueError::new_err(format!(
            "addresses: expected shape (N, 32), one row of 32 lanes per request, got {}",
            bounded(&format!("{shape:?}"))
        )));
    }
    let n = shape[0];
    let (masks, all) = match masks {
        None => (None, u32::MAX),
        Some(m) if m.is_none() => (None, u32::MAX),
        Some(m) => match m.cast::<PyArray1<u32>>() {
            Ok(array) => {
                if array.len() != n {
                    return Err(PyValueError::new_err(format!(
                        "masks: {} masks for {n} rows of addresses",
                        array.len()
                    )));
                }
                (Some(array.clone()), 0)
            }
            Err(_) if m.cast::<PyUntypedArray>().is_ok() => {
                return Err(PyTypeError::new_err(format!(
                    "masks: expected a 1-D numpy array of uint32 (bit i for lane i), got {}",
                    describe_array(m.cast::<PyUntypedArray>()?)
                )))
            }
            Err(_) => (None, args::u32_arg(m, "masks")?),
        },
    };
    Ok(Batch {
        addresses: array.clone(),
        masks,
        all,
        n,
    })
}

fn describe_array(array: &Bound<'_, PyUntypedArray>) -> String {
    let dtype = array
        .dtype()
        .str()
        .map_or_else(|_| "?".to_owned(), |s| bounded(&s.to_string_lossy()));
    format!("a {}-D array of {dtype}", array.ndim())
}

/// Calls `answer` on every row of `batch`, whatever the addresses' dtype.
fn dispatch<'py, const OUT: usize>(
    batch: &Batch<'py>,
    op: Op,
    width: u32,
    base: Option<u64>,
    answer: impl Fn(&WarpRequest) -> Result<[u32; OUT], smem_model::Error> + Send + Sync,
) -> PyResult<Vec<u32>> {
    let py = batch.addresses.py();
    let masks_ro = batch.masks.as_ref().map(|m| m.readonly());
    let masks = match &masks_ro {
        Some(ro) => Masks::PerRow(ro.as_array()),
        None => Masks::All(batch.all),
    };
    let settings = (op, width, base);
    let dtype_of = batch.addresses.dtype();
    macro_rules! each {
        ($($t:ty),*) => {
            $(
                if dtype_of.is_equiv_to(&dtype::<$t>(py)) {
                    let array = batch.addresses.cast::<PyArray2<$t>>()?;
                    let ro = array.readonly();
                    return run(py, ro.as_array(), &masks, settings, answer)
                        .map_err(RowError::into_py);
                }
            )*
        };
    }
    each!(u32, i32, i64, u64);
    Err(PyTypeError::new_err(format!(
        "addresses: expected a numpy array of uint32, int32, int64 or uint64, got {}",
        describe_array(&batch.addresses)
    )))
}

/// The wavefronts of each of N warp instructions of one op and width:
/// `addresses` an N x 32 array (uint32 offsets, or int64/uint64/int32), one
/// row a request; `masks` None (every lane active), one int for every row,
/// or N uint32 masks, bit i for lane i (an inactive lane's address is not
/// read). Returns N uint32. A bad row raises `ValueError` naming the row.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, masks=None, *, base=None, bank_bytes=4))]
#[allow(clippy::too_many_arguments)]
pub fn wavefronts_batch<'py>(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    op: &str,
    #[pyo3(from_py_with = args::width)] width: u32,
    addresses: &Bound<'py, PyAny>,
    masks: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = args::base)] base: Option<u64>,
    #[pyo3(from_py_with = args::bank_bytes)] bank_bytes: u32,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let config: BankConfig = args::config(arch, bank_bytes)?;
    let (op, width) = args::op_and_width(op, width)?;
    let batch = batch(addresses, masks)?;
    let out = dispatch(&batch, op, width, base, |r| Ok([config.wavefronts(r)?]))?;
    Ok(PyArray1::from_vec(addresses.py(), out))
}

/// The costs of N warp instructions, as `wavefronts_batch` takes them:
/// an N x 4 uint32 array whose columns are `COST_FIELDS` (wavefronts, ideal
/// wavefronts, bank conflicts, ways).
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, masks=None, *, base=None, bank_bytes=4))]
#[allow(clippy::too_many_arguments)]
pub fn cost_batch<'py>(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    op: &str,
    #[pyo3(from_py_with = args::width)] width: u32,
    addresses: &Bound<'py, PyAny>,
    masks: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = args::base)] base: Option<u64>,
    #[pyo3(from_py_with = args::bank_bytes)] bank_bytes: u32,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let config: BankConfig = args::config(arch, bank_bytes)?;
    let (op, width) = args::op_and_width(op, width)?;
    let batch = batch(addresses, masks)?;
    let n = batch.n;
    let out = dispatch(&batch, op, width, base, |r| {
        let c = config.cost(r)?;
        Ok([
            c.wavefronts(),
            c.ideal_wavefronts(),
            c.bank_conflicts(),
            c.ways(),
        ])
    })?;
    PyArray1::from_vec(addresses.py(), out).reshape([n, 4])
}

/// The column names of `cost_batch`'s result, in order.
pub const COST_FIELDS: [&str; 4] = ["wavefronts", "ideal_wavefronts", "bank_conflicts", "ways"];
