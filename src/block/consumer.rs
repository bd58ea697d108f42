//! [`Block`] as a [`Consumer`] of a kernel's events: any source (an Accel-Sim
//! trace, PTX) is checked for races and barrier errors block by block, and what
//! is found is gathered per kernel.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use super::{
    BarrierError, Block, BlockReport, Hazard, HazardKind, MbarrierMisuse, Severity, SyncOp,
};
use crate::kernel::{BlockInfo, Consumer, Event, KernelInfo, MbarrierOp, PerClass, Repeat, Site};
use crate::{ComputeCapability, Error, LaneSet, WarpRequest};

/// The PTX instruction of a tensor (TMA) copy, as [`Event::BulkCopy`] names
/// it: its shared bytes are not race-checked, as compute-sanitizer's racecheck
/// checks none of them.
const TENSOR_COPY: &str = "cp.async.bulk.tensor";

/// What follows the name of a tensor copy or a bulk store among
/// [`KernelRaces::not_checked`]: apart from a tensor copy not modelled (no
/// tensor map), which is listed by its name alone.
const TENSOR_NOT_CHECKED: &str = "(shared bytes: racecheck checks none)";

/// The capability a kernel is checked on when neither the caller nor the
/// source names one (a modelling choice: the newest the crate knows well).
const DEFAULT_CAPABILITY: ComputeCapability = ComputeCapability::Sm90;

/// An event of a block whose size is not known yet, held until its end; also
/// an event of the reference block (see [`Reference`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Held {
    /// An access, with the lanes of a store that write what memory holds
    /// (bits; [`Block::access_unchanged`]).
    Access(Site, WarpRequest, u32),
    Sync(Site, LaneSet, HeldSync),
}

/// A synchronisation as held: a block barrier's count is only known once the
/// block's size is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum HeldSync {
    Barrier {
        id: u32,
        threads: Option<u32>,
        waits: bool,
    },
    Op(SyncOp),
}

/// The block being checked.
#[derive(Debug)]
enum Current {
    /// No block is open.
    None,
    /// A block of known size, checked event by event.
    Running { id: [u32; 3], block: Box<Block> },
    /// A block of the reference's size whose events so far are the first
    /// `matched` of the reference's: nothing is run until one differs.
    Matching {
        id: [u32; 3],
        threads: u32,
        matched: usize,
    },
    /// A block whose size neither the block nor its kernel gives: its events
    /// are held (at most [`Racecheck::MAX_HELD`]) and it is sized at its end
    /// by its highest warp.
    Holding {
        id: [u32; 3],
        events: Vec<(u32, Held)>,
        warps: u32,
    },
}

/// The open kernel's reference block: the events that reached the block model
/// of its first block of known size that ran without error, with that block's
/// report, for blocks that repeat it (see [`Racecheck`], "Identical blocks").
#[derive(Debug)]
enum Reference {
    /// None yet: the kernel's next block of known size is recorded.
    Empty,
    /// The open block (running) is being recorded.
    Recording {
        threads: u32,
        events: Vec<(u32, Held)>,
    },
    /// The reference.
    Done {
        threads: u32,
        events: Vec<(u32, Held)>,
        report: BlockReport,
    },
    /// None for this kernel: its recorded block had more than
    /// [`Racecheck::MAX_REFERENCE`] events (or the memo is off).
    Off,
}

/// One hazard of a kernel: a pair of instructions, over all the kernel's blocks.
///
/// # Example
///
/// See [`Racecheck`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HazardFinding {
    example: Hazard,
    block: [u32; 3],
    blocks: u64,
    bytes: u64,
}

impl HazardFinding {
    /// The hazard as found in the lowest block (z, then y, then x) that has it.
    pub const fn example(&self) -> &Hazard {
        &self.example
    }

    /// The block of the example.
    pub const fn block(&self) -> [u32; 3] {
        self.block
    }

    /// How many blocks have the hazard.
    pub const fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The bytes it covers, summed over the blocks (those that listed it:
    /// a block past its own cap of hazards counts it without its bytes).
    pub const fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(feature = "json")]
impl HazardFinding {
    /// The finding as `smem racecheck --json`, `smem kernel --json` and
    /// Python's `KernelRun.races` give it (feature `json`): `kind`,
    /// `severity`, `first` and `second` (each `side`'s fields for the
    /// access's site, with `warp`, `lane` and `access`), `bytes`, `blocks`,
    /// `example_block` and `example_address`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Site};
    /// use smem_model::{Op, Racecheck, WarpRequest};
    ///
    /// let mut check = Racecheck::new();
    /// check.begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))?;
    /// check.begin_block(&BlockInfo::new([0, 0, 0], None))?;
    /// let one = WarpRequest::from_fn(Op::Store, 4, |l| (l.get() == 0).then_some(0))?;
    /// check.event(0, &Event::Access { site: Site::pc(0x10), request: one })?;
    /// check.event(1, &Event::Access { site: Site::pc(0x20), request: one })?;
    /// check.end_kernel()?;
    /// let finding = check.kernels()[0].hazards().next().unwrap();
    /// let json = finding.to_json(|a| {
    ///     let mut side = serde_json::Map::new();
    ///     side.insert("pc".into(), a.site().into());
    ///     side
    /// });
    /// assert_eq!(
    ///     json.to_string(),
    ///     r#"{"blocks":1,"bytes":4,"example_address":0,"example_block":[0,0,0],"#.to_owned()
    ///         + r#""first":{"access":"write","lane":0,"pc":16,"warp":0},"kind":"write-write","#
    ///         + r#""second":{"access":"write","lane":0,"pc":32,"warp":1},"severity":"error"}"#
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn to_json(
        &self,
        side: impl Fn(&super::HazardAccess) -> serde_json::Map<String, serde_json::Value>,
    ) -> serde_json::Value {
        let h = &self.example;
        let access = |a: &super::HazardAccess| {
            let mut fields = side(a);
            fields.insert("warp".into(), a.warp().into());
            fields.insert("lane".into(), a.lane().get().into());
            fields.insert("access".into(), a.access().to_string().into());
            serde_json::Value::Object(fields)
        };
        serde_json::json!({
            "kind": h.kind().to_string(),
            "severity": h.severity().to_string(),
            "first": access(h.first()),
            "second": access(h.second()),
            "bytes": self.bytes,
            "blocks": self.blocks,
            "example_block": self.block,
            "example_address": h.address(),
        })
    }
}

/// One barrier error of a kernel, over all the kernel's blocks.
///
/// # Example
///
/// See [`Racecheck`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BarrierFinding {
    error: BarrierError,
    block: [u32; 3],
    blocks: u64,
}

