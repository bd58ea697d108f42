//! The shared memory of one block of a kernel: static arrays, the one
//! `extern __shared__` region carved into typed arrays, and the bytes they hold.
//!
//! The layout follows what nvcc and the driver do, as measured on an H200
//! (`tests/data/device/`): the block's window starts with the bytes the driver
//! reserves (1 KB from 8.0 on); static arrays follow in declaration order, each
//! aligned to its type; the static size is rounded up to 16 bytes and the
//! dynamic region starts right after it. Placing statics in declaration order is
//! what nvcc did in every case measured; the language does not promise it.

mod element;
mod layout;

use core::fmt;
use core::marker::PhantomData;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use bitvec::vec::BitVec;

pub use element::{Double2, Element, ElementType, Float2, Float4, Int2, Int4};
pub use layout::{DynamicLayout, PlacedArray};

use crate::{
    BankConfig, ComputeCapability, Error, Lane, LaneSet, Launch, Op, Partition, StoreOrder,
    WarpRequest, WriteCollision, WARP_SIZE,
};
use layout::{align_up, array_bytes};

/// Static shared memory is rounded up to this, and the dynamic region starts
/// this aligned (measured on sm_90).
const STATIC_ROUNDING: u32 = 16;

/// The next arena id. 64 bits, so ids never repeat: a 32-bit counter wrapped
/// after 2^32 arenas, and a handle from an arena of the first round was then
/// accepted by one of the second. At a billion arenas a second, 2^64 ids last
/// over 500 years.
static NEXT_ARENA: AtomicU64 = AtomicU64::new(1);

/// A typed handle to an array in one [`SharedMemory`]: its place, length and
/// shape. Cheap to copy; using it with another arena is an error, not a silent
/// read of someone else's bytes.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, SharedMemory};
///
/// // __shared__ float tile[32][33];
/// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
/// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
/// assert_eq!((tile.rows(), tile.cols(), tile.len()), (32, 33, 32 * 33));
/// assert!(!tile.is_empty());
/// // Right after the 1 KB the driver reserves, as measured on an H200.
/// assert_eq!(tile.address(), 0x400);
/// assert_eq!(tile.index(1, 0)?, 33);
///
/// // extern __shared__ int s[]; with 256 bytes at launch: one row of 64 ints.
/// let mut block = kernel.launch(256)?;
/// let s = block.extern_array::<i32>("s")?;
/// assert_eq!((s.rows(), s.cols(), s.len()), (1, 64, 64));
/// assert_eq!(s.address(), 0x400 + 32 * 33 * 4);
/// # Ok::<(), smem_model::Error>(())
/// ```
pub struct Array<T> {
    arena: u64,
    slot: u32,
    address: u32,
    rows: u32,
    cols: u32,
    _element: PhantomData<fn() -> T>,
}

impl<T> Clone for Array<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Array<T> {}

impl<T> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.arena, self.slot) == (other.arena, other.slot)
    }
}

impl<T> Eq for Array<T> {}

impl<T: Element> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array")
            .field("element", &T::NAME)
            .field("address", &format_args!("{:#x}", self.address))
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .finish()
    }
}

impl<T: Element> Array<T> {
    /// The shared address of element 0.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; on sm_90 (static arrays start after the reserved 1 KB).
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// assert_eq!(tile.address(), 0x400);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn address(&self) -> u32 {
        self.address
    }

    /// The number of elements.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; on sm_90 (static arrays start after the reserved 1 KB).
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// assert_eq!(tile.len(), 32 * 33);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// Whether the array has no elements (never true: empty arrays are refused).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; on sm_90 (static arrays start after the reserved 1 KB).
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// assert!(!tile.is_empty());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows: 1 for a 1-D array.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; on sm_90 (static arrays start after the reserved 1 KB).
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// assert_eq!(tile.rows(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    /// Columns (elements per row): the length of a 1-D array.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; on sm_90 (static arrays start after the reserved 1 KB).
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// assert_eq!(tile.cols(), 33);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn cols(&self) -> usize {
        self.cols as usize
    }

    /// The flat index of `[row][col]`.
    ///
    /// # Errors
    ///
    /// [`Error::SubscriptOutOfBounds`] when `row` or `col` is past the shape:
    /// each subscript is checked, as a C compiler does not.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; tile[r][c] is element r * 33 + c.
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// assert_eq!(tile.index(2, 5)?, 2 * 33 + 5);
    /// // The padding column is part of the shape.
    /// assert_eq!(tile.index(0, 32)?, 32);
    /// assert_eq!(
    ///     tile.index(32, 0).unwrap_err().to_string(),
    ///     "subscript [32][0] is out of bounds for an array of 32 x 33 elements"
    /// );
    /// // C would read tile[1][0] for tile[0][33]; here each subscript is checked.
    /// assert!(matches!(tile.index(0, 33), Err(Error::SubscriptOutOfBounds { col: 33, .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn index(&self, row: usize, col: usize) -> Result<usize, Error> {
        if row >= self.rows() || col >= self.cols() {
            return Err(Error::SubscriptOutOfBounds {
                row: row as u64,
                col: col as u64,
                rows: self.rows,
                cols: self.cols,
            });
        }
        Ok(row * self.cols() + col)
    }
}

/// How an array was declared.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, Origin, SharedMemory};
///
/// // __shared__ float partial[32];
/// // extern __shared__ int s[];
/// // int *a = s; float *b = (float *)&a[16];
/// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
/// kernel.declare::<f32>("partial", 32)?;
/// let mut block = kernel.launch(128)?;
/// block.extern_array::<i32>("s")?;
/// block.carve::<i32>("a", 16)?;
/// block.carve::<f32>("b", 16)?;
/// let origins: Vec<Origin> = block.arrays().iter().map(|a| a.origin()).collect();
/// assert_eq!(
///     origins,
///     [Origin::Static, Origin::Extern, Origin::Carved, Origin::Carved]
/// );
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Origin {
    /// `__shared__ T name[n];`
    Static,
    /// `extern __shared__ T name[];`: aliases the start of the dynamic region.
    Extern,
    /// Carved from the dynamic region by pointer arithmetic.
    Carved,
}

