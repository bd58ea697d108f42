//! The Python module `smem_model`: the crate's wavefronts, costs and
//! partitions for Python (Triton, CuTe DSL and kernel authors), built with
//! maturin (`pip install ./python`). Its typed interface is
//! `python/smem_model.pyi`; `python/tests/` holds its pytest tests.
//!
//! Each call parses the arch and op names (a few comparisons), reads the 32
//! addresses from Python objects, and then costs what the Rust call does; bad
//! input raises `ValueError` with the crate's message.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyAny;

use smem_model::{BankConfig, ComputeCapability, Error, LaneSet, Op, WarpRequest, WARP_SIZE};

fn value_error(error: Error) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// The configuration for `arch` (e.g. `"sm_90"`, `"8.6"`), with Kepler's
/// eight-byte mode when `bank_bytes` is 8.
fn config(arch: &str, bank_bytes: u32) -> PyResult<BankConfig> {
    let capability: ComputeCapability = arch.parse().map_err(value_error)?;
    let mode = match bank_bytes {
        4 => smem_model::SharedMemConfig::FourByte,
        8 => smem_model::SharedMemConfig::EightByte,
        _ => {
            return Err(PyValueError::new_err(format!(
                "bank width of {bank_bytes} bytes: expected 4 or 8"
            )))
        }
    };
    Ok(BankConfig::new(capability).with_shared_mem_config(mode))
}

/// The request from 32 addresses (`None` for an inactive lane): shared
/// offsets, or generic addresses translated from `base`.
fn request(
    op: &str,
    width: u32,
    addresses: &Bound<'_, PyAny>,
    base: Option<u64>,
) -> PyResult<WarpRequest> {
    let op: Op = op.parse().map_err(value_error)?;
    let items: Vec<Option<Bound<'_, PyAny>>> = addresses.extract()?;
    if items.len() != WARP_SIZE {
        return Err(value_error(Error::LaneCount { given: items.len() }));
    }
    let mut mask = 0u32;
    let mut generic = [0u64; WARP_SIZE];
    for (lane, item) in items.iter().enumerate() {
        let Some(item) = item else { continue };
        let address: u64 = item.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "lane {lane}: address {item} is not an integer from 0 to 2^64 - 1"
            ))
        })?;
        mask |= 1 << lane;
        generic[lane] = address;
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

/// The wavefronts (transactions) of one warp instruction.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, base=None, bank_bytes=4))]
fn wavefronts(
    arch: &str,
    op: &str,
    width: u32,
    addresses: &Bound<'_, PyAny>,
    base: Option<u64>,
    bank_bytes: u32,
) -> PyResult<u32> {
    let config = config(arch, bank_bytes)?;
    let request = request(op, width, addresses, base)?;
    config.wavefronts(&request).map_err(value_error)
}

/// What a request costs: wavefronts, ideal wavefronts, bank conflicts, ways.
#[pyclass(frozen, get_all, module = "smem_model")]
#[derive(Clone, Copy)]
struct Cost {
    wavefronts: u32,
    ideal_wavefronts: u32,
    bank_conflicts: u32,
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

/// The cost of one warp instruction.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, base=None, bank_bytes=4))]
fn cost(
    arch: &str,
    op: &str,
    width: u32,
    addresses: &Bound<'_, PyAny>,
    base: Option<u64>,
    bank_bytes: u32,
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

/// What one instruction costs in cycles on sm_90 (the measured timing model).
#[pyclass(frozen, get_all, module = "smem_model")]
#[derive(Clone, Copy)]
struct Timing {
    pipe_cycles: u32,
    latency: Option<f64>,
    latency_cycles_per_instruction: Option<f64>,
    throughput_cycles_per_instruction: Option<f64>,
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

/// The cycles of one warp instruction with `warps` warps of one SM running it.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, warps=1, base=None, bank_bytes=4))]
#[allow(clippy::too_many_arguments)]
fn timing(
    arch: &str,
    op: &str,
    width: u32,
    addresses: &Bound<'_, PyAny>,
    warps: u32,
    base: Option<u64>,
    bank_bytes: u32,
) -> PyResult<Timing> {
    let config = config(arch, bank_bytes)?;
    let request = request(op, width, addresses, base)?;
    let t = config.timing(&request).map_err(value_error)?;
    Ok(Timing {
        pipe_cycles: t.pipe_cycles(),
        latency: t.latency(),
        latency_cycles_per_instruction: t.latency_cycles_per_instruction(warps),
        throughput_cycles_per_instruction: t.throughput_cycles_per_instruction(warps),
        warps,
    })
}

/// One wavefront: the lanes it serves, the banks and words it touches.
#[pyclass(frozen, get_all, module = "smem_model")]
struct Transaction {
    lanes: Vec<u32>,
    banks: Vec<u32>,
    words: Vec<u32>,
    phase: u32,
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
    transactions: Vec<Py<Transaction>>,
    wavefronts: u32,
    ideal_wavefronts: u32,
    bank_conflicts: u32,
    ways: u32,
    classification: String,
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

/// The partition of one warp instruction into transactions.
#[pyfunction]
#[pyo3(signature = (arch, op, width, addresses, *, base=None, bank_bytes=4))]
fn partition(
    py: Python<'_>,
    arch: &str,
    op: &str,
    width: u32,
    addresses: &Bound<'_, PyAny>,
    base: Option<u64>,
    bank_bytes: u32,
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
    })
}

/// Shared-memory bank conflicts and wavefronts per CUDA compute capability.
#[pymodule]
#[pyo3(name = "smem_model")]
fn smem_model_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("WARP_SIZE", WARP_SIZE)?;
    m.add_function(wrap_pyfunction!(wavefronts, m)?)?;
    m.add_function(wrap_pyfunction!(cost, m)?)?;
    m.add_function(wrap_pyfunction!(partition, m)?)?;
    m.add_function(wrap_pyfunction!(timing, m)?)?;
    m.add_class::<Timing>()?;
    m.add_class::<Cost>()?;
    m.add_class::<Transaction>()?;
    m.add_class::<Partition>()?;
    Ok(())
}