impl BarrierFinding {
    /// The error as found in the lowest block that has it.
    pub const fn error(&self) -> &BarrierError {
        &self.error
    }

    /// The block of the example.
    pub const fn block(&self) -> [u32; 3] {
        self.block
    }

    /// How many blocks have it.
    pub const fn blocks(&self) -> u64 {
        self.blocks
    }
}

#[cfg(feature = "json")]
impl BarrierFinding {
    /// The finding as `smem racecheck --json`, `smem kernel --json` and
    /// Python give it (feature `json`): `message` (the sentence, its sites
    /// named as the caller names them), `error` (the error's fields),
    /// `blocks` and `example_block`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::{BarrierKind, BlockInfo, Consumer, Event, KernelInfo, Site};
    /// use smem_model::{LaneSet, Racecheck};
    ///
    /// // Warp 0 of 2 reaches a barrier warp 1 never does.
    /// let mut check = Racecheck::new();
    /// check.begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))?;
    /// check.begin_block(&BlockInfo::new([0, 0, 0], None))?;
    /// let bar = Event::Barrier {
    ///     site: Site::pc(0x30), lanes: LaneSet::FULL, id: 0, threads: None, kind: BarrierKind::Sync,
    /// };
    /// check.event(0, &bar)?;
    /// check.end_kernel()?;
    /// let finding = check.kernels()[0].barrier_errors().next().unwrap();
    /// let json = finding.to_json(finding.error().to_string());
    /// assert_eq!(json["blocks"], 1);
    /// assert_eq!(json["error"]["type"], "unreached");
    /// assert!(json["message"].as_str().unwrap().starts_with("barrier 0 at site 0x30"));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn to_json(&self, message: String) -> serde_json::Value {
        serde_json::json!({
            "message": message,
            "error": self.error,
            "blocks": self.blocks,
            "example_block": self.block,
        })
    }
}

/// What [`Racecheck`] found in one kernel.
///
/// # Example
///
/// See [`Racecheck`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelRaces {
    name: String,
    capability: Option<ComputeCapability>,
    blocks: u64,
    requests: u64,
    /// One a severity, kind and pair of sites, in that order (see [`key`]);
    /// at most `max_hazards`.
    hazards: Vec<HazardFinding>,
    max_hazards: usize,
    /// The hazards past the list, by key (at most [`Block::MAX_NOT_LISTED`]).
    not_listed: FxHashSet<Key>,
    /// Whether some hazard past those was not told apart.
    not_listed_beyond: bool,
    barrier_errors: BTreeMap<String, BarrierFinding>,
    not_checked: BTreeMap<String, u64>,
}

impl KernelRaces {
    /// The kernel's name, as the source gave it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The capability it was checked on.
    pub fn capability(&self) -> ComputeCapability {
        self.capability.unwrap_or(DEFAULT_CAPABILITY)
    }

    /// Blocks checked.
    pub const fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Shared-memory warp requests checked, over all blocks.
    pub const fn requests(&self) -> u64 {
        self.requests
    }

    /// The hazards listed, by severity, kind and pair of sites: the first
    /// found, at most [`Racecheck::with_max_hazards`]'s cap
    /// ([`Block::MAX_HAZARDS`] by default).
    pub fn hazards(&self) -> impl ExactSizeIterator<Item = &HazardFinding> {
        self.hazards.iter()
    }

    /// The hazards found past the list's cap, one a severity, kind and pair
    /// of instructions, over all blocks: counted, not listed. Exact up to
    /// [`Block::MAX_NOT_LISTED`], a lower bound past it
    /// ([`hazards_not_listed_exact`](Self::hazards_not_listed_exact)).
    ///
    /// # Example
    ///
    /// See [`Racecheck::with_max_hazards`].
    pub fn hazards_not_listed(&self) -> u64 {
        self.not_listed.len() as u64
    }

    /// The hazards not listed of severity `severity`.
    ///
    /// # Example
    ///
    /// See [`Racecheck::with_max_hazards`].
    pub fn hazards_not_listed_of(&self, severity: Severity) -> u64 {
        self.not_listed.iter().filter(|k| k.0 == severity).count() as u64
    }

    /// Whether [`hazards_not_listed`](Self::hazards_not_listed) is exact:
    /// false when more than [`Block::MAX_NOT_LISTED`] were found past the
    /// list, in a block or in the kernel.
    ///
    /// # Example
    ///
    /// See [`Racecheck::with_max_hazards`].
    pub fn hazards_not_listed_exact(&self) -> bool {
        !self.not_listed_beyond
    }

    /// The barrier errors, by message.
    pub fn barrier_errors(&self) -> impl ExactSizeIterator<Item = &BarrierFinding> {
        self.barrier_errors.values()
    }

    /// The warp instructions that touch shared memory in a way the model does
    /// not check ([`Event::Unmodelled`], and [`Event::UnknownAddress`] named
    /// `"NAME (address unknown)"`), by name, with how many were executed:
    /// never dropped silently.
    pub fn not_checked(&self) -> impl ExactSizeIterator<Item = (&str, u64)> {
        self.not_checked.iter().map(|(name, &n)| (name.as_str(), n))
    }

    /// Whether nothing was found: no hazard and no barrier error (instructions
    /// not checked do not count).
    pub fn is_clean(&self) -> bool {
        self.hazards.is_empty() && self.not_listed.is_empty() && self.barrier_errors.is_empty()
    }

    /// Counts a hazard past the list.
    fn not_listed(&mut self, key: Key) {
        if self.not_listed.len() < Block::MAX_NOT_LISTED {
            self.not_listed.insert(key);
        } else if !self.not_listed.contains(&key) {
            self.not_listed_beyond = true;
        }
    }

