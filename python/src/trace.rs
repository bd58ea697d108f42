//! Accel-Sim / NVBit traces from Python: the library's reader
//! (`kernel::accelsim::Trace`) into its tally (`kernel::tally::Tally`), the
//! sums of a reading as a small picklable value (`TraceSummary`) that merges
//! exactly, so a corpus can be spread over processes or machines (Dask) and
//! its per-file sums added up to what one reading of every file gives.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyDict, PyString};

use smem_model::kernel::accelsim::Trace;
use smem_model::kernel::ncu::predictions;
use smem_model::kernel::tally::{op_name, Profiler, Tally, Totals};
use smem_model::ComputeCapability;

use crate::args::{self, bounded, describe, value_error};

/// Sums over a trace's shared-memory requests.
#[pyclass(frozen, get_all, eq, module = "smem_model", name = "TraceTotals")]
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct PyTotals {
    /// Requests (warp instructions with at least one active lane).
    requests: u64,
    /// Wavefronts.
    wavefronts: u64,
    /// Wavefronts without bank conflicts.
    ideal_wavefronts: u64,
    /// Bank conflicts: wavefronts less ideal wavefronts.
    bank_conflicts: u64,
    /// Requests with at least one bank conflict.
    conflicted_requests: u64,
    /// The worst request's ways (the busiest phase's steps).
    worst_ways: u32,
}

impl From<Totals> for PyTotals {
    fn from(t: Totals) -> PyTotals {
        PyTotals {
            requests: t.requests,
            wavefronts: t.wavefronts,
            ideal_wavefronts: t.ideal_wavefronts,
            bank_conflicts: t.bank_conflicts,
            conflicted_requests: t.conflicted_requests,
            worst_ways: t.worst_ways,
        }
    }
}

impl From<PyTotals> for Totals {
    fn from(t: PyTotals) -> Totals {
        Totals {
            requests: t.requests,
            wavefronts: t.wavefronts,
            ideal_wavefronts: t.ideal_wavefronts,
            bank_conflicts: t.bank_conflicts,
            conflicted_requests: t.conflicted_requests,
            worst_ways: t.worst_ways,
        }
    }
}

/// The library's merge of two sums (the worst ways: the larger).
fn merged(a: PyTotals, b: PyTotals) -> PyTotals {
    let mut sum = Totals::from(a);
    sum.merge(&b.into());
    sum.into()
}

#[pymethods]
impl PyTotals {
    fn __repr__(&self) -> String {
        format!(
            "TraceTotals(requests={}, wavefronts={}, ideal_wavefronts={}, bank_conflicts={}, \
             conflicted_requests={}, worst_ways={})",
            self.requests,
            self.wavefronts,
            self.ideal_wavefronts,
            self.bank_conflicts,
            self.conflicted_requests,
            self.worst_ways
        )
    }
}

/// What a reading of trace files adds up to: the totals, the totals per op
/// and width, and the counts of what was read. Two summaries `merge` into
/// the summary of both readings, exactly; a summary pickles (for Dask).
#[pyclass(frozen, eq, module = "smem_model", name = "TraceSummary")]
#[derive(Clone, PartialEq, Eq, Default)]
pub struct PySummary {
    totals: PyTotals,
    by_op: BTreeMap<String, PyTotals>,
    counts: BTreeMap<&'static str, u64>,
    unmodelled: BTreeMap<String, u64>,
    /// Each Nsight Compute counter predicted, by name: the model's total it
    /// holds, the relation (`equal`, `at_least`, `estimate`) and the value.
    counters: BTreeMap<String, Counter>,
}

/// A counter of [`PySummary::counters`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Counter {
    total: String,
    relation: String,
    predicted: u64,
}

/// How far a relation is from `equal`: merging keeps the weaker (as `smem
/// trace --merge` does).
fn weakness(relation: &str) -> u8 {
    match relation {
        "equal" => 0,
        "at_least" => 1,
        _ => 2,
    }
}

impl PySummary {
    /// The wavefronts of every request.
    pub fn total_wavefronts(&self) -> u64 {
        self.totals.wavefronts
    }

    /// The bank conflicts of every request.
    pub fn total_bank_conflicts(&self) -> u64 {
        self.totals.bank_conflicts
    }
}

