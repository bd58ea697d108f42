//! A kernel's shared memory from its PTX, from Python (`smem kernel`'s
//! library): the interpreter (`kernel::ptx::Kernel`) runs the launch's
//! blocks into the tally, and a Triton helper takes a compiled kernel.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString, PyTuple};

use smem_model::kernel::ncu::profile;
use smem_model::kernel::ptx::resolve::{self, TritonMeta};
use smem_model::kernel::ptx::{self, Arg, ArgKey, Kernel, KernelLaunch, NoteKind, RunOptions};
use smem_model::kernel::tally::{Profiler, Tally};
use smem_model::kernel::{BlockInfo, Consumer, Event, Repeat};
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
    /// `example_block`, `example_address`; at most 4096 (`smem kernel`'s
    /// default `--max`), the rest counted in `hazards_not_listed`.
    races: Py<PyAny>,
    /// The races found past the 4096 listed, one a pair of instructions:
    /// counted, not kept (`smem kernel --json`'s `hazards_not_listed`).
    hazards_not_listed: u64,
    /// The barrier errors it found, as `smem kernel --json` gives them: one
    /// dict each, with `message`, `error` (its fields), `blocks`,
    /// `example_block`.
    barrier_errors: Py<PyAny>,
    /// Each Nsight Compute counter predicted, as `smem kernel --json` gives
    /// them in `ncu_metrics`: one dict each, with `metric`, `total`,
    /// `relation` (`equal`: the counter's value; `at_least`: a lower bound;
    /// `estimate`), `predicted`, and `reason`, `not_costed` and `range` (an
    /// estimate's least and most, `[low, high]`) where they apply; empty
    /// before compute capability 7.0.
    counters: Py<PyAny>,
    /// The comparison with the profile given as `ncu=` (None without), as
    /// `smem kernel --ncu --json` gives it in `ncu_comparison`: `launch_id`,
    /// `launch_kernel`, `counters` (each `metric`, `total`, `relation`,
    /// `predicted`, `range`, `measured`, `holds`), `units` (each `unit`,
    /// `unit_conflicts`, `layout`, `arbitration`, `unexplained`, ...),
    /// `source_by_kind` and `source_lines` (with a Source page), and
    /// `absent`: the counters the export lacks (not compared, `measured`
    /// None).
    ncu: Py<PyAny>,
    /// The compute capability predicted on (`"sm_90"`): the one given, else
    /// the GPU the `ncu=` export was measured on, else what Triton compiled
    /// for, else the PTX's `.target`, else sm_90 (as `smem kernel`).
    arch: String,
    /// The source lines (the PTX's `.loc`), most bank conflicts first, as
    /// `smem kernel --by-line --json` gives them: one dict a line, with
    /// `source_line` (`"k.cu:12"`, `None` for instructions without one),
    /// `instructions` and the line's totals.
    by_line: Py<PyAny>,
    /// Whether the launch's shared memory is more than a block gets without
    /// the opt-in: it runs on the GPU only after `cudaFuncSetAttribute(kernel,
    /// cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)` (as `smem kernel
    /// --json`'s `needs_opt_in`).
    needs_opt_in: bool,
    /// With `sample`: the totals estimated for the whole grid, as `smem
    /// kernel --json`'s `estimated_totals` (`scale`, `requests`, `wavefronts`,
    /// `ideal_wavefronts`, `bank_conflicts`, each the sample's scaled by
    /// `blocks_total / blocks_run`); None when every block ran.
    estimated_totals: Py<PyAny>,
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

/// Python's signal handlers, run from the interpreter's callbacks at most
/// every 50 ms (each takes the GIL): a `KeyboardInterrupt` they raise stops
/// the run and is raised from `kernel()`.
struct Signals {
    last: std::time::Instant,
    calls: u32,
    raised: Option<PyErr>,
}

impl Signals {
    fn new() -> Self {
        Signals {
            last: std::time::Instant::now(),
            calls: 0,
            raised: None,
        }
    }

