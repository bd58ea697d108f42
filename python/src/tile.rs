//! Tiles from Python: layouts (padding, XOR swizzles, TMA modes), the warps'
//! accesses to them, what they cost, and the advisor's ranking of fixes.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyString, PyTuple};

use smem_model::{
    Advice, BankConfig, Candidate, ComputeCapability, Swizzle, TileAccess, TileLayout, TmaSwizzle,
    TritonShared, WARP_SIZE,
};

use crate::args::{self, describe, value_error};

/// An XOR swizzle of byte or element offsets, CuTe's `Swizzle<B, M, S>`:
/// `bits` bits (B) from bit `base + shift` (M + S) are XORed into the bits
/// from `base` (M) up.
#[pyclass(frozen, module = "smem_model", name = "Swizzle")]
#[derive(Clone, Copy)]
pub struct PySwizzle(Swizzle);

#[pymethods]
impl PySwizzle {
    #[new]
    fn new(
        #[pyo3(from_py_with = args::bits)] bits: u32,
        #[pyo3(from_py_with = args::base_bit)] base: u32,
        #[pyo3(from_py_with = args::shift)] shift: u32,
    ) -> PyResult<Self> {
        Swizzle::new(bits, base, shift)
            .map(PySwizzle)
            .map_err(value_error)
    }

    /// The offset `offset` moves to.
    fn apply(&self, #[pyo3(from_py_with = args::offset)] offset: u32) -> u32 {
        self.0.apply(offset)
    }

    /// The number of bits XORed (B).
    #[getter]
    fn bits(&self) -> u32 {
        self.0.bits()
    }

    /// The lowest bit changed (M).
    #[getter]
    fn base(&self) -> u32 {
        self.0.base()
    }

    /// How far above the changed bits the bits XORed into them are (S).
    #[getter]
    fn shift(&self) -> u32 {
        self.0.shift()
    }