/// The counts a summary keeps, in the order `to_dict` gives them.
const COUNTS: [&str; 9] = [
    "files",
    "lines",
    "kernels",
    "blocks",
    "instructions",
    "other_instructions",
    "predicated_off",
    "constant_loads",
    "errors",
];

#[pymethods]
impl PySummary {
    /// The sums over every request.
    #[getter]
    fn totals(&self) -> PyTotals {
        self.totals
    }

    /// The sums per op and width, keyed `"LDS.128"`-style (op, then the
    /// access width in bits).
    #[getter]
    fn by_op(&self) -> BTreeMap<String, PyTotals> {
        self.by_op.clone()
    }

    /// Files, lines, kernels, blocks, instructions, other instructions (no
    /// shared access, no barrier), predicated-off accesses, constant loads and
    /// errors (lines or requests that could not be read or modelled) read.
    #[getter]
    fn counts(&self) -> BTreeMap<&'static str, u64> {
        self.counts.clone()
    }

    /// Instructions seen but not modelled (TMA, GMMA, mbarrier, LDGSTS),
    /// counted by name.
    #[getter]
    fn unmodelled(&self) -> BTreeMap<String, u64> {
        self.unmodelled.clone()
    }

    /// The summary of both readings: every sum and count added (the library's
    /// `Totals::merge`; the worst ways the larger).
    fn merge(&self, other: PyRef<'_, PySummary>) -> PySummary {
        let mut out = self.clone();
        out.totals = merged(self.totals, other.totals);
        for (op, totals) in &other.by_op {
            let mine = out.by_op.entry(op.clone()).or_default();
            *mine = merged(*mine, *totals);
        }
        for (name, count) in &other.counts {
            *out.counts.entry(name).or_default() += count;
        }
        for (name, count) in &other.unmodelled {
            *out.unmodelled.entry(name.clone()).or_default() += count;
        }
        for (name, theirs) in &other.counters {
            match out.counters.get_mut(name) {
                Some(mine) => {
                    mine.predicted = mine.predicted.saturating_add(theirs.predicted);
                    if weakness(&theirs.relation) > weakness(&mine.relation) {
                        mine.relation.clone_from(&theirs.relation);
                    }
                }
                None => {
                    out.counters.insert(name.clone(), theirs.clone());
                }
            }
        }
        out
    }

    /// Each Nsight Compute counter predicted (compute capability 7.0 and
    /// later), as `smem trace --json` gives them in `ncu_metrics`, by counter
    /// name: one dict each, with `metric`, `total` (the model's total it
    /// holds), `relation` (`equal`: the counter's value; `at_least`: a lower
    /// bound; `estimate`) and `predicted`; merged summaries add them, keeping
    /// the weaker relation.
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.counters
            .iter()
            .map(|(metric, c)| {
                let dict = PyDict::new(py);
                dict.set_item("metric", metric)?;
                dict.set_item("total", &c.total)?;
                dict.set_item("relation", &c.relation)?;
                dict.set_item("predicted", c.predicted)?;
                Ok(dict)
            })
            .collect()
    }

    /// The summary as plain Python data (what it pickles as).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("totals", totals_dict(py, self.totals)?)?;
        let by_op = PyDict::new(py);
        for (op, totals) in &self.by_op {
            by_op.set_item(op, totals_dict(py, *totals)?)?;
        }
        dict.set_item("by_op", by_op)?;
        dict.set_item("counts", self.counts.clone())?;
        dict.set_item("unmodelled", self.unmodelled.clone())?;
        dict.set_item("counters", self.counters(py)?)?;
        Ok(dict)
    }

    /// The summary `to_dict` gave; `ValueError` naming the first field that
    /// is missing or not a count.
    #[staticmethod]
    fn from_dict(data: &Bound<'_, PyAny>) -> PyResult<PySummary> {
        let data = data.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err(format!("expected a dict, got {}", describe(data)))
        })?;
        let totals = totals_from(&field(data, "totals")?, "totals")?;
        let mut by_op = BTreeMap::new();
        for (op, t) in field(data, "by_op")?
            .cast::<PyDict>()
            .map_err(|_| bad("by_op"))?
            .iter()
        {
            let op: String = op.extract().map_err(|_| bad("by_op"))?;
            let t = totals_from(&t, &format!("by_op[{:?}]", bounded(&op)))?;
            by_op.insert(op, t);
        }
        let mut counts = BTreeMap::new();
        let given = field(data, "counts")?;
        for name in COUNTS {
            let value = given
                .get_item(name)
                .map_err(|_| bad(&format!("counts[{name:?}]")))?;
            counts.insert(name, count(&value, &format!("counts[{name:?}]"))?);
        }
        let mut unmodelled = BTreeMap::new();
        for (name, n) in field(data, "unmodelled")?
            .cast::<PyDict>()
            .map_err(|_| bad("unmodelled"))?
            .iter()
        {
            let name: String = name.extract().map_err(|_| bad("unmodelled"))?;
            let n = count(&n, &format!("unmodelled[{:?}]", bounded(&name)))?;
            unmodelled.insert(name, n);
        }
        // Counters: optional (a summary pickled before they existed has none).
        let mut counters = BTreeMap::new();
        if let Some(given) = data.get_item("counters")? {
            let items = given.try_iter().map_err(|_| bad("counters"))?;
            for item in items {
                let item = item?;
                let text = |key: &str| -> PyResult<String> {
                    item.get_item(key)
                        .and_then(|v| v.extract::<String>())
                        .map_err(|_| bad(&format!("counters[][{key:?}]")))
                };
                let predicted = item
                    .get_item("predicted")
                    .map_err(|_| bad("counters[][\"predicted\"]"))?;
                counters.insert(
                    text("metric")?,
                    Counter {
                        total: text("total")?,
                        relation: text("relation")?,
                        predicted: count(&predicted, "counters[][\"predicted\"]")?,
                    },
                );
            }
        }
        Ok(PySummary {
            totals,
            by_op,
            counts,
            unmodelled,
            counters,
        })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let py = slf.py();
        let from_dict = py.get_type::<PySummary>().getattr("from_dict")?;
        Ok((from_dict, (slf.get().to_dict(py)?,)))
    }

    fn __repr__(&self) -> String {
        format!(
            "TraceSummary(totals={}, files={})",
            self.totals.__repr__(),
            self.counts.get("files").copied().unwrap_or(0)
        )
    }
}

