//! 2-D tile layouts: row-major with a row pitch (or as column tiles stored
//! one after another), optionally XOR-swizzled, placed at a base address.

use core::fmt;

use crate::{
    AccessWidth, Array, ComputeCapability, Element, Error, TileAccess, TmaSwizzle, WarpRequest,
    WARP_SIZE,
};

use super::Swizzle;

/// Where each element of a `rows x cols` tile lives in shared memory.
///
/// The tile is stored row-major with a row pitch of `pitch >= cols` elements
/// (the `pitch - cols` elements at the end of each row are padding), optionally
/// XOR-swizzled, from a base address. Element `(row, col)` lives at
///
/// ```text
/// base + element_bytes * swizzle(row * pitch + col)
/// ```
///
/// The swizzle acts on element offsets, as CuTe's
/// `composition(Swizzle<B, M, S>{}, layout)` does (see [`Swizzle`]). It is
/// applied to the offset within the tile, before the base is added: when the
/// base is a multiple of the swizzle's [period](Swizzle::period) (in elements,
/// times the element size: 1024 bytes for the 128-byte TMA mode), this is the
/// same as swizzling the address, as TMA does.
///
/// A tile may instead be stored as *column tiles*
/// ([`with_column_tiles`](Self::with_column_tiles)): its columns cut into
/// tiles of `T` columns, each tile stored packed row-major, the tiles one
/// after another, so `row * pitch + col` becomes
/// `(col / T) * rows * T + row * T + col % T` (pitch `T`) before the swizzle.
/// That is how Triton stores an NVMMA-swizzled tile whose rows are wider
/// than the swizzle ([`with_nvmma_swizzle`](Self::with_nvmma_swizzle)), and
/// how a tile filled by TMA boxes narrower than it lies.
///
/// A small `Copy` value: building one checks the shape, so every layout maps
/// distinct elements to distinct, in-bounds places.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, Swizzle, TileAccess, TileLayout};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // float tile[32][32]: reading column 0 puts all 32 lanes in bank 0.
/// let column = TileAccess::column(Op::Load, 0, 0, 1);
/// let plain = TileLayout::new(32, 32, 4)?;
/// assert_eq!(sm90.wavefronts(&plain.request(&column)?)?, 32);
/// // float tile[32][33]: one float of padding per row.
/// let padded = plain.with_padding(1)?;
/// assert_eq!(padded.offset(1, 0)?, 33 * 4);
/// assert_eq!(sm90.wavefronts(&padded.request(&column)?)?, 1);
/// // tile[row][col ^ row]: no extra bytes.
/// let swizzled = plain.with_swizzle(Swizzle::new(5, 0, 5)?)?;
/// assert_eq!(swizzled.offset(1, 0)?, (32 + 1) * 4);
/// assert_eq!(sm90.wavefronts(&swizzled.request(&column)?)?, 1);
/// assert_eq!((padded.extra_bytes(), swizzled.extra_bytes()), (128, 0));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileLayout {
    rows: u32,
    cols: u32,
    pitch: u32,
    element: AccessWidth,
    swizzle: Option<Swizzle>,
    base: u32,
    /// Columns one row of storage holds: `cols`, or fewer when the tile is
    /// stored as column tiles (then `pitch == tile_cols`).
    tile_cols: u32,
}