/// One array of a [`SharedMemory`]: name, type, place and size.
///
/// Returned by [`SharedMemory::arrays`].
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, Origin, SharedMemory};
///
/// // The k_mixed kernel, as nvcc placed it on an H200 (tests/data/device/):
/// // __shared__ char c[3]; __shared__ float f[5]; __shared__ double d[2];
/// // __shared__ short s[3]; extern __shared__ int dyn[]; extern __shared__ char dync[];
/// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
/// kernel.declare::<u8>("c", 3)?;
/// kernel.declare::<f32>("f", 5)?;
/// kernel.declare::<f64>("d", 2)?;
/// kernel.declare::<i16>("s", 3)?;
/// let mut block = kernel.launch(64)?;
/// block.extern_array::<i32>("dyn")?;
/// block.extern_array::<u8>("dync")?;
/// let table: Vec<_> = block
///     .arrays()
///     .iter()
///     .map(|a| (a.name(), a.element(), a.address(), a.bytes(), a.origin()))
///     .collect();
/// assert_eq!(
///     table,
///     [
///         ("c", "unsigned char", 0x400, 3, Origin::Static),
///         ("f", "float", 0x404, 20, Origin::Static),
///         ("d", "double", 0x418, 16, Origin::Static),
///         ("s", "short", 0x428, 6, Origin::Static),
///         // Both extern arrays alias the start of the 64-byte dynamic region.
///         ("dyn", "int", 0x430, 64, Origin::Extern),
///         ("dync", "unsigned char", 0x430, 64, Origin::Extern),
///     ]
/// );
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ArrayInfo {
    name: String,
    element: &'static str,
    address: u32,
    bytes: u32,
    origin: Origin,
}

impl ArrayInfo {
    /// The array's name.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Origin, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f64>("sums", 32)?;
    /// let block = kernel.launch(0)?;
    /// let info = &block.arrays()[0];
    /// assert_eq!(info.name(), "sums");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its element type's CUDA name.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Origin, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f64>("sums", 32)?;
    /// let block = kernel.launch(0)?;
    /// let info = &block.arrays()[0];
    /// assert_eq!(info.element(), "double");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn element(&self) -> &'static str {
        self.element
    }

    /// The shared address of its first element.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f64>("sums", 32)?;
    /// let block = kernel.launch(0)?;
    /// let info = &block.arrays()[0];
    /// assert_eq!(info.address(), 0x400);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn address(&self) -> u32 {
        self.address
    }

    /// Its size in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Origin, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f64>("sums", 32)?;
    /// let block = kernel.launch(0)?;
    /// let info = &block.arrays()[0];
    /// assert_eq!(info.bytes(), 256);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// How it was declared.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Origin, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f64>("sums", 32)?;
    /// let block = kernel.launch(0)?;
    /// let info = &block.arrays()[0];
    /// assert_eq!(info.origin(), Origin::Static);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn origin(&self) -> Origin {
        self.origin
    }
}

/// The static declarations of a kernel, before launch.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, SharedMemory};
///
/// // __shared__ char c[3]; __shared__ float f[5]; __shared__ double d[2];
/// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
/// let c = kernel.declare::<u8>("c", 3)?;
/// let f = kernel.declare::<f32>("f", 5)?;
/// let d = kernel.declare::<f64>("d", 2)?;
/// // As nvcc placed them on an H200: declaration order, each aligned to its type.
/// assert_eq!([c.address(), f.address(), d.address()], [0x400, 0x404, 0x418]);
/// assert_eq!(kernel.static_bytes(), 48);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SharedMemoryBuilder {
    id: u64,
    capability: ComputeCapability,
    arrays: Vec<ArrayInfo>,
    end: u32,
    opt_in: Option<u32>,
}

