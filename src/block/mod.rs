//! A thread block: its warps' shared accesses and barriers, and the hazards and
//! barrier errors between them (CUDA C++ Programming Guide, synchronization functions).
//!
//! Each warp's events (accesses, barriers, `__syncwarp`, fences) are given in
//! that warp's program order; warps may be given in any interleaving. The
//! model runs them as a scheduler would: a warp that reaches a barrier waits
//! (its later events are held) until every warp the barrier waits for has
//! arrived. Ordering is tracked with vector clocks, one component per warp
//! (a block has at most 32 warps), and per warp the step of its last barrier
//! or `__syncwarp` of all lanes (every lane ordered after every lane up to
//! it) and, once it runs a `__syncwarp` of some lanes, a 32 x 32 matrix of
//! what each lane knows of the others; accesses are checked against a
//! shadow of the accesses since the last block-wide barrier, one record per
//! 4-byte word, instruction, kind and set of the word's bytes (exact per
//! byte), standing for every warp that made that access alike (the warps of a
//! kernel run one program in step: a word that all 32 warps read from one
//! instruction is one record with a set of 32 warps, exactly as 32 records
//! would be). So the model answers for every order the hardware could run the
//! warps in, not just one: two accesses race when no barrier both threads
//! passed separates them.
//!
//! `cp.async` writes ([`AccessKind::AsyncCopy`]) complete at their thread's
//! `cp.async.wait_group` / `wait_all` ([`SyncOp::CpAsyncWait`]); until then
//! every access to their bytes races with them, and after it they are writes
//! that a barrier passed later orders before other threads' accesses (PTX
//! ISA, cp.async.wait_group / cp.async.wait_all: their writes "are made
//! visible to the executing thread only after" the wait; completion
//! mechanisms for asynchronous copy operations). Those a thread completes
//! through `cp.async.mbarrier.arrive` ([`SyncOp::CpAsyncArrive`]) leave the
//! check there, as compute-sanitizer's racecheck forgets them (measured),
//! and only their conflicts within their warp stand: the hazards found with
//! a write in flight are held until its thread completes it, and noted in
//! the order found.
//!
//! # Memory
//!
//! Bounded by one block whatever the input: the shadow holds at most
//! [`Block::MAX_RECORDS`] records (64 MiB; 132 MiB with the room of the
//! arena that holds the words of more than two records, compacted when it
//! holds more than twice the records; about 260 MiB if one word held nearly
//! all of them), in a table of one cell per word up to the highest word
//! touched (at most the capability's shared window, 228 KB: 58,368 cells
//! of 72 bytes, 4.0 MiB).
//! Warps in step share records, so a block needs a record per word and
//! instruction that touched it, not per warp: 32 warps that each read all
//! 228 KB from 8 instructions take 466,944 records (14 MiB), far below the
//! bound; only warps out of step (different lanes or instruction counts on
//! each word) need a record each. While the shadow holds nothing an
//! access conflicts with (no record, or only reads for a read), up to 4,096
//! accesses that race with nothing wait unwritten (about 180 bytes each,
//! 720 KiB), to be written only if a later access may race with one before
//! the next barrier of the whole block: the same records, written later or
//! never. At most [`Block::MAX_PENDING`] events are
//! held behind barriers; hazards are
//! one per pair of instructions (with a bitmap of their bytes per 4 KiB page
//! touched), at most [`Block::MAX_HAZARDS`] listed by default
//! ([`Block::with_max_hazards`]; about 120 bytes each, at most 30 KB with
//! every page's bitmap: 120 MiB), and past the list a 24-byte key each to
//! count them, at most [`Block::MAX_NOT_LISTED`] (3 MiB; then the count is
//! a lower bound). Hazards found with `cp.async` writes in flight wait for
//! their completion, at most 65,536 (about 100 bytes each, 6.4 MiB); past
//! that the oldest is noted as if its write were seen. A block that needs more records is refused with
//! [`Error::ShadowFull`]; past the held events, [`Error::BlockBacklog`]; a
//! warp with more than [`Block::MAX_OPEN_GROUPS`] `cp.async` groups committed
//! and not waited for, with [`Error::OpenCopyGroups`]. The
//! tables are kept when a [`Racecheck`] checks its next block.

mod consumer;
mod report;
mod shadow;
#[cfg(all(test, feature = "proptest"))]
mod tests;

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

pub use consumer::{BarrierFinding, HazardFinding, KernelRaces, Racecheck};
pub use report::{
    AccessKind, BarrierError, BlockReport, Hazard, HazardAccess, HazardKind, MbarrierMisuse,
    Severity,
};

use report::bits;
use shadow::{
    conflicts, relevant, words, AccessAt, Deferred, Record, Shadow, AFFINE_BIT, MAX_RECORDS,
    SITES_PER_WARP,
};

use crate::lane::WARP_SIZE;
use crate::{ComputeCapability, Error, Lane, LaneSet, Op, WarpRequest};

/// Named barriers per block: `bar.sync` takes ids 0 to 15 (PTX ISA, `bar`).
///
/// # Example
///
/// ```
/// use smem_model::BARRIERS;
///
/// // bar.sync 0 to bar.sync 15.
/// assert_eq!(BARRIERS, 16);
/// ```
pub const BARRIERS: u32 = 16;

/// The most accesses [`Shadow::deferred`] holds (about 180 bytes each): a
/// tiled kernel's loads between two barriers, 40 a warp in a block of 32
/// warps (matrixMul), wait unwritten and are dropped by the barrier.
const MAX_DEFERRED: usize = 4096;

/// The most conflicts [`HazardTable::put`] holds while `cp.async` writes are in
/// flight (about 100 bytes each, 6.4 MiB).
const MAX_HELD_FOUND: usize = 1 << 16;

/// The most deferred accesses an access that is not a read is tested
/// against (each of them, where a read is tested against those that are
/// not reads): past that, it is not deferred.
const MAX_DEFERRED_WRITE_SCAN: usize = 256;

// Deferred accesses never hold more records than the shadow may (a record
// a lane and word, at most 4 words a lane), so a block is refused
// (`Error::ShadowFull`) at the access it was refused at before deferring.
const _: () = assert!(MAX_DEFERRED * WARP_SIZE * 4 <= MAX_RECORDS);

/// Whether an op is an atomic (atomics never race with atomics).
pub(crate) fn is_atomic(op: Op) -> bool {
    matches!(op, Op::Atomic(_) | Op::Reduction(_))
}

/// A synchronisation a warp executes.
///
/// # Example
///
/// ```
/// use smem_model::{LaneSet, SyncOp};
///
/// // __syncthreads(), i.e. bar.sync 0
/// let all = SyncOp::Threads;
/// // bar.sync 1, 64: the producer and consumer warps of a pipeline
/// let pair = SyncOp::Named { id: 1, threads: 64 };
/// // __syncwarp(0x0000ffff)
/// let half = SyncOp::Warp(LaneSet::range(0, 16));
/// // __threadfence_block(): orders, does not synchronise
/// let fence = SyncOp::Fence;
/// assert_ne!(all, pair);
/// assert_ne!(half, fence);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SyncOp {
    /// `__syncthreads()` (`bar.sync 0`, SASS `BAR.SYNC 0x0`): waits for every
    /// thread of the block and makes their earlier shared accesses visible to
    /// all (CUDA C++ Programming Guide, synchronization functions).
    Threads,
    /// `bar.sync id, threads`: waits for `threads` threads, a multiple of the
    /// warp size (PTX ISA, `bar`). The model counts arrivals by warp: a warp
    /// arriving brings its 32 threads.
    Named {
        /// The barrier, 0 to 15.
        id: u32,
        /// The threads it waits for.
        threads: u32,
    },
    /// `bar.arrive id, threads` (`barrier.arrive`, SASS `BAR.ARV`): the warp's
    /// arrival counts toward the barrier's `threads`, but the warp does not
    /// wait (PTX ISA, `bar`/`barrier`: "bar.arrive does not cause any waiting
    /// by the executing threads"). Its earlier accesses are ordered before
    /// the later accesses of the warps that wait for that barrier generation
    /// (`bar.sync`, `bar.red`): the producer side of a producer-consumer pair.
    /// Its own later accesses are ordered after nothing. A warp that arrives
    /// twice at one generation counts once (a modelling choice).
    Arrive {
        /// The barrier, 0 to 15.
        id: u32,
        /// The threads the barrier waits for.
        threads: u32,
    },
    /// `__syncwarp(mask)`: orders the lanes in `mask` among themselves (CUDA
    /// C++ Programming Guide, `__syncwarp`). The model synchronises the lanes
    /// that execute it and are in the mask.
    Warp(LaneSet),
    /// `__threadfence_block()` (`membar.cta`, SASS `MEMBAR.CTA`): orders one
    /// thread's own accesses as others see them, but orders nothing between two
    /// threads, so it never removes a hazard (CUDA C++ Programming Guide, synchronization functions).
    Fence,
    /// `cp.async.commit_group` (SASS `LDGDEPBAR`): the warp's `cp.async`
    /// writes not yet in a group form one (PTX ISA, cp.async.commit_group).
    /// The model counts groups per warp: its lanes commit together (a
    /// modelling choice; nvcc emits the commit in converged code).
    CpAsyncCommit,
    /// `cp.async.wait_group pending` (SASS `DEPBAR.LE SB0, pending`): the
    /// lanes' `cp.async` writes of all but the `pending` most recent groups
    /// complete (PTX ISA, cp.async.wait_group). `pending` 0 is
    /// `cp.async.wait_all`, which also completes writes not yet committed.
    CpAsyncWait {
        /// Groups that may still be pending.
        pending: u32,
    },
    /// `cp.async.mbarrier.arrive` (`.noinc` or not): the lanes' `cp.async`
    /// writes complete through the mbarrier. compute-sanitizer's racecheck
    /// forgets such writes at the arrive: reads of other threads' bytes
    /// after it, unwaited, are no hazard to it, nor warning within a warp,
    /// with `.noinc` or without, and with a `bar.sync` between the arrive
    /// and the reads, where the same reads after a plain store and
    /// `mbarrier.arrive` are (measured on an H200, racecheck 2025.3.1:
    /// tests/data/ptx/mbarrier_sanitizer, `cpasync_mbar_nowait` and
    /// `pc_nowait`; tests/data/ptx/async_sanitizer, `inc_nowait`,
    /// `noinc_bar_nowait`, `inc_bar_nowait`). Before the arrive it checks
    /// them: reads while the copy is in flight (across a `bar.sync` too),
    /// stores to its bytes then, and reads of them before it are hazards
    /// (measured: `*_bar_before_arrive`, `*_waw`, `*_war`, `.noinc` or not).
    ///
    /// The model follows it within the copy's warp, where the warp's order
    /// decides: the lanes' writes leave the shadow at the arrive, and the
    /// conflicts found with them before it between lanes of the warp stand.
    /// Those with other warps are dropped with the writes, a modelling
    /// choice: between warps racecheck's verdict follows the GPU's timing
    /// (another warp's store before its own arrive was reported, its read
    /// after its own arrive was not, neither ordered with the copy's
    /// arrive), and the model answers for every order, so gives none.
    /// Hazards of a copy some of whose lanes complete otherwise are kept.
    CpAsyncArrive,
    /// An arrival on phase `phase` of the mbarrier at shared offset
    /// `barrier` (`mbarrier.arrive`, `cp.async.mbarrier.arrive`,
    /// `complete_tx`, and a bulk copy completing its bytes on it): what the
    /// warp did before is ordered before what the warps that observe the
    /// phase complete do after ([`MbarrierWait`](Self::MbarrierWait); PTX
    /// ISA, mbarrier: the arrive has release semantics, the completing wait
    /// acquire). Like `bar.arrive`, counted by warp, and the warp goes on
    /// ordered after nothing.
    ///
    /// An arrival instruction (`counted`) on phase k + 1 that no wait
    /// observing phase k is ordered before is a
    /// [`MbarrierMisuse::MissingWait`] (synccheck's "Missing wait",
    /// measured: tests/data/ptx/mbarrier_sanitizer).
    MbarrierArrive {
        /// The mbarrier's shared offset.
        barrier: u32,
        /// The phase, from 0 at its `mbarrier.init`.
        phase: u32,
        /// Whether it is an arrival instruction (counted toward the phase),
        /// rather than a copy or `complete_tx` completing bytes on it.
        counted: bool,
    },
    /// A `test_wait`/`try_wait` that observed phase `phase` of the mbarrier
    /// at `barrier` complete: the warp is ordered after every arrival on
    /// that phase. When all the warp's lanes wait, they are also ordered
    /// after each other's earlier instructions (a modelling choice: waits
    /// are run by whole warps, in converged loops).
    MbarrierWait {
        /// The mbarrier's shared offset.
        barrier: u32,
        /// The completed phase.
        phase: u32,
    },
    /// A misuse of the mbarrier at `barrier` that the source saw itself
    /// (the PTX interpreter follows each mbarrier's counts): reported as a
    /// [`BarrierError::Mbarrier`] at the event's site.
    MbarrierError {
        /// The mbarrier's shared offset.
        barrier: u32,
        /// What is wrong.
        misuse: MbarrierMisuse,
    },
}

/// One event of a warp, held while the warp waits at a barrier.
#[derive(Debug, Clone, Copy)]
enum Event {
    Access {
        site: u64,
        request: WarpRequest,
        /// Lanes of a store that write what memory holds (bits).
        unchanged: u32,
    },
    Sync {
        site: u64,
        lanes: LaneSet,
        sync: SyncOp,
    },
}

/// A warp's state.
#[derive(Debug)]
struct Warp {
    /// The lanes that exist (all 32 but in a partial last warp).
    threads: LaneSet,
    /// Vector clock over the block's warps.
    clock: [u32; WARP_SIZE],
    /// `seen[b][a]`: the last instruction of lane `a` that lane `b` is ordered
    /// after through a `__syncwarp` of some lanes, unless `floor` says more;
    /// an entry below the block's first step is left from an earlier block
    /// and orders nothing. Allocated at the warp's first `__syncwarp` of
    /// some lanes (4 KB a warp that most kernels never need); none is all 0.
    seen: Option<Box<[[u32; WARP_SIZE]; WARP_SIZE]>>,
    /// The step of the warp's last barrier or `__syncwarp` of all lanes:
    /// every lane is ordered after every lane's instructions up to it. A
    /// barrier sets this, not the 32 x 32 entries of `seen` (4 KB a warp,
    /// most of a barrier's time), which it would all raise to its step.
    floor: u32,
    /// Instructions so far (program order within the warp), counted on from
    /// the earlier blocks' (see [`Block::reset`]).
    step: u32,
    /// Events held while the warp waits.
    queue: VecDeque<Event>,
    /// The barrier it waits at.
    waiting: Option<u32>,
    /// `cp.async` groups committed.
    groups: u32,
    /// The groups below this one were waited for (by some of the lanes).
    waited: u32,
    /// Words with `cp.async` writes of the warp not yet waited for.
    async_words: Vec<u32>,
}

