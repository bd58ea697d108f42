//! XOR swizzles: CuTe's `Swizzle<B, M, S>` and the Hopper TMA swizzle modes.

use core::fmt;

use crate::Error;

/// An XOR swizzle in the sense of CuTe's `Swizzle<B, M, S>`: bits `[M, M + B)` of
/// an offset are XORed with bits `[M + S, M + S + B)`.
///
/// Source: CUTLASS, `include/cute/swizzle.hpp` (`Swizzle::apply`: the `B` bits
/// found `S` places above bit `M` are shifted down and XORed in; the higher
/// bits are left as they are). As there, the parameters are the number of bits
/// `B`, the base `M` (the `M` lowest bits are never changed, so runs of `2^M`
/// consecutive offsets stay together) and the shift `S`; CuTe's condition
/// `S >= B` keeps the two ranges apart, which makes every swizzle its own
/// inverse.
///
/// # Offsets are in elements
///
/// A swizzle maps integers; what they count is decided by what it is composed
/// with. In CuTe's `composition(Swizzle<B, M, S>{}, layout)` it acts on the
/// layout's offsets, which count elements, and so it does here: a
/// [`TileLayout`](crate::TileLayout) applies its swizzle to the element offset
/// `row * pitch + col` and only then multiplies by the element size. Acting on
/// elements means a swizzle can never split an element. The byte-address forms
/// that CUTLASS uses for its shared-memory atoms (and that TMA applies) are
/// converted with [`TmaSwizzle::for_element`].
///
/// CuTe also allows a negative shift (XORing low bits into high ones); no
/// shared-memory layout in use needs one, and this type does not model it.
///
/// # Example
///
/// ```
/// use smem_model::Swizzle;
///
/// // The classic transpose swizzle of a 32x32 float tile: column ^= row, i.e.
/// // bits [0, 5) of the offset row * 32 + col XORed with bits [5, 10).
/// let swizzle = Swizzle::new(5, 0, 5)?;
/// let (row, col) = (3, 1);
/// assert_eq!(swizzle.apply(row * 32 + col), row * 32 + (col ^ row));
/// // Its own inverse.
/// assert_eq!(swizzle.apply(swizzle.apply(100)), 100);
/// assert_eq!(swizzle.to_string(), "Swizzle<5,0,5>");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle {
    bits: u8,
    base: u8,
    shift: u8,
}

