//! Planning the dynamic region: where each carved array goes and how many bytes
//! to pass at launch.

use crate::arena::element::{Element, ElementType};
use crate::Error;

/// The offsets of several typed arrays carved one after another out of the
/// `extern __shared__` region, with the padding alignment requires, and the
/// dynamic size to pass at launch.
///
/// The arrays keep the order given: each starts at the first offset after the
/// previous one that is a multiple of its alignment. The region itself starts
/// 16-byte aligned (measured on sm_90: `tests/data/device/`), so offsets that
/// are aligned within the region are aligned in shared memory.
///
/// # Example: the seed's int / float / char carve
///
/// ```
/// use smem_model::DynamicLayout;
///
/// let (n_i, n_f, n_c) = (3, 5, 7);
/// let layout = DynamicLayout::new()
///     .array::<i32>("a", n_i)?
///     .array::<f32>("b", n_f)?
///     .array::<u8>("c", n_c)?;
/// let offsets: Vec<u32> = layout.arrays().iter().map(|a| a.offset()).collect();
/// assert_eq!(offsets, [0, 12, 32]);
/// assert_eq!(layout.launch_bytes(), 39);
/// assert_eq!(layout.padding_bytes(), 0);
///
/// // Chars first: the floats need 1 byte of padding after 7 chars.
/// let misordered = DynamicLayout::new()
///     .array::<u8>("c", n_c)?
///     .array::<f32>("b", n_f)?;
/// assert_eq!(misordered.arrays()[1].offset(), 8);
/// assert_eq!(misordered.arrays()[1].padding_before(), 1);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DynamicLayout {
    arrays: Vec<PlacedArray>,
    end: u32,
}

/// One array of a [`DynamicLayout`].
///
/// # Example
///
/// ```
/// use smem_model::DynamicLayout;
///
/// // char c[7]; then float b[5]: one byte of padding.
/// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
/// let b = &layout.arrays()[1];
/// assert_eq!((b.name(), b.element().name()), ("b", "float"));
/// assert_eq!((b.len(), b.bytes()), (5, 20));
/// assert!(!b.is_empty());
/// assert_eq!((b.offset(), b.padding_before()), (8, 1));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedArray {
    name: String,
    element: ElementType,
    len: u32,
    offset: u32,
    padding_before: u32,
}

impl PlacedArray {
    /// The array's name.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert_eq!(b.name(), "b");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its element type.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert_eq!(b.element().size(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn element(&self) -> &ElementType {
        &self.element
    }

    /// Its number of elements.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert_eq!(b.len(), 5);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether it has no elements (never true: empty arrays are refused).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert!(!b.is_empty());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its offset in bytes from the start of the dynamic region.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert_eq!(b.offset(), 8);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn offset(&self) -> u32 {
        self.offset
    }

    /// Its size in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert_eq!(b.bytes(), 20);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn bytes(&self) -> u32 {
        self.len * self.element.size()
    }

    /// Bytes of padding inserted before it to align it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; then float b[5]: one byte of padding.
    /// let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<f32>("b", 5)?;
    /// let b = &layout.arrays()[1];
    /// assert_eq!(b.padding_before(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn padding_before(&self) -> u32 {
        self.padding_before
    }
}

