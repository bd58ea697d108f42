//! The block model as it was at commit ee664fa (before the per-word shadow),
//! kept verbatim but for its imports so that `benches/racecheck.rs` measures
//! old and new side by side in one run. Not part of the crate.
//!
//! A thread block: its warps' shared accesses and barriers, and the hazards and
//! barrier errors between them (CUDA C++ Programming Guide, synchronization functions).
//!
//! Each warp's events (accesses, barriers, `__syncwarp`, fences) are given in
//! that warp's program order; warps may be given in any interleaving. The
//! model runs them as a scheduler would: a warp that reaches a barrier waits
//! (its later events are held) until every warp the barrier waits for has
//! arrived. Ordering is tracked with vector clocks, one component per warp
//! (a block has at most 32 warps), and per warp a 32 x 32 matrix of what each
//! lane knows of the others (for `__syncwarp`); accesses are checked against a
//! per-byte shadow of the accesses since the last block-wide barrier. So the
//! model answers for every order the hardware could run the warps in, not just
//! one: two accesses race when no barrier both threads passed separates them.

mod report;
mod shadow;

use std::collections::{HashMap, HashSet, VecDeque};

pub use report::{
    AccessKind, BarrierError, BlockReport, Hazard, HazardAccess, HazardKind, Severity,
};

use report::bits;
use shadow::{Cell, Record, Shadow, SITES_PER_WARP};

use smem_model::WARP_SIZE;
use smem_model::{ComputeCapability, Error, Lane, LaneSet, Op, WarpRequest};

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
    /// `__syncwarp(mask)`: orders the lanes in `mask` among themselves (CUDA
    /// C++ Programming Guide, `__syncwarp`). The model synchronises the lanes
    /// that execute it and are in the mask.
    Warp(LaneSet),
    /// `__threadfence_block()` (`membar.cta`, SASS `MEMBAR.CTA`): orders one
    /// thread's own accesses as others see them, but orders nothing between two
    /// threads, so it never removes a hazard (CUDA C++ Programming Guide, synchronization functions).
    Fence,
}