    fn check(&mut self) -> Result<(), Error> {
        self.calls = self.calls.wrapping_add(1);
        // The clock is read every 256th call: events come by the million.
        if !self.calls.is_multiple_of(256)
            || self.last.elapsed() < std::time::Duration::from_millis(50)
        {
            return Ok(());
        }
        self.last = std::time::Instant::now();
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.raised = Some(e);
                Err(Error::Interrupted)
            }
        }
    }
}

/// Python's signal handlers run from the progress callback, between
/// blocks, at most every 50 ms (each takes the GIL): [`Signals`] for a
/// callback that other threads may hold, as `RunOptions::with_progress`
/// asks.
#[derive(Default)]
struct SignalsBetweenBlocks {
    /// When the handlers last ran (none yet: now), and what they raised.
    state: Mutex<(Option<Instant>, Option<PyErr>)>,
}

impl SignalsBetweenBlocks {
    /// Whether the run goes on: false once a handler raised.
    fn check(&self) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return true;
        };
        let now = Instant::now();
        let last = *state.0.get_or_insert(now);
        if now.duration_since(last) < Duration::from_millis(50) {
            return true;
        }
        state.0 = Some(now);
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => true,
            Err(e) => {
                state.1 = Some(e);
                false
            }
        }
    }

    /// What a handler raised, if one did.
    fn take(&self) -> Option<PyErr> {
        self.state.lock().ok().and_then(|mut state| state.1.take())
    }
}

/// Runs Python's signal handlers as the events come: first in a pair with
/// the tally and the race checker, it stops the run before they see the
/// event that a `KeyboardInterrupt` came at.
impl Consumer for Signals {
    fn begin_block(&mut self, _block: &BlockInfo) -> Result<(), Error> {
        // Every block is a chance to stop, not only every 256th call.
        self.calls |= 255;
        self.check()
    }

    fn event(&mut self, _warp: u32, _event: &Event<'_>) -> Result<(), Error> {
        self.check()
    }

    fn repeat_block(&mut self, _block: &BlockInfo, _repeat: &Repeat<'_>) -> Result<(), Error> {
        // A repeated block is one call here, however many events it holds.
        self.calls |= 255;
        self.check()
    }
}

/// The races and barrier errors of `races` as `smem kernel --json` gives
/// them (`kernel::ptx::races_json`, the same function), and the hazards
/// not listed.
fn races_json(
    kernel: &Kernel,
    races: &Racecheck,
    block: [u32; 3],
) -> (serde_json::Value, serde_json::Value, u64) {
    let (mut hazards, mut barriers, mut not_listed) = (Vec::new(), Vec::new(), 0);
    for k in races.kernels() {
        let (h, b) = smem_model::kernel::ptx::races_json(kernel, k, block);
        hazards.extend(h);
        barriers.extend(b);
        not_listed += k.hazards_not_listed();
    }
    (hazards.into(), barriers.into(), not_listed)
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

/// `(x, y, z)`, `(x, y)`, `(x,)` or `x` (ints, numpy's included); missing
/// sizes are 1.
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
    } else if is_integer(value)? {
        out[0] = args::u32_arg(value, name)?;
    } else {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int or a tuple of 1 to 3 ints, got {}",
            describe(value)
        )));
    }
    Ok(out)
}

/// An `int`, or an integer of another kind (numpy's `int64`, `uint32`): what
/// has `__index__` and is not a float.
fn is_integer(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(value.is_instance_of::<PyInt>()
        || (value.hasattr("__index__")? && !value.is_instance_of::<PyFloat>()))
}

/// `grid=` (`from_py_with`).
fn grid(value: &Bound<'_, PyAny>) -> PyResult<[u32; 3]> {
    dims(value, "grid")
}

/// `block=` (`from_py_with`): `None` for the kernel's `.reqntid` or Triton's
/// `num_warps`.
fn block(value: &Bound<'_, PyAny>) -> PyResult<Option<[u32; 3]>> {
    if value.is_none() {
        return Ok(None);
    }
    dims(value, "block").map(Some)
}

/// `dynamic_shared=` (`from_py_with`): `None` for Triton's `shared`, else 0.
fn dynamic_shared(value: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    if value.is_none() {
        return Ok(None);
    }
    args::dynamic_bytes(value).map(Some)
}

