//! The layout advisor: try paddings and swizzles on a tile, rank them by
//! wavefronts then by bytes, and say why the layout as given conflicts.

use core::fmt;

use crate::{
    Bank, BankConfig, ComputeCapability, Error, LaneSet, Op, Partition, Swizzle, TileAccess,
    TileLayout, TmaSwizzle,
};

/// What a [`Candidate`] layout changes in the tile.
///
/// # Example
///
/// ```
/// use smem_model::{Fix, Swizzle, TmaSwizzle};
///
/// assert_eq!(Fix::AsGiven.to_string(), "as given");
/// assert_eq!(Fix::Padding { elements: 1 }.to_string(), "1 element of padding per row");
/// assert_eq!(Fix::Swizzle(Swizzle::new(5, 0, 5)?).to_string(), "Swizzle<5,0,5>");
/// assert_eq!(Fix::Tma(TmaSwizzle::B128).to_string(), "TMA 128B swizzle");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Fix {
    /// The layout the advisor was given, unchanged.
    AsGiven,
    /// The packed tile with this many elements of padding after each row.
    Padding {
        /// Elements of padding per row.
        elements: u32,
    },
    /// The packed tile with an XOR swizzle of element offsets.
    Swizzle(Swizzle),
    /// The packed tile as a TMA load writes it in this mode (compute capability
    /// 9.0 on, rows no longer than the mode's span).
    Tma(TmaSwizzle),
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fix::AsGiven => f.write_str("as given"),
            Fix::Padding { elements: 1 } => f.write_str("1 element of padding per row"),
            Fix::Padding { elements } => write!(f, "{elements} elements of padding per row"),
            Fix::Swizzle(swizzle) => write!(f, "{swizzle}"),
            Fix::Tma(mode) => write!(f, "{mode}"),
        }
    }
}

/// One layout the advisor tried, with what the accesses cost under it.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Fix, TileAccess, TileLayout};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let accesses = [TileAccess::column(smem_model::Op::Load, 0, 0, 1)];
/// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &accesses)?;
/// let original = advice.original();
/// assert_eq!(original.fix(), Fix::AsGiven);
/// assert_eq!((original.wavefronts(), original.ideal_wavefronts()), (32, 1));
/// assert_eq!(original.bank_conflicts(), 31);
/// assert!(!original.is_conflict_free());
/// assert_eq!(original.layout(), TileLayout::new(32, 32, 4)?);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Candidate {
    fix: Fix,
    layout: TileLayout,
    wavefronts: u32,
    ideal: u32,
}

impl Candidate {
    /// What this candidate changes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert_eq!(original.fix(), Fix::AsGiven);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn fix(&self) -> Fix {
        self.fix
    }

    /// Its layout.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert_eq!(original.layout(), TileLayout::new(32, 32, 4)?);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn layout(&self) -> TileLayout {
        self.layout
    }

    /// Wavefronts of all the accesses together.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert_eq!(original.wavefronts(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn wavefronts(&self) -> u32 {
        self.wavefronts
    }

    /// The wavefronts the accesses would take without bank conflicts.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert_eq!(original.ideal_wavefronts(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn ideal_wavefronts(&self) -> u32 {
        self.ideal
    }

    /// `wavefronts - ideal_wavefronts`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert_eq!(original.bank_conflicts(), 31);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn bank_conflicts(&self) -> u32 {
        self.wavefronts - self.ideal
    }

    /// Whether every access is served in its ideal number of wavefronts.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert!(!original.is_conflict_free());
    /// assert!(advice.best().is_conflict_free());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn is_conflict_free(&self) -> bool {
        self.wavefronts == self.ideal
    }

    /// Bytes of the layout's storage that hold no element (its padding).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let original = advice.original();
    /// assert_eq!(original.extra_bytes(), 0);
    /// // One float of padding per row: 32 rows of 4 bytes.
    /// let padded = advice.candidates().iter().find(|c| c.fix() == Fix::Padding { elements: 1 }).unwrap();
    /// assert_eq!(padded.extra_bytes(), 128);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn extra_bytes(&self) -> u64 {
        self.layout.extra_bytes()
    }
}

