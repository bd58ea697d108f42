//! Layouts by the names Triton gives them: its swizzled shared encoding
//! (`vec`, `perPhase`, `maxPhase`) and its NVMMA shared encoding (a swizzle
//! width in bytes), each the CuTe [`Swizzle`] it amounts to on a tile.

use core::fmt;

use crate::{Error, Swizzle, TileLayout};

/// Triton's swizzled shared-memory encoding,
/// `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`
/// (`SwizzledSharedEncodingAttr`; `#triton_gpu.shared` before Triton 3.3).
///
/// Element `(row, col)` of a tile of `cols` columns (the dimension
/// `order[0]`, the contiguous one) is stored at
///
/// ```text
/// row * cols + (col ^ ((vec * ((row / perPhase) % maxPhase)) % cols))
/// ```
///
/// Source: Triton, `lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`,
/// `sharedToLinearLayoutNoLeadingOffset` (the layout's bases: column `2^k`
/// at offset `2^k`, and row `2^k` at `(2^k, (vec * ((2^k / perPhase) %
/// maxPhase)) % numCols)`), for power-of-two shapes and parameters, as
/// Triton's tensors and encodings have. That is CuTe's
/// `Swizzle<log2(min(maxPhase, cols / vec)), log2(vec), log2(cols * perPhase
/// / vec)>` on element offsets ([`swizzle`](Self::swizzle)), which is how a
/// [`TileLayout`] holds it. Tested against the examples of Triton's
/// `unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp`
/// (`SharedSwizzled2D_*`, `LeadingOffset_*`).
///
/// # Example
///
/// ```
/// use smem_model::{Swizzle, TileLayout, TritonShared};
///
/// // fp16 A operand of a 64-wide K block: vec 8, perPhase 1, maxPhase 8.
/// let shared = TritonShared::new(8, 1, 8)?;
/// assert_eq!(shared.swizzle(64)?, Swizzle::new(3, 3, 3)?);
/// let tile = TileLayout::new(128, 64, 2)?.with_triton_shared(shared)?;
/// assert_eq!(tile.index_formula(), "row * 64 + (col ^ ((row % 8) * 8))");
/// assert_eq!(shared.to_string(), "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8}>");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TritonShared {
    vec: u32,
    per_phase: u32,
    max_phase: u32,
}

impl TritonShared {
    /// The encoding with these parameters.
    ///
    /// # Errors
    ///
    /// [`Error::TritonParameter`] unless each is a power of two (1, 2, 4, ...)
    /// up to 2^16.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TritonShared};
    ///
    /// assert!(TritonShared::new(4, 2, 4).is_ok());
    /// assert_eq!(
    ///     TritonShared::new(3, 1, 8),
    ///     Err(Error::TritonParameter { name: "vec", value: 3 })
    /// );
    /// ```
    pub const fn new(vec: u32, per_phase: u32, max_phase: u32) -> Result<Self, Error> {
        let checks = [
            ("vec", vec),
            ("perPhase", per_phase),
            ("maxPhase", max_phase),
        ];
        let mut i = 0;
        while i < checks.len() {
            let (name, value) = checks[i];
            if !value.is_power_of_two() || value > 1 << 16 {
                return Err(Error::TritonParameter { name, value });
            }
            i += 1;
        }
        Ok(TritonShared {
            vec,
            per_phase,
            max_phase,
        })
    }