    /// Adds one block's report.
    fn merge(&mut self, block: [u32; 3], report: &BlockReport) {
        // Blocks compared z, then y, then x: the lowest is the example.
        let lower = |a: [u32; 3], b: [u32; 3]| [a[2], a[1], a[0]] < [b[2], b[1], b[0]];
        let finding = |hazard: &Hazard| HazardFinding {
            example: hazard.clone(),
            block,
            blocks: 1,
            bytes: u64::from(hazard.bytes()),
        };
        if self.hazards.is_empty() && self.not_listed.is_empty() {
            // The kernel's first hazards: the report's, one a key and in
            // key order.
            let listed = report.hazards().len().min(self.max_hazards);
            self.hazards = report.hazards()[..listed].iter().map(finding).collect();
            for hazard in &report.hazards()[listed..] {
                self.not_listed(key(hazard));
            }
        } else {
            // Hazards the kernel has are found by a binary search each;
            // those it has not go in at once, by one merge of two ordered
            // lists, so that a block of many new hazards costs no more than
            // the kernel's list.
            let mut new = Vec::new();
            for hazard in report.hazards() {
                let Ok(i) = self
                    .hazards
                    .binary_search_by_key(&key(hazard), |f| key(&f.example))
                else {
                    if self.hazards.len() + new.len() < self.max_hazards
                        && !self.not_listed.contains(&key(hazard))
                    {
                        new.push(finding(hazard));
                    } else {
                        self.not_listed(key(hazard));
                    }
                    continue;
                };
                let entry = &mut self.hazards[i];
                entry.blocks += 1;
                entry.bytes += u64::from(hazard.bytes());
                if lower(block, entry.block) {
                    entry.block = block;
                    entry.example = hazard.clone();
                }
            }
            if !new.is_empty() {
                let old = core::mem::take(&mut self.hazards);
                self.hazards = merge_sorted(old, new, |f| key(&f.example));
            }
        }
        // The block's hazards past its own list: a pair the kernel lists
        // counts the block (its bytes there are not known), any other is
        // counted past the kernel's list.
        let (keys, beyond) = report.not_listed();
        self.not_listed_beyond |= beyond;
        for &k in keys {
            match self.hazards.binary_search_by_key(&k, |f| key(&f.example)) {
                Ok(i) => self.hazards[i].blocks += 1,
                Err(_) => self.not_listed(k),
            }
        }
        for error in report.barrier_errors() {
            let entry = self
                .barrier_errors
                .entry(error.to_string())
                .or_insert_with(|| BarrierFinding {
                    error: error.clone(),
                    block,
                    blocks: 0,
                });
            entry.blocks += 1;
            if lower(block, entry.block) {
                entry.block = block;
                entry.error = error.clone();
            }
        }
    }
}

/// Checks every block a source gives with a [`Block`], and gathers what it
/// finds per kernel: [`Block`] as a [`Consumer`].
///
/// Events map to the block model as follows: [`Event::Access`] is an access at
/// the site's PC; [`Event::Barrier`] barrier 0 without a count is
/// `__syncthreads()`, any other a named barrier of its count (the whole block
/// when it has none), `bar.arrive` an arrival that does not wait
/// ([`SyncOp::Arrive`]) and `bar.red` a `bar.sync`;
/// [`Event::SyncWarp`] is `__syncwarp`; [`Event::Fence`] a fence.
/// [`Event::Unmodelled`] and the `cp.async` group events are counted by name in
/// [`KernelRaces::not_checked`], never dropped.
///
/// A block's size is its [`BlockInfo::threads`], else its kernel's
/// [`KernelInfo::block_dim`]. When neither is known the block's events are
/// held until [`end_block`](Consumer::end_block) (at most
/// [`MAX_HELD`](Self::MAX_HELD)) and the block is taken to have as many warps
/// as its highest warp number says.
///
/// # Identical blocks
///
/// What a block reports is a function of the events its model is given (warp,
/// site and request or synchronisation, in order), its thread count and the
/// capability, and of nothing else: not of its id, nor of the blocks before
/// it. Many kernels give every block the same shared-memory events (matrixMul:
/// only global addresses differ between blocks). So the events of each
/// kernel's first block of known size that runs without error are kept (at
/// most [`MAX_REFERENCE`](Self::MAX_REFERENCE); a longer block leaves the
/// kernel without one; a kernel whose [`KernelInfo::grid_dim`] is one block
/// keeps none), with its report. A later block of the kernel with the
/// same thread count is compared event by event with it and runs nothing
/// while they are equal; at the first difference the matched events are
/// replayed into a block model and the block goes on as any other. A block
/// equal to the reference to its end adds the reference's report under its
/// own id, exactly what running it would have added: the report names no
/// block, and the kernel's findings take their example from the lowest block
/// id and count blocks whichever way a report was made.
///
/// # Repeated blocks
///
/// A source that knows that a block makes the calls an earlier block of its
/// class made ([`Consumer::repeat_block`]: the PTX interpreter's blocks that
/// run alike) gives it as a repeat. A class's first repeat is checked as any
/// block is, and its report is kept with the requests and the instructions
/// not checked it counted (at most [`CLASSES_BYTES`](Self::CLASSES_BYTES)
/// together, the oldest giving way). Each further repeat adds them under its
/// own block index without running anything: exact for the reason above
/// (the report is a function of the calls, the thread count and the
/// capability, and the last two are checked to be the class's), and so is
/// what the kernel counts by name and request. A checker
/// [`without_memo`](Self::without_memo) checks every repeat.
///
/// # Memory
///
/// One block at a time: the block model's state (see [`Block`]) and, for a
/// block of unknown size, at most [`MAX_HELD`](Self::MAX_HELD) held events;
/// per kernel, the reference block's events (at most
/// [`MAX_REFERENCE`](Self::MAX_REFERENCE), 176 bytes each) and report,
/// and the reports of classes of repeated blocks (at most
/// [`CLASSES_BYTES`](Self::CLASSES_BYTES));
/// one entry per distinct pair of racing instructions up to the list's cap
/// ([`with_max_hazards`](Self::with_max_hazards), [`Block::MAX_HAZARDS`] by
/// default: about 90 bytes each) and a 24-byte key per pair past it (at most
/// [`Block::MAX_NOT_LISTED`], 3 MiB, then counted as "at least"); one per
/// distinct barrier error and per name not checked.
///
/// # Example: a source's events, checked
///
/// ```
/// use smem_model::kernel::{BarrierKind, BlockInfo, Consumer, Event, KernelInfo, Site};
/// use smem_model::{ComputeCapability, HazardKind, LaneSet, Op, Racecheck, WarpRequest};
///
/// // __shared__ int s[64]; s[t] = t; [__syncthreads();] x = s[63 - t];
/// let run = |barrier: bool| -> Result<_, smem_model::Error> {
///     let mut check = Racecheck::new();
///     check.begin_kernel(&KernelInfo::named("reverse").with_block_dim([64, 1, 1]))?;
///     check.begin_block(&BlockInfo::new([0, 0, 0], None))?;
///     for warp in 0..2 {
///         let store = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * (32 * warp + l.get())))?;
///         check.event(warp, &Event::Access { site: Site::pc(0x10), request: store })?;
///         if barrier {
///             let sync = BarrierKind::Sync;
///             let bar = Event::Barrier { site: Site::pc(0x20), lanes: LaneSet::FULL, id: 0, threads: None, kind: sync };
///             check.event(warp, &bar)?;
///         }
///         let load = WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - 32 * warp - l.get())))?;
///         check.event(warp, &Event::Access { site: Site::pc(0x30), request: load })?;
///     }
///     check.end_block()?;
///     check.end_kernel()?;
///     Ok(check.into_kernels())
/// };
/// assert!(run(true)?[0].is_clean());
/// let racy = run(false)?;
/// let finding = racy[0].hazards().next().unwrap();
/// assert_eq!(finding.example().kind(), HazardKind::ReadWrite);
/// assert_eq!((finding.blocks(), finding.bytes()), (1, 256));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug)]
pub struct Racecheck {
    forced: Option<ComputeCapability>,
    kernels: Vec<KernelRaces>,
    /// The open kernel's capability and block size.
    capability: ComputeCapability,
    block_dim: Option<[u32; 3]>,
    current: Current,
    /// The last block's model, kept so that its tables are reused.
    spare: Option<Block>,
    /// Per warp (below 32), a load held back one event: a compare-and-swap
    /// round right after it makes it part of the atomic.
    loads: Vec<Option<(Site, WarpRequest)>>,
    /// The open kernel's reference block, for blocks that repeat it.
    reference: Reference,
    /// Whether identical blocks reuse the reference's report, and repeated
    /// blocks their class's ([`Consumer::repeat_block`]).
    memo: bool,
    /// The most hazards listed a block and a kernel.
    max_hazards: usize,
    /// The open kernel's classes of blocks: each one's part of the kernel.
    classes: PerClass<ClassPart>,
    /// Whether the block being closed is a class's first repeat, and its
    /// report once it is closed.
    capture: Option<Option<BlockReport>>,
}