/// One argument's value as the launch reads it: an int (numpy's too) in
/// decimal, a float (numpy's too) as Python writes it (exactly), a tensor
/// as its `data_ptr()`, `None` left unset (a pointer gets a fake address of
/// its own).
fn arg_value(value: &Bound<'_, PyAny>, key: &str) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(Some(u8::from(value.extract::<bool>()?).to_string()));
    }
    if let Ok(bytes) = value.cast::<PyBytes>() {
        // A struct passed by value: its bytes in memory order, as one
        // little-endian hex number (`smem kernel --arg`'s notation).
        let bytes = bytes.as_bytes();
        if bytes.is_empty() {
            return Err(PyValueError::new_err(format!("args[{key}]: empty bytes")));
        }
        let hex: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
        return Ok(Some(format!("0x{hex}")));
    }
    if is_integer(value)? && !value.hasattr("data_ptr")? {
        if let Ok(v) = value.extract::<i128>() {
            return Ok(Some(v.to_string()));
        }
        // Past 128 bits (a struct's bytes as one int): its hex digits.
        let hex = value
            .py()
            .import("builtins")?
            .getattr("hex")?
            .call1((value,))?;
        let hex: String = hex.extract()?;
        if hex.starts_with('-') {
            return Err(PyValueError::new_err(format!(
                "args[{key}]: {} does not fit 128 bits",
                describe(value)
            )));
        }
        return Ok(Some(hex));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Some(value.repr()?.to_cow()?.into_owned()));
    }
    if let Ok(ptr) = value.call_method0("data_ptr") {
        // A torch tensor: its device address.
        return Ok(Some(ptr.extract::<u64>()?.to_string()));
    }
    if value.hasattr("__float__")? {
        // numpy's float32 (float64 is a float): as the Python float it is.
        let v: f64 = value.extract()?;
        return Ok(Some(
            PyFloat::new(value.py(), v).repr()?.to_cow()?.into_owned(),
        ));
    }
    Err(PyTypeError::new_err(format!(
        "args[{key}]: expected an int, a float, None or a tensor, got {}",
        describe(value)
    )))
}

/// Whether `value` is a Triton `TensorDescriptor` (or anything with its
/// `base`, `shape`, `strides` and `block_shape`).
fn is_descriptor(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(value.hasattr("block_shape")? && value.hasattr("shape")? && value.hasattr("strides")?)
}

/// A Triton `TensorDescriptor`'s tensor map: its shape, strides (in
/// elements) and block shape, the element size of its `base`
/// (`element_size()` or `itemsize`), and the swizzle Triton's NVMMA layout
/// picks for the block's rows (128, 64 or 32 bytes, the widest the row
/// fills), the box's innermost dimension cut to that span as Triton's
/// copies cut it (tests/data/ncu/hopper/launches.txt: a 64 x 128 fp16 block
/// is two copies of 64 x 64 with the 128-byte swizzle).
fn descriptor_map(value: &Bound<'_, PyAny>, key: &str) -> PyResult<ptx::TensorMap> {
    let ints = |name: &str| -> PyResult<Vec<u64>> {
        value
            .getattr(name)?
            .try_iter()?
            .map(|v| v.and_then(|v| v.extract::<u64>()))
            .collect()
    };
    let (shape, strides, block) = (ints("shape")?, ints("strides")?, ints("block_shape")?);
    let base = value.getattr("base")?;
    let elem: u64 = match base.call_method0("element_size") {
        Ok(e) => e.extract()?,
        Err(_) => base.getattr("itemsize")?.extract()?,
    };
    let (Some(&inner), true) = (block.last(), elem > 0) else {
        return Err(PyValueError::new_err(format!(
            "args[{key}]: a TensorDescriptor without a block shape"
        )));
    };
    let row = inner * elem;
    let swizzle = [128u64, 64, 32]
        .into_iter()
        .find(|&s| row >= s)
        .unwrap_or(0);
    let mut boxes = block.clone();
    if swizzle > 0 {
        *boxes.last_mut().unwrap_or(&mut 0) = inner.min(swizzle / elem);
    }
    let join = |v: &[u64]| {
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("x")
    };
    let mut fields = format!(
        "dims:{},box:{},elem:{elem},swizzle:{swizzle}",
        join(&shape),
        join(&boxes)
    );
    if strides.len() > 1 {
        let bytes: Vec<u64> = strides[..strides.len() - 1]
            .iter()
            .map(|s| s * elem)
            .collect();
        fields.push_str(&format!(",strides:{}", join(&bytes)));
    }
    fields.parse().map_err(value_error)
}

