//! The thread blocks of a kernel already read: the reader checks that no
//! block appears twice (`.traceg`) and that no instruction follows a block's
//! end (the raw form), exactly, in memory bounded whatever the number of
//! blocks. Ids are kept as runs of consecutive ids, at most
//! [`MAX_ENDED_RUNS`]; past that, as a bit a block of the kernel's grid (from
//! its `-grid dim`), for grids of at most [`MAX_GRID_BITMAP`] blocks.

use std::collections::BTreeMap;

/// The most runs of consecutive thread-block ids (ordered by z, then y,
/// then x) remembered for a kernel: some 50 bytes each, about 3 MB in
/// all. A `.traceg` lists its blocks in order (one run a row of the grid);
/// a raw trace ends its blocks roughly in order, with as many gaps as blocks
/// in flight on the GPU (a few thousand). Past the limit, the blocks of the
/// kernel's grid are remembered by a bitmap over it instead
/// ([`MAX_GRID_BITMAP`]); a block that fits neither is still read but not
/// remembered, and the trace reader says so once a kernel (its repeats are
/// then not caught).
pub const MAX_ENDED_RUNS: usize = 1 << 16;

/// The most blocks of a kernel's grid (`-grid dim`, x times y times z)
/// remembered by a bitmap once [`MAX_ENDED_RUNS`] runs are not enough: a bit
/// a block, 16 MiB at most. A kernel launch's grid may have up to
/// (2^31 - 1) x 65,535 x 65,535 blocks (the CUDA Programming Guide's
/// compute-capability table); larger grids keep the runs only.
///
/// ```
/// use smem_model::kernel::accelsim::MAX_GRID_BITMAP;
///
/// assert_eq!(MAX_GRID_BITMAP / 8, 16 << 20); // bytes of the largest bitmap
/// ```
pub const MAX_GRID_BITMAP: u64 = 1 << 27;

/// Block ids as runs: `start -> end` (both included), keys ordered z, y, x;
/// past [`MAX_ENDED_RUNS`] runs, the blocks of the grid as bits.
#[derive(Debug, Default)]
pub(super) struct Ended {
    runs: BTreeMap<u128, u128>,
    /// Once the runs are full: the grid and a bit for each of its blocks
    /// (x fastest), which then holds every block of the grid inserted, runs
    /// or not; blocks outside the grid stay in the runs.
    bitmap: Option<([u32; 3], Vec<u64>)>,
}

/// What [`Ended::insert`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Inserted {
    /// Remembered.
    New,
    /// Remembered before.
    Again,
    /// Not remembered: [`MAX_ENDED_RUNS`] runs are held already, and the
    /// bitmap cannot hold the block.
    Full(Unheld),
}

/// Why a block past [`MAX_ENDED_RUNS`] runs is not remembered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unheld {
    /// The trace gives no `-grid dim` for the kernel.
    NoGrid,
    /// The grid has this many blocks, more than [`MAX_GRID_BITMAP`].
    GridTooLarge(u64),
    /// The block is outside the grid (which has these dimensions).
    OutsideGrid([u32; 3]),
}

/// A block's key: z, then y, then x. Every key below 2^96 is one id, so a
/// run of keys is a run of ids (a row's last x then the next row's first).
fn key(id: [u32; 3]) -> u128 {
    u128::from(id[2]) << 64 | u128::from(id[1]) << 32 | u128::from(id[0])
}

/// The id of a key.
fn id_of(key: u128) -> [u32; 3] {
    [key as u32, (key >> 32) as u32, (key >> 64) as u32]
}

/// The blocks of a grid, x times y times z.
pub(super) fn blocks(grid: [u32; 3]) -> u64 {
    u64::from(grid[0]) * u64::from(grid[1]) * u64::from(grid[2])
}

/// The bit of block `id` in a bitmap over `grid`, if the block is in it.
fn bit(grid: [u32; 3], id: [u32; 3]) -> Option<u64> {
    (id[0] < grid[0] && id[1] < grid[1] && id[2] < grid[2]).then(|| {
        u64::from(id[0])
            + u64::from(grid[0]) * (u64::from(id[1]) + u64::from(grid[1]) * u64::from(id[2]))
    })
}