impl Swizzle {
    /// The swizzle `Swizzle<bits, base, shift>`.
    ///
    /// `bits == 0` is the identity, as CuTe's `Swizzle<0, M, S>`.
    ///
    /// # Errors
    ///
    /// - [`Error::SwizzleOverlap`] when `shift < bits`: the ranges would overlap.
    /// - [`Error::SwizzleWidth`] when `base + shift + bits > 32`: the swizzle would
    ///   read bits a 32-bit offset does not have.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Error, Swizzle};
    ///
    /// let sw = Swizzle::new(3, 4, 3)?;
    /// assert_eq!((sw.bits(), sw.base(), sw.shift()), (3, 4, 3));
    /// assert_eq!(Swizzle::new(3, 0, 2), Err(Error::SwizzleOverlap { bits: 3, shift: 2 }));
    /// assert_eq!(
    ///     Swizzle::new(4, 20, 10),
    ///     Err(Error::SwizzleWidth { bits: 4, base: 20, shift: 10 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn new(bits: u32, base: u32, shift: u32) -> Result<Self, Error> {
        if shift < bits {
            return Err(Error::SwizzleOverlap { bits, shift });
        }
        // Widened so that absurd inputs cannot overflow the check itself.
        if base as u64 + shift as u64 + bits as u64 > 32 {
            return Err(Error::SwizzleWidth { bits, base, shift });
        }
        Ok(Swizzle {
            bits: bits as u8,
            base: base as u8,
            shift: shift as u8,
        })
    }

    /// The number of bits XORed (`B`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Swizzle;
    ///
    /// // CUTLASS's Swizzle<3, 4, 3>.
    /// let swizzle = Swizzle::new(3, 4, 3)?;
    /// assert_eq!(swizzle.bits(), 3);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn bits(self) -> u32 {
        self.bits as u32
    }

    /// The lowest bit changed (`M`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Swizzle;
    ///
    /// // CUTLASS's Swizzle<3, 4, 3>.
    /// let swizzle = Swizzle::new(3, 4, 3)?;
    /// assert_eq!(swizzle.base(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn base(self) -> u32 {
        self.base as u32
    }

    /// How far above the changed bits the bits XORed into them lie (`S`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Swizzle;
    ///
    /// // CUTLASS's Swizzle<3, 4, 3>.
    /// let swizzle = Swizzle::new(3, 4, 3)?;
    /// assert_eq!(swizzle.shift(), 3);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn shift(self) -> u32 {
        self.shift as u32
    }

    /// Whether the swizzle changes nothing (`bits == 0`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Swizzle;
    ///
    /// // CUTLASS's "interleaved" GMMA atom, Swizzle<0,4,3>, is no swizzle at all.
    /// assert!(Swizzle::new(0, 4, 3)?.is_identity());
    /// assert!(!Swizzle::new(1, 4, 3)?.is_identity());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn is_identity(self) -> bool {
        self.bits == 0
    }

    /// The swizzled offset: `offset ^ ((offset >> S) & (((1 << B) - 1) << M))`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Swizzle;
    ///
    /// // TMA's 128-byte mode on byte addresses: the 16-byte chunk of a 128-byte
    /// // row is XORed with the row number modulo 8.
    /// let sw128 = Swizzle::new(3, 4, 3)?;
    /// let (row, chunk) = (5, 2);
    /// assert_eq!(sw128.apply(row * 128 + chunk * 16), row * 128 + (chunk ^ row) * 16);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn apply(self, offset: u32) -> u32 {
        if self.bits == 0 {
            // Also avoids a shift by 32 when `shift` is 32.
            return offset;
        }
        let mask = ((1u32 << self.bits) - 1) << self.base;
        offset ^ ((offset >> self.shift) & mask)
    }

    /// The size of the aligned blocks of offsets the swizzle permutes among
    /// themselves: `2^(M + B)`.
    ///
    /// A swizzle only changes bits below `M + B`, so it maps every aligned
    /// block of this many offsets onto itself; a tile whose storage is a whole
    /// number of blocks keeps its elements inside it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Swizzle;
    ///
    /// assert_eq!(Swizzle::new(5, 0, 5)?.block(), 32);
    /// assert_eq!(Swizzle::new(3, 4, 3)?.block(), 128);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn block(self) -> u64 {
        1 << (self.base + self.bits)
    }

    /// The period after which the pattern repeats: `2^(M + S + B)`.
    ///
    /// For the TMA modes (on bytes) this is the repeat the PTX ISA gives for
    /// them: 256, 512 and 1024 bytes. A buffer aligned to it is swizzled the
    /// same whether the swizzle is applied to offsets in the buffer or to
    /// addresses.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TmaSwizzle;
    ///
    /// assert_eq!(TmaSwizzle::B128.byte_swizzle().period(), 1024);
    /// assert_eq!(TmaSwizzle::B32.byte_swizzle().period(), 256);
    /// ```
    pub const fn period(self) -> u64 {
        1 << (self.base + self.shift + self.bits)
    }
}

impl fmt::Display for Swizzle {
    /// Writes `Swizzle<B,M,S>`, as CuTe's `Swizzle` template is spelt.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Swizzle<{},{},{}>", self.bits, self.base, self.shift)
    }
}

/// The swizzle modes of Hopper's Tensor Memory Accelerator
/// (`CUtensorMapSwizzle`, compute capability 9.0 and later).
///
/// Each mode permutes the 16-byte chunks of a 32-, 64- or 128-byte span by
/// XORing the chunk index with the row (the next address bits); in CuTe's terms
/// they are `Swizzle<1,4,3>`, `Swizzle<2,4,3>` and `Swizzle<3,4,3>` on byte
/// addresses, repeating every 256, 512 and 1024 bytes.
///
/// Sources: CUDA Driver API, "Tensor Map Object Management"
/// (`CUtensorMapSwizzle`: `CU_TENSOR_MAP_SWIZZLE_32B/64B/128B` swizzle 16-byte
/// chunks within a 32/64/128-byte span; `cuTensorMapEncodeTiled` requires the
/// inner box dimension in bytes to be at most the span); CUTLASS,
/// `include/cute/atom/mma_traits_sm90_gmma.hpp` (`Layout_K_SW32_Atom_Bits`,
/// `Layout_K_SW64_Atom_Bits`, `Layout_K_SW128_Atom_Bits`: those three swizzles
/// applied to the shared-memory byte address); PTX ISA, tensor swizzling modes
/// (the repeat periods). The `128B_ATOM_*` modes that CUDA 12.8 added for
/// compute capability 10.0 are not modelled.
///
/// # Example
///
/// ```
/// use smem_model::{Swizzle, TmaSwizzle};
///
/// let mode = TmaSwizzle::B128;
/// assert_eq!(mode.span(), 128);
/// assert_eq!(mode.byte_swizzle(), Swizzle::new(3, 4, 3)?);
/// // On 2-byte elements (half, bf16) the same mode swizzles chunks of 8 elements.
/// assert_eq!(mode.for_element(2)?, Swizzle::new(3, 3, 3)?);
/// assert_eq!(mode.to_string(), "TMA 128B swizzle");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TmaSwizzle {
    /// `CU_TENSOR_MAP_SWIZZLE_32B`: 16-byte chunks within 32 bytes.
    B32,
    /// `CU_TENSOR_MAP_SWIZZLE_64B`: 16-byte chunks within 64 bytes.
    B64,
    /// `CU_TENSOR_MAP_SWIZZLE_128B`: 16-byte chunks within 128 bytes.
    B128,
}

