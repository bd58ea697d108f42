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

impl Architecture {
    /// Every architecture, oldest first.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::Architecture;
    ///
    /// assert_eq!(Architecture::ALL.first(), Some(&Architecture::Tesla));
    /// assert_eq!(Architecture::ALL.last(), Some(&Architecture::Blackwell));
    /// ```
    pub const ALL: [Architecture; 11] = [
        Self::Tesla,
        Self::Fermi,
        Self::Kepler,
        Self::Maxwell,
        Self::Pascal,
        Self::Volta,
        Self::Turing,
        Self::Ampere,
        Self::Ada,
        Self::Hopper,
        Self::Blackwell,
    ];

    /// Its first (lowest) compute capability: the one its name parses to.
    ///
    /// For most architectures that is the data-centre chip (Ampere: 8.0, the
    /// A100, not 8.6, an RTX 30); the bank rules are the same across an
    /// architecture, the shared-memory capacities are not.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Architecture, ComputeCapability};
    ///
    /// assert_eq!(Architecture::Ampere.first(), ComputeCapability::Sm80);
    /// assert_eq!("ampere".parse::<ComputeCapability>()?, ComputeCapability::Sm80);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn first(self) -> ComputeCapability {
        match self {
            Architecture::Tesla => ComputeCapability::Sm10,
            Architecture::Fermi => ComputeCapability::Sm20,
            Architecture::Kepler => ComputeCapability::Sm30,
            Architecture::Maxwell => ComputeCapability::Sm50,
            Architecture::Pascal => ComputeCapability::Sm60,
            Architecture::Volta => ComputeCapability::Sm70,
            Architecture::Turing => ComputeCapability::Sm75,
            Architecture::Ampere => ComputeCapability::Sm80,
            Architecture::Ada => ComputeCapability::Sm89,
            Architecture::Hopper => ComputeCapability::Sm90,
            Architecture::Blackwell => ComputeCapability::Sm100,
        }
    }

    /// The lowercase spellings that parse to [`first`](Self::first).
    const fn spellings(self) -> &'static [&'static str] {
        match self {
            Architecture::Tesla => &["tesla"],
            Architecture::Fermi => &["fermi"],
            Architecture::Kepler => &["kepler"],
            Architecture::Maxwell => &["maxwell"],
            Architecture::Pascal => &["pascal"],
            Architecture::Volta => &["volta"],
            Architecture::Turing => &["turing"],
            Architecture::Ampere => &["ampere"],
            Architecture::Ada => &["ada", "adalovelace", "lovelace"],
            Architecture::Hopper => &["hopper"],
            Architecture::Blackwell => &["blackwell"],
        }
    }
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
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// // The capabilities with `ldmatrix`, from Turing on.
    /// let ldmatrix = ComputeCapability::ALL.iter().filter(|cc| cc.has_ldmatrix()).count();
    /// assert_eq!(ldmatrix, 11);
    /// assert!(ComputeCapability::ALL.windows(2).all(|w| w[0] < w[1]));
    /// ```
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
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm86.major(), 8);
    /// ```
    pub const fn major(self) -> u32 {
        self.version().0
    }

    /// The minor version number.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm86.minor(), 6);
    /// ```
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

    /// GPUs and chips of this capability that [`parse`](str::parse) accepts: a
    /// selection of the products people name (data-centre, GeForce, Jetson),
    /// the best known first, then the chip codenames; not every SKU. Parsing ignores case, spaces, `-` and
    /// `_`, and a leading `NVIDIA`, `GeForce` or `Tesla`.
    ///
    /// Source: the CUDA GPUs list (developer.nvidia.com/cuda-gpus) and each
    /// architecture's whitepaper.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert!(ComputeCapability::Sm89.names().contains(&"RTX 4090"));
    /// // Every name parses back to its capability.
    /// for cc in ComputeCapability::ALL {
    ///     for name in cc.names() {
    ///         assert_eq!(name.parse::<ComputeCapability>()?, cc);
    ///     }
    /// }
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn names(self) -> &'static [&'static str] {
        match self {
            Self::Sm10 => &["8800 GTX", "C870", "G80"],
            Self::Sm11 => &["8600 GTS", "9800 GTX", "G84", "G86", "G92"],
            Self::Sm12 => &["GT 240", "GT215", "GT216"],
            Self::Sm13 => &["GTX 280", "GTX 285", "C1060", "GT200"],
            Self::Sm20 => &["GTX 480", "GTX 580", "C2050", "M2090", "GF100", "GF110"],
            Self::Sm21 => &["GTX 460", "GTX 560 Ti", "GF104", "GF114"],
            Self::Sm30 => &["GTX 680", "GTX 770", "K10", "GK104"],
            Self::Sm32 => &["Tegra K1", "Jetson TK1", "GK20A"],
            Self::Sm35 => &["K20", "K40", "GTX Titan", "GTX 780", "GK110"],
            Self::Sm37 => &["K80", "GK210"],
            Self::Sm50 => &["GTX 750 Ti", "GM107"],
            Self::Sm52 => &[
                "GTX 980 Ti",
                "GTX 980",
                "GTX 970",
                "M40",
                "M60",
                "GM200",
                "GM204",
            ],
            Self::Sm53 => &["Tegra X1", "Jetson TX1", "Jetson Nano", "GM20B"],
            Self::Sm60 => &["P100", "GP100"],
            Self::Sm61 => &[
                "GTX 1080 Ti",
                "GTX 1080",
                "GTX 1070",
                "GTX 1060",
                "Titan Xp",
                "P40",
                "P4",
                "GP102",
                "GP104",
            ],
            Self::Sm62 => &["Jetson TX2", "GP10B"],
            Self::Sm70 => &["V100", "Titan V", "GV100"],
            Self::Sm72 => &["Jetson Xavier", "Jetson AGX Xavier", "Xavier", "GV10B"],
            Self::Sm75 => &[
                "T4",
                "RTX 2080 Ti",
                "RTX 2080",
                "RTX 2070",
                "RTX 2060",
                "Titan RTX",
                "GTX 1660",
                "TU102",
                "TU104",
                "TU106",
                "TU116",
            ],
            Self::Sm80 => &["A100", "A30", "A800", "GA100"],
            Self::Sm86 => &[
                "RTX 3090",
                "RTX 3090 Ti",
                "RTX 3080",
                "RTX 3070",
                "RTX 3060",
                "A10",
                "A10G",
                "A40",
                "RTX A6000",
                "GA102",
                "GA104",
                "GA106",
            ],
            Self::Sm87 => &["Jetson Orin", "Jetson AGX Orin", "Orin", "GA10B"],
            Self::Sm89 => &[
                "RTX 4090",
                "RTX 4080",
                "RTX 4070",
                "RTX 4060",
                "L4",
                "L40",
                "L40S",
                "RTX 6000 Ada",
                "AD102",
                "AD103",
                "AD104",
            ],
            Self::Sm90 => &["H100", "H200", "H800", "H20", "GH100", "GH200"],
            Self::Sm100 => &["B100", "B200", "GB100", "GB200"],
            Self::Sm103 => &["B300", "GB300"],
            Self::Sm110 => &["Thor", "Jetson Thor", "Jetson AGX Thor"],
            Self::Sm120 => &[
                "RTX 5090",
                "RTX 5080",
                "RTX 5070",
                "RTX 5060",
                "RTX PRO 6000",
                "GB202",
                "GB203",
            ],
            Self::Sm121 => &["DGX Spark", "GB10"],
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

    /// Parses a version, a GPU or an architecture, ignoring case, spaces, `-` and `_`:
    ///
    /// - a version: `"8.6"`, `"sm_86"`, `"sm86"`, `"SM_86"`, `"86"`, `"compute_86"`,
    ///   and the architecture-specific and family forms `"sm_90a"`, `"sm_100f"`;
    /// - a GPU or chip from [`names`](Self::names): `"H100"`, `"A100"`,
    ///   `"RTX 4090"`, `"GeForce RTX 4090"`, `"GA102"`, `"Jetson Orin"`, ...
    ///   (an `NVIDIA`, `GeForce` or `Tesla` in front is ignored), also as the
    ///   driver names a board (`nvidia-smi`, `torch.cuda.get_device_name()`,
    ///   `cudaDeviceProp::name`): up to four trailing words of memory and form
    ///   factor are dropped, so `"NVIDIA H100 80GB HBM3"`,
    ///   `"NVIDIA A100-SXM4-80GB"`, `"Tesla V100-SXM2-16GB"`, `"NVIDIA H100 PCIe"`
    ///   and `"NVIDIA H100 80GB HBM3 MIG 1g.10gb"` parse;
    /// - an architecture name (`"hopper"`, `"ampere"`, `"ada lovelace"`), which
    ///   means its first capability (see [`Architecture::first`]): `"ampere"` is
    ///   8.0, the A100, not 8.6, an RTX 30. The shared-memory rules of one
    ///   architecture are the same; its capacities may differ, so name the
    ///   GPU or the version where capacity matters.
    ///
    /// `sm_101`, `10.1` and `101`, CUDA 12's name for Thor, parse to 11.0, the
    /// name CUDA 13 gave it: an alias, not a separate capability (the `smem`
    /// tool says so when it is given one).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownCapability`] when the text is none of these (`"sm_40"`,
    /// `"9.1"`, `"sm_1é"`); its message lists every version.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// for name in ["9.0", "sm_90", "SM90", "90", "compute_90", "sm_90a", "H100", "hopper"] {
    ///     assert_eq!(name.parse::<ComputeCapability>()?, ComputeCapability::Sm90);
    /// }
    /// assert_eq!("GeForce RTX 4090".parse::<ComputeCapability>()?, ComputeCapability::Sm89);
    /// assert!("sm_40".parse::<ComputeCapability>().is_err());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Self, Error> {
        if let Some(cc) = parse_exact(text) {
            return Ok(cc);
        }
        // A board as the driver names it: the product, then words of memory
        // and form factor. Four words at most, so a long text costs at most
        // five passes over it.
        let mut product = text.trim_end();
        for _ in 0..4 {
            let Some(cut) = product.rfind([' ', '-', '_']) else {
                break;
            };
            if !board_suffix(&product[cut + 1..]) {
                break;
            }
            product = product[..cut].trim_end_matches([' ', '-', '_']);
            if let Some(cc) = parse_exact(product) {
                return Ok(cc);
            }
        }
        Err(Error::UnknownCapability {
            given: crate::error::bounded(text),
        })
    }
}

