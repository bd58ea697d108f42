//! A launch of a PTX kernel: its grid, block, dynamic shared memory and
//! arguments, and how the arguments bind to the kernel's parameters.
//!
//! Arguments are given as the user types them (`n=1024`, `2=0x10`,
//! `scale=0.5`) by the parameter's name or its 0-based index, and bound to
//! the kernel's parameters ([`ParamDecl`]) once the kernel is known: integers
//! in decimal or `0x` hex, floats for `.f32`/`.f64` parameters. A pointer
//! parameter left unset gets a distinct fake global address (its loads are
//! unknown to the interpreter anyway; the address only has to be known so
//! that address arithmetic on it stays known). A scalar left unset is an
//! error naming it: its value may decide the kernel's shared accesses, and
//! guessing it would make a number up.

use std::fmt;

use super::TensorMap;
use crate::Error;

/// The first fake global address given to an unset pointer parameter; the
/// next ones are [`FAKE_POINTER_STRIDE`] apart. Chosen in the range of
/// addresses `cudaMalloc` returns on Linux (0x7f.. 0000 0000), far from 0 and
/// from the shared window of generic addresses.
pub const FAKE_POINTER_BASE: u64 = 0x7f00_0000_0000;

/// How far apart the fake addresses of unset pointer parameters are: 4 GiB,
/// so no offset a kernel adds to one reaches another.
pub const FAKE_POINTER_STRIDE: u64 = 1 << 32;

/// The most threads of a block (every compute capability since 2.0; CUDA C++
/// Programming Guide, "Compute Capabilities", table of technical
/// specifications).
pub const MAX_BLOCK_THREADS: u32 = 1024;

/// The most blocks of a grid in x, y and z: 2^31 - 1, 65,535 and 65,535
/// (CUDA C++ Programming Guide, "Compute Capabilities", technical
/// specifications, every capability since 3.0; measured on an H200: a grid
/// of 2^31 blocks in x, or 65,536 in y, is refused with
/// `cudaErrorInvalidValue`, tests/data/ncu/probes.txt).
pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65_535, 65_535];

/// The most threads of a block in x, y and z: 1,024, 1,024 and 64 (the same
/// table), and [`MAX_BLOCK_THREADS`] in all.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];

/// What a kernel parameter holds, as far as binding an argument goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// An integer of `bits` bits (`.u32`, `.s64`, `.b16`, ...), signed or not.
    Int {
        /// 8, 16, 32 or 64.
        bits: u32,
        /// Whether it is `.s*`.
        signed: bool,
    },
    /// A float of `bits` bits (`.f16`, `.f32`, `.f64`).
    Float {
        /// 16, 32 or 64.
        bits: u32,
    },
    /// A 64-bit pointer (a `.u64` parameter the kernel uses as an address, or
    /// one declared `.ptr`).
    Pointer,
    /// An aggregate of `bytes` bytes (`.param .align 8 .b8 p[24]`: a struct
    /// passed by value); an argument gives its bytes as one little-endian
    /// integer.
    Bytes {
        /// Its size.
        bytes: u32,
    },
}

impl ParamKind {
    /// Its size in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            ParamKind::Int { bits, .. } | ParamKind::Float { bits } => bits / 8,
            ParamKind::Pointer => 8,
            ParamKind::Bytes { bytes } => bytes,
        }
    }
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ParamKind::Int { bits, signed } => {
                write!(f, ".{}{bits}", if signed { 's' } else { 'u' })
            }
            ParamKind::Float { bits } => write!(f, ".f{bits}"),
            ParamKind::Pointer => f.write_str("pointer"),
            ParamKind::Bytes { bytes } => write!(f, ".b8[{bytes}]"),
        }
    }
}

/// A kernel parameter, as binding sees it: its name and kind, in declaration
/// order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamDecl<'a> {
    /// The parameter's name in the PTX (`_Z9transposePfPKfi_param_2`).
    pub name: &'a str,
    /// What it holds.
    pub kind: ParamKind,
}

