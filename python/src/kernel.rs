//! A kernel's shared memory from its PTX, from Python (`smem kernel`'s
//! library): the interpreter (`kernel::ptx::Kernel`) runs the launch's
//! blocks into the tally, and a Triton helper takes a compiled kernel.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};

use smem_model::kernel::ncu::profile;
use smem_model::kernel::ptx::{self, Arg, ArgKey, Kernel, KernelLaunch, NoteKind, RunOptions};
use smem_model::kernel::tally::{Profiler, Tally};
use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Place};
use smem_model::{ComputeCapability, Error, Racecheck};

use crate::args::{self, bounded, describe, value_error};
use crate::trace::{summary_of, PySummary};

/// What interpreting a launch found.
#[pyclass(frozen, get_all, module = "smem_model", name = "KernelRun")]
pub struct PyKernelRun {
    /// The kernel's name in the PTX (mangled).
    name: String,
    /// What its shared accesses add up to, as `read_trace` gives a trace's.
    summary: PySummary,
    /// Blocks interpreted.
    blocks_run: u64,
    /// Blocks in the grid: more than `blocks_run` when sampled.
    blocks_total: u64,
    /// Whether only a sample of the grid ran (the totals are the sample's).
    sampled: bool,
    /// Warp instructions interpreted.
    warp_instructions: u64,
    /// What could not be followed exactly, one line an instruction, with
    /// which way the interpreter went and what that may change
    /// (`"line 41: ld.shared.u32: data-dependent address (64 warp executions):
    /// the address comes from memory the model does not hold ..."`).
    notes: Vec<String>,
    /// The PTX instructions the interpreter does not evaluate (their results
    /// unknown; none touches shared memory), by opcode, with how often each
    /// occurs in the kernel and the functions it calls.
    opaque: BTreeMap<String, usize>,
    /// The races the race checker found (`smem racecheck`'s model), as
    /// `smem kernel --json` gives them: one dict a hazard, with `kind`,
    /// `severity`, `first` and `second` (each `ptx_line`, `source_line`,
    /// `warp`, `lane`, `thread`, `access`), `bytes`, `blocks`,
    /// `example_block`, `example_address`.
    races: Py<PyAny>,
    /// The barrier errors it found, as `smem kernel --json` gives them: one
    /// dict each, with `message`, `error` (its fields), `blocks`,
    /// `example_block`.
    barrier_errors: Py<PyAny>,
    /// Each Nsight Compute counter predicted, as `smem kernel --json` gives
    /// them in `ncu_metrics`: one dict each, with `metric`, `total`,
    /// `relation` (`equal`: the counter's value; `at_least`: a lower bound;
    /// `estimate`), `predicted`, and `reason` and `not_costed` where they
    /// apply; empty before compute capability 7.0.
    counters: Py<PyAny>,
    /// The comparison with the profile given as `ncu=` (None without), as
    /// `smem kernel --ncu --json` gives it in `ncu_comparison`: `launch_id`,
    /// `launch_kernel`, `counters` (each `metric`, `total`, `relation`,
    /// `predicted`, `measured`, `holds`), `units` (each `unit`,
    /// `unit_conflicts`, `layout`, `arbitration`, `unexplained`, ...),
    /// `source_by_kind` and `source_lines` (with a Source page).
    ncu: Py<PyAny>,
}

/// `ncu=`: a path, or a sequence of paths (`str` or path-like).
fn ncu_paths(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PathBuf>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Vec::new());
    };
    let one = |v: &Bound<'_, PyAny>| -> PyResult<PathBuf> {
        v.extract::<PathBuf>().map_err(|_| {
            PyTypeError::new_err(format!(
                "ncu: expected a path or a sequence of paths, got {}",
                describe(v)
            ))
        })
    };
    if value.is_instance_of::<PyString>() || value.hasattr("__fspath__")? {
        return Ok(vec![one(value)?]);
    }
    args::sequence_len(value, "ncu")?;
    value.try_iter()?.map(|v| one(&v?)).collect()
}

/// Gives every event to both the tally and the race checker (as `smem
/// kernel` does).
struct Both<'a> {
    tally: &'a mut Tally,
    races: &'a mut Racecheck,
}

