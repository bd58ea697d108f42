//! CUDA compute capabilities and the per-capability facts the model needs.
//!
//! Every fact is one exhaustive `match` over [`ComputeCapability`], with no
//! catch-all arm, so adding a capability fails the build at each table that has
//! not been updated for it.

use core::fmt;
use core::str::FromStr;

use crate::Error;

/// A CUDA compute capability (the "SM version"), from 1.0 to 12.1.
///
/// Every capability that a CUDA toolkit has shipped is a variant. The
/// architecture-specific suffixes `a` and `f` (`sm_90a`, `sm_100f`) name the same
/// capability with extra instructions enabled; they parse to the plain variant,
/// since the shared-memory rules do not depend on them.
///
/// # Example
///
/// ```
/// use smem_model::ComputeCapability;
///
/// let cc: ComputeCapability = "sm_90a".parse()?;
/// assert_eq!(cc, ComputeCapability::Sm90);
/// assert_eq!(cc.to_string(), "9.0");
/// assert_eq!(cc.sm_name(), "sm_90");
/// assert_eq!((cc.major(), cc.minor()), (9, 0));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "String", try_from = "String"))]
#[non_exhaustive]
pub enum ComputeCapability {
    /// 1.0: Tesla G80.
    Sm10,
    /// 1.1: Tesla G8x/G9x.
    Sm11,
    /// 1.2: Tesla GT21x.
    Sm12,
    /// 1.3: Tesla GT200.
    Sm13,
    /// 2.0: Fermi GF100/GF110.
    Sm20,
    /// 2.1: Fermi GF10x.
    Sm21,
    /// 3.0: Kepler GK10x.
    Sm30,
    /// 3.2: Kepler GK20A (Tegra K1).
    Sm32,
    /// 3.5: Kepler GK110.
    Sm35,
    /// 3.7: Kepler GK210.
    Sm37,
    /// 5.0: Maxwell GM107.
    Sm50,
    /// 5.2: Maxwell GM20x.
    Sm52,
    /// 5.3: Maxwell GM20B (Tegra X1).
    Sm53,
    /// 6.0: Pascal GP100.
    Sm60,
    /// 6.1: Pascal GP10x.
    Sm61,
    /// 6.2: Pascal GP10B (Tegra X2).
    Sm62,
    /// 7.0: Volta GV100.
    Sm70,
    /// 7.2: Volta GV10B (Xavier).
    Sm72,
    /// 7.5: Turing TU10x.
    Sm75,
    /// 8.0: Ampere GA100.
    Sm80,
    /// 8.6: Ampere GA10x.
    Sm86,
    /// 8.7: Ampere GA10B (Orin).
    Sm87,
    /// 8.9: Ada AD10x.
    Sm89,
    /// 9.0: Hopper GH100 (H100, H200). The capability the hardware corpus was measured on.
    Sm90,
    /// 10.0: Blackwell GB100/GB200.
    Sm100,
    /// 10.3: Blackwell GB300.
    Sm103,
    /// 11.0: Blackwell Thor (called 10.1, `sm_101`, before CUDA 13; both names parse to this).
    Sm110,
    /// 12.0: Blackwell GB20x (GeForce RTX 50, RTX PRO).
    Sm120,
    /// 12.1: Blackwell GB10 (DGX Spark).
    Sm121,
}