impl SharedMemoryBuilder {
    /// Declares `__shared__ T name[len];`: placed after the previous static
    /// array at the first multiple of `T`'s alignment, as nvcc placed statics in
    /// declaration order on an H200.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyArray`] for `len` 0, [`Error::SizeOverflow`] when the bytes
    /// overflow `u32`, [`Error::StaticTooLarge`] when the statics, rounded up to
    /// 16 bytes, pass the 48 KB static limit (16 KB on 1.x),
    /// [`Error::ElementSize`] when `T`'s size is not a power of two. A failed
    /// declaration leaves the builder as it was.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, SharedMemory};
    ///
    /// // __shared__ float full[12288]; fills the 48 KB static limit exactly.
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let full = kernel.declare::<f32>("full", 12 * 1024)?;
    /// assert_eq!((full.address(), kernel.static_bytes()), (0x400, 48 * 1024));
    /// // One more char and nvcc refuses the kernel.
    /// assert_eq!(
    ///     kernel.declare::<u8>("one", 1).unwrap_err().to_string(),
    ///     "49168 bytes of static shared memory exceed the 49152-byte static limit \
    ///      of compute capability 9.0; use dynamic shared memory and opt in"
    /// );
    /// assert_eq!(kernel.static_bytes(), 48 * 1024);
    /// assert_eq!(
    ///     kernel.declare::<f32>("none", 0),
    ///     Err(Error::EmptyArray { name: "none".into() })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn declare<T: Element>(&mut self, name: &str, len: usize) -> Result<Array<T>, Error> {
        self.declare_2d(name, 1, len)
    }

    /// Declares `__shared__ T name[rows][cols];`, row-major: `[r][c]` is
    /// element `r * cols + c` (see [`Array::index`]).
    ///
    /// # Errors
    ///
    /// As [`declare`](Self::declare), with `rows * cols` elements;
    /// [`Error::SizeOverflow`] also when `rows * cols` overflows `usize`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // The k_tile kernel, as nvcc placed it on an H200 (tests/data/device/):
    /// // __shared__ float tile[32][33]; __shared__ char flag;
    /// // extern __shared__ double dynd[];
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// let flag = kernel.declare::<u8>("flag", 1)?;
    /// assert_eq!((tile.address(), flag.address()), (0x400, 0x1480));
    /// assert_eq!(kernel.static_bytes(), 4240); // 4225 rounded up to 16
    /// let mut block = kernel.launch(64)?;
    /// assert_eq!(block.extern_array::<f64>("dynd")?.address(), 0x1490);
    /// // tile[1][0] is 33 floats after tile[0][0].
    /// assert_eq!(block.address(tile, tile.index(1, 0)?)?, 0x400 + 33 * 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn declare_2d<T: Element>(
        &mut self,
        name: &str,
        rows: usize,
        cols: usize,
    ) -> Result<Array<T>, Error> {
        ElementType::checked::<T>()?;
        let len = rows.checked_mul(cols).ok_or(Error::SizeOverflow {
            name: name.to_owned(),
            len: u64::MAX,
            element_size: T::SIZE,
        })?;
        let bytes = array_bytes(name, T::SIZE, len)?;
        let base = self.capability.reserved_shared_memory_per_block();
        let offset = align_up(self.end, T::ALIGN);
        let end = offset.and_then(|o| o.checked_add(bytes));
        let limit = self.capability.default_shared_memory_per_block();
        let (Some(offset), Some(end)) = (offset, end) else {
            return Err(Error::SizeOverflow {
                name: name.to_owned(),
                len: len as u64,
                element_size: T::SIZE,
            });
        };
        let rounded = align_up(end, STATIC_ROUNDING).unwrap_or(u32::MAX);
        if rounded > limit {
            return Err(Error::StaticTooLarge {
                static_bytes: rounded,
                limit,
                capability: self.capability,
            });
        }
        self.end = end;
        let address = base + offset;
        let slot = self.arrays.len() as u32;
        self.arrays.push(ArrayInfo {
            name: name.to_owned(),
            element: T::NAME,
            address,
            bytes,
            origin: Origin::Static,
        });
        Ok(Array {
            arena: self.id,
            slot,
            address,
            rows: rows as u32,
            cols: cols as u32,
            _element: PhantomData,
        })
    }

    /// Sets `cudaFuncAttributeMaxDynamicSharedMemorySize`, allowing a launch past
    /// 48 KB up to the capability's opt-in maximum.
    ///
    /// The attribute is checked at [`launch`](Self::launch), as
    /// [`Launch::check`] checks it; a later call replaces an earlier one.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, SharedMemory};
    ///
    /// // __shared__ float s[1024]; (4 KB) and a large dynamic region.
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f32>("s", 1024)?;
    /// assert!(matches!(kernel.launch(45 * 1024), Err(Error::LaunchTooLarge { .. })));
    ///
    /// // cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 223 KB):
    /// // with the 4 KB of statics, 227 KB, the most an H200 block may use.
    /// kernel.opt_in(223 * 1024);
    /// let block = kernel.launch(223 * 1024)?;
    /// assert_eq!(block.launch().opt_in(), Some(223 * 1024));
    /// assert!(matches!(kernel.launch(223 * 1024 + 1), Err(Error::LaunchTooLarge { .. })));
    ///
    /// // One byte more is refused by cudaFuncSetAttribute itself.
    /// kernel.opt_in(223 * 1024 + 1);
    /// assert!(matches!(kernel.launch(0), Err(Error::OptInTooLarge { max: 228352, .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn opt_in(&mut self, max_dynamic_bytes: u32) -> &mut Self {
        self.opt_in = Some(max_dynamic_bytes);
        self
    }

    /// The static shared memory the kernel declares (`sharedSizeBytes`): the end
    /// of the last static array, rounded up to 16 bytes (measured on an H200).
    /// The bytes the driver reserves are not counted.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// assert_eq!(kernel.static_bytes(), 0);
    /// // __shared__ char c[5]; measured on an H200: 16 bytes.
    /// kernel.declare::<u8>("c", 5)?;
    /// assert_eq!(kernel.static_bytes(), 16);
    /// // __shared__ int counts[4]; starts at byte 8, ends at 24: 32.
    /// kernel.declare::<i32>("counts", 4)?;
    /// assert_eq!(kernel.static_bytes(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn static_bytes(&self) -> u32 {
        align_up(self.end, STATIC_ROUNDING).expect("bounded by the static limit")
    }

    /// Launches a block with `dynamic_bytes` of dynamic shared memory (the third
    /// launch parameter). The builder is not consumed: each launch is a fresh
    /// block whose bytes are all uninitialised, and the handles of the static
    /// arrays work in every one of them.
    ///
    /// # Errors
    ///
    /// Those of [`Launch::check`]: [`Error::OptInTooLarge`] and
    /// [`Error::LaunchTooLarge`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float s[3072]; (12 KB) then kernel<<<grid, block, dynamic>>>.
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f32>("s", 3072)?;
    /// // Measured on an H200: 12 KB + 36 KB launches, one byte more fails.
    /// let block = kernel.launch(36864)?;
    /// assert_eq!(block.dynamic_start(), 0x400 + 12288);
    /// assert_eq!(
    ///     kernel.launch(36865).unwrap_err().to_string(),
    ///     "launch fails: 12288 bytes of static and 36865 bytes of dynamic shared memory \
    ///      exceed the per-block limit of 49152 bytes on compute capability 9.0"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn launch(&self, dynamic_bytes: u32) -> Result<SharedMemory, Error> {
        let static_bytes = self.static_bytes();
        let mut launch = Launch::new(self.capability, static_bytes, dynamic_bytes);
        if let Some(max) = self.opt_in {
            launch = launch.with_opt_in(max);
        }
        launch.check()?;
        let dynamic_start = self.capability.reserved_shared_memory_per_block() + static_bytes;
        let window = (dynamic_start + dynamic_bytes) as usize;
        Ok(SharedMemory {
            statics_id: self.id,
            // Each block gets its own id for the arrays carved from it, so one
            // block's dynamic handles are refused by another launched from the
            // same declarations; static handles work in every such block.
            id: NEXT_ARENA.fetch_add(1, Ordering::Relaxed),
            statics: self.arrays.len(),
            launch,
            config: BankConfig::new(self.capability),
            arrays: self.arrays.clone(),
            dynamic_start,
            carve_cursor: dynamic_start,
            bytes: vec![0; window],
            written: BitVec::repeat(false, window),
            indeterminate: BitVec::repeat(false, window),
            collisions: BTreeMap::new(),
        })
    }
}

