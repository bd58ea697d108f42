//! A kernel's shared-memory events, from its sources to its consumers.
//!
//! A *source* reads a kernel in some form and produces, for each thread block,
//! what the block's warps do to shared memory, warp by warp in program order:
//! an [`Event`]. A *consumer* takes those events and answers a question about
//! them. The data flow is
//!
//! ```text
//!   sources                      events                 consumers
//!   Accel-Sim / NVBit trace  --\                    /--> kernel tally (smem trace)
//!                               >-- Event, per  ---<
//!   PTX (interpreted)        --/    block, warp     \--> Block (smem racecheck)
//! ```
//!
//! Every source drives a [`Consumer`]: it announces a kernel
//! ([`Consumer::begin_kernel`]), each of its blocks ([`Consumer::begin_block`]),
//! the block's events ([`Consumer::event`]), and the ends of both. Within a
//! block, one warp's events come in that warp's program order; the events of
//! different warps may be interleaved in any way (the consumers that care about
//! order, such as [`Block`](crate::Block), model every interleaving a scheduler
//! could choose).
//!
//! Nothing here allocates per event: an [`Event`] borrows its names from the
//! source (a trace line, a PTX module) and holds its request by value.
//!
//! # Example
//!
//! A consumer that counts the shared-memory requests and barriers of a block,
//! driven by hand as a source would drive it:
//!
//! ```
//! use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Site};
//! use smem_model::{Error, LaneSet, Op, WarpRequest};
//!
//! #[derive(Default)]
//! struct Count {
//!     requests: u64,
//!     barriers: u64,
//! }
//!
//! impl Consumer for Count {
//!     fn event(&mut self, _warp: u32, event: &Event<'_>) -> Result<(), Error> {
//!         match event {
//!             Event::Access { .. } => self.requests += 1,
//!             Event::Barrier { .. } => self.barriers += 1,
//!             _ => {}
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let mut count = Count::default();
//! count.begin_kernel(&KernelInfo::named("reverse"))?;
//! count.begin_block(&BlockInfo::new([0, 0, 0], Some(64)))?;
//! for warp in 0..2 {
//!     let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(4 * (32 * warp + lane.get())))?;
//!     let site = Site::pc(0x40);
//!     count.event(warp, &Event::Access { site, request: store })?;
//!     count.event(warp, &Event::Barrier { site: Site::pc(0x50), lanes: LaneSet::FULL, id: 0, threads: None, kind: smem_model::kernel::BarrierKind::Sync })?;
//! }
//! count.end_block()?;
//! count.end_kernel()?;
//! assert_eq!((count.requests, count.barriers), (2, 2));
//! # Ok::<(), Error>(())
//! ```

#[cfg(feature = "trace")]
pub mod accelsim;
pub mod ncu;
#[cfg(feature = "ptx")]
pub mod ptx;
mod repeat;
pub mod tally;

pub(crate) use repeat::PerClass;
pub use repeat::{BlockClass, Repeat};
// What records a class's calls: the PTX interpreter's tapes (and tests).
#[cfg(test)]
pub(crate) use repeat::testing;
#[cfg(any(feature = "ptx", test))]
pub(crate) use repeat::{Recall, Recorded};

use crate::{AccessWidth, ComputeCapability, ConstantLoad, Error, LaneSet, Op, WarpRequest};

/// The bits of a `cp.async.ca`'s global address that
/// [`Event::CpAsyncSource`] carries: the low 7, all a lane's bank
/// (`(address / 4) % 32`) depends on, and all
/// [`ldgsts_wavefronts`](tally::ldgsts_wavefronts) reads. A source that
/// sends no more lets blocks whose copies differ only above them share one
/// interpretation, and loses nothing: the wavefronts were measured to
/// depend on the banks alone (`tests/ptx_cp_async.rs`).
///
/// # Example
///
/// ```
/// use smem_model::kernel::CP_ASYNC_SOURCE_MASK;
///
/// // 0x1000_00c4 is in bank 17, and so are its low 7 bits, 0x44.
/// let address: u32 = 0x1000_00c4;
/// assert_eq!(address & CP_ASYNC_SOURCE_MASK, 0x44);
/// assert_eq!(address / 4 % 32, 17);
/// assert_eq!((address & CP_ASYNC_SOURCE_MASK) / 4 % 32, 17);
/// ```
pub const CP_ASYNC_SOURCE_MASK: u32 = 127;