impl Warp {
    /// What lane `lane` of the warp is ordered after.
    fn order(&self, lane: usize) -> Order<'_> {
        Order {
            row: self.seen.as_deref().map(|seen| &seen[lane]),
            floor: self.floor,
        }
    }
}

/// What one lane of a warp is ordered after: its row of [`Warp::seen`] and
/// the warp's [`floor`](Warp::floor).
#[derive(Clone, Copy)]
struct Order<'a> {
    row: Option<&'a [u32; WARP_SIZE]>,
    floor: u32,
}

impl Order<'_> {
    /// Whether the lane is ordered after lane `a`'s instruction `step`.
    #[inline]
    fn after(&self, a: usize, step: u32) -> bool {
        step <= self.floor || self.row.is_some_and(|row| step <= row[a])
    }
}

/// A barrier's current generation: the warps that have arrived.
#[derive(Debug, Default, Clone)]
struct Generation {
    /// Warps arrived (bits).
    arrived: u32,
    /// Of those, the warps that only arrived (`bar.arrive`) and went on.
    passed: u32,
    /// The clocks the arrived warps brought, joined.
    joined: [u32; WARP_SIZE],
    /// Warps it waits for.
    expected: u32,
    /// The count in threads it was first reached with.
    threads: u32,
    /// Each site with the warps that arrived there.
    sites: Vec<(u64, u32)>,
}

/// A hazard's identity: one per kind, severity and pair of sites.
type Key = (Severity, HazardKind, u64, u64);

/// A thread block's shared-memory accesses and barriers, checked for races and
/// barrier misuse.
///
/// Give each warp's events in its program order with [`access`](Self::access)
/// and [`sync`](Self::sync) (warps in any interleaving), then
/// [`finish`](Self::finish). A site is any number naming the instruction: a PC
/// in a trace, a source line in a model of a kernel.
///
/// Rules (CUDA C++ Programming Guide, synchronization functions): two accesses to one byte by different threads,
/// at least one a write, race unless a barrier both threads passed orders them;
/// atomics never race with atomics; a thread never races with itself; lanes of
/// one instruction writing one byte are a write collision, not a race; lanes of
/// one warp race unless `__syncwarp` or a barrier orders them (a warning); a
/// fence orders nothing between threads.
///
/// # Example: the reverse kernel, with and without `__syncthreads()`
///
/// ```
/// use smem_model::{Block, ComputeCapability, HazardKind, Op, WarpRequest};
///
/// // __shared__ int s[64]; s[t] = d[t]; __syncthreads(); d[t] = s[63 - t];
/// let run = |barrier: bool| -> Result<_, smem_model::Error> {
///     let mut block = Block::new(ComputeCapability::Sm90, 64)?;
///     for warp in 0..2 {
///         let store = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * (32 * warp + l.get())))?;
///         block.access(warp, 1, &store)?;
///     }
///     if barrier {
///         block.syncthreads(2)?;
///     }
///     for warp in 0..2 {
///         let load = WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - 32 * warp - l.get())))?;
///         block.access(warp, 3, &load)?;
///     }
///     Ok(block.finish())
/// };
/// assert!(run(true)?.is_clean());
/// let racy = run(false)?;
/// assert_eq!(racy.hazards().len(), 1);
/// assert_eq!(racy.hazards()[0].kind(), HazardKind::ReadWrite);
/// assert_eq!(racy.hazards()[0].bytes(), 256);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug)]
pub struct Block {
    capability: ComputeCapability,
    threads: u32,
    warps: Vec<Warp>,
    barriers: Vec<Generation>,
    shadow: Shadow,
    hazards: HazardTable,
    /// Scratch: the conflicts of the access being run.
    found: Vec<Found>,
    /// Scratch: what the coarse quads' records gave the access being run
    /// ([`check_quad`]).
    quads_seen: QuadsSeen,
    /// Whether the lanes of whole-warp accesses of a few shapes are on words
    /// of their own.
    shapes: Shapes,
    /// Scratch: the words of the access being run, with their lanes.
    batches: Vec<Batch>,
    /// Scratch: the batches of deferred accesses as they are written
    /// ([`settle`](Self::settle)), while `batches` holds the access being run's.
    spare_batches: Vec<Batch>,
    barrier_errors: Vec<BarrierError>,
    /// Per mbarrier and phase, the clocks its arrivals brought, joined.
    mbarriers: FxHashMap<(u32, u32), [u32; WARP_SIZE]>,
    /// Per mbarrier and phase, the waits that observed it complete: each
    /// warp's own clock at its wait.
    mbarrier_waits: FxHashMap<(u32, u32), Vec<(u32, u32)>>,
    pending: usize,
    /// The first error met while running held events (the shadow full); every
    /// later call returns it.
    error: Option<Error>,
}

/// A hazard's first run of 16 words, and where its other bytes are: most
/// hazards cover one run (the LUD extract: all 636 of its hazards), and a
/// hazard's bytes in a plain 16-byte entry are written in place when it is
/// found, where a [`Slot`] of its own was built and moved (5% of that
/// trace's time). A hazard that covers more runs keeps the others in a slot.
#[derive(Debug, Clone, Copy)]
struct FirstRun {
    /// The run's first word (a multiple of 16).
    base: u32,
    /// 1 + the index in [`HazardTable::more`] of the slot of the hazard's
    /// other runs; 0 for none.
    more: u32,
    /// The run's bytes, as in [`Slot::add`].
    bits: u64,
}

/// The bytes a hazard being gathered covers beyond its [`FirstRun`]: while
/// they lie in few runs of 16 words, those runs (most hazards cover a few
/// words); past [`Slot::RUNS`] runs, a bitmap per 4 KiB page of the
/// shared window, for the pages it touches.
#[derive(Debug, Default)]
struct Slot {
    /// Runs of 16 words, each its first word and bits as in
    /// [`add`](Self::add), each first word once; empty once `pages` are used.
    /// In place up to [`Slot::GROUPS`] of them: only hazards of more than
    /// one run have a slot.
    groups: SmallVec<[(u32, u64); Slot::GROUPS]>,
    pages: Vec<(u32, Box<[u64; 64]>)>,
}

impl Slot {
    /// The runs of 16 words kept in place.
    const GROUPS: usize = 8;

    /// The most runs of 16 words kept before the bitmap pages take over:
    /// 512 bytes of runs, a page's size. With 8, a hazard of a word or two
    /// in each of many rows (FlashInfer prefill's: 16 rows, each in a page
    /// of its own) took a zeroed 512-byte page per row, and allocating,
    /// counting and freeing them was 5% of that trace's time.
    const RUNS: usize = 32;

    /// Notes the bytes `bits` of the 16 words from `base` (a multiple of
    /// 16): bits `4 * i` to `4 * i + 3` are word `base + i`'s.
    fn add(&mut self, base: u32, bits: u64) {
        if self.pages.is_empty() {
            if let Some(group) = self.groups.iter_mut().find(|g| g.0 == base) {
                group.1 |= bits;
                return;
            }
            if self.groups.len() < Self::RUNS {
                self.groups.push((base, bits));
                return;
            }
            for (base, bits) in core::mem::take(&mut self.groups) {
                self.add_to_pages(base, bits);
            }
        }
        self.add_to_pages(base, bits);
    }

    /// [`add`](Self::add) into the bitmap pages.
    fn add_to_pages(&mut self, base: u32, bits: u64) {
        let page = base / 1024;
        let map = match self.pages.iter_mut().find(|p| p.0 == page) {
            Some(p) => &mut p.1,
            None => {
                self.pages.push((page, Box::new([0; 64])));
                let last = self.pages.len() - 1;
                &mut self.pages[last].1
            }
        };
        map[(base % 1024 / 16) as usize] |= bits;
    }

    fn bytes(&self) -> u32 {
        let groups: u32 = self.groups.iter().map(|g| g.1.count_ones()).sum();
        // Most words of a page are 0 (a hazard of a few words in each of
        // many rows), and counting bits is a dozen steps without the
        // POPCNT instruction, which the default target leaves out: a run of
        // 8 words that is all 0 is skipped by one vector OR.
        let pages: u32 = self
            .pages
            .iter()
            .flat_map(|p| p.1.chunks_exact(8))
            .filter(|run| run.iter().fold(0, |a, &b| a | b) != 0)
            .flatten()
            .map(|b| b.count_ones())
            .sum();
        groups + pages
    }
}

/// A conflict of the access being run with a record of the shadow.
#[derive(Debug, Clone, Copy)]
struct Found {
    earlier: HazardAccess,
    now: HazardAccess,
    severity: Severity,
    word: u32,
    mask: u8,
    /// Its place in the order of a lane-by-lane check (lane, then the lane's
    /// words, then the word's records): a hazard's example is the first
    /// conflict met in that order, however the lanes were batched.
    rank: u64,
    /// The `cp.async` writes in flight it is a conflict with (the earlier
    /// access's, the access's own): held until their threads complete them
    /// (see [`HazardTable::put`]).
    copies: [InFlight; 2],
}

/// `cp.async` writes of one instruction in flight: a warp's lanes and their
/// group (the groups the warp had committed when it issued them).
/// No lanes: none.
#[derive(Debug, Clone, Copy, Default)]
struct InFlight {
    warp: u32,
    lanes: u32,
    group: u32,
}

/// A conflict held while writes it is a conflict with are in flight: the
/// lanes of each [`InFlight`] not yet complete, and those completed by
/// `cp.async.mbarrier.arrive`.
#[derive(Debug, Clone, Copy)]
struct HeldFound {
    found: Found,
    open: [u32; 2],
    unseen: [u32; 2],
}

impl HeldFound {
    /// Whether every write it is a conflict with is complete.
    fn settled(&self) -> bool {
        self.open == [0, 0]
    }

    /// Whether the model reports it: a conflict within one warp, or one no
    /// copy of which is one whose every lane completed through an mbarrier
    /// (see [`SyncOp::CpAsyncArrive`]).
    fn seen(&self) -> bool {
        self.found.now.warp == self.found.earlier.warp
            || (0..2).all(|i| {
                let lanes = self.found.copies[i].lanes;
                lanes == 0 || self.unseen[i] != lanes
            })
    }
}

impl Found {
    /// Its hazard's key: severity, kind, and the pair of sites in order.
    #[inline]
    fn key(&self) -> Key {
        let kind = if self.now.access.writes() && self.earlier.access.writes() {
            HazardKind::WriteWrite
        } else {
            HazardKind::ReadWrite
        };
        let (first, second) = if self.now.site < self.earlier.site {
            (self.now.site, self.earlier.site)
        } else {
            (self.earlier.site, self.now.site)
        };
        (self.severity, kind, first, second)
    }
}

/// The lanes of an access that touch one word, with the bytes they touch.
#[derive(Debug, Clone, Copy)]
struct Batch {
    word: u32,
    mask: u8,
    lanes: u32,
}

impl Block {
    /// The most events the model holds for warps waiting at barriers, for all
    /// warps of the block together; beyond it [`access`](Self::access) and
    /// [`sync`](Self::sync) return [`Error::BlockBacklog`]. About 40 MB.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Block;
    ///
    /// // 2^18 pending events: far more than a block waiting at one barrier needs.
    /// assert_eq!(Block::MAX_PENDING, 262_144);
    /// ```
    pub const MAX_PENDING: usize = 1 << 18;

    /// The most shadow records a block holds (one per 4-byte word,
    /// instruction, kind of access and set of the word's bytes, since the last
    /// barrier of the whole block, shared by the warps that made that access
    /// in step); beyond it the block is refused with [`Error::ShadowFull`].
    /// 32 bytes a record.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Block;
    ///
    /// // 2^21: 36 records on every word of a 228 KB window, or 32 warps out
    /// // of step each touching 64K words from one instruction.
    /// assert_eq!(Block::MAX_RECORDS, 2_097_152);
    /// ```
    pub const MAX_RECORDS: usize = MAX_RECORDS;

    /// The most `cp.async` groups a warp may have committed and not waited
    /// for; past it the block is refused with [`Error::OpenCopyGroups`]. Each
    /// open group keeps its copies' records pending (a later wait completes
    /// them group by group), so a loop that commits groups and never waits
    /// would add a record per word and iteration, and the check's time would
    /// grow with the square of the iterations. Pipelines wait every few
    /// stages (`cp.async.wait_group N` with N the stages in flight); 64 is a
    /// modelling choice far above any.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, CpAsync, Error, LaneSet, Op, SyncOp, WarpRequest};
    ///
    /// let mut block = Block::new(ComputeCapability::Sm90, 32)?;
    /// let copy = WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |l| {
    ///     Some(16 * l.get())
    /// })?;
    /// let mut refused = None;
    /// for i in 0..=Block::MAX_OPEN_GROUPS {
    ///     block.access(0, 1, &copy)?;
    ///     if let Err(e) = block.sync(0, 2, LaneSet::FULL, SyncOp::CpAsyncCommit) {
    ///         refused = Some((i, e));
    ///         break;
    ///     }
    /// }
    /// assert_eq!(
    ///     refused,
    ///     Some((64, Error::OpenCopyGroups { warp: 0, groups: 65, limit: 64 }))
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const MAX_OPEN_GROUPS: u32 = 64;

    /// The most hazards a block lists by default (see
    /// [`with_max_hazards`](Self::with_max_hazards)): one per pair of racing
    /// instructions, each at most about 30 KB (its bytes' bitmap over the
    /// 228 KB window; about 120 bytes for most), so at most about 120 MiB
    /// and 0.5 MiB for most kernels. Hazards past it are counted, not listed
    /// ([`BlockReport::hazards_not_listed`]). A modelling choice, far above
    /// the real kernels checked (the Rodinia LUD extract: 636).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(smem_model::Block::MAX_HAZARDS, 4096);
    /// ```
    pub const MAX_HAZARDS: usize = 4096;

    /// The most hazards past the listed ones that are told apart to be
    /// counted (24 bytes each, 3 MiB in all: a count exact past 100,000
    /// hazards, where a report is long past reading); past it the count
    /// ([`BlockReport::hazards_not_listed`]) is a lower bound.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(smem_model::Block::MAX_NOT_LISTED, 1 << 17);
    /// ```
    pub const MAX_NOT_LISTED: usize = 1 << 17;

