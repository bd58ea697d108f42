//! The kernel tally: a [`Consumer`] that predicts every shared-memory
//! request of a kernel's events and sums them, in total, per op and per
//! instruction (what `smem trace` prints).
//!
//! Every figure is a sum, a minimum or a maximum, and the ranking of
//! instructions breaks ties by first appearance in the input, so tallies of
//! parts of an input, [merged](Tally::merge), equal the tally of the whole,
//! whatever the parts: `smem trace` tallies chunks of lines on several
//! threads and merges them, and `smem trace --merge` merges the totals of
//! runs over different files. For the same reason a block that repeats its
//! class ([`Consumer::repeat_block`]) is counted by adding what the class's
//! first repeat counted, worked out once, not by counting its events again
//! (`tally/repeat.rs` says why that is exact).
//!
//! # Example
//!
//! ```
//! use smem_model::kernel::tally::Tally;
//! use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Site};
//! use smem_model::{ComputeCapability, Op, WarpRequest};
//!
//! let mut tally = Tally::default();
//! tally.begin_kernel(&KernelInfo::named("transpose").with_capability(ComputeCapability::Sm90))?;
//! tally.begin_block(&BlockInfo::new([0, 0, 0], Some(32)))?;
//! // s[32 * lane]: every lane in bank 0, a 32-way conflict.
//! let column = WarpRequest::from_fn(Op::Load, 4, |lane| Some(128 * lane.get()))?;
//! tally.event(0, &Event::Access { site: Site::pc(0x40), request: column })?;
//! tally.end_block()?;
//! tally.end_kernel()?;
//! assert_eq!(tally.totals().wavefronts, 32);
//! assert_eq!(tally.totals().bank_conflicts, 31);
//! # Ok::<(), smem_model::Error>(())
//! ```

mod repeat;

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};

use super::{BlockInfo, Consumer, Event, KernelInfo, PerClass, Place, Repeat};
use crate::{
    AccessWidth, BankConfig, ComputeCapability, Cost, CpAsync, Error, LaneSet, Op, WarpRequest,
};

/// The wavefronts of one `cp.async.ca` (LDGSTS without `.BYPASS`) of
/// `width` bytes a lane, as Nsight Compute's
/// `smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts` counts
/// them: the copy moves through the L1's data banks on both sides, so each
/// phase (the warp for 4 bytes, half-warps for 8, quarter-warps for 16)
/// takes the larger of its shared side (the largest number of its lanes
/// writing one bank) and its global side (the largest number of its lanes
/// reading global words in one bank, the bank being `(address / 4) % 32` as
/// for shared memory); lanes on one address are not merged on either side.
/// `shared` holds the active lanes' shared offsets (`u32::MAX` for lanes
/// that do not execute), `global` the low bits of each reading lane's
/// global address, `reads` the lanes that read global memory (a src-size
/// of 0 reads none).
///
/// Measured on an H200 (`tests/data/ncu/cp_async`, `tests/ptx_cp_async.rs`):
/// 153 single-instruction probes of 4, 8 and 16 bytes, global strides from
/// 8 to 4,096 bytes, one address for all lanes, misaligned, several lines,
/// permuted, with conflicting and swizzled shared sides, partial warps and
/// zero-fill, all exact; the 4-byte matmuls of cuda-samples'
/// globalToShmemAsyncCopy take 2 an instruction because each warp's two
/// rows of A lie 1,024 bytes apart, in the same banks.
///
/// # Example
///
/// ```
/// use smem_model::kernel::tally::ldgsts_wavefronts;
/// use smem_model::LaneSet;
///
/// let shared: [u32; 32] = core::array::from_fn(|l| 4 * l as u32);
/// // Both sides contiguous: one wavefront.
/// let contiguous = shared;
/// assert_eq!(ldgsts_wavefronts(4, &shared, &contiguous, LaneSet::FULL), 1);
/// // Every lane reading one global word: 32, though the shared side is free.
/// assert_eq!(ldgsts_wavefronts(4, &shared, &[0; 32], LaneSet::FULL), 32);
/// // No lane reading (all zero-filled): the shared side alone.
/// assert_eq!(ldgsts_wavefronts(4, &shared, &[0; 32], LaneSet::EMPTY), 1);
/// ```
pub fn ldgsts_wavefronts(
    width: u32,
    shared: &[u32; 32],
    global: &[u32; 32],
    reads: LaneSet,
) -> u32 {
    let width = width.clamp(4, 16);
    let phase = (128 / width) as usize;
    // The largest number of `lanes` (a bit set) touching one bank.
    let degree = |addresses: &[u32; 32], lanes: u32, first: usize| {
        let mut per = [0u32; 32];
        for (lane, &address) in addresses.iter().enumerate().skip(first).take(phase) {
            if lanes >> lane & 1 == 1 {
                let bank = (address / 4) as usize;
                for b in 0..(width / 4) as usize {
                    per[(bank + b) % 32] += 1;
                }
            }
        }
        per.into_iter().max().unwrap_or(0)
    };
    let active = (0..32).fold(0u32, |m, l| m | u32::from(shared[l] != u32::MAX) << l);
    (0..32)
        .step_by(phase)
        .map(|first| {
            degree(shared, active, first).max(degree(global, reads.bits() & active, first))
        })
        .sum()
}

