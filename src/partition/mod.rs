//! Partitions: a request split into the transactions (wavefronts) that serve it.

mod affine;
mod cas_loop;
mod dispatch;
mod schedule;
#[cfg(target_arch = "x86_64")]
mod simd;
mod types;
mod validate;

use core::fmt;

use smallvec::SmallVec;

use crate::{Bank, BankConfig, BankSet, Error, Lane, LaneSet, Op, WarpRequest, WARP_SIZE};

#[cfg(target_arch = "x86_64")]
pub(crate) use simd::followers;
pub(crate) use types::Totals;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Step {
    lanes: LaneSet,
    phase: u8,
    part: u8,
    round: u8,
}

struct Record<'a>(&'a mut SmallVec<[Step; INLINE_STEPS]>, u8);

impl types::Sink for Record<'_> {
    const STEPS: bool = true;
    fn step(&mut self, phase: u8, part: u8, lanes: LaneSet) {
        self.0.push(Step {
            lanes,
            phase,
            part,
            round: self.1,
        });
    }
    fn round(&mut self, round: u8) {
        self.1 = round;
    }
}

/// What [`BankConfig`] computes from a request: its partition, its cost and
/// its wavefronts, each routed by `dispatch` (the rules themselves are
/// documented on [`BankConfig`], in the bank module, which knows nothing of
/// partitions).
impl BankConfig {
    /// Splits `request` into the transactions the hardware serves it in.
    ///
    /// Cost: a little more than [`wavefronts`](Self::wavefronts) (the steps are
    /// recorded); no allocation for requests of up to 36 transactions, which is
    /// all of them except the widest on 1.x.
    ///
    /// # Errors
    ///
    /// - [`Error::UnsupportedOp`] when the capability lacks the request's op.
    /// - [`Error::OutsideWindow`] when a lane's access runs past
    ///   [`ComputeCapability::shared_window_size`](crate::ComputeCapability::shared_window_size).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, Classification, ComputeCapability, Op, WarpRequest};
    ///
    /// let config = BankConfig::new(ComputeCapability::Sm90);
    /// // Column access of a 32x32 float tile: every lane in bank 0.
    /// let column = WarpRequest::from_fn(Op::Load, 4, |lane| Some(lane.get() * 32 * 4))?;
    /// let partition = config.partition(&column)?;
    /// assert_eq!(partition.wavefronts(), 32);
    /// assert_eq!(partition.bank_conflicts(), 31);
    /// assert_eq!(partition.classification(), Classification::Serial { ways: 32 });
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn partition(&self, request: &WarpRequest) -> Result<Partition, Error> {
        // One partition, filled where it lies: it is a few hundred bytes, and
        // each move of it costs as much as a short schedule.
        let mut partition = Partition {
            config: *self,
            request: *request,
            steps: SmallVec::new(),
            totals: Totals::default(),
        };
        let record = &mut Record(&mut partition.steps, 0);
        partition.totals = dispatch::schedule(*self, request, record)?;
        Ok(partition)
    }

    /// The number of wavefronts `request` takes, without building the partition.
    ///
    /// Always equal to `self.partition(request)?.wavefronts()`, and cheaper: use
    /// it in searches over many layouts, and [`partition`](Self::partition) to see
    /// why a layout conflicts.
    ///
    /// Cost: tens of nanoseconds on the common requests (see the README's
    /// performance section); no allocation.
    ///
    /// # Errors
    ///
    /// As [`partition`](Self::partition):
    ///
    /// - [`Error::UnsupportedOp`] when the capability lacks the request's op.
    /// - [`Error::OutsideWindow`] when a lane's access runs past
    ///   [`ComputeCapability::shared_window_size`](crate::ComputeCapability::shared_window_size).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // A column of float tile[32][PITCH]: padding the pitch to 33 removes the conflict.
    /// let column = |pitch: u32| {
    ///     WarpRequest::from_fn(Op::Load, 4, move |lane| Some(4 * pitch * lane.get()))
    /// };
    /// assert_eq!(sm90.wavefronts(&column(32)?)?, 32);
    /// assert_eq!(sm90.wavefronts(&column(33)?)?, 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    #[inline]
    pub fn wavefronts(&self, request: &WarpRequest) -> Result<u32, Error> {
        self.cost(request).map(|cost| cost.wavefronts())
    }

    /// The wavefronts, ideal wavefronts and ways of `request`, without building
    /// the partition: [`wavefronts`](Self::wavefronts) with the counts a bank
    /// conflict rate needs. Always equal to `self.partition(request)?.cost()`.
    ///
    /// # Errors
    ///
    /// As [`partition`](Self::partition):
    ///
    /// - [`Error::UnsupportedOp`] when the capability lacks the request's op.
    /// - [`Error::OutsideWindow`] when a lane's access runs past
    ///   [`ComputeCapability::shared_window_size`](crate::ComputeCapability::shared_window_size).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float4 v = s4[2 * lane]: each quarter-warp's 8 lanes meet in pairs.
    /// let request = WarpRequest::from_fn(Op::Load, 16, |lane| Some(32 * lane.get()))?;
    /// let cost = sm90.cost(&request)?;
    /// assert_eq!((cost.wavefronts(), cost.ideal_wavefronts()), (8, 4));
    /// assert_eq!((cost.bank_conflicts(), cost.ways()), (4, 2));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    #[inline]
    pub fn cost(&self, request: &WarpRequest) -> Result<Cost, Error> {
        dispatch::count(*self, request).map(|totals| Cost::new(totals, request))
    }