/// A version, a product from [`ComputeCapability::names`] or an
/// architecture, exactly (after [`normalize`]).
fn parse_exact(text: &str) -> Option<ComputeCapability> {
    let key = normalize(text);
    if let Some(cc) = parse_version(&key) {
        return Some(cc);
    }
    if let Some(cc) = ComputeCapability::ALL
        .into_iter()
        .find(|cc| cc.names().iter().any(|name| normalize(name) == key))
    {
        return Some(cc);
    }
    Architecture::ALL
        .into_iter()
        .find(|arch| arch.spellings().iter().any(|name| *name == key))
        .map(Architecture::first)
}

/// A word the driver puts after a product's name in a board's name, which
/// says nothing of its shared memory: memory size (`80GB`), memory type
/// (`HBM3`, `HBM2e`), form factor (`SXM4`, `PCIe`, `NVL`), a MIG slice
/// (`MIG`, `1g.10gb`), `Generation` (`RTX 6000 Ada Generation`). Source: the
/// names `nvidia-smi` and `cudaGetDeviceProperties` report, e.g.
/// "NVIDIA H100 80GB HBM3" (the device used for this crate's measurements),
/// "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB".
fn board_suffix(word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let gigabytes = |s: &str| s.strip_suffix("gb").is_some_and(digits);
    matches!(word.as_str(), "pcie" | "nvl" | "sxm" | "mig" | "generation")
        || word.strip_prefix("sxm").is_some_and(digits)
        || gigabytes(&word)
        || word
            .strip_prefix("hbm")
            .is_some_and(|rest| rest.is_empty() || digits(rest.trim_end_matches('e')))
        || word
            .split_once("g.")
            .is_some_and(|(slices, memory)| digits(slices) && gigabytes(memory))
}

