//! Running one thread block of a lowered kernel, warp by warp, and telling a
//! [`Consumer`] what its warps do to shared memory.
//!
//! # The SIMT model
//!
//! A warp's 32 lanes run in lockstep under an active mask. Where a branch
//! splits them, the warp runs one side, then the other, and the lanes
//! reconverge at the branch's immediate post-dominator: the SIMT
//! reconvergence stack of GPGPU-Sim (Fung et al., "Dynamic Warp Formation and
//! Scheduling for Efficient GPU Control Flow", MICRO 2007; GPGPU-Sim's
//! `simt_stack`). Each stack entry holds a next instruction, a reconvergence
//! instruction and a mask; a divergent branch turns the top entry into the
//! reconvergence entry and pushes the not-taken then the taken side, so the
//! taken side runs first. ptxas on Volta and later emits `BSSY`/`BSYNC` at the
//! same points in the common cases; the model and the hardware can differ
//! where independent thread scheduling lets diverged lanes interleave (loops
//! with `break` out of a warp-synchronous section, spin locks): there the
//! model runs one side to its end first.
//!
//! # Warps and barriers
//!
//! Warps run one at a time, each until it waits at a barrier or ends; a
//! barrier completes when every warp still running waits at it (or, with a
//! thread count, when that many threads, 32 per arriving warp, arrived).
//! Shared memory holds the values stored to it, so a load after a barrier
//! sees what other warps stored before it. If every warp waits and no barrier
//! can complete (a count never reached, `bar.arrive` without its waiters), the
//! barrier with the lowest id that has waiters is released and noted.
//!
//! # What is unknown
//!
//! Global, local and constant loads give unknown values, and so does anything
//! computed from them. An access whose address is unknown in any lane it
//! executes in is never guessed: it becomes an [`Event::Unmodelled`] named by
//! its opcode, and is noted as data-dependent. A store to an unknown address
//! (or an atomic) forgets the values of the shared bytes it could touch; a
//! branch whose predicate is unknown in a lane is taken as not taken in that
//! lane, and noted.

use std::collections::BTreeMap;

use crate::kernel::{BarrierKind, Consumer, Event, MbarrierOp, Place, Site};
use crate::{AccessWidth, Error, LaneSet, Op, SharedAccessFault, WarpRequest};

use super::super::ops::{self, Half, IntType, Value};
use super::ir::{
    Addr, BarKind, BarRed, BulkKind, Compare, FloatOp, FloatRel, Function, Inst, IntBin, Kind,
    MbarOp, Merge, Program, ReduxOp, Reg, RoundInt, ShflMode, Space, Special, Src, Ty, VoteMode,
    CLUSTER_RANK_SHIFT, CLUSTER_WINDOW_BASE, PARAM_WINDOW_BASE, SHARED_WINDOW_BASE,
};
use super::number::{FirstSeen, Numbers, Operand, Plan};
use super::slice::Slice;
use super::wgmma;
use super::wmma::Piece;

mod asyncs;

const FULL: u32 = u32::MAX;

/// Calls nested deeper than this are an error (a recursion the interpreter
/// would otherwise follow until the step budget).
const MAX_CALL_DEPTH: usize = 64;

/// The most bytes a block's registers and param space may take in the
/// interpreter (1 GiB): what a function declares is allocated for each of a
/// block's warps when it is entered, so a short text declaring millions of
/// registers, or param arrays of many kilobytes, would otherwise take
/// gigabytes (`.reg .b32 %r<4000000>` with 1,024 threads: 34 GB; issue 36).
/// Real kernels are far below: a Triton matmul's 4,096 registers and 256
/// threads take 8.6 MB. A modelling limit, not the GPU's.
pub(crate) const MAX_BLOCK_STATE_BYTES: u64 = 1 << 30;

/// The interpreter's bytes per register of a warp (its 32 values, the known
/// lanes and the value-numbered lanes) and per byte of param space.
const REGISTER_BYTES: u64 = (size_of::<[u64; 32]>() + 2 * size_of::<u32>()) as u64;
const PARAM_BYTE_BYTES: u64 = (size_of::<[u8; 32]>() + size_of::<u32>()) as u64;

/// What entering `func` adds to each warp's state, in bytes.
fn frame_bytes(func: &Function) -> u64 {
    u64::from(func.regs) * REGISTER_BYTES + u64::from(func.param_bytes) * PARAM_BYTE_BYTES
}

/// Checks that `warps` warps each holding `per_warp` bytes stay within
/// [`MAX_BLOCK_STATE_BYTES`].
fn check_state(per_warp: u64, warps: u32, function: &str) -> Result<(), Error> {
    let bytes = per_warp.saturating_mul(u64::from(warps));
    if bytes > MAX_BLOCK_STATE_BYTES {
        return Err(Error::InterpreterState {
            function: function.to_owned(),
            bytes,
            limit: MAX_BLOCK_STATE_BYTES,
            warps,
        });
    }
    Ok(())
}

/// What the interpreter noted about an instruction it could not follow
/// exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NoteKind {
    /// A shared (or generic) access whose address is unknown in some lane.
    DataDependentAddress,
    /// A branch whose predicate is unknown in some lane (taken as false).
    DataDependentBranch,
    /// A shared access whose guard predicate is unknown in some lane (the
    /// lane taken as not executing it).
    DataDependentGuard,
    /// A barrier released although not every thread it waits for arrived.
    ForcedBarrier,
    /// An instruction that touches shared memory in a way not modelled (TMA,
    /// `wgmma`, `mbarrier`, distributed shared memory, a generic access that
    /// mixes shared and other addresses).
    Unmodelled,
    /// An mbarrier wait on a phase that never completes (the GPU would hang).
    MbarrierHang,
    /// A tensor copy whose tensor map the launch does not give.
    NoTensorMap,
}

impl NoteKind {
    /// What a note of this kind means for the figures: which way the
    /// interpreter went where it could not know, and what that may change.
    /// One lowercase clause, for a report to print after the instructions.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::NoteKind;
    ///
    /// assert!(NoteKind::DataDependentBranch.meaning().contains("taken as not branching"));
    /// ```
    pub const fn meaning(self) -> &'static str {
        match self {
            NoteKind::DataDependentAddress => {
                "the address comes from memory the model does not hold (a global load, an \
                 atomic's result): counted as an instruction, left out of the wavefronts and \
                 the race check"
            }
            NoteKind::DataDependentBranch => {
                "the condition comes from memory the model does not hold: lanes where it is \
                 unknown were taken as not branching (on to the next instruction; a `ret` or \
                 `exit` not taken), so the shared accesses and barriers of the path they \
                 skipped are missing for them, those of the path they took may be extra, and \
                 a barrier error after it may be the model's"
            }
            NoteKind::DataDependentGuard => {
                "the guard comes from memory the model does not hold: lanes where it is \
                 unknown were taken as not executing the access, so its requests, wavefronts \
                 and races may be low"
            }
            NoteKind::ForcedBarrier => {
                "not every thread it waits for arrived (a barrier error): the model released \
                 those that did, to go on with the block"
            }
            NoteKind::Unmodelled => "touches shared memory in a way not modelled: not counted",
            NoteKind::MbarrierHang => {
                "waits on an mbarrier phase that never completes (every warp waits and nothing \
                 can arrive): on the GPU the block would hang; the model answered \
                 \"incomplete\" once and ended a warp that waited again"
            }
            NoteKind::NoTensorMap => {
                "a tensor copy whose tensor map the launch does not give (--tensor-map): its \
                 shared bytes are not modelled, and its mbarrier's phases complete on \
                 arrivals alone"
            }
        }
    }
}

/// Counts of notes by instruction: `(function, instruction)` to kind and
/// count.
pub(crate) type Notes = BTreeMap<(u32, u32), (NoteKind, u64)>;

fn note(notes: &mut Notes, func: u32, pc: u32, kind: NoteKind) {
    notes.entry((func, pc)).or_insert((kind, 0)).1 += 1;
}

/// 32 lanes of a value: bits and which lanes know them.
#[derive(Clone, Copy)]
struct Lanes {
    v: [u64; 32],
    k: u32,
}

impl Lanes {
    #[inline]
    fn known(&self) -> u32 {
        self.k
    }

    #[inline]
    fn val(&self, lane: usize) -> u64 {
        self.v[lane]
    }

    const UNKNOWN: Lanes = Lanes { v: [0; 32], k: 0 };

    fn splat(x: u64) -> Lanes {
        Lanes {
            v: [x; 32],
            k: FULL,
        }
    }

    fn set(&mut self, lane: usize, value: Value) {
        match value.bits() {
            Some(bits) => {
                self.v[lane] = bits;
                self.k |= 1 << lane;
            }
            None => self.k &= !(1 << lane),
        }
    }
}

fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    core::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(lane)
        }
    })
}

/// An operand's 32 lanes: a register's by reference, or one value for all.
#[derive(Clone, Copy)]
enum Opnd<'a> {
    Ref(&'a [u64; 32], u32),
    Splat(u64, u32),
}

impl Opnd<'_> {
    /// Lanes whose bits are nonzero (known or not).
    fn v_nonzero(&self) -> u32 {
        let mut m = 0;
        for lane in 0..32 {
            m |= u32::from(self.val(lane) != 0) << lane;
        }
        m
    }

    #[inline]
    fn known(&self) -> u32 {
        match *self {
            Opnd::Ref(_, k) | Opnd::Splat(_, k) => k,
        }
    }

    #[inline]
    fn val(&self, lane: usize) -> u64 {
        match *self {
            Opnd::Ref(v, _) => v[lane],
            Opnd::Splat(x, _) => x,
        }
    }

    #[inline]
    fn get(&self, lane: usize) -> Value {
        if self.known() >> lane & 1 == 1 {
            Value::known(self.val(lane))
        } else {
            Value::UNKNOWN
        }
    }

    #[inline]
    fn pred(&self, lane: usize) -> Option<bool> {
        (self.known() >> lane & 1 == 1).then(|| self.val(lane) != 0)
    }

    /// The 32 lanes' bits (known or not), one match for all of them: a
    /// loop over the result vectorizes, where `val` in it matches per lane.
    #[inline]
    fn lanes(&self) -> [u64; 32] {
        match *self {
            Opnd::Ref(v, _) => *v,
            Opnd::Splat(x, _) => [x; 32],
        }
    }

    fn to_lanes(self) -> Lanes {
        let mut v = [0u64; 32];
        for (lane, slot) in v.iter_mut().enumerate() {
            *slot = self.val(lane);
        }
        Lanes { v, k: self.known() }
    }
}

/// An operand's lanes as value numbering sees them: bits, known lanes and
/// numbered lanes.
#[derive(Clone, Copy)]
struct Seen {
    v: [u64; 32],
    k: u32,
    n: u32,
}

impl Seen {
    const NONE: Seen = Seen {
        v: [0; 32],
        k: 0,
        n: 0,
    };

    /// Lane `lane` as an operand of a numbered expression, if it is known or
    /// numbered.
    #[inline]
    fn operand(&self, lane: usize) -> Option<Operand> {
        if self.k >> lane & 1 == 1 {
            Some(Operand::Known(self.v[lane]))
        } else if self.n >> lane & 1 == 1 {
            Some(Operand::Number(self.v[lane]))
        } else {
            None
        }
    }
}

/// One entry of a warp's SIMT stack.
#[derive(Debug, Clone, Copy)]
struct Entry {
    pc: u32,
    rpc: u32,
    mask: u32,
    /// The entry a `call` pushed: popping it returns from the frame.
    call: bool,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    func: u32,
    reg_base: usize,
    param_base: usize,
    /// For a call: where its return parameters go in the caller's param
    /// memory (index into the caller instruction's `rets`).
    call_site: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ready,
    Waiting,
    /// Waiting for phase `phase` of the mbarrier at shared offset `bar` to
    /// complete ([`asyncs`]).
    MbarWait {
        bar: u32,
        phase: u32,
    },
    Done,
}

/// The most register-file bytes a thread keeps for its next blocks (64 MiB).
const SPARE_BYTES: usize = 64 << 20;

