//! Banks, bank widths and the per-capability bank configuration.
//!
//! The rules themselves (which lanes are served together, how words map to banks)
//! are documented on [`BankConfig`]; the scheduling that applies them lives in
//! [`crate::partition`].

use core::fmt;

use bitvec::prelude::{BitArray, Lsb0};

use crate::{AccessWidth, ComputeCapability, Error, Op};

/// One shared-memory bank: 0 to 15 on 1.x, 0 to 31 from 2.0 on.
///
/// A newtype so that banks cannot be mixed up with lanes or words. Banks come
/// from the model, never from a bare number: [`BankConfig::bank_of`] maps an
/// address to its bank, and each [`WordAccess`](crate::WordAccess) of a
/// transaction names the bank it reads.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // float s[]: s[33] is one bank past s[0], since 32 banks of 4 bytes wrap at s[32].
/// let bank = sm90.bank_of(33 * 4);
/// assert_eq!(bank.index(), 1);
/// assert_eq!(bank.to_string(), "1");
/// assert_eq!(bank, sm90.bank_of(4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bank(u8);

impl Bank {
    /// The bank's number.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// assert_eq!(sm90.bank_of(0x84).index(), 1);
    /// ```
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) const fn from_index(index: u32) -> Self {
        Bank(index as u8)
    }

    /// The bank with this number, for reading one from data: 0 to 31, the
    /// most banks any capability has.
    #[cfg(feature = "serde")]
    pub(crate) const fn checked(bank: u32) -> Result<Self, Error> {
        if bank < 32 {
            Ok(Bank(bank as u8))
        } else {
            Err(Error::BankOutOfRange { bank, banks: 32 })
        }
    }
}

impl fmt::Display for Bank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A set of banks (at most 32 on any capability).
///
/// A small `Copy` value (one 32-bit word) whose bit `i` stands for bank `i`;
/// [`Transaction::banks`](crate::Transaction::banks) returns one.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, BankSet, ComputeCapability};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // The banks of the float4 at s4[1]: bytes 16 to 31, banks 4 to 7.
/// let banks: BankSet = (16..32).step_by(4).map(|byte| sm90.bank_of(byte)).collect();
/// assert_eq!(banks.len(), 4);
/// assert_eq!(banks.bits(), 0xf0);
/// assert!(banks.contains(sm90.bank_of(20)));
/// assert!(!banks.contains(sm90.bank_of(0)));
/// let indices: Vec<usize> = banks.iter().map(|bank| bank.index()).collect();
/// assert_eq!(indices, [4, 5, 6, 7]);
///
/// let mut more = banks;
/// more.insert(sm90.bank_of(0));
/// assert_eq!(more.len(), 5);
/// assert!(!more.is_empty());
/// assert!(BankSet::EMPTY.is_empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BankSet(BitArray<u32, Lsb0>);

impl BankSet {
    /// No banks.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::BankSet;
    ///
    /// assert!(BankSet::EMPTY.is_empty());
    /// ```
    pub const EMPTY: BankSet = BankSet(BitArray {
        _ord: core::marker::PhantomData,
        data: 0,
    });

    /// The set whose bit `i` is bank `i`.
    pub(crate) const fn from_bits(bits: u32) -> Self {
        BankSet(BitArray {
            _ord: core::marker::PhantomData,
            data: bits,
        })
    }

    /// Whether `bank` is in the set.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankSet, ComputeCapability};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let mut set = BankSet::EMPTY;
    /// set.insert(sm90.bank_of(8));
    /// assert!(set.contains(sm90.bank_of(8)));
    /// assert!(!set.contains(sm90.bank_of(4)));
    /// ```
    pub fn contains(self, bank: Bank) -> bool {
        self.0[bank.index()]
    }

    /// Adds `bank`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankSet, ComputeCapability};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let mut set = BankSet::EMPTY;
    /// set.insert(sm90.bank_of(4));
    /// assert_eq!(set.bits(), 0b10);
    /// ```
    pub fn insert(&mut self, bank: Bank) {
        self.0.set(bank.index(), true);
    }

