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
use std::sync::atomic::{AtomicU32, Ordering};

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

static NEXT_ARENA: AtomicU32 = AtomicU32::new(1);

/// A typed handle to an array in one [`SharedMemory`]: its place, length and
/// shape. Cheap to copy; using it with another arena is an error, not a silent
/// read of someone else's bytes.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, SharedMemory};
///
/// let mut block = SharedMemory::builder(ComputeCapability::Sm90);
/// let tile = block.declare_2d::<f32>("tile", 32, 33)?;
/// assert_eq!((tile.rows(), tile.cols(), tile.len()), (32, 33, 32 * 33));
/// assert_eq!(tile.address(), 0x400);
/// assert_eq!(tile.index(1, 0)?, 33);
/// # Ok::<(), smem_model::Error>(())
/// ```
pub struct Array<T> {
    arena: u32,
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
    pub fn address(&self) -> u32 {
        self.address
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// Whether the array has no elements (never true: empty arrays are refused).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows: 1 for a 1-D array.
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    /// Columns (elements per row): the length of a 1-D array.
    pub fn cols(&self) -> usize {
        self.cols as usize
    }

    /// The flat index of `[row][col]`.
    ///
    /// # Errors
    ///
    /// [`Error::IndexOutOfBounds`] when `row` or `col` is past the shape (the
    /// message names the array by its address; the arena's own methods name it).
    pub fn index(&self, row: usize, col: usize) -> Result<usize, Error> {
        if row >= self.rows() || col >= self.cols() {
            return Err(Error::IndexOutOfBounds {
                array: format!("array at {:#x}", self.address),
                index: row.saturating_mul(self.cols()).saturating_add(col) as u64,
                len: self.len() as u64,
            });
        }
        Ok(row * self.cols() + col)
    }
}

/// How an array was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// `__shared__ T name[n];`
    Static,
    /// `extern __shared__ T name[];`: aliases the start of the dynamic region.
    Extern,
    /// Carved from the dynamic region by pointer arithmetic.
    Carved,
}

/// One array of a [`SharedMemory`]: name, type, place and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayInfo {
    name: String,
    element: &'static str,
    address: u32,
    bytes: u32,
    origin: Origin,
}

impl ArrayInfo {
    /// The array's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its element type's CUDA name.
    pub fn element(&self) -> &'static str {
        self.element
    }

    /// The shared address of its first element.
    pub fn address(&self) -> u32 {
        self.address
    }

    /// Its size in bytes.
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// How it was declared.
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
    id: u32,
    capability: ComputeCapability,
    arrays: Vec<ArrayInfo>,
    end: u32,
    opt_in: Option<u32>,
}

impl SharedMemoryBuilder {
    /// Declares `__shared__ T name[len];`.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyArray`] for `len` 0, [`Error::SizeOverflow`] when the bytes
    /// overflow `u32`, [`Error::StaticTooLarge`] when the statics pass the 48 KB
    /// static limit (16 KB on 1.x), [`Error::ElementSize`] when `T`'s size is not
    /// a power of two.
    pub fn declare<T: Element>(&mut self, name: &str, len: usize) -> Result<Array<T>, Error> {
        self.declare_2d(name, 1, len)
    }

    /// Declares `__shared__ T name[rows][cols];`.
    ///
    /// # Errors
    ///
    /// As [`declare`](Self::declare), with `rows * cols` elements.
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
    pub fn opt_in(&mut self, max_dynamic_bytes: u32) -> &mut Self {
        self.opt_in = Some(max_dynamic_bytes);
        self
    }

    /// The static shared memory the kernel declares (`sharedSizeBytes`): the end
    /// of the last static array, rounded up to 16 bytes.
    pub fn static_bytes(&self) -> u32 {
        align_up(self.end, STATIC_ROUNDING).expect("bounded by the static limit")
    }