/// Where an event comes from in the kernel: the instruction's address and,
/// where the source knows it, its source line.
///
/// For a trace, `pc` is the SASS instruction's offset in the kernel; for PTX,
/// the index of the PTX instruction in its function. Sources say which.
///
/// # Example
///
/// ```
/// use smem_model::kernel::Site;
///
/// let site = Site::pc(0x1a0).with_line(42);
/// assert_eq!(site.pc, 0x1a0);
/// assert_eq!(site.line, Some(42));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Site {
    /// The instruction's address (SASS offset or PTX instruction index).
    pub pc: u64,
    /// The source file, as an index the source defines (the `.file` number of
    /// PTX, the order of first appearance in a trace), where known.
    pub file: Option<u32>,
    /// The source line, where known (a trace with lineinfo, PTX `.loc`).
    pub line: Option<u32>,
}

impl Site {
    /// A site known only by its instruction address.
    pub const fn pc(pc: u64) -> Self {
        Site {
            pc,
            file: None,
            line: None,
        }
    }

    /// The same site with a source line.
    #[must_use]
    pub const fn with_line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    /// The same site with a source file index.
    #[must_use]
    pub const fn with_file(mut self, file: u32) -> Self {
        self.file = Some(file);
        self
    }
}

/// Which barrier instruction a [`Event::Barrier`] is (PTX ISA, `bar`,
/// `barrier`).
///
/// # Example
///
/// ```
/// use smem_model::kernel::BarrierKind;
///
/// // bar.arrive does not wait: a producer signals, consumers wait with bar.sync.
/// assert!(!BarrierKind::Arrive.waits());
/// assert!(BarrierKind::Sync.waits());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum BarrierKind {
    /// `bar.sync` / `barrier.sync` (`__syncthreads()` is `bar.sync 0`): the
    /// warp waits until the barrier completes.
    Sync,
    /// `bar.arrive` / `barrier.arrive`: the warp counts towards the barrier and
    /// goes on without waiting.
    Arrive,
    /// `bar.red` / `barrier.red` (`__syncthreads_count/and/or`): waits as
    /// `bar.sync` does, and reduces a predicate.
    Reduce,
}

impl BarrierKind {
    /// Whether the warp waits at the barrier (every kind but `Arrive`).
    pub const fn waits(self) -> bool {
        !matches!(self, BarrierKind::Arrive)
    }
}