    /// What one round of nvcc's compare-and-swap loop costs: one dynamic
    /// `ATOMS.CAST.SPIN`, tried by `request`'s active lanes (the lanes still
    /// pending that round, as a trace records them). `request`'s op is the
    /// emulated atomic ([`Op::is_cas_loop`]); its addresses are the lanes'.
    ///
    /// The cost is the ATOMS try alone, as [`cost`](Self::cost) counts each
    /// round of the whole loop (tests/data/hw-corpus/sm90-atomics.jsonl,
    /// measured on sm_90): 2 wavefronts for each phase with a pending lane
    /// (the warp at 4 bytes, each half-warp at 8), one instruction, no load
    /// wavefronts (the round's `LDS` is an instruction of its own). Summed over
    /// a loop's rounds it is the loop's [`Cost::wavefronts`]. A round with no
    /// pending lane costs nothing. Ideal wavefronts are the wavefronts (a try
    /// has no bank conflict of its own) and ways 1.
    ///
    /// # Errors
    ///
    /// - [`Error::NotCasLoop`] when `request`'s op is not a compare-and-swap
    ///   loop at its width.
    /// - As [`cost`](Self::cost): [`Error::UnsupportedAccess`] and
    ///   [`Error::UnsupportedOp`] when the capability lacks the op,
    ///   [`Error::OutsideWindow`] when a lane's access runs past the shared window.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, BankConfig, ComputeCapability, Error, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // A 64-bit atomicAdd round with lanes pending in both half-warps: 2 x 2.
    /// let round = WarpRequest::from_fn(Op::Atomic(AtomicKind::Add), 8, |lane| {
    ///     (lane.get() % 8 == 0).then_some(0)
    /// })?;
    /// let cost = sm90.cas_round_cost(&round)?;
    /// assert_eq!((cost.wavefronts(), cost.instructions(), cost.load_wavefronts()), (4, 1, 0));
    /// // The whole loop is the sum of its rounds (here one lane succeeds a round).
    /// assert_eq!(sm90.cost(&round)?.instructions(), 4);
    ///
    /// // A native atomic has no rounds.
    /// let add = WarpRequest::from_fn(Op::ATOMIC_ADD, 4, |lane| Some(4 * lane.get()))?;
    /// assert!(matches!(sm90.cas_round_cost(&add), Err(Error::NotCasLoop { .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn cas_round_cost(&self, request: &WarpRequest) -> Result<Cost, Error> {
        let (op, width) = (request.op(), request.width());
        if !op.is_cas_loop(width) {
            return Err(Error::NotCasLoop {
                op,
                width: width.bytes(),
            });
        }
        validate::validate(*self, request)?;
        let wavefronts = cas_loop::try_wavefronts(*self, request);
        let tried = wavefronts > 0;
        Ok(Cost {
            wavefronts,
            ideal_wavefronts: wavefronts,
            ways: u32::from(tried),
            load_wavefronts: 0,
            instructions: 1,
            hidden_from_nsight: false,
        })
    }
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
    load_wavefronts: u32,
    instructions: u32,
    hidden_from_nsight: bool,
}

impl Cost {
    /// The wavefronts (transactions): as [`Partition::wavefronts`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: two words in each even bank.
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let cost = sm90.cost(&request)?;
    /// assert_eq!(cost.wavefronts(), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn wavefronts(&self) -> u32 {
        self.wavefronts
    }

    /// The wavefronts without bank conflicts: as [`Partition::ideal_wavefronts`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: two words in each even bank.
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let cost = sm90.cost(&request)?;
    /// assert_eq!(cost.ideal_wavefronts(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn ideal_wavefronts(&self) -> u32 {
        self.ideal_wavefronts
    }

    /// `wavefronts - ideal_wavefronts`: as [`Partition::bank_conflicts`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: two words in each even bank.
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let cost = sm90.cost(&request)?;
    /// assert_eq!(cost.bank_conflicts(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bank_conflicts(&self) -> u32 {
        self.wavefronts - self.ideal_wavefronts
    }

    /// The busiest phase's steps: as [`Partition::ways`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: two words in each even bank.
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let cost = sm90.cost(&request)?;
    /// assert_eq!(cost.ways(), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn ways(&self) -> u32 {
        self.ways
    }

    /// The LDS wavefronts of a compare-and-swap loop's loads: as
    /// [`Partition::load_wavefronts`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// // atomicAdd(&total, x) on a shared float by the whole warp: 32 rounds.
    /// let add = WarpRequest::from_fn(Op::Atomic(AtomicKind::AddF32), 4, |_| Some(0))?;
    /// let cost = BankConfig::new(ComputeCapability::Sm90).cost(&add)?;
    /// assert_eq!((cost.instructions(), cost.load_wavefronts(), cost.wavefronts()), (32, 32, 64));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn load_wavefronts(&self) -> u32 {
        self.load_wavefronts
    }

    /// The instructions executed: as [`Partition::instructions`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: two words in each even bank.
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let cost = sm90.cost(&request)?;
    /// assert_eq!(cost.instructions(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn instructions(&self) -> u32 {
        self.instructions
    }

    /// Whether Nsight Compute's LSU wavefront counters see the request's
    /// shared-memory wavefronts: as [`Partition::visible_to_nsight`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, CpAsync, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let cg = WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |lane| Some(16 * lane.get()))?;
    /// let cost = sm90.cost(&cg)?;
    /// assert_eq!((cost.wavefronts(), cost.visible_to_nsight()), (4, false));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn visible_to_nsight(&self) -> bool {
        !self.hidden_from_nsight
    }

    /// A cost read from data, checked as the model builds them: the ideal
    /// wavefronts and the ways each at most the wavefronts, and each zero
    /// exactly when the wavefronts are (an empty request).
    #[cfg(feature = "serde")]
    pub(crate) fn checked(
        wavefronts: u32,
        ideal_wavefronts: u32,
        ways: u32,
        load_wavefronts: u32,
        instructions: u32,
        visible_to_nsight: bool,
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
        // What the model builds: one instruction without loads (hidden from
        // Nsight only for cp.async.cg), an empty compare-and-swap loop, or a
        // loop whose every round loads at least one wavefront and tries in
        // at least two.
        let one_instruction = load_wavefronts == 0 && instructions == 1;
        let empty_loop = wavefronts == 0 && load_wavefronts == 0 && instructions == 0;
        let a_loop = instructions >= 1
            && load_wavefronts >= instructions
            && u64::from(wavefronts) >= 2 * u64::from(instructions);
        if !(one_instruction || (visible_to_nsight && (empty_loop || a_loop))) {
            return Err(Error::InvalidLoopCost {
                wavefronts,
                load_wavefronts,
                instructions,
            });
        }
        Ok(Cost {
            wavefronts,
            ideal_wavefronts,
            ways,
            load_wavefronts,
            instructions,
            hidden_from_nsight: !visible_to_nsight,
        })
    }
}

