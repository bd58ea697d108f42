//! Element types of shared arrays: their CUDA names, sizes and alignments, and
//! how their values are stored as bytes.

use core::fmt;

use crate::Error;

/// A type that can live in a shared array, as a CUDA type does.
///
/// `SIZE` and `ALIGN` are the CUDA type's (`float4` is 16-byte aligned, though
/// `[f32; 4]` is only 4-byte aligned in Rust); values are stored little-endian,
/// as on every CUDA GPU. Implemented for the integer and floating-point
/// primitives and for the vector types [`Float2`], [`Float4`], [`Int2`], [`Int4`]
/// and [`Double2`].
///
/// # Example
///
/// ```
/// use smem_model::{Element, Float4};
///
/// assert_eq!((f64::SIZE, f64::ALIGN, f64::NAME), (8, 8, "double"));
/// assert_eq!((Float4::SIZE, Float4::ALIGN, Float4::NAME), (16, 16, "float4"));
/// let mut bytes = [0u8; 4];
/// 1.5f32.store(&mut bytes);
/// assert_eq!(f32::load(&bytes), 1.5);
/// ```
pub trait Element: Copy + fmt::Debug + PartialEq + 'static {
    /// `sizeof` the CUDA type, in bytes.
    const SIZE: u32;
    /// `alignof` the CUDA type, in bytes.
    const ALIGN: u32;
    /// The CUDA type's name, used in messages (`"float"`, `"int4"`).
    const NAME: &'static str;
    /// Writes the value into `bytes` (exactly `SIZE` long), little-endian.
    fn store(self, bytes: &mut [u8]);
    /// Reads a value from `bytes` (exactly `SIZE` long), little-endian.
    fn load(bytes: &[u8]) -> Self;
}

macro_rules! primitive {
    ($($t:ty => $name:literal),* $(,)?) => {$(
        impl Element for $t {
            const SIZE: u32 = core::mem::size_of::<$t>() as u32;
            const ALIGN: u32 = core::mem::size_of::<$t>() as u32;
            const NAME: &'static str = $name;
            fn store(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_le_bytes());
            }
            fn load(bytes: &[u8]) -> Self {
                let mut raw = [0u8; core::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_le_bytes(raw)
            }
        }
    )*};
}

primitive! {
    i8 => "signed char",
    u8 => "unsigned char",
    i16 => "short",
    u16 => "unsigned short",
    i32 => "int",
    u32 => "unsigned int",
    i64 => "long long",
    u64 => "unsigned long long",
    f32 => "float",
    f64 => "double",
}

macro_rules! vector {
    ($(#[$doc:meta] $name:ident($t:ty; $n:literal) => $cuda:literal),* $(,)?) => {$(
        #[$doc]
        #[derive(Debug, Clone, Copy, PartialEq, Default)]
        pub struct $name(pub [$t; $n]);

        impl Element for $name {
            const SIZE: u32 = <$t as Element>::SIZE * $n;
            const ALIGN: u32 = <$t as Element>::SIZE * $n;
            const NAME: &'static str = $cuda;
            fn store(self, bytes: &mut [u8]) {
                let size = <$t as Element>::SIZE as usize;
                for (value, chunk) in self.0.into_iter().zip(bytes.chunks_exact_mut(size)) {
                    value.store(chunk);
                }
            }
            fn load(bytes: &[u8]) -> Self {
                let size = <$t as Element>::SIZE as usize;
                $name(core::array::from_fn(|i| <$t>::load(&bytes[i * size..(i + 1) * size])))
            }
        }
    )*};
}

