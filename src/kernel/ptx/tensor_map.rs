//! Tensor maps (`CUtensorMap`): what a TMA copy (`cp.async.bulk.tensor`)
//! moves between global and shared memory, given as their fields.
//!
//! A TMA kernel takes a 128-byte `CUtensorMap` that the host encodes with
//! `cuTensorMapEncodeTiled` (CUDA Driver API, tensor map object management)
//! or that Triton builds from a `TensorDescriptor`; its bytes are opaque, so
//! a launch gives its fields instead: the tensor's dimensions and strides in
//! global memory, the box a copy moves, the element size, the shared-memory
//! swizzle, the interleave and the out-of-bounds fill. Dimensions are given
//! **outermost first**, as a tensor's shape is written in PyTorch and in
//! Triton's `block_shape` (`dims:4096x64` is 4,096 rows of 64 elements);
//! `cuTensorMapEncodeTiled` and the coordinates of a PTX tensor copy take
//! them innermost first.
//!
//! What a tile-mode load writes into shared memory (measured on an H200,
//! `tools/device/s4e`, tests/data/ptx/tma_layout): the box's elements in
//! row-major order (innermost dimension fastest) from the destination
//! address, each row of the innermost dimension packed, rows
//! [`TensorMap::row_pitch`] apart (the swizzle's span when the row is
//! narrower); with a swizzle of 32, 64 or 128 bytes, the 16-byte chunk of
//! each byte's shared address is XORed with the 128-byte row above it
//! ([`Swizzle::apply`]). Elements outside the tensor are written too (zeros,
//! or NaN where asked): a copy always writes, and counts on its mbarrier,
//! the whole box.

use core::fmt;

use crate::Error;

/// The most dimensions of a tensor map (PTX ISA, `cp.async.bulk.tensor`:
/// `.1d` to `.5d`; `cuTensorMapEncodeTiled`: `tensorRank` 1 to 5).
pub const MAX_TENSOR_RANK: usize = 5;

/// The largest box dimension, in elements (`cuTensorMapEncodeTiled`: each
/// `boxDim[i]` is at most 256).
pub const MAX_BOX_DIM: u32 = 256;

/// The shared-memory swizzle of a tensor map (`CUtensorMapSwizzle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Swizzle {
    /// `CU_TENSOR_MAP_SWIZZLE_NONE`: the box as it is laid out, packed.
    #[default]
    None,
    /// `CU_TENSOR_MAP_SWIZZLE_32B`.
    B32,
    /// `CU_TENSOR_MAP_SWIZZLE_64B`.
    B64,
    /// `CU_TENSOR_MAP_SWIZZLE_128B`.
    B128,
}

impl Swizzle {
    /// The swizzle of `bytes` (0 for none, 32, 64, 128), if it is one.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::Swizzle;
    ///
    /// assert_eq!(Swizzle::from_bytes(128), Some(Swizzle::B128));
    /// assert_eq!(Swizzle::from_bytes(0), Some(Swizzle::None));
    /// assert_eq!(Swizzle::from_bytes(16), None);
    /// ```
    pub const fn from_bytes(bytes: u32) -> Option<Swizzle> {
        Some(match bytes {
            0 => Swizzle::None,
            32 => Swizzle::B32,
            64 => Swizzle::B64,
            128 => Swizzle::B128,
            _ => return None,
        })
    }

    /// Its span in bytes: the most bytes the box's innermost dimension may
    /// take (0 for none: no limit from the swizzle).
    pub const fn bytes(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// The shared address a byte the box lays out at `address` lands at:
    /// bits 4 and up of the address (its 16-byte chunk), as many as the span
    /// has chunks (1, 2 or 3 bits), are XORed with bits 7 and up (the
    /// 128-byte row): the swizzle is a function of the shared address, so a
    /// destination that is not aligned to the pattern (1,024 bytes for 128 B)
    /// shifts it (measured, tests/data/ptx/tma_layout: the `dst` configs).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::Swizzle;
    ///
    /// // Row 1 of a 128-byte swizzle: its chunks 0 and 1 trade places.
    /// assert_eq!(Swizzle::B128.apply(128), 144);
    /// assert_eq!(Swizzle::B128.apply(144 + 3), 128 + 3);
    /// // Row 9 is row 1 again.
    /// assert_eq!(Swizzle::B128.apply(9 * 128), 9 * 128 + 16);
    /// assert_eq!(Swizzle::None.apply(130), 130);
    /// ```
    pub const fn apply(self, address: u32) -> u32 {
        let mask = match self {
            Swizzle::None => return address,
            Swizzle::B32 => 1,
            Swizzle::B64 => 3,
            Swizzle::B128 => 7,
        };
        address ^ (((address >> 7) & mask) << 4)
    }
}

/// How a tensor's innermost elements are interleaved in global memory
/// (`CUtensorMapInterleave`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Interleave {
    /// `CU_TENSOR_MAP_INTERLEAVE_NONE`.
    #[default]
    None,
    /// `CU_TENSOR_MAP_INTERLEAVE_16B`.
    B16,
    /// `CU_TENSOR_MAP_INTERLEAVE_32B`.
    B32,
}