impl Cost {
    /// The same cost with `wavefronts` (LDGSTS `.ca`, whose global side can
    /// take more than its shared-side schedule; never fewer): the ideal
    /// wavefronts and the ways stay.
    pub(crate) fn with_wavefronts(mut self, wavefronts: u32) -> Cost {
        self.wavefronts = self.wavefronts.max(wavefronts);
        self
    }

    /// The same cost with `wavefronts` in place of the shared-side figure
    /// (LDGSTS.BYPASS, whose rule is its own: never below the ideal).
    pub(crate) fn replacing_wavefronts(mut self, wavefronts: u32) -> Cost {
        self.wavefronts = wavefronts.max(self.ideal_wavefronts);
        self
    }

    pub(crate) fn new(totals: Totals, request: &WarpRequest) -> Cost {
        Cost {
            wavefronts: totals.wavefronts,
            ideal_wavefronts: totals.ideal,
            ways: totals.ways,
            load_wavefronts: totals.loads,
            instructions: totals.rounds,
            hidden_from_nsight: request.op() == Op::CpAsync(crate::CpAsync::Cg),
        }
    }
}

/// A request classified by how its lanes are served: the words people use for
/// an access (broadcast, parallel, conflicted, serial), each defined below.
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
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// let partition = sm90.partition(&request)?;
    /// assert_eq!(partition.config(), sm90);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn config(&self) -> BankConfig {
        self.config
    }

    /// The request.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// let partition = sm90.partition(&request)?;
    /// assert_eq!(partition.request(), &request);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
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
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// let partition = sm90.partition(&request)?;
    /// assert_eq!(partition.cost(), sm90.cost(&request)?);
    /// assert_eq!(partition.cost().wavefronts(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn cost(&self) -> Cost {
        Cost::new(self.totals, &self.request)
    }

    /// The LDS wavefronts of a compare-and-swap loop's loads (0 for every
    /// other op): what `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld`
    /// counts for an atomic nvcc emulates (tests/data/hw-corpus/sm90-atomics.jsonl, measured on
    /// sm_90). [`wavefronts`](Self::wavefronts) counts the loop's ATOMS.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // atomicAdd(&s[2 * lane], 1.0f): lanes l and l + 16 share a bank, so
    /// // two rounds; the first loads 2 wavefronts (the 2-way load), the second 1.
    /// let add = WarpRequest::from_fn(Op::Atomic(AtomicKind::AddF32), 4, |lane| Some(8 * lane.get()))?;
    /// let partition = sm90.partition(&add)?;
    /// assert_eq!(partition.instructions(), 2);
    /// assert_eq!(partition.load_wavefronts(), 3);
    /// assert_eq!(partition.wavefronts(), 4);
    /// assert_eq!(partition.transactions().map(|t| t.round()).collect::<Vec<_>>(), [0, 0, 1, 1]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn load_wavefronts(&self) -> u32 {
        self.totals.loads
    }

    /// The instructions the request executes: 1, or for a compare-and-swap
    /// loop its rounds, each one `ATOMS.CAST.SPIN` (what
    /// `smsp__sass_inst_executed_op_shared_atom` counts; tests/data/hw-corpus/sm90-atomics.jsonl).
    /// A loop with no active lane runs no round.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // 64-bit atomicAdd by the whole warp on one word: one lane a round.
    /// let add = WarpRequest::from_fn(Op::Atomic(AtomicKind::Add), 8, |_| Some(0))?;
    /// let partition = sm90.partition(&add)?;
    /// assert_eq!((partition.instructions(), partition.load_wavefronts()), (32, 32));
    /// // Two half-warps try each round until the lower one is done: 2 x 16 x 2 + 16 x 2.
    /// assert_eq!(partition.wavefronts(), 96);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn instructions(&self) -> u32 {
        self.totals.rounds
    }

    /// Whether Nsight Compute's LSU wavefront counters see the request's
    /// shared-memory writes: false for `cp.async.cg` (`LDGSTS.E.BYPASS.128`),
    /// whose writes never appear in `l1tex__data_pipe_lsu_wavefronts_mem_shared`
    /// (measured on sm_90, tests/data/hw-corpus/sm90-cp-async.jsonl). The partition still gives
    /// the model's own shared-side figure (the rule of `cp.async.ca` of 16
    /// bytes): the writes are not free, only uncounted there. That rule is a
    /// modelling choice checked on two patterns only: the SASS-level counter
    /// `sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts` gave the
    /// model's 4 and 32 wavefronts for lane strides of 16 and 128 bytes on an
    /// H100 (tools/measure/metric_names.cu). The instruction-level counter
    /// `smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts`, which
    /// instrumentation computes, does count them, by a rule of both sides
    /// ([`ldgsts_bypass_wavefronts`](crate::kernel::tally::ldgsts_bypass_wavefronts),
    /// which the kernel tally uses where it knows the global addresses).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, CpAsync, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let copy = |cache| WarpRequest::from_fn(Op::CpAsync(cache), 16, |lane| Some(32 * lane.get()));
    /// let ca = sm90.partition(&copy(CpAsync::Ca)?)?;
    /// let cg = sm90.partition(&copy(CpAsync::Cg)?)?;
    /// assert_eq!((ca.wavefronts(), ca.visible_to_nsight()), (8, true));
    /// assert_eq!((cg.wavefronts(), cg.visible_to_nsight()), (8, false));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn visible_to_nsight(&self) -> bool {
        self.request.op() != Op::CpAsync(crate::CpAsync::Cg)
    }

    /// The bytes of shared memory the request's active lanes access, each
    /// byte counted once however many lanes access it.
    ///
    /// Every lane accesses the request's width at an address aligned to it,
    /// so two lanes' bytes are either the same or disjoint.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // A broadcast: 32 lanes, one float.
    /// let uniform = WarpRequest::from_fn(Op::Load, 4, |_| Some(64))?;
    /// assert_eq!(sm90.partition(&uniform)?.distinct_bytes(), 4);
    /// let doubles = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get()))?;
    /// assert_eq!(sm90.partition(&doubles)?.distinct_bytes(), 256);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn distinct_bytes(&self) -> u32 {
        let mut addresses = [0u32; WARP_SIZE];
        let mut active = 0;
        for (slot, (_, address)) in addresses.iter_mut().zip(self.request.active_addresses()) {
            *slot = address;
            active += 1;
        }
        let addresses = &mut addresses[..active];
        addresses.sort_unstable();
        let distinct =
            addresses.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(active > 0);
        distinct as u32 * self.request.width().bytes()
    }

    /// The fraction of the bank bandwidth the request's wavefronts spend on
    /// data it asked for: [`distinct_bytes`](Self::distinct_bytes) over
    /// `wavefronts` x [`BankConfig::wavefront_bytes`] (what the wavefronts
    /// could have moved), or `None` for a request that takes no wavefront.
    ///
    /// At most 1. A conflict lowers it (more wavefronts), and so do narrow or
    /// few accesses and broadcasts (fewer bytes asked for): one lane's float
    /// uses 4 of the 128 bytes its wavefront could move. On 3.x a bank
    /// moves 64 bits in both bank modes, so `double` at stride 1 is 256 bytes
    /// in one wavefront of 256: 1.0 in four-byte mode too. `smem analyze`
    /// prints it as "bank bandwidth used". (For the conflict-free share
    /// alone, divide [`ideal_wavefronts`](Self::ideal_wavefronts) by
    /// [`wavefronts`](Self::wavefronts).)
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[lane] on floats: 128 bytes in one wavefront of 128.
    /// let floats = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// assert_eq!(sm90.partition(&floats)?.bandwidth_fraction(), Some(1.0));
    /// // s[2 * lane]: a 2-way conflict halves it.
    /// let stride2 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// assert_eq!(sm90.partition(&stride2)?.bandwidth_fraction(), Some(0.5));
    /// // One lane's float: 4 of 128 bytes.
    /// let one = WarpRequest::from_fn(Op::Load, 4, |lane| (lane.get() == 0).then_some(0))?;
    /// assert_eq!(sm90.partition(&one)?.bandwidth_fraction(), Some(4.0 / 128.0));
    /// // A fully masked-off warp moves nothing, at no cost.
    /// let idle = WarpRequest::from_fn(Op::Load, 4, |_| None)?;
    /// assert_eq!(sm90.partition(&idle)?.bandwidth_fraction(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bandwidth_fraction(&self) -> Option<f64> {
        let capacity = u64::from(self.totals.wavefronts) * u64::from(self.config.wavefront_bytes());
        (capacity > 0).then(|| f64::from(self.distinct_bytes()) / capacity as f64)
    }

    /// The request's [`Classification`].
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
    /// let hist = WarpRequest::from_fn(Op::ATOMIC_ADD, 4, |lane| Some(4 * (lane.get() % 4)))?;
    /// assert_eq!(sm90.partition(&hist)?.classification(), Classification::Conflicted { ways: 8 });
    /// // atomicAdd(&count, 1) by the whole warp: atomics on one address do not
    /// // merge, so the lanes are served one by one.
    /// let count = WarpRequest::from_fn(Op::ATOMIC_ADD, 4, |_| Some(0))?;
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
    /// A transaction is not always one lane group: on 1.x an access wider than
    /// 4 bytes is served in 4-byte parts, so a lane is in one transaction per
    /// part ([`Transaction::part`]); on 2.x a 128-bit access takes an extra step
    /// per quarter-warp that serves no lane ([`Transaction::lanes`] is empty).
    /// Everywhere else each active lane is in exactly one transaction.
    ///
    /// Cost: nothing to start; each item is a copy of the request and one step
    /// (about 150 bytes), with no allocation. To return the transactions from a
    /// function, consume the partition with
    /// [`into_transactions`](Self::into_transactions).
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

    /// The transactions, in the order served, owning the partition: an iterator
    /// that can be returned from a function or stored.
    ///
    /// The same items as [`transactions`](Self::transactions); `for t in
    /// partition` does the same. Cost: a move of the partition (a few hundred
    /// bytes), no allocation.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, LaneSet, Op, Transaction, WarpRequest};
    ///
    /// // A simulator's helper: the lane masks of a request's wavefronts.
    /// fn wavefronts_of(offsets: &[u32; 32]) -> Result<impl Iterator<Item = Transaction>, Error> {
    ///     let request = WarpRequest::from_offsets(Op::Load, 4, LaneSet::FULL, offsets)?;
    ///     Ok(BankConfig::new(ComputeCapability::Sm90).partition(&request)?.into_transactions())
    /// }
    /// let stride2: [u32; 32] = core::array::from_fn(|lane| 8 * lane as u32);
    /// let masks: Vec<u32> = wavefronts_of(&stride2)?.map(|t| t.lanes().bits()).collect();
    /// assert_eq!(masks, [0x0000_ffff, 0xffff_0000]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn into_transactions(self) -> IntoTransactions {
        IntoTransactions {
            partition: self,
            next: 0,
        }
    }

    fn transaction(&self, step: Step) -> Transaction {
        Transaction {
            config: self.config,
            request: self.request,
            step,
        }
    }
}

