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
    /// CUDA's `float2`: two floats, 8-byte aligned.
    Float2(f32; 2) => "float2",
    /// CUDA's `float4`: four floats, 16-byte aligned.
    Float4(f32; 4) => "float4",
    /// CUDA's `int2`: two ints, 8-byte aligned.
    Int2(i32; 2) => "int2",
    /// CUDA's `int4`: four ints, 16-byte aligned.
    Int4(i32; 4) => "int4",
    /// CUDA's `double2`: two doubles, 16-byte aligned.
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
    pub fn new(name: impl Into<String>, size: u32, align: u32) -> Result<Self, Error> {
        let name = name.into();
        if !size.is_power_of_two() || !align.is_power_of_two() || align > size {
            return Err(Error::ElementSize { name, size, align });
        }
        Ok(ElementType { name, size, align })
    }

    /// The run-time description of `T`, checked as [`new`](Self::new) checks.
    ///
    /// # Errors
    ///
    /// [`Error::ElementSize`] for an [`Element`] implementation whose size or
    /// alignment is not a power of two (every built-in one is valid).
    pub fn checked<T: Element>() -> Result<Self, Error> {
        Self::new(T::NAME, T::SIZE, T::ALIGN)
    }

    /// The run-time description of `T`, unchecked.
    pub fn of<T: Element>() -> Self {
        ElementType {
            name: T::NAME.to_owned(),
            size: T::SIZE,
            align: T::ALIGN,
        }
    }

    /// The type's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `sizeof`, in bytes.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// `alignof`, in bytes.
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