/// The value a load writes for elements outside the tensor
/// (`CUtensorMapFloatOOBfill`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum OobFill {
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`: zeros.
    #[default]
    Zero,
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`: NaN (float types).
    Nan,
}

/// A tensor map's fields (tile mode): what a `cp.async.bulk.tensor` through
/// it copies.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{Swizzle, TensorMap};
///
/// // A 4096 x 64 fp16 matrix, copied in 128 x 64 boxes with the 128-byte swizzle.
/// let map: TensorMap = "dims:4096x64,box:128x64,elem:2,swizzle:128".parse()?;
/// assert_eq!(map.dims(), [4096, 64]);
/// assert_eq!(map.box_dims(), [128, 64]);
/// assert_eq!(map.swizzle(), Swizzle::B128);
/// // Each copy writes (and counts on its mbarrier) 16 KiB.
/// assert_eq!(map.box_bytes(), 16_384);
/// // Element (row 1, column 0) lands in chunk 1 of row 1.
/// assert_eq!(map.shared_offset(0, &[1, 0]), 128 + 16);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TensorMap {
    /// Dimensions, innermost first (as `cuTensorMapEncodeTiled` takes them).
    dims: Vec<u64>,
    /// Byte strides of dimensions 1 and up, innermost first.
    strides: Vec<u64>,
    /// Box dimensions, innermost first.
    boxes: Vec<u32>,
    /// Traversal strides, innermost first.
    element_strides: Vec<u32>,
    elem: u32,
    swizzle: Swizzle,
    interleave: Interleave,
    fill: OobFill,
}

