//! Partitions: a request split into the transactions (wavefronts) that serve it.

mod schedule;

use core::fmt;

use smallvec::SmallVec;

use crate::{Bank, BankConfig, BankSet, Lane, LaneSet, WarpRequest};

pub(crate) use schedule::Totals;

/// The transactions of one request, in the order served, with their totals.
///
/// Built by [`BankConfig::partition`]. Holds a copy of the request and the
/// configuration, so it outlives both; transactions are computed lazily from them
/// and stored only as lane sets, so building a partition allocates nothing for
/// requests of up to 32 wavefronts.
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
    steps: SmallVec<[Step; 32]>,
    totals: Totals,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    lanes: LaneSet,
    phase: u8,
    part: u8,
}

struct Record<'a>(&'a mut SmallVec<[Step; 32]>);

impl schedule::Sink for Record<'_> {
    const STEPS: bool = true;
    fn step(&mut self, phase: u8, part: u8, lanes: LaneSet) {
        self.0.push(Step { lanes, phase, part });
    }
}

pub(crate) fn build(config: BankConfig, request: &WarpRequest) -> Partition {
    let mut steps = SmallVec::new();
    let totals = schedule::run(config, request, &mut Record(&mut steps));
    Partition {
        config,
        request: *request,
        steps,
        totals,
    }
}

pub(crate) fn count(config: BankConfig, request: &WarpRequest) -> Totals {
    schedule::run(config, request, &mut schedule::Count)
}

/// The seeds' classification of a request by how its lanes are served.
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
    /// The worst case: conflicted, and no two lanes are ever served together
    /// (every active lane a different word of one bank, or every lane of an
    /// atomic in one bank).
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
    pub fn wavefronts(&self) -> u32 {
        self.totals.wavefronts
    }

    /// The wavefronts the request would take without bank conflicts: one per
    /// phase that has an active lane (per 4-byte part on 1.x).
    pub fn ideal_wavefronts(&self) -> u32 {
        self.totals.ideal
    }

    /// `wavefronts - ideal_wavefronts`: how Nsight Compute's
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_*` relates to the
    /// wavefront counter (checked on every load and store of the hardware corpus).
    pub fn bank_conflicts(&self) -> u32 {
        self.totals.wavefronts - self.totals.ideal
    }

    /// The steps taken by the busiest phase: the "n" of an n-way bank conflict
    /// (1 when conflict-free, 0 for an empty request).
    pub fn ways(&self) -> u32 {
        self.totals.ways
    }

    /// `ideal_wavefronts / wavefronts`: the fraction of the peak bandwidth the
    /// request achieves, or `None` for an empty request.
    pub fn bandwidth_fraction(&self) -> Option<f64> {
        (self.totals.wavefronts > 0)
            .then(|| f64::from(self.totals.ideal) / f64::from(self.totals.wavefronts))
    }

    /// The seeds' classification.
    pub fn classification(&self) -> Classification {
        let active = self.request.active();
        let ways = self.totals.ways;
        if active.is_empty() {
            Classification::Empty
        } else if self.totals.wavefronts > self.totals.ideal {
            if self.steps.iter().all(|step| step.lanes.len() <= 1) {
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
    pub fn transactions(&self) -> Transactions<'_> {
        Transactions {
            partition: self,
            next: 0,
        }
    }
}

/// The transactions of a [`Partition`], in the order served.
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
#[derive(Debug, Clone, Copy)]
pub struct Transaction<'a> {
    partition: &'a Partition,
    step: Step,
}

/// One bank word read or written by a transaction, with the lanes it serves.
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
    pub fn is_broadcast(&self) -> bool {
        self.lanes.len() > 1
    }
}

impl Transaction<'_> {
    /// The lanes served. Empty only for the extra step 2.x takes for 128-bit
    /// accesses (Programming Guide v4.2, F.4.3.1), which serves no lane.
    pub fn lanes(&self) -> LaneSet {
        self.step.lanes
    }

    /// The phase this transaction belongs to, counting from 0: phase `p` of a
    /// request with `n`-lane phases holds lanes `p * n .. (p + 1) * n`.
    pub fn phase(&self) -> u32 {
        u32::from(self.step.phase)
    }

    /// Which 4-byte part of each lane's access this transaction moves, when 1.x
    /// splits accesses wider than 4 bytes; always 0 elsewhere.
    pub fn part(&self) -> u32 {
        u32::from(self.step.part)
    }

    /// The words accessed, ordered by bank then word, each with its lanes.
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
    pub fn banks(&self) -> BankSet {
        self.words().iter().map(|w| w.bank).collect()
    }

    /// The words delivered to (or written by) more than one lane.
    pub fn broadcast_words(&self) -> impl Iterator<Item = WordAccess> {
        self.words().into_iter().filter(WordAccess::is_broadcast)
    }

    /// Whether `lane` is served by this transaction.
    pub fn serves(&self, lane: Lane) -> bool {
        self.step.lanes.contains(lane)
    }
}
