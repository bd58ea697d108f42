//! The per-capability limits on threads, warps, registers and barriers that
//! the CUDA occupancy calculator applies besides shared memory.
//!
//! Sources: CUDA C++ Programming Guide, "Compute Capabilities", table
//! "Technical Specifications per Compute Capability" (resident warps and
//! blocks per SM, threads per block, registers per SM, per block and per
//! thread); `cuda_occupancy.h` of CUDA 13.0 (register allocation granularity
//! and sub-partitions, `cudaOccRegAllocationGranularity`,
//! `cudaOccSubPartitionsPerMultiprocessor`; the block-barrier limit),
//! evaluated for every capability from 3.5 to 12.1 in
//! `tests/data/device/occupancy_calculator.jsonl`, which `tests/occupancy.rs`
//! compares with these tables and with [`Launch::occupancy_with`]
//! (crate::Launch::occupancy_with) point by point.

use crate::ComputeCapability;

impl ComputeCapability {
    /// Whether the thread and register limits below are modelled: from 3.0
    /// on. Before that registers were allocated per block, and the CUDA 13
    /// occupancy calculator no longer knows those capabilities;
    /// [`Launch::with_block`](crate::Launch::with_block) refuses them.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert!(ComputeCapability::Sm90.models_thread_occupancy());
    /// assert!(!ComputeCapability::Sm21.models_thread_occupancy());
    /// ```
    pub const fn models_thread_occupancy(self) -> bool {
        self.major() >= 3
    }