impl TmaSwizzle {
    /// All three modes, narrowest first.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TmaSwizzle;
    ///
    /// assert_eq!(TmaSwizzle::ALL[0], TmaSwizzle::B32);
    /// ```
    pub const ALL: [TmaSwizzle; 3] = [TmaSwizzle::B32, TmaSwizzle::B64, TmaSwizzle::B128];

    /// The span in bytes whose 16-byte chunks are permuted: 32, 64 or 128.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TmaSwizzle;
    ///
    /// assert_eq!(TmaSwizzle::B128.span(), 128);
    /// ```
    pub const fn span(self) -> u32 {
        match self {
            TmaSwizzle::B32 => 32,
            TmaSwizzle::B64 => 64,
            TmaSwizzle::B128 => 128,
        }
    }

    const fn bits(self) -> u32 {
        match self {
            TmaSwizzle::B32 => 1,
            TmaSwizzle::B64 => 2,
            TmaSwizzle::B128 => 3,
        }
    }

    /// The mode as a swizzle of byte addresses: `Swizzle<B,4,3>` with
    /// `B` = 1, 2 or 3.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::TmaSwizzle;
    ///
    /// let sw = TmaSwizzle::B64.byte_swizzle();
    /// assert_eq!((sw.bits(), sw.base(), sw.shift()), (2, 4, 3));
    /// ```
    pub const fn byte_swizzle(self) -> Swizzle {
        Swizzle {
            bits: self.bits() as u8,
            base: 4,
            shift: 3,
        }
    }

    /// The mode as a swizzle of the offsets of `element_bytes`-byte elements,
    /// the form a [`TileLayout`](crate::TileLayout) uses: `Swizzle<B, 4 -
    /// log2(element_bytes), 3>`.
    ///
    /// Equal to [`byte_swizzle`](Self::byte_swizzle) on every byte address
    /// (elements are at most 16 bytes, so the 16-byte chunks are whole
    /// elements).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidWidth`] unless `element_bytes` is 1, 2, 4, 8 or 16.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Swizzle, TmaSwizzle};
    ///
    /// // float: 16-byte chunks are 4 elements.
    /// assert_eq!(TmaSwizzle::B128.for_element(4)?, Swizzle::new(3, 2, 3)?);
    /// // float4: one element per chunk.
    /// assert_eq!(TmaSwizzle::B32.for_element(16)?, Swizzle::new(1, 0, 3)?);
    /// assert!(TmaSwizzle::B32.for_element(12).is_err());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn for_element(self, element_bytes: u32) -> Result<Swizzle, Error> {
        match element_bytes {
            1 | 2 | 4 | 8 | 16 => Ok(self.for_width(element_bytes)),
            width => Err(Error::InvalidWidth { width }),
        }
    }

    /// [`for_element`](Self::for_element) of an element size known to be valid.
    pub(crate) const fn for_width(self, element_bytes: u32) -> Swizzle {
        Swizzle {
            bits: self.bits() as u8,
            base: (4 - element_bytes.trailing_zeros()) as u8,
            shift: 3,
        }
    }
}

impl fmt::Display for TmaSwizzle {
    /// Writes `TMA 32B swizzle`, `TMA 64B swizzle` or `TMA 128B swizzle`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TMA {}B swizzle", self.span())
    }
}
