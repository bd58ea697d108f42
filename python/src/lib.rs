//! The Python module `smem_model`: the crate's wavefronts, costs and
//! partitions for Python (Triton, CuTe DSL and kernel authors), built with
//! maturin (`pip install ./python`). Its typed interface is
//! `python/smem_model.pyi`; `python/tests/` holds its pytest tests.
//!
//! Each call parses the arch and op names (a few comparisons), reads the 32
//! addresses from Python objects, and then costs what the Rust call does; bad
//! input raises `ValueError` with the crate's message.

mod args;
mod batch;
mod block;
mod kernel;
mod tile;
mod trace;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyAny;

use smem_model::{ComputeCapability, LaneSet, WarpRequest, WARP_SIZE};

use args::{config, value_error};

/// The request from 32 addresses (`None` for an inactive lane): shared
/// offsets, or generic addresses translated from `base`.
fn request(
    op: &str,
    width: u32,
    addresses: &Bound<'_, PyAny>,
    base: Option<u64>,
) -> PyResult<WarpRequest> {
    let (op, width) = args::op_and_width(op, width)?;
    let lanes = args::lanes(addresses)?;
    let mut mask = 0u32;
    let mut generic = [0u64; WARP_SIZE];
    for (lane, address) in lanes.iter().enumerate() {
        if let Some(address) = address {
            mask |= 1 << lane;
            generic[lane] = *address;
        }
    }
    let mask = LaneSet::from_bits(mask);
    match base {
        Some(base) => WarpRequest::from_generic(op, width, mask, &generic, base),
        None => {
            let mut offsets = [0u32; WARP_SIZE];
            for (lane, (&address, offset)) in generic.iter().zip(&mut offsets).enumerate() {
                if mask.bits() >> lane & 1 == 1 {
                    *offset = u32::try_from(address).map_err(|_| {
                        PyValueError::new_err(format!(
                            "lane {lane}: address {address:#x} is past the 32-bit shared \
                             address space (give base= for generic addresses)"
                        ))
                    })?;
                }
            }
            WarpRequest::from_offsets(op, width, mask, &offsets)
        }
    }
    .map_err(value_error)
}

/// The wavefronts (transactions) of one warp instruction: Nsight Compute's
/// wavefronts counter for it.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, base=None, bank_bytes=4))]
fn wavefronts(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    op: &str,
    #[pyo3(from_py_with = args::width)] width: u32,
    addresses: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::base)] base: Option<u64>,
    #[pyo3(from_py_with = args::bank_bytes)] bank_bytes: u32,
) -> PyResult<u32> {
    let config = config(arch, bank_bytes)?;
    let request = request(op, width, addresses, base)?;
    config.wavefronts(&request).map_err(value_error)
}

/// What a request costs: wavefronts, ideal wavefronts, bank conflicts, ways.
#[pyclass(frozen, get_all, module = "smem_model")]
#[derive(Clone, Copy)]
struct Cost {
    /// Wavefronts (transactions): Nsight Compute's wavefronts counter.
    wavefronts: u32,
    /// The wavefronts without bank conflicts.
    ideal_wavefronts: u32,
    /// `wavefronts - ideal_wavefronts`: Nsight Compute's bank-conflict counter.
    bank_conflicts: u32,
    /// Steps of the busiest phase: the n of an n-way conflict.
    ways: u32,
}

#[pymethods]
impl Cost {
    fn __repr__(&self) -> String {
        format!(
            "Cost(wavefronts={}, ideal_wavefronts={}, bank_conflicts={}, ways={})",
            self.wavefronts, self.ideal_wavefronts, self.bank_conflicts, self.ways
        )
    }
}

/// Wavefronts, ideal wavefronts, bank conflicts and ways of one warp instruction.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, base=None, bank_bytes=4))]
fn cost(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    op: &str,
    #[pyo3(from_py_with = args::width)] width: u32,
    addresses: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::base)] base: Option<u64>,
    #[pyo3(from_py_with = args::bank_bytes)] bank_bytes: u32,
) -> PyResult<Cost> {
    let config = config(arch, bank_bytes)?;
    let request = request(op, width, addresses, base)?;
    let c = config.cost(&request).map_err(value_error)?;
    Ok(Cost {
        wavefronts: c.wavefronts(),
        ideal_wavefronts: c.ideal_wavefronts(),
        bank_conflicts: c.bank_conflicts(),
        ways: c.ways(),
    })
}