    /// Launches a block with `dynamic_bytes` of dynamic shared memory (the third
    /// launch parameter).
    ///
    /// # Errors
    ///
    /// Those of [`Launch::check`]: [`Error::OptInTooLarge`] and
    /// [`Error::LaunchTooLarge`].
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
            id: self.id,
            launch,
            config: BankConfig::new(self.capability),
            arrays: self.arrays.clone(),
            dynamic_start,
            carve_cursor: dynamic_start,
            bytes: vec![0; window],
            written: BitVec::repeat(false, window),
            indeterminate: BTreeMap::new(),
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
    id: u32,
    launch: Launch,
    config: BankConfig,
    arrays: Vec<ArrayInfo>,
    dynamic_start: u32,
    carve_cursor: u32,
    bytes: Vec<u8>,
    written: BitVec,
    /// Elements last written by several lanes of one store under
    /// `StoreOrder::Undefined`: their value is any one of these lanes'.
    indeterminate: BTreeMap<u32, LaneSet>,
}

impl SharedMemory {
    /// Starts declaring a kernel's shared memory on `capability`.
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
    pub fn launch(&self) -> Launch {
        self.launch
    }

    /// The bank configuration warp accesses are partitioned under.
    pub fn bank_config(&self) -> BankConfig {
        self.config
    }

    /// Uses `config` for warp accesses, e.g. Kepler's eight-byte mode.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityMismatch`] when `config` is for another capability.
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

    /// The shared address where the dynamic region starts.
    pub fn dynamic_start(&self) -> u32 {
        self.dynamic_start
    }

    /// Bytes of the dynamic region not yet carved.
    pub fn dynamic_bytes_left(&self) -> u32 {
        self.dynamic_start + self.launch.dynamic_bytes() - self.carve_cursor
    }

    /// `extern __shared__ T name[];`: an array at the start of the dynamic
    /// region, as long as the region holds whole elements. Every extern
    /// declaration aliases the same start, whatever its type.
    ///
    /// # Errors
    ///
    /// [`Error::CarveTooLarge`] when the region cannot hold one element;
    /// [`Error::ElementSize`] when `T`'s size is not a power of two.
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
        if offset % T::ALIGN != 0 {
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

    /// Every array declared, extern or carved so far, in order.
    pub fn arrays(&self) -> &[ArrayInfo] {
        &self.arrays
    }

    /// The name of `array`, as declared.
    ///
    /// # Errors
    ///
    /// [`Error::ForeignArray`] when `array` belongs to another arena.
    pub fn name<T: Element>(&self, array: Array<T>) -> Result<&str, Error> {
        self.info(array).map(|info| info.name.as_str())
    }

    fn info<T: Element>(&self, array: Array<T>) -> Result<&ArrayInfo, Error> {
        if array.arena != self.id {
            return Err(Error::ForeignArray {
                array_arena: array.arena,
                arena: self.id,
            });
        }
        Ok(&self.arrays[array.slot as usize])
    }

    /// The shared address of `array[index]`.
    ///
    /// # Errors
    ///
    /// [`Error::ForeignArray`], and [`Error::IndexOutOfBounds`] naming the array.
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

    /// Writes `array[index] = value`.
    ///
    /// # Errors
    ///
    /// As [`address`](Self::address).
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
        self.written[range].fill(true);
        self.indeterminate.remove(&address);
    }

    /// Reads `array[index]`.
    ///
    /// # Errors
    ///
    /// As [`address`](Self::address); [`Error::Uninitialized`] when some byte of
    /// the element was never written; [`Error::IndeterminateValue`] when it was
    /// last written by several lanes of one store under
    /// [`StoreOrder::Undefined`].
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
        if let Some(lanes) = self.indeterminate.get(&address) {
            return Err(Error::IndeterminateValue {
                array: self.info(array)?.name.clone(),
                index: index as u64,
                lanes: lanes.len() as u32,
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
                        self.indeterminate.insert(address, c.lanes());
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
#[derive(Debug, Clone)]
pub struct WarpLoad<T> {
    values: [Option<T>; WARP_SIZE],
    partition: Partition,
}

impl<T: Copy> WarpLoad<T> {
    /// The value each lane loaded, `None` for inactive lanes.
    pub fn values(&self) -> [Option<T>; WARP_SIZE] {
        self.values
    }

    /// How the load was served.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }
}

/// The outcome of [`SharedMemory::warp_store`].
#[derive(Debug, Clone)]
pub struct WarpStore {
    partition: Partition,
    collisions: Vec<WriteCollision>,
}

impl WarpStore {
    /// How the store was served.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// Elements written by several lanes.
    pub fn collisions(&self) -> &[WriteCollision] {
        &self.collisions
    }
}
