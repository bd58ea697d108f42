//! Shared-memory capacity per compute capability, launch limits, and occupancy
//! (blocks and warps per SM): shared memory, and with
//! [`Launch::with_block`] the threads and registers of a block, the warps,
//! blocks and barriers of an SM.
//!
//! The formula is the one of `cuda_occupancy.h` (CUDA 12.6 and 13.0), checked
//! against the header itself for every capability it knows (3.5 to 12.1, 3,356
//! launches, `tests/data/device/occupancy_calculator.jsonl`) and against the
//! driver's `cudaOccupancyMaxActiveBlocksPerMultiprocessor` on an H100 and an
//! H200 (1,376 launches each, `occupancy_runtime*.jsonl`).

mod threads;

use core::fmt;

use crate::{ComputeCapability, Error};

const KB: u32 = 1024;

/// The most static (`__shared__`) memory a kernel may declare: 48 KB, or all of
/// a 1.x device's 16 KB. Above it, a kernel must use dynamic shared memory and
/// opt in. Source: Programming Guide, compute-capability appendix.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, Error, Launch, STATIC_SHARED_LIMIT};
///
/// assert_eq!(STATIC_SHARED_LIMIT, 48 * 1024);
/// // __shared__ float big[12288]; fills it exactly; 16 bytes more and nvcc refuses.
/// let sm90 = ComputeCapability::Sm90;
/// assert_eq!(Launch::new(sm90, STATIC_SHARED_LIMIT, 0).check(), Ok(()));
/// let over = Launch::new(sm90, STATIC_SHARED_LIMIT + 16, 0).check();
/// assert!(matches!(over, Err(Error::StaticTooLarge { limit: STATIC_SHARED_LIMIT, .. })));
/// // A 1.x device has only 16 KB in all.
/// let tesla = ComputeCapability::Sm13.default_shared_memory_per_block();
/// assert_eq!(tesla, 16 * 1024);
/// ```
pub const STATIC_SHARED_LIMIT: u32 = 48 * KB;

impl ComputeCapability {
    /// The per-block limit without the opt-in (`sharedMemPerBlock`): 16 KB on
    /// 1.x, 48 KB from 2.0 on (49152, measured on an H200). It bounds static
    /// shared memory, and static plus dynamic at a launch without the opt-in.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// // An H200 block may opt in to 227 KB, but gets 48 KB by default.
    /// let hopper = ComputeCapability::Sm90;
    /// assert_eq!(hopper.default_shared_memory_per_block(), 48 * 1024);
    /// assert_eq!(hopper.max_shared_memory_per_block(), 227 * 1024);
    /// // Before Volta the two are the same; 1.x had 16 KB.
    /// assert_eq!(ComputeCapability::Sm61.default_shared_memory_per_block(), 48 * 1024);
    /// assert_eq!(ComputeCapability::Sm13.default_shared_memory_per_block(), 16 * 1024);
    /// ```
    pub const fn default_shared_memory_per_block(self) -> u32 {
        let max = self.max_shared_memory_per_block();
        if max < STATIC_SHARED_LIMIT {
            max
        } else {
            STATIC_SHARED_LIMIT
        }
    }