/// The wavefronts of one `cp.async.cg` (`LDGSTS.E.BYPASS.128`, 16 bytes a
/// lane) as Nsight Compute's
/// `smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts` counts
/// them, and whether the figure lies where it was measured exact.
///
/// The rule (measured on an H200, `tests/data/ncu/cp_async/bypass.json`,
/// `tools/device/s5`): the data comes from global memory a 128-byte line at
/// a time, bypassing the L1's banks, and is written into shared memory a
/// 128-byte line at a time. The lanes (those on one shared and one global
/// address counted once) are grouped by the pair (global line, shared line)
/// they move data between. A group costs the largest number of its
/// distinct (global 32-byte sector, shared 32-byte chunk) pairs that share
/// one sector or one chunk (a sector written across two chunks costs two,
/// two sectors into one chunk cost two), and at least two when the group
/// reads one of its global sectors in full and another in part. The
/// instruction costs its groups' sum. So a copy whose rows are 128-byte
/// aligned on both sides takes a wavefront a row, as `.ca` does, while a
/// shared row 16 bytes off its line (a padded tile) takes three.
///
/// Exact in all 187 measured launches where each global line is read by
/// the lanes of one quarter-warp (one to eight warps, one or 132 blocks,
/// one to sixteen instructions); where a global line feeds two quarter-warps
/// (a misaligned contiguous copy into padded rows) the hardware took up to
/// four more in 7 of 17 launches: [`BypassWavefronts::exact`] is false there.
///
/// Only lanes that write (a shared offset other than `u32::MAX`) count;
/// `global` holds each lane's global address, or its low 32 bits, or its
/// offset from any multiple of 128 (only lines and offsets in lines matter).
/// Nsight Compute's instrumentation reads predicate `P0` as false in every
/// lane of an LDGSTS.BYPASS (measured, `tests/data/ncu/cp_async` round 6): a
/// copy guarded by `@P0` shows nothing, by `@!P0` this rule over every lane
/// at the addresses its registers hold; with `P1` to `P6` the rule over the
/// lanes the guard passes. PTX does not say which register ptxas picks:
/// callers give the figure for a guarded copy as an estimate.
///
/// # Example
///
/// ```
/// use smem_model::kernel::tally::ldgsts_bypass_wavefronts;
///
/// // Four rows of 128 bytes, each read from its own global line.
/// let global: [u32; 32] = core::array::from_fn(|l| (l as u32 / 8) * 8192 + (l as u32 % 8) * 16);
/// // Shared rows 128 bytes apart: a wavefront a row.
/// let aligned: [u32; 32] = core::array::from_fn(|l| (l as u32 / 8) * 128 + (l as u32 % 8) * 16);
/// assert_eq!(ldgsts_bypass_wavefronts(&aligned, &global).wavefronts, 4);
/// // Rows padded to 144 bytes (cuda-samples' bf16 tiles): 1 + 3 + 2 + 4.
/// let padded: [u32; 32] = core::array::from_fn(|l| (l as u32 / 8) * 144 + (l as u32 % 8) * 16);
/// let w = ldgsts_bypass_wavefronts(&padded, &global);
/// assert_eq!((w.wavefronts, w.exact), (10, true));
/// ```
pub fn ldgsts_bypass_wavefronts(shared: &[u32; 32], global: &[u32; 32]) -> BypassWavefronts {
    // The distinct (shared, global) lanes, grouped by (global line, shared
    // line): at most 32 of each.
    let mut lanes: Vec<(u32, u32, usize)> = (0..32)
        .filter(|&l| shared[l] != u32::MAX)
        .map(|l| (global[l] >> 7, shared[l] >> 7, l))
        .collect();
    lanes.sort_unstable_by_key(|&(g, s, l)| (g, s, global[l], shared[l]));
    lanes.dedup_by_key(|&mut (_, _, l)| (global[l], shared[l]));
    let mut wavefronts = 0;
    for group in lanes.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        // Degrees in the bipartite graph of sector positions and chunk
        // positions (4 each in a line), and each sector's halves read.
        let mut edges = [[false; 4]; 4];
        let mut halves = [0u8; 4];
        for &(_, _, l) in group {
            let sector = (global[l] >> 5 & 3) as usize;
            edges[sector][(shared[l] >> 5 & 3) as usize] = true;
            halves[sector] |= 1 << (global[l] >> 4 & 1);
        }
        let by_sector = edges.iter().map(|row| row.iter().filter(|&&e| e).count());
        let by_chunk = (0..4).map(|c| edges.iter().filter(|row| row[c]).count());
        let degree = by_sector.chain(by_chunk).max().unwrap_or(0) as u32;
        let mixed = halves.contains(&0b11) && halves.iter().any(|&h| h == 0b01 || h == 0b10);
        wavefronts += degree.max(if mixed { 2 } else { 1 });
    }
    // Where the rule was measured exact: no global line read by two
    // quarter-warps.
    let mut quarter_of_line: Vec<(u32, usize)> = (0..32)
        .filter(|&l| shared[l] != u32::MAX)
        .map(|l| (global[l] >> 7, l / 8))
        .collect();
    quarter_of_line.sort_unstable();
    quarter_of_line.dedup();
    let exact = quarter_of_line.windows(2).all(|w| w[0].0 != w[1].0);
    BypassWavefronts { wavefronts, exact }
}

/// The SASS form of a `cp.async`, as far as its wavefronts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Unguarded, without a src-size register.
    Plain,
    /// Under a guard predicate (SASS-predicated).
    Guarded,
    /// With a src-size register (SASS's source predicate operand).
    ZeroFill,
    /// Both (SASS `@P LDGSTS.E.BYPASS.128.ZFILL [..], [..], Q`).
    GuardedZeroFill,
}

/// The `cp.async.cg` requests whose wavefronts are an estimate, and how far
/// below and above their figures the counter can be: summed over those
/// whose bounds are known, with how many have none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct BypassEstimates {
    estimated: u64,
    spread: (u64, u64),
    unbounded: u64,
}

impl BypassEstimates {
    fn add(&mut self, other: &BypassEstimates) {
        self.estimated += other.estimated;
        self.spread.0 += other.spread.0;
        self.spread.1 += other.spread.1;
        self.unbounded += other.unbounded;
    }
}

/// How a `cp.async.cg`'s figure relates to Nsight Compute's counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    /// The counter's value.
    Exact,
    /// The counter is one of two measured values, the least and the most.
    Between(u32, u32),
    /// No bound is known.
    Unbounded,
}

/// What [`ldgsts_bypass_wavefronts`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BypassWavefronts {
    /// The rule's figure.
    pub wavefronts: u32,
    /// Whether the lanes' pattern lies where the rule was measured exact
    /// (each global line read by one quarter-warp); an estimate otherwise.
    pub exact: bool,
}

/// The `wgmma.mma_async` instructions that read shared memory through
/// matrix descriptors ([`Event::Gmma`]): Nsight Compute's `op_shared_gmma`
/// instructions (one a warp) and `op_gmma` wavefronts and conflicts (the
/// warpgroup's operand reads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GmmaCounts {
    /// Warp-level instructions executed.
    pub instructions: u64,
    /// Wavefronts of the operand reads.
    pub wavefronts: u64,
    /// Of them, those beyond one a core matrix.
    pub conflicts: u64,
}

/// The capability of a kernel whose source names none.
pub const DEFAULT_CAPABILITY: ComputeCapability = ComputeCapability::Sm90;

/// Errors kept with their text ([`Tally::errors`]); the rest are counted.
pub const KEPT_ERRORS: usize = 20;

/// The profiler a capability's figures are compared with: Nsight Compute
/// profiles compute capability 7.0 (Volta) and later only, so before that
/// the counters users hold are nvprof's.
///
/// # Example
///
/// ```
/// use smem_model::kernel::tally::Profiler;
/// use smem_model::ComputeCapability;
///
/// assert_eq!(Profiler::of(ComputeCapability::Sm61), Profiler::Nvprof);
/// assert_eq!(Profiler::of(ComputeCapability::Sm70), Profiler::NsightCompute);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profiler {
    /// Nsight Compute (`ncu --metrics NAME`), compute capability 7.0 and later.
    NsightCompute,
    /// nvprof (`nvprof --metrics NAME`, `nvprof --events NAME`), before 7.0.
    Nvprof,
}

impl Profiler {
    /// The profiler of `capability`: Nsight Compute from 7.0 on, nvprof
    /// before.
    pub const fn of(capability: ComputeCapability) -> Profiler {
        if capability.major() >= 7 {
            Profiler::NsightCompute
        } else {
            Profiler::Nvprof
        }
    }
}