/// A block's part of its kernel's findings, for the further blocks of its
/// class (see [`Racecheck`], "Repeated blocks").
#[derive(Debug)]
struct ClassPart {
    threads: u32,
    capability: ComputeCapability,
    report: BlockReport,
    requests: u64,
    not_checked: Vec<(String, u64)>,
}

impl Default for Racecheck {
    fn default() -> Self {
        Self::new()
    }
}

impl Racecheck {
    /// The most events held for a block whose size is not known (the same
    /// bound as [`Block::MAX_PENDING`]).
    pub const MAX_HELD: usize = Block::MAX_PENDING;

    /// The most events kept of a kernel's reference block (see "Identical
    /// blocks" above): at 176 bytes an event, 11 MiB. matrixMul's 32x32
    /// blocks (`tests/data/ptx/matmul`) give about 14,000: 13,440 requests
    /// and 640 barriers.
    ///
    /// ```
    /// assert_eq!(smem_model::Racecheck::MAX_REFERENCE, 65_536);
    /// ```
    pub const MAX_REFERENCE: usize = 1 << 16;

    /// Bytes the reports kept for classes of repeated blocks take at most,
    /// together (see "Repeated blocks" above).
    ///
    /// ```
    /// assert_eq!(smem_model::Racecheck::CLASSES_BYTES, 64 << 20);
    /// ```
    pub const CLASSES_BYTES: usize = 64 << 20;

    /// A checker that takes each kernel's capability from its source
    /// ([`KernelInfo::capability`]), sm_90 where the source has none.
    pub const fn new() -> Self {
        Racecheck {
            forced: None,
            kernels: Vec::new(),
            capability: DEFAULT_CAPABILITY,
            block_dim: None,
            current: Current::None,
            spare: None,
            loads: Vec::new(),
            reference: Reference::Empty,
            memo: true,
            max_hazards: Block::MAX_HAZARDS,
            classes: PerClass::new(Self::CLASSES_BYTES),
            capture: None,
        }
    }

    /// The same checker without the reuse of identical blocks' reports (see
    /// "Identical blocks" and "Repeated blocks" above): every block runs.
    /// For tests and benchmarks of that reuse, which changes no result.
    #[doc(hidden)]
    #[must_use]
    pub fn without_memo(mut self) -> Self {
        self.memo = false;
        self.reference = Reference::Off;
        self
    }

    /// The same checker, listing at most `max` hazards per kernel (and per
    /// block: [`Block::with_max_hazards`]); default [`Block::MAX_HAZARDS`].
    /// Hazards past the list are counted
    /// ([`KernelRaces::hazards_not_listed`]): memory stays bounded whatever
    /// the input, and the count goes on.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Site};
    /// use smem_model::{Op, Racecheck, Severity, WarpRequest};
    ///
    /// // Warp 1 stores to a word, then warp 0 from 1,000 instructions:
    /// // 1,000 hazards, 10 listed.
    /// let mut check = Racecheck::new().with_max_hazards(10);
    /// check.begin_kernel(&KernelInfo::named("k").with_block_dim([64, 1, 1]))?;
    /// check.begin_block(&BlockInfo::new([0, 0, 0], None))?;
    /// let one = |op| WarpRequest::from_fn(op, 4, |l| (l.get() == 0).then_some(0));
    /// let store = Event::Access { site: Site::pc(1 << 20), request: one(Op::Store)? };
    /// check.event(1, &store)?;
    /// for pc in 0..1000 {
    ///     check.event(0, &Event::Access { site: Site::pc(pc), request: one(Op::Store)? })?;
    /// }
    /// check.end_kernel()?;
    /// let kernel = &check.kernels()[0];
    /// assert_eq!(kernel.hazards().len(), 10);
    /// assert_eq!(kernel.hazards_not_listed(), 990);
    /// assert_eq!(kernel.hazards_not_listed_of(Severity::Error), 990);
    /// assert!(kernel.hazards_not_listed_exact() && !kernel.is_clean());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    #[must_use]
    pub fn with_max_hazards(mut self, max: usize) -> Self {
        self.max_hazards = max;
        self
    }

    /// A checker that checks every kernel on `capability`, whatever the source
    /// says.
    #[must_use]
    pub const fn with_capability(mut self, capability: ComputeCapability) -> Self {
        self.forced = Some(capability);
        self
    }

    /// The kernels begun so far, with what was found in them.
    pub fn kernels(&self) -> &[KernelRaces] {
        &self.kernels
    }

    /// The kernels, with what was found in them.
    pub fn into_kernels(self) -> Vec<KernelRaces> {
        self.kernels
    }

    fn kernel(&mut self) -> &mut KernelRaces {
        if self.kernels.is_empty() {
            // Events before any begin_kernel: an unnamed kernel.
            self.kernels.push(KernelRaces {
                capability: Some(self.capability),
                max_hazards: self.max_hazards,
                ..KernelRaces::default()
            });
        }
        let last = self.kernels.len() - 1;
        &mut self.kernels[last]
    }

