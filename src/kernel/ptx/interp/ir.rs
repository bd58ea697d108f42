//! The interpreter's form of a PTX module: registers numbered, labels resolved
//! to instruction indices, opcodes decoded into what the interpreter does.
//!
//! [`lower`](super::lower) builds it from the reader's syntax tree; the
//! interpreter ([`exec`](super::exec)) runs it. Every instruction keeps the
//! index of its opcode text in [`Program::names`] for messages and
//! per-instruction tallies.

use crate::kernel::Site;
use crate::{AtomicKind, CpAsync, Matrices};

use super::super::ops::{self, BoolOp, Cmp, Half, IntType, PrmtMode, Value};

/// The generic address at which the shared window starts, in this model: a
/// `cvta.shared` adds it, a generic access within 4 GiB above it is a shared
/// access. Modelling choice: the hardware's window base is not visible in
/// PTX; this one lies below the fake addresses of unset pointer parameters
/// (`FAKE_POINTER_BASE`, 0x7f00_0000_0000) and above any offset.
pub const SHARED_WINDOW_BASE: u64 = 0x7e00_0000_0000;

/// The generic address at which the local window starts, in this model:
/// `cvta.local` adds it to a local address (a `.local` variable's offset in
/// the thread's local memory), so a generic access after it is known to be
/// local, never shared. Modelling choice, as [`SHARED_WINDOW_BASE`], 1 TiB
/// below it.
pub(crate) const LOCAL_WINDOW_BASE: u64 = 0x7d00_0000_0000;

/// The generic address at which the param window starts, in this model:
/// `cvta.param` adds it to a kernel parameter's offset, so that a tensor
/// copy's map operand (`mov.b64 %rd, k_param_0; cvta.param.u64 %rd1, %rd;`,
/// as nvcc and Triton emit it) names its parameter. Modelling choice, as
/// [`SHARED_WINDOW_BASE`], 2 TiB below it.
pub(crate) const PARAM_WINDOW_BASE: u64 = 0x7c00_0000_0000;

/// The generic address at which the shared memory of the cluster's other
/// blocks starts, in this model: `mapa.u64` of a shared generic address for
/// block rank `r` of the cluster gives this plus `r * 2^32` plus the offset
/// (for `r` the block's own rank, the address itself). Modelling choice, as
/// [`SHARED_WINDOW_BASE`].
pub(crate) const CLUSTER_WINDOW_BASE: u64 = 0x7a00_0000_0000;

/// The `.shared::cluster` addresses of the cluster's other blocks, in this
/// model: `mapa.shared::cluster.u32` for block rank `r` gives the offset
/// plus `(r + 1) << CLUSTER_RANK_SHIFT` (a block's own offsets, below
/// 2^24, are its own `.shared::cluster` addresses, as in the PTX ISA's
/// shared state space windows). Modelling choice: the hardware's encoding is
/// not visible in PTX.
pub(crate) const CLUSTER_RANK_SHIFT: u32 = 24;

/// What an `mbarrier` instruction does (PTX ISA, parallel synchronization
/// and communication instructions: mbarrier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MbarOp {
    /// `mbarrier.init [a], count`.
    Init,
    /// `mbarrier.arrive{.expect_tx}{.noComplete} state, [a]{, count or tx}`
    /// and `arrive_drop` (which also lowers the expected count).
    Arrive { expect_tx: bool, drop: bool },
    /// `mbarrier.expect_tx [a], tx`.
    ExpectTx,
    /// `mbarrier.complete_tx [a], tx`.
    CompleteTx,
    /// `mbarrier.test_wait` / `try_wait`, `.parity` or with a state.
    Wait { parity: bool },
    /// `mbarrier.inval [a]`.
    Inval,
}