    /// The granularity in bytes at which a block's shared memory is allocated.
    ///
    /// Source: `cuda_occupancy.h` (`cudaOccSMemAllocationGranularity`, CUDA 13.0)
    /// for 3.x to 12.x; the CUDA occupancy calculator spreadsheet for 1.x (512)
    /// and 2.x (128). The 128 bytes of 9.0 were measured on an H200
    /// (`tests/data/device/`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Carveout, ComputeCapability, Launch};
    ///
    /// let hopper = ComputeCapability::Sm90;
    /// assert_eq!(hopper.shared_allocation_unit(), 128);
    /// assert_eq!(ComputeCapability::Sm75.shared_allocation_unit(), 256);
    /// assert_eq!(ComputeCapability::Sm13.shared_allocation_unit(), 512);
    ///
    /// // Measured on an H200 with a 50% carveout (132 KB): 12 KB static + 1 KB
    /// // reserved + 128 bytes is 105 units, 10 blocks; one byte more is 106, 9 blocks.
    /// let blocks = |dynamic| -> Result<u32, smem_model::Error> {
    ///     let launch = Launch::new(hopper, 12288, dynamic);
    ///     Ok(launch.occupancy_with(Carveout::Percent(50))?.blocks_per_sm())
    /// };
    /// assert_eq!((blocks(128)?, blocks(129)?), (10, 9));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn shared_allocation_unit(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 | C::Sm12 | C::Sm13 => 512,
            C::Sm20 | C::Sm21 => 128,
            C::Sm30
            | C::Sm32
            | C::Sm35
            | C::Sm37
            | C::Sm50
            | C::Sm52
            | C::Sm53
            | C::Sm60
            | C::Sm61
            | C::Sm62
            | C::Sm70
            | C::Sm72
            | C::Sm75 => 256,
            C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => 128,
        }
    }

    /// The most blocks one SM holds at once, whatever their resources.
    ///
    /// Source: `cuda_occupancy.h` (`cudaOccMaxBlocksPerMultiprocessor`, CUDA 13.0)
    /// for 3.x on; the Programming Guide's feature table for 1.x and 2.x (8).
    /// The 32 of 9.0 is the H200's `maxBlocksPerSM` (`tests/data/device/`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// assert_eq!(ComputeCapability::Sm90.max_blocks_per_sm(), 32);
    /// assert_eq!(ComputeCapability::Sm89.max_blocks_per_sm(), 24);
    /// assert_eq!(ComputeCapability::Sm75.max_blocks_per_sm(), 16);
    /// // Measured on an H200: with no shared memory but the reserved 1 KB, 228
    /// // blocks would fit, and 32 run.
    /// let occupancy = Launch::new(ComputeCapability::Sm90, 0, 0).occupancy()?;
    /// assert_eq!(occupancy.blocks_per_sm(), 32);
    /// assert_eq!(occupancy.limit(), OccupancyLimit::BlocksPerSm);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn max_blocks_per_sm(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 | C::Sm12 | C::Sm13 | C::Sm20 | C::Sm21 => 8,
            C::Sm30 | C::Sm32 | C::Sm35 | C::Sm37 => 16,
            C::Sm50 | C::Sm52 | C::Sm53 | C::Sm60 | C::Sm61 | C::Sm62 => 32,
            C::Sm70 | C::Sm72 => 32,
            C::Sm75 => 16,
            C::Sm80 => 32,
            C::Sm86 | C::Sm87 => 16,
            C::Sm89 => 24,
            C::Sm90 | C::Sm100 | C::Sm103 => 32,
            C::Sm110 | C::Sm120 | C::Sm121 => 24,
        }
    }

    /// The shared-memory sizes, in KB, an SM's unified L1/shared memory can be
    /// split into, smallest first; empty where the split is fixed.
    ///
    /// Source: `cuda_occupancy.h` (`cudaOccAlignUpShmemSizeVoltaPlus`, CUDA 13.0)
    /// for 7.0 on; Programming Guide v4.2, F.4.1 and F.5.1, for 2.x and 3.0-3.5.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Carveout, ComputeCapability, Launch};
    ///
    /// let hopper = ComputeCapability::Sm90;
    /// assert_eq!(hopper.shared_carveouts_kb(), [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]);
    /// assert_eq!(ComputeCapability::Sm75.shared_carveouts_kb(), [32, 64]);
    /// assert!(ComputeCapability::Sm61.shared_carveouts_kb().is_empty());
    ///
    /// // Measured on an H200: a 25% preference (57 KB) rounds up to the 64 KB
    /// // carveout, which holds four blocks of 12 KB static + 1 KB reserved.
    /// let occupancy = Launch::new(hopper, 12288, 0).occupancy_with(Carveout::Percent(25))?;
    /// assert_eq!(occupancy.carveout(), 64 * 1024);
    /// assert_eq!(occupancy.blocks_per_sm(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn shared_carveouts_kb(self) -> &'static [u32] {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 | C::Sm12 | C::Sm13 => &[],
            C::Sm20 | C::Sm21 => &[16, 48],
            C::Sm30 | C::Sm32 | C::Sm35 => &[16, 32, 48],
            C::Sm37 | C::Sm50 | C::Sm52 | C::Sm53 | C::Sm60 | C::Sm61 | C::Sm62 => &[],
            C::Sm70 | C::Sm72 => &[0, 8, 16, 32, 64, 96],
            C::Sm75 => &[32, 64],
            C::Sm80 | C::Sm87 => &[0, 8, 16, 32, 64, 100, 132, 164],
            C::Sm86 | C::Sm89 | C::Sm120 | C::Sm121 => &[0, 8, 16, 32, 64, 100],
            C::Sm90 | C::Sm100 | C::Sm103 | C::Sm110 => {
                &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228]
            }
        }
    }

    /// The smallest carveout, in bytes, that holds `bytes`, or `None` when none
    /// does or the split is fixed.
    fn carveout_at_least(self, bytes: u32) -> Option<u32> {
        let carveouts = self.shared_carveouts_kb();
        let mut i = 0;
        while i < carveouts.len() {
            if carveouts[i] * KB >= bytes {
                return Some(carveouts[i] * KB);
            }
            i += 1;
        }
        None
    }
}

/// A kernel's shared-memory footprint at launch, and the per-block limit it is
/// checked against.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, Launch};
///
/// // 12 KB of static arrays and 36 KB of dynamic shared memory: exactly 48 KB.
/// let launch = Launch::new(ComputeCapability::Sm90, 12288, 36864);
/// assert_eq!(launch.capability(), ComputeCapability::Sm90);
/// assert_eq!((launch.static_bytes(), launch.dynamic_bytes()), (12288, 36864));
/// assert_eq!(launch.opt_in(), None);
/// assert_eq!(launch.check(), Ok(()));
/// // Measured on an H200: one byte more fails without the opt-in...
/// let over = Launch::new(ComputeCapability::Sm90, 12288, 36865);
/// assert_eq!(
///     over.check().unwrap_err().to_string(),
///     "launch fails: 12288 bytes of static and 36865 bytes of dynamic shared memory \
///      exceed the per-block limit of 49152 bytes on compute capability 9.0"
/// );
/// // ... and launches with it.
/// assert_eq!(over.with_opt_in(36865).check(), Ok(()));
/// assert_eq!(over.with_opt_in(36865).opt_in(), Some(36865));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Launch {
    capability: ComputeCapability,
    static_bytes: u32,
    dynamic_bytes: u32,
    opt_in: Option<u32>,
    #[cfg_attr(feature = "serde", serde(default))]
    block: Option<(u32, u32)>,
}