/// `tensor_maps=`: a dict by parameter (index, PTX name or Triton Python
/// name) of tensor maps, each `smem kernel --tensor-map`'s text, a dict of
/// its fields (`{"dims": (4096, 64), "box": (128, 64), "elem": 2,
/// "swizzle": 128}`) or a Triton `TensorDescriptor`.
fn tensor_maps(values: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(ArgKey, ptx::TensorMap)>> {
    let mut out = Vec::new();
    let Some(values) = values.filter(|v| !v.is_none()) else {
        return Ok(out);
    };
    let dict = values.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "tensor_maps: expected a dict by parameter, got {}",
            describe(values)
        ))
    })?;
    for (key, value) in dict.iter() {
        let key = if let Ok(name) = key.cast::<PyString>() {
            ArgKey::Name(name.to_cow()?.into_owned())
        } else {
            ArgKey::Index(args::u32_arg(&key, "tensor_maps key")? as usize)
        };
        let map = if let Ok(text) = value.cast::<PyString>() {
            text.to_cow()?.parse().map_err(value_error)?
        } else if let Ok(fields) = value.cast::<PyDict>() {
            let mut parts = Vec::new();
            for (k, v) in fields.iter() {
                let k: String = k.extract()?;
                let v = if let Ok(text) = v.cast::<PyString>() {
                    text.to_cow()?.into_owned()
                } else if let Ok(n) = v.extract::<u64>() {
                    n.to_string()
                } else {
                    let items: Vec<u64> = v
                        .try_iter()?
                        .map(|x| x.and_then(|x| x.extract::<u64>()))
                        .collect::<PyResult<_>>()?;
                    items
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("x")
                };
                parts.push(format!("{k}:{v}"));
            }
            parts.join(",").parse().map_err(value_error)?
        } else if is_descriptor(&value)? {
            descriptor_map(&value, &key.to_string())?
        } else {
            return Err(PyTypeError::new_err(format!(
                "tensor_maps[{key}]: expected a str, a dict of fields or a TensorDescriptor, got {}",
                describe(&value)
            )));
        };
        out.push((key, map));
    }
    Ok(out)
}

/// Tensor maps by parameter.
type Maps = Vec<(ArgKey, ptx::TensorMap)>;

/// The launch's arguments: a dict by parameter name (PTX, or a Triton
/// kernel's Python name) or 0-based index, or a sequence by position; a
/// Triton `TensorDescriptor` among them gives its parameter's tensor map.
fn launch_args(values: Option<&Bound<'_, PyAny>>) -> PyResult<(Vec<Arg>, Maps)> {
    let mut out = Vec::new();
    let mut maps = Vec::new();
    let Some(values) = values.filter(|v| !v.is_none()) else {
        return Ok((out, maps));
    };
    let mut push = |key: ArgKey, value: &Bound<'_, PyAny>| -> PyResult<()> {
        if is_descriptor(value)? {
            maps.push((key.clone(), descriptor_map(value, &key.to_string())?));
            return Ok(());
        }
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
    Ok((out, maps))
}

fn note_kind(kind: NoteKind) -> &'static str {
    match kind {
        NoteKind::DataDependentAddress => "data-dependent address",
        NoteKind::DataDependentBranch => "data-dependent branch",
        NoteKind::DataDependentGuard => "data-dependent guard",
        NoteKind::ForcedBarrier => "barrier released before every thread arrived",
        NoteKind::Unmodelled => "not modelled",
        NoteKind::MbarrierHang => "mbarrier phase never completes",
        NoteKind::NoTensorMap => "tensor map not given",
        #[allow(unreachable_patterns)]
        _ => "not followed exactly",
    }
}

/// Where the PTX comes from: text, or a path `resolve::locate` reads (a
/// `.ptx`, a `.cu`, a Triton cache entry or root).
pub(crate) enum Source {
    Text(String, Option<TritonMeta>),
    Path(PathBuf),
}