/// The shared memory of one launched block: the layout of its arrays and the
/// bytes they hold.
///
/// Built from a [`SharedMemoryBuilder`] (static declarations) and launched with
/// a dynamic size. Every read and write is checked: the array must belong to this
/// arena, the index must be in bounds, and a read of bytes never written is an
/// error, as compute-sanitizer's `initcheck` reports it. Warp-wide accesses
/// return the values and the [`Partition`] computed from the arrays' real
/// addresses, so bank conflicts come from the real layout.
///
/// # Example: the seed's dynamicReverse
///
/// ```
/// use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
///
/// let n = 64;
/// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(n * 4)?;
/// let s = block.extern_array::<i32>("s")?;
/// // Two warps: s[t] = d[t]; __syncthreads(); d[t] = s[n - t - 1];
/// for warp in 0..2 {
///     let stored = block.warp_store(s, |lane| {
///         let t = warp * 32 + lane.index();
///         Some((t, t as i32))
///     }, StoreOrder::Undefined)?;
///     assert_eq!(stored.partition().wavefronts(), 1);
/// }
/// let loaded = block.warp_load(s, |lane| Some(n as usize - lane.index() - 1))?;
/// assert_eq!(loaded.values()[0], Some(63));
/// assert_eq!(loaded.partition().wavefronts(), 1);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SharedMemory {
    /// The id of the declarations the static arrays came from.
    statics_id: u64,
    /// This block's id, for its extern and carved arrays.
    id: u64,
    /// How many of `arrays` are static.
    statics: usize,
    launch: Launch,
    config: BankConfig,
    arrays: Vec<ArrayInfo>,
    dynamic_start: u32,
    carve_cursor: u32,
    bytes: Vec<u8>,
    written: BitVec,
    /// Bytes last written by several lanes of one store under
    /// `StoreOrder::Undefined`: their value is any one of those lanes'.
    indeterminate: BitVec,
    /// Where each such store landed (first byte), with its size and lanes.
    collisions: BTreeMap<u32, (u32, LaneSet)>,
}

