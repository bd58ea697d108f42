//! The crate's one error type.

use crate::{AtomicKind, ComputeCapability, Op};

/// Everything that can go wrong when building or partitioning a request, or when
/// reading a corpus.
///
/// Each variant carries the numbers involved, and its message is one lowercase
/// sentence naming the quantity and the limit it broke. Nothing in the crate
/// panics on bad input: it returns one of these instead. The enum is
/// `#[non_exhaustive]`, so a `match` on it needs a catch-all arm.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Error, Matrices, Op, WarpRequest};
///
/// // `*(float*)((char*)s + 2 + 4 * lane)`: the hardware faults on this.
/// let err = WarpRequest::from_fn(Op::Load, 4, |lane| Some(2 + 4 * lane.get())).unwrap_err();
/// assert_eq!(err, Error::Misaligned { lane: 0, address: 2, width: 4 });
/// assert_eq!(
///     err.to_string(),
///     "misaligned address: lane 0 accesses 4 bytes at 0x2, which is not a multiple of 4"
/// );
///
/// // stmatrix on an A100: the request is fine, the capability lacks the op.
/// let stsm = WarpRequest::from_fn(Op::StMatrix(Matrices::X4), 16, |lane| Some(16 * lane.get()))?;
/// match BankConfig::new(ComputeCapability::Sm80).partition(&stsm) {
///     Err(Error::UnsupportedOp { required, .. }) => assert_eq!(required, ComputeCapability::Sm90),
///     other => panic!("expected UnsupportedOp, got {other:?}"),
/// }
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A compute-capability name that is malformed or names no capability.
    #[error(
        "unknown compute capability {given:?}: expected a version (\"8.6\", \"sm_86\", \
         \"sm86\", \"86\", \"compute_86\", \"sm_90a\"), a GPU (\"A100\", \"H100\", \
         \"RTX 4090\", ...) or an architecture (\"ampere\", \"hopper\", ...); the versions \
         are {}",
        crate::capability::known_versions()
    )]
    UnknownCapability {
        /// The text that was given.
        given: String,
    },

    /// An access width other than 1, 2, 4, 8 or 16 bytes.
    #[error("access width of {width} bytes is not supported: expected 1, 2, 4, 8 or 16")]
    InvalidWidth {
        /// The width given, in bytes.
        width: u32,
    },

    /// An operation that only exists with one access width was given another one
    /// (`atom.shared.inc` is 4 bytes, `ldmatrix`/`stmatrix` row addresses and
    /// `cp.async.cg` 16 bytes).
    #[error(
        "{op} accesses {expected} bytes per lane, but an access width of {width} bytes was given"
    )]
    WidthMismatch {
        /// The operation.
        op: Op,
        /// The width given, in bytes.
        width: u32,
        /// The only width the operation has, in bytes.
        expected: u32,
    },

    /// An op of several widths given another (`atom.shared.min` is 4 or 8
    /// bytes, `cp.async.ca` 4, 8 or 16).
    #[error("{op} has no {width}-byte form: it takes {} bytes per lane", widths_text(*op))]
    WidthUnavailable {
        /// The operation.
        op: Op,
        /// The width given, in bytes.
        width: u32,
    },

    /// `red.shared` of a kind PTX has only as `atom` (`exch`, `cas`).
    #[error("red.shared.{kind} does not exist: a reduction has no return value, and PTX has {kind} only as atom.shared.{kind}")]
    NoReduction {
        /// The kind.
        kind: AtomicKind,
    },

    /// A name that is not an atomic operation of PTX's `atom.shared`.
    #[error("unknown atomic operation {given:?}: expected add, add.f32, add.f64, exch, cas, min, max, inc, dec, and, or or xor (an integer type such as .u64 may follow)")]
    UnknownAtomic {
        /// The text that was given.
        given: String,
    },

    /// An op that the capability has at some widths but not at this one (64-bit
    /// shared atomics before 2.0, `add.f64` before 6.0, ...).
    #[error("{width}-byte {op} does not exist on compute capability {capability}: it needs {required} or later")]
    UnsupportedAccess {
        /// The operation.
        op: Op,
        /// The access width in bytes.
        width: u32,
        /// The capability that lacks it.
        capability: ComputeCapability,
        /// The first capability that has it.
        required: ComputeCapability,
    },

    /// A write collision read from data whose phase is not 8, 16 or 32 lanes.
    #[error("a store's phases are 8, 16 or 32 lanes, not {phase_lanes}")]
    CollisionPhase {
        /// The lanes per phase given.
        phase_lanes: u32,
    },

    /// Cycles asked of a capability whose timing was not measured: only
    /// sm_90 was ([`BankConfig::timing`](crate::BankConfig::timing)).
    #[error("timing was measured on compute capability 9.0 only: {capability} was not measured")]
    NotMeasured {
        /// The capability asked about.
        capability: ComputeCapability,
    },

    /// A line of a corpus longer than the reader's limit
    /// ([`corpus::MAX_LINE_BYTES`](crate::corpus::MAX_LINE_BYTES) for corpora).
    #[error("{source_name}:{line}: line longer than the {limit}-byte limit of a line")]
    LineTooLong {
        /// The file (or other source) the line came from.
        source_name: String,
        /// The line number, counting from 1.
        line: usize,
        /// The limit in bytes.
        limit: usize,
    },

    /// A lane's address is not a multiple of the access width: on hardware, the
    /// instruction faults with "misaligned address".
    #[error("misaligned address: lane {lane} accesses {width} bytes at {address:#x}, which is not a multiple of {width}")]
    Misaligned {
        /// The lane.
        lane: u8,
        /// Its byte address.
        address: u32,
        /// The access width in bytes.
        width: u32,
    },

    /// A lane's access runs past the end of the largest shared window a block of
    /// the capability can address. This is also how an access reaching past
    /// `u32::MAX` is reported: a naturally aligned access of a power-of-two width
    /// never wraps around 2^32, so the end is always representable as a `u64`.
    #[error(
        "lane {lane} accesses bytes {address:#x} to {end:#x}, past the end of the {window}-byte \
         shared window of compute capability {capability}"
    )]
    OutsideWindow {
        /// The lane.
        lane: u8,
        /// Its byte address.
        address: u32,
        /// One past the last byte it accesses.
        end: u64,
        /// The window size in bytes ([`ComputeCapability::shared_window_size`]).
        window: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// An operation the compute capability does not have.
    #[error(
        "{op} does not exist on compute capability {capability}: it needs {required} or later"
    )]
    UnsupportedOp {
        /// The operation.
        op: Op,
        /// The capability that lacks it.
        capability: ComputeCapability,
        /// The first capability that has it.
        required: ComputeCapability,
    },

    /// A request built from a slice or an iterator that did not hold 32 lanes.
    #[error("a warp has 32 lanes, but {given} addresses were given")]
    LaneCount {
        /// How many lanes were given.
        given: usize,
    },

    /// An op name that names no op (see [`OpName`](crate::OpName) for the
    /// grammar). `given` quotes at most a bounded prefix of the text.
    #[error(
        "unknown op {given:?}: expected LDS, STS, ATOMS[.KIND], RED.KIND, LDSM.xN[.trans], STSM.xN[.trans] or LDGSTS[.BYPASS] \
         (sizes and modifiers as SASS writes them: LDS.U.128, ATOMS.CAS.64, LDSM.16.MT88.4, LDGSTS.E.BYPASS.128), \
         PTX (ld.shared.v4.f32, atom.shared.cas.b64, red.shared.add.u32, ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16, \
         cp.async.cg.shared.global) or load, store, atom.KIND, red.KIND, ldmatrix.xN, stmatrix.xN, cp.async.ca, cp.async.cg \
         (KIND: add, add.f32, add.f64, exch, cas, min, max, inc, dec, and, or, xor; N: 1, 2, 4)"
    )]
    UnknownOp {
        /// The text that was given (a bounded prefix of it when long).
        given: String,
    },

    /// A request's access width other than the one its op's name gives
    /// (`atom.add.u64`, `LDS.128`, `ld.shared.v2.f32`; see
    /// [`OpName::with_width`](crate::OpName::with_width)).
    #[error(
        "the op's name gives {op} {named} bytes per lane, but an access width of {given} bytes was given"
    )]
    WidthContradicted {
        /// The op.
        op: Op,
        /// The width its name gives, in bytes.
        named: u32,
        /// The width given, in bytes.
        given: u32,
    },

    /// An active lane's generic address outside the shared window of
    /// [`WarpRequest::from_generic`](crate::WarpRequest::from_generic): below
    /// its base, or 4 GiB (the offsets a `u32` holds) or more above it.
    #[error(
        "lane {lane} accesses generic address {address:#x}, outside the 4 GiB shared window \
         that starts at {base:#x}"
    )]
    OutsideGenericWindow {
        /// The lane.
        lane: u8,
        /// Its generic address.
        address: u64,
        /// The generic address at which the shared window starts.
        base: u64,
    },

    /// A lane number of 32 or more.
    #[error("lane {lane} does not exist: a warp has lanes 0 to 31")]
    LaneOutOfRange {
        /// The lane number given.
        lane: u32,
    },

    /// A corpus record whose fields do not describe a request (an unknown op, an
    /// offset out of range, ...), before it is located in a file.
    #[error("{reason}")]
    InvalidRecord {
        /// What is wrong with it.
        reason: String,
    },

    /// A corpus line that could not be read, located in its file.
    #[error("{source_name}:{line}: {reason}")]
    MalformedRecord {
        /// The file (or other source) the line came from.
        source_name: String,
        /// The line number, counting from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },

    /// An element type whose size or alignment is not a power of two, or whose
    /// alignment exceeds its size.
    #[error("element type `{name}` has size {size} and alignment {align}: both must be powers of two, the alignment at most the size")]
    ElementSize {
        /// The type's name.
        name: String,
        /// Its size in bytes.
        size: u32,
        /// Its alignment in bytes.
        align: u32,
    },

    /// An array of zero elements.
    #[error("array `{name}` has zero elements")]
    EmptyArray {
        /// The array's name.
        name: String,
    },

    /// An array whose size in bytes does not fit the 32-bit shared address space.
    #[error("array `{name}` of {len} elements of {element_size} bytes overflows the 32-bit shared address space")]
    SizeOverflow {
        /// The array's name.
        name: String,
        /// Its number of elements.
        len: u64,
        /// The element size in bytes.
        element_size: u32,
    },

    /// Static shared memory over the static limit: nvcc refuses the kernel.
    #[error("{static_bytes} bytes of static shared memory exceed the {limit}-byte static limit of compute capability {capability}; use dynamic shared memory and opt in")]
    StaticTooLarge {
        /// Bytes of static shared memory (rounded up to 16).
        static_bytes: u32,
        /// The static limit in bytes.
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// An opt-in (`cudaFuncAttributeMaxDynamicSharedMemorySize`) above what the
    /// capability allows beside the kernel's static shared memory.
    #[error("opt-in of {requested} bytes of dynamic shared memory exceeds the {max} bytes compute capability {capability} allows beside {static_bytes} bytes of static shared memory")]
    OptInTooLarge {
        /// The attribute requested.
        requested: u32,
        /// The most it may be.
        max: u32,
        /// Bytes of static shared memory.
        static_bytes: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// Static + dynamic shared memory over the kernel's per-block limit: the
    /// launch fails.
    #[error("launch fails: {static_bytes} bytes of static and {dynamic_bytes} bytes of dynamic shared memory exceed the per-block limit of {limit} bytes on compute capability {capability}")]
    LaunchTooLarge {
        /// Bytes of static shared memory.
        static_bytes: u32,
        /// Bytes of dynamic shared memory.
        dynamic_bytes: u32,
        /// The kernel's per-block limit in bytes.
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// A carveout preference over 100 percent.
    #[error("carveout preference of {percent} percent is over 100")]
    CarveoutPercent {
        /// The percentage given.
        percent: u32,
    },

    /// A carved array that does not start aligned to its element type: on
    /// hardware, its first access faults with a misaligned address.
    #[error("misaligned carve: {element} array `{name}` would start at offset {offset} of the dynamic region, right after {previous_element} array `{previous}`, but {element} needs {align}-byte alignment; carve `{name}` before `{previous}`, or pad `{previous}` to {padded} bytes")]
    MisalignedCarve {
        /// The array being carved.
        name: String,
        /// Its element type.
        element: &'static str,
        /// Its offset from the start of the dynamic region.
        offset: u32,
        /// Its element type's alignment.
        align: u32,
        /// The array carved before it.
        previous: String,
        /// That array's element type.
        previous_element: &'static str,
        /// The size to pad the previous array to.
        padded: u32,
    },

    /// A carve (or extern array) larger than what is left of the dynamic region.
    #[error("array `{name}` needs {requested} bytes but only {available} bytes of the dynamic shared memory given at launch are left")]
    CarveTooLarge {
        /// The array.
        name: String,
        /// Bytes it needs.
        requested: u32,
        /// Bytes left.
        available: u32,
    },

    /// An index past the end of an array.
    #[error("index {index} is out of bounds for array `{array}` of {len} elements")]
    IndexOutOfBounds {
        /// The array.
        array: String,
        /// The index given.
        index: u64,
        /// The array's length.
        len: u64,
    },

    /// An array handle used with a `SharedMemory` it does not belong to.
    #[error("array handle from shared-memory arena {array_arena} used with arena {arena}")]
    ForeignArray {
        /// The arena the handle belongs to.
        array_arena: u64,
        /// The arena it was used with.
        arena: u64,
    },

    /// A read of shared memory never written (compute-sanitizer's `initcheck`).
    #[error(
        "uninitialized read: `{array}[{index}]` at shared address {address:#x} was never written"
    )]
    Uninitialized {
        /// The array.
        array: String,
        /// The element index.
        index: u64,
        /// Its shared address.
        address: u32,
    },

    /// A read of an element last written by several lanes of one store, whose
    /// value is any one of theirs.
    #[error("indeterminate read: `{array}[{index}]` was last written by {lanes} lanes of one store, and which write landed is undefined")]
    IndeterminateValue {
        /// The array.
        array: String,
        /// The element index.
        index: u64,
        /// How many lanes wrote it.
        lanes: u32,
    },

    /// A bank configuration for another capability than the arena's.
    #[error("bank configuration for compute capability {given} used with shared memory of compute capability {expected}")]
    CapabilityMismatch {
        /// The arena's capability.
        expected: ComputeCapability,
        /// The configuration's.
        given: ComputeCapability,
    },

    /// A swizzle whose two bit ranges overlap: the shift is smaller than the
    /// number of bits XORed (CuTe's `Swizzle<B, M, S>` requires `S >= B`).
    #[error("swizzle bit ranges overlap: a shift of {shift} is less than the {bits} bits XORed")]
    SwizzleOverlap {
        /// Bits XORed (`B`).
        bits: u32,
        /// The distance between the two ranges (`S`).
        shift: u32,
    },

    /// A swizzle that reads bits past the 32-bit offset.
    #[error("swizzle of {bits} bits at base {base} with shift {shift} reaches past bit 32 of the offset: base + shift + bits must be at most 32")]
    SwizzleWidth {
        /// Bits XORed (`B`).
        bits: u32,
        /// The lowest bit changed (`M`).
        base: u32,
        /// The distance between the two ranges (`S`).
        shift: u32,
    },

    /// A tile with no rows or no columns.
    #[error("tile of {rows} rows and {cols} columns has no elements")]
    EmptyTile {
        /// Rows given.
        rows: u32,
        /// Columns given.
        cols: u32,
    },

    /// A row pitch shorter than the row it holds.
    #[error("row pitch of {pitch} elements is smaller than the row of {cols} elements")]
    PitchTooSmall {
        /// The pitch given, in elements.
        pitch: u32,
        /// Elements in a row.
        cols: u32,
    },

    /// Bytes that run past the end of the 32-bit shared address space: a tile
    /// at its base, or the lanes of a strided access.
    #[error("{bytes} bytes from {base:#x} run past the end of the 32-bit shared address space")]
    SpanOverflow {
        /// The first byte.
        base: u32,
        /// How many bytes the span needs.
        bytes: u64,
    },

    /// A swizzle that would move elements of the tile out of its storage.
    #[error("swizzle permutes aligned blocks of {block} elements, but the tile's storage of {elements} elements is not a whole number of blocks")]
    SwizzleTile {
        /// Elements a swizzle permutes among themselves (`2^(M + B)`).
        block: u64,
        /// Elements of the tile's storage (rows times pitch).
        elements: u64,
    },

    /// Column tiles that do not divide the tile's row, or on a padded tile.
    #[error("column tiles of {tile_cols} columns on a tile of {cols} columns with {padding} elements of padding a row: the tiles must divide the row and the tile be packed")]
    ColumnTiles {
        /// The tile's columns.
        cols: u32,
        /// Columns a column tile was to hold.
        tile_cols: u32,
        /// The tile's padding, in elements a row.
        padding: u32,
    },

    /// A TMA swizzle on rows longer than its span: `cuTensorMapEncodeTiled`
    /// requires the inner box dimension, in bytes, to fit the swizzle span.
    #[error("rows of {row_bytes} bytes are longer than the {span}-byte span of the TMA swizzle")]
    TmaRowTooLong {
        /// Bytes per row (the pitch).
        row_bytes: u64,
        /// The swizzle span in bytes: 32, 64 or 128.
        span: u32,
    },

    /// A tile larger than the shared memory one block of the capability can have.
    #[error("tile of {bytes} bytes exceeds the {limit}-byte per-block shared memory of compute capability {capability}")]
    TileTooLarge {
        /// The tile's bytes, padding included.
        bytes: u64,
        /// [`ComputeCapability::max_shared_memory_per_block`].
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// An access to an element outside a tile.
    #[error(
        "element (row {row}, column {col}) is outside the tile of {rows} rows and {cols} columns"
    )]
    OutsideTile {
        /// The element's row.
        row: u32,
        /// The element's column.
        col: u32,
        /// The tile's rows.
        rows: u32,
        /// The tile's columns.
        cols: u32,
    },

    /// A lane's vector of elements that a swizzle does not keep contiguous, so
    /// that no single access can move it.
    #[error("the {vector} elements from row {row}, column {col} are not contiguous in the swizzled layout, so one lane cannot access them at once")]
    VectorSplit {
        /// The row.
        row: u32,
        /// The first column.
        col: u32,
        /// Elements in the vector.
        vector: u32,
    },

    /// Occupancy by threads and registers asked of a capability before 3.0,
    /// where registers were allocated per block and which the CUDA 13
    /// occupancy calculator no longer knows.
    #[error("occupancy by threads and registers is not modelled for compute capability {capability}: the model starts at 3.0")]
    ThreadOccupancyNotModelled {
        /// The capability.
        capability: ComputeCapability,
    },

    /// More registers a thread than the capability allows.
    #[error("{registers} registers a thread exceed the {limit} a thread of compute capability {capability} may use")]
    RegistersPerThread {
        /// The registers given.
        registers: u32,
        /// [`ComputeCapability::max_registers_per_thread`].
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// A block whose registers exceed the per-block limit: the launch fails
    /// ("too many resources requested for launch").
    #[error("a block of {threads} threads of {registers} registers is allocated {allocated} registers, more than the {limit} a block of compute capability {capability} may hold: the launch fails")]
    RegistersPerBlock {
        /// Threads in the block.
        threads: u32,
        /// Registers a thread.
        registers: u32,
        /// Registers the block is allocated (warps rounded up to the register
        /// partitions, as `cuda_occupancy.h` checks it).
        allocated: u32,
        /// [`ComputeCapability::max_registers_per_block`].
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// A Triton shared-encoding parameter that is not a power of two.
    #[error("Triton's {name} must be a power of two up to 65536, not {value}")]
    TritonParameter {
        /// `vec`, `perPhase` or `maxPhase`.
        name: &'static str,
        /// The value given.
        value: u32,
    },

    /// A Triton shared encoding on a row that is not a power of two long.
    #[error("Triton's shared encodings need a power-of-two number of columns, not {cols}")]
    TritonShape {
        /// The columns given.
        cols: u32,
    },

    /// A Triton shared encoding on a padded tile.
    #[error("Triton's shared encodings have no padding, but the tile has {padding} elements of it per row")]
    TritonPadded {
        /// Elements of padding per row.
        padding: u32,
    },

    /// An NVMMA swizzle width Triton does not have.
    #[error("NVMMA swizzle width of {bytes} bytes: expected 0, 32, 64 or 128")]
    NvmmaSwizzle {
        /// The width given.
        bytes: u32,
    },

    /// An NVMMA-swizzled tile whose rows are shorter than the swizzle's
    /// width, which Triton refuses (`getTMABlockShape`: "Block shape is too
    /// small for the swizzle byte size").
    #[error("rows of {row_bytes} bytes are narrower than the {swizzle_bytes}-byte NVMMA swizzle, which Triton refuses: give rows of at least {swizzle_bytes} bytes")]
    NvmmaRow {
        /// Bytes per row.
        row_bytes: u64,
        /// The swizzle width.
        swizzle_bytes: u32,
    },

    /// A number of warps an SM cannot hold, asked of a timing.
    #[error("{warps} warps on one SM: an SM of compute capability 9.0 holds 1 to {limit}")]
    WarpsPerSm {
        /// The warps given.
        warps: u32,
        /// The most an SM holds.
        limit: u32,
    },

    /// A tile that is not a whole number of `ldmatrix`/`stmatrix` matrices:
    /// each is 8 rows of 16 bytes.
    #[error("a tile of {rows} rows and {cols} columns is not a whole number of ldmatrix matrices of 8 rows and {matrix_cols} columns (16 bytes of {element_bytes}-byte elements)")]
    MatrixTile {
        /// The tile's rows.
        rows: u32,
        /// The tile's columns.
        cols: u32,
        /// Columns of one matrix: `16 / element_bytes`.
        matrix_cols: u32,
        /// The element size in bytes.
        element_bytes: u32,
    },

    /// An entry of a `row,bank` list that is not two numbers.
    #[error("entry {entry} of the bank list, {text:?}, is not a pair of numbers `row,bank`")]
    BankListSyntax {
        /// The entry, counting from 0: the lane it is for.
        entry: usize,
        /// Its text.
        text: String,
    },

    /// A bank number the configuration does not have.
    #[error("bank {bank} does not exist: the configuration has {banks} banks")]
    BankOutOfRange {
        /// The bank given.
        bank: u32,
        /// The configuration's bank count.
        banks: u32,
    },

    /// A bank width the capability does not have: only 3.x (Kepler) has
    /// 8-byte banks, in eight-byte mode. Reading a
    /// [`BankConfig`](crate::BankConfig) with serde reports it.
    #[error("compute capability {capability} has no {width}-byte banks: only 3.x has 8-byte banks (in eight-byte mode), every capability 4-byte banks")]
    BankWidthUnsupported {
        /// The bank width given, in bytes.
        width: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// Counts that no request has: the ideal wavefronts or the ways above the
    /// wavefronts, or zero where the wavefronts are not (or the reverse).
    /// Reading a [`Cost`](crate::Cost) with serde reports it.
    #[error("a cost of {wavefronts} wavefronts cannot have {ideal_wavefronts} ideal wavefronts and {ways} ways: each must be at most the wavefronts, and zero exactly when they are")]
    InvalidCost {
        /// The wavefronts given.
        wavefronts: u32,
        /// The ideal wavefronts given.
        ideal_wavefronts: u32,
        /// The ways given.
        ways: u32,
    },

    /// A [`Cost`](crate::Cost) whose load wavefronts and instructions are
    /// neither one instruction's (no loads) nor a compare-and-swap loop's (at
    /// least one load wavefront and two tries' wavefronts a round), or a loop
    /// said to be hidden from Nsight. Reading a `Cost` with serde reports it.
    #[error("a cost of {wavefronts} wavefronts with {load_wavefronts} load wavefronts and {instructions} instructions is neither one instruction without loads nor a compare-and-swap loop (at least 1 load wavefront and 2 wavefronts a round)")]
    InvalidLoopCost {
        /// The (ATOMS) wavefronts given.
        wavefronts: u32,
        /// The load wavefronts given.
        load_wavefronts: u32,
        /// The instructions (rounds) given.
        instructions: u32,
    },

    /// A compare-and-swap loop's round asked of an op that is not such a loop
    /// at its width ([`Op::is_cas_loop`](crate::Op::is_cas_loop)):
    /// [`BankConfig::cas_round_cost`](crate::BankConfig::cas_round_cost).
    #[error("{width}-byte {op} is not a compare-and-swap loop, so it has no rounds: only add.f32, add.f64 and the 64-bit atomics other than exch and cas are")]
    NotCasLoop {
        /// The op given.
        op: crate::Op,
        /// Its bytes per lane.
        width: u32,
    },

    /// A write collision of fewer than two lanes. Reading a
    /// [`WriteCollision`](crate::WriteCollision) with serde reports it.
    #[error("a write collision needs at least 2 lanes, but {lanes} were given")]
    CollisionLanes {
        /// The number of lanes given.
        lanes: u32,
    },

    /// Blocks per SM that the carveout and the allocation per block do not
    /// give. Reading an [`Occupancy`](crate::Occupancy) with serde reports it.
    #[error("{blocks} blocks per SM of {allocated} bytes each do not match a carveout of {carveout} bytes: shared memory bounds the blocks at carveout / allocation, the blocks-per-SM limit at that or fewer")]
    InvalidOccupancy {
        /// Blocks per SM given.
        blocks: u32,
        /// Bytes allocated per block.
        allocated: u32,
        /// The carveout in bytes.
        carveout: u32,
    },

    /// A quantity that a value derives from its other fields, given with
    /// another value (a partition's wavefronts, an array's offset in a layout).
    /// Reading such a value with serde reports it.
    #[error("{quantity}: {given} given, but {computed} computed from the rest of the value")]
    Inconsistent {
        /// What the quantity is.
        quantity: &'static str,
        /// The value given.
        given: u64,
        /// The value computed.
        computed: u64,
    },

    /// A `[row][col]` subscript past the shape of a 2-D array.
    #[error("subscript [{row}][{col}] is out of bounds for an array of {rows} x {cols} elements")]
    SubscriptOutOfBounds {
        /// The row given.
        row: u64,
        /// The column given.
        col: u64,
        /// The array's rows.
        rows: u32,
        /// The array's columns.
        cols: u32,
    },
    /// A thread block of no threads or of more than 1024 (the per-block limit of
    /// every compute capability from 2.0 on; 1.x allows 512).
    #[error("a block of {threads} threads is not possible on compute capability {capability}: expected 1 to {limit}")]
    BlockThreads {
        /// The threads given.
        threads: u32,
        /// The most a block of the capability can have.
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// A warp number past the block's last warp.
    #[error("warp {warp} does not exist: the block has {warps} warps, numbered from 0")]
    WarpOutOfRange {
        /// The warp given.
        warp: u32,
        /// The block's number of warps.
        warps: u32,
    },

    /// A named barrier past the 16 that a block has (PTX ISA, `bar.sync`).
    #[error("barrier {id} does not exist: a block has barriers 0 to 15")]
    BarrierId {
        /// The barrier given.
        id: u32,
    },

    /// A named barrier's thread count that is zero, not a multiple of the warp
    /// size (PTX ISA, `bar.sync`), or larger than the block.
    #[error("barrier {id} waits for {count} threads: the count must be a nonzero multiple of 32 of at most the block's {block_threads} threads (its warps times 32)")]
    BarrierCount {
        /// The barrier.
        id: u32,
        /// The thread count given.
        count: u32,
        /// The block's threads, rounded up to whole warps.
        block_threads: u32,
    },

    /// More instructions waiting behind barriers that other warps have not yet
    /// reached than the block model holds.
    #[error("{pending} instructions wait behind barriers that other warps have not reached: a block holds at most {limit}")]
    BlockBacklog {
        /// Instructions waiting.
        pending: usize,
        /// The most the model holds ([`Block::MAX_PENDING`](crate::Block::MAX_PENDING)).
        limit: usize,
    },

    /// A block whose thread count (`blockDim.x * blockDim.y * blockDim.z`,
    /// computed without overflow) is zero or more than a block can have.
    #[error("a block of {} x {} x {} = {threads} threads is not possible on compute capability {capability}: expected 1 to {limit}", dim[0], dim[1], dim[2])]
    BlockShape {
        /// The block's dimensions, x, y, z.
        dim: [u32; 3],
        /// Their product.
        threads: u64,
        /// The most a block of the capability can have.
        limit: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// A block whose size no source gave holds more events than
    /// [`Racecheck::MAX_HELD`](crate::Racecheck::MAX_HELD) before its end.
    #[error("a block of unknown size (no thread count for it or its kernel) has {events} events before its end: at most {limit} are held")]
    BlockUnsized {
        /// Events so far.
        events: usize,
        /// The most held.
        limit: usize,
    },

    /// A block whose accesses between two barriers of the whole block need
    /// more shadow records than the block model holds (one per word,
    /// instruction, kind of access and set of warps in step;
    /// [`Block`](crate::Block) says the bound).
    #[error("a block's accesses between two barriers of all its warps need more than {limit} shadow records (one per 4-byte word, instruction, kind of access and set of warps in step): not modelled")]
    ShadowFull {
        /// The most the model holds.
        limit: usize,
    },

    /// A warp committed more `cp.async` groups than it waited for, past the
    /// race checker's bound
    /// ([`Block::MAX_OPEN_GROUPS`](crate::Block::MAX_OPEN_GROUPS)): each open
    /// group keeps its copies' records pending, and a loop that commits
    /// groups and never waits would grow them without end.
    #[error("warp {warp} has {groups} cp.async groups committed and not waited for (cp.async.wait_group / wait_all), more than the {limit} the race checker follows: not modelled")]
    OpenCopyGroups {
        /// The warp, in its block.
        warp: u32,
        /// Its groups committed and not waited for.
        groups: u32,
        /// The most the model follows.
        limit: u32,
    },

    /// A constant-memory load that reads past the 64 KB constant bank.
    #[error("lane {lane} reads constant bytes {address:#x} to {end:#x}, past the end of the {limit}-byte constant bank")]
    OutsideConstantBank {
        /// The lane.
        lane: u8,
        /// Its byte address (offset in the bank).
        address: u32,
        /// One past the last byte it reads.
        end: u64,
        /// The bank size in bytes (65536).
        limit: u32,
    },

    /// A cluster shape the launch cannot have: a dimension 0 or not
    /// dividing the grid's, or more than 8 blocks
    /// ([`KernelLaunch::with_cluster`](crate::kernel::ptx::KernelLaunch::with_cluster)).
    #[error(
        "clusters of {cluster:?} blocks do not fit a grid of {grid:?}: each dimension must \
         divide the grid's, at most 8 blocks in all"
    )]
    ClusterDims {
        /// The cluster given.
        cluster: [u32; 3],
        /// The grid.
        grid: [u32; 3],
    },

    /// A tensor map's fields that cannot be read, or that
    /// `cuTensorMapEncodeTiled` would refuse
    /// ([`TensorMap`](crate::kernel::ptx::TensorMap)).
    #[error("tensor map field {field}: {reason}")]
    TensorMap {
        /// The field (`dims`, `box`, `elem`, `swizzle`, ...).
        field: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A kernel argument that is not `NAME=VALUE` or `INDEX=VALUE`.
    #[error("kernel argument {given:?} is not NAME=VALUE or INDEX=VALUE")]
    KernelArgSyntax {
        /// The text given.
        given: String,
    },

    /// A kernel argument for a parameter the kernel does not have.
    #[error("the kernel has no parameter {given}: its parameters are {params}")]
    UnknownKernelParam {
        /// The name or index given.
        given: String,
        /// The kernel's parameters, `index: name` in order.
        params: String,
    },

    /// A kernel argument whose value does not read as its parameter's type or
    /// does not fit it.
    #[error("value {value} of kernel parameter {name} does not read as {kind}")]
    KernelArgValue {
        /// The parameter.
        name: String,
        /// The value given.
        value: String,
        /// The parameter's type.
        kind: String,
    },

    /// Scalar kernel parameters without a value, all of them named at once:
    /// each may decide the kernel's shared accesses, so none is guessed.
    #[error(
        "kernel parameter{} {params} {} no value: scalar parameters must be given",
        if *count == 1 { "" } else { "s" },
        if *count == 1 { "has" } else { "have" }
    )]
    UnsetKernelParam {
        /// How many are unset.
        count: usize,
        /// Each as `index (name, type)`, comma-separated (at most eight, then
        /// how many more).
        params: String,
    },

    /// Two arguments for the same kernel parameter (by name and by index, or
    /// twice by either): which one was meant is not guessed.
    #[error("kernel parameter {index} ({name}) is given twice: give each argument once")]
    DuplicateKernelArg {
        /// Its 0-based position.
        index: usize,
        /// Its name.
        name: String,
    },

    /// A Triton `constexpr` given as a kernel argument: Triton compiled its
    /// value into the PTX, so the launch has no parameter for it.
    #[error(
        "{name} is a constexpr of the Triton kernel: its value is compiled into the PTX \
         (recompile to change it), it is not a launch argument"
    )]
    ConstexprKernelArg {
        /// The argument's name.
        name: String,
    },

    /// A kernel name that matches several kernels of the module (a prefix, or
    /// a C++ name with several overloads).
    #[error(
        "{name} matches {count} kernels: {kernels}; give more of the name, or the mangled name"
    )]
    AmbiguousKernel {
        /// The name given.
        name: String,
        /// How many kernels it matches.
        count: usize,
        /// Those kernels (at most eight, then how many more).
        kernels: String,
    },

    /// A kernel input (a `.cu`, `.ptx`, Triton cache directory or metadata)
    /// that cannot be read or turned into PTX, with why and, where there is
    /// one, what to do.
    #[error("{path}: {reason}")]
    KernelInput {
        /// The path given.
        path: String,
        /// What is wrong.
        reason: String,
    },

    /// A run stopped from outside (Python's Ctrl-C) before it finished.
    #[error("interrupted")]
    Interrupted,

    /// A launch the GPU refuses: a zero dimension, a grid or block
    /// dimension past CUDA's limit, or a block of more than 1024 threads.
    #[error("launch of grid {}x{}x{} and block {}x{}x{}: every dimension must be at least 1, the grid at most 2147483647x65535x65535 blocks and the block at most 1024x1024x64 threads, 1024 in all", grid[0], grid[1], grid[2], block[0], block[1], block[2])]
    LaunchDims {
        /// Blocks in x, y, z.
        grid: [u32; 3],
        /// Threads per block in x, y, z.
        block: [u32; 3],
    },

    /// Grid or block dimensions that are not `X[,Y[,Z]]`.
    #[error("dimensions {given:?} are not X[,Y[,Z]] of positive integers")]
    DimsSyntax {
        /// The text given.
        given: String,
    },

    /// A sample of 0 blocks (`--sample 0`): nothing would run.
    #[error("a sample of 0 blocks runs nothing: give at least 1")]
    EmptySample,

    /// A launch whose block is not the kernel's `.reqntid`: the driver
    /// refuses it (`CUDA_ERROR_INVALID_VALUE`; measured on an H200,
    /// tests/data/ncu/probes.txt: `.reqntid 64` refuses 32x1x1, 128x1x1 and
    /// 32x2x1).
    #[error(
        "launch refused: block {}x{}x{} is not the kernel's .reqntid {}x{}x{} (the driver \
         refuses any other block: CUDA_ERROR_INVALID_VALUE)",
        block[0], block[1], block[2], reqntid[0], reqntid[1], reqntid[2]
    )]
    LaunchReqntid {
        /// The block given.
        block: [u32; 3],
        /// The kernel's `.reqntid`, missing dimensions 1.
        reqntid: [u32; 3],
    },

    /// A launch whose block has more threads than the kernel's `.maxntid`
    /// allows: the driver refuses it (`CUDA_ERROR_INVALID_VALUE`; measured on
    /// an H200: `.maxntid 64` refuses 128x1x1, accepts 32x2x1).
    #[error(
        "launch refused: block {}x{}x{} has {threads} threads, more than the {max} the kernel's \
         .maxntid {}x{}x{} allows (CUDA_ERROR_INVALID_VALUE)",
        block[0], block[1], block[2], maxntid[0], maxntid[1], maxntid[2]
    )]
    LaunchMaxntid {
        /// The block given.
        block: [u32; 3],
        /// Its threads.
        threads: u32,
        /// The kernel's `.maxntid`, missing dimensions 1.
        maxntid: [u32; 3],
        /// The product of `maxntid`.
        max: u64,
    },

    /// A shared access past the block's shared memory (its static plus
    /// dynamic bytes), which the GPU faults on, reported as
    /// compute-sanitizer's memcheck reports it ([`SharedAccessFault`]).
    #[error("{0}")]
    SharedOutOfBounds(Box<SharedAccessFault>),

    /// A trace line that cannot be read, or a trace file that cannot (feature
    /// `trace`, [`kernel::accelsim`](crate::kernel::accelsim)). `line` is 0
    /// when the file could not be opened or read at all; `whole_file` says
    /// that the rest of the file is not read.
    #[error("{}", trace_message(source_name, *line, *whole_file, reason))]
    Trace {
        /// The file (`<stdin>` for standard input).
        source_name: String,
        /// The line, from 1; 0 for the file itself.
        line: u64,
        /// Whether the rest of the file is skipped.
        whole_file: bool,
        /// What is wrong.
        reason: String,
    },

    /// An Nsight Compute CSV export that does not read as one (feature `ncu`,
    /// [`kernel::ncu::profile`](crate::kernel::ncu::profile)): the line of the
    /// file (0 for the file as a whole) and what is wrong.
    #[error("{}", ncu_csv_text(*line, reason))]
    NcuCsv {
        /// The line, from 1; 0 for the whole file.
        line: u64,
        /// What is wrong.
        reason: String,
    },

    /// A counter the comparison needs that the export of the launch does not
    /// hold, or holds as something other than a count (feature `ncu`).
    #[error(
        "the Nsight Compute export of launch {launch} has {}: profile with \
         ncu --metrics {metrics}",
        if value.is_empty() { format!("no counter {counter}") } else { format!("{counter} = {value:?}, not a count") }
    )]
    NcuCounter {
        /// The launch's ID in the export.
        launch: u64,
        /// The counter.
        counter: String,
        /// What the export holds for it (empty: nothing).
        value: String,
        /// The counters to profile with, comma-separated.
        metrics: String,
    },

    /// No launch, or several, in an Nsight Compute export match the kernel
    /// and launch compared (feature `ncu`).
    #[error("{}", ncu_launch_text(kernel, *matching, found))]
    NcuLaunch {
        /// The kernel's name (as the PTX gives it).
        kernel: String,
        /// How many launches match.
        matching: usize,
        /// The launches of the export, `ID name grid block` each, `; `-separated.
        found: String,
    },

    /// The GPU an Nsight Compute export of the launch was measured on (its
    /// compute capability column) is not the one the launch is predicted
    /// for (feature `ncu`): the capability given (`--arch`) differs, or the
    /// PTX's `.target` does not run on it.
    #[error(
        "{}",
        ncu_capability_text((*measured_major, *measured_minor), (*other_major, *other_minor), target)
    )]
    NcuCapability {
        /// The export's compute capability, major version.
        measured_major: u32,
        /// The export's compute capability, minor version.
        measured_minor: u32,
        /// The capability given, or the PTX's `.target`'s, major version.
        other_major: u32,
        /// The capability given, or the PTX's `.target`'s, minor version.
        other_minor: u32,
        /// The PTX's `.target` as written (`sm_90a`) when it is the other;
        /// empty for a capability given.
        target: String,
    },

    /// The worker threads of a parallel reading
    /// ([`kernel::accelsim::parallel`](crate::kernel::accelsim::parallel))
    /// could not be started, or one failed (a bug: its panic's message and
    /// where in the input it was are in `reason`).
    #[error("{reason}")]
    Threads {
        /// What happened.
        reason: String,
    },

    /// PTX text that does not read as PTX
    /// ([`kernel::ptx::parse`](crate::kernel::ptx::parse)): what was expected
    /// at a line and column, and the start of what was found there.
    #[error("PTX line {line}, column {column}: expected {expected}, found {found}")]
    PtxSyntax {
        /// The line, counting from 1.
        line: usize,
        /// The column in characters, counting from 1.
        column: usize,
        /// What the reader expected there.
        expected: String,
        /// The text found, quoted and cut to its first 32 characters, or
        /// "end of input".
        found: String,
    },

    /// A kernel name the PTX module does not define, or none given for a
    /// module of several kernels.
    #[error("{}", no_kernel_text(name, kernels))]
    NoKernel {
        /// The name given (empty: none given).
        name: String,
        /// The module's kernels, comma-separated.
        kernels: String,
    },

    /// A thread block that ran more warp instructions than its step budget: a
    /// loop that does not end on the launch's values, or a budget too small.
    #[error("a block ran past its step budget of {budget} warp instructions (stopped at {inst}, PTX line {ptx_line}{}): a loop that does not end on this launch's values?", source_line_text(*line))]
    StepBudget {
        /// The budget.
        budget: u64,
        /// The PTX line of the instruction it stopped at.
        ptx_line: u64,
        /// Its source line, from the PTX's `.loc` (0: the PTX has none; the
        /// message then names the PTX line only).
        line: u32,
        /// That instruction's opcode.
        inst: String,
    },

    /// A launch whose blocks together run more warp instructions than the
    /// run's budget (`RunOptions::with_run_budget`, `smem kernel --budget`),
    /// found as soon as the steps so far and the least the blocks left can
    /// cost exceed it.
    #[error("the launch needs more than the run's budget of {budget} warp instructions: at least {at_least} {}; give a larger budget (smem kernel --budget) or run a sample of the blocks (--sample)", run_budget_text(*warp_instructions, *blocks_done, *blocks))]
    RunBudget {
        /// The budget.
        budget: u64,
        /// Blocks run when it was found.
        blocks_done: u64,
        /// Blocks the run was to run.
        blocks: u64,
        /// Warp instructions those blocks ran.
        warp_instructions: u64,
        /// The least the whole run can take (saturating).
        at_least: u64,
    },

    /// Calls nested deeper than the interpreter follows (a recursion).
    #[error(
        "calls nested {depth} deep at {function}: recursion is not modelled past {depth} frames"
    )]
    CallDepth {
        /// The limit.
        depth: u32,
        /// The function called at the limit.
        function: String,
    },

    /// A block whose registers and param space would take more of the
    /// interpreter's memory than its limit (what a function declares is
    /// allocated for every warp): not modelled.
    #[error(
        "not modelled: {function}'s registers and param space take {bytes} bytes for a block of {warps} warps, past the interpreter's limit of {limit} bytes"
    )]
    InterpreterState {
        /// The function entered (the kernel, or a function it calls).
        function: String,
        /// The bytes the block's warps would hold.
        bytes: u64,
        /// The limit.
        limit: u64,
        /// The block's warps.
        warps: u32,
    },

    /// A PTX instruction whose shared access is invalid (a misaligned
    /// address), with the instruction and its source line.
    #[error("{inst} at source line {line}: {error}")]
    PtxInstruction {
        /// The opcode.
        inst: String,
        /// Its source line (0: unknown).
        line: u32,
        /// What is wrong.
        error: Box<Error>,
    },
}