/// The GPU architecture generation a compute capability belongs to.
///
/// # Example
///
/// ```
/// use smem_model::{Architecture, ComputeCapability};
///
/// assert_eq!(ComputeCapability::Sm86.architecture(), Architecture::Ampere);
/// assert_eq!(Architecture::Ampere.to_string(), "Ampere");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Architecture {
    /// Compute capability 1.x.
    Tesla,
    /// Compute capability 2.x.
    Fermi,
    /// Compute capability 3.x.
    Kepler,
    /// Compute capability 5.x.
    Maxwell,
    /// Compute capability 6.x.
    Pascal,
    /// Compute capability 7.0 and 7.2.
    Volta,
    /// Compute capability 7.5.
    Turing,
    /// Compute capability 8.0, 8.6 and 8.7.
    Ampere,
    /// Compute capability 8.9.
    Ada,
    /// Compute capability 9.0.
    Hopper,
    /// Compute capability 10.x, 11.0 and 12.x.
    Blackwell,
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Architecture::Tesla => "Tesla",
            Architecture::Fermi => "Fermi",
            Architecture::Kepler => "Kepler",
            Architecture::Maxwell => "Maxwell",
            Architecture::Pascal => "Pascal",
            Architecture::Volta => "Volta",
            Architecture::Turing => "Turing",
            Architecture::Ampere => "Ampere",
            Architecture::Ada => "Ada",
            Architecture::Hopper => "Hopper",
            Architecture::Blackwell => "Blackwell",
        })
    }
}

impl ComputeCapability {
    /// Every compute capability, oldest first.
    pub const ALL: [ComputeCapability; 29] = [
        Self::Sm10,
        Self::Sm11,
        Self::Sm12,
        Self::Sm13,
        Self::Sm20,
        Self::Sm21,
        Self::Sm30,
        Self::Sm32,
        Self::Sm35,
        Self::Sm37,
        Self::Sm50,
        Self::Sm52,
        Self::Sm53,
        Self::Sm60,
        Self::Sm61,
        Self::Sm62,
        Self::Sm70,
        Self::Sm72,
        Self::Sm75,
        Self::Sm80,
        Self::Sm86,
        Self::Sm87,
        Self::Sm89,
        Self::Sm90,
        Self::Sm100,
        Self::Sm103,
        Self::Sm110,
        Self::Sm120,
        Self::Sm121,
    ];

    /// The capability with this major and minor version, if it exists.
    ///
    /// `(10, 1)` is accepted as the pre-CUDA-13 name of 11.0.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::new(8, 6), Some(ComputeCapability::Sm86));
    /// assert_eq!(ComputeCapability::new(4, 0), None);
    /// ```
    pub const fn new(major: u32, minor: u32) -> Option<Self> {
        Some(match (major, minor) {
            (1, 0) => Self::Sm10,
            (1, 1) => Self::Sm11,
            (1, 2) => Self::Sm12,
            (1, 3) => Self::Sm13,
            (2, 0) => Self::Sm20,
            (2, 1) => Self::Sm21,
            (3, 0) => Self::Sm30,
            (3, 2) => Self::Sm32,
            (3, 5) => Self::Sm35,
            (3, 7) => Self::Sm37,
            (5, 0) => Self::Sm50,
            (5, 2) => Self::Sm52,
            (5, 3) => Self::Sm53,
            (6, 0) => Self::Sm60,
            (6, 1) => Self::Sm61,
            (6, 2) => Self::Sm62,
            (7, 0) => Self::Sm70,
            (7, 2) => Self::Sm72,
            (7, 5) => Self::Sm75,
            (8, 0) => Self::Sm80,
            (8, 6) => Self::Sm86,
            (8, 7) => Self::Sm87,
            (8, 9) => Self::Sm89,
            (9, 0) => Self::Sm90,
            (10, 0) => Self::Sm100,
            (10, 1) | (11, 0) => Self::Sm110,
            (10, 3) => Self::Sm103,
            (12, 0) => Self::Sm120,
            (12, 1) => Self::Sm121,
            _ => return None,
        })
    }

