//! What the block model finds: hazards between accesses, and barrier errors.

use core::fmt;

use crate::Lane;

/// The two kinds of hazard.
///
/// Within one barrier interval the order of two threads' accesses is not known,
/// so read-after-write and write-after-read (compute-sanitizer's RAW and WAR)
/// are one kind here: whichever order a run takes, the value
/// read depends on it.
///
/// # Example
///
/// ```
/// use smem_model::HazardKind;
///
/// assert_eq!(HazardKind::ReadWrite.to_string(), "read-write");
/// assert_eq!(HazardKind::WriteWrite.to_string(), "write-write");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum HazardKind {
    /// One access reads, the other writes (an atomic counts as a write).
    ReadWrite,
    /// Both write.
    WriteWrite,
}

impl fmt::Display for HazardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HazardKind::ReadWrite => "read-write",
            HazardKind::WriteWrite => "write-write",
        })
    }
}

/// How serious a hazard is.
///
/// Between warps nothing but a barrier orders two accesses: an
/// [`Error`](Severity::Error). Between lanes of one warp, code that relied on
/// the warp executing in lockstep worked before Volta and still often works;
/// since Volta (independent thread scheduling, CUDA C++ Programming Guide,
/// "Independent Thread Scheduling") it is a race unless `__syncwarp` orders it.
/// The model reports such hazards as a [`Warning`](Severity::Warning), in the
/// way compute-sanitizer's racecheck reports warp-level hazards on their own
/// level (a modelling choice of this crate, as racecheck reports them).
///
/// # Example
///
/// ```
/// use smem_model::Severity;
///
/// assert!(Severity::Error < Severity::Warning);
/// assert_eq!(Severity::Warning.to_string(), "warning");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Severity {
    /// Threads of different warps.
    Error,
    /// Lanes of one warp that no `__syncwarp` separates.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// What an access does to the bytes it touches.
///
/// # Example
///
/// ```
/// use smem_model::{AccessKind, Op};
///
/// assert_eq!(AccessKind::of(Op::Load), AccessKind::Read);
/// assert_eq!(AccessKind::of(Op::Store), AccessKind::Write);
/// assert_eq!(AccessKind::of(Op::ATOMIC_ADD), AccessKind::Atomic);
/// assert_eq!(AccessKind::Atomic.to_string(), "atomic");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store (or any write that is not an atomic).
    Write,
    /// An atomic read-modify-write: it races with reads and writes, never with
    /// another atomic (CUDA C++ Programming Guide, synchronization functions).
    Atomic,
    /// The shared-memory write of a `cp.async` (SASS `LDGSTS`): a write that
    /// completes asynchronously. Until the issuing thread's
    /// `cp.async.wait_group`/`wait_all` completes its group (or its
    /// `cp.async.mbarrier.arrive`), every access to its bytes races with it, the
    /// issuing thread's own included; after that it is a write that other
    /// threads see only through a barrier passed after the wait (PTX ISA,
    /// cp.async.wait_group / cp.async.wait_all: "Writes performed by cp.async
    /// operations are made visible to the executing thread only after" the
    /// wait completes; completion mechanisms for asynchronous copy operations).
    AsyncCopy,
}

impl AccessKind {
    /// The kind of access an op makes: atomics of every kind are
    /// [`Atomic`](Self::Atomic), other ops that write are
    /// [`Write`](Self::Write), the rest [`Read`](Self::Read).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, AtomicKind, Op};
    ///
    /// assert_eq!(AccessKind::of(Op::Load), AccessKind::Read);
    /// assert_eq!(AccessKind::of(Op::Store), AccessKind::Write);
    /// assert_eq!(AccessKind::of(Op::Atomic(AtomicKind::Add)), AccessKind::Atomic);
    /// ```
    pub fn of(op: crate::Op) -> Self {
        if super::is_atomic(op) {
            AccessKind::Atomic
        } else if matches!(op, crate::Op::CpAsync(_)) {
            AccessKind::AsyncCopy
        } else if op.writes() {
            AccessKind::Write
        } else {
            AccessKind::Read
        }
    }

    /// Whether the access writes (stores and atomics).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::AccessKind;
    ///
    /// assert!(AccessKind::Write.writes());
    /// assert!(!AccessKind::Read.writes());
    /// ```
    pub const fn writes(self) -> bool {
        !matches!(self, AccessKind::Read)
    }
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
            AccessKind::AsyncCopy => "cp.async write",
        })
    }
}