thread_local! {
    /// Register files of the warps this thread ran, emptied, for the warps of
    /// its next block. A kernel's registers take hundreds of kilobytes per warp
    /// (dxtc: 1,455 registers, 384 KB), which the allocator would otherwise
    /// hand back to the system at the end of each block and fault in again
    /// for the next: 6.5 s of system time in dxtc's 16,384 blocks.
    static SPARE_REGISTERS: std::cell::RefCell<Vec<Vec<[u64; 32]>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Warp {
    fn drop(&mut self) {
        let mut vals = std::mem::take(&mut self.vals);
        vals.clear();
        let bytes = vals.capacity() * size_of::<[u64; 32]>();
        SPARE_REGISTERS.with(|spare| {
            let mut spare = spare.borrow_mut();
            let kept: usize = spare
                .iter()
                .map(|v| v.capacity() * size_of::<[u64; 32]>())
                .sum();
            if bytes > 0 && kept + bytes <= SPARE_BYTES {
                spare.push(vals);
            }
        });
    }
}

thread_local! {
    /// The value numbers of the last block this thread ran, emptied, for its
    /// next block ([`Numbers::reset`]).
    static SPARE_NUMBERS: std::cell::RefCell<Option<Numbers>> =
        const { std::cell::RefCell::new(None) };
}

/// A block's value numbers, given back emptied to [`SPARE_NUMBERS`] when the
/// block ends, however it ends.
struct SpareNumbers(Numbers);

impl Drop for SpareNumbers {
    fn drop(&mut self) {
        let mut numbers = std::mem::take(&mut self.0);
        numbers.reset();
        SPARE_NUMBERS.with(|spare| *spare.borrow_mut() = Some(numbers));
    }
}

struct Warp {
    id: u32,
    stack: Vec<Entry>,
    frames: Vec<Frame>,
    vals: Vec<[u64; 32]>,
    known: Vec<u32>,
    /// Per register, the lanes whose `vals` hold a value number
    /// ([`number`](super::number)): unknown, but named. Never known too.
    nums: Vec<u32>,
    /// Param memory, byte by byte: values and known lanes.
    pvals: Vec<[u8; 32]>,
    pknown: Vec<u32>,
    state: State,
    /// The per-lane special registers: `%tid.x/y/z`, `%laneid`, and the
    /// five `%lanemask_*` (see `Ctx::special_index`).
    sregs: Box<[[u64; 32]; 9]>,
    /// The current frame's first register (the hot path's copy).
    reg_base: usize,
    /// The operand reads of its `wgmma`s not yet retired (a warpgroup's
    /// first warp only): those since the last `wgmma.commit_group`, then
    /// the committed groups, oldest first; each read (the `wgmma`'s site,
    /// its 16-byte chunks).
    gmma_open: Vec<(Site, Vec<u32>)>,
    gmma_groups: std::collections::VecDeque<Vec<(Site, Vec<u32>)>>,
    /// An mbarrier wait that can never complete: the mbarrier, the phase,
    /// and whether the warp was answered "incomplete" already
    /// ([`asyncs`]).
    forced: Option<(u32, u32, bool)>,
}

impl Warp {
    fn frame(&self) -> Frame {
        self.frames.last().copied().unwrap_or(Frame {
            func: 0,
            reg_base: 0,
            param_base: 0,
            call_site: None,
        })
    }

    /// An operand, by reference where it is a register.
    #[inline]
    fn read<'w>(&'w self, ctx: &Ctx<'_>, src: Src) -> Opnd<'w> {
        match src {
            Src::Reg(r) => {
                let i = self.reg_base + r as usize;
                Opnd::Ref(&self.vals[i], self.known[i])
            }
            Src::Imm(x) => Opnd::Splat(x, FULL),
            Src::Shared(offset) | Src::Param(offset) => Opnd::Splat(u64::from(offset), FULL),
            Src::Unknown => Opnd::Splat(0, 0),
            Src::Special(Special::Warpid) => Opnd::Splat(u64::from(self.id), FULL),
            Src::Special(s) => match ctx.special_index(s) {
                Ok(i) => Opnd::Ref(&self.sregs[i], FULL),
                Err(x) => x.map_or(Opnd::Splat(0, 0), |x| Opnd::Splat(x, FULL)),
            },
        }
    }

    fn read_owned(&self, ctx: &Ctx<'_>, src: Src) -> Lanes {
        self.read(ctx, src).to_lanes()
    }

    #[inline]
    fn write(&mut self, d: u32, value: &Lanes, mask: u32) {
        let i = self.reg_base + d as usize;
        let slot = &mut self.vals[i];
        let take = mask & value.k;
        if take == FULL {
            // The commonest write, a whole warp's known result: one copy of
            // 256 bytes, not a loop over the lanes' bits.
            *slot = value.v;
        } else {
            for lane in lanes_of(take) {
                slot[lane] = value.v[lane];
            }
        }
        self.known[i] = (self.known[i] & !mask) | (value.k & mask);
        self.nums[i] &= !mask;
    }

    #[inline]
    fn forget(&mut self, d: u32, mask: u32) {
        let i = self.reg_base + d as usize;
        self.known[i] &= !mask;
        self.nums[i] &= !mask;
    }

    /// The lanes of an operand that hold a value number.
    #[inline]
    fn nums_of(&self, src: Src) -> u32 {
        match src {
            Src::Reg(r) => self.nums[self.reg_base + r as usize],
            _ => 0,
        }
    }

    /// An operand as value numbering sees it, copied (before the
    /// instruction writes its destinations, which may be the operand).
    fn seen(&self, ctx: &Ctx<'_>, src: Src) -> Seen {
        let o = self.read(ctx, src);
        Seen {
            v: core::array::from_fn(|i| o.val(i)),
            k: o.known(),
            n: self.nums_of(src),
        }
    }

    /// Lanes `lanes` of register `d` hold the numbers `n`.
    fn set_numbers(&mut self, d: u32, lanes: u32, n: &[u64; 32]) {
        let i = self.reg_base + d as usize;
        for lane in lanes_of(lanes) {
            self.vals[i][lane] = n[lane];
        }
        self.known[i] &= !lanes;
        self.nums[i] |= lanes;
    }

    /// Reads `bytes` (at most 8) of param memory at `offset` in each lane.
    fn read_param(&self, offsets: &Lanes, bytes: u32, mask: u32) -> Lanes {
        let base = self.frame().param_base;
        let mut out = Lanes::UNKNOWN;
        if bytes > 8 {
            return out;
        }
        for lane in lanes_of(mask & offsets.k) {
            let start = base as u64 + offsets.v[lane];
            let mut value = 0u64;
            let mut ok = true;
            for b in 0..u64::from(bytes) {
                let Some(i) = usize::try_from(start + b)
                    .ok()
                    .filter(|&i| i < self.pvals.len())
                else {
                    ok = false;
                    break;
                };
                ok &= self.pknown[i] >> lane & 1 == 1;
                value |= u64::from(self.pvals[i][lane]) << (8 * b);
            }
            if ok {
                out.v[lane] = value;
                out.k |= 1 << lane;
            }
        }
        out
    }

    fn write_param(&mut self, offsets: &Lanes, bytes: u32, value: &Lanes, mask: u32) {
        let base = self.frame().param_base;
        let bytes = bytes.min(8);
        for lane in lanes_of(mask & offsets.k) {
            let start = base as u64 + offsets.v[lane];
            for b in 0..u64::from(bytes) {
                let Some(i) = usize::try_from(start + b)
                    .ok()
                    .filter(|&i| i < self.pvals.len())
                else {
                    break;
                };
                self.pvals[i][lane] = (value.v[lane] >> (8 * b)) as u8;
                if value.k >> lane & 1 == 1 {
                    self.pknown[i] |= 1 << lane;
                } else {
                    self.pknown[i] &= !(1 << lane);
                }
            }
        }
    }

    fn push_frame(&mut self, func: &Function, index: u32, call_site: Option<(u32, u32)>) {
        let reg_base = self.vals.len();
        let param_base = self.pvals.len();
        self.vals.resize(reg_base + func.regs as usize, [0; 32]);
        self.known.resize(reg_base + func.regs as usize, 0);
        self.nums.resize(reg_base + func.regs as usize, 0);
        self.pvals
            .resize(param_base + func.param_bytes as usize, [0; 32]);
        self.pknown
            .resize(param_base + func.param_bytes as usize, 0);
        self.frames.push(Frame {
            func: index,
            reg_base,
            param_base,
            call_site,
        });
        self.reg_base = reg_base;
    }

    fn pop_frame(&mut self) {
        if let Some(frame) = self.frames.pop() {
            self.vals.truncate(frame.reg_base);
            self.known.truncate(frame.reg_base);
            self.nums.truncate(frame.reg_base);
            self.pvals.truncate(frame.param_base);
            self.pknown.truncate(frame.param_base);
        }
        self.reg_base = self.frame().reg_base;
    }
}

/// The block's shared memory: bytes, and a bit per byte that says whether
/// it is known.
struct Shared {
    bytes: Vec<u8>,
    known: Vec<u64>,
    /// Whether any byte was ever stored known (and not forgotten all at
    /// once): when none was, every load is unknown without looking.
    any_known: bool,
    /// The value numbers stored ([`number`](super::number)), allocated at
    /// the first numbered store.
    tags: Option<Box<Tags>>,
    /// The mbarriers initialised in it.
    mbars: asyncs::Mbarriers,
}

/// Per byte of shared memory: the width of the numbered value it is part
/// of and its place in it (`width << 4 | place`, [`META`]; 0: none), and at
/// a value's first byte its number. A byte is known (in [`Shared`]), tagged
/// or neither, never both. Bytes `a..a + n` hold one value of width `n` when
/// their places read `n`, 0 to `n - 1`: only a value tagged at `a` writes
/// those places there, and it writes all of them, so the number at `a` is
/// that value's.
struct Tags {
    num: Vec<u64>,
    meta: Vec<u8>,
}

/// [`Tags::meta`] of a value of `n` bytes (1 to 8), byte by byte.
const META: [[u8; 8]; 9] = {
    let mut table = [[0u8; 8]; 9];
    let mut n = 1;
    while n <= 8 {
        let mut i = 0;
        while i < n {
            table[n][i] = (n << 4 | i) as u8;
            i += 1;
        }
        n += 1;
    }
    table
};

impl Shared {
    fn new(size: usize) -> Self {
        Shared {
            bytes: vec![0; size],
            known: vec![0; size.div_ceil(64) + 1],
            any_known: false,
            tags: None,
            mbars: asyncs::Mbarriers::default(),
        }
    }

    /// Bytes `address..address + n` (`n` 1 to 8) hold the value numbered
    /// `number`, `n` bytes wide: not known bits any more.
    fn tag(&mut self, address: u64, n: u32, number: u64) {
        let len = self.bytes.len();
        let n = n as usize;
        let Some(a) = usize::try_from(address)
            .ok()
            .filter(|&a| n <= 8 && a.checked_add(n).is_some_and(|end| end <= len))
        else {
            self.forget(address, n as u32);
            return;
        };
        if self.any_known {
            for i in a..a + n {
                self.known[i / 64] &= !(1u64 << (i % 64));
            }
        }
        let tags = self.tags.get_or_insert_with(|| {
            Box::new(Tags {
                num: vec![0; len],
                meta: vec![0; len],
            })
        });
        // Byte by byte: a copy of a few bytes is a call to memcpy.
        for (slot, &m) in tags.meta[a..a + n].iter_mut().zip(&META[n]) {
            *slot = m;
        }
        tags.num[a] = number;
    }

    /// The number of the value bytes `address..address + n` hold, if they
    /// hold one numbered value of that width.
    #[inline]
    fn number(&self, address: u64, n: u32) -> Option<u64> {
        let tags = self.tags.as_ref()?;
        let (a, n) = (usize::try_from(address).ok()?, n as usize);
        let meta = tags.meta.get(a..a.checked_add(n)?)?;
        // Byte by byte: a slice comparison is a call to memcmp.
        let same = n <= 8 && meta.iter().zip(&META[n]).all(|(x, y)| x == y);
        same.then(|| tags.num[a])
    }

    /// The known bits of bytes `a..a + n` (`n` at most 8), lowest first.
    #[inline]
    fn known_bits(&self, a: usize, n: usize) -> u64 {
        let (word, bit) = (a / 64, a % 64);
        let lo = self.known[word] >> bit;
        let hi = if bit == 0 {
            0
        } else {
            self.known[word + 1] << (64 - bit)
        };
        (lo | hi) & ((1u64 << n) - 1)
    }

    #[inline]
    fn load(&self, address: u64, n: u32) -> Value {
        let n = n as usize;
        let Ok(a) = usize::try_from(address) else {
            return Value::UNKNOWN;
        };
        if n > 8 || a.checked_add(n).is_none_or(|end| end > self.bytes.len()) {
            return Value::UNKNOWN;
        }
        if self.known_bits(a, n) != (1u64 << n) - 1 {
            return Value::UNKNOWN;
        }
        let mut buf = [0u8; 8];
        buf[..n].copy_from_slice(&self.bytes[a..a + n]);
        Value::known(u64::from_le_bytes(buf))
    }

    fn store(&mut self, address: u64, n: u32, value: Value) {
        // Bytes past the end are not kept; wider than a register, the bytes
        // are not tracked.
        let Ok(a) = usize::try_from(address) else {
            return;
        };
        let end = a.saturating_add(n as usize).min(self.bytes.len());
        if a >= end {
            return;
        }
        if let Some(tags) = &mut self.tags {
            tags.meta[a..end].fill(0);
        }
        let value = value.bits().filter(|_| n <= 8);
        if value.is_none() && !self.any_known {
            // Nothing is known: forgetting changes nothing.
            return;
        }
        self.any_known |= value.is_some();
        if let Some(v) = value {
            let bytes = v.to_le_bytes();
            self.bytes[a..end].copy_from_slice(&bytes[..end - a]);
        }
        for i in a..end {
            let bit = 1u64 << (i % 64);
            if value.is_some() {
                self.known[i / 64] |= bit;
            } else {
                self.known[i / 64] &= !bit;
            }
        }
    }

    fn forget(&mut self, address: u64, n: u32) {
        self.store(address, n, Value::UNKNOWN);
    }

    fn forget_all(&mut self) {
        self.known.iter_mut().for_each(|k| *k = 0);
        self.any_known = false;
        if let Some(tags) = &mut self.tags {
            tags.meta.fill(0);
        }
    }
}

#[derive(Default, Clone)]
struct Barrier {
    waiting: Vec<u32>,
    arrived: u32,
    count: Option<u32>,
    /// `bar.red`: the reduction so far (`None` once a lane is unknown), and
    /// the warps and registers waiting for it.
    red: Option<(BarRed, Option<u64>)>,
    red_dst: Vec<(u32, usize, u32)>,
}

/// What the interpreter needs of the launch for one block.
pub(crate) struct Ctx<'p> {
    pub program: &'p Program,
    pub entry: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub block_id: [u32; 3],
    pub dynamic_shared: u32,
    /// Where the block's shared memory ends: the dynamic region's start plus
    /// the launch's dynamic bytes (checked against the capability's limit).
    pub shared_end: u64,
    /// The driver's reserved bytes before it in the shared window (1 KiB
    /// from sm_80 on): the addresses memcheck prints start there.
    pub reserved: u32,
    /// Each parameter's bytes, as `KernelLaunch::bind` gives them.
    pub args: &'p [Vec<u8>],
    /// The compute capability predicted for (sm_90 where none is given):
    /// ptxas's lowering of `wmma` depends on it.
    pub capability: crate::ComputeCapability,
    /// Blocks per cluster in x, y, z (`[1, 1, 1]` without clusters).
    pub cluster: [u32; 3],
    /// The tensor maps given, by the offset of their parameter in param
    /// memory.
    pub tensor_maps: &'p [(u32, super::super::TensorMap)],
    pub budget: u64,
    /// Which instructions number their results.
    pub plan: &'p Plan,
}

impl Ctx<'_> {
    fn threads(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    /// The block's index in its cluster, per dimension.
    fn cluster_ctaid(&self) -> [u32; 3] {
        core::array::from_fn(|d| self.block_id[d] % self.cluster[d].max(1))
    }

    /// The block's rank in its cluster (x fastest).
    fn cluster_rank(&self) -> u32 {
        let [x, y, z] = self.cluster_ctaid();
        x + self.cluster[0] * (y + self.cluster[1] * z)
    }

    /// The tensor map given for the parameter at `offset` in param memory.
    fn tensor_map(&self, offset: u32) -> Option<&super::super::TensorMap> {
        self.tensor_maps
            .iter()
            .find(|(o, _)| *o == offset)
            .map(|(_, m)| m)
    }

    /// Where special register `s` is: an index into a warp's `sregs` (the
    /// per-lane ones), or its value for every lane (`None`: unknown).
    fn special_index(&self, s: Special) -> Result<usize, Option<u64>> {
        let d3 = |v: [u32; 3], d: u8| u64::from(v[usize::from(d.min(2))]);
        Err(Some(match s {
            Special::Tid(d) => return Ok(usize::from(d.min(2))),
            Special::Laneid => return Ok(3),
            Special::LanemaskEq => return Ok(4),
            Special::LanemaskLt => return Ok(5),
            Special::LanemaskLe => return Ok(6),
            Special::LanemaskGt => return Ok(7),
            Special::LanemaskGe => return Ok(8),
            Special::Ntid(d) => d3(self.block, d),
            Special::Ctaid(d) => d3(self.block_id, d),
            Special::Nctaid(d) => d3(self.grid, d),
            Special::ClusterId(d) => {
                d3(self.block_id, d) / u64::from(self.cluster[usize::from(d.min(2))].max(1))
            }
            Special::NclusterId(d) => {
                d3(self.grid, d) / u64::from(self.cluster[usize::from(d.min(2))].max(1))
            }
            Special::ClusterCtaid(d) => d3(self.cluster_ctaid(), d),
            Special::ClusterNctaid(d) => d3(self.cluster, d),
            Special::ClusterCtarank => u64::from(self.cluster_rank()),
            Special::ClusterNctarank => self.cluster.iter().map(|&c| u64::from(c)).product(),
            Special::ExplicitCluster => u64::from(self.cluster != [1, 1, 1]),
            // `%warpid` is per warp: the caller substitutes it.
            Special::Warpid => return Err(None),
            Special::Nwarpid => u64::from(self.threads().div_ceil(32)),
            Special::DynamicSmemSize => u64::from(self.dynamic_shared),
            Special::TotalSmemSize => u64::from(self.program.static_shared + self.dynamic_shared),
            Special::WarpSize => 32,
            Special::GridWorkspace => super::ir::GRID_WORKSPACE_HALF,
            Special::Unknown => return Err(None),
        }))
    }

    /// The per-lane special registers of warp `warp`.
    fn sregs(&self, warp: u32) -> Box<[[u64; 32]; 9]> {
        let [bx, by, _] = self.block;
        let mut r = Box::new([[0u64; 32]; 9]);
        for lane in 0..32u32 {
            let t = warp * 32 + lane;
            let l = lane as usize;
            r[0][l] = u64::from(t % bx);
            r[1][l] = u64::from(t / bx % by);
            r[2][l] = u64::from(t / (bx * by));
            r[3][l] = u64::from(lane);
            let lt = (1u64 << lane) - 1;
            let le = (2u64 << lane) - 1;
            r[4][l] = 1u64 << lane;
            r[5][l] = lt;
            r[6][l] = le;
            r[7][l] = u64::from(!(le as u32));
            r[8][l] = u64::from(!(lt as u32));
        }
        r
    }
}

/// What one block's run came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BlockRun {
    /// Warp instructions executed (the step count).
    pub steps: u64,
}

/// Runs one block of `ctx`'s kernel, driving `consumer` (its
/// `begin_block`/`end_block` are the caller's), adding to `notes`.
pub(crate) fn run_block<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<BlockRun, Error> {
    run(ctx, consumer, notes, None)
}