/// One of nvprof's counters: a metric (`nvprof --metrics NAME`) or an event
/// (`nvprof --events NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvprofCounter {
    /// Its name, as `nvprof --query-metrics` / `--query-events` lists it.
    pub name: &'static str,
    /// Whether it is an event (`--events`) rather than a metric (`--metrics`).
    pub event: bool,
}

/// nvprof's counters for the totals the tally gives `op` on `capability`:
/// requests, wavefronts and bank conflicts, in that order; `None` where no
/// nvprof counter is known to count the same quantity.
///
/// Named for compute capability 5.x and 6.x (Maxwell, Pascal), where nvprof
/// is the profiler and a shared-memory transaction is what the model calls a
/// wavefront (one pass through the 32 four-byte banks):
///
/// | total | LDS | STS | ATOMS |
/// |---|---|---|---|
/// | requests | `inst_executed_shared_loads` | `inst_executed_shared_stores` | `inst_executed_shared_atomics` |
/// | wavefronts | `shared_load_transactions` | `shared_store_transactions` | - |
/// | bank conflicts | `shared_ld_bank_conflict` (event) | `shared_st_bank_conflict` (event) | - |
///
/// Source: NVIDIA's mapping of nvprof's counters to Nsight Compute's, in the
/// CUPTI documentation (Cupti 13.0, shipped with CUDA 13.0:
/// `extras/CUPTI/doc/html`, sections 2.13.3 "Metrics Mapping Table" and
/// 2.13.4 "Events Mapping Table", for compute capability 7.0, where both
/// profilers run). Its shared-memory rows are in
/// `tests/data/device/cupti_mapping.tsv`, and `tests/nvprof_names.rs` checks
/// that each counter named here maps there to the Nsight Compute metric the
/// tool names for the same total on Volta:
/// `shared_{load,store}_transactions` and the events
/// `shared_{ld,st}_bank_conflict` to
/// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum` and
/// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum` exactly.
/// The instruction counts `inst_executed_shared_{loads,stores}` map to
/// `smsp__inst_executed_op_shared_{ld,st}.sum`, the counter that (measured on
/// sm_90, tests/data/device/predicated_off.json) also counts instructions
/// predicated off in every lane, which the tally's requests leave out
/// ([`Tally::predicated_off`] counts them): where a trace has such
/// instructions, nvprof's figure may exceed the prediction by up to that
/// count. The per-capability metric tables of the Profiler User's Guide
/// (CUDA 10 and earlier) were not at hand, so the names' availability on
/// each of 5.x and 6.x rests on this mapping and on `nvprof --query-metrics`
/// outputs published with other projects.
///
/// Shared atomics have no transaction or bank-conflict counter of nvprof's.
/// Modelling choices, not measurements: the model's 8- and 16-byte phases on
/// 5.x and 6.x are the rules measured on sm_90, and, as Nsight Compute's
/// SASS counters do, requests leave out instructions predicated off in every
/// lane; no nvprof figure has been compared with the model.
///
/// Nothing is named for compute capability 3.x and earlier: Kepler's
/// transactions move up to 256 bytes over 64-bit banks and its events
/// (`shared_load_replay`, ...) count replays with a meaning not checked
/// against the model's, and Fermi's and Tesla's profilers differ again. From
/// 7.0 on the profiler is Nsight Compute ([`Profiler::of`]) and nothing is
/// named here either.
///
/// # Example
///
/// ```
/// use smem_model::kernel::tally::{nvprof_counters, NvprofCounter};
/// use smem_model::{ComputeCapability, Op};
///
/// let [requests, wavefronts, conflicts] = nvprof_counters(Op::Load, ComputeCapability::Sm61);
/// assert_eq!(requests.map(|c| c.name), Some("inst_executed_shared_loads"));
/// assert_eq!(wavefronts.map(|c| c.name), Some("shared_load_transactions"));
/// assert_eq!(
///     conflicts,
///     Some(NvprofCounter { name: "shared_ld_bank_conflict", event: true })
/// );
/// assert_eq!(nvprof_counters(Op::Load, ComputeCapability::Sm35), [None; 3]);
/// assert_eq!(nvprof_counters(Op::Load, ComputeCapability::Sm90), [None; 3]);
/// ```
pub const fn nvprof_counters(op: Op, capability: ComputeCapability) -> [Option<NvprofCounter>; 3] {
    const fn metric(name: &'static str) -> Option<NvprofCounter> {
        Some(NvprofCounter { name, event: false })
    }
    const fn event(name: &'static str) -> Option<NvprofCounter> {
        Some(NvprofCounter { name, event: true })
    }
    if !matches!(capability.major(), 5 | 6) {
        return [None; 3];
    }
    match op {
        Op::Load => [
            metric("inst_executed_shared_loads"),
            metric("shared_load_transactions"),
            event("shared_ld_bank_conflict"),
        ],
        Op::Store => [
            metric("inst_executed_shared_stores"),
            metric("shared_store_transactions"),
            event("shared_st_bank_conflict"),
        ],
        Op::Atomic(_) | Op::Reduction(_) => [metric("inst_executed_shared_atomics"), None, None],
        // ldmatrix/stmatrix (7.5+) and cp.async (8.0+) do not exist before 7.0.
        Op::LdMatrix(_) | Op::StMatrix(_) | Op::CpAsync(_) => [None; 3],
    }
}

/// Sums over requests.
///
/// # Example
///
/// ```
/// use smem_model::kernel::tally::Totals;
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let mut totals = Totals::default();
/// totals.add(sm90.cost(&WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?)?);
/// assert_eq!((totals.requests, totals.wavefronts, totals.bank_conflicts, totals.worst_ways), (1, 2, 1, 2));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Totals {
    /// Requests (warp instructions with at least one active lane).
    pub requests: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Wavefronts without bank conflicts.
    pub ideal_wavefronts: u64,
    /// Bank conflicts: wavefronts less ideal wavefronts.
    pub bank_conflicts: u64,
    /// Requests with at least one bank conflict.
    pub conflicted_requests: u64,
    /// The worst request's ways (the busiest phase's steps).
    pub worst_ways: u32,
}

impl Totals {
    /// Adds one request's cost.
    pub fn add(&mut self, cost: Cost) {
        self.requests += 1;
        self.wavefronts += u64::from(cost.wavefronts());
        self.ideal_wavefronts += u64::from(cost.ideal_wavefronts());
        self.bank_conflicts += u64::from(cost.bank_conflicts());
        self.conflicted_requests += u64::from(cost.bank_conflicts() > 0);
        self.worst_ways = self.worst_ways.max(cost.ways());
    }