/// One side of a hazard: which instruction, which thread.
///
/// # Example
///
/// ```
/// use smem_model::{AccessKind, Block, ComputeCapability, Op, WarpRequest};
///
/// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
/// block.access(0, 0x10, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get()))?)?;
/// block.access(1, 0x20, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * l.get()))?)?;
/// let report = block.finish();
/// let first = report.hazards()[0].first();
/// assert_eq!((first.site(), first.warp(), first.lane().get()), (0x10, 0, 0));
/// assert_eq!(first.access(), AccessKind::Write);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HazardAccess {
    pub(super) site: u64,
    pub(super) warp: u32,
    pub(super) lane: Lane,
    pub(super) access: AccessKind,
}

impl HazardAccess {
    /// The instruction: the site given with the access (a PC in a trace).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// let sites = [hazard.first().site(), hazard.second().site()];
    /// assert!(sites.contains(&1) && sites.contains(&2));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn site(&self) -> u64 {
        self.site
    }

    /// The warp, within the block.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert!(hazard.first().warp() < 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn warp(&self) -> u32 {
        self.warp
    }

    /// The lane of one thread that made the access.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// let first = hazard.first();
    /// assert_eq!(first.thread(), 32 * first.warp() + first.lane().get());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn lane(&self) -> Lane {
        self.lane
    }

    /// The thread's index in the block (`32 * warp + lane`, for a 1-D block).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// let second = hazard.second();
    /// assert_eq!(second.thread(), 32 * second.warp() + second.lane().get());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn thread(&self) -> u32 {
        32 * self.warp + self.lane.get()
    }

    /// What the access does.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// let kinds = [hazard.first().access(), hazard.second().access()];
    /// assert!(kinds.contains(&AccessKind::Read) && kinds.contains(&AccessKind::Write));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn access(&self) -> AccessKind {
        self.access
    }
}

/// Two instructions that access the same shared bytes from different threads,
/// at least one writing, with no barrier between them that both threads passed.
///
/// One hazard stands for every byte on which the same pair of instructions
/// (sites, unordered) races with the same kind and severity; `first` is the
/// access of the lower site (at equal sites, the one made first), with the
/// threads of one example byte.
///
/// # Example
///
/// ```
/// use smem_model::{Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
///
/// // s[t] = t; x = s[63 - t]; with no __syncthreads() between them.
/// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
/// for warp in 0..2 {
///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
/// }
/// let report = block.finish();
/// let hazard = &report.hazards()[0];
/// assert_eq!((hazard.kind(), hazard.severity()), (HazardKind::ReadWrite, Severity::Error));
/// assert_eq!((hazard.first().site(), hazard.second().site()), (1, 2));
/// assert_eq!(hazard.bytes(), 256);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Hazard {
    pub(super) kind: HazardKind,
    pub(super) severity: Severity,
    pub(super) first: HazardAccess,
    pub(super) second: HazardAccess,
    pub(super) address: u32,
    pub(super) bytes: u32,
}

impl Hazard {
    /// Read-write or write-write.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert_eq!(hazard.kind(), HazardKind::ReadWrite);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn kind(&self) -> HazardKind {
        self.kind
    }

    /// Between warps (error) or lanes of one warp (warning).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// // Between warps, not ordered by a barrier: an error.
    /// assert_eq!(hazard.severity(), Severity::Error);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn severity(&self) -> Severity {
        self.severity
    }

    /// The access at the lower site.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert_ne!(hazard.first().warp(), hazard.second().warp());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn first(&self) -> &HazardAccess {
        &self.first
    }

    /// The access at the higher site.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert_ne!(hazard.first().access(), hazard.second().access());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn second(&self) -> &HazardAccess {
        &self.second
    }

    /// The shared address of the example byte.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert!(hazard.address() < 256);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn address(&self) -> u32 {
        self.address
    }

    /// How many distinct bytes the two instructions race on.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// // Every byte of the 256-byte array is written by one warp and read by the other.
    /// assert_eq!(hazard.bytes(), 256);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn bytes(&self) -> u32 {
        self.bytes
    }
}

impl fmt::Display for Hazard {
    /// One line: severity, kind, the two sides and the bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |a: &HazardAccess| {
            format!(
                "{} at site {:#x} by warp {} lane {}",
                a.access, a.site, a.warp, a.lane
            )
        };
        write!(
            f,
            "{} {}: {} and {} on {} byte(s), e.g. {:#x}",
            self.severity,
            self.kind,
            side(&self.first),
            side(&self.second),
            self.bytes,
            self.address
        )
    }
}