/// `ptx=`: PTX text (a `str` of several lines), or a path (a one-line
/// `str`, or an `os.PathLike`).
fn source(value: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_cow()?;
        return Ok(if text.contains('\n') {
            Source::Text(text.into_owned(), None)
        } else {
            Source::Path(PathBuf::from(&*text))
        });
    }
    if value.hasattr("__fspath__")? {
        return Ok(Source::Path(value.extract()?));
    }
    Err(PyTypeError::new_err(format!(
        "ptx: expected PTX text or a path, got {}",
        describe(value)
    )))
}

/// A launch as Python gives it, before the kernel is known.
struct Request {
    source: Source,
    grid: [u32; 3],
    block: Option<[u32; 3]>,
    args: Vec<Arg>,
    kernel: Option<String>,
    dynamic_shared: Option<u32>,
    arch: Option<ComputeCapability>,
    sample: Option<u64>,
    /// Nsight Compute's CSV exports to compare with (`ncu=`), and the launch
    /// among them (`ncu_id=`).
    ncu: Vec<PathBuf>,
    ncu_id: Option<u64>,
    /// Tensor maps by parameter (`tensor_maps=` and the `TensorDescriptor`s
    /// among `args`).
    tensor_maps: Vec<(ArgKey, ptx::TensorMap)>,
    /// Blocks per cluster (`cluster=`; by default the kernel's
    /// `.reqnctapercluster`).
    cluster: Option<[u32; 3]>,
}