/// What a bulk copy (`cp.async.bulk`, `cp.async.bulk.tensor`) does to
/// shared memory.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BulkKind {
    /// A 1-D copy of `size` bytes from global memory into `dst`, completing
    /// on the mbarrier at `bar`.
    Load { dst: Addr, size: Src, bar: Addr },
    /// A 1-D copy of `size` bytes from `src` to global memory (`bulk_group`).
    Store { src: Addr, size: Src },
    /// A tensor copy (tile mode) through the map at `map` into `dst`,
    /// completing on the mbarrier at `bar`.
    TensorLoad {
        dst: Addr,
        map: Src,
        coords: Vec<Src>,
        bar: Addr,
    },
    /// A tensor copy (tile mode) from `src` to global memory (`bulk_group`).
    TensorStore {
        src: Addr,
        map: Src,
        coords: Vec<Src>,
    },
}

/// A register of the current function's frame.
pub(crate) type Reg = u32;

/// A special register (PTX ISA, chapter 10), read by `mov`/`cvt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    /// `%warpid`: modelled as the warp's index in its block (the hardware
    /// warp slot may differ; PTX ISA says it is volatile).
    Warpid,
    /// `%nwarpid`: modelled as the block's warps.
    Nwarpid,
    DynamicSmemSize,
    TotalSmemSize,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    /// `WARP_SZ`: 32.
    WarpSize,
    /// `%clusterid.d` of a launch without clusters: the block's index.
    ClusterId(u8),
    /// `%nclusterid.d`: the grid's size.
    NclusterId(u8),
    /// `%cluster_ctaid.d`: the block's index in its cluster.
    ClusterCtaid(u8),
    /// `%cluster_nctaid.d`: the cluster's dimensions.
    ClusterNctaid(u8),
    /// `%cluster_ctarank`: the block's linear rank in its cluster.
    ClusterCtarank,
    /// `%cluster_nctarank`: the blocks of a cluster.
    ClusterNctarank,
    /// `%is_explicit_cluster`: 1 in a launch with clusters.
    ExplicitCluster,
    /// `%envreg1` and `%envreg2`, which hold the grid workspace the driver
    /// gives a cooperative launch (cooperative groups' `grid.sync()` reads
    /// them and traps where they are null): modelled as a launch that is
    /// cooperative, each [`GRID_WORKSPACE_HALF`]. A modelling choice: a
    /// kernel that syncs its grid runs only so.
    GridWorkspace,
    /// `%clock`, `%smid`, `%globaltimer`, the other `%envreg`s, ...: unknown.
    Unknown,
}

/// Each half of the grid workspace address ([`Special::GridWorkspace`]): a
/// nonzero fake global address, 256-byte aligned in either half's place.
pub(crate) const GRID_WORKSPACE_HALF: u64 = 0x7e00_0000;

/// An instruction operand that is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src {
    Reg(Reg),
    /// An immediate, as bits (a float immediate `0f3f800000` as its bits).
    Imm(u64),
    Special(Special),
    /// The address of a shared variable, in the shared state space (its
    /// offset in the block's shared memory).
    Shared(u32),
    /// The address of a `.param` variable: its offset in the frame's param
    /// memory.
    Param(u32),
    /// Any other address or value the interpreter does not know (the address
    /// of a `.global` or `.const` variable, a `.param` symbol's address).
    Unknown,
}

/// A memory operand `[base+offset]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Addr {
    pub base: Src,
    pub offset: i64,
}

/// The state space of a memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    Shared,
    /// `.shared::cluster`: distributed shared memory (not modelled).
    SharedCluster,
    Global,
    Local,
    Const,
    Param,
    Generic,
}

/// A scalar type of a value moved or converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Int(IntType),
    /// `.f16`, `.bf16` (bits 16), `.f32`, `.f64`; `.f16x2` and others are
    /// carried as `Bits`.
    Float(u8),
    /// `.bf16`.
    Bf16,
    /// `.pred`.
    Pred,
    /// Bits of the given width with no arithmetic meaning (`.b32` in a
    /// `mov`, `.f16x2`).
    Bits(u8),
}