/// A misuse of a barrier (compute-sanitizer's synccheck).
///
/// Sets of warps are lists of warp numbers in increasing order; sites are the
/// sites given with the barrier (PCs in a trace).
///
/// # Example
///
/// ```
/// use smem_model::{BarrierError, Block, ComputeCapability, LaneSet, SyncOp};
///
/// // if (threadIdx.x < 32) __syncthreads();  in a block of 64 threads
/// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
/// block.sync(0, 0x40, LaneSet::FULL, SyncOp::Threads)?;
/// let report = block.finish();
/// assert!(matches!(
///     &report.barrier_errors()[0],
///     BarrierError::Unreached { id: 0, arrived, missing, .. } if *arrived == [0] && *missing == [1]
/// ));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum BarrierError {
    /// A barrier that some of the warps it waits for never reach: they ended,
    /// or wait at another barrier (a deadlock on hardware, or a barrier that
    /// releases on the wrong arrivals). The model then releases the warps that
    /// did arrive, so that the rest of the block is still checked.
    Unreached {
        /// The barrier.
        id: u32,
        /// The sites at which warps reached it.
        sites: Vec<u64>,
        /// How many warps it waits for.
        expected: u32,
        /// The warps that reached it.
        arrived: Vec<u32>,
        /// The warps that did not: ended, or waiting at another barrier.
        missing: Vec<u32>,
    },
    /// A barrier completed by warps arriving at different instructions: a
    /// `__syncthreads()` in both branches of an `if`, or barriers reached in
    /// different orders. Undefined in CUDA (Programming Guide,
    /// `__syncthreads`); some hardware lets it pass.
    DifferentSites {
        /// The barrier.
        id: u32,
        /// Each site with the warps that arrived there.
        sites: Vec<(u64, Vec<u32>)>,
    },
    /// Some lanes of a warp reach a block barrier and others do not: a
    /// `__syncthreads()` under a condition that differs within the warp.
    DivergentLanes {
        /// The barrier.
        id: u32,
        /// The site.
        site: u64,
        /// The warp.
        warp: u32,
        /// The lanes that reached it (bits).
        lanes: u32,
        /// The warp's lanes that did not (bits).
        missing: u32,
    },
    /// Warps arriving at one barrier with different thread counts.
    CountMismatch {
        /// The barrier.
        id: u32,
        /// The site of the later arrival.
        site: u64,
        /// The warp of the later arrival.
        warp: u32,
        /// The count the barrier was first reached with.
        expected: u32,
        /// The count of the later arrival.
        count: u32,
    },
    /// A `__syncwarp(mask)` executed by lanes outside its mask.
    SyncwarpMask {
        /// The site.
        site: u64,
        /// The warp.
        warp: u32,
        /// The lanes that executed it (bits).
        lanes: u32,
        /// The mask given (bits).
        mask: u32,
    },
    /// An mbarrier used as compute-sanitizer's synccheck reports it
    /// ([`MbarrierMisuse`]), at an arrival.
    Mbarrier {
        /// What is wrong.
        misuse: MbarrierMisuse,
        /// The mbarrier's shared offset.
        barrier: u32,
        /// The site of the arrival.
        site: u64,
        /// The warp.
        warp: u32,
        /// Its lanes concerned (bits).
        lanes: u32,
    },
}

/// An mbarrier's misuse, as compute-sanitizer's synccheck names it
/// ("Barrier error detected. Missing wait." and the others), each
/// reproduced on small kernels on an H200 (tests/data/ptx/mbarrier_sanitizer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum MbarrierMisuse {
    /// "Missing wait": an arrival on phase k + 1 that no wait observing
    /// phase k complete is ordered before (the producer of a pipeline
    /// without its "empty" barrier; more threads arriving than the count),
    /// or an arrival by a thread whose `cp.async.mbarrier.arrive` (without
    /// `.noinc`) on the mbarrier it has not waited for since
    /// (`cuda::pipeline`'s `producer_commit` with a shared state: synccheck
    /// reports it once per thread).
    MissingWait,
    /// "Barrier overflow": more arrivals than the phase has pending (the
    /// launch then fails on the GPU: "unspecified launch failure").
    Overflow,
    /// "Missing init": an arrival on an mbarrier never initialised (or
    /// invalidated).
    MissingInit,
}