impl Candidate {
    /// The fix's name, with the XOR swizzle a TMA mode stands for on this
    /// tile's elements: `TMA 128B swizzle = Swizzle<3,3,3>`. A kernel that
    /// fills shared memory with `cp.async` or `st.shared` gets the layout of a
    /// TMA mode by storing at that swizzle's index.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, TileAccess, TileLayout, TmaSwizzle};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let advice = TileLayout::new(64, 64, 2)?.advise(sm90, &TileAccess::ldmatrix_tile(64, 64, 2)?)?;
    /// assert_eq!(advice.best().fix(), Fix::Tma(TmaSwizzle::B128));
    /// assert_eq!(advice.best().name(), "TMA 128B swizzle = Swizzle<3,3,3>");
    /// assert_eq!(advice.original().name(), "as given");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn name(&self) -> String {
        match (self.fix, self.layout.swizzle()) {
            (Fix::Tma(mode), Some(swizzle)) => format!("{mode} = {swizzle}"),
            (fix, _) => fix.to_string(),
        }
    }
}

impl fmt::Display for Candidate {
    /// Writes e.g. `Swizzle<5,0,5>, index row * 32 + (col ^ (row % 32)): 1
    /// wavefront (ideal 1), 0 extra bytes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, index {}: {} (ideal {}), {}",
            self.name(),
            self.layout.index_formula(),
            Counted(self.wavefronts, "wavefront"),
            self.ideal,
            Counted(self.extra_bytes(), "extra byte")
        )
    }
}

/// `1 wavefront`, `2 wavefronts`, `2 accesses`: a count with its noun,
/// plural unless 1.
pub(crate) struct Counted<N>(pub(crate) N, pub(crate) &'static str);

impl<N: fmt::Display + PartialEq + From<u8>> fmt::Display for Counted<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = match (self.0 == N::from(1), self.1.ends_with('s')) {
            (true, _) => "",
            (false, true) => "es",
            (false, false) => "s",
        };
        write!(f, "{} {}{plural}", self.0, self.1)
    }
}

/// Why one access of the original layout conflicts: the bank its busiest
/// phase waits on most, and the lanes that meet there.
///
/// Found from the access's [`Partition`]: for each phase, the bank touched by
/// the most of its transactions ([`Transaction::words`](crate::Transaction::words)
/// says which words and lanes); ties go to the lower phase, then the lower bank.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, TileAccess, TileLayout};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let accesses = TileAccess::transposed_copy(3);
/// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &accesses)?;
/// // The row read is fine; the column write puts every lane in bank 3.
/// let [why] = advice.conflicts() else { panic!("one conflicting access") };
/// assert_eq!((why.access(), why.op(), why.bank().index()), (1, Op::Store, 3));
/// assert_eq!((why.words(), why.ways(), why.phase()), (32, 32, 0));
/// assert_eq!(why.lanes().len(), 32);
/// assert_eq!(
///     why.to_string(),
///     "access 1 (STS): lanes 0-31 meet in bank 3 (32 distinct words, 32 wavefronts)"
/// );
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BankConflict {
    access: usize,
    op: Op,
    phase: u32,
    bank: Bank,
    lanes: LaneSet,
    words: u32,
    ways: u32,
}

impl BankConflict {
    /// The index of the access in the slice given to the advisor.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.access(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn access(&self) -> usize {
        self.access
    }

    /// The access's op.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.op(), Op::Load);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn op(&self) -> Op {
        self.op
    }

    /// The phase the lanes meet in (see [`Transaction::phase`](crate::Transaction::phase)).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.phase(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn phase(&self) -> u32 {
        self.phase
    }

    /// The bank they meet in.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.bank().index(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn bank(&self) -> Bank {
        self.bank
    }

    /// The lanes that access the bank in that phase.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.lanes().len(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn lanes(&self) -> LaneSet {
        self.lanes
    }

    /// The distinct words of the bank they access.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.words(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn words(&self) -> u32 {
        self.words
    }

    /// The wavefronts of the phase that touch the bank: its share of the
    /// conflict.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let conflict = advice.conflicts()[0];
    /// assert_eq!(conflict.ways(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn ways(&self) -> u32 {
        self.ways
    }

    fn busiest(access: usize, partition: &Partition) -> Option<BankConflict> {
        let transactions: Vec<_> = partition
            .transactions()
            .map(|t| (t.phase(), t.part(), t.words()))
            .collect();
        let mut busiest: Option<BankConflict> = None;
        for (i, &(phase, part, _)) in transactions.iter().enumerate() {
            // Each (phase, part) group is looked at once, from its first step.
            let first = transactions
                .iter()
                .position(|&(p, q, _)| (p, q) == (phase, part));
            if first != Some(i) {
                continue;
            }
            let group = || {
                transactions
                    .iter()
                    .filter(move |&&(p, q, _)| (p, q) == (phase, part))
            };
            for bank in 0..partition.config().bank_count() {
                let bank = Bank::from_index(bank);
                let mut ways = 0;
                let mut lanes = LaneSet::EMPTY;
                let mut words: Vec<u32> = Vec::new();
                for (_, _, step_words) in group() {
                    let mut touched = false;
                    for word in step_words.iter().filter(|w| w.bank == bank) {
                        touched = true;
                        lanes = lanes.union(word.lanes);
                        if !words.contains(&word.word) {
                            words.push(word.word);
                        }
                    }
                    ways += u32::from(touched);
                }
                if ways > busiest.map_or(1, |b| b.ways) {
                    busiest = Some(BankConflict {
                        access,
                        op: partition.request().op(),
                        phase,
                        bank,
                        lanes,
                        words: words.len() as u32,
                        ways,
                    });
                }
            }
        }
        busiest
    }
}