impl Launch {
    /// A launch with `static_bytes` of `__shared__` arrays and `dynamic_bytes` as
    /// the third launch parameter, without the opt-in.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // kernel<<<grid, block, 4096>>> with 12 KB of __shared__ arrays.
    /// let launch = Launch::new(ComputeCapability::Sm86, 12 * 1024, 4096);
    /// assert_eq!((launch.static_bytes(), launch.dynamic_bytes()), (12 * 1024, 4096));
    /// ```
    pub const fn new(capability: ComputeCapability, static_bytes: u32, dynamic_bytes: u32) -> Self {
        Launch {
            capability,
            static_bytes,
            dynamic_bytes,
            opt_in: None,
            block: None,
        }
    }

    /// The same launch after `cudaFuncSetAttribute(kernel,
    /// cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic_bytes)`. The
    /// attribute is checked by [`check`](Self::check), not here.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, Launch};
    ///
    /// // Measured on an H200: 12 KB static, opted in to 215 KB (the 227 KB
    /// // per-block maximum less the statics); a byte past the attribute fails.
    /// let sm90 = ComputeCapability::Sm90;
    /// let opted = |dynamic| Launch::new(sm90, 12288, dynamic).with_opt_in(220160);
    /// assert_eq!(opted(220160).check(), Ok(()));
    /// let err = opted(220161).check().unwrap_err();
    /// assert!(matches!(err, Error::LaunchTooLarge { limit: 232448, .. }));
    /// // The attribute also caps the dynamic size below 48 KB.
    /// let capped = Launch::new(sm90, 0, 8192).with_opt_in(4096);
    /// assert!(matches!(capped.check(), Err(Error::LaunchTooLarge { limit: 4096, .. })));
    /// ```
    pub const fn with_opt_in(self, max_dynamic_bytes: u32) -> Self {
        Launch {
            opt_in: Some(max_dynamic_bytes),
            ..self
        }
    }

    /// The capability.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // kernel<<<grid, block, 4096>>> with 12 KB of __shared__ arrays.
    /// let launch = Launch::new(ComputeCapability::Sm86, 12 * 1024, 4096);
    /// assert_eq!(launch.capability(), ComputeCapability::Sm86);
    /// ```
    pub const fn capability(&self) -> ComputeCapability {
        self.capability
    }

    /// Bytes of static shared memory.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // kernel<<<grid, block, 4096>>> with 12 KB of __shared__ arrays.
    /// let launch = Launch::new(ComputeCapability::Sm86, 12 * 1024, 4096);
    /// assert_eq!(launch.static_bytes(), 12 * 1024);
    /// ```
    pub const fn static_bytes(&self) -> u32 {
        self.static_bytes
    }

    /// Bytes of dynamic shared memory.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // kernel<<<grid, block, 4096>>> with 12 KB of __shared__ arrays.
    /// let launch = Launch::new(ComputeCapability::Sm86, 12 * 1024, 4096);
    /// assert_eq!(launch.dynamic_bytes(), 4096);
    /// ```
    pub const fn dynamic_bytes(&self) -> u32 {
        self.dynamic_bytes
    }

    /// The opt-in attribute, if set.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // kernel<<<grid, block, 4096>>> with 12 KB of __shared__ arrays.
    /// let launch = Launch::new(ComputeCapability::Sm86, 12 * 1024, 4096);
    /// assert_eq!(launch.opt_in(), None);
    /// assert_eq!(launch.with_opt_in(64 * 1024).opt_in(), Some(64 * 1024));
    /// ```
    pub const fn opt_in(&self) -> Option<u32> {
        self.opt_in
    }

    /// The most static + dynamic bytes this kernel may launch with: 48 KB (16 KB
    /// on 1.x) without the opt-in; with it, static plus the attribute.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// let launch = Launch::new(ComputeCapability::Sm90, 12288, 0);
    /// assert_eq!(launch.limit(), 48 * 1024);
    /// // The H200's sharedMemPerBlockOptin: 227 KB in all.
    /// assert_eq!(launch.with_opt_in(220160).limit(), 232448);
    /// assert_eq!(Launch::new(ComputeCapability::Sm13, 0, 0).limit(), 16 * 1024);
    /// ```
    pub const fn limit(&self) -> u32 {
        match self.opt_in {
            None => self.capability.default_shared_memory_per_block(),
            Some(max_dynamic) => self.static_bytes.saturating_add(max_dynamic),
        }
    }

