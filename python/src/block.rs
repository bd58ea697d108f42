//! A thread block's races and barrier errors (the model of `smem
//! racecheck`), and a launch's occupancy, from Python.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyAny;

use smem_model::{
    Block, BlockReport, Carveout, ComputeCapability, Hazard, HazardAccess, LaneSet, Launch, SyncOp,
};

use crate::args::{self, value_error};

/// A thread block of `threads` threads (warps of 32) on `arch`, fed its warps'
/// shared accesses and barriers in program order per warp; `finish()` says
/// which pairs of accesses race and which barriers are misused. At most
/// `max_hazards` races are listed (default 4096); past it they are counted
/// (`BlockReport.hazards_not_listed`), so memory stays bounded.
#[pyclass(module = "smem_model", name = "Block")]
pub struct PyBlock {
    block: Option<Block>,
}

impl PyBlock {
    fn block(&mut self) -> PyResult<&mut Block> {
        self.block
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("the block has finished: make a new Block"))
    }
}

#[pymethods]
impl PyBlock {
    // `max_hazards` is the library's `Block::MAX_HAZARDS` by default,
    // written out so that Python's signature shows it.
    #[new]
    #[pyo3(signature = (arch, threads, *, max_hazards=4096))]
    fn new(
        #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
        #[pyo3(from_py_with = args::threads)] threads: u32,
        max_hazards: usize,
    ) -> PyResult<Self> {
        Ok(PyBlock {
            block: Some(
                Block::new(arch, threads)
                    .map_err(value_error)?
                    .with_max_hazards(max_hazards),
            ),
        })
    }

    /// Warp `warp` executes a shared-memory instruction (as `wavefronts` takes
    /// it) at `site`, a number naming the place in the program.
    #[pyo3(signature = (warp, op, width, addresses, *, site=0, base=None))]
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        op: &str,
        #[pyo3(from_py_with = args::width)] width: u32,
        addresses: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = args::site)] site: u64,
        #[pyo3(from_py_with = args::base)] base: Option<u64>,
    ) -> PyResult<()> {
        let request = crate::request(op, width, addresses, base)?;
        self.block()?
            .access(warp, site, &request)
            .map_err(value_error)
    }

    /// Every warp executes `__syncthreads()` at `site`, all lanes together.
    #[pyo3(signature = (*, site=0))]
    fn syncthreads(&mut self, #[pyo3(from_py_with = args::site)] site: u64) -> PyResult<()> {
        self.block()?.syncthreads(site).map_err(value_error)
    }

    /// The lanes `lanes` (a 32-bit mask) of warp `warp` reach `__syncthreads()`
    /// at `site`: the barrier in divergent code.
    #[pyo3(signature = (warp, *, lanes=0xFFFF_FFFF, site=0))]
    fn barrier(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::lanes_mask)] lanes: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        self.sync(warp, site, lanes, SyncOp::Threads)
    }

    /// Warp `warp` executes `bar.sync id, threads` at `site`.
    #[pyo3(signature = (warp, id, threads, *, lanes=0xFFFF_FFFF, site=0))]
    fn named_barrier(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::barrier_id)] id: u32,
        #[pyo3(from_py_with = args::threads)] threads: u32,
        #[pyo3(from_py_with = args::lanes_mask)] lanes: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        self.sync(warp, site, lanes, SyncOp::Named { id, threads })
    }

    /// Warp `warp` executes `bar.arrive id, threads` at `site`: its arrival
    /// counts toward the barrier but it does not wait (the producer side).
    #[pyo3(signature = (warp, id, threads, *, lanes=0xFFFF_FFFF, site=0))]
    fn arrive(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::barrier_id)] id: u32,
        #[pyo3(from_py_with = args::threads)] threads: u32,
        #[pyo3(from_py_with = args::lanes_mask)] lanes: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        self.sync(warp, site, lanes, SyncOp::Arrive { id, threads })
    }

    /// Warp `warp` executes `cp.async.commit_group` at `site`.
    #[pyo3(signature = (warp, *, site=0))]
    fn cp_async_commit(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        self.sync(warp, site, u32::MAX, SyncOp::CpAsyncCommit)
    }

    /// The lanes `lanes` of warp `warp` execute `cp.async.wait_group pending`
    /// at `site` (`pending` 0: `cp.async.wait_all`).
    #[pyo3(signature = (warp, pending=0, *, lanes=0xFFFF_FFFF, site=0))]
    fn cp_async_wait(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::pending)] pending: u32,
        #[pyo3(from_py_with = args::lanes_mask)] lanes: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        self.sync(warp, site, lanes, SyncOp::CpAsyncWait { pending })
    }

    /// Warp `warp` executes `__syncwarp(mask)` at `site`.
    #[pyo3(signature = (warp, mask=0xFFFF_FFFF, *, site=0))]
    fn syncwarp(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::mask)] mask: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        let mask = LaneSet::from_bits(mask);
        self.sync(warp, site, mask.bits(), SyncOp::Warp(mask))
    }

    /// Warp `warp` executes `__threadfence_block()` at `site` (orders, never
    /// synchronises).
    #[pyo3(signature = (warp, *, site=0))]
    fn fence(
        &mut self,
        #[pyo3(from_py_with = args::warp)] warp: u32,
        #[pyo3(from_py_with = args::site)] site: u64,
    ) -> PyResult<()> {
        self.sync(warp, site, u32::MAX, SyncOp::Fence)
    }

    /// The races and barrier errors found; the block takes no more events.
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyBlockReport> {
        let block = self
            .block
            .take()
            .ok_or_else(|| PyValueError::new_err("the block has finished: make a new Block"))?;
        report(py, &block.finish())
    }

    /// The block's warps.
    #[getter]
    fn warps(&self) -> PyResult<u32> {
        self.block
            .as_ref()
            .map(Block::warps)
            .ok_or_else(|| PyValueError::new_err("the block has finished: make a new Block"))
    }
}