impl Consumer for Both<'_> {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.tally.begin_kernel(kernel)?;
        self.races.begin_kernel(kernel)
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        self.tally.begin_block(block)?;
        self.races.begin_block(block)
    }

    fn place(&mut self, place: &Place<'_>) {
        self.tally.place(place);
        self.races.place(place);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.tally.event(warp, event)?;
        self.races.event(warp, event)
    }

    fn end_block(&mut self) -> Result<(), Error> {
        self.tally.end_block()?;
        self.races.end_block()
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.tally.end_kernel()?;
        self.races.end_kernel()
    }
}

/// A race's or barrier error's instruction: `PTX line 43 (k.cu:10)`, the
/// source line from the PTX's `.loc` (as `smem kernel` writes it).
fn source_of(kernel: &Kernel, ptx_line: u64) -> Option<String> {
    kernel.source_line(ptx_line).map(|(file, line)| match file {
        Some(file) => format!(
            "{}:{line}",
            Path::new(file)
                .file_name()
                .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned())
        ),
        None => line.to_string(),
    })
}

/// The races and barrier errors of `races` as `smem kernel --json` gives
/// them (src/bin/smem/kernel.rs, `races_json`: the same fields).
fn races_json(
    kernel: &Kernel,
    races: &Racecheck,
    block: [u32; 3],
) -> (serde_json::Value, serde_json::Value) {
    use serde_json::json;
    let thread = |t: u32| {
        let (x, y) = (block[0].max(1), block[1].max(1));
        [t % x, t / x % y, t / (x * y)]
    };
    let site = |s: u64| match source_of(kernel, s) {
        Some(source) => format!("PTX line {s} ({source})"),
        None => format!("PTX line {s}"),
    };
    let side = |a: &smem_model::HazardAccess| {
        json!({
            "ptx_line": a.site(),
            "source_line": source_of(kernel, a.site()),
            "warp": a.warp(),
            "lane": a.lane().get(),
            "thread": thread(a.thread()),
            "access": a.access().to_string(),
        })
    };
    let (mut hazards, mut barriers) = (Vec::new(), Vec::new());
    for k in races.kernels() {
        for finding in k.hazards() {
            let h = finding.example();
            hazards.push(json!({
                "kind": h.kind().to_string(),
                "severity": h.severity().to_string(),
                "first": side(h.first()),
                "second": side(h.second()),
                "bytes": finding.bytes(),
                "blocks": finding.blocks(),
                "example_block": finding.block(),
                "example_address": h.address(),
            }));
        }
        for finding in k.barrier_errors() {
            barriers.push(json!({
                "message": finding.error().describe(site),
                "error": finding.error(),
                "blocks": finding.blocks(),
                "example_block": finding.block(),
            }));
        }
    }
    (hazards.into(), barriers.into())
}

#[pymethods]
impl PyKernelRun {
    fn __repr__(&self) -> String {
        format!(
            "KernelRun(name={:?}, blocks_run={}, wavefronts={}, bank_conflicts={})",
            bounded(&self.name),
            self.blocks_run,
            self.summary.total_wavefronts(),
            self.summary.total_bank_conflicts()
        )
    }
}

/// `(x, y, z)`, `(x, y)`, `(x,)` or `x`; missing sizes are 1.
fn dims(value: &Bound<'_, PyAny>, name: &str) -> PyResult<[u32; 3]> {
    let mut out = [1u32; 3];
    if let Ok(tuple) = value.cast::<PyTuple>() {
        if tuple.is_empty() || tuple.len() > 3 {
            return Err(PyValueError::new_err(format!(
                "{name}: expected 1 to 3 sizes, got {}",
                describe(value)
            )));
        }
        for (i, item) in tuple.iter().enumerate() {
            out[i] = args::u32_arg(&item, &format!("{name}[{i}]"))?;
        }
    } else if value.is_instance_of::<PyInt>() {
        out[0] = args::u32_arg(value, name)?;
    } else {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int or a tuple of 1 to 3 ints, got {}",
            describe(value)
        )));
    }
    Ok(out)
}

/// `grid=` (`from_py_with`).
fn grid(value: &Bound<'_, PyAny>) -> PyResult<[u32; 3]> {
    dims(value, "grid")
}

/// `block=` (`from_py_with`).
fn block(value: &Bound<'_, PyAny>) -> PyResult<[u32; 3]> {
    dims(value, "block")
}

