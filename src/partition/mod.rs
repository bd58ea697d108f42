//! Partitions: a request split into the transactions (wavefronts) that serve it.

mod affine;
mod schedule;
#[cfg(target_arch = "x86_64")]
mod simd;

use core::fmt;

use smallvec::SmallVec;

use crate::{Bank, BankConfig, BankSet, Error, Lane, LaneSet, WarpRequest};

pub(crate) use schedule::{count_fast, Totals};

/// The transactions of one request, in the order served, with their totals.
///
/// Built by [`BankConfig::partition`]. Holds a copy of the request and the
/// configuration, so it outlives both; transactions are computed lazily from them
/// and stored only as lane sets, so building a partition allocates nothing for
/// requests of up to 36 wavefronts, which is every request on every capability
/// but the widest 1.x ones.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, Classification, ComputeCapability, Op, WarpRequest};
///
/// let config = BankConfig::new(ComputeCapability::Sm90);
/// // s[2 * lane] on floats: lanes l and l + 16 meet in bank 2l % 32 (words 2l
/// // and 2l + 32), a 2-way conflict.
/// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
/// let partition = config.partition(&request)?;
/// assert_eq!((partition.config(), partition.request()), (config, &request));
/// assert_eq!(partition.wavefronts(), 2);
/// assert_eq!(partition.ideal_wavefronts(), 1);
/// assert_eq!(partition.bank_conflicts(), 1);
/// assert_eq!(partition.classification(), Classification::Conflicted { ways: 2 });
/// let lanes: Vec<String> = partition.transactions().map(|t| t.lanes().to_string()).collect();
/// assert_eq!(lanes, ["0-15", "16-31"]);
///
/// // s[lane % 8]: lanes 0, 8, 16 and 24 share word 0, read once and broadcast.
/// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * (lane.get() % 8)))?;
/// let partition = config.partition(&request)?;
/// let only = partition.transactions().next().unwrap();
/// let word0 = only.words()[0];
/// assert_eq!((word0.word, word0.lanes.to_string()), (0, "0,8,16,24".to_string()));
/// assert_eq!(only.broadcast_words().count(), 8);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    config: BankConfig,
    request: WarpRequest,
    steps: SmallVec<[Step; INLINE_STEPS]>,
    totals: Totals,
}

/// Transactions a partition holds without allocating: the most any capability
/// but 1.x can take (2.x: four quarter-warps of 8 conflicting lanes plus the
/// extra 128-bit step each). 1.x splits wide accesses into up to 4 parts of 2
/// half-warps of 16 steps, and only those can spill to the heap.
const INLINE_STEPS: usize = 36;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    lanes: LaneSet,
    phase: u8,
    part: u8,
}

struct Record<'a>(&'a mut SmallVec<[Step; INLINE_STEPS]>);

impl schedule::Sink for Record<'_> {
    const STEPS: bool = true;
    fn step(&mut self, phase: u8, part: u8, lanes: LaneSet) {
        self.0.push(Step { lanes, phase, part });
    }
}

/// The partition of `request`: the common requests (see
/// [`schedule::schedule_fast`]) check the window as they are scheduled; the
/// rest are `validate`d first and take the scheduler.
pub(crate) fn build(
    config: BankConfig,
    request: &WarpRequest,
    validate: impl FnOnce() -> Result<(), Error>,
) -> Result<Partition, Error> {
    // One partition, filled where it lies: it is a few hundred bytes, and
    // each move of it costs as much as a short schedule.
    let mut partition = Partition {
        config,
        request: *request,
        steps: SmallVec::new(),
        totals: Totals::default(),
    };
    let record = &mut Record(&mut partition.steps);
    partition.totals = match schedule::schedule_fast(config, request, record) {
        Some(totals) => totals,
        None => {
            validate()?;
            schedule::run(config, request, record)
        }
    };
    Ok(partition)
}

pub(crate) fn count(config: BankConfig, request: &WarpRequest) -> Totals {
    schedule::run(config, request, &mut schedule::Count)
}