impl TensorMap {
    /// A tensor map of a packed tensor of `dims` elements of `elem` bytes
    /// (outermost first), copied in boxes of `box_dims` elements, without
    /// swizzle, interleave or traversal strides.
    ///
    /// # Errors
    ///
    /// [`Error::TensorMap`] where `cuTensorMapEncodeTiled` would refuse the
    /// fields (see [`validate`](Self::validate)).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::TensorMap;
    ///
    /// let map = TensorMap::new(&[64, 256], &[16, 32], 4)?;
    /// assert_eq!(map.box_bytes(), 16 * 32 * 4);
    /// assert!(TensorMap::new(&[64, 256], &[16, 300], 4).is_err());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn new(dims: &[u64], box_dims: &[u32], elem: u32) -> Result<Self, Error> {
        let dims: Vec<u64> = dims.iter().rev().copied().collect();
        let boxes: Vec<u32> = box_dims.iter().rev().copied().collect();
        let map = TensorMap {
            strides: packed_strides(&dims, elem),
            element_strides: vec![1; dims.len()],
            dims,
            boxes,
            elem,
            swizzle: Swizzle::None,
            interleave: Interleave::None,
            fill: OobFill::Zero,
        };
        map.validate()?;
        Ok(map)
    }

    /// The same map with shared-memory swizzle `swizzle`.
    ///
    /// # Errors
    ///
    /// [`Error::TensorMap`] when the box's innermost dimension is wider than
    /// the swizzle's span.
    pub fn with_swizzle(mut self, swizzle: Swizzle) -> Result<Self, Error> {
        self.swizzle = swizzle;
        self.validate()?;
        Ok(self)
    }

    /// The same map with byte strides `strides` of dimensions 1 and up,
    /// outermost first (`rank - 1` of them; PyTorch's strides times the
    /// element size, less the innermost).
    ///
    /// # Errors
    ///
    /// [`Error::TensorMap`] when there are not `rank - 1` of them or one is
    /// not a multiple of 16.
    pub fn with_strides(mut self, strides: &[u64]) -> Result<Self, Error> {
        self.strides = strides.iter().rev().copied().collect();
        self.validate()?;
        Ok(self)
    }

    /// The same map with out-of-bounds fill `fill`.
    #[must_use]
    pub fn with_fill(mut self, fill: OobFill) -> Self {
        self.fill = fill;
        self
    }

    /// Dimensions, outermost first.
    pub fn dims(&self) -> Vec<u64> {
        self.dims.iter().rev().copied().collect()
    }

    /// Box dimensions, outermost first.
    pub fn box_dims(&self) -> Vec<u32> {
        self.boxes.iter().rev().copied().collect()
    }

    /// Byte strides of the dimensions above the innermost, outermost first.
    pub fn strides(&self) -> Vec<u64> {
        self.strides.iter().rev().copied().collect()
    }

    /// Traversal strides, outermost first.
    pub fn element_strides(&self) -> Vec<u32> {
        self.element_strides.iter().rev().copied().collect()
    }

    /// Dimensions (1 to 5).
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Bytes per element.
    pub const fn elem_bytes(&self) -> u32 {
        self.elem
    }

    /// The shared-memory swizzle.
    pub const fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The interleave.
    pub const fn interleave(&self) -> Interleave {
        self.interleave
    }

    /// The out-of-bounds fill.
    pub const fn fill(&self) -> OobFill {
        self.fill
    }

    /// Elements a copy moves in dimension `d` (innermost 0): the box's
    /// elements divided by the traversal stride, rounded up.
    fn moved(&self, d: usize) -> u32 {
        self.boxes[d].div_ceil(self.element_strides[d].max(1))
    }

    /// Bytes one copy through the map writes to (or reads from) shared
    /// memory, and so the transaction bytes it completes on its mbarrier:
    /// every element of the box, those outside the tensor included (they are
    /// filled).
    pub fn box_bytes(&self) -> u32 {
        (0..self.rank()).map(|d| self.moved(d)).product::<u32>() * self.elem
    }

    /// Whether the model knows where this map's copies put their bytes:
    /// tile mode without interleave, and a traversal stride of 1 in the
    /// innermost dimension (measured: with a stride of 2 there the H200
    /// still moves whole rows, a layout not followed here). Copies through
    /// a map that is not are counted as not modelled.
    pub fn modelled(&self) -> bool {
        self.interleave == Interleave::None && self.element_strides[0] == 1
    }

    /// Bytes from one row of the box's innermost dimension to the next in
    /// shared memory: the row's bytes, or with a swizzle the swizzle's span
    /// when the row is narrower (measured, tests/data/ptx/tma_layout: a
    /// 16-byte row under the 32-byte swizzle leaves 16 bytes unwritten
    /// after each row; `2d_e*_s*_in*B`).
    pub fn row_pitch(&self) -> u32 {
        (self.moved(0) * self.elem).max(self.swizzle.bytes())
    }

    /// The shared address element `index` of the box lands at when the box
    /// is written from shared address `dst`: `index` counts elements moved
    /// in each dimension, outermost first (as [`dims`](Self::dims)); rows of
    /// the innermost dimension [`row_pitch`](Self::row_pitch) apart, in
    /// row-major order, then swizzled by the address
    /// ([`Swizzle::apply`]; measured, tests/data/ptx/tma_layout: 50 tile
    /// configurations of 1 to 5 dimensions, elements of 1, 2 and 4 bytes,
    /// every swizzle, destinations 128 to 896 bytes past a 1,024-byte
    /// boundary, boxes partly or wholly out of bounds).
    pub fn shared_offset(&self, dst: u32, index: &[u32]) -> u32 {
        let rank = self.rank();
        let at = |d: usize| index.get(rank - 1 - d).copied().unwrap_or(0);
        let mut row = 0u32;
        for d in (1..rank).rev() {
            row = row * self.moved(d) + at(d);
        }
        let linear = row * self.row_pitch() + at(0) * self.elem;
        self.swizzle.apply(dst.wrapping_add(linear))
    }

    /// The shared bytes a copy written from `dst` touches, as sorted,
    /// disjoint `(start, length)` runs: the box's rows at
    /// [`row_pitch`](Self::row_pitch), each swizzled (a swizzle moves
    /// 16-byte chunks within their 128-byte row, and a row is a whole
    /// number of chunks, as [`validate`](Self::validate) requires).
    pub fn shared_runs(&self, dst: u32) -> Vec<(u32, u32)> {
        let row_bytes = self.moved(0) * self.elem;
        let rows = (1..self.rank()).map(|d| self.moved(d)).product::<u32>();
        let pitch = self.row_pitch();
        let mut chunks: Vec<(u32, u32)> = Vec::new();
        for r in 0..rows {
            let base = dst.wrapping_add(r * pitch);
            if self.swizzle == Swizzle::None {
                chunks.push((base, row_bytes));
                continue;
            }
            for c in 0..row_bytes.div_ceil(16) {
                let len = (row_bytes - 16 * c).min(16);
                chunks.push((self.swizzle.apply(base.wrapping_add(16 * c)), len));
            }
        }
        chunks.sort_unstable();
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for (c, len) in chunks {
            match runs.last_mut() {
                Some((s, l)) if s.wrapping_add(*l) == c => *l += len,
                _ => runs.push((c, len)),
            }
        }
        runs
    }

    /// Checks the fields as `cuTensorMapEncodeTiled` does (CUDA Driver API,
    /// `cuTensorMapEncodeTiled`): rank 1 to 5; every dimension at least 1;
    /// `rank - 1` strides, each a multiple of 16 and at least the span of
    /// the dimension below it; box dimensions 1 to 256, the innermost a
    /// multiple of 16 bytes (without interleave); element size 1, 2, 4 or
    /// 8; traversal strides 1 to 8; with a swizzle, the box's innermost
    /// dimension at most the swizzle's span.
    ///
    /// # Errors
    ///
    /// [`Error::TensorMap`] naming the first field that fails.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |field: &str, why: String| {
            Err(Error::TensorMap {
                field: field.to_owned(),
                reason: why,
            })
        };
        let rank = self.dims.len();
        if !(1..=MAX_TENSOR_RANK).contains(&rank) {
            return bad("dims", format!("{rank} dimensions: expected 1 to 5"));
        }
        if self.boxes.len() != rank {
            return bad(
                "box",
                format!("{} dimensions for a tensor of {rank}", self.boxes.len()),
            );
        }
        if self.element_strides.len() != rank {
            return bad(
                "estride",
                format!(
                    "{} dimensions for a tensor of {rank}",
                    self.element_strides.len()
                ),
            );
        }
        if !matches!(self.elem, 1 | 2 | 4 | 8) {
            return bad(
                "elem",
                format!("{} bytes: expected 1, 2, 4 or 8", self.elem),
            );
        }
        if let Some(d) = self.dims.iter().position(|&d| d == 0 || d > 1 << 32) {
            return bad(
                "dims",
                format!(
                    "dimension {} is {}: expected 1 to 2^32",
                    rank - 1 - d,
                    self.dims[d]
                ),
            );
        }
        if self.strides.len() + 1 != rank {
            return bad(
                "strides",
                format!(
                    "{} strides for a tensor of {rank} dimensions: expected {}",
                    self.strides.len(),
                    rank - 1
                ),
            );
        }
        for (i, &s) in self.strides.iter().enumerate() {
            let below = if i == 0 {
                self.dims[0] * u64::from(self.elem)
            } else {
                self.strides[i - 1] * self.dims[i]
            };
            if !s.is_multiple_of(16) || s >= 1 << 40 {
                return bad(
                    "strides",
                    format!("stride {s} is not a multiple of 16 below 2^40"),
                );
            }
            if s < below && self.interleave == Interleave::None {
                return bad(
                    "strides",
                    format!("stride {s} is less than the {below} bytes of the dimension below it"),
                );
            }
        }
        if let Some(d) = self.boxes.iter().position(|&b| b == 0 || b > MAX_BOX_DIM) {
            return bad(
                "box",
                format!(
                    "box dimension {} is {}: expected 1 to 256",
                    rank - 1 - d,
                    self.boxes[d]
                ),
            );
        }
        if let Some(d) = self
            .element_strides
            .iter()
            .position(|&e| !(1..=8).contains(&e))
        {
            return bad(
                "estride",
                format!(
                    "traversal stride {} is {}: expected 1 to 8",
                    rank - 1 - d,
                    self.element_strides[d]
                ),
            );
        }
        // A box larger than any block's shared memory (sm_90's 232,448
        // bytes) is refused here (a modelling limit: the copy could not
        // run), which keeps every offset within 32 bits.
        let rows: u64 = self.boxes[1..].iter().map(|&b| u64::from(b)).product();
        let row = u64::from(self.boxes[0] * self.elem).max(u64::from(self.swizzle.bytes()));
        if rows * row > 232_448 {
            return bad(
                "box",
                format!(
                    "{} bytes in shared memory: more than a block's 232448",
                    rows * row
                ),
            );
        }
        let inner = self.boxes[0] * self.elem;
        if self.interleave == Interleave::None {
            if !inner.is_multiple_of(16) {
                return bad(
                    "box",
                    format!(
                        "the innermost box dimension is {inner} bytes: expected a multiple of 16"
                    ),
                );
            }
            let span = self.swizzle.bytes();
            if span != 0 && inner > span {
                return bad(
                    "swizzle",
                    format!("the innermost box dimension is {inner} bytes, wider than the {span}-byte swizzle"),
                );
            }
        }
        Ok(())
    }
}