/// One argument's value as the launch reads it: an int in decimal, a float
/// as Python writes it (exactly), `None` left unset (a pointer gets a fake
/// address of its own).
fn arg_value(value: &Bound<'_, PyAny>, key: &str) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(Some(u8::from(value.extract::<bool>()?).to_string()));
    }
    if value.is_instance_of::<PyInt>() {
        let v: i128 = value.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "args[{key}]: {} does not fit 128 bits",
                describe(value)
            ))
        })?;
        return Ok(Some(v.to_string()));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Some(value.repr()?.to_cow()?.into_owned()));
    }
    if let Ok(ptr) = value.call_method0("data_ptr") {
        // A torch tensor: its device address.
        return Ok(Some(ptr.extract::<u64>()?.to_string()));
    }
    Err(PyTypeError::new_err(format!(
        "args[{key}]: expected an int, a float, None or a tensor, got {}",
        describe(value)
    )))
}

/// The launch's arguments: a dict by PTX parameter name or 0-based index,
/// or a sequence by position.
fn launch_args(values: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Arg>> {
    let mut out = Vec::new();
    let Some(values) = values.filter(|v| !v.is_none()) else {
        return Ok(out);
    };
    let mut push = |key: ArgKey, value: &Bound<'_, PyAny>| -> PyResult<()> {
        if let Some(value) = arg_value(value, &key.to_string())? {
            out.push(Arg { key, value });
        }
        Ok(())
    };
    if let Ok(dict) = values.cast::<PyDict>() {
        for (key, value) in dict.iter() {
            let key = if let Ok(name) = key.cast::<PyString>() {
                ArgKey::Name(name.to_cow()?.into_owned())
            } else {
                ArgKey::Index(args::u32_arg(&key, "args key")? as usize)
            };
            push(key, &value)?;
        }
    } else {
        args::sequence_len(values, "args")?;
        for (i, value) in values.try_iter()?.enumerate() {
            push(ArgKey::Index(i), &value?)?;
        }
    }
    Ok(out)
}

fn note_kind(kind: NoteKind) -> &'static str {
    match kind {
        NoteKind::DataDependentAddress => "data-dependent address",
        NoteKind::DataDependentBranch => "data-dependent branch",
        NoteKind::DataDependentGuard => "data-dependent guard",
        NoteKind::ForcedBarrier => "barrier released before every thread arrived",
        NoteKind::Unmodelled => "not modelled",
        #[allow(unreachable_patterns)]
        _ => "not followed exactly",
    }
}