    /// Adds another's sums (the worst ways: the larger).
    pub fn merge(&mut self, other: &Totals) {
        self.requests += other.requests;
        self.wavefronts += other.wavefronts;
        self.ideal_wavefronts += other.ideal_wavefronts;
        self.bank_conflicts += other.bank_conflicts;
        self.conflicted_requests += other.conflicted_requests;
        self.worst_ways = self.worst_ways.max(other.worst_ways);
    }
}

/// Compare-and-swap loops counted whole ([`Tally::cas_loops`]): nvcc's
/// emulation of an atomic the hardware has no instruction for (a float
/// `atomicAdd` on shared memory), an LDS and an ATOMS.CAST.SPIN a round
/// (DESIGN.md 2.2, measured on sm_90: tests/data/hw-corpus/sm90-atomics.jsonl).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CasLoops {
    /// Loops (warp requests).
    pub requests: u64,
    /// Their rounds when each warp runs alone: the ATOMS and the LDS
    /// instructions they execute at least (other warps' atomics on the same
    /// words make more rounds at run time).
    pub rounds: u64,
    /// The wavefronts of their rounds' LDS, alone.
    pub load_wavefronts: u64,
}

/// A place in the input: which input (file) and line, ordered as the input
/// is. Line 0 is the input itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The input's index.
    pub input: u32,
    /// The line, from 1.
    pub line: u64,
}

/// What identifies an instruction of the ranking.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Key {
    /// A kernel's instruction: the kernel (an index into
    /// [`Tally::kernel_name`]) and PC. Two kernels of one name are one.
    Code {
        /// The kernel.
        kernel: u32,
        /// The instruction's address.
        pc: u64,
    },
    /// Requests counted under this label ([`Tally::add_request`]).
    Label(Box<str>),
    /// A request counted without a label: an instruction of its own.
    Record(Location),
}

/// A source line: the file where the source names one, and the line.
pub type SourceLine = (Option<Box<str>>, u32);

/// One instruction: a kernel's PC, a label or an unlabelled request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Entry {
    /// What it is.
    pub key: Key,
    /// The instruction as its source writes it (`LDS.U.128`); empty for
    /// requests added by [`Tally::add_request`].
    pub instruction: Box<str>,
    /// Its op and width.
    pub op: (Op, AccessWidth),
    /// Where it was first seen.
    pub first: Location,
    /// Its source line, where known.
    pub source: Option<SourceLine>,
    /// Its requests' sums.
    pub totals: Totals,
}

impl Entry {
    /// The ranking: most bank conflicts first, then first appearance.
    pub fn rank(&self) -> (Reverse<u64>, Location) {
        (Reverse(self.totals.bank_conflicts), self.first)
    }

    fn merge(&mut self, other: Entry) {
        self.totals.merge(&other.totals);
        if other.first < self.first {
            self.first = other.first;
            self.instruction = other.instruction;
            self.op = other.op;
            self.source = other.source;
        }
    }
}

/// A request the model refused (an op the capability lacks, an address past
/// the window), where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TallyError {
    /// Where.
    pub at: Location,
    /// What: the instruction, then the model's message.
    pub reason: String,
}

/// Constant-memory loads (`LDC`, `ULDC`: `ld.const`), counted apart from
/// the shared-memory totals.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstantCounts {
    /// Loads whose addresses are known.
    pub loads: u64,
    /// Their serialised constant-cache requests (one per distinct address;
    /// per half-warp on 1.x).
    pub requests: u64,
    /// Loads whose addresses are not known (Accel-Sim's tracer records none
    /// for constant memory): issued, but no cost can be given.
    pub without_addresses: u64,
}

impl ConstantCounts {
    fn merge(&mut self, other: &ConstantCounts) {
        self.loads += other.loads;
        self.requests += other.requests;
        self.without_addresses += other.without_addresses;
    }
}

/// Entries of the direct-mapped cache in front of the instruction table.
const RECENT: usize = 64;

/// The kernel tally (see the [module docs](self)).
///
/// Fully predicated-off instructions (an access with no active lane) are
/// counted apart ([`predicated_off`](Tally::predicated_off)), not as
/// requests: Nsight Compute's `smsp__sass_inst_executed_op_shared_{ld,st}`
/// leaves them out too and they make no wavefront, while the non-SASS
/// `smsp__inst_executed_op_shared_{ld,st}` counts them (measured on an H200:
/// tests/data/device/predicated_off.json). Each request costs no allocation: instructions are found by
/// integer key (a direct-mapped cache in front of a hash table), and a new
/// instruction's entry is the only allocation.
#[derive(Debug, Clone)]
pub struct Tally {
    capability: Option<ComputeCapability>,
    top: usize,
    totals: Totals,
    archs: Vec<ComputeCapability>,
    by_op: Vec<((Op, AccessWidth), Totals)>,
    /// The kernel being read: its name's index and configuration.
    kernel: u32,
    config: BankConfig,
    kernel_names: Vec<Box<str>>,
    kernel_ids: HashMap<Box<str>, u32>,
    /// Where the next events were read, and their instruction's text.
    at: Location,
    instruction: String,
    source_file: Option<Box<str>>,
    codes: HashMap<(u32, u64), u32>,
    recent: [(u32, u64, u32); RECENT],
    labels: HashMap<Box<str>, u32>,
    entries: Vec<Entry>,
    /// The best `top` requests without a label.
    unnamed: Vec<Entry>,
    other_instructions: u64,
    unmodelled: BTreeMap<Box<str>, u64>,
    unknown_addresses: Vec<((Op, AccessWidth), u64)>,
    cas_loops: Vec<((Op, AccessWidth), CasLoops)>,
    predicated_off: u64,
    constant: ConstantCounts,
    gmma: GmmaCounts,
    /// The global side of the next `cp.async` (its PC, reading lanes, low
    /// address bits, and its form), from [`Event::CpAsyncSource`].
    source: Option<(u64, u32, [u32; 32], Form)>,
    /// `.ca` requests costed without their global side.
    ldgsts_unsourced: u64,
    /// `.cg` requests whose wavefronts are an estimate.
    bypass: BypassEstimates,
    errors: Vec<TallyError>,
    error_count: u64,
    /// The parts of the classes of blocks met
    /// ([`Consumer::repeat_block`]).
    parts: PerClass<repeat::BlockPart>,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally::new()
    }
}

impl Tally {
    /// A tally that predicts each kernel on its own capability
    /// ([`KernelInfo::capability`], [`DEFAULT_CAPABILITY`] where none) and
    /// keeps the best 10 unlabelled requests.
    pub fn new() -> Tally {
        Tally {
            capability: None,
            top: 10,
            totals: Totals::default(),
            archs: Vec::new(),
            by_op: Vec::new(),
            kernel: 0,
            config: BankConfig::new(DEFAULT_CAPABILITY),
            kernel_names: vec![Box::from("")],
            kernel_ids: HashMap::from_iter([(Box::from(""), 0)]),
            at: Location::default(),
            instruction: String::new(),
            source_file: None,
            codes: HashMap::new(),
            recent: [(u32::MAX, 0, 0); RECENT],
            labels: HashMap::new(),
            entries: Vec::new(),
            unnamed: Vec::new(),
            other_instructions: 0,
            unmodelled: BTreeMap::new(),
            unknown_addresses: Vec::new(),
            cas_loops: Vec::new(),
            predicated_off: 0,
            constant: ConstantCounts::default(),
            gmma: GmmaCounts::default(),
            source: None,
            ldgsts_unsourced: 0,
            bypass: BypassEstimates::default(),
            errors: Vec::new(),
            error_count: 0,
            parts: PerClass::new(repeat::PARTS_BYTES),
        }
    }