/// Runs `request` as `smem kernel` does: the same input resolution, kernel
/// names, arguments and default capability (`kernel::ptx::resolve`).
fn run(py: Python<'_>, request: Request) -> PyResult<PyKernelRun> {
    let mut signals = Signals::new();
    let between_blocks = Arc::new(SignalsBetweenBlocks::default());
    let outcome = py.detach(|| {
        let input = match request.source {
            Source::Path(path) => resolve::locate(&path, request.kernel.as_deref(), request.arch)?,
            Source::Text(text, triton) => resolve::Input::from_text(text, triton),
        };
        let meta = input.triton.as_ref();
        let module = ptx::parse(&input.text)?;
        let query = input.kernel_query(request.kernel.as_deref());
        let (kernel, signature) = resolve::kernel(&module, query, meta)?;
        let block = match (
            request.block,
            kernel.reqntid(),
            meta.and_then(|m| m.num_warps),
        ) {
            (Some(block), _, _) => block,
            (None, Some(required), _) => required,
            (None, None, Some(warps)) => [warps.saturating_mul(32), 1, 1],
            (None, None, None) => {
                return Err(Error::KernelInput {
                    path: input.path.display().to_string(),
                    reason: "block is needed (the kernel has no .reqntid, no Triton metadata \
                             gives num_warps)"
                        .to_owned(),
                });
            }
        };
        let dynamic = request
            .dynamic_shared
            .or(meta.and_then(|m| m.shared))
            .unwrap_or(0);
        let mut launch = KernelLaunch::new(request.grid, block)?.with_dynamic_shared(dynamic);
        let (maps, derived) = resolve::tensor_map_args(
            &kernel,
            signature.as_ref(),
            &request.tensor_maps,
            &request.args,
        )?;
        let given: Vec<Arg> = request.args.iter().cloned().chain(derived).collect();
        for arg in resolve::prepare_args(&kernel, signature.as_ref(), &given)? {
            launch = launch.with_arg(arg);
        }
        for (index, map) in maps {
            launch = launch.with_tensor_map(ArgKey::Index(index), map);
        }
        if let Some(cluster) = request.cluster.or(kernel.reqnctapercluster()) {
            launch = launch.with_cluster(cluster)?;
        }
        // As `smem kernel`: the exports first, the GPU they were measured on
        // being the one to predict for when no arch is given.
        let exports = if request.ncu.is_empty() {
            None
        } else {
            Some(profile::Exports::read(&request.ncu)?)
        };
        let measured = match &exports {
            Some(e) => e
                .launch(kernel.name(), request.grid, block, request.ncu_id)?
                .and_then(|l| l.capability),
            None => None,
        };
        let arch = match request.arch {
            Some(given) if Profiler::of(given) == Profiler::Nvprof => Some(given),
            given => profile::capability(given, measured, &module.target)?,
        };
        let cc = resolve::capability(&module, meta, arch);
        // Blocks on every core (the consumer still runs here, in block
        // order: the answer is the same), and Ctrl-C checked between blocks
        // too, where a block's events come from another thread or from the
        // recording of one that ran alike.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(64));
        let between = Arc::clone(&between_blocks);
        let mut options = RunOptions::new()
            .with_capability(cc)
            .with_threads(threads)
            .with_progress(move |_, _| between.check());
        if let Some(blocks) = request.sample {
            options = options.with_sample(blocks);
        }
        let mut tally = Tally::new().with_capability(cc);
        let mut races = Racecheck::new().with_capability(cc);
        let run = kernel.run(
            &launch,
            &options,
            &mut (&mut signals, (&mut tally, &mut races)),
        );
        let run = run?;
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
        let comparison = if let Some(exports) = exports.as_ref().filter(|_| volta) {
            exports
                .compare(&tally, kernel.name(), request.grid, block, request.ncu_id)?
                .to_json()
        } else if exports.is_none() {
            serde_json::Value::Null
        } else {
            return Err(Error::NcuCsv {
                line: 0,
                reason: format!(
                    "not compared: Nsight Compute's counters exist from compute capability 7.0 \
                     on, and this launch is predicted for {}",
                    cc.sm_name()
                ),
            });
        };
        Ok::<_, Error>((
            kernel.name().to_owned(),
            tally,
            races,
            run,
            opaque,
            cc,
            (counters, comparison),
        ))
    });
    let (name, tally, races, run, opaque, cc, ncu_json) = match outcome {
        Ok(outcome) => outcome,
        Err(Error::Interrupted) => {
            let raised = signals.raised.take().or_else(|| between_blocks.take());
            return Err(raised
                .unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")));
        }
        Err(e) => return Err(value_error(e)),
    };
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
    let by_line: Vec<serde_json::Value> = tally
        .by_line()
        .into_iter()
        .map(|l| {
            let mut line = serde_json::json!({
                "source_line": l.source_line,
                "instructions": l.instructions,
            });
            if let (Some(line), Ok(serde_json::Value::Object(totals))) =
                (line.as_object_mut(), serde_json::to_value(l.totals))
            {
                line.extend(totals);
            }
            line
        })
        .collect();
    let loads = py.import("json")?.getattr("loads")?;
    Ok(PyKernelRun {
        races: loads.call1((races.0.to_string(),))?.unbind(),
        hazards_not_listed: races.2,
        barrier_errors: loads.call1((races.1.to_string(),))?.unbind(),
        by_line: loads
            .call1((serde_json::Value::from(by_line).to_string(),))?
            .unbind(),
        arch: cc.sm_name().to_owned(),
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
        needs_opt_in: run.needs_opt_in,
        estimated_totals: {
            let t = tally.totals();
            let estimate = run.sampled().then(|| {
                serde_json::json!({
                    "scale": run.blocks_total as f64 / run.blocks_run as f64,
                    "requests": run.estimate(t.requests),
                    "wavefronts": run.estimate(t.wavefronts),
                    "ideal_wavefronts": run.estimate(t.ideal_wavefronts),
                    "bank_conflicts": run.estimate(t.bank_conflicts),
                })
            });
            loads
                .call1((serde_json::Value::from(estimate).to_string(),))?
                .unbind()
        },
        warp_instructions: run.warp_instructions,
        notes,
        opaque,
    })
}

/// Interprets the kernel `kernel` of `ptx` (PTX text, or a path: a `.ptx`, a
/// `.cu` compiled with nvcc, a Triton cache entry or cache root, as `smem
/// kernel` reads them) on a launch of `grid` blocks of `block` threads (by
/// default the kernel's `.reqntid`, or Triton's `num_warps` warps), with
/// `args` and `dynamic_shared` bytes (by default Triton's `shared`, else 0),
/// every block or a `sample` of them, predicting on `arch` (by default what
/// Triton compiled for, else the PTX's `.target`, else sm_90). `kernel` is
/// the mangled name, the C++ name or a unique prefix (the module's only
/// kernel when `None`); `args` a dict by parameter index, PTX name or Triton
/// Python name, or a sequence by position, each value read as the source's
/// type gives (`-1` for an `int`, `1.0` for a `half`; a struct passed by value
/// as its `bytes` in memory order, or as one little-endian int). With `ncu` (the path
/// of Nsight Compute's CSV export of the launch, raw or details page and/or
/// Source page, or a sequence of them), `KernelRun.ncu` compares each
/// counter with its measurement (`smem kernel --ncu`); `ncu_id` picks the
/// launch where the export holds several. `tensor_maps` gives the tensor
/// maps of a TMA kernel by parameter (`smem kernel --tensor-map`'s text, a
/// dict of its fields, or a Triton `TensorDescriptor`; a `TensorDescriptor`
/// among `args` is taken as its parameter's map), `cluster` its blocks per
/// cluster (by default the kernel's `.reqnctapercluster`). The GIL is
/// released while it runs; Ctrl-C stops it.
#[pyfunction]
#[pyo3(signature = (ptx, grid, block=None, args=None, *, kernel=None, dynamic_shared=None, arch=None, sample=None, ncu=None, ncu_id=None, tensor_maps=None, cluster=None))]
#[allow(clippy::too_many_arguments)]
pub fn kernel(
    py: Python<'_>,
    #[pyo3(from_py_with = source)] ptx: Source,
    #[pyo3(from_py_with = grid)] grid: [u32; 3],
    #[pyo3(from_py_with = block)] block: Option<[u32; 3]>,
    args: Option<&Bound<'_, PyAny>>,
    kernel: Option<&str>,
    #[pyo3(from_py_with = dynamic_shared)] dynamic_shared: Option<u32>,
    arch: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::sample)] sample: Option<u64>,
    ncu: Option<&Bound<'_, PyAny>>,
    ncu_id: Option<u64>,
    tensor_maps: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = cluster)] cluster: Option<[u32; 3]>,
) -> PyResult<PyKernelRun> {
    let (arch, args, maps) = inputs(arch, args, tensor_maps)?;
    run(
        py,
        Request {
            source: ptx,
            grid,
            block,
            args,
            kernel: kernel.map(str::to_owned),
            dynamic_shared,
            arch,
            sample,
            ncu: ncu_paths(ncu)?,
            ncu_id,
            tensor_maps: maps,
            cluster,
        },
    )
}