impl IntoIterator for Partition {
    type Item = Transaction;
    type IntoIter = IntoTransactions;

    /// As [`Partition::into_transactions`].
    fn into_iter(self) -> IntoTransactions {
        self.into_transactions()
    }
}

impl<'a> IntoIterator for &'a Partition {
    type Item = Transaction;
    type IntoIter = Transactions<'a>;

    /// As [`Partition::transactions`].
    fn into_iter(self) -> Transactions<'a> {
        self.transactions()
    }
}

/// The transactions of a [`Partition`] it owns, in the order served.
///
/// Returned by [`Partition::into_transactions`] (and `IntoIterator` for
/// `Partition`); it knows its length, which is [`Partition::wavefronts`].
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let float4 = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get()))?;
/// let mut owned = sm90.partition(&float4)?.into_transactions();
/// assert_eq!(owned.len(), 4);
/// assert_eq!(owned.next().map(|t| t.lanes().to_string()), Some("0-7".to_string()));
/// assert_eq!(owned.len(), 3);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct IntoTransactions {
    partition: Partition,
    next: usize,
}

impl Iterator for IntoTransactions {
    type Item = Transaction;

    fn next(&mut self) -> Option<Transaction> {
        let step = *self.partition.steps.get(self.next)?;
        self.next += 1;
        Some(self.partition.transaction(step))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.partition.steps.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for IntoTransactions {}

impl core::iter::FusedIterator for IntoTransactions {}

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

impl Iterator for Transactions<'_> {
    type Item = Transaction;

    fn next(&mut self) -> Option<Transaction> {
        let step = *self.partition.steps.get(self.next)?;
        self.next += 1;
        Some(self.partition.transaction(step))
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
/// A value of its own (a copy of the request and one step, about 150 bytes),
/// so it outlives the [`Partition`] it came from; it computes its words and
/// banks on demand, each in one pass over its lanes without allocating. Its `Debug`
/// form shows this transaction alone: phase, part, lanes and words.
///
/// On 1.x a lane can be in several transactions (one per 4-byte part of a
/// wide access) and on 2.x a transaction can serve no lane (the extra step of
/// a 128-bit access): see [`Partition::transactions`].
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
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Transaction {
    config: BankConfig,
    request: WarpRequest,
    step: Step,
}

impl fmt::Debug for Transaction {
    /// `Transaction { phase, part, lanes, words }`: this transaction only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transaction")
            .field("phase", &self.step.phase)
            .field("part", &self.step.part)
            .field("lanes", &self.step.lanes)
            .field("words", &self.words().as_slice())
            .finish()
    }
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

impl Transaction {
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

    /// The round of a compare-and-swap loop this transaction belongs to,
    /// counting from 0; always 0 for other ops. A loop's transactions are its
    /// `ATOMS.CAST.SPIN` tries (two per phase with pending lanes, each serving
    /// the lanes that are still pending); its loads are counted in
    /// [`Partition::load_wavefronts`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AtomicKind, BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // A float atomicAdd by four lanes on one word: one lane succeeds a round.
    /// let add = WarpRequest::from_fn(Op::Atomic(AtomicKind::AddF32), 4, |lane| (lane.get() < 4).then_some(0))?;
    /// let partition = sm90.partition(&add)?;
    /// let rounds: Vec<(u32, String)> =
    ///     partition.transactions().map(|t| (t.round(), t.lanes().to_string())).collect();
    /// assert_eq!(rounds[0], (0, "0-3".to_string()));
    /// assert_eq!(rounds[7], (3, "3".to_string()));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn round(&self) -> u32 {
        u32::from(self.step.round)
    }

    /// The words accessed, ordered by bank then word, each with its lanes.
    ///
    /// An access wider than a bank word covers several words. On 3.x in four-byte
    /// mode a bank can hold two words of one transaction: words `i` and `i + 32` of
    /// one 64-bit bank row.
    ///
    /// Cost: one pass over the served lanes into a table of one slot per bank
    /// (two on 3.x in four-byte mode), then the words written out in order,
    /// straight into the returned vector (created in the caller's frame):
    /// measured at about 2 times [`BankConfig::wavefronts`] of a whole 4-byte
    /// request per transaction of the 4-byte mix, 2.5 times on the 16-byte
    /// mix (40 and 50 ns against 20 ns on the 2-core VM;
    /// `examples/api_costs.rs`, `benches/partition.rs` group `api`). No
    /// allocation: a transaction has at most 64 words, held inline (the
    /// vector is 776 bytes: keep it where it is returned).
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
    #[inline(always)]
    pub fn words(&self) -> SmallVec<[WordAccess; 64]> {
        // Created in the caller's frame and filled there through a pointer:
        // returned from a call, its 776 bytes would be copied, which costs
        // more than most transactions' words.
        let mut words = SmallVec::new();
        self.fill_words(&mut words);
        words
    }

    /// [`words`](Self::words) into `words` (empty).
    #[inline(never)]
    fn fill_words(&self, words: &mut SmallVec<[WordAccess; 64]>) {
        // A transaction takes at most one word from each bank, or on 3.x in
        // four-byte mode words i and i + 32 of one 64-bit bank row: one slot
        // per bank, or two (one per half of a 64-word segment) there.
        // Anything else goes the long way (it does not happen: a test checks
        // that the table always serves, and compares the two).
        if !self.words_fast(words) {
            self.words_sorted_into(words);
        }
    }

    /// [`words`](Self::words) into `words` (empty) from the slot table;
    /// `false` (and `words` left empty) when the words do not fit it.
    #[inline(always)]
    fn words_fast(&self, words: &mut SmallVec<[WordAccess; 64]>) -> bool {
        let kepler_four = self.config.rules() == crate::bank::Rules::Kepler
            && self.config.bank_width() == crate::BankWidth::FourBytes;
        if kepler_four {
            self.words_in_slots::<2, 64>(words)
        } else {
            self.words_in_slots::<1, 32>(words)
        }
    }

    /// [`words`](Self::words) from a table of `PER_BANK` slots a bank (the
    /// slots come out in (bank, word) order) into `words`, or `false` when
    /// the words do not fit it.
    #[inline(always)]
    fn words_in_slots<const PER_BANK: u32, const SLOTS: usize>(
        &self,
        words: &mut SmallVec<[WordAccess; 64]>,
    ) -> bool {
        let (bank_shift, bank_mask) = self.bank_geometry();
        let mut slot_words = [0u32; SLOTS];
        let mut slot_lanes = [0u32; SLOTS];
        let mut used = 0u64;
        let mut clash = false;
        self.for_each_word(|lane, word| {
            let bank = word & bank_mask;
            let slot = if PER_BANK == 2 {
                (bank << 1 | (word >> bank_shift) & 1) as usize
            } else {
                bank as usize
            };
            let bit = 1u64 << slot;
            clash |= (used & bit != 0) & (slot_words[slot] != word);
            used |= bit;
            slot_words[slot] = word;
            slot_lanes[slot] |= 1 << lane;
        });
        if PER_BANK == 2 {
            // A bank whose two slots are both used must hold them in word order.
            let mut pairs = used & (used >> 1) & 0x5555_5555_5555_5555;
            while pairs != 0 {
                let slot = pairs.trailing_zeros() as usize;
                pairs &= pairs - 1;
                clash |= slot_words[slot] > slot_words[slot + 1];
            }
        }
        if clash {
            return false;
        }
        // At most 64 words: the inline storage never spills.
        for slot in Bits(used) {
            let word = slot_words[slot];
            words.push(WordAccess {
                word,
                bank: Bank::from_index(word & bank_mask),
                lanes: LaneSet::from_bits(slot_lanes[slot]),
            });
        }
        true
    }

    /// `log2(banks)` and `banks - 1`: bank counts are powers of two.
    fn bank_geometry(&self) -> (u32, u32) {
        let banks = self.config.bank_count();
        (banks.trailing_zeros(), banks - 1)
    }

    /// Where each served lane's words start: `(offset, word_shift, per_lane)`,
    /// lane `l` accessing words `(address(l) + offset) >> word_shift` onwards,
    /// `per_lane` of them (1, 2 or 4: accesses are aligned to their width, so a
    /// lane covers whole words or lies in one).
    fn span(&self) -> (u32, u32, u32) {
        let config = self.config;
        let bank_bytes = config.bank_width().bytes();
        // 1.x moves 4-byte parts of wide accesses one at a time.
        let (offset, bytes) = if config.parts(self.request.width()) > 1 {
            (4 * u32::from(self.step.part), 4)
        } else {
            (0, self.request.width().bytes())
        };
        (
            offset,
            bank_bytes.trailing_zeros(),
            (bytes / bank_bytes).max(1),
        )
    }

    /// Calls `f(lane, word)` for each bank word each served lane accesses.
    #[inline(always)]
    fn for_each_word(&self, f: impl FnMut(u32, u32)) {
        let (offset, word_shift, per_lane) = self.span();
        let lanes = self.step.lanes.bits();
        let addresses = self.request.raw_addresses();
        match per_lane {
            1 => each_lane_word::<1>(lanes, addresses, offset, word_shift, f),
            2 => each_lane_word::<2>(lanes, addresses, offset, word_shift, f),
            _ => each_lane_word::<4>(lanes, addresses, offset, word_shift, f),
        }
    }

    /// [`words_sorted_into`](Self::words_sorted_into) into a new vector.
    #[cfg(test)]
    pub(crate) fn words_sorted(&self) -> SmallVec<[WordAccess; 64]> {
        let mut words = SmallVec::new();
        self.words_sorted_into(&mut words);
        words
    }

    /// [`words`](Self::words) by search and sort into `words` (emptied
    /// first): the fallback, and the reference the slot table is checked
    /// against.
    #[cold]
    #[inline(never)]
    fn words_sorted_into(&self, words: &mut SmallVec<[WordAccess; 64]>) {
        let (_, bank_mask) = self.bank_geometry();
        words.clear();
        self.for_each_word(
            |lane, word| match words.iter_mut().find(|w| w.word == word) {
                Some(access) => access.lanes = access.lanes.union(LaneSet::from_bits(1 << lane)),
                None => words.push(WordAccess {
                    word,
                    bank: Bank::from_index(word & bank_mask),
                    lanes: LaneSet::from_bits(1 << lane),
                }),
            },
        );
        words.sort_unstable_by_key(|w| (w.bank, w.word));
    }

    /// The banks touched.
    ///
    /// Cost: one pass over the served lanes, a shift and an OR each: about
    /// [`BankConfig::wavefronts`] of a whole 4-byte request; no allocation.
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
        let (_, bank_mask) = self.bank_geometry();
        let (offset, word_shift, per_lane) = self.span();
        // A lane's words are `per_lane` neighbouring banks from a multiple of
        // `per_lane`, which divides the bank count: one run of bits, no wrap.
        let run = (1u32 << per_lane) - 1;
        let addresses = self.request.raw_addresses();
        let mut bits = 0u32;
        for lane in Bits(u64::from(self.step.lanes.bits())) {
            bits |= run << (((addresses[lane] + offset) >> word_shift) & bank_mask);
        }
        BankSet::from_bits(bits)
    }

    /// The words delivered to (or written by) more than one lane.
    ///
    /// Cost: that of [`words`](Self::words); no allocation.
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
    pub fn broadcast_words(&self) -> impl Iterator<Item = WordAccess> + use<> {
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

/// Calls `f(lane, word)` for the `N` words from each lane's first one.
#[inline(always)]
fn each_lane_word<const N: u32>(
    lanes: u32,
    addresses: &[u32; 32],
    offset: u32,
    word_shift: u32,
    mut f: impl FnMut(u32, u32),
) {
    let mut rest = lanes;
    while rest != 0 {
        let lane = rest.trailing_zeros();
        rest &= rest - 1;
        // Aligned, so `address + offset` stays below 2^32.
        let first = (addresses[lane as usize] + offset) >> word_shift;
        for k in 0..N {
            f(lane, first + k);
        }
    }
}

/// The set bits of a mask, lowest first, as indices; knows its length.
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let index = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            index
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.count_ones() as usize;
        (len, Some(len))
    }
}

impl ExactSizeIterator for Bits {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ComputeCapability, Matrices, Op, SharedMemConfig};

