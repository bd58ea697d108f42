//! Warp accesses over a tile, in (row, column) coordinates, independent of
//! the tile's layout.

use core::fmt;

use crate::{Lane, LaneSet, Matrices, Op, WARP_SIZE};

/// One warp-wide instruction on a tile, described by the element each lane
/// accesses rather than by addresses: the same access can then be turned into
/// a [`WarpRequest`](crate::WarpRequest) under any layout
/// ([`TileLayout::request`](crate::TileLayout::request)), which is how the
/// [advisor](crate::TileLayout::advise) compares layouts.
///
/// Each active lane names the `(row, col)` of the first element it accesses;
/// with a vector of `n` elements it accesses `(row, col)` to `(row, col + n -
/// 1)`, so the access width is `n` times the element size. Ops with a fixed
/// width (atomics: 4 bytes; `ldmatrix`/`stmatrix`: 16-byte rows) take their
/// vector from the element size instead. Building an access checks nothing:
/// whether its elements exist is a question for a layout. Coordinates that
/// would pass `u32::MAX` saturate there, so they stay outside every tile.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Lane, Op, TileAccess, TileLayout};
///
/// // float v = tile[lane][3];
/// let column = TileAccess::column(Op::Load, 0, 3, 1);
/// assert_eq!(column.element(Lane::new(5)?), Some((5, 3)));
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let plain = TileLayout::new(32, 32, 4)?;
/// let padded = plain.with_padding(1)?;
/// assert_eq!(sm90.wavefronts(&plain.request(&column)?)?, 32);
/// assert_eq!(sm90.wavefronts(&padded.request(&column)?)?, 1);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileAccess {
    op: Op,
    vector: u32,
    active: LaneSet,
    elements: [(u32, u32); WARP_SIZE],
}