    /// The same block, listing at most `max` hazards (default
    /// [`MAX_HAZARDS`](Self::MAX_HAZARDS)): the first `max` pairs of racing
    /// instructions found are listed, with their bytes; later pairs are
    /// counted ([`BlockReport::hazards_not_listed`]), so that memory stays
    /// bounded whatever the input. 0 lists none and still counts them all.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Op, WarpRequest};
    ///
    /// // Warp 1 loads a word, then warp 0 stores to it from 100
    /// // instructions: 100 hazards, one a pair of instructions.
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?.with_max_hazards(10);
    /// let one = |op| WarpRequest::from_fn(op, 4, |l| (l.get() == 0).then_some(0));
    /// block.access(1, 1000, &one(Op::Load)?)?;
    /// for site in 0..100 {
    ///     block.access(0, site, &one(Op::Store)?)?;
    /// }
    /// let report = block.finish();
    /// assert_eq!(report.hazards().len(), 10);
    /// assert_eq!(report.hazards_not_listed(), 90);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    #[must_use]
    pub fn with_max_hazards(mut self, max: usize) -> Self {
        self.hazards.limit = max;
        self
    }

    /// A block of `threads` threads (`blockDim.x * blockDim.y * blockDim.z`),
    /// in warps of 32 (the last one partial when `threads` is not a multiple
    /// of 32).
    ///
    /// # Errors
    ///
    /// [`Error::BlockThreads`] unless `threads` is 1 to 1024 (512 on 1.x;
    /// CUDA C++ Programming Guide, technical specifications per compute
    /// capability).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Error};
    ///
    /// assert_eq!(Block::new(ComputeCapability::Sm90, 48)?.warps(), 2);
    /// let err = Block::new(ComputeCapability::Sm90, 2048).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "a block of 2048 threads is not possible on compute capability 9.0: expected 1 to 1024"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn new(capability: ComputeCapability, threads: u32) -> Result<Self, Error> {
        let limit = if capability.major() == 1 { 512 } else { 1024 };
        if threads == 0 || threads > limit {
            return Err(Error::BlockThreads {
                threads,
                limit,
                capability,
            });
        }
        let mut block = Block {
            capability,
            threads,
            warps: Vec::new(),
            barriers: vec![Generation::default(); BARRIERS as usize],
            shadow: Shadow::default(),
            hazards: HazardTable {
                hazards: Vec::new(),
                runs: Vec::new(),
                more: Vec::new(),
                spare: Vec::new(),
                index: FxHashMap::default(),
                limit: Self::MAX_HAZARDS,
                not_listed: FxHashSet::default(),
                beyond: false,
                last: None,
                cache: Vec::new(),
                pending: None,
                held: VecDeque::new(),
            },
            found: Vec::new(),
            quads_seen: QuadsSeen::default(),
            shapes: Shapes::default(),
            batches: Vec::new(),
            spare_batches: Vec::new(),
            barrier_errors: Vec::new(),
            mbarriers: FxHashMap::default(),
            mbarrier_waits: FxHashMap::default(),
            pending: 0,
            error: None,
        };
        block.reset(capability, threads)?;
        Ok(block)
    }

    /// Makes this block model a new block of `threads` threads on
    /// `capability`, as [`new`](Self::new) does, keeping its tables: a checker
    /// of many blocks allocates once.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new); the model is then unchanged.
    pub(crate) fn reset(
        &mut self,
        capability: ComputeCapability,
        threads: u32,
    ) -> Result<(), Error> {
        let limit = if capability.major() == 1 { 512 } else { 1024 };
        if threads == 0 || threads > limit {
            return Err(Error::BlockThreads {
                threads,
                limit,
                capability,
            });
        }
        let count = threads.div_ceil(32);
        self.mbarriers.clear();
        self.mbarrier_waits.clear();
        // Steps go on from the last block's highest, the same for every warp
        // (warps in step share records): what `seen` keeps from an earlier
        // block is below every step of this one, as a new warp's zeros are,
        // so it need not be zeroed (4 KB a warp, most of the time of a block
        // of many warps and few requests). Past half the range it is, and
        // steps start again from 0.
        let mut base = self.warps.iter().map(|w| w.step).max().unwrap_or(0);
        if base > u32::MAX / 2 {
            for warp in &mut self.warps {
                warp.seen = None;
                warp.floor = 0;
            }
            base = 0;
        }
        self.warps.truncate(count as usize);
        for w in 0..count {
            let lanes = (threads - 32 * w).min(32);
            // A warp's own component starts at 1, so that its accesses
            // are not ordered before anything until a barrier joins it.
            let mut clock = [0; WARP_SIZE];
            clock[w as usize] = 1;
            match self.warps.get_mut(w as usize) {
                Some(warp) => {
                    warp.threads = LaneSet::range(0, lanes);
                    warp.clock = clock;
                    warp.step = base;
                    warp.floor = 0;
                    warp.queue.clear();
                    warp.waiting = None;
                    warp.groups = 0;
                    warp.waited = 0;
                    warp.async_words.clear();
                }
                None => self.warps.push(Warp {
                    threads: LaneSet::range(0, lanes),
                    clock,
                    seen: None,
                    floor: 0,
                    step: base,
                    queue: VecDeque::new(),
                    waiting: None,
                    groups: 0,
                    waited: 0,
                    async_words: Vec::new(),
                }),
            }
        }
        self.capability = capability;
        self.threads = threads;
        for generation in &mut self.barriers {
            *generation = Generation::default();
        }
        self.shadow.reset(capability.shared_window_size());
        self.hazards.clear();
        self.barrier_errors.clear();
        self.pending = 0;
        self.error = None;
        Ok(())
    }

    /// The block's number of warps.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability};
    ///
    /// // A block of 80 threads has 3 warps, the last one partial.
    /// let block = Block::new(ComputeCapability::Sm90, 80)?;
    /// assert_eq!(block.warps(), 3);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn warps(&self) -> u32 {
        self.warps.len() as u32
    }

    /// The block's number of threads.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability};
    ///
    /// let block = Block::new(ComputeCapability::Sm90, 80)?;
    /// assert_eq!(block.threads(), 80);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Warp `warp` executes a shared-memory instruction at `site`.
    ///
    /// # Errors
    ///
    /// - [`Error::WarpOutOfRange`] when the block has no warp `warp`.
    /// - [`Error::OutsideWindow`] when a lane's access runs past the shared
    ///   window of the block's capability.
    /// - [`Error::BlockBacklog`] when more than [`MAX_PENDING`](Self::MAX_PENDING)
    ///   events wait behind barriers.
    /// - [`Error::ShadowFull`] when this access, or events of other warps it
    ///   released, needed more than [`MAX_RECORDS`](Self::MAX_RECORDS) shadow
    ///   records; every later call returns it too.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Op, Severity, WarpRequest};
    ///
    /// // Warp-synchronous code without __syncwarp: lane l reads what lane l + 1 wrote.
    /// let mut block = Block::new(ComputeCapability::Sm90, 32)?;
    /// block.access(0, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get()))?)?;
    /// block.access(0, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * ((l.get() + 1) % 32)))?)?;
    /// let report = block.finish();
    /// assert_eq!(report.hazards()[0].severity(), Severity::Warning);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn access(&mut self, warp: u32, site: u64, request: &WarpRequest) -> Result<(), Error> {
        self.access_with(warp, site, request, 0)
    }

    /// Warp `warp` executes a shared-memory store at `site` whose lanes
    /// `unchanged` write the bytes that memory already holds (as far as the
    /// caller knows): [`access`](Self::access) with compute-sanitizer's
    /// same-value rule.
    ///
    /// The rule, measured (compute-sanitizer racecheck, CUDA 13, H200,
    /// 2026-11-26; `tests/data/device/samevalue/`): a write whose incoming
    /// value equals what memory holds forms no write-after-write hazard with
    /// the earlier write (two warps storing the constant 7, or the same value
    /// loaded from global memory, to one word with no barrier between them: 0
    /// hazards; storing different values: a WAW hazard, "Current Value : 1,
    /// Incoming Value : 0"). It still races with earlier reads (WAR reported
    /// for a write of 0 over 0 while another warp reads), and it is still a
    /// write for later accesses: a later read of another warp races with it
    /// (RAW), and so does a later write that changes the value (WAW). Hence
    /// an unchanged lane's access conflicts with everything an access of its
    /// kind conflicts with but earlier plain writes (stores, and `cp.async`
    /// writes already complete); a `cp.async` write not yet waited for
    /// has not landed, and an atomic reads as well as writes, so both still
    /// race with it. Its record is an ordinary write's.
    ///
    /// The unit is the lane: the source says a lane is unchanged only when
    /// every byte it writes equals memory's. The measurement compared 4-byte
    /// values; how compute-sanitizer compares wider or narrower stores was not
    /// measured, and a lane whose bytes are only partly unchanged is taken as
    /// changed (a hazard a per-byte compare might not report, never one
    /// hidden). The measurement was between warps; lanes of one warp (a
    /// warning) follow the same rule, a modelling choice. `unchanged` is
    /// ignored for every op but [`Op::Store`] and outside the request's
    /// active lanes. Sources without values (Accel-Sim traces carry none)
    /// call [`access`](Self::access): nothing changes for them.
    ///
    /// # Errors
    ///
    /// As [`access`](Self::access).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, LaneSet, Op, WarpRequest};
    ///
    /// // Two warps store the same column sums to s[lane], no barrier between.
    /// let store = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get()))?;
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// block.access(0, 1, &store)?;
    /// block.access_unchanged(1, 1, &store, LaneSet::FULL)?;
    /// assert!(block.finish().is_clean());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn access_unchanged(
        &mut self,
        warp: u32,
        site: u64,
        request: &WarpRequest,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        let unchanged = if request.op() == Op::Store {
            unchanged.bits() & request.active().bits()
        } else {
            0
        };
        self.access_with(warp, site, request, unchanged)
    }

    fn access_with(
        &mut self,
        warp: u32,
        site: u64,
        request: &WarpRequest,
        unchanged: u32,
    ) -> Result<(), Error> {
        self.check_warp(warp)?;
        let window = self.capability.shared_window_size();
        let width = request.width().bytes();
        let (active, addresses) = request.raw();
        let highest = highest_address(active, addresses);
        if active != 0 && u64::from(highest) + u64::from(width) > u64::from(window) {
            for (lane, address) in request.active_addresses() {
                let end = u64::from(address) + u64::from(width);
                if end > u64::from(window) {
                    return Err(Error::OutsideWindow {
                        lane: lane.index() as u8,
                        address,
                        end,
                        window,
                        capability: self.capability,
                    });
                }
            }
        }
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.warps[warp as usize].waiting.is_none() {
            // Run at once, as `push` would, without copying the request into
            // an event.
            self.warps[warp as usize].step += 1;
            self.run_access(warp, site, request, unchanged, highest);
            return match &self.error {
                Some(error) => Err(error.clone()),
                None => Ok(()),
            };
        }
        self.push(
            warp,
            Event::Access {
                site,
                request: *request,
                unchanged,
            },
        )
    }

    /// The lanes `lanes` of warp `warp` execute a barrier, `__syncwarp` or a
    /// fence at `site`.
    ///
    /// For [`SyncOp::Threads`] and [`SyncOp::Named`], lanes of the warp that exist
    /// but are not in `lanes` make a [`BarrierError::DivergentLanes`]; the warp
    /// then counts as arrived, so the rest of the block is still checked.
    ///
    /// # Errors
    ///
    /// - [`Error::WarpOutOfRange`] when the block has no warp `warp`.
    /// - [`Error::BarrierId`] for a named barrier of 16 or more.
    /// - [`Error::BarrierCount`] for a count that is zero, not a multiple of 32
    ///   or more than the block's warps times 32.
    /// - [`Error::BlockBacklog`], as [`access`](Self::access).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Error, LaneSet, SyncOp};
    ///
    /// let mut block = Block::new(ComputeCapability::Sm90, 128)?;
    /// let err = block.sync(0, 0, LaneSet::FULL, SyncOp::Named { id: 1, threads: 48 }).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "barrier 1 waits for 48 threads: the count must be a nonzero multiple of 32 \
    ///      of at most the block's 128 threads (its warps times 32)"
    /// );
    /// assert_eq!(
    ///     block.sync(0, 0, LaneSet::FULL, SyncOp::Named { id: 16, threads: 64 }),
    ///     Err(Error::BarrierId { id: 16 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn sync(
        &mut self,
        warp: u32,
        site: u64,
        lanes: LaneSet,
        sync: SyncOp,
    ) -> Result<(), Error> {
        self.check_warp(warp)?;
        if let SyncOp::Named { id, threads } | SyncOp::Arrive { id, threads } = sync {
            if id >= BARRIERS {
                return Err(Error::BarrierId { id });
            }
            let block_threads = 32 * self.warps();
            if threads == 0 || threads % 32 != 0 || threads > block_threads {
                return Err(Error::BarrierCount {
                    id,
                    count: threads,
                    block_threads,
                });
            }
        }
        self.push(warp, Event::Sync { site, lanes, sync })
    }

    /// Every warp of the block executes `__syncthreads()` at `site`, all its
    /// lanes together: the barrier of code that is not divergent.
    ///
    /// # Errors
    ///
    /// [`Error::BlockBacklog`], as [`access`](Self::access).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Op, WarpRequest};
    ///
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// let write_zero = WarpRequest::from_fn(Op::Store, 4, |l| (l.get() == 0).then_some(0))?;
    /// block.access(0, 1, &write_zero)?;
    /// block.syncthreads(2)?;
    /// block.access(1, 3, &write_zero)?;
    /// assert!(block.finish().is_clean());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn syncthreads(&mut self, site: u64) -> Result<(), Error> {
        for warp in 0..self.warps() {
            let lanes = self.warps[warp as usize].threads;
            self.sync(warp, site, lanes, SyncOp::Threads)?;
        }
        Ok(())
    }

    /// Ends the block: every warp has given all its events. Barriers still
    /// waiting are reported ([`BarrierError::Unreached`]) and released with the
    /// warps that reached them, so that the events behind them are checked
    /// too; then the hazards are returned.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BarrierError, Block, ComputeCapability, LaneSet, SyncOp};
    ///
    /// // Warp 0 passes one __syncthreads(), warp 1 two: the second never completes.
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// block.syncthreads(1)?;
    /// block.sync(1, 2, LaneSet::FULL, SyncOp::Threads)?;
    /// let report = block.finish();
    /// assert_eq!(
    ///     report.barrier_errors()[0].to_string(),
    ///     "barrier 0 at site 0x2 waits for 2 warps but only warp(s) 1 reach it; warp(s) 0 never do"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn finish(mut self) -> BlockReport {
        self.take_report()
    }

    /// Ends the block as [`finish`](Self::finish) does, or returns the error
    /// that stopped the model while it ran events held behind a barrier
    /// ([`Error::ShadowFull`]), which [`finish`](Self::finish) leaves out
    /// (its report then covers the accesses up to that point).
    ///
    /// # Errors
    ///
    /// [`Error::ShadowFull`] when the accesses between two barriers of the
    /// whole block needed more shadow records than the model holds.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Op, WarpRequest};
    ///
    /// let mut block = Block::new(ComputeCapability::Sm90, 32)?;
    /// block.access(0, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get()))?)?;
    /// assert!(block.try_finish()?.is_clean());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn try_finish(mut self) -> Result<BlockReport, Error> {
        let report = self.take_report();
        match self.error {
            Some(error) => Err(error),
            None => Ok(report),
        }
    }

    /// Ends the block and returns its report, leaving the model to be
    /// [`reset`](Self::reset) for another.
    pub(crate) fn take_report(&mut self) -> BlockReport {
        loop {
            let stuck: Vec<u32> = (0..BARRIERS)
                .filter(|&id| self.barriers[id as usize].arrived != 0)
                .collect();
            if stuck.is_empty() {
                break;
            }
            // All stuck barriers are reported and taken first, so that warps
            // released from one do not complete another with warps that wait
            // for something else.
            let mut taken = Vec::new();
            for id in stuck {
                let generation = core::mem::take(&mut self.barriers[id as usize]);
                let arrived = bits(generation.arrived);
                let missing = (0..self.warps())
                    .filter(|w| generation.arrived >> w & 1 == 0)
                    .collect();
                let mut sites: Vec<u64> = generation.sites.iter().map(|s| s.0).collect();
                sites.sort_unstable();
                sites.dedup();
                self.barrier_errors.push(BarrierError::Unreached {
                    id,
                    sites,
                    expected: generation.expected,
                    arrived,
                    missing,
                });
                taken.push(generation);
            }
            for generation in taken {
                self.release(generation);
            }
        }
        // Writes still in flight at the block's end are seen (they were
        // never completed through an mbarrier).
        self.hazards.complete_all();
        self.hazards.flush();
        let mut hazards = core::mem::take(&mut self.hazards.hazards);
        for (i, hazard) in hazards.iter_mut().enumerate() {
            hazard.bytes = self.hazards.bytes(i);
        }
        let mut not_listed: Vec<Key> = self.hazards.not_listed.drain().collect();
        not_listed.sort_unstable();
        let not_listed_beyond = self.hazards.beyond;
        self.hazards.clear();
        sort_hazards(&mut hazards);
        BlockReport {
            hazards,
            barrier_errors: core::mem::take(&mut self.barrier_errors),
            not_listed,
            not_listed_beyond,
        }
    }

    fn check_warp(&self, warp: u32) -> Result<(), Error> {
        if warp >= self.warps() {
            return Err(Error::WarpOutOfRange {
                warp,
                warps: self.warps(),
            });
        }
        Ok(())
    }

    /// Runs the event now, or holds it while the warp waits.
    fn push(&mut self, warp: u32, event: Event) -> Result<(), Error> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        let w = &mut self.warps[warp as usize];
        if w.waiting.is_none() {
            debug_assert!(w.queue.is_empty());
            self.run(warp, event);
            // The event, or events of other warps it released, may have
            // filled the shadow.
            return match &self.error {
                Some(error) => Err(error.clone()),
                None => Ok(()),
            };
        }
        if self.pending >= Self::MAX_PENDING {
            return Err(Error::BlockBacklog {
                pending: self.pending + 1,
                limit: Self::MAX_PENDING,
            });
        }
        w.queue.push_back(event);
        self.pending += 1;
        Ok(())
    }

    /// Runs held events of the warp until it waits again or has none left.
    fn drain(&mut self, warp: u32) {
        while self.warps[warp as usize].waiting.is_none() {
            let Some(event) = self.warps[warp as usize].queue.pop_front() else {
                break;
            };
            self.pending -= 1;
            self.run(warp, event);
        }
    }

    fn run(&mut self, warp: u32, event: Event) {
        self.warps[warp as usize].step += 1;
        match event {
            Event::Access {
                site,
                request,
                unchanged,
            } => {
                let (active, addresses) = request.raw();
                let highest = highest_address(active, addresses);
                self.run_access(warp, site, &request, unchanged, highest)
            }
            Event::Sync { site, lanes, sync } => match sync {
                SyncOp::Threads => {
                    let threads = 32 * self.warps();
                    self.arrive(warp, site, lanes, 0, threads, true);
                }
                SyncOp::Named { id, threads } => self.arrive(warp, site, lanes, id, threads, true),
                SyncOp::Arrive { id, threads } => {
                    self.arrive(warp, site, lanes, id, threads, false)
                }
                SyncOp::Warp(mask) => self.syncwarp(warp, site, lanes, mask),
                SyncOp::Fence => {}
                SyncOp::CpAsyncCommit => {
                    let w = &mut self.warps[warp as usize];
                    w.groups += 1;
                    let open = w.groups - w.waited;
                    if open > Block::MAX_OPEN_GROUPS && self.error.is_none() {
                        self.error = Some(Error::OpenCopyGroups {
                            warp,
                            groups: open,
                            limit: Block::MAX_OPEN_GROUPS,
                        });
                    }
                }
                SyncOp::CpAsyncWait { pending } => self.complete(warp, lanes, Some(pending)),
                SyncOp::CpAsyncArrive => self.complete(warp, lanes, None),
                SyncOp::MbarrierArrive {
                    barrier,
                    phase,
                    counted,
                } => {
                    if counted && phase > 0 {
                        let me = &self.warps[warp as usize];
                        let observed =
                            self.mbarrier_waits
                                .get(&(barrier, phase - 1))
                                .is_some_and(|waits| {
                                    waits
                                        .iter()
                                        .any(|&(w, c)| w == warp || me.clock[w as usize] >= c)
                                });
                        if !observed {
                            self.mbarrier_misuse(
                                MbarrierMisuse::MissingWait,
                                barrier,
                                site,
                                warp,
                                lanes,
                            );
                        }
                    }
                    let me = &mut self.warps[warp as usize];
                    let joined = self
                        .mbarriers
                        .entry((barrier, phase))
                        .or_insert([0; WARP_SIZE]);
                    for (j, c) in joined.iter_mut().zip(me.clock) {
                        *j = (*j).max(c);
                    }
                    me.clock[warp as usize] += 1;
                }
                SyncOp::MbarrierError { barrier, misuse } => {
                    self.mbarrier_misuse(misuse, barrier, site, warp, lanes);
                }
                SyncOp::MbarrierWait { barrier, phase } => {
                    let me = &mut self.warps[warp as usize];
                    self.mbarrier_waits
                        .entry((barrier, phase))
                        .or_default()
                        .push((warp, me.clock[warp as usize]));
                    if let Some(joined) = self.mbarriers.get(&(barrier, phase)) {
                        for (c, j) in me.clock.iter_mut().zip(joined) {
                            *c = (*c).max(*j);
                        }
                    }
                    if lanes.intersection(me.threads) == me.threads {
                        me.floor = me.step;
                    }
                }
            },
        }
    }

    /// Notes an mbarrier's misuse by the lanes `lanes` of `warp` at `site`:
    /// one error per kind, mbarrier, site and warp, its lanes joined (a
    /// loop arriving at one site many times is one error).
    pub(crate) fn mbarrier_misuse(
        &mut self,
        misuse: MbarrierMisuse,
        barrier: u32,
        site: u64,
        warp: u32,
        lanes: LaneSet,
    ) {
        for e in &mut self.barrier_errors {
            if let BarrierError::Mbarrier {
                misuse: m,
                barrier: b,
                site: s,
                warp: w,
                lanes: l,
            } = e
                && (*m, *b, *s, *w) == (misuse, barrier, site, warp)
            {
                *l |= lanes.bits();
                return;
            }
        }
        self.barrier_errors.push(BarrierError::Mbarrier {
            misuse,
            barrier,
            site,
            warp,
            lanes: lanes.bits(),
        });
    }

    fn syncwarp(&mut self, warp: u32, site: u64, lanes: LaneSet, mask: LaneSet) {
        let w = &mut self.warps[warp as usize];
        let lanes = lanes.intersection(w.threads);
        if lanes.intersection(mask) != lanes {
            self.barrier_errors.push(BarrierError::SyncwarpMask {
                site,
                warp,
                lanes: lanes.bits(),
                mask: mask.bits(),
            });
        }
        let group = lanes.intersection(mask);
        let step = w.step;
        if group == LaneSet::FULL {
            // Every lane takes in every lane's step: what the join below
            // comes to, without its 32 x 32 maxima.
            w.floor = step;
            if self.warps.len() == 1 {
                // The warp is the block: everything before is ordered
                // before everything after, as by a barrier of the whole
                // block (which completes no `cp.async` either).
                self.shadow.clear();
            }
            return;
        }
        let seen = w
            .seen
            .get_or_insert_with(|| Box::new([[0; WARP_SIZE]; WARP_SIZE]));
        let mut joined = [0u32; WARP_SIZE];
        for b in group.iter() {
            for (j, s) in joined.iter_mut().zip(seen[b.index()].iter()) {
                *j = (*j).max(*s);
            }
        }
        for a in group.iter() {
            joined[a.index()] = step;
        }
        for b in group.iter() {
            seen[b.index()] = joined;
        }
    }

    /// Warp `warp` arrives at barrier `id`; it waits for the generation to
    /// complete when `waits` (`bar.sync`), else goes on (`bar.arrive`).
    fn arrive(&mut self, warp: u32, site: u64, lanes: LaneSet, id: u32, threads: u32, waits: bool) {
        let all = self.warps[warp as usize].threads;
        let missing = all.bits() & !lanes.bits();
        if missing != 0 {
            self.barrier_errors.push(BarrierError::DivergentLanes {
                id,
                site,
                warp,
                lanes: lanes.intersection(all).bits(),
                missing,
            });
        }
        let generation = &mut self.barriers[id as usize];
        if generation.arrived == 0 {
            generation.threads = threads;
            generation.expected = threads.div_ceil(32);
        } else if generation.threads != threads {
            self.barrier_errors.push(BarrierError::CountMismatch {
                id,
                site,
                warp,
                expected: generation.threads,
                count: threads,
            });
        }
        generation.arrived |= 1 << warp;
        match generation.sites.iter_mut().find(|s| s.0 == site) {
            Some(s) => s.1 |= 1 << warp,
            None => generation.sites.push((site, 1 << warp)),
        }
        let me = &mut self.warps[warp as usize];
        for (j, c) in generation.joined.iter_mut().zip(me.clock) {
            *j = (*j).max(c);
        }
        if waits {
            me.waiting = Some(id);
        } else {
            // It goes on: what it does next is ordered after nothing the
            // barrier brings.
            generation.passed |= 1 << warp;
            me.clock[warp as usize] += 1;
        }
        if generation.arrived.count_ones() >= generation.expected {
            // Producers arrive at their own instruction and consumers wait at
            // theirs: different sites are an error only when every warp waits.
            if generation.sites.len() > 1 && generation.passed == 0 {
                // By site, so that the message does not depend on the order
                // the warps arrived in.
                let mut sites: Vec<(u64, Vec<u32>)> = generation
                    .sites
                    .iter()
                    .map(|&(site, warps)| (site, bits(warps)))
                    .collect();
                sites.sort_unstable();
                self.barrier_errors
                    .push(BarrierError::DifferentSites { id, sites });
            }
            let generation = core::mem::take(generation);
            self.release(generation);
        }
    }

    /// Completes a barrier's generation with the warps that arrived: their clocks are
    /// joined, their lanes synchronised, and their held events run.
    ///
    /// Warps that only arrived went on already: their clocks are left alone.
    fn release(&mut self, generation: Generation) {
        let arrived = bits(generation.arrived & !generation.passed);
        let joined = generation.joined;
        for &w in &arrived {
            let warp = &mut self.warps[w as usize];
            warp.clock = joined;
            warp.clock[w as usize] += 1;
            warp.floor = warp.step;
            warp.waiting = None;
        }
        if arrived.len() == self.warps.len() {
            // Every warp passed it: everything before is ordered before
            // everything after.
            self.shadow.clear();
        }
        for w in arrived {
            self.drain(w);
        }
    }

    ///
    /// `highest` is the highest address of the active lanes
    /// ([`highest_address`]), found once for the window check.
    fn run_access(
        &mut self,
        warp: u32,
        site: u64,
        request: &WarpRequest,
        unchanged: u32,
        highest: u32,
    ) {
        if self.error.is_some() {
            return;
        }
        let kind = AccessKind::of(request.op());
        let width = request.width().bytes();
        let (active, addresses) = request.raw();
        // Whole words, every lane on words of its own (addresses that rise
        // or fall from lane to lane, or that all differ): lane by lane,
        // without batches. Otherwise lanes on one word are one batch.
        let whole_words = width >= 4
            && kind != AccessKind::AsyncCopy
            && !self.shadow.plain()
            && active.count_ones() > 1;
        let (mut own_words, mut known) = (false, false);
        if whole_words {
            if monotonic(active, addresses) {
                (own_words, known) = (true, true);
            } else if let Some(own) = self.shapes.get(site, active, addresses) {
                (own_words, known) = (own, true);
            } else {
                own_words = !may_repeat(active, addresses, width);
            }
        }
        if !own_words {
            self.batch(active, addresses, width, highest);
            // `may_repeat` may see a repeat where there is none: the
            // batches tell.
            own_words = whole_words
                && self.batches.len() == active.count_ones() as usize * (width / 4) as usize;
        }
        if whole_words && !known {
            self.shapes.put(site, active, addresses, own_words);
        }
        if own_words {
            let now = Now {
                warp,
                site,
                kind,
                step: self.warps[warp as usize].step,
                unchanged,
            };
            self.run_words(&now, active, addresses, width / 4, highest);
            return;
        }
        if kind != AccessKind::AsyncCopy
            && active != 0
            && !self.shadow.plain()
            && self.may_defer(warp, kind)
        {
            let me = &self.warps[warp as usize];
            let access = AccessAt {
                warp,
                site,
                kind,
                step: me.step,
                clock: me.clock[warp as usize],
                floor: me.floor,
                active,
                width,
                highest,
                whole: false,
            };
            if self.defer(&access, addresses) {
                return;
            }
        }
        self.settle();
        let Block {
            warps,
            shadow,
            found,
            batches,
            ..
        } = self;
        let me = &warps[warp as usize];
        let now = Now {
            warp,
            site,
            kind,
            step: me.step,
            unchanged,
        };
        // Every lane is checked against the shadow as it was before the
        // instruction, then the instruction is recorded: its lanes are one
        // access, and one lane's record must not hide what another lane
        // races with.
        found.clear();
        let look = relevant(kind);
        // Nothing in the shadow to conflict with (a read where the block has
        // only read since its last barrier): no word to look at.
        let batches_to_check = if shadow.any & look == 0 {
            &[][..]
        } else {
            &batches[..]
        };
        let mut buf = [Record::EMPTY; 2];
        for batch in batches_to_check {
            if let Some(&kinds) = shadow.kinds.get(batch.word as usize)
                && kinds & look != 0
            {
                check(
                    shadow.records_at(batch.word, kinds, &mut buf),
                    batch,
                    me,
                    &now,
                    addresses,
                    found,
                );
            }
        }
        self.note_found();
        let Block {
            warps,
            shadow,
            error,
            batches,
            ..
        } = self;
        let me = &mut warps[warp as usize];
        let pending = kind == AccessKind::AsyncCopy;
        if pending {
            me.async_words
                .extend(batches.iter().map(|batch| batch.word));
        }
        let access = AccessAt {
            warp,
            site,
            kind,
            step: now.step,
            // A pending write keeps its group in `clock` until it completes.
            clock: if pending {
                me.groups
            } else {
                me.clock[warp as usize]
            },
            floor: me.floor,
            active,
            width,
            highest,
            whole: false,
        };
        record_batches(shadow, error, batches, &access, me.seen.as_deref());
    }

    /// [`run_access`](Self::run_access) for an access of `words` whole words
    /// a lane (4, 8 or 16 bytes, aligned) that is not a `cp.async` and whose
    /// lanes each touch words no other lane does: lane by lane and word by
    /// word, as its batches would be (one a lane and word), with the
    /// commonest step first: the warp joins the word's one record, made by a
    /// warp in step.
    fn run_words(
        &mut self,
        now: &Now,
        active: u32,
        addresses: &[u32; WARP_SIZE],
        words: u32,
        highest: u32,
    ) {
        // Whether the access may be deferred, but for the deferred accesses
        // it overlaps: the cheap tests first, so that an access that is not
        // pays nearly nothing for them.
        let me = &self.warps[now.warp as usize];
        let access = AccessAt {
            warp: now.warp,
            site: now.site,
            kind: now.kind,
            step: now.step,
            clock: me.clock[now.warp as usize],
            floor: me.floor,
            active,
            width: 4 * words,
            highest,
            whole: true,
        };
        if self.may_defer(now.warp, now.kind) && self.defer(&access, addresses) {
            return;
        }
        self.settle();
        let Block {
            warps,
            shadow,
            hazards,
            found,
            quads_seen,
            ..
        } = self;
        quads_seen.next_access();
        let (warp, kind) = (now.warp, now.kind);
        let me = &warps[warp as usize];
        let look = relevant(kind);
        // As in `run_access`: nothing to conflict with, nothing to check.
        let mut bits = if shadow.any & look == 0 { 0 } else { active };
        let mut buf = [Record::EMPTY; 2];
        while bits != 0 {
            let lane = bits.trailing_zeros();
            bits &= bits - 1;
            let first = addresses[lane as usize] / 4;
            if words == 4
                && shadow.coarse(first)
                && check_quad(
                    shadow, first, lane, me, now, addresses, found, hazards, quads_seen,
                )
            {
                continue;
            }
            for word in first..first + words {
                if let Some(&kinds) = shadow.kinds.get(word as usize)
                    && kinds & look != 0
                {
                    let batch = Batch {
                        word,
                        mask: 0xf,
                        lanes: 1 << lane,
                    };
                    // Lane by lane and word by word is the order of the
                    // conflicts' ranks: each is noted as it is found.
                    let records = shadow.records_at(word, kinds, &mut buf);
                    check(records, &batch, me, now, addresses, hazards);
                }
            }
        }
        let seen = self.warps[now.warp as usize].seen.as_deref();
        record_words(&mut self.shadow, &mut self.error, &access, addresses, seen);
    }

    /// Whether an access of warp `warp` may be deferred
    /// ([`Shadow::deferred`]), but for the deferred accesses it overlaps:
    /// the shadow holds no record an access of `kind` conflicts with (none
    /// at all, or only reads for a read), the warp has no lane order of its
    /// own, and there is room.
    fn may_defer(&self, warp: u32, kind: AccessKind) -> bool {
        self.shadow.any & relevant(kind) == 0
            && self.warps[warp as usize].seen.is_none()
            && self.shadow.deferred.len() < MAX_DEFERRED
    }

    /// Keeps an access in [`Shadow::deferred`] when
    /// [`may_defer`](Self::may_defer) and it races with none of the
    /// deferred ones (see there); whether it did.
    fn defer(&mut self, access: &AccessAt, addresses: &[u32; WARP_SIZE]) -> bool {
        let shadow = &mut self.shadow;
        let me = &self.warps[access.warp as usize];
        let reads = access.kind == AccessKind::Read;
        if !reads && shadow.deferred.len() > MAX_DEFERRED_WRITE_SCAN {
            return false;
        }
        let (lo, hi) = word_range(access.active, addresses, access.width, access.highest);
        // Whether deferred access `d` cannot race with this one: `check`'s
        // tests, for any lane of either on any word of both. Another warp's
        // access is ordered before this one when a barrier joined its
        // clock; the warp's own, when its step is at or below the floor.
        let clean = |d: &Deferred| {
            let (dlo, dhi) = d.words;
            let d = &d.access;
            dhi < lo
                || dlo > hi
                || !conflicts(access.kind, d.kind)
                || if d.warp == access.warp {
                    d.step <= me.floor
                } else {
                    d.clock <= me.clock[d.warp as usize]
                }
        };
        // A read is tested against the deferred accesses that are not reads
        // (reads do not conflict with reads), anything else against all.
        let all_clean = if reads {
            shadow
                .deferred_writes
                .iter()
                .all(|&i| clean(&shadow.deferred[i as usize]))
        } else {
            shadow.deferred.iter().all(clean)
        };
        if !all_clean {
            return false;
        }
        if !reads {
            shadow.deferred_writes.push(shadow.deferred.len() as u32);
        }
        shadow.deferred.push(Deferred {
            access: *access,
            addresses: *addresses,
            words: (lo, hi),
        });
        true
    }

    /// Writes the records of the deferred accesses ([`Shadow::deferred`]),
    /// in the order they ran: before anything else reads or writes the
    /// shadow.
    fn settle(&mut self) {
        if self.shadow.deferred.is_empty() {
            return;
        }
        let deferred = core::mem::take(&mut self.shadow.deferred);
        self.shadow.deferred_writes.clear();
        // The batches of the access being run wait aside.
        core::mem::swap(&mut self.batches, &mut self.spare_batches);
        for Deferred {
            access, addresses, ..
        } in &deferred
        {
            if self.error.is_some() {
                break;
            }
            // A deferred access's warp had no lane order of its own.
            if access.whole {
                record_words(&mut self.shadow, &mut self.error, access, addresses, None);
            } else {
                self.batch(access.active, addresses, access.width, access.highest);
                let Block {
                    shadow,
                    batches,
                    error,
                    ..
                } = self;
                record_batches(shadow, error, batches, access, None);
            }
        }
        core::mem::swap(&mut self.batches, &mut self.spare_batches);
        self.shadow.deferred = deferred;
        self.shadow.deferred.clear();
    }

    /// Notes the conflicts found for the access being run, in the order a
    /// lane-by-lane check meets them.
    fn note_found(&mut self) {
        if self.found.len() > 1 && !self.found.is_sorted_by_key(|f| f.rank) {
            self.found.sort_unstable_by_key(|f| f.rank);
        }
        for i in 0..self.found.len() {
            let found = self.found[i];
            self.hazards.put(found);
        }
    }

    /// Splits the access into [`Batch`]es: one per word with the lanes that
    /// touch it, in the order a lane-by-lane loop meets the words. Running a
    /// batch once is the same as running its lanes one after the other when
    /// every lane touches the word's same bytes (a lane's record takes in the
    /// next lane's, as records of one instruction do); when lanes touch
    /// different bytes of one word (1- and 2-byte accesses), each lane's
    /// word is a batch of its own, in lane order, as before batching.
    /// `highest` is the highest address of the active lanes.
    fn batch(&mut self, active: u32, addresses: &[u32; WARP_SIZE], width: u32, highest: u32) {
        let Block {
            batches, shadow, ..
        } = self;
        batches.clear();
        let plain = shadow.plain();
        let lanes = |batches: &mut Vec<Batch>| {
            let mut bits = active;
            while bits != 0 {
                let lane = bits.trailing_zeros();
                bits &= bits - 1;
                for (word, mask) in words(addresses[lane as usize], width) {
                    batches.push(Batch {
                        word,
                        mask,
                        lanes: 1 << lane,
                    });
                }
            }
        };
        if active == 0 {
            return;
        }
        let first = addresses[active.trailing_zeros() as usize];
        if !plain && lanes_all_at(active, addresses, first) {
            // A broadcast: every lane touches the same bytes.
            for (word, mask) in words(first, width) {
                batches.push(Batch {
                    word,
                    mask,
                    lanes: active,
                });
            }
            return;
        }
        if plain {
            lanes(batches);
            return;
        }
        let marks = &mut shadow.marks;
        // Marks up to the access's last word (checked against the window by
        // `access_with`): a kernel that uses 48 KB pays for 48 KB.
        let words_needed = (highest as usize + width as usize).div_ceil(4);
        if marks.len() < words_needed {
            marks.resize(words_needed, 0);
        }
        if width >= 4 && first.is_multiple_of(4) {
            // Whole words (requests are aligned to their width): every lane
            // touches all bytes of its words, so lanes on one word are a batch.
            // Lanes that follow each other on one word (a row read at one
            // address by half a warp) gather in `run` before their batch
            // takes them.
            let marks = &mut marks[..];
            let (mut current, mut index, mut run) = (u32::MAX, 0, 0u32);
            let mut bits = active;
            while bits != 0 {
                let lane = bits.trailing_zeros();
                bits &= bits - 1;
                let start = addresses[lane as usize] / 4;
                for word in start..start + width / 4 {
                    if word == current {
                        run |= 1 << lane;
                        continue;
                    }
                    if run != 0 {
                        batches[index].lanes |= run;
                    }
                    let mark = &mut marks[word as usize];
                    if *mark == 0 {
                        batches.push(Batch {
                            word,
                            mask: 0xf,
                            lanes: 0,
                        });
                        *mark = batches.len() as u16;
                    }
                    (current, index, run) = (word, usize::from(*mark) - 1, 1 << lane);
                }
            }
            if run != 0 {
                batches[index].lanes |= run;
            }
            for batch in batches.iter() {
                marks[batch.word as usize] = 0;
            }
            return;
        }
        let mut mixed = false;
        let mut bits = active;
        while bits != 0 {
            let lane = bits.trailing_zeros();
            bits &= bits - 1;
            for (word, mask) in words(addresses[lane as usize], width) {
                let mark = &mut marks[word as usize];
                if *mark == 0 {
                    batches.push(Batch {
                        word,
                        mask,
                        lanes: 1 << lane,
                    });
                    *mark = batches.len() as u16;
                } else {
                    let batch = &mut batches[usize::from(*mark) - 1];
                    mixed |= batch.mask != mask;
                    batch.lanes |= 1 << lane;
                }
            }
        }
        for batch in batches.iter() {
            marks[batch.word as usize] = 0;
        }
        if mixed {
            batches.clear();
            lanes(batches);
        }
    }

    /// The lanes' `cp.async` writes complete: those of all groups but the
    /// `pending` most recent, or all (`pending` 0, or `None` for an mbarrier
    /// arrival). After a wait they become writes at this point of the warp's
    /// order, and join the warp's records as a write made here would
    /// (through [`record`]): a loop that copies to one word again and again
    /// keeps one completed record of it, not one per iteration. After an
    /// mbarrier arrival they are dropped, with the conflicts held for them
    /// with other warps ([`SyncOp::CpAsyncArrive`]).
    fn complete(&mut self, warp: u32, lanes: LaneSet, pending: Option<u32>) {
        self.settle();
        let Block {
            warps,
            shadow,
            error,
            hazards,
            ..
        } = self;
        let w = &mut warps[warp as usize];
        let (step, clock, bit) = (w.step, w.clock[warp as usize], 1u32 << warp);
        // Groups below `done` complete; the open group too when all do.
        let done = match pending {
            Some(0) | None => u32::MAX,
            Some(n) => w.groups.saturating_sub(n),
        };
        w.waited = w.waited.max(done.min(w.groups));
        let unseen = pending.is_none();
        hazards.complete(warp, lanes.bits(), done, unseen);
        let mut words = core::mem::take(&mut w.async_words);
        words.sort_unstable();
        words.dedup();
        let mut completed = Vec::new();
        words.retain(|&word| {
            let kinds = shadow.kinds[word as usize];
            if kinds == 0 {
                // A barrier of the whole block took its records: none of
                // them was pending.
                return false;
            }
            // A barrier took them and 16-byte lanes wrote the word since.
            shadow.split(word, kinds);
            let before = shadow.len(word);
            let mut left = false;
            completed.clear();
            let after = shadow.retain(word, |r| {
                if !r.pending || r.warps != bit {
                    return true;
                }
                let now = r.lanes & lanes.bits();
                if r.clock >= done || now == 0 {
                    left = true;
                    return true;
                }
                if unseen {
                    r.lanes &= !now;
                    left |= r.lanes != 0;
                    return r.lanes != 0;
                }
                completed.push(Record {
                    lanes: now,
                    step,
                    clock,
                    pending: false,
                    ..*r
                });
                r.lanes &= !now;
                left |= r.lanes != 0;
                r.lanes != 0
            });
            // The completed writes were taken out of the cell and join it
            // again as accesses of the wait: into the warp's record of the
            // same instruction and bytes, as a store's would.
            let taken = before - after;
            shadow.records -= taken;
            shadow.pending -= taken;
            let mut records = completed.iter();
            if after == 0
                && let Some(&first) = records.next()
            {
                // What `record` does on an empty cell, but the word is
                // already among the touched ones.
                shadow.restart(word, first);
                shadow.records += 1;
            }
            for &r in records {
                // The first lane's order, as for an access's batch of lanes.
                if error.is_none()
                    && !record(shadow, word, r, w.order(r.lanes.trailing_zeros() as usize))
                {
                    *error = Some(Error::ShadowFull { limit: MAX_RECORDS });
                }
            }
            left
        });
        w.async_words = words;
    }
}