/// Which parameter an argument is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArgKey {
    /// By the parameter's name in the PTX.
    Name(String),
    /// By its 0-based position.
    Index(usize),
}

impl fmt::Display for ArgKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgKey::Name(name) => f.write_str(name),
            ArgKey::Index(index) => write!(f, "{index}"),
        }
    }
}

/// One argument as given: `KEY=VALUE`, the value kept as text until the
/// parameter's kind is known.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{Arg, ArgKey};
///
/// let arg: Arg = "2=0x400".parse()?;
/// assert_eq!(arg.key, ArgKey::Index(2));
/// let arg: Arg = "n=1024".parse()?;
/// assert_eq!(arg.key, ArgKey::Name("n".into()));
/// assert!("1024".parse::<Arg>().is_err());
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Arg {
    /// The parameter.
    pub key: ArgKey,
    /// The value, as given.
    pub value: String,
}

impl core::str::FromStr for Arg {
    type Err = Error;

    /// Reads `NAME=VALUE` or `INDEX=VALUE`.
    ///
    /// # Errors
    ///
    /// [`Error::KernelArgSyntax`] when there is no `=` or nothing before or
    /// after it.
    fn from_str(s: &str) -> Result<Self, Error> {
        let syntax = || Error::KernelArgSyntax { given: excerpt(s) };
        let (key, value) = s.split_once('=').ok_or_else(syntax)?;
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() || value.is_empty() {
            return Err(syntax());
        }
        let key = match key.parse::<usize>() {
            Ok(index) => ArgKey::Index(index),
            Err(_) => ArgKey::Name(key.to_owned()),
        };
        Ok(Arg {
            key,
            value: value.to_owned(),
        })
    }
}

/// A launch: grid and block dimensions, dynamic shared memory and the
/// arguments given.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{KernelLaunch, ParamDecl, ParamKind};
///
/// let launch = KernelLaunch::new([200, 1, 1], [32, 32, 1])?
///     .with_dynamic_shared(4096)
///     .with_arg("2=64".parse()?);
/// let params = [
///     ParamDecl { name: "out", kind: ParamKind::Pointer },
///     ParamDecl { name: "in", kind: ParamKind::Pointer },
///     ParamDecl { name: "n", kind: ParamKind::Int { bits: 32, signed: true } },
/// ];
/// let bound = launch.bind(&params)?;
/// assert_eq!(bound[2], 64u32.to_le_bytes());
/// // The unset pointers get distinct fake global addresses.
/// assert_ne!(bound[0], bound[1]);
/// assert_eq!(launch.threads_per_block(), 1024);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelLaunch {
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared: u32,
    args: Vec<Arg>,
    cluster: [u32; 3],
    tensor_maps: Vec<(ArgKey, TensorMap)>,
}

/// The most blocks of a cluster without the non-portable opt-in (CUDA C++
/// Programming Guide, thread block clusters: "a maximum of 8 thread blocks
/// in a cluster is supported as a portable cluster size").
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