/// The most words a block's key may take (64 MiB): a longer one is not
/// kept, and the block is run on its own.
pub(crate) const MAX_KEY_WORDS: usize = 1 << 23;

/// A key run's state: the slice it follows and the key so far.
struct KeyRun<'s> {
    slice: &'s Slice,
    key: Vec<u64>,
    /// How its global loads' equalities go into the key: `None` while every
    /// numbered load's bytes are new in their epoch (nothing to write but
    /// its lanes), with the byte ranges read in the epoch `distinct.0`
    /// (start to end, adjacent ones merged); else by first occurrence.
    distinct: Option<(u64, BTreeMap<u64, u64>)>,
    first: FirstSeen,
    /// Set where a load's bytes were read before: the run starts again by
    /// first occurrence.
    again: bool,
}

/// In a key, `NEW_LOADS | n`: the next `n` loads are new ones. No first
/// occurrence is written so (they are below
/// [`MAX_FIRST_SEEN`](super::number::MAX_FIRST_SEEN)), so the key
/// stays exact.
const NEW_LOADS: u64 = 1 << 63;

impl KeyRun<'_> {
    /// A numbered global load of `pieces` pieces of `bytes` bytes (at most
    /// 8) at the addresses `a` in the lanes `lanes`, in epoch `epoch`: in
    /// the key, nothing (every byte new in its epoch), or its pieces' first
    /// occurrences, piece by piece, lane by lane, as the interpreter numbers
    /// them, a run of new ones as one word. `Err` where it cannot be keyed:
    /// an address or epoch past what [`Numbers::packed`] packs, bytes read
    /// before in the distinct mode (`again` set), too many loads.
    fn loads(
        &mut self,
        a: &Lanes,
        lanes: u32,
        (bytes, pieces, signed): (u32, u32, bool),
        epoch: u64,
    ) -> Result<(), Error> {
        let width = u64::from(bytes * pieces);
        let packs = lanes_of(lanes).all(|l| {
            a.v[l]
                .checked_add(width)
                .is_some_and(|end| Numbers::packed(end - 1, bytes, signed, epoch).is_some())
        });
        if !packs {
            return Err(Error::Interrupted);
        }
        if let Some((at, ranges)) = &mut self.distinct {
            if *at != epoch {
                *at = epoch;
                ranges.clear();
            }
            let mut runs: Vec<(u64, u64)> =
                lanes_of(lanes).map(|l| (a.v[l], a.v[l] + width)).collect();
            runs.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
            for (start, end) in runs {
                match merged.last_mut() {
                    Some(last) if last.1 > start => {
                        self.again = true;
                        return Err(Error::Interrupted);
                    }
                    Some(last) if last.1 == start => last.1 = end,
                    _ => merged.push((start, end)),
                }
            }
            for (start, end) in merged {
                let before = ranges.range(..end).next_back().map(|(&s, &e)| (s, e));
                if before.is_some_and(|(_, e)| e > start) {
                    self.again = true;
                    return Err(Error::Interrupted);
                }
                // Adjacent ranges as one: a tile's rows, read in order.
                let (mut start, mut end) = (start, end);
                if let Some((s, e)) = before.filter(|&(_, e)| e == start) {
                    ranges.remove(&s);
                    start = s;
                    let _ = e;
                }
                if let Some(e) = ranges.remove(&end) {
                    end = e;
                }
                ranges.insert(start, end);
            }
            return Ok(());
        }
        let mut new = 0;
        for i in 0..pieces {
            for l in lanes_of(lanes) {
                let at = a.v[l] + u64::from(bytes * i);
                let packed = Numbers::packed(at, bytes, signed, epoch).ok_or(Error::Interrupted)?;
                let next = self.first.len();
                let n = self.first.index(packed).ok_or(Error::Interrupted)?;
                if n == next {
                    new += 1;
                    continue;
                }
                if new > 0 {
                    self.key.push(NEW_LOADS | new);
                    new = 0;
                }
                self.key.push(n);
            }
        }
        if new > 0 {
            self.key.push(NEW_LOADS | new);
        }
        Ok(())
    }

    /// The values of the lanes of `mask` that know `v`, the bits `bits` of
    /// each: the known lanes, then their values.
    fn value(&mut self, v: &Opnd<'_>, mask: u32, bits: u64) {
        let known = v.known() & mask;
        self.key.push(u64::from(known));
        if bits == super::slice::LINE_RELATIVE {
            let line = lanes_of(known).next().map_or(0, |l| v.val(l) & !127);
            for lane in lanes_of(known) {
                self.key
                    .push(v.val(lane).wrapping_sub(line) & u64::from(u32::MAX));
            }
            return;
        }
        for lane in lanes_of(known) {
            self.key.push(v.val(lane) & bits);
        }
    }
}

/// A consumer that is told nothing worth keeping: a key run's.
struct Discard;

impl Consumer for Discard {
    fn event(&mut self, _: u32, _: &Event<'_>) -> Result<(), Error> {
        Ok(())
    }
}

/// Block `ctx.block_id`'s key ([`slice`](super::slice)): what its run of
/// `slice` gives, or `None` where that run stops short (an error, the step
/// budget, a key of more than [`MAX_KEY_WORDS`]): then the block is run.
///
/// The run assumes first that no numbered load reads a byte read before
/// in its epoch (a tile copied once: nothing but the lanes goes into the
/// key); where one does, it runs again, writing each load's first
/// occurrence. The key's first word says which.
pub(crate) fn block_key(ctx: &Ctx<'_>, slice: &Slice) -> Option<Vec<u64>> {
    let mut key = KeyRun {
        slice,
        key: vec![0],
        distinct: Some((0, BTreeMap::new())),
        first: FirstSeen::default(),
        again: false,
    };
    match run(ctx, &mut Discard, &mut Notes::new(), Some(&mut key)) {
        Ok(_) => return Some(key.key),
        Err(_) if key.again => {}
        Err(_) => return None,
    }
    let mut key = KeyRun {
        slice,
        key: vec![1],
        distinct: None,
        first: FirstSeen::default(),
        again: false,
    };
    run(ctx, &mut Discard, &mut Notes::new(), Some(&mut key)).ok()?;
    Some(key.key)
}

/// [`run_block`], or with `key` its key run: only the slice's instructions
/// run, and their values go into the key.
fn run<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    consumer: &mut C,
    notes: &mut Notes,
    mut key: Option<&mut KeyRun<'_>>,
) -> Result<BlockRun, Error> {
    let program = ctx.program;
    let entry = &program.functions[ctx.entry as usize];
    let threads = ctx.threads();
    let warps_count = threads.div_ceil(32);
    check_state(frame_bytes(entry), warps_count, &entry.name)?;
    let mut shared = Shared::new(ctx.shared_end as usize);
    let mut warps: Vec<Warp> = (0..warps_count)
        .map(|id| {
            let live = threads - 32 * id;
            let mask = if live >= 32 { FULL } else { (1u32 << live) - 1 };
            let mut warp = Warp {
                id,
                stack: vec![Entry {
                    pc: 0,
                    rpc: entry.insts.len() as u32,
                    mask,
                    call: false,
                }],
                frames: Vec::new(),
                vals: SPARE_REGISTERS
                    .with(|spare| spare.borrow_mut().pop())
                    .unwrap_or_default(),
                known: Vec::new(),
                nums: Vec::new(),
                pvals: Vec::new(),
                pknown: Vec::new(),
                state: State::Ready,
                forced: None,
                sregs: ctx.sregs(id),
                reg_base: 0,
                gmma_open: Vec::new(),
                gmma_groups: std::collections::VecDeque::new(),
            };
            warp.push_frame(entry, ctx.entry, None);
            for (param, arg) in entry.params.iter().zip(ctx.args) {
                for (b, &byte) in arg.iter().enumerate().take(param.bytes as usize) {
                    let i = param.offset as usize + b;
                    warp.pvals[i] = [byte; 32];
                    warp.pknown[i] = FULL;
                }
            }
            warp
        })
        .collect();
    let mut barriers: Vec<Barrier> = vec![Barrier::default(); 16];
    let mut numbers = SpareNumbers(
        SPARE_NUMBERS
            .with(|spare| spare.borrow_mut().take())
            .unwrap_or_default(),
    );
    let numbers = &mut numbers.0;
    let mut steps = 0u64;
    loop {
        let mut ran = false;
        for warp in &mut warps {
            if warp.state == State::Ready {
                ran = true;
                run_warp(
                    ctx,
                    warp,
                    (&mut shared, &mut *numbers),
                    &mut barriers,
                    &mut steps,
                    consumer,
                    notes,
                    key.as_deref_mut(),
                )?;
            }
        }
        if warps.iter().all(|w| w.state == State::Done) {
            break;
        }
        // Warps waiting on an mbarrier phase that has completed go on.
        let mut woke = false;
        for warp in &mut warps {
            if let State::MbarWait { bar, phase } = warp.state
                && shared.mbars.done(bar, phase)
            {
                warp.state = State::Ready;
                woke = true;
            }
        }
        if woke {
            continue;
        }
        let live: u32 = warps.iter().filter(|w| w.state != State::Done).count() as u32;
        let mut released = false;
        for (id, barrier) in barriers.iter_mut().enumerate() {
            if barrier.waiting.is_empty() {
                continue;
            }
            let complete = match barrier.count {
                Some(count) => barrier.arrived >= count,
                None => barrier.waiting.len() as u32 >= live,
            };
            if complete {
                release(barrier, &mut warps);
                let _ = id;
                released = true;
            }
        }
        if !released && !ran {
            // Every live warp waits and no barrier completes. A warp waiting
            // on an mbarrier phase that cannot complete any more is answered
            // "incomplete" once; waiting for it again, it would hang: it
            // ends.
            if let Some(warp) = warps
                .iter_mut()
                .find(|w| matches!(w.state, State::MbarWait { .. }))
            {
                let State::MbarWait { bar, phase } = warp.state else {
                    unreachable!("found as waiting on an mbarrier")
                };
                if warp.forced == Some((bar, phase, true)) {
                    warp.state = State::Done;
                    warp.stack.clear();
                } else {
                    warp.forced = Some((bar, phase, false));
                    warp.state = State::Ready;
                }
                continue;
            }
            // Release the lowest barrier with waiters, and say so.
            if let Some(barrier) = barriers.iter_mut().find(|b| !b.waiting.is_empty()) {
                if let Some(&w) = barrier.waiting.first() {
                    let warp = &warps[w as usize];
                    if let Some(top) = warp.stack.last() {
                        let frame = warp.frame();
                        note(
                            notes,
                            frame.func,
                            top.pc.saturating_sub(1),
                            NoteKind::ForcedBarrier,
                        );
                    }
                }
                release(barrier, &mut warps);
            } else {
                break;
            }
        }
    }
    Ok(BlockRun { steps })
}

fn release(barrier: &mut Barrier, warps: &mut [Warp]) {
    let result = barrier.red.map(|(_, r)| r);
    for &(w, reg, mask) in &barrier.red_dst {
        let warp = &mut warps[w as usize];
        match result.flatten() {
            Some(r) => {
                for lane in lanes_of(mask) {
                    warp.vals[reg][lane] = r;
                }
                warp.known[reg] |= mask;
            }
            None => warp.known[reg] &= !mask,
        }
        warp.nums[reg] &= !mask;
    }
    for &w in &barrier.waiting {
        warps[w as usize].state = State::Ready;
    }
    *barrier = Barrier::default();
}