/// `arch=`, `args=` and `tensor_maps=` as `kernel` and `triton_kernel`
/// read them: the arch, the scalar arguments, and the tensor maps (those of
/// `TensorDescriptor` arguments, then those given).
fn inputs(
    arch: Option<&Bound<'_, PyAny>>,
    args: Option<&Bound<'_, PyAny>>,
    tensor_maps: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Option<ComputeCapability>, Vec<Arg>, Maps)> {
    let arch = arch
        .filter(|a| !a.is_none())
        .map(args::capability)
        .transpose()?;
    let (args, mut maps) = launch_args(args)?;
    maps.extend(self::tensor_maps(tensor_maps)?);
    Ok((arch, args, maps))
}

/// `cluster=`: blocks per cluster, an int or a tuple of up to three.
fn cluster(value: &Bound<'_, PyAny>) -> PyResult<Option<[u32; 3]>> {
    if value.is_none() {
        return Ok(None);
    }
    grid(value).map(Some)
}

/// A compiled Triton kernel (`triton.compile(...)`, what launching a
/// `@triton.jit` function returns, or a path to its cache entry or the cache
/// root, as `kernel` takes them) run as `kernel` runs PTX: its PTX
/// (`asm["ptx"]`), `num_warps` warps a block, its shared bytes and the arch
/// it was compiled for from its metadata; `args` by the Python parameter
/// names (from its IR), the PTX names or position (the call's arguments that
/// are not `constexpr`, in order; tensors give their `data_ptr()`, `None` a
/// fake pointer, a `TensorDescriptor` its tensor map); a `constexpr` given is
/// an error naming it. `ncu`, `ncu_id`, `tensor_maps` and `cluster` as
/// `kernel` takes them.
#[pyfunction]
#[pyo3(signature = (compiled, grid, args=None, *, kernel=None, arch=None, sample=None, ncu=None, ncu_id=None, tensor_maps=None, cluster=None))]
#[allow(clippy::too_many_arguments)]
pub fn triton_kernel(
    py: Python<'_>,
    compiled: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = grid)] grid: [u32; 3],
    args: Option<&Bound<'_, PyAny>>,
    kernel: Option<&str>,
    arch: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::sample)] sample: Option<u64>,
    ncu: Option<&Bound<'_, PyAny>>,
    ncu_id: Option<u64>,
    tensor_maps: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = cluster)] cluster: Option<[u32; 3]>,
) -> PyResult<PyKernelRun> {
    let (arch, args, maps) = inputs(arch, args, tensor_maps)?;
    let source = if compiled.is_instance_of::<PyString>() || compiled.hasattr("__fspath__")? {
        Source::Path(compiled.extract::<PathBuf>()?)
    } else {
        live(compiled)?
    };
    run(
        py,
        Request {
            source,
            grid,
            block: None,
            args,
            kernel: kernel.map(str::to_owned),
            dynamic_shared: None,
            arch,
            sample,
            ncu: ncu_paths(ncu)?,
            ncu_id,
            tensor_maps: maps,
            cluster,
        },
    )
}