    /// Requests of every op and width, from small address ranges (shared
    /// words, crowded banks) and large ones, with random masks.
    fn requests() -> Vec<WarpRequest> {
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let ops = [
            Op::Load,
            Op::Store,
            Op::Atomic(crate::AtomicKind::Inc),
            Op::LdMatrix(Matrices::X4),
            Op::StMatrix(Matrices::X2),
            Op::CpAsync(crate::CpAsync::Cg),
        ];
        let mut all = Vec::new();
        for round in 0..400 {
            let op = ops[round % ops.len()];
            let width = op.fixed_width().map_or(1 << (round / 5 % 5), |w| w.bytes());
            let span = [64, 512, 4096][round % 3];
            let mask = if round % 4 == 0 { u32::MAX } else { next() };
            let offsets: [u32; 32] = core::array::from_fn(|_| next() % span / width * width);
            all.push(
                WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), &offsets).unwrap(),
            );
        }
        all
    }

    #[test]
    fn words_and_banks_match_the_sorted_reference() {
        let mut compared = 0;
        for config in configs() {
            for request in requests() {
                let Ok(partition) = config.partition(&request) else {
                    continue;
                };
                for t in partition.transactions() {
                    let words = t.words();
                    assert_eq!(words, t.words_sorted(), "{config:?} {request:?} {t:?}");
                    let mut fast = SmallVec::new();
                    assert!(t.words_fast(&mut fast), "{config:?} {request:?} {t:?}");
                    assert_eq!(fast, words);
                    let banks: BankSet = words.iter().map(|w| w.bank).collect();
                    assert_eq!(t.banks(), banks);
                    compared += 1;
                }
            }
        }
        assert!(compared > 25_000, "{compared}");
    }

    /// Every configuration: each capability, and Kepler in eight-byte mode
    /// (also the compare-and-swap loop's tests).
    pub(super) fn configs() -> Vec<BankConfig> {
        let mut configs: Vec<BankConfig> = ComputeCapability::ALL
            .iter()
            .map(|&cc| BankConfig::new(cc))
            .collect();
        configs.push(
            BankConfig::new(ComputeCapability::Sm35)
                .with_shared_mem_config(SharedMemConfig::EightByte),
        );
        configs
    }

    /// The routed path (`partition`, `cost`) gives what validation and the
    /// planner give: the same steps (phase, part, lanes, in order), totals,
    /// cost and errors. Returns whether the request was partitioned.
    fn routed_matches_planner(config: BankConfig, request: &WarpRequest) -> bool {
        let mut steps = SmallVec::new();
        let planned = validate::validate(config, request)
            .map(|()| schedule::planned(config, request, &mut Record(&mut steps, 0)));
        match (config.partition(request), planned) {
            (Ok(p), Ok(totals)) => {
                assert_eq!(
                    (&p.steps, p.totals),
                    (&steps, totals),
                    "{config:?} {request:?}"
                );
                assert_eq!(
                    config.cost(request),
                    Ok(Cost::new(totals, request)),
                    "{config:?} {request:?}"
                );
                true
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b);
                assert_eq!(config.cost(request), Err(b));
                false
            }
            (a, b) => panic!("{config:?} {request:?}: {a:?} against {b:?}"),
        }
    }

    /// Offsets for `round`: strided, row-patterned, clustered and scattered,
    /// aligned to `width`, in a span drawn from a few bank rows to past the
    /// largest window (for the window errors).
    fn offsets(round: usize, width: u32, next: &mut impl FnMut() -> u32) -> [u32; 32] {
        let span = [64, 256, 1024, 65536, 1 << 20][round / 7 % 5];
        let stride = next() % 64 * width;
        core::array::from_fn(|lane| {
            let lane = lane as u32;
            let offset = match round % 5 {
                0 => lane * stride % span,
                1 => (lane % 8) * stride % span + lane / 8 * 16,
                2 => next() % 8 * 128 + lane % 4 * width,
                _ => next() % span,
            };
            offset / width * width
        })
    }

    fn xorshift(mut state: u32) -> impl FnMut() -> u32 {
        move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        }
    }

    /// ldmatrix/stmatrix take the 16-byte path: the same steps and totals as
    /// the planner, and the same errors, on every capability.
    #[test]
    fn matrix_ops_on_the_wide_path_match_the_planner() {
        let mut next = xorshift(0x1234_5677);
        let mut compared = 0;
        for round in 0..3000 {
            let m = [Matrices::X1, Matrices::X2, Matrices::X4][round % 3];
            let op = if round % 2 == 0 {
                Op::LdMatrix(m)
            } else {
                Op::StMatrix(m)
            };
            let mask = if round % 5 == 0 { next() } else { u32::MAX };
            let offsets = offsets(round, 16, &mut next);
            let request =
                WarpRequest::from_offsets(op, 16, LaneSet::from_bits(mask), &offsets).unwrap();
            for cc in ComputeCapability::ALL {
                compared += usize::from(routed_matches_planner(BankConfig::new(cc), &request));
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    /// Native atomics and reductions of every kind and width, and cp.async,
    /// take the lane-counting path (or a compare-and-swap loop): where they
    /// take it, the same steps, totals and errors as the planner, on every
    /// capability in every bank mode.
    #[test]
    fn lane_counting_ops_match_the_planner() {
        let mut next = xorshift(0x0bad_cafe);
        let ops: Vec<(Op, u32)> = Op::ALL
            .iter()
            .filter(|op| matches!(op, Op::Atomic(_) | Op::Reduction(_) | Op::CpAsync(_)))
            .flat_map(|&op| op.widths().iter().map(move |w| (op, w.bytes())))
            .collect();
        let mut compared = 0;
        let mut routed = 0;
        for round in 0..6000 {
            let (op, width) = ops[round % ops.len()];
            let mask = match round % 4 {
                0 | 1 => u32::MAX,
                2 => next(),
                _ => next() & next(),
            };
            let offsets = offsets(round / 3, width, &mut next);
            let request =
                WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), &offsets).unwrap();
            for config in configs() {
                let path = types::Path::of(config, &request);
                if path == types::Path::CasLoop {
                    continue;
                }
                // 1.x splits 8-byte accesses into parts (and has no 8-byte atomics).
                let expected = if config.parts(request.width()) > 1 {
                    types::Path::Planned
                } else {
                    types::Path::Lanes
                };
                assert_eq!(path, expected, "{config:?} {request:?}");
                compared += usize::from(routed_matches_planner(config, &request));
                routed += 1;
            }
        }
        assert!(routed > 100_000 && compared > 50_000, "{routed} {compared}");
    }

    /// 8- and 16-byte loads and stores (the wide path on 5.0 and later, the
    /// planner before): the same steps, totals and errors as the planner on
    /// every capability, merged load phases (lane pairs on one address)
    /// included.
    #[test]
    fn wide_loads_and_stores_match_the_planner() {
        let mut next = xorshift(0x5eed_1e55);
        let mut compared = 0;
        for round in 0..4000 {
            let op = [Op::Load, Op::Store][round % 2];
            let width = [8, 16][round / 2 % 2];
            let mask = match round / 4 % 4 {
                0 | 1 => u32::MAX,
                2 => next(),
                _ => next() & next(),
            };
            let mut offsets = offsets(round / 4, width, &mut next);
            if round / 16 % 3 == 0 {
                // Lanes (n, n ^ 1) or (n, n ^ 2) on one address: merged loads.
                let x = 1 + round / 48 % 2;
                offsets = core::array::from_fn(|n| offsets[n & !x]);
            }
            let request =
                WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), &offsets).unwrap();
            for config in configs() {
                compared += usize::from(routed_matches_planner(config, &request));
            }
        }
        assert!(compared > 50_000, "{compared}");
    }

    #[test]
    fn debug_shows_one_transaction() {
        let sm90 = BankConfig::new(ComputeCapability::Sm90);
        let request = WarpRequest::from_fn(Op::Load, 4, |l| Some(8 * l.get())).unwrap();
        let partition = sm90.partition(&request).unwrap();
        let second = partition.transactions().nth(1).unwrap();
        let text = format!("{second:?}");
        assert!(
            text.starts_with("Transaction { phase: 0, part: 0, lanes: {16, 17,"),
            "{text}"
        );
        // Its own 16 words, not the other transaction's, nor the request.
        assert_eq!(text.matches("WordAccess").count(), 16, "{text}");
        assert!(
            text.contains("word: 34,") && !text.contains("word: 2,"),
            "{text}"
        );
        assert!(!text.contains("WarpRequest"), "{text}");
    }
}