/// Packed byte strides of `dims` (innermost first): each dimension's span.
fn packed_strides(dims: &[u64], elem: u32) -> Vec<u64> {
    let mut out = Vec::with_capacity(dims.len().saturating_sub(1));
    let mut s = u64::from(elem);
    for &d in dims.iter().take(dims.len().saturating_sub(1)) {
        s = s.saturating_mul(d);
        out.push(s);
    }
    out
}

impl core::str::FromStr for TensorMap {
    type Err = Error;

    /// Reads `dims:AxB[xC..],box:AxB..,elem:N[,swizzle:0|32|64|128]
    /// [,strides:SxS..][,estride:AxB..][,interleave:0|16|32][,fill:zero|nan]`,
    /// dimensions outermost first, strides in bytes (packed when not given).
    ///
    /// # Errors
    ///
    /// [`Error::TensorMap`] for a field that is missing, unknown, given
    /// twice or not a number, or fields `cuTensorMapEncodeTiled` would
    /// refuse ([`validate`](Self::validate)).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::TensorMap;
    ///
    /// let map: TensorMap = "dims:512x512,box:128x64,elem:2,swizzle:128,strides:1024".parse()?;
    /// assert_eq!(map.strides(), [1024]);
    /// let err = "dims:512x512,box:128x128,elem:2,swizzle:128".parse::<TensorMap>().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "tensor map field swizzle: the innermost box dimension is 256 bytes, wider than the \
    ///      128-byte swizzle"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<Self, Error> {
        let bad = |field: &str, why: &str| Error::TensorMap {
            field: field.to_owned(),
            reason: why.to_owned(),
        };
        let mut dims = None;
        let mut boxes = None;
        let mut elem = None;
        let mut strides = None;
        let mut estrides = None;
        let mut swizzle = Swizzle::None;
        let mut interleave = Interleave::None;
        let mut fill = OobFill::Zero;
        let mut seen: Vec<&str> = Vec::new();
        for part in s.split(',') {
            let part = part.trim();
            let (key, value) = part
                .split_once(':')
                .or_else(|| part.split_once('='))
                .ok_or_else(|| bad(part, "expected NAME:VALUE"))?;
            let (key, value) = (key.trim(), value.trim());
            if seen.contains(&key) {
                return Err(bad(key, "given twice"));
            }
            seen.push(key);
            let list = |v: &str| -> Result<Vec<u64>, Error> {
                v.split(['x', 'X'])
                    .map(|n| {
                        n.trim()
                            .parse::<u64>()
                            .map_err(|_| bad(key, &format!("{v:?} is not a list of numbers AxBxC")))
                    })
                    .collect()
            };
            let number = |v: &str| -> Result<u32, Error> {
                v.parse::<u32>()
                    .map_err(|_| bad(key, &format!("{v:?} is not a number")))
            };
            match key {
                "dims" => dims = Some(list(value)?),
                "box" => boxes = Some(list(value)?),
                "strides" => strides = Some(list(value)?),
                "estride" | "element_strides" => estrides = Some(list(value)?),
                "elem" => elem = Some(number(value)?),
                "swizzle" => {
                    swizzle = Swizzle::from_bytes(number(value)?)
                        .ok_or_else(|| bad(key, "expected 0, 32, 64 or 128"))?;
                }
                "interleave" => {
                    interleave = match number(value)? {
                        0 => Interleave::None,
                        16 => Interleave::B16,
                        32 => Interleave::B32,
                        _ => return Err(bad(key, "expected 0, 16 or 32")),
                    };
                }
                "fill" => {
                    fill = match value {
                        "zero" | "none" => OobFill::Zero,
                        "nan" => OobFill::Nan,
                        _ => return Err(bad(key, "expected zero or nan")),
                    };
                }
                _ => {
                    return Err(bad(
                        key,
                        "unknown: expected dims, box, elem, swizzle, strides, estride, interleave \
                         or fill",
                    ))
                }
            }
        }
        let dims = dims.ok_or_else(|| bad("dims", "missing"))?;
        let boxes = boxes.ok_or_else(|| bad("box", "missing"))?;
        let elem = elem.ok_or_else(|| bad("elem", "missing"))?;
        let to_u32 = |field: &str, v: Vec<u64>| -> Result<Vec<u32>, Error> {
            v.into_iter()
                .map(|x| u32::try_from(x).map_err(|_| bad(field, "a value past 2^32")))
                .collect()
        };
        let dims_in: Vec<u64> = dims.iter().rev().copied().collect();
        let map = TensorMap {
            strides: match strides {
                Some(s) => s.into_iter().rev().collect(),
                None => packed_strides(&dims_in, elem),
            },
            element_strides: match estrides {
                Some(e) => to_u32("estride", e)?.into_iter().rev().collect(),
                None => vec![1; dims_in.len()],
            },
            boxes: to_u32("box", boxes)?.into_iter().rev().collect(),
            dims: dims_in,
            elem,
            swizzle,
            interleave,
            fill,
        };
        map.validate()?;
        Ok(map)
    }
}

