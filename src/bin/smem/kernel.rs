//! `smem kernel`: a kernel's shared-memory behaviour from its PTX, no GPU
//! needed.
//!
//! The work is the library's: `smem_model::kernel::ptx` reads the PTX and
//! interprets the launch's blocks ([`Kernel::run`]), `kernel::tally::Tally`
//! predicts and sums every request (as `smem trace` does) and
//! `smem_model::Racecheck` checks every block for races and barrier errors
//! (as `smem racecheck` does). This module reads the arguments, finds the
//! PTX (a file, a Triton cache directory, or a Triton `kernel.json` beside
//! its PTX) and prints.
//!
//! Exit status: 0, or 1 when a race or a barrier error is found (as `smem
//! racecheck`), or 2 when the input cannot be read or run (a PTX syntax
//! error, an argument missing, a loop past the step budget).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use smem_model::kernel::ncu;
use smem_model::kernel::ncu::profile::{self, Comparison, Exports};
use smem_model::kernel::ptx::{
    self, resolve, site_text, source_text as source_of, Kernel, KernelLaunch, NoteKind, RunOptions,
    RunSummary,
};
use smem_model::kernel::tally::{nvprof_counters, Entry, Profiler, Tally, Totals};
use smem_model::{ComputeCapability, Error, KernelRaces, Racecheck};

use crate::output::{emit, fail, plural, styled, HEADING, NOTE, WARN};
use crate::table::{Align, Table};

/// Arguments of `smem kernel`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Input: a .ptx file (nvcc -ptx, Triton's compiled.asm[\"ptx\"]); a .cu file, compiled with
`nvcc -ptx -lineinfo -arch=<--arch, default sm_90>` when nvcc is on PATH (pip's nvidia-cuda-nvcc
needs no GPU); a Triton cache entry (its hash directory, <name>.json, __grp__<name>.json or .ptx);
or a Triton cache root (~/.triton/cache: --kernel picks the entry by kernel name or hash prefix).
Triton's metadata gives the block (32 x num_warps threads), the dynamic shared bytes, the kernel
and the arch unless given.

--kernel takes the mangled name, the C++ name (transpose, transpose(float*, float const*)) or a
prefix only one kernel has; a name that matches none or several lists them.

Arguments are the kernel's parameters by 0-based index, PTX name, or a Triton kernel's Python
name (from the cache's IR), each given once, with the type the source gives: decimal (negative
for a signed C++ or Triton int), 0x hex (the bits), a float for float, double, half and
__nv_bfloat16; a struct passed by value as one little-endian 0x hex number of up to its size
(0x<c><b><a>, 48 digits, for struct {long a, b, c;}). A pointer left unset gets a distinct
fake global address; the scalars left unset are an error naming them all, a Triton constexpr
given is an error naming it. Addresses that depend on global memory are never guessed: their
instructions are listed as data-dependent.

A launch the driver would refuse is an error (exit 2): a block other than the kernel's .reqntid
(the default block when --block is not given), more threads than its .maxntid, static plus
dynamic shared memory over the architecture's limit with the opt-in. Over the limit without it
(sm_90: 49152 bytes), the launch runs and the report says it needs the opt-in.

Examples:
  smem kernel matmul.ptx --grid 20,10 --block 32,32 --arg 3=320 --arg 4=640
  smem kernel transpose.cu --kernel transpose --grid 8,8 --block 32,8 --by-line
  smem kernel ~/.triton/cache --kernel fx_softmax --grid 128 --arg n_cols=781 --json
  smem kernel transpose.ptx --grid 8,8 --block 32,32 --ncu raw.csv --ncu source.csv

Terms (compute capability 7.0 and later, where Nsight Compute runs; before, nvprof's counters):
  request         a warp instruction with at least one active lane (one predicated off in every
                  lane is not counted): smsp__sass_inst_executed_op_{shared_ld,shared_st,
                  shared_atom,ldsm,shared_stsm,ldgsts}.sum
  wavefront       one pass of a request through the 32 banks:
                  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st,atom,ldsm,stsm,
                  ldgsts}.sum
  ideal           the wavefronts the same bytes would need without a bank conflict (the Source
                  page's \"L1 Wavefronts Shared Ideal\")
  bank conflicts  wavefronts - ideal: the Source page's \"L1 Wavefronts Shared Excessive\"; an
                  instruction-level counter exists for LDSM, STSM and LDGSTS only
                  (smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{ldsm,stsm,ldgsts})
  = N             the counter's value on this launch: instruction-level counters (smsp__sass_*)
                  count what each executed instruction needed, and equalled the model to the unit
                  on every launch measured (H200, tests/data/ncu)
  at least N      a lower bound. The unit-level counters l1tex__data_pipe_lsu_wavefronts_mem_shared_
                  op_{ld,st,atom} and l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st,atom}
                  (Memory Workload Analysis) add arbitration, and op_ld holds LDSM wavefronts, op_st
                  STSM ones. LDGSTS wavefronts of cp.async.ca whose global addresses are unknown:
                  the shared side alone (the global side can add).
  about N         an estimate no counter is known to equal (about N, L to H where the counter
                  is known to lie between L and H): nvcc's compare-and-swap loops
                  (float atomicAdd), whose rounds depend on how warps interleave; cp.async.cg's
                  LDGSTS wavefronts where the measured rule is not known to hold: a guarded or
                  partial warp, a src-size register that reads (Nsight Compute's instrumentation
                  reads predicate P0 as false: nothing under @P0, every lane under @!P0, the
                  shared side alone for a src-size predicate in P0; the PTX does not say which
                  register ptxas picks), or a global line read by two quarter-warps
  gmma            wgmma.mma_async reading shared memory through matrix descriptors:
                  smsp__sass_inst_executed_op_shared_gmma.sum (one a warp of the warpgroup) and
                  sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum (one a core matrix
                  of 8 rows x 16 bytes read)
  arbitration     wavefronts that other traffic through the same banks costs, varying run to run
                  (0 on small grids, +1% to +36% on large ones): unit-level less instruction-level
                  wavefronts. It shows as bank conflicts the layout does not have.
  layout          the conflicts the addresses cause: predicted wavefronts - ideal