/// The hazards found so far, one per severity, kind and pair of sites.
#[derive(Debug)]
struct HazardTable {
    /// The hazards, as found; their bytes are counted into them at the
    /// block's end. Apart from their bytes so that the report takes this
    /// list as it is, not a copy.
    hazards: Vec<Hazard>,
    /// Each hazard's first run of bytes, at the hazard's index.
    runs: Vec<FirstRun>,
    /// The other runs of the hazards that cover more than one.
    more: Vec<Slot>,
    /// Slots of earlier blocks, emptied, to be taken before a new one: a
    /// hazard of many runs grows its slot's runs onto the heap (FlashInfer
    /// prefill's, 16 rows a hazard), and growing them again in each block
    /// was 1% of that trace's time with every block through the model.
    spare: Vec<Slot>,
    index: FxHashMap<Key, u32>,
    /// The most hazards listed ([`Block::with_max_hazards`]).
    limit: usize,
    /// The hazards found past `limit`, told apart (at most
    /// [`Block::MAX_NOT_LISTED`]) to be counted.
    not_listed: FxHashSet<Key>,
    /// Whether some hazard past those was not told apart (the count is a
    /// lower bound).
    beyond: bool,
    /// The hazard noted last, and its index ([`NOT_LISTED`] for one past
    /// the list).
    last: Option<(Key, u32)>,
    /// Hazards noted lately, with their indices, one per line of a
    /// direct-mapped cache in front of `index`: an access that races with
    /// many instructions looks each up without hashing. Empty until the
    /// model's first hazard: a checker of clean kernels never allocates it.
    cache: Vec<Option<(Key, u32)>>,
    /// Bytes noted and not yet added to their hazard's bitmap: the hazard,
    /// the first of 16 words, and their bytes as in [`Slot::add`].
    /// Conflicts come in runs of one hazard on neighbouring words, which
    /// this adds with one write.
    pending: Option<(u32, u32, u64)>,
    /// Conflicts with `cp.async` writes in flight, and every conflict found
    /// after the first of them, in the order found: noted in that order as
    /// the writes complete (at most [`MAX_HELD_FOUND`]).
    held: VecDeque<HeldFound>,
}