/// What a request costs, without its transactions: the counts a simulator's
/// inner loop needs.
///
/// Built by [`BankConfig::cost`], which schedules the request as
/// [`BankConfig::partition`] does but records no transaction, or taken from a
/// partition with [`Partition::cost`]; the two are always equal.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // double d = s2[4 * lane]: four lanes of each half-warp in one pair of banks.
/// let request = WarpRequest::from_fn(Op::Load, 8, |lane| Some(32 * lane.get()))?;
/// let cost = sm90.cost(&request)?;
/// assert_eq!(cost.wavefronts(), 8);
/// assert_eq!(cost.ideal_wavefronts(), 2);
/// assert_eq!(cost.bank_conflicts(), 6);
/// assert_eq!(cost.ways(), 4);
/// assert_eq!(cost, sm90.partition(&request)?.cost());
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    wavefronts: u32,
    ideal_wavefronts: u32,
    ways: u32,
}

impl Cost {
    /// The wavefronts (transactions): as [`Partition::wavefronts`].
    pub fn wavefronts(&self) -> u32 {
        self.wavefronts
    }

    /// The wavefronts without bank conflicts: as [`Partition::ideal_wavefronts`].
    pub fn ideal_wavefronts(&self) -> u32 {
        self.ideal_wavefronts
    }

    /// `wavefronts - ideal_wavefronts`: as [`Partition::bank_conflicts`].
    pub fn bank_conflicts(&self) -> u32 {
        self.wavefronts - self.ideal_wavefronts
    }

    /// The busiest phase's steps: as [`Partition::ways`].
    pub fn ways(&self) -> u32 {
        self.ways
    }

    /// A cost read from data, checked as the model builds them: the ideal
    /// wavefronts and the ways each at most the wavefronts, and each zero
    /// exactly when the wavefronts are (an empty request).
    #[cfg(feature = "serde")]
    pub(crate) fn checked(
        wavefronts: u32,
        ideal_wavefronts: u32,
        ways: u32,
    ) -> Result<Cost, Error> {
        let consistent = ideal_wavefronts <= wavefronts
            && ways <= wavefronts
            && (wavefronts == 0) == (ideal_wavefronts == 0)
            && (wavefronts == 0) == (ways == 0);
        if !consistent {
            return Err(Error::InvalidCost {
                wavefronts,
                ideal_wavefronts,
                ways,
            });
        }
        Ok(Cost {
            wavefronts,
            ideal_wavefronts,
            ways,
        })
    }
}

impl From<Totals> for Cost {
    fn from(totals: Totals) -> Cost {
        Cost {
            wavefronts: totals.wavefronts,
            ideal_wavefronts: totals.ideal,
            ways: totals.ways,
        }
    }
}

/// The seeds' classification of a request by how its lanes are served.
///
/// A one-word verdict for reports; the counts on [`Partition`] say how much a
/// conflict costs.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, Classification, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let classify = |f: fn(u32) -> Option<u32>| -> Result<Classification, smem_model::Error> {
///     let request = WarpRequest::from_fn(Op::Load, 4, |lane| f(lane.get()))?;
///     Ok(sm90.partition(&request)?.classification())
/// };
/// assert_eq!(classify(|_| None)?, Classification::Empty);
/// assert_eq!(classify(|_| Some(0))?, Classification::Broadcast); // s[0]
/// assert_eq!(classify(|lane| Some(4 * lane))?, Classification::Parallel); // s[lane]
/// // s[2 * lane]
/// assert_eq!(classify(|lane| Some(8 * lane))?, Classification::Conflicted { ways: 2 });
/// // A column of float tile[32][32].
/// assert_eq!(classify(|lane| Some(128 * lane))?, Classification::Serial { ways: 32 });
/// assert_eq!(Classification::Conflicted { ways: 2 }.to_string(), "conflicted (2-way)");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Classification {
    /// No active lane: nothing is served.
    Empty,
    /// A read (load or `ldmatrix`) of one address by every active lane (at least
    /// two), served without conflict.
    Broadcast,
    /// Served in the ideal number of wavefronts, one per phase.
    Parallel,
    /// More wavefronts than the ideal: the busiest phase took `ways` steps.
    Conflicted {
        /// Steps of the busiest phase.
        ways: u32,
    },
    /// The worst case: conflicted, and no two lanes ever served together though
    /// some phase has several (every active lane a different word of one bank,
    /// or every lane of an atomic in one bank).
    Serial {
        /// Steps of the busiest phase.
        ways: u32,
    },
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Classification::Empty => f.write_str("empty"),
            Classification::Broadcast => f.write_str("broadcast"),
            Classification::Parallel => f.write_str("parallel"),
            Classification::Conflicted { ways } => write!(f, "conflicted ({ways}-way)"),
            Classification::Serial { ways } => write!(f, "serial ({ways}-way)"),
        }
    }
}