    /// The same tally predicting every request on `capability`.
    #[must_use]
    pub fn with_capability(mut self, capability: ComputeCapability) -> Tally {
        self.capability = Some(capability);
        self.config = BankConfig::new(capability);
        self
    }

    /// The same tally keeping the best `top` unlabelled requests (a label or
    /// a kernel's PC is always kept).
    #[must_use]
    pub fn with_top(mut self, top: usize) -> Tally {
        self.top = top;
        self
    }

    /// The sums over every request.
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// The sums per op and width, in the order first seen (requests added
    /// by [`add_request`](Tally::add_request) first).
    pub fn by_op(&self) -> Vec<((Op, AccessWidth), Totals)> {
        let mut by_op = self.by_op.clone();
        for entry in &self.entries {
            if let Key::Code { .. } = entry.key {
                match by_op.iter_mut().find(|(known, _)| *known == entry.op) {
                    Some((_, totals)) => totals.merge(&entry.totals),
                    None => by_op.push((entry.op, entry.totals)),
                }
            }
        }
        by_op
    }

    /// The capabilities predicted on, in the order first used.
    pub fn capabilities(&self) -> &[ComputeCapability] {
        &self.archs
    }

    /// Every instruction counted: kernels' PCs, labels, and the best
    /// unlabelled requests.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().chain(&self.unnamed)
    }

    /// The name of a kernel of [`Key::Code`] (empty for a kernel without
    /// one).
    pub fn kernel_name(&self, kernel: u32) -> &str {
        self.kernel_names.get(kernel as usize).map_or("", |n| n)
    }

    /// Instructions that are not shared-memory requests: the
    /// synchronisation events (barriers, fences, cp.async groups), and what a
    /// source counted ([`add_other_instructions`](Tally::add_other_instructions)).
    pub fn other_instructions(&self) -> u64 {
        self.other_instructions
    }

    /// Adds instructions that are not shared-memory requests (a source's
    /// count: no event tells them).
    pub fn add_other_instructions(&mut self, count: u64) {
        self.other_instructions += count;
    }

    /// Instructions that touch shared memory in a way the model does not
    /// model, by name ([`Event::Unmodelled`]).
    pub fn unmodelled(&self) -> &BTreeMap<Box<str>, u64> {
        &self.unmodelled
    }

    /// The requests whose addresses the source could not compute
    /// ([`Event::UnknownAddress`]), by op and width in the order first seen:
    /// executed, so a profiler counts them as instructions, but not costed
    /// (their wavefronts and bank conflicts are not in any total).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::tally::Tally;
    /// use smem_model::kernel::{Consumer, Event, Site};
    /// use smem_model::{AccessWidth, AtomicKind, LaneSet, Op};
    ///
    /// let mut tally = Tally::new();
    /// let bin = Event::UnknownAddress {
    ///     site: Site::pc(79),
    ///     lanes: LaneSet::FULL,
    ///     op: Op::Atomic(AtomicKind::Add),
    ///     width: AccessWidth::B4,
    ///     name: "atom.shared.add.u32",
    /// };
    /// tally.event(0, &bin)?;
    /// tally.event(1, &bin)?;
    /// assert_eq!(tally.unknown_addresses(), &[((Op::Atomic(AtomicKind::Add), AccessWidth::B4), 2)]);
    /// assert_eq!(tally.totals().requests, 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn unknown_addresses(&self) -> &[((Op, AccessWidth), u64)] {
        &self.unknown_addresses
    }

    /// The compare-and-swap loops counted whole (one request a loop: a PTX
    /// `atom.shared.add.f32`; a trace's rounds come one by one and are not
    /// here), by op: their requests, and the rounds and LDS wavefronts the
    /// loops take when their warp runs alone ([`Cost::instructions`],
    /// [`Cost::load_wavefronts`]).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::tally::{CasLoops, Tally};
    /// use smem_model::kernel::{Consumer, Event, Site};
    /// use smem_model::{AccessWidth, AtomicKind, Op, WarpRequest};
    ///
    /// let mut tally = Tally::new();
    /// // atomicAdd(&total, x) on a shared float by the whole warp: 32 rounds.
    /// let add = WarpRequest::from_fn(Op::Atomic(AtomicKind::AddF32), 4, |_| Some(0))?;
    /// tally.event(0, &Event::Access { site: Site::pc(9), request: add })?;
    /// let op = (Op::Atomic(AtomicKind::AddF32), AccessWidth::B4);
    /// assert_eq!(tally.cas_loops(), &[(op, CasLoops { requests: 1, rounds: 32, load_wavefronts: 32 })]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn cas_loops(&self) -> &[((Op, AccessWidth), CasLoops)] {
        &self.cas_loops
    }

    fn add_cas_loops(&mut self, op: (Op, AccessWidth), more: CasLoops) {
        match self.cas_loops.iter_mut().find(|(o, _)| *o == op) {
            Some((_, loops)) => {
                loops.requests += more.requests;
                loops.rounds += more.rounds;
                loops.load_wavefronts += more.load_wavefronts;
            }
            None => self.cas_loops.push((op, more)),
        }
    }

    /// Shared-memory instructions with no active lane: issued, no request.
    pub fn predicated_off(&self) -> u64 {
        self.predicated_off
    }

    /// Constant-memory loads.
    pub fn constant(&self) -> ConstantCounts {
        self.constant
    }

    /// The `wgmma` instructions that read shared memory, and their reads.
    pub fn gmma(&self) -> GmmaCounts {
        self.gmma
    }

    /// `cp.async.ca` requests costed without their global side (the source
    /// did not know the global addresses): their wavefronts are the
    /// shared side's, a lower bound.
    pub fn ldgsts_without_source(&self) -> u64 {
        self.ldgsts_unsourced
    }

    /// `cp.async.cg` (LDGSTS.BYPASS) requests whose wavefronts are an
    /// estimate: not every lane of the warp copies, some lane zero-fills,
    /// the global addresses are unknown, or the lanes' pattern lies outside
    /// where [`ldgsts_bypass_wavefronts`]'s rule was measured exact. The
    /// others' wavefronts are the counter's.
    pub fn ldgsts_bypass_estimated(&self) -> u64 {
        self.bypass.estimated
    }

    /// How far below and above the tally's LDGSTS wavefronts Nsight
    /// Compute's counter can be, where every estimated `cp.async.cg`
    /// ([`ldgsts_bypass_estimated`](Tally::ldgsts_bypass_estimated)) has
    /// known bounds: a copy with a src-size register that every lane reads
    /// shows the bypass rule, or its shared side alone when ptxas gives the
    /// operand predicate `P0` (measured, `tests/data/ncu/cp_async` round 6),
    /// and the PTX does not say which. `None` when some estimated copy has
    /// no known bound (a guard, lanes that zero-fill beside lanes that
    /// read, an unknown source).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::tally::Tally;
    ///
    /// // Nothing estimated: the counter is the figure.
    /// assert_eq!(Tally::new().ldgsts_bypass_bounds(), Some((0, 0)));
    /// ```
    pub fn ldgsts_bypass_bounds(&self) -> Option<(u64, u64)> {
        (self.bypass.unbounded == 0).then_some(self.bypass.spread)
    }

    /// The first [`KEPT_ERRORS`] requests the model refused since the last
    /// [`take_errors`](Tally::take_errors), in the order met.
    pub fn errors(&self) -> &[TallyError] {
        &self.errors
    }

    /// How many requests the model refused in all (kept or not).
    pub fn error_count(&self) -> u64 {
        self.error_count
    }

    /// Takes the errors kept so far (the count stays), so that a reader can
    /// print them as it goes and more are kept.
    pub fn take_errors(&mut self) -> Vec<TallyError> {
        std::mem::take(&mut self.errors)
    }

    fn error(&mut self, reason: String) {
        self.error_count += 1;
        if self.errors.len() < KEPT_ERRORS {
            self.errors.push(TallyError {
                at: self.at,
                reason,
            });
        }
    }

    fn arch(&mut self, capability: ComputeCapability) {
        if !self.archs.contains(&capability) {
            self.archs.push(capability);
        }
    }

    fn intern(&mut self, name: &str) -> u32 {
        match self.kernel_ids.get(name) {
            Some(&id) => id,
            None => {
                let id = self.kernel_names.len() as u32;
                self.kernel_names.push(name.into());
                self.kernel_ids.insert(name.into(), id);
                id
            }
        }
    }

    /// Counts one request of the current kernel at `pc`.
    fn add_code(&mut self, pc: u64, line: Option<u32>, op: (Op, AccessWidth), cost: Cost) {
        self.totals.add(cost);
        let capability = self.config.capability();
        self.arch(capability);
        let kernel = self.kernel;
        // SASS PCs step by 16 and PTX lines by 1: both spread over the slots
        // (`pc >> 4` alone put 16 PTX lines in one slot, and `smem kernel`
        // hashed most requests' instruction again).
        let slot = (pc ^ pc >> 4) as usize % RECENT;
        let (known, known_pc, index) = self.recent[slot];
        let index = if (known, known_pc) == (kernel, pc) {
            index
        } else {
            let next = self.entries.len() as u32;
            let index = *self.codes.entry((kernel, pc)).or_insert(next);
            if index == next {
                self.entries.push(Entry {
                    key: Key::Code { kernel, pc },
                    instruction: self.instruction.as_str().into(),
                    op,
                    first: self.at,
                    source: line.map(|line| (self.source_file.clone(), line)),
                    totals: Totals::default(),
                });
            }
            self.recent[slot] = (kernel, pc, index);
            index
        };
        self.entries[index as usize].totals.add(cost);
    }

    /// Counts one request that is not a kernel's instruction (a corpus
    /// record): under `label` (one entry a label), or as an instruction of
    /// its own, read at `at`, predicted on `config`.
    pub fn add_request(
        &mut self,
        at: Location,
        label: Option<&str>,
        config: BankConfig,
        request: &WarpRequest,
    ) {
        self.at = at;
        let cost = match config.cost(request) {
            Ok(cost) => cost,
            Err(err) => return self.error(err.to_string()),
        };
        let op = (request.op(), request.width());
        self.totals.add(cost);
        self.arch(config.capability());
        match self.by_op.iter_mut().find(|(known, _)| *known == op) {
            Some((_, totals)) => totals.add(cost),
            None => {
                let mut totals = Totals::default();
                totals.add(cost);
                self.by_op.push((op, totals));
            }
        }
        let mut totals = Totals::default();
        totals.add(cost);
        match label {
            Some(label) => {
                let next = self.entries.len() as u32;
                let index = match self.labels.get(label) {
                    Some(&index) => index,
                    None => {
                        self.labels.insert(label.into(), next);
                        self.entries.push(Entry {
                            key: Key::Label(label.into()),
                            instruction: Box::from(""),
                            op,
                            first: at,
                            source: None,
                            totals: Totals::default(),
                        });
                        next
                    }
                };
                self.entries[index as usize].totals.add(cost);
            }
            None => {
                let top = self.top;
                let rank = (Reverse(totals.bank_conflicts), at);
                // Entries are built only for requests that make the ranking.
                if top > 0 && (self.unnamed.len() < top || rank < self.unnamed[top - 1].rank()) {
                    let entry = Entry {
                        key: Key::Record(at),
                        instruction: Box::from(""),
                        op,
                        first: at,
                        source: None,
                        totals,
                    };
                    keep_best(&mut self.unnamed, entry, top);
                }
            }
        }
    }

    /// Adds another tally's counts: the result is the tally of both inputs
    /// (kernels matched by name, instructions by kernel and PC or label).
    /// Locations must index the same inputs in both (as the parts of one
    /// reading do).
    pub fn merge(&mut self, other: Tally) {
        self.totals.merge(&other.totals);
        for cc in &other.archs {
            self.arch(*cc);
        }
        for (op, totals) in &other.by_op {
            match self.by_op.iter_mut().find(|(known, _)| known == op) {
                Some((_, known)) => known.merge(totals),
                None => self.by_op.push((*op, *totals)),
            }
        }
        let kernels: Vec<u32> = other
            .kernel_names
            .iter()
            .map(|name| self.intern(name))
            .collect();
        for mut entry in other.entries {
            let index = match &mut entry.key {
                Key::Code { kernel, pc } => {
                    *kernel = kernels[*kernel as usize];
                    self.codes.get(&(*kernel, *pc)).copied()
                }
                Key::Label(label) => self.labels.get(label).copied(),
                Key::Record(_) => None,
            };
            match index {
                Some(at) => self.entries[at as usize].merge(entry),
                None => {
                    let next = self.entries.len() as u32;
                    match &entry.key {
                        Key::Code { kernel, pc } => {
                            self.codes.insert((*kernel, *pc), next);
                        }
                        Key::Label(label) => {
                            self.labels.insert(label.clone(), next);
                        }
                        Key::Record(_) => {}
                    }
                    self.entries.push(entry);
                }
            }
        }
        self.recent = [(u32::MAX, 0, 0); RECENT];
        for entry in other.unnamed {
            keep_best(&mut self.unnamed, entry, self.top);
        }
        self.other_instructions += other.other_instructions;
        for (name, count) in other.unmodelled {
            *self.unmodelled.entry(name).or_default() += count;
        }
        for (op, loops) in other.cas_loops {
            self.add_cas_loops(op, loops);
        }
        for (op, count) in other.unknown_addresses {
            self.add_unknown_address(op, count);
        }
        self.predicated_off += other.predicated_off;
        self.constant.merge(&other.constant);
        self.gmma.instructions += other.gmma.instructions;
        self.gmma.wavefronts += other.gmma.wavefronts;
        self.gmma.conflicts += other.gmma.conflicts;
        self.ldgsts_unsourced += other.ldgsts_unsourced;
        self.bypass.add(&other.bypass);
        self.error_count += other.error_count;
        for error in other.errors {
            if self.errors.len() < KEPT_ERRORS {
                self.errors.push(error);
            }
        }
        self.errors.sort_by_key(|e| e.at);
    }

    /// The `top` instructions with the most bank conflicts, ties broken by
    /// first appearance.
    pub fn ranking(&self, top: usize) -> Vec<&Entry> {
        let mut all: Vec<&Entry> = self.entries().collect();
        // The best `top` first (linear), then only those sorted: a trace can
        // have hundreds of thousands of instructions.
        if all.len() > top {
            if top > 0 {
                all.select_nth_unstable_by_key(top - 1, |e| e.rank());
            }
            all.truncate(top);
        }
        all.sort_by_key(|e| e.rank());
        all
    }

    /// The source lines (from the PTX's `.loc`), every instruction of a line
    /// summed, most bank conflicts first (then most wavefronts, then by
    /// name): what `smem kernel --by-line` and Python's `KernelRun.by_line`
    /// give. Instructions without a source line are one entry whose
    /// `source_line` is `None`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::tally::Tally;
    ///
    /// assert!(Tally::new().by_line().is_empty());
    /// ```
    pub fn by_line(&self) -> Vec<LineTotals> {
        let mut by: BTreeMap<Option<String>, (Vec<String>, Totals)> = BTreeMap::new();
        for entry in self.entries() {
            let name = entry
                .source
                .as_ref()
                .map(|(file, line)| source_name(file.as_deref(), *line));
            let slot = by.entry(name).or_default();
            slot.1.merge(&entry.totals);
            let op = entry.instruction.to_string();
            if !slot.0.contains(&op) {
                slot.0.push(op);
            }
        }
        let mut out: Vec<LineTotals> = by
            .into_iter()
            .map(|(source_line, (instructions, totals))| LineTotals {
                source_line,
                instructions,
                totals,
            })
            .collect();
        out.sort_by_key(|l| Reverse((l.totals.bank_conflicts, l.totals.wavefronts)));
        out
    }
}