impl MbarrierMisuse {
    /// synccheck's name for it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::MbarrierMisuse;
    ///
    /// assert_eq!(MbarrierMisuse::MissingWait.synccheck(), "Missing wait");
    /// ```
    pub const fn synccheck(self) -> &'static str {
        match self {
            MbarrierMisuse::MissingWait => "Missing wait",
            MbarrierMisuse::Overflow => "Barrier overflow",
            MbarrierMisuse::MissingInit => "Missing init",
        }
    }
}

/// `0-3,7` for a list of numbers in increasing order.
pub(super) fn ranges(items: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < items.len() {
        let start = items[i];
        let mut end = start;
        while i + 1 < items.len() && items[i + 1] == end + 1 {
            i += 1;
            end += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    out
}

/// The set bits of a 32-bit set, as a list.
pub(super) fn bits(set: u32) -> Vec<u32> {
    (0..32).filter(|i| set >> i & 1 == 1).collect()
}

impl BarrierError {
    /// The sentence [`Display`](fmt::Display) writes, each site named by
    /// `site` instead of `site 0x..` (the hex PC a trace gives): a front end
    /// that knows its sites better (PTX lines, source lines) names them so.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, LaneSet, SyncOp};
    ///
    /// // warp 1 of 2 never reaches the barrier at site 0x30
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// block.sync(0, 0x30, LaneSet::FULL, SyncOp::Threads)?;
    /// let report = block.finish();
    /// let error = &report.barrier_errors()[0];
    /// assert_eq!(
    ///     error.to_string(),
    ///     "barrier 0 at site 0x30 waits for 2 warps but only warp(s) 0 reach it; warp(s) 1 never do"
    /// );
    /// assert_eq!(
    ///     error.describe(|s| format!("PTX line {s}")),
    ///     "barrier 0 at PTX line 48 waits for 2 warps but only warp(s) 0 reach it; warp(s) 1 never do"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn describe(&self, site: impl Fn(u64) -> String) -> String {
        match self {
            BarrierError::Unreached {
                id,
                sites: at,
                expected,
                arrived,
                missing,
            } => format!(
                "barrier {id} at {} waits for {expected} warps but only warp(s) {} reach it; warp(s) {} never do",
                at.iter().map(|&s| site(s)).collect::<Vec<_>>().join(", "),
                ranges(arrived),
                ranges(missing)
            ),
            BarrierError::DifferentSites { id, sites: at } => {
                let mut out =
                    format!("barrier {id} is completed by warps at different instructions:");
                for (i, (s, warps)) in at.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    out.push_str(&format!("{sep}warp(s) {} at {}", ranges(warps), site(*s)));
                }
                out
            }
            BarrierError::DivergentLanes {
                id,
                site: s,
                warp,
                lanes,
                missing,
            } => format!(
                "divergent barrier {id} at {}: lanes {} of warp {warp} reach it, lanes {} do not",
                site(*s),
                ranges(&bits(*lanes)),
                ranges(&bits(*missing))
            ),
            BarrierError::CountMismatch {
                id,
                site: s,
                warp,
                expected,
                count,
            } => format!(
                "barrier {id} is reached with a count of {expected} threads, then by warp {warp} at {} with {count}",
                site(*s)
            ),
            BarrierError::SyncwarpMask {
                site: s,
                warp,
                lanes,
                mask,
            } => format!(
                "__syncwarp at {} in warp {warp}: lanes {} execute it with a mask of {mask:#010x} that excludes them",
                site(*s),
                ranges(&bits(*lanes & !*mask))
            ),
            BarrierError::Mbarrier {
                misuse,
                barrier,
                site: s,
                warp,
                lanes,
            } => {
                let what = match misuse {
                    MbarrierMisuse::MissingWait => {
                        "arrive on a phase whose previous phase no wait observed, or after their \
                         cp.async.mbarrier.arrive without a wait"
                    }
                    MbarrierMisuse::Overflow => {
                        "arrive more times than the phase has arrivals pending (the launch fails \
                         on the GPU)"
                    }
                    MbarrierMisuse::MissingInit => "arrive on it, never initialised",
                };
                format!(
                    "mbarrier at shared offset {barrier:#x}, {}: lanes {} of warp {warp} at {} {what}",
                    misuse.synccheck().to_lowercase(),
                    ranges(&bits(*lanes)),
                    site(*s)
                )
            }
        }
    }
}

