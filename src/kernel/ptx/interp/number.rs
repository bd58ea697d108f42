//! Value numbering of the values the interpreter does not know.
//!
//! A global load's value is unknown, but two loads of one address with no
//! global store between them give the same value, and the same expression of
//! the same inputs gives the same result. The interpreter names such values
//! by numbers, so that a shared store can tell that it writes what memory
//! already holds (compute-sanitizer's same-value rule,
//! [`Block::access_unchanged`](crate::Block::access_unchanged); measured,
//! `tests/data/device/samevalue/`): Triton's column sum stores the same
//! column sums from two warps, which racecheck does not report.
//!
//! - A lane of a register is *known* (its bits), *numbered* (its bits hold a
//!   value number) or neither. Two numbered values with the same number are
//!   equal; nothing else is ever taken as equal but known bits.
//! - `ld.global` (not `.volatile`, `.relaxed`, `.acquire`, `.mmio`) in a lane
//!   whose address is known: numbered by (address, width, signedness, the
//!   block's global epoch), packed into the number itself. Two blocks that
//!   copy different tiles alike number them differently, but alike up to a
//!   renaming, which is all the consumer can see (which values are equal):
//!   a block's key ([`slice`](super::slice)) holds which of its loads are
//!   equal, by their first occurrence ([`FirstSeen`]), not the numbers. The
//!   epoch is a modelling choice: every global
//!   store, global atomic, store or atomic whose address may be global
//!   (generic, unknown), and instruction the interpreter does not follow
//!   (opaque, not modelled) of the block advances it, as the interpreter runs
//!   them, so a load after any such write is a new value. Writes of other
//!   blocks are not seen (a kernel that reads what another block writes
//!   without synchronisation races on global memory, which this model does
//!   not check). It advances lazily, at the first global load after such a
//!   write: two loads are in one epoch exactly when no write came between
//!   them, as if it advanced at each write, but a kernel that stores
//!   thousands of times between its loads (a GEMM's output tile) stays in
//!   few epochs, whose numbers pack (see "Memory"). Other spaces (local memory is per thread; generic loads may
//!   be local) and ordered loads stay unnumbered.
//! - Pure instructions (integer and float arithmetic, `mad`, `bfe`, `bfi`,
//!   `prmt`, `lop3`, `setp`, `set`, `cvt`, packing) hash-consed: the result
//!   in a lane whose operands are all known or numbered, and that the
//!   interpreter does not know, is numbered by (opcode text, which
//!   destination, operands), so the same expression of the same inputs gets
//!   the same number. The opcode text carries the type and modifiers.
//! - `mov`, `selp` (predicate known) and `shfl.sync` move numbers; shared
//!   stores keep them (per byte: number, width, place in the value) so that a
//!   load of the same width and address gets them back.
//! - Instructions the interpreter does not evaluate (`ex2.approx`,
//!   `div.full`, `mma.sync`, ...), where their opcode computes from its
//!   operands alone: numbered by (opcode text, which destination, every
//!   operand), chained three at a time, so the same opcode of equal operands
//!   gives equal numbers, and different operands different ones (what
//!   compute-sanitizer sees: four warps storing `exp2f(in[lane])` to
//!   `buf[lane]` have no hazard, measured on an H200,
//!   tests/data/ncu/probes.txt). A warp-collective one (`mma`, `wmma.mma`,
//!   `movmatrix`, `match`: a lane's result depends on the other lanes'
//!   operands) is numbered over the active mask and every active lane's
//!   operands, then the lane. Which opcodes compute lane by lane is a list
//!   (`PER_LANE` in `lower.rs`); any other, and any operand that is an
//!   address, stays unnumbered.
//! - Atomics' results are fresh numbers (equal to no other); `%clock` and
//!   other unknown special registers, `ld.local`, `ldmatrix`, and the
//!   other instructions not evaluated give unnumbered values.
//!
//! Only instructions whose results can reach a shared store's value are
//! numbered ([`Plan`]: a flow-insensitive pass over each function), so a
//! kernel whose unknown values only feed global stores (a matrix product's
//! accumulators) does no numbering work in its loops.
//!
//! # Memory
//!
//! The table of hash-consed keys holds at most [`MAX_NUMBERS`] entries per
//! block, 2^18 (a key and its number are 48 bytes; the hash table's 2^19
//! slots of 49 bytes, and the shared loads' origins beside it, about 37 MiB
//! at most); past that, new keys get fresh numbers: never a wrong equality,
//! only missed ones. 2^20, as first planned, would have been four times that.
//! A thread keeps its last block's tables, emptied, for its next block
//! ([`Numbers::reset`]), so that memory stays taken between blocks.
//! Global loads whose address, epoch and width fit in 63 bits (every
//! launch's fake pointers do) are numbered without the table. Shared memory
//! keeps 9 bytes per byte for the numbers stored (allocated at a block's
//! first numbered store: 2 MiB for the largest window).

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::ir::{FloatOp, Kind, Program, Space, Src};
use super::prepared::{self, Prepared};

