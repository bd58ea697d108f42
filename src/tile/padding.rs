//! The classic padding advice: how many elements of padding per row make a
//! column access conflict-free.

use crate::{BankConfig, Error, Op, TileLayout, WarpRequest};

/// The longest period of any capability's address-to-bank map, in bytes: 32
/// banks of 8 bytes (Kepler's eight-byte mode; also its four-byte mode, whose
/// 64-bit bank rows pair words `i` and `i + 32` of 256-byte segments). The
/// banks of a column depend on the row pitch only modulo this.
const BANK_PERIOD: u64 = 256;

impl TileLayout {
    /// The fewest elements of padding per row that make a warp's column
    /// access conflict-free: the smallest `p` for which 32 lanes reading one
    /// `element_bytes`-byte element each from 32 consecutive rows of pitch
    /// `cols + p` take only the ideal number of wavefronts under `config`.
    /// `None` when no padding does.
    ///
    /// The classic advice (the CUDA Best Practices Guide's transpose) is "pad each
    /// row by one element". The model agrees for
    /// 4-, 8- and 16-byte elements on 32 four-byte banks, whatever the row
    /// length (unless the row is already fine, as a 33-float row is), but not
    /// for narrower elements: rows of 128 bytes of halves or chars need a whole
    /// word of padding, since with less two lanes still land in different words
    /// of one bank (half rows of 65 elements are 130 bytes apart: lane 0 reads
    /// word 0, lane 1 word 32, both in bank 0). The search is made with the
    /// model, so it covers every capability and element size; it tries paddings
    /// up to one period of the bank map (256 bytes), beyond which the banks
    /// repeat. It finds none where accesses of that size always conflict: on
    /// 2.x for 16-byte elements (an extra step per quarter-warp), on 1.x for
    /// elements wider than 4 bytes (split into 32-bit accesses), and on 3.x in
    /// four-byte mode for 8- and 16-byte elements (rows that far apart never
    /// share a 64-bit bank row).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidWidth`] unless `element_bytes` is 1, 2, 4, 8 or 16,
    /// [`Error::EmptyTile`] when `cols` is 0, and [`Error::SpanOverflow`] when
    /// a row does not fit the 32-bit address space.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, TileLayout};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // float tile[32][32 + 1], double tile[32][32 + 1], float4 tile[32][32 + 1].
    /// assert_eq!(TileLayout::column_padding(sm90, 4, 32)?, Some(1));
    /// assert_eq!(TileLayout::column_padding(sm90, 8, 32)?, Some(1));
    /// assert_eq!(TileLayout::column_padding(sm90, 16, 32)?, Some(1));
    /// // A 33-float row needs none.
    /// assert_eq!(TileLayout::column_padding(sm90, 4, 33)?, Some(0));
    /// // 128-byte rows of halves and chars need a word: half tile[64][64 + 2].
    /// assert_eq!(TileLayout::column_padding(sm90, 2, 64)?, Some(2));
    /// assert_eq!(TileLayout::column_padding(sm90, 1, 128)?, Some(4));
    /// // Fermi serves 16-byte accesses with an extra step: nothing helps.
    /// let fermi = BankConfig::new(ComputeCapability::Sm20);
    /// assert_eq!(TileLayout::column_padding(fermi, 16, 32)?, None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn column_padding(
        config: BankConfig,
        element_bytes: u32,
        cols: u32,
    ) -> Result<Option<u32>, Error> {
        // Validates the element size and the row.
        let row = TileLayout::new(1, cols, element_bytes)?;
        let element = u64::from(row.element_bytes());
        for padding in 0..BANK_PERIOD / element {
            let pitch = (u64::from(cols) + padding) * element;
            // Long rows would put lane 31 past the shared window; a pitch with
            // the same remainder modulo the period, kept at least one period
            // long so that no two lanes share a word either way, has the same
            // banks and the same conflicts.
            let pitch = if pitch < 2 * BANK_PERIOD {
                pitch
            } else {
                BANK_PERIOD + pitch % BANK_PERIOD
            };
            let column = WarpRequest::from_fn(Op::Load, element_bytes, |lane| {
                Some((u64::from(lane.get()) * pitch) as u32)
            })?;
            let partition = config.partition(&column)?;
            if partition.bank_conflicts() == 0 {
                return Ok(Some(padding as u32));
            }
        }
        Ok(None)
    }
}