/// A two-operand integer instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntBin {
    Add { sat: bool },
    Sub { sat: bool },
    Mul(Half),
    Mul24(Half),
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl IntBin {
    /// Its result on `a` and `b` at type `t`, as the PTX ISA defines it
    /// ([`ops`]): the interpreter runs it, and the static proofs fold it.
    pub(crate) fn eval(self, t: IntType, a: Value, b: Value) -> Value {
        match self {
            IntBin::Add { sat } => ops::add(t, a, b, sat),
            IntBin::Sub { sat } => ops::sub(t, a, b, sat),
            IntBin::Mul(half) => ops::mul(t, half, a, b),
            IntBin::Mul24(half) => ops::mul24(t, half, a, b),
            IntBin::Div => ops::div(t, a, b),
            IntBin::Rem => ops::rem(t, a, b),
            IntBin::Min => ops::min(t, a, b),
            IntBin::Max => ops::max(t, a, b),
            IntBin::And => ops::and(t, a, b),
            IntBin::Or => ops::or(t, a, b),
            IntBin::Xor => ops::xor(t, a, b),
            IntBin::Shl => ops::shl(t, a, b),
            IntBin::Shr => ops::shr(t, a, b),
        }
    }
}

/// A one-operand integer instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntUn {
    Neg,
    Abs,
    Not,
    Cnot,
    Popc,
    Clz,
    Brev,
    Bfind { shiftamt: bool },
}

impl IntUn {
    /// Its result on `a` at type `t`, as the PTX ISA defines it ([`ops`]).
    pub(crate) fn eval(self, t: IntType, a: Value) -> Value {
        match self {
            IntUn::Neg => ops::neg(t, a),
            IntUn::Abs => ops::abs(t, a),
            IntUn::Not => ops::not(t, a),
            IntUn::Cnot => ops::cnot(t, a),
            IntUn::Popc => ops::popc(t, a),
            IntUn::Clz => ops::clz(t, a),
            IntUn::Brev => ops::brev(t, a),
            IntUn::Bfind { shiftamt } => ops::bfind(t, a, shiftamt),
        }
    }
}

/// A float instruction the interpreter evaluates (round to nearest even,
/// IEEE 754, as Rust's float operations are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Fma,
    Neg,
    Abs,
}

/// A comparison of `setp`/`set`, integer or float.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compare {
    Int(IntType, Cmp),
    /// A float comparison: its width (32 or 64), the ordered relation and
    /// whether NaN operands make it true (`equ`, `ltu`, ...).
    Float {
        bits: u8,
        rel: FloatRel,
        unordered: bool,
    },
}

/// The relation of a float comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloatRel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `num`: both are numbers.
    Num,
    /// `nan`: either is NaN.
    Nan,
}

/// The mode of `shfl.sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// The mode of `vote.sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// The reduction of `redux.sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// The reduction of `bar.red`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BarRed {
    Popc,
    And,
    Or,
}

/// A barrier instruction's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BarKind {
    Sync,
    Arrive,
    Red {
        op: BarRed,
        dst: Option<Reg>,
        pred: Src,
        negate: bool,
    },
}