/// The most entries of a block's table of numbered expressions (see the
/// module's "Memory").
pub(crate) const MAX_NUMBERS: usize = 1 << 18;

/// The bit that marks a global load's number packed without the table.
const PACKED: u64 = 1 << 63;

/// The name of a [`Numbers::chain`] link (no opcode's: names are indices
/// into a program's opcode texts).
const CHAIN: u32 = u32::MAX;

/// An operand of a numbered expression: known bits or a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Operand {
    Known(u64),
    Number(u64),
}

/// What a number stands for, packed in five words: a tag word (which kind
/// of key, its small fields, and for an operation which operands are
/// numbers), then the wide fields. Distinct keys pack to distinct words, and
/// 40 bytes hash and compare in a few steps, where an enum of [`Operand`]s
/// took 72 (dxtc numbers a million lanes per 256 blocks).
#[derive(Debug, Clone, Copy)]
struct Key([u64; 5]);

impl Key {
    const LOAD: u64 = 0;
    const SHARED_LOAD: u64 = 1;
    const OP: u64 = 2;

    /// A global load: address, bytes, sign-extended, epoch.
    fn load(address: u64, bytes: u8, signed: bool, epoch: u64) -> Key {
        let tag = Self::LOAD | u64::from(bytes) << 8 | u64::from(signed) << 16;
        Key([tag, address, epoch, 0, 0])
    }

    /// A shared load of `bytes` bytes of the value numbered `number` stored
    /// at that width, sign-extended or not.
    fn shared_load(number: u64, bytes: u8, signed: bool) -> Key {
        let tag = Self::SHARED_LOAD | u64::from(bytes) << 8 | u64::from(signed) << 16;
        Key([tag, number, 0, 0, 0])
    }

    /// A pure instruction's destination `out` over its operands (at most 4;
    /// unused ones `Known(0)`).
    fn op(name: u32, out: u8, args: [Operand; 4]) -> Key {
        #[inline]
        fn word(a: Operand) -> (u64, u64) {
            match a {
                Operand::Known(x) => (x, 0),
                Operand::Number(x) => (x, 1),
            }
        }
        let [(a, i), (b, j), (c, k), (d, l)] = args.map(word);
        let numbered = i | j << 1 | k << 2 | l << 3;
        let tag = Self::OP | u64::from(out) << 8 | numbered << 16 | u64::from(name) << 32;
        Key([tag, a, b, c, d])
    }
}

impl PartialEq for Key {
    /// Word by word (the derived comparison of an array calls `memcmp`).
    #[inline]
    fn eq(&self, other: &Key) -> bool {
        let (a, b) = (&self.0, &other.0);
        a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] && a[4] == b[4]
    }
}

impl Eq for Key {}

impl core::hash::Hash for Key {
    #[inline]
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        for w in self.0 {
            state.write_u64(w);
        }
    }
}

/// A block's value numbers: the table, the global epoch and the next fresh
/// number.
#[derive(Debug)]
pub(crate) struct Numbers {
    table: FxHashMap<Key, u64>,
    /// A shared load's number: the number stored and the width it was
    /// stored and loaded at. Storing the load back at that width stores
    /// the same bytes: the original number.
    loaded: FxHashMap<u64, (u64, u32)>,
    limit: usize,
    /// The next number to hand out (below [`PACKED`]).
    next: u64,
    /// The block's global-memory epoch.
    epoch: u64,
    /// Global memory was written since the epoch began: the next load
    /// begins another.
    written: bool,
}

impl Default for Numbers {
    fn default() -> Self {
        Self::with_limit(MAX_NUMBERS)
    }
}