impl KernelLaunch {
    /// A launch of `grid` blocks of `block` threads (x, y, z), no dynamic
    /// shared memory, no arguments.
    ///
    /// # Errors
    ///
    /// [`Error::LaunchDims`] when a dimension is 0 or past CUDA's limit
    /// ([`MAX_GRID`], [`MAX_BLOCK`]), or the block has more than
    /// [`MAX_BLOCK_THREADS`] threads: a launch the GPU refuses is refused,
    /// before anything is sized by it.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> Result<Self, Error> {
        let threads = block.iter().try_fold(1u32, |n, &d| n.checked_mul(d));
        let within =
            |dims: [u32; 3], max: [u32; 3]| (0..3).all(|i| (1..=max[i]).contains(&dims[i]));
        if !within(grid, MAX_GRID)
            || !within(block, MAX_BLOCK)
            || threads.is_none_or(|t| t > MAX_BLOCK_THREADS)
        {
            return Err(Error::LaunchDims { grid, block });
        }
        Ok(KernelLaunch {
            grid,
            block,
            dynamic_shared: 0,
            args: Vec::new(),
            cluster: [1, 1, 1],
            tensor_maps: Vec::new(),
        })
    }

    /// The same launch in clusters of `cluster` blocks (x, y, z; `--cluster`,
    /// `cudaLaunchAttributeClusterDimension`).
    ///
    /// # Errors
    ///
    /// [`Error::ClusterDims`] when a dimension is 0, does not divide the
    /// grid's, or the cluster has more than [`MAX_CLUSTER_BLOCKS`] blocks
    /// (the launch fails on the GPU).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::KernelLaunch;
    ///
    /// let launch = KernelLaunch::new([4, 2, 1], [128, 1, 1])?.with_cluster([2, 1, 1])?;
    /// assert_eq!(launch.cluster(), [2, 1, 1]);
    /// assert!(KernelLaunch::new([3, 1, 1], [128, 1, 1])?.with_cluster([2, 1, 1]).is_err());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn with_cluster(mut self, cluster: [u32; 3]) -> Result<Self, Error> {
        let blocks = cluster.iter().try_fold(1u32, |n, &d| n.checked_mul(d));
        if cluster
            .iter()
            .zip(self.grid)
            .any(|(&c, g)| c == 0 || g % c != 0)
            || blocks.is_none_or(|b| b > MAX_CLUSTER_BLOCKS)
        {
            return Err(Error::ClusterDims {
                cluster,
                grid: self.grid,
            });
        }
        self.cluster = cluster;
        Ok(self)
    }

    /// The same launch with tensor map `map` for the parameter `key` (a
    /// `CUtensorMap` passed by value, `.param .align 64 .b8 p[128]`): its
    /// tensor copies move the map's boxes. Two for one parameter are an
    /// error when the launch binds.
    #[must_use]
    pub fn with_tensor_map(mut self, key: ArgKey, map: TensorMap) -> Self {
        self.tensor_maps.push((key, map));
        self
    }

    /// Blocks per cluster (x, y, z): `[1, 1, 1]` without clusters.
    pub const fn cluster(&self) -> [u32; 3] {
        self.cluster
    }

    /// The tensor maps given, by parameter.
    pub fn tensor_maps(&self) -> &[(ArgKey, TensorMap)] {
        &self.tensor_maps
    }

    /// The index of the parameter `key` names.
    pub(crate) fn param_index(key: &ArgKey, params: &[ParamDecl<'_>]) -> Result<usize, Error> {
        match key {
            ArgKey::Index(i) if *i < params.len() => Ok(*i),
            ArgKey::Name(name) => params
                .iter()
                .position(|p| p.name == name)
                .ok_or_else(|| unknown_param(key, params)),
            ArgKey::Index(_) => Err(unknown_param(key, params)),
        }
    }

    /// The same launch with `bytes` of dynamic shared memory (the third
    /// launch parameter, `<<<grid, block, bytes>>>`).
    #[must_use]
    pub fn with_dynamic_shared(mut self, bytes: u32) -> Self {
        self.dynamic_shared = bytes;
        self
    }

    /// The same launch with one more argument (two for the same parameter
    /// are an error when the launch binds).
    #[must_use]
    pub fn with_arg(mut self, arg: Arg) -> Self {
        self.args.push(arg);
        self
    }

    /// The grid (blocks in x, y, z).
    pub const fn grid(&self) -> [u32; 3] {
        self.grid
    }

    /// The block (threads in x, y, z).
    pub const fn block(&self) -> [u32; 3] {
        self.block
    }

    /// Threads per block.
    pub const fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    /// Blocks in the grid.
    pub const fn blocks(&self) -> u64 {
        self.grid[0] as u64 * self.grid[1] as u64 * self.grid[2] as u64
    }

    /// Dynamic shared memory, in bytes.
    pub const fn dynamic_shared(&self) -> u32 {
        self.dynamic_shared
    }

    /// The arguments as given.
    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    /// The bytes of each parameter, in order, as many as it has (little
    /// endian, a float as its bits): the given argument, or a fake address
    /// for an unset pointer ([`FAKE_POINTER_BASE`] plus
    /// [`FAKE_POINTER_STRIDE`] times its index). An aggregate's argument is
    /// one little-endian integer of up to its size: in hex (`0x`, any
    /// number of digits up to two a byte) for every byte of a struct past
    /// 16 bytes, or in decimal up to 2^128 - 1.
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownKernelParam`]: an argument names no parameter, or
    ///   its index is past the last.
    /// - [`Error::KernelArgValue`]: a value that does not read as the
    ///   parameter's kind or does not fit it.
    /// - [`Error::DuplicateKernelArg`]: two arguments for one parameter (by
    ///   name, by index, or one of each).
    /// - [`Error::UnsetKernelParam`]: scalar or aggregate parameters without
    ///   an argument, all of them named.
    ///
    /// A parameter given a tensor map ([`with_tensor_map`](Self::with_tensor_map))
    /// is bound to zeros: its bytes are the map's encoding, which the model
    /// does not read; the map's fields travel apart.
    pub fn bind(&self, params: &[ParamDecl<'_>]) -> Result<Vec<Vec<u8>>, Error> {
        self.bind_except(params, &[])
    }

    /// [`bind`](Self::bind), with the parameters `optional` (tensor maps
    /// the kernel takes, whose copies are counted as not modelled without
    /// their fields) bound to zeros when unset.
    pub(crate) fn bind_except(
        &self,
        params: &[ParamDecl<'_>],
        optional: &[usize],
    ) -> Result<Vec<Vec<u8>>, Error> {
        let mut values: Vec<Option<Vec<u8>>> = vec![None; params.len()];
        let mut mapped = vec![false; params.len()];
        for (key, _) in &self.tensor_maps {
            let index = Self::param_index(key, params)?;
            if mapped[index] {
                return Err(Error::DuplicateKernelArg {
                    index,
                    name: params[index].name.to_owned(),
                });
            }
            mapped[index] = true;
        }
        for arg in &self.args {
            let index = Self::param_index(&arg.key, params)?;
            if mapped[index] {
                return Err(Error::DuplicateKernelArg {
                    index,
                    name: params[index].name.to_owned(),
                });
            }
            if values[index].is_some() {
                return Err(Error::DuplicateKernelArg {
                    index,
                    name: params[index].name.to_owned(),
                });
            }
            values[index] = Some(parse_value(&params[index], &arg.value)?);
        }
        for (i, value) in values.iter_mut().enumerate() {
            if value.is_none() && (mapped[i] || optional.contains(&i)) {
                *value = Some(vec![0; params[i].kind.bytes() as usize]);
            }
        }
        let unset: Vec<String> = params
            .iter()
            .zip(&values)
            .enumerate()
            .filter(|(_, (p, v))| v.is_none() && p.kind != ParamKind::Pointer)
            .map(|(i, (p, _))| format!("{i} ({}, {})", p.name, p.kind))
            .collect();
        if !unset.is_empty() {
            return Err(Error::UnsetKernelParam {
                count: unset.len(),
                params: bounded_list(&unset, 8),
            });
        }
        Ok(values
            .into_iter()
            .enumerate()
            .map(|(i, value)| {
                value.unwrap_or_else(|| {
                    (FAKE_POINTER_BASE + FAKE_POINTER_STRIDE * i as u64)
                        .to_le_bytes()
                        .to_vec()
                })
            })
            .collect())
    }
}

/// `items` comma-separated, at most `max` of them, then how many more: a
/// message stays short whatever the input holds (issue 36: a module of
/// 200,000 kernels made a 1.7 MB error line).
pub(crate) fn bounded_list(items: &[String], max: usize) -> String {
    let mut out = items[..items.len().min(max)].join(", ");
    if items.len() > max {
        out.push_str(&format!(" and {} more", items.len() - max));
    }
    out
}

/// At most 64 characters of `text`, then `...`: a message quoting what was
/// given stays short whatever it holds (fuzzing found 260 bytes of control
/// characters quoted, each escaped to six, in a 1.5 kB line).
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(64) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

fn unknown_param(key: &ArgKey, params: &[ParamDecl<'_>]) -> Error {
    let names: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i}: {}", p.name))
        .collect();
    Error::UnknownKernelParam {
        given: excerpt(&key.to_string()),
        params: bounded_list(&names, 16),
    }
}

/// Reads `text` as a value of `param`'s kind, as its bytes (little endian,
/// as many as the parameter has): a decimal integer (with a sign for signed
/// ones), `0x` hex (the bits, for any kind, as many digits as its bytes
/// hold), or a float for float parameters.
fn parse_value(param: &ParamDecl<'_>, text: &str) -> Result<Vec<u8>, Error> {
    let bad = || Error::KernelArgValue {
        name: param.name.to_owned(),
        value: excerpt(text),
        kind: param.kind.to_string(),
    };
    let size = param.kind.bytes() as usize;
    let bytes = |v: u128| -> Result<Vec<u8>, Error> {
        if size < 16 && v >> (8 * size) != 0 {
            return Err(bad());
        }
        let mut out = v.to_le_bytes().to_vec();
        out.resize(size, 0);
        Ok(out)
    };
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return hex_bytes(hex, size).ok_or_else(bad);
    }
    match param.kind {
        ParamKind::Float { bits: 16 } => Err(bad()),
        ParamKind::Float { bits: 32 } => {
            let v: f32 = text.parse().map_err(|_| bad())?;
            bytes(u128::from(v.to_bits()))
        }
        ParamKind::Float { .. } => {
            let v: f64 = text.parse().map_err(|_| bad())?;
            bytes(u128::from(v.to_bits()))
        }
        ParamKind::Int { bits, signed } => {
            let v: i128 = text.parse().map_err(|_| bad())?;
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if v < lo || v > hi {
                return Err(bad());
            }
            bytes((v as u128) & ((1u128 << bits) - 1))
        }
        ParamKind::Pointer | ParamKind::Bytes { .. } => bytes(text.parse().map_err(|_| bad())?),
    }
}

/// The hex digits `hex` (`_` between them allowed) as `size` bytes, little
/// endian: `None` when one is not a hex digit, there are none, or the value
/// needs more than `size` bytes (leading zeros do not count).
fn hex_bytes(hex: &str, size: usize) -> Option<Vec<u8>> {
    let digits: Vec<u8> = hex
        .chars()
        .filter(|&c| c != '_')
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
    if digits.is_empty() || digits.len() - first > 2 * size {
        return None;
    }
    let mut out = vec![0u8; size];
    for (i, &d) in digits[first..].iter().rev().enumerate() {
        out[i / 2] |= d << (4 * (i % 2));
    }
    Some(out)
}

/// Reads grid or block dimensions `X[,Y[,Z]]` (missing ones are 1).
///
/// # Errors
///
/// [`Error::DimsSyntax`] when there are more than three, or one is not a
/// number.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::parse_dims;
///
/// assert_eq!(parse_dims("32,32")?, [32, 32, 1]);
/// assert_eq!(parse_dims("200")?, [200, 1, 1]);
/// assert!(parse_dims("1,2,3,4").is_err());
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn parse_dims(text: &str) -> Result<[u32; 3], Error> {
    let bad = || Error::DimsSyntax {
        given: excerpt(text),
    };
    let mut dims = [1u32; 3];
    let parts: Vec<&str> = text.split([',', 'x']).collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    for (d, part) in dims.iter_mut().zip(parts) {
        *d = part.trim().parse().map_err(|_| bad())?;
    }
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> [ParamDecl<'static>; 4] {
        [
            ParamDecl {
                name: "out",
                kind: ParamKind::Pointer,
            },
            ParamDecl {
                name: "n",
                kind: ParamKind::Int {
                    bits: 32,
                    signed: true,
                },
            },
            ParamDecl {
                name: "scale",
                kind: ParamKind::Float { bits: 32 },
            },
            ParamDecl {
                name: "in",
                kind: ParamKind::Pointer,
            },
        ]
    }

    fn launch(args: &[&str]) -> KernelLaunch {
        args.iter()
            .fold(KernelLaunch::new([1, 1, 1], [32, 1, 1]).unwrap(), |l, a| {
                l.with_arg(a.parse().unwrap())
            })
    }

    #[test]
    fn arguments_bind_by_name_or_index_in_every_notation() {
        let bound = launch(&["n=-3", "2=0.5", "3=0x1000"])
            .bind(&params())
            .unwrap();
        assert_eq!(
            bound,
            [
                FAKE_POINTER_BASE.to_le_bytes().to_vec(),
                le(0xffff_fffd, 4),
                le(0x3f00_0000, 4),
                le(0x1000, 8)
            ]
        );
        let bound = launch(&["1=0x7fffffff", "scale=0x3f800000"])
            .bind(&params())
            .unwrap();
        assert_eq!(bound[1], le(0x7fff_ffff, 4));
        assert_eq!(bound[2], le(1.0f32.to_bits().into(), 4));
        assert_eq!(
            bound[3],
            (FAKE_POINTER_BASE + 3 * FAKE_POINTER_STRIDE)
                .to_le_bytes()
                .to_vec()
        );
    }

    /// `v`'s `n` low bytes, little endian.
    fn le(v: u128, n: usize) -> Vec<u8> {
        v.to_le_bytes()[..n].to_vec()
    }

    #[test]
    fn errors_name_the_parameter() {
        let err = launch(&["scale=1"]).bind(&params()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel parameter 1 (n, .s32) has no value: scalar parameters must be given"
        );
        let err = launch(&["n=1", "scale=1", "m=2"])
            .bind(&params())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the kernel has no parameter m: its parameters are 0: out, 1: n, 2: scale, 3: in"
        );
        let err = launch(&["n=1", "scale=1", "4=2"])
            .bind(&params())
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the kernel has no parameter 4:"),
            "{err}"
        );
        let err = launch(&["n=2147483648", "scale=1"])
            .bind(&params())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "value 2147483648 of kernel parameter n does not read as .s32"
        );
        let err = launch(&["n=1", "scale=x"]).bind(&params()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "value x of kernel parameter scale does not read as .f32"
        );
        assert_eq!(
            "n".parse::<Arg>().unwrap_err().to_string(),
            "kernel argument \"n\" is not NAME=VALUE or INDEX=VALUE"
        );
        assert_eq!(
            KernelLaunch::new([1, 1, 1], [1024, 2, 1])
                .unwrap_err()
                .to_string(),
            "launch of grid 1x1x1 and block 1024x2x1: every dimension must be at least 1, the \
             grid at most 2147483647x65535x65535 blocks and the block at most 1024x1024x64 \
             threads, 1024 in all"
        );
        // CUDA's grid and block limits (measured on an H200 for the grid).
        assert!(KernelLaunch::new([(1 << 31) - 1, 65_535, 65_535], [1024, 1, 1]).is_ok());
        assert!(KernelLaunch::new([1 << 31, 1, 1], [32, 1, 1]).is_err());
        assert!(KernelLaunch::new([u32::MAX, 1, 1], [32, 1, 1]).is_err());
        assert!(KernelLaunch::new([1, 65_536, 1], [32, 1, 1]).is_err());
        assert!(KernelLaunch::new([1, 1, 65_536], [32, 1, 1]).is_err());
        assert!(KernelLaunch::new([1, 1, 1], [1, 1, 65]).is_err());
        assert!(KernelLaunch::new([1, 1, 1], [16, 1, 64]).is_ok());
        assert!(KernelLaunch::new([0, 1, 1], [32, 1, 1]).is_err());
        assert!(KernelLaunch::new([1, 1, 1], [u32::MAX, u32::MAX, 1]).is_err());
        assert_eq!(
            parse_dims("a,b").unwrap_err().to_string(),
            "dimensions \"a,b\" are not X[,Y[,Z]] of positive integers"
        );
    }

    #[test]
    fn every_unset_scalar_is_named_at_once_and_a_repeat_is_refused() {
        let err = launch(&[]).bind(&params()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel parameters 1 (n, .s32), 2 (scale, .f32) have no value: scalar parameters \
             must be given"
        );
        assert!(matches!(err, Error::UnsetKernelParam { count: 2, .. }));
        // By name then by index, and twice by the same key.
        for args in [&["n=1", "1=2", "scale=1"][..], &["2=1", "scale=1", "n=1"]] {
            let err = launch(args).bind(&params()).unwrap_err();
            assert!(matches!(err, Error::DuplicateKernelArg { .. }), "{err}");
        }
        assert_eq!(
            launch(&["n=1", "1=2"])
                .bind(&params())
                .unwrap_err()
                .to_string(),
            "kernel parameter 1 (n) is given twice: give each argument once"
        );
        // A long list stops after eight.
        let names: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
        assert_eq!(
            bounded_list(&names, 8),
            "p0, p1, p2, p3, p4, p5, p6, p7 and 12 more"
        );
        assert_eq!(bounded_list(&names[..2], 8), "p0, p1");
    }

    #[test]
    fn unsigned_and_aggregate_values_fit_their_size() {
        let p = [
            ParamDecl {
                name: "u",
                kind: ParamKind::Int {
                    bits: 8,
                    signed: false,
                },
            },
            ParamDecl {
                name: "s",
                kind: ParamKind::Bytes { bytes: 2 },
            },
        ];
        let l = |args: &[&str]| launch(args).bind(&p);
        assert_eq!(
            l(&["u=255", "s=0xffff"]).unwrap(),
            [vec![255], vec![0xff, 0xff]]
        );
        assert!(l(&["u=256", "s=1"]).is_err());
        assert!(l(&["u=-1", "s=1"]).is_err());
        assert!(l(&["u=1", "s=0x10000"]).is_err());
    }

    #[test]
    fn a_struct_past_16_bytes_is_given_every_byte_in_hex() {
        // struct { long a, b, c; } passed by value: .param .align 8 .b8 p[24].
        let p = [ParamDecl {
            name: "p",
            kind: ParamKind::Bytes { bytes: 24 },
        }];
        let l = |args: &[&str]| launch(args).bind(&p);
        let bound = l(&["p=0x0303030303030303_0202020202020202_0101010101010101"]).unwrap();
        let want: Vec<u8> = [1u8, 2, 3].iter().flat_map(|&b| [b; 8]).collect();
        assert_eq!(bound, [want]);
        // Fewer digits: the high bytes are zero; leading zeros do not count.
        assert_eq!(l(&["p=0x1ff"]).unwrap()[0][..3], [0xff, 1, 0]);
        assert_eq!(
            l(&[&format!("p=0x00{}", "f".repeat(48))]).unwrap()[0],
            [0xff; 24]
        );
        // Decimal fills the low 16 bytes.
        assert_eq!(l(&["p=258"]).unwrap()[0][..3], [2, 1, 0]);
        // 25 bytes, a digit that is not hex, no digit: refused.
        assert!(l(&[&format!("p=0x1{}", "0".repeat(48))]).is_err());
        assert!(l(&["p=0x1g"]).is_err());
        assert!(l(&["p=0x"]).is_err());
        assert!(matches!(l(&["p=0x_"]), Err(Error::KernelArgValue { .. })));
    }
}