    /// The most warps a block of the current capability has.
    fn max_warps(&self) -> u32 {
        if self.capability.major() == 1 {
            16
        } else {
            32
        }
    }

    /// The block's size from its kernel's dimensions.
    fn kernel_threads(&self) -> Result<Option<u32>, Error> {
        let Some(dim) = self.block_dim else {
            return Ok(None);
        };
        let threads = dim.iter().map(|&d| u64::from(d)).product::<u64>();
        let limit = 32 * self.max_warps();
        match u32::try_from(threads) {
            Ok(t) if (1..=limit).contains(&t) => Ok(Some(t)),
            _ => Err(Error::BlockShape {
                dim,
                threads,
                limit,
                capability: self.capability,
            }),
        }
    }

    /// A block model for `threads` threads, the spare one where there is one.
    fn block(&mut self, threads: u32) -> Result<Block, Error> {
        match self.spare.take() {
            Some(mut block) => match block.reset(self.capability, threads) {
                Ok(()) => Ok(block),
                Err(error) => {
                    self.spare = Some(block);
                    Err(error)
                }
            },
            None => Ok(Block::new(self.capability, threads)?.with_max_hazards(self.max_hazards)),
        }
    }

    /// Ends the open block, if any, and merges its report.
    fn close(&mut self) -> Result<(), Error> {
        self.flush_loads()?;
        if let Current::Matching { id, matched, .. } = self.current
            && let Reference::Done { events, .. } = &self.reference
            && matched == events.len()
        {
            self.current = Current::None;
            let reference = core::mem::replace(&mut self.reference, Reference::Off);
            if let Reference::Done { report, .. } = &reference {
                if let Some(capture) = &mut self.capture {
                    *capture = Some(report.clone());
                }
                let kernel = self.kernel();
                kernel.blocks += 1;
                kernel.merge(id, report);
            }
            self.reference = reference;
            return Ok(());
        }
        self.unmatch()?;
        let (id, mut block) = match core::mem::replace(&mut self.current, Current::None) {
            Current::None | Current::Matching { .. } => return Ok(()),
            Current::Running { id, block } => (id, *block),
            Current::Holding { id, events, warps } => {
                let mut block = self.block(32 * warps.max(1))?;
                for (warp, held) in events {
                    run(&mut block, warp, held)?;
                }
                (id, block)
            }
        };
        let report = block.take_report();
        let error = block.error.take();
        self.spare = Some(block);
        if let Some(error) = error {
            if matches!(self.reference, Reference::Recording { .. }) {
                self.reference = Reference::Empty;
            }
            return Err(error);
        }
        if let Reference::Recording { threads, events } = &mut self.reference {
            let (threads, events) = (*threads, core::mem::take(events));
            self.reference = Reference::Done {
                threads,
                events,
                report: report.clone(),
            };
        }
        let kernel = self.kernel();
        kernel.blocks += 1;
        kernel.merge(id, &report);
        if let Some(capture) = &mut self.capture {
            *capture = Some(report);
        }
        Ok(())
    }
}

/// A hazard's identity: severity, kind and the pair of sites.
type Key = (Severity, HazardKind, u64, u64);

/// What a kernel's hazards are found and ordered by: severity, kind and the
/// pair of sites.
fn key(hazard: &Hazard) -> Key {
    (
        hazard.severity(),
        hazard.kind(),
        hazard.first().site(),
        hazard.second().site(),
    )
}

/// The items of two lists ordered by `key`, with no key in both, in one
/// list ordered by `key`.
fn merge_sorted<T, K: Ord>(a: Vec<T>, b: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.into_iter().peekable();
    for item in a {
        while let Some(next) = b.next_if(|next| key(next) < key(&item)) {
            out.push(next);
        }
        out.push(item);
    }
    out.extend(b);
    out
}

/// Gives one event to the block model.
fn run(block: &mut Block, warp: u32, held: Held) -> Result<(), Error> {
    match held {
        Held::Access(site, request, 0) => block.access(warp, site.pc, &request),
        Held::Access(site, request, unchanged) => {
            block.access_unchanged(warp, site.pc, &request, LaneSet::from_bits(unchanged))
        }
        Held::Sync(site, lanes, HeldSync::Op(op)) => block.sync(warp, site.pc, lanes, op),
        Held::Sync(site, lanes, HeldSync::Barrier { id, threads, waits }) => {
            let all = 32 * block.warps();
            let op = match (id, threads, waits) {
                (0, None, true) => SyncOp::Threads,
                (id, threads, true) => SyncOp::Named {
                    id,
                    threads: threads.unwrap_or(all),
                },
                (id, threads, false) => SyncOp::Arrive {
                    id,
                    threads: threads.unwrap_or(all),
                },
            };
            block.sync(warp, site.pc, lanes, op)
        }
    }
}

/// Holds an event of a block of unknown size.
fn hold(
    events: &mut Vec<(u32, Held)>,
    warps: &mut u32,
    (warp, held): (u32, Held),
    max_warps: u32,
    capability: ComputeCapability,
) -> Result<(), Error> {
    if warp >= max_warps {
        // Named by its thread count where that fits a u32.
        return Err(match warp.checked_add(1).and_then(|w| w.checked_mul(32)) {
            Some(threads) => Error::BlockThreads {
                threads,
                limit: 32 * max_warps,
                capability,
            },
            None => Error::WarpOutOfRange {
                warp,
                warps: max_warps,
            },
        });
    }
    if events.len() >= Racecheck::MAX_HELD {
        return Err(Error::BlockUnsized {
            events: events.len() + 1,
            limit: Racecheck::MAX_HELD,
        });
    }
    *warps = (*warps).max(warp + 1);
    events.push((warp, held));
    Ok(())
}