    /// The major and minor version numbers.
    ///
    /// The inverse of [`new`](Self::new), except that 11.0 reports `(11, 0)`
    /// whichever name it was built from.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm86.version(), (8, 6));
    /// // Thor, called 10.1 before CUDA 13.
    /// let thor = ComputeCapability::new(10, 1);
    /// assert_eq!(thor.map(ComputeCapability::version), Some((11, 0)));
    /// // Versions order capabilities the way the enum does.
    /// assert!(ComputeCapability::Sm75.version() < ComputeCapability::Sm80.version());
    /// ```
    pub const fn version(self) -> (u32, u32) {
        match self {
            Self::Sm10 => (1, 0),
            Self::Sm11 => (1, 1),
            Self::Sm12 => (1, 2),
            Self::Sm13 => (1, 3),
            Self::Sm20 => (2, 0),
            Self::Sm21 => (2, 1),
            Self::Sm30 => (3, 0),
            Self::Sm32 => (3, 2),
            Self::Sm35 => (3, 5),
            Self::Sm37 => (3, 7),
            Self::Sm50 => (5, 0),
            Self::Sm52 => (5, 2),
            Self::Sm53 => (5, 3),
            Self::Sm60 => (6, 0),
            Self::Sm61 => (6, 1),
            Self::Sm62 => (6, 2),
            Self::Sm70 => (7, 0),
            Self::Sm72 => (7, 2),
            Self::Sm75 => (7, 5),
            Self::Sm80 => (8, 0),
            Self::Sm86 => (8, 6),
            Self::Sm87 => (8, 7),
            Self::Sm89 => (8, 9),
            Self::Sm90 => (9, 0),
            Self::Sm100 => (10, 0),
            Self::Sm103 => (10, 3),
            Self::Sm110 => (11, 0),
            Self::Sm120 => (12, 0),
            Self::Sm121 => (12, 1),
        }
    }

    /// The major version number (the architecture generation).
    pub const fn major(self) -> u32 {
        self.version().0
    }

    /// The minor version number.
    pub const fn minor(self) -> u32 {
        self.version().1
    }