/// The message of [`Error::NcuCsv`].
fn ncu_csv_text(line: u64, reason: &str) -> String {
    if line == 0 {
        format!("Nsight Compute CSV export: {reason}")
    } else {
        format!("Nsight Compute CSV export, line {line}: {reason}")
    }
}

/// The message of [`Error::NcuCapability`].
fn ncu_capability_text(measured: (u32, u32), other: (u32, u32), target: &str) -> String {
    let (major, minor) = measured;
    if target.is_empty() {
        format!(
            "the Nsight Compute export was measured on compute capability {major}.{minor}, not \
             the {}.{} given (--arch, Python arch=): leave it out to predict for the GPU \
             measured",
            other.0, other.1
        )
    } else {
        format!(
            "the Nsight Compute export was measured on compute capability {major}.{minor}, \
             which does not run this PTX (.target {target}; PTX for sm_XY runs from XY on, \
             sm_XYa only on XY, sm_XYf on XY's major version from XY on): compare with the \
             export of a launch of this PTX"
        )
    }
}

/// The message of [`Error::NcuLaunch`].
fn ncu_launch_text(kernel: &str, matching: usize, found: &str) -> String {
    let found = if found.is_empty() { "none" } else { found };
    if matching == 0 {
        format!(
            "no launch of {kernel} with this grid and block in the Nsight Compute export; its \
             launches: {found}"
        )
    } else {
        format!(
            "{matching} launches of {kernel} with this grid and block in the Nsight Compute \
             export: choose one by its ID (smem kernel --ncu-id, Python ncu_id=); they are: \
             {found}"
        )
    }
}