impl SharedMemory {
    /// Starts declaring a kernel's shared memory on `capability`.
    ///
    /// Each builder is a new arena: handles it hands out are refused by the
    /// blocks of any other builder.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // From 8.0 on, the driver reserves the first 1 KB of the block's window.
    /// let mut ampere = SharedMemory::builder(ComputeCapability::Sm80);
    /// assert_eq!(ampere.declare::<f32>("s", 32)?.address(), 0x400);
    /// // Before, static arrays start at address 0.
    /// let mut turing = SharedMemory::builder(ComputeCapability::Sm75);
    /// assert_eq!(turing.declare::<f32>("s", 32)?.address(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn builder(capability: ComputeCapability) -> SharedMemoryBuilder {
        SharedMemoryBuilder {
            id: NEXT_ARENA.fetch_add(1, Ordering::Relaxed),
            capability,
            arrays: Vec::new(),
            end: 0,
            opt_in: None,
        }
    }

    /// The launch: capability, static and dynamic sizes, opt-in.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; kernel<<<grid, block, 4096>>>
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// let block = kernel.launch(4096)?;
    /// let launch = block.launch();
    /// assert_eq!(launch.capability(), ComputeCapability::Sm90);
    /// assert_eq!((launch.static_bytes(), launch.dynamic_bytes()), (4224, 4096));
    /// assert_eq!(launch.opt_in(), None);
    /// // 4224 + 4096 + 1 KB reserved = 9344 bytes a block: 24 blocks in 228 KB.
    /// assert_eq!(launch.occupancy()?.blocks_per_sm(), 24);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn launch(&self) -> Launch {
        self.launch
    }

    /// The bank configuration warp accesses are partitioned under: at launch,
    /// [`BankConfig::new`] of the capability (four-byte banks, Kepler included).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, BankWidth, ComputeCapability, SharedMemory};
    ///
    /// let block = SharedMemory::builder(ComputeCapability::Sm35).launch(512)?;
    /// assert_eq!(block.bank_config(), BankConfig::new(ComputeCapability::Sm35));
    /// assert_eq!(block.bank_config().bank_width(), BankWidth::FourBytes);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bank_config(&self) -> BankConfig {
        self.config
    }

    /// Uses `config` for warp accesses, e.g. Kepler's eight-byte mode
    /// (`cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte)`). The
    /// bytes and the layout do not change, only how warp accesses are
    /// partitioned.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityMismatch`] when `config` is for another capability.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{
    ///     BankConfig, BankWidth, ComputeCapability, SharedMemConfig, SharedMemory, StoreOrder,
    /// };
    ///
    /// // extern __shared__ float s[]; ... = s[3 * lane]; on a Kepler K20 (3.5).
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm35).launch(512)?;
    /// let s = block.extern_array::<f32>("s")?;
    /// block.warp_store(s, |lane| Some((3 * lane.index(), 0.5)), StoreOrder::Undefined)?;
    /// let stride3 = |block: &SharedMemory| -> Result<u32, smem_model::Error> {
    ///     Ok(block.warp_load(s, |lane| Some(3 * lane.index()))?.partition().wavefronts())
    /// };
    /// assert_eq!(stride3(&block)?, 1);
    ///
    /// // In eight-byte mode, floats 3k and 3k + 96 share a 64-bit bank: 2-way.
    /// let eight = BankConfig::new(ComputeCapability::Sm35)
    ///     .with_shared_mem_config(SharedMemConfig::EightByte);
    /// block.set_bank_config(eight)?;
    /// assert_eq!(block.bank_config().bank_width(), BankWidth::EightBytes);
    /// assert_eq!(stride3(&block)?, 2);
    ///
    /// let err = block.set_bank_config(BankConfig::new(ComputeCapability::Sm90)).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "bank configuration for compute capability 9.0 used with shared memory of \
    ///      compute capability 3.5"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn set_bank_config(&mut self, config: BankConfig) -> Result<(), Error> {
        if config.capability() != self.launch.capability() {
            return Err(Error::CapabilityMismatch {
                expected: self.launch.capability(),
                given: config.capability(),
            });
        }
        self.config = config;
        Ok(())
    }

    /// The shared address where the dynamic region starts: the reserved bytes
    /// plus the static size rounded up to 16 (measured on an H200). Every
    /// `extern __shared__` array starts here, and so does the first carve.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ char c[5]; extern __shared__ float4 dyn4[]; measured on an H200.
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<u8>("c", 5)?;
    /// assert_eq!(kernel.launch(64)?.dynamic_start(), 0x410);
    /// // No statics and nothing reserved (7.5): address 0.
    /// let block = SharedMemory::builder(ComputeCapability::Sm75).launch(64)?;
    /// assert_eq!(block.dynamic_start(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn dynamic_start(&self) -> u32 {
        self.dynamic_start
    }

    /// Bytes of the dynamic region not yet carved. Extern arrays alias the
    /// region rather than use it up, so they leave this unchanged.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(64)?;
    /// block.extern_array::<i32>("s")?;
    /// assert_eq!(block.dynamic_bytes_left(), 64);
    /// block.carve::<f64>("d", 3)?;
    /// block.carve::<i32>("n", 2)?;
    /// assert_eq!(block.dynamic_bytes_left(), 64 - 24 - 8);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn dynamic_bytes_left(&self) -> u32 {
        self.dynamic_start + self.launch.dynamic_bytes() - self.carve_cursor
    }

    /// `extern __shared__ T name[];`: an array at the start of the dynamic
    /// region, as long as the region holds whole elements. Every extern
    /// declaration aliases the same start, whatever its type.
    ///
    /// # Errors
    ///
    /// [`Error::CarveTooLarge`] when the region cannot hold one element (CUDA
    /// lets such a declaration compile, and every access through it is out of
    /// bounds; the model refuses it at once, a modelling choice);
    /// [`Error::ElementSize`] when `T`'s size is not a power of two.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // extern __shared__ int s[]; extern __shared__ unsigned char bytes[];
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(64)?;
    /// let s = block.extern_array::<i32>("s")?;
    /// let bytes = block.extern_array::<u8>("bytes")?;
    /// assert_eq!((s.address(), bytes.address()), (0x400, 0x400));
    /// assert_eq!((s.len(), bytes.len()), (16, 64));
    /// // They alias: s[1] is bytes[4..8], little-endian.
    /// block.write(s, 1, 0x0403_0201)?;
    /// assert_eq!(block.read(bytes, 4)?, 0x01);
    /// assert_eq!(block.read(bytes, 7)?, 0x04);
    ///
    /// // Launched with no dynamic shared memory there is nothing to alias.
    /// let mut empty = SharedMemory::builder(ComputeCapability::Sm90).launch(0)?;
    /// assert_eq!(
    ///     empty.extern_array::<i32>("s").unwrap_err().to_string(),
    ///     "array `s` needs 4 bytes but only 0 bytes of the dynamic shared memory \
    ///      given at launch are left"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn extern_array<T: Element>(&mut self, name: &str) -> Result<Array<T>, Error> {
        ElementType::checked::<T>()?;
        let len = self.launch.dynamic_bytes() / T::SIZE;
        if len == 0 {
            return Err(Error::CarveTooLarge {
                name: name.to_owned(),
                requested: T::SIZE,
                available: self.launch.dynamic_bytes(),
            });
        }
        Ok(self.add(name, self.dynamic_start, len, Origin::Extern))
    }

    /// Carves `len` elements of `T` at the end of the previous carve, as
    /// `T *name = (T *)&previous[n];` does: no padding is inserted.
    ///
    /// # Errors
    ///
    /// - [`Error::MisalignedCarve`] when the carve's start is not a multiple of
    ///   `T`'s alignment: on hardware, the first access faults. The message names
    ///   both arrays and says how to fix it.
    /// - [`Error::CarveTooLarge`] when fewer than `len * sizeof(T)` bytes are left.
    /// - [`Error::EmptyArray`], [`Error::SizeOverflow`] for bad lengths, and
    ///   [`Error::ElementSize`] when `T`'s size is not a power of two.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(64)?;
    /// let c = block.carve::<u8>("c", 7)?;
    /// let err = block.carve::<f32>("b", 5).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "misaligned carve: float array `b` would start at offset 7 of the dynamic \
    ///      region, right after unsigned char array `c`, but float needs 4-byte \
    ///      alignment; carve `b` before `c`, or pad `c` to 8 bytes"
    /// );
    /// # let _ = c;
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn carve<T: Element>(&mut self, name: &str, len: usize) -> Result<Array<T>, Error> {
        ElementType::checked::<T>()?;
        let bytes = array_bytes(name, T::SIZE, len)?;
        let offset = self.carve_cursor - self.dynamic_start;
        if !offset.is_multiple_of(T::ALIGN) {
            let previous = self
                .arrays
                .iter()
                .rev()
                .find(|a| a.origin == Origin::Carved)
                .map(|a| (a.name.clone(), a.element, a.bytes))
                .unwrap_or_default();
            return Err(Error::MisalignedCarve {
                name: name.to_owned(),
                element: T::NAME,
                offset,
                align: T::ALIGN,
                previous: previous.0,
                previous_element: previous.1,
                padded: previous.2 + (T::ALIGN - offset % T::ALIGN),
            });
        }
        if bytes > self.dynamic_bytes_left() {
            return Err(Error::CarveTooLarge {
                name: name.to_owned(),
                requested: bytes,
                available: self.dynamic_bytes_left(),
            });
        }
        let address = self.carve_cursor;
        self.carve_cursor += bytes;
        Ok(self.add(name, address, bytes / T::SIZE, Origin::Carved))
    }

    fn add<T: Element>(&mut self, name: &str, address: u32, len: u32, origin: Origin) -> Array<T> {
        let slot = self.arrays.len() as u32;
        self.arrays.push(ArrayInfo {
            name: name.to_owned(),
            element: T::NAME,
            address,
            bytes: len * T::SIZE,
            origin,
        });
        Array {
            arena: self.id,
            slot,
            address,
            rows: 1,
            cols: len,
            _element: PhantomData,
        }
    }

    /// Every array declared, extern or carved so far, in order: the static
    /// arrays first, then the dynamic ones as they were made.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float partial[32]; then the seed's carve of the extern region:
    /// // int *a = s; float *b = (float *)&a[3]; char *c = (char *)&b[5];
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// kernel.declare::<f32>("partial", 32)?;
    /// let mut block = kernel.launch(39)?;
    /// block.carve::<i32>("a", 3)?;
    /// block.carve::<f32>("b", 5)?;
    /// block.carve::<u8>("c", 7)?;
    /// let placed: Vec<(&str, u32)> =
    ///     block.arrays().iter().map(|a| (a.name(), a.address())).collect();
    /// assert_eq!(
    ///     placed,
    ///     [("partial", 0x400), ("a", 0x480), ("b", 0x48c), ("c", 0x4a0)]
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn arrays(&self) -> &[ArrayInfo] {
        &self.arrays
    }

    /// The name of `array`, as declared.
    ///
    /// # Errors
    ///
    /// [`Error::ForeignArray`] when `array` belongs to another arena.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, SharedMemory};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// let block = kernel.launch(0)?;
    /// assert_eq!(block.name(tile)?, "tile");
    ///
    /// // Another kernel's arena does not know the handle.
    /// let other = SharedMemory::builder(ComputeCapability::Sm90).launch(0)?;
    /// assert!(matches!(other.name(tile), Err(Error::ForeignArray { .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn name<T: Element>(&self, array: Array<T>) -> Result<&str, Error> {
        self.info(array).map(|info| info.name.as_str())
    }

    fn info<T: Element>(&self, array: Array<T>) -> Result<&ArrayInfo, Error> {
        let slot = array.slot as usize;
        let owner = if slot < self.statics {
            self.statics_id
        } else {
            self.id
        };
        // A clone shares its original's id, and the two may carve different
        // arrays afterwards: the handle must also describe the array it names.
        let info = self.arrays.get(slot).filter(|info| {
            array.arena == owner
                && info.address == array.address
                && info.element == T::NAME
                && u64::from(info.bytes) == array.len() as u64 * u64::from(T::SIZE)
        });
        info.ok_or(Error::ForeignArray {
            array_arena: array.arena,
            arena: self.id,
        })
    }

    /// The shared address of `array[index]`: the array's address plus `index`
    /// elements.
    ///
    /// # Errors
    ///
    /// [`Error::ForeignArray`], and [`Error::IndexOutOfBounds`] naming the array.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // __shared__ float tile[32][33]; where does tile[1][2] live?
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    /// let block = kernel.launch(0)?;
    /// assert_eq!(block.address(tile, tile.index(1, 2)?)?, 0x400 + 35 * 4);
    /// assert_eq!(
    ///     block.address(tile, 32 * 33).unwrap_err().to_string(),
    ///     "index 1056 is out of bounds for array `tile` of 1056 elements"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn address<T: Element>(&self, array: Array<T>, index: usize) -> Result<u32, Error> {
        let info = self.info(array)?;
        if index >= array.len() {
            return Err(Error::IndexOutOfBounds {
                array: info.name.clone(),
                index: index as u64,
                len: array.len() as u64,
            });
        }
        Ok(array.address + index as u32 * T::SIZE)
    }

    /// Writes `array[index] = value`, as one thread does.
    ///
    /// # Errors
    ///
    /// As [`address`](Self::address).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory};
    ///
    /// // The seed's carve: int *a = s; float *b = (float *)&a[3];
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(32)?;
    /// let a = block.carve::<i32>("a", 3)?;
    /// let b = block.carve::<f32>("b", 5)?;
    /// block.write(a, 2, -7)?;
    /// block.write(b, 0, 0.5)?;
    /// assert_eq!((block.read(a, 2)?, block.read(b, 0)?), (-7, 0.5));
    /// // a[3] would be b[0] in C; here it is out of bounds.
    /// assert_eq!(
    ///     block.write(a, 3, 1).unwrap_err().to_string(),
    ///     "index 3 is out of bounds for array `a` of 3 elements"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn write<T: Element>(
        &mut self,
        array: Array<T>,
        index: usize,
        value: T,
    ) -> Result<(), Error> {
        let address = self.address(array, index)?;
        self.store_bytes(address, value);
        Ok(())
    }

    fn store_bytes<T: Element>(&mut self, address: u32, value: T) {
        let range = address as usize..(address + T::SIZE) as usize;
        value.store(&mut self.bytes[range.clone()]);
        self.written[range.clone()].fill(true);
        self.indeterminate[range].fill(false);
    }

    /// Reads `array[index]`.
    ///
    /// # Errors
    ///
    /// As [`address`](Self::address); [`Error::Uninitialized`] when some byte of
    /// the element was never written; [`Error::IndeterminateValue`] when it was
    /// last written by several lanes of one store under
    /// [`StoreOrder::Undefined`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, SharedMemory};
    ///
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(16)?;
    /// let a = block.carve::<i32>("a", 4)?;
    /// // Reading before writing, as compute-sanitizer --tool initcheck reports it.
    /// assert_eq!(
    ///     block.read(a, 1).unwrap_err().to_string(),
    ///     "uninitialized read: `a[1]` at shared address 0x404 was never written"
    /// );
    /// block.write(a, 1, 42)?;
    /// assert_eq!(block.read(a, 1)?, 42);
    ///
    /// // Writing one byte of an int through an aliasing extern array leaves the
    /// // rest of the int uninitialised.
    /// let bytes = block.extern_array::<u8>("bytes")?;
    /// block.write(bytes, 8, 1)?;
    /// assert!(matches!(block.read(a, 2), Err(Error::Uninitialized { index: 2, .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn read<T: Element>(&self, array: Array<T>, index: usize) -> Result<T, Error> {
        let address = self.address(array, index)?;
        let range = address as usize..(address + T::SIZE) as usize;
        if !self.written[range.clone()].all() {
            return Err(Error::Uninitialized {
                array: self.info(array)?.name.clone(),
                index: index as u64,
                address,
            });
        }
        if self.indeterminate[range.clone()].any() {
            // The latest colliding store that covers one of these bytes.
            let end = address + T::SIZE;
            let lanes = self
                .collisions
                .range(..end)
                .rev()
                .find(|&(&start, &(size, _))| start + size > address)
                .map_or(0, |(_, (_, lanes))| lanes.len() as u32);
            return Err(Error::IndeterminateValue {
                array: self.info(array)?.name.clone(),
                index: index as u64,
                lanes,
            });
        }
        Ok(T::load(&self.bytes[range]))
    }

    /// One warp-wide load `v = array[index(lane)]`, inactive where `index`
    /// returns `None`: the values each lane gets and the partition.
    ///
    /// # Errors
    ///
    /// Those of [`read`](Self::read) for the first lane that fails, and of
    /// [`BankConfig::partition`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, SharedMemory, StoreOrder};
    ///
    /// // __shared__ float tile[32][32] and tile[32][33]: read column 0.
    /// for (pitch, wavefronts) in [(32, 32), (33, 1)] {
    ///     let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    ///     let tile = kernel.declare_2d::<f32>("tile", 32, pitch)?;
    ///     let mut block = kernel.launch(0)?;
    ///     for row in 0..32 {
    ///         block.warp_store(
    ///             tile,
    ///             |lane| Some((tile.index(row, lane.index()).ok()?, row as f32)),
    ///             StoreOrder::Undefined,
    ///         )?;
    ///     }
    ///     let column = block.warp_load(tile, |lane| tile.index(lane.index(), 0).ok())?;
    ///     assert_eq!(column.partition().wavefronts(), wavefronts);
    ///     assert_eq!(column.values()[7], Some(7.0));
    /// }
    ///
    /// // Half a warp reading words nobody wrote.
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(128)?;
    /// let s = block.extern_array::<i32>("s")?;
    /// let half = |lane: smem_model::Lane| (lane.index() < 16).then(|| lane.index());
    /// assert!(matches!(block.warp_load(s, half), Err(Error::Uninitialized { index: 0, .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn warp_load<T: Element>(
        &self,
        array: Array<T>,
        mut index: impl FnMut(Lane) -> Option<usize>,
    ) -> Result<WarpLoad<T>, Error> {
        let mut values = [None; WARP_SIZE];
        let mut addresses = [None; WARP_SIZE];
        for lane in Lane::all() {
            if let Some(i) = index(lane) {
                values[lane.index()] = Some(self.read(array, i)?);
                addresses[lane.index()] = Some(self.address(array, i)?);
            }
        }
        let request = WarpRequest::new(Op::Load, T::SIZE, addresses)?;
        Ok(WarpLoad {
            values,
            partition: self.config.partition(&request)?,
        })
    }

    /// One warp-wide store `array[index(lane)] = value(lane)`, inactive where the
    /// closure returns `None`. Lanes storing to one element resolve by `order`:
    /// under [`StoreOrder::Undefined`] the element's value is indeterminate and
    /// reading it is an error until it is written again.
    ///
    /// # Errors
    ///
    /// As [`address`](Self::address) for the first lane that fails (nothing is
    /// written then), and as [`BankConfig::partition`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Lane, SharedMemory, StoreOrder};
    ///
    /// // Every lane stores its number to s[lane / 16]: two elements, 16 writers each.
    /// let run = |order| -> Result<_, smem_model::Error> {
    ///     let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(128)?;
    ///     let s = block.extern_array::<i32>("s")?;
    ///     let own_number = |lane: Lane| Some((lane.index() / 16, lane.get() as i32));
    ///     let store = block.warp_store(s, own_number, order)?;
    ///     assert_eq!(store.collisions().len(), 2);
    ///     assert_eq!(store.partition().wavefronts(), 1);
    ///     Ok((block.read(s, 0), block.read(s, 1)))
    /// };
    /// assert_eq!(run(StoreOrder::LowestLane)?, (Ok(0), Ok(16)));
    /// assert_eq!(run(StoreOrder::HighestLane)?, (Ok(15), Ok(31)));
    /// // What an H100 does (measured): 4-byte stores are one phase, the lowest lane lands.
    /// assert_eq!(run(StoreOrder::LowestLaneOfLastPhase)?, (Ok(0), Ok(16)));
    /// // As CUDA specifies it, one write lands and which one is undefined.
    /// let (first, _) = run(StoreOrder::Undefined)?;
    /// assert_eq!(
    ///     first.unwrap_err().to_string(),
    ///     "indeterminate read: `s[0]` was last written by 16 lanes of one store, and \
    ///      which write landed is undefined"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn warp_store<T: Element>(
        &mut self,
        array: Array<T>,
        mut store: impl FnMut(Lane) -> Option<(usize, T)>,
        order: StoreOrder,
    ) -> Result<WarpStore, Error> {
        let mut values = [None; WARP_SIZE];
        let mut addresses = [None; WARP_SIZE];
        for lane in Lane::all() {
            if let Some((i, value)) = store(lane) {
                addresses[lane.index()] = Some(self.address(array, i)?);
                values[lane.index()] = Some(value);
            }
        }
        let request = WarpRequest::new(Op::Store, T::SIZE, addresses)?;
        let partition = self.config.partition(&request)?;
        let collisions = request.write_collisions();
        for (lane, address) in request.active_addresses() {
            let value = values[lane.index()].expect("active lanes have values");
            let collision = collisions.iter().find(|c| c.address() == address);
            match collision.map(|c| (c, c.winner(order))) {
                None => self.store_bytes(address, value),
                Some((_, Some(winner))) if winner == lane => self.store_bytes(address, value),
                Some((_, Some(_))) => {}
                Some((c, None)) => {
                    // Any candidate's bytes could be there; keep the first, and
                    // remember that reading them is meaningless.
                    if c.lanes().first() == Some(lane) {
                        self.store_bytes(address, value);
                        let range = address as usize..(address + T::SIZE) as usize;
                        self.indeterminate[range].fill(true);
                        self.collisions.insert(address, (T::SIZE, c.lanes()));
                    }
                }
            }
        }
        Ok(WarpStore {
            partition,
            collisions: collisions.into_vec(),
        })
    }
}