    /// The number of banks in the set.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankSet, ComputeCapability};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let mut set = BankSet::EMPTY;
    /// for address in [0, 4, 128] {
    ///     set.insert(sm90.bank_of(address));
    /// }
    /// // 0 and 128 are both bank 0.
    /// assert_eq!(set.len(), 2);
    /// ```
    pub fn len(self) -> usize {
        self.0.count_ones()
    }

    /// Whether the set has no banks.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::BankSet;
    ///
    /// assert!(BankSet::EMPTY.is_empty());
    /// ```
    pub fn is_empty(self) -> bool {
        self.0.data == 0
    }

    /// The set as a mask: bit `i` is bank `i`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankSet, ComputeCapability};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let mut set = BankSet::EMPTY;
    /// set.insert(sm90.bank_of(31 * 4));
    /// assert_eq!(set.bits(), 1 << 31);
    /// ```
    pub const fn bits(self) -> u32 {
        self.0.data
    }

    /// The banks in ascending order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankSet, ComputeCapability};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let mut set = BankSet::EMPTY;
    /// set.insert(sm90.bank_of(12));
    /// set.insert(sm90.bank_of(4));
    /// let banks: Vec<usize> = set.iter().map(|b| b.index()).collect();
    /// assert_eq!(banks, [1, 3]);
    /// ```
    pub fn iter(self) -> BankIter {
        BankIter(self.0.data)
    }
}

/// The banks of a [`BankSet`], in ascending order.
///
/// Returned by [`BankSet::iter`]; it knows its length.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // s[2 * lane] on floats: each of the two wavefronts touches only even banks.
/// let stride2 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
/// let partition = sm90.partition(&stride2)?;
/// let first = partition.transactions().next().unwrap();
/// let banks = first.banks().iter();
/// assert_eq!(banks.len(), 16);
/// assert!(banks.map(|bank| bank.index()).all(|index| index % 2 == 0));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BankIter(u32);

impl Iterator for BankIter {
    type Item = Bank;

    fn next(&mut self) -> Option<Bank> {
        if self.0 == 0 {
            return None;
        }
        let bank = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Bank(bank as u8))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.count_ones() as usize;
        (len, Some(len))
    }
}

impl ExactSizeIterator for BankIter {}

impl core::iter::FusedIterator for BankIter {}

impl fmt::Debug for BankSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|bank| bank.0))
            .finish()
    }
}

impl FromIterator<Bank> for BankSet {
    fn from_iter<I: IntoIterator<Item = Bank>>(iter: I) -> Self {
        let mut set = BankSet::EMPTY;
        for bank in iter {
            set.insert(bank);
        }
        set
    }
}

/// How many bytes one bank delivers per word: the unit of the address-to-bank map.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, BankWidth, ComputeCapability, SharedMemConfig};
///
/// let kepler8 = BankConfig::new(ComputeCapability::Sm35)
///     .with_shared_mem_config(SharedMemConfig::EightByte);
/// assert_eq!(kepler8.bank_width(), BankWidth::EightBytes);
/// assert_eq!(kepler8.bank_width().bytes(), 8);
/// // double s[]: in eight-byte mode, s[5] is word 5 and sits in bank 5.
/// assert_eq!(kepler8.word_of(5 * 8), 5);
/// assert_eq!(BankWidth::FourBytes.bytes(), 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BankWidth {
    /// 32-bit banks: bank = (address / 4) % banks. Every capability but 3.x in
    /// eight-byte mode.
    FourBytes,
    /// 64-bit banks: bank = (address / 8) % 32. Kepler (3.x) in eight-byte mode.
    EightBytes,
}

impl BankWidth {
    /// The width in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability};
    ///
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).bank_width().bytes(), 4);
    /// ```
    pub const fn bytes(self) -> u32 {
        match self {
            BankWidth::FourBytes => 4,
            BankWidth::EightBytes => 8,
        }
    }
}