/// What one warp instruction does to shared memory, as one of the block's
/// events.
///
/// `lanes` is the set of lanes that execute the instruction (active and not
/// predicated off). A source emits an event even when `lanes` is empty (a
/// fully predicated-off instruction is still issued; what the consumers count
/// for it is theirs to say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A shared-memory request: loads, stores, atomics, `ldmatrix`/`stmatrix`,
    /// the shared side of `cp.async`. The request's active lanes are the lanes
    /// that execute it.
    Access {
        /// Where it comes from.
        site: Site,
        /// The request (op, width, lanes, shared addresses).
        request: WarpRequest,
    },
    /// One round of a compare-and-swap loop by which the compiler emulates an
    /// atomic the hardware lacks (SASS `ATOMS.CAST.SPIN` for a float or 64-bit
    /// shared `atomicAdd`): `request` is the emulated atomic's (op, width) over
    /// the lanes still pending and their words. It writes as that atomic does;
    /// its cost is the round's
    /// ([`BankConfig::cas_round_cost`](crate::BankConfig::cas_round_cost)),
    /// not the whole loop's.
    CasRound {
        /// Where it comes from.
        site: Site,
        /// The emulated atomic, over the pending lanes.
        request: WarpRequest,
    },
    /// A barrier: `bar.sync`, `bar.arrive`, `bar.red` with its id and, where the
    /// instruction gives one, its expected thread count (none: every thread of
    /// the block).
    Barrier {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// The barrier, 0 to 15.
        id: u32,
        /// The threads it waits for, where given.
        threads: Option<u32>,
        /// Sync, arrive or reduce.
        kind: BarrierKind,
    },
    /// `__syncwarp(mask)` (`bar.warp.sync`, SASS `WARPSYNC`).
    SyncWarp {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// Its mask operand.
        mask: LaneSet,
    },
    /// A memory fence (`membar.cta`, `fence.*`, `__threadfence_block()`): orders
    /// a thread's own accesses, synchronises nothing.
    Fence {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
    },
    /// The global side of the `cp.async` whose [`Event::Access`] follows:
    /// what its wavefronts read of each reading lane's global address (a
    /// lane with a src-size of 0 reads none). `.ca`'s depend on the low 7
    /// bits alone, [`CP_ASYNC_SOURCE_MASK`] of it (measured: the data passes
    /// through the L1's banks, a lane's bank being `(address / 4) % 32`, see
    /// [`ldgsts_wavefronts`](crate::kernel::tally::ldgsts_wavefronts));
    /// `.cg`'s on which lanes read one 128-byte global line and where in
    /// it (measured: a 128-byte global line into a 128-byte shared line at
    /// a time, see
    /// [`ldgsts_bypass_wavefronts`](crate::kernel::tally::ldgsts_bypass_wavefronts)),
    /// which each lane's address less the first reading lane's line tells
    /// (its low 7 bits are the address's own, the rest say which lanes
    /// share a line), with a src-size register or not. Sending no more
    /// lets blocks whose copies differ only in what no figure reads share
    /// one interpretation: a persistent GEMM's blocks copy tiles at
    /// different addresses in the same pattern.
    /// A source that does not know the addresses does not send it.
    CpAsyncSource {
        /// Where it comes from.
        site: Site,
        /// The lanes that read global memory.
        lanes: LaneSet,
        /// Each reading lane's global address: `& CP_ASYNC_SOURCE_MASK` for
        /// `.ca`; for `.cg`, less the first reading lane's 128-byte line
        /// (`address & !127`), in 32 bits (two lanes' lines are equal where
        /// their addresses' low 32 bits say so, as before). 0 for a lane
        /// that does not read.
        offsets: [u32; 32],
        /// Whether the src-size operand is a register (SASS gives the
        /// LDGSTS a source predicate operand, which Nsight Compute's
        /// instrumentation misreads when it is `P0`:
        /// `tests/data/ncu/cp_async/README.md`, round 6).
        zero_fill: bool,
        /// Whether the PTX instruction has a guard predicate (SASS predicates
        /// it; Nsight Compute's instrumentation misreads a `P0` guard of an
        /// LDGSTS.BYPASS, `tests/data/ncu/cp_async/README.md`, round 6).
        guarded: bool,
    },
    /// `cp.async.commit_group` (SASS `LDGDEPBAR`): the lanes' outstanding
    /// `cp.async` writes form a group.
    CpAsyncCommit {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
    },
    /// `cp.async.wait_group N` (SASS `DEPBAR.LE SB0, N`), or
    /// `cp.async.wait_all` with `pending` 0: the lanes wait until at most
    /// `pending` of their committed groups are incomplete (PTX ISA, cp.async
    /// completion mechanisms).
    CpAsyncWait {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// Groups that may still be pending after the wait.
        pending: u32,
    },
    /// `cp.async.mbarrier.arrive`: the lanes' earlier `cp.async` writes complete
    /// before the mbarrier phase they arrive on.
    CpAsyncArrive {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
    },
    /// One warp's part of a warpgroup's `wgmma.mma_async` (SASS `HGMMA`,
    /// `IGMMA`, `QGMMA`, ...) that reads operands from shared memory through
    /// matrix descriptors. Every warp of the warpgroup executes the
    /// instruction and counts one (Nsight Compute's
    /// `smsp__sass_inst_executed_op_shared_gmma`); the operand reads happen
    /// once for the warpgroup, so only its first warp's event carries their
    /// wavefronts (0 in the others). The reads themselves come later, as
    /// [`Event::GmmaReads`].
    Gmma {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// The wavefronts the reads take
        /// (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma`).
        wavefronts: u64,
        /// Those of them beyond one a core matrix: bank conflicts.
        conflicts: u64,
    },
    /// The operand reads of a `wgmma.mma_async` (at `site`), by its
    /// warpgroup's first warp, at the last moment they can happen: the
    /// `wgmma.wait_group` that retires its group (the hardware reads
    /// asynchronously between the instruction and that wait). For the race
    /// checker; not an instruction.
    GmmaReads {
        /// The `wgmma`'s site.
        site: Site,
        /// The shared-memory offset of each 16-byte chunk read, A's (where
        /// from shared memory) then B's, 8 chunks a core matrix.
        chunks: &'a [u32],
    },
    /// An `mbarrier` instruction (PTX ISA, mbarrier), as the source saw it
    /// run: the mbarrier at shared offset `barrier`, and what the lanes did
    /// to it. Phases count from 0 at its `init`.
    Mbarrier {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// The mbarrier's shared offset.
        barrier: u32,
        /// What they did.
        op: MbarrierOp,
    },
    /// A bulk copy's shared side (`cp.async.bulk`, TMA's
    /// `cp.async.bulk.tensor`): the async proxy writes (a load into shared
    /// memory) or reads (a store from it) the bytes of `runs`. Not an LSU
    /// request: Nsight Compute counts none of it in the shared wavefront
    /// counters (measured, tests/data/ptx/tma_layout). A load completes its
    /// bytes on the mbarrier of `barrier` in the phase given.
    BulkCopy {
        /// Where it comes from.
        site: Site,
        /// The lanes that issue it.
        lanes: LaneSet,
        /// The shared bytes, as sorted disjoint `(start, length)` runs.
        runs: &'a [(u32, u32)],
        /// Whether it writes shared memory (a load) or reads it (a store).
        write: bool,
        /// The mbarrier it completes on and the phase, for a load.
        barrier: Option<(u32, u32)>,
        /// The instruction.
        name: &'a str,
    },
    /// A constant-memory load (`ld.const`, SASS `LDC`, `ULDC`): not shared
    /// memory and never part of a shared-memory count, but a source reports it
    /// so that a tally can count constant-cache requests apart. `load` is the
    /// lanes' offsets in the constant bank where the source knows them
    /// (Accel-Sim's tracer records none for constant memory: `None`).
    ConstantLoad {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// Bytes a lane reads.
        width: u32,
        /// The load, where its addresses are known.
        load: Option<ConstantLoad>,
    },
    /// An instruction that touches shared memory in a way the model does not
    /// model (TMA copies, `wgmma` operands, `mbarrier`, distributed shared
    /// memory, an address the source cannot compute, ...), named by the source
    /// (`UTMALDG`, `cp.async.bulk.tensor`, ...). Consumers count and name it;
    /// they never drop it silently.
    Unmodelled {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// What it is.
        name: &'a str,
    },
    /// A shared-memory request whose addresses the source cannot compute: the
    /// PTX interpreter's address that depends on global memory or on another
    /// value it does not know (a histogram's bins). The instruction executes
    /// and is one request of `op` and `width` (a profiler counts it), but its
    /// wavefronts and the races it could take part in are unknown. Consumers
    /// count it apart and name it; they never guess its cost. (Accel-Sim
    /// traces record every address: their reader never emits it.)
    UnknownAddress {
        /// Where it comes from.
        site: Site,
        /// The lanes that execute it.
        lanes: LaneSet,
        /// The request's op.
        op: Op,
        /// The bytes each lane accesses.
        width: AccessWidth,
        /// What it is (the instruction's name).
        name: &'a str,
    },
}