fn bad(name: &str) -> PyErr {
    PyValueError::new_err(format!("a trace summary's {name} is missing or malformed"))
}

fn field<'py>(data: &Bound<'py, PyDict>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    data.get_item(name)?.ok_or_else(|| bad(name))
}

fn count(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    args::u64_arg(value, name)
}

fn totals_dict<'py>(py: Python<'py>, t: PyTotals) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("requests", t.requests)?;
    dict.set_item("wavefronts", t.wavefronts)?;
    dict.set_item("ideal_wavefronts", t.ideal_wavefronts)?;
    dict.set_item("bank_conflicts", t.bank_conflicts)?;
    dict.set_item("conflicted_requests", t.conflicted_requests)?;
    dict.set_item("worst_ways", t.worst_ways)?;
    Ok(dict)
}

fn totals_from(value: &Bound<'_, PyAny>, name: &str) -> PyResult<PyTotals> {
    let get = |key: &str| -> PyResult<u64> {
        let item = value
            .get_item(key)
            .map_err(|_| bad(&format!("{name}[{key:?}]")))?;
        count(&item, &format!("{name}[{key:?}]"))
    };
    let worst_ways = get("worst_ways")?;
    Ok(PyTotals {
        requests: get("requests")?,
        wavefronts: get("wavefronts")?,
        ideal_wavefronts: get("ideal_wavefronts")?,
        bank_conflicts: get("bank_conflicts")?,
        conflicted_requests: get("conflicted_requests")?,
        worst_ways: u32::try_from(worst_ways)
            .map_err(|_| bad(&format!("{name}[\"worst_ways\"]")))?,
    })
}

/// The paths of `paths`: one path (`str` or `os.PathLike`) or a sequence of
/// them.
fn paths(paths: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    let one = |p: &Bound<'_, PyAny>| -> PyResult<PathBuf> {
        p.extract::<PathBuf>().map_err(|_| {
            PyTypeError::new_err(format!(
                "paths: expected a path or a sequence of paths, got {}",
                describe(p)
            ))
        })
    };
    if paths.is_instance_of::<PyString>() || paths.hasattr("__fspath__")? {
        return Ok(vec![one(paths)?]);
    }
    let len = args::sequence_len(paths, "paths")?;
    let mut out = Vec::with_capacity(len.min(1 << 16));
    for p in paths.try_iter()? {
        out.push(one(&p?)?);
    }
    Ok(out)
}