    /// Checks the launch as the compiler and the runtime would.
    ///
    /// Measured on an H200: one byte past either limit fails with
    /// `cudaErrorInvalidValue` (`tests/data/device/`).
    ///
    /// # Errors
    ///
    /// - [`Error::StaticTooLarge`] when the static arrays exceed
    ///   [`STATIC_SHARED_LIMIT`] (or a 1.x device's 16 KB): nvcc refuses the kernel.
    /// - [`Error::OptInTooLarge`] when the opt-in attribute exceeds what the
    ///   capability allows beside the static arrays:
    ///   [`max_shared_memory_per_block`](ComputeCapability::max_shared_memory_per_block)
    ///   minus the static bytes, where that maximum is 48 KB for a capability
    ///   with no opt-in. `cudaFuncSetAttribute` fails.
    /// - [`Error::LaunchTooLarge`] when static + dynamic exceeds [`limit`](Self::limit).
    ///
    /// With a block ([`with_block`](Self::with_block)):
    ///
    /// - [`Error::ThreadOccupancyNotModelled`] before compute capability 3.0.
    /// - [`Error::BlockThreads`] for no threads or more than
    ///   [`max_threads_per_block`](ComputeCapability::max_threads_per_block).
    /// - [`Error::RegistersPerThread`] past
    ///   [`max_registers_per_thread`](ComputeCapability::max_registers_per_thread).
    /// - [`Error::RegistersPerBlock`] when the block's registers, each warp's
    ///   rounded up to the allocation unit and the warps to the register
    ///   partitions (as `cuda_occupancy.h` checks it), exceed
    ///   [`max_registers_per_block`](ComputeCapability::max_registers_per_block):
    ///   the launch fails with "too many resources requested for launch".
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, Launch};
    ///
    /// let sm90 = ComputeCapability::Sm90;
    /// // 4 KB of statics: the attribute may be up to 223 KB on 9.0.
    /// assert_eq!(Launch::new(sm90, 4096, 0).with_opt_in(223 * 1024).check(), Ok(()));
    /// let err = Launch::new(sm90, 4096, 0).with_opt_in(223 * 1024 + 1).check().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "opt-in of 228353 bytes of dynamic shared memory exceeds the 228352 bytes \
    ///      compute capability 9.0 allows beside 4096 bytes of static shared memory"
    /// );
    /// // Pascal has no opt-in past 48 KB.
    /// let pascal = Launch::new(ComputeCapability::Sm61, 4096, 0);
    /// assert_eq!(pascal.with_opt_in(44 * 1024).check(), Ok(()));
    /// let err = pascal.with_opt_in(44 * 1024 + 1).check().unwrap_err();
    /// assert!(matches!(err, Error::OptInTooLarge { max: 45056, .. }));
    /// // Statics past 48 KB never compile.
    /// assert!(matches!(Launch::new(sm90, 49168, 0).check(), Err(Error::StaticTooLarge { .. })));
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        let cc = self.capability;
        let static_limit = cc.default_shared_memory_per_block();
        if self.static_bytes > static_limit {
            return Err(Error::StaticTooLarge {
                static_bytes: self.static_bytes,
                limit: static_limit,
                capability: cc,
            });
        }
        if let Some(requested) = self.opt_in {
            let max = cc.max_shared_memory_per_block() - self.static_bytes;
            if requested > max {
                return Err(Error::OptInTooLarge {
                    requested,
                    max,
                    static_bytes: self.static_bytes,
                    capability: cc,
                });
            }
        }
        let total = u64::from(self.static_bytes) + u64::from(self.dynamic_bytes);
        if total > u64::from(self.limit()) {
            return Err(Error::LaunchTooLarge {
                static_bytes: self.static_bytes,
                dynamic_bytes: self.dynamic_bytes,
                limit: self.limit(),
                capability: cc,
            });
        }
        if let Some((threads, registers)) = self.block {
            self.check_block(threads, registers)?;
        }
        Ok(())
    }

    /// The launch with blocks of `threads` threads using `registers` registers
    /// each (`cudaFuncAttributes::numRegs`, what `ptxas -v` or `ncu` reports;
    /// 0 when unknown, which the calculator treats as no register limit).
    /// Occupancy then also counts the SM's warps and registers, as the
    /// occupancy calculator does.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // 256 threads of 64 registers, 16 KB of shared memory, on an H100.
    /// let launch = Launch::new(ComputeCapability::Sm90, 0, 16384).with_block(256, 64);
    /// assert_eq!(launch.block(), Some((256, 64)));
    /// let occupancy = launch.occupancy()?;
    /// // 8 warps of 2048 registers: 4 blocks fill the 64K register file.
    /// assert_eq!(occupancy.blocks_per_sm(), 4);
    /// assert_eq!(occupancy.limit(), OccupancyLimit::Registers);
    /// assert_eq!(occupancy.warps_per_sm(), Some(32));
    /// assert_eq!(occupancy.percent(), Some(50.0));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn with_block(self, threads: u32, registers: u32) -> Self {
        Launch {
            block: Some((threads, registers)),
            ..self
        }
    }

    /// The threads of a block and the registers of each thread, if given.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// assert_eq!(Launch::new(ComputeCapability::Sm90, 0, 0).block(), None);
    /// ```
    pub const fn block(&self) -> Option<(u32, u32)> {
        self.block
    }

    /// The checks of [`with_block`](Self::with_block)'s block: its warps and
    /// the registers allocated to it.
    fn check_block(&self, threads: u32, registers: u32) -> Result<(u32, u32), Error> {
        let cc = self.capability;
        if !cc.models_thread_occupancy() {
            return Err(Error::ThreadOccupancyNotModelled { capability: cc });
        }
        if threads == 0 || threads > cc.max_threads_per_block() {
            return Err(Error::BlockThreads {
                threads,
                limit: cc.max_threads_per_block(),
                capability: cc,
            });
        }
        if registers > cc.max_registers_per_thread() {
            return Err(Error::RegistersPerThread {
                registers,
                limit: cc.max_registers_per_thread(),
                capability: cc,
            });
        }
        let warps = threads.div_ceil(32);
        let unit = cc.register_allocation_unit();
        let per_warp = (registers * 32).div_ceil(unit) * unit;
        let allocated = per_warp * warps;
        // cuda_occupancy.h: "the verification logic assumes register
        // allocations are made to all partitions simultaneously", so the
        // warps are rounded up to the partitions for the per-block check.
        let partitions = cc.register_partitions();
        let assumed = per_warp * warps.div_ceil(partitions) * partitions;
        if assumed.max(allocated) > cc.max_registers_per_block() {
            return Err(Error::RegistersPerBlock {
                threads,
                registers,
                allocated: assumed.max(allocated),
                limit: cc.max_registers_per_block(),
                capability: cc,
            });
        }
        Ok((warps, allocated))
    }

    /// Blocks per SM with the default carveout: as far as shared memory and
    /// the SM's most blocks decide, and with [`with_block`](Self::with_block)
    /// as its warps and registers decide too.
    ///
    /// # Errors
    ///
    /// Those of [`check`](Self::check): a launch that fails has no occupancy.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Error, Launch};
    ///
    /// // Measured on an H200 (cudaOccupancyMaxActiveBlocksPerMultiprocessor):
    /// // 12 KB static + 1 KB reserved; the dynamic size decides the rest.
    /// let sm90 = ComputeCapability::Sm90;
    /// let blocks = |dynamic| -> Result<u32, Error> {
    ///     Ok(Launch::new(sm90, 12288, dynamic).occupancy()?.blocks_per_sm())
    /// };
    /// assert_eq!(blocks(0)?, 17);
    /// assert_eq!(blocks(8192)?, 10);
    /// assert_eq!(blocks(36864)?, 4);
    /// // A launch that fails has no occupancy.
    /// assert!(matches!(blocks(36865), Err(Error::LaunchTooLarge { .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn occupancy(&self) -> Result<Occupancy, Error> {
        self.occupancy_with(Carveout::Default)
    }

    /// Blocks per SM with a carveout preference
    /// (`cudaFuncAttributePreferredSharedMemoryCarveout`).
    ///
    /// The rule of `cuda_occupancy.h` (`cudaOccMaxBlocksPerSMSmemLimit`): a block
    /// is allocated static + reserved + dynamic bytes rounded up to the
    /// allocation unit. The SM's shared memory is the preference rounded up to a
    /// carveout (the whole per-SM amount by default), or, when a block does not
    /// fit in that, the block's allocation rounded up to a carveout (from 7.0
    /// on) or the whole per-SM amount (before). Blocks per SM
    /// is that divided by the allocation, capped by
    /// [`max_blocks_per_sm`](ComputeCapability::max_blocks_per_sm) and, from
    /// 9.0 on, by [`block_barriers_per_sm`](ComputeCapability::block_barriers_per_sm).
    ///
    /// With [`with_block`](Self::with_block), also the rules of
    /// `cudaOccMaxBlocksPerSMWarpsLimit` (the SM's most warps over the
    /// block's, `ceil(threads / 32)`) and `cudaOccMaxBlocksPerSMRegsLimit`
    /// (each warp holds `32 * registers` rounded up to
    /// [`register_allocation_unit`](ComputeCapability::register_allocation_unit);
    /// the register file is split in
    /// [`register_partitions`](ComputeCapability::register_partitions), each
    /// holding whole warps).
    ///
    /// Measured exception (H100 and H200, `occupancy_runtime*.jsonl`): with a
    /// 0% preference and no shared memory at all, the runtime and this model
    /// say 8 blocks of 128 threads, but 16 were resident: the driver did not
    /// hold a kernel without shared memory to the preference.
    ///
    /// Carveouts before 7.0 (the 2.x and 3.0-3.5 L1 splits, set there with
    /// `cudaFuncSetCacheConfig`) follow the same rounding: a modelling choice.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Carveout, ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // Measured on an H200: 12 KB static, 4 KB dynamic, 1 KB reserved = 17 KB a block.
    /// let launch = Launch::new(ComputeCapability::Sm90, 12288, 4096);
    /// let occupancy = launch.occupancy()?;
    /// assert_eq!(occupancy.blocks_per_sm(), 13);
    /// assert_eq!(occupancy.allocated_per_block(), 17408);
    /// assert_eq!(occupancy.carveout(), 228 * 1024);
    /// assert_eq!(occupancy.limit(), OccupancyLimit::SharedMemory);
    /// // Preferring half the shared memory: a 132 KB carveout holds 7 blocks.
    /// assert_eq!(launch.occupancy_with(Carveout::Percent(50))?.blocks_per_sm(), 7);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`check`](Self::check), and [`Error::CarveoutPercent`] for a
    /// percentage over 100.
    pub fn occupancy_with(&self, carveout: Carveout) -> Result<Occupancy, Error> {
        self.check()?;
        let cc = self.capability;
        let per_sm = cc.shared_memory_per_sm();
        let unit = cc.shared_allocation_unit();
        let used = u64::from(self.static_bytes)
            + u64::from(cc.reserved_shared_memory_per_block())
            + u64::from(self.dynamic_bytes);
        // `check` bounds `used` by the per-block maximum, far below u32::MAX.
        let allocated = used.div_ceil(u64::from(unit)) as u32 * unit;
        let preference = match carveout {
            Carveout::Default => per_sm,
            Carveout::Percent(p) if p <= 100 => (u64::from(p) * u64::from(per_sm) / 100) as u32,
            Carveout::Percent(p) => return Err(Error::CarveoutPercent { percent: p }),
        };
        let preferred = cc.carveout_at_least(preference).unwrap_or(per_sm);
        let shared = if preferred >= allocated {
            preferred
        } else if cc.major() >= 7 {
            cc.carveout_at_least(allocated).unwrap_or(per_sm)
        } else {
            // Before Volta the header ignores a preference a block does not fit in.
            per_sm
        };
        let by_shared = shared.checked_div(allocated);
        let (warps, by_warps, registers, by_registers) = match self.block {
            None => (None, None, None, None),
            Some((threads, per_thread)) => {
                let (warps, allocated) = self.check_block(threads, per_thread)?;
                let by_warps = cc.max_warps_per_sm() / warps;
                let by_registers = if per_thread == 0 {
                    None
                } else {
                    let partitions = cc.register_partitions();
                    let per_warp = allocated / warps;
                    let per_partition = cc.registers_per_sm() / partitions / per_warp;
                    Some(per_partition * partitions / warps)
                };
                (Some(warps), Some(by_warps), Some(allocated), by_registers)
            }
        };
        let allowed = [
            by_warps,
            by_registers,
            by_shared,
            Some(cc.max_blocks_per_sm()),
            cc.block_barriers_per_sm(),
        ];
        Ok(Occupancy::from_limits(
            allowed,
            allocated,
            shared,
            preferred,
            warps.map(|w| (w, cc.max_warps_per_sm())),
            registers,
        ))
    }
}