    /// The swizzle pattern of Triton's NVMMA shared encoding,
    /// `#ttg.nvmma_shared<{swizzlingByteWidth = W, elementBitWidth = 8 * element_bytes}>`
    /// (`NVMMASharedEncodingAttr`), within one W-byte-wide column of the tile:
    /// `vec = 16 / element_bytes` and `(perPhase, maxPhase)` = (4, 2), (2, 4)
    /// or (1, 8) for W = 32, 64 or 128; W = 0 is no swizzle.
    ///
    /// Source: Triton, `LinearLayoutConversions.cpp`,
    /// `sharedToLinearLayoutLeadingOffset` (`vec = 128 / elemBitWidth`, the
    /// three `(perPhase, maxPhase)` pairs, tiles of 8 rows and `8 * W /
    /// elemBitWidth` columns). On rows of exactly W bytes it is the TMA mode of
    /// that span ([`TmaSwizzle`](crate::TmaSwizzle)).
    ///
    /// # Errors
    ///
    /// [`Error::NvmmaSwizzle`] unless `swizzle_bytes` is 0, 32, 64 or 128;
    /// [`Error::InvalidWidth`] unless `element_bytes` is 1, 2, 4, 8 or 16.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TritonShared;
    ///
    /// let fp16_128 = TritonShared::nvmma(128, 2)?;
    /// assert_eq!((fp16_128.vec(), fp16_128.per_phase(), fp16_128.max_phase()), (8, 1, 8));
    /// let fp32_64 = TritonShared::nvmma(64, 4)?;
    /// assert_eq!((fp32_64.vec(), fp32_64.per_phase(), fp32_64.max_phase()), (4, 2, 4));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn nvmma(swizzle_bytes: u32, element_bytes: u32) -> Result<Self, Error> {
        let vec = match element_bytes {
            1 | 2 | 4 | 8 | 16 => 16 / element_bytes,
            width => return Err(Error::InvalidWidth { width }),
        };
        let (per_phase, max_phase) = match swizzle_bytes {
            0 => (1, 1),
            32 => (4, 2),
            64 => (2, 4),
            128 => (1, 8),
            bytes => return Err(Error::NvmmaSwizzle { bytes }),
        };
        Ok(TritonShared {
            vec,
            per_phase,
            max_phase,
        })
    }

    /// `vec`: elements that move together (the swizzle's unit).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TritonShared;
    ///
    /// assert_eq!(TritonShared::new(8, 1, 8)?.vec(), 8);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn vec(&self) -> u32 {
        self.vec
    }

    /// `perPhase`: consecutive rows that share a phase.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TritonShared;
    ///
    /// assert_eq!(TritonShared::new(8, 2, 4)?.per_phase(), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn per_phase(&self) -> u32 {
        self.per_phase
    }

    /// `maxPhase`: phases before the pattern repeats.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TritonShared;
    ///
    /// assert_eq!(TritonShared::new(8, 2, 4)?.max_phase(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn max_phase(&self) -> u32 {
        self.max_phase
    }

    /// The CuTe swizzle this encoding is on the element offsets of a tile of
    /// `cols` columns: `Swizzle<log2(min(maxPhase, cols / vec)),
    /// log2(vec), log2(cols * perPhase / vec)>`, the identity when `vec >= cols`
    /// or `maxPhase` is 1 (Triton's `% numCols` drops the phase bits past the
    /// row).
    ///
    /// # Errors
    ///
    /// [`Error::TritonShape`] unless `cols` is a power of two (Triton's shapes
    /// are); [`Error::SwizzleWidth`] when the offsets would need more than 32
    /// bits.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Swizzle, TritonShared};
    ///
    /// // maxPhase 8 on 32 columns of vec 8: only 4 phases fit the row.
    /// assert_eq!(TritonShared::new(8, 1, 8)?.swizzle(32)?, Swizzle::new(2, 3, 2)?);
    /// assert!(TritonShared::new(8, 1, 8)?.swizzle(8)?.is_identity());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn swizzle(&self, cols: u32) -> Result<Swizzle, Error> {
        if !cols.is_power_of_two() {
            return Err(Error::TritonShape { cols });
        }
        let (c, m, p) = (
            cols.trailing_zeros(),
            self.vec.trailing_zeros(),
            self.per_phase.trailing_zeros(),
        );
        if m >= c || self.max_phase == 1 {
            return Swizzle::new(0, 0, 0);
        }
        let phases = self.max_phase.trailing_zeros();
        let bits = if phases < c - m { phases } else { c - m };
        Swizzle::new(bits, m, c + p - m)
    }
}

impl fmt::Display for TritonShared {
    /// Writes the encoding as Triton's IR prints it, without `order` and the
    /// CTA layout: `#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8}>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}}}>",
            self.vec, self.per_phase, self.max_phase
        )
    }
}