/// The bank-size request of `cudaDeviceSetSharedMemConfig` (`cudaSharedMemConfig`).
///
/// Only Kepler (3.x) honours it; elsewhere the runtime accepts and ignores it,
/// and so does [`BankConfig::with_shared_mem_config`].
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, SharedMemConfig, WarpRequest};
///
/// // double s[]; ... = s[3 * lane]: why Kepler kernels on doubles asked for
/// // eight-byte banks.
/// let stride3 = WarpRequest::from_fn(Op::Load, 8, |lane| Some(24 * lane.get()))?;
/// let kepler = BankConfig::new(ComputeCapability::Sm35);
/// let default = kepler.with_shared_mem_config(SharedMemConfig::Default);
/// let eight = kepler.with_shared_mem_config(SharedMemConfig::EightByte);
/// assert_eq!(default.wavefronts(&stride3)?, 2);
/// assert_eq!(eight.wavefronts(&stride3)?, 1);
/// assert_eq!(SharedMemConfig::default(), SharedMemConfig::Default);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SharedMemConfig {
    /// `cudaSharedMemBankSizeDefault`: the device default (four bytes on 3.x).
    #[default]
    Default,
    /// `cudaSharedMemBankSizeFourByte`.
    FourByte,
    /// `cudaSharedMemBankSizeEightByte`.
    EightByte,
}

/// What happens when several lanes of one step read the same word.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, Broadcast, ComputeCapability, Op, WarpRequest};
///
/// // s[lane % 2]: every half-warp reads two words, in banks 0 and 1.
/// let two_words = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * (lane.get() % 2)))?;
/// let tesla = BankConfig::new(ComputeCapability::Sm13);
/// let fermi = BankConfig::new(ComputeCapability::Sm20);
/// assert_eq!(tesla.broadcast(), Broadcast::SingleWord);
/// assert_eq!(fermi.broadcast(), Broadcast::Multicast);
/// // 1.x broadcasts word 0 and serves one lane of word 1 in the first step, the
/// // rest of word 1 in a second: two steps per half-warp.
/// assert_eq!(tesla.wavefronts(&two_words)?, 4);
/// assert_eq!(fermi.wavefronts(&two_words)?, 1);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Broadcast {
    /// 1.x: each step broadcasts one word to every lane that reads it, and serves
    /// one more lane in each other bank. Lanes sharing any other word wait.
    ///
    /// Source: Programming Guide v4.2, F.3.3.1. Which word is broadcast and which
    /// lane each other bank serves is unspecified there; the model picks the lowest
    /// lane still waiting in both cases (a modelling choice). The guide states the
    /// rule for reads; the model applies it to stores too (a modelling choice:
    /// lanes writing one word in one step is the one case the guide's write rule,
    /// "only one thread performs the write", settles).
    SingleWord,
    /// 2.x on: any number of words are each delivered to every lane that reads them
    /// in the same step. Source: Programming Guide v4.2, F.4.3.1 and later guides.
    Multicast,
}