impl fmt::Display for BarrierError {
    /// One lowercase sentence.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(|s| format!("site {s:#x}")))
    }
}

/// What a block's run found.
///
/// # Example
///
/// ```
/// use smem_model::{Block, ComputeCapability, Op, WarpRequest};
///
/// let mut block = Block::new(ComputeCapability::Sm90, 32)?;
/// block.access(0, 0, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * l.get()))?)?;
/// let report = block.finish();
/// assert!(report.is_clean());
/// assert_eq!((report.hazards().len(), report.barrier_errors().len()), (0, 0));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BlockReport {
    pub(super) hazards: Vec<Hazard>,
    pub(super) barrier_errors: Vec<BarrierError>,
    /// The hazards past the list's cap, by key (severity, kind, sites),
    /// in key order; `not_listed_beyond` when some were not told apart.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) not_listed: Vec<(Severity, HazardKind, u64, u64)>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) not_listed_beyond: bool,
}

impl BlockReport {
    /// The hazards: errors first, then by kind and sites.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert!(!report.hazards().is_empty());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn hazards(&self) -> &[Hazard] {
        &self.hazards
    }

    /// The barrier errors, in the order they were found.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert!(report.barrier_errors().is_empty());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn barrier_errors(&self) -> &[BarrierError] {
        &self.barrier_errors
    }

    /// Whether nothing was found.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessKind, Block, ComputeCapability, HazardKind, Op, Severity, WarpRequest};
    ///
    /// // __shared__ int s[64]; s[t] = d[t]; /* no __syncthreads() */ d[t] = s[63 - t];
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// for warp in 0..2 {
    ///     let t = move |lane: smem_model::Lane| 32 * warp + lane.get();
    ///     block.access(warp, 1, &WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * t(l)))?)?;
    ///     block.access(warp, 2, &WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - t(l))))?)?;
    /// }
    /// let report = block.finish();
    /// let hazard = &report.hazards()[0];
    /// assert!(!report.is_clean());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn is_clean(&self) -> bool {
        self.hazards.is_empty() && self.not_listed.is_empty() && self.barrier_errors.is_empty()
    }

    /// The hazards found past the list's cap
    /// ([`Block::with_max_hazards`](super::Block::with_max_hazards)), one a
    /// pair of instructions as in [`hazards`](Self::hazards): counted, not
    /// listed. Exact up to [`Block::MAX_NOT_LISTED`](super::Block::MAX_NOT_LISTED),
    /// a lower bound past it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Block, ComputeCapability, Op, WarpRequest};
    ///
    /// // 10,000 hazards on one word: a load of warp 1, then 10,000 stores of
    /// // warp 0, each its own instruction.
    /// let mut block = Block::new(ComputeCapability::Sm90, 64)?;
    /// let one = |op| WarpRequest::from_fn(op, 4, |l| (l.get() == 0).then_some(0));
    /// block.access(1, 1 << 20, &one(Op::Load)?)?;
    /// for site in 0..10_000 {
    ///     block.access(0, site, &one(Op::Store)?)?;
    /// }
    /// let report = block.finish();
    /// assert_eq!(report.hazards().len(), Block::MAX_HAZARDS);
    /// assert_eq!(report.hazards_not_listed(), 10_000 - 4096);
    /// assert!(report.to_string().ends_with("5904 more hazards not listed\n"));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn hazards_not_listed(&self) -> u64 {
        self.not_listed.len() as u64
    }

    /// The keys of the hazards not listed, and whether some past those
    /// were not told apart.
    pub(super) fn not_listed(&self) -> (&[(Severity, HazardKind, u64, u64)], bool) {
        (&self.not_listed, self.not_listed_beyond)
    }
}

impl fmt::Display for BlockReport {
    /// One line a hazard, then one a barrier error; `no hazards` when clean.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_clean() {
            return f.write_str("no hazards, no barrier errors");
        }
        for hazard in &self.hazards {
            writeln!(f, "{hazard}")?;
        }
        let more = self.not_listed.len();
        if more > 0 {
            let at_least = if self.not_listed_beyond {
                "at least "
            } else {
                ""
            };
            let noun = if more == 1 { "hazard" } else { "hazards" };
            writeln!(f, "{at_least}{more} more {noun} not listed")?;
        }
        for error in &self.barrier_errors {
            writeln!(f, "barrier error: {error}")?;
        }
        Ok(())
    }
}