/// A shared-memory carveout preference
/// (`cudaFuncAttributePreferredSharedMemoryCarveout`).
///
/// # Example
///
/// ```
/// use smem_model::{Carveout, ComputeCapability, Launch};
///
/// // Measured on an H200: 12 KB static + 4 KB dynamic + 1 KB reserved a block.
/// let launch = Launch::new(ComputeCapability::Sm90, 12288, 4096);
/// let blocks = |carveout| -> Result<u32, smem_model::Error> {
///     Ok(launch.occupancy_with(carveout)?.blocks_per_sm())
/// };
/// assert_eq!(blocks(Carveout::default())?, 13);
/// assert_eq!(blocks(Carveout::Percent(100))?, 13);
/// assert_eq!(blocks(Carveout::Percent(50))?, 7);
/// assert_eq!(blocks(Carveout::Percent(25))?, 3);
/// // MaxL1: the driver still gives a block the smallest carveout it fits in.
/// assert_eq!(blocks(Carveout::Percent(0))?, 1);
/// assert_eq!(
///     blocks(Carveout::Percent(101)).unwrap_err().to_string(),
///     "carveout preference of 101 percent is over 100"
/// );
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Carveout {
    /// `cudaSharedmemCarveoutDefault`: no preference; the occupancy calculator
    /// assumes the most shared memory.
    #[default]
    Default,
    /// A percentage of the most shared memory per SM (0 = `MaxL1`, 100 =
    /// `MaxShared`).
    Percent(u32),
}

