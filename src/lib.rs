//! A reference model of GPU (CUDA) shared memory.
//!
//! `smem_model` predicts how a warp's shared-memory instruction is split into
//! conflict-free transactions (wavefronts) on every CUDA compute capability from
//! 1.0 to 12.1: which lanes each transaction serves, which banks and words it
//! touches, what it broadcasts, and the totals Nsight Compute reports. The rules
//! for 7.0 and later were measured on sm_90 (H100, H200) and the model predicts
//! every measured pattern exactly; the older rules follow the CUDA programming
//! guides, and each rule's doc comment names its source or says that it is a
//! modelling choice.
//!
//! # Start here
//!
//! Most people need one of three things:
//!
//! 1. **How many wavefronts does this access take?** Build a [`BankConfig`] for
//!    the GPU ([`ComputeCapability`] parses `"sm_90"`, `"H100"`, `"RTX 4090"`),
//!    a [`WarpRequest`] for the instruction (the op, the bytes per lane, each
//!    lane's address), and ask [`BankConfig::wavefronts`] for the count or
//!    [`BankConfig::partition`] for the whole [`Partition`]: its
//!    [`Transaction`]s, bank conflicts and [`Classification`].
//!
//!    ```
//!    use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
//!
//!    let h100 = BankConfig::new("H100".parse::<ComputeCapability>()?);
//!    // float tile[32][32]; ... = tile[lane][0];  (a column: every lane in bank 0)
//!    let column = WarpRequest::from_fn(Op::Load, 4, |lane| Some(128 * lane.get()))?;
//!    assert_eq!(h100.wavefronts(&column)?, 32);
//!    assert_eq!(h100.partition(&column)?.bank_conflicts(), 31);
//!    # Ok::<(), smem_model::Error>(())
//!    ```
//!
//! 2. **Which layout makes my tile conflict-free?** Describe the tile with a
//!    [`TileLayout`], the warps' accesses with [`TileAccess`], and call
//!    [`TileLayout::advise`]: the [`Advice`] ranks paddings and swizzles and
//!    says why the layout as given conflicts (see the example below).
//!
//! 3. **How much shared memory does my kernel use, and what does it cost in
//!    occupancy?** [`SharedMemory`] lays out a block's arrays as nvcc and the
//!    driver do and runs warp loads and stores on them; [`Launch`] gives the
//!    [`Occupancy`] (blocks per SM) of a launch.
//!
//! The `smem` command-line tool (feature `cli`) does the same from a shell:
//! `smem analyze 'lane*32*4'`, `smem advise --tile 32x32 column`,
//! `smem occupancy --dynamic 48K`.
//!
//! # The rest, by topic
//!
//! - **GPUs**: [`ComputeCapability`], [`Architecture`], [`BankConfig`] (the bank
//!   rules, with their sources), [`SharedMemConfig`] (Kepler's bank modes),
//!   [`Bank`], [`BankSet`], [`BankIter`], [`BankWidth`], [`Broadcast`],
//!   [`Timing`].
//! - **Requests**: [`WarpRequest`], [`Op`], [`AtomicKind`], [`CpAsync`],
//!   [`Matrices`], [`AccessWidth`], [`Lane`], [`LaneSet`], [`LaneIter`],
//!   [`WARP_SIZE`], [`WriteCollision`], [`StoreOrder`], [`ConstantLoad`] and
//!   [`CONSTANT_BANK_SIZE`] (constant memory).
//! - **Results**: [`Partition`], [`Transaction`], [`Transactions`],
//!   [`IntoTransactions`], [`WordAccess`], [`Classification`], [`Cost`].
//! - **Tiles**: [`TileLayout`], [`TileAccess`], [`Swizzle`], [`TmaSwizzle`],
//!   [`Advice`], [`Candidate`], [`Fix`], [`BankConflict`].
//! - **A kernel's shared memory**: [`SharedMemory`], [`SharedMemoryBuilder`],
//!   [`Array`], [`ArrayInfo`], [`PlacedArray`], [`Origin`], [`DynamicLayout`],
//!   [`Element`], [`ElementType`], [`Float2`], [`Float4`], [`Int2`], [`Int4`],
//!   [`Double2`], [`WarpLoad`], [`WarpStore`].
//! - **Occupancy**: [`Launch`], [`Occupancy`], [`OccupancyLimit`], [`Carveout`],
//!   [`STATIC_SHARED_LIMIT`].
//! - **Races and barriers in a thread block**: [`Block`], [`BlockReport`],
//!   [`Hazard`], [`HazardAccess`], [`HazardKind`], [`Severity`], [`AccessKind`],
//!   [`BarrierError`], [`SyncOp`], [`BARRIERS`]; over a kernel's blocks, from
//!   any source of `kernel` events: [`Racecheck`], [`KernelRaces`],
//!   [`HazardFinding`], [`BarrierFinding`].
//! - **Errors**: [`Error`], one enum for the whole crate.
//! - **Modules**: `kernel` (a kernel's shared-memory events: sources and consumers), `corpus` (hardware corpora, feature `corpus`) and `strategy`
//!   (proptest strategies, feature `proptest`).
//!
//! # Example: a strided access
//!
//! ```
//! use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
//!
//! let config = BankConfig::new(ComputeCapability::Sm90);
//! for stride in [1, 2, 3, 32, 33] {
//!     // float s[]; ... = s[stride * lane];
//!     let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * stride * lane.get()))?;
//!     let partition = config.partition(&request)?;
//!     let expected = [(1, 1), (2, 2), (3, 1), (32, 32), (33, 1)];
//!     assert!(expected.contains(&(stride, partition.wavefronts())));
//! }
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! # Example: broadcast and write collisions
//!
//! ```
//! use smem_model::{BankConfig, Classification, ComputeCapability, Op, WarpRequest};
//!
//! let config = BankConfig::new(ComputeCapability::Sm90);
//! let load = WarpRequest::from_fn(Op::Load, 4, |_| Some(128))?;
//! assert_eq!(config.partition(&load)?.classification(), Classification::Broadcast);
//!
//! // The same address stored by every lane: one write lands, which one is undefined.
//! let store = WarpRequest::from_fn(Op::Store, 4, |_| Some(128))?;
//! assert_eq!(config.wavefronts(&store)?, 1);
//! assert_eq!(store.write_collisions()[0].lanes().len(), 32);
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! # Example: Kepler's bank modes
//!
//! ```
//! use smem_model::{BankConfig, ComputeCapability, Op, SharedMemConfig, WarpRequest};
//!
//! let four = BankConfig::new(ComputeCapability::Sm35);
//! let eight = four.with_shared_mem_config(SharedMemConfig::EightByte);
//! // Doubles, s[lane]: conflict-free in eight-byte mode, and in four-byte mode too,
//! // since each 64-bit bank row holds words i and i + 32.
//! let doubles = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get()))?;
//! assert_eq!((four.wavefronts(&doubles)?, eight.wavefronts(&doubles)?), (1, 1));
//! // Floats, s[3 * lane]: conflict-free in four-byte mode, 2-way in eight-byte mode.
//! let stride3 = WarpRequest::from_fn(Op::Load, 4, |lane| Some(12 * lane.get()))?;
//! assert_eq!((four.wavefronts(&stride3)?, eight.wavefronts(&stride3)?), (1, 2));
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! # Example: a kernel's shared memory
//!
//! [`SharedMemory`] lays out a block's static arrays and its one
//! `extern __shared__` region as nvcc and the driver do, holds their bytes, and
//! partitions warp accesses at the arrays' real addresses.
//!
//! ```
//! use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
//!
//! // __shared__ float tile[32][33]; kernel<<<grid, block, 0>>>
//! let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
//! let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
//! let mut block = kernel.launch(0)?;
//! for row in 0..32 {
//!     block.warp_store(tile, |lane| Some((tile.index(row, lane.index()).ok()?, row as f32)), StoreOrder::Undefined)?;
//! }
//! // Reading a column of the padded tile is conflict-free.
//! let column = block.warp_load(tile, |lane| tile.index(lane.index(), 3).ok())?;
//! assert_eq!(column.partition().wavefronts(), 1);
//! assert_eq!(column.values()[31], Some(31.0));
//!
//! // What that costs in occupancy: 4224 bytes + 1 KB reserved -> 5248 a block.
//! let occupancy = block.launch().occupancy()?;
//! assert_eq!((occupancy.allocated_per_block(), occupancy.blocks_per_sm()), (5248, 32));
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! # Example: fixing a conflicting tile
//!
//! A [`TileLayout`] maps a tile's `(row, col)` to addresses, with padding or an
//! XOR [`Swizzle`]; a [`TileAccess`] names the elements a warp touches; the
//! advisor tries layouts and says why the original conflicts.
//!
//! ```
//! use smem_model::{BankConfig, ComputeCapability, Fix, Swizzle, TileAccess, TileLayout};
//!
//! let sm90 = BankConfig::new(ComputeCapability::Sm90);
//! // __shared__ float tile[32][32]; transposed in place, row i read, column i written.
//! let accesses: Vec<TileAccess> = (0..32).flat_map(TileAccess::transposed_copy).collect();
//! let advice = TileLayout::new(32, 32, 4)?.advise(sm90, &accesses)?;
//! assert_eq!(advice.original().wavefronts(), 1056); // each column write is 32-way
//! assert_eq!(advice.best().fix(), Fix::Swizzle(Swizzle::new(5, 0, 5)?)); // tile[r][c ^ r]
//! assert_eq!(advice.best().wavefronts(), 64);
//! // The classic advice, one float of padding per row, is the runner-up.
//! assert_eq!(TileLayout::column_padding(sm90, 4, 32)?, Some(1));
//! assert_eq!(advice.candidates()[1].fix(), Fix::Padding { elements: 1 });
//! println!("{advice}");
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! # Bad input
//!
//! Nothing panics on bad input: a misaligned address, a width that does not exist,
//! an access past the shared window or the 32-bit address space, an op the
//! capability lacks, a misaligned carve, a launch over the per-block limit, an
//! uninitialised read and a malformed corpus line are each an [`Error`] variant
//! whose message names the quantity and the limit.
//!
//! # Crate features
//!
//! - `serde`: `Serialize`/`Deserialize` for the public value types. Reading a
//!   value checks it as its constructor does and fails with the constructor's
//!   message (a lane of 32, eight-byte banks on sm_90, a misaligned request, a
//!   cost whose ideal wavefronts exceed its wavefronts); what a value derives
//!   from its other fields (a partition's transactions, a layout's offsets) is
//!   computed again, and must agree where it is given. A partition's steps
//!   and results computed only by the model (`Transaction`, `Advice`,
//!   `Candidate`, `BankConflict`, `PlacedArray`, `ArrayInfo`) serialise only;
//!   arena handles (`Array`) and arenas do not serialise.
//! - `corpus`: reading hardware corpora (the `corpus` module); implies `serde`, pulls `serde_json`.
//! - `proptest`: the `strategy` module, proptest strategies for downstream property tests.
//! - `trace`: reading Accel-Sim / NVBit traces into kernel events
//!   (`kernel::accelsim`); pulls memchr and liblzma (xz, built from its C
//!   sources).
//! - `ptx`: reading PTX modules (`kernel::ptx`: what nvcc, Triton and CUTLASS
//!   emit, as a syntax tree for the interpreter); no dependencies of its own.
//! - `cli`: the `smem` command-line tool and its dependencies; a library user
//!   needs none of them.