impl BankConflict {
    /// Everything after `access N `: `(STS): lanes 0-31 meet in bank 3 ...`.
    fn reason(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "({}): lanes {} meet in bank {} ({} distinct word{}, {})",
            self.op,
            self.lanes,
            self.bank,
            self.words,
            if self.words == 1 { "" } else { "s" },
            Counted(self.ways, "wavefront")
        )
    }
}

impl fmt::Display for BankConflict {
    /// Writes e.g. `access 1 (STS): lanes 0-31 meet in bank 3 (32 distinct
    /// words, 32 wavefronts)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "access {} ", self.access)?;
        self.reason(f)
    }
}

/// The advisor's answer: every layout tried, ranked, and why the original
/// conflicts. Built by [`TileLayout::advise`].
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // double tile[16][16], read by columns, one column per access.
/// let half_warp = smem_model::LaneSet::range(0, 16);
/// let columns: Vec<TileAccess> =
///     (0..16).map(|col| TileAccess::column(Op::Load, 0, col, 1).with_mask(half_warp)).collect();
/// let advice = TileLayout::new(16, 16, 8)?.advise(sm90, &columns)?;
/// assert_eq!(advice.config(), sm90);
/// assert_eq!(advice.original().wavefronts(), 16 * 16);
/// assert!(advice.best().is_conflict_free());
/// assert_eq!(advice.candidates()[0], *advice.best());
/// assert_eq!(advice.conflicts().len(), 16);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    config: BankConfig,
    accesses: usize,
    original: Candidate,
    candidates: Vec<Candidate>,
    conflicts: Vec<BankConflict>,
}

impl Advice {
    /// The configuration the accesses were costed under.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// assert_eq!(advice.config(), sm90);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn config(&self) -> BankConfig {
        self.config
    }

    /// The best candidate: fewest wavefronts, then fewest extra bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// // XOR the column with the row: conflict-free, no padding.
    /// assert_eq!(advice.best().wavefronts(), 1);
    /// assert_eq!(advice.best().extra_bytes(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn best(&self) -> &Candidate {
        // Never empty: the layout as given is always a candidate.
        &self.candidates[0]
    }

    /// The layout as given, with its cost.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// assert_eq!(advice.original().wavefronts(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn original(&self) -> &Candidate {
        &self.original
    }

    /// Every layout tried, best first: by total wavefronts, then by extra
    /// bytes, then in the order tried (as given, paddings from the smallest,
    /// TMA modes from the narrowest, XOR swizzles).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// assert_eq!(advice.candidates()[0].fix(), advice.best().fix());
    /// assert!(advice.candidates().windows(2).all(|w| w[0].wavefronts() <= w[1].wavefronts()));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// The candidates grouped by outcome: one slice for each distinct total of
    /// wavefronts, best first, each slice ranked as
    /// [`candidates`](Self::candidates) ranks them (fewest extra bytes first).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// let outcomes: Vec<_> = advice.outcomes().collect();
    /// // Conflict-free: the XOR swizzle first, then every odd padding among others.
    /// assert_eq!(outcomes[0][0].fix(), advice.best().fix());
    /// assert!(outcomes[0].iter().all(|c| c.wavefronts() == 1));
    /// assert!(outcomes[0].iter().any(|c| c.fix() == Fix::Padding { elements: 3 }));
    /// assert_eq!(outcomes.iter().map(|o| o.len()).sum::<usize>(), advice.candidates().len());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn outcomes(&self) -> impl Iterator<Item = &[Candidate]> + '_ {
        self.candidates
            .chunk_by(|a, b| (a.wavefronts, a.ideal) == (b.wavefronts, b.ideal))
    }

    /// Why the original conflicts: one entry for each access that takes more
    /// than its ideal wavefronts, in access order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32], read down column 0.
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &[TileAccess::column(Op::Load, 0, 0, 1)])?;
    /// assert_eq!(advice.conflicts().len(), 1);
    /// assert_eq!(
    ///     advice.conflicts()[0].to_string(),
    ///     "access 0 (LDS): lanes 0-31 meet in bank 0 (32 distinct words, 32 wavefronts)"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn conflicts(&self) -> &[BankConflict] {
        &self.conflicts
    }
}