/// Runs warp `warp` until it waits at a barrier or ends.
#[allow(clippy::too_many_arguments)]
fn run_warp<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    (shared, numbers): (&mut Shared, &mut Numbers),
    barriers: &mut [Barrier],
    steps: &mut u64,
    consumer: &mut C,
    notes: &mut Notes,
    mut key: Option<&mut KeyRun<'_>>,
) -> Result<(), Error> {
    let program = ctx.program;
    loop {
        let Some(top) = warp.stack.last().copied() else {
            warp.state = State::Done;
            // A warpgroup that ends without waiting for its wgmmas: their
            // reads happen before the block ends.
            return gmma_retire(warp, consumer, 0, true);
        };
        if top.mask == 0 || top.pc == top.rpc {
            warp.stack.pop();
            if top.call {
                return_from_call(program, warp);
            }
            continue;
        }
        let frame = warp.frame();
        let func = &program.functions[frame.func as usize];
        let Some(inst) = func.insts.get(top.pc as usize) else {
            // Past the last instruction: the function's exit.
            if let Some(t) = warp.stack.last_mut() {
                t.pc = t.rpc;
            }
            warp.stack.pop();
            if top.call {
                return_from_call(program, warp);
            }
            continue;
        };
        *steps += 1;
        if *steps > ctx.budget {
            return Err(Error::StepBudget {
                budget: ctx.budget,
                ptx_line: inst.site.pc,
                line: inst.site.line.unwrap_or(0),
                inst: program.names[inst.name as usize].clone(),
            });
        }
        let (mask, unsure) = match inst.guard {
            None => (top.mask, 0),
            Some((p, negate)) => {
                let g = warp.read(ctx, Src::Reg(p));
                let truth = if negate {
                    !g.v_nonzero()
                } else {
                    g.v_nonzero()
                };
                (top.mask & g.known() & truth, top.mask & !g.known())
            }
        };
        let here = (frame.func, top.pc);
        // A key run: the slice's values before the instruction, and past it
        // unless the slice runs it.
        let mut numbering = true;
        let mut loaded = None;
        if let Some(k) = key.as_deref_mut() {
            let role = k.slice.role(here.0, here.1);
            if !role.record.is_empty() || role.numbers {
                k.key.push(u64::from(here.0) << 32 | u64::from(here.1));
                k.key.push(u64::from(warp.id) << 32 | u64::from(top.mask));
                for &(s, bits) in &role.record {
                    k.value(&warp.read(ctx, s), top.mask, bits);
                }
                if k.key.len() > MAX_KEY_WORDS {
                    return Err(Error::Interrupted);
                }
            }
            if !role.run {
                // On to the next instruction the slice needs, in one step
                // (no branch between), counting the steps skipped.
                if let Some(t) = warp.stack.last_mut() {
                    let to = role.next.min(t.rpc).max(t.pc + 1);
                    *steps += u64::from(to - t.pc - 1);
                    t.pc = to;
                }
                if *steps > ctx.budget {
                    return Err(Error::Interrupted);
                }
                continue;
            }
            // A key run numbers nothing: it writes which of its global
            // loads are equal itself.
            numbering = false;
            if role.numbers
                && let Kind::Ld {
                    ds, addr, piece, ..
                } = &inst.kind
            {
                // The addresses before the load (it may write its base).
                loaded = Some((addresses(warp, ctx, addr), *piece / 8, ds.len() as u32));
            }
        }
        match &inst.kind {
            Kind::Bra { target } => {
                if unsure != 0 {
                    note(notes, here.0, here.1, NoteKind::DataDependentBranch);
                }
                branch(warp, func, top, mask, *target);
                continue;
            }
            Kind::Ret => {
                if unsure != 0 {
                    note(notes, here.0, here.1, NoteKind::DataDependentBranch);
                }
                branch(warp, func, top, mask, func.insts.len() as u32);
                continue;
            }
            Kind::Exit => {
                if unsure != 0 {
                    note(notes, here.0, here.1, NoteKind::DataDependentBranch);
                }
                for e in &mut warp.stack {
                    e.mask &= !mask;
                }
                if let Some(t) = warp.stack.last_mut() {
                    if t.mask != 0 {
                        t.pc += 1;
                    }
                }
                continue;
            }
            Kind::Call {
                func: callee,
                args,
                rets,
            } => {
                let callee_fn = &program.functions[*callee as usize];
                if let Some(t) = warp.stack.last_mut() {
                    t.pc += 1;
                }
                if mask == 0 {
                    continue;
                }
                if warp.frames.len() >= MAX_CALL_DEPTH {
                    return Err(Error::CallDepth {
                        depth: MAX_CALL_DEPTH as u32,
                        function: callee_fn.name.clone(),
                    });
                }
                // Arguments: the caller's param variables, copied into the
                // callee's parameters.
                let caller = warp.frame();
                let copies: Vec<(usize, usize, u32)> = args
                    .iter()
                    .zip(&callee_fn.params)
                    .map(|(a, p)| {
                        (
                            caller.param_base + a.offset as usize,
                            p.offset as usize,
                            a.bytes.min(p.bytes),
                        )
                    })
                    .collect();
                let _ = rets;
                // Every warp may go as deep: the block's state is bounded by
                // this warp's times the warps.
                let held = warp.vals.len() as u64 * REGISTER_BYTES
                    + warp.pvals.len() as u64 * PARAM_BYTE_BYTES;
                check_state(
                    held + frame_bytes(callee_fn),
                    ctx.threads().div_ceil(32),
                    &callee_fn.name,
                )?;
                warp.push_frame(callee_fn, *callee, Some(here));
                let base = warp.frame().param_base;
                for (from, to, n) in copies {
                    for b in 0..n as usize {
                        warp.pvals[base + to + b] = warp.pvals[from + b];
                        warp.pknown[base + to + b] = warp.pknown[from + b];
                    }
                }
                warp.stack.push(Entry {
                    pc: 0,
                    rpc: callee_fn.insts.len() as u32,
                    mask,
                    call: true,
                });
                continue;
            }
            Kind::Bar { kind, id, count } => {
                if let Some(t) = warp.stack.last_mut() {
                    t.pc += 1;
                }
                place(program, consumer, inst);
                let idv = warp.read(ctx, *id);
                let countv = count.map(|c| warp.read(ctx, c));
                let lane0 = lanes_of(top.mask).next().unwrap_or(0);
                let Some(idn) = idv.get(lane0).bits().filter(|&i| i < 16) else {
                    consumer.event(
                        warp.id,
                        &Event::Unmodelled {
                            site: inst.site,
                            lanes: LaneSet::from_bits(mask),
                            name: &program.names[inst.name as usize],
                        },
                    )?;
                    note(notes, here.0, here.1, NoteKind::Unmodelled);
                    continue;
                };
                let threads = countv.and_then(|c| c.get(lane0).bits()).map(|c| c as u32);
                let event_kind = match kind {
                    BarKind::Sync => BarrierKind::Sync,
                    BarKind::Arrive => BarrierKind::Arrive,
                    BarKind::Red { .. } => BarrierKind::Reduce,
                };
                consumer.event(
                    warp.id,
                    &Event::Barrier {
                        site: inst.site,
                        lanes: LaneSet::from_bits(mask),
                        id: idn as u32,
                        threads,
                        kind: event_kind,
                    },
                )?;
                if mask == 0 {
                    continue;
                }
                let barrier = &mut barriers[idn as usize];
                barrier.arrived += 32;
                if threads.is_some() {
                    barrier.count = threads;
                }
                if let BarKind::Red {
                    op,
                    dst,
                    pred,
                    negate,
                } = kind
                {
                    let p = warp.read(ctx, *pred);
                    let mut acc = barrier.red.map_or(
                        Some(match op {
                            BarRed::Popc | BarRed::Or => 0,
                            BarRed::And => 1,
                        }),
                        |(_, a)| a,
                    );
                    for lane in lanes_of(mask) {
                        let v = p.pred(lane).map(|b| b != *negate);
                        acc = match (acc, v) {
                            (Some(a), Some(b)) => Some(match op {
                                BarRed::Popc => a + u64::from(b),
                                BarRed::And => a & u64::from(b),
                                BarRed::Or => a | u64::from(b),
                            }),
                            _ => None,
                        };
                    }
                    barrier.red = Some((*op, acc));
                    if let Some(d) = dst {
                        barrier
                            .red_dst
                            .push((warp.id, frame.reg_base + *d as usize, mask));
                    }
                }
                if !matches!(kind, BarKind::Arrive) {
                    barrier.waiting.push(warp.id);
                    warp.state = State::Waiting;
                    return Ok(());
                }
                continue;
            }
            Kind::Mbar { .. } | Kind::Bulk(_) | Kind::Mapa { .. } | Kind::CpAsyncArrive { .. } => {
                if let Some(t) = warp.stack.last_mut() {
                    t.pc += 1;
                }
                place(program, consumer, inst);
                let site = inst.site;
                let name = program.names[inst.name as usize].as_str();
                let flow = asyncs::run(
                    ctx,
                    warp,
                    shared,
                    inst,
                    mask,
                    (site, name, here),
                    consumer,
                    notes,
                )?;
                if flow == asyncs::Flow::Block {
                    // Run again when woken.
                    if let Some(t) = warp.stack.last_mut() {
                        t.pc -= 1;
                    }
                    return Ok(());
                }
                continue;
            }
            _ => {}
        }
        if let Some(t) = warp.stack.last_mut() {
            t.pc += 1;
        }
        if unknown_results(ctx, warp, here, mask, numbering) {
            continue;
        }
        let site = inst.site;
        let name = program.names[inst.name as usize].as_str();
        if emits(&inst.kind) {
            place(program, consumer, inst);
        }
        execute(
            ctx,
            warp,
            (&mut *shared, &mut *numbers, numbering),
            inst,
            mask,
            unsure,
            site,
            name,
            here,
            consumer,
            notes,
        )?;
        if let (Some(k), Some((a, bytes, pieces))) = (key.as_deref_mut(), loaded) {
            // A numbered load, as run_inst numbers it: the lanes that run
            // it, those of them that know their address, and (up to 8
            // bytes a piece) which of the pieces they read are equal.
            let lanes = mask & a.known();
            k.key.push(u64::from(mask) << 32 | u64::from(lanes));
            if bytes <= 8 {
                let signed = ctx.plan.load_class(inst.name).unwrap_or(false);
                k.loads(&a, lanes, (bytes, pieces, signed), numbers.epoch())?;
            }
        }
    }
}

/// Forgets the results of a pure instruction that cannot know them in any
/// lane of `mask`, and says whether it did ([`Prepared`](super::prepared)):
/// an operand it cannot do without is unknown in every lane (and, where it
/// numbers its results, unnumbered: value numbering names a lane only where
/// every operand is known or numbered), or every operand is. Running it lane
/// by lane would only find that out. The commonest instruction of a kernel
/// that computes on global data: most of dxtc's warp instructions (`lop3`,
/// whose table may be constant, and `prmt`, `bfi` run as usual).
///
/// Inlined into the dispatch loop, which runs it before every instruction: a
/// call cost dxtc more than the check (callgrind: 20 of 90 instructions).
#[inline(always)]
fn unknown_results(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    here: (u32, u32),
    mask: u32,
    numbering: bool,
) -> bool {
    let Some(p) = ctx.plan.prepared(here.0, here.1) else {
        return false;
    };
    p.unknown_results(
        (&mut warp.known, &mut warp.nums, warp.reg_base),
        mask,
        numbering,
    )
}

/// The reads of the warp's `wgmma` groups but the `pending` most recent
/// ([`Event::GmmaReads`]), at the wait that retires them; with `all`, the
/// uncommitted ones too (the warp ends).
fn gmma_retire<C: Consumer + ?Sized>(
    warp: &mut Warp,
    consumer: &mut C,
    pending: u32,
    all: bool,
) -> Result<(), Error> {
    if all && !warp.gmma_open.is_empty() {
        let group = std::mem::take(&mut warp.gmma_open);
        warp.gmma_groups.push_back(group);
    }
    while warp.gmma_groups.len() > pending as usize {
        let Some(group) = warp.gmma_groups.pop_front() else {
            break;
        };
        for (site, chunks) in &group {
            consumer.event(
                warp.id,
                &Event::GmmaReads {
                    site: *site,
                    chunks,
                },
            )?;
        }
    }
    Ok(())
}

/// An integer `add`, `and`, `or` or `xor` on shared memory whose words
/// and operands are all known: the lanes apply it in lane order (a
/// modelling choice: the hardware's order is not specified; the memory's
/// final value is the same in any order) and get the old values. Any other
/// atomic, or one with something unknown, forgets the bytes it touches.
fn atomic_values(
    shared: &mut Shared,
    kind: crate::AtomicKind,
    bytes: u32,
    offsets: &[u32; 32],
    mask: u32,
    v: &Lanes,
) -> Option<Lanes> {
    use crate::AtomicKind as K;
    let f = |old: u64, x: u64| match kind {
        K::Add => Some(old.wrapping_add(x)),
        K::And => Some(old & x),
        K::Or => Some(old | x),
        K::Xor => Some(old ^ x),
        _ => None,
    };
    let bits = 8 * bytes;
    let keep = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let known = matches!(kind, K::Add | K::And | K::Or | K::Xor)
        && matches!(bytes, 4 | 8)
        && v.known() & mask == mask
        && lanes_of(mask).all(|l| shared.load(u64::from(offsets[l]), bytes).bits().is_some());
    if !known {
        for lane in lanes_of(mask) {
            shared.forget(u64::from(offsets[lane]), bytes);
        }
        return None;
    }
    let mut olds = Lanes::UNKNOWN;
    for lane in lanes_of(mask) {
        let at = u64::from(offsets[lane]);
        let old = shared.load(at, bytes).bits()? & keep;
        let new = f(old, v.v[lane])? & keep;
        shared.store(at, bytes, Value::known(new));
        olds.v[lane] = old;
        olds.k |= 1 << lane;
    }
    Some(olds)
}

/// Whether an instruction of this kind may give the consumer an event (a
/// load from global, local, constant or param memory gives none, and is not
/// placed: dxtc's table lookups in constant memory).
fn emits(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Ld {
            space: Space::Shared | Space::SharedCluster | Space::Generic,
            ..
        } | Kind::St { .. }
            | Kind::Atom { .. }
            | Kind::LdMatrix { .. }
            | Kind::StMatrix { .. }
            | Kind::Wmma { .. }
            | Kind::Wgmma { .. }
            | Kind::WgmmaCommit
            | Kind::WgmmaWait { .. }
            | Kind::CpAsync { .. }
            | Kind::CpAsyncCommit
            | Kind::CpAsyncWait { .. }
            | Kind::CpAsyncArrive { .. }
            | Kind::BarWarp { .. }
            | Kind::Fence
            | Kind::Unmodelled { .. }
    )
}

/// Tells the consumer which instruction the next events come from: its PTX
/// line, opcode and source file.
fn place<C: Consumer + ?Sized>(program: &Program, consumer: &mut C, inst: &Inst) {
    let name = program.names[inst.name as usize].as_str();
    let mut place = Place::new(0, inst.site.pc, name);
    if let Some(file) = inst.site.file.and_then(|f| program.file_name(f)) {
        place = place.with_source_file(file);
    }
    consumer.place(&place);
}

fn branch(warp: &mut Warp, func: &Function, top: Entry, taken: u32, target: u32) {
    let Some(t) = warp.stack.last_mut() else {
        return;
    };
    if taken == top.mask {
        t.pc = target;
    } else if taken == 0 {
        t.pc = top.pc + 1;
    } else {
        let rpc = func
            .ipdom
            .get(top.pc as usize)
            .copied()
            .unwrap_or(func.insts.len() as u32);
        t.pc = rpc;
        warp.stack.push(Entry {
            pc: top.pc + 1,
            rpc,
            mask: top.mask & !taken,
            call: false,
        });
        warp.stack.push(Entry {
            pc: target,
            rpc,
            mask: taken,
            call: false,
        });
    }
}