/// The message of [`Error::NoKernel`].
/// `, source line N`, or nothing for line 0 (unknown: no `.loc`).
fn run_budget_text(steps: u64, done: u64, blocks: u64) -> String {
    if done == 0 {
        format!("for its {blocks} blocks")
    } else {
        format!("({steps} in its first {done} of {blocks} blocks)")
    }
}

fn source_line_text(line: u32) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(", source line {line}")
    }
}

fn no_kernel_text(name: &str, kernels: &str) -> String {
    let list = if kernels.is_empty() { "none" } else { kernels };
    if name.is_empty() {
        format!(
            "the PTX module has several kernels or none, so one must be named: its kernels are \
             {list}"
        )
    } else {
        format!("the PTX module has no kernel named {name}: its kernels are {list}")
    }
}

/// The message of [`Error::Trace`]: `FILE:LINE: reason`, `cannot read FILE:
/// reason` for a file that cannot be read, `FILE: reason` for one that stops.
fn trace_message(name: &str, line: u64, whole_file: bool, reason: &str) -> String {
    if line == 0 {
        format!("cannot read {name}: {reason}")
    } else if whole_file {
        format!("{name}: {reason}")
    } else {
        format!("{name}:{line}: {reason}")
    }
}

/// The widths of `op` for a message: "4 or 8", "4, 8 or 16".
fn widths_text(op: Op) -> String {
    let widths: Vec<String> = op.widths().iter().map(|w| w.bytes().to_string()).collect();
    match widths.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The most bytes of an input an error quotes.
const QUOTED: usize = 64;

/// `text` as an error quotes it: whole when short, else its first 64 bytes
/// (cut at a character boundary), `...` and its length, so a 10 MB name
/// makes a short message and a small error.
pub(crate) fn bounded(text: &str) -> String {
    if text.len() <= QUOTED {
        return text.to_owned();
    }
    let mut end = QUOTED;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len())
}