/// What bounds the blocks per SM.
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
///
/// let sm90 = ComputeCapability::Sm90;
/// // 1 KB a block: 228 would fit, the SM runs 32.
/// let small = Launch::new(sm90, 0, 0).occupancy()?;
/// assert_eq!(small.limit(), OccupancyLimit::BlocksPerSm);
/// // 48 KB + 1 KB reserved a block: four fit in 228 KB.
/// let large = Launch::new(sm90, 0, 48 * 1024).occupancy()?;
/// assert_eq!((large.blocks_per_sm(), large.limit()), (4, OccupancyLimit::SharedMemory));
/// assert_eq!(large.limit().to_string(), "shared memory");
/// assert_eq!(small.limit().to_string(), "blocks per SM");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum OccupancyLimit {
    /// The SM's resident warps
    /// ([`max_warps_per_sm`](ComputeCapability::max_warps_per_sm)).
    Warps,
    /// The SM's registers
    /// ([`registers_per_sm`](ComputeCapability::registers_per_sm)), as
    /// allocated to warps.
    Registers,
    /// Shared memory: one more block would not fit in the carveout.
    SharedMemory,
    /// The capability's most blocks per SM.
    BlocksPerSm,
    /// The SM's block barriers
    /// ([`block_barriers_per_sm`](ComputeCapability::block_barriers_per_sm)).
    Barriers,
}

impl OccupancyLimit {
    /// Every limit, in the order of `cuda_occupancy.h`'s `limitingFactors`
    /// bits (warps, registers, shared memory, blocks, barriers).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::OccupancyLimit;
    ///
    /// assert_eq!(OccupancyLimit::ALL[0], OccupancyLimit::Warps);
    /// assert_eq!(OccupancyLimit::ALL.len(), 5);
    /// ```
    pub const ALL: [OccupancyLimit; 5] = [
        OccupancyLimit::Warps,
        OccupancyLimit::Registers,
        OccupancyLimit::SharedMemory,
        OccupancyLimit::BlocksPerSm,
        OccupancyLimit::Barriers,
    ];

    const fn index(self) -> usize {
        match self {
            OccupancyLimit::Warps => 0,
            OccupancyLimit::Registers => 1,
            OccupancyLimit::SharedMemory => 2,
            OccupancyLimit::BlocksPerSm => 3,
            OccupancyLimit::Barriers => 4,
        }
    }
}

impl fmt::Display for OccupancyLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OccupancyLimit::Warps => "warps per SM",
            OccupancyLimit::Registers => "registers",
            OccupancyLimit::SharedMemory => "shared memory",
            OccupancyLimit::BlocksPerSm => "blocks per SM",
            OccupancyLimit::Barriers => "barriers",
        })
    }
}

/// Blocks per SM as far as shared memory decides, from [`Launch::occupancy`].
///
/// # Example
///
/// ```
/// use smem_model::{Carveout, ComputeCapability, Launch, OccupancyLimit};
///
/// // Measured on an H200: 12 KB static with a MaxL1 preference (0%). The
/// // 13 KB block does not fit in 0 KB, so the driver picks the 16 KB carveout.
/// let launch = Launch::new(ComputeCapability::Sm90, 12288, 0);
/// let occupancy = launch.occupancy_with(Carveout::Percent(0))?;
/// assert_eq!(occupancy.allocated_per_block(), 12288 + 1024);
/// assert_eq!(occupancy.carveout(), 16 * 1024);
/// assert_eq!(occupancy.blocks_per_sm(), 1);
/// assert_eq!(occupancy.limit(), OccupancyLimit::SharedMemory);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Occupancy {
    blocks: u32,
    allocated: u32,
    carveout: u32,
    limit: OccupancyLimit,
    preferred: u32,
    /// Warps per block and the SM's most warps, when the block was given.
    warps: Option<(u32, u32)>,
    registers: Option<u32>,
    /// Blocks each limit allows alone, in [`OccupancyLimit::ALL`]'s order;
    /// `None` where it sets none.
    allowed: [Option<u32>; 5],
}

