//! Which blocks of a launch do the same thing: how much of each component of
//! the block index (`%ctaid.x`, `.y`, `.z`) can change what a block tells its
//! consumer.
//!
//! A block's run is a function of its index alone: the launch's arguments,
//! grid, block and dynamic shared size are the same for every block, global
//! memory is never read back as values (a global load is unknown, or a value
//! number of its address, [`number`](super::number)), and nothing one block
//! does is seen by another. So two blocks whose indices agree on what can
//! reach what the consumer sees run alike: the same events in the same
//! order, the same notes, the same steps, the same errors. [`classes`]
//! finds, for each component, how many of its low bits that is (none, some,
//! or all of it), by an analysis of the lowered program, flow-insensitive
//! over each function's registers and over the `.param` and shared state
//! spaces; it runs per launch, with the launch's arguments, grid and block
//! known.
//!
//! # What the consumer sees
//!
//! The *sinks*: the address of every access that may touch shared memory
//! (`.shared`, generic, `.const` whose addresses are events), the value of a
//! store there and whatever shared memory may hold (a store of what memory
//! holds is an event of its own, [`Consumer::event_unchanged`]: an atomic's
//! operand can decide it), the guard of every instruction that is an
//! event, a branch, a call or a barrier, a barrier's id and count,
//! `bar.warp.sync`'s mask, the counter that picks an unrolled loop's merge,
//! and every operand of an instruction that numbers its result (the numbers a
//! block hands out must not depend on a component left out). Where the
//! kernel numbers global loads at all, the guard of whatever may write global
//! memory is a sink too (it advances the numbering's epoch). Each of those
//! needs every bit of its value. One sink needs fewer: the global address of
//! a `cp.async`, whose global side is an event ([`Event::CpAsyncSource`]):
//! `.ca` carries only its low 7 bits ([`CP_ASYNC_SOURCE_MASK`]), all its
//! wavefronts depend on; `.cg` carries each reading lane's low 7 bits and
//! its line relative to the first reading lane's, which needs the low 7
//! bits where the lanes' addresses move together from block to block (see
//! "What a value keeps of the lane"), and every bit elsewhere; whether the
//! addresses are known decides whether the event is sent. The source size
//! needs every bit.
//!
//! # What a value keeps of the block index
//!
//! For two blocks whose component `x` differs by `Δ` (`Δ ≠ 0`) and whose
//! other components agree, a value's [`Dep`] on `x`, a pair `(shift, cap)`,
//! says that the two blocks' values agree on their low `min(v2(Δ) + shift,
//! cap)` bits, `v2(Δ)` being the trailing zero bits of `Δ` (of `Δ mod 2^k`,
//! in the `k`-bit arithmetic of a register): "the value mod 2^m depends on
//! `x` only through `x mod 2^(m - shift)`, and its low `cap` bits not at
//! all". Where several components differ, the values agree on the least of
//! their bounds (change one component at a time). `%ctaid.x` itself is
//! `(0, 64)`; a value independent of `x` is `(64, 64)`; one that may depend
//! on `x` in any way is `(64, 0)`, and that times 256 `(64, 8)`: its low 8
//! bits are zeros in every block. The rules, all of them identities of
//! arithmetic modulo a power of two:
//!
//! - `add`, `sub`, `neg`, `and`, `or`, `xor`, `not`, `lop3`, `mov`,
//!   truncation and extension (`cvt` between integers, `mov.b64 {a, b}` and
//!   its inverse): the low `m` bits of the result depend only on the low `m`
//!   bits of the operands (bits above a register's width are its sign or
//!   zeros, a function of the bits below), so the result keeps the least of
//!   the operands' bounds. `selp` on a predicate that is the same in every
//!   block picks the same operand in both blocks: the least too.
//! - `mul.lo` and `mul.wide` (and `mad`, `mul24.lo`, `mad24.lo`):
//!   `a b - a' b' = (a - a') b + a' (b - b')`, so the product keeps at least
//!   `min(bound(a) + tz(b), bound(b) + tz(a))`, `tz` a lower bound on the
//!   trailing zero bits of a value in every block: both parts of the pair
//!   grow by the other operand's trailing zeros.
//! - `shl` by a constant `c`: both parts grow by `c`; `shr` by `c`: both
//!   shrink by `c` (a `shift` may be negative: `x >> 1` depends on `x mod
//!   2^(m + 1)`); by an amount the same in every block, unknown: `shl` keeps
//!   the operand's bounds, `shr` none.
//! - `rem` by a constant `r` with `t` trailing zeros: `a - q r` agrees on
//!   `min(bound(a), t)` bits whatever the quotients, so the cap drops to
//!   `t`.
//! - Anything else (`div`, `min`/`max`, comparisons, `selp` on a predicate
//!   that depends on `x`, a guard that does, saturation, `.hi` halves, float
//!   operations, loads, shuffles, ...): `(64, 0)` wherever an operand depends
//!   on `x`.
//!
//! Trailing zeros come from values: constants, the launch's arguments (an
//! `ld.param` of a kernel parameter at a constant address, in a kernel that
//! never writes its parameters), `%ntid`, `%nctaid` and the shared sizes are
//! known, and a constant propagation folds what is computed from them (with
//! the interpreter's own operations, so exactly as a block computes them);
//! `shl`, `mul`, `and` and the rest carry a lower bound for the other
//! values.
//!
//! Ranges come the same way: `%ctaid`, `%tid` and `%laneid` lie below the
//! grid's, the block's and the warp's sizes, and `add`, `sub`, `mul`,
//! shifts, `div`, `rem`, `min`, `max` and the bitwise operations of 32 or 64
//! bits carry ranges below 2^31 (no wrap there; a register whose writes give
//! different ranges keeps none). A divisor whose range excludes 0 gives a
//! known quotient, and a range of one value is a constant: Triton's grouped
//! ordering divides by `min(num_pid_m - first_pid_m, GROUP_M)`, which is
//! `GROUP_M` in every block of a launch whose grid the groups fill.
//!
//! The rules hold for the values the interpreter computes only where they
//! are known: an unknown operand (a global load, a register read before it
//! is written) can make an operation's result known or not by the value of
//! another (`mul` by a known 0 is a known 0), so a rule other than "may
//! depend in any way" applies only to values known in every lane of every
//! block (a [`Fact`]'s `known`: all operands known, an operation that always
//! computes, registers written before they are read on every path, found by
//! a liveness analysis).
//!
//! A sink that needs the low `n` bits of a value with bound `(shift, cap)`
//! on `x` needs none of `x` where `min(shift, cap) >= n` (or where the
//! value is known with `n` trailing zeros), the low `n - shift` bits of `x`
//! where `cap >= n`, and all of `x` otherwise; blocks whose components agree
//! on what the sinks need run alike ([`Relevant`]). The argument: along the
//! same path, by induction over the steps of two such blocks, every register
//! holds values the bounds relate (a guard or a branch that could differ is
//! a sink needing every bit, so the path and the lanes are the same), and
//! every sink sees equal bits. So a copy from `base + 64 ctaid.x + 4 tid`
//! needs `ctaid.x mod 2`, one from `base + 128 ctaid.x + 4 tid` none of it:
//! every block of a Triton grouped matmul at 4096^3 runs alike.
//!
//! # What a value keeps of the lane
//!
//! A `.cg` copy's event holds, for each reading lane `l`, its source `a_l`
//! less the first reading lane's 128-byte line, `a_f & !127`, in 32 bits.
//! Two blocks on one path (the same instructions under the same masks)
//! whose sources differ by `d_l = a'_l - a_l` give the same event where
//! every `d_l` is the same `d` (mod 2^32) and `d` is a multiple of 128:
//! `(a_f + d) & !127 = (a_f & !127) + d`, so `a'_l - (a'_f & !127) = a_l -
//! (a_f & !127)`. A persistent GEMM's tile copy is `base + tile(block,
//! trip) + lane(tid)`: the tile's part moves every lane of a warp alike.
//! Two facts of each value, where it is known, say when:
//!
//! - [`Fact::lanes`]: its bits from `lanes` up are the same in every lane
//!   of a warp. `%ctaid`, `%ntid`, `%nctaid`, `%warpid`, constants and
//!   arguments are the same in every lane (0); `%tid.x` from bit 5 up
//!   where a row of `x` holds whole warps (a warp's threads are 32
//!   consecutive linear indices), `.y` and `.z` then wholly; a value below
//!   `2^n` from bit `n` up. Any operation whose operands are the same in
//!   every lane gives a result that is; `&`, `|`, `^`, `lop3` keep the
//!   largest of their operands' (a constant mask clears more), shifts by a
//!   constant move it, and a sum keeps the varying term's where the other
//!   is the same in every lane with as many zero low bits (no carry leaves
//!   them). So `tid.x < 128` is the same in every lane: `x < c`, `c` a
//!   multiple of `2^t` the same in every lane and `x`'s bits from `t` up
//!   the same, is `x >> t < c >> t`.
//! - [`Fact::rel`]: two blocks on one path differ in its low `rel` bits by
//!   the same amount in every lane of a warp. A value the same in every lane
//!   (any function of the block index) or in every block has 64; a sum or a
//!   difference the least of its terms' (the difference of a sum is the
//!   sum of the differences), `|` and `^` too where no bit can be set in
//!   both ([`Fact::ones`], the bits that may be 1, from constants, masks,
//!   shifts, ranges and trailing zeros), a product by a value the same in
//!   every lane and every block its operand's plus that value's trailing
//!   zeros, a shift left by a constant its operand's plus the shift,
//!   truncation and extension no more than the width; anything else none.
//!
//! Both hold only where a warp's lanes share one history of writes: a
//! register joined over its writes holds in every lane what the same write
//! left. That is so where no branch, call or callee's `ret` sends some lanes
//! of a warp one way and others another (lanes that leave for good take no
//! path), checked on the facts found assuming it, by induction over a
//! warp's steps ([`converged`]); where it is not so, no `.cg` source is
//! taken as moving together. A write under a guard that may differ between
//! the lanes of a warp leaves some lanes the old value: its register keeps
//! no lane facts but those of a value the same in every block. One under a
//! guard that depends on the block index leaves the one block the old value
//! and the other the new: `rel` none. The `.cg` source needs its low 7 bits
//! (the `Dep` bounds above) where it is known and its `rel` is at least 32;
//! where those need no component at all, the event is the same in every
//! two blocks on one path, and a value key ([`slice`](super::slice)) need
//! not hold it ([`Classes::same_sources`]).
//!
//! A modelling choice on the safe side: a component is kept whenever a path
//! exists in the program, whether or not it is ever taken (a grid-stride
//! loop's bound keeps the component that starts it, though most blocks run
//! as many trips), and a comparison keeps every component its operands
//! depend on, though both may carry the same block-dependent offset (the
//! cuda-samples `cp.async` matmuls' `a <= aEnd`, `aBegin` a multiple of
//! `ctaid.y`: their blocks are one class per row).

#[cfg(doc)]
use crate::kernel::{Consumer, Event, CP_ASYNC_SOURCE_MASK};

use super::super::ops::{self, Cmp, Half, IntType, Value};
use super::cfg::{self, Flow};
use super::ir::{
    Addr, BarKind, BulkKind, Compare, Function, Inst, IntBin, IntUn, Kind, Merge, Program, Reg,
    Space, Special, Src, Ty,
};
use super::number::Plan;
use crate::CpAsync;

/// The components `x`, `y`, `z` of the block index, as bits 0, 1, 2 of a
/// mask.
type Components = u8;

/// Bits of a value: a register holds at most 64.
const WIDTH: i16 = 64;

/// At this `shift` or below a bound says nothing: a component is below
/// 2^32, so two that differ have `v2(Δ) <= 31`.
const MIN_SHIFT: i16 = -32;

/// The bits a `cp.async.ca`'s global address carries into its event, and
/// the bits of a plain `.cg`'s that its event carries as they are (the rest
/// relative to the first reading lane's 128-byte line).
const CP_ASYNC_SOURCE_BITS: i16 = 7;

/// The bits of a plain `cp.async.cg`'s global address the event's offsets
/// are taken from: the low 32.
const CP_ASYNC_OFFSET_BITS: u8 = 32;

/// [`Fact::lanes`] where nothing is said of the lanes.
const LANES_NONE: u8 = 64;

/// [`Fact::rel`] where the difference is the same in every lane.
const REL_ALL: u8 = 64;

/// How a value's low bits follow one component of the block index (see the
/// module docs): two blocks whose component differs by `Δ` agree on the low
/// `min(v2(Δ) + shift, cap)` bits of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dep {
    shift: i16,
    cap: i16,
}