impl Event<'_> {
    /// Where the event comes from.
    pub const fn site(&self) -> Site {
        match *self {
            Event::Access { site, .. }
            | Event::CasRound { site, .. }
            | Event::Barrier { site, .. }
            | Event::SyncWarp { site, .. }
            | Event::Fence { site, .. }
            | Event::CpAsyncSource { site, .. }
            | Event::CpAsyncCommit { site, .. }
            | Event::CpAsyncWait { site, .. }
            | Event::CpAsyncArrive { site, .. }
            | Event::Mbarrier { site, .. }
            | Event::BulkCopy { site, .. }
            | Event::ConstantLoad { site, .. }
            | Event::Gmma { site, .. }
            | Event::GmmaReads { site, .. }
            | Event::Unmodelled { site, .. }
            | Event::UnknownAddress { site, .. } => site,
        }
    }

    /// The lanes that execute the instruction.
    pub const fn lanes(&self) -> LaneSet {
        match *self {
            Event::Access { ref request, .. } | Event::CasRound { ref request, .. } => {
                request.active()
            }
            Event::Barrier { lanes, .. }
            | Event::SyncWarp { lanes, .. }
            | Event::Fence { lanes, .. }
            | Event::CpAsyncSource { lanes, .. }
            | Event::CpAsyncCommit { lanes, .. }
            | Event::CpAsyncWait { lanes, .. }
            | Event::CpAsyncArrive { lanes, .. }
            | Event::Mbarrier { lanes, .. }
            | Event::BulkCopy { lanes, .. }
            | Event::ConstantLoad { lanes, .. }
            | Event::Gmma { lanes, .. }
            | Event::Unmodelled { lanes, .. }
            | Event::UnknownAddress { lanes, .. } => lanes,
            Event::GmmaReads { .. } => LaneSet::EMPTY,
        }
    }
}