impl Partition {
    /// The configuration the request was partitioned under.
    pub fn config(&self) -> BankConfig {
        self.config
    }

    /// The request.
    pub fn request(&self) -> &WarpRequest {
        &self.request
    }

    /// The number of wavefronts (transactions); what Nsight Compute counts in
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_*`.
    ///
    /// More wavefronts than one do not by themselves mean a conflict: wide
    /// accesses need several (compare [`ideal_wavefronts`](Self::ideal_wavefronts)).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float4 v = s4[lane]: 512 bytes, four conflict-free wavefronts of 128 bytes.
    /// let float4 = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get()))?;
    /// let partition = sm90.partition(&float4)?;
    /// assert_eq!(partition.wavefronts(), 4);
    /// assert_eq!(partition.bank_conflicts(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn wavefronts(&self) -> u32 {
        self.totals.wavefronts
    }

    /// The wavefronts the request would take without bank conflicts: one per
    /// phase that has an active lane (per 4-byte part on 1.x).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Lane, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float2 s2[lane]: two half-warp phases.
    /// let float2 = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get()))?;
    /// assert_eq!(sm90.partition(&float2)?.ideal_wavefronts(), 2);
    /// // Only the lower half-warp active: one phase is empty.
    /// let lower_half = |lane: Lane| (lane.get() < 16).then(|| 8 * lane.get());
    /// let lower = WarpRequest::from_fn(Op::Load, 8, lower_half)?;
    /// assert_eq!(sm90.partition(&lower)?.ideal_wavefronts(), 1);
    /// // A uniform float4 load: the quarter-warps merge in pairs.
    /// let uniform = WarpRequest::from_fn(Op::Load, 16, |_| Some(0))?;
    /// assert_eq!(sm90.partition(&uniform)?.ideal_wavefronts(), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn ideal_wavefronts(&self) -> u32 {
        self.totals.ideal
    }

    /// `wavefronts - ideal_wavefronts`: how Nsight Compute's
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_*` relates to the
    /// wavefront counter (checked on every load and store of the hardware corpus).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float4 v = s4[2 * lane]: each quarter-warp spans 256 bytes, two words a bank.
    /// let request = WarpRequest::from_fn(Op::Load, 16, |lane| Some(32 * lane.get()))?;
    /// let partition = sm90.partition(&request)?;
    /// assert_eq!((partition.wavefronts(), partition.ideal_wavefronts()), (8, 4));
    /// assert_eq!(partition.bank_conflicts(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bank_conflicts(&self) -> u32 {
        self.totals.wavefronts - self.totals.ideal
    }

    /// The steps taken by the busiest phase: the "n" of an n-way bank conflict
    /// (1 when conflict-free, 0 for an empty request).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Matrices, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // ldmatrix.x4 from a row-major half tile with a row pitch of `pitch` bytes:
    /// // lane 8m + r gives row r of matrix m, 16 bytes right of matrix m - 1.
    /// let ldmatrix = |pitch: u32| {
    ///     WarpRequest::from_fn(Op::LdMatrix(Matrices::X4), 16, move |lane| {
    ///         Some(lane.get() % 8 * pitch + lane.get() / 8 * 16)
    ///     })
    /// };
    /// // A 128-byte pitch puts all 8 rows of a matrix in banks 0-3: 8-way.
    /// let unpadded = sm90.partition(&ldmatrix(128)?)?;
    /// assert_eq!((unpadded.ways(), unpadded.wavefronts()), (8, 32));
    /// // Padding each row by 16 bytes spreads the rows over all 32 banks.
    /// let padded = sm90.partition(&ldmatrix(144)?)?;
    /// assert_eq!((padded.ways(), padded.wavefronts()), (1, 4));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn ways(&self) -> u32 {
        self.totals.ways
    }

    /// The counts alone, as [`BankConfig::cost`] gives them.
    pub fn cost(&self) -> Cost {
        Cost::from(self.totals)
    }

    /// `ideal_wavefronts / wavefronts`: the fraction of the peak bandwidth the
    /// request achieves, or `None` for an empty request.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: a 2-way conflict halves the bandwidth.
    /// let stride2 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// assert_eq!(sm90.partition(&stride2)?.bandwidth_fraction(), Some(0.5));
    /// // A fully masked-off warp moves nothing, at no cost.
    /// let idle = WarpRequest::from_fn(Op::Load, 4, |_| None)?;
    /// assert_eq!(sm90.partition(&idle)?.bandwidth_fraction(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bandwidth_fraction(&self) -> Option<f64> {
        (self.totals.wavefronts > 0)
            .then(|| f64::from(self.totals.ideal) / f64::from(self.totals.wavefronts))
    }

    /// The seeds' classification.
    ///
    /// See [`Classification`] for the variants; `Broadcast` is for reads only,
    /// since lanes that store to one address collide rather than share.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, Classification, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // atomicAdd(&hist[lane % 4], 1): eight lanes on each of banks 0-3.
    /// let hist = WarpRequest::from_fn(Op::Atomic, 4, |lane| Some(4 * (lane.get() % 4)))?;
    /// assert_eq!(sm90.partition(&hist)?.classification(), Classification::Conflicted { ways: 8 });
    /// // atomicAdd(&count, 1) by the whole warp: atomics on one address do not
    /// // merge, so the lanes are served one by one.
    /// let count = WarpRequest::from_fn(Op::Atomic, 4, |_| Some(0))?;
    /// assert_eq!(sm90.partition(&count)?.classification(), Classification::Serial { ways: 32 });
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn classification(&self) -> Classification {
        let active = self.request.active();
        let ways = self.totals.ways;
        if active.is_empty() {
            Classification::Empty
        } else if self.totals.wavefronts > self.totals.ideal {
            if self.no_two_lanes_share_a_step_in_a_crowded_phase() {
                Classification::Serial { ways }
            } else {
                Classification::Conflicted { ways }
            }
        } else if active.len() > 1
            && !self.request.op().writes()
            && self.request.active_addresses().map(|(_, a)| a).min()
                == self.request.active_addresses().map(|(_, a)| a).max()
        {
            Classification::Broadcast
        } else {
            Classification::Parallel
        }
    }

    /// The transactions, in the order served.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[4 * lane]: lanes l, l + 8, l + 16 and l + 24 share a bank, so each
    /// // wavefront serves eight lanes.
    /// let stride4 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(16 * lane.get()))?;
    /// let partition = sm90.partition(&stride4)?;
    /// let lanes: Vec<String> = partition.transactions().map(|t| t.lanes().to_string()).collect();
    /// assert_eq!(lanes, ["0-7", "8-15", "16-23", "24-31"]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn transactions(&self) -> Transactions<'_> {
        Transactions {
            partition: self,
            next: 0,
        }
    }
}