impl Occupancy {
    /// The occupancy the limits allow: the fewest blocks any allows, the
    /// first such limit in [`OccupancyLimit::ALL`]'s order named.
    fn from_limits(
        allowed: [Option<u32>; 5],
        allocated: u32,
        carveout: u32,
        preferred: u32,
        warps: Option<(u32, u32)>,
        registers: Option<u32>,
    ) -> Occupancy {
        // The blocks-per-SM limit is always there.
        let blocks = allowed.iter().flatten().copied().min().unwrap_or(0);
        let limit = OccupancyLimit::ALL
            .into_iter()
            .find(|l| allowed[l.index()] == Some(blocks))
            .unwrap_or(OccupancyLimit::BlocksPerSm);
        Occupancy {
            blocks,
            allocated,
            carveout,
            limit,
            preferred,
            warps,
            registers,
            allowed,
        }
    }

    /// An occupancy read from data, checked as [`Launch::occupancy_with`]
    /// builds them: the blocks are the fewest any limit allows, the limit
    /// named is one of those, and shared memory allows `carveout /
    /// allocated`. Without `allowed` (data written before the thread limits
    /// were modelled), shared memory bounds the blocks at `carveout /
    /// allocated` and the blocks-per-SM limit at that or fewer.
    #[cfg(feature = "serde")]
    pub(crate) fn checked(
        blocks: u32,
        allocated: u32,
        carveout: u32,
        limit: OccupancyLimit,
        extra: Option<OccupancyExtra>,
    ) -> Result<Self, Error> {
        let invalid = Error::InvalidOccupancy {
            blocks,
            allocated,
            carveout,
        };
        let fit = carveout.checked_div(allocated);
        let Some(extra) = extra else {
            let (consistent, allowed_blocks) = match (limit, fit) {
                (OccupancyLimit::SharedMemory, Some(fit)) => (blocks == fit, None),
                (OccupancyLimit::BlocksPerSm, Some(fit)) => (blocks <= fit, Some(blocks)),
                (OccupancyLimit::BlocksPerSm, None) => (true, Some(blocks)),
                _ => (false, None),
            };
            if !consistent {
                return Err(invalid);
            }
            let allowed = [None, None, fit, allowed_blocks, None];
            return Ok(Occupancy {
                blocks,
                allocated,
                carveout,
                limit,
                preferred: carveout,
                warps: None,
                registers: None,
                allowed,
            });
        };
        let built = Occupancy::from_limits(
            extra.allowed,
            allocated,
            carveout,
            extra.preferred,
            extra.warps,
            extra.registers,
        );
        let warps_fit = match extra.warps {
            Some((per_block, max)) => per_block > 0 && per_block <= max,
            None => true,
        };
        if built.blocks != blocks
            || extra.allowed[limit.index()] != Some(blocks)
            || extra.allowed[OccupancyLimit::SharedMemory.index()] != fit
            || !warps_fit
        {
            return Err(invalid);
        }
        // Data may name any binding limit, not only the first.
        Ok(Occupancy { limit, ..built })
    }

    /// What serde writes besides the four figures every occupancy has.
    #[cfg(feature = "serde")]
    pub(crate) fn extra(&self) -> OccupancyExtra {
        OccupancyExtra {
            preferred: self.preferred,
            warps: self.warps,
            registers: self.registers,
            allowed: self.allowed,
        }
    }