/// What one instruction does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `mov`, and `cvt` between types of one width: `d = a` truncated to `bits`.
    Mov {
        bits: u32,
        d: Reg,
        a: Src,
    },
    /// `mov.b64 d, {a, b}`: the pieces packed, lowest first.
    Pack {
        piece: u32,
        d: Reg,
        parts: Vec<Src>,
    },
    /// `mov.b64 {a, b}, d`: the pieces unpacked (a `None` is `_`).
    Unpack {
        piece: u32,
        ds: Vec<Option<Reg>>,
        a: Src,
    },
    IntBin {
        op: IntBin,
        t: IntType,
        d: Reg,
        a: Src,
        b: Src,
    },
    IntUn {
        op: IntUn,
        t: IntType,
        d: Reg,
        a: Src,
    },
    Mad {
        t: IntType,
        half: Half,
        sat: bool,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    Mad24 {
        t: IntType,
        half: Half,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfe {
        t: IntType,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfi {
        t: IntType,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    Prmt {
        mode: PrmtMode,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    Lop3 {
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
        lut: u8,
    },
    /// `and/or/xor/not.pred`.
    PredBin {
        op: BoolOp,
        d: Reg,
        a: Src,
        b: Src,
    },
    PredNot {
        d: Reg,
        a: Src,
    },
    Float {
        op: FloatOp,
        bits: u8,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `setp.cmp{.bop}.type p{|q}, a, b{, {!}c}`.
    Setp {
        cmp: Compare,
        p: Option<Reg>,
        q: Option<Reg>,
        a: Src,
        b: Src,
        combine: Option<(BoolOp, Src, bool)>,
    },
    /// `set.cmp.dtype d, a, b`: all ones (integer) or 1.0 (`.f32`) where true.
    Set {
        cmp: Compare,
        float_result: bool,
        d: Reg,
        a: Src,
        b: Src,
    },
    Selp {
        bits: u32,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `cvt{.sat}.dtype.stype` and float conversions.
    Cvt {
        dst: Ty,
        src: Ty,
        sat: bool,
        round_int: Option<RoundInt>,
        d: Reg,
        a: Src,
    },
    /// `cvta{.to}.shared` and `cvta{.to}.local`: between offsets in the
    /// state space and generic addresses in its window, which starts at
    /// `base`.
    CvtaWindow {
        base: u64,
        to_generic: bool,
        bits: u32,
        d: Reg,
        a: Src,
    },
    /// `ld.space.width`, `.v2`/`.v4`: `ds` get the loaded pieces; `merge`
    /// says whether ptxas merges it with its neighbours (see [`Merge`]).
    Ld {
        space: Space,
        piece: u32,
        ds: Vec<Option<Reg>>,
        addr: Addr,
        merge: Merge,
    },
    /// `st.space.width`, `.v2`/`.v4`: `merge` as for `Ld`.
    St {
        space: Space,
        piece: u32,
        srcs: Vec<Src>,
        addr: Addr,
        merge: Merge,
    },
    /// `atom`/`red`: `d` (none for `red`) gets the old value; `val` is the
    /// operand (the first, for `cas`).
    Atom {
        space: Space,
        kind: AtomicKind,
        reduction: bool,
        bytes: u32,
        d: Option<Reg>,
        addr: Addr,
        val: Src,
    },
    LdMatrix {
        m: Matrices,
        ds: Vec<Reg>,
        addr: Addr,
    },
    StMatrix {
        m: Matrices,
        addr: Addr,
    },
    /// `wmma.load.{a,b,c}` (`ds` its fragment registers) or `wmma.store.d`
    /// (no `ds`): the SASS accesses ptxas emits for it, lane by lane
    /// ([`wmma`](super::wmma)); each access is at `addr + line * stride *
    /// bits / 8 + byte`.
    Wmma {
        rows: &'static [super::wmma::Row],
        space: Space,
        ds: Vec<Reg>,
        addr: Addr,
        /// The leading dimension, in elements.
        stride: Src,
        /// Bits of one element.
        bits: u32,
    },
    /// `wgmma.mma_async` reading operands through matrix descriptors
    /// ([`wgmma`](super::wgmma)): `a` A's descriptor (none: A is in
    /// registers), `b` B's; `n` the shape's N; each operand's transpose bit
    /// (MN-major); `ds` the accumulators, unknown after it.
    Wgmma {
        a: Option<Src>,
        b: Src,
        n: u32,
        a_mn_major: bool,
        b_mn_major: bool,
        ds: Vec<Reg>,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], bytes{, src_size}`:
    /// the shared write at `dst`; `src` and `src_size` (where given: lanes
    /// whose value is 0 read no global memory) for the global side of
    /// `.ca`'s wavefronts.
    /// `wgmma.commit_group`: the warp's `wgmma`s since the last one form a
    /// group.
    WgmmaCommit,
    /// `wgmma.wait_group N`: every group but the `N` most recent is done.
    WgmmaWait {
        pending: u32,
    },
    CpAsync {
        kind: CpAsync,
        bytes: u32,
        dst: Addr,
        src: Addr,
        src_size: Option<Src>,
    },
    CpAsyncCommit,
    CpAsyncWait {
        pending: u32,
    },
    /// `cp.async.mbarrier.arrive{.noinc} [bar]`: the thread's `cp.async`
    /// copies complete, then it arrives on the mbarrier (without `.noinc`
    /// the pending count is raised by one first, so the arrival does not
    /// count toward the phase).
    CpAsyncArrive {
        bar: Option<Addr>,
        noinc: bool,
    },
    /// An `mbarrier` instruction on the mbarrier at `bar`: `d` gets the
    /// state (`arrive`) or the predicate (`test_wait`/`try_wait`); `a` is
    /// the count, the transaction bytes, the parity or the state.
    Mbar {
        op: MbarOp,
        /// `.shared` or generic (no state space given).
        space: Space,
        bar: Addr,
        d: Option<Reg>,
        a: Src,
        b: Src,
    },
    /// A bulk or tensor copy's shared side.
    Bulk(BulkKind),
    /// `mapa{.shared::cluster}.u32/u64 d, a, rank`: `a` in block `rank` of
    /// the cluster; `generic` for the `.u64` generic form.
    Mapa {
        generic: bool,
        d: Reg,
        a: Src,
        rank: Src,
    },
    Bar {
        kind: BarKind,
        id: Src,
        count: Option<Src>,
    },
    BarWarp {
        mask: Src,
    },
    Fence,
    Shfl {
        mode: ShflMode,
        d: Reg,
        p: Option<Reg>,
        a: Src,
        b: Src,
        c: Src,
    },
    Vote {
        mode: VoteMode,
        d: Reg,
        a: Src,
        negate: bool,
    },
    Activemask {
        d: Reg,
    },
    /// `match.any.sync d, a, membermask`: each lane gets the lanes (among
    /// those executing it) whose `a`, of `bits` bits, equals its own.
    MatchAny {
        d: Reg,
        a: Src,
        bits: u32,
    },
    Redux {
        op: ReduxOp,
        t: IntType,
        d: Reg,
        a: Src,
    },
    Elect {
        d: Option<Reg>,
        p: Option<Reg>,
    },
    Bra {
        target: u32,
    },
    /// A call of a function of the module, by index, with the parameter
    /// copies it implies: `args` are copied into the callee's parameters,
    /// and the callee's return parameters back into `rets`.
    Call {
        func: u32,
        args: Vec<ParamRef>,
        rets: Vec<ParamRef>,
    },
    Ret,
    Exit,
    /// An instruction that touches shared memory in a way the model does not
    /// model: an `Event::Unmodelled` of its name; its destinations unknown.
    Unmodelled {
        ds: Vec<Reg>,
    },
    /// An instruction the interpreter does not evaluate: its destinations
    /// become unknown. Where `srcs` are given, equal operands give equal
    /// results, so the results are numbered ([`number`](super::number)):
    /// lane by lane, or for a warp-collective opcode (`mma`, `movmatrix`,
    /// `match`: `warp`) over every lane's operands and the lane's index.
    Opaque {
        ds: Vec<Reg>,
        srcs: Option<Vec<Src>>,
        warp: bool,
    },
    /// An instruction without effect on what the interpreter tracks
    /// (`prefetch`, `pmevent`, `nanosleep`, ...).
    Nop,
}

/// How ptxas merges a shared load or store with its neighbours into one
/// wider SASS access, as the interpreter predicts it (the rules and their
/// measurements: [`merge`](super::merge)). Each access still reads or writes
/// its own values; only the events change: the carrier's event is the
/// merged request, the folded ones' are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Merge {
    /// Not merged.
    None,
    /// Volatile or ordered (`.volatile`, `.relaxed`, ...): never merged.
    Never,
    /// Issues the merged `width`-byte access at its own address less `back`.
    Carry { width: u32, back: u32 },
    /// Part of a merged access that starts `delta` bytes before its own
    /// address: no event of its own.
    Folded { delta: u32, width: u32 },
    /// Inside a loop ptxas unrolls: one of the others per iteration, in the
    /// function's [`Function::loops`] table `table`.
    Loop { table: u32 },
}

/// Where a call's parameter lives: a variable of the caller's `.param`
/// space (its byte offset in the frame's param memory and size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParamRef {
    pub offset: u32,
    pub bytes: u32,
}

/// How a float-to-integer conversion rounds (`.rni`, `.rzi`, `.rmi`, `.rpi`)
/// and how an integer-to-float one does (`.rn`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoundInt {
    Nearest,
    Zero,
    Down,
    Up,
}

/// One instruction: its guard, what it does, where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Inst {
    /// `@p` (false) or `@!p` (true).
    pub guard: Option<(Reg, bool)>,
    pub kind: Kind,
    pub site: Site,
    /// Index of its opcode text in [`Program::names`].
    pub name: u32,
}

/// A function of the module, lowered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Function {
    pub name: String,
    pub is_entry: bool,
    /// Registers of its frame.
    pub regs: u32,
    /// Bytes of its `.param` memory: its parameters first (at the offsets
    /// `params` give), then the `.param` variables its body declares.
    pub param_bytes: u32,
    /// The parameters in order: name, offset in param memory, size, and (for
    /// an entry) what a launch binds to it.
    pub params: Vec<FnParam>,
    /// Its return parameters (`.func (.param .b32 r) f(...)`).
    pub rets: Vec<ParamRef>,
    pub insts: Vec<Inst>,
    /// The merges per iteration of the accesses in loops ptxas unrolls
    /// ([`Merge::Loop`]).
    pub loops: Vec<LoopMerges>,
    /// For each instruction that may branch (a guarded `bra`, `ret`, `exit`),
    /// the index of its immediate post-dominator: `insts.len()` for the
    /// function's exit.
    pub ipdom: Vec<u32>,
}

/// The merges of one access inside an unrolled loop, by iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoopMerges {
    /// The loop's counter.
    pub counter: Reg,
    /// Its width in bits.
    pub bits: u32,
    /// Its value when the access runs in the first iteration.
    pub first: u64,
    /// What each iteration adds to it (wrapping at `bits`).
    pub step: i64,
    /// The access's merge in each iteration.
    pub merges: Vec<Merge>,
}

impl LoopMerges {
    /// The merge of the iteration in which the counter holds `value`: the
    /// access as written for a value no iteration has (the loop entered
    /// some other way).
    pub(crate) fn at(&self, value: Option<u64>) -> Merge {
        let mask = if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        let Some(v) = value else {
            return Merge::None;
        };
        let (diff, step) = if self.step >= 0 {
            (v.wrapping_sub(self.first) & mask, self.step.unsigned_abs())
        } else {
            (self.first.wrapping_sub(v) & mask, self.step.unsigned_abs())
        };
        if step == 0 || diff % step != 0 {
            return Merge::None;
        }
        usize::try_from(diff / step)
            .ok()
            .and_then(|j| self.merges.get(j))
            .copied()
            .unwrap_or(Merge::None)
    }
}

/// A function parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FnParam {
    pub name: String,
    pub offset: u32,
    pub bytes: u32,
    pub kind: super::super::ParamKind,
}

/// A shared variable, placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SharedVar {
    pub name: String,
    pub offset: u32,
    pub bytes: u32,
    pub align: u32,
    /// `.extern .shared`: the dynamic region, of the launch's size.
    pub dynamic: bool,
}

/// A lowered module.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Program {
    pub functions: Vec<Function>,
    /// Opcode texts, as written (`ld.shared.v4.b32`).
    pub names: Vec<String>,
    /// The shared variables in the order placed.
    pub shared: Vec<SharedVar>,
    /// Bytes of static shared memory (where the dynamic region starts).
    pub static_shared: u32,
    /// Source files by `.file` number.
    pub files: Vec<(u32, String)>,
    /// The entry's `.reqntid` and `.maxntid`, missing dimensions 1.
    pub reqntid: Option<[u32; 3]>,
    /// The entry's `.reqnctapercluster` (blocks per cluster), missing
    /// dimensions 1.
    pub reqnctapercluster: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
}

impl Program {
    /// The name of source file `index` (a `.file` number).
    pub(crate) fn file_name(&self, index: u32) -> Option<&str> {
        self.files
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, name)| name.as_str())
    }
}