impl Partition {
    /// Whether some phase has two or more active lanes and no step serves two
    /// lanes: conflicts, not the phase split, keep every lane apart.
    fn no_two_lanes_share_a_step_in_a_crowded_phase(&self) -> bool {
        // Phases and parts are few (at most 4 of each), so a small table holds
        // each one's lanes.
        let mut lanes = [0u32; 16];
        for step in &self.steps {
            if step.lanes.len() > 1 {
                return false;
            }
            lanes[(usize::from(step.part) * 4 + usize::from(step.phase)) % 16] |= step.lanes.bits();
        }
        lanes.iter().any(|l| l.count_ones() > 1)
    }
}

/// The transactions of a [`Partition`], in the order served.
///
/// Returned by [`Partition::transactions`]; it knows its length, which is
/// [`Partition::wavefronts`].
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let float4 = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get()))?;
/// let partition = sm90.partition(&float4)?;
/// let transactions = partition.transactions();
/// assert_eq!(transactions.len(), 4);
/// assert_eq!(transactions.len() as u32, partition.wavefronts());
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Transactions<'a> {
    partition: &'a Partition,
    next: usize,
}

impl<'a> Iterator for Transactions<'a> {
    type Item = Transaction<'a>;

    fn next(&mut self) -> Option<Transaction<'a>> {
        let step = *self.partition.steps.get(self.next)?;
        self.next += 1;
        Some(Transaction {
            partition: self.partition,
            step,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.partition.steps.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Transactions<'_> {}

impl core::iter::FusedIterator for Transactions<'_> {}

/// One wavefront: at most one distinct bank-width word (one 64-bit row on 3.x)
/// from each bank, delivered to the lanes it serves.
///
/// Borrowed from its [`Partition`], from which it computes its words on demand.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Lane, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // float4 v = s4[lane]: the first wavefront serves the first quarter-warp.
/// let float4 = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get()))?;
/// let partition = sm90.partition(&float4)?;
/// let first = partition.transactions().next().unwrap();
/// assert_eq!(first.lanes().to_string(), "0-7");
/// assert_eq!((first.phase(), first.part()), (0, 0));
/// assert!(first.serves(Lane::new(7)?) && !first.serves(Lane::new(8)?));
/// // Eight lanes of 16 bytes: four words from each of the 32 banks.
/// assert_eq!(first.words().len(), 32);
/// assert_eq!(first.banks().len(), 32);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Transaction<'a> {
    partition: &'a Partition,
    step: Step,
}

/// One bank word read or written by a transaction, with the lanes it serves.
///
/// Plain data with public fields, for reports and visualisations.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // char c = s[lane]: four neighbouring lanes share each 4-byte word.
/// let chars = WarpRequest::from_fn(Op::Load, 1, |lane| Some(lane.get()))?;
/// let partition = sm90.partition(&chars)?;
/// let only = partition.transactions().next().unwrap();
/// let words = only.words();
/// assert_eq!(words.len(), 8);
/// let word1 = words[1];
/// assert_eq!((word1.word, word1.bank.index()), (1, 1));
/// assert_eq!(word1.lanes.to_string(), "4-7");
/// assert!(word1.is_broadcast());
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WordAccess {
    /// The word's index: its byte address divided by the bank width.
    pub word: u32,
    /// The bank holding it.
    pub bank: Bank,
    /// The lanes that access it in this transaction.
    pub lanes: LaneSet,
}

impl WordAccess {
    /// Whether several lanes share the word: one read, broadcast to all of them
    /// (for stores, one write lands).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // half h = s[lane]: lanes 2k and 2k + 1 read the two halves of word k.
    /// let halves = WarpRequest::from_fn(Op::Load, 2, |lane| Some(2 * lane.get()))?;
    /// let partition = sm90.partition(&halves)?;
    /// let only = partition.transactions().next().unwrap();
    /// assert!(only.words().iter().all(|word| word.is_broadcast()));
    /// // float f = s[lane]: one lane per word, nothing shared.
    /// let floats = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// let partition = sm90.partition(&floats)?;
    /// let only = partition.transactions().next().unwrap();
    /// assert!(!only.words().iter().any(|word| word.is_broadcast()));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn is_broadcast(&self) -> bool {
        self.lanes.len() > 1
    }
}

impl Transaction<'_> {
    /// The lanes served. Empty only for the extra step 2.x takes for 128-bit
    /// accesses (Programming Guide v4.2, F.4.3.1), which serves no lane.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// // float4 v = s4[lane] on Fermi: each quarter-warp takes a step and an empty one.
    /// let float4 = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get()))?;
    /// let partition = BankConfig::new(ComputeCapability::Sm20).partition(&float4)?;
    /// let sizes: Vec<usize> = partition.transactions().map(|t| t.lanes().len()).collect();
    /// assert_eq!(sizes, [8, 0, 8, 0, 8, 0, 8, 0]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn lanes(&self) -> LaneSet {
        self.step.lanes
    }

    /// The phase this transaction belongs to, counting from 0: phase `p` of a
    /// request with `n`-lane phases holds lanes `p * n .. (p + 1) * n`, where `n`
    /// counts the lanes of a phase after any load merge.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float4 v = s4[lane / 2]: lane pairs read the same address, so the four
    /// // quarter-warp phases merge into two of 16 lanes.
    /// let pairs = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * (lane.get() / 2)))?;
    /// let partition = sm90.partition(&pairs)?;
    /// let phases: Vec<(u32, String)> =
    ///     partition.transactions().map(|t| (t.phase(), t.lanes().to_string())).collect();
    /// assert_eq!(phases, [(0, "0-15".to_string()), (1, "16-31".to_string())]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn phase(&self) -> u32 {
        u32::from(self.step.phase)
    }

    /// Which 4-byte part of each lane's access this transaction moves, when 1.x
    /// splits accesses wider than 4 bytes; always 0 elsewhere.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// // double d = s[lane] on 1.3: served as two 32-bit accesses, low words first.
    /// let doubles = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get()))?;
    /// let partition = BankConfig::new(ComputeCapability::Sm13).partition(&doubles)?;
    /// let parts: Vec<u32> = partition.transactions().map(|t| t.part()).collect();
    /// assert_eq!(parts, [0, 0, 0, 0, 1, 1, 1, 1]);
    /// let high = partition.transactions().nth(4).unwrap();
    /// assert_eq!(high.words()[0].word, 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn part(&self) -> u32 {
        u32::from(self.step.part)
    }

    /// The words accessed, ordered by bank then word, each with its lanes.
    ///
    /// An access wider than a bank word covers several words. On 3.x in four-byte
    /// mode a bank can hold two words of one transaction: words `i` and `i + 32` of
    /// one 64-bit bank row.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// // double d = s[lane] on Kepler in four-byte mode: one wavefront, 64 words.
    /// let doubles = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get()))?;
    /// let partition = BankConfig::new(ComputeCapability::Sm35).partition(&doubles)?;
    /// let only = partition.transactions().next().unwrap();
    /// let words = only.words();
    /// assert_eq!(words.len(), 64);
    /// // Bank 0 delivers words 0 (to lane 0) and 32 (to lane 16) together.
    /// assert_eq!((words[0].word, words[0].bank.index()), (0, 0));
    /// assert_eq!((words[1].word, words[1].bank.index()), (32, 0));
    /// assert_eq!(words[1].lanes.to_string(), "16");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn words(&self) -> SmallVec<[WordAccess; 32]> {
        let partition = self.partition;
        let config = partition.config;
        let request = &partition.request;
        let bank_bytes = config.bank_width().bytes();
        let width = request.width().bytes();
        // 1.x moves 4-byte parts of wide accesses one at a time.
        let (offset, bytes) = if config.parts(request.width()) > 1 {
            (4 * u32::from(self.step.part), 4)
        } else {
            (0, width)
        };
        let mut words: SmallVec<[WordAccess; 32]> = SmallVec::new();
        for lane in self.step.lanes {
            let Some(address) = request.address(lane) else {
                continue;
            };
            let start = address + offset;
            let first = start / bank_bytes;
            let last = (start + bytes - 1) / bank_bytes;
            for word in first..=last {
                match words.iter_mut().find(|w| w.word == word) {
                    Some(access) => access.lanes.insert(lane),
                    None => words.push(WordAccess {
                        word,
                        bank: Bank::from_index(word % config.bank_count()),
                        lanes: LaneSet::from_iter([lane]),
                    }),
                }
            }
        }
        words.sort_unstable_by_key(|w| (w.bank, w.word));
        words
    }

    /// The banks touched.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float v = s[lane % 8]: only banks 0-7 are read, each word by four lanes.
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * (lane.get() % 8)))?;
    /// let partition = sm90.partition(&request)?;
    /// let only = partition.transactions().next().unwrap();
    /// assert_eq!(only.banks().bits(), 0xff);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn banks(&self) -> BankSet {
        self.words().iter().map(|w| w.bank).collect()
    }

    /// The words delivered to (or written by) more than one lane.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // The lower half-warp reads s[0], the upper half s[lane].
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| {
    ///     Some(if lane.get() < 16 { 0 } else { 4 * lane.get() })
    /// })?;
    /// let partition = sm90.partition(&request)?;
    /// let only = partition.transactions().next().unwrap();
    /// let shared: Vec<_> = only.broadcast_words().collect();
    /// assert_eq!(shared.len(), 1);
    /// assert_eq!((shared[0].word, shared[0].lanes.to_string()), (0, "0-15".to_string()));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn broadcast_words(&self) -> impl Iterator<Item = WordAccess> {
        self.words().into_iter().filter(WordAccess::is_broadcast)
    }

    /// Whether `lane` is served by this transaction.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Lane, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: lanes 0 and 16 share bank 0, so they wait for each other.
    /// let stride2 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let partition = sm90.partition(&stride2)?;
    /// let first = partition.transactions().next().unwrap();
    /// assert!(first.serves(Lane::new(0)?));
    /// assert!(!first.serves(Lane::new(16)?));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn serves(&self, lane: Lane) -> bool {
        self.step.lanes.contains(lane)
    }
}