impl Dep {
    /// The same in every block.
    const NONE: Dep = Dep {
        shift: WIDTH,
        cap: WIDTH,
    };
    /// May depend on the component in any way (times `2^n`, it still
    /// agrees on its low `n` bits: `(64, n)`).
    const ANY: Dep = Dep {
        shift: WIDTH,
        cap: 0,
    };
    /// The component itself.
    const ITSELF: Dep = Dep {
        shift: 0,
        cap: WIDTH,
    };

    /// The bound, normalized: capped at the width, and [`Dep::ANY`] where it
    /// says nothing.
    fn new(shift: i16, cap: i16) -> Dep {
        let (shift, cap) = (shift.min(WIDTH), cap.min(WIDTH));
        if cap <= 0 || shift <= MIN_SHIFT {
            Dep::ANY
        } else {
            Dep { shift, cap }
        }
    }

    /// What holds of both.
    fn join(self, other: Dep) -> Dep {
        Dep::new(self.shift.min(other.shift), self.cap.min(other.cap))
    }

    /// Of the value times `2^n` (or times a value with `n` trailing zeros).
    fn up(self, n: u8) -> Dep {
        if self == Dep::NONE {
            return self;
        }
        Dep::new(self.shift + i16::from(n), self.cap + i16::from(n))
    }

    /// Of the value shifted right by `n`.
    fn down(self, n: u32) -> Dep {
        if self == Dep::NONE {
            return self;
        }
        let n = n.min(64) as i16;
        Dep::new(self.shift - n, self.cap - n)
    }

    /// Of the value less a multiple of a value with `t` trailing zeros.
    fn capped(self, t: u8) -> Dep {
        if self == Dep::NONE {
            return self;
        }
        Dep::new(self.shift, self.cap.min(i16::from(t)))
    }

    /// The low bits of the component two blocks must agree on for their
    /// values to agree on the low `n`: 0 (none), up to 31, or
    /// [`Relevant::ALL`].
    fn bits_for(self, n: i16) -> u8 {
        if self.shift.min(self.cap) >= n {
            0
        } else if self.cap < n {
            Relevant::ALL
        } else {
            (n - self.shift).min(i16::from(Relevant::ALL)) as u8
        }
    }
}

/// What the analysis knows of a value, the same in every block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fact {
    /// On each component.
    dep: [Dep; 3],
    /// Known in every lane of every block (never unknown nor numbered).
    known: bool,
    /// Trailing zero bits it has at least, where known (64: zero).
    tz: u8,
    /// Its value, the same in every lane of every block.
    value: Option<u64>,
    /// Its range, `lo..=hi` in every lane of every block where known, kept
    /// only below [`RANGE_END`].
    range: Option<(u64, u64)>,
    /// Where known, in a kernel whose warps never diverge: its bits from
    /// `lanes` up are the same in every lane of a warp (0: the whole value;
    /// 64: none said). See the module docs, "What a value keeps of the lane".
    lanes: u8,
    /// Where known: the bits that may be 1, in any lane of any block.
    ones: u64,
    /// Where known, in a kernel whose warps never diverge: two blocks on one
    /// path differ in its low `rel` bits by the same amount (mod `2^rel`) in
    /// every lane of a warp (64: in every bit, as a value the same in every
    /// block or in every lane does).
    rel: u8,
}

/// Ranges are kept below 2^31: there a value is the same integer read as
/// any type of 32 or 64 bits, signed or not, and sums and products of two
/// stay exact in 64 bits.
const RANGE_END: u64 = 1 << 31;

/// `lo..=hi` where it is a range kept.
fn range(lo: u64, hi: u64) -> Option<(u64, u64)> {
    (lo <= hi && hi < RANGE_END).then_some((lo, hi))
}

impl Fact {
    /// A value the same in every block, not always known.
    const UNKNOWN: Fact = Fact {
        dep: [Dep::NONE; 3],
        known: false,
        tz: 0,
        value: None,
        range: None,
        lanes: LANES_NONE,
        ones: u64::MAX,
        rel: 0,
    };

    /// A value known in every lane, the same in every block, not a constant.
    const UNIFORM: Fact = Fact {
        dep: [Dep::NONE; 3],
        known: true,
        tz: 0,
        value: None,
        range: None,
        lanes: LANES_NONE,
        ones: u64::MAX,
        rel: REL_ALL,
    };

    /// Known everywhere, the same in every block, within `lo..=hi`.
    fn within(lo: u64, hi: u64) -> Fact {
        Fact {
            range: range(lo, hi),
            ..Fact::UNIFORM
        }
    }

    fn constant(v: u64) -> Fact {
        Fact {
            dep: [Dep::NONE; 3],
            known: true,
            tz: v.trailing_zeros() as u8,
            value: Some(v),
            range: range(v, v),
            lanes: 0,
            ones: v,
            rel: REL_ALL,
        }
    }

    /// An interpreter result of constants.
    fn folded(v: Value) -> Fact {
        v.bits().map_or(Fact::UNKNOWN, Fact::constant)
    }

    /// A value that may depend on `comps` in any way, known in every lane
    /// where `known`.
    fn any(comps: Components, known: bool) -> Fact {
        Fact {
            dep: core::array::from_fn(|d| {
                if comps >> d & 1 == 1 {
                    Dep::ANY
                } else {
                    Dep::NONE
                }
            }),
            known,
            tz: 0,
            value: None,
            range: None,
            lanes: LANES_NONE,
            ones: u64::MAX,
            rel: 0,
        }
    }

    /// The same with range `r` (where known in every lane), a constant
    /// where it holds one value.
    fn bounded(self, r: Option<(u64, u64)>) -> Fact {
        match r {
            Some((lo, hi)) if lo == hi && self.known => Fact::constant(lo),
            _ => Fact {
                range: r.filter(|_| self.known),
                ..self
            },
        }
    }

    /// The components it may depend on.
    fn comps(&self) -> Components {
        (0..3).fold(0, |m, d| m | u8::from(self.dep[d] != Dep::NONE) << d)
    }

    /// What holds of it and of `other` (a register written in two places).
    fn join(self, other: Fact) -> Fact {
        Fact {
            dep: core::array::from_fn(|d| self.dep[d].join(other.dep[d])),
            known: self.known && other.known,
            tz: self.tz.min(other.tz),
            value: self.value.filter(|_| self.value == other.value),
            // A range that grows is dropped at once: a loop's counter would
            // otherwise take a pass per step.
            range: self
                .range
                .zip(other.range)
                .filter(|&((a, b), (c, d))| a <= c && d <= b)
                .map(|(r, _)| r),
            lanes: self.lanes.max(other.lanes),
            ones: self.ones | other.ones,
            rel: self.rel.min(other.rel),
        }
    }

    /// The same, depending in any way on `comps` too (a guard's).
    fn tainted(mut self, comps: Components) -> Fact {
        for d in 0..3 {
            if comps >> d & 1 == 1 {
                self.dep[d] = Dep::ANY;
                self.value = None;
            }
        }
        self
    }

    /// Its low `bits` bits.
    fn trunc(mut self, bits: u32) -> Fact {
        if bits >= 64 {
            return self;
        }
        let mask = (1u64 << bits) - 1;
        if u32::from(self.tz) >= bits {
            return if self.known {
                Fact::constant(0)
            } else {
                Fact::UNKNOWN.tainted(self.comps())
            };
        }
        self.value = self.value.map(|v| v & mask);
        self.range = self.range.filter(|&(_, hi)| hi <= mask);
        self
    }

    /// A result with no constant: `dep`, known, at least `tz` trailing
    /// zeros.
    fn computed(dep: [Dep; 3], tz: u32) -> Fact {
        Fact {
            dep,
            known: true,
            tz: tz.min(64) as u8,
            value: None,
            range: None,
            lanes: LANES_NONE,
            ones: u64::MAX,
            rel: 0,
        }
    }

    /// Of a bitwise or ring operation on `self` and `other`: the least of
    /// their bounds.
    fn pointwise(&self, other: &Fact) -> [Dep; 3] {
        core::array::from_fn(|d| self.dep[d].join(other.dep[d]))
    }

    /// Of `self * other` (known, in wrapping arithmetic).
    fn times(&self, other: &Fact) -> Fact {
        Fact::computed(
            core::array::from_fn(|d| self.dep[d].up(other.tz).join(other.dep[d].up(self.tz))),
            u32::from(self.tz) + u32::from(other.tz),
        )
    }

    /// Of `self + other` (known, in wrapping arithmetic), or `-`.
    fn plus(&self, other: &Fact) -> Fact {
        Fact::computed(self.pointwise(other), u32::from(self.tz.min(other.tz)))
    }

    /// Of `self << n` in 64 bits.
    fn shl(&self, n: u32) -> Fact {
        if n >= 64 {
            return Fact::constant(0);
        }
        Fact {
            dep: self.dep.map(|d| d.up(n as u8)),
            known: self.known,
            tz: (u32::from(self.tz) + n).min(64) as u8,
            value: self.value.map(|v| v << n),
            range: self
                .range
                .and_then(|(lo, hi)| range(lo << n.min(31), hi << n.min(31))),
            lanes: LANES_NONE,
            ones: u64::MAX,
            rel: 0,
        }
    }

    /// The same, its lane facts made consistent with the rest: a constant
    /// or a value below `2^n` in every lane of every block is the same in
    /// every lane from bit `n` up; one the same in every lane, or in every
    /// block, differs between blocks by the same amount in every lane; an
    /// unknown one has none.
    fn settled(mut self) -> Fact {
        if !self.known {
            self.lanes = LANES_NONE;
            self.ones = u64::MAX;
            self.rel = 0;
            return self;
        }
        if self.value.is_some() || self.tz >= 64 {
            self.lanes = 0;
        }
        if let Some(v) = self.value {
            self.ones = v;
        }
        self.ones &= !low_bits(self.tz);
        if let Some((_, hi)) = self.range {
            self.lanes = self.lanes.min(bit_length(hi));
            self.ones &= low_bits(bit_length(hi));
        }
        if self.lanes == 0 || self.comps() == 0 {
            self.rel = REL_ALL;
        }
        self
    }

    /// The same in every lane of a warp, and in every block, with at least
    /// `t` trailing zeros: a bound that a comparison with a value the same
    /// in every lane from bit `t` up splits on warps.
    fn uniform_multiple(&self, t: u8) -> bool {
        self.known && self.lanes == 0 && self.tz >= t
    }

    /// Of a logical `self >> n` in 64 bits.
    fn shr(&self, n: u32) -> Fact {
        if n >= 64 {
            return Fact::constant(0);
        }
        Fact {
            dep: self.dep.map(|d| d.down(n)),
            known: self.known,
            tz: if self.tz >= 64 {
                64
            } else {
                self.tz.saturating_sub(n as u8)
            },
            value: self.value.map(|v| v >> n),
            range: self.range.map(|(lo, hi)| (lo >> n, hi >> n)),
            lanes: LANES_NONE,
            ones: u64::MAX,
            rel: 0,
        }
    }
}

/// The bits needed to write `v`: its bits from there up are zeros.
fn bit_length(v: u64) -> u8 {
    (64 - v.leading_zeros()) as u8
}

/// The low `n` bits set (all 64 from 64 up).
fn low_bits(n: u8) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// [`Fact::ones`] of what `kind` writes into its `i`-th destination, known
/// where `known`, its operands' facts given by `of` (bits above the
/// destination's width: zeros, or the sign where an operation extends it).
fn ones_of(kind: &Kind, i: usize, known: bool, of: &dyn Fn(&Src) -> Fact) -> u64 {
    let width = |bits: u32| low_bits(bits.min(64) as u8);
    if !known {
        return u64::MAX;
    }
    // A sum carries at most one bit past its terms' highest.
    let sum = |a: u64, b: u64| {
        if a & b == 0 {
            a | b
        } else {
            low_bits(bit_length(a | b).saturating_add(1))
        }
    };
    match kind {
        Kind::Mov { bits, a, .. } => of(a).ones & width(*bits),
        Kind::Unpack { piece, a, .. } => (of(a).ones >> (piece * i as u32).min(63)) & width(*piece),
        Kind::IntBin { op, t, a, b, .. } => {
            let (a, b) = (of(a), of(b));
            let bits = t.bits();
            let amount = b.value.map(|n| (n as u32).min(bits));
            match op {
                IntBin::And => a.ones & b.ones & width(bits),
                IntBin::Or | IntBin::Xor => (a.ones | b.ones) & width(bits),
                IntBin::Add { sat: false } => sum(a.ones, b.ones) & width(bits),
                IntBin::Shl => match amount {
                    Some(n) if n < 64 => (a.ones << n) & width(bits),
                    _ => width(bits),
                },
                IntBin::Shr if !t.signed() => match amount {
                    Some(n) if n < 64 => (a.ones & width(bits)) >> n,
                    _ => width(bits),
                },
                IntBin::Mul(Half::Wide) => width(t.wide().bits()),
                _ => width(bits),
            }
        }
        Kind::Cvt {
            dst: Ty::Int(to),
            src: Ty::Int(from),
            sat: false,
            a,
            ..
        } => {
            let low = of(a).ones & width(from.bits());
            let sign = from.signed() && low >> (from.bits() - 1) & 1 == 1;
            (if sign { u64::MAX } else { low }) & width(to.bits())
        }
        Kind::CvtaWindow {
            base,
            to_generic: true,
            bits,
            a,
            ..
        } => sum(*base, of(a).ones & width(32)) & width(*bits),
        _ => u64::MAX,
    }
}