/// What one instruction costs in cycles on sm_90 (measured; `None` where a
/// figure was not measured for the op, never a guess).
#[pyclass(frozen, get_all, module = "smem_model")]
#[derive(Clone, Copy)]
struct Timing {
    /// Cycles the SM's shared pipe is busy: one per wavefront.
    pipe_cycles: u32,
    /// Cycles from issue to the loaded value for one warp alone (loads only).
    latency: Option<f64>,
    /// Cycles per instruction with `warps` warps each in a dependent chain
    /// (loads only).
    latency_cycles_per_instruction: Option<f64>,
    /// Cycles per instruction with `warps` warps issuing it independently: the
    /// pipe's bound, measured within 2% from 12 warps on; `None` where the model
    /// claims nothing (fewer than 12 warps, 8-byte loads whose half-warps merge).
    throughput_cycles_per_instruction: Option<f64>,
    /// The warps of one SM the figures are for.
    warps: u32,
}

#[pymethods]
impl Timing {
    fn __repr__(&self) -> String {
        let opt = |v: Option<f64>| v.map_or("None".to_string(), |v| format!("{v}"));
        format!(
            "Timing(pipe_cycles={}, latency={}, latency_cycles_per_instruction={}, \
             throughput_cycles_per_instruction={}, warps={})",
            self.pipe_cycles,
            opt(self.latency),
            opt(self.latency_cycles_per_instruction),
            opt(self.throughput_cycles_per_instruction),
            self.warps
        )
    }
}

/// The cycles of one warp instruction on sm_90 with `warps` warps (1 to 64)
/// of one SM running it; `ValueError` on other capabilities (not measured).
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, warps=1, base=None, bank_bytes=4))]
#[allow(clippy::too_many_arguments)]
fn timing(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    op: &str,
    #[pyo3(from_py_with = args::width)] width: u32,
    addresses: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::warps)] warps: u32,
    #[pyo3(from_py_with = args::base)] base: Option<u64>,
    #[pyo3(from_py_with = args::bank_bytes)] bank_bytes: u32,
) -> PyResult<Timing> {
    let config = config(arch, bank_bytes)?;
    let request = request(op, width, addresses, base)?;
    let t = config.timing(&request).map_err(value_error)?;
    // The library's check, so Python, Rust and the figures' `None` agree.
    smem_model::Timing::check_warps(warps)
        .map_err(|e| PyValueError::new_err(format!("warps: {e}")))?;
    Ok(Timing {
        pipe_cycles: t.pipe_cycles(),
        latency: t.latency(),
        latency_cycles_per_instruction: t.latency_cycles_per_instruction(warps),
        throughput_cycles_per_instruction: t.throughput_cycles_per_instruction(warps),
        warps,
    })
}

/// One wavefront: the lanes it serves, the banks and words it touches.
///
/// On 1.x a lane is in one transaction per 4-byte part of a wide access; on
/// 2.x a 128-bit access has transactions that serve no lane.
#[pyclass(frozen, get_all, module = "smem_model")]
struct Transaction {
    /// The lanes served, ascending.
    lanes: Vec<u32>,
    /// The banks touched, ascending.
    banks: Vec<u32>,
    /// The bank words accessed (byte address // bank width), by bank then word.
    words: Vec<u32>,
    /// The phase, counting from 0.
    phase: u32,
    /// The 4-byte part of each lane's access it moves (1.x), else 0.
    part: u32,
}

#[pymethods]
impl Transaction {
    fn __repr__(&self) -> String {
        format!(
            "Transaction(phase={}, part={}, lanes={:?}, banks={:?}, words={:?})",
            self.phase, self.part, self.lanes, self.banks, self.words
        )
    }
}

/// A request split into its transactions, with its totals.
#[pyclass(frozen, get_all, module = "smem_model")]
struct Partition {
    /// The transactions in the order served.
    transactions: Vec<Py<Transaction>>,
    /// Wavefronts (transactions): Nsight Compute's wavefronts counter.
    wavefronts: u32,
    /// The wavefronts without bank conflicts.
    ideal_wavefronts: u32,
    /// `wavefronts - ideal_wavefronts`: Nsight Compute's bank-conflict counter.
    bank_conflicts: u32,
    /// Steps of the busiest phase: the n of an n-way conflict.
    ways: u32,
    /// `"empty"`, `"broadcast"`, `"parallel"`, `"conflicted (n-way)"` or
    /// `"serial (n-way)"`.
    classification: String,
    /// The distinct bytes the request moves (a broadcast word counted once).
    distinct_bytes: u32,
    /// The bank bandwidth used: distinct bytes over what the wavefronts could
    /// move (1.0 conflict-free and full; `None` for a warp with no lane).
    bandwidth_fraction: Option<f64>,
}

#[pymethods]
impl Partition {
    fn __repr__(&self) -> String {
        format!(
            "Partition(wavefronts={}, ideal_wavefronts={}, bank_conflicts={}, ways={}, \
             classification={:?})",
            self.wavefronts,
            self.ideal_wavefronts,
            self.bank_conflicts,
            self.ways,
            self.classification
        )
    }

    fn __len__(&self) -> usize {
        self.transactions.len()
    }
}