    fn __repr__(&self) -> String {
        format!(
            "Swizzle(bits={}, base={}, shift={})",
            self.0.bits(),
            self.0.base(),
            self.0.shift()
        )
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PySwizzle>()
            .is_ok_and(|other| other.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        u64::from(self.0.bits()) << 16 | u64::from(self.0.base()) << 8 | u64::from(self.0.shift())
    }
}

/// The elements of a tile one warp instruction touches: lane `l` at
/// `elements[l]`, a `(row, col)` pair or `None`, `vector` elements each.
#[pyclass(frozen, module = "smem_model", name = "TileAccess")]
#[derive(Clone, Copy)]
pub struct PyTileAccess(TileAccess);

#[pymethods]
impl PyTileAccess {
    #[new]
    #[pyo3(signature = (elements, *, vector=1, op="load"))]
    fn new(
        elements: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = args::vector)] vector: u32,
        op: &str,
    ) -> PyResult<Self> {
        let op = args::op(op)?;
        let mut pairs = [None; WARP_SIZE];
        let items = args::lanes_sequence(elements, "elements")?;
        for (lane, slot) in pairs.iter_mut().enumerate() {
            let item = items.get_item(lane)?;
            if item.is_none() {
                continue;
            }
            *slot = Some(item.extract::<(u32, u32)>().map_err(|_| {
                PyValueError::new_err(format!(
                    "elements[{lane}]: {} is not None or a (row, col) pair of integers from 0 \
                     to 2^32 - 1",
                    describe(&item)
                ))
            })?);
        }
        Ok(PyTileAccess(TileAccess::from_fn(op, vector, |lane| {
            pairs[lane.index()]
        })))
    }

    /// Along a row: lane l at `(row, col + l * vector)`.
    #[staticmethod]
    #[pyo3(signature = (row, col=0, *, vector=1, op="load"))]
    fn row(
        #[pyo3(from_py_with = args::row)] row: u32,
        #[pyo3(from_py_with = args::col)] col: u32,
        #[pyo3(from_py_with = args::vector)] vector: u32,
        op: &str,
    ) -> PyResult<Self> {
        Ok(PyTileAccess(TileAccess::row(
            args::op(op)?,
            row,
            col,
            vector,
        )))
    }

    /// Down a column: lane l at `(row + l, col)`.
    #[staticmethod]
    #[pyo3(signature = (col, row=0, *, vector=1, op="load"))]
    fn column(
        #[pyo3(from_py_with = args::col)] col: u32,
        #[pyo3(from_py_with = args::row)] row: u32,
        #[pyo3(from_py_with = args::vector)] vector: u32,
        op: &str,
    ) -> PyResult<Self> {
        Ok(PyTileAccess(TileAccess::column(
            args::op(op)?,
            row,
            col,
            vector,
        )))
    }

    /// Along the diagonal: lane l at `(row + l, col + l * vector)`.
    #[staticmethod]
    #[pyo3(signature = (row=0, col=0, *, vector=1, op="load"))]
    fn diagonal(
        #[pyo3(from_py_with = args::row)] row: u32,
        #[pyo3(from_py_with = args::col)] col: u32,
        #[pyo3(from_py_with = args::vector)] vector: u32,
        op: &str,
    ) -> PyResult<Self> {
        Ok(PyTileAccess(TileAccess::diagonal(
            args::op(op)?,
            row,
            col,
            vector,
        )))
    }

    /// Step `index` of an in-place transpose of a 32 x 32 tile: row `index`
    /// read, column `index` written.
    #[staticmethod]
    fn transposed_copy(
        #[pyo3(from_py_with = args::index)] index: u32,
    ) -> (PyTileAccess, PyTileAccess) {
        let [read, write] = TileAccess::transposed_copy(index);
        (PyTileAccess(read), PyTileAccess(write))
    }

    /// The `ldmatrix` loads of a whole `rows` x `cols` tile of
    /// `element_bytes` elements: 16x16 blocks by `ldmatrix.x4`, the rest by
    /// `.x2` or `.x1`, as a kernel reads a tile into fragments.
    #[staticmethod]
    fn ldmatrix_tile(
        #[pyo3(from_py_with = args::rows)] rows: u32,
        #[pyo3(from_py_with = args::cols)] cols: u32,
        #[pyo3(from_py_with = args::element_bytes)] element_bytes: u32,
    ) -> PyResult<Vec<PyTileAccess>> {
        TileAccess::ldmatrix_tile(rows, cols, element_bytes)
            .map(|all| all.into_iter().map(PyTileAccess).collect())
            .map_err(value_error)
    }

    /// The `(row, col)` of each lane, `None` where a lane is inactive.
    #[getter]
    fn elements(&self) -> Vec<Option<(u32, u32)>> {
        (0..WARP_SIZE as u32)
            .map(|lane| {
                smem_model::Lane::new(lane)
                    .ok()
                    .and_then(|lane| self.0.element(lane))
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "TileAccess(op={:?}, vector={:?})",
            self.0.op().to_string(),
            self.0.vector()
        )
    }
}

/// A tile's layout in shared memory: `rows` x `cols` elements of
/// `element_bytes`, with padding after each row, an XOR swizzle, a TMA mode,
/// Triton's swizzled shared encoding (`triton_shared=(vec, perPhase,
/// maxPhase)`) or NVMMA shared encoding (`nvmma_swizzle=` bytes; rows wider
/// than the swizzle are stored as column tiles of its width, as Triton
/// does), and the tile's base address.
#[pyclass(frozen, module = "smem_model", name = "TileLayout")]
#[derive(Clone, Copy)]
pub struct PyTileLayout(TileLayout);

