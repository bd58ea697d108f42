//! Lanes of a warp and sets of them.

use core::fmt;

use bitvec::prelude::{BitArray, Lsb0};

use crate::Error;

/// The number of lanes (threads) in a warp, on every compute capability.
///
/// # Example
///
/// ```
/// use smem_model::{LaneSet, WARP_SIZE};
///
/// assert_eq!(LaneSet::FULL.len(), WARP_SIZE);
/// ```
pub const WARP_SIZE: usize = 32;

/// One lane (thread) of a warp: a number from 0 to 31.
///
/// A newtype rather than a bare integer so that lanes cannot be confused with
/// banks, words or byte addresses. In a kernel, a thread's lane is
/// `threadIdx.x % 32` (for a one-dimensional block).
///
/// # Example
///
/// ```
/// use smem_model::Lane;
///
/// let lane = Lane::new(5)?;
/// assert_eq!(lane.index(), 5); // for indexing arrays
/// assert_eq!(lane.get(), 5); // for address arithmetic
/// assert_eq!(lane.to_string(), "5");
/// assert!(Lane::new(32).is_err());
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lane(u8);

impl Lane {
    /// The lane with this number.
    ///
    /// Fallible because a thread index of a block is not a lane: take it modulo
    /// [`WARP_SIZE`] first.
    ///
    /// # Errors
    ///
    /// [`Error::LaneOutOfRange`] when `lane` is 32 or more.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Lane};
    ///
    /// let thread = 45; // threadIdx.x of the second warp of a block
    /// assert_eq!(Lane::new(thread % 32)?.get(), 13);
    /// assert_eq!(Lane::new(thread), Err(Error::LaneOutOfRange { lane: 45 }));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn new(lane: u32) -> Result<Self, Error> {
        if lane < WARP_SIZE as u32 {
            Ok(Self(lane as u8))
        } else {
            Err(Error::LaneOutOfRange { lane })
        }
    }

    /// The lane's number, 0 to 31.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Lane;
    ///
    /// let addresses = [0u32; 32];
    /// assert_eq!(addresses[Lane::new(7)?.index()], 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The lane's number as a `u32`, handy in address arithmetic.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Lane;
    ///
    /// // s[2 * lane] of a float array.
    /// assert_eq!(4 * 2 * Lane::new(5)?.get(), 40);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn get(self) -> u32 {
        self.0 as u32
    }

    /// All 32 lanes, in order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet};
    ///
    /// assert_eq!(Lane::all().count(), 32);
    /// // The active mask of `if (lane % 2 == 0)`.
    /// let even: LaneSet = Lane::all().filter(|lane| lane.get() % 2 == 0).collect();
    /// assert_eq!(even.bits(), 0x5555_5555);
    /// ```
    pub fn all() -> impl Iterator<Item = Lane> + Clone {
        (0..WARP_SIZE as u8).map(Lane)
    }

    /// Used internally where the index is known to be in range.
    pub(crate) const fn from_index(index: usize) -> Self {
        debug_assert!(index < WARP_SIZE);
        Self(index as u8)
    }
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A set of lanes of one warp, such as an active mask.
///
/// A small `Copy` value (one 32-bit word) whose bit `i` stands for lane `i`, the
/// same convention as CUDA's `__activemask()` and `__ballot_sync()`.
///
/// # Example
///
/// ```
/// use smem_model::{Lane, LaneSet};
///
/// let mut low_half = LaneSet::from_bits(0x0000_ffff);
/// assert_eq!(low_half.len(), 16);
/// assert!(low_half.contains(Lane::new(15)?));
/// assert!(!low_half.contains(Lane::new(16)?));
/// assert_eq!(low_half.iter().last(), Some(Lane::new(15)?));
///
/// // Lanes leave and join, as under divergent control flow.
/// low_half.remove(Lane::new(0)?);
/// low_half.insert(Lane::new(31)?);
/// assert_eq!(low_half.bits(), 0x8000_fffe);
/// assert_eq!(low_half.to_string(), "1-15,31");
/// assert!(!low_half.is_empty());
/// assert!(LaneSet::EMPTY.is_empty());
/// assert_eq!(LaneSet::FULL.len(), 32);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LaneSet(BitArray<u32, Lsb0>);

impl LaneSet {
    /// No lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// assert!(LaneSet::EMPTY.is_empty());
    /// ```
    pub const EMPTY: LaneSet = LaneSet(BitArray {
        _ord: core::marker::PhantomData,
        data: 0,
    });

    /// All 32 lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// assert_eq!(LaneSet::FULL.bits(), u32::MAX);
    /// ```
    pub const FULL: LaneSet = LaneSet(BitArray {
        _ord: core::marker::PhantomData,
        data: u32::MAX,
    });