fn return_from_call(program: &Program, warp: &mut Warp) {
    let frame = warp.frame();
    let callee = &program.functions[frame.func as usize];
    let Some((caller_func, call_pc)) = frame.call_site else {
        return;
    };
    let rets: Vec<(usize, usize, u32)> = match program.functions[caller_func as usize]
        .insts
        .get(call_pc as usize)
        .map(|i| &i.kind)
    {
        Some(Kind::Call { rets, .. }) => rets
            .iter()
            .zip(&callee.rets)
            .map(|(to, from)| {
                (
                    from.offset as usize,
                    to.offset as usize,
                    from.bytes.min(to.bytes),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    let callee_base = frame.param_base;
    let mut moved: Vec<([u8; 32], u32, usize)> = Vec::new();
    for (from, to, n) in rets {
        for b in 0..n as usize {
            moved.push((
                warp.pvals[callee_base + from + b],
                warp.pknown[callee_base + from + b],
                to + b,
            ));
        }
    }
    warp.pop_frame();
    let base = warp.frame().param_base;
    for (v, k, to) in moved {
        if base + to < warp.pvals.len() {
            warp.pvals[base + to] = v;
            warp.pknown[base + to] = k;
        }
    }
}

/// Per-lane results of a memory operand: the addresses where known.
fn addresses(warp: &Warp, ctx: &Ctx<'_>, addr: &Addr) -> Lanes {
    let base = warp.read(ctx, addr.base);
    let offset = addr.offset as u64;
    Lanes {
        v: core::array::from_fn(|i| base.val(i).wrapping_add(offset)),
        k: base.known(),
    }
}

/// Where a memory instruction's lanes go.
enum Target {
    /// Every executing lane in shared memory, at these offsets.
    Shared([u32; 32]),
    /// Every executing lane elsewhere (global, local, ...).
    Other,
    /// Some lane's address is unknown.
    Unknown,
    /// Shared and non-shared lanes together (generic addresses).
    Mixed,
}

fn target(space: Space, a: &Lanes, mask: u32) -> Target {
    if mask & !a.known() != 0 {
        return match space {
            Space::Shared | Space::SharedCluster | Space::Generic => Target::Unknown,
            _ => Target::Other,
        };
    }
    let mut offsets = [0u32; 32];
    match space {
        Space::Shared => {
            // A .shared address is the low 32 bits of the register, whatever
            // its width: SASS's LDS/STS/ATOMS take a 32-bit address, so
            // `s[-1]` through a 64-bit register (0xffff_ffff_ffff_fffc past
            // `s`) is the same access as through a 32-bit one (0xffff_fffc),
            // and both are out of bounds (issue 36: the 64-bit one was "not
            // modelled" and the 32-bit one memcheck's error).
            for (lane, (slot, &x)) in offsets.iter_mut().zip(&a.v).enumerate() {
                // Lanes that do not execute: 0 (branch-free, vectorized).
                *slot = x as u32 & (mask >> lane & 1).wrapping_neg();
            }
            Target::Shared(offsets)
        }
        // A `.shared::cluster` address: this block's own shared memory
        // below 2^24; another block's (`mapa`) is distributed shared memory,
        // not modelled, never taken for this block's.
        Space::SharedCluster => {
            for lane in lanes_of(mask) {
                match u32::try_from(a.val(lane)) {
                    Ok(o) if o >> CLUSTER_RANK_SHIFT == 0 => offsets[lane] = o,
                    _ => return Target::Mixed,
                }
            }
            Target::Shared(offsets)
        }
        Space::Generic => {
            let (mut inside, mut outside) = (false, false);
            for lane in lanes_of(mask) {
                // Another block's shared memory (`mapa`): not modelled.
                if a.val(lane).wrapping_sub(CLUSTER_WINDOW_BASE) < 1 << 40 {
                    return Target::Mixed;
                }
                let rel = a.val(lane).wrapping_sub(SHARED_WINDOW_BASE);
                match u32::try_from(rel) {
                    Ok(o) => {
                        offsets[lane] = o;
                        inside = true;
                    }
                    Err(_) => outside = true,
                }
            }
            match (inside, outside) {
                (true, true) => Target::Mixed,
                (true, false) => Target::Shared(offsets),
                _ => Target::Other,
            }
        }
        _ => Target::Other,
    }
}

#[allow(clippy::too_many_arguments)]
fn access<C: Consumer + ?Sized>(
    consumer: &mut C,
    warp: u32,
    site: Site,
    name: &str,
    op: Op,
    width: u32,
    mask: u32,
    offsets: &[u32; 32],
) -> Result<(), Error> {
    access_unchanged(consumer, warp, site, name, op, width, (mask, 0), offsets)
}

/// [`access`] of the lanes `mask`, of which the lanes `unchanged` (a
/// store's) write what memory holds ([`Consumer::event_unchanged`]).
#[allow(clippy::too_many_arguments)]
fn access_unchanged<C: Consumer + ?Sized>(
    consumer: &mut C,
    warp: u32,
    site: Site,
    name: &str,
    op: Op,
    width: u32,
    (mask, unchanged): (u32, u32),
    offsets: &[u32; 32],
) -> Result<(), Error> {
    let request = WarpRequest::from_offsets(op, width, LaneSet::from_bits(mask), offsets).map_err(
        |error| Error::PtxInstruction {
            inst: name.to_owned(),
            line: site.line.unwrap_or(0),
            error: Box::new(error),
        },
    )?;
    let event = Event::Access { site, request };
    if unchanged == 0 {
        consumer.event(warp, &event)
    } else {
        consumer.event_unchanged(warp, &event, LaneSet::from_bits(unchanged))
    }
}

/// An access as ptxas issues it (see [`Merge`]): a merge's carrier issues
/// the merged request, a folded access none, where the merged access is
/// aligned in every lane, as the merge pass proved it is. If it is not (the
/// launch placed memory where the proof did not expect it), each access is
/// issued as written. `unchanged`: the lanes of a store that write what
/// memory holds, for its own access (a merged one says none).
#[allow(clippy::too_many_arguments)]
fn merged_access<C: Consumer + ?Sized>(
    consumer: &mut C,
    (warp, site, name): (u32, Site, &str),
    op: Op,
    merge: Merge,
    width: u32,
    (mask, unchanged): (u32, u32),
    offsets: &[u32; 32],
) -> Result<(), Error> {
    // The widths are powers of two: a mask, not a division.
    let aligned = |delta: u32, w: u32| {
        let mut low = 0;
        if mask == FULL {
            for &o in offsets {
                low |= o.wrapping_sub(delta);
            }
        } else {
            for (l, &o) in offsets.iter().enumerate() {
                low |= o.wrapping_sub(delta) * (mask >> l & 1);
            }
        }
        low & (w - 1) == 0
    };
    match merge {
        Merge::Carry { width: w, back } if aligned(back, w) => {
            let mut at = *offsets;
            at.iter_mut().for_each(|o| *o = o.wrapping_sub(back));
            access(consumer, warp, site, name, op, w, mask, &at)
        }
        Merge::Folded { delta, width: w } if aligned(delta, w) => Ok(()),
        _ => access_unchanged(
            consumer,
            warp,
            site,
            name,
            op,
            width,
            (mask, unchanged),
            offsets,
        ),
    }
}

/// The merge of an access inside a loop ptxas unrolls in the iteration
/// running now, found by the loop counter's value in the first active lane
/// (the counter is uniform: the loop's trip count is a constant); any other
/// merge as it is.
fn loop_merge(ctx: &Ctx<'_>, here: (u32, u32), warp: &Warp, merge: Merge, mask: u32) -> Merge {
    let Merge::Loop { table } = merge else {
        return merge;
    };
    let Some(m) = ctx
        .program
        .functions
        .get(here.0 as usize)
        .and_then(|f| f.loops.get(table as usize))
    else {
        return Merge::None;
    };
    let lane = (mask.trailing_zeros() as usize).min(31);
    m.at(warp.read(ctx, Src::Reg(m.counter)).get(lane).bits())
}

/// A shared access whose addresses are unknown in some lane (they depend on
/// global memory or another value the interpreter does not know): the
/// instruction still issues one request of `op` and `width` (what ptxas
/// issues for it under the merge plan, which it proved from the address
/// expression, not from the values), so it is counted; its cost is not.
#[allow(clippy::too_many_arguments)]
fn unknown_address<C: Consumer + ?Sized>(
    consumer: &mut C,
    warp: u32,
    site: Site,
    name: &str,
    op: Op,
    merge: Merge,
    width: u32,
    mask: u32,
) -> Result<(), Error> {
    let width = match merge {
        Merge::Carry { width, .. } => width,
        Merge::Folded { .. } => return Ok(()),
        Merge::None | Merge::Never | Merge::Loop { .. } => width,
    };
    let width = AccessWidth::from_bytes(width).map_err(|error| Error::PtxInstruction {
        inst: name.to_owned(),
        line: site.line.unwrap_or(0),
        error: Box::new(error),
    })?;
    if op.is_cas_loop(width) {
        // A compare-and-swap loop's rounds (its instructions) depend on the
        // addresses too: not even its instruction count is known.
        return unmodelled(consumer, warp, site, name, mask);
    }
    consumer.event(
        warp,
        &Event::UnknownAddress {
            site,
            lanes: LaneSet::from_bits(mask),
            op,
            width,
            name,
        },
    )
}

fn unmodelled<C: Consumer + ?Sized>(
    consumer: &mut C,
    warp: u32,
    site: Site,
    name: &str,
    mask: u32,
) -> Result<(), Error> {
    consumer.event(
        warp,
        &Event::Unmodelled {
            site,
            lanes: LaneSet::from_bits(mask),
            name,
        },
    )
}

fn map1(a: &Opnd<'_>, mask: u32, f: impl Fn(Value) -> Value) -> Lanes {
    let mut out = Lanes::UNKNOWN;
    for lane in lanes_of(mask) {
        out.set(lane, f(a.get(lane)));
    }
    out
}

fn map2(a: &Opnd<'_>, b: &Opnd<'_>, mask: u32, f: impl Fn(Value, Value) -> Value) -> Lanes {
    let mut out = Lanes::UNKNOWN;
    for lane in lanes_of(mask) {
        out.set(lane, f(a.get(lane), b.get(lane)));
    }
    out
}

/// Whether lanes `mask` of the operands are all unknown: then a float
/// result is unknown in every lane.
fn none_known(ops: &[&Opnd<'_>], mask: u32) -> bool {
    ops.iter().fold(0, |k, o| k | o.known()) & mask == 0
}

fn map3(
    a: &Opnd<'_>,
    b: &Opnd<'_>,
    c: &Opnd<'_>,
    mask: u32,
    f: impl Fn(Value, Value, Value) -> Value,
) -> Lanes {
    let mut out = Lanes::UNKNOWN;
    for lane in lanes_of(mask) {
        out.set(lane, f(a.get(lane), b.get(lane), c.get(lane)));
    }
    out
}

/// A float operation on bits of width 32 or 64, rounding to nearest even.
fn float_op(op: FloatOp, bits: u8, a: Value, b: Value, c: Value) -> Value {
    let needs = match op {
        FloatOp::Neg | FloatOp::Abs => 1,
        FloatOp::Fma => 3,
        _ => 2,
    };
    let (Some(a), b, c) = (a.bits(), b.bits(), c.bits()) else {
        return Value::UNKNOWN;
    };
    if (needs >= 2 && b.is_none()) || (needs == 3 && c.is_none()) {
        return Value::UNKNOWN;
    }
    let (b, c) = (b.unwrap_or(0), c.unwrap_or(0));
    if bits == 32 {
        let f = |x: u64| f32::from_bits(x as u32);
        let (x, y, z) = (f(a), f(b), f(c));
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
            FloatOp::Min => x.min(y),
            FloatOp::Max => x.max(y),
            FloatOp::Fma => x.mul_add(y, z),
            FloatOp::Neg => -x,
            FloatOp::Abs => x.abs(),
        };
        Value::known(u64::from(r.to_bits()))
    } else {
        let f = f64::from_bits;
        let (x, y, z) = (f(a), f(b), f(c));
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
            FloatOp::Min => x.min(y),
            FloatOp::Max => x.max(y),
            FloatOp::Fma => x.mul_add(y, z),
            FloatOp::Neg => -x,
            FloatOp::Abs => x.abs(),
        };
        Value::known(r.to_bits())
    }
}

fn as_f64(bits: u8, x: u64) -> f64 {
    if bits == 32 {
        f64::from(f32::from_bits(x as u32))
    } else {
        f64::from_bits(x)
    }
}

fn compare(cmp: Compare, a: Value, b: Value) -> Option<bool> {
    match cmp {
        Compare::Int(t, c) => ops::compare(t, c, a, b),
        Compare::Float {
            bits,
            rel,
            unordered,
        } => {
            let (x, y) = (as_f64(bits, a.bits()?), as_f64(bits, b.bits()?));
            let nan = x.is_nan() || y.is_nan();
            Some(match rel {
                FloatRel::Num => !nan,
                FloatRel::Nan => nan,
                _ if nan => unordered,
                FloatRel::Eq => x == y,
                FloatRel::Ne => x != y,
                FloatRel::Lt => x < y,
                FloatRel::Le => x <= y,
                FloatRel::Gt => x > y,
                FloatRel::Ge => x >= y,
            })
        }
    }
}

/// [`ops::compare`] of 32 lanes of known values, 1 where true: one loop per
/// comparison, not a `Value` round trip per lane.
fn int_compare(t: IntType, cmp: ops::Cmp, x: &[u64; 32], y: &[u64; 32], out: &mut [u64; 32]) {
    fn each(
        t: IntType,
        x: &[u64; 32],
        y: &[u64; 32],
        out: &mut [u64; 32],
        f: impl Fn(i128, i128) -> bool,
    ) {
        for ((r, &x), &y) in out.iter_mut().zip(x).zip(y) {
            *r = u64::from(f(t.extend(x), t.extend(y)));
        }
    }
    let u = t.unsigned();
    match cmp {
        ops::Cmp::Eq => each(t, x, y, out, |a, b| a == b),
        ops::Cmp::Ne => each(t, x, y, out, |a, b| a != b),
        ops::Cmp::Lt => each(t, x, y, out, |a, b| a < b),
        ops::Cmp::Le => each(t, x, y, out, |a, b| a <= b),
        ops::Cmp::Gt => each(t, x, y, out, |a, b| a > b),
        ops::Cmp::Ge => each(t, x, y, out, |a, b| a >= b),
        ops::Cmp::Lo => each(u, x, y, out, |a, b| a < b),
        ops::Cmp::Ls => each(u, x, y, out, |a, b| a <= b),
        ops::Cmp::Hi => each(u, x, y, out, |a, b| a > b),
        ops::Cmp::Hs => each(u, x, y, out, |a, b| a >= b),
    }
}

fn round(mode: Option<RoundInt>, x: f64) -> f64 {
    match mode {
        None | Some(RoundInt::Zero) => x.trunc(),
        Some(RoundInt::Nearest) => x.round_ties_even(),
        Some(RoundInt::Down) => x.floor(),
        Some(RoundInt::Up) => x.ceil(),
    }
}

fn convert(dst: Ty, src: Ty, sat: bool, mode: Option<RoundInt>, a: Value) -> Value {
    let Some(x) = a.bits() else {
        return Value::UNKNOWN;
    };
    match (dst, src) {
        (Ty::Int(d), Ty::Int(s)) => ops::cvt(d, s, a, sat),
        (Ty::Float(db @ (32 | 64)), Ty::Int(s)) => {
            let v = s.extend(x);
            // Integer to float rounds to nearest even (Rust's `as`) by
            // default; other modes only where the value is exact.
            let exact = if db == 32 {
                (v as f32) as i128 == v
            } else {
                (v as f64) as i128 == v
            };
            if !exact && !matches!(mode, None | Some(RoundInt::Nearest)) {
                return Value::UNKNOWN;
            }
            Value::known(if db == 32 {
                u64::from((v as f32).to_bits())
            } else {
                (v as f64).to_bits()
            })
        }
        (Ty::Int(d), Ty::Float(sb @ (32 | 64))) => {
            // Float to integer saturates to the destination's range, NaN
            // giving 0 (PTX ISA, cvt, "Floating Point Conversions").
            let f = as_f64(sb, x);
            if f.is_nan() {
                return Value::known(0);
            }
            let r = round(mode, f);
            let clamped = if d.signed() {
                let lo = -(2f64.powi(d.bits() as i32 - 1));
                let hi = 2f64.powi(d.bits() as i32 - 1) - 1.0;
                r.clamp(lo, hi) as i128
            } else {
                r.clamp(0.0, 2f64.powi(d.bits() as i32) - 1.0) as i128
            };
            Value::known(d.wrap(clamped))
        }
        (Ty::Float(32), Ty::Float(64)) => {
            if mode.is_some() {
                let r = round(mode, f64::from_bits(x));
                return Value::known(u64::from((r as f32).to_bits()));
            }
            Value::known(u64::from((f64::from_bits(x) as f32).to_bits()))
        }
        (Ty::Float(64), Ty::Float(32)) => {
            let f = f64::from(f32::from_bits(x as u32));
            Value::known(round_opt(mode, f).to_bits())
        }
        (Ty::Float(32), Ty::Float(32)) => {
            let f = f32::from_bits(x as u32);
            Value::known(u64::from((round_opt(mode, f64::from(f)) as f32).to_bits()))
        }
        (Ty::Float(64), Ty::Float(64)) => {
            Value::known(round_opt(mode, f64::from_bits(x)).to_bits())
        }
        _ => Value::UNKNOWN,
    }
}

fn round_opt(mode: Option<RoundInt>, x: f64) -> f64 {
    if mode.is_some() {
        round(mode, x)
    } else {
        x
    }
}

/// Runs one instruction (not a branch, call or barrier), with the value
/// numbering of its results where the plan wants them
/// ([`number`](super::number)): moves of numbers through `mov` and `selp`,
/// pure instructions hash-consed; loads, stores, atomics and shuffles number
/// in [`run_inst`].
#[allow(clippy::too_many_arguments)]
fn execute<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    (shared, numbers, numbering): (&mut Shared, &mut Numbers, bool),
    inst: &Inst,
    mask: u32,
    unsure: u32,
    site: Site,
    name: &str,
    here: (u32, u32),
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<(), Error> {
    if matches!(inst.kind, Kind::Opaque { .. } | Kind::Unmodelled { .. })
        && ctx.plan.may_write_global(inst.name)
    {
        numbers.global_write();
    }
    let wanted = numbering && ctx.plan.wants(here.0, here.1);
    let mut run = |warp: &mut Warp, numbers: &mut Numbers| {
        run_inst(
            ctx,
            warp,
            (&mut *shared, numbers, wanted),
            inst,
            mask,
            unsure,
            site,
            name,
            here,
            consumer,
            notes,
        )
    };
    if !wanted {
        return run(warp, numbers);
    }
    match &inst.kind {
        Kind::Mov {
            d,
            a: a @ Src::Reg(_),
            ..
        } => {
            let n = warp.nums_of(*a) & mask;
            let seen = (n != 0).then(|| warp.seen(ctx, *a));
            run(warp, numbers)?;
            if let Some(seen) = seen {
                warp.set_numbers(*d, n, &seen.v);
            }
        }
        Kind::Selp { d, a, b, c, .. } => {
            let (a, b, c) = (warp.seen(ctx, *a), warp.seen(ctx, *b), warp.seen(ctx, *c));
            run(warp, numbers)?;
            let unknown = mask & !warp.known[warp.reg_base + *d as usize];
            let (mut n, mut got) = ([0u64; 32], 0);
            for lane in lanes_of(unknown) {
                let number = match c.operand(lane) {
                    // `d = c ? a : b`: the chosen operand's number.
                    Some(Operand::Known(p)) => {
                        let chosen = if p != 0 { &a } else { &b };
                        match chosen.operand(lane) {
                            Some(Operand::Number(x)) => Some(x),
                            _ => None,
                        }
                    }
                    p => match (a.operand(lane), b.operand(lane), p) {
                        (Some(x), Some(y), Some(z)) => {
                            Some(numbers.op(inst.name, 0, [x, y, z, Operand::Known(0)]))
                        }
                        _ => None,
                    },
                };
                if let Some(x) = number {
                    n[lane] = x;
                    got |= 1 << lane;
                }
            }
            warp.set_numbers(*d, got, &n);
        }
        Kind::Opaque {
            ds,
            srcs: Some(srcs),
            warp: collective,
        } => {
            let seen: Vec<Seen> = srcs.iter().map(|s| warp.seen(ctx, *s)).collect();
            run(warp, numbers)?;
            opaque_numbers(warp, numbers, (inst.name, *collective), ds, &seen, mask);
        }
        _ => {
            let Some(op) = ctx.plan.pure_op(here.0, here.1) else {
                return run(warp, numbers);
            };
            // A lane is numbered only where every operand is known or
            // numbered, and its result is not known: mostly none, and then
            // the operands need not be copied.
            let numberable = op.srcs.iter().fold(mask, |lanes, s| {
                lanes & (warp.read(ctx, *s).known() | warp.nums_of(*s))
            });
            if numberable == 0 {
                return run(warp, numbers);
            }
            // Operands the instruction may overwrite are copied before it
            // runs; the others it leaves as they are, and are read after it,
            // where a lane turned out unknown.
            let overwritten = op
                .srcs
                .iter()
                .any(|s| matches!(*s, Src::Reg(r) if op.dsts.iter().any(|&(_, d)| d == r)));
            let copy = |warp: &Warp| -> [Seen; 4] {
                core::array::from_fn(|i| op.srcs.get(i).map_or(Seen::NONE, |s| warp.seen(ctx, *s)))
            };
            let mut seen = overwritten.then(|| copy(warp));
            run(warp, numbers)?;
            for &(out, d) in &op.dsts {
                let unknown = numberable & !warp.known[warp.reg_base + d as usize];
                if unknown == 0 {
                    continue;
                }
                let seen = &seen.get_or_insert_with(|| copy(warp))[..op.srcs.len()];
                let (mut n, mut got) = ([0u64; 32], 0);
                'lanes: for lane in lanes_of(unknown) {
                    let mut args = [Operand::Known(0); 4];
                    for (arg, s) in args.iter_mut().zip(seen) {
                        match s.operand(lane) {
                            Some(o) => *arg = o,
                            None => continue 'lanes,
                        }
                    }
                    n[lane] = numbers.op(inst.name, out, args);
                    got |= 1 << lane;
                }
                warp.set_numbers(d, got, &n);
            }
        }
    }
    Ok(())
}

/// Whether the lanes `mask` access `size` bytes each within the block's
/// shared memory; the first lane that does not is
/// [`Error::SharedOutOfBounds`], as compute-sanitizer's memcheck reports it.
#[allow(clippy::too_many_arguments)]
fn in_bounds(
    ctx: &Ctx<'_>,
    (warp, site, name): (u32, Site, &str),
    access: &'static str,
    offsets: &[u32; 32],
    mask: u32,
    size: u32,
) -> Result<(), Error> {
    let past = |lane: usize| u64::from(offsets[lane]) + u64::from(size) > ctx.shared_end;
    // The highest offset of all 32 lanes first (a pass that vectorizes):
    // in bounds, no lane of the mask is past the end.
    let highest = offsets.iter().fold(0, |a, &b| a.max(b));
    if u64::from(highest) + u64::from(size) <= ctx.shared_end {
        return Ok(());
    }
    let Some(first) = lanes_of(mask).find(|&l| past(l)) else {
        return Ok(());
    };
    let t = 32 * warp + first as u32;
    let [bx, by, _] = ctx.block;
    let source_line = site.line.map(|line| {
        let file = site
            .file
            .and_then(|f| ctx.program.file_name(f))
            .map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f));
        match file {
            Some(file) => format!("{file}:{line}"),
            None => format!("line {line}"),
        }
    });
    let start = u64::from(ctx.reserved);
    Err(Error::SharedOutOfBounds(Box::new(SharedAccessFault {
        access,
        size,
        inst: name.to_owned(),
        ptx_line: site.pc,
        source_line,
        thread: [t % bx, t / bx % by, t / (bx * by)],
        block: ctx.block_id,
        // The window's addresses are 32 bits: s[-1] at offset 0 is 0x3fc
        // past 1 KiB of reserved bytes, as memcheck names an address.
        address: (start + u64::from(offsets[first])) & 0xffff_ffff,
        start,
        shared_bytes: ctx.shared_end,
        lanes: lanes_of(mask).filter(|&l| past(l)).count() as u32,
    })))
}