/// The shared-memory bank rules of one compute capability, in one bank mode.
///
/// A small `Copy` value: build it once per device and pass it by value. Its
/// [`partition`](Self::partition) splits a [`WarpRequest`](crate::WarpRequest) into the transactions
/// (wavefronts) the hardware serves it in; [`wavefronts`](Self::wavefronts) only
/// counts them.
///
/// # The rules
///
/// A *phase* is a group of lanes never served together; each phase is split into
/// conflict-free steps, one distinct word per bank per step.
///
/// | capability | banks | phases | same word |
/// |---|---|---|---|
/// | 1.x | 16 x 4 B | half-warps; accesses wider than 4 B are split into 4-byte accesses | one broadcast word per step |
/// | 2.x | 32 x 4 B | warp for <= 4 B; half-warps for 8 B; quarter-warps for 16 B, which cost one step more than their degree | multicast |
/// | 3.x | 32 banks, 4 B or 8 B mode | warp for <= 8 B; half-warps for 16 B | multicast, 64 bits per bank per step |
/// | 5.x, 6.x | 32 x 4 B | warp for <= 4 B; half-warps for 8 B; quarter-warps for 16 B | multicast |
/// | 7.0 on | 32 x 4 B | as 5.x, except that loads merge phases in pairs (below) | multicast |
///
/// Sources and status of each rule:
///
/// - 1.x and 2.x: Programming Guide v4.2, F.3.3 and F.4.3, documented; tested
///   against the guide's own examples.
/// - 3.x: Programming Guide v4.2, F.5.3: in eight-byte mode bank = (address / 8) %
///   32; in four-byte mode bank = (address / 4) % 32, and 32-bit words `i` and
///   `i + 32` of one 256-byte-aligned segment share a 64-bit bank row, so never
///   conflict. The guide is silent on phases for wide accesses; serving as many
///   lanes per step as fill 32 banks x 8 bytes (the warp up to 8-byte accesses,
///   half-warps for 16 bytes) is a modelling choice.
/// - 5.x and 6.x: the guides give only the 32-bit rule. The model applies the
///   phase split every measured generation shares (the 2.x split without its extra
///   128-bit step), and not the load merge measured on sm_90: a modelling choice.
/// - 7.0 and later: measured on sm_90 (H100, H200) with Nsight Compute; the model
///   predicts all 2,915 patterns of the project's hardware corpus exactly:
///   - 1-, 2- and 4-byte loads and stores: one phase; wavefronts = the largest
///     number of distinct 4-byte words in one bank.
///   - 8-byte: half-warps; 16-byte: quarter-warps; wavefronts = the sum of the
///     phases' degrees.
///   - Loads only: when every pair of active lanes `(n, n ^ 1)`, or every pair
///     `(n, n ^ 2)`, has the same address, phases merge in pairs. A pair with an
///     inactive lane does not prevent the merge. (Measured; an NVIDIA forum answer
///     states the same condition for 7.x.)
///   - 32-bit atomics: wavefronts = the most active lanes in one bank; lanes on one
///     address are not merged. Applied to every capability with shared atomics (a
///     modelling choice before 7.0).
///   - `ldmatrix`/`stmatrix`: lanes `8m..8m+8` give the row addresses of matrix
///     `m`; each matrix is a phase of 16-byte rows.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, BankWidth, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// assert_eq!(sm90.capability(), ComputeCapability::Sm90);
/// assert_eq!(sm90.bank_width(), BankWidth::FourBytes);
/// // s[2 * lane] on 4-byte words: lanes 0 and 16 meet in bank 0.
/// let stride2 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(lane.get() * 8))?;
/// assert_eq!(sm90.wavefronts(&stride2)?, 2);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BankConfig {
    capability: ComputeCapability,
    bank_width: BankWidth,
}

/// The rule family of a capability; each family is one row of the table above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rules {
    Tesla,
    Fermi,
    Kepler,
    Maxwell,
    Measured,
}

impl BankConfig {
    /// The configuration a device of this capability starts in (four-byte banks).
    ///
    /// Every capability starts in four-byte mode, Kepler included (its default
    /// `cudaSharedMemConfig`); use
    /// [`with_shared_mem_config`](Self::with_shared_mem_config) for Kepler's
    /// eight-byte mode.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankWidth, ComputeCapability};
    ///
    /// let ampere = BankConfig::new(ComputeCapability::Sm86);
    /// assert_eq!(ampere.capability(), ComputeCapability::Sm86);
    /// assert_eq!(ampere.bank_width(), BankWidth::FourBytes);
    /// // The same through `From`.
    /// assert_eq!(BankConfig::from(ComputeCapability::Sm86), ampere);
    /// let kepler = BankConfig::new(ComputeCapability::Sm35);
    /// assert_eq!(kepler.bank_width(), BankWidth::FourBytes);
    /// ```
    pub const fn new(capability: ComputeCapability) -> Self {
        BankConfig {
            capability,
            bank_width: BankWidth::FourBytes,
        }
    }