#[pymethods]
impl PyTileLayout {
    #[new]
    #[pyo3(signature = (rows, cols, element_bytes, *, padding=0, swizzle=None, tma_swizzle=None, triton_shared=None, nvmma_swizzle=None, base=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = args::rows)] rows: u32,
        #[pyo3(from_py_with = args::cols)] cols: u32,
        #[pyo3(from_py_with = args::element_bytes)] element_bytes: u32,
        #[pyo3(from_py_with = args::padding)] padding: u32,
        swizzle: Option<PyRef<'_, PySwizzle>>,
        tma_swizzle: Option<&Bound<'_, PyAny>>,
        triton_shared: Option<(u32, u32, u32)>,
        nvmma_swizzle: Option<u32>,
        #[pyo3(from_py_with = args::tile_base)] base: u32,
    ) -> PyResult<Self> {
        let mut layout = TileLayout::new(rows, cols, element_bytes).map_err(value_error)?;
        if padding != 0 {
            layout = layout.with_padding(padding).map_err(value_error)?;
        }
        if let Some(swizzle) = swizzle {
            layout = layout.with_swizzle(swizzle.0).map_err(value_error)?;
        }
        if let Some(mode) = tma_swizzle.filter(|m| !m.is_none()) {
            layout = layout
                .with_tma_swizzle(tma_mode(mode)?)
                .map_err(value_error)?;
        }
        if let Some((vec, per_phase, max_phase)) = triton_shared {
            let shared = TritonShared::new(vec, per_phase, max_phase).map_err(value_error)?;
            layout = layout.with_triton_shared(shared).map_err(value_error)?;
        }
        if let Some(bytes) = nvmma_swizzle {
            layout = layout.with_nvmma_swizzle(bytes).map_err(value_error)?;
        }
        if base != 0 {
            layout = layout.with_base(base).map_err(value_error)?;
        }
        Ok(PyTileLayout(layout))
    }

    /// The byte offset of element `(row, col)` from the tile's start.
    fn offset(
        &self,
        #[pyo3(from_py_with = args::row)] row: u32,
        #[pyo3(from_py_with = args::col)] col: u32,
    ) -> PyResult<u32> {
        self.0.offset(row, col).map_err(value_error)
    }

    /// The shared address of element `(row, col)`: the base plus its offset.
    fn address(
        &self,
        #[pyo3(from_py_with = args::row)] row: u32,
        #[pyo3(from_py_with = args::col)] col: u32,
    ) -> PyResult<u32> {
        self.0.address(row, col).map_err(value_error)
    }

    /// The wavefronts of each access on `arch`, in order.
    fn wavefronts(
        &self,
        #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
        accesses: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<u32>> {
        let config = BankConfig::new(arch);
        access_list(accesses)?
            .iter()
            .map(|a| {
                let request = self.0.request(a).map_err(value_error)?;
                config.wavefronts(&request).map_err(value_error)
            })
            .collect()
    }

    /// Rows.
    #[getter]
    fn rows(&self) -> u32 {
        self.0.rows()
    }

    /// Columns.
    #[getter]
    fn cols(&self) -> u32 {
        self.0.cols()
    }

    /// Elements from one row's start to the next's: the row (a column
    /// tile's, if any) plus padding.
    #[getter]
    fn pitch(&self) -> u32 {
        self.0.pitch()
    }

    /// Columns one row of storage holds: all of them, or the width of the
    /// column tiles a wide NVMMA-swizzled tile is stored as.
    #[getter]
    fn tile_cols(&self) -> u32 {
        self.0.tile_cols()
    }

    /// Elements of padding after each row.
    #[getter]
    fn padding(&self) -> u32 {
        self.0.padding()
    }

    /// Bytes per element.
    #[getter]
    fn element_bytes(&self) -> u32 {
        self.0.element_bytes()
    }

    /// The XOR swizzle of element offsets, if any (a TMA mode is one too).
    #[getter]
    fn swizzle(&self) -> Option<PySwizzle> {
        self.0.swizzle().map(PySwizzle)
    }

    /// The tile's first byte in shared memory.
    #[getter]
    fn base(&self) -> u32 {
        self.0.base()
    }

    /// Bytes the tile occupies, padding included.
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes()
    }

    /// Bytes beyond the packed tile (the padding).
    #[getter]
    fn extra_bytes(&self) -> u64 {
        self.0.extra_bytes()
    }

    /// The element index of `(row, col)` as a kernel writes it:
    /// `"row * 33 + col"`, `"row * 64 + (col ^ ((row % 8) * 8))"`.
    #[getter]
    fn index_formula(&self) -> String {
        self.0.index_formula()
    }

    fn __repr__(&self) -> String {
        format!("TileLayout({})", self.0)
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }
}

/// A TMA swizzle mode from its span in bytes (32, 64, 128) or its name
/// (`"128B"`, `"CU_TENSOR_MAP_SWIZZLE_128B"`).
fn tma_mode(mode: &Bound<'_, PyAny>) -> PyResult<TmaSwizzle> {
    let span = if let Ok(text) = mode.cast::<PyString>() {
        let text = text.to_cow()?.to_ascii_uppercase();
        let text = text.trim_start_matches("CU_TENSOR_MAP_SWIZZLE_");
        text.trim_end_matches('B').parse::<u32>().ok()
    } else {
        Some(args::u32_arg(mode, "tma_swizzle")?)
    };
    TmaSwizzle::ALL
        .into_iter()
        .find(|m| Some(m.span()) == span)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "tma_swizzle: {} is not a TMA swizzle mode: expected 32, 64 or 128 (bytes), or \
                 \"32B\", \"64B\", \"128B\"",
                describe(mode)
            ))
        })
}