    /// The set whose bit `i` is lane `i`.
    ///
    /// Takes a mask as CUDA's `__activemask()` or `__ballot_sync()` returns it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// // __ballot_sync(0xffffffff, lane < 8 || lane == 31)
    /// let ballot = LaneSet::from_bits(0x8000_00ff);
    /// assert_eq!(ballot.len(), 9);
    /// assert_eq!(ballot.to_string(), "0-7,31");
    /// ```
    pub const fn from_bits(bits: u32) -> Self {
        LaneSet(BitArray {
            _ord: core::marker::PhantomData,
            data: bits,
        })
    }

    /// The set as a mask: bit `i` is lane `i`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// // The lower half-warp, as `__activemask()` would give it.
    /// assert_eq!(LaneSet::range(0, 16).bits(), 0xffff);
    /// ```
    pub const fn bits(self) -> u32 {
        self.0.data
    }

    /// Lanes `start..end` (clamped to the warp).
    ///
    /// Handy for the lane groups the hardware serves apart: half-warps for
    /// 64-bit accesses, quarter-warps for 128-bit ones, the eight row lanes of
    /// one `ldmatrix` matrix.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// let upper_half_warp = LaneSet::range(16, 32);
    /// assert_eq!(upper_half_warp.bits(), 0xffff_0000);
    /// let second_quarter = LaneSet::range(8, 16);
    /// assert_eq!(second_quarter.to_string(), "8-15");
    /// // Clamped: there is no lane 32 or beyond.
    /// assert_eq!(LaneSet::range(24, 40), LaneSet::range(24, 32));
    /// assert!(LaneSet::range(5, 5).is_empty());
    /// ```
    pub const fn range(start: u32, end: u32) -> Self {
        let end = if end > WARP_SIZE as u32 {
            WARP_SIZE as u32
        } else {
            end
        };
        if start >= end {
            return Self::EMPTY;
        }
        let width = end - start;
        let ones = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        Self::from_bits(ones << start)
    }

    /// Whether `lane` is in the set.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet};
    ///
    /// assert!(LaneSet::range(0, 16).contains(Lane::new(15)?));
    /// assert!(!LaneSet::range(0, 16).contains(Lane::new(16)?));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn contains(self, lane: Lane) -> bool {
        self.0[lane.index()]
    }

    /// Adds `lane`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet};
    ///
    /// let mut set = LaneSet::EMPTY;
    /// set.insert(Lane::new(3)?);
    /// assert_eq!(set.bits(), 0b1000);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn insert(&mut self, lane: Lane) {
        self.0.set(lane.index(), true);
    }

    /// Removes `lane`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet};
    ///
    /// let mut set = LaneSet::FULL;
    /// set.remove(Lane::new(0)?);
    /// assert_eq!(set.len(), 31);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn remove(&mut self, lane: Lane) {
        self.0.data &= !(1 << lane.index());
    }

    /// The number of lanes in the set.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// assert_eq!(LaneSet::range(8, 16).len(), 8);
    /// ```
    pub const fn len(self) -> usize {
        self.bits().count_ones() as usize
    }

    /// Whether the set has no lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// assert!(LaneSet::EMPTY.is_empty());
    /// assert!(!LaneSet::FULL.is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.bits() == 0
    }

    /// The lowest lane, if any.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet};
    ///
    /// // The leader of a coalesced group, as `__ffs(__activemask()) - 1`.
    /// let active = LaneSet::from_bits(0b1011_0000);
    /// assert_eq!(active.first(), Some(Lane::new(4)?));
    /// assert_eq!(LaneSet::EMPTY.first(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn first(self) -> Option<Lane> {
        // One instruction on the word, where bitvec's generic search walks
        // its domain: lane sets are iterated on the block model's hot paths.
        match self.bits() {
            0 => None,
            bits => Some(Lane::from_index(bits.trailing_zeros() as usize)),
        }
    }

    /// The highest lane, if any.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet};
    ///
    /// // As `31 - __clz(mask)`.
    /// let active = LaneSet::from_bits(0b1011_0000);
    /// assert_eq!(active.last(), Some(Lane::new(7)?));
    /// assert_eq!(LaneSet::EMPTY.last(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn last(self) -> Option<Lane> {
        match self.bits() {
            0 => None,
            bits => Some(Lane::from_index(31 - bits.leading_zeros() as usize)),
        }
    }

    /// The lanes in both sets.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// // Which active lanes fall in the second half-warp?
    /// let active = LaneSet::from_bits(0x00ff_00ff);
    /// let upper = active.intersection(LaneSet::range(16, 32));
    /// assert_eq!(upper.to_string(), "16-23");
    /// ```
    pub const fn intersection(self, other: Self) -> Self {
        Self::from_bits(self.bits() & other.bits())
    }

    /// The lanes in either set.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// // The address lanes of matrices 0 and 2 of an `ldmatrix.x4`.
    /// let rows = LaneSet::range(0, 8).union(LaneSet::range(16, 24));
    /// assert_eq!(rows.bits(), 0x00ff_00ff);
    /// assert_eq!(rows.len(), 16);
    /// ```
    pub const fn union(self, other: Self) -> Self {
        Self::from_bits(self.bits() | other.bits())
    }

    /// The lanes in ascending order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::LaneSet;
    ///
    /// let lanes: Vec<u32> = LaneSet::range(4, 7).iter().map(|l| l.get()).collect();
    /// assert_eq!(lanes, [4, 5, 6]);
    /// ```
    pub fn iter(self) -> LaneIter {
        LaneIter(self)
    }
}