/// A shared access past the block's shared memory (its static plus dynamic
/// bytes), which the GPU faults on: what [`Error::SharedOutOfBounds`] holds,
/// shown as compute-sanitizer's memcheck shows it (measured on an H200,
/// tests/data/ncu/probes.txt: "Invalid __shared__ write of size 4 bytes ...
/// by thread (32,0,0) in block (0,0,0) ... Access to 0x4c0 is out of
/// bounds"; without memcheck the launch fails with
/// `cudaErrorIllegalAddress`). `address` is the shared-window address, after
/// the driver's reserved bytes, as memcheck prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SharedAccessFault {
    /// `read`, `write` or `atomic`.
    pub access: &'static str,
    /// Bytes the lane accesses.
    pub size: u32,
    /// The opcode.
    pub inst: String,
    /// Its line in the PTX file.
    pub ptx_line: u64,
    /// Its source file (the name only) and line, from `.loc`.
    pub source_line: Option<String>,
    /// The thread of the first lane out of bounds.
    pub thread: [u32; 3],
    /// The block.
    pub block: [u32; 3],
    /// The address it accesses.
    pub address: u64,
    /// Where the block's shared memory starts (after the reserved bytes).
    pub start: u64,
    /// Its size: static plus dynamic bytes.
    pub shared_bytes: u64,
    /// How many of the warp's lanes access out of bounds.
    pub lanes: u32,
}

impl core::fmt::Display for SharedAccessFault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [tx, ty, tz] = self.thread;
        let [bx, by, bz] = self.block;
        write!(
            f,
            "invalid __shared__ {} of size {} bytes at {}, PTX line {}",
            self.access, self.size, self.inst, self.ptx_line
        )?;
        if let Some(source) = &self.source_line {
            write!(f, " ({source})")?;
        }
        write!(
            f,
            ", by thread ({tx},{ty},{tz}) in block ({bx},{by},{bz}): access to {:#x} is out of \
             bounds (the block's shared memory is {:#x} to {:#x}: {} bytes, static and dynamic)",
            self.address,
            self.start,
            self.start + self.shared_bytes,
            self.shared_bytes
        )?;
        if self.lanes > 1 {
            write!(f, "; {} lanes of its warp are out of bounds", self.lanes)?;
        }
        Ok(())
    }
}