vector! {
    #[doc = r#"CUDA's `float2`: two floats, 8-byte aligned.

# Example

```
use smem_model::{ComputeCapability, Element, Error, Float2, SharedMemory, StoreOrder};

assert_eq!((Float2::SIZE, Float2::ALIGN, Float2::NAME), (8, 8, "float2"));
// extern __shared__ float2 v[]; v[lane] = ...; ... = v[lane];
let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(256)?;
let v = block.extern_array::<Float2>("v")?;
let value = |lane: smem_model::Lane| Float2([lane.get() as f32, 1.0]);
block.warp_store(v, |lane| Some((lane.index(), value(lane))), StoreOrder::Undefined)?;
let load = block.warp_load(v, |lane| Some(lane.index()))?;
assert_eq!(load.values()[3], Some(Float2([3.0, 1.0])));
// 256 bytes for the warp: two wavefronts of 128 bytes.
assert_eq!(load.partition().wavefronts(), 2);

// float2 *p = (float2 *)&f[3]; starts at byte 12: misaligned.
let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(64)?;
block.carve::<f32>("f", 3)?;
let err = block.carve::<Float2>("p", 2).unwrap_err();
assert!(matches!(err, Error::MisalignedCarve { offset: 12, align: 8, .. }));
# Ok::<(), smem_model::Error>(())
```
"#]
    Float2(f32; 2) => "float2",
    #[doc = r#"CUDA's `float4`: four floats, 16-byte aligned.

# Example

```
use smem_model::{ComputeCapability, Element, Float4, SharedMemory, StoreOrder};

assert_eq!((Float4::SIZE, Float4::ALIGN, Float4::NAME), (16, 16, "float4"));
// __shared__ char c[5]; extern __shared__ float4 dyn4[]; measured on an H200:
// the region starts at the next 16 bytes.
let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
kernel.declare::<u8>("c", 5)?;
let mut block = kernel.launch(512)?;
let dyn4 = block.extern_array::<Float4>("dyn4")?;
assert_eq!(dyn4.address(), 0x410);
// A vectorised load, ... = dyn4[lane]: 512 bytes, four wavefronts.
let half = Float4([0.5; 4]);
block.warp_store(dyn4, |lane| Some((lane.index(), half)), StoreOrder::Undefined)?;
let load = block.warp_load(dyn4, |lane| Some(lane.index()))?;
assert_eq!(load.values()[31], Some(Float4([0.5; 4])));
assert_eq!(load.partition().wavefronts(), 4);
# Ok::<(), smem_model::Error>(())
```
"#]
    Float4(f32; 4) => "float4",
    #[doc = r#"CUDA's `int2`: two ints, 8-byte aligned.

# Example

```
use smem_model::{ComputeCapability, Element, Int2, SharedMemory};

assert_eq!((Int2::SIZE, Int2::ALIGN, Int2::NAME), (8, 8, "int2"));
// extern __shared__ int2 pairs[]; extern __shared__ int ints[]; alias:
// pairs[1] is ints[2] and ints[3].
let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(64)?;
let pairs = block.extern_array::<Int2>("pairs")?;
let ints = block.extern_array::<i32>("ints")?;
block.write(pairs, 1, Int2([7, -1]))?;
assert_eq!((block.read(ints, 2)?, block.read(ints, 3)?), (7, -1));
# Ok::<(), smem_model::Error>(())
```
"#]
    Int2(i32; 2) => "int2",
    #[doc = r#"CUDA's `int4`: four ints, 16-byte aligned.

# Example

```
use smem_model::{ComputeCapability, Element, Int4, SharedMemory};

assert_eq!((Int4::SIZE, Int4::ALIGN, Int4::NAME), (16, 16, "int4"));
// __shared__ char flag; __shared__ int4 v[2];: v is aligned past 15 bytes of padding.
let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
let flag = kernel.declare::<u8>("flag", 1)?;
let v = kernel.declare::<Int4>("v", 2)?;
assert_eq!((flag.address(), v.address()), (0x400, 0x410));
assert_eq!(kernel.static_bytes(), 48);
# Ok::<(), smem_model::Error>(())
```
"#]
    Int4(i32; 4) => "int4",
    #[doc = r#"CUDA's `double2`: two doubles, 16-byte aligned.

# Example

```
use smem_model::{Double2, DynamicLayout, Element};

assert_eq!((Double2::SIZE, Double2::ALIGN, Double2::NAME), (16, 16, "double2"));
// Seven chars, then double2s: 9 bytes of padding to reach offset 16.
let layout = DynamicLayout::new().array::<u8>("c", 7)?.array::<Double2>("d", 4)?;
assert_eq!(layout.arrays()[1].offset(), 16);
assert_eq!(layout.padding_bytes(), 9);
// Stored as two little-endian doubles.
let mut bytes = [0u8; 16];
Double2([1.0, -2.0]).store(&mut bytes);
assert_eq!(bytes[8..], (-2.0f64).to_le_bytes());
assert_eq!(Double2::load(&bytes), Double2([1.0, -2.0]));
# Ok::<(), smem_model::Error>(())
```
"#]
    Double2(f64; 2) => "double2",
}

/// An element type known only at run time: a name, a size and an alignment.
///
/// Used by [`DynamicLayout`](crate::DynamicLayout) and by tools that read
/// layouts from text. Sizes and alignments must be powers of two, as every CUDA
/// scalar and vector type's are, and the alignment at most the size.
///
/// # Example
///
/// ```
/// use smem_model::{ElementType, Error};
///
/// let float = ElementType::of::<f32>();
/// assert_eq!((float.name(), float.size(), float.align()), ("float", 4, 4));
/// let float3 = ElementType::new("float3", 12, 4);
/// assert_eq!(float3, Err(Error::ElementSize { name: "float3".into(), size: 12, align: 4 }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementType {
    name: String,
    size: u32,
    align: u32,
}