/// One source line's requests ([`Tally::by_line`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineTotals {
    /// `file.cu:12` (the file's name without its directories), the line
    /// alone where the PTX names no file, `None` for instructions without a
    /// source line.
    pub source_line: Option<String>,
    /// Its instructions as written, in order of first appearance.
    pub instructions: Vec<String>,
    /// Their requests' sums.
    pub totals: Totals,
}

/// A source line as `smem kernel` and Python show it: `file.cu:12`, the
/// file's name without its directories, or the line alone where the PTX
/// names no file.
pub fn source_name(file: Option<&str>, line: u32) -> String {
    match file {
        Some(file) => format!(
            "{}:{line}",
            std::path::Path::new(file)
                .file_name()
                .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned())
        ),
        None => line.to_string(),
    }
}

/// An op and width as `smem kernel`, `smem trace` and Python name them:
/// `LDS.128`, `ATOMS.ADD.32`; an op of one width only without it
/// (`LDSM.x4`, `ATOMS.CAS.64`, `LDGSTS.BYPASS`).
///
/// # Example
///
/// ```
/// use smem_model::kernel::tally::op_name;
/// use smem_model::{AccessWidth, Op};
///
/// assert_eq!(op_name(Op::Load, AccessWidth::B16), "LDS.128");
/// ```
pub fn op_name(op: Op, width: AccessWidth) -> String {
    match op.fixed_width() {
        None => format!("{op}.{}", 8 * width.bytes()),
        Some(_) => op.to_string(),
    }
}