impl Ended {
    /// Whether `id` was inserted.
    pub(super) fn contains(&self, id: [u32; 3]) -> bool {
        if let Some((grid, bits)) = &self.bitmap {
            if let Some(bit) = bit(*grid, id) {
                return bits[(bit / 64) as usize] & (1 << (bit % 64)) != 0;
            }
        }
        let k = key(id);
        self.runs
            .range(..=k)
            .next_back()
            .is_some_and(|(_, &end)| end >= k)
    }

    /// Remembers `id`, joining it to the runs beside it; past
    /// [`MAX_ENDED_RUNS`] runs, in a bitmap over `grid` (the kernel's
    /// `-grid dim`, where the trace gives one).
    pub(super) fn insert(&mut self, id: [u32; 3], grid: Option<[u32; 3]>) -> Inserted {
        if let Some((grid, bits)) = &mut self.bitmap {
            if let Some(bit) = bit(*grid, id) {
                let (word, mask) = ((bit / 64) as usize, 1 << (bit % 64));
                if bits[word] & mask != 0 {
                    return Inserted::Again;
                }
                bits[word] |= mask;
                return Inserted::New;
            }
        }
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
                    return self.overflow(id, grid);
                }
                self.runs.insert(k, k);
            }
        }
        Inserted::New
    }

    /// `id` needs a new run past [`MAX_ENDED_RUNS`]: the grid's blocks move
    /// to a bitmap (once), which then takes `id`.
    fn overflow(&mut self, id: [u32; 3], grid: Option<[u32; 3]>) -> Inserted {
        if let Some((grid, _)) = self.bitmap {
            // `id` is outside the bitmap's grid (`insert` tried it first).
            return Inserted::Full(Unheld::OutsideGrid(grid));
        }
        let Some(grid) = grid else {
            return Inserted::Full(Unheld::NoGrid);
        };
        let count = blocks(grid);
        if count > MAX_GRID_BITMAP {
            return Inserted::Full(Unheld::GridTooLarge(count));
        }
        if bit(grid, id).is_none() {
            return Inserted::Full(Unheld::OutsideGrid(grid));
        }
        let mut bits = vec![0u64; count.div_ceil(64) as usize];
        // The runs' blocks inside the grid, row by row of x (a run may span
        // rows, and x past the grid's). A run wholly inside the grid lies in
        // one row (x = u32::MAX, where a row turns, is past any grid): it is
        // the bitmap's now; the others stay, for their blocks outside it.
        let mut kept = BTreeMap::new();
        for (&start, &end) in &self.runs {
            let (first, last) = (id_of(start), id_of(end));
            for z in first[2]..=last[2].min(grid[2].saturating_sub(1)) {
                let y_from = if z == first[2] { first[1] } else { 0 };
                let y_to = if z == last[2] { last[1] } else { u32::MAX };
                for y in y_from..=y_to.min(grid[1].saturating_sub(1)) {
                    let x_from = if [y, z] == [first[1], first[2]] {
                        first[0]
                    } else {
                        0
                    };
                    let x_to = if [y, z] == [last[1], last[2]] {
                        last[0]
                    } else {
                        u32::MAX
                    };
                    for x in x_from..=x_to.min(grid[0].saturating_sub(1)) {
                        if let Some(b) = bit(grid, [x, y, z]) {
                            bits[(b / 64) as usize] |= 1 << (b % 64);
                        }
                    }
                }
            }
            if bit(grid, first).is_none() || bit(grid, last).is_none() || first[1..] != last[1..] {
                kept.insert(start, end);
            }
        }
        // Runs wholly inside the grid are the bitmap's now.
        self.runs = kept;
        let b = bit(grid, id).unwrap_or(0);
        bits[(b / 64) as usize] |= 1 << (b % 64);
        self.bitmap = Some((grid, bits));
        Inserted::New
    }

    /// Forgets every block (a new kernel).
    pub(super) fn clear(&mut self) {
        self.runs.clear();
        self.bitmap = None;
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
                assert_eq!(ended.insert(id, None), expected, "{id:?}");
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
                assert_eq!(ended.insert([x, y, 0], None), Inserted::New);
            }
        }
        assert_eq!(ended.runs(), 4);
        // A row's last x (u32::MAX) and the next row's first are one run.
        ended.clear();
        for y in 0..3 {
            for x in [0, 1, u32::MAX - 1, u32::MAX] {
                ended.insert([x, y, 0], None);
            }
        }
        assert_eq!(ended.runs(), 4);
        ended.clear();
        for x in 0..MAX_ENDED_RUNS as u32 {
            assert_eq!(ended.insert([2 * x, 0, 0], None), Inserted::New);
        }
        assert_eq!(
            ended.insert([1 << 30, 0, 0], None),
            Inserted::Full(Unheld::NoGrid)
        );
        assert!(!ended.contains([1 << 30, 0, 0]));
        // Filling a gap joins two runs, which needs no new one.
        assert_eq!(ended.insert([1, 0, 0], None), Inserted::New);
        assert_eq!(ended.runs(), MAX_ENDED_RUNS - 1);
        assert_eq!(ended.insert([2, 0, 0], None), Inserted::Again);
        // A grid too large for the bitmap, a block outside the grid.
        ended.insert([1 << 29, 0, 0], None);
        let huge = [1 << 14, 1 << 14, 2];
        assert_eq!(
            ended.insert([1 << 30, 0, 0], Some(huge)),
            Inserted::Full(Unheld::GridTooLarge(1 << 29))
        );
        assert_eq!(
            ended.insert([5, 7, 0], Some([4, 4, 1])),
            Inserted::Full(Unheld::OutsideGrid([4, 4, 1]))
        );
    }

    /// Past the runs' limit, the blocks of the grid are bits: the set is
    /// still exact, in the grid (the runs' blocks moved into the bitmap,
    /// rows that runs span included) and outside it (the runs kept).
    #[test]
    fn the_bitmap_takes_over_exactly() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move |n: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(n)) as u32
        };
        let grid = [100_000, 3, 2];
        for round in 0..2 {
            let mut ended = Ended::default();
            let mut set = HashSet::new();
            // Runs that span rows and x past the grid, then scattered ids
            // (most in the grid) until the runs overflow and well past it.
            for x in 99_990..100_100 {
                for y in 0..2 {
                    assert_eq!(ended.insert([x, y, 0], Some(grid)), Inserted::New);
                    set.insert([x, y, 0]);
                }
            }
            ended.insert([u32::MAX, 2, 0], Some(grid));
            ended.insert([0, 0, 1], Some(grid));
            set.extend([[u32::MAX, 2, 0], [0, 0, 1]]);
            let mut switched = false;
            for _ in 0..3 * MAX_ENDED_RUNS {
                let id = if random(50) == 0 {
                    [random(200_000), random(5), random(3)]
                } else {
                    [random(grid[0]), random(grid[1]), random(grid[2])]
                };
                let inserted = ended.insert(id, Some(grid));
                switched |= ended.bitmap.is_some();
                match inserted {
                    Inserted::Full(why) => {
                        assert!(bit(grid, id).is_none(), "{id:?}");
                        assert_eq!(why, Unheld::OutsideGrid(grid));
                        assert!(!ended.contains(id));
                    }
                    inserted => {
                        let expected = if set.insert(id) {
                            Inserted::New
                        } else {
                            Inserted::Again
                        };
                        assert_eq!(inserted, expected, "{id:?} round {round}");
                    }
                }
                let probe = [random(100_100), random(4), random(3)];
                assert_eq!(ended.contains(probe), set.contains(&probe), "{probe:?}");
            }
            assert!(switched);
            for &id in &set {
                assert!(ended.contains(id), "{id:?}");
            }
            assert!(ended.runs() <= MAX_ENDED_RUNS);
        }
    }
}