/// `lanes` of a value held in `bits` bits: where a lane-varying bit reaches
/// the width, the bits above it (zeros or the sign) may vary too.
fn fit(lanes: u8, bits: u32) -> u8 {
    if u32::from(lanes) < bits {
        lanes
    } else {
        LANES_NONE
    }
}

/// `rel` of a value held in `bits` bits.
fn cap(rel: u8, bits: u32) -> u8 {
    rel.min(bits.min(64) as u8)
}

/// The lane facts ([`Fact::lanes`], [`Fact::rel`]) of what `kind` writes
/// into its `i`-th destination, known where `known`, its operands' facts
/// given by `of` (see the module docs, "What a value keeps of the lane").
fn lane_facts(kind: &Kind, i: usize, known: bool, of: &dyn Fn(&Src) -> Fact) -> (u8, u8) {
    const NONE: (u8, u8) = (LANES_NONE, 0);
    if !known {
        return NONE;
    }
    // Of a sum: where one term is the same in every lane with its low bits
    // zeros up to where the other's lanes vary, no carry leaves them.
    let sum_lanes = |a: &Fact, b: &Fact| {
        if a.lanes == 0 && a.tz >= b.lanes {
            b.lanes
        } else if b.lanes == 0 && b.tz >= a.lanes {
            a.lanes
        } else {
            LANES_NONE
        }
    };
    // Of a product, by a value the same in every lane and every block.
    let product_rel = |a: &Fact, b: &Fact| {
        let by = |x: &Fact, k: &Fact| {
            (k.lanes == 0 && k.comps() == 0).then(|| x.rel.saturating_add(k.tz).min(REL_ALL))
        };
        by(a, b).or_else(|| by(b, a)).unwrap_or(0)
    };
    // No bit set in both, in any lane of any block: `|` and `^` are `+`.
    let disjoint = |a: &Fact, b: &Fact| a.ones & b.ones == 0;
    match kind {
        Kind::Mov { bits, a, .. } => {
            let a = of(a);
            (fit(a.lanes, *bits), cap(a.rel, *bits))
        }
        Kind::Unpack { piece, a, .. } => {
            let a = of(a);
            let shift = piece * i as u32;
            let lanes = u32::from(a.lanes).saturating_sub(shift).min(64) as u8;
            let rel = if i == 0 { cap(a.rel, *piece) } else { 0 };
            (fit(lanes, *piece), rel)
        }
        Kind::Pack { piece, parts, .. } => {
            let parts: Vec<Fact> = parts.iter().map(of).collect();
            let lanes = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.lanes > 0)
                .map(|(i, p)| u32::from(fit(p.lanes, *piece)) + piece * i as u32)
                .max()
                .unwrap_or(0);
            // The pieces' differences are whole integers side by side: one
            // that varies by lane is the same only modulo its width.
            let rel = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.lanes > 0 && p.comps() != 0)
                .map(|(i, p)| u32::from(cap(p.rel, *piece)) + piece * i as u32)
                .min()
                .unwrap_or(u32::from(REL_ALL));
            (lanes.min(64) as u8, rel.min(64) as u8)
        }
        Kind::IntBin { op, t, a, b, .. } => {
            let (a, b) = (of(a), of(b));
            let bits = t.bits();
            let amount = b.value.map(|n| (n as u32).min(bits));
            match op {
                IntBin::Add { sat: false } => {
                    (fit(sum_lanes(&a, &b), bits), cap(a.rel.min(b.rel), bits))
                }
                // Less a value the same in every lane, its low bits zeros.
                IntBin::Sub { sat: false } => {
                    let lanes = if b.lanes == 0 && b.tz >= a.lanes {
                        a.lanes
                    } else {
                        LANES_NONE
                    };
                    (fit(lanes, bits), cap(a.rel.min(b.rel), bits))
                }
                IntBin::Or | IntBin::Xor => {
                    let rel = if disjoint(&a, &b) {
                        a.rel.min(b.rel)
                    } else {
                        0
                    };
                    (fit(a.lanes.max(b.lanes), bits), cap(rel, bits))
                }
                IntBin::And => {
                    // A constant mask: bits it clears are zeros.
                    let masked = |x: &Fact, m: Option<u64>| {
                        m.map_or(x.lanes, |m| {
                            let below = if x.lanes >= 64 {
                                u64::MAX
                            } else {
                                (1u64 << x.lanes) - 1
                            };
                            bit_length(m & below)
                        })
                    };
                    let lanes = masked(&a, b.value).max(masked(&b, a.value));
                    (fit(lanes, bits), 0)
                }
                IntBin::Shl => match amount {
                    Some(n) => (
                        fit(u32::from(a.lanes).saturating_add(n).min(64) as u8, bits),
                        cap((u32::from(a.rel) + n).min(64) as u8, bits),
                    ),
                    None if b.lanes == 0 && b.comps() == 0 => (LANES_NONE, cap(a.rel, bits)),
                    None => NONE,
                },
                IntBin::Shr => match amount {
                    Some(n) if u32::from(a.lanes) < bits => {
                        (u32::from(a.lanes).saturating_sub(n) as u8, 0)
                    }
                    _ => NONE,
                },
                IntBin::Mul(Half::Lo) => (LANES_NONE, cap(product_rel(&a, &b), bits)),
                IntBin::Mul(Half::Wide) => (LANES_NONE, cap(product_rel(&a, &b), t.wide().bits())),
                _ => NONE,
            }
        }
        Kind::IntUn { op, t, a, .. } => {
            let a = of(a);
            match op {
                // `!x = -x - 1`: the difference is negated.
                IntUn::Not => (fit(a.lanes, t.bits()), cap(a.rel, t.bits())),
                IntUn::Neg => (LANES_NONE, cap(a.rel, t.bits())),
                _ => NONE,
            }
        }
        Kind::Mad {
            t,
            half,
            sat: false,
            a,
            b,
            c,
            ..
        } if *half != Half::Hi => {
            let (a, b, c) = (of(a), of(b), of(c));
            let bits = if *half == Half::Wide {
                t.wide().bits()
            } else {
                t.bits()
            };
            (LANES_NONE, cap(product_rel(&a, &b).min(c.rel), bits))
        }
        Kind::Lop3 { a, b, c, .. } => {
            let lanes = of(a).lanes.max(of(b).lanes).max(of(c).lanes);
            (fit(lanes, 32), 0)
        }
        Kind::Selp { bits, a, b, c, .. } => {
            let (a, b, c) = (of(a), of(b), of(c));
            if c.known && c.lanes == 0 {
                // Every lane of a warp picks the same operand; in every
                // block, where the predicate is the same in every block.
                let rel = if c.comps() == 0 { a.rel.min(b.rel) } else { 0 };
                (fit(a.lanes.max(b.lanes), *bits), cap(rel, *bits))
            } else {
                NONE
            }
        }
        Kind::Cvt {
            dst: Ty::Int(to),
            src: Ty::Int(from),
            sat: false,
            a,
            ..
        } => {
            let a = of(a);
            let lanes = fit(a.lanes, from.bits());
            (
                fit(lanes, to.bits()),
                cap(cap(a.rel, from.bits()), to.bits()),
            )
        }
        Kind::CvtaWindow {
            base,
            to_generic: true,
            bits,
            a,
            ..
        } => {
            let a = of(a);
            let low = fit(a.lanes, 32);
            let lanes = if base.trailing_zeros() >= u32::from(low) {
                low
            } else {
                LANES_NONE
            };
            (fit(lanes, *bits), cap(cap(a.rel, 32), *bits))
        }
        Kind::Setp {
            cmp: Compare::Int(t, cmp),
            a,
            b,
            combine,
            ..
        } => {
            let (a, b) = (of(a), of(b));
            // `x < c` and `x >= c`, `c` a multiple of `2^t` the same in
            // every lane and `x`'s bits from `t` up the same: `x >> t`
            // (floor) against `c >> t`, the same in every lane.
            let split = match cmp {
                Cmp::Lt | Cmp::Lo | Cmp::Ge | Cmp::Hs => {
                    u32::from(a.lanes) < t.bits() && b.uniform_multiple(a.lanes)
                }
                Cmp::Gt | Cmp::Hi | Cmp::Le | Cmp::Ls => {
                    u32::from(b.lanes) < t.bits() && a.uniform_multiple(b.lanes)
                }
                _ => false,
            } || (a.lanes == 0 && b.lanes == 0);
            let with = combine.is_none_or(|(_, c, _)| {
                let c = of(&c);
                c.known && c.lanes == 0
            });
            if split && with {
                (0, REL_ALL)
            } else {
                NONE
            }
        }
        _ => NONE,
    }
}

/// How much of each component of the block index blocks must agree on to
/// run alike: its low `bits[d]` bits ([`Relevant::ALL`]: all of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Relevant {
    bits: [u8; 3],
}

impl Relevant {
    /// The whole component.
    pub(crate) const ALL: u8 = 32;

    /// Every block runs alike.
    pub(crate) fn none(&self) -> bool {
        self.bits == [0; 3]
    }

    /// The class of the block `id`: what it keeps of each component.
    pub(crate) fn key(&self, id: [u32; 3]) -> [u32; 3] {
        core::array::from_fn(|d| match self.bits[d] {
            0 => 0,
            b if b >= Relevant::ALL => id[d],
            b => id[d] & ((1u32 << b) - 1),
        })
    }

    /// How many classes a grid of `grid` blocks has at most.
    pub(crate) fn classes(&self, grid: [u32; 3]) -> u64 {
        (0..3)
            .map(|d| match self.bits[d] {
                b if b >= Relevant::ALL => u64::from(grid[d]),
                b => u64::from(grid[d]).min(1 << b),
            })
            .product()
    }

    /// Needs the low `n` bits of a value of `fact` (none where it is not
    /// known: the instruction never runs), and whether it is known.
    fn need(&mut self, fact: Option<Fact>, n: i16) {
        if let Some(f) = fact {
            // A value not always known that may depend on a component in
            // any way may be known in some blocks only (bounds other than
            // that come from known values).
            let n = if f.known { n } else { n.max(1) };
            // Bits known to be zero agree in every block, whatever the
            // bounds say (`(x >> 1) << 7`).
            if f.known && i16::from(f.tz) >= n {
                return;
            }
            for d in 0..3 {
                self.bits[d] = self.bits[d].max(f.dep[d].bits_for(n));
            }
        }
    }
}

/// What the analysis knows of a launch beyond its program.
pub(crate) struct Given<'a> {
    /// The arguments' bytes, by parameter.
    pub args: &'a [Vec<u8>],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
}