impl Consumer for Racecheck {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.close()?;
        self.capability = self
            .forced
            .or(kernel.capability)
            .unwrap_or(DEFAULT_CAPABILITY);
        self.block_dim = kernel.block_dim;
        self.classes.clear();
        // A grid of one block has no later block to reuse a report for.
        let one_block = kernel
            .grid_dim
            .is_some_and(|grid| grid.iter().map(|&d| u64::from(d)).product::<u64>() <= 1);
        self.reference = if self.memo && !one_block {
            Reference::Empty
        } else {
            Reference::Off
        };
        self.kernels.push(KernelRaces {
            name: kernel.name.to_owned(),
            capability: Some(self.capability),
            max_hazards: self.max_hazards,
            ..KernelRaces::default()
        });
        Ok(())
    }

    fn begin_block(&mut self, info: &BlockInfo) -> Result<(), Error> {
        self.close()?;
        let threads = match info.threads {
            Some(threads) => Some(threads),
            None => self.kernel_threads()?,
        };
        let reference = match self.reference {
            Reference::Done { threads, .. } => Some(threads),
            _ => None,
        };
        self.current = match threads {
            Some(threads) if reference == Some(threads) => Current::Matching {
                id: info.id,
                threads,
                matched: 0,
            },
            Some(threads) => {
                let block = Box::new(self.block(threads)?);
                if matches!(self.reference, Reference::Empty) {
                    self.reference = Reference::Recording {
                        threads,
                        events: Vec::new(),
                    };
                }
                Current::Running { id: info.id, block }
            }
            None => Current::Holding {
                id: info.id,
                events: Vec::new(),
                warps: 0,
            },
        };
        Ok(())
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        let held = match *event {
            // A compare-and-swap round writes as the atomic it emulates.
            Event::Access { site, ref request } | Event::CasRound { site, ref request } => {
                self.kernel().requests += 1;
                return self.access_event(warp, site, request, event, 0);
            }
            // Constant memory is only read: no hazard. A cp.async's global
            // side is not shared memory.
            Event::ConstantLoad { .. } | Event::CpAsyncSource { .. } => return Ok(()),
            // A warpgroup's operand reads: 16-byte loads of the chunks, 32 a
            // request, by the warp whose event carries them (the lanes are
            // the chunks', not threads': the hardware reads for the group).
            Event::Gmma { .. } => return Ok(()),
            Event::GmmaReads { site, chunks } => {
                self.release_load(warp, None)?;
                for group in chunks.chunks(32) {
                    let mut offsets = [0u32; 32];
                    offsets[..group.len()].copy_from_slice(group);
                    let lanes = LaneSet::range(0, group.len() as u32);
                    let request = WarpRequest::from_offsets(crate::Op::Load, 16, lanes, &offsets)?;
                    self.kernel().requests += 1;
                    self.process_access(warp, site, &request, 0)?;
                }
                return Ok(());
            }
            Event::Barrier {
                site,
                lanes,
                id,
                threads,
                kind,
            } => Held::Sync(
                site,
                lanes,
                HeldSync::Barrier {
                    id,
                    threads,
                    waits: kind.waits(),
                },
            ),
            Event::SyncWarp { site, lanes, mask } => {
                Held::Sync(site, lanes, HeldSync::Op(SyncOp::Warp(mask)))
            }
            Event::Fence { site, lanes } => Held::Sync(site, lanes, HeldSync::Op(SyncOp::Fence)),
            Event::CpAsyncCommit { site, lanes } => {
                Held::Sync(site, lanes, HeldSync::Op(SyncOp::CpAsyncCommit))
            }
            Event::CpAsyncWait {
                site,
                lanes,
                pending,
            } => Held::Sync(site, lanes, HeldSync::Op(SyncOp::CpAsyncWait { pending })),
            Event::CpAsyncArrive { site, lanes } => {
                Held::Sync(site, lanes, HeldSync::Op(SyncOp::CpAsyncArrive))
            }
            Event::Mbarrier {
                site,
                lanes,
                barrier,
                op,
            } => {
                let misuse = |misuse| SyncOp::MbarrierError { barrier, misuse };
                let sync = match op {
                    MbarrierOp::Arrive { phase, count, .. } => SyncOp::MbarrierArrive {
                        barrier,
                        phase,
                        counted: count > 0,
                    },
                    MbarrierOp::Wait { phase } => SyncOp::MbarrierWait { barrier, phase },
                    MbarrierOp::Overflow { .. } => misuse(MbarrierMisuse::Overflow),
                    MbarrierOp::Uninitialised => misuse(MbarrierMisuse::MissingInit),
                    MbarrierOp::MissingWait => misuse(MbarrierMisuse::MissingWait),
                    _ => return Ok(()),
                };
                Held::Sync(site, lanes, HeldSync::Op(sync))
            }
            Event::BulkCopy {
                site,
                lanes,
                runs,
                write,
                barrier,
                name,
            } => {
                self.release_load(warp, None)?;
                if name.starts_with(TENSOR_COPY) || !write {
                    // compute-sanitizer's racecheck sees no writer for a
                    // tensor copy's bytes: reads of them before the wait are
                    // no hazard to it, where the same reads after a 1-D bulk
                    // copy are (measured on an H200, racecheck 2025.3.1:
                    // tests/data/ptx/mbarrier_sanitizer, tensor_nowait and
                    // bulk_nowait). Nor does it see the reads of a store
                    // from shared memory, 1-D or tensor: its source
                    // rewritten by other warps and lanes, and by its own
                    // thread, with no barrier and no
                    // `cp.async.bulk.wait_group.read` is no hazard to it
                    // (measured: tests/data/ptx/async_sanitizer,
                    // bulk_rewrite and tensor_rewrite). The model checks
                    // them as racecheck does, not at all, and says so.
                    self.not_checked(&format!("{name} {TENSOR_NOT_CHECKED}"))?;
                } else {
                    self.bulk(warp, site, lanes, runs, write)?;
                }
                let Some((barrier, phase)) = barrier else {
                    return Ok(());
                };
                // Its bytes complete the phase: what it wrote is ordered
                // before the phase's waiters, as an arrival's accesses are.
                Held::Sync(
                    site,
                    lanes,
                    HeldSync::Op(SyncOp::MbarrierArrive {
                        barrier,
                        phase,
                        counted: false,
                    }),
                )
            }
            Event::Unmodelled { name, .. } => return self.not_checked(name),
            // Its addresses are unknown: the hazards it could take part in
            // are too, and none is guessed.
            Event::UnknownAddress { name, .. } => {
                return self.not_checked(&format!("{name} (address unknown)"))
            }
        };
        self.release_load(warp, None)?;
        self.process(warp, held)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        match *event {
            Event::Access { site, ref request } if request.op() == crate::Op::Store => {
                self.kernel().requests += 1;
                let unchanged = unchanged.bits() & request.active().bits();
                self.access_event(warp, site, request, event, unchanged)
            }
            _ => self.event(warp, event),
        }
    }

    fn end_block(&mut self) -> Result<(), Error> {
        self.close()
    }

    /// Adds the block's part as its class's first repeat found it (see
    /// "Repeated blocks" above).
    fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        self.close()?;
        let threads = match block.threads {
            Some(threads) => Some(threads),
            None => self.kernel_threads()?,
        };
        // Out of the checker while it checks (put back below).
        let mut classes = core::mem::replace(&mut self.classes, PerClass::new(0));
        let result = self.repeat(block, repeat, threads, &mut classes);
        self.classes = classes;
        result
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.close()
    }
}