/// What an `mbarrier` instruction did, in [`Event::Mbarrier`].
///
/// # Example
///
/// ```
/// use smem_model::kernel::MbarrierOp;
///
/// // One thread's mbarrier.arrive.expect_tx on phase 0 of a TMA pipeline.
/// let op = MbarrierOp::Arrive { phase: 0, count: 1, tx: 16_384 };
/// assert_ne!(op, MbarrierOp::Wait { phase: 0 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum MbarrierOp {
    /// `mbarrier.init`: `count` arrivals complete each phase.
    Init {
        /// The expected arrival count.
        count: u32,
    },
    /// `mbarrier.arrive{.expect_tx}` (and `cp.async.mbarrier.arrive.noinc`):
    /// each lane arrives `count` times on phase `phase`, expecting `tx`
    /// more transaction bytes.
    Arrive {
        /// The phase arrived on.
        phase: u32,
        /// Arrivals each lane brings.
        count: u32,
        /// Transaction bytes each lane expects.
        tx: u32,
    },
    /// `mbarrier.test_wait` / `try_wait` that observed phase `phase`
    /// complete: what the arrivals and completed copies of that phase did
    /// before is ordered before what the lanes do after.
    Wait {
        /// The completed phase observed.
        phase: u32,
    },
    /// A wait on phase `phase`, which never completes (every warp of the
    /// block waits and nothing can arrive): the lanes see it incomplete,
    /// and a kernel that waits on would hang.
    NeverCompletes {
        /// The phase waited for.
        phase: u32,
    },
    /// More arrivals on phase `phase` than it had pending (PTX ISA: the
    /// behaviour is undefined).
    Overflow {
        /// The phase.
        phase: u32,
    },
    /// An arrival on an mbarrier never initialised (or invalidated).
    Uninitialised,
    /// An arrival by lanes whose `cp.async.mbarrier.arrive` (without
    /// `.noinc`) on this mbarrier they have not waited for since: what
    /// compute-sanitizer's synccheck reports as "Missing wait" (measured:
    /// `cuda::pipeline`'s `producer_commit`), once per thread.
    MissingWait,
    /// `mbarrier.inval`.
    Inval,
}