/// Numbers the results of an instruction the interpreter does not evaluate
/// (`number.rs`): lane by lane over the lane's operands `seen`, or for a
/// warp-collective one over every lane's of `mask`; a lane (or, collective,
/// the warp) with an operand neither known nor numbered gets none.
fn opaque_numbers(
    warp: &mut Warp,
    numbers: &mut Numbers,
    (name, collective): (u32, bool),
    ds: &[u32],
    seen: &[Seen],
    mask: u32,
) {
    let ds = &ds[..ds.len().min(64)];
    let mut over = [Operand::Known(0); 32];
    let mut got = 0u32;
    if collective {
        let mut all = vec![Operand::Known(u64::from(mask))];
        for lane in lanes_of(mask) {
            for s in seen {
                match s.operand(lane) {
                    Some(o) => all.push(o),
                    None => return,
                }
            }
        }
        over = [numbers.chain(&all); 32];
        got = mask;
    } else {
        let mut args = Vec::with_capacity(seen.len());
        'lanes: for lane in lanes_of(mask) {
            args.clear();
            for s in seen {
                match s.operand(lane) {
                    Some(o) => args.push(o),
                    None => continue 'lanes,
                }
            }
            over[lane] = numbers.chain(&args);
            got |= 1 << lane;
        }
    }
    for (out, &d) in ds.iter().enumerate() {
        let lanes = got & !warp.known[warp.reg_base + d as usize];
        let mut n = [0u64; 32];
        for lane in lanes_of(lanes) {
            n[lane] = numbers.opaque(name, out as u8, collective, over[lane], lane as u32);
        }
        warp.set_numbers(d, lanes, &n);
    }
}