/// `text` lowercased, without spaces, `-` and `_`, and without a leading
/// `nvidia`, `geforce` or `tesla` that has more after it (`tesla` alone is the
/// architecture).
fn normalize(text: &str) -> String {
    let mut key: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    for prefix in ["nvidia", "geforce", "tesla"] {
        if let Some(rest) = key.strip_prefix(prefix) {
            if !rest.is_empty() {
                key = rest.to_owned();
            }
        }
    }
    key
}

/// A normalized version: `8.6`, `86`, `sm86`, `compute86`, `sm90a`, `sm100f`
/// (`cc` in front is accepted too).
fn parse_version(key: &str) -> Option<ComputeCapability> {
    // Only ASCII is a version; checking first keeps every slice below on a
    // character boundary.
    if !key.is_ascii() {
        return None;
    }
    let key = ["sm", "compute", "cc"]
        .into_iter()
        .find_map(|prefix| key.strip_prefix(prefix))
        .unwrap_or(key);
    let (major, minor) = if let Some((major, minor)) = key.split_once('.') {
        (parse_digits(major)?, parse_digits(minor)?)
    } else {
        // Architecture-specific (`a`) and family (`f`) variants share the rules.
        let digits = key
            .strip_suffix('a')
            .or_else(|| key.strip_suffix('f'))
            .unwrap_or(key);
        if !(2..=3).contains(&digits.len()) {
            return None;
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        (parse_digits(major)?, parse_digits(minor)?)
    };
    ComputeCapability::new(major, minor)
}

fn parse_digits(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `1.0, 1.1, ..., 12.1`: every version, for error messages.
pub(crate) fn known_versions() -> String {
    let versions: Vec<String> = ComputeCapability::ALL
        .iter()
        .map(ToString::to_string)
        .collect();
    versions.join(", ")
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
            "", "sm_", "sm_9", "sm_40", "9.1", "4.0", "sm_90b", "sm90x", "8.", ".6", "8.6.1",
            "sm_+90", "1e1.0", "9", "1000", "sm_1é", "é", "H1000", "RTX", "amperes",
        ] {
            let err = bad.parse::<ComputeCapability>().unwrap_err();
            assert_eq!(
                err,
                Error::UnknownCapability {
                    given: bad.to_owned()
                }
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "unknown compute capability {bad:?}: expected a version (\"8.6\", \"sm_86\", \
                     \"sm86\", \"86\", \"compute_86\", \"sm_90a\"), a GPU (\"A100\", \"H100\", \
                     \"RTX 4090\", ...) or an architecture (\"ampere\", \"hopper\", ...); the \
                     versions are 1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 3.0, 3.2, 3.5, 3.7, 5.0, 5.2, 5.3, \
                     6.0, 6.1, 6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 10.3, 11.0, 12.0, 12.1"
                )
            );
        }
    }

    /// Issue 12, item 1: a multi-byte character where the minor digit is
    /// expected split a character in two and panicked.
    #[test]
    fn a_multibyte_character_is_an_error_not_a_panic() {
        for bad in [
            "sm_1é",
            "sm_é",
            "é1",
            "sm_9\u{301}",
            "compute_1\u{1F600}",
            "1\u{e9}.0",
        ] {
            assert_eq!(
                bad.parse::<ComputeCapability>(),
                Err(Error::UnknownCapability {
                    given: bad.to_owned()
                })
            );
        }
    }

    #[test]
    fn sloppy_spellings_of_versions() {
        for (text, cc) in [
            ("sm90", ComputeCapability::Sm90),
            ("SM_90", ComputeCapability::Sm90),
            ("90", ComputeCapability::Sm90),
            (" sm_86 ", ComputeCapability::Sm86),
            ("Compute_75", ComputeCapability::Sm75),
            ("sm-100f", ComputeCapability::Sm100),
            ("cc8.9", ComputeCapability::Sm89),
            ("121", ComputeCapability::Sm121),
            ("10", ComputeCapability::Sm10),
        ] {
            assert_eq!(text.parse::<ComputeCapability>(), Ok(cc), "{text}");
        }
    }

    #[test]
    fn products_codenames_and_architectures() {
        for (text, cc) in [
            ("H100", ComputeCapability::Sm90),
            ("h100", ComputeCapability::Sm90),
            ("NVIDIA H100", ComputeCapability::Sm90),
            ("RTX 4090", ComputeCapability::Sm89),
            ("rtx4090", ComputeCapability::Sm89),
            ("GeForce RTX 4090", ComputeCapability::Sm89),
            ("Tesla V100", ComputeCapability::Sm70),
            ("A100", ComputeCapability::Sm80),
            ("A10", ComputeCapability::Sm86),
            ("GA102", ComputeCapability::Sm86),
            ("hopper", ComputeCapability::Sm90),
            ("Ampere", ComputeCapability::Sm80),
            ("Ada Lovelace", ComputeCapability::Sm89),
            ("tesla", ComputeCapability::Sm10),
            ("blackwell", ComputeCapability::Sm100),
            ("Jetson Orin", ComputeCapability::Sm87),
        ] {
            assert_eq!(text.parse::<ComputeCapability>(), Ok(cc), "{text}");
        }
    }

    /// Boards as `torch.cuda.get_device_name()` and `nvidia-smi` name them.
    #[test]
    fn boards_as_the_driver_names_them() {
        for (text, cc) in [
            ("NVIDIA H100 80GB HBM3", ComputeCapability::Sm90),
            ("NVIDIA H100 PCIe", ComputeCapability::Sm90),
            ("NVIDIA H100 NVL", ComputeCapability::Sm90),
            ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", ComputeCapability::Sm90),
            ("NVIDIA H200", ComputeCapability::Sm90),
            ("NVIDIA GH200 480GB", ComputeCapability::Sm90),
            ("NVIDIA A100-SXM4-80GB", ComputeCapability::Sm80),
            ("NVIDIA A100-SXM4-40GB", ComputeCapability::Sm80),
            ("NVIDIA A100-PCIE-40GB", ComputeCapability::Sm80),
            ("NVIDIA A100 80GB PCIe", ComputeCapability::Sm80),
            ("NVIDIA A10G", ComputeCapability::Sm86),
            ("Tesla V100-SXM2-16GB", ComputeCapability::Sm70),
            ("Tesla P100-PCIE-16GB", ComputeCapability::Sm60),
            ("Tesla T4", ComputeCapability::Sm75),
            ("NVIDIA L40S", ComputeCapability::Sm89),
            ("NVIDIA RTX 6000 Ada Generation", ComputeCapability::Sm89),
            ("NVIDIA GeForce RTX 4090", ComputeCapability::Sm89),
            ("NVIDIA B200", ComputeCapability::Sm100),
        ] {
            assert_eq!(text.parse::<ComputeCapability>(), Ok(cc), "{text}");
        }
        // Only those words are dropped: a product is never guessed from a prefix.
        for bad in [
            "NVIDIA H1000 80GB",
            "NVIDIA H100X",
            "NVIDIA H100 80GB Turbo",
            "80GB HBM3",
            "NVIDIA H100 80GB 80GB 80GB 80GB 80GB",
        ] {
            assert_eq!(
                bad.parse::<ComputeCapability>(),
                Err(Error::UnknownCapability {
                    given: bad.to_owned()
                }),
                "{bad}"
            );
        }
    }

    /// Every name of every capability and every architecture parses back to it,
    /// and no name is given to two capabilities.
    #[test]
    fn every_known_name_round_trips() {
        let mut seen = std::collections::HashMap::new();
        for cc in ComputeCapability::ALL {
            for name in cc.names() {
                assert_eq!(name.parse::<ComputeCapability>(), Ok(cc), "{name}");
                assert_eq!(name.to_uppercase().parse::<ComputeCapability>(), Ok(cc));
                assert_eq!(seen.insert(normalize(name), cc), None, "{name} twice");
                assert!(
                    parse_version(&normalize(name)).is_none(),
                    "{name} reads as a version"
                );
            }
        }
        for arch in Architecture::ALL {
            assert_eq!(arch.first().architecture(), arch);
            let first = ComputeCapability::ALL
                .into_iter()
                .find(|cc| cc.architecture() == arch);
            assert_eq!(first, Some(arch.first()));
            assert_eq!(
                arch.to_string().parse::<ComputeCapability>(),
                Ok(arch.first())
            );
            for name in arch.spellings() {
                assert_eq!(seen.get(*name), None, "{name} is also a product");
            }
        }
    }
}