Comparing with a profile (--ncu FILE, repeatable):
  ncu --csv --page raw --metrics LIST ./app > raw.csv   (or --page details), LIST being
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_shared_stsm.sum,smsp__sass_inst_executed_op_ldgsts.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum

  ncu --section SourceCounters -o rep ./app
  ncu -i rep.ncu-rep --csv --page source --print-source cuda,sass > source.csv   (or sass)
Each counter is printed predicted and measured, each unit's bank conflicts split into layout
and arbitration, and with the Source page the figures per kind of instruction and per CUDA
line (the PTX's .loc lines: nvcc -lineinfo). The launch is found by kernel name, grid and block;
where the export holds several, choose with --ncu-id.")]
pub struct Args {
    /// The .ptx or .cu file, Triton cache entry or cache root.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The kernel: mangled, its C++ name, or a unique prefix; needed when
    /// the module (or the Triton cache) has several.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,

    /// Blocks in the grid: X, X,Y or X,Y,Z.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = ptx::parse_dims)]
    grid: [u32; 3],

    /// Threads per block: X, X,Y or X,Y,Z (default: the kernel's .reqntid, else a Triton
    /// kernel's 32 x num_warps).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = ptx::parse_dims)]
    block: Option<[u32; 3]>,

    /// Dynamic shared memory in bytes (a Triton kernel's default: its metadata's `shared`).
    #[arg(long, value_name = "BYTES")]
    dynamic_shared: Option<u32>,

    /// A kernel argument: NAME=VALUE or INDEX=VALUE (repeat for each).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<ptx::Arg>,

    /// A tensor map (TMA) for a CUtensorMap parameter: PARAM=FIELDS, the parameter by index,
    /// PTX name or Triton name, the fields `dims:AxB,box:AxB,elem:N[,swizzle:0|32|64|128]`
    /// `[,strides:..][,estride:..][,interleave:0|16|32][,fill:zero|nan]`, outermost first
    /// (repeat for each; a tensor map not given leaves its copies not modelled).
    #[arg(long = "tensor-map", value_name = "PARAM=FIELDS", value_parser = parse_tensor_map)]
    tensor_maps: Vec<(ptx::ArgKey, ptx::TensorMap)>,

    /// Blocks per cluster (thread block clusters, sm_90): X, X,Y or X,Y,Z (default: the
    /// kernel's .reqnctapercluster, else none).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = ptx::parse_dims)]
    cluster: Option<[u32; 3]>,

    /// Predict on this compute capability, and compile a .cu for it (default: the PTX's
    /// `.target` or what Triton compiled for, else sm_90).
    #[arg(long, value_name = "CC", value_parser = crate::arch::parse)]
    arch: Option<ComputeCapability>,

    /// Run only this many blocks (at least 1), spread over the grid, the first and the last
    /// included; the totals are the sample's, and are also estimated for the whole grid.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    sample: Option<u64>,

    /// Stop a block after this many warp instructions (a loop that does not end).
    #[arg(long, value_name = "N", default_value_t = ptx::DEFAULT_STEP_BUDGET)]
    step_budget: u64,

    /// Stop the run once its blocks together would run more warp instructions than this
    /// (replayed blocks count as the block they repeat).
    #[arg(long, value_name = "N", default_value_t = ptx::DEFAULT_RUN_BUDGET)]
    budget: u64,

    /// Interpret every block, also those whose block index cannot change what they do to
    /// shared memory (by default each kind is interpreted once and replayed; the answer is
    /// the same).
    #[arg(long)]
    no_reuse: bool,

    /// Threads to interpret blocks on, 1 to 64 (default: one per core, at most 64). The
    /// output does not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,

    /// Never draw the progress bar (drawn on a terminal only, once a run has taken a
    /// second).
    #[arg(long)]
    no_progress: bool,

    /// How many instructions (or source lines) to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,

    /// List at most N hazards (pairs of racing instructions); the rest are counted, not kept.
    #[arg(long, value_name = "N", default_value_t = smem_model::Block::MAX_HAZARDS)]
    max: usize,

    /// Rank source lines (from the PTX's `.loc`; nvcc -lineinfo) rather than
    /// PTX instructions.
    #[arg(long)]
    by_line: bool,

    /// Print the result as JSON.
    #[arg(long)]
    json: bool,

    /// Compare with Nsight Compute's CSV export of this launch: `ncu --csv
    /// --page raw` or `--page details` (with the counters `smem help kernel`
    /// lists), and/or the Source page (`ncu -i REPORT --csv --page source
    /// --print-source sass` or `cuda,sass`); repeat for each file. Without
    /// --arch, the launch is predicted for the GPU the export was measured on
    /// (its compute capability column); counters it lacks are listed, not
    /// compared.
    #[arg(long, value_name = "FILE")]
    ncu: Vec<PathBuf>,

    /// The launch's ID in the --ncu export, where it holds several launches
    /// of the kernel with this grid and block.
    #[arg(long, value_name = "ID", requires = "ncu")]
    ncu_id: Option<u64>,
}

/// `PARAM=FIELDS` of `--tensor-map`.
fn parse_tensor_map(text: &str) -> Result<(ptx::ArgKey, ptx::TensorMap), Error> {
    let arg: ptx::Arg = text.parse()?;
    Ok((arg.key, arg.value.parse()?))
}

/// Runs `smem kernel`.
pub fn run(args: &Args) -> ExitCode {
    match analyse(args) {
        Ok(code) => code,
        Err(message) => {
            let _ = fail(message);
            ExitCode::from(2)
        }
    }
}

struct Outcome {
    kernel: Kernel,
    launch: KernelLaunch,
    ptx: PathBuf,
    capability: ComputeCapability,
    summary: RunSummary,
    tally: Tally,
    races: KernelRaces,
    /// `--ncu`'s comparison, and the files it read.
    comparison: Option<(Comparison, String)>,
}

fn analyse(args: &Args) -> Result<ExitCode, String> {
    let input = resolve::locate(&args.file, args.kernel.as_deref(), args.arch)
        .map_err(|e| e.to_string())?;
    let ptx_path = input.path.clone();
    let meta = input.triton.as_ref();
    let module = ptx::parse(&input.text).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let query = input.kernel_query(args.kernel.as_deref());
    let (kernel, signature) = resolve::kernel(&module, query, meta).map_err(|e| e.to_string())?;
    // `.reqntid` is the only block the driver accepts: the default.
    let block = match (args.block, kernel.reqntid(), meta.and_then(|m| m.num_warps)) {
        (Some(block), _, _) => block,
        (None, Some(required), _) => required,
        // Saturating: a num_warps past 2^27 is refused as a block past 1,024 threads.
        (None, None, Some(warps)) => [warps.saturating_mul(32), 1, 1],
        (None, None, None) => {
            return Err(
                "--block is needed (the kernel has no .reqntid, no Triton metadata gives \
                 num_warps)"
                    .to_owned(),
            );
        }
    };
    let mut launch = KernelLaunch::new(args.grid, block)
        .map_err(|e| e.to_string())?
        .with_dynamic_shared(
            args.dynamic_shared
                .or(meta.and_then(|m| m.shared))
                .unwrap_or(0),
        );
    let (maps, derived) =
        resolve::tensor_map_args(&kernel, signature.as_ref(), &args.tensor_maps, &args.args)
            .map_err(|e| e.to_string())?;
    let given: Vec<ptx::Arg> = args.args.iter().cloned().chain(derived).collect();
    for arg in
        resolve::prepare_args(&kernel, signature.as_ref(), &given).map_err(|e| e.to_string())?
    {
        launch = launch.with_arg(arg);
    }
    for (index, map) in maps {
        launch = launch.with_tensor_map(ptx::ArgKey::Index(index), map);
    }
    if let Some(cluster) = args.cluster.or(kernel.reqnctapercluster()) {
        launch = launch.with_cluster(cluster).map_err(|e| e.to_string())?;
    }
    // The exports are read first: the GPU they were measured on is the one
    // to predict for when --arch is not given.
    let exports = if args.ncu.is_empty() {
        None
    } else {
        Some(Exports::read(&args.ncu).map_err(|e| e.to_string())?)
    };
    let measured = match &exports {
        Some(e) => e
            .launch(kernel.name(), launch.grid(), launch.block(), args.ncu_id)
            .map_err(|e| e.to_string())?
            .and_then(|l| l.capability),
        None => None,
    };
    let arch = match args.arch {
        // Refused next, as a capability without Nsight Compute.
        Some(given) if Profiler::of(given) == Profiler::Nvprof => Some(given),
        given => profile::capability(given, measured, &module.target).map_err(|e| e.to_string())?,
    };
    let capability = resolve::capability(&module, meta, arch);
    if exports.is_some() && Profiler::of(capability) == Profiler::Nvprof {
        return Err(format!(
            "--ncu compares Nsight Compute's counters, which exist from compute capability 7.0 \
             on: this launch is predicted for {} (the PTX's .target unless --arch is given); give \
             --arch for the GPU profiled (the export's \"CC\" column: 9.0 is --arch sm_90)",
            capability.sm_name()
        ));
    }
    let threads = match args.threads {
        Some(0) => return Err("--threads must be at least 1".to_owned()),
        Some(n) if n > MAX_THREADS => {
            return Err(format!(
                "--threads {n} is more than the maximum of {MAX_THREADS}"
            ))
        }
        Some(n) => n,
        None => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS),
    };
    let mut options = RunOptions::new()
        .with_step_budget(args.step_budget)
        .with_run_budget(args.budget)
        .with_reuse(!args.no_reuse)
        .with_threads(threads)
        .with_capability(capability);
    if let Some(n) = args.sample {
        options = options.with_sample(n);
    }
    let bar = ProgressBar::hidden();
    if !args.no_progress {
        options = options.with_progress(show_progress(bar.clone()));
    }
    let mut tally = Tally::new().with_capability(capability).with_top(args.top);
    let mut races = Racecheck::new()
        .with_capability(capability)
        .with_max_hazards(args.max);
    let summary = kernel.run(
        &launch,
        &options,
        // The pair gives every call to the tally, then the race checker.
        &mut (&mut tally, &mut races),
    );
    bar.finish_and_clear();
    let summary = summary.map_err(|e| e.to_string())?;
    let races = races.into_kernels().into_iter().next().unwrap_or_default();
    let comparison = match &exports {
        Some(exports) => Some(crate::ncu::compare(
            exports,
            &args.ncu,
            args.ncu_id,
            &tally,
            kernel.name(),
            launch.grid(),
            launch.block(),
        )?),
        None => None,
    };
    let outcome = Outcome {
        kernel,
        launch,
        ptx: ptx_path,
        capability,
        summary,
        tally,
        races,
        comparison,
    };
    let text = if args.json {
        let mut s =
            serde_json::to_string_pretty(&json(args, &outcome)).map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else {
        text_report(args, &outcome)
    };
    if let Err(code) = emit(&text) {
        return Ok(code);
    }
    let dirty = !outcome.races.is_clean();
    Ok(if dirty {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The most threads `--threads` takes (as `smem trace`).
const MAX_THREADS: usize = 64;

/// How long a run goes before its progress bar is drawn: most launches end
/// sooner, and a bar that flashes for a moment is noise.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// The progress callback of a run ([`RunOptions::with_progress`]): draws
/// `bar` on standard error (a terminal only, as indicatif does) once the run
/// has taken [`PROGRESS_AFTER`], and moves it to the blocks given to the
/// consumer so far.
fn show_progress(bar: ProgressBar) -> impl Fn(u64, u64) -> bool + Send + Sync + 'static {
    let started = Instant::now();
    let shown = AtomicBool::new(false);
    move |done, blocks| {
        if !shown.load(Ordering::Relaxed) {
            if started.elapsed() < PROGRESS_AFTER {
                return true;
            }
            shown.store(true, Ordering::Relaxed);
            if let Ok(style) =
                ProgressStyle::with_template("{spinner} blocks {pos}/{len} {wide_bar} {eta} left")
            {
                bar.set_style(style);
            }
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        bar.set_length(blocks);
        bar.set_position(done);
        true
    }
}

/// How many instructions a note lists; the rest are counted.
const NOTE_SITES: usize = 10;

fn dims(d: [u32; 3]) -> String {
    format!("{}x{}x{}", d[0], d[1], d[2])
}

fn note_kind(kind: NoteKind) -> &'static str {
    match kind {
        NoteKind::DataDependentAddress => "data-dependent address",
        NoteKind::DataDependentBranch => "data-dependent branch",
        NoteKind::DataDependentGuard => "data-dependent guard",
        NoteKind::ForcedBarrier => "barrier never completed",
        NoteKind::MbarrierHang => "mbarrier phase never completes",
        NoteKind::NoTensorMap => "tensor map not given",
        _ => "not modelled",
    }
}

fn source_text(entry: &Entry) -> Option<String> {
    entry
        .source
        .as_ref()
        .map(|(file, line)| source_name(file.as_deref(), *line))
}

/// A source line as the tables print it: `file.cu:12` (the file's name
/// without its directories), or the line alone where the PTX names no file.
fn source_name(file: Option<&str>, line: u32) -> String {
    match file {
        Some(file) => format!(
            "{}:{line}",
            Path::new(file)
                .file_name()
                .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned())
        ),
        None => line.to_string(),
    }
}

/// A thread's index in a block of `block` threads, as CUDA's `threadIdx`
/// (x fastest) and compute-sanitizer's `Thread (x,y,z)` give it.
fn thread_index(thread: u32, block: [u32; 3]) -> [u32; 3] {
    let (x, y) = (block[0].max(1), block[1].max(1));
    [thread % x, thread / x % y, thread / (x * y)]
}

fn ids(d: [u32; 3]) -> String {
    format!("({},{},{})", d[0], d[1], d[2])
}

fn text_report(args: &Args, o: &Outcome) -> String {
    let mut out = String::new();
    let s = &o.summary;
    let _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!("kernel {} ({})", o.kernel.name(), o.ptx.display())
        )
    );
    let _ = writeln!(
        out,
        "launch: grid {}, block {} ({}), dynamic shared {} bytes, static shared {} bytes; \
         predicted for {}",
        dims(o.launch.grid()),
        dims(o.launch.block()),
        plural(u64::from(o.launch.threads_per_block()), "thread"),
        o.launch.dynamic_shared(),
        o.kernel.static_shared(),
        o.capability.sm_name()
    );
    let _ = writeln!(
        out,
        "blocks: {} of {}{}; {} interpreted",
        s.blocks_run,
        s.blocks_total,
        if s.sampled() {
            " (a sample: every total below is the sample's)"
        } else {
            ""
        },
        plural(s.warp_instructions, "warp instruction")
    );
    if s.needs_opt_in {
        let _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                format!(
                    "(needs the opt-in: {} bytes of shared memory are more than the {} a block \
                     gets without it; on the GPU, cudaFuncSetAttribute(kernel, \
                     cudaFuncAttributeMaxDynamicSharedMemorySize, {}) before the launch)",
                    u64::from(o.kernel.static_shared()) + u64::from(o.launch.dynamic_shared()),
                    o.capability.default_shared_memory_per_block(),
                    o.launch.dynamic_shared()
                )
            )
        );
    }
    let t = o.tally.totals();
    let estimate = if s.sampled() {
        format!(
            "\nestimated for all {} blocks (the sample's totals x {} / {}; an estimate): {}: {} \
             wavefronts ({} ideal), {}",
            s.blocks_total,
            s.blocks_total,
            s.blocks_run,
            plural(s.estimate(t.requests), "shared-memory request"),
            s.estimate(t.wavefronts),
            s.estimate(t.ideal_wavefronts),
            plural(s.estimate(t.bank_conflicts), "bank conflict")
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{}{}: {} wavefronts ({} ideal), {}{estimate}",
        if s.sampled() { "sample: " } else { "" },
        plural(t.requests, "shared-memory request"),
        t.wavefronts,
        t.ideal_wavefronts,
        plural(t.bank_conflicts, "bank conflict")
    );
    if o.tally.predicated_off() > 0 {
        let _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                format!(
                    "({} predicated off in every lane: issued, not counted by Nsight's \
                     instruction counters)",
                    plural(o.tally.predicated_off(), "shared-memory instruction")
                )
            )
        );
    }
    out.push('\n');
    let mut table = Table::new(&[
        ("op", Align::Left),
        ("requests", Align::Right),
        ("wavefronts", Align::Right),
        ("ideal", Align::Right),
        ("bank conflicts", Align::Right),
        ("worst", Align::Right),
    ]);
    for ((op, width), totals) in o.tally.by_op() {
        table.row([
            crate::analyze::op_name(op, width),
            totals.requests.to_string(),
            totals.wavefronts.to_string(),
            totals.ideal_wavefronts.to_string(),
            totals.bank_conflicts.to_string(),
            format!("{}-way", totals.worst_ways),
        ]);
    }
    out.push_str(&table.render(0));
    out.push('\n');
    let values = metric_values(&o.tally, o.capability);
    if Profiler::of(o.capability) == Profiler::Nvprof {
        if values.is_empty() {
            let _ = writeln!(out, "{}\n", styled(NOTE, crate::trace::KEPLER_NOTE));
        } else {
            let mut metrics = Table::new(&[
                ("nvprof counter", Align::Left),
                ("kind", Align::Left),
                ("predicted", Align::Right),
            ]);
            for m in &values {
                metrics.row([
                    m.metric.to_owned(),
                    m.kind.unwrap_or_default().to_owned(),
                    crate::ncu::value(None, m.predicted, None, None, &[], m.not_costed),
                ]);
            }
            out.push_str(&metrics.render(0));
            let _ = writeln!(out, "{}\n", styled(NOTE, crate::trace::NVPROF_NOTE));
        }
    } else if let Some((comparison, files)) = &o.comparison {
        // The comparison lists every counter with its prediction.
        out.push_str(&crate::ncu::comparison_text(comparison, files, args.top));
        out.push('\n');
    } else {
        out.push_str(&ncu_table(&values, s.sampled()));
    }
    if args.by_line {
        let _ = writeln!(
            out,
            "{}",
            styled(HEADING, "source lines, most bank conflicts first")
        );
        let mut table = Table::new(&[
            ("line", Align::Left),
            ("instructions", Align::Left),
            ("requests", Align::Right),
            ("wavefronts", Align::Right),
            ("bank conflicts", Align::Right),
        ]);
        for l in o.tally.by_line().into_iter().take(args.top) {
            let (line, ops, t) = (l.source_line, l.instructions, l.totals);
            table.row([
                line.unwrap_or_else(|| "(no .loc)".to_owned()),
                ops.join(" "),
                t.requests.to_string(),
                t.wavefronts.to_string(),
                t.bank_conflicts.to_string(),
            ]);
        }
        out.push_str(&table.render(0));
    } else {
        let _ = writeln!(
            out,
            "{}",
            styled(HEADING, "PTX instructions, most bank conflicts first")
        );
        let mut table = Table::new(&[
            ("PTX line", Align::Right),
            ("instruction", Align::Left),
            ("source", Align::Left),
            ("requests", Align::Right),
            ("wavefronts", Align::Right),
            ("bank conflicts", Align::Right),
        ]);
        for e in o.tally.ranking(args.top) {
            table.row([
                e.first.line.to_string(),
                e.instruction.to_string(),
                source_text(e).unwrap_or_default(),
                e.totals.requests.to_string(),
                e.totals.wavefronts.to_string(),
                e.totals.bank_conflicts.to_string(),
            ]);
        }
        out.push_str(&table.render(0));
    }
    for kind in [
        NoteKind::DataDependentAddress,
        NoteKind::DataDependentGuard,
        NoteKind::DataDependentBranch,
        NoteKind::ForcedBarrier,
        NoteKind::MbarrierHang,
        NoteKind::NoTensorMap,
    ] {
        let notes: Vec<_> = s.notes.iter().filter(|n| n.kind == kind).collect();
        if notes.is_empty() {
            continue;
        }
        let mut sites: Vec<String> = notes
            .iter()
            .take(NOTE_SITES)
            .map(|n| site_text(&o.kernel, u64::from(n.ptx_line)))
            .collect();
        if notes.len() > NOTE_SITES {
            sites.push(format!("{} more", notes.len() - NOTE_SITES));
        }
        let _ = writeln!(
            out,
            "\n{}: {}, {}: {}",
            note_kind(kind),
            plural(notes.len() as u64, "instruction"),
            sites.join(", "),
            kind.meaning()
        );
    }
    if !o.kernel.has_source_lines() {
        let _ = writeln!(
            out,
            "\n{}",
            styled(
                NOTE,
                "no source lines: the PTX has no .loc; compile with `nvcc -ptx -lineinfo` \
                 to see the CUDA line of each instruction"
            )
        );
    }
    let unmodelled: u64 = o.tally.unmodelled().values().sum();
    if unmodelled > 0 {
        let names: Vec<String> = o
            .tally
            .unmodelled()
            .iter()
            .map(|(name, count)| format!("{name} {count}"))
            .collect();
        let _ = writeln!(
            out,
            "not modelled: {} touching shared memory ({})",
            plural(unmodelled, "warp instruction"),
            names.join(", ")
        );
    }
    let opaque = o.kernel.opaque_instructions();
    if !opaque.is_empty() {
        let names: Vec<String> = opaque
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "not interpreted, their results unknown: {} in the PTX ({})",
            plural(opaque.values().sum::<usize>() as u64, "instruction"),
            names.join(", ")
        );
    }
    if o.tally.error_count() > 0 {
        // Never silence: an op the capability lacks is neither counted nor
        // left out without a word (issue 36).
        let examples: Vec<String> = o
            .tally
            .errors()
            .iter()
            .take(REFUSED_SHOWN)
            .map(|e| format!("PTX line {}: {}", e.at.line, e.reason))
            .collect();
        let more = o.tally.error_count() - examples.len() as u64;
        let _ = writeln!(
            out,
            "{}",
            styled(
                WARN,
                format!(
                    "refused on {}: {}, not counted above: {}{}",
                    o.capability.sm_name(),
                    plural(o.tally.error_count(), "request"),
                    examples.join("; "),
                    if more > 0 {
                        format!(" (and {more} more)")
                    } else {
                        String::new()
                    }
                )
            )
        );
    }
    let unknown: u64 = o.tally.unknown_addresses().iter().map(|(_, n)| n).sum();
    if unknown > 0 {
        let names: Vec<String> = o
            .tally
            .unknown_addresses()
            .iter()
            .map(|&((op, w), n)| format!("{} {n}", crate::analyze::op_name(op, w)))
            .collect();
        let _ = writeln!(
            out,
            "address unknown: {} counted as instructions, their wavefronts and races not ({})",
            plural(unknown, "request"),
            names.join(", ")
        );
    }
    out.push('\n');
    let r = &o.races;
    let not_listed = r.hazards_not_listed();
    let found = r.hazards().len() as u64 + not_listed;
    if r.is_clean() {
        let _ = writeln!(
            out,
            "races: none found in {}{}",
            plural(s.blocks_run, "block"),
            if unknown > 0 {
                format!(
                    " ({} of unknown address not checked)",
                    plural(unknown, "request")
                )
            } else {
                String::new()
            }
        );
    } else {
        let _ = writeln!(
            out,
            "{}",
            styled(
                HEADING,
                format!(
                    "races: {}{}, {}",
                    if r.hazards_not_listed_exact() {
                        ""
                    } else {
                        "at least "
                    },
                    plural(found, "hazard"),
                    plural(r.barrier_errors().len() as u64, "barrier error")
                )
            )
        );
        let block = o.launch.block();
        for finding in r.hazards() {
            let h = finding.example();
            let (a, b) = (h.first(), h.second());
            let _ = writeln!(
                out,
                "  {} {}: {} at {} and {} at {}, in {}, {}",
                h.severity(),
                h.kind(),
                a.access(),
                site_text(&o.kernel, a.site()),
                b.access(),
                site_text(&o.kernel, b.site()),
                plural(finding.blocks(), "block"),
                plural(finding.bytes(), "byte")
            );
            let _ = writeln!(
                out,
                "    e.g. block {} byte {:#x}: {} by thread {} (warp {} lane {}), \
                 {} by thread {} (warp {} lane {})",
                ids(finding.block()),
                h.address(),
                a.access(),
                ids(thread_index(a.thread(), block)),
                a.warp(),
                a.lane(),
                b.access(),
                ids(thread_index(b.thread(), block)),
                b.warp(),
                b.lane()
            );
        }
        if not_listed > 0 {
            let _ = writeln!(
                out,
                "  {}{} more {} not listed (--max {})",
                if r.hazards_not_listed_exact() {
                    ""
                } else {
                    "at least "
                },
                not_listed,
                if not_listed == 1 { "hazard" } else { "hazards" },
                args.max
            );
        }
        for finding in r.barrier_errors() {
            let _ = writeln!(
                out,
                "  barrier error: {} (in {}, e.g. block {})",
                finding.error().describe(|s| site_text(&o.kernel, s)),
                plural(finding.blocks(), "block"),
                ids(finding.block())
            );
        }
    }
    // Tensor copies' and bulk stores' shared bytes are not race-checked, as
    // racecheck checks none (the block model's `Racecheck`): said, not
    // dropped silently.
    let count = |prefix: &str| -> u64 {
        r.not_checked()
            .filter(|(name, _)| name.starts_with(prefix) && name.ends_with(')'))
            .map(|(_, n)| n)
            .sum()
    };
    for (n, one, many) in [
        (
            count("cp.async.bulk.tensor"),
            "tensor copy",
            "tensor copies",
        ),
        (count("cp.async.bulk.global"), "bulk store", "bulk stores"),
    ] {
        if n > 0 {
            let _ = writeln!(
                out,
                "  not race-checked: the shared bytes of {n} {} (compute-sanitizer's racecheck \
                 checks none)",
                if n == 1 { one } else { many }
            );
        }
    }
    out
}