/// The fact of a special register.
fn special(s: Special, given: &Given<'_>, program: &Program) -> Fact {
    let comp = |d: u8| usize::from(d.min(2));
    let below = |n: u32| Fact::within(0, u64::from(n.max(1)) - 1);
    let warp_wide = Fact {
        lanes: 0,
        ..Fact::UNIFORM
    };
    let [bx, by, _] = given.block;
    let f = match s {
        Special::Ctaid(d) => {
            let mut f = below(given.grid[comp(d)]);
            f.dep[comp(d)] = Dep::ITSELF;
            f.lanes = 0;
            f
        }
        // A warp's threads are 32 consecutive linear indices: where a row
        // of `x` holds whole warps, `tid.x`'s bits from 5 up and the other
        // components are the same in every lane.
        Special::Tid(d) => {
            let mut f = below(given.block[comp(d)]);
            let whole = |n: u32| n.is_multiple_of(32);
            f.lanes = match comp(d) {
                0 if whole(bx) => 5,
                1 if whole(bx) => 0,
                2 if whole(bx.saturating_mul(by)) => 0,
                _ => LANES_NONE,
            };
            f
        }
        Special::Laneid => below(32),
        Special::Warpid => Fact {
            lanes: 0,
            ..below(given.block.iter().product::<u32>().div_ceil(32))
        },
        // The quotient or the remainder by the cluster's size: the ctaid of
        // a launch without clusters, any function of it in general.
        Special::ClusterId(d) | Special::ClusterCtaid(d) => Fact {
            lanes: 0,
            ..Fact::any(1 << comp(d), true)
        },
        // The rank in the cluster mixes every component.
        Special::ClusterCtarank => Fact {
            lanes: 0,
            ..Fact::any(0b111, true)
        },
        Special::Ntid(d) => Fact::constant(u64::from(given.block[comp(d)])),
        Special::Nctaid(d) => Fact::constant(u64::from(given.grid[comp(d)])),
        Special::WarpSize => Fact::constant(32),
        Special::GridWorkspace => Fact::constant(super::ir::GRID_WORKSPACE_HALF),
        Special::DynamicSmemSize => Fact::constant(u64::from(given.dynamic_shared)),
        Special::TotalSmemSize => {
            Fact::constant(u64::from(program.static_shared) + u64::from(given.dynamic_shared))
        }
        Special::Unknown => Fact::UNKNOWN,
        Special::LanemaskEq
        | Special::LanemaskLt
        | Special::LanemaskLe
        | Special::LanemaskGt
        | Special::LanemaskGe => Fact::UNIFORM,
        Special::Nwarpid
        | Special::NclusterId(_)
        | Special::ClusterNctaid(_)
        | Special::ClusterNctarank
        | Special::ExplicitCluster => warp_wide,
    };
    f.settled()
}

/// The operands an instruction reads, its guard first.
fn reads(inst: &Inst, func: &Function) -> Vec<Src> {
    let mut r: Vec<Src> = inst.guard.map(|(p, _)| Src::Reg(p)).into_iter().collect();
    let addr = |a: &Addr| a.base;
    let counter = |m: &Merge| match m {
        Merge::Loop { table } => func.loops.get(*table as usize).map(|l| Src::Reg(l.counter)),
        _ => None,
    };
    match &inst.kind {
        Kind::Mov { a, .. }
        | Kind::IntUn { a, .. }
        | Kind::PredNot { a, .. }
        | Kind::Cvt { a, .. }
        | Kind::CvtaWindow { a, .. }
        | Kind::Redux { a, .. }
        | Kind::Vote { a, .. }
        | Kind::Unpack { a, .. }
        | Kind::MatchAny { a, .. } => r.push(*a),
        Kind::Pack { parts, .. } => r.extend(parts),
        Kind::IntBin { a, b, .. }
        | Kind::PredBin { a, b, .. }
        | Kind::Set { a, b, .. }
        | Kind::Mapa { a, rank: b, .. } => r.extend([*a, *b]),
        Kind::Mad { a, b, c, .. }
        | Kind::Mad24 { a, b, c, .. }
        | Kind::Bfe { a, b, c, .. }
        | Kind::Prmt { a, b, c, .. }
        | Kind::Lop3 { a, b, c, .. }
        | Kind::Float { a, b, c, .. }
        | Kind::Selp { a, b, c, .. }
        | Kind::Shfl { a, b, c, .. } => r.extend([*a, *b, *c]),
        Kind::Bfi { a, b, c, e, .. } => r.extend([*a, *b, *c, *e]),
        Kind::Setp { a, b, combine, .. } => {
            r.extend([*a, *b]);
            r.extend(combine.map(|(_, c, _)| c));
        }
        Kind::Opaque { srcs, .. } => r.extend(srcs.iter().flatten()),
        Kind::Ld { addr: a, merge, .. } => {
            r.push(addr(a));
            r.extend(counter(merge));
        }
        Kind::St {
            srcs,
            addr: a,
            merge,
            ..
        } => {
            r.extend(srcs);
            r.push(addr(a));
            r.extend(counter(merge));
        }
        Kind::Atom { addr: a, val, .. } => r.extend([addr(a), *val]),
        Kind::LdMatrix { addr: a, .. } | Kind::StMatrix { addr: a, .. } => r.push(addr(a)),
        Kind::Wmma {
            addr: a, stride, ..
        } => r.extend([addr(a), *stride]),
        Kind::Wgmma { a, b, .. } => {
            r.extend(*a);
            r.push(*b);
        }
        Kind::CpAsync {
            dst, src, src_size, ..
        } => {
            r.extend([addr(dst), addr(src)]);
            r.extend(*src_size);
        }
        Kind::CpAsyncArrive { bar, .. } => r.extend(bar.as_ref().map(addr)),
        Kind::Mbar { bar, a, b, .. } => r.extend([addr(bar), *a, *b]),
        Kind::Bulk(kind) => match kind {
            BulkKind::Load { dst, size, bar } => r.extend([addr(dst), *size, addr(bar)]),
            BulkKind::Store { src, size } => r.extend([addr(src), *size]),
            BulkKind::TensorLoad {
                dst,
                map,
                coords,
                bar,
            } => {
                r.extend([addr(dst), *map, addr(bar)]);
                r.extend(coords);
            }
            BulkKind::TensorStore { src, map, coords } => {
                r.extend([addr(src), *map]);
                r.extend(coords);
            }
        },
        Kind::Bar { kind, id, count } => {
            r.push(*id);
            r.extend(*count);
            if let BarKind::Red { pred, .. } = kind {
                r.push(*pred);
            }
        }
        Kind::BarWarp { mask } => r.push(*mask),
        Kind::Activemask { .. }
        | Kind::Elect { .. }
        | Kind::Unmodelled { .. }
        | Kind::CpAsyncCommit
        | Kind::CpAsyncWait { .. }
        | Kind::WgmmaCommit
        | Kind::WgmmaWait { .. }
        | Kind::Fence
        | Kind::Bra { .. }
        | Kind::Call { .. }
        | Kind::Ret
        | Kind::Exit
        | Kind::Nop => {}
    }
    r
}

/// The registers an instruction writes.
fn writes(kind: &Kind) -> Vec<Reg> {
    match kind {
        Kind::Mov { d, .. }
        | Kind::IntUn { d, .. }
        | Kind::PredNot { d, .. }
        | Kind::Cvt { d, .. }
        | Kind::CvtaWindow { d, .. }
        | Kind::Redux { d, .. }
        | Kind::Vote { d, .. }
        | Kind::Pack { d, .. }
        | Kind::IntBin { d, .. }
        | Kind::PredBin { d, .. }
        | Kind::Set { d, .. }
        | Kind::Mad { d, .. }
        | Kind::Mad24 { d, .. }
        | Kind::Bfe { d, .. }
        | Kind::Prmt { d, .. }
        | Kind::Lop3 { d, .. }
        | Kind::Float { d, .. }
        | Kind::Selp { d, .. }
        | Kind::Bfi { d, .. }
        | Kind::Activemask { d }
        | Kind::Mapa { d, .. }
        | Kind::MatchAny { d, .. } => vec![*d],
        Kind::Unpack { ds, .. } | Kind::Ld { ds, .. } => ds.iter().flatten().copied().collect(),
        Kind::Setp { p, q, .. } => p.iter().chain(q).copied().collect(),
        Kind::Shfl { d, p, .. } => core::iter::once(*d).chain(*p).collect(),
        Kind::Elect { d, p } => d.iter().chain(p).copied().collect(),
        Kind::Opaque { ds, .. }
        | Kind::Unmodelled { ds }
        | Kind::LdMatrix { ds, .. }
        | Kind::Wmma { ds, .. }
        | Kind::Wgmma { ds, .. } => ds.clone(),
        Kind::Atom { d, .. } | Kind::Mbar { d, .. } => d.iter().copied().collect(),
        Kind::Bar { kind, .. } => match kind {
            BarKind::Red { dst, .. } => dst.iter().copied().collect(),
            _ => Vec::new(),
        },
        Kind::StMatrix { .. }
        | Kind::St { .. }
        | Kind::CpAsync { .. }
        | Kind::CpAsyncCommit
        | Kind::CpAsyncWait { .. }
        | Kind::CpAsyncArrive { .. }
        | Kind::WgmmaCommit
        | Kind::WgmmaWait { .. }
        | Kind::Bulk(_)
        | Kind::BarWarp { .. }
        | Kind::Fence
        | Kind::Bra { .. }
        | Kind::Call { .. }
        | Kind::Ret
        | Kind::Exit
        | Kind::Nop => Vec::new(),
    }
}

/// Whether an instruction, executed unguarded, writes each of its
/// destinations in every lane it runs in (the liveness below counts only
/// these as writes; any other may leave a register as it was).
fn always_writes(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Mov { .. }
            | Kind::Pack { .. }
            | Kind::Unpack { .. }
            | Kind::IntBin { .. }
            | Kind::IntUn { .. }
            | Kind::Mad { .. }
            | Kind::Mad24 { .. }
            | Kind::Bfe { .. }
            | Kind::Bfi { .. }
            | Kind::Prmt { .. }
            | Kind::Lop3 { .. }
            | Kind::PredBin { .. }
            | Kind::PredNot { .. }
            | Kind::Float { .. }
            | Kind::Setp { .. }
            | Kind::Set { .. }
            | Kind::Selp { .. }
            | Kind::Cvt { .. }
            | Kind::CvtaWindow { .. }
            // What it loads, or unknown (or an error that ends the block).
            | Kind::Ld { .. }
    )
}

/// The registers of `func` that may be read before they are written on
/// some path from its start: they hold what a frame starts with, unknown.
fn read_unwritten(func: &Function, uses: &[Vec<Src>]) -> Vec<bool> {
    let n = func.insts.len();
    let regs = func.regs as usize;
    let words = regs.div_ceil(64);
    let flow: Vec<Flow> = func
        .insts
        .iter()
        .map(|i| match (&i.kind, i.guard.is_some()) {
            (Kind::Bra { target }, false) => Flow::Jump(*target),
            (Kind::Bra { target }, true) => Flow::Branch(*target),
            (Kind::Ret | Kind::Exit, false) => Flow::Leave,
            (Kind::Ret | Kind::Exit, true) => Flow::MaybeLeave,
            _ => Flow::Next,
        })
        .collect();
    // Live registers before each instruction (the exit's: none), a bit each.
    let mut live = vec![0u64; (n + 1) * words];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut set = vec![0u64; words];
            for s in cfg::successors(&flow, i).into_iter().flatten() {
                let s = s as usize;
                for (w, x) in set.iter_mut().zip(&live[s * words..(s + 1) * words]) {
                    *w |= x;
                }
            }
            let inst = &func.insts[i];
            if inst.guard.is_none() && always_writes(&inst.kind) {
                for d in writes(&inst.kind) {
                    if let Some(w) = set.get_mut(d as usize / 64) {
                        *w &= !(1 << (d % 64));
                    }
                }
            }
            for s in &uses[i] {
                if let Src::Reg(r) = *s {
                    if let Some(w) = set.get_mut(r as usize / 64) {
                        *w |= 1 << (r % 64);
                    }
                }
            }
            if set[..] != live[i * words..(i + 1) * words] {
                live[i * words..(i + 1) * words].copy_from_slice(&set);
                changed = true;
            }
        }
    }
    (0..regs)
        .map(|r| live[r / 64] >> (r % 64) & 1 == 1)
        .collect()
}