impl TileAccess {
    /// An access whose lane `l` accesses element `f(l)` and the `vector - 1`
    /// elements after it in its row, or nothing when `f` returns `None`.
    ///
    /// For ops with a fixed width, `vector` is ignored; for the matrix ops only
    /// the lanes that give row addresses (`0..8 * matrices`) are kept.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, TileAccess};
    ///
    /// // Anti-diagonal of a 32x32 tile: tile[lane][31 - lane].
    /// let anti = TileAccess::from_fn(Op::Load, 1, |lane| Some((lane.get(), 31 - lane.get())));
    /// assert_eq!(anti.element(Lane::new(1)?), Some((1, 30)));
    /// assert_eq!(anti.vector(), Some(1));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_fn(op: Op, vector: u32, mut f: impl FnMut(Lane) -> Option<(u32, u32)>) -> Self {
        let mut access = TileAccess {
            op,
            // Normalised, so that accesses that make the same request compare equal.
            vector: if op.fixed_width().is_some() {
                0
            } else {
                vector
            },
            active: LaneSet::EMPTY,
            elements: [(0, 0); WARP_SIZE],
        };
        let lanes = op.address_lanes();
        for lane in Lane::all() {
            if !lanes.contains(lane) {
                continue;
            }
            if let Some(element) = f(lane) {
                access.elements[lane.index()] = element;
                access.active.insert(lane);
            }
        }
        access
    }

    /// Along a row: lane `l` accesses `(row, col + l * vector)`, `vector`
    /// elements each.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, TileAccess};
    ///
    /// // float2 stores along row 4: tile2[4][lane].
    /// let row = TileAccess::row(Op::Store, 4, 0, 2);
    /// assert_eq!(row.element(Lane::new(3)?), Some((4, 6)));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn row(op: Op, row: u32, col: u32, vector: u32) -> Self {
        TileAccess::from_fn(op, vector, |lane| {
            Some((row, col.saturating_add(lane.get().saturating_mul(vector))))
        })
    }

    /// Down a column: lane `l` accesses `(row + l, col)`, `vector` elements
    /// each.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Op, TileAccess};
    ///
    /// let column = TileAccess::column(Op::Load, 0, 7, 1);
    /// assert_eq!(column.element(Lane::new(31)?), Some((31, 7)));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn column(op: Op, row: u32, col: u32, vector: u32) -> Self {
        TileAccess::from_fn(op, vector, |lane| {
            Some((row.saturating_add(lane.get()), col))
        })
    }

    /// Along the diagonal: lane `l` accesses `(row + l, col + l * vector)`,
    /// `vector` elements each.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let diagonal = TileAccess::diagonal(Op::Load, 0, 0, 1);
    /// // tile[lane][lane] of float tile[32][32] is conflict-free...
    /// let plain = TileLayout::new(32, 32, 4)?;
    /// assert_eq!(sm90.wavefronts(&plain.request(&diagonal)?)?, 1);
    /// // ...and the padding that fixes columns makes it 2-way (stride 34 floats).
    /// assert_eq!(sm90.wavefronts(&plain.with_padding(1)?.request(&diagonal)?)?, 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn diagonal(op: Op, row: u32, col: u32, vector: u32) -> Self {
        TileAccess::from_fn(op, vector, |lane| {
            Some((
                row.saturating_add(lane.get()),
                col.saturating_add(lane.get().saturating_mul(vector)),
            ))
        })
    }

    /// The two shared-memory instructions of an in-tile transpose by one warp:
    /// lane `l` reads `(index, l)` (row `index`) and writes `(l, index)`
    /// (column `index`).
    ///
    /// The classic transpose kernel (`tile[ty][tx] = in[...]; __syncthreads();
    /// out[...] = tile[tx][ty];`) makes the same two accesses with the ops the
    /// other way round; build those with [`row`](Self::row) and
    /// [`column`](Self::column). A 32x32 tile is transposed by the pairs for
    /// `index` 0 to 31.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let tile = TileLayout::new(32, 32, 4)?;
    /// let [read, write] = TileAccess::transposed_copy(0);
    /// assert_eq!(sm90.wavefronts(&tile.request(&read)?)?, 1);
    /// assert_eq!(sm90.wavefronts(&tile.request(&write)?)?, 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn transposed_copy(index: u32) -> [TileAccess; 2] {
        [
            TileAccess::row(Op::Load, index, 0, 1),
            TileAccess::column(Op::Store, 0, index, 1),
        ]
    }

    /// Warp `warp`'s read of the A tile at step `k` of the tiled matrix product
    /// `C = AB` with `w x w` tiles and a `w x w` block: thread `t = 32 * warp +
    /// lane` is `(ty, tx) = (t / w, t % w)` and reads `As[ty][k]`.
    ///
    /// Lanes past the block (`ty >= w`) are inactive, as is every lane when `w`
    /// is 0.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, Classification, ComputeCapability, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // w = 32: a warp is one row of threads, so As[ty][k] is one word, broadcast.
    /// let tile = TileLayout::new(32, 32, 4)?;
    /// let read = tile.request(&TileAccess::matmul_a(32, 5, 0))?;
    /// assert_eq!(sm90.partition(&read)?.classification(), Classification::Broadcast);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn matmul_a(w: u32, k: u32, warp: u32) -> Self {
        TileAccess::from_fn(Op::Load, 1, |lane| {
            let (ty, _) = matmul_thread(w, warp, lane)?;
            Some((ty, k))
        })
    }

    /// Warp `warp`'s read of the B tile at step `k` of the tiled matrix product
    /// (see [`matmul_a`](Self::matmul_a)): thread `(ty, tx)` reads `Bs[k][tx]`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, TileAccess, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // w = 16: the warp holds two rows of threads, both reading row k of Bs.
    /// let tile = TileLayout::new(16, 16, 4)?;
    /// let read = tile.request(&TileAccess::matmul_b(16, 3, 0))?;
    /// assert_eq!(sm90.wavefronts(&read)?, 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn matmul_b(w: u32, k: u32, warp: u32) -> Self {
        TileAccess::from_fn(Op::Load, 1, |lane| {
            let (_, tx) = matmul_thread(w, warp, lane)?;
            Some((k, tx))
        })
    }

    /// `ldmatrix` of 8x8 fragments: lane `8m + r` gives the address of row `r`
    /// of matrix `m`, which starts at element `origin(m)`; each row is the 16
    /// bytes from its first element (8 halves, or 4 floats for tf32).
    ///
    /// Source of the lane-to-row rule: PTX ISA, `ldmatrix`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Lane, Matrices, TileAccess, TileLayout, TmaSwizzle};
    ///
    /// // The A fragment of mma.m16n8k16 from the 16x16 block at (16, 32) of a
    /// // half tile: matrices at (0, 0), (8, 0), (0, 8) and (8, 8) of the block,
    /// // i.e. lane l points at row l % 16, column 8 * (l / 16).
    /// let a = TileAccess::ldmatrix(Matrices::X4, |m| (16 + 8 * (m % 2), 32 + 8 * (m / 2)));
    /// assert_eq!(a.element(Lane::new(17)?), Some((17, 40)));
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let plain = TileLayout::new(64, 64, 2)?;
    /// assert_eq!(sm90.wavefronts(&plain.request(&a)?)?, 32);
    /// let swizzled = plain.with_tma_swizzle(TmaSwizzle::B128)?;
    /// assert_eq!(sm90.wavefronts(&swizzled.request(&a)?)?, 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn ldmatrix(matrices: Matrices, origin: impl FnMut(u32) -> (u32, u32)) -> Self {
        TileAccess::matrix(Op::LdMatrix(matrices), origin)
    }

    /// `stmatrix` of 8x8 fragments, with the lanes of
    /// [`ldmatrix`](Self::ldmatrix).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, Matrices, Op, TileAccess};
    ///
    /// let c = TileAccess::stmatrix(Matrices::X2, |m| (8 * m, 0));
    /// assert_eq!(c.op(), Op::StMatrix(Matrices::X2));
    /// assert_eq!(c.lanes().len(), 16);
    /// assert_eq!(c.element(Lane::new(9)?), Some((9, 0)));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn stmatrix(matrices: Matrices, origin: impl FnMut(u32) -> (u32, u32)) -> Self {
        TileAccess::matrix(Op::StMatrix(matrices), origin)
    }

    /// The `ldmatrix` accesses that read every matrix of a `rows x cols` tile
    /// of `element_bytes`-byte elements once, as the `mma` fragments are read:
    /// `ldmatrix.x4` of each block of 16 rows and two matrices' columns, its
    /// matrices at `(r, c)`, `(r + 8, c)`, `(r, c + w)` and `(r + 8, c + w)`
    /// (the A fragment of `mma.m16n8k16`, `w = 16 / element_bytes` columns);
    /// where 8 rows or `w` columns are left over at the edge, `.x2` of the two
    /// matrices there, or `.x1` of the corner one. Blocks in row-major order.
    ///
    /// A matrix is 8 rows of 16 bytes (PTX ISA, `ldmatrix`): 8 halves, 4
    /// floats (tf32), 16 bytes (int8).
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`](crate::Error::InvalidWidth) unless
    ///   `element_bytes` is 1, 2, 4, 8 or 16.
    /// - [`Error::MatrixTile`](crate::Error::MatrixTile) unless `rows` is a
    ///   positive multiple of 8 and `cols` of `16 / element_bytes`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Lane, Matrices, Op, TileAccess};
    ///
    /// // half tile[32][32]: four 16x16 blocks, one ldmatrix.x4 each.
    /// let all = TileAccess::ldmatrix_tile(32, 32, 2)?;
    /// assert_eq!(all.len(), 4);
    /// assert!(all.iter().all(|a| a.op() == Op::LdMatrix(Matrices::X4)));
    /// // The second block is rows 0-15 of columns 16-31: lane 8 starts row 8.
    /// assert_eq!(all[1].element(Lane::new(8)?), Some((8, 16)));
    /// // 24 rows: the last 8 are read by ldmatrix.x2.
    /// let odd = TileAccess::ldmatrix_tile(24, 16, 2)?;
    /// assert_eq!(odd.len(), 2);
    /// assert_eq!(odd[1].op(), Op::LdMatrix(Matrices::X2));
    /// assert_eq!(
    ///     TileAccess::ldmatrix_tile(20, 16, 2),
    ///     Err(Error::MatrixTile { rows: 20, cols: 16, matrix_cols: 8, element_bytes: 2 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn ldmatrix_tile(
        rows: u32,
        cols: u32,
        element_bytes: u32,
    ) -> Result<Vec<TileAccess>, crate::Error> {
        crate::AccessWidth::from_bytes(element_bytes)?;
        let w = 16 / element_bytes;
        if rows == 0 || cols == 0 || !rows.is_multiple_of(8) || !cols.is_multiple_of(w) {
            return Err(crate::Error::MatrixTile {
                rows,
                cols,
                matrix_cols: w,
                element_bytes,
            });
        }
        let mut all = Vec::new();
        for r in (0..rows).step_by(16) {
            let tall = rows - r >= 16;
            for c in (0..cols).step_by(2 * w as usize) {
                let wide = cols - c >= 2 * w;
                let origins: &[(u32, u32)] = match (tall, wide) {
                    (true, true) => &[(r, c), (r + 8, c), (r, c + w), (r + 8, c + w)],
                    (true, false) => &[(r, c), (r + 8, c)],
                    (false, true) => &[(r, c), (r, c + w)],
                    (false, false) => &[(r, c)],
                };
                let Some(matrices) = Matrices::from_count(origins.len() as u32) else {
                    continue;
                };
                all.push(TileAccess::ldmatrix(matrices, |m| origins[m as usize]));
            }
        }
        Ok(all)
    }

    fn matrix(op: Op, mut origin: impl FnMut(u32) -> (u32, u32)) -> Self {
        let mut origins = [(0, 0); 4];
        let count = match op {
            Op::LdMatrix(m) | Op::StMatrix(m) => m.count(),
            _ => 0,
        };
        for (m, slot) in origins.iter_mut().enumerate().take(count as usize) {
            *slot = origin(m as u32);
        }
        TileAccess::from_fn(op, 1, |lane| {
            let (row, col) = origins[lane.index() / 8];
            Some((row.saturating_add(lane.get() % 8), col))
        })
    }

    /// The same access with every lane outside `mask` inactive.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{LaneSet, Op, TileAccess};
    ///
    /// // A 16-wide tile's row, read by the lower half-warp.
    /// let half = TileAccess::row(Op::Load, 0, 0, 1).with_mask(LaneSet::range(0, 16));
    /// assert_eq!(half.lanes(), LaneSet::range(0, 16));
    /// ```
    pub fn with_mask(mut self, mask: LaneSet) -> Self {
        self.active = self.active.intersection(mask);
        // Inactive lanes hold (0, 0), so that equal accesses compare equal.
        for lane in Lane::all().filter(|&lane| !self.active.contains(lane)) {
            self.elements[lane.index()] = (0, 0);
        }
        self
    }

    /// The operation.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet, Op, TileAccess};
    ///
    /// // float2 stores along row 4: tile2[4][lane].
    /// let access = TileAccess::row(Op::Store, 4, 0, 2);
    /// assert_eq!(access.op(), Op::Store);
    /// ```
    pub const fn op(&self) -> Op {
        self.op
    }

    /// Elements per lane, or `None` for ops whose fixed width decides it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet, Op, TileAccess};
    ///
    /// // float2 stores along row 4: tile2[4][lane].
    /// let access = TileAccess::row(Op::Store, 4, 0, 2);
    /// assert_eq!(access.vector(), Some(2));
    /// ```
    pub const fn vector(&self) -> Option<u32> {
        match self.op.fixed_width() {
            Some(_) => None,
            None => Some(self.vector),
        }
    }

    /// The active lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet, Op, TileAccess};
    ///
    /// // float2 stores along row 4: tile2[4][lane].
    /// let access = TileAccess::row(Op::Store, 4, 0, 2);
    /// assert_eq!(access.lanes(), LaneSet::FULL);
    /// ```
    pub const fn lanes(&self) -> LaneSet {
        self.active
    }

    /// The first element `lane` accesses, or `None` when it is inactive.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Lane, LaneSet, Op, TileAccess};
    ///
    /// // float2 stores along row 4: tile2[4][lane].
    /// let access = TileAccess::row(Op::Store, 4, 0, 2);
    /// assert_eq!(access.element(Lane::new(3)?), Some((4, 6)));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn element(&self, lane: Lane) -> Option<(u32, u32)> {
        self.active
            .contains(lane)
            .then(|| self.elements[lane.index()])
    }

    /// Each active lane with its first element, in lane order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{LaneSet, Op, TileAccess};
    ///
    /// let first_two = TileAccess::column(Op::Load, 0, 1, 1).with_mask(LaneSet::range(0, 2));
    /// let elements: Vec<(u32, (u32, u32))> =
    ///     first_two.elements().map(|(lane, element)| (lane.get(), element)).collect();
    /// assert_eq!(elements, [(0, (0, 1)), (1, (1, 1))]);
    /// ```
    pub fn elements(&self) -> impl Iterator<Item = (Lane, (u32, u32))> + '_ {
        self.active
            .iter()
            .map(|lane| (lane, self.elements[lane.index()]))
    }
}

/// `(ty, tx)` of the lane in a `w x w` block, or `None` past the block.
fn matmul_thread(w: u32, warp: u32, lane: Lane) -> Option<(u32, u32)> {
    let thread = warp
        .checked_mul(WARP_SIZE as u32)?
        .checked_add(lane.get())?;
    let ty = thread.checked_div(w)?;
    (ty < w).then(|| (ty, thread % w))
}

impl fmt::Debug for TileAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elements: [Option<(u32, u32)>; WARP_SIZE] =
            core::array::from_fn(|i| self.element(Lane::from_index(i)));
        f.debug_struct("TileAccess")
            .field("op", &self.op)
            .field("vector", &self.vector())
            .field("elements", &elements)
            .finish()
    }
}