    /// The name `nvcc` uses for real code of this capability, e.g. `"sm_86"`.
    ///
    /// Without the `a`/`f` suffix, since the shared-memory rules do not depend on
    /// it; it parses back to the same capability.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// // As in `nvcc -arch=sm_120`.
    /// assert_eq!(ComputeCapability::Sm120.sm_name(), "sm_120");
    /// assert_eq!("sm_120".parse::<ComputeCapability>()?, ComputeCapability::Sm120);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn sm_name(self) -> &'static str {
        match self {
            Self::Sm10 => "sm_10",
            Self::Sm11 => "sm_11",
            Self::Sm12 => "sm_12",
            Self::Sm13 => "sm_13",
            Self::Sm20 => "sm_20",
            Self::Sm21 => "sm_21",
            Self::Sm30 => "sm_30",
            Self::Sm32 => "sm_32",
            Self::Sm35 => "sm_35",
            Self::Sm37 => "sm_37",
            Self::Sm50 => "sm_50",
            Self::Sm52 => "sm_52",
            Self::Sm53 => "sm_53",
            Self::Sm60 => "sm_60",
            Self::Sm61 => "sm_61",
            Self::Sm62 => "sm_62",
            Self::Sm70 => "sm_70",
            Self::Sm72 => "sm_72",
            Self::Sm75 => "sm_75",
            Self::Sm80 => "sm_80",
            Self::Sm86 => "sm_86",
            Self::Sm87 => "sm_87",
            Self::Sm89 => "sm_89",
            Self::Sm90 => "sm_90",
            Self::Sm100 => "sm_100",
            Self::Sm103 => "sm_103",
            Self::Sm110 => "sm_110",
            Self::Sm120 => "sm_120",
            Self::Sm121 => "sm_121",
        }
    }

    /// The architecture generation.
    ///
    /// The major version alone does not give it: 7.5 is Turing while 7.0 is Volta,
    /// 8.9 is Ada while 8.6 is Ampere, and 10.x to 12.x are all Blackwell.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Architecture, ComputeCapability};
    ///
    /// assert_eq!(ComputeCapability::Sm75.architecture(), Architecture::Turing);
    /// assert_eq!(ComputeCapability::Sm70.architecture(), Architecture::Volta);
    /// assert_eq!(ComputeCapability::Sm89.architecture(), Architecture::Ada);
    /// assert_eq!(ComputeCapability::Sm120.architecture(), Architecture::Blackwell);
    /// ```
    pub const fn architecture(self) -> Architecture {
        match self {
            Self::Sm10 | Self::Sm11 | Self::Sm12 | Self::Sm13 => Architecture::Tesla,
            Self::Sm20 | Self::Sm21 => Architecture::Fermi,
            Self::Sm30 | Self::Sm32 | Self::Sm35 | Self::Sm37 => Architecture::Kepler,
            Self::Sm50 | Self::Sm52 | Self::Sm53 => Architecture::Maxwell,
            Self::Sm60 | Self::Sm61 | Self::Sm62 => Architecture::Pascal,
            Self::Sm70 | Self::Sm72 => Architecture::Volta,
            Self::Sm75 => Architecture::Turing,
            Self::Sm80 | Self::Sm86 | Self::Sm87 => Architecture::Ampere,
            Self::Sm89 => Architecture::Ada,
            Self::Sm90 => Architecture::Hopper,
            Self::Sm100 | Self::Sm103 | Self::Sm110 | Self::Sm120 | Self::Sm121 => {
                Architecture::Blackwell
            }
        }
    }

    /// Shared memory per SM in bytes: the most a carveout can give.
    ///
    /// Source: the CUDA C++ Programming Guide's technical-specification table
    /// ("maximum amount of shared memory per SM"), and v4.2 Appendix F for 1.x to
    /// 3.x. 11.0 is listed with 10.x in the CUDA 13 guide.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// // H100: 228 KB per SM; an RTX 4090 (8.9): 100 KB.
    /// assert_eq!(ComputeCapability::Sm90.shared_memory_per_sm(), 228 * 1024);
    /// assert_eq!(ComputeCapability::Sm89.shared_memory_per_sm(), 100 * 1024);
    /// // How many blocks of 48 KB fit on one H100 SM, ignoring other limits.
    /// let per_block = 48 * 1024 + ComputeCapability::Sm90.reserved_shared_memory_per_block();
    /// assert_eq!(ComputeCapability::Sm90.shared_memory_per_sm() / per_block, 4);
    /// ```
    pub const fn shared_memory_per_sm(self) -> u32 {
        const KB: u32 = 1024;
        match self {
            Self::Sm10 | Self::Sm11 | Self::Sm12 | Self::Sm13 => 16 * KB,
            Self::Sm20 | Self::Sm21 | Self::Sm30 | Self::Sm32 | Self::Sm35 => 48 * KB,
            Self::Sm37 => 112 * KB,
            Self::Sm50 | Self::Sm53 | Self::Sm60 | Self::Sm62 => 64 * KB,
            Self::Sm52 | Self::Sm61 => 96 * KB,
            Self::Sm70 | Self::Sm72 => 96 * KB,
            Self::Sm75 => 64 * KB,
            Self::Sm80 | Self::Sm87 => 164 * KB,
            Self::Sm86 | Self::Sm89 | Self::Sm120 | Self::Sm121 => 100 * KB,
            Self::Sm90 | Self::Sm100 | Self::Sm103 | Self::Sm110 => 228 * KB,
        }
    }

    /// The most shared memory one block can use, in bytes, after opting in with
    /// `cudaFuncAttributeMaxDynamicSharedMemorySize` (48 KB where there is no opt-in).
    ///
    /// Source: the Programming Guide's technical-specification table ("maximum
    /// amount of shared memory per thread block").
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// // An A100 block may opt in to 163 KB, a T4 (7.5) block to 64 KB.
    /// assert_eq!(ComputeCapability::Sm80.max_shared_memory_per_block(), 163 * 1024);
    /// assert_eq!(ComputeCapability::Sm75.max_shared_memory_per_block(), 64 * 1024);
    /// // Before Volta there was no opt-in: 48 KB.
    /// assert_eq!(ComputeCapability::Sm61.max_shared_memory_per_block(), 48 * 1024);
    /// ```
    pub const fn max_shared_memory_per_block(self) -> u32 {
        const KB: u32 = 1024;
        match self {
            Self::Sm10 | Self::Sm11 | Self::Sm12 | Self::Sm13 => 16 * KB,
            Self::Sm20
            | Self::Sm21
            | Self::Sm30
            | Self::Sm32
            | Self::Sm35
            | Self::Sm37
            | Self::Sm50
            | Self::Sm52
            | Self::Sm53
            | Self::Sm60
            | Self::Sm61
            | Self::Sm62 => 48 * KB,
            Self::Sm70 | Self::Sm72 => 96 * KB,
            Self::Sm75 => 64 * KB,
            Self::Sm80 | Self::Sm87 => 163 * KB,
            Self::Sm86 | Self::Sm89 | Self::Sm120 | Self::Sm121 => 99 * KB,
            Self::Sm90 | Self::Sm100 | Self::Sm103 | Self::Sm110 => 227 * KB,
        }
    }

    /// Shared memory the driver reserves for each block, in bytes
    /// (`cudaDevAttrReservedSharedMemoryPerBlock`): 1 KB from 8.0 on, none before.
    ///
    /// On sm_90 the reserved kilobyte sits at the start of the block's window, so
    /// static and dynamic shared memory start at shared address `0x400`; this was
    /// observed while measuring the hardware corpus.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.reserved_shared_memory_per_block(), 1024);
    /// assert_eq!(ComputeCapability::Sm75.reserved_shared_memory_per_block(), 0);
    /// // On sm_90, `extern __shared__ float s[]` starts here:
    /// let base = ComputeCapability::Sm90.reserved_shared_memory_per_block();
    /// assert_eq!(base, 0x400);
    /// ```
    pub const fn reserved_shared_memory_per_block(self) -> u32 {
        match self {
            Self::Sm10
            | Self::Sm11
            | Self::Sm12
            | Self::Sm13
            | Self::Sm20
            | Self::Sm21
            | Self::Sm30
            | Self::Sm32
            | Self::Sm35
            | Self::Sm37
            | Self::Sm50
            | Self::Sm52
            | Self::Sm53
            | Self::Sm60
            | Self::Sm61
            | Self::Sm62
            | Self::Sm70
            | Self::Sm72
            | Self::Sm75 => 0,
            Self::Sm80
            | Self::Sm86
            | Self::Sm87
            | Self::Sm89
            | Self::Sm90
            | Self::Sm100
            | Self::Sm103
            | Self::Sm110
            | Self::Sm120
            | Self::Sm121 => 1024,
        }
    }

    /// The size in bytes of the largest shared window a block can address: the
    /// per-block maximum plus the reserved bytes. Every address in a
    /// [`WarpRequest`](crate::WarpRequest) must lie below it.
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.shared_window_size(), 228 * 1024);
    /// assert_eq!(ComputeCapability::Sm75.shared_window_size(), 64 * 1024);
    /// ```
    pub const fn shared_window_size(self) -> u32 {
        self.max_shared_memory_per_block() + self.reserved_shared_memory_per_block()
    }

    /// Whether shared-memory atomic functions exist (from 1.2 on).
    ///
    /// Source: Programming Guide v4.2, Appendix F, feature table.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert!(!ComputeCapability::Sm11.has_shared_atomics());
    /// assert!(ComputeCapability::Sm12.has_shared_atomics());
    /// ```
    pub const fn has_shared_atomics(self) -> bool {
        !matches!(self, Self::Sm10 | Self::Sm11)
    }

    /// Whether `ldmatrix` exists (PTX ISA: requires `sm_75` or higher).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert!(!ComputeCapability::Sm70.has_ldmatrix());
    /// assert!(ComputeCapability::Sm75.has_ldmatrix());
    /// ```
    pub const fn has_ldmatrix(self) -> bool {
        self.at_least(Self::Sm75)
    }

    /// Whether `stmatrix` exists (PTX ISA: requires `sm_90` or higher).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert!(!ComputeCapability::Sm89.has_stmatrix());
    /// assert!(ComputeCapability::Sm90.has_stmatrix());
    /// ```
    pub const fn has_stmatrix(self) -> bool {
        self.at_least(Self::Sm90)
    }

    pub(crate) const fn at_least(self, other: Self) -> bool {
        let (a, b) = (self.version(), other.version());
        a.0 > b.0 || (a.0 == b.0 && a.1 >= b.1)
    }
}