/// The Nsight Compute counters with their predictions, and the reasons for
/// those that are not equalities, each once.
fn ncu_table(values: &[MetricJson], sampled: bool) -> String {
    let marks = crate::ncu::marks(values.iter().map(|m| m.reason));
    let mut table = Table::new(&[
        ("Nsight Compute counter", Align::Left),
        ("predicted", Align::Left),
    ]);
    for m in values {
        table.row([
            crate::ncu::shown(m.metric),
            crate::ncu::value(
                m.relation,
                m.predicted,
                m.range,
                m.reason,
                &marks,
                m.not_costed,
            ),
        ]);
    }
    let mut out = table.render(0);
    out.push_str(&crate::ncu::notes(&marks, sampled));
    out.push('\n');
    out
}

/// One profiler counter and the prediction of it.
#[derive(Debug, Serialize)]
struct MetricJson {
    metric: &'static str,
    /// nvprof's only: `metric` (`nvprof --metrics`) or `event` (`--events`).
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// The total it corresponds to: `requests`, `wavefronts` or `bank_conflicts`.
    total: &'static str,
    /// Nsight Compute's only: `equal` (the counter equals `predicted`),
    /// `at_least` (it can be more: `reason`) or `estimate` (`reason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<&'static str>,
    predicted: u64,
    /// Why the counter can differ from `predicted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    /// Requests whose addresses are unknown (data-dependent): in `predicted`
    /// for an instruction count, left out of a wavefront or conflict count
    /// (which is then at least `predicted`).
    #[serde(skip_serializing_if = "is_zero")]
    not_costed: u64,
    /// Nsight Compute's only, for an estimate whose bounds are known: the
    /// least and the most the counter can be.
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<(u64, u64)>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The counters of `capability`'s profiler with their predicted values:
/// Nsight Compute's from compute capability 7.0 on (`kernel::ncu`: each
/// named by the counter it equals or bounds), nvprof's on 5.x and 6.x
/// (`nvprof_counters`, where Nsight Compute does not run), none before.
fn metric_values(tally: &Tally, capability: ComputeCapability) -> Vec<MetricJson> {
    if Profiler::of(capability) != Profiler::Nvprof {
        return ncu::predictions(tally)
            .into_iter()
            .map(|p| MetricJson {
                metric: p.counter,
                kind: None,
                total: p.quantity.total(),
                relation: Some(p.relation.name()),
                predicted: p.predicted,
                reason: p.reason,
                not_costed: p.not_costed,
                range: p.range,
            })
            .collect();
    }
    let mut out: Vec<MetricJson> = Vec::new();
    let unknown = tally
        .unknown_addresses()
        .iter()
        .map(|&(op, n)| (op, Totals::default(), n));
    let known = tally
        .by_op()
        .into_iter()
        .map(|(op, totals)| (op, totals, 0));
    for ((op, _), totals, not_costed) in known.chain(unknown) {
        // (value, requests it leaves out)
        let values = [
            ("requests", (totals.requests + not_costed, 0)),
            ("wavefronts", (totals.wavefronts, not_costed)),
            ("bank_conflicts", (totals.bank_conflicts, not_costed)),
        ];
        let counters = nvprof_counters(op, capability)
            .map(|c| c.map(|c| (c.name, Some(if c.event { "event" } else { "metric" }))));
        for (counter, (total, (value, left_out))) in counters.into_iter().zip(values) {
            let Some((metric, kind)) = counter else {
                continue;
            };
            match out.iter_mut().find(|m| m.metric == metric) {
                Some(m) => {
                    m.predicted += value;
                    m.not_costed += left_out;
                }
                None => out.push(MetricJson {
                    metric,
                    kind,
                    total,
                    relation: None,
                    predicted: value,
                    reason: None,
                    not_costed: left_out,
                    range: None,
                }),
            }
        }
    }
    out
}

#[derive(Debug, Serialize)]
struct RankedJson {
    ptx_line: u64,
    instruction: String,
    source_line: Option<String>,
    #[serde(flatten)]
    totals: Totals,
}

#[derive(Debug, Serialize)]
struct LineJson {
    source_line: Option<String>,
    instructions: Vec<String>,
    #[serde(flatten)]
    totals: Totals,
}

#[derive(Debug, Serialize)]
struct NoteJson {
    kind: &'static str,
    ptx_line: u32,
    /// `file:line`, as `top` gives it.
    source_line: Option<String>,
    instruction: String,
    count: u64,
    /// Which way the interpreter went and what that may change.
    meaning: &'static str,
}

/// The races as `smem racecheck --json` gives them, the sites PTX lines
/// (`kernel::ptx::races_json`: the same as Python's).
#[derive(Debug, Serialize)]
struct RacesJson {
    hazards: Vec<serde_json::Value>,
    /// Hazards found past `--max`, counted and not listed (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    hazards_not_listed: u64,
    /// False when the count is a lower bound (past
    /// `Block::MAX_NOT_LISTED`); absent when exact.
    #[serde(skip_serializing_if = "is_true")]
    hazards_not_listed_exact: bool,
    barrier_errors: Vec<serde_json::Value>,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn races_json(o: &Outcome) -> RacesJson {
    let (hazards, barrier_errors) = ptx::races_json(&o.kernel, &o.races, o.launch.block());
    RacesJson {
        hazards,
        hazards_not_listed: o.races.hazards_not_listed(),
        hazards_not_listed_exact: o.races.hazards_not_listed_exact(),
        barrier_errors,
    }
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct ReportJson {
    /// `smem-kernel/2`: the shape of this report (2: races as objects,
    /// not sentences).
    schema: &'static str,
    kernel: String,
    file: String,
    arch: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared: u32,
    static_shared: u32,
    /// Whether the launch's shared memory is more than a block gets without
    /// `cudaFuncAttributeMaxDynamicSharedMemorySize` (it runs only after it).
    needs_opt_in: bool,
    blocks_run: u64,
    blocks_total: u64,
    sampled: bool,
    warp_instructions: u64,
    #[serde(flatten)]
    totals: Totals,
    /// With `--sample`: the totals estimated for the whole grid (scaled by
    /// `blocks_total / blocks_run`, rounded); absent when every block ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    estimated_totals: Option<EstimateJson>,
    predicated_off: u64,
    by_op: BTreeMap<String, Totals>,
    /// Nsight Compute's metric of each total (compute capability 7.0 and
    /// later; empty before).
    ncu_metrics: Vec<MetricJson>,
    /// nvprof's counter of each total (5.x and 6.x; absent otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    nvprof_metrics: Vec<MetricJson>,
    top: Vec<RankedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_line: Option<Vec<LineJson>>,
    notes: Vec<NoteJson>,
    not_modelled: BTreeMap<String, u64>,
    /// The PTX instructions the interpreter does not evaluate (their results
    /// unknown; none touches shared memory), by opcode, with how often each
    /// occurs in the kernel and the functions it calls.
    opaque: BTreeMap<String, usize>,
    /// Requests whose addresses are unknown (data-dependent), by op: in the
    /// instruction counts, not in the wavefronts or the race check.
    unknown_address: BTreeMap<String, u64>,
    /// Requests the model refuses on this capability (an op it lacks:
    /// `ldmatrix` before 7.5, `stmatrix` before 9.0), counted apart from the
    /// totals, with the first few (PTX line and the model's message).
    refused: u64,
    refused_examples: Vec<RefusedJson>,
    races: RacesJson,
    /// `--ncu`'s comparison with a profile (absent without `--ncu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    ncu_comparison: Option<serde_json::Value>,
}

/// The totals estimated for the whole grid from a sample.
#[derive(Debug, Serialize)]
struct EstimateJson {
    /// `blocks_total / blocks_run`.
    scale: f64,
    requests: u64,
    wavefronts: u64,
    ideal_wavefronts: u64,
    bank_conflicts: u64,
}

fn json(args: &Args, o: &Outcome) -> ReportJson {
    let s = &o.summary;
    ReportJson {
        schema: "smem-kernel/2",
        kernel: o.kernel.name().to_owned(),
        file: o.ptx.display().to_string(),
        arch: o.capability.sm_name(),
        grid: o.launch.grid(),
        block: o.launch.block(),
        dynamic_shared: o.launch.dynamic_shared(),
        static_shared: o.kernel.static_shared(),
        needs_opt_in: s.needs_opt_in,
        blocks_run: s.blocks_run,
        blocks_total: s.blocks_total,
        sampled: s.sampled(),
        warp_instructions: s.warp_instructions,
        totals: o.tally.totals(),
        estimated_totals: s.sampled().then(|| {
            let t = o.tally.totals();
            EstimateJson {
                scale: s.blocks_total as f64 / s.blocks_run as f64,
                requests: s.estimate(t.requests),
                wavefronts: s.estimate(t.wavefronts),
                ideal_wavefronts: s.estimate(t.ideal_wavefronts),
                bank_conflicts: s.estimate(t.bank_conflicts),
            }
        }),
        predicated_off: o.tally.predicated_off(),
        by_op: o
            .tally
            .by_op()
            .into_iter()
            .map(|((op, w), t)| (crate::analyze::op_name(op, w), t))
            .collect(),
        ncu_metrics: match Profiler::of(o.capability) {
            Profiler::Nvprof => Vec::new(),
            _ => metric_values(&o.tally, o.capability),
        },
        nvprof_metrics: match Profiler::of(o.capability) {
            Profiler::Nvprof => metric_values(&o.tally, o.capability),
            _ => Vec::new(),
        },
        top: o
            .tally
            .ranking(args.top)
            .into_iter()
            .map(|e| RankedJson {
                ptx_line: e.first.line,
                instruction: e.instruction.to_string(),
                source_line: source_text(e),
                totals: e.totals,
            })
            .collect(),
        by_line: args.by_line.then(|| {
            o.tally
                .by_line()
                .into_iter()
                .take(args.top)
                .map(|l| LineJson {
                    source_line: l.source_line,
                    instructions: l.instructions,
                    totals: l.totals,
                })
                .collect()
        }),
        notes: s
            .notes
            .iter()
            .map(|n| NoteJson {
                kind: note_kind(n.kind),
                ptx_line: n.ptx_line,
                source_line: source_of(&o.kernel, u64::from(n.ptx_line)),
                instruction: n.instruction.clone(),
                count: n.count,
                meaning: n.kind.meaning(),
            })
            .collect(),
        not_modelled: o
            .tally
            .unmodelled()
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        opaque: o
            .kernel
            .opaque_instructions()
            .into_iter()
            .map(|(name, n)| (name.to_owned(), n))
            .collect(),
        unknown_address: o
            .tally
            .unknown_addresses()
            .iter()
            .map(|&((op, w), n)| (crate::analyze::op_name(op, w), n))
            .collect(),
        refused: o.tally.error_count(),
        refused_examples: o
            .tally
            .errors()
            .iter()
            .take(REFUSED_SHOWN)
            .map(|e| RefusedJson {
                ptx_line: e.at.line,
                reason: e.reason.clone(),
            })
            .collect(),
        races: races_json(o),
        ncu_comparison: o
            .comparison
            .as_ref()
            .map(|(c, files)| crate::ncu::comparison_json(c, files)),
    }
}

/// How many refused requests a report shows.
const REFUSED_SHOWN: usize = 3;

/// A request the model refused.
#[derive(Debug, Serialize)]
struct RefusedJson {
    ptx_line: u64,
    reason: String,
}