/// The outcome of [`SharedMemory::warp_load`].
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
///
/// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(256)?;
/// let s = block.extern_array::<f32>("s")?;
/// block.warp_store(s, |lane| Some((lane.index(), lane.get() as f32)), StoreOrder::Undefined)?;
/// // Even lanes read s[lane / 2]; odd lanes sit out.
/// let load = block.warp_load(s, |lane| (lane.get() % 2 == 0).then(|| lane.index() / 2))?;
/// assert_eq!(load.values()[..4], [Some(0.0), None, Some(1.0), None]);
/// // Sixteen distinct words in sixteen banks: one wavefront.
/// assert_eq!(load.partition().wavefronts(), 1);
/// assert_eq!(load.partition().request().active().len(), 16);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct WarpLoad<T> {
    values: [Option<T>; WARP_SIZE],
    partition: Partition,
}

impl<T: Copy> WarpLoad<T> {
    /// The value each lane loaded, `None` for inactive lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let s = kernel.declare::<u32>("s", 64)?;
    /// let mut block = kernel.launch(0)?;
    /// block.warp_store(s, |lane| Some((lane.index(), 10 * lane.get())), StoreOrder::Undefined)?;
    /// // v = s[2 * lane] for the lower half-warp.
    /// let load = block.warp_load(s, |lane| (lane.get() < 16).then(|| 2 * lane.index()))?;
    /// assert_eq!(load.values()[3], Some(60));
    /// assert_eq!(load.values()[16], None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn values(&self) -> [Option<T>; WARP_SIZE] {
        self.values
    }

    /// How the load was served.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let s = kernel.declare::<u32>("s", 64)?;
    /// let mut block = kernel.launch(0)?;
    /// block.warp_store(s, |lane| Some((lane.index(), 10 * lane.get())), StoreOrder::Undefined)?;
    /// // v = s[2 * lane] for the lower half-warp.
    /// let load = block.warp_load(s, |lane| (lane.get() < 16).then(|| 2 * lane.index()))?;
    /// // Sixteen lanes in the even banks: one wavefront.
    /// assert_eq!(load.partition().wavefronts(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn partition(&self) -> &Partition {
        &self.partition
    }
}