/// The transactions of one warp instruction, in the order served.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, base=None, bank_bytes=4))]
fn partition(
    py: Python<'_>,
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    op: &str,
    #[pyo3(from_py_with = args::width)] width: u32,
    addresses: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::base)] base: Option<u64>,
    #[pyo3(from_py_with = args::bank_bytes)] bank_bytes: u32,
) -> PyResult<Partition> {
    let config = config(arch, bank_bytes)?;
    let request = request(op, width, addresses, base)?;
    let p = config.partition(&request).map_err(value_error)?;
    let transactions = p
        .transactions()
        .map(|t| {
            let words = t.words();
            Py::new(
                py,
                Transaction {
                    lanes: t.lanes().iter().map(|l| l.get()).collect(),
                    banks: t.banks().iter().map(|b| b.index() as u32).collect(),
                    words: words.iter().map(|w| w.word).collect(),
                    phase: t.phase(),
                    part: t.part(),
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Partition {
        transactions,
        wavefronts: p.wavefronts(),
        ideal_wavefronts: p.ideal_wavefronts(),
        bank_conflicts: p.bank_conflicts(),
        ways: p.ways(),
        classification: p.classification().to_string(),
        distinct_bytes: p.distinct_bytes(),
        bandwidth_fraction: p.bandwidth_fraction(),
    })
}

/// Shared-memory bank conflicts and wavefronts per CUDA compute capability.
///
/// Every function takes the arch (`"sm_90"`, `"8.6"`, `"compute_75"`, a GPU as
/// `torch.cuda.get_device_name()` names it, `"NVIDIA H100 80GB HBM3"`, or the
/// `(major, minor)` pair `torch.cuda.get_device_capability()` gives), the op
/// (SASS `"LDS"`, `"STS"`, `"ATOMS.CAS"`, `"RED.ADD"`, `"LDSM.x4"`, `"STSM.x2"`,
/// `"LDGSTS"` or PTX-like `"load"`, `"store"`, `"atom.add.u64"`, `"red.add.f32"`,
/// `"ldmatrix.x4"`, `"stmatrix.x2"`, `"cp.async.cg"`, in any case; a bare
/// `"atomic"` is an atomic add; names as traces, SASS and PTX spell them,
/// `"LDS.U.128"`, `"ATOMS.CAS.64"`, `"LDSM.16.MT88.4"`, `"ld.shared.v4.f32"`,
/// whose width must agree with the width given), the access width in bytes
/// (1, 2, 4, 8 or 16), and 32 addresses: byte offsets into the shared window, `None` for an inactive
/// lane. With `base=`, the addresses are generic ones, translated into the 4 GiB
/// shared window that starts there. `bank_bytes=8` selects Kepler's eight-byte
/// bank mode (no effect elsewhere).
///
/// Bad input raises `ValueError` with the model's message (an integer out of
/// range names its argument), or `TypeError` for a value of the wrong type;
/// messages quote at most 64 characters of what was given, and a sequence's
/// length is checked before any of it is read.
#[pymodule]
#[pyo3(name = "smem_model")]
fn smem_model_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("WARP_SIZE", WARP_SIZE)?;
    m.add_function(wrap_pyfunction!(wavefronts, m)?)?;
    m.add_function(wrap_pyfunction!(cost, m)?)?;
    m.add_function(wrap_pyfunction!(partition, m)?)?;
    m.add_function(wrap_pyfunction!(timing, m)?)?;
    m.add_function(wrap_pyfunction!(batch::wavefronts_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::cost_batch, m)?)?;
    m.add(
        "COST_FIELDS",
        pyo3::types::PyTuple::new(m.py(), batch::COST_FIELDS)?,
    )?;
    m.add_class::<Timing>()?;
    m.add_class::<Cost>()?;
    m.add_class::<Transaction>()?;
    m.add_class::<Partition>()?;
    m.add_class::<tile::PySwizzle>()?;
    m.add_class::<tile::PyTileAccess>()?;
    m.add_class::<tile::PyTileLayout>()?;
    m.add_class::<tile::PyCandidate>()?;
    m.add_class::<tile::PyAdvice>()?;
    m.add_function(wrap_pyfunction!(tile::advise, m)?)?;
    m.add_class::<block::PyBlock>()?;
    m.add_class::<block::PyBlockReport>()?;
    m.add_class::<block::PyHazard>()?;
    m.add_class::<block::PyHazardAccess>()?;
    m.add_class::<block::PyOccupancy>()?;
    m.add_function(wrap_pyfunction!(block::occupancy, m)?)?;
    m.add_class::<trace::PyTotals>()?;
    m.add_class::<trace::PySummary>()?;
    m.add_function(wrap_pyfunction!(trace::read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace::merge_summaries, m)?)?;
    m.add_class::<kernel::PyKernelRun>()?;
    m.add_function(wrap_pyfunction!(kernel::kernel, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::triton_kernel, m)?)?;
    Ok(())
}