impl TileLayout {
    /// A packed row-major tile of `rows x cols` elements of `element_bytes`
    /// bytes: pitch `cols`, no swizzle, base 0.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`] unless `element_bytes` is 1, 2, 4, 8 or 16.
    /// - [`Error::EmptyTile`] when `rows` or `cols` is 0.
    /// - [`Error::SpanOverflow`] when the tile does not fit the 32-bit address space.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TileLayout};
    ///
    /// // __shared__ half tile[64][64];
    /// let tile = TileLayout::new(64, 64, 2)?;
    /// assert_eq!((tile.rows(), tile.cols(), tile.pitch(), tile.element_bytes()), (64, 64, 64, 2));
    /// assert_eq!(tile.bytes(), 8192);
    /// assert_eq!(TileLayout::new(0, 64, 2), Err(Error::EmptyTile { rows: 0, cols: 64 }));
    /// assert_eq!(TileLayout::new(8, 8, 12), Err(Error::InvalidWidth { width: 12 }));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn new(rows: u32, cols: u32, element_bytes: u32) -> Result<Self, Error> {
        // Not `AccessWidth::from_bytes`: a const fn cannot drop its `Result`.
        let element = match element_bytes {
            1 => AccessWidth::B1,
            2 => AccessWidth::B2,
            4 => AccessWidth::B4,
            8 => AccessWidth::B8,
            16 => AccessWidth::B16,
            width => return Err(Error::InvalidWidth { width }),
        };
        TileLayout {
            rows,
            cols,
            pitch: cols,
            element,
            swizzle: None,
            base: 0,
            tile_cols: cols,
        }
        .validated()
    }

    /// The tile held in the 2-D arena array `array`, of which the kernel uses
    /// the first `cols` columns: the array's row length is the pitch, its
    /// address the base.
    ///
    /// # Errors
    ///
    /// - [`Error::PitchTooSmall`] when `cols` is more than the array's columns.
    /// - [`Error::EmptyTile`] when `cols` is 0.
    /// - [`Error::InvalidWidth`] when the element type is not 1, 2, 4, 8 or 16
    ///   bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory, TileLayout};
    ///
    /// // __shared__ float tile[32][33]; of which 32 columns hold data.
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let array = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// let tile = TileLayout::from_array(array, 32)?;
    /// assert_eq!((tile.cols(), tile.pitch(), tile.padding()), (32, 33, 1));
    /// assert_eq!(tile.base(), array.address());
    /// assert_eq!(tile.address(1, 0)?, 0x400 + 33 * 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_array<T: Element>(array: Array<T>, cols: u32) -> Result<Self, Error> {
        // Arena arrays fit the 32-bit address space, so their shapes fit u32.
        let rows = array.rows() as u32;
        let pitch = array.cols() as u32;
        TileLayout::new(rows, pitch, T::SIZE)?
            .with_base(array.address())?
            .narrowed(cols)
    }

    fn narrowed(self, cols: u32) -> Result<Self, Error> {
        TileLayout {
            cols,
            tile_cols: cols,
            ..self
        }
        .validated()
    }

    /// The same tile with a row pitch of `pitch` elements.
    ///
    /// # Errors
    ///
    /// - [`Error::PitchTooSmall`] when `pitch < cols`.
    /// - [`Error::ColumnTiles`] when the tile is stored as column tiles
    ///   (they are packed) and `pitch` is not their width.
    /// - [`Error::SpanOverflow`] when the tile no longer fits the address space.
    /// - [`Error::SwizzleTile`] when the tile has a swizzle whose blocks no longer
    ///   divide its storage.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TileLayout};
    ///
    /// let tile = TileLayout::new(32, 32, 4)?.with_pitch(36)?;
    /// assert_eq!((tile.pitch(), tile.padding(), tile.bytes()), (36, 4, 32 * 36 * 4));
    /// assert_eq!(
    ///     TileLayout::new(32, 32, 4)?.with_pitch(31),
    ///     Err(Error::PitchTooSmall { pitch: 31, cols: 32 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_pitch(self, pitch: u32) -> Result<Self, Error> {
        TileLayout { pitch, ..self }.validated()
    }

    /// The same tile with `padding` elements after each row: pitch `cols +
    /// padding`.
    ///
    /// # Errors
    ///
    /// As [`with_pitch`](Self::with_pitch); a padding that overflows `u32` is an
    /// [`Error::SpanOverflow`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ double tile[16][17];
    /// let tile = TileLayout::new(16, 16, 8)?.with_padding(1)?;
    /// assert_eq!((tile.pitch(), tile.extra_bytes()), (17, 16 * 8));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_padding(self, padding: u32) -> Result<Self, Error> {
        match self.cols.checked_add(padding) {
            Some(pitch) => self.with_pitch(pitch),
            None => Err(Error::SpanOverflow {
                base: self.base,
                bytes: (self.cols as u64 + padding as u64)
                    * self.rows as u64
                    * self.element.bytes() as u64,
            }),
        }
    }

    /// The same tile, swizzled: element `(row, col)` at element offset
    /// `swizzle.apply(row * pitch + col)`.
    ///
    /// An identity swizzle (`bits == 0`) removes the swizzle.
    ///
    /// # Errors
    ///
    /// [`Error::SwizzleTile`] when the tile's storage (`rows * pitch` elements) is
    /// not a whole number of the swizzle's [blocks](Swizzle::block): some
    /// element would be moved out of the tile.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Swizzle, TileLayout};
    ///
    /// let swizzle = Swizzle::new(5, 0, 5)?;
    /// let tile = TileLayout::new(32, 32, 4)?.with_swizzle(swizzle)?;
    /// assert_eq!(tile.swizzle(), Some(swizzle));
    /// // A 3x10 tile cannot hold blocks of 32 elements.
    /// assert_eq!(
    ///     TileLayout::new(3, 10, 4)?.with_swizzle(swizzle),
    ///     Err(Error::SwizzleTile { block: 32, elements: 30 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_swizzle(self, swizzle: Swizzle) -> Result<Self, Error> {
        let swizzle = if swizzle.is_identity() {
            None
        } else {
            Some(swizzle)
        };
        TileLayout { swizzle, ..self }.validated()
    }

    /// The same tile, swizzled as TMA writes it in `mode`
    /// ([`TmaSwizzle::for_element`] of the element size).
    ///
    /// This is the layout a TMA load (`cp.async.bulk.tensor`) leaves in shared
    /// memory when the tile is its box, the rows are at most the mode's span
    /// and the base is aligned to the mode's period (256, 512 or 1024 bytes).
    ///
    /// # Errors
    ///
    /// - [`Error::TmaRowTooLong`] when a row (the pitch) is longer than the
    ///   mode's span, which `cuTensorMapEncodeTiled` refuses.
    /// - [`Error::SwizzleTile`] as [`with_swizzle`](Self::with_swizzle).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Swizzle, TileLayout, TmaSwizzle};
    ///
    /// // A 64-wide half tile: 128-byte rows, one 128B-swizzle span each.
    /// let tile = TileLayout::new(64, 64, 2)?.with_tma_swizzle(TmaSwizzle::B128)?;
    /// assert_eq!(tile.swizzle(), Some(Swizzle::new(3, 3, 3)?));
    /// // Row 1's first 16-byte chunk moves to chunk 1.
    /// assert_eq!(tile.offset(1, 0)?, 128 + 16);
    /// assert_eq!(
    ///     TileLayout::new(64, 64, 2)?.with_tma_swizzle(TmaSwizzle::B64),
    ///     Err(Error::TmaRowTooLong { row_bytes: 128, span: 64 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_tma_swizzle(self, mode: TmaSwizzle) -> Result<Self, Error> {
        let row_bytes = self.pitch as u64 * self.element.bytes() as u64;
        if row_bytes > mode.span() as u64 {
            return Err(Error::TmaRowTooLong {
                row_bytes,
                span: mode.span(),
            });
        }
        self.with_swizzle(mode.for_width(self.element.bytes()))
    }

    /// The same tile placed at `base`: every address is offset by it.
    ///
    /// # Errors
    ///
    /// [`Error::SpanOverflow`] when the tile would run past the end of the
    /// 32-bit address space.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TileLayout};
    ///
    /// // extern __shared__ float s[]; on sm_90, the dynamic window starts at 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_base(0x400)?;
    /// assert_eq!(tile.address(0, 1)?, 0x404);
    /// assert_eq!(
    ///     tile.with_base(u32::MAX - 8),
    ///     Err(Error::SpanOverflow { base: u32::MAX - 8, bytes: 4096 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_base(self, base: u32) -> Result<Self, Error> {
        TileLayout { base, ..self }.validated()
    }

    /// The same tile stored as column tiles of `tile_cols` columns: each
    /// `rows x tile_cols` tile packed row-major (pitch `tile_cols`), the tiles
    /// one after another from the left, so element `(row, col)` is at element
    /// offset `(col / tile_cols) * rows * tile_cols + row * tile_cols + col %
    /// tile_cols`, then swizzled. `tile_cols == cols` is the packed tile.
    ///
    /// Triton stores an NVMMA-swizzled tile whose rows are wider than the
    /// swizzle so ([`with_nvmma_swizzle`](Self::with_nvmma_swizzle)); a tile
    /// loaded by TMA boxes of `tile_cols` columns, each box after the last,
    /// lies so too.
    ///
    /// # Errors
    ///
    /// [`Error::ColumnTiles`] when `tile_cols` is 0 or does not divide `cols`,
    /// or the tile has padding; [`Error::SwizzleTile`] as
    /// [`with_swizzle`](Self::with_swizzle).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TileLayout};
    ///
    /// // 8 rows of 64 floats as two tiles of 32 columns: (0, 32) starts the second.
    /// let tile = TileLayout::new(8, 64, 4)?.with_column_tiles(32)?;
    /// assert_eq!(tile.offset(0, 32)?, 8 * 32 * 4);
    /// assert_eq!(tile.offset(1, 33)?, (8 * 32 + 32 + 1) * 4);
    /// assert_eq!((tile.pitch(), tile.tile_cols(), tile.bytes()), (32, 32, 8 * 64 * 4));
    /// assert_eq!(
    ///     TileLayout::new(8, 64, 4)?.with_column_tiles(24),
    ///     Err(Error::ColumnTiles { cols: 64, tile_cols: 24, padding: 0 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_column_tiles(self, tile_cols: u32) -> Result<Self, Error> {
        if self.padding() != 0 {
            return Err(Error::ColumnTiles {
                cols: self.cols,
                tile_cols,
                padding: self.padding(),
            });
        }
        TileLayout {
            tile_cols,
            pitch: tile_cols,
            ..self
        }
        .validated()
    }

    const fn validated(self) -> Result<Self, Error> {
        if self.rows == 0 || self.cols == 0 {
            return Err(Error::EmptyTile {
                rows: self.rows,
                cols: self.cols,
            });
        }
        let tiled = self.tile_cols != self.cols;
        if self.tile_cols == 0
            || !self.cols.is_multiple_of(self.tile_cols)
            || tiled && self.pitch != self.tile_cols
        {
            return Err(Error::ColumnTiles {
                cols: self.cols,
                tile_cols: self.tile_cols,
                padding: self.pitch.saturating_sub(self.tile_cols),
            });
        }
        if self.pitch < self.cols && !tiled {
            return Err(Error::PitchTooSmall {
                pitch: self.pitch,
                cols: self.cols,
            });
        }
        let elements = self.storage_elements();
        // Huge tiles overflow even 64 bits; saturating keeps the check right.
        let bytes = elements.saturating_mul(self.element.bytes() as u64);
        if (self.base as u64).saturating_add(bytes) > 1 << 32 {
            return Err(Error::SpanOverflow {
                base: self.base,
                bytes,
            });
        }
        if let Some(swizzle) = self.swizzle {
            if !elements.is_multiple_of(swizzle.block()) {
                return Err(Error::SwizzleTile {
                    block: swizzle.block(),
                    elements,
                });
            }
        }
        Ok(self)
    }

    /// Rows of the tile.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.rows(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns of the tile (elements of data per row).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.cols(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn cols(&self) -> u32 {
        self.cols
    }

    /// The row pitch in elements: `cols + padding`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.pitch(), 33);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn pitch(&self) -> u32 {
        self.pitch
    }

    /// Columns one row of storage holds: `cols`, or the width of the column
    /// tiles when the tile is stored as column tiles
    /// ([`with_column_tiles`](Self::with_column_tiles)).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // 64 floats a row under Triton's 128-byte NVMMA swizzle: tiles of 32 columns.
    /// let tile = TileLayout::new(64, 64, 4)?.with_nvmma_swizzle(128)?;
    /// assert_eq!(tile.tile_cols(), 32);
    /// assert_eq!(TileLayout::new(64, 64, 4)?.tile_cols(), 64);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn tile_cols(&self) -> u32 {
        self.tile_cols
    }

    /// Elements of storage: every row of every column tile, padding included.
    const fn storage_elements(&self) -> u64 {
        self.rows as u64 * self.pitch as u64 * (self.cols / self.tile_cols) as u64
    }

    /// Elements of padding after each row: `pitch - cols` (column tiles
    /// have none).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.padding(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn padding(&self) -> u32 {
        // Column tiles are packed; only a tile of one may be padded.
        self.pitch - self.tile_cols
    }

    /// The element size in bytes: 1, 2, 4, 8 or 16.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.element_bytes(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn element_bytes(&self) -> u32 {
        self.element.bytes()
    }

    /// The swizzle, if any.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.swizzle(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn swizzle(&self) -> Option<Swizzle> {
        self.swizzle
    }

    /// The address of the tile's storage.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.base(), 0x400);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn base(&self) -> u32 {
        self.base
    }

    /// Bytes of storage, padding included: `rows * pitch * element_bytes`
    /// (times the column tiles, when there are several).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.bytes(), 32 * 33 * 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn bytes(&self) -> u64 {
        self.storage_elements() * self.element.bytes() as u64
    }

    /// The element index of `(row, col)` as a C expression in `row` and
    /// `col`: the address is `base + element_bytes * index`.
    ///
    /// A padded tile gives `row * pitch + col`. A swizzled tile whose pitch is
    /// `2^c` elements and whose swizzle only XORs row bits into column bits
    /// (`M + B <= c <= M + S`) gives `row * pitch + (col ^ X)`, with `X` the
    /// row bits moved into the column: `((row / 2^(M + S - c)) % 2^B) * 2^M`,
    /// the constant factors left out where they are 1. Any other swizzle is
    /// written as CuTe's `Swizzle::apply` on `i = row * pitch + col`:
    /// `i ^ (((i >> (M + S)) % 2^B) * 2^M)`. Column tiles of `T` columns
    /// ([`with_column_tiles`](Self::with_column_tiles)) put `(col / T) *
    /// rows * T + ` first and `col % T` for `col`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Swizzle, TileLayout, TmaSwizzle};
    ///
    /// let float = TileLayout::new(32, 32, 4)?;
    /// assert_eq!(float.index_formula(), "row * 32 + col");
    /// assert_eq!(float.with_padding(1)?.index_formula(), "row * 33 + col");
    /// assert_eq!(
    ///     float.with_swizzle(Swizzle::new(5, 0, 5)?)?.index_formula(),
    ///     "row * 32 + (col ^ (row % 32))"
    /// );
    /// // The 128-byte TMA swizzle on a 64-column half tile.
    /// let half = TileLayout::new(64, 64, 2)?.with_tma_swizzle(TmaSwizzle::B128)?;
    /// assert_eq!(half.index_formula(), "row * 64 + (col ^ ((row % 8) * 8))");
    /// // Rows of 64 bytes under the 64-byte mode: a phase every two rows.
    /// let narrow = TileLayout::new(64, 32, 2)?.with_tma_swizzle(TmaSwizzle::B64)?;
    /// assert_eq!(narrow.index_formula(), "row * 32 + (col ^ ((row / 2 % 4) * 8))");
    /// // Rows of 64 bytes under the 128-byte mode: the XOR reaches the row.
    /// let wide = TileLayout::new(64, 32, 2)?.with_tma_swizzle(TmaSwizzle::B128)?;
    /// assert_eq!(wide.index_formula(), "i ^ (((i >> 6) % 8) * 8), i = row * 32 + col");
    /// // 64 floats a row under Triton's 128-byte NVMMA swizzle: two column tiles.
    /// let nvmma = TileLayout::new(64, 64, 4)?.with_nvmma_swizzle(128)?;
    /// assert_eq!(
    ///     nvmma.index_formula(),
    ///     "(col / 32) * 2048 + row * 32 + ((col % 32) ^ ((row % 8) * 4))"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn index_formula(&self) -> String {
        // Column tiles: the tile's start, then the row and column within it.
        let (start, col) = if self.tile_cols == self.cols {
            (String::new(), "col".to_owned())
        } else {
            (
                format!(
                    "(col / {}) * {} + ",
                    self.tile_cols,
                    self.rows as u64 * self.tile_cols as u64
                ),
                format!("col % {}", self.tile_cols),
            )
        };
        let linear = format!("{start}row * {} + {col}", self.pitch);
        let Some(swizzle) = self.swizzle else {
            return linear;
        };
        let (bits, base, shift) = (swizzle.bits(), swizzle.base(), swizzle.shift());
        let scaled = |term: String| {
            if base == 0 {
                term
            } else {
                format!("({term}) * {}", 1u64 << base)
            }
        };
        let c = self.pitch.trailing_zeros();
        // The XOR takes its bits from within one column tile's span only when
        // the span is whole periods of the swizzle.
        let span = self.rows as u64 * self.pitch as u64;
        let within_tile =
            self.tile_cols == self.cols || span.is_multiple_of(1u64 << (base + shift + bits));
        if self.pitch.is_power_of_two() && base + bits <= c && c <= base + shift && within_tile {
            let k = base + shift - c;
            let row = if k == 0 {
                "row".to_owned()
            } else {
                format!("row / {}", 1u64 << k)
            };
            let x = scaled(format!("{row} % {}", 1u64 << bits));
            let col = if self.tile_cols == self.cols {
                col
            } else {
                format!("({col})")
            };
            return format!("{start}row * {} + ({col} ^ ({x}))", self.pitch);
        }
        let x = scaled(format!("(i >> {}) % {}", base + shift, 1u64 << bits));
        format!("i ^ ({x}), i = {linear}")
    }

    /// Bytes of storage that hold no element: the padding.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // float tile[32][33]: 32 floats of padding.
    /// assert_eq!(TileLayout::new(32, 32, 4)?.with_padding(1)?.extra_bytes(), 128);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn extra_bytes(&self) -> u64 {
        self.rows as u64 * self.padding() as u64 * self.element.bytes() as u64
    }

    /// The element offset of `(row, col)` from the start of the storage.
    const fn element_index(&self, row: u32, col: u32) -> Result<u32, Error> {
        if row >= self.rows || col >= self.cols {
            return Err(self.outside(row, col));
        }
        Ok(self.index_in_bounds(row, col))
    }

    const fn outside(&self, row: u32, col: u32) -> Error {
        Error::OutsideTile {
            row,
            col,
            rows: self.rows,
            cols: self.cols,
        }
    }

    /// [`element_index`](Self::element_index) of an element known to be in the tile.
    const fn index_in_bounds(&self, row: u32, col: u32) -> u32 {
        // Below the storage's elements, which fit 2^32 bytes (checked when built).
        let index = if self.tile_cols == self.cols {
            row * self.pitch + col
        } else {
            (col / self.tile_cols) * self.rows * self.pitch
                + row * self.pitch
                + col % self.tile_cols
        };
        match self.swizzle {
            Some(swizzle) => swizzle.apply(index),
            None => index,
        }
    }

    /// The byte offset of element `(row, col)` from the tile's base.
    ///
    /// # Errors
    ///
    /// [`Error::OutsideTile`] when `row >= rows` or `col >= cols`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TileLayout};
    ///
    /// let tile = TileLayout::new(8, 8, 16)?.with_padding(1)?;
    /// assert_eq!(tile.offset(2, 3)?, (2 * 9 + 3) * 16);
    /// assert_eq!(
    ///     tile.offset(2, 8),
    ///     Err(Error::OutsideTile { row: 2, col: 8, rows: 8, cols: 8 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn offset(&self, row: u32, col: u32) -> Result<u32, Error> {
        if row >= self.rows || col >= self.cols {
            return Err(self.outside(row, col));
        }
        // The storage fits below 2^32 bytes, so this cannot overflow.
        Ok(self.index_in_bounds(row, col) * self.element.bytes())
    }

    /// The shared address of element `(row, col)`: `base + offset(row, col)`.
    ///
    /// # Errors
    ///
    /// [`Error::OutsideTile`] when `row >= rows` or `col >= cols`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TileLayout;
    ///
    /// // __shared__ float tile[32][33] at shared address 0x400.
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?.with_base(0x400)?;
    /// assert_eq!(tile.address(1, 2)?, 0x400 + 4 * (33 + 2));
    /// assert!(tile.address(32, 0).is_err());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn address(&self, row: u32, col: u32) -> Result<u32, Error> {
        if row >= self.rows || col >= self.cols {
            return Err(self.outside(row, col));
        }
        // base + bytes <= 2^32 (checked when built).
        Ok(self.base + self.index_in_bounds(row, col) * self.element.bytes())
    }

    /// The element stored at byte `offset` from the base, or `None` when the
    /// offset is padding, lies outside the storage or is not at the start of an
    /// element. The inverse of [`offset`](Self::offset).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Swizzle, TileLayout};
    ///
    /// let tile = TileLayout::new(32, 32, 4)?.with_padding(1)?;
    /// assert_eq!(tile.element_at(33 * 4), Some((1, 0)));
    /// assert_eq!(tile.element_at(32 * 4), None); // the padding of row 0
    /// let swizzled = TileLayout::new(32, 32, 4)?.with_swizzle(Swizzle::new(5, 0, 5)?)?;
    /// assert_eq!(swizzled.element_at(swizzled.offset(7, 9)?), Some((7, 9)));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn element_at(&self, offset: u32) -> Option<(u32, u32)> {
        let bytes = self.element.bytes();
        if !offset.is_multiple_of(bytes) {
            return None;
        }
        let index = offset / bytes;
        if index as u64 >= self.storage_elements() {
            return None;
        }
        // Every swizzle is its own inverse.
        let index = match self.swizzle {
            Some(swizzle) => swizzle.apply(index),
            None => index,
        };
        // rows * pitch <= the storage's elements < 2^32.
        let span = self.rows * self.pitch;
        let (tile, within) = (index / span, index % span);
        let (row, col) = (within / self.pitch, within % self.pitch);
        if col < self.tile_cols {
            Some((row, tile * self.tile_cols + col))
        } else {
            None
        }
    }

    /// Checks that the tile fits the shared memory one block of `capability`
    /// may have ([`ComputeCapability::max_shared_memory_per_block`]).
    ///
    /// # Errors
    ///
    /// [`Error::TileTooLarge`] when [`bytes`](Self::bytes) exceeds it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, TileLayout};
    ///
    /// // 128 x 128 floats: 64 KB, fine on an H100, too much for a Pascal block.
    /// let tile = TileLayout::new(128, 128, 4)?;
    /// assert_eq!(tile.check_fits(ComputeCapability::Sm90), Ok(()));
    /// assert_eq!(
    ///     tile.check_fits(ComputeCapability::Sm61),
    ///     Err(Error::TileTooLarge {
    ///         bytes: 65536,
    ///         limit: 49152,
    ///         capability: ComputeCapability::Sm61
    ///     })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn check_fits(&self, capability: ComputeCapability) -> Result<(), Error> {
        let limit = capability.max_shared_memory_per_block();
        if self.bytes() > limit as u64 {
            return Err(Error::TileTooLarge {
                bytes: self.bytes(),
                limit,
                capability,
            });
        }
        Ok(())
    }

    /// The warp request that `access` makes on this tile: each active lane's
    /// element (and the rest of its vector) turned into an address.
    ///
    /// The access width is the element size times the access's
    /// [vector](TileAccess::vector); for ops with a fixed width (16-byte
    /// `ldmatrix`/`stmatrix` rows, 4-byte atomics) it is the op's, and each lane
    /// covers that many bytes of consecutive elements.
    ///
    /// # Errors
    ///
    /// - [`Error::OutsideTile`] when a lane's element, or one of its vector, is
    ///   outside the tile.
    /// - [`Error::VectorSplit`] when the swizzle does not keep a lane's vector
    ///   contiguous.
    /// - [`Error::InvalidWidth`] when the element size times the vector is not
    ///   1, 2, 4, 8 or 16 bytes.
    /// - [`Error::WidthMismatch`] when the op's fixed width is not a whole number
    ///   of elements (an atomic on 8-byte elements).
    /// - [`Error::Misaligned`] when a lane's address is not a multiple of the
    ///   access width (a padded pitch can cause that).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Lane, Op, TileAccess, TileLayout};
    ///
    /// let tile = TileLayout::new(32, 32, 4)?.with_base(0x400)?;
    /// // float4 loads along row 2: lanes 0-7 cover the row.
    /// let row = TileAccess::row(Op::Load, 2, 0, 4).with_mask(smem_model::LaneSet::range(0, 8));
    /// let request = tile.request(&row)?;
    /// assert_eq!(request.width().bytes(), 16);
    /// assert_eq!(request.address(Lane::new(1)?), Some(0x400 + 2 * 128 + 16));
    /// // The full warp would run off the row.
    /// assert_eq!(
    ///     tile.request(&TileAccess::row(Op::Load, 2, 0, 4)),
    ///     Err(Error::OutsideTile { row: 2, col: 32, rows: 32, cols: 32 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn request(&self, access: &TileAccess) -> Result<WarpRequest, Error> {
        let op = access.op();
        let element = self.element.bytes();
        let (width, vector) = match op.fixed_width() {
            Some(fixed) => {
                let fixed = fixed.bytes();
                if fixed % element != 0 {
                    return Err(Error::WidthMismatch {
                        op,
                        width: element,
                        expected: fixed,
                    });
                }
                (fixed, fixed / element)
            }
            None => {
                let vector = access.vector().unwrap_or(1);
                (vector.saturating_mul(element), vector)
            }
        };
        // Checked here, before the vector loop below relies on it being small.
        AccessWidth::from_bytes(width)?;
        let mut addresses = [None; WARP_SIZE];
        for (lane, (row, col)) in access.elements() {
            let first = self.element_index(row, col)?;
            for k in 1..vector {
                let index = match col.checked_add(k) {
                    Some(next) => self.element_index(row, next)?,
                    None => return Err(self.outside(row, u32::MAX)),
                };
                if first.checked_add(k) != Some(index) {
                    return Err(Error::VectorSplit { row, col, vector });
                }
            }
            addresses[lane.index()] = Some(self.base + first * element);
        }
        WarpRequest::new(op, width, addresses)
    }
}

impl fmt::Display for TileLayout {
    /// Writes e.g. `32x32 of 4-byte elements, pitch 33` with `, column tiles
    /// of T`, `, Swizzle<B,M,S>` and ` at 0x400` when there are column tiles,
    /// a swizzle or a base.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}x{} of {}-byte elements, pitch {}",
            self.rows,
            self.cols,
            self.element.bytes(),
            self.pitch
        )?;
        if self.tile_cols != self.cols {
            write!(f, ", column tiles of {}", self.tile_cols)?;
        }
        if let Some(swizzle) = self.swizzle {
            write!(f, ", {swizzle}")?;
        }
        if self.base != 0 {
            write!(f, " at {:#x}", self.base)?;
        }
        Ok(())
    }
}