/// The outcome of [`SharedMemory::warp_store`].
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, Lane, SharedMemory, StoreOrder};
///
/// // s[2 * lane] = lane: a 2-way bank conflict, no two lanes on one element.
/// let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(256)?;
/// let s = block.extern_array::<i32>("s")?;
/// let store = block.warp_store(s, |lane| Some((2 * lane.index(), 1)), StoreOrder::Undefined)?;
/// assert_eq!(store.partition().wavefronts(), 2);
/// assert!(store.collisions().is_empty());
///
/// // s[lane % 8] = lane: eight elements, four lanes on each.
/// let store = block.warp_store(s, |lane| Some((lane.index() % 8, 1)), StoreOrder::LowestLane)?;
/// assert_eq!(store.collisions().len(), 8);
/// assert_eq!(store.collisions()[0].address(), 0x400);
/// assert_eq!(store.collisions()[0].winner(StoreOrder::LowestLane), Some(Lane::new(0)?));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct WarpStore {
    partition: Partition,
    collisions: Vec<WriteCollision>,
}

impl WarpStore {
    /// How the store was served.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let s = kernel.declare::<u32>("s", 64)?;
    /// let mut block = kernel.launch(0)?;
    /// // s[lane / 2] = lane: two lanes store to each element.
    /// let store = block.warp_store(s, |lane| Some((lane.index() / 2, lane.get())), StoreOrder::Undefined)?;
    /// assert_eq!(store.partition().wavefronts(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// Elements written by several lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
    ///
    /// let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    /// let s = kernel.declare::<u32>("s", 64)?;
    /// let mut block = kernel.launch(0)?;
    /// // s[lane / 2] = lane: two lanes store to each element.
    /// let store = block.warp_store(s, |lane| Some((lane.index() / 2, lane.get())), StoreOrder::Undefined)?;
    /// assert_eq!(store.collisions().len(), 16);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn collisions(&self) -> &[WriteCollision] {
        &self.collisions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_ids_do_not_wrap_after_2_pow_32_arenas() {
        // __shared__ float s[4]; in a kernel of the first round of ids ...
        let mut first = SharedMemory::builder(ComputeCapability::Sm90);
        let s = first.declare::<f32>("s", 4).unwrap();
        // ... then 2^32 more arenas (the counter jumps there): a 32-bit id
        // came round to the first arena's, and the handle was accepted by a
        // stranger declaring the same array.
        NEXT_ARENA.fetch_max(s.arena + (1 << 32), Ordering::Relaxed);
        for _ in 0..4 {
            let mut stranger = SharedMemory::builder(ComputeCapability::Sm90);
            stranger.declare::<f32>("s", 4).unwrap();
            let block = stranger.launch(0).unwrap();
            assert!(matches!(
                block.name(s),
                Err(Error::ForeignArray { array_arena, arena })
                    if array_arena == s.arena && arena == block.id
            ));
        }
        assert_eq!(first.launch(0).unwrap().name(s), Ok("s"));
    }
}