impl Numbers {
    /// Numbers whose table holds at most `limit` entries.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Numbers {
            table: FxHashMap::default(),
            loaded: FxHashMap::default(),
            limit,
            next: 1,
            epoch: 0,
            written: false,
        }
    }

    /// Empties the numbers for another block, as [`Numbers::with_limit`]
    /// would give them, but keeping the tables' memory: a kernel of many
    /// small blocks (dxtc: 16,384 blocks of a few thousand entries) would
    /// otherwise grow them from nothing in each block.
    pub(crate) fn reset(&mut self) {
        self.table.clear();
        self.loaded.clear();
        self.next = 1;
        self.epoch = 0;
        self.written = false;
    }

    /// A number equal to no other.
    #[inline]
    pub(crate) fn fresh(&mut self) -> u64 {
        let n = self.next;
        // Below PACKED for any run: one number per lane and step at most.
        self.next += 1;
        n
    }

    /// The block wrote global memory (or may have).
    pub(crate) fn global_write(&mut self) {
        self.written = true;
    }

    /// The number of `key`: its entry, a new entry, or past the table's
    /// limit a fresh number.
    fn intern(&mut self, key: Key) -> u64 {
        // One hash and one probe for a new key, the commoner case (a
        // kernel's data differ lane by lane).
        let full = self.full();
        let next = self.next;
        match self.table.entry(key) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                if !full {
                    e.insert(next);
                }
                self.next += 1;
                next
            }
        }
    }

    fn full(&self) -> bool {
        self.table.len() + self.loaded.len() >= self.limit
    }

    /// The number of a shared load of `bytes` bytes whose memory holds the
    /// value numbered `number` at that width, sign-extended or not.
    pub(crate) fn shared_load(&mut self, number: u64, bytes: u32, signed: bool) -> u64 {
        let key = Key::shared_load(number, bytes as u8, signed);
        let full = self.full();
        let next = self.next;
        match self.table.entry(key) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                if !full {
                    e.insert(next);
                    self.loaded.insert(next, (number, bytes));
                }
                self.next += 1;
                next
            }
        }
    }

    /// The number memory keeps for a store of `bytes` bytes of the value
    /// numbered `number`: a shared load's number stored back at its width
    /// stores the bytes it loaded.
    #[inline]
    pub(crate) fn stored(&self, number: u64, bytes: u32) -> u64 {
        if number & PACKED != 0 || self.loaded.is_empty() {
            return number;
        }
        match self.loaded.get(&number) {
            Some(&(n, b)) if b == bytes => n,
            _ => number,
        }
    }

    /// The block's global epoch for a load now (a write since the last
    /// load begins another).
    #[inline]
    pub(crate) fn epoch(&mut self) -> u64 {
        if self.written {
            self.epoch += 1;
            self.written = false;
        }
        self.epoch
    }

    /// The number of a global load of `bytes` bytes (1 to 8) at `address`
    /// in epoch `epoch`, sign-extended or not, where it is packed without
    /// the table (address below 2^48, epoch below 2^12): distinct
    /// quadruples, distinct numbers.
    #[inline]
    pub(crate) fn packed(address: u64, bytes: u32, signed: bool, epoch: u64) -> Option<u64> {
        let class = match bytes {
            1 => 0,
            2 => 1,
            4 => 2,
            _ => 3,
        };
        // address (48 bits), epoch (12), width class (2), sign (1), PACKED.
        (address >> 48 == 0 && epoch >> 12 == 0 && bytes <= 8)
            .then(|| PACKED | u64::from(signed) << 62 | class << 60 | epoch << 48 | address)
    }

    /// The number of a global load of `bytes` bytes (1 to 8) at `address`
    /// now, sign-extended or not.
    #[inline]
    pub(crate) fn load(&mut self, address: u64, bytes: u32, signed: bool) -> u64 {
        let epoch = self.epoch();
        if let Some(n) = Self::packed(address, bytes, signed, epoch) {
            return n;
        }
        self.intern(Key::load(address, bytes as u8, signed, epoch))
    }

    /// The number of destination `out` of the pure instruction named `name`
    /// over `args`.
    pub(crate) fn op(&mut self, name: u32, out: u8, args: [Operand; 4]) -> u64 {
        self.intern(Key::op(name, out, args))
    }

    /// The operands `args`, any number of them, as one operand: a number
    /// equal to another chain's exactly when their operands are equal (the
    /// count first, then three at a time, each link hash-consed).
    pub(crate) fn chain(&mut self, args: &[Operand]) -> Operand {
        let mut acc = Operand::Known(args.len() as u64);
        for chunk in args.chunks(3) {
            let mut link = [acc, Operand::Known(0), Operand::Known(0), Operand::Known(0)];
            link[1..=chunk.len()].copy_from_slice(chunk);
            acc = Operand::Number(self.intern(Key::op(CHAIN, 0, link)));
        }
        acc
    }

    /// The number of destination `out` (below 64) of an instruction named
    /// `name` that the interpreter does not evaluate, over its operands
    /// `over` (a [`chain`](Self::chain)): one lane's operands, or for a
    /// warp-collective instruction (`collective`) every lane's, then the
    /// lane `lane` whose result it is (not part of a lane-by-lane result:
    /// equal operands in two lanes give equal results).
    pub(crate) fn opaque(
        &mut self,
        name: u32,
        out: u8,
        collective: bool,
        over: Operand,
        lane: u32,
    ) -> u64 {
        // Flags in `out` keep these keys apart from a pure instruction's.
        let out = out | if collective { 0x80 } else { 0x40 };
        let lane = Operand::Known(if collective { u64::from(lane) } else { 0 });
        self.intern(Key::op(
            name,
            out,
            [over, lane, Operand::Known(0), Operand::Known(0)],
        ))
    }

    /// Entries in the table (tests).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> usize {
        self.table.len()
    }
}