/// What a source knows of a kernel before its blocks.
///
/// # Example
///
/// ```
/// use smem_model::kernel::KernelInfo;
/// use smem_model::ComputeCapability;
///
/// let kernel = KernelInfo::named("_Z9transposePfPKf").with_capability(ComputeCapability::Sm90);
/// assert_eq!(kernel.name, "_Z9transposePfPKf");
/// assert_eq!(kernel.block_dim, None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelInfo<'a> {
    /// The kernel's name (mangled, as the source gives it).
    pub name: &'a str,
    /// The compute capability it was built for or traced on, where known.
    pub capability: Option<ComputeCapability>,
    /// Threads per block in x, y, z, where known.
    pub block_dim: Option<[u32; 3]>,
    /// Blocks in the grid in x, y, z, where known.
    pub grid_dim: Option<[u32; 3]>,
}

impl<'a> KernelInfo<'a> {
    /// A kernel known by its name only.
    pub const fn named(name: &'a str) -> Self {
        KernelInfo {
            name,
            capability: None,
            block_dim: None,
            grid_dim: None,
        }
    }

    /// The same kernel with its compute capability.
    #[must_use]
    pub const fn with_capability(mut self, capability: ComputeCapability) -> Self {
        self.capability = Some(capability);
        self
    }

    /// The same kernel with its block dimensions.
    #[must_use]
    pub const fn with_block_dim(mut self, block_dim: [u32; 3]) -> Self {
        self.block_dim = Some(block_dim);
        self
    }

    /// The same kernel with its grid dimensions.
    #[must_use]
    pub const fn with_grid_dim(mut self, grid_dim: [u32; 3]) -> Self {
        self.grid_dim = Some(grid_dim);
        self
    }
}

/// A thread block, as a source announces it.
///
/// # Example
///
/// ```
/// use smem_model::kernel::BlockInfo;
///
/// let block = BlockInfo::new([3, 1, 0], Some(256));
/// assert_eq!(block.id, [3, 1, 0]);
/// assert_eq!(block.threads, Some(256));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct BlockInfo {
    /// The block's index in the grid (x, y, z).
    pub id: [u32; 3],
    /// Threads in the block, where the source knows them.
    pub threads: Option<u32>,
}

impl BlockInfo {
    /// A block by its index and thread count.
    pub const fn new(id: [u32; 3], threads: Option<u32>) -> Self {
        BlockInfo { id, threads }
    }
}

/// Where in a source's input the events that follow were read: which input
/// (file), which line, and the instruction as the source spells it. Sources
/// that read text pass it to [`Consumer::place`] before an instruction's
/// events, so that a consumer can say where it found something (the
/// tally's "first seen", racecheck's messages).
///
/// # Example
///
/// ```
/// use smem_model::kernel::Place;
///
/// let place = Place::new(0, 42, "LDS.U.128");
/// assert_eq!((place.input, place.line, place.instruction), (0, 42, "LDS.U.128"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Place<'a> {
    /// The input, as an index the source defines (for a trace, the order in
    /// which its files are read, kernel lists' files in their place).
    pub input: u32,
    /// The line in that input, from 1.
    pub line: u64,
    /// The instruction as the source writes it (`LDS.U.128`,
    /// `ld.shared.v4.f32`).
    pub instruction: &'a str,
    /// The name of the instruction's source file, where the source gives
    /// one by name (the [`Site`]'s file is an index).
    pub source_file: Option<&'a str>,
}

impl<'a> Place<'a> {
    /// A place by input, line and instruction text.
    pub const fn new(input: u32, line: u64, instruction: &'a str) -> Self {
        Place {
            input,
            line,
            instruction,
            source_file: None,
        }
    }

    /// The same place with the name of the instruction's source file.
    #[must_use]
    pub const fn with_source_file(mut self, file: &'a str) -> Self {
        self.source_file = Some(file);
        self
    }
}