impl HazardTable {
    /// Forgets every hazard (of the cache, the lines its hazards filled).
    fn clear(&mut self) {
        if self.index.len() > CACHE_LINES / 8 || !self.not_listed.is_empty() || self.beyond {
            self.cache.fill(None);
        } else if !self.cache.is_empty() {
            // Few hazards: only their lines can be filled.
            for key in self.index.keys() {
                self.cache[cache_line(key)] = None;
            }
        }
        self.hazards.clear();
        self.runs.clear();
        for mut slot in self.more.drain(..) {
            slot.groups.clear();
            slot.pages.clear();
            self.spare.push(slot);
        }
        self.index.clear();
        self.not_listed.clear();
        self.beyond = false;
        self.last = None;
        self.pending = None;
        self.held.clear();
    }

    /// Adds the bytes noted last to their hazard.
    fn flush(&mut self) {
        if let Some((index, base, bits)) = self.pending.take() {
            let run = &mut self.runs[index as usize];
            if run.base == base {
                run.bits |= bits;
                return;
            }
            if run.more == 0 {
                self.more.push(self.spare.pop().unwrap_or_default());
                run.more = self.more.len() as u32;
            }
            self.more[run.more as usize - 1].add(base, bits);
        }
    }

    /// The bytes hazard `index` covers.
    fn bytes(&self, index: usize) -> u32 {
        let run = self.runs[index];
        let more = match run.more {
            0 => 0,
            more => self.more[more as usize - 1].bytes(),
        };
        run.bits.count_ones() + more
    }