/// The most distinct global loads a block's key numbers by first
/// occurrence ([`FirstSeen`]): past them the block has no key (it is
/// interpreted). 2^18 entries of 16 bytes, about 9 MiB with the hash
/// table's slack.
pub(crate) const MAX_FIRST_SEEN: usize = 1 << 18;

/// Packed global load numbers ([`Numbers::packed`]) numbered again by their
/// first occurrence: the 0th distinct one, the 1st, ... Two blocks whose
/// loads give the same sequence here have the same equalities among their
/// loads, whatever their addresses.
#[derive(Debug, Default)]
pub(crate) struct FirstSeen {
    seen: FxHashMap<u64, u64>,
}

impl FirstSeen {
    /// The first occurrence of `packed`, or `None` past
    /// [`MAX_FIRST_SEEN`] distinct ones.
    #[inline]
    pub(crate) fn index(&mut self, packed: u64) -> Option<u64> {
        let next = self.seen.len() as u64;
        if let Some(&i) = self.seen.get(&packed) {
            return Some(i);
        }
        if self.seen.len() >= MAX_FIRST_SEEN {
            return None;
        }
        self.seen.insert(packed, next);
        Some(next)
    }

    /// Distinct loads seen: the next new one's index.
    pub(crate) fn len(&self) -> u64 {
        self.seen.len() as u64
    }
}

/// How a global load's opcode numbers its value: `Some(signed)` for a plain
/// `ld.global` (sign-extended for `.s8`/`.s16`), `None` for an ordered or
/// volatile one, whose value another thread may change at any time.
pub(crate) fn global_load_class(name: &str) -> Option<bool> {
    if !name.starts_with("ld.global") {
        return None;
    }
    let ordered = [".volatile", ".relaxed", ".acquire", ".mmio"];
    if ordered.iter().any(|o| name.contains(o)) {
        return None;
    }
    Some(name.contains(".s8") || name.contains(".s16"))
}

/// The operands and destinations of a pure instruction that hash-consing
/// numbers.
#[derive(Debug, Clone)]
pub(crate) struct PureOp {
    /// Destinations, each with its place among the instruction's.
    pub dsts: Vec<(u8, u32)>,
    /// Operands (at most 4).
    pub srcs: Vec<Src>,
}

/// Which instructions number their results: those whose destinations can
/// reach the value of a shared store, through registers (flow-insensitive,
/// per function) and shared memory (every shared store's value is wanted).
/// It also carries each instruction's [`Prepared`] facts, the other table
/// the interpreter's hot loop reads per instruction.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    wanted: Vec<Vec<bool>>,
    prepared: Vec<Vec<Prepared>>,
    /// The wanted pure instructions' operands.
    pure: Vec<Vec<Option<PureOp>>>,
    /// Per opcode name: how a global load of it is numbered.
    loads: Vec<Option<bool>>,
    /// Per opcode name: whether a load of it sign-extends.
    signed: Vec<bool>,
    /// Per opcode name: whether an instruction of it that the interpreter
    /// does not follow may write global memory.
    writes: Vec<bool>,
}