/// What takes a kernel's events: a source calls `begin_kernel`, then for each
/// block `begin_block`, that block's events through `event`, and `end_block`;
/// then `end_kernel`.
///
/// Every method but [`event`](Consumer::event) does nothing by default. An
/// error stops the source, which returns it.
///
/// # Errors
///
/// Each method returns the consumer's own error; a source passes it on
/// unchanged.
pub trait Consumer {
    /// A kernel starts.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        let _ = kernel;
        Ok(())
    }

    /// A block of the current kernel starts.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        let _ = block;
        Ok(())
    }

    /// The events that follow, up to the next call, were read at `place`.
    /// Sources that read text call it before each instruction's events; the
    /// default ignores it.
    fn place(&mut self, place: &Place<'_>) {
        let _ = place;
    }

    /// Warp `warp` (0-based within the block: threads `32 * warp` to
    /// `32 * warp + 31`) does `event`.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error>;

    /// Warp `warp` does `event`, a store ([`Event::Access`] of
    /// [`Op::Store`]) whose lanes `unchanged` write the
    /// bytes shared memory already holds, as far as the source knows: a source
    /// that tracks values (the PTX interpreter) says so, because a store of
    /// the value memory holds forms no write-after-write hazard
    /// ([`Block::access_unchanged`](crate::Block::access_unchanged), measured
    /// with compute-sanitizer). Sources without values (Accel-Sim traces)
    /// never call it. The default forgets `unchanged` and calls
    /// [`event`](Self::event): only a race checker
    /// ([`Racecheck`](crate::Racecheck)) needs it, and a consumer that passes
    /// events on passes this on too.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        let _ = unchanged;
        self.event(warp, event)
    }

    /// The current block ends.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn end_block(&mut self) -> Result<(), Error> {
        Ok(())
    }

    /// Block `block` makes exactly the calls an earlier block of its class
    /// made between its `begin_block` and its `end_block` (see [`Repeat`]):
    /// a source that knows this (the PTX interpreter, for blocks that run
    /// alike) calls this instead of those three.
    ///
    /// The default gives the calls: `begin_block(block)`, every call of
    /// [`Repeat::replay`], `end_block()`. A consumer whose part of a block
    /// is a function of the block's calls and of its [`BlockInfo`] (sums,
    /// reports that name the block) may instead work that part out once a
    /// class ([`Repeat::class`]) and add it for each further block. Its
    /// state afterwards must be what the default leaves; only an error may
    /// come at another call (the source stops at the first error either
    /// way). [`Tally`](tally::Tally) and [`Racecheck`](crate::Racecheck) do
    /// so, and a consumer that passes calls on to others passes this on.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    ///
    /// # Example
    ///
    /// A consumer that counts requests per block: each class's count is
    /// taken once and added for its further blocks.
    ///
    /// ```
    /// use std::collections::HashMap;
    ///
    /// use smem_model::kernel::{BlockClass, BlockInfo, Consumer, Event, Repeat};
    /// use smem_model::Error;
    ///
    /// #[derive(Default)]
    /// struct Requests {
    ///     total: u64,
    ///     per_class: HashMap<BlockClass, u64>,
    /// }
    ///
    /// impl Consumer for Requests {
    ///     fn event(&mut self, _warp: u32, event: &Event<'_>) -> Result<(), Error> {
    ///         self.total += u64::from(matches!(event, Event::Access { .. }));
    ///         Ok(())
    ///     }
    ///
    ///     fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
    ///         if let Some(&n) = self.per_class.get(&repeat.class()) {
    ///             self.total += n;
    ///             return Ok(());
    ///         }
    ///         let before = self.total;
    ///         self.begin_block(block)?;
    ///         repeat.replay(self)?;
    ///         self.end_block()?;
    ///         self.per_class.insert(repeat.class(), self.total - before);
    ///         Ok(())
    ///     }
    /// }
    ///
    /// # #[cfg(feature = "ptx")]
    /// # {
    /// use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
    ///
    /// // Four blocks alike, of two warps each storing once: one interpreted
    /// // and given as the class's first repeat, three more added.
    /// let module = ptx::parse(
    ///     ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
    ///      .reg .b32 %r<4>;\n.shared .align 4 .b8 s[256];\nmov.u32 %r1, %tid.x;\n\
    ///      shl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r3, %r3, %r2;\n\
    ///      st.shared.u32 [%r3], %r1;\nret;\n}\n",
    /// )?;
    /// let mut requests = Requests::default();
    /// let launch = KernelLaunch::new([4, 1, 1], [64, 1, 1])?;
    /// let summary = Kernel::new(&module, None)?.run(&launch, &RunOptions::new(), &mut requests)?;
    /// assert_eq!((summary.blocks_interpreted, requests.total), (1, 8));
    /// assert_eq!(requests.per_class.len(), 1);
    /// # }
    /// # Ok::<(), Error>(())
    /// ```
    fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        self.begin_block(block)?;
        repeat.replay(self)?;
        self.end_block()
    }

    /// The current kernel ends.
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn end_kernel(&mut self) -> Result<(), Error> {
        Ok(())
    }
}