    /// Adds the bytes `mask` of word `word` to hazard `index`.
    #[inline]
    fn add(&mut self, index: u32, word: u32, mask: u8) {
        let (base, bits) = (word & !15, u64::from(mask) << (4 * (word % 16)));
        match &mut self.pending {
            Some((i, b, pending)) if *i == index && *b == base => *pending |= bits,
            _ => {
                self.flush();
                self.pending = Some((index, base, bits));
            }
        }
    }

    /// Adds the bytes `mask` of the words `words` (bit `i`: word `first +
    /// i`) of the quad from word `first` (a multiple of 4) to hazard
    /// `index`: [`add`](Self::add) of each, the four in one run of 16 words.
    #[inline]
    fn add_quad(&mut self, index: u32, first: u32, words: u8, mask: u8) {
        let spread = (0..4).fold(0u64, |bits, i| bits | u64::from(words >> i & 1) << (4 * i));
        let bits = (u64::from(mask) * spread) << (4 * (first % 16));
        let base = first & !15;
        match &mut self.pending {
            Some((i, b, pending)) if *i == index && *b == base => *pending |= bits,
            _ => {
                self.flush();
                self.pending = Some((index, base, bits));
            }
        }
    }

    /// Takes a conflict: noted at once, unless it is one between warps with
    /// a `cp.async` write in flight, or one found after such a conflict that
    /// is still held. Whether the model reports it is only known when the
    /// write's thread completes it: not when that is through
    /// `cp.async.mbarrier.arrive` (see [`SyncOp::CpAsyncArrive`]).
    /// Held conflicts are noted in the order they were found, so that the
    /// hazards, their examples and the list's cap are what noting them at
    /// once gives; past [`MAX_HELD_FOUND`] the oldest is noted as if its
    /// writes were seen.
    fn put(&mut self, found: Found) {
        let copies = found.copies[0].lanes | found.copies[1].lanes;
        if (copies == 0 || found.now.warp == found.earlier.warp) && self.held.is_empty() {
            self.note(found);
            return;
        }
        self.held.push_back(HeldFound {
            found,
            open: [found.copies[0].lanes, found.copies[1].lanes],
            unseen: [0, 0],
        });
        if self.held.len() > MAX_HELD_FOUND {
            if let Some(front) = self.held.front_mut() {
                front.open = [0, 0];
                front.unseen = [0, 0];
            }
            self.release();
        }
    }

    /// The `cp.async` writes of `warp`'s `lanes` of the groups below `done`
    /// complete, through an mbarrier (`unseen`) or a wait.
    fn complete(&mut self, warp: u32, lanes: u32, done: u32, unseen: bool) {
        if self.held.is_empty() {
            return;
        }
        for held in &mut self.held {
            for i in 0..2 {
                let copy = held.found.copies[i];
                if held.open[i] & lanes != 0 && copy.warp == warp && copy.group < done {
                    let now = held.open[i] & lanes;
                    held.open[i] &= !now;
                    if unseen {
                        held.unseen[i] |= now;
                    }
                }
            }
        }
        self.release();
    }

    /// Completes every write in flight as seen (the block ends).
    fn complete_all(&mut self) {
        for held in &mut self.held {
            held.open = [0, 0];
        }
        self.release();
    }

    /// Notes the held conflicts up to the first whose writes are not all
    /// complete, dropping those the model does not report.
    fn release(&mut self) {
        while let Some(front) = self.held.front() {
            if !front.settled() {
                break;
            }
            let held = *front;
            self.held.pop_front();
            if held.seen() {
                self.note(held.found);
            }
        }
    }

    /// Adds a conflict to its hazard: one per severity, kind and pair of sites.
    ///
    /// Inlined into the checks for its commonest step, a conflict of the
    /// hazard noted last (three in four of FlashInfer prefill's): a call
    /// and the copy of the conflict were most of its cost.
    #[inline]
    fn note(&mut self, found: Found) {
        let key = found.key();
        // Conflicts come in runs of one pair of instructions: the last
        // hazard is looked at before the cache, and the cache before the map.
        if let Some((last, index)) = self.last
            && last == key
        {
            if index != NOT_LISTED {
                self.add(index, found.word, found.mask);
            }
            return;
        }
        self.note_new(&found, key);
    }

    /// [`note`](Self::note) for a conflict of another hazard than the last.
    #[inline(never)]
    fn note_new(&mut self, found: &Found, key: Key) {
        let (word, mask) = (found.word, found.mask);
        if self.cache.is_empty() {
            self.cache.resize(CACHE_LINES, None);
        }
        let line = cache_line(&key);
        if let Some((cached, index)) = self.cache[line]
            && cached == key
        {
            self.last = Some((key, index));
            if index != NOT_LISTED {
                self.add(index, word, mask);
            }
            return;
        }
        if self.runs.len() >= self.limit && !self.index.contains_key(&key) {
            // The list is full: the hazard is counted, its bytes are not.
            if self.not_listed.len() < Block::MAX_NOT_LISTED {
                self.not_listed.insert(key);
            } else if !self.not_listed.contains(&key) {
                self.beyond = true;
            }
            self.last = Some((key, NOT_LISTED));
            self.cache[line] = Some((key, NOT_LISTED));
            return;
        }
        if self.runs.len() == 64 {
            // A block of many hazards (a racy kernel without barriers finds
            // hundreds): room for them at once rather than by doubling, each
            // step hashing every key again and moving every slot. A block
            // of a few hazards never takes it.
            self.index.reserve(1024);
            self.hazards.reserve(1024);
            self.runs.reserve(1024);
        }
        let (hazards, runs) = (&mut self.hazards, &mut self.runs);
        let index = *self.index.entry(key).or_insert_with(|| {
            let (first, second) = if found.now.site < found.earlier.site {
                (found.now, found.earlier)
            } else {
                (found.earlier, found.now)
            };
            hazards.push(Hazard {
                kind: key.1,
                severity: key.0,
                first,
                second,
                address: 4 * word + mask.trailing_zeros(),
                bytes: 0,
            });
            runs.push(FirstRun {
                base: word & !15,
                more: 0,
                bits: 0,
            });
            (runs.len() - 1) as u32
        });
        self.last = Some((key, index));
        self.cache[line] = Some((key, index));
        self.add(index, word, mask);
    }
}

/// Sorts a block's hazards by their keys (severity, kind, pair of sites).
/// One hazard a key, so an unstable sort gives the one order. Where every
/// site is below 2^31 (a PC, a source line), the key packs into 64 bits:
/// pairs of a packed key and an index sort, and the hazards follow, rather
/// than 48-byte hazards compared field by field (the LUD extract's 636: the
/// sort was 18% of its time, now 7%). Fewer than 32 sort as they are, without
/// the list of keys.
fn sort_hazards(hazards: &mut Vec<Hazard>) {
    const FITS: u64 = 1 << 31;
    if hazards.len() < 32
        || !hazards
            .iter()
            .all(|h| h.first.site < FITS && h.second.site < FITS)
    {
        hazards.sort_unstable_by_key(|h| (h.severity, h.kind, h.first.site, h.second.site));
        return;
    }
    let mut keys: Vec<(u64, u32)> = hazards
        .iter()
        .enumerate()
        .map(|(i, h)| {
            // The enums' values are their order (`Ord` is derived).
            let key = (h.severity as u64) << 63
                | (h.kind as u64) << 62
                | h.first.site << 31
                | h.second.site;
            (key, i as u32)
        })
        .collect();
    keys.sort_unstable_by_key(|k| k.0);
    *hazards = keys
        .iter()
        .map(|&(_, i)| hazards[i as usize].clone())
        .collect();
}

/// Where [`check`] puts the conflicts it finds.
trait Conflicts {
    /// Conflicts put so far (for a conflict's rank).
    fn count(&self) -> usize;
    fn put(&mut self, found: Found);
}

/// Conflicts gathered, to be noted in rank order.
impl Conflicts for Vec<Found> {
    fn count(&self) -> usize {
        self.len()
    }
    fn put(&mut self, found: Found) {
        self.push(found);
    }
}

/// Conflicts noted as they are found, when they come in rank order.
impl Conflicts for HazardTable {
    fn count(&self) -> usize {
        0
    }
    fn put(&mut self, found: Found) {
        HazardTable::put(self, found);
    }
}

/// Lines of [`HazardTable::cache`].
const CACHE_LINES: usize = 256;

/// The index [`HazardTable::last`] and [`HazardTable::cache`] give a hazard
/// past the list: counted, never added to.
const NOT_LISTED: u32 = u32::MAX;

/// The line of [`HazardTable::cache`] a hazard's key goes to.
fn cache_line(key: &Key) -> usize {
    let (severity, kind, first, second) = *key;
    let mixed = (first ^ second.rotate_left(29) ^ (severity as u64) << 62 ^ (kind as u64) << 63)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> 56) as usize % CACHE_LINES
}

/// The lanes of `active` when they are next to each other (all 32, half a
/// warp, the lanes of a partial last warp), not none.
fn lane_run(active: u32) -> Option<core::ops::Range<usize>> {
    let low = active.trailing_zeros();
    let run = active.checked_shr(low).unwrap_or(0);
    // A run of ones from bit 0 is one less than a power of two.
    (run != 0 && run & run.wrapping_add(1) == 0)
        .then(|| low as usize..(low + run.count_ones()) as usize)
}

/// Whether the addresses of the lanes of `active` strictly rise (or fall)
/// from lane to lane: for accesses aligned to their width, whether every lane
/// touches words of its own, found without marking words.
fn monotonic(active: u32, addresses: &[u32; WARP_SIZE]) -> bool {
    if active == u32::MAX {
        // All lanes: one pass of a known length, which the compiler
        // unrolls into vector compares.
        let (mut up, mut down) = (0u32, 0u32);
        for (a, b) in addresses.iter().zip(&addresses[1..]) {
            up += u32::from(b > a);
            down += u32::from(b < a);
        }
        return up == 31 || down == 31;
    }
    if let Some(lanes) = lane_run(active) {
        // Lanes next to each other (half a warp): one pass the compiler
        // turns into vector compares.
        let lanes = &addresses[lanes];
        let (mut up, mut down) = (0usize, 0usize);
        for (a, b) in lanes.iter().zip(&lanes[1..]) {
            up += usize::from(b > a);
            down += usize::from(b < a);
        }
        return up == lanes.len() - 1 || down == lanes.len() - 1;
    }
    let (mut rising, mut falling) = (true, true);
    let mut bits = active & (active - 1);
    let mut previous = addresses[active.trailing_zeros() as usize];
    while bits != 0 {
        let address = addresses[bits.trailing_zeros() as usize];
        bits &= bits - 1;
        rising &= address > previous;
        falling &= address < previous;
        previous = address;
    }
    rising || falling
}

/// Whether two lanes of `active` may have the same address: false only when
/// none has. A bit per address (in units of `width`, a power of two) over a
/// window of 1,024 of them: addresses of an access within that window (4 KiB
/// for 4-byte accesses) that differ never share a bit.
fn may_repeat(active: u32, addresses: &[u32; WARP_SIZE], width: u32) -> bool {
    let mut seen = [0u64; 16];
    let shift = width.trailing_zeros();
    let mut bits = active;
    while bits != 0 {
        let index = (addresses[bits.trailing_zeros() as usize] >> shift) as usize % 1024;
        bits &= bits - 1;
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        if seen[word] & bit != 0 {
            return true;
        }
        seen[word] |= bit;
    }
    false
}

/// The highest address of the lanes of `active` (0 for none).
fn highest_address(active: u32, addresses: &[u32; WARP_SIZE]) -> u32 {
    if active == u32::MAX {
        // All lanes: a pass of a known length, unrolled into vector compares.
        return addresses.iter().fold(0, |a, &b| a.max(b));
    }
    if let Some(lanes) = lane_run(active) {
        // Lanes next to each other: vector compares, no chain of dependent
        // steps.
        return addresses[lanes].iter().fold(0, |a, &b| a.max(b));
    }
    let mut highest = 0;
    let mut bits = active;
    while bits != 0 {
        highest = highest.max(addresses[bits.trailing_zeros() as usize]);
        bits &= bits - 1;
    }
    highest
}