/// Outcomes and conflicts shown by `Display` before "and N more".
const SHOWN: usize = 8;

/// The kind of a fix, for "also" in an outcome's line.
fn kind(fix: Fix) -> u8 {
    match fix {
        Fix::AsGiven => 0,
        Fix::Padding { .. } => 1,
        Fix::Swizzle(_) => 2,
        Fix::Tma(_) => 3,
    }
}

/// One outcome's line: its cost, the layout with the fewest extra bytes, the
/// cheapest of another kind, and how many more. True when it names a TMA mode.
fn outcome_line(f: &mut fmt::Formatter<'_>, outcome: &[Candidate]) -> Result<bool, fmt::Error> {
    let Some(first) = outcome.first() else {
        return Ok(false);
    };
    let mut tma = matches!(first.fix, Fix::Tma(_));
    write!(
        f,
        "{} (ideal {}){}, {}: {}, index {}, {}",
        Counted(first.wavefronts, "wavefront"),
        first.ideal,
        if first.is_conflict_free() {
            ", conflict-free"
        } else {
            ""
        },
        Counted(outcome.len(), "layout"),
        first.name(),
        first.layout.index_formula(),
        Counted(first.extra_bytes(), "extra byte")
    )?;
    let mut shown = 1;
    if let Some(other) = outcome.iter().find(|c| kind(c.fix) != kind(first.fix)) {
        write!(
            f,
            "; also {}, index {}, {}",
            other.name(),
            other.layout.index_formula(),
            Counted(other.extra_bytes(), "extra byte")
        )?;
        shown += 1;
        tma |= matches!(other.fix, Fix::Tma(_));
    }
    if outcome.len() > shown {
        write!(f, "; and {}", Counted(outcome.len() - shown, "more layout"))?;
    }
    Ok(tma)
}

impl fmt::Display for Advice {
    /// A short report: the tile; one line per outcome of the layouts tried
    /// (best first: its wavefronts, the layout with the fewest extra bytes
    /// and its index formula, the cheapest layout of another kind, how many
    /// more), at most 8; and why the original conflicts (the first 8
    /// conflicting accesses).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} on {} (compute capability {})",
            Counted(self.accesses, "access"),
            self.original.layout,
            self.config.capability()
        )?;
        writeln!(f, "layouts tried, one line per outcome, best first:")?;
        let outcomes: Vec<&[Candidate]> = self.outcomes().collect();
        let mut tma = false;
        for (rank, outcome) in outcomes.iter().take(SHOWN).enumerate() {
            write!(f, "{:>3}. ", rank + 1)?;
            tma |= outcome_line(f, outcome)?;
            writeln!(f)?;
        }
        if outcomes.len() > SHOWN {
            writeln!(
                f,
                "     and {}",
                Counted(outcomes.len() - SHOWN, "more outcome")
            )?;
        }
        if tma {
            writeln!(
                f,
                "TMA modes are the layouts a TMA load writes (cp.async.bulk.tensor with that \
                 CUtensorMapSwizzle); a kernel that fills the tile with cp.async or st.shared \
                 gets the same layout by storing at the swizzle's index"
            )?;
        }
        if self.conflicts.is_empty() {
            write!(f, "the layout as given is conflict-free")
        } else {
            write!(f, "why the layout as given conflicts:")?;
            // Accesses that conflict alike share a line.
            let mut groups: Vec<(BankConflict, Vec<usize>)> = Vec::new();
            for conflict in &self.conflicts {
                let alike = |c: &BankConflict| BankConflict { access: 0, ..*c };
                match groups.iter_mut().find(|(g, _)| alike(g) == alike(conflict)) {
                    Some((_, accesses)) => accesses.push(conflict.access),
                    None => groups.push((*conflict, vec![conflict.access])),
                }
            }
            for (conflict, accesses) in groups.iter().take(SHOWN) {
                if let [_] = accesses.as_slice() {
                    write!(f, "\n  {conflict}")?;
                } else {
                    let list: Vec<String> = accesses.iter().map(usize::to_string).collect();
                    write!(f, "\n  accesses {} ", list.join(", "))?;
                    conflict.reason(f)?;
                }
            }
            if groups.len() > SHOWN {
                write!(f, "\n  and {}", Counted(groups.len() - SHOWN, "more line"))?;
            }
            Ok(())
        }
    }
}