    /// Blocks that fit on one SM at once.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // 48 KB of dynamic shared memory a block on an H100.
    /// let occupancy = Launch::new(ComputeCapability::Sm90, 0, 48 * 1024).occupancy()?;
    /// // 228 KB / (48 KB + 1 KB reserved) = 4.
    /// assert_eq!(occupancy.blocks_per_sm(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn blocks_per_sm(&self) -> u32 {
        self.blocks
    }

    /// Bytes allocated to each block: static + reserved + dynamic, rounded up to
    /// the allocation unit.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // 48 KB of dynamic shared memory a block on an H100.
    /// let occupancy = Launch::new(ComputeCapability::Sm90, 0, 48 * 1024).occupancy()?;
    /// assert_eq!(occupancy.allocated_per_block(), 49 * 1024);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn allocated_per_block(&self) -> u32 {
        self.allocated
    }

    /// The SM's shared memory, in bytes, under the carveout the driver picks.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // 48 KB of dynamic shared memory a block on an H100.
    /// let occupancy = Launch::new(ComputeCapability::Sm90, 0, 48 * 1024).occupancy()?;
    /// assert!(occupancy.carveout() >= 4 * occupancy.allocated_per_block());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn carveout(&self) -> u32 {
        self.carveout
    }

    /// The carveout the preference asked for (rounded up to one the
    /// capability has; the most shared memory without a preference). Where a
    /// block does not fit in it the driver overrides it:
    /// [`carveout`](Self::carveout) is then larger.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Carveout, ComputeCapability, Launch};
    ///
    /// // 12 KB + 1 KB reserved does not fit the 0% preference's 0 KB: 16 KB.
    /// let launch = Launch::new(ComputeCapability::Sm90, 12288, 0);
    /// let occupancy = launch.occupancy_with(Carveout::Percent(0))?;
    /// assert_eq!((occupancy.preferred_carveout(), occupancy.carveout()), (0, 16 * 1024));
    /// assert!(occupancy.carveout_overridden());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn preferred_carveout(&self) -> u32 {
        self.preferred
    }

    /// Whether the driver overrides the carveout preference because a block
    /// does not fit in it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{Carveout, ComputeCapability, Launch};
    ///
    /// let launch = Launch::new(ComputeCapability::Sm90, 0, 4096);
    /// assert!(!launch.occupancy_with(Carveout::Percent(50))?.carveout_overridden());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn carveout_overridden(&self) -> bool {
        self.carveout != self.preferred
    }

    /// What bounds the blocks per SM: the first, in [`OccupancyLimit::ALL`]'s
    /// order, of the limits that allow no more ([`limits`](Self::limits) gives
    /// them all).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // 48 KB of dynamic shared memory a block on an H100.
    /// let occupancy = Launch::new(ComputeCapability::Sm90, 0, 48 * 1024).occupancy()?;
    /// assert_eq!(occupancy.limit(), OccupancyLimit::SharedMemory);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn limit(&self) -> OccupancyLimit {
        self.limit
    }

    /// Every limit that allows no more blocks than there are, in
    /// [`OccupancyLimit::ALL`]'s order: the occupancy calculator's
    /// `limitingFactors`.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// // 128 threads of 32 registers on a V100: 16 blocks by warps and by registers.
    /// let occupancy = Launch::new(ComputeCapability::Sm70, 0, 0).with_block(128, 32).occupancy()?;
    /// assert_eq!(occupancy.blocks_per_sm(), 16);
    /// let limits: Vec<_> = occupancy.limits().collect();
    /// assert_eq!(limits, [OccupancyLimit::Warps, OccupancyLimit::Registers]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn limits(&self) -> impl Iterator<Item = OccupancyLimit> + '_ {
        OccupancyLimit::ALL
            .into_iter()
            .filter(|l| self.allowed[l.index()] == Some(self.blocks))
    }

    /// The blocks per SM `limit` alone allows, or `None` where it sets no
    /// limit (registers when the block's count is unknown or not given,
    /// warps without a block, shared memory when a block is allocated none,
    /// barriers before 9.0).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch, OccupancyLimit};
    ///
    /// let launch = Launch::new(ComputeCapability::Sm90, 0, 16384).with_block(256, 64);
    /// let occupancy = launch.occupancy()?;
    /// assert_eq!(occupancy.allowed_by(OccupancyLimit::Warps), Some(8));
    /// assert_eq!(occupancy.allowed_by(OccupancyLimit::Registers), Some(4));
    /// assert_eq!(occupancy.allowed_by(OccupancyLimit::SharedMemory), Some(13));
    /// assert_eq!(occupancy.allowed_by(OccupancyLimit::BlocksPerSm), Some(32));
    /// assert_eq!(occupancy.allowed_by(OccupancyLimit::Barriers), Some(64));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn allowed_by(&self, limit: OccupancyLimit) -> Option<u32> {
        self.allowed[limit.index()]
    }

    /// Warps of one block, when the block was given
    /// ([`Launch::with_block`]).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// let launch = Launch::new(ComputeCapability::Sm90, 0, 0).with_block(100, 32);
    /// assert_eq!(launch.occupancy()?.warps_per_block(), Some(4));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn warps_per_block(&self) -> Option<u32> {
        match self.warps {
            Some((per_block, _)) => Some(per_block),
            None => None,
        }
    }

    /// Warps resident on one SM, `blocks_per_sm * warps_per_block`, when the
    /// block was given.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // 1024 threads of 32 registers on an RTX 3090 (8.6): one block, 32 of 48 warps.
    /// let occupancy = Launch::new(ComputeCapability::Sm86, 0, 0).with_block(1024, 32).occupancy()?;
    /// assert_eq!(occupancy.warps_per_sm(), Some(32));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn warps_per_sm(&self) -> Option<u32> {
        match self.warps {
            Some((per_block, _)) => Some(per_block * self.blocks),
            None => None,
        }
    }

    /// Occupancy as the calculator states it: resident warps in percent of
    /// the SM's most, when the block was given.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// let occupancy = Launch::new(ComputeCapability::Sm86, 0, 0).with_block(1024, 32).occupancy()?;
    /// assert_eq!(occupancy.percent(), Some(32.0 / 48.0 * 100.0));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn percent(&self) -> Option<f64> {
        let (per_block, max) = self.warps?;
        Some(f64::from(per_block * self.blocks) / f64::from(max) * 100.0)
    }

    /// Registers allocated to one block (each warp's `32 * registers` rounded
    /// up to the allocation unit), when the block was given.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, Launch};
    ///
    /// // 33 registers: 1056 a warp, allocated 1280; 4 warps.
    /// let launch = Launch::new(ComputeCapability::Sm90, 0, 0).with_block(128, 33);
    /// assert_eq!(launch.occupancy()?.allocated_registers_per_block(), Some(5120));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn allocated_registers_per_block(&self) -> Option<u32> {
        self.registers
    }
}

/// The fields of an [`Occupancy`] beyond its four shared-memory figures, as
/// serde reads and writes them.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OccupancyExtra {
    pub(crate) preferred: u32,
    pub(crate) warps: Option<(u32, u32)>,
    pub(crate) registers: Option<u32>,
    pub(crate) allowed: [Option<u32>; 5],
}