/// One event of a warp, held while the warp waits at a barrier.
#[derive(Debug, Clone, Copy)]
enum Event {
    Access {
        site: u64,
        request: WarpRequest,
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
    /// after (through `__syncwarp` or a barrier).
    seen: Box<[[u32; WARP_SIZE]; WARP_SIZE]>,
    /// Instructions so far (program order within the warp).
    step: u32,
    /// Events held while the warp waits.
    queue: VecDeque<Event>,
    /// The barrier it waits at.
    waiting: Option<u32>,
}

/// A barrier's current generation: the warps that have arrived.
#[derive(Debug, Default, Clone)]
struct Generation {
    /// Warps arrived (bits).
    arrived: u32,
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
    hazards: HashMap<Key, (Hazard, HashSet<u32>)>,
    barrier_errors: Vec<BarrierError>,
    pending: usize,
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
        let count = threads.div_ceil(32);
        let warps = (0..count)
            .map(|w| {
                let lanes = (threads - 32 * w).min(32);
                // A warp's own component starts at 1, so that its accesses
                // are not ordered before anything until a barrier joins it.
                let mut clock = [0; WARP_SIZE];
                clock[w as usize] = 1;
                Warp {
                    threads: LaneSet::range(0, lanes),
                    clock,
                    seen: Box::new([[0; WARP_SIZE]; WARP_SIZE]),
                    step: 0,
                    queue: VecDeque::new(),
                    waiting: None,
                }
            })
            .collect();
        Ok(Block {
            capability,
            threads,
            warps,
            barriers: vec![Generation::default(); BARRIERS as usize],
            shadow: Shadow::default(),
            hazards: HashMap::new(),
            barrier_errors: Vec::new(),
            pending: 0,
        })
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
        self.check_warp(warp)?;
        let window = self.capability.shared_window_size();
        let width = request.width().bytes();
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
        self.push(
            warp,
            Event::Access {
                site,
                request: *request,
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
        if let SyncOp::Named { id, threads } = sync {
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
    ///     "barrier 0 (site 0x2) waits for 2 warps but only warp(s) 1 reach it; warp(s) 0 never do"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn finish(mut self) -> BlockReport {
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
        let mut hazards: Vec<Hazard> = self
            .hazards
            .into_values()
            .map(|(mut hazard, bytes)| {
                hazard.bytes = bytes.len() as u32;
                hazard
            })
            .collect();
        hazards.sort_by_key(|h| (h.severity, h.kind, h.first.site, h.second.site));
        BlockReport {
            hazards,
            barrier_errors: self.barrier_errors,
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
        let w = &mut self.warps[warp as usize];
        if w.waiting.is_none() {
            debug_assert!(w.queue.is_empty());
            self.run(warp, event);
            return Ok(());
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
            Event::Access { site, request } => self.run_access(warp, site, &request),
            Event::Sync { site, lanes, sync } => match sync {
                SyncOp::Threads => {
                    let threads = 32 * self.warps();
                    self.arrive(warp, site, lanes, 0, threads);
                }
                SyncOp::Named { id, threads } => self.arrive(warp, site, lanes, id, threads),
                SyncOp::Warp(mask) => self.syncwarp(warp, site, lanes, mask),
                SyncOp::Fence => {}
            },
        }
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
        let mut joined = [0u32; WARP_SIZE];
        for b in group.iter() {
            for (j, s) in joined.iter_mut().zip(w.seen[b.index()].iter()) {
                *j = (*j).max(*s);
            }
        }
        for a in group.iter() {
            joined[a.index()] = step;
        }
        for b in group.iter() {
            w.seen[b.index()] = joined;
        }
    }

    fn arrive(&mut self, warp: u32, site: u64, lanes: LaneSet, id: u32, threads: u32) {
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
        self.warps[warp as usize].waiting = Some(id);
        if generation.arrived.count_ones() >= generation.expected {
            if generation.sites.len() > 1 {
                let sites = generation
                    .sites
                    .iter()
                    .map(|&(site, warps)| (site, bits(warps)))
                    .collect();
                self.barrier_errors
                    .push(BarrierError::DifferentSites { id, sites });
            }
            let generation = core::mem::take(generation);
            self.release(generation);
        }
    }

    /// Completes a barrier's generation with the warps that arrived: their clocks are
    /// joined, their lanes synchronised, and their held events run.
    fn release(&mut self, generation: Generation) {
        let arrived = bits(generation.arrived);
        let mut joined = [0u32; WARP_SIZE];
        for &w in &arrived {
            for (j, c) in joined.iter_mut().zip(self.warps[w as usize].clock) {
                *j = (*j).max(c);
            }
        }
        for &w in &arrived {
            let warp = &mut self.warps[w as usize];
            warp.clock = joined;
            warp.clock[w as usize] += 1;
            let step = warp.step;
            for row in warp.seen.iter_mut() {
                *row = [step; WARP_SIZE];
            }
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

    fn run_access(&mut self, warp: u32, site: u64, request: &WarpRequest) {
        let kind = AccessKind::of(request.op());
        let width = request.width().bytes();
        let w = &self.warps[warp as usize];
        let (step, clock) = (w.step, w.clock[warp as usize]);
        // Every lane is checked against the shadow as it was before the
        // instruction, then the instruction is recorded: its lanes are one
        // access, and one lane's record must not hide what another lane
        // races with.
        for (lane, address) in request.active_addresses() {
            for byte in address..address + width {
                let Some(cell) = self.shadow.cells.get(&byte) else {
                    continue;
                };
                let found = check(cell, kind, &self.warps, warp, lane, step);
                for (record, other, severity, other_lane) in found {
                    let hazard_kind = if kind.writes() && other.writes() {
                        HazardKind::WriteWrite
                    } else {
                        HazardKind::ReadWrite
                    };
                    let earlier = HazardAccess {
                        site: record.site,
                        warp: u32::from(record.warp),
                        lane: other_lane,
                        access: other,
                    };
                    let now = HazardAccess {
                        site,
                        warp,
                        lane,
                        access: kind,
                    };
                    let (first, second) = if now.site < earlier.site {
                        (now, earlier)
                    } else {
                        (earlier, now)
                    };
                    let key = (severity, hazard_kind, first.site, second.site);
                    let entry = self.hazards.entry(key).or_insert_with(|| {
                        let hazard = Hazard {
                            kind: hazard_kind,
                            severity,
                            first,
                            second,
                            address: byte,
                            bytes: 0,
                        };
                        (hazard, HashSet::new())
                    });
                    entry.1.insert(byte);
                }
            }
        }
        for (lane, address) in request.active_addresses() {
            for byte in address..address + width {
                let cell = self.shadow.cells.entry(byte).or_default();
                let new = Record {
                    warp: warp as u8,
                    kind,
                    lanes: 1 << lane.index(),
                    step,
                    clock,
                    site,
                };
                record(cell, new, &self.warps[warp as usize]);
            }
        }
    }
}

/// The records of `cell` that an access of `kind` by `lane` of `warp` at
/// `step` is not ordered after: each with its kind, the severity and one lane
/// of it.
fn check(
    cell: &Cell,
    kind: AccessKind,
    warps: &[Warp],
    warp: u32,
    lane: Lane,
    step: u32,
) -> Vec<(Record, AccessKind, Severity, Lane)> {
    let me = &warps[warp as usize];
    let mut found = Vec::new();
    for record in cell.conflicting(kind) {
        let other = record.kind;
        let other_warp = u32::from(record.warp);
        if other_warp != warp {
            if record.clock > me.clock[other_warp as usize] {
                let lane = Lane::all()
                    .nth(record.lanes.trailing_zeros() as usize)
                    .unwrap_or(Lane::all().next().unwrap());
                found.push((*record, other, Severity::Error, lane));
            }
            continue;
        }
        if record.step == step {
            // Lanes of one instruction: a write collision, not a race.
            continue;
        }
        let seen = &me.seen[lane.index()];
        let unordered = LaneSet::from_bits(record.lanes)
            .iter()
            .find(|&a| a != lane && record.step > seen[a.index()]);
        if let Some(a) = unordered {
            found.push((*record, other, Severity::Warning, a));
        }
    }
    found
}

/// Notes the access in the byte's shadow.
fn record(cell: &mut Cell, new: Record, me: &Warp) {
    let lane = new.lanes.trailing_zeros() as usize;
    // An earlier record of the warp, taken over by this access: its lanes
    // that this lane is not ordered after stay (within one instruction, all
    // of them), the rest are ordered before it and dropped.
    let merge = |slot: &mut Record| {
        if slot.step == new.step {
            slot.lanes |= new.lanes;
            return;
        }
        let seen = &me.seen[lane];
        let keep = LaneSet::from_bits(slot.lanes)
            .iter()
            .filter(|a| a.index() != lane && slot.step > seen[a.index()])
            .fold(0u32, |bits, a| bits | 1 << a.index());
        *slot = Record {
            lanes: keep | new.lanes,
            ..new
        };
    };
    let mine = |r: &&mut Record| r.warp == new.warp && r.kind == new.kind;
    if let Some(slot) = cell
        .records
        .iter_mut()
        .filter(mine)
        .find(|r| r.site == new.site)
    {
        merge(slot);
        return;
    }
    if cell.records.iter_mut().filter(mine).count() < SITES_PER_WARP {
        cell.records.push(new);
        return;
    }
    if let Some(latest) = cell.records.iter_mut().filter(mine).max_by_key(|r| r.step) {
        merge(latest);
    }
}