impl fmt::Display for TensorMap {
    /// The spelling [`FromStr`](core::str::FromStr) reads, every field given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |v: Vec<u64>| {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("x")
        };
        write!(
            f,
            "dims:{},box:{},elem:{},swizzle:{}",
            join(self.dims()),
            join(self.box_dims().into_iter().map(u64::from).collect()),
            self.elem,
            self.swizzle.bytes()
        )?;
        if self.rank() > 1 {
            write!(f, ",strides:{}", join(self.strides()))?;
        }
        if self.element_strides.iter().any(|&e| e != 1) {
            write!(
                f,
                ",estride:{}",
                join(self.element_strides().into_iter().map(u64::from).collect())
            )?;
        }
        match self.interleave {
            Interleave::None => {}
            Interleave::B16 => f.write_str(",interleave:16")?,
            Interleave::B32 => f.write_str(",interleave:32")?,
        }
        if self.fill == OobFill::Nan {
            f.write_str(",fill:nan")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_reads_back() {
        for text in [
            "dims:4096x64,box:128x64,elem:2,swizzle:128",
            "dims:4x8x64,box:2x4x32,elem:2,swizzle:64,estride:1x1x2",
            "dims:10x100,box:8x32,elem:4,swizzle:0,fill:nan",
            "dims:1024,box:64,elem:4",
        ] {
            let map: TensorMap = text.parse().unwrap();
            let again: TensorMap = map.to_string().parse().unwrap();
            assert_eq!(map, again, "{text}");
        }
    }

    #[test]
    fn runs_cover_the_box_once() {
        for swizzle in [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128] {
            let span = if swizzle == Swizzle::None {
                64
            } else {
                swizzle.bytes()
            };
            let map = TensorMap::new(&[64, 256], &[16, span / 2], 2)
                .unwrap()
                .with_swizzle(swizzle)
                .unwrap();
            for dst in [0u32, 128, 1024, 1536] {
                let runs = map.shared_runs(dst);
                let total: u32 = runs.iter().map(|r| r.1).sum();
                assert_eq!(total, map.box_bytes());
                // Every element's first byte is in a run.
                for row in 0..16 {
                    for col in 0..span / 4 {
                        let a = map.shared_offset(dst, &[row, col]);
                        assert!(runs.iter().any(|&(s, l)| a >= s && a < s + l));
                    }
                }
            }
        }
    }

    #[test]
    fn refused_fields_are_named() {
        let err = |t: &str| t.parse::<TensorMap>().unwrap_err().to_string();
        assert_eq!(err("dims:64,box:64"), "tensor map field elem: missing");
        assert_eq!(
            err("dims:64,box:64,elem:3"),
            "tensor map field elem: 3 bytes: expected 1, 2, 4 or 8"
        );
        assert_eq!(
            err("dims:64,box:4,elem:2"),
            "tensor map field box: the innermost box dimension is 8 bytes: expected a multiple of 16"
        );
        assert_eq!(
            err("dims:64x64,box:64x8,elem:2,strides:100"),
            "tensor map field strides: stride 100 is not a multiple of 16 below 2^40"
        );
        assert_eq!(
            err("dims:64,box:64,elem:2,color:red"),
            "tensor map field color: unknown: expected dims, box, elem, swizzle, strides, estride, \
             interleave or fill"
        );
        assert_eq!(
            err("dims:1x2x3x4x5x6,box:1x1x1x1x1x8,elem:2"),
            "tensor map field dims: 6 dimensions: expected 1 to 5"
        );
    }
}
