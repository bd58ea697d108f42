//! The thread blocks of a kernel already read, kept as runs of consecutive
//! ids: the reader checks that no block appears twice (`.traceg`) and that
//! no instruction follows a block's end (the raw form), in memory bounded by
//! [`MAX_ENDED_RUNS`] whatever the number of blocks.

use std::collections::BTreeMap;

/// The most runs of consecutive thread-block ids (ordered by z, then y,
/// then x) remembered for a kernel: some 50 bytes each, about 3 MB in
/// all. A `.traceg` lists its blocks in order (one run a row of the grid);
/// a raw trace ends its blocks roughly in order, with as many gaps as blocks
/// in flight on the GPU (a few thousand). Past the limit, a block is still
/// read but not remembered: the trace reader reports that once a kernel
/// (its repeats are then not caught).
pub const MAX_ENDED_RUNS: usize = 1 << 16;

/// Block ids as runs: `start -> end` (both included), keys ordered z, y, x.
#[derive(Debug, Default)]
pub(super) struct Ended {
    runs: BTreeMap<u128, u128>,
}

/// What [`Ended::insert`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Inserted {
    /// Remembered.
    New,
    /// Remembered before.
    Again,
    /// Not remembered: [`MAX_ENDED_RUNS`] runs are held already.
    Full,
}

/// A block's key: z, then y, then x. Every key below 2^96 is one id, so a
/// run of keys is a run of ids (a row's last x then the next row's first).
fn key(id: [u32; 3]) -> u128 {
    u128::from(id[2]) << 64 | u128::from(id[1]) << 32 | u128::from(id[0])
}

impl Ended {
    /// Whether `id` was inserted.
    pub(super) fn contains(&self, id: [u32; 3]) -> bool {
        let k = key(id);
        self.runs
            .range(..=k)
            .next_back()
            .is_some_and(|(_, &end)| end >= k)
    }

    /// Remembers `id`, joining it to the runs beside it.
    pub(super) fn insert(&mut self, id: [u32; 3]) -> Inserted {
        let k = key(id);
        // The run ending right before `k`, if any.
        let mut joined = None;
        if let Some((&start, &end)) = self.runs.range(..=k).next_back() {
            if end >= k {
                return Inserted::Again;
            }
            if end + 1 == k {
                joined = Some(start);
            }
        }
        // The run starting right after `k`, if any.
        let after = self.runs.remove(&(k + 1));
        match (joined, after) {
            (Some(start), after) => {
                self.runs.insert(start, after.unwrap_or(k));
            }
            (None, Some(end)) => {
                self.runs.insert(k, end);
            }
            (None, None) => {
                if self.runs.len() >= MAX_ENDED_RUNS {
                    return Inserted::Full;
                }
                self.runs.insert(k, k);
            }
        }
        Inserted::New
    }

    /// Forgets every block (a new kernel).
    pub(super) fn clear(&mut self) {
        self.runs.clear();
    }

    /// The runs held.
    #[cfg(test)]
    pub(super) fn runs(&self) -> usize {
        self.runs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The runs hold exactly the blocks a set of them holds, in any order
    /// of insertion, rows and the ends of x included.
    #[test]
    fn runs_are_a_set() {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut random = move |n: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(n)) as u32
        };
        for _ in 0..200 {
            let mut ended = Ended::default();
            let mut set = HashSet::new();
            for _ in 0..300 {
                let x = match random(4) {
                    0 => u32::MAX - random(3),
                    _ => random(24),
                };
                let id = [x, random(3), random(2)];
                let expected = if set.insert(id) {
                    Inserted::New
                } else {
                    Inserted::Again
                };
                assert_eq!(ended.insert(id), expected, "{id:?}");
                let probe = [random(26), random(3), random(2)];
                assert_eq!(ended.contains(probe), set.contains(&probe), "{probe:?}");
            }
            for &id in &set {
                assert!(ended.contains(id));
            }
        }
    }

    /// Blocks in order are one run, however many; blocks with gaps
    /// are a run each, up to the limit.
    #[test]
    fn memory_is_bounded() {
        let mut ended = Ended::default();
        for y in 0..4 {
            for x in 0..100_000 {
                assert_eq!(ended.insert([x, y, 0]), Inserted::New);
            }
        }
        assert_eq!(ended.runs(), 4);
        // A row's last x (u32::MAX) and the next row's first are one run.
        ended.clear();
        for y in 0..3 {
            for x in [0, 1, u32::MAX - 1, u32::MAX] {
                ended.insert([x, y, 0]);
            }
        }
        assert_eq!(ended.runs(), 4);
        ended.clear();
        for x in 0..MAX_ENDED_RUNS as u32 {
            assert_eq!(ended.insert([2 * x, 0, 0]), Inserted::New);
        }
        assert_eq!(ended.insert([1 << 30, 0, 0]), Inserted::Full);
        assert!(!ended.contains([1 << 30, 0, 0]));
        // Filling a gap joins two runs, which needs no new one.
        assert_eq!(ended.insert([1, 0, 0]), Inserted::New);
        assert_eq!(ended.runs(), MAX_ENDED_RUNS - 1);
        assert_eq!(ended.insert([2, 0, 0]), Inserted::Again);
    }
}