impl Racecheck {
    /// An access of `warp` (a compare-and-swap round when `event` is one).
    ///
    /// A load is held back one event of its warp: nvcc's compare-and-swap
    /// loop reads the word (LDS) and then tries (ATOMS.CAST.SPIN) with the
    /// same lanes and addresses; the read is part of the atomic it emulates,
    /// so it races with no other atomic (a modelling choice, without which
    /// every correct float or 64-bit shared atomicAdd of two lanes on one
    /// word would be reported). It still races with plain writes, as the try
    /// does. Requests go to the block by reference: a request is 140 bytes,
    /// and copying it through each step was a tenth of `smem kernel`'s time.
    fn access_event(
        &mut self,
        warp: u32,
        site: Site,
        request: &WarpRequest,
        event: &Event<'_>,
        unchanged: u32,
    ) -> Result<(), Error> {
        self.release_load(warp, Some(event))?;
        if (warp as usize) < 32 && request.op() == crate::Op::Load {
            self.loads[warp as usize] = Some((site, *request));
            return Ok(());
        }
        self.process_access(warp, site, request, unchanged)
    }

    /// Gives the load `warp` holds back, if any, to the block model: as the
    /// compare-and-swap round `next` when that tries the same lanes and
    /// addresses at the same width.
    fn release_load(&mut self, warp: u32, next: Option<&Event<'_>>) -> Result<(), Error> {
        let slot = warp as usize;
        if slot >= 32 {
            return Ok(());
        }
        if self.loads.len() < 32 {
            self.loads.resize(32, None);
        }
        let Some((site, load)) = self.loads[slot].take() else {
            return Ok(());
        };
        if let Some(Event::CasRound { request: cas, .. }) = next
            && load.width() == cas.width()
            && load.to_array() == cas.to_array()
        {
            return self.process_access(warp, site, cas, 0);
        }
        self.process_access(warp, site, &load, 0)
    }

    /// Gives an access to the open block (one of unknown size if none is).
    fn process_access(
        &mut self,
        warp: u32,
        site: Site,
        request: &WarpRequest,
        unchanged: u32,
    ) -> Result<(), Error> {
        if let Current::Matching { matched, .. } = &mut self.current {
            if let Reference::Done { events, .. } = &self.reference
                && let Some((w, Held::Access(s, r, u))) = events.get(*matched)
                && (*w, *s, *u) == (warp, site, unchanged)
                && r == request
            {
                *matched += 1;
                return Ok(());
            }
            self.unmatch()?;
        }
        match &mut self.current {
            Current::Running { block, .. } => {
                let result = if unchanged == 0 {
                    block.access(warp, site.pc, request)
                } else {
                    block.access_unchanged(warp, site.pc, request, LaneSet::from_bits(unchanged))
                };
                if matches!(self.reference, Reference::Recording { .. }) {
                    self.record(
                        warp,
                        Held::Access(site, *request, unchanged),
                        result.is_ok(),
                    );
                }
                result
            }
            _ => self.process(warp, Held::Access(site, *request, unchanged)),
        }
    }

    /// Notes an event given to the running block, if it is being recorded as
    /// the reference: a block with an event the model refused is none.
    fn record(&mut self, warp: u32, held: Held, ok: bool) {
        if let Reference::Recording { events, .. } = &mut self.reference {
            if !ok {
                self.reference = Reference::Empty;
            } else if events.len() >= Self::MAX_REFERENCE {
                self.reference = Reference::Off;
            } else {
                events.push((warp, held));
            }
        }
    }

    /// Ends the matching of the open block, if it is matching: its block model
    /// is made and given the reference's events it matched.
    fn unmatch(&mut self) -> Result<(), Error> {
        let Current::Matching {
            id,
            threads,
            matched,
        } = self.current
        else {
            return Ok(());
        };
        let mut block = self.block(threads)?;
        if let Reference::Done { events, .. } = &self.reference {
            for &(warp, held) in &events[..matched] {
                run(&mut block, warp, held)?;
            }
        }
        self.current = Current::Running {
            id,
            block: Box::new(block),
        };
        Ok(())
    }

    /// [`Consumer::repeat_block`] of a block of `threads` threads (none:
    /// unknown), the open block closed.
    fn repeat(
        &mut self,
        block: &BlockInfo,
        repeat: &Repeat<'_>,
        threads: Option<u32>,
        classes: &mut PerClass<ClassPart>,
    ) -> Result<(), Error> {
        let capability = self.capability;
        let known = classes.get(repeat.class()).filter(|part| {
            self.memo && Some(part.threads) == threads && part.capability == capability
        });
        if let Some(part) = known {
            let kernel = self.kernel();
            kernel.requests += part.requests;
            for (name, n) in &part.not_checked {
                match kernel.not_checked.get_mut(name) {
                    Some(count) => *count += n,
                    None => {
                        kernel.not_checked.insert(name.clone(), *n);
                    }
                }
            }
            kernel.blocks += 1;
            kernel.merge(block.id, &part.report);
            return Ok(());
        }
        let (requests, not_checked) = {
            let kernel = self.kernel();
            (kernel.requests, kernel.not_checked.clone())
        };
        self.begin_block(block)?;
        self.capture = Some(None);
        let run = repeat.replay(self).and_then(|()| self.end_block());
        let report = self.capture.take().flatten();
        run?;
        let (Some(threads), Some(report), true) = (threads, report, self.memo) else {
            return Ok(());
        };
        let kernel = self.kernel();
        let not_checked: Vec<(String, u64)> = kernel
            .not_checked
            .iter()
            .filter_map(|(name, &n)| {
                let before = not_checked.get(name).copied().unwrap_or(0);
                (n > before).then(|| (name.clone(), n - before))
            })
            .collect();
        let bytes = core::mem::size_of::<ClassPart>()
            + core::mem::size_of_val(report.hazards())
            + core::mem::size_of_val(report.not_listed().0)
            + core::mem::size_of_val(report.barrier_errors())
            + not_checked.iter().map(|(n, _)| n.len() + 32).sum::<usize>();
        let part = ClassPart {
            threads,
            capability,
            report,
            requests: kernel.requests - requests,
            not_checked,
        };
        classes.keep(repeat.class(), part, bytes);
        Ok(())
    }