impl Tally {
    fn add_unknown_address(&mut self, op: (Op, AccessWidth), count: u64) {
        match self
            .unknown_addresses
            .iter_mut()
            .find(|(known, _)| *known == op)
        {
            Some((_, n)) => *n += count,
            None => self.unknown_addresses.push((op, count)),
        }
    }

    /// A `cp.async.cg` (LDGSTS.BYPASS) instruction's wavefronts, and how the
    /// figure relates to what Nsight Compute's counter was measured to show
    /// (`tests/data/ncu/cp_async/README.md`, rounds 1 to 6):
    ///
    /// - unguarded, without a src-size register: the rule of
    ///   [`ldgsts_bypass_wavefronts`], exact where it was measured exact, for
    ///   a whole warp;
    /// - a src-size register (SASS's source predicate operand, Triton's
    ///   form) and every lane reading: the same rule; every lane
    ///   zero-filling: the shared side. Both measured, but Nsight Compute's
    ///   instrumentation reads the operand as false when ptxas puts it in
    ///   `P0` (the shared side alone then), which PTX does not say: where
    ///   the rule and the shared side differ the figure is an estimate
    ///   between the two;
    /// - some lanes reading and some zero-filling, or a guard and a src-size
    ///   register (SASS `.ZFILL`): twice the rule over the readers plus the
    ///   shared side of the quarter-warps with no reader, which the four
    ///   such probes took (rounds 1 and 6), as an estimate;
    /// - a guard: the rule over the lanes the guard passes, which the
    ///   counter shows when ptxas guards with `P1` to `P6`; with `P0` it
    ///   shows no lane (`@P0`) or every lane with whatever its registers
    ///   hold (`@!P0`): an estimate.
    fn bypass(
        &self,
        request: &WarpRequest,
        reads: u32,
        global: &[u32; 32],
        form: Form,
    ) -> (u32, Claim) {
        let active = request.active().bits();
        let whole = active == u32::MAX;
        let readers = request.with_mask(LaneSet::from_bits(reads));
        let shared = readers.to_array().map(|a| a.unwrap_or(u32::MAX));
        let rule = ldgsts_bypass_wavefronts(&shared, global);
        let shared_side = |r: &WarpRequest| self.config.cost(r).map_or(0, |c| c.wavefronts());
        let (reads, fillers) = (reads & active, active & !reads);
        let exact_if = |measured: bool| {
            if measured {
                Claim::Exact
            } else {
                Claim::Unbounded
            }
        };
        match form {
            Form::Plain => (
                rule.wavefronts,
                exact_if(rule.exact && whole && fillers == 0),
            ),
            Form::Guarded => (rule.wavefronts, Claim::Unbounded),
            Form::ZeroFill if fillers == 0 => {
                let side = shared_side(request);
                let claim = match (rule.exact && whole, rule.wavefronts == side) {
                    (false, _) => Claim::Unbounded,
                    (true, true) => Claim::Exact,
                    (true, false) => {
                        Claim::Between(rule.wavefronts.min(side), rule.wavefronts.max(side))
                    }
                };
                (rule.wavefronts, claim)
            }
            Form::ZeroFill | Form::GuardedZeroFill if reads == 0 => (
                shared_side(request),
                exact_if(whole && form == Form::ZeroFill),
            ),
            Form::ZeroFill | Form::GuardedZeroFill => {
                // The quarter-warps (8 lanes) with no reader.
                let quiet = (0..4)
                    .filter(|q| reads >> (8 * q) & 0xff == 0)
                    .fold(0u32, |m, q| m | 0xff << (8 * q));
                let zeros = request.with_mask(LaneSet::from_bits(fillers & quiet));
                let zeros = if zeros.active().is_empty() {
                    0
                } else {
                    shared_side(&zeros)
                };
                (2 * rule.wavefronts + zeros, Claim::Unbounded)
            }
        }
    }
}