impl TileLayout {
    /// Tries paddings and swizzles on this tile for the warp accesses a kernel
    /// makes on it, and ranks them by total wavefronts under `config`, then by
    /// extra bytes.
    ///
    /// The candidates, all with this tile's shape, element size and base:
    ///
    /// - the layout as given;
    /// - the packed tile padded by 0 elements up to one bank row (banks times
    ///   bank width, 128 bytes from 2.0 on), beyond which the banks repeat;
    /// - from compute capability 9.0 on, the TMA modes whose span holds a row;
    /// - when the row length is a power of two, `2^c` elements: every XOR
    ///   swizzle of the row number into the column, `Swizzle<B, M, c - M>` with
    ///   chunks of `2^M` elements up to 16 bytes and `M + B <= c`.
    ///
    /// A candidate an access cannot use (a padding that misaligns a vector, a
    /// swizzle that splits one) or that exceeds the capability's shared memory
    /// is left out; identical layouts are tried once, under their first name.
    ///
    /// # Errors
    ///
    /// The errors of the layout as given, which is never left out:
    /// [`Error::TileTooLarge`], and those of [`request`](Self::request) and
    /// [`BankConfig::partition`] for each access.
    ///
    /// # Example: the 32x32 float transpose
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Swizzle, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // Each row i is read by a warp and written back as column i.
    /// let accesses: Vec<TileAccess> = (0..32).flat_map(TileAccess::transposed_copy).collect();
    /// let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &accesses)?;
    /// // As given: 32 row reads of 1 wavefront, 32 column writes of 32.
    /// assert_eq!(advice.original().wavefronts(), 32 + 32 * 32);
    /// // Best: tile[row][col ^ row], conflict-free at no cost in bytes.
    /// let best = advice.best();
    /// assert_eq!(best.fix(), Fix::Swizzle(Swizzle::new(5, 0, 5)?));
    /// assert_eq!((best.wavefronts(), best.extra_bytes()), (64, 0));
    /// // Runner-up: float tile[32][33], also conflict-free, 128 bytes more.
    /// let second = advice.candidates()[1];
    /// assert_eq!(second.fix(), Fix::Padding { elements: 1 });
    /// assert_eq!((second.wavefronts(), second.extra_bytes()), (64, 128));
    /// // Why: each column write puts its 32 lanes in one bank.
    /// assert_eq!(advice.conflicts().len(), 32);
    /// assert_eq!(
    ///     advice.conflicts()[0].to_string(),
    ///     "access 1 (STS): lanes 0-31 meet in bank 0 (32 distinct words, 32 wavefronts)"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    ///
    /// # Example: a 64-wide half tile read by `ldmatrix`
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Fix, Matrices, TileAccess, TileLayout, TmaSwizzle};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // The A fragments of mma.m16n8k16: ldmatrix.x4 of every 16x16 block.
    /// let mut accesses = Vec::new();
    /// for r in (0..64).step_by(16) {
    ///     for c in (0..64).step_by(16) {
    ///         accesses.push(TileAccess::ldmatrix(Matrices::X4, |m| (r + 8 * (m % 2), c + 8 * (m / 2))));
    ///     }
    /// }
    /// let advice = TileLayout::new(64, 64, 2)?.advise(sm90, &accesses)?;
    /// // As given, each matrix's 8 rows are 128 bytes apart, all in 4 banks: 8-way.
    /// assert_eq!(advice.original().wavefronts(), 16 * 4 * 8);
    /// // Best: the 128-byte TMA swizzle, conflict-free with no padding.
    /// let best = advice.best();
    /// assert_eq!(best.fix(), Fix::Tma(TmaSwizzle::B128));
    /// assert_eq!((best.wavefronts(), best.extra_bytes()), (16 * 4, 0));
    /// // Padding by 8 halves (16 bytes) also works, for 1 KB more.
    /// let padded = advice.candidates().iter().find(|c| c.fix() == Fix::Padding { elements: 8 }).unwrap();
    /// assert_eq!((padded.wavefronts(), padded.extra_bytes()), (64, 1024));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn advise(&self, config: BankConfig, accesses: &[TileAccess]) -> Result<Advice, Error> {
        let capability = config.capability();
        let mut partitions = Vec::with_capacity(accesses.len());
        self.check_fits(capability)?;
        for access in accesses {
            partitions.push(config.partition(&self.request(access)?)?);
        }
        let original = Candidate {
            fix: Fix::AsGiven,
            layout: *self,
            wavefronts: partitions.iter().map(Partition::wavefronts).sum(),
            ideal: partitions.iter().map(Partition::ideal_wavefronts).sum(),
        };
        let conflicts = partitions
            .iter()
            .enumerate()
            .filter(|(_, p)| p.bank_conflicts() > 0)
            .filter_map(|(i, p)| BankConflict::busiest(i, p))
            .collect();

        let mut candidates = vec![original];
        for (fix, layout) in self.alternatives(config) {
            if candidates.iter().any(|c| c.layout == layout) {
                continue;
            }
            if let Ok((wavefronts, ideal)) = cost(config, layout, accesses) {
                candidates.push(Candidate {
                    fix,
                    layout,
                    wavefronts,
                    ideal,
                });
            }
        }
        // Stable: equal costs keep the order tried.
        candidates.sort_by_key(|c| (c.wavefronts, c.extra_bytes()));
        Ok(Advice {
            config,
            accesses: accesses.len(),
            original,
            candidates,
            conflicts,
        })
    }

    /// The layouts the advisor tries besides this one, in the order tried.
    fn alternatives(&self, config: BankConfig) -> Vec<(Fix, TileLayout)> {
        let mut out = Vec::new();
        let Ok(packed) = TileLayout::new(self.rows(), self.cols(), self.element_bytes())
            .and_then(|t| t.with_base(self.base()))
        else {
            return out;
        };
        let element = self.element_bytes();
        let bank_row = config.bank_count() * config.bank_width().bytes();
        for elements in 0..=bank_row / element {
            if let Ok(layout) = packed.with_padding(elements) {
                out.push((Fix::Padding { elements }, layout));
            }
        }
        if config.capability().version() >= ComputeCapability::Sm90.version() {
            for mode in TmaSwizzle::ALL {
                if let Ok(layout) = packed.with_tma_swizzle(mode) {
                    out.push((Fix::Tma(mode), layout));
                }
            }
        }
        if self.cols().is_power_of_two() {
            let c = self.cols().trailing_zeros();
            // Chunks of 2^base elements, at most 16 bytes (the widest access).
            let max_base = (16 / element).trailing_zeros().min(c);
            for base in 0..=max_base {
                for bits in 1..=c - base {
                    let Ok(swizzle) = Swizzle::new(bits, base, c - base) else {
                        continue;
                    };
                    if let Ok(layout) = packed.with_swizzle(swizzle) {
                        out.push((Fix::Swizzle(swizzle), layout));
                    }
                }
            }
        }
        out
    }
}

/// Total wavefronts and ideal wavefronts of `accesses` under `layout`.
fn cost(
    config: BankConfig,
    layout: TileLayout,
    accesses: &[TileAccess],
) -> Result<(u32, u32), Error> {
    layout.check_fits(config.capability())?;
    let mut totals = (0, 0);
    for access in accesses {
        let partition = config.partition(&layout.request(access)?)?;
        totals.0 += partition.wavefronts();
        totals.1 += partition.ideal_wavefronts();
    }
    Ok(totals)
}