impl TileLayout {
    /// This packed tile under Triton's swizzled shared encoding: columns are
    /// the contiguous dimension (`order[0]`).
    ///
    /// # Errors
    ///
    /// [`Error::TritonPadded`] when the tile has padding (Triton's encoding has
    /// none); those of [`TritonShared::swizzle`] and
    /// [`with_swizzle`](Self::with_swizzle).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{TileLayout, TritonShared};
    ///
    /// // Triton's SharedSwizzled2D_PerPhaseMaxPhaseVec: row 2 moves by 2, row 4 by 4.
    /// let tile = TileLayout::new(32, 32, 2)?.with_triton_shared(TritonShared::new(2, 2, 4)?)?;
    /// assert_eq!(tile.element_at(2 * (2 * 32)), Some((2, 2)));
    /// assert_eq!(tile.element_at(2 * (4 * 32)), Some((4, 4)));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn with_triton_shared(self, shared: TritonShared) -> Result<Self, Error> {
        if self.padding() != 0 {
            return Err(Error::TritonPadded {
                padding: self.padding(),
            });
        }
        // The swizzle acts on a row of storage: a column tile's, if any.
        self.with_swizzle(shared.swizzle(self.tile_cols())?)
    }

    /// This packed tile under Triton's NVMMA shared encoding with a swizzle
    /// width of `swizzle_bytes` (0, 32, 64 or 128), the layout Hopper's
    /// `wgmma` and TMA read: columns are the contiguous dimension.
    ///
    /// Rows of exactly `swizzle_bytes` are swizzled as
    /// [`TritonShared::nvmma`] says. Wider rows are cut into column tiles of
    /// `swizzle_bytes` ([`with_column_tiles`](Self::with_column_tiles)), each
    /// `rows` high and swizzled alike, stored one after another; without a
    /// swizzle the tile is row-major in column tiles of 256 elements (at most
    /// 256 a row: plain row-major up to there). Narrower rows Triton refuses.
    ///
    /// Source: Triton, `lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`,
    /// `nvmmaSharedToLinearLayout`: the core matrix of 8 rows and `8 *
    /// swizzlingByteWidth / elementBitWidth` columns (`getCoreMatrixLinearLayout`)
    /// is extended by `ensureLayoutNotSmallerThan` over the TMA block, then
    /// over the whole shape, rows (dim 0) before columns, so the rows of one
    /// column tile come first; the TMA block's contiguous dimension is the
    /// swizzle's width, or at most 256 elements without a swizzle
    /// (`getTMABlockShape` in `lib/Dialect/TritonNvidiaGPU/Transforms/TMAUtilities.cpp`,
    /// which also refuses rows narrower than the swizzle). Checked against
    /// `LeadingOffset_8x64_1_8_32b`, `LeadingOffset_128x128_1_8_128b_transposed`
    /// and `LeadingOffset_32x4x64_1_8_32b` of Triton's
    /// `unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp`
    /// (tests/tile.rs). Triton's `fp4Padded` form is not modelled.
    ///
    /// # Errors
    ///
    /// [`Error::NvmmaRow`] when a row is narrower than `swizzle_bytes`;
    /// [`Error::ColumnTiles`] when the swizzle's width does not divide a wider
    /// row (Triton's shapes are powers of two); those of
    /// [`TritonShared::nvmma`] and [`with_triton_shared`](Self::with_triton_shared).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, TileLayout, TmaSwizzle};
    ///
    /// // A 128 x 64 fp16 block with the 128-byte swizzle: the TMA mode's layout.
    /// let nvmma = TileLayout::new(128, 64, 2)?.with_nvmma_swizzle(128)?;
    /// let tma = TileLayout::new(128, 64, 2)?.with_tma_swizzle(TmaSwizzle::B128)?;
    /// assert_eq!(nvmma, tma);
    /// // 64 fp32 a row: two 128-byte column tiles, the second after all 128 rows of the first.
    /// let wide = TileLayout::new(128, 64, 4)?.with_nvmma_swizzle(128)?;
    /// assert_eq!(wide.offset(0, 32)?, 128 * 128);
    /// assert_eq!(
    ///     TileLayout::new(128, 16, 2)?.with_nvmma_swizzle(64),
    ///     Err(Error::NvmmaRow { row_bytes: 32, swizzle_bytes: 64 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn with_nvmma_swizzle(self, swizzle_bytes: u32) -> Result<Self, Error> {
        // getTMABlockShape: at most 256 elements in each dimension of a block.
        const BLOCK_COLS: u32 = 256;
        if swizzle_bytes == 0 && self.padding() == 0 {
            return if self.cols() > BLOCK_COLS {
                self.with_column_tiles(BLOCK_COLS)
            } else {
                Ok(self)
            };
        }
        let shared = TritonShared::nvmma(swizzle_bytes, self.element_bytes())?;
        let row_bytes = self.cols() as u64 * self.element_bytes() as u64;
        if row_bytes < swizzle_bytes as u64 {
            return Err(Error::NvmmaRow {
                row_bytes,
                swizzle_bytes,
            });
        }
        // A padded tile is refused by name below, not re-tiled.
        let tile_cols = swizzle_bytes / self.element_bytes();
        let tiled = if self.cols() > tile_cols && self.padding() == 0 {
            self.with_column_tiles(tile_cols)?
        } else {
            self
        };
        tiled.with_triton_shared(shared)
    }
}