/// Inserts `entry` into `best`, keeping the `top` best ranked.
fn keep_best(best: &mut Vec<Entry>, entry: Entry, top: usize) {
    if top == 0 {
        return;
    }
    let at = best.partition_point(|i| i.rank() < entry.rank());
    if at < top {
        best.insert(at, entry);
        best.truncate(top);
    }
}

impl Consumer for Tally {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.parts.clear();
        self.kernel = self.intern(kernel.name);
        let capability = self
            .capability
            .or(kernel.capability)
            .unwrap_or(DEFAULT_CAPABILITY);
        if self.config.capability() != capability {
            self.config = BankConfig::new(capability);
        }
        Ok(())
    }

    fn place(&mut self, place: &Place<'_>) {
        self.at = Location {
            input: place.input,
            line: place.line,
        };
        self.instruction.clear();
        self.instruction.push_str(place.instruction);
        if self.source_file.as_deref() != place.source_file {
            self.source_file = place.source_file.map(Box::from);
        }
    }

    /// Predicts and counts an access or a compare-and-swap round; counts the
    /// rest by kind. A request the model refuses is kept as an error
    /// ([`Tally::errors`]), not returned: the tally goes on.
    fn event(&mut self, _warp: u32, event: &Event<'_>) -> Result<(), Error> {
        match *event {
            Event::Access { site, ref request } | Event::CasRound { site, ref request } => {
                if request.active().is_empty() {
                    self.predicated_off += 1;
                    return Ok(());
                }
                let mut cost = if matches!(event, Event::CasRound { .. }) {
                    self.config.cas_round_cost(request)
                } else {
                    self.config.cost(request)
                };
                let source = self.source.take();
                let source = source.filter(|&(pc, ..)| pc == site.pc);
                if request.op() == Op::CpAsync(CpAsync::Ca) {
                    match source {
                        Some((_, reads, global, _)) => {
                            let shared = request.to_array().map(|a| a.unwrap_or(u32::MAX));
                            let w = ldgsts_wavefronts(
                                request.width().bytes(),
                                &shared,
                                &global,
                                LaneSet::from_bits(reads),
                            );
                            cost = cost.map(|c| c.with_wavefronts(w));
                        }
                        None => self.ldgsts_unsourced += 1,
                    }
                } else if request.op() == Op::CpAsync(CpAsync::Cg) {
                    match source {
                        Some((_, reads, global, form)) => {
                            let (wavefronts, claim) = self.bypass(request, reads, &global, form);
                            cost = cost.map(|c| c.replacing_wavefronts(wavefronts));
                            match claim {
                                Claim::Exact => {}
                                Claim::Between(low, high) => {
                                    self.bypass.estimated += 1;
                                    self.bypass.spread.0 += u64::from(wavefronts - low);
                                    self.bypass.spread.1 += u64::from(high - wavefronts);
                                }
                                Claim::Unbounded => {
                                    self.bypass.estimated += 1;
                                    self.bypass.unbounded += 1;
                                }
                            }
                        }
                        None => {
                            self.bypass.estimated += 1;
                            self.bypass.unbounded += 1;
                        }
                    }
                }
                match cost {
                    Ok(cost) => {
                        let op = (request.op(), request.width());
                        if matches!(event, Event::Access { .. }) && op.0.is_cas_loop(op.1) {
                            let loops = CasLoops {
                                requests: 1,
                                rounds: u64::from(cost.instructions()),
                                load_wavefronts: u64::from(cost.load_wavefronts()),
                            };
                            self.add_cas_loops(op, loops);
                        }
                        self.add_code(site.pc, site.line, op, cost)
                    }
                    Err(err) => {
                        let reason = format!("{}: {err}", self.instruction);
                        self.error(reason);
                    }
                }
            }
            Event::Unmodelled { name, .. } => match self.unmodelled.get_mut(name) {
                Some(count) => *count += 1,
                None => {
                    self.unmodelled.insert(name.into(), 1);
                }
            },
            Event::UnknownAddress {
                lanes, op, width, ..
            } => {
                if lanes.is_empty() {
                    self.predicated_off += 1;
                } else {
                    self.add_unknown_address((op, width), 1);
                }
            }
            Event::CpAsyncSource {
                site,
                lanes,
                offsets,
                zero_fill,
                guarded,
            } => {
                let form = match (zero_fill, guarded) {
                    (true, true) => Form::GuardedZeroFill,
                    (true, false) => Form::ZeroFill,
                    (false, true) => Form::Guarded,
                    (false, false) => Form::Plain,
                };
                self.source = Some((site.pc, lanes.bits(), offsets, form));
            }
            // The reads' cost was counted with the instruction.
            Event::GmmaReads { .. } => {}
            Event::Gmma {
                lanes,
                wavefronts,
                conflicts,
                ..
            } => {
                if lanes.is_empty() {
                    self.predicated_off += 1;
                } else {
                    self.gmma.instructions += 1;
                    self.gmma.wavefronts += wavefronts;
                    self.gmma.conflicts += conflicts;
                }
            }
            Event::ConstantLoad { load, .. } => match load {
                Some(load) => {
                    self.constant.loads += 1;
                    self.constant.requests += u64::from(load.requests(self.config.capability()));
                }
                None => self.constant.without_addresses += 1,
            },
            // Synchronisation costs no wavefront: an instruction that is not
            // a shared-memory request.
            _ => self.other_instructions += 1,
        }
        Ok(())
    }

    /// Adds the block's counts as the class's first repeat gave them (see
    /// [`Consumer::repeat_block`]): the same as counting its events, at the
    /// cost of a few sums (why it is the same: the `repeat` module's docs,
    /// in the source).
    fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        self.repeat(block, repeat)
    }
}