    /// Applies a bank-size request as `cudaDeviceSetSharedMemConfig` does.
    ///
    /// On 3.x the request sets the mode (`Default` means four bytes). On every
    /// other capability the bank width is fixed and the request has no effect:
    /// [`bank_width`](Self::bank_width) still reports the width in force.
    ///
    /// ```
    /// use smem_model::{BankConfig, BankWidth, ComputeCapability, SharedMemConfig};
    ///
    /// let kepler = BankConfig::new(ComputeCapability::Sm35)
    ///     .with_shared_mem_config(SharedMemConfig::EightByte);
    /// assert_eq!(kepler.bank_width(), BankWidth::EightBytes);
    ///
    /// let hopper = BankConfig::new(ComputeCapability::Sm90)
    ///     .with_shared_mem_config(SharedMemConfig::EightByte);
    /// assert_eq!(hopper.bank_width(), BankWidth::FourBytes);
    /// ```
    pub const fn with_shared_mem_config(self, config: SharedMemConfig) -> Self {
        let bank_width = match (self.rules(), config) {
            (Rules::Kepler, SharedMemConfig::EightByte) => BankWidth::EightBytes,
            (Rules::Kepler, SharedMemConfig::Default | SharedMemConfig::FourByte) => {
                BankWidth::FourBytes
            }
            (Rules::Tesla | Rules::Fermi | Rules::Maxwell | Rules::Measured, _) => {
                BankWidth::FourBytes
            }
        };
        BankConfig { bank_width, ..self }
    }

    /// The compute capability.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability};
    ///
    /// let config = BankConfig::new(ComputeCapability::Sm86);
    /// assert_eq!(config.capability(), ComputeCapability::Sm86);
    /// ```
    pub const fn capability(self) -> ComputeCapability {
        self.capability
    }

    /// The bank width in force.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, SharedMemConfig};
    ///
    /// let kepler = BankConfig::new(ComputeCapability::Sm35);
    /// assert_eq!(kepler.bank_width().bytes(), 4);
    /// let eight = kepler.with_shared_mem_config(SharedMemConfig::EightByte);
    /// assert_eq!(eight.bank_width().bytes(), 8);
    /// ```
    pub const fn bank_width(self) -> BankWidth {
        self.bank_width
    }

    /// The number of banks: 16 on 1.x, 32 from 2.0 on.
    ///
    /// Source: Programming Guide v4.2, F.3.3 (1.x), F.4.3 (2.x), F.5.3 (3.x); later
    /// guides' compute-capability appendix.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability};
    ///
    /// let tesla = BankConfig::new(ComputeCapability::Sm13);
    /// let hopper = BankConfig::new(ComputeCapability::Sm90);
    /// assert_eq!((tesla.bank_count(), hopper.bank_count()), (16, 32));
    /// // float s[]: s[16] wraps round to bank 0 on 1.x only.
    /// assert_eq!(tesla.bank_of(16 * 4).index(), 0);
    /// assert_eq!(hopper.bank_of(16 * 4).index(), 16);
    /// ```
    pub const fn bank_count(self) -> u32 {
        match self.rules() {
            Rules::Tesla => 16,
            Rules::Fermi | Rules::Kepler | Rules::Maxwell | Rules::Measured => 32,
        }
    }

    /// The most bytes one wavefront moves: the banks times what a bank
    /// delivers in one wavefront, 64 bits on 3.x (in both bank modes: the
    /// mode changes which bank a word falls in, not the bank's width) and 32
    /// bits on every other capability. 64 on 1.x (16 banks), 256 on 3.x,
    /// 128 elsewhere.
    ///
    /// Source: Programming Guide v4.2, F.3.3 and F.4.3 (1.x, 2.x: each bank has
    /// a bandwidth of 32 bits per two clock cycles), F.5.3 (3.x: "each bank has
    /// a bandwidth of 64 bits per clock cycle"); later guides'
    /// compute-capability appendix (5.x on: 32 bits per clock cycle). The
    /// denominator of [`Partition::bandwidth_fraction`](crate::Partition::bandwidth_fraction).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, SharedMemConfig};
    ///
    /// let kepler = BankConfig::new(ComputeCapability::Sm35);
    /// assert_eq!(kepler.wavefront_bytes(), 256);
    /// assert_eq!(kepler.with_shared_mem_config(SharedMemConfig::EightByte).wavefront_bytes(), 256);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).wavefront_bytes(), 128);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm13).wavefront_bytes(), 64);
    /// ```
    pub const fn wavefront_bytes(self) -> u32 {
        let bank_bytes = match self.rules() {
            Rules::Kepler => 8,
            Rules::Tesla | Rules::Fermi | Rules::Maxwell | Rules::Measured => 4,
        };
        self.bank_count() * bank_bytes
    }