#[allow(clippy::too_many_arguments)]
fn run_inst<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    (shared, numbers, wanted): (&mut Shared, &mut Numbers, bool),
    inst: &Inst,
    mask: u32,
    unsure: u32,
    site: Site,
    name: &str,
    here: (u32, u32),
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<(), Error> {
    let wid = warp.id;
    match &inst.kind {
        Kind::Mov { bits, d, a } => {
            let mut v = warp.read_owned(ctx, *a);
            if *bits < 64 {
                let m = (1u64 << bits) - 1;
                v.v.iter_mut().for_each(|x| *x &= m);
            }
            warp.write(*d, &v, mask);
        }
        Kind::Pack { piece, d, parts } => {
            let parts: Vec<Lanes> = parts.iter().map(|p| warp.read_owned(ctx, *p)).collect();
            let m = if *piece >= 64 {
                u64::MAX
            } else {
                (1u64 << piece) - 1
            };
            let mut out = Lanes::splat(0);
            for (i, p) in parts.iter().enumerate() {
                out.k &= p.known();
                for lane in 0..32 {
                    out.v[lane] |= (p.val(lane) & m) << (*piece as usize * i);
                }
            }
            warp.write(*d, &out, mask);
        }
        Kind::Unpack { piece, ds, a } => {
            let v = warp.read_owned(ctx, *a);
            let m = if *piece >= 64 {
                u64::MAX
            } else {
                (1u64 << piece) - 1
            };
            for (i, d) in ds.iter().enumerate() {
                if let Some(d) = d {
                    let mut out = v;
                    out.v
                        .iter_mut()
                        .for_each(|x| *x = (*x >> (*piece as usize * i)) & m);
                    warp.write(*d, &out, mask);
                }
            }
        }
        Kind::IntBin { op, t, d, a, b } => {
            let (a, b) = (warp.read(ctx, *a), warp.read(ctx, *b));
            let out = fast_int_bin(*op, *t, &a, &b, mask)
                .unwrap_or_else(|| map2(&a, &b, mask, |x, y| op.eval(*t, x, y)));
            warp.write(*d, &out, mask);
        }
        Kind::IntUn { op, t, d, a } => {
            let a = warp.read(ctx, *a);
            let out = map1(&a, mask, |x| op.eval(*t, x));
            warp.write(*d, &out, mask);
        }
        Kind::Mad {
            t,
            half,
            sat,
            d,
            a,
            b,
            c,
        } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let out = map3(&a, &b, &c, mask, |x, y, z| {
                ops::mad(*t, *half, x, y, z, *sat)
            });
            warp.write(*d, &out, mask);
        }
        Kind::Mad24 {
            t,
            half,
            d,
            a,
            b,
            c,
        } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let out = map3(&a, &b, &c, mask, |x, y, z| ops::mad24(*t, *half, x, y, z));
            warp.write(*d, &out, mask);
        }
        Kind::Bfe { t, d, a, b, c } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let out = map3(&a, &b, &c, mask, |x, y, z| ops::bfe(*t, x, y, z));
            warp.write(*d, &out, mask);
        }
        Kind::Bfi { t, d, a, b, c, e } => {
            let (a, b, c, e) = (
                warp.read(ctx, *a),
                warp.read(ctx, *b),
                warp.read(ctx, *c),
                warp.read(ctx, *e),
            );
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask) {
                out.set(
                    lane,
                    ops::bfi(*t, a.get(lane), b.get(lane), c.get(lane), e.get(lane)),
                );
            }
            warp.write(*d, &out, mask);
        }
        Kind::Prmt { mode, d, a, b, c } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let out = map3(&a, &b, &c, mask, |x, y, z| ops::prmt(*mode, x, y, z));
            warp.write(*d, &out, mask);
        }
        Kind::Lop3 { d, a, b, c, lut } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let out = map3(&a, &b, &c, mask, |x, y, z| ops::lop3(x, y, z, *lut));
            warp.write(*d, &out, mask);
        }
        Kind::PredBin { op, d, a, b } => {
            let (a, b) = (warp.read(ctx, *a), warp.read(ctx, *b));
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask) {
                if let Some(r) = ops::bool_op(*op, a.pred(lane), b.pred(lane)) {
                    out.v[lane] = u64::from(r);
                    out.k |= 1 << lane;
                }
            }
            warp.write(*d, &out, mask);
        }
        Kind::PredNot { d, a } => {
            let a = warp.read(ctx, *a);
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask & a.known()) {
                out.v[lane] = u64::from(a.val(lane) == 0);
                out.k |= 1 << lane;
            }
            warp.write(*d, &out, mask);
        }
        Kind::Float {
            op,
            bits,
            d,
            a,
            b,
            c,
        } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            if none_known(&[&a, &b, &c], mask) {
                warp.forget(*d, mask);
                return Ok(());
            }
            let out = fast_float(*op, *bits, &a, &b, &c, mask)
                .unwrap_or_else(|| map3(&a, &b, &c, mask, |x, y, z| float_op(*op, *bits, x, y, z)));
            warp.write(*d, &out, mask);
        }
        Kind::Setp {
            cmp,
            p,
            q,
            a,
            b,
            combine,
        } => {
            let (a, b) = (warp.read(ctx, *a), warp.read(ctx, *b));
            if let (Compare::Int(t, c), None) = (*cmp, combine)
                && a.known() & b.known() & mask == mask
            {
                // Integers known in every lane (loop counters, indices): a
                // pass over the lanes without `Value`s and unknown cases.
                let (x, y) = (a.lanes(), b.lanes());
                let mut po = Lanes {
                    v: [0; 32],
                    k: mask,
                };
                int_compare(t, c, &x, &y, &mut po.v);
                if let Some(p) = p {
                    warp.write(*p, &po, mask);
                }
                if let Some(q) = q {
                    po.v.iter_mut().for_each(|r| *r ^= 1);
                    warp.write(*q, &po, mask);
                }
                return Ok(());
            }
            let c = combine.map(|(op, c, neg)| (op, warp.read(ctx, c), neg));
            let (mut po, mut qo) = (Lanes::UNKNOWN, Lanes::UNKNOWN);
            for lane in lanes_of(mask) {
                let r = compare(*cmp, a.get(lane), b.get(lane));
                let (pr, qr) = match &c {
                    None => (r, r.map(|x| !x)),
                    Some((op, c, neg)) => {
                        let cv = c.pred(lane).map(|x| x != *neg);
                        (
                            ops::bool_op(*op, r, cv),
                            ops::bool_op(*op, r.map(|x| !x), cv),
                        )
                    }
                };
                if let Some(x) = pr {
                    po.v[lane] = u64::from(x);
                    po.k |= 1 << lane;
                }
                if let Some(x) = qr {
                    qo.v[lane] = u64::from(x);
                    qo.k |= 1 << lane;
                }
            }
            if let Some(p) = p {
                warp.write(*p, &po, mask);
            }
            if let Some(q) = q {
                warp.write(*q, &qo, mask);
            }
        }
        Kind::Set {
            cmp,
            float_result,
            d,
            a,
            b,
        } => {
            let (a, b) = (warp.read(ctx, *a), warp.read(ctx, *b));
            let one = if *float_result {
                u64::from(1f32.to_bits())
            } else {
                0xffff_ffff
            };
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask) {
                if let Some(r) = compare(*cmp, a.get(lane), b.get(lane)) {
                    out.v[lane] = if r { one } else { 0 };
                    out.k |= 1 << lane;
                }
            }
            warp.write(*d, &out, mask);
        }
        Kind::Selp { bits, d, a, b, c } => {
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let m = if *bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask) {
                out.set(lane, ops::selp(a.get(lane), b.get(lane), c.pred(lane)));
                out.v[lane] &= m;
            }
            warp.write(*d, &out, mask);
        }
        Kind::Cvt {
            dst,
            src,
            sat,
            round_int,
            d,
            a,
        } => {
            let a = warp.read(ctx, *a);
            if let (Ty::Int(to), Ty::Int(from), false) = (*dst, *src, *sat)
                && a.known() & mask == mask
            {
                // Integer widening and narrowing known in every lane (the
                // commonest `cvt`, of indices): `ops::cvt` without `Value`s.
                let x = a.lanes();
                let mut out = Lanes {
                    v: [0; 32],
                    k: mask,
                };
                for (r, &x) in out.v.iter_mut().zip(&x) {
                    *r = to.wrap(from.extend(x));
                }
                warp.write(*d, &out, mask);
                return Ok(());
            }
            let out = map1(&a, mask, |x| convert(*dst, *src, *sat, *round_int, x));
            warp.write(*d, &out, mask);
        }
        Kind::CvtaWindow {
            base,
            to_generic,
            bits,
            d,
            a,
        } => {
            let a = warp.read(ctx, *a);
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask & a.known()) {
                let v = if *to_generic {
                    Some(base.wrapping_add(a.val(lane) & 0xffff_ffff))
                } else {
                    // cvta.to.shared of an address outside the window: unknown.
                    a.val(lane).checked_sub(*base).filter(|o| *o >> 32 == 0)
                };
                if let Some(v) = v {
                    out.v[lane] = if *bits == 32 { v & 0xffff_ffff } else { v };
                    out.k |= 1 << lane;
                }
            }
            warp.write(*d, &out, mask);
        }
        Kind::Ld {
            space,
            piece,
            ds,
            addr,
            merge,
        } => {
            if matches!(space, Space::Const | Space::Local) {
                // Memory the model does not hold, and numbers no load of
                // (`number`): unknown wherever it is read (dxtc's table
                // lookups by data, 10% of its warp instructions).
                for d in ds.iter().flatten() {
                    warp.forget(*d, mask);
                }
                return Ok(());
            }
            let merge = &loop_merge(ctx, here, warp, *merge, mask);
            let a = addresses(warp, ctx, addr);
            if *space == Space::Param {
                for (i, d) in ds.iter().enumerate() {
                    if let Some(d) = d {
                        let mut at = a;
                        at.v.iter_mut()
                            .for_each(|x| *x = x.wrapping_add(u64::from(piece / 8) * i as u64));
                        let v = warp.read_param(&at, piece / 8, mask);
                        warp.write(*d, &v, mask);
                    }
                }
                return Ok(());
            }
            let bytes = piece / 8;
            let width = bytes * ds.len() as u32;
            let forget = |warp: &mut Warp| {
                for d in ds.iter().flatten() {
                    warp.forget(*d, mask);
                }
            };
            match shared_target(*space, &a, mask, unsure, here, notes) {
                Target::Shared(offsets) => {
                    in_bounds(ctx, (wid, site, name), "read", &offsets, mask, width)?;
                    if width > 16 {
                        unmodelled(consumer, wid, site, name, mask)?;
                        note(notes, here.0, here.1, NoteKind::Unmodelled);
                        forget(warp);
                        return Ok(());
                    }
                    merged_access(
                        consumer,
                        (wid, site, name),
                        Op::Load,
                        *merge,
                        width,
                        (mask, 0),
                        &offsets,
                    )?;
                    for (i, d) in ds.iter().enumerate() {
                        if let Some(d) = d {
                            if shared.any_known {
                                let mut out = Lanes::UNKNOWN;
                                for lane in lanes_of(mask) {
                                    let at = u64::from(offsets[lane]) + u64::from(bytes) * i as u64;
                                    out.set(lane, shared.load(at, bytes));
                                }
                                warp.write(*d, &out, mask);
                            } else {
                                // Nothing known in shared memory: every value unknown.
                                warp.forget(*d, mask);
                            }
                            if wanted && shared.tags.is_some() {
                                let signed = ctx.plan.signed(inst.name);
                                let unknown = mask & !warp.known[warp.reg_base + *d as usize];
                                let (mut n, mut got) = ([0u64; 32], 0);
                                for lane in lanes_of(unknown) {
                                    let at = u64::from(offsets[lane]) + u64::from(bytes) * i as u64;
                                    if let Some(x) = shared.number(at, bytes) {
                                        n[lane] = numbers.shared_load(x, bytes, signed);
                                        got |= 1 << lane;
                                    }
                                }
                                warp.set_numbers(*d, got, &n);
                            }
                        }
                    }
                }
                Target::Unknown if *space == Space::Shared => {
                    unknown_address(consumer, wid, site, name, Op::Load, *merge, width, mask)?;
                    forget(warp);
                }
                Target::Unknown | Target::Mixed => {
                    unmodelled(consumer, wid, site, name, mask)?;
                    forget(warp);
                }
                Target::Other => {
                    forget(warp);
                    let class = ctx.plan.load_class(inst.name);
                    if let (true, Space::Global, Some(signed)) = (wanted, *space, class)
                        && bytes <= 8
                    {
                        // Lanes whose address is known.
                        let lanes = mask & a.known();
                        for (i, d) in ds.iter().enumerate() {
                            if let Some(d) = d {
                                let mut n = [0u64; 32];
                                for lane in lanes_of(lanes) {
                                    let at = a.v[lane].wrapping_add(u64::from(bytes) * i as u64);
                                    n[lane] = numbers.load(at, bytes, signed);
                                }
                                warp.set_numbers(*d, lanes, &n);
                            }
                        }
                    }
                }
            }
        }
        Kind::St {
            space,
            piece,
            srcs,
            addr,
            merge,
        } => {
            let merge = &loop_merge(ctx, here, warp, *merge, mask);
            let a = addresses(warp, ctx, addr);
            let bytes = piece / 8;
            if *space == Space::Param {
                let values: Vec<Lanes> = srcs.iter().map(|s| warp.read_owned(ctx, *s)).collect();
                for (i, v) in values.iter().enumerate() {
                    let mut at = a;
                    at.v.iter_mut()
                        .for_each(|x| *x = x.wrapping_add(u64::from(bytes) * i as u64));
                    warp.write_param(&at, bytes, v, mask);
                }
                return Ok(());
            }
            let values: Vec<Opnd<'_>> = srcs.iter().map(|s| warp.read(ctx, *s)).collect();
            let width = bytes * values.len() as u32;
            match shared_target(*space, &a, mask, unsure, here, notes) {
                Target::Shared(offsets) => {
                    in_bounds(ctx, (wid, site, name), "write", &offsets, mask, width)?;
                    if width > 16 {
                        unmodelled(consumer, wid, site, name, mask)?;
                        note(notes, here.0, here.1, NoteKind::Unmodelled);
                        for lane in lanes_of(mask) {
                            shared.forget(u64::from(offsets[lane]), width);
                        }
                        return Ok(());
                    }
                    let at = |lane: usize, i: usize| {
                        u64::from(offsets[lane]) + u64::from(bytes) * i as u64
                    };
                    // The lanes whose values are numbered, and the numbers as
                    // memory keeps them.
                    let mut nums = [0u32; 16];
                    for (n, s) in nums.iter_mut().zip(srcs) {
                        *n = warp.nums_of(*s) & mask;
                    }
                    let nums = &nums[..srcs.len().min(16)];
                    let number = |i: usize, lane: usize| numbers.stored(values[i].val(lane), bytes);
                    // The lanes that write what memory holds (compute-sanitizer's
                    // same-value rule, Block::access_unchanged), against memory
                    // before the instruction. A merged access carries stores
                    // not yet run: none.
                    let mut unchanged = 0;
                    if matches!(merge, Merge::None | Merge::Never)
                        && (shared.any_known || shared.tags.is_some())
                    {
                        'lanes: for lane in lanes_of(mask) {
                            for (i, v) in values.iter().enumerate() {
                                let same = if v.known() >> lane & 1 == 1 {
                                    let mine = v.val(lane) & byte_mask(bytes);
                                    shared.load(at(lane, i), bytes).bits() == Some(mine)
                                } else if nums[i] >> lane & 1 == 1 {
                                    shared.number(at(lane, i), bytes) == Some(number(i, lane))
                                } else {
                                    false
                                };
                                if !same {
                                    continue 'lanes;
                                }
                            }
                            unchanged |= 1 << lane;
                        }
                    }
                    merged_access(
                        consumer,
                        (wid, site, name),
                        Op::Store,
                        *merge,
                        width,
                        (mask, unchanged),
                        &offsets,
                    )?;
                    for lane in lanes_of(mask) {
                        for (i, v) in values.iter().enumerate() {
                            if nums[i] >> lane & 1 == 1 {
                                shared.tag(at(lane, i), bytes, number(i, lane));
                            } else {
                                shared.store(at(lane, i), bytes, v.get(lane));
                            }
                        }
                    }
                    // Lanes that stored different values to one address: the
                    // byte's value is whichever the hardware kept: unknown.
                    // (Lanes in ascending order of disjoint addresses share
                    // no byte: nothing to look at.)
                    if !disjoint(&offsets, mask, width) {
                        for lane in lanes_of(mask) {
                            for (i, v) in values.iter().enumerate() {
                                let mine = v.get(lane).bits().map(|x| x & byte_mask(bytes));
                                if mine.is_some() && shared.load(at(lane, i), bytes).bits() != mine
                                {
                                    shared.forget(at(lane, i), bytes);
                                }
                            }
                        }
                        for (i, &n) in nums.iter().enumerate() {
                            for lane in lanes_of(n) {
                                if shared.number(at(lane, i), bytes) != Some(number(i, lane)) {
                                    shared.forget(at(lane, i), bytes);
                                }
                            }
                        }
                    }
                }
                Target::Unknown if *space == Space::Shared => {
                    unknown_address(consumer, wid, site, name, Op::Store, *merge, width, mask)?;
                    shared.forget_all();
                }
                Target::Unknown | Target::Mixed => {
                    unmodelled(consumer, wid, site, name, mask)?;
                    shared.forget_all();
                    numbers.global_write();
                }
                Target::Other => {
                    if *space != Space::Local {
                        numbers.global_write();
                    }
                }
            }
        }
        Kind::Atom {
            space,
            kind,
            reduction,
            bytes,
            d,
            addr,
            val,
        } => {
            let a = addresses(warp, ctx, addr);
            if let Some(d) = d {
                warp.forget(*d, mask);
                if wanted {
                    // The old value: equal to nothing else.
                    let n = core::array::from_fn(|_| numbers.fresh());
                    warp.set_numbers(*d, mask, &n);
                }
            }
            let op = if *reduction {
                Op::Reduction(*kind)
            } else {
                Op::Atomic(*kind)
            };
            let target = shared_target(*space, &a, mask, unsure, here, notes);
            if !matches!(target, Target::Shared(_))
                && !matches!(space, Space::Local | Space::Shared)
            {
                numbers.global_write();
            }
            match target {
                Target::Shared(offsets) => {
                    in_bounds(ctx, (wid, site, name), "atomic", &offsets, mask, *bytes)?;
                    access(consumer, wid, site, name, op, *bytes, mask, &offsets)?;
                    let v = warp.read_owned(ctx, *val);
                    let olds = atomic_values(shared, *kind, *bytes, &offsets, mask, &v);
                    if let (Some(d), Some(olds)) = (d, olds) {
                        warp.write(*d, &olds, mask);
                        warp.nums[warp.reg_base + *d as usize] &= !mask;
                    }
                }
                Target::Unknown if *space == Space::Shared => {
                    unknown_address(consumer, wid, site, name, op, Merge::None, *bytes, mask)?;
                    shared.forget_all();
                }
                Target::Unknown | Target::Mixed => {
                    unmodelled(consumer, wid, site, name, mask)?;
                    shared.forget_all();
                }
                Target::Other => {}
            }
        }
        Kind::LdMatrix { m, ds, addr } => {
            let a = addresses(warp, ctx, addr);
            let lanes = mask & crate::Matrices::address_lanes(*m).bits();
            for d in ds {
                warp.forget(*d, mask);
            }
            match shared_target(Space::Shared, &a, lanes, unsure, here, notes) {
                Target::Shared(offsets) => {
                    in_bounds(ctx, (wid, site, name), "read", &offsets, lanes, 16)?;
                    access(
                        consumer,
                        wid,
                        site,
                        name,
                        Op::LdMatrix(*m),
                        16,
                        mask,
                        &offsets,
                    )?;
                }
                Target::Unknown => {
                    let op = Op::LdMatrix(*m);
                    unknown_address(consumer, wid, site, name, op, Merge::None, 16, mask)?;
                }
                _ => unmodelled(consumer, wid, site, name, mask)?,
            }
        }
        Kind::StMatrix { m, addr } => {
            let a = addresses(warp, ctx, addr);
            let lanes = mask & crate::Matrices::address_lanes(*m).bits();
            match shared_target(Space::Shared, &a, lanes, unsure, here, notes) {
                Target::Shared(offsets) => {
                    in_bounds(ctx, (wid, site, name), "write", &offsets, lanes, 16)?;
                    access(
                        consumer,
                        wid,
                        site,
                        name,
                        Op::StMatrix(*m),
                        16,
                        mask,
                        &offsets,
                    )?;
                    for lane in lanes_of(lanes) {
                        shared.forget(u64::from(offsets[lane]), 16);
                    }
                }
                Target::Unknown => {
                    let op = Op::StMatrix(*m);
                    unknown_address(consumer, wid, site, name, op, Merge::None, 16, mask)?;
                    shared.forget_all();
                }
                _ => {
                    unmodelled(consumer, wid, site, name, mask)?;
                    shared.forget_all();
                }
            }
        }
        Kind::Wmma {
            rows,
            space,
            ds,
            addr,
            stride,
            bits,
        } => {
            // The table is sm_80's and sm_90's lowering (the SASS of every
            // case is the same on both); sm_75's ptxas splits the 16-bit
            // LDSM.x4 in two and swaps accumulator widths, sm_70 has no
            // LDSM: not modelled there.
            if ctx.capability.major() < 8 {
                unmodelled(consumer, wid, site, name, mask)?;
                for d in ds {
                    warp.forget(*d, mask);
                }
                return Ok(());
            }
            let base = addresses(warp, ctx, addr);
            let stride = warp.read_owned(ctx, *stride);
            for d in ds {
                warp.forget(*d, mask);
            }
            for row in *rows {
                let (op, width, lanes) = match row.piece {
                    Piece::Lds(w) | Piece::Ld(w) => (Op::Load, w, mask),
                    Piece::Sts(w) | Piece::St(w) => (Op::Store, w, mask),
                    Piece::Ldsm(m) => (Op::LdMatrix(m), 16, mask & m.address_lanes().bits()),
                };
                // Each lane's address: its pointer plus (line, byte) at its
                // leading dimension in bytes.
                let mut at = Lanes {
                    v: [0; 32],
                    k: base.known() & stride.known(),
                };
                for lane in 0..32 {
                    let (line, byte) = row.lanes.at(lane);
                    let pitch = stride.val(lane).wrapping_mul(u64::from(*bits)) / 8;
                    at.v[lane] = base
                        .val(lane)
                        .wrapping_add((line as u64).wrapping_mul(pitch))
                        .wrapping_add(byte as u64);
                }
                let store = op == Op::Store;
                let target = shared_target(*space, &at, lanes, unsure, here, notes);
                // A generic store that may reach global memory begins an
                // epoch, as `st`'s does.
                if store && !matches!(target, Target::Shared(_)) && *space != Space::Shared {
                    numbers.global_write();
                }
                match target {
                    Target::Shared(offsets) => {
                        let what = if store { "write" } else { "read" };
                        in_bounds(ctx, (wid, site, name), what, &offsets, lanes, width)?;
                        access(consumer, wid, site, name, op, width, mask, &offsets)?;
                        if store {
                            for lane in lanes_of(lanes) {
                                shared.forget(u64::from(offsets[lane]), width);
                            }
                        }
                    }
                    Target::Unknown => {
                        unknown_address(consumer, wid, site, name, op, Merge::None, width, mask)?;
                        if store {
                            shared.forget_all();
                        }
                    }
                    Target::Mixed => {
                        unmodelled(consumer, wid, site, name, mask)?;
                        if store {
                            shared.forget_all();
                        }
                    }
                    Target::Other => {}
                }
            }
        }
        Kind::Wgmma {
            a,
            b,
            n,
            a_mn_major,
            b_mn_major,
            ds,
        } => {
            for d in ds {
                warp.forget(*d, mask);
            }
            let lanes = LaneSet::from_bits(mask);
            // The warpgroup's first warp carries the reads (Event::Gmma).
            if !wid.is_multiple_of(4) || mask == 0 {
                let event = Event::Gmma {
                    site,
                    lanes,
                    wavefronts: 0,
                    conflicts: 0,
                };
                return consumer.event(wid, &event);
            }
            // The descriptors are warp-uniform: the first active lane's.
            let lane = mask.trailing_zeros() as usize;
            let value = |src: Src| {
                let v = warp.read_owned(ctx, src);
                (v.known() >> lane & 1 == 1).then(|| v.val(lane))
            };
            let descs = (a.map(value), value(*b));
            let (Some(a), Some(b)) = (descs.0.map_or(Some(None), |d| d.map(Some)), descs.1) else {
                note(notes, here.0, here.1, NoteKind::DataDependentAddress);
                return unmodelled(consumer, wid, site, name, mask);
            };
            let a = a.map(wgmma::Descriptor::decode);
            let b = wgmma::Descriptor::decode(b);
            if a.is_some_and(|a| a.base_offset != 0) || b.base_offset != 0 {
                return unmodelled(consumer, wid, site, name, mask);
            }
            let mut chunks = match a {
                Some(a) => wgmma::chunks(&a, 64, *a_mn_major),
                None => Vec::new(),
            };
            chunks.extend(wgmma::chunks(&b, *n, *b_mn_major));
            let mut at = [0u32; 32];
            for group in chunks.chunks(32) {
                at[..group.len()].copy_from_slice(group);
                let live = u32::MAX >> (32 - group.len());
                in_bounds(ctx, (wid, site, name), "read", &at, live, 16)?;
            }
            let wavefronts = wgmma::wavefronts(&chunks);
            let event = Event::Gmma {
                site,
                lanes,
                wavefronts,
                conflicts: wavefronts - chunks.len() as u64 / 8,
            };
            consumer.event(wid, &event)?;
            warp.gmma_open.push((site, chunks));
        }
        Kind::WgmmaCommit => {
            if !warp.gmma_open.is_empty() {
                let group = std::mem::take(&mut warp.gmma_open);
                warp.gmma_groups.push_back(group);
            }
        }
        Kind::WgmmaWait { pending } => gmma_retire(warp, consumer, *pending, false)?,
        Kind::CpAsync {
            kind,
            bytes,
            dst,
            src,
            src_size,
        } => {
            let a = addresses(warp, ctx, dst);
            match shared_target(Space::Shared, &a, mask, unsure, here, notes) {
                Target::Shared(offsets) => {
                    in_bounds(ctx, (wid, site, name), "write", &offsets, mask, *bytes)?;
                    // The global side, where every lane that reads global
                    // memory (a src-size of 0 reads none) has a known address.
                    let g = addresses(warp, ctx, src);
                    let reads = match src_size {
                        None => Some(mask),
                        Some(size) => {
                            let size = warp.read_owned(ctx, *size);
                            (size.known() & mask == mask).then(|| {
                                lanes_of(mask)
                                    .filter(|&l| size.val(l) != 0)
                                    .fold(0, |m, l| m | 1 << l)
                            })
                        }
                    };
                    if let Some(reads) = reads.filter(|&r| g.known() & r == r) {
                        let zero_fill = matches!(src_size, Some(Src::Reg(_)));
                        // The first reading lane's 128-byte line.
                        let line = lanes_of(reads).next().map_or(0, |l| g.val(l) & !127);
                        let event = Event::CpAsyncSource {
                            site,
                            lanes: LaneSet::from_bits(reads),
                            // What the wavefronts read (see the event's
                            // docs): more would keep apart blocks whose
                            // sources differ only in what no figure uses
                            // (classes.rs).
                            offsets: core::array::from_fn(|l| match kind {
                                _ if reads >> l & 1 == 0 => 0,
                                crate::CpAsync::Ca => {
                                    (g.val(l) & u64::from(crate::kernel::CP_ASYNC_SOURCE_MASK))
                                        as u32
                                }
                                crate::CpAsync::Cg => g.val(l).wrapping_sub(line) as u32,
                            }),
                            zero_fill,
                            guarded: inst.guard.is_some(),
                        };
                        consumer.event(wid, &event)?;
                    }
                    access(
                        consumer,
                        wid,
                        site,
                        name,
                        Op::CpAsync(*kind),
                        *bytes,
                        mask,
                        &offsets,
                    )?;
                    for lane in lanes_of(mask) {
                        shared.forget(u64::from(offsets[lane]), *bytes);
                    }
                }
                Target::Unknown => {
                    let op = Op::CpAsync(*kind);
                    unknown_address(consumer, wid, site, name, op, Merge::None, *bytes, mask)?;
                    shared.forget_all();
                }
                _ => {
                    unmodelled(consumer, wid, site, name, mask)?;
                    shared.forget_all();
                }
            }
        }
        Kind::CpAsyncCommit => consumer.event(
            wid,
            &Event::CpAsyncCommit {
                site,
                lanes: LaneSet::from_bits(mask),
            },
        )?,
        Kind::CpAsyncWait { pending } => consumer.event(
            wid,
            &Event::CpAsyncWait {
                site,
                lanes: LaneSet::from_bits(mask),
                pending: *pending,
            },
        )?,
        // Run by run_warp (asyncs).
        Kind::CpAsyncArrive { .. } | Kind::Mbar { .. } | Kind::Bulk(_) | Kind::Mapa { .. } => {}
        Kind::BarWarp { mask: m } => {
            let m = warp.read(ctx, *m);
            let lane0 = lanes_of(mask).next().unwrap_or(0);
            let bits = m.get(lane0).bits().map_or(FULL, |b| b as u32);
            consumer.event(
                wid,
                &Event::SyncWarp {
                    site,
                    lanes: LaneSet::from_bits(mask),
                    mask: LaneSet::from_bits(bits),
                },
            )?;
        }
        Kind::Fence => consumer.event(
            wid,
            &Event::Fence {
                site,
                lanes: LaneSet::from_bits(mask),
            },
        )?,
        Kind::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
        } => {
            let a_nums = if wanted { warp.nums_of(*a) } else { 0 };
            let (a, b, c) = (warp.read(ctx, *a), warp.read(ctx, *b), warp.read(ctx, *c));
            let (mut out, mut pout) = (Lanes::UNKNOWN, Lanes::UNKNOWN);
            // Numbers move with their values.
            let (mut n, mut got) = ([0u64; 32], 0u32);
            for lane in lanes_of(mask) {
                let (Some(bv), Some(cv)) = (b.get(lane).bits(), c.get(lane).bits()) else {
                    continue;
                };
                let l = lane as i64;
                let bval = (bv & 0x1f) as i64;
                let segmask = ((cv >> 8) & 0x1f) as i64;
                let clamp = (cv & 0x1f) as i64;
                let max_lane = (l & segmask) | (clamp & !segmask);
                let min_lane = l & segmask;
                let (mut j, pval) = match mode {
                    ShflMode::Up => (l - bval, l - bval >= max_lane),
                    ShflMode::Down => (l + bval, l + bval <= max_lane),
                    ShflMode::Bfly => (l ^ bval, (l ^ bval) <= max_lane),
                    ShflMode::Idx => {
                        let j = min_lane | (bval & !segmask);
                        (j, j <= max_lane)
                    }
                };
                if !pval {
                    j = l;
                }
                // A source lane that does not execute the shuffle gives an
                // unpredictable value (PTX ISA, shfl.sync).
                if (0..32).contains(&j) && mask >> j & 1 == 1 {
                    out.set(lane, a.get(j as usize));
                    if a_nums >> j & 1 == 1 {
                        n[lane] = a.val(j as usize);
                        got |= 1 << lane;
                    }
                }
                pout.v[lane] = u64::from(pval);
                pout.k |= 1 << lane;
            }
            warp.write(*d, &out, mask);
            warp.set_numbers(*d, got, &n);
            if let Some(p) = p {
                warp.write(*p, &pout, mask);
            }
        }
        Kind::Vote { mode, d, a, negate } => {
            let a = warp.read(ctx, *a);
            let vals: Vec<Option<bool>> = lanes_of(mask)
                .map(|l| a.pred(l).map(|x| x != *negate))
                .collect();
            let any_unknown = vals.iter().any(Option::is_none);
            let result: Option<u64> = match mode {
                VoteMode::All => {
                    if vals.contains(&Some(false)) {
                        Some(0)
                    } else if any_unknown {
                        None
                    } else {
                        Some(1)
                    }
                }
                VoteMode::Any => {
                    if vals.contains(&Some(true)) {
                        Some(1)
                    } else if any_unknown {
                        None
                    } else {
                        Some(0)
                    }
                }
                VoteMode::Uni => {
                    let t = vals.contains(&Some(true));
                    let f = vals.contains(&Some(false));
                    if t && f {
                        Some(0)
                    } else if any_unknown {
                        None
                    } else {
                        Some(1)
                    }
                }
                VoteMode::Ballot => {
                    if any_unknown {
                        None
                    } else {
                        Some(
                            lanes_of(mask)
                                .zip(&vals)
                                .filter(|(_, v)| **v == Some(true))
                                .fold(0u64, |m, (l, _)| m | 1 << l),
                        )
                    }
                }
            };
            let out = result.map_or(Lanes::UNKNOWN, Lanes::splat);
            warp.write(*d, &out, mask);
        }
        Kind::Activemask { d } => warp.write(*d, &Lanes::splat(u64::from(mask)), mask),
        Kind::MatchAny { d, a, bits } => {
            let a = warp.read_owned(ctx, *a);
            let keep = if *bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            if a.known() & mask == mask {
                let mut out = Lanes::UNKNOWN;
                for lane in lanes_of(mask) {
                    let same = lanes_of(mask)
                        .filter(|&o| a.v[o] & keep == a.v[lane] & keep)
                        .fold(0u64, |m, o| m | 1 << o);
                    out.v[lane] = same;
                    out.k |= 1 << lane;
                }
                warp.write(*d, &out, mask);
                warp.nums[warp.reg_base + *d as usize] &= !mask;
            } else {
                warp.forget(*d, mask);
            }
        }
        Kind::Redux { op, t, d, a } => {
            let a = warp.read(ctx, *a);
            let mut acc: Option<Value> = None;
            for lane in lanes_of(mask) {
                let x = a.get(lane);
                acc = Some(match acc {
                    None => x,
                    Some(y) => match op {
                        ReduxOp::Add => ops::add(*t, x, y, false),
                        ReduxOp::Min => ops::min(*t, x, y),
                        ReduxOp::Max => ops::max(*t, x, y),
                        ReduxOp::And => ops::and(*t, x, y),
                        ReduxOp::Or => ops::or(*t, x, y),
                        ReduxOp::Xor => ops::xor(*t, x, y),
                    },
                });
            }
            let out = acc
                .and_then(Value::bits)
                .map_or(Lanes::UNKNOWN, Lanes::splat);
            warp.write(*d, &out, mask);
        }
        Kind::Elect { d, p } => {
            let leader = lanes_of(mask).next().unwrap_or(0);
            if let Some(d) = d {
                warp.write(*d, &Lanes::splat(leader as u64), mask);
            }
            if let Some(p) = p {
                let mut out = Lanes::splat(0);
                out.v[leader] = 1;
                warp.write(*p, &out, mask);
            }
        }
        Kind::Unmodelled { ds } => {
            unmodelled(consumer, wid, site, name, mask)?;
            note(notes, here.0, here.1, NoteKind::Unmodelled);
            for d in ds {
                warp.forget(*d, mask);
            }
        }
        Kind::Opaque { ds, .. } => {
            for d in ds {
                warp.forget(*d, mask);
            }
        }
        Kind::Nop => {}
        Kind::Bra { .. } | Kind::Ret | Kind::Exit | Kind::Call { .. } | Kind::Bar { .. } => {}
    }
    Ok(())
}