impl DynamicLayout {
    /// An empty layout: nothing to launch with.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// let layout = DynamicLayout::new();
    /// assert!(layout.arrays().is_empty());
    /// assert_eq!(layout.launch_bytes(), 0);
    /// assert_eq!(layout, DynamicLayout::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `len` elements of `T` named `name`, at the first offset after the
    /// previous array that is a multiple of `T`'s alignment.
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push), and [`Error::ElementSize`] for an element type
    /// whose size is not a power of two.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{DynamicLayout, Error, Float4};
    ///
    /// // unsigned short s[3]; float4 v[8];: the float4s start at 16.
    /// let layout = DynamicLayout::new().array::<u16>("s", 3)?.array::<Float4>("v", 8)?;
    /// assert_eq!(layout.arrays()[1].offset(), 16);
    /// assert_eq!(layout.launch_bytes(), 16 + 8 * 16);
    ///
    /// assert_eq!(
    ///     DynamicLayout::new().array::<f32>("empty", 0),
    ///     Err(Error::EmptyArray { name: "empty".into() })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn array<T: Element>(mut self, name: &str, len: usize) -> Result<Self, Error> {
        self.push(name, ElementType::checked::<T>()?, len)?;
        Ok(self)
    }

    /// Adds `len` elements of a run-time element type.
    ///
    /// # Errors
    ///
    /// - [`Error::ElementSize`] when the element type's size or alignment is
    ///   zero or not a power of two, or its alignment exceeds its size (possible
    ///   for a type from [`ElementType::of`], which does not check).
    /// - [`Error::EmptyArray`] when `len` is 0.
    /// - [`Error::SizeOverflow`] when the array or the region would pass
    ///   `u32::MAX` bytes.
    ///
    /// A failed push leaves the layout as it was.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{DynamicLayout, ElementType, Error};
    ///
    /// // Element types read from a description at run time: char c[3]; __half2 h[8];
    /// let mut layout = DynamicLayout::new();
    /// layout.push("c", ElementType::new("char", 1, 1)?, 3)?;
    /// let h = layout.push("h", ElementType::new("__half2", 4, 4)?, 8)?;
    /// assert_eq!((h.offset(), h.padding_before(), h.bytes()), (4, 1, 32));
    /// assert_eq!(layout.launch_bytes(), 36);
    ///
    /// let huge = layout.push("huge", ElementType::of::<f64>(), 1 << 30).unwrap_err();
    /// assert_eq!(
    ///     huge.to_string(),
    ///     "array `huge` of 1073741824 elements of 8 bytes overflows the 32-bit shared \
    ///      address space"
    /// );
    /// assert_eq!(layout.arrays().len(), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn push(
        &mut self,
        name: &str,
        element: ElementType,
        len: usize,
    ) -> Result<&PlacedArray, Error> {
        // Before any division by the size or rounding to the alignment.
        element.check()?;
        let bytes = array_bytes(name, element.size(), len)?;
        let offset =
            align_up(self.end, element.align()).ok_or_else(|| overflow(name, len, &element))?;
        let end = offset
            .checked_add(bytes)
            .ok_or_else(|| overflow(name, len, &element))?;
        self.arrays.push(PlacedArray {
            name: name.to_owned(),
            padding_before: offset - self.end,
            len: bytes / element.size(),
            element,
            offset,
        });
        self.end = end;
        Ok(self.arrays.last().expect("just pushed"))
    }

    /// The arrays, in order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// let layout = DynamicLayout::new()
    ///     .array::<i32>("a", 3)?
    ///     .array::<f32>("b", 5)?
    ///     .array::<u8>("c", 7)?;
    /// let placed: Vec<(&str, u32, u32)> = layout
    ///     .arrays()
    ///     .iter()
    ///     .map(|a| (a.name(), a.offset(), a.bytes()))
    ///     .collect();
    /// assert_eq!(placed, [("a", 0, 12), ("b", 12, 20), ("c", 32, 7)]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn arrays(&self) -> &[PlacedArray] {
        &self.arrays
    }

    /// The dynamic shared-memory size to pass as the third launch parameter:
    /// the end of the last array.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, DynamicLayout, SharedMemory};
    ///
    /// // Plan the seed's carve, launch with its size, and carve as the kernel does.
    /// let layout = DynamicLayout::new()
    ///     .array::<i32>("a", 3)?
    ///     .array::<f32>("b", 5)?
    ///     .array::<u8>("c", 7)?;
    /// assert_eq!(layout.launch_bytes(), 39);
    /// let mut block = SharedMemory::builder(ComputeCapability::Sm90)
    ///     .launch(layout.launch_bytes())?;
    /// block.carve::<i32>("a", 3)?;
    /// let b = block.carve::<f32>("b", 5)?;
    /// block.carve::<u8>("c", 7)?;
    /// assert_eq!(b.address() - block.dynamic_start(), layout.arrays()[1].offset());
    /// assert_eq!(block.dynamic_bytes_left(), 0);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn launch_bytes(&self) -> u32 {
        self.end
    }

    /// Total padding inserted for alignment.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// // char c[7]; double d[2]; float b[5];: 1 byte before the doubles.
    /// let layout = DynamicLayout::new()
    ///     .array::<u8>("c", 7)?
    ///     .array::<f64>("d", 2)?
    ///     .array::<f32>("b", 5)?;
    /// assert_eq!(layout.padding_bytes(), 1);
    /// assert_eq!(layout.launch_bytes(), 7 + 1 + 16 + 20);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn padding_bytes(&self) -> u32 {
        self.arrays.iter().map(|a| a.padding_before).sum()
    }

    /// The same arrays reordered by decreasing alignment (stable, so equal
    /// alignments keep their order), which needs no padding at all: each array's
    /// size is a multiple of its alignment, which divides every later one's.
    ///
    /// The result is never larger than `self`: [`push`](Self::push) admits only
    /// element types whose size and alignment are powers of two, the alignment
    /// at most the size, and for those the reordered arrays are packed without
    /// a byte of padding.
    ///
    /// ```
    /// use smem_model::DynamicLayout;
    ///
    /// let layout = DynamicLayout::new()
    ///     .array::<u8>("c", 7)?
    ///     .array::<f64>("d", 2)?
    ///     .array::<f32>("b", 5)?;
    /// assert_eq!(layout.padding_bytes(), 1);
    /// let packed = layout.sorted_by_alignment();
    /// let names: Vec<&str> = packed.arrays().iter().map(|a| a.name()).collect();
    /// assert_eq!(names, ["d", "b", "c"]);
    /// assert_eq!(packed.padding_bytes(), 0);
    /// assert_eq!(packed.launch_bytes(), 16 + 20 + 7);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn sorted_by_alignment(&self) -> DynamicLayout {
        let mut arrays = self.arrays.clone();
        arrays.sort_by_key(|a| core::cmp::Reverse(a.element.align()));
        let mut sorted = DynamicLayout::new();
        for a in arrays {
            // Every array was admitted by `push`, so the packed layout is no
            // larger than this one and each push succeeds; should one fail,
            // the layout as given is the answer rather than a panic.
            if sorted.push(&a.name, a.element, a.len as usize).is_err() {
                return self.clone();
            }
        }
        if sorted.end > self.end {
            return self.clone();
        }
        sorted
    }
}

/// `len * size` as `u32`, or the error naming the array.
pub(crate) fn array_bytes(name: &str, size: u32, len: usize) -> Result<u32, Error> {
    if len == 0 {
        return Err(Error::EmptyArray {
            name: name.to_owned(),
        });
    }
    u32::try_from(len)
        .ok()
        .and_then(|len| len.checked_mul(size))
        .ok_or_else(|| Error::SizeOverflow {
            name: name.to_owned(),
            len: len as u64,
            element_size: size,
        })
}

fn overflow(name: &str, len: usize, element: &ElementType) -> Error {
    Error::SizeOverflow {
        name: name.to_owned(),
        len: len as u64,
        element_size: element.size(),
    }
}

/// `value` rounded up to a multiple of `align` (a power of two), or `None` on overflow.
pub(crate) fn align_up(value: u32, align: u32) -> Option<u32> {
    value.checked_add(align - 1).map(|v| v & !(align - 1))
}