impl PyBlock {
    fn sync(&mut self, warp: u32, site: u64, lanes: u32, sync: SyncOp) -> PyResult<()> {
        self.block()?
            .sync(warp, site, LaneSet::from_bits(lanes), sync)
            .map_err(value_error)
    }
}

const _: () = assert!(Block::MAX_HAZARDS == 4096);

/// One side of a race: where, which thread, what kind of access.
#[pyclass(frozen, get_all, module = "smem_model", name = "HazardAccess")]
#[derive(Clone)]
pub struct PyHazardAccess {
    /// The site (as given to `Block.access`).
    site: u64,
    /// The warp.
    warp: u32,
    /// The lane in its warp.
    lane: u32,
    /// The thread in the block: `32 * warp + lane`.
    thread: u32,
    /// `"read"`, `"write"` or `"atomic"`, as the report prints it.
    access: String,
}

fn access(a: &HazardAccess) -> PyHazardAccess {
    PyHazardAccess {
        site: a.site(),
        warp: a.warp(),
        lane: a.lane().get(),
        thread: a.thread(),
        access: a.access().to_string(),
    }
}

/// Two accesses of different threads to the same bytes with no barrier
/// between them, at least one a write.
#[pyclass(frozen, get_all, module = "smem_model", name = "Hazard")]
pub struct PyHazard {
    /// The kind of race, as the report prints it.
    kind: String,
    /// `"error"` or `"warning"`, as the report prints it.
    severity: String,
    /// The earlier access.
    first: PyHazardAccess,
    /// The later access.
    second: PyHazardAccess,
    /// The first byte both touch.
    address: u32,
    /// The bytes both touch.
    bytes: u32,
    /// The line the report prints for it.
    text: String,
}

fn hazard(h: &Hazard) -> PyHazard {
    PyHazard {
        kind: h.kind().to_string(),
        severity: h.severity().to_string(),
        first: access(h.first()),
        second: access(h.second()),
        address: h.address(),
        bytes: h.bytes(),
        text: h.to_string(),
    }
}