impl fmt::Debug for LaneSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|lane| lane.0))
            .finish()
    }
}

impl fmt::Display for LaneSet {
    /// Writes the lanes as ranges: `0-15,20,31`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.bits();
        let mut first = true;
        while rest != 0 {
            let start = rest.trailing_zeros();
            let run = (rest >> start).trailing_ones();
            if !first {
                f.write_str(",")?;
            }
            first = false;
            match run {
                1 => write!(f, "{start}")?,
                _ => write!(f, "{}-{}", start, start + run - 1)?,
            }
            rest &= !(((1u64 << run) - 1) << start) as u32;
        }
        if first {
            f.write_str("-")?;
        }
        Ok(())
    }
}

impl FromIterator<Lane> for LaneSet {
    fn from_iter<I: IntoIterator<Item = Lane>>(iter: I) -> Self {
        let mut set = LaneSet::EMPTY;
        for lane in iter {
            set.insert(lane);
        }
        set
    }
}

impl IntoIterator for LaneSet {
    type Item = Lane;
    type IntoIter = LaneIter;
    fn into_iter(self) -> LaneIter {
        self.iter()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for LaneSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for LaneSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let lanes = <Vec<u32> as serde::Deserialize>::deserialize(deserializer)?;
        lanes
            .into_iter()
            .map(|lane| Lane::new(lane).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// The lanes of a [`LaneSet`], in ascending order.
///
/// Returned by [`LaneSet::iter`]. It knows its length and runs from both ends.
///
/// # Example
///
/// ```
/// use smem_model::{Lane, LaneSet};
///
/// let set = LaneSet::from_bits(0b1010_0001);
/// let up: Vec<u32> = set.iter().map(Lane::get).collect();
/// let down: Vec<u32> = set.iter().rev().map(Lane::get).collect();
/// assert_eq!(up, [0, 5, 7]);
/// assert_eq!(down, [7, 5, 0]);
/// assert_eq!(set.iter().len(), 3);
/// // A LaneSet is also IntoIterator.
/// assert_eq!(set.into_iter().count(), 3);
/// ```
#[derive(Debug, Clone)]
pub struct LaneIter(LaneSet);

impl Iterator for LaneIter {
    type Item = Lane;

    fn next(&mut self) -> Option<Lane> {
        let lane = self.0.first()?;
        self.0.remove(lane);
        Some(lane)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.len();
        (len, Some(len))
    }
}

impl DoubleEndedIterator for LaneIter {
    fn next_back(&mut self) -> Option<Lane> {
        let lane = self.0.last()?;
        self.0.remove(lane);
        Some(lane)
    }
}

impl ExactSizeIterator for LaneIter {}

impl core::iter::FusedIterator for LaneIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_writes_runs() {
        assert_eq!(LaneSet::from_bits(0x8010_ffff).to_string(), "0-15,20,31");
        assert_eq!(LaneSet::FULL.to_string(), "0-31");
        assert_eq!(LaneSet::EMPTY.to_string(), "-");
    }

    #[test]
    fn range_clamps() {
        assert_eq!(LaneSet::range(0, 32), LaneSet::FULL);
        assert_eq!(LaneSet::range(8, 16).bits(), 0xff00);
        assert_eq!(LaneSet::range(16, 99).bits(), 0xffff_0000);
        assert!(LaneSet::range(5, 5).is_empty());
    }

    #[test]
    fn iteration_both_ways() {
        let set = LaneSet::from_bits(0b1010_0001);
        let up: Vec<_> = set.iter().map(Lane::get).collect();
        let down: Vec<_> = set.iter().rev().map(Lane::get).collect();
        assert_eq!(up, [0, 5, 7]);
        assert_eq!(down, [7, 5, 0]);
        assert_eq!(set.iter().len(), 3);
    }
}