    /// The most warps resident on one SM (Programming Guide, "Maximum number
    /// of resident warps per SM"): 64 on most, 32 on 7.5, 48 on 8.6, 8.7,
    /// 8.9, 11.0 and 12.x.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.max_warps_per_sm(), 64);
    /// assert_eq!(ComputeCapability::Sm86.max_warps_per_sm(), 48);
    /// assert_eq!(ComputeCapability::Sm75.max_warps_per_sm(), 32);
    /// ```
    pub const fn max_warps_per_sm(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 => 24,
            C::Sm12 | C::Sm13 => 32,
            C::Sm20 | C::Sm21 => 48,
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
            | C::Sm80
            | C::Sm90
            | C::Sm100
            | C::Sm103 => 64,
            C::Sm75 => 32,
            C::Sm86 | C::Sm87 | C::Sm89 | C::Sm110 | C::Sm120 | C::Sm121 => 48,
        }
    }

    /// The most threads in one block: 512 on 1.x, 1024 from 2.0 on
    /// (Programming Guide, "Maximum number of threads per block").
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.max_threads_per_block(), 1024);
    /// assert_eq!(ComputeCapability::Sm13.max_threads_per_block(), 512);
    /// ```
    pub const fn max_threads_per_block(self) -> u32 {
        if self.major() == 1 {
            512
        } else {
            1024
        }
    }

    /// 32-bit registers on one SM (Programming Guide, "Number of 32-bit
    /// registers per multiprocessor"): 64K from 3.0 on, 128K on 3.7.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.registers_per_sm(), 65536);
    /// assert_eq!(ComputeCapability::Sm37.registers_per_sm(), 131072);
    /// ```
    pub const fn registers_per_sm(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 => 8 * 1024,
            C::Sm12 | C::Sm13 => 16 * 1024,
            C::Sm20 | C::Sm21 => 32 * 1024,
            C::Sm37 => 128 * 1024,
            C::Sm30
            | C::Sm32
            | C::Sm35
            | C::Sm50
            | C::Sm52
            | C::Sm53
            | C::Sm60
            | C::Sm61
            | C::Sm62
            | C::Sm70
            | C::Sm72
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => 64 * 1024,
        }
    }

    /// The most 32-bit registers one block may hold (Programming Guide,
    /// "Maximum number of 32-bit registers per thread block", the device
    /// property `regsPerBlock`): 64K; 32K on 3.2 and 5.3, and before 3.0 all
    /// of the SM's.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.max_registers_per_block(), 65536);
    /// assert_eq!(ComputeCapability::Sm53.max_registers_per_block(), 32768);
    /// ```
    pub const fn max_registers_per_block(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 => 8 * 1024,
            C::Sm12 | C::Sm13 => 16 * 1024,
            C::Sm20 | C::Sm21 | C::Sm32 | C::Sm53 => 32 * 1024,
            // 6.2 (Jetson TX2): 64K, as the calculator run was given it from the
            // guide's table (`occupancy_calculator.jsonl`); not measured.
            C::Sm30
            | C::Sm35
            | C::Sm37
            | C::Sm50
            | C::Sm52
            | C::Sm60
            | C::Sm61
            | C::Sm62
            | C::Sm70
            | C::Sm72
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => 64 * 1024,
        }
    }

    /// The most registers one thread may use: 255 from 3.5 on, 63 on 2.x, 3.0
    /// and 3.2, 127 on 1.x (Programming Guide, "Maximum number of 32-bit
    /// registers per thread"). `cuda_occupancy.h` checks against 256 from 7.0
    /// on, which no kernel reaches.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.max_registers_per_thread(), 255);
    /// assert_eq!(ComputeCapability::Sm30.max_registers_per_thread(), 63);
    /// ```
    pub const fn max_registers_per_thread(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 | C::Sm12 | C::Sm13 => 127,
            C::Sm20 | C::Sm21 | C::Sm30 | C::Sm32 => 63,
            C::Sm35
            | C::Sm37
            | C::Sm50
            | C::Sm52
            | C::Sm53
            | C::Sm60
            | C::Sm61
            | C::Sm62
            | C::Sm70
            | C::Sm72
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => 255,
        }
    }

    /// Registers are allocated to a warp in units of this many: a warp of
    /// threads using `r` registers each holds `32 * r` rounded up to it. 256
    /// from 3.0 on (`cuda_occupancy.h`, `cudaOccRegAllocationGranularity`); 64
    /// on 2.x; 1.x allocated per block (512 or 256 registers).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// // 33 registers a thread: 1056 a warp, allocated as 1280.
    /// let unit = ComputeCapability::Sm90.register_allocation_unit();
    /// assert_eq!((33 * 32u32).div_ceil(unit) * unit, 1280);
    /// ```
    pub const fn register_allocation_unit(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 => 256,
            C::Sm12 | C::Sm13 => 512,
            C::Sm20 | C::Sm21 => 64,
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
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => 256,
        }
    }

    /// The SM's sub-partitions, each with its share of the register file: a
    /// warp's registers come from one of them, so an SM holds `partitions *
    /// floor(registers_per_sm / partitions / registers_per_warp)` warps. 4,
    /// and 2 on 6.0 (`cuda_occupancy.h`, `cudaOccSubPartitionsPerMultiprocessor`);
    /// 1 before 3.0, where registers were not split.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.register_partitions(), 4);
    /// assert_eq!(ComputeCapability::Sm60.register_partitions(), 2);
    /// ```
    pub const fn register_partitions(self) -> u32 {
        use ComputeCapability as C;
        match self {
            C::Sm10 | C::Sm11 | C::Sm12 | C::Sm13 | C::Sm20 | C::Sm21 => 1,
            C::Sm60 => 2,
            C::Sm30
            | C::Sm32
            | C::Sm35
            | C::Sm37
            | C::Sm50
            | C::Sm52
            | C::Sm53
            | C::Sm61
            | C::Sm62
            | C::Sm70
            | C::Sm72
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89
            | C::Sm90
            | C::Sm100
            | C::Sm103
            | C::Sm110
            | C::Sm120
            | C::Sm121 => 4,
        }
    }

    /// Blocks per SM that its block barriers allow, each block using one
    /// (`__syncthreads`): 64 on 9.0, 10.0 and 10.3, 24 on 11.0 and 12.x,
    /// `None` (no such limit) before 9.0. As `cuda_occupancy.h` of CUDA 13.0
    /// computes it (`limit_barriers` in `occupancy_calculator.jsonl`); never
    /// below [`max_blocks_per_sm`](Self::max_blocks_per_sm), so it binds only
    /// together with it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::ComputeCapability;
    ///
    /// assert_eq!(ComputeCapability::Sm90.block_barriers_per_sm(), Some(64));
    /// assert_eq!(ComputeCapability::Sm120.block_barriers_per_sm(), Some(24));
    /// assert_eq!(ComputeCapability::Sm80.block_barriers_per_sm(), None);
    /// ```
    pub const fn block_barriers_per_sm(self) -> Option<u32> {
        use ComputeCapability as C;
        match self {
            C::Sm90 | C::Sm100 | C::Sm103 => Some(64),
            C::Sm110 | C::Sm120 | C::Sm121 => Some(24),
            C::Sm10
            | C::Sm11
            | C::Sm12
            | C::Sm13
            | C::Sm20
            | C::Sm21
            | C::Sm30
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
            | C::Sm75
            | C::Sm80
            | C::Sm86
            | C::Sm87
            | C::Sm89 => None,
        }
    }
}