impl fmt::Display for ComputeCapability {
    /// Writes `major.minor`, e.g. `8.6`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.version();
        write!(f, "{major}.{minor}")
    }
}

impl FromStr for ComputeCapability {
    type Err = Error;

    /// Parses `"8.6"`, `"sm_86"`, `"sm_90a"`, `"sm_100f"`, `"compute_86"`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownCapability`] when the text is malformed or names a capability
    /// that does not exist (`"sm_40"`, `"9.1"`).
    fn from_str(text: &str) -> Result<Self, Error> {
        let unknown = || Error::UnknownCapability {
            given: text.to_owned(),
        };
        let trimmed = text.trim();
        let (major, minor) = if let Some((major, minor)) = trimmed.split_once('.') {
            (parse_digits(major), parse_digits(minor))
        } else {
            let digits = trimmed
                .strip_prefix("sm_")
                .or_else(|| trimmed.strip_prefix("compute_"))
                .ok_or_else(unknown)?;
            // Architecture-specific (`a`) and family (`f`) variants share the rules.
            let digits = digits
                .strip_suffix('a')
                .or_else(|| digits.strip_suffix('f'))
                .unwrap_or(digits);
            if digits.len() < 2 {
                return Err(unknown());
            }
            let (major, minor) = digits.split_at(digits.len() - 1);
            (parse_digits(major), parse_digits(minor))
        };
        match (major, minor) {
            (Some(major), Some(minor)) => Self::new(major, minor).ok_or_else(unknown),
            _ => Err(unknown()),
        }
    }
}