#![deny(missing_docs)]
// One audited module, `partition::simd`, allows `unsafe` for AVX2.
#![deny(unsafe_code)]

mod arena;
mod bank;
mod block;
mod capability;
mod constant;
#[cfg(feature = "corpus")]
pub mod corpus;
mod error;
pub mod kernel;
mod lane;
mod occupancy;
mod partition;
mod request;
#[cfg(feature = "serde")]
mod serde_impls;
#[cfg(feature = "proptest")]
pub mod strategy;
mod tile;
mod timing;

pub use arena::{
    Array, ArrayInfo, Double2, DynamicLayout, Element, ElementType, Float2, Float4, Int2, Int4,
    Origin, PlacedArray, SharedMemory, SharedMemoryBuilder, WarpLoad, WarpStore,
};
pub use bank::{Bank, BankConfig, BankIter, BankSet, BankWidth, Broadcast, SharedMemConfig};
pub use block::{
    AccessKind, BarrierError, BarrierFinding, Block, BlockReport, Hazard, HazardAccess,
    HazardFinding, HazardKind, KernelRaces, MbarrierMisuse, Racecheck, Severity, SyncOp, BARRIERS,
};
pub use capability::{Architecture, ComputeCapability};
pub use constant::{ConstantLoad, CONSTANT_BANK_SIZE};
pub use error::{Error, SharedAccessFault};
pub use lane::{Lane, LaneIter, LaneSet, WARP_SIZE};
pub use occupancy::{Carveout, Launch, Occupancy, OccupancyLimit, STATIC_SHARED_LIMIT};
pub use partition::{
    Classification, Cost, IntoTransactions, Partition, Transaction, Transactions, WordAccess,
};
pub use request::{
    AccessWidth, AtomicKind, CpAsync, Matrices, Op, OpName, StoreOrder, WarpRequest, WriteCollision,
};
pub use tile::{
    Advice, BankConflict, Candidate, Fix, Swizzle, TileAccess, TileLayout, TmaSwizzle, TritonShared,
};
pub use timing::Timing;

// The README's examples are compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