/// The bytes of a kernel parameter's argument at `offset..offset + bytes`
/// of the entry's param memory, little-endian, where an argument gives all
/// of them.
fn argument(func: &Function, given: &Given<'_>, offset: u64, bytes: u32) -> Option<u64> {
    if bytes > 8 {
        return None;
    }
    let end = offset.checked_add(u64::from(bytes))?;
    let (param, arg) = func.params.iter().zip(given.args).find(|(p, _)| {
        let start = u64::from(p.offset);
        start <= offset && end <= start + u64::from(p.bytes)
    })?;
    let at = (offset - u64::from(param.offset)) as usize;
    let b = arg.get(at..at + bytes as usize)?;
    Some(b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
}

/// Whether function `func` may write its own parameters (they are then not
/// the arguments).
fn writes_params(func: &Function) -> bool {
    let end = func
        .params
        .iter()
        .map(|p| p.offset + p.bytes)
        .max()
        .unwrap_or(0);
    func.insts.iter().any(|i| match &i.kind {
        Kind::St {
            space: Space::Param,
            ..
        }
        | Kind::Atom {
            space: Space::Param,
            ..
        } => true,
        Kind::Call { rets, .. } => rets.iter().any(|r| r.offset < end),
        _ => false,
    })
}

/// The range of the result of `op` on operands within `a` and `b`, of a
/// type of 32 or 64 bits (see [`RANGE_END`]).
fn bin_range(op: IntBin, a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> Option<(u64, u64)> {
    let ((l1, h1), (l2, h2)) = (a?, b?);
    match op {
        IntBin::Add { .. } => range(l1 + l2, h1 + h2),
        IntBin::Sub { .. } => (l1 >= h2).then(|| range(l1 - h2, h1 - l2)).flatten(),
        IntBin::Mul(Half::Lo | Half::Wide) => range(l1 * l2, h1 * h2),
        IntBin::Div => (l2 >= 1).then(|| (l1 / h2, h1 / l2)),
        IntBin::Rem => (l2 >= 1).then(|| (0, h1.min(h2 - 1))),
        IntBin::Min => range(l1.min(l2), h1.min(h2)),
        IntBin::Max => range(l1.max(l2), h1.max(h2)),
        IntBin::And => range(0, h1.min(h2)),
        IntBin::Or | IntBin::Xor => range(0, (h1.max(h2) + 1).next_power_of_two() - 1),
        IntBin::Shl => (h2 < 31).then(|| range(l1 << l2, h1 << h2)).flatten(),
        IntBin::Shr => range(l1 >> h2.min(63), h1 >> l2.min(63)),
        IntBin::Mul(Half::Hi) | IntBin::Mul24(_) => None,
    }
}

/// Of an integer operation whose operands are known in every block, with
/// no constant to fold.
fn int_bin(op: IntBin, t: IntType, a: &Fact, b: &Fact) -> Fact {
    let bits = t.bits();
    let f = int_bin_bounds(op, t, a, b);
    f.bounded(
        (bits >= 32)
            .then(|| bin_range(op, a.range, b.range))
            .flatten(),
    )
}

/// [`int_bin`] but the range.
fn int_bin_bounds(op: IntBin, t: IntType, a: &Fact, b: &Fact) -> Fact {
    let bits = t.bits();
    let comps = a.comps() | b.comps();
    let amount = |b: &Fact| b.value.map(|n| (n as u32).min(bits));
    // A divisor that is never 0: the quotient and remainder are known.
    let nonzero = b.value.is_some_and(|v| t.trunc(v) != 0)
        || (bits >= 32 && b.range.is_some_and(|(lo, _)| lo >= 1));
    match op {
        IntBin::Add { sat: false } | IntBin::Sub { sat: false } => a.plus(b).trunc(bits),
        IntBin::Mul(Half::Lo) => a.times(b).trunc(bits),
        IntBin::Mul(Half::Wide) => a.times(b).trunc(t.wide().bits()),
        IntBin::Mul24(Half::Lo) => a.trunc(24).times(&b.trunc(24)).trunc(32),
        IntBin::And => Fact::computed(a.pointwise(b), u32::from(a.tz.max(b.tz))).trunc(bits),
        IntBin::Or | IntBin::Xor => a.plus(b).trunc(bits),
        IntBin::Shl => match amount(b) {
            Some(n) => a.trunc(bits).shl(n).trunc(bits),
            None if b.comps() == 0 => Fact::computed(a.dep, u32::from(a.tz)).trunc(bits),
            None => Fact::any(comps, true),
        },
        // The bits above the width are zeros or the sign: they agree where
        // the width's do.
        IntBin::Shr => match amount(b) {
            Some(n) => {
                let mut f = a.trunc(bits).shr(n);
                f.value = None;
                f
            }
            None => Fact::any(comps, true),
        },
        IntBin::Rem => match b.value.map(|v| t.trunc(v)) {
            Some(r) if r != 0 => {
                let tr = r.trailing_zeros() as u8;
                Fact::computed(a.dep.map(|d| d.capped(tr)), u32::from(a.tz.min(tr)))
            }
            _ => Fact::any(comps, nonzero),
        },
        IntBin::Div => Fact::any(comps, nonzero),
        IntBin::Add { sat: true }
        | IntBin::Sub { sat: true }
        | IntBin::Mul(Half::Hi)
        | IntBin::Mul24(_)
        | IntBin::Min
        | IntBin::Max => Fact::any(comps, true),
    }
}

/// The fact of `src`, `None` where it is a register no write reaches (yet).
fn fact_of(regs: &[Option<Fact>], s: &Src, given: &Given<'_>, program: &Program) -> Option<Fact> {
    Some(match *s {
        Src::Reg(r) => return regs.get(r as usize).copied().flatten(),
        Src::Imm(v) => Fact::constant(v),
        Src::Shared(o) | Src::Param(o) => Fact::constant(u64::from(o)),
        Src::Special(sp) => special(sp, given, program),
        Src::Unknown => Fact::UNKNOWN,
    })
}

/// What [`classes`] finds of a launch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Classes {
    /// How much of each component of the block index can change what a
    /// block tells its consumer.
    pub relevant: Relevant,
    /// The plain `cp.async.cg` copies (function, instruction) whose source
    /// event is the same in every two blocks that run them alike (the same
    /// instructions under the same masks): a key need not hold it.
    pub same_sources: Vec<(u32, u32)>,
}

/// How much of each component of the block index can change what a block
/// of `program`'s entry tells its consumer, in the launch `given`, and
/// which copies' source events a value key need not hold (see the module
/// docs).
pub(crate) fn classes(program: &Program, plan: &Plan, given: &Given<'_>) -> Classes {
    // Whether any global load is numbered: then whatever may write global
    // memory changes later numbers (the epoch).
    let numbered_loads = program.functions.iter().enumerate().any(|(f, func)| {
        func.insts.iter().enumerate().any(|(pc, inst)| {
            matches!(
                inst.kind,
                Kind::Ld {
                    space: Space::Global,
                    ..
                }
            ) && plan.wants(f as u32, pc as u32)
                && plan.load_class(inst.name).is_some()
        })
    });
    let uses: Vec<Vec<Vec<Src>>> = program
        .functions
        .iter()
        .map(|func| func.insts.iter().map(|i| reads(i, func)).collect())
        .collect();
    let args_known = program
        .functions
        .first()
        .is_some_and(|f| f.is_entry && !writes_params(f));
    let mut regs: Vec<Vec<Option<Fact>>> = program
        .functions
        .iter()
        .zip(&uses)
        .map(|(func, uses)| {
            read_unwritten(func, uses)
                .into_iter()
                .map(|unwritten| unwritten.then_some(Fact::UNKNOWN))
                .collect()
        })
        .collect();
    // What the `.param` and shared spaces may hold depends on.
    let (mut param, mut shared): (Components, Components) = (0, 0);
    let mut sinks = Relevant::default();
    // The plain `.cg` copies, and their sources.
    let mut bypass: Vec<(usize, usize, Src)> = Vec::new();
    loop {
        bypass.clear();
        let before = (param, shared, sinks, regs.clone());
        for (f, func) in program.functions.iter().enumerate() {
            let r = &mut regs[f];
            for (pc, inst) in func.insts.iter().enumerate() {
                let operands: Option<Vec<Fact>> = uses[f][pc]
                    .iter()
                    .map(|s| fact_of(r, s, given, program))
                    .collect();
                // An operand no write reaches: on no path yet.
                let Some(operands) = operands else { continue };
                let fact = |s: &Src| fact_of(r, s, given, program);
                let comps_of = |s: &Src| fact(s).map_or(0, |f| f.comps());
                let addr = |a: &Addr| comps_of(&a.base);
                let guard = inst.guard.map_or(0, |(p, _)| comps_of(&Src::Reg(p)));
                // The guard's own part is added to what is written below.
                let body = &operands[usize::from(inst.guard.is_some())..];
                let all_known = body.iter().all(|o| o.known);
                let comps = body.iter().fold(0, |m, o| m | o.comps());
                // Where the guard is itself a sink.
                let g = Some(Fact::any(guard, true));
                let full = |sinks: &mut Relevant, s: &Src| sinks.need(fact(s), WIDTH);
                let counter = |sinks: &mut Relevant, m: &Merge| {
                    if let Merge::Loop { table } = m {
                        if let Some(l) = func.loops.get(*table as usize) {
                            sinks.need(fact(&Src::Reg(l.counter)), WIDTH);
                        }
                    }
                };
                // What each destination gets (Unpack: per piece).
                let mut out: Vec<Fact> = Vec::new();
                let mut each: Option<Fact> = None;
                match &inst.kind {
                    Kind::Mov { bits, a, .. } => {
                        each = fact(a).map(|f| f.trunc(*bits));
                    }
                    Kind::Pack { piece, parts, .. } => {
                        each = Some(if all_known {
                            parts
                                .iter()
                                .enumerate()
                                .filter_map(|(i, p)| {
                                    fact(p).map(|f| f.trunc(*piece).shl(piece * i as u32))
                                })
                                .fold(Fact::constant(0), |acc, f| Fact {
                                    value: acc.value.zip(f.value).map(|(x, y)| x | y),
                                    ..acc.plus(&f)
                                })
                        } else {
                            Fact::any(comps, false)
                        });
                    }
                    Kind::Unpack { piece, ds, a } => {
                        let a = fact(a).unwrap_or(Fact::UNKNOWN);
                        out = (0..ds.len())
                            .map(|i| {
                                if a.known {
                                    a.shr(piece * i as u32).trunc(*piece)
                                } else {
                                    Fact::any(comps, false)
                                }
                            })
                            .collect();
                    }
                    Kind::IntBin { op, t, a, b, .. } => {
                        let [a, b] = [a, b].map(|s| fact(s).unwrap_or(Fact::UNKNOWN));
                        each = Some(match (a.value, b.value) {
                            (Some(x), Some(y)) => {
                                Fact::folded(op.eval(*t, Value::known(x), Value::known(y)))
                            }
                            _ if a.known && b.known => int_bin(*op, *t, &a, &b),
                            _ => Fact::any(comps, false),
                        });
                    }
                    Kind::IntUn { op, t, a, .. } => {
                        let a = fact(a).unwrap_or(Fact::UNKNOWN);
                        each = Some(match (a.value, op) {
                            (Some(x), _) => Fact::folded(op.eval(*t, Value::known(x))),
                            (None, IntUn::Neg) if a.known => {
                                Fact::computed(a.dep, u32::from(a.tz)).trunc(t.bits())
                            }
                            (None, IntUn::Not) if a.known => {
                                Fact::computed(a.dep, 0).trunc(t.bits())
                            }
                            _ => Fact::any(comps, a.known),
                        });
                    }
                    Kind::Mad {
                        t,
                        half,
                        sat,
                        a,
                        b,
                        c,
                        ..
                    } => {
                        let [a, b, c] = [a, b, c].map(|s| fact(s).unwrap_or(Fact::UNKNOWN));
                        let bits = if *half == Half::Wide {
                            t.wide().bits()
                        } else {
                            t.bits()
                        };
                        each = Some(match (a.value, b.value, c.value) {
                            (Some(x), Some(y), Some(z)) => Fact::folded(ops::mad(
                                *t,
                                *half,
                                Value::known(x),
                                Value::known(y),
                                Value::known(z),
                                *sat,
                            )),
                            _ if all_known && !sat && *half != Half::Hi => {
                                let r = (t.bits() >= 32)
                                    .then(|| {
                                        let p = bin_range(IntBin::Mul(Half::Lo), a.range, b.range);
                                        bin_range(IntBin::Add { sat: false }, p, c.range)
                                    })
                                    .flatten();
                                a.times(&b).trunc(bits).plus(&c).trunc(bits).bounded(r)
                            }
                            _ => Fact::any(comps, all_known),
                        });
                    }
                    Kind::Mad24 { half, a, b, c, .. } => {
                        let [a, b, c] = [a, b, c].map(|s| fact(s).unwrap_or(Fact::UNKNOWN));
                        each = Some(if all_known && *half == Half::Lo {
                            let p = a.trunc(24).times(&b.trunc(24)).trunc(32);
                            let mut f = p.plus(&c).trunc(32);
                            f.value = None;
                            f
                        } else {
                            Fact::any(comps, all_known)
                        });
                    }
                    Kind::Lop3 { a, b, c, lut, .. } => {
                        let [a, b, c] = [a, b, c].map(|s| fact(s).unwrap_or(Fact::UNKNOWN));
                        each = Some(match (a.value, b.value, c.value) {
                            (Some(x), Some(y), Some(z)) => Fact::folded(ops::lop3(
                                Value::known(x),
                                Value::known(y),
                                Value::known(z),
                                *lut,
                            )),
                            _ if all_known => {
                                // Zero bits in all three give the table's
                                // entry 0.
                                let tz = if lut & 1 == 0 {
                                    a.tz.min(b.tz).min(c.tz)
                                } else {
                                    0
                                };
                                Fact::computed(
                                    core::array::from_fn(|d| {
                                        a.dep[d].join(b.dep[d]).join(c.dep[d])
                                    }),
                                    u32::from(tz),
                                )
                                .trunc(32)
                            }
                            _ => Fact::any(comps, false),
                        });
                    }
                    Kind::Selp { bits, a, b, c, .. } => {
                        let [a, b, c] = [a, b, c].map(|s| fact(s).unwrap_or(Fact::UNKNOWN));
                        each = Some(if all_known && c.comps() == 0 {
                            Fact {
                                dep: a.pointwise(&b),
                                known: true,
                                tz: a.tz.min(b.tz),
                                value: a.value.filter(|_| a.value == b.value),
                                range: a
                                    .range
                                    .zip(b.range)
                                    .map(|((l1, h1), (l2, h2))| (l1.min(l2), h1.max(h2))),
                                lanes: LANES_NONE,
                                ones: u64::MAX,
                                rel: 0,
                            }
                            .trunc(*bits)
                        } else {
                            Fact::any(comps, all_known)
                        });
                    }
                    Kind::Cvt {
                        dst, src, sat, a, ..
                    } => {
                        let a = fact(a).unwrap_or(Fact::UNKNOWN);
                        each = Some(match (dst, src) {
                            (Ty::Int(to), Ty::Int(from)) if !sat && a.known => {
                                let value = a.value.map(|v| to.wrap(from.extend(v)));
                                // Below the sign bit, extension changes
                                // nothing.
                                let half = 1u64 << (from.bits() - 1);
                                Fact {
                                    value,
                                    range: match value {
                                        Some(v) => range(v, v),
                                        None => a.range.filter(|&(_, hi)| hi < half),
                                    },
                                    ..a.trunc(from.bits())
                                }
                                .trunc(to.bits())
                            }
                            (Ty::Int(to), Ty::Int(from)) if a.known => match a.value {
                                Some(v) => {
                                    Fact::folded(ops::cvt(*to, *from, Value::known(v), true))
                                }
                                None => Fact::any(comps, true),
                            },
                            _ => Fact::any(comps, false),
                        });
                    }
                    Kind::CvtaWindow {
                        base,
                        to_generic: true,
                        bits,
                        a,
                        ..
                    } => {
                        let a = fact(a).unwrap_or(Fact::UNKNOWN);
                        each = Some(if a.known {
                            let b = Fact::constant(*base);
                            Fact {
                                value: a.value.map(|v| base.wrapping_add(v & 0xffff_ffff)),
                                ..a.trunc(32).plus(&b)
                            }
                            .trunc(*bits)
                        } else {
                            Fact::any(comps, false)
                        });
                    }
                    Kind::CvtaWindow { .. }
                    | Kind::Redux { .. }
                    | Kind::Vote { .. }
                    | Kind::MatchAny { .. }
                    | Kind::Mapa { .. }
                    | Kind::Shfl { .. }
                    | Kind::Float { .. } => each = Some(Fact::any(comps, false)),
                    Kind::PredNot { .. }
                    | Kind::PredBin { .. }
                    | Kind::Set { .. }
                    | Kind::Setp { .. }
                    | Kind::Bfe { .. }
                    | Kind::Bfi { .. }
                    | Kind::Prmt { .. } => each = Some(Fact::any(comps, all_known)),
                    Kind::Activemask { .. } | Kind::Elect { .. } => each = Some(Fact::UNKNOWN),
                    Kind::Opaque { .. } => {
                        each = Some(Fact::any(comps, false));
                        if numbered_loads {
                            sinks.need(g, WIDTH);
                        }
                    }
                    Kind::Unmodelled { .. } => {
                        each = Some(Fact::UNKNOWN);
                        sinks.need(g, WIDTH);
                    }
                    Kind::Ld {
                        space,
                        piece,
                        ds,
                        addr: a,
                        merge,
                    } => {
                        counter(&mut sinks, merge);
                        let at = fact(&a.base).unwrap_or(Fact::UNKNOWN);
                        match space {
                            Space::Shared
                            | Space::SharedCluster
                            | Space::Generic
                            | Space::Const => {
                                full(&mut sinks, &a.base);
                                sinks.need(g, WIDTH);
                                each = Some(Fact::any(at.comps() | shared, false));
                            }
                            Space::Param => {
                                let start = at.value.map(|v| v.wrapping_add(a.offset as u64));
                                out = (0..ds.len() as u64)
                                    .map(|i| {
                                        let v =
                                            start.filter(|_| args_known && f == 0).and_then(|s| {
                                                let at = s.checked_add(i * u64::from(piece / 8))?;
                                                argument(func, given, at, piece / 8)
                                            });
                                        v.map_or(
                                            Fact::any(at.comps() | param, false),
                                            Fact::constant,
                                        )
                                    })
                                    .collect();
                            }
                            // Unknown values, or numbers of their addresses
                            // (only where wanted).
                            Space::Global | Space::Local => {
                                each = Some(if plan.wants(f as u32, pc as u32) {
                                    Fact::any(at.comps(), false)
                                } else {
                                    Fact::UNKNOWN
                                });
                            }
                        }
                    }
                    Kind::St {
                        space,
                        srcs: values,
                        addr: a,
                        merge,
                        ..
                    } => {
                        counter(&mut sinks, merge);
                        let v = values.iter().fold(0, |t, s| t | comps_of(s));
                        match space {
                            Space::Shared | Space::SharedCluster | Space::Generic => {
                                full(&mut sinks, &a.base);
                                sinks.need(g, WIDTH);
                                for s in values {
                                    full(&mut sinks, s);
                                }
                                shared |= v;
                                // Whether it writes what memory holds.
                                sinks.need(Some(Fact::any(shared, true)), WIDTH);
                            }
                            Space::Param => param |= addr(a) | v | guard,
                            Space::Global | Space::Local | Space::Const => {
                                if numbered_loads {
                                    sinks.need(g, WIDTH);
                                }
                            }
                        }
                    }
                    Kind::Atom {
                        space,
                        addr: a,
                        val,
                        ..
                    } => match space {
                        Space::Global | Space::Local | Space::Const | Space::Param => {
                            each = Some(Fact::UNKNOWN);
                            if numbered_loads {
                                sinks.need(g, WIDTH);
                            }
                        }
                        // A shared atomic's new value and old value are
                        // computed where known: its operand flows into
                        // shared memory and its result.
                        _ => {
                            full(&mut sinks, &a.base);
                            sinks.need(g, WIDTH);
                            shared |= comps_of(val) | addr(a) | guard;
                            each = Some(Fact::any(comps_of(val) | addr(a) | shared, false));
                        }
                    },
                    Kind::LdMatrix { addr: a, .. } => {
                        full(&mut sinks, &a.base);
                        sinks.need(g, WIDTH);
                        each = Some(Fact::any(addr(a) | shared, false));
                    }
                    Kind::Wmma {
                        space,
                        addr: a,
                        stride,
                        ..
                    } => {
                        // Fragments are unknown after it, wherever it reads.
                        each = Some(Fact::UNKNOWN);
                        if matches!(
                            space,
                            Space::Shared | Space::SharedCluster | Space::Generic | Space::Const
                        ) {
                            full(&mut sinks, &a.base);
                            full(&mut sinks, stride);
                            sinks.need(g, WIDTH);
                        }
                    }
                    Kind::Wgmma { a, b, .. } => {
                        // The descriptors are shared addresses.
                        if let Some(a) = a {
                            full(&mut sinks, a);
                        }
                        full(&mut sinks, b);
                        sinks.need(g, WIDTH);
                        each = Some(Fact::UNKNOWN);
                    }
                    Kind::StMatrix { addr: a, .. } => {
                        full(&mut sinks, &a.base);
                        sinks.need(g, WIDTH);
                    }
                    // The global side is an event too (the low bits of its
                    // addresses, Event::CpAsyncSource), and how much it
                    // reads.
                    Kind::CpAsync {
                        kind,
                        dst,
                        src,
                        src_size,
                        ..
                    } => {
                        full(&mut sinks, &dst.base);
                        sinks.need(g, WIDTH);
                        // What the event carries of the source, and whether
                        // it is sent at all (every reading lane's source
                        // known); a plain `.cg`'s, once the lane facts are
                        // settled (below).
                        match kind {
                            CpAsync::Ca => sinks.need(fact(&src.base), CP_ASYNC_SOURCE_BITS),
                            CpAsync::Cg => bypass.push((f, pc, src.base)),
                        }
                        if let Some(s) = src_size {
                            full(&mut sinks, s);
                        }
                    }
                    Kind::Bar { kind, id, count } => {
                        full(&mut sinks, id);
                        sinks.need(g, WIDTH);
                        if let Some(c) = count {
                            full(&mut sinks, c);
                        }
                        if let BarKind::Red { .. } = kind {
                            each = Some(Fact::any(comps, false));
                        }
                    }
                    Kind::BarWarp { mask } => {
                        full(&mut sinks, mask);
                        sinks.need(g, WIDTH);
                    }
                    Kind::CpAsyncArrive { bar, .. } => {
                        sinks.need(g, WIDTH);
                        if let Some(b) = bar {
                            full(&mut sinks, &b.base);
                        }
                    }
                    // What an mbarrier or a bulk copy does depends on its
                    // operands (the mbarrier, counts, parities, bytes, the
                    // map's parameter and coordinates, the destination), and
                    // its results can reach what the consumer sees.
                    Kind::Mbar { .. } | Kind::Bulk(_) => {
                        for s in &uses[f][pc] {
                            full(&mut sinks, s);
                        }
                        each = Some(Fact::any(comps, false));
                    }
                    Kind::CpAsyncCommit
                    | Kind::CpAsyncWait { .. }
                    | Kind::WgmmaCommit
                    | Kind::WgmmaWait { .. }
                    | Kind::Fence
                    | Kind::Bra { .. }
                    | Kind::Call { .. }
                    | Kind::Ret
                    | Kind::Exit => sinks.need(g, WIDTH),
                    Kind::Nop => {}
                }
                // An instruction that numbers its result: every operand.
                if plan.wants(f as u32, pc as u32) {
                    for s in &uses[f][pc] {
                        full(&mut sinks, s);
                    }
                }
                let dests = writes(&inst.kind);
                if let Some(e) = each {
                    out = vec![e; dests.len()];
                }
                // Whether the guard is the same in every lane of a warp:
                // then every lane writes, or none.
                let warp_wide = inst
                    .guard
                    .is_none_or(|_| operands.first().is_some_and(|g| g.known && g.lanes == 0));
                // Operands the same in every lane give a result the same in
                // every lane (every instruction whose result is known is a
                // function of its operands).
                let uniform = body.iter().all(|o| o.known && o.lanes == 0);
                let of = |s: &Src| fact(s).unwrap_or(Fact::UNKNOWN);
                let lanes: Vec<(u8, u8, u64)> = (0..dests.len())
                    .map(|i| {
                        let known = out.get(i).is_some_and(|o| o.known);
                        let ones = ones_of(&inst.kind, i, known, &of);
                        let (l, rel) = if known && uniform {
                            (0, REL_ALL)
                        } else {
                            lane_facts(&inst.kind, i, known, &of)
                        };
                        (l, rel, ones)
                    })
                    .collect();
                for ((d, o), (l, rel, ones)) in dests.into_iter().zip(out).zip(lanes) {
                    if let Some(slot) = r.get_mut(d as usize) {
                        let mut o = o.tainted(guard);
                        o.ones &= ones;
                        // Written in some lanes of a warp and not in
                        // others, or in one block and not in another: the
                        // difference is the old value's against the new.
                        (o.lanes, o.rel) = match (warp_wide, guard) {
                            (true, 0) => (l, rel),
                            (true, _) => (l, 0),
                            (false, _) => (LANES_NONE, 0),
                        };
                        let o = o.settled();
                        *slot = Some(slot.map_or(o, |s| s.join(o)));
                    }
                }
            }
        }
        if (param, shared, sinks, &regs) == (before.0, before.1, before.2, &before.3) {
            break;
        }
    }
    let converged = converged(program, &regs);
    // A plain `.cg`'s event carries the low 7 bits of each reading lane's
    // source and the rest relative to the first reading lane's line: the
    // same in two blocks whose sources agree on their low 7 bits and differ
    // by the same amount in every lane (module docs).
    let mut same = Vec::new();
    for (f, pc, base) in bypass {
        let Some(fact) = fact_of(&regs[f], &base, given, program) else {
            continue;
        };
        if converged && fact.known && fact.rel >= CP_ASYNC_OFFSET_BITS {
            let mut low = Relevant::default();
            low.need(Some(fact), CP_ASYNC_SOURCE_BITS);
            if low.none() {
                same.push((f as u32, pc as u32));
            }
            sinks.need(Some(fact), CP_ASYNC_SOURCE_BITS);
        } else {
            sinks.need(Some(fact), WIDTH);
        }
    }
    Classes {
        relevant: sinks,
        same_sources: same,
    }
}

/// Whether no warp of `program` ever runs some of its lanes down one path
/// and others down another (lanes that leave for good, at `exit` or the
/// kernel's `ret`, take no path): every branch, call and callee's `ret` is
/// guarded by a predicate known and the same in every lane of a warp, by
/// the lane facts found assuming so. By induction over a warp's steps, its
/// lanes then run the same instructions, so each register holds in every
/// lane what one write left there (or, under a guard that varies by lane,
/// what one of two writes left, which its facts allow for), and the lane
/// facts hold (module docs).
fn converged(program: &Program, regs: &[Vec<Option<Fact>>]) -> bool {
    program.functions.iter().zip(regs).all(|(func, r)| {
        func.insts.iter().all(|inst| {
            let Some((p, _)) = inst.guard else {
                return true;
            };
            let parts = match inst.kind {
                Kind::Bra { .. } | Kind::Call { .. } => true,
                Kind::Ret => !func.is_entry,
                _ => false,
            };
            // A guard no write reaches: the instruction never runs.
            !parts
                || r.get(p as usize)
                    .copied()
                    .flatten()
                    .is_none_or(|g| g.known && g.lanes == 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u8 = Relevant::ALL;

    /// What the sinks of `body` need of each component, in a launch of 80 x
    /// 50 blocks of 128 threads with `g` at 0x1000 and `n` given.
    fn relevant_with(body: &str, n: u32) -> [u8; 3] {
        analysed(body, n, [128, 1, 1]).relevant.bits
    }

    /// [`Classes`] of `body` in a launch of 80 x 50 blocks of `block`
    /// threads with `g` at 0x1000 and `n` given.
    fn analysed(body: &str, n: u32, block: [u32; 3]) -> Classes {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 g, .param .u32 n)\n{{\n\
             .reg .b16 %rs<8>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<20>;\n.reg .pred %p<8>;\n\
             .shared .align 16 .b8 s[4096];\n{body}\nret;\n}}\n"
        );
        let module = crate::kernel::ptx::parse(&text).unwrap();
        let program = super::super::lower::lower(&module, Some("k")).unwrap();
        let plan = Plan::new(&program);
        let args = [0x1000u64.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
        let given = Given {
            args: &args,
            grid: [80, 50, 1],
            block,
            dynamic_shared: 0,
        };
        classes(&program, &plan, &given)
    }

    /// `body` computing `%rd5` (64 bits) from `%r10 = %tid.x`, then a
    /// plain 16-byte `cp.async.cg` from `%rd5` to `s + 16 tid` in blocks of
    /// `block` threads: what the sinks need of each component, and whether
    /// the copy's source event is the same in every two blocks run alike.
    fn bypass_from(body: &str, block: [u32; 3]) -> ([u8; 3], bool) {
        let c = analysed(
            &format!(
                "mov.u32 %r10, %tid.x;
shl.b32 %r11, %r10, 4;
mov.u32 %r12, s;
                 add.s32 %r13, %r12, %r11;
ld.param.u64 %rd1, [g];
{body}
                 cp.async.cg.shared.global [%r13], [%rd5], 16, 16;"
            ),
            64,
            block,
        );
        (c.relevant.bits, !c.same_sources.is_empty())
    }

    fn relevant_of(body: &str) -> [u8; 3] {
        relevant_with(body, 64)
    }

    /// `body` computing `%rd5` (64 bits), then a 4-byte `cp.async` from
    /// `%rd5` to `s + 4 tid`.
    fn copy_from(body: &str, n: u32) -> [u8; 3] {
        relevant_with(
            &format!(
                "mov.u32 %r10, %tid.x;\nshl.b32 %r11, %r10, 2;\nmov.u32 %r12, s;\n\
                 add.s32 %r13, %r12, %r11;\n{body}\n\
                 cp.async.ca.shared.global [%r13], [%rd5], 4;"
            ),
            n,
        )
    }

    #[test]
    fn the_block_index_into_global_addresses_only_is_irrelevant() {
        // out[ctaid.x * 32 + tid] = tid, and s[tid] = tid.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nshl.b32 %r3, %r1, 5;\n\
             add.s32 %r4, %r3, %r2;\nld.param.u64 %rd1, [g];\nmul.wide.u32 %rd2, %r4, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r2;\n\
             mov.u32 %r5, s;\nshl.b32 %r6, %r2, 2;\nadd.s32 %r7, %r5, %r6;\n\
             st.shared.u32 [%r7], %r2;",
        );
        assert_eq!(r, [0, 0, 0]);
    }

    #[test]
    fn a_shared_address_a_branch_or_a_stored_value_keeps_its_component() {
        // The shared address depends on ctaid.y.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.y;\nmov.u32 %r5, s;\nshl.b32 %r6, %r1, 2;\n\
             add.s32 %r7, %r5, %r6;\nst.shared.u32 [%r7], 1;",
        );
        assert_eq!(r, [0, ALL, 0]);
        // A branch on ctaid.z.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.z;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra DONE;\n\
             st.shared.u32 [s], 1;\nDONE:",
        );
        assert_eq!(r, [0, 0, ALL]);
        // The value stored: ctaid.x.
        let r = relevant_of("mov.u32 %r1, %ctaid.x;\nst.shared.u32 [s], %r1;");
        assert_eq!(r, [ALL, 0, 0]);
        // Through a guard into a value stored.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nsetp.eq.u32 %p1, %r1, 0;\nmov.u32 %r2, 0;\n\
             @%p1 mov.u32 %r2, 1;\nst.shared.u32 [s], %r2;",
        );
        assert_eq!(r, [ALL, 0, 0]);
    }

    #[test]
    fn what_memory_holds_decides_whether_a_store_changes_it() {
        // An atomic adds ctaid.x to s[0]; a later store of 0 there writes
        // what memory holds in block 0 only.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nst.shared.u32 [s], 0;\nbar.sync 0;\n\
             atom.shared.add.u32 %r2, [s], %r1;\nbar.sync 0;\nst.shared.u32 [s], 0;",
        );
        assert_eq!(r, [ALL, 0, 0]);
    }

    #[test]
    fn a_shared_address_needs_every_bit_though_its_low_bits_agree() {
        // s[128 ctaid.x]: the low 7 bits are the same in every block, the
        // address is not.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 7;\nmov.u32 %r5, s;\n\
             add.s32 %r7, %r5, %r2;\nst.shared.u32 [%r7], 1;",
        );
        assert_eq!(r, [ALL, 0, 0]);
    }

    #[test]
    fn a_global_load_of_a_block_dependent_address_stored_to_shared_is_relevant() {
        // s[tid] = g[ctaid.x * 32 + tid]: the number of the load is its
        // address, and a store of equal numbers is an event of its own.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nshl.b32 %r3, %r1, 5;\n\
             add.s32 %r4, %r3, %r2;\nld.param.u64 %rd1, [g];\nmul.wide.u32 %rd2, %r4, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r8, [%rd3];\n\
             mov.u32 %r5, s;\nshl.b32 %r6, %r2, 2;\nadd.s32 %r7, %r5, %r6;\n\
             st.shared.u32 [%r7], %r8;",
        );
        assert_eq!(r, [ALL, 0, 0]);
        // A global load of a block-dependent address that reaches only a
        // global store: unnumbered, irrelevant.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nld.param.u64 %rd1, [g];\nmul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r8, [%rd3];\n\
             st.global.u32 [%rd1], %r8;",
        );
        assert_eq!(r, [0, 0, 0]);
    }

    #[test]
    fn param_memory_carries_the_taint() {
        let r = relevant_of(
            ".param .b32 t;\nmov.u32 %r1, %ctaid.y;\nst.param.b32 [t], %r1;\n\
             ld.param.b32 %r2, [t];\nst.shared.u32 [s], %r2;",
        );
        assert_eq!(r, [0, ALL, 0]);
    }

    #[test]
    fn a_copy_source_needs_the_component_bits_below_bit_7() {
        // g + 64 ctaid.x + 4 tid: bit 6 is ctaid.x's bit 0, the six below
        // are the same in every block.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 6;\n\
                   add.s32 %r3, %r2, %r11;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [1, 0, 0]);
        // 128 ctaid.y: none of it; 16 ctaid.y: ctaid.y mod 8.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.y;\n\
                   mul.wide.u32 %rd2, %r1, 128;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 0, 0]);
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.y;\n\
                   mul.wide.u32 %rd2, %r1, 16;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 3, 0]);
    }

    #[test]
    fn a_bypassing_copy_needs_its_lane_pattern_or_none_of_it() {
        // g + 128 ctaid.x tid: .cg reads the lines, which the block moves
        // apart lane by lane (all bits), with a src-size register or not.
        let body = |copy: &str, value: &str| {
            format!(
                "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\n{value}\n\
                 mul.wide.u32 %rd2, %r2, 128;\nadd.s64 %rd5, %rd1, %rd2;\nmov.u32 %r3, 16;\n\
                 mov.u32 %r4, %tid.x;\nshl.b32 %r5, %r4, 4;\nmov.u32 %r6, s;\n\
                 add.s32 %r7, %r6, %r5;\n{copy}"
            )
        };
        let plain = "cp.async.cg.shared.global [%r7], [%rd5], 16, 16;";
        let register = "cp.async.cg.shared.global [%r7], [%rd5], 16, %r3;";
        let ctaid = "mov.u32 %r9, %tid.x;\nmul.lo.s32 %r2, %r1, %r9;";
        assert_eq!(relevant_of(&body(plain, ctaid)), [ALL, 0, 0]);
        assert_eq!(relevant_of(&body(register, ctaid)), [ALL, 0, 0]);
        // g + 128 ctaid.x in every lane: the lines move together.
        let ctaid = "mov.u32 %r2, %ctaid.x;";
        assert_eq!(relevant_of(&body(plain, ctaid)), [0, 0, 0]);
        assert_eq!(relevant_of(&body(register, ctaid)), [0, 0, 0]);
        // A global value times ctaid.x: known in block 0 only (whether the
        // event is sent).
        let unknown = "ld.global.u32 %r8, [%rd1];\nmul.lo.s32 %r2, %r8, %r1;";
        assert_eq!(relevant_of(&body(register, unknown)), [ALL, 0, 0]);
    }

    #[test]
    fn a_block_term_the_same_in_every_lane_keeps_a_bypassing_copys_pattern() {
        // g + 4 ((ctaid.x << 7) | 4 (tid & 31)): the block's part is the
        // same in every lane, a multiple of 512; the lane's is below 128 and
        // the same in every block, and `|` of the two is their sum.
        let with = |block: &str, op: &str| {
            format!(
                "mov.u32 %r1, %ctaid.x;\n{block}\nand.b32 %r3, %r10, 31;\n\
                 shl.b32 %r4, %r3, 2;\n{op} %r5, %r2, %r4;\nmul.wide.u32 %rd2, %r5, 4;\n\
                 add.s64 %rd5, %rd1, %rd2;"
            )
        };
        let src = |block: &str| with(block, "or.b32");
        let warps = [128, 1, 1];
        assert_eq!(
            bypass_from(&src("shl.b32 %r2, %r1, 7;"), warps),
            ([0; 3], true)
        );
        // 64 ctaid.x + 16 lane: the low 7 bits follow ctaid.x's bit 0 (two
        // classes), the lanes still move together; `|` there is not a sum.
        let sixteen = "shl.b32 %r2, %r1, 4;";
        assert_eq!(
            bypass_from(&with(sixteen, "add.s32"), warps),
            ([1, 0, 0], false)
        );
        assert_eq!(
            bypass_from(&with(sixteen, "xor.b32"), warps),
            ([ALL, 0, 0], false)
        );
        // Any function of the block index, the same in every lane: `>>`,
        // `&`, a product of two.
        let any = "shr.u32 %r6, %r1, 2;\nand.b32 %r7, %r1, 3;\nmul.lo.s32 %r8, %r6, %r7;\n\
                   shl.b32 %r2, %r8, 7;";
        assert_eq!(bypass_from(&src(any), warps), ([0; 3], true));
        // A block term that varies by lane: 128 ctaid.x tid.x.
        let lane = "mul.lo.s32 %r6, %r1, %r10;\nshl.b32 %r2, %r6, 7;";
        assert_eq!(bypass_from(&src(lane), warps), ([ALL, 0, 0], false));
    }

    #[test]
    fn tid_x_above_bit_5_is_the_same_in_a_warp_only_where_rows_hold_whole_warps() {
        // g + 16 tid.x + 512 ctaid.x, and blocks of 128 x 2 or 48 x 2: the
        // lanes' part is block-independent either way.
        let src = "mov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 9;\nadd.s32 %r5, %r2, %r11;\n\
                   cvt.u64.u32 %rd2, %r5;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(bypass_from(src, [128, 2, 1]), ([0; 3], true));
        assert_eq!(bypass_from(src, [48, 2, 1]), ([0; 3], true));
        // A branch on tid.x < 32 splits no warp of 128 x 2, but does one of
        // 48 x 2 (warp 1 holds x 32 to 47 and 0 to 15); so does one on
        // tid.y < 1 there, not of 128 x 2.
        let branch = |bound: &str| {
            format!("setp.lt.u32 %p1, {bound};\n@%p1 bra SKIP;\nmov.u32 %r14, 0;\nSKIP:\n{src}")
        };
        assert_eq!(
            bypass_from(&branch("%r10, 32"), [128, 2, 1]),
            ([0; 3], true)
        );
        assert_eq!(
            bypass_from(&branch("%r10, 32"), [48, 2, 1]),
            ([ALL, 0, 0], false)
        );
        // Below 64 every lane of 48 x 2 is.
        assert_eq!(bypass_from(&branch("%r10, 64"), [48, 2, 1]), ([0; 3], true));
        let y = format!("mov.u32 %r15, %tid.y;\n{}", branch("%r15, 1"));
        assert_eq!(bypass_from(&y, [128, 2, 1]), ([0; 3], true));
        assert_eq!(bypass_from(&y, [48, 2, 1]), ([ALL, 0, 0], false));
        // tid.x < 100 splits a warp of 128 x 2: the lanes' histories may
        // differ, no lane fact holds, and the copy needs its whole source.
        assert_eq!(
            bypass_from(&branch("%r10, 100"), [128, 2, 1]),
            ([ALL, 0, 0], false)
        );
    }

    #[test]
    fn a_write_under_a_guard_that_varies_by_lane_mixes_two_values() {
        // %r2 = 128 ctaid.x, then 256 ctaid.x in the lanes below 7 only:
        // the lanes of a warp differ by 128 ctaid.x, which moves with the
        // block.
        let src = |bound: u32| {
            format!(
                "mov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 7;\nsetp.lt.u32 %p1, %r10, {bound};\n\
                 @%p1 shl.b32 %r2, %r1, 8;\nadd.s32 %r5, %r2, %r11;\ncvt.u64.u32 %rd2, %r5;\n\
                 add.s64 %rd5, %rd1, %rd2;"
            )
        };
        assert_eq!(bypass_from(&src(7), [128, 1, 1]), ([ALL, 0, 0], false));
        // In whole warps (below 64): every lane of a warp has the one or
        // the other.
        assert_eq!(bypass_from(&src(64), [128, 1, 1]), ([0; 3], true));
        // A value the same in every block written in some lanes only:
        // the same in every block still.
        let src = "mov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 7;\nsetp.lt.u32 %p1, %r10, 7;\n\
                   mov.u32 %r6, 0;\n@%p1 mov.u32 %r6, 4096;\nadd.s32 %r7, %r6, %r11;\n\
                   add.s32 %r5, %r2, %r7;\ncvt.u64.u32 %rd2, %r5;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(bypass_from(src, [128, 1, 1]), ([0; 3], true));
    }

    #[test]
    fn a_persistent_loop_over_tiles_keeps_a_bypassing_copys_pattern() {
        // for (pos = ctaid.x; pos < 1000; pos += nctaid.x): a copy from
        // g + 4096 (pos / 8) + 128 (pos % 8) + 16 lane, under a warp-wide
        // branch (the first 64 threads copy A, the others B).
        let body = "mov.u32 %r1, %ctaid.x;\nLOOP:\nsetp.lt.u32 %p2, %r10, 64;\n\
                    shr.u32 %r2, %r1, 3;\nand.b32 %r3, %r1, 7;\n@%p2 bra A;\n\
                    shl.b32 %r6, %r2, 12;\nbra.uni JOIN;\nA:\nshl.b32 %r6, %r2, 13;\nJOIN:\n\
                    shl.b32 %r7, %r3, 7;\nadd.s32 %r8, %r6, %r7;\nand.b32 %r9, %r10, 7;\n\
                    shl.b32 %r4, %r9, 4;\nadd.s32 %r5, %r8, %r4;\ncvt.u64.u32 %rd2, %r5;\n\
                    add.s64 %rd5, %rd1, %rd2;";
        let tail = "mov.u32 %r15, %nctaid.x;\nadd.s32 %r1, %r1, %r15;\n\
                    setp.lt.u32 %p1, %r1, 1000;\n@%p1 bra LOOP;";
        let c = analysed(
            &format!(
                "mov.u32 %r10, %tid.x;\nshl.b32 %r11, %r10, 4;\nmov.u32 %r12, s;\n\
                 add.s32 %r13, %r12, %r11;\nld.param.u64 %rd1, [g];\n{body}\n\
                 cp.async.cg.shared.global [%r13], [%rd5], 16, 16;\n{tail}"
            ),
            64,
            [128, 1, 1],
        );
        // The loop's exit keeps every block apart; the copy's event does
        // not need to.
        assert_eq!(c.relevant.bits, [ALL, 0, 0]);
        assert_eq!(c.same_sources.len(), 1);
    }

    #[test]
    fn a_product_with_a_parameter_gains_its_trailing_zeros() {
        // g + n ctaid.x: n = 64 has 6 trailing zeros, 96 has 5, 128 has 7,
        // and an odd n none.
        let src = "ld.param.u64 %rd1, [g];\nld.param.u32 %r4, [n];\nmov.u32 %r1, %ctaid.x;\n\
                   mul.lo.s32 %r2, %r1, %r4;\nmul.wide.u32 %rd2, %r2, 1;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [1, 0, 0]);
        assert_eq!(copy_from(src, 96), [2, 0, 0]);
        assert_eq!(copy_from(src, 128), [0, 0, 0]);
        assert_eq!(copy_from(src, 3), [7, 0, 0]);
        // Through %ntid (128) too, and a mad.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r4, %ntid.x;\nmov.u32 %r1, %ctaid.x;\n\
                   mad.lo.s32 %r2, %r1, %r4, %r11;\ncvt.u64.u32 %rd2, %r2;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 3), [0, 0, 0]);
    }

    #[test]
    fn a_remainder_keeps_the_divisors_trailing_zeros() {
        // (ctaid.x % 4) << 7: the low 9 bits agree only where ctaid.x mod 4
        // does, the low 7 always.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nrem.u32 %r2, %r1, 4;\n\
                   shl.b32 %r3, %r2, 7;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 0, 0]);
        // (ctaid.x % 6) << 6: 6 has one trailing zero, so bit 6 is ctaid.x's
        // bit 0.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nrem.u32 %r2, %r1, 6;\n\
                   shl.b32 %r3, %r2, 6;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [1, 0, 0]);
        // (ctaid.x % 3) << 6: the remainder's bit 0 is any function of it.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nrem.u32 %r2, %r1, 3;\n\
                   shl.b32 %r3, %r2, 6;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [ALL, 0, 0]);
        // By the parameter n = 8: a constant of the launch.
        let src = "ld.param.u64 %rd1, [g];\nld.param.u32 %r4, [n];\nmov.u32 %r1, %ctaid.x;\n\
                   rem.u32 %r2, %r1, %r4;\nshl.b32 %r3, %r2, 4;\ncvt.u64.u32 %rd2, %r3;\n\
                   add.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 8), [3, 0, 0]);
    }

    #[test]
    fn a_right_shift_needs_higher_bits_of_the_component() {
        // (ctaid.x >> 1) << 6: bit 6 is ctaid.x's bit 1.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nshr.u32 %r2, %r1, 1;\n\
                   shl.b32 %r3, %r2, 6;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [2, 0, 0]);
        // (ctaid.x >> 1) << 7: the low 7 bits are zeros.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nshr.u32 %r2, %r1, 1;\n\
                   shl.b32 %r3, %r2, 7;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 0, 0]);
        // A division keeps nothing.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\ndiv.u32 %r2, %r1, 2;\n\
                   shl.b32 %r3, %r2, 6;\ncvt.u64.u32 %rd2, %r3;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [ALL, 0, 0]);
    }

    #[test]
    fn truncation_and_extension_are_bits() {
        // The low 16 bits of 65536 ctaid.x are zero: a shared address of
        // them is the same in every block.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nmul.lo.u32 %r2, %r1, 65536;\ncvt.u16.u32 %rs1, %r2;\n\
             cvt.u32.u16 %r3, %rs1;\nmov.u32 %r5, s;\nadd.s32 %r7, %r5, %r3;\n\
             st.shared.u32 [%r7], 1;",
        );
        assert_eq!(r, [0, 0, 0]);
        // Sign extension of 64 ctaid.x keeps bit 6 its bit 0.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 6;\n\
                   cvt.s64.s32 %rd2, %r2;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [1, 0, 0]);
        // Packed halves: the high half's bits are 32 up.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\n\
                   mov.b64 %rd2, {%r11, %r1};\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 0, 0]);
    }

    #[test]
    fn an_unknown_operand_keeps_the_whole_component() {
        // A global value times 128 ctaid.x is a known 0 in block 0 only:
        // whether the source is known depends on the block.
        let src = "ld.param.u64 %rd1, [g];\nld.global.u32 %r4, [%rd1];\nmov.u32 %r1, %ctaid.x;\n\
                   shl.b32 %r2, %r1, 7;\nmul.lo.s32 %r3, %r2, %r4;\ncvt.u64.u32 %rd2, %r3;\n\
                   add.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [ALL, 0, 0]);
        // So does a register read before it is written.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\n\
                   shl.b32 %r2, %r1, 7;\nmul.lo.s32 %r3, %r2, %r9;\ncvt.u64.u32 %rd2, %r3;\n\
                   add.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [ALL, 0, 0]);
        // And a guard on the block index, on a copy source it reaches:
        // 0 or 64 apart, the bank differs.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nsetp.lt.u32 %p1, %r1, 4;\n\
                   mov.u64 %rd2, 0;\n@%p1 mov.u64 %rd2, 64;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [ALL, 0, 0]);
        // 0 or 128 apart, it does not: both have 7 trailing zeros.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\nsetp.lt.u32 %p1, %r1, 4;\n\
                   mov.u64 %rd2, 0;\n@%p1 mov.u64 %rd2, 128;\nadd.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 0, 0]);
    }

    #[test]
    fn bounds_prove_a_divisor_nonzero_or_constant() {
        // Triton's grouped order: a quotient by min(40 - 8 (ctaid.x / 16),
        // 8), which is 8 for ctaid.x below 80; 128 times it keeps 7 zero
        // bits.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\ndiv.u32 %r2, %r1, 16;\n\
                   shl.b32 %r3, %r2, 3;\nsub.s32 %r4, 40, %r3;\nmin.s32 %r5, %r4, 8;\n\
                   div.s32 %r6, %r1, %r5;\nshl.b32 %r7, %r6, 7;\ncvt.u64.u32 %rd2, %r7;\n\
                   add.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [0, 0, 0]);
        // min(32 - 8 (ctaid.x / 16), 8) is 0 for the last 16 blocks: the
        // quotient is unknown there, known elsewhere.
        let src = "ld.param.u64 %rd1, [g];\nmov.u32 %r1, %ctaid.x;\ndiv.u32 %r2, %r1, 16;\n\
                   shl.b32 %r3, %r2, 3;\nsub.s32 %r4, 32, %r3;\nmin.s32 %r5, %r4, 8;\n\
                   div.s32 %r6, %r1, %r5;\nshl.b32 %r7, %r6, 7;\ncvt.u64.u32 %rd2, %r7;\n\
                   add.s64 %rd5, %rd1, %rd2;";
        assert_eq!(copy_from(src, 64), [ALL, 0, 0]);
    }

    #[test]
    fn a_class_is_the_low_bits_each_component_keeps() {
        let r = Relevant { bits: [1, 0, ALL] };
        assert_eq!(r.key([79, 49, 3]), [1, 0, 3]);
        assert_eq!(r.key([78, 0, 0]), [0, 0, 0]);
        assert_eq!(r.classes([80, 50, 4]), 2 * 4);
        assert_eq!(Relevant { bits: [7, 0, 0] }.classes([80, 50, 1]), 80);
        assert!(Relevant::default().none());
    }
}