/// Whether the lanes `mask`, in lane order, touch ascending and disjoint
/// ranges of `width` bytes from their offsets (a sufficient test that no
/// two lanes touch one byte, true of the common layouts).
fn disjoint(offsets: &[u32; 32], mask: u32, width: u32) -> bool {
    let mut next = 0u64;
    for lane in lanes_of(mask) {
        let at = u64::from(offsets[lane]);
        if at < next {
            return false;
        }
        next = at + u64::from(width);
    }
    true
}

fn byte_mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

/// [`target`], noting what cannot be followed: unknown addresses, and guards
/// unknown in some lane (`unsure`) of a shared access.
fn shared_target(
    space: Space,
    a: &Lanes,
    mask: u32,
    unsure: u32,
    here: (u32, u32),
    notes: &mut Notes,
) -> Target {
    let t = target(space, a, mask);
    match t {
        Target::Unknown => note(notes, here.0, here.1, NoteKind::DataDependentAddress),
        Target::Mixed => note(notes, here.0, here.1, NoteKind::Unmodelled),
        Target::Shared(_) if unsure != 0 => {
            note(notes, here.0, here.1, NoteKind::DataDependentGuard);
        }
        _ => {}
    }
    t
}

/// The common integer ops without the per-lane `Value` round trip (the
/// interpreter's hot path: address arithmetic, and bit fields of data it does
/// not know): all 32 lanes computed at once, known where both operands are,
/// or where one known operand decides the result as [`ops::and`],
/// [`ops::or`] and [`ops::mul`] say (a zero of `and` and `mul.lo`, all ones
/// of `or`). The bits of the other lanes are never read.
fn fast_int_bin(op: IntBin, t: IntType, a: &Opnd<'_>, b: &Opnd<'_>, mask: u32) -> Option<Lanes> {
    let m = t.trunc(u64::MAX);
    let both = a.known() & b.known() & mask;
    let mut out = Lanes {
        v: [0; 32],
        k: both,
    };
    let (x, y) = (a.lanes(), b.lanes());
    // The known lanes of an operand whose bits (under `m`) equal `to`.
    let deciding = |o: &Opnd<'_>, v: &[u64; 32], under: u64, to: u64| {
        let mut lanes = 0u32;
        for (i, &v) in v.iter().enumerate() {
            lanes |= u32::from(v & under == to) << i;
        }
        lanes & o.known() & mask
    };
    match op {
        IntBin::Add { sat: false } => {
            for i in 0..32 {
                out.v[i] = x[i].wrapping_add(y[i]) & m;
            }
        }
        IntBin::Sub { sat: false } => {
            for i in 0..32 {
                out.v[i] = x[i].wrapping_sub(y[i]) & m;
            }
        }
        IntBin::Mul(Half::Lo) => {
            for i in 0..32 {
                out.v[i] = x[i].wrapping_mul(y[i]) & m;
            }
            if both != mask {
                // `ops::mul`: a known 0 (all 64 bits) makes the product 0.
                out.k |= deciding(a, &x, u64::MAX, 0) | deciding(b, &y, u64::MAX, 0);
            }
        }
        IntBin::And => {
            for i in 0..32 {
                out.v[i] = x[i] & y[i] & m;
            }
            if both != mask {
                out.k |= deciding(a, &x, m, 0) | deciding(b, &y, m, 0);
            }
        }
        IntBin::Or => {
            for i in 0..32 {
                out.v[i] = (x[i] | y[i]) & m;
            }
            if both != mask {
                out.k |= deciding(a, &x, m, m) | deciding(b, &y, m, m);
            }
        }
        IntBin::Xor => {
            for i in 0..32 {
                out.v[i] = (x[i] ^ y[i]) & m;
            }
        }
        IntBin::Shl => {
            for i in 0..32 {
                let n = (y[i] as u32).min(t.bits());
                out.v[i] = if n >= t.bits() { 0 } else { (x[i] << n) & m };
            }
        }
        IntBin::Shr if !t.signed() => {
            for i in 0..32 {
                let n = (y[i] as u32).min(t.bits());
                out.v[i] = if n >= t.bits() { 0 } else { (x[i] & m) >> n };
            }
        }
        IntBin::Shr => {
            // Arithmetic: the value sign-extended to 64 bits, shifted by at
            // most 63 (a shift by the whole width fills with the sign, as
            // `ops::shr`'s 128-bit one does).
            let fill = 64 - t.bits();
            for i in 0..32 {
                let n = (y[i] as u32).min(t.bits()).min(63);
                let v = ((x[i] << fill) as i64) >> fill;
                out.v[i] = (v >> n) as u64 & m;
            }
        }
        _ => return None,
    }
    Some(out)
}

/// `f32` arithmetic without the per-lane `Value` round trip (the inner loops
/// of matrix products, and scalings of data the interpreter does not know):
/// all 32 lanes computed, known where the operands it needs are.
fn fast_float(
    op: FloatOp,
    bits: u8,
    a: &Opnd<'_>,
    b: &Opnd<'_>,
    c: &Opnd<'_>,
    mask: u32,
) -> Option<Lanes> {
    let need = match op {
        FloatOp::Fma => a.known() & b.known() & c.known(),
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul => a.known() & b.known(),
        _ => return None,
    };
    if bits != 32 {
        return None;
    }
    let mut out = Lanes {
        v: [0; 32],
        k: need & mask,
    };
    // One loop per operation, over the lanes' bits (loops that vectorize).
    let (x, y) = (a.lanes(), b.lanes());
    let f = |x: u64| f32::from_bits(x as u32);
    let lanes = out.v.iter_mut().zip(x.iter().zip(&y));
    match op {
        FloatOp::Add => lanes.for_each(|(r, (&x, &y))| *r = u64::from((f(x) + f(y)).to_bits())),
        FloatOp::Sub => lanes.for_each(|(r, (&x, &y))| *r = u64::from((f(x) - f(y)).to_bits())),
        FloatOp::Mul => lanes.for_each(|(r, (&x, &y))| *r = u64::from((f(x) * f(y)).to_bits())),
        _ => {
            let z = c.lanes();
            for ((r, (&x, &y)), &z) in out.v.iter_mut().zip(x.iter().zip(&y)).zip(&z) {
                *r = u64::from(f(x).mul_add(f(y), f(z)).to_bits());
            }
        }
    }
    Some(out)
}