impl ElementType {
    /// A named element type.
    ///
    /// # Errors
    ///
    /// [`Error::ElementSize`] when `size` or `align` is zero or not a power of
    /// two, or `align` exceeds `size`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ElementType, Error};
    ///
    /// // __half2, read from a layout description: 4 bytes, 4-byte aligned.
    /// let half2 = ElementType::new("__half2", 4, 4)?;
    /// assert_eq!((half2.name(), half2.size(), half2.align()), ("__half2", 4, 4));
    /// // float3 is 12 bytes: not a power of two.
    /// assert_eq!(
    ///     ElementType::new("float3", 12, 4).unwrap_err().to_string(),
    ///     "element type `float3` has size 12 and alignment 4: both must be powers of \
    ///      two, the alignment at most the size"
    /// );
    /// // An alignment past the size is refused too.
    /// assert!(matches!(ElementType::new("odd", 4, 8), Err(Error::ElementSize { .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn new(name: impl Into<String>, size: u32, align: u32) -> Result<Self, Error> {
        let element = ElementType {
            name: name.into(),
            size,
            align,
        };
        element.check()?;
        Ok(element)
    }

    /// Checks what [`new`](Self::new) checks, for a type built unchecked by
    /// [`of`](Self::of): users of an element type call it before dividing by
    /// its size or rounding to its alignment.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let (size, align) = (self.size, self.align);
        if !size.is_power_of_two() || !align.is_power_of_two() || align > size {
            return Err(Error::ElementSize {
                name: self.name.clone(),
                size,
                align,
            });
        }
        Ok(())
    }

    /// The run-time description of `T`, checked as [`new`](Self::new) checks.
    ///
    /// # Errors
    ///
    /// [`Error::ElementSize`] for an [`Element`] implementation whose size or
    /// alignment is not a power of two (every built-in one is valid).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Element, ElementType, Error, Int4};
    ///
    /// assert_eq!(ElementType::checked::<Int4>()?, ElementType::new("int4", 16, 16)?);
    ///
    /// // A user's own 12-byte type, like CUDA's float3.
    /// #[derive(Debug, Clone, Copy, PartialEq)]
    /// struct Float3([f32; 3]);
    /// impl Element for Float3 {
    ///     const SIZE: u32 = 12;
    ///     const ALIGN: u32 = 4;
    ///     const NAME: &'static str = "float3";
    ///     // ...
    /// #   fn store(self, bytes: &mut [u8]) {
    /// #       for (v, chunk) in self.0.iter().zip(bytes.chunks_exact_mut(4)) {
    /// #           chunk.copy_from_slice(&v.to_le_bytes());
    /// #       }
    /// #   }
    /// #   fn load(bytes: &[u8]) -> Self {
    /// #       Float3(core::array::from_fn(|i| {
    /// #           f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap())
    /// #       }))
    /// #   }
    /// }
    /// assert_eq!(
    ///     ElementType::checked::<Float3>(),
    ///     Err(Error::ElementSize { name: "float3".into(), size: 12, align: 4 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn checked<T: Element>() -> Result<Self, Error> {
        Self::new(T::NAME, T::SIZE, T::ALIGN)
    }

    /// The run-time description of `T`, unchecked: use
    /// [`checked`](Self::checked) for an [`Element`] implementation of your own.
    /// An invalid type built this way (a size of 0, say) is refused where it
    /// is used: [`DynamicLayout::push`](crate::DynamicLayout::push) returns
    /// [`Error::ElementSize`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Double2, ElementType};
    ///
    /// let double2 = ElementType::of::<Double2>();
    /// assert_eq!((double2.name(), double2.size(), double2.align()), ("double2", 16, 16));
    /// assert_eq!(ElementType::of::<u16>().name(), "unsigned short");
    /// assert_eq!(ElementType::of::<i64>().name(), "long long");
    /// ```
    pub fn of<T: Element>() -> Self {
        ElementType {
            name: T::NAME.to_owned(),
            size: T::SIZE,
            align: T::ALIGN,
        }
    }

    /// The type's name.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ElementType, Float4};
    ///
    /// let float4 = ElementType::of::<Float4>();
    /// assert_eq!(float4.name(), "float4");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `sizeof`, in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ElementType, Float4};
    ///
    /// let float4 = ElementType::of::<Float4>();
    /// assert_eq!(float4.size(), 16);
    /// ```
    pub fn size(&self) -> u32 {
        self.size
    }

    /// `alignof`, in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ElementType, Float4};
    ///
    /// let float4 = ElementType::of::<Float4>();
    /// assert_eq!(float4.align(), 16);
    /// ```
    pub fn align(&self) -> u32 {
        self.align
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_through_bytes() {
        let mut bytes = [0u8; 16];
        Float4([1.0, -2.0, 3.5, 0.25]).store(&mut bytes);
        assert_eq!(Float4::load(&bytes), Float4([1.0, -2.0, 3.5, 0.25]));
        assert_eq!(&bytes[4..8], &(-2.0f32).to_le_bytes());
    }

    #[test]
    fn every_builtin_is_a_valid_element_type() {
        for t in [
            ElementType::of::<i8>(),
            ElementType::of::<u16>(),
            ElementType::of::<f64>(),
            ElementType::of::<Int2>(),
            ElementType::of::<Double2>(),
        ] {
            assert!(ElementType::new(t.name(), t.size(), t.align()).is_ok());
        }
    }
}