/// Reads the Accel-Sim / NVBit trace files `paths` (one path or several: a
/// kernel's `.traceg`, a raw `.trace`, a `kernelslist.g`, any of them
/// xz-compressed), predicting each request on `arch` (default: each
/// kernel's own, from its header), and returns what they add up to (what
/// `smem trace` prints as totals). The GIL is released while reading.
#[pyfunction]
#[pyo3(signature = (paths, *, arch=None))]
pub fn read_trace(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    arch: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySummary> {
    let files = self::paths(paths)?;
    let arch: Option<ComputeCapability> = arch
        .filter(|a| !a.is_none())
        .map(args::capability)
        .transpose()?;
    let n_files = files.len() as u64;
    let (tally, summary) = py
        .detach(|| {
            let mut tally = Tally::new();
            let mut trace = Trace::files(files);
            if let Some(cc) = arch {
                tally = tally.with_capability(cc);
                trace = trace.with_capability(cc);
            }
            trace.read(&mut tally).map(|summary| (tally, summary))
        })
        .map_err(value_error)?;
    Ok(summary_of(
        &tally,
        [
            ("files", n_files),
            ("lines", summary.lines),
            ("kernels", summary.kernels),
            ("blocks", summary.blocks),
            ("instructions", summary.instructions),
            ("other_instructions", summary.other_instructions),
        ],
    ))
}

/// The summary of a tally, with what its source counted (`files`, `lines`,
/// `kernels`, `blocks`, `instructions`, `other_instructions`; the tally's own
/// counts added, any not given 0).
pub fn summary_of<const N: usize>(tally: &Tally, read: [(&'static str, u64); N]) -> PySummary {
    let mut counts: BTreeMap<&'static str, u64> = COUNTS.iter().map(|c| (*c, 0)).collect();
    counts.extend(read);
    counts.insert("predicated_off", tally.predicated_off());
    counts.insert("constant_loads", tally.constant().loads);
    *counts.entry("errors").or_default() += tally.error_count();
    PySummary {
        totals: tally.totals().into(),
        by_op: tally
            .by_op()
            .into_iter()
            .map(|((op, width), t)| (op_name(op, width), t.into()))
            .collect(),
        counts,
        // A request of unknown address (a PTX kernel's data-dependent bins)
        // is counted but not costed: listed with what is not modelled.
        unmodelled: tally
            .unmodelled()
            .iter()
            .map(|(name, n)| (name.to_string(), *n))
            .chain(
                tally.unknown_addresses().iter().map(|&((op, width), n)| {
                    (format!("{} (address unknown)", op_name(op, width)), n)
                }),
            )
            .collect(),
        counters: counters_of(tally),
    }
}

/// The tally's Nsight Compute predictions (none before compute capability
/// 7.0, where nvprof's counters are the profiler's), by counter.
fn counters_of(tally: &Tally) -> BTreeMap<String, Counter> {
    let nsight = tally
        .capabilities()
        .iter()
        .all(|&cc| Profiler::of(cc) == Profiler::NsightCompute);
    if !nsight {
        return BTreeMap::new();
    }
    predictions(tally)
        .into_iter()
        .map(|p| {
            let counter = Counter {
                total: p.quantity.total().to_owned(),
                relation: p.relation.name().to_owned(),
                predicted: p.predicted,
            };
            (p.counter.to_owned(), counter)
        })
        .collect()
}

/// The merge of any number of summaries (`TraceSummary.merge` in turn); an
/// empty list gives the empty summary.
#[pyfunction]
pub fn merge_summaries(summaries: &Bound<'_, PyAny>) -> PyResult<PySummary> {
    args::sequence_len(summaries, "summaries")?;
    let mut out = PySummary::default();
    for name in COUNTS {
        out.counts.insert(name, 0);
    }
    for s in summaries.try_iter()? {
        let s = s?;
        let s = s.cast::<PySummary>().map_err(|_| {
            PyTypeError::new_err(format!(
                "summaries: expected TraceSummary objects, got {}",
                describe(&s)
            ))
        })?;
        out = out.merge(s.borrow());
    }
    Ok(out)
}