/// A compiled kernel object's PTX and metadata: `asm["ptx"]`, `metadata`
/// (attributes or keys `name`, `num_warps`, `shared`, `target.arch`), the
/// Python names from `asm["ttir"]` (or `"ttgir"`) and the `constexpr`s from
/// the `def`'s names (`src.fn.arg_names`) the IR does not have.
fn live(compiled: &Bound<'_, PyAny>) -> PyResult<Source> {
    let missing = |what: &str| {
        PyTypeError::new_err(format!(
            "compiled: expected a compiled Triton kernel (with {what}), got {}",
            describe(compiled)
        ))
    };
    let asm = compiled.getattr("asm").map_err(|_| missing("asm"))?;
    let text: String = asm
        .get_item("ptx")
        .and_then(|p| p.extract())
        .map_err(|_| missing("asm[\"ptx\"]"))?;
    let metadata = compiled
        .getattr("metadata")
        .map_err(|_| missing("metadata"))?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        metadata
            .getattr(key)
            .or_else(|_| metadata.get_item(key))
            .map_err(|_| missing(&format!("metadata.{key}")))
    };
    let name: Option<String> = get("name").ok().and_then(|n| n.extract().ok());
    let arch = match get("target")
        .ok()
        .and_then(|t| t.getattr("arch").or_else(|_| t.get_item("arch")).ok())
    {
        Some(a) => {
            let cc = args::u32_arg(&a, "metadata.target.arch")?;
            Some(
                format!("sm_{cc}")
                    .parse::<ComputeCapability>()
                    .map_err(value_error)?,
            )
        }
        None => None,
    };
    let mut signature = name.as_deref().and_then(|name| {
        ["ttir", "ttgir"].iter().find_map(|stage| {
            let ir: String = asm.get_item(*stage).ok()?.extract().ok()?;
            resolve::Signature::of_triton_ir(&ir, name)
        })
    });
    if let Some(sig) = signature.as_mut() {
        let names: Option<Vec<String>> = compiled
            .getattr("src")
            .and_then(|s| s.getattr("fn"))
            .and_then(|f| f.getattr("arg_names"))
            .and_then(|n| n.extract())
            .ok();
        if let Some(names) = names {
            sig.constexprs = names
                .into_iter()
                .filter(|n| !sig.params.iter().any(|p| p.name.as_deref() == Some(n)))
                .collect();
        }
    }
    let meta = TritonMeta {
        name,
        num_warps: Some(args::u32_arg(&get("num_warps")?, "metadata.num_warps")?),
        shared: Some(args::u32_arg(&get("shared")?, "metadata.shared")?),
        arch,
        signature,
    };
    Ok(Source::Text(text, Some(meta)))
}