/// Interprets the kernel `kernel` (the module's only one when `None`) of the
/// PTX text `ptx` on a launch of `grid` blocks of `block` threads, with
/// `args` (a dict by parameter name or index, or a sequence by position;
/// unset pointers get fake addresses of their own, an unset scalar is an
/// error naming it) and `dynamic_shared` bytes, every block or a `sample` of
/// them, predicting each access on `arch` (default: sm_90). With `ncu`
/// (the path of Nsight Compute's CSV export of the launch, raw or details
/// page and/or Source page, or a sequence of them), `KernelRun.ncu` compares
/// each counter with its measurement (`smem kernel --ncu`); `ncu_id` picks
/// the launch where the export holds several. The GIL is released while it
/// runs.
#[pyfunction]
#[pyo3(signature = (ptx, grid, block, args=None, *, kernel=None, dynamic_shared=0, arch=None, sample=None, ncu=None, ncu_id=None))]
#[allow(clippy::too_many_arguments)]
pub fn kernel(
    py: Python<'_>,
    ptx: &str,
    #[pyo3(from_py_with = grid)] grid: [u32; 3],
    #[pyo3(from_py_with = block)] block: [u32; 3],
    args: Option<&Bound<'_, PyAny>>,
    kernel: Option<&str>,
    #[pyo3(from_py_with = args::dynamic_bytes)] dynamic_shared: u32,
    arch: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::sample)] sample: Option<u64>,
    ncu: Option<&Bound<'_, PyAny>>,
    ncu_id: Option<u64>,
) -> PyResult<PyKernelRun> {
    let ncu_files = ncu_paths(ncu)?;
    let arch: Option<ComputeCapability> = arch
        .filter(|a| !a.is_none())
        .map(args::capability)
        .transpose()?;
    let launch_args = launch_args(args)?;
    let text = ptx.to_owned();
    let kernel_name = kernel.map(str::to_owned);
    let cc = arch.unwrap_or(ComputeCapability::Sm90);
    let (name, tally, races, run, opaque, ncu_json) = py
        .detach(|| {
            let module = ptx::parse(&text)?;
            let kernel = Kernel::new(&module, kernel_name.as_deref())?;
            let mut launch = KernelLaunch::new(grid, block)?.with_dynamic_shared(dynamic_shared);
            for arg in launch_args {
                launch = launch.with_arg(arg);
            }
            let mut options = RunOptions::new().with_capability(cc);
            if let Some(blocks) = sample {
                options = options.with_sample(blocks);
            }
            let mut tally = Tally::new().with_capability(cc);
            let mut races = Racecheck::new().with_capability(cc);
            let run = kernel.run(
                &launch,
                &options,
                &mut Both {
                    tally: &mut tally,
                    races: &mut races,
                },
            )?;
            let opaque: BTreeMap<String, usize> = kernel
                .opaque_instructions()
                .into_iter()
                .map(|(name, n)| (name.to_owned(), n))
                .collect();
            let races = races_json(&kernel, &races, block);
            // Nsight Compute runs from compute capability 7.0 on; before,
            // no counter of its is predicted (as `smem kernel`).
            let volta = Profiler::of(cc) == Profiler::NsightCompute;
            let counters = if volta {
                profile::predictions_json(&tally)
            } else {
                serde_json::Value::Array(Vec::new())
            };
            let comparison = if ncu_files.is_empty() {
                serde_json::Value::Null
            } else if !volta {
                return Err(Error::NcuCsv {
                    line: 0,
                    reason: format!(
                        "not compared: Nsight Compute's counters exist from compute capability \
                         7.0 on, and this launch is predicted for {}",
                        cc.sm_name()
                    ),
                });
            } else {
                profile::compare_files(&ncu_files, ncu_id, &tally, kernel.name(), grid, block)?
                    .to_json()
            };
            let ncu_json = (counters, comparison);
            Ok::<_, Error>((
                kernel.name().to_owned(),
                tally,
                races,
                run,
                opaque,
                ncu_json,
            ))
        })
        .map_err(value_error)?;
    let notes = run
        .notes
        .iter()
        .map(|n| {
            format!(
                "line {}: {}: {} ({} warp execution{}): {}",
                n.ptx_line,
                bounded(&n.instruction),
                note_kind(n.kind),
                n.count,
                if n.count == 1 { "" } else { "s" },
                n.kind.meaning()
            )
        })
        .collect();
    let loads = py.import("json")?.getattr("loads")?;
    Ok(PyKernelRun {
        races: loads.call1((races.0.to_string(),))?.unbind(),
        barrier_errors: loads.call1((races.1.to_string(),))?.unbind(),
        counters: loads.call1((ncu_json.0.to_string(),))?.unbind(),
        ncu: loads.call1((ncu_json.1.to_string(),))?.unbind(),
        name,
        summary: summary_of(
            &tally,
            [
                ("kernels", 1),
                ("blocks", run.blocks_run),
                ("instructions", run.warp_instructions),
            ],
        ),
        blocks_run: run.blocks_run,
        blocks_total: run.blocks_total,
        sampled: run.sampled(),
        warp_instructions: run.warp_instructions,
        notes,
        opaque,
    })
}