fn parse_digits(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl TryFrom<String> for ComputeCapability {
    type Error = Error;
    fn try_from(text: String) -> Result<Self, Error> {
        text.parse()
    }
}

impl From<ComputeCapability> for String {
    fn from(cc: ComputeCapability) -> String {
        cc.sm_name().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_capability_round_trips_through_each_spelling() {
        for cc in ComputeCapability::ALL {
            assert_eq!(cc.to_string().parse::<ComputeCapability>().unwrap(), cc);
            assert_eq!(cc.sm_name().parse::<ComputeCapability>().unwrap(), cc);
            let compute = cc.sm_name().replace("sm_", "compute_");
            assert_eq!(compute.parse::<ComputeCapability>().unwrap(), cc);
            assert_eq!(
                format!("{}a", cc.sm_name())
                    .parse::<ComputeCapability>()
                    .unwrap(),
                cc
            );
            let (major, minor) = cc.version();
            assert_eq!(ComputeCapability::new(major, minor), Some(cc));
        }
    }

    #[test]
    fn all_is_sorted_and_complete() {
        assert!(ComputeCapability::ALL.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn old_thor_name_parses_to_eleven() {
        assert_eq!(
            "sm_101".parse::<ComputeCapability>().unwrap(),
            ComputeCapability::Sm110
        );
        assert_eq!(
            "10.1".parse::<ComputeCapability>().unwrap(),
            ComputeCapability::Sm110
        );
    }

    #[test]
    fn malformed_and_unknown_names_are_errors_naming_the_input() {
        for bad in [
            "", "sm_", "sm_9", "sm_40", "9.1", "4.0", "sm_90b", "sm90", "8.", ".6", "8.6.1",
            "sm_-90", "1e1.0",
        ] {
            let err = bad.parse::<ComputeCapability>().unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("unknown compute capability {bad:?}: expected a form like \"8.6\", \"sm_86\", \"sm_90a\" or \"compute_86\" naming a CUDA compute capability from 1.0 to 12.1")
            );
        }
    }
}