    /// Gives the loads held back to the block model.
    fn flush_loads(&mut self) -> Result<(), Error> {
        for warp in 0..self.loads.len() {
            if let Some((site, load)) = self.loads[warp].take() {
                self.process(warp as u32, Held::Access(site, load, 0))?;
            }
        }
        Ok(())
    }

    /// Gives an event to the open block (one of unknown size if none is).
    fn process(&mut self, warp: u32, held: Held) -> Result<(), Error> {
        let (max_warps, capability) = (self.max_warps(), self.capability);
        match &mut self.current {
            Current::Running { block, .. } => {
                let result = run(block, warp, held);
                self.record(warp, held, result.is_ok());
                result
            }
            Current::Matching { matched, .. } => {
                if let Reference::Done { events, .. } = &self.reference
                    && events.get(*matched) == Some(&(warp, held))
                {
                    *matched += 1;
                    return Ok(());
                }
                self.unmatch()?;
                self.process(warp, held)
            }
            Current::Holding { events, warps, .. } => {
                hold(events, warps, (warp, held), max_warps, capability)
            }
            Current::None => {
                // Events outside any block: one block of unknown size.
                let (mut events, mut warps) = (Vec::new(), 0);
                hold(&mut events, &mut warps, (warp, held), max_warps, capability)?;
                self.current = Current::Holding {
                    id: [0; 3],
                    events,
                    warps,
                };
                Ok(())
            }
        }
    }

    /// Drops the open block without adding it to its kernel: after an error
    /// in it, a caller that goes on with the next block calls this.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Site};
    /// use smem_model::{LaneSet, Racecheck};
    ///
    /// let mut check = Racecheck::new();
    /// check.begin_kernel(&KernelInfo::named("k"))?;
    /// check.begin_block(&BlockInfo::new([0, 0, 0], Some(32)))?;
    /// let fence = Event::Fence { site: Site::pc(0), lanes: LaneSet::FULL };
    /// assert!(check.event(5, &fence).is_err()); // the block has 1 warp
    /// check.discard_block();
    /// check.end_kernel()?;
    /// assert_eq!(check.kernels()[0].blocks(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn discard_block(&mut self) {
        for load in &mut self.loads {
            *load = None;
        }
        if matches!(self.reference, Reference::Recording { .. }) {
            self.reference = Reference::Empty;
        }
        if let Current::Running { block, .. } = core::mem::replace(&mut self.current, Current::None)
        {
            self.spare = Some(*block);
        }
    }

    /// A bulk copy's shared side: its bytes as accesses of its first lane
    /// (16 bytes a request where the run is 16-byte aligned, else 4 or 1),
    /// writes for a load into shared memory, reads for a store from it.
    fn bulk(
        &mut self,
        warp: u32,
        site: Site,
        lanes: LaneSet,
        runs: &[(u32, u32)],
        write: bool,
    ) -> Result<(), Error> {
        let Some(lane) = lanes.iter().next() else {
            return Ok(());
        };
        let op = if write {
            crate::Op::Store
        } else {
            crate::Op::Load
        };
        for &(start, len) in runs {
            let width = [16u32, 4, 1]
                .into_iter()
                .find(|w| start % w == 0 && len % w == 0)
                .unwrap_or(1);
            for i in 0..len / width {
                let address = start + i * width;
                let request = WarpRequest::from_fn(op, width, |l| (l == lane).then_some(address))?;
                self.process_access(warp, site, &request, 0)?;
            }
        }
        Ok(())
    }

    fn not_checked(&mut self, name: &str) -> Result<(), Error> {
        let kernel = self.kernel();
        match kernel.not_checked.get_mut(name) {
            Some(n) => *n += 1,
            None => {
                kernel.not_checked.insert(name.to_owned(), 1);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::testing::{give, Calls};
    use crate::kernel::{BarrierKind, BlockClass};

    /// Two classes of blocks, one racing (warps 0 and 1 store to one word)
    /// and one with a barrier warp 1 never reaches and an instruction not
    /// checked, met out of index order: the repeated blocks' parts give
    /// the kernel what their calls give, each finding's example the lowest
    /// block and its count of blocks.
    #[test]
    fn repeated_blocks_add_what_their_calls_add() {
        let store = |pc| {
            let request =
                WarpRequest::from_fn(crate::Op::Store, 4, |l| (l.get() == 0).then_some(0));
            Event::Access {
                site: Site::pc(pc),
                request: request.unwrap(),
            }
        };
        let bar = Event::Barrier {
            site: Site::pc(3),
            lanes: LaneSet::FULL,
            id: 0,
            threads: None,
            kind: BarrierKind::Sync,
        };
        let other = Event::Unmodelled {
            site: Site::pc(4),
            lanes: LaneSet::FULL,
            name: "x",
        };
        let racing = Calls(vec![(0, None, store(1)), (1, None, store(2))]);
        let stuck = Calls(vec![(0, None, bar), (0, None, other), (1, None, store(5))]);
        let classes = [BlockClass::new(), BlockClass::new()];
        let mut by_calls = Racecheck::new();
        let mut by_parts = Racecheck::new();
        let kernel = KernelInfo::named("k").with_block_dim([64, 1, 1]);
        by_calls.begin_kernel(&kernel).unwrap();
        by_parts.begin_kernel(&kernel).unwrap();
        let mut met = [false; 2];
        for (x, c) in [(5, 0), (4, 1), (3, 0), (1, 1), (0, 0), (2, 1)] {
            let calls = [&racing, &stuck][c];
            let block = BlockInfo::new([x, 0, 0], None);
            let repeat = Repeat::new(classes[c], calls);
            give(&mut by_calls, &mut by_parts, &block, &repeat, &mut met[c]).unwrap();
            assert_eq!(by_parts.kernels(), by_calls.kernels(), "block {x}");
        }
        let kernel = &by_parts.kernels()[0];
        let hazard = kernel.hazards().next().unwrap();
        assert_eq!((hazard.block(), hazard.blocks()), ([0, 0, 0], 3));
        let barrier = kernel.barrier_errors().next().unwrap();
        assert_eq!((barrier.block(), barrier.blocks()), ([1, 0, 0], 3));
        assert_eq!(kernel.not_checked().collect::<Vec<_>>(), [("x", 3)]);
        assert_eq!((kernel.blocks(), kernel.requests()), (6, 9));
    }

    #[test]
    fn a_reference_event_is_176_bytes() {
        // The figure MAX_REFERENCE's memory bound is stated with.
        assert_eq!(core::mem::size_of::<(u32, Held)>(), 176);
    }
}