/// The lowest and highest word an access of `width` bytes a lane touches
/// (`active` not empty).
fn word_range(active: u32, addresses: &[u32; WARP_SIZE], width: u32, highest: u32) -> (u32, u32) {
    let lowest = if active == u32::MAX {
        addresses.iter().fold(u32::MAX, |a, &b| a.min(b))
    } else {
        let mut lowest = u32::MAX;
        let mut bits = active;
        while bits != 0 {
            lowest = lowest.min(addresses[bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
        lowest
    };
    let end = highest.saturating_add(width - 1);
    (lowest / 4, end / 4)
}

/// Whether every lane of `active` has the address `address`.
fn lanes_all_at(active: u32, addresses: &[u32; WARP_SIZE], address: u32) -> bool {
    let mut bits = active;
    while bits != 0 {
        let lane = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if addresses[lane] != address {
            return false;
        }
    }
    true
}

/// The access being run, as [`check`] needs it.
struct Now {
    warp: u32,
    site: u64,
    kind: AccessKind,
    step: u32,
    /// The lanes of a store that write what memory holds (bits; see
    /// [`Block::access_unchanged`]).
    unchanged: u32,
}

/// Adds to `found` the conflicts of the lanes of `batch` with the records of
/// its word: for each record at most one between warps (an error, the same
/// for every lane) and one between lanes of the warp (a warning, the first
/// lane that has it), which is all that a hazard's bytes and example need.
fn check(
    cell: &[Record],
    batch: &Batch,
    me: &Warp,
    now: &Now,
    addresses: &[u32; WARP_SIZE],
    found: &mut impl Conflicts,
) {
    let bit = 1u32 << now.warp;
    let rank = |lane: Lane, found: &dyn Conflicts| {
        let index = batch.word - addresses[lane.index()] / 4;
        (lane.index() as u64) << 40 | u64::from(index) << 32 | found.count() as u64
    };
    let first = Lane::from_index(batch.lanes.trailing_zeros() as usize);
    // An access that is a `cp.async` write is in flight.
    let mine = if now.kind == AccessKind::AsyncCopy {
        InFlight {
            warp: now.warp,
            lanes: batch.lanes,
            group: me.groups,
        }
    } else {
        InFlight::default()
    };
    for record in cell {
        let mask = record.bytes & batch.mask;
        if mask == 0 {
            continue;
        }
        let theirs = if record.pending {
            InFlight {
                warp: record.warps.trailing_zeros(),
                lanes: record.lanes,
                group: record.clock,
            }
        } else {
            InFlight::default()
        };
        let push = |severity, warp: u32, other: Lane, lane: Lane, mine, found: &mut _| {
            let rank = rank(lane, found);
            Conflicts::put(
                found,
                Found {
                    earlier: HazardAccess {
                        site: record.site,
                        warp,
                        lane: other,
                        access: record.kind,
                    },
                    now: HazardAccess {
                        site: now.site,
                        warp: now.warp,
                        lane,
                        access: now.kind,
                    },
                    severity,
                    word: batch.word,
                    mask,
                    rank,
                    copies: [theirs, mine],
                },
            );
        };
        let other = Lane::from_index(record.lanes.trailing_zeros() as usize);
        if record.pending && !(record.warps == bit && record.step == now.step) {
            // Not yet waited for: nothing orders it (PTX ISA,
            // cp.async.wait_group). compute-sanitizer's racecheck calls a
            // conflict with a copy of the warp's own lanes a warning ("(Warp
            // Level Programming) Potential RAW hazard detected (invalid
            // memcpy_async synchronization)"; WAW alike) and a store of
            // another warp an error (measured on an H200, racecheck
            // 2025.3.1: tests/data/ptx/async_sanitizer, waitgroup_nowait,
            // noinc_waw). Another warp's read is an error too, a modelling
            // choice: racecheck reports each byte's first conflict only,
            // and there the warp's own read came first.
            let others = record.warps & !bit;
            if others != 0 {
                push(
                    Severity::Error,
                    others.trailing_zeros(),
                    other,
                    first,
                    mine,
                    found,
                );
            }
            // The warp's own: not the lanes of this very instruction (a
            // write collision).
            if record.warps & bit != 0 && record.step != now.step {
                push(Severity::Warning, now.warp, other, first, mine, found);
            }
            continue;
        }
        if !conflicts(now.kind, record.kind) {
            continue;
        }
        // A lane that writes what memory holds forms no WAW hazard with an
        // earlier plain write (measured: Block::access_unchanged).
        let mut lanes = batch.lanes;
        let mut first = first;
        if now.unchanged & lanes != 0
            && matches!(record.kind, AccessKind::Write | AccessKind::AsyncCopy)
        {
            lanes &= !now.unchanged;
            if lanes == 0 {
                continue;
            }
            first = Lane::from_index(lanes.trailing_zeros() as usize);
        }
        // Other warps: a barrier that both passed orders them.
        let mut others = record.warps & !bit;
        while others != 0 {
            let warp = others.trailing_zeros();
            others &= others - 1;
            if record.clock > me.clock[warp as usize] {
                push(Severity::Error, warp, other, first, mine, found);
                break;
            }
        }
        // The warp's own lanes: `__syncwarp` or a barrier orders them, and
        // lanes of one instruction are a write collision, not a race.
        if record.warps & bit != 0 && record.step != now.step {
            // For a copy in flight, every lane that has it: whether the
            // hazard is seen depends on which of their copies racecheck sees.
            let mut example = None;
            let mut having = 0u32;
            while lanes != 0 {
                let lane = Lane::from_index(lanes.trailing_zeros() as usize);
                lanes &= lanes - 1;
                if let Some(other) = unordered_lane(record, me, lane) {
                    example = example.or(Some((other, lane)));
                    having |= 1 << lane.index();
                    if mine.lanes == 0 {
                        break;
                    }
                }
            }
            if let Some((other, lane)) = example {
                let mine = InFlight {
                    lanes: having & mine.lanes,
                    ..mine
                };
                push(Severity::Warning, now.warp, other, lane, mine, found);
            }
        }
    }
}

/// Checks the 16-byte lane `lane` of the access being run (of whole words,
/// through [`Block::run_words`]) against the coarse quad from word `first`,
/// noting its conflicts as a check of each of the four words would, in
/// that order; whether it did (else the words are checked one by one).
///
/// A record with the same lanes on every word has the same conflicts on
/// each: they are found once and put for each word. One whose lanes go
/// from word to word ([`Record::lane_stride`]) has too, but for the lane
/// of the record each names, which goes with them, as long as `lane` is
/// none of them and its warp has no lane order of its own (the first lane
/// it is not ordered after is then the record's first on each word):
/// otherwise the words are checked one by one.
///
/// A quad's one record that the access met before on another quad, but
/// for its lanes, gives it what it gave then ([`QuadsSeen`]): on every word
/// when none of its lanes is `lane`, else (a record of the warp alone) on
/// the words where it has another lane; the first time, a record of the
/// warp alone that has `lane` is checked on the first of those words, where
/// the words one by one would first find its conflict.
#[allow(clippy::too_many_arguments)]
#[inline]
fn check_quad(
    shadow: &Shadow,
    first: u32,
    lane: u32,
    me: &Warp,
    now: &Now,
    addresses: &[u32; WARP_SIZE],
    found: &mut Vec<Found>,
    hazards: &mut HazardTable,
    seen: &mut QuadsSeen,
) -> bool {
    let kinds = shadow.kinds[first as usize];
    if kinds & relevant(now.kind) == 0 {
        return true;
    }
    let records = shadow.records_any(first, kinds);
    let lane_bit = 1u32 << lane;
    // The one record, when what it gives the access is the same for every
    // lane it does not have, or, standing for the warp alone, for every
    // lane on the words where it has another (see `QuadsSeen`).
    let alone = match records {
        [only]
            if me.seen.is_none()
                && now.unchanged == 0
                && hazards.held.is_empty()
                && (only.spread() & lane_bit == 0 || only.warps == 1 << now.warp) =>
        {
            let has_lane = only.spread() & lane_bit != 0;
            // The words it may conflict on: a lane is no conflict of its own.
            let words = if has_lane {
                (0..4)
                    .filter(|&i| only.on_word(i).lanes & !lane_bit != 0)
                    .fold(0, |words, i| words | 1 << i)
            } else {
                0xf
            };
            if let Some(index) = seen.get(only) {
                if index != NOT_LISTED && index != QuadsSeen::NONE {
                    hazards.add_quad(index, first, words, only.bytes);
                }
                return true;
            }
            if has_lane {
                // Checked on the first word it may conflict on, where a
                // check word by word would first find its conflict, if any.
                if words == 0 {
                    return true;
                }
                let i = words.trailing_zeros();
                let batch = Batch {
                    word: first + i,
                    mask: 0xf,
                    lanes: lane_bit,
                };
                found.clear();
                let record = only.on_word(i);
                check(
                    core::slice::from_ref(&record),
                    &batch,
                    me,
                    now,
                    addresses,
                    found,
                );
                if let [f] = found[..] {
                    hazards.put(f);
                    if let Some((_, index)) = hazards.last
                        && index != NOT_LISTED
                    {
                        hazards.add_quad(index, first, words, only.bytes);
                    }
                }
                seen.put(*only, found, hazards);
                return true;
            }
            Some(*only)
        }
        _ => None,
    };
    let batch = Batch {
        word: first,
        mask: 0xf,
        lanes: 1 << lane,
    };
    found.clear();
    if kinds & AFFINE_BIT == 0 {
        check(records, &batch, me, now, addresses, found);
        if put_once(found, first, hazards) {
            if let Some(only) = alone {
                seen.put(only, found, hazards);
            }
            return true;
        }
        for i in 0..4 {
            for f in found.iter() {
                hazards.put(Found {
                    word: first + i,
                    rank: (f.rank >> 40) << 40 | u64::from(i) << 32,
                    ..*f
                });
            }
        }
        return true;
    }
    if me.seen.is_some()
        || records
            .iter()
            .any(|r| r.lane_stride != 0 && r.spread() & batch.lanes != 0)
    {
        return false;
    }
    // Each record's conflicts on the first word, in the order of the
    // records, then put for each word with the record's lanes there.
    let mut ends = [0; 2];
    for (end, record) in ends.iter_mut().zip(records) {
        check(
            core::slice::from_ref(&record.on_word(0)),
            &batch,
            me,
            now,
            addresses,
            found,
        );
        *end = found.len();
    }
    if put_once(found, first, hazards) {
        if let Some(only) = alone {
            seen.put(only, found, hazards);
        }
        return true;
    }
    for i in 0..4 {
        let mut start = 0;
        for (&end, record) in ends.iter().zip(records) {
            let step = (i * u32::from(record.lane_stride)) as usize;
            for f in &found[start..end] {
                hazards.put(Found {
                    earlier: HazardAccess {
                        lane: Lane::from_index(f.earlier.lane.index() + step),
                        ..f.earlier
                    },
                    word: first + i,
                    rank: (f.rank >> 40) << 40 | u64::from(i) << 32,
                    ..*f
                });
            }
            start = end;
        }
    }
    true
}

/// Whether the lanes of an access of all 32 lanes, of whole words, are on
/// words of their own, by its shape (each lane's address less lane 0's),
/// for a few shapes met lately, direct-mapped by site: the lanes are on
/// words of their own exactly when their addresses differ (requests are
/// aligned to their width), which the shape says. Why: the rows of an
/// `ldmatrix` tile, swizzled, neither rise nor fall from lane to lane, and
/// telling that every address differs ([`may_repeat`]) was a twelfth of
/// FlashInfer prefill's time with every block through the model; each
/// warp's and each iteration's rows have the same shape.
#[derive(Debug, Default)]
struct Shapes {
    /// The shapes, each with whether its lanes are on words of their own;
    /// none until the first is kept (a block model of kernels of a few
    /// requests each, nn-onestep's 118, pays nothing for them).
    lines: Vec<([u32; WARP_SIZE], bool)>,
}

impl Shapes {
    const LINES: usize = 64;

    fn line(site: u64) -> usize {
        (site.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % Self::LINES
    }

    fn shape(addresses: &[u32; WARP_SIZE]) -> [u32; WARP_SIZE] {
        core::array::from_fn(|lane| addresses[lane].wrapping_sub(addresses[0]))
    }

    /// Whether the lanes of the access at `site` are on words of their own,
    /// if its shape is known (only those of all 32 lanes are kept).
    #[inline]
    fn get(&self, site: u64, active: u32, addresses: &[u32; WARP_SIZE]) -> Option<bool> {
        if active != u32::MAX {
            return None;
        }
        let (shape, own) = self.lines.get(Self::line(site))?;
        (*shape == Self::shape(addresses)).then_some(*own)
    }

    /// Keeps whether the lanes of the access at `site` are on words of
    /// their own.
    fn put(&mut self, site: u64, active: u32, addresses: &[u32; WARP_SIZE], own: bool) {
        if active == u32::MAX {
            if self.lines.is_empty() {
                // Lane 0's offset is 0 in every shape: none matches a line
                // of 1s.
                self.lines = vec![([1; WARP_SIZE], false); Self::LINES];
            }
            self.lines[Self::line(site)] = (Self::shape(addresses), own);
        }
    }
}

/// What the one records of coarse quads gave the access being run
/// ([`check_quad`]), each but for its lanes: at most one conflict
/// (its hazard's index, [`NOT_LISTED`], or [`NONE`](Self::NONE) for no
/// conflict), for lanes of a warp without a lane order of its own, none of
/// them writing what memory holds, with no conflict held: on each word of
/// the quad for a lane the record does not have; on each word where the
/// record has another lane than the lane, for a record that stands for
/// the warp alone.
///
/// Why it is exact: [`check`] of one record for a lane it does not have
/// depends on the lane only through the example it names (the record's
/// first lane other than the lane, which is then any of them); for a
/// record of the warp alone, its one possible conflict is a warning, with
/// the record's lanes other than the lane (on words where it has none,
/// none); and the access, its warp and the conflicts held do not change
/// while it runs. A conflict whose hazard is already noted adds its bytes
/// and nothing else (its example is the first conflict's). Why: the rows
/// of a tile stored a word a lane
/// and read back 16 bytes a lane by the same warp, with no `__syncwarp`
/// between (FlashInfer prefill's last step), make each lane of each read
/// a conflict with the quad's record, from one of a few stores: noting
/// each of them in full was a third of that trace's time with every block
/// through the model.
#[derive(Debug, Default)]
struct QuadsSeen {
    /// The records, two lines a site's hash; each valid while its access is
    /// the one being run. None until the first is kept: on the heap, so
    /// that the block model stays small to move (in place, they made each
    /// block of nn-onestep's 118 kernels cost a 3 KB copy or two).
    lines: Vec<(Record, u32, u64)>,
    /// The access being run (a count from 1, never reused).
    access: u64,
}

impl QuadsSeen {
    const LINES: usize = 64;
    /// No conflict.
    const NONE: u32 = u32::MAX - 1;

    /// A new access: what the last one saw is forgotten.
    fn next_access(&mut self) {
        self.access += 1;
    }

    /// The first of the two lines `record` may be in: two, so that two
    /// sites of one access that hash alike (FlashInfer prefill's stores
    /// 0x65b0 and 0x6640) do not put each other out.
    fn line(record: &Record) -> usize {
        ((record.site.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % Self::LINES) & !1
    }

    /// What `record` (but for its lanes) gave the access being run.
    #[inline]
    fn get(&self, record: &Record) -> Option<u32> {
        let at = Self::line(record);
        self.lines
            .get(at..at + 2)?
            .iter()
            .find(|(cached, _, access)| *access == self.access && cached.same_but_lanes(record))
            .map(|&(_, index, _)| index)
    }

    /// Keeps what `record` gave: the conflicts `found` (noted, none held).
    #[inline]
    fn put(&mut self, record: Record, found: &[Found], hazards: &HazardTable) {
        let index = match (found, hazards.last) {
            ([], _) => Self::NONE,
            ([_], Some((_, index))) => index,
            _ => return,
        };
        if self.lines.is_empty() {
            self.lines = vec![(Record::EMPTY, 0, 0); Self::LINES];
        }
        let at = Self::line(&record);
        // The first line unless it holds another record of this access.
        let (cached, _, access) = &self.lines[at];
        let at = if *access == self.access && !cached.same_but_lanes(&record) {
            at + 1
        } else {
            at
        };
        self.lines[at] = (record, index, self.access);
    }
}

/// [`check_quad`]'s puts of its one conflict, when it found one and none is
/// held: the conflict on the quad's first word, noted at once, then the
/// same bytes of the quad's words added to its hazard, all that
/// putting each would do (the conflicts of a coarse quad's records are
/// never with a `cp.async` write in flight); whether it did.
#[inline]
fn put_once(found: &[Found], first: u32, hazards: &mut HazardTable) -> bool {
    let [f] = found else {
        return found.is_empty();
    };
    if !hazards.held.is_empty() {
        return false;
    }
    debug_assert!(f.copies[0].lanes | f.copies[1].lanes == 0);
    hazards.put(Found {
        word: first,
        rank: (f.rank >> 40) << 40,
        ..*f
    });
    if let Some((_, index)) = hazards.last
        && index != NOT_LISTED
    {
        hazards.add_quad(index, first, 0xf, f.mask);
    }
    true
}

/// A lane of the warp's own `record`, other than `lane`, that `lane` is not
/// ordered after.
fn unordered_lane(record: &Record, me: &Warp, lane: Lane) -> Option<Lane> {
    if record.step <= me.floor {
        return None;
    }
    let mut others = record.lanes & !(1 << lane.index());
    let Some(seen) = &me.seen else {
        // Every entry 0: every other lane's step is above it.
        return (others != 0).then(|| Lane::from_index(others.trailing_zeros() as usize));
    };
    let seen = &seen[lane.index()];
    while others != 0 {
        let a = others.trailing_zeros() as usize;
        if record.step > seen[a] {
            return Some(Lane::from_index(a));
        }
        others &= others - 1;
    }
    None
}

/// A warp's earlier record of a word, taken over by its access `new`: its
/// lanes that the access's first lane is not ordered after stay (within one
/// instruction, all of them), the rest are ordered before it and dropped.
fn merged(slot: &Record, new: &Record, order: Order<'_>) -> Record {
    if slot.step == new.step {
        return Record {
            lanes: slot.lanes | new.lanes,
            bytes: slot.bytes | new.bytes,
            warps: new.warps,
            ..*slot
        };
    }
    let lane = new.lanes.trailing_zeros() as usize;
    let mut keep = 0u32;
    let mut lanes = slot.lanes & !(1 << lane);
    while lanes != 0 {
        let a = lanes.trailing_zeros() as usize;
        if !order.after(a, slot.step) {
            keep |= 1 << a;
        }
        lanes &= lanes - 1;
    }
    let bytes = if keep == 0 {
        new.bytes
    } else {
        slot.bytes | new.bytes
    };
    Record {
        lanes: keep | new.lanes,
        bytes,
        ..*new
    }
}

/// Merges the access `new` of one warp into that warp's record at `i` of the
/// word's cell; false when the shadow is full. When the record stands for
/// other warps too, they keep it and the warp's merged record goes right
/// after it (joining the next record when alike), so that the warp's records
/// keep their order.
fn merge_at(shadow: &mut Shadow, word: u32, i: usize, new: &Record, order: Order<'_>) -> bool {
    let full = shadow.records >= MAX_RECORDS;
    let cell = shadow.records_mut(word);
    let slot = cell[i];
    let merged = merged(&slot, new, order);
    if slot.warps == new.warps {
        cell[i] = merged;
        return true;
    }
    if merged.alike(&slot) {
        return true;
    }
    if let Some(next) = cell.get_mut(i + 1)
        && next.warps & new.warps == 0
        && next.alike(&merged)
    {
        next.warps |= new.warps;
        cell[i].warps &= !new.warps;
        return true;
    }
    if full {
        return false;
    }
    cell[i].warps &= !new.warps;
    shadow.insert(word, i + 1, merged);
    true
}

/// Writes the records of an access in batches (`batches`, one per word with
/// its lanes), once its lanes are checked: each batch takes its first
/// lane's order; `seen` is the warp's lane order, if it has one. A
/// `cp.async` write is pending, its group in `clock`. Sets `error` when the
/// shadow is full.
fn record_batches(
    shadow: &mut Shadow,
    error: &mut Option<Error>,
    batches: &[Batch],
    access: &AccessAt,
    seen: Option<&[[u32; WARP_SIZE]; WARP_SIZE]>,
) {
    for batch in batches {
        let new = Record {
            site: access.site,
            lanes: batch.lanes,
            step: access.step,
            clock: access.clock,
            warps: 1 << access.warp,
            kind: access.kind,
            bytes: batch.mask,
            pending: access.kind == AccessKind::AsyncCopy,
            lane_stride: 0,
        };
        let order = Order {
            row: seen.map(|seen| &seen[batch.lanes.trailing_zeros() as usize]),
            floor: access.floor,
        };
        if !record(shadow, batch.word, new, order) {
            *error = Some(Error::ShadowFull { limit: MAX_RECORDS });
            return;
        }
    }
}

/// Writes the records of a whole-word access whose lanes are on words of
/// their own ([`Block::run_words`]), once its lanes are checked; `seen` is
/// its warp's lane order, if it has one. Sets `error` when the shadow is
/// full.
#[inline(never)]
fn record_words(
    shadow: &mut Shadow,
    error: &mut Option<Error>,
    access: &AccessAt,
    addresses: &[u32; WARP_SIZE],
    seen: Option<&[[u32; WARP_SIZE]; WARP_SIZE]>,
) {
    let AccessAt {
        warp,
        site,
        kind,
        step,
        clock,
        floor,
        active,
        width,
        highest,
        ..
    } = *access;
    let words = width / 4;
    let bit = 1 << warp;
    let order = |lane: usize| Order {
        row: seen.map(|seen| &seen[lane]),
        floor,
    };
    // The table takes every word of the access at once, so that a word
    // no record covers is one test of its kinds.
    shadow.grow((highest / 4 + words) as usize);
    // Whether the lowest lane and the three after it store a quad's words
    // in order: only then are the quads of four lanes looked for, so that
    // other accesses of 4-byte lanes pay one test for them.
    let low = active.trailing_zeros() as usize;
    let rows = words == 1
        && low <= 28
        && active >> low & 0xf == 0xf
        && addresses[low].is_multiple_of(16)
        && addresses[low + 1] == addresses[low] + 4
        && addresses[low + 2] == addresses[low] + 8
        && addresses[low + 3] == addresses[low] + 12;
    let mut bits = active;
    while bits != 0 {
        let lane = bits.trailing_zeros();
        bits &= bits - 1;
        let first = addresses[lane as usize] / 4;
        // The lane's record of each of its words.
        let new = Record {
            site,
            lanes: 1 << lane,
            step,
            clock,
            warps: bit,
            kind,
            bytes: 0xf,
            pending: false,
            lane_stride: 0,
        };
        // A lane of 16 bytes covers a quad (requests are aligned to their
        // width): its commonest steps, once for its four words.
        if words == 4 && record_quad(shadow, first, new) {
            continue;
        }
        // So do four lanes of 4 bytes one after the other from a quad's
        // first word (a row stored a word a lane): once for the four lanes.
        if rows
            && first.is_multiple_of(4)
            // A quad that may be empty or is coarse.
            && (shadow.kinds[first as usize] == 0 || shadow.coarse(first))
            && lane <= 28
            && bits >> (lane + 1) & 7 == 7
            && addresses[lane as usize + 1] == 4 * first + 4
            && addresses[lane as usize + 2] == 4 * first + 8
            && addresses[lane as usize + 3] == 4 * first + 12
        {
            let affine = Record {
                lane_stride: 1,
                ..new
            };
            if record_quad(shadow, first, affine) {
                bits &= !(7 << (lane + 1));
                continue;
            }
        }
        for word in first..first + words {
            let kinds = shadow.kinds[word as usize];
            if kinds == 0 {
                if shadow.records >= MAX_RECORDS {
                    *error = Some(Error::ShadowFull { limit: MAX_RECORDS });
                    return;
                }
                shadow.push_first(word, new);
                continue;
            }
            shadow.split(word, kinds);
            // No other lane of the access is on this word: its records
            // are older.
            if let [only] = shadow.records_mut(word) {
                if only.warps & bit == 0 && only.alike(&new) {
                    only.warps |= bit;
                    continue;
                }
                // `record`'s steps on one record that the access can
                // neither join nor merge into: it goes after it.
                let mergeable = only.warps & bit != 0
                    && only.kind == kind
                    && !only.pending
                    && only.site == site
                    && only.bytes == 0xf;
                if !mergeable {
                    if shadow.records >= MAX_RECORDS {
                        *error = Some(Error::ShadowFull { limit: MAX_RECORDS });
                        return;
                    }
                    shadow.push_more(word, new);
                    continue;
                }
            }
            if !record(shadow, word, new, order(lane as usize)) {
                *error = Some(Error::ShadowFull { limit: MAX_RECORDS });
                return;
            }
        }
    }
}

/// The commonest steps of [`record_words`] for a lane of 16 bytes, or four
/// lanes of 4 bytes one after the other (`new`'s
/// [`lane_stride`](Record::lane_stride) 1), on the quad from word `first`,
/// once for its four words when the quad is new or coarse and stays so;
/// whether they were taken (else the words go one by one, as they do near
/// the bound on records, to be refused at the same one). Inlined: its
/// call (the record passed on the stack, registers saved and restored)
/// was a quarter of its cost, and it runs for most lanes of tensor-core
/// kernels' 16-byte accesses.
#[inline(always)]
fn record_quad(shadow: &mut Shadow, first: u32, new: Record) -> bool {
    if shadow.records + 4 > MAX_RECORDS || !shadow.quads() {
        return false;
    }
    if shadow.quad_empty(first) {
        shadow.push_quad(first, new);
        return true;
    }
    if !shadow.coarse(first) {
        return false;
    }
    let bit = new.warps;
    let [only] = shadow.quad_records_mut(first) else {
        return false;
    };
    if only.warps & bit == 0 && only.alike(&new) {
        only.warps |= bit;
        return true;
    }
    // The warp would join the record on some words only.
    if only.warps & bit == 0 && only.lane_stride != new.lane_stride && only.alike_on_a_word(&new) {
        return false;
    }
    let mergeable = only.warps & bit != 0
        && only.kind == new.kind
        && !only.pending
        && only.site == new.site
        && only.bytes == 0xf;
    if mergeable {
        return false;
    }
    shadow.push_more_quad(first, new);
    true
}

/// Notes the access of one warp in the word's shadow; false when the shadow
/// is full.
fn record(shadow: &mut Shadow, word: u32, new: Record, order: Order<'_>) -> bool {
    let kinds = match shadow.kinds.get(word as usize) {
        Some(&kinds) if kinds != 0 => kinds,
        _ => {
            // A word without records (or past the table so far).
            if shadow.records >= MAX_RECORDS {
                return false;
            }
            shadow.push(word, new);
            return true;
        }
    };
    shadow.split(word, kinds);
    let share = !shadow.plain();
    let bit = new.warps;
    let cell = shadow.records_mut(word);
    // The common cases first: a word no one touched yet, and a word whose
    // one record another warp in step made.
    match cell {
        [] => {
            if shadow.records >= MAX_RECORDS {
                return false;
            }
            shadow.push(word, new);
            return true;
        }
        [only] if share && only.warps & bit == 0 && only.alike(&new) => {
            only.warps |= bit;
            return true;
        }
        _ => {}
    }
    let mut mine = 0;
    let mut latest: Option<(usize, u32)> = None;
    // The warp's last record of the word: it may join a record only after it.
    let mut last = None;
    for (i, r) in cell.iter_mut().enumerate() {
        if r.warps & bit == 0 {
            continue;
        }
        last = Some(i);
        if r.kind != new.kind {
            continue;
        }
        if r.pending || new.pending {
            // A pending write joins only the same instruction's record of
            // its group; it is never merged into another.
            if r.pending
                && new.pending
                && r.site == new.site
                && r.bytes == new.bytes
                && r.clock == new.clock
            {
                r.lanes |= new.lanes;
                r.step = new.step;
                return true;
            }
            continue;
        }
        if r.site == new.site && r.bytes == new.bytes {
            return merge_at(shadow, word, i, &new, order);
        }
        mine += 1;
        if latest.is_none_or(|(_, step)| step <= r.step) {
            latest = Some((i, r.step));
        }
    }
    // A site has at most 4 masks on a word (one per byte, for 1-byte
    // accesses), so this keeps at least SITES_PER_WARP sites apart.
    if mine < 4 * SITES_PER_WARP || new.pending {
        if !new.pending && share {
            let from = last.map_or(0, |i| i + 1);
            if let Some(r) = cell[from..].iter_mut().rev().find(|r| r.alike(&new)) {
                r.warps |= bit;
                return true;
            }
        }
        if shadow.records >= MAX_RECORDS {
            return false;
        }
        shadow.push(word, new);
        return true;
    }
    match latest {
        Some((i, _)) => merge_at(shadow, word, i, &new, order),
        None => true,
    }
}