/// A consumer borrowed: every call goes to it, so a caller can keep a
/// consumer and still hand it to something that takes one by value (such as
/// a pair, below).
impl<C: Consumer + ?Sized> Consumer for &mut C {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        (**self).begin_kernel(kernel)
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        (**self).begin_block(block)
    }

    fn place(&mut self, place: &Place<'_>) {
        (**self).place(place);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        (**self).event(warp, event)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        (**self).event_unchanged(warp, event, unchanged)
    }

    fn end_block(&mut self) -> Result<(), Error> {
        (**self).end_block()
    }

    fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        (**self).repeat_block(block, repeat)
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        (**self).end_kernel()
    }
}

/// Two consumers fed by one source: every call goes to the first, then to
/// the second (the first's error stops it before the second sees the call),
/// each method as itself, so [`event_unchanged`](Consumer::event_unchanged)
/// and [`repeat_block`](Consumer::repeat_block) reach each consumer's own.
/// Nest pairs for more: `(a, (b, c))`.
///
/// # Example
///
/// The bank-conflict tally and the race checker of one run, as `smem kernel`
/// takes them:
///
/// ```
/// # #[cfg(feature = "ptx")]
/// # {
/// use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
/// use smem_model::kernel::tally::Tally;
/// use smem_model::Racecheck;
///
/// // Each thread stores its index, then reads its neighbour's without a
/// // barrier between: a read-after-write race.
/// let module = ptx::parse(
///     ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
///      .reg .b32 %r<6>;\n.shared .align 4 .b8 s[256];\nmov.u32 %r1, %tid.x;\n\
///      shl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n\
///      st.shared.u32 [%r4], %r1;\nxor.b32 %r5, %r2, 128;\nadd.s32 %r5, %r3, %r5;\n\
///      ld.shared.u32 %r1, [%r5];\nret;\n}\n",
/// )?;
/// let kernel = Kernel::new(&module, None)?;
/// let launch = KernelLaunch::new([1, 1, 1], [64, 1, 1])?;
/// let (mut tally, mut races) = (Tally::new(), Racecheck::new());
/// kernel.run(&launch, &RunOptions::new(), &mut (&mut tally, &mut races))?;
/// assert_eq!(tally.totals().requests, 4);
/// assert_ne!(races.kernels()[0].hazards().len(), 0);
/// # }
/// # Ok::<(), smem_model::Error>(())
/// ```
impl<A: Consumer, B: Consumer> Consumer for (A, B) {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.0.begin_kernel(kernel)?;
        self.1.begin_kernel(kernel)
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        self.0.begin_block(block)?;
        self.1.begin_block(block)
    }

    fn place(&mut self, place: &Place<'_>) {
        self.0.place(place);
        self.1.place(place);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.0.event(warp, event)?;
        self.1.event(warp, event)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        self.0.event_unchanged(warp, event, unchanged)?;
        self.1.event_unchanged(warp, event, unchanged)
    }

    fn end_block(&mut self) -> Result<(), Error> {
        self.0.end_block()?;
        self.1.end_block()
    }

    fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        self.0.repeat_block(block, repeat)?;
        self.1.repeat_block(block, repeat)
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.0.end_kernel()?;
        self.1.end_kernel()
    }
}