/// What `Block.finish()` found.
#[pyclass(frozen, get_all, module = "smem_model", name = "BlockReport")]
pub struct PyBlockReport {
    /// The races listed: at most the block's `max_hazards`.
    hazards: Vec<Py<PyHazard>>,
    /// The races found past `max_hazards`, one a pair of sites: counted,
    /// not listed.
    hazards_not_listed: u64,
    /// The barrier errors, one line each, in the order found.
    barrier_errors: Vec<String>,
    /// Whether nothing was found.
    is_clean: bool,
    /// The report as `smem racecheck` prints it.
    text: String,
}

fn report(py: Python<'_>, r: &BlockReport) -> PyResult<PyBlockReport> {
    Ok(PyBlockReport {
        hazards: r
            .hazards()
            .iter()
            .map(|h| Py::new(py, hazard(h)))
            .collect::<PyResult<_>>()?,
        hazards_not_listed: r.hazards_not_listed(),
        barrier_errors: r.barrier_errors().iter().map(ToString::to_string).collect(),
        is_clean: r.is_clean(),
        text: r.to_string(),
    })
}

/// Blocks per SM of a launch, as NVIDIA's occupancy calculator counts them.
#[pyclass(frozen, get_all, module = "smem_model", name = "Occupancy")]
pub struct PyOccupancy {
    /// Blocks one SM runs at once.
    blocks_per_sm: u32,
    /// Shared bytes allocated a block: its static and dynamic bytes, the
    /// reserved 1 KB (8.0 on), rounded up to the allocation unit.
    allocated_per_block: u32,
    /// The carveout (shared memory per SM) the driver picks, in bytes.
    carveout: u32,
    /// Whether the driver picked another carveout than the one preferred.
    carveout_overridden: bool,
    /// What bounds the blocks, as `smem occupancy` prints it.
    limit: String,
    /// Every limit that binds (several may allow the same blocks).
    limits: Vec<String>,
    /// Warps a block (with `threads`), else `None`.
    warps_per_block: Option<u32>,
    /// Warps an SM runs at once (with `threads`), else `None`.
    warps_per_sm: Option<u32>,
    /// Occupancy in percent of the SM's most warps (with `threads`), else `None`.
    percent: Option<f64>,
}

/// The occupancy of a launch with `static_bytes` of `__shared__` arrays and
/// `dynamic_bytes` given at launch; with `threads` (and `registers` a thread,
/// 0 for none known) also the SM's warps and registers; `opt_in` the
/// `cudaFuncAttributeMaxDynamicSharedMemorySize` set, `carveout` the
/// `cudaFuncAttributePreferredSharedMemoryCarveout` percentage.
#[pyfunction]
#[pyo3(signature = (arch, static_bytes=0, dynamic_bytes=0, *, threads=None, registers=0, opt_in=None, carveout=None))]
#[allow(clippy::too_many_arguments)]
pub fn occupancy(
    #[pyo3(from_py_with = args::arch)] arch: ComputeCapability,
    #[pyo3(from_py_with = args::static_bytes)] static_bytes: u32,
    #[pyo3(from_py_with = args::dynamic_bytes)] dynamic_bytes: u32,
    #[pyo3(from_py_with = args::block_threads)] threads: Option<u32>,
    #[pyo3(from_py_with = args::registers)] registers: u32,
    #[pyo3(from_py_with = args::opt_in)] opt_in: Option<u32>,
    #[pyo3(from_py_with = args::carveout)] carveout: Option<u32>,
) -> PyResult<PyOccupancy> {
    let mut launch = Launch::new(arch, static_bytes, dynamic_bytes);
    if let Some(opt_in) = opt_in {
        launch = launch.with_opt_in(opt_in);
    }
    if let Some(threads) = threads {
        launch = launch.with_block(threads, registers);
    }
    let carveout = carveout.map_or(Carveout::Default, Carveout::Percent);
    let o = launch.occupancy_with(carveout).map_err(value_error)?;
    Ok(PyOccupancy {
        blocks_per_sm: o.blocks_per_sm(),
        allocated_per_block: o.allocated_per_block(),
        carveout: o.carveout(),
        carveout_overridden: o.carveout_overridden(),
        limit: o.limit().to_string(),
        limits: o.limits().map(|l| l.to_string()).collect(),
        warps_per_block: o.warps_per_block(),
        warps_per_sm: o.warps_per_sm(),
        percent: o.percent(),
    })
}