/// A compiled Triton kernel (`triton.compile(...)`, what launching a
/// `@triton.jit` function returns, or its cache entry: a directory, its
/// `.json` or its `.ptx`) run as `kernel` runs PTX: its PTX
/// (`asm["ptx"]`), `num_warps` warps a block and its shared bytes from its
/// metadata; `args` the values of the PTX kernel's parameters (the call's
/// arguments that are not `constexpr`, in order, or a dict by PTX parameter
/// name; tensors give their `data_ptr()`, `None` a fake pointer).
#[pyfunction]
#[pyo3(signature = (compiled, grid, args=None, *, arch=None, sample=None, ncu=None, ncu_id=None))]
#[allow(clippy::too_many_arguments)]
pub fn triton_kernel(
    py: Python<'_>,
    compiled: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = grid)] grid: [u32; 3],
    args: Option<&Bound<'_, PyAny>>,
    arch: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::sample)] sample: Option<u64>,
    ncu: Option<&Bound<'_, PyAny>>,
    ncu_id: Option<u64>,
) -> PyResult<PyKernelRun> {
    let missing = |what: &str| {
        PyTypeError::new_err(format!(
            "compiled: expected a compiled Triton kernel (with {what}), got {}",
            describe(compiled)
        ))
    };
    let (ptx_text, metadata) =
        if compiled.is_instance_of::<PyString>() || compiled.hasattr("__fspath__")? {
            cached(py, &compiled.extract::<PathBuf>()?)?
        } else {
            let ptx_text: String = compiled
                .getattr("asm")
                .and_then(|asm| asm.get_item("ptx"))
                .and_then(|p| p.extract())
                .map_err(|_| missing("asm[\"ptx\"]"))?;
            let metadata = compiled
                .getattr("metadata")
                .map_err(|_| missing("metadata"))?;
            (ptx_text, metadata)
        };
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        metadata
            .getattr(key)
            .or_else(|_| metadata.get_item(key))
            .map_err(|_| missing(&format!("metadata.{key}")))
    };
    let num_warps = args::u32_arg(&get("num_warps")?, "metadata.num_warps")?;
    let shared = args::u32_arg(&get("shared")?, "metadata.shared")?;
    let name: Option<String> = get("name").ok().and_then(|n| n.extract().ok());
    let block = [num_warps.saturating_mul(32), 1, 1];
    let arch = match arch.filter(|a| !a.is_none()) {
        Some(arch) => Some(arch.clone()),
        None => get("target")
            .ok()
            .and_then(|t| t.getattr("arch").or_else(|_| t.get_item("arch")).ok()),
    };
    let arch = match arch {
        Some(a) if a.is_instance_of::<PyInt>() => {
            let cc = args::u32_arg(&a, "metadata.target.arch")?;
            Some(PyTuple::new(py, [cc / 10, cc % 10])?.into_any())
        }
        other => other,
    };
    self::kernel(
        py,
        &ptx_text,
        grid,
        block,
        args,
        name.as_deref(),
        shared,
        arch.as_ref(),
        sample,
        ncu,
        ncu_id,
    )
}

/// A kernel in Triton's cache: a directory holding one `.ptx` and its
/// `.json` metadata, the `.json`, or the `.ptx` with `kernel.json` or a
/// `.json` of its name beside it (as `smem kernel` finds them).
fn cached<'py>(py: Python<'py>, path: &Path) -> PyResult<(String, Bound<'py, PyAny>)> {
    let shown = |p: &Path| bounded(&p.display().to_string());
    let io = |p: &Path, e: std::io::Error| {
        PyValueError::new_err(format!("cannot read {}: {e}", shown(p)))
    };
    let (ptx, json) = if path.is_dir() {
        let mut ptxs: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| io(path, e))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        ptxs.sort();
        if ptxs.len() != 1 {
            return Err(PyValueError::new_err(format!(
                "{} holds {} .ptx files: expected one (a Triton cache entry)",
                shown(path),
                ptxs.len()
            )));
        }
        let ptx = ptxs.remove(0);
        let same = ptx.with_extension("json");
        let json = if same.exists() {
            same
        } else {
            ptx.with_file_name("kernel.json")
        };
        (ptx, json)
    } else if path.extension().is_some_and(|x| x == "json") {
        let same = path.with_extension("ptx");
        let ptx = if same.exists() {
            same
        } else {
            path.with_file_name("kernel.ptx")
        };
        (ptx, path.to_path_buf())
    } else {
        let same = path.with_extension("json");
        let json = if same.exists() {
            same
        } else {
            path.with_file_name("kernel.json")
        };
        (path.to_path_buf(), json)
    };
    let text = std::fs::read_to_string(&ptx).map_err(|e| io(&ptx, e))?;
    let meta = std::fs::read_to_string(&json).map_err(|e| io(&json, e))?;
    let metadata = py
        .import("json")?
        .call_method1("loads", (meta,))
        .map_err(|_| PyValueError::new_err(format!("{}: not JSON", shown(&json))))?;
    Ok((text, metadata))
}