/// One layout the advisor tried, with what the accesses cost under it.
#[pyclass(frozen, get_all, module = "smem_model", name = "Candidate")]
pub struct PyCandidate {
    /// The fix, as the advisor prints it (`"as given"`, `"1 element of
    /// padding per row"`, `"Swizzle<5,0,5>"`, `"TMA 128B swizzle"`).
    fix: String,
    /// The fix with a TMA mode's XOR swizzle beside it (`"TMA 128B swizzle
    /// = Swizzle<3,3,3>"`).
    name: String,
    /// The layout with the fix applied.
    layout: PyTileLayout,
    /// The accesses' wavefronts under it.
    wavefronts: u32,
    /// Their wavefronts without bank conflicts.
    ideal_wavefronts: u32,
    /// `wavefronts - ideal_wavefronts`.
    bank_conflicts: u32,
    /// Whether no access conflicts.
    is_conflict_free: bool,
    /// Bytes it costs beyond the packed tile.
    extra_bytes: u64,
}

fn candidate(c: &Candidate) -> PyCandidate {
    PyCandidate {
        fix: c.fix().to_string(),
        name: c.name(),
        layout: PyTileLayout(c.layout()),
        wavefronts: c.wavefronts(),
        ideal_wavefronts: c.ideal_wavefronts(),
        bank_conflicts: c.bank_conflicts(),
        is_conflict_free: c.is_conflict_free(),
        extra_bytes: c.extra_bytes(),
    }
}

/// The advisor's answer: the layout as given, the layouts it tried (best
/// first), and why the given one conflicts; `str()` prints it as `smem
/// advise` does.
#[pyclass(frozen, module = "smem_model", name = "Advice")]
pub struct PyAdvice {
    advice: Advice,
}

#[pymethods]
impl PyAdvice {
    /// The layout as given.
    #[getter]
    fn original(&self) -> PyCandidate {
        candidate(self.advice.original())
    }

    /// The best layout tried.
    #[getter]
    fn best(&self) -> PyCandidate {
        candidate(self.advice.best())
    }

    /// Every layout tried, best first.
    #[getter]
    fn candidates(&self) -> Vec<PyCandidate> {
        self.advice.candidates().iter().map(candidate).collect()
    }

    /// Why the layout as given conflicts, one line each.
    #[getter]
    fn conflicts(&self) -> Vec<String> {
        self.advice
            .conflicts()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn __str__(&self) -> String {
        self.advice.to_string()
    }
}

/// Ranks paddings and swizzles of `layout` for `accesses` on `arch`: the
/// advisor of `smem advise`.
#[pyfunction]
pub fn advise(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    layout: PyRef<'_, PyTileLayout>,
    accesses: &Bound<'_, PyAny>,
) -> PyResult<PyAdvice> {
    let accesses = access_list(accesses)?;
    let advice = layout
        .0
        .advise(BankConfig::new(arch), &accesses)
        .map_err(value_error)?;
    Ok(PyAdvice { advice })
}

/// A list of accesses, flattened one level (so `transposed_copy`'s pairs can
/// be given as they come).
fn access_list(accesses: &Bound<'_, PyAny>) -> PyResult<Vec<TileAccess>> {
    let len = args::sequence_len(accesses, "accesses")?;
    let mut out = Vec::with_capacity(len.min(4096));
    for item in accesses.try_iter()? {
        let item = item?;
        if let Ok(access) = item.cast::<PyTileAccess>() {
            out.push(access.get().0);
        } else if let Ok(pair) = item.cast::<PyTuple>() {
            for access in pair.iter() {
                out.push(
                    access
                        .cast::<PyTileAccess>()
                        .map_err(|_| not_access(&access))?
                        .get()
                        .0,
                );
            }
        } else {
            return Err(not_access(&item));
        }
    }
    Ok(out)
}

fn not_access(item: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "accesses: expected TileAccess objects, got {}",
        describe(item)
    ))
}