impl Plan {
    pub(crate) fn new(program: &Program) -> Plan {
        let wanted: Vec<Vec<bool>> = program
            .functions
            .iter()
            .map(|f| {
                let mut regs = vec![false; f.regs as usize];
                let mut insts = vec![false; f.insts.len()];
                let want = |regs: &mut Vec<bool>, s: &Src| {
                    if let Src::Reg(r) = *s
                        && let Some(slot) = regs.get_mut(r as usize)
                        && !*slot
                    {
                        *slot = true;
                        return true;
                    }
                    false
                };
                for inst in &f.insts {
                    if let Kind::St {
                        space: Space::Shared | Space::Generic,
                        srcs,
                        ..
                    } = &inst.kind
                    {
                        for s in srcs {
                            want(&mut regs, s);
                        }
                    }
                }
                loop {
                    let mut changed = false;
                    for (i, inst) in f.insts.iter().enumerate() {
                        let (dsts, srcs) = flow(&inst.kind);
                        let is =
                            |&(_, r): &(u8, u32)| regs.get(r as usize).copied().unwrap_or(false);
                        if !dsts.iter().any(is) {
                            continue;
                        }
                        if !insts[i] {
                            insts[i] = true;
                            changed = true;
                        }
                        for s in &srcs {
                            changed |= want(&mut regs, s);
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                insts
            })
            .collect();
        let pure = program
            .functions
            .iter()
            .zip(&wanted)
            .map(|(f, w)| {
                f.insts
                    .iter()
                    .zip(w)
                    .map(|(inst, &w)| w.then(|| pure(&inst.kind)).flatten())
                    .collect()
            })
            .collect();
        let mut prepared = prepared::prepare(&program.functions);
        for (p, w) in prepared.iter_mut().zip(&wanted) {
            for (p, &w) in p.iter_mut().zip(w) {
                p.wanted = w;
            }
        }
        Plan {
            wanted,
            prepared,
            pure,
            loads: program.names.iter().map(|n| global_load_class(n)).collect(),
            signed: program
                .names
                .iter()
                .map(|n| n.contains(".s8") || n.contains(".s16"))
                .collect(),
            writes: program.names.iter().map(|n| may_write_global(n)).collect(),
        }
    }

    /// Whether instruction `pc` of function `func` numbers its results.
    #[inline]
    pub(crate) fn wants(&self, func: u32, pc: u32) -> bool {
        self.wanted
            .get(func as usize)
            .and_then(|f| f.get(pc as usize))
            .copied()
            .unwrap_or(false)
    }

    /// Instruction `pc` of function `func`'s [`Prepared`] facts.
    #[inline]
    pub(crate) fn prepared(&self, func: u32, pc: u32) -> Option<&Prepared> {
        self.prepared.get(func as usize)?.get(pc as usize)
    }

    /// The operands of instruction `pc` of function `func` if it is a wanted
    /// pure instruction.
    pub(crate) fn pure_op(&self, func: u32, pc: u32) -> Option<&PureOp> {
        self.pure.get(func as usize)?.get(pc as usize)?.as_ref()
    }

    /// How a global load of opcode `name` is numbered (see
    /// [`global_load_class`]).
    #[inline]
    pub(crate) fn load_class(&self, name: u32) -> Option<bool> {
        self.loads.get(name as usize).copied().flatten()
    }

    /// Whether a load of opcode `name` sign-extends (`.s8`, `.s16`).
    pub(crate) fn signed(&self, name: u32) -> bool {
        self.signed.get(name as usize).copied().unwrap_or(false)
    }

    /// Whether an instruction of opcode `name` the interpreter does not
    /// follow may write global memory (see [`may_write_global`]).
    pub(crate) fn may_write_global(&self, name: u32) -> bool {
        self.writes.get(name as usize).copied().unwrap_or(true)
    }
}

/// Whether an instruction of opcode `name` that the interpreter does not
/// follow (opaque, or not modelled) may write global memory: all but the
/// opcodes that write only registers (a modelling choice: a list of PTX's
/// arithmetic, conversion, move and load instructions; anything else, known
/// or not, is taken to write).
pub(crate) fn may_write_global(name: &str) -> bool {
    const REGISTERS_ONLY: [&str; 52] = [
        "abs",
        "activemask",
        "add",
        "and",
        "bfind",
        "bfe",
        "bfi",
        "bmsk",
        "brev",
        "clz",
        "cnot",
        "copysign",
        "cos",
        "cvt",
        "cvta",
        "div",
        "dp2a",
        "dp4a",
        "elect",
        "ex2",
        "fma",
        "fns",
        "isspacep",
        "ld",
        "ldu",
        "lg2",
        "lop3",
        "mad",
        "mad24",
        "max",
        "min",
        "mma",
        "mov",
        "mul",
        "mul24",
        "neg",
        "not",
        "or",
        "popc",
        "prmt",
        "rcp",
        "rem",
        "rsqrt",
        "sad",
        "selp",
        "set",
        "setp",
        "shf",
        "shl",
        "shr",
        "sin",
        "sqrt",
    ];
    const MORE: [&str; 7] = ["slct", "sub", "szext", "tanh", "testp", "xor", "shfl"];
    let op = name.split('.').next().unwrap_or(name);
    // `wmma.mma` is `mma`'s warp form (its loads and stores are followed,
    // not opaque): taken to write, it began an epoch at each of a GEMM's
    // millions, and put every one of them in the key run.
    let op = if name.starts_with("wmma.mma.") {
        "mma"
    } else {
        op
    };
    !(REGISTERS_ONLY.contains(&op) || MORE.contains(&op))
}

/// The registers an instruction numbers, each with its place among the
/// instruction's destinations, and the operands their numbers are made of.
fn flow(kind: &Kind) -> (Vec<(u8, u32)>, Vec<Src>) {
    let one = |d: u32| vec![(0, d)];
    let many = |ds: &[Option<u32>]| {
        ds.iter()
            .enumerate()
            .filter_map(|(i, d)| d.map(|d| (i as u8, d)))
            .collect()
    };
    match kind {
        Kind::Mov { d, a, .. } | Kind::Cvt { d, a, .. } | Kind::IntUn { d, a, .. } => {
            (one(*d), vec![*a])
        }
        Kind::Pack { d, parts, .. } => (one(*d), parts.clone()),
        Kind::Unpack { ds, a, .. } => (many(ds), vec![*a]),
        Kind::IntBin { d, a, b, .. } | Kind::Set { d, a, b, .. } => (one(*d), vec![*a, *b]),
        Kind::Mad { d, a, b, c, .. }
        | Kind::Mad24 { d, a, b, c, .. }
        | Kind::Bfe { d, a, b, c, .. }
        | Kind::Prmt { d, a, b, c, .. }
        | Kind::Lop3 { d, a, b, c, .. }
        | Kind::Float { d, a, b, c, .. }
        | Kind::Selp { d, a, b, c, .. } => (one(*d), vec![*a, *b, *c]),
        Kind::Bfi { d, a, b, c, e, .. } => (one(*d), vec![*a, *b, *c, *e]),
        Kind::Setp {
            p,
            q,
            a,
            b,
            combine,
            ..
        } => {
            let mut srcs = vec![*a, *b];
            srcs.extend(combine.map(|c| c.1));
            (many(&[*p, *q]), srcs)
        }
        Kind::Shfl { d, a, .. } => (one(*d), vec![*a]),
        Kind::Ld { ds, .. } => (many(ds), Vec::new()),
        Kind::Atom { d: Some(d), .. } => (one(*d), Vec::new()),
        Kind::Opaque {
            ds,
            srcs: Some(srcs),
            ..
        } => (
            ds.iter()
                .take(64)
                .enumerate()
                .map(|(i, &d)| (i as u8, d))
                .collect(),
            srcs.clone(),
        ),
        _ => (Vec::new(), Vec::new()),
    }
}

/// The destinations (with their places) and operands of a pure instruction,
/// which hash-consing numbers, or `None` for any other kind.
fn pure(kind: &Kind) -> Option<PureOp> {
    match kind {
        Kind::Cvt { .. }
        | Kind::IntUn { .. }
        | Kind::Pack { .. }
        | Kind::Unpack { .. }
        | Kind::IntBin { .. }
        | Kind::Set { .. }
        | Kind::Mad { .. }
        | Kind::Mad24 { .. }
        | Kind::Bfe { .. }
        | Kind::Prmt { .. }
        | Kind::Lop3 { .. }
        | Kind::Float { .. }
        | Kind::Bfi { .. }
        | Kind::Setp { .. } => {
            let (dsts, mut srcs) = flow(kind);
            // A float instruction's operands past those its op reads are
            // absent (unknown): not part of its value.
            if let Kind::Float { op, .. } = kind {
                srcs.truncate(match op {
                    FloatOp::Neg | FloatOp::Abs => 1,
                    FloatOp::Fma => 3,
                    _ => 2,
                });
            }
            (srcs.len() <= 4).then_some(PureOp { dsts, srcs })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Operand = Operand::Number(7);
    const ONE: Operand = Operand::Known(1);

    #[test]
    fn a_table_entry_is_48_bytes() {
        // The figure the module's memory bound is stated with.
        assert_eq!(core::mem::size_of::<(Key, u64)>(), 48);
        assert_eq!(MAX_NUMBERS, 1 << 18);
    }

    #[test]
    fn the_same_expression_of_the_same_inputs_is_one_number() {
        let mut n = Numbers::default();
        let x = n.op(3, 0, [A, ONE, ONE, ONE]);
        assert_eq!(n.op(3, 0, [A, ONE, ONE, ONE]), x);
        // Another opcode, destination or operand: another number.
        assert_ne!(n.op(4, 0, [A, ONE, ONE, ONE]), x);
        assert_ne!(n.op(3, 1, [A, ONE, ONE, ONE]), x);
        assert_ne!(n.op(3, 0, [Operand::Number(8), ONE, ONE, ONE]), x);
        // A number is never taken for known bits of the same value.
        assert_ne!(n.op(3, 0, [Operand::Known(7), ONE, ONE, ONE]), x);
    }

    #[test]
    fn a_chain_is_equal_exactly_when_its_operands_are() {
        let mut n = Numbers::default();
        let args = [A, ONE, Operand::Number(9), ONE, A];
        let x = n.chain(&args);
        assert_eq!(n.chain(&args), x);
        // One operand more (even a zero), one less, one changed: another.
        let mut longer = args.to_vec();
        longer.push(Operand::Known(0));
        assert_ne!(n.chain(&longer), x);
        assert_ne!(n.chain(&args[..4]), x);
        assert_ne!(n.chain(&[A, ONE, Operand::Number(9), ONE, ONE]), x);
        // A lane-by-lane result ignores the lane; a collective one does not.
        let a = n.opaque(3, 0, false, x, 0);
        assert_eq!(n.opaque(3, 0, false, x, 5), a);
        assert_ne!(n.opaque(3, 1, false, x, 0), a);
        assert_ne!(n.opaque(3, 0, true, x, 0), a);
        assert_ne!(n.opaque(3, 0, true, x, 5), n.opaque(3, 0, true, x, 0));
    }

    #[test]
    fn a_global_write_makes_later_loads_new_values() {
        let mut n = Numbers::default();
        let before = n.load(0x7f00_0000_0100, 4, false);
        assert_eq!(n.load(0x7f00_0000_0100, 4, false), before);
        assert_ne!(n.load(0x7f00_0000_0104, 4, false), before);
        assert_ne!(n.load(0x7f00_0000_0100, 2, false), before);
        assert_ne!(n.load(0x7f00_0000_0100, 4, true), before);
        n.global_write();
        let after = n.load(0x7f00_0000_0100, 4, false);
        assert_ne!(after, before);
        assert_eq!(n.load(0x7f00_0000_0100, 4, false), after);
    }

    #[test]
    fn loads_past_the_packed_range_use_the_table() {
        let mut n = Numbers::default();
        // An address of 49 bits and more: not packed, still one number.
        let high = n.load(1 << 50, 8, false);
        assert_eq!(high & PACKED, 0);
        assert_eq!(n.load(1 << 50, 8, false), high);
        assert_eq!(n.entries(), 1);
        // An epoch past 12 bits: likewise, and unlike the packed epoch 0.
        let low = n.load(64, 4, false);
        assert_ne!(low & PACKED, 0);
        // Writes with no load between are one epoch.
        for _ in 0..10 {
            n.global_write();
        }
        assert_ne!(n.load(64, 4, false), low);
        assert_eq!(n.epoch(), 1);
        for _ in 0..4095 {
            n.global_write();
            n.load(0, 1, false);
        }
        let late = n.load(64, 4, false);
        assert_eq!(late & PACKED, 0);
        assert_ne!(late, low);
        assert_eq!(n.load(64, 4, false), late);
    }

    #[test]
    fn first_occurrences_are_alike_for_loads_alike_at_other_addresses() {
        let pattern = |base: u64| {
            let mut seen = FirstSeen::default();
            [0, 16, 0, 32, 16]
                .map(|off| seen.index(Numbers::packed(base + off, 4, false, 0).unwrap()))
        };
        let a = pattern(0x7f00_0000_0000);
        assert_eq!(a, [0, 1, 0, 2, 1].map(Some));
        assert_eq!(pattern(0x1000), a);
        // Another width, sign or epoch: another load.
        let mut seen = FirstSeen::default();
        let n = |seen: &mut FirstSeen, bytes, signed, epoch| {
            seen.index(Numbers::packed(64, bytes, signed, epoch).unwrap())
        };
        assert_eq!(n(&mut seen, 4, false, 0), Some(0));
        assert_eq!(n(&mut seen, 2, false, 0), Some(1));
        assert_eq!(n(&mut seen, 4, true, 0), Some(2));
        assert_eq!(n(&mut seen, 4, false, 1), Some(3));
        assert_eq!(seen.len(), 4);
        // Not packed: an address of 49 bits, an epoch of 13.
        assert_eq!(Numbers::packed(1 << 48, 4, false, 0), None);
        assert_eq!(Numbers::packed(64, 4, false, 1 << 12), None);
    }

    #[test]
    fn past_its_bound_the_table_gives_fresh_numbers() {
        let mut n = Numbers::with_limit(4);
        let first: Vec<u64> = (0..4).map(|k| n.op(1, 0, [Operand::Known(k); 4])).collect();
        assert_eq!(n.entries(), 4);
        // A fifth expression: a number each time, equal to no other.
        let a = n.op(1, 0, [Operand::Known(9); 4]);
        let b = n.op(1, 0, [Operand::Known(9); 4]);
        assert_ne!(a, b);
        assert!(!first.contains(&a) && !first.contains(&b));
        assert_eq!(n.entries(), 4);
        // The expressions in the table keep their numbers.
        assert_eq!(n.op(1, 0, [Operand::Known(2); 4]), first[2]);
    }

    #[test]
    fn a_shared_load_stored_back_at_its_width_is_the_stored_value() {
        let mut n = Numbers::default();
        let loaded = n.shared_load(42, 4, false);
        assert_eq!(n.shared_load(42, 4, false), loaded);
        assert_ne!(loaded, 42);
        assert_eq!(n.stored(loaded, 4), 42);
        // At another width the bytes stored differ.
        assert_eq!(n.stored(loaded, 2), loaded);
        assert_ne!(n.shared_load(42, 2, false), loaded);
    }

    #[test]
    fn only_plain_global_loads_are_numbered_by_address() {
        assert_eq!(global_load_class("ld.global.v4.b32"), Some(false));
        assert_eq!(global_load_class("ld.global.nc.s8"), Some(true));
        assert_eq!(global_load_class("ld.volatile.global.u32"), None);
        assert_eq!(global_load_class("ld.global.relaxed.gpu.u32"), None);
        assert_eq!(global_load_class("ld.local.u32"), None);
        assert_eq!(global_load_class("ld.u32"), None);
    }

    #[test]
    fn instructions_not_followed_may_write_unless_they_only_compute() {
        assert!(!may_write_global("ex2.approx.ftz.f32"));
        assert!(!may_write_global("rcp.rn.f32"));
        assert!(may_write_global("st.async.shared::cluster.b32"));
        assert!(may_write_global(
            "cp.async.bulk.global.shared::cta.bulk_group"
        ));
        assert!(may_write_global("multimem.st.global.f32"));
        assert!(may_write_global("somethingnew"));
        assert!(!may_write_global(
            "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn"
        ));
        assert!(may_write_global(
            "wmma.store.d.sync.aligned.row.m16n16k16.f32"
        ));
    }
}