    /// How several lanes reading one word in one step are served.
    ///
    /// Source: Programming Guide v4.2, F.3.3.1 (1.x: one broadcast word per step)
    /// and F.4.3.1 (2.x on: multicast); see [`Broadcast`] for the difference it
    /// makes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, Broadcast, ComputeCapability};
    ///
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm11).broadcast(), Broadcast::SingleWord);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm20).broadcast(), Broadcast::Multicast);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).broadcast(), Broadcast::Multicast);
    /// ```
    pub const fn broadcast(self) -> Broadcast {
        match self.rules() {
            Rules::Tesla => Broadcast::SingleWord,
            Rules::Fermi | Rules::Kepler | Rules::Maxwell | Rules::Measured => Broadcast::Multicast,
        }
    }

    /// The bank holding the byte at `address`.
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, SharedMemConfig};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// assert_eq!(sm90.bank_of(132).index(), 1);
    /// let tesla = BankConfig::new(ComputeCapability::Sm13);
    /// assert_eq!(tesla.bank_of(64).index(), 0);
    /// let kepler8 = BankConfig::new(ComputeCapability::Sm35)
    ///     .with_shared_mem_config(SharedMemConfig::EightByte);
    /// assert_eq!(kepler8.bank_of(12).index(), 1);
    /// ```
    pub const fn bank_of(self, address: u32) -> Bank {
        Bank::from_index(self.word_of(address) % self.bank_count())
    }

    /// The index of the bank-width word holding the byte at `address`.
    ///
    /// Lanes that access the same word never conflict, so this, not the byte
    /// address, is what the bank rules compare.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, SharedMemConfig};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // char s[]: s[0] to s[3] share word 0, so lanes reading them never conflict.
    /// assert_eq!((sm90.word_of(0), sm90.word_of(3), sm90.word_of(4)), (0, 0, 1));
    /// // Kepler's eight-byte mode has eight-byte words.
    /// let kepler8 = BankConfig::new(ComputeCapability::Sm35)
    ///     .with_shared_mem_config(SharedMemConfig::EightByte);
    /// assert_eq!(kepler8.word_of(12), 1);
    /// ```
    pub const fn word_of(self, address: u32) -> u32 {
        address / self.bank_width.bytes()
    }

    /// How many lanes are served in each phase of `op` at `width` before any load
    /// merge: 8, 16 or 32 (see the table on [`BankConfig`]).
    ///
    /// ```
    /// use smem_model::{AccessWidth, BankConfig, ComputeCapability, Op};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// assert_eq!(sm90.phase_lanes(Op::Store, AccessWidth::B16), 8);
    /// let kepler = BankConfig::new(ComputeCapability::Sm35);
    /// assert_eq!(kepler.phase_lanes(Op::Store, AccessWidth::B8), 32);
    /// ```
    pub const fn phase_lanes(self, op: Op, width: AccessWidth) -> u32 {
        match op {
            Op::LdMatrix(_) | Op::StMatrix(_) => 8,
            // Atomics: the warp at 4 bytes, half-warps at 8 (measured on sm_90
            // for exch, cas and the CAS loops; a modelling choice before 7.0);
            // 1.x serves half-warps.
            Op::Atomic(_) | Op::Reduction(_) => match (self.rules(), width) {
                (Rules::Tesla, _) => 16,
                (_, AccessWidth::B8) => 16,
                _ => 32,
            },
            // cp.async: the phases of a store of its width (measured on sm_90).
            Op::Load | Op::Store | Op::CpAsync(_) => match (self.rules(), width) {
                (Rules::Tesla, _) => 16,
                (Rules::Kepler, AccessWidth::B16) => 16,
                (Rules::Kepler, _) => 32,
                (Rules::Fermi | Rules::Maxwell | Rules::Measured, AccessWidth::B16) => 8,
                (Rules::Fermi | Rules::Maxwell | Rules::Measured, AccessWidth::B8) => 16,
                (
                    Rules::Fermi | Rules::Maxwell | Rules::Measured,
                    AccessWidth::B1 | AccessWidth::B2 | AccessWidth::B4,
                ) => 32,
            },
        }
    }

    /// Into how many parts each lane's access is split, each part scheduled as a
    /// request of its own: 1.x splits accesses wider than 32 bits into 32-bit
    /// accesses (Programming Guide v4.2, F.3.3.1); every later capability serves
    /// them whole.
    ///
    /// ```
    /// use smem_model::{AccessWidth, BankConfig, ComputeCapability};
    ///
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm13).parts(AccessWidth::B8), 2);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm20).parts(AccessWidth::B8), 1);
    /// ```
    pub const fn parts(self, width: AccessWidth) -> u32 {
        match self.rules() {
            Rules::Tesla if width.bytes() > 4 => width.bytes() / 4,
            Rules::Tesla | Rules::Fermi | Rules::Kepler | Rules::Maxwell | Rules::Measured => 1,
        }
    }

    /// Whether loads whose lanes pair up on equal addresses have their phases
    /// merged in pairs (measured on sm_90; see the table on [`BankConfig`]).
    ///
    /// True from 7.0 on. Before 7.0 no source describes the merge, so the model
    /// does not apply it (a modelling choice).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// // float2 v = s2[lane / 2]: lanes 2k and 2k + 1 read the same 8 bytes.
    /// let pairs = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * (lane.get() / 2)))?;
    /// let hopper = BankConfig::new(ComputeCapability::Sm90);
    /// let pascal = BankConfig::new(ComputeCapability::Sm61);
    /// assert!(hopper.merges_paired_loads());
    /// assert!(!pascal.merges_paired_loads());
    /// assert_eq!(hopper.wavefronts(&pairs)?, 1); // one merged 32-lane phase
    /// assert_eq!(pascal.wavefronts(&pairs)?, 2); // two half-warps
    ///
    /// // Stores never merge.
    /// let stores = WarpRequest::from_fn(Op::Store, 8, |lane| Some(8 * (lane.get() / 2)))?;
    /// assert_eq!(hopper.wavefronts(&stores)?, 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn merges_paired_loads(self) -> bool {
        matches!(self.rules(), Rules::Measured)
    }

    /// Checks that the capability has `op` at some width; when it does not, the
    /// error names the first capability that has it.
    ///
    /// [`partition`](Self::partition) runs this check (and
    /// [`check_access`](Self::check_access), for the width) itself; call it
    /// directly to pick a code path before building requests.
    ///
    /// Sources: PTX ISA (`atom`, `red`, `ldmatrix`, `stmatrix`, `cp.async`
    /// target requirements) and the CUDA C++ Programming Guide's feature
    /// table: 32-bit shared atomics from 1.2, `add.f32` from 2.0, `add.f64`
    /// from 6.0, `ldmatrix` from 7.5, `cp.async` from 8.0, `stmatrix` from 9.0.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedOp`] for shared atomics before 1.2 (`add.f32`
    /// before 2.0, `add.f64` before 6.0), `ldmatrix` before 7.5, `cp.async`
    /// before 8.0 and `stmatrix` before 9.0.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, CpAsync, Error, Matrices, Op};
    ///
    /// let turing = BankConfig::new(ComputeCapability::Sm75);
    /// assert_eq!(turing.check_op(Op::LdMatrix(Matrices::X4)), Ok(()));
    /// assert_eq!(
    ///     turing.check_op(Op::StMatrix(Matrices::X4)),
    ///     Err(Error::UnsupportedOp {
    ///         op: Op::StMatrix(Matrices::X4),
    ///         capability: ComputeCapability::Sm75,
    ///         required: ComputeCapability::Sm90,
    ///     })
    /// );
    /// let err = turing.check_op(Op::CpAsync(CpAsync::Ca)).unwrap_err();
    /// assert_eq!(err.to_string(), "LDGSTS does not exist on compute capability 7.5: it needs 8.0 or later");
    /// // Loads and stores exist everywhere.
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm10).check_op(Op::Store), Ok(()));
    /// ```
    pub const fn check_op(self, op: Op) -> Result<(), Error> {
        use crate::AtomicKind as K;
        use ComputeCapability as C;
        let required = match op {
            Op::Load | Op::Store => return Ok(()),
            Op::Atomic(K::AddF32) | Op::Reduction(K::AddF32) => C::Sm20,
            Op::Atomic(K::AddF64) | Op::Reduction(K::AddF64) => C::Sm60,
            Op::Atomic(_) | Op::Reduction(_) => C::Sm12,
            Op::LdMatrix(_) => C::Sm75,
            Op::StMatrix(_) => C::Sm90,
            Op::CpAsync(_) => C::Sm80,
        };
        if self.capability.at_least(required) {
            return Ok(());
        }
        Err(Error::UnsupportedOp {
            op,
            capability: self.capability,
            required,
        })
    }

    /// Checks that the capability has `op` at `width`: [`check_op`](Self::check_op),
    /// then the widths that came later than the op.
    ///
    /// Sources: CUDA C++ Programming Guide, feature table (64-bit integer
    /// atomics on shared memory from 2.0); PTX ISA, `atom` (64-bit `min`,
    /// `max`, `and`, `or`, `xor` from `sm_32`).
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedOp`] as [`check_op`](Self::check_op), and
    /// [`Error::UnsupportedAccess`] for 64-bit shared `add`, `exch` and `cas`
    /// before 2.0 and 64-bit `min`, `max`, `and`, `or`, `xor` before 3.2.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{AccessWidth, AtomicKind, BankConfig, ComputeCapability, Op};
    ///
    /// let tesla = BankConfig::new(ComputeCapability::Sm13);
    /// let cas = Op::Atomic(AtomicKind::Cas);
    /// assert_eq!(tesla.check_access(cas, AccessWidth::B4), Ok(()));
    /// let err = tesla.check_access(cas, AccessWidth::B8).unwrap_err();
    /// assert_eq!(err.to_string(), "8-byte ATOMS.CAS does not exist on compute capability 1.3: it needs 2.0 or later");
    /// ```
    pub fn check_access(self, op: Op, width: AccessWidth) -> Result<(), Error> {
        use crate::AtomicKind as K;
        use ComputeCapability as C;
        self.check_op(op)?;
        let required = match (op, width) {
            (Op::Atomic(kind) | Op::Reduction(kind), AccessWidth::B8) => match kind {
                K::Min | K::Max | K::And | K::Or | K::Xor => C::Sm32,
                _ => C::Sm20,
            },
            _ => return Ok(()),
        };
        if self.capability.at_least(required) {
            return Ok(());
        }
        Err(Error::UnsupportedAccess {
            op,
            width: width.bytes(),
            capability: self.capability,
            required,
        })
    }

    pub(crate) const fn rules(self) -> Rules {
        use ComputeCapability as C;
        match self.capability {
            C::Sm10 | C::Sm11 | C::Sm12 | C::Sm13 => Rules::Tesla,
            C::Sm20 | C::Sm21 => Rules::Fermi,
            C::Sm30 | C::Sm32 | C::Sm35 | C::Sm37 => Rules::Kepler,
            C::Sm50 | C::Sm52 | C::Sm53 | C::Sm60 | C::Sm61 | C::Sm62 => Rules::Maxwell,
            C::Sm70
            | C::Sm72
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => Rules::Measured,
        }
    }
}

impl From<ComputeCapability> for BankConfig {
    fn from(capability: ComputeCapability) -> Self {
        BankConfig::new(capability)
    }
}
