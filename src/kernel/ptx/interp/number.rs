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
//!   block's global epoch), canonically: the number is the first occurrence
//!   of that quadruple in the block's run (the 0th distinct load, the 1st,
//!   ...), not the address. So a block's numbers depend only on which of its
//!   loads are equal, not on where they read: two blocks copying different
//!   tiles the same way number them alike, which the dynamic block keys
//!   ([`slice`](super::slice)) rely on. The epoch is a modelling choice: every global
//!   store, global atomic, store or atomic whose address may be global
//!   (generic, unknown), and instruction the interpreter does not follow
//!   (opaque, not modelled) of the block advances it, as the interpreter runs
//!   them, so a load after any such write is a new value. Writes of other
//!   blocks are not seen (a kernel that reads what another block writes
//!   without synchronisation races on global memory, which this model does
//!   not check). Other spaces (local memory is per thread; generic loads may
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
//! block, 2^18 (a key and its number are 80 bytes; the hash table's 2^19
//! slots of 81 bytes, and the shared loads' origins beside it, about 54 MiB
//! at most); past that, new keys get fresh numbers: never a wrong equality,
//! only missed ones. 2^20, as first planned, would have been four times that.
//! Global loads have a table of their own, at most [`MAX_LOADS`] distinct
//! ones per block, 2^18 (32 bytes an entry, about 17 MiB with the hash
//! table's slack; a cuda-samples WMMA GEMM block reads 2^17 distinct 16-byte
//! chunks of its 4096-deep operands); past that, a load not seen yet gets a
//! fresh number, so a block's load numbers still depend only on the
//! sequence of its loads (never a wrong equality, only missed ones). Shared memory
//! keeps 9 bytes per byte for the numbers stored (allocated at a block's
//! first numbered store: 2 MiB for the largest window).

use rustc_hash::FxHashMap;

use super::ir::{FloatOp, Kind, Program, Space, Src};

/// The most entries of a block's table of numbered expressions (see the
/// module's "Memory").
pub(crate) const MAX_NUMBERS: usize = 1 << 18;

/// The most distinct global loads a block numbers canonically (see the
/// module's "Memory").
pub(crate) const MAX_LOADS: usize = 1 << 18;

/// The bit that marks a global load's canonical number (its first
/// occurrence): never a fresh number, which stays below it.
pub(crate) const LOAD: u64 = 1 << 63;

/// The name of a [`Numbers::chain`] link (no opcode's: names are indices
/// into a program's opcode texts).
const CHAIN: u32 = u32::MAX;

/// An operand of a numbered expression: known bits or a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Operand {
    Known(u64),
    Number(u64),
}

/// A global load: address, epoch, bytes, sign-extended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct LoadKey {
    address: u64,
    epoch: u64,
    bytes: u8,
    signed: bool,
}

/// What a number stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// A shared load of `bytes` bytes of the value numbered `number` stored
    /// at that width, sign-extended or not.
    SharedLoad {
        number: u64,
        bytes: u8,
        signed: bool,
    },
    /// A pure instruction's destination `out` over its operands (at most 4;
    /// unused ones `Known(0)`).
    Op {
        name: u32,
        out: u8,
        args: [Operand; 4],
    },
}

/// A block's value numbers: the table, the global epoch and the next fresh
/// number.
#[derive(Debug)]
pub(crate) struct Numbers {
    table: FxHashMap<Key, u64>,
    /// The global loads seen, each with its number (`LOAD` and its first
    /// occurrence).
    loads: FxHashMap<LoadKey, u64>,
    load_limit: usize,
    /// A shared load's number: the number stored and the width it was
    /// stored and loaded at. Storing the load back at that width stores
    /// the same bytes: the original number.
    loaded: FxHashMap<u64, (u64, u32)>,
    limit: usize,
    /// The next number to hand out (below [`LOAD`]).
    next: u64,
    /// The block's global-memory epoch.
    epoch: u64,
}

thread_local! {
    /// The last block's table of loads on this thread, emptied: a key run
    /// numbers its loads in a table that has grown already (the growing
    /// was a sixth of a matrix product's run of 200 blocks). It holds what
    /// one block's table held at most (see the module's "Memory").
    static SPARE_LOADS: std::cell::Cell<FxHashMap<LoadKey, u64>> =
        std::cell::Cell::new(FxHashMap::default());
}

impl Drop for Numbers {
    fn drop(&mut self) {
        let mut loads = std::mem::take(&mut self.loads);
        loads.clear();
        SPARE_LOADS.with(|spare| spare.set(loads));
    }
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
            loads: SPARE_LOADS.with(|spare| spare.take()),
            load_limit: MAX_LOADS,
            loaded: FxHashMap::default(),
            limit,
            next: 1,
            epoch: 0,
        }
    }

    /// A number equal to no other.
    #[inline]
    pub(crate) fn fresh(&mut self) -> u64 {
        let n = self.next;
        // Below LOAD for any run: one number per lane and step at most.
        self.next += 1;
        n
    }

    /// The block wrote global memory (or may have).
    pub(crate) fn global_write(&mut self) {
        self.epoch += 1;
    }

    /// The number of `key`: its entry, a new entry, or past the table's
    /// limit a fresh number.
    fn intern(&mut self, key: Key) -> u64 {
        if let Some(&n) = self.table.get(&key) {
            return n;
        }
        let n = self.fresh();
        if !self.full() {
            self.table.insert(key, n);
        }
        n
    }

    fn full(&self) -> bool {
        self.table.len() + self.loaded.len() >= self.limit
    }

    /// The number of a shared load of `bytes` bytes whose memory holds the
    /// value numbered `number` at that width, sign-extended or not.
    pub(crate) fn shared_load(&mut self, number: u64, bytes: u32, signed: bool) -> u64 {
        let key = Key::SharedLoad {
            number,
            bytes: bytes as u8,
            signed,
        };
        if let Some(&n) = self.table.get(&key) {
            return n;
        }
        let n = self.fresh();
        if !self.full() {
            self.table.insert(key, n);
            self.loaded.insert(n, (number, bytes));
        }
        n
    }

    /// The number memory keeps for a store of `bytes` bytes of the value
    /// numbered `number`: a shared load's number stored back at its width
    /// stores the bytes it loaded.
    #[inline]
    pub(crate) fn stored(&self, number: u64, bytes: u32) -> u64 {
        if number & LOAD != 0 || self.loaded.is_empty() {
            return number;
        }
        match self.loaded.get(&number) {
            Some(&(n, b)) if b == bytes => n,
            _ => number,
        }
    }

    /// The number of a global load of `bytes` bytes (1 to 8) at `address`
    /// now, sign-extended or not: `LOAD` and the index of its first
    /// occurrence among the block's distinct loads, or past [`MAX_LOADS`] of
    /// them a fresh number.
    #[inline]
    pub(crate) fn load(&mut self, address: u64, bytes: u32, signed: bool) -> u64 {
        let key = LoadKey {
            address,
            epoch: self.epoch,
            bytes: bytes as u8,
            signed,
        };
        if let Some(&n) = self.loads.get(&key) {
            return n;
        }
        if self.loads.len() >= self.load_limit {
            return self.fresh();
        }
        let n = LOAD | self.loads.len() as u64;
        self.loads.insert(key, n);
        n
    }

    /// The number of destination `out` of the pure instruction named `name`
    /// over `args`.
    pub(crate) fn op(&mut self, name: u32, out: u8, args: [Operand; 4]) -> u64 {
        self.intern(Key::Op { name, out, args })
    }

    /// The operands `args`, any number of them, as one operand: a number
    /// equal to another chain's exactly when their operands are equal (the
    /// count first, then three at a time, each link hash-consed).
    pub(crate) fn chain(&mut self, args: &[Operand]) -> Operand {
        let mut acc = Operand::Known(args.len() as u64);
        for chunk in args.chunks(3) {
            let mut link = [acc, Operand::Known(0), Operand::Known(0), Operand::Known(0)];
            link[1..=chunk.len()].copy_from_slice(chunk);
            acc = Operand::Number(self.intern(Key::Op {
                name: CHAIN,
                out: 0,
                args: link,
            }));
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
        self.intern(Key::Op {
            name,
            out,
            args: [over, lane, Operand::Known(0), Operand::Known(0)],
        })
    }

    /// Entries in the table (tests).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> usize {
        self.table.len()
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
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    wanted: Vec<Vec<bool>>,
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
        Plan {
            wanted,
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
    fn a_table_entry_is_80_bytes() {
        // The figure the module's memory bound is stated with.
        assert_eq!(core::mem::size_of::<(Key, u64)>(), 80);
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
    fn loads_are_numbered_by_first_occurrence_not_by_address() {
        // Two blocks reading different tiles in the same pattern: the same
        // numbers.
        let pattern = |base: u64| {
            let mut n = Numbers::default();
            let mut out = Vec::new();
            for off in [0, 16, 0, 32, 16] {
                out.push(n.load(base + off, 4, false));
            }
            n.global_write();
            out.push(n.load(base, 4, false));
            out
        };
        let a = pattern(0x7f00_0000_0000);
        assert_eq!(pattern(1 << 60), a);
        assert_eq!(a, [LOAD, LOAD | 1, LOAD, LOAD | 2, LOAD | 1, LOAD | 3]);
        // Nothing goes into the table of expressions.
        let mut n = Numbers::default();
        n.load(64, 8, true);
        assert_eq!(n.entries(), 0);
    }

    #[test]
    fn past_its_bound_a_new_load_gets_a_fresh_number() {
        let mut n = Numbers {
            load_limit: 2,
            ..Numbers::default()
        };
        let a = n.load(0, 4, false);
        let b = n.load(8, 4, false);
        let c = n.load(16, 4, false);
        let d = n.load(16, 4, false);
        // The third distinct address: a number each time, equal to no other.
        assert_ne!(c, d);
        assert!(c & LOAD == 0 && d & LOAD == 0);
        assert!(![a, b].contains(&c));
        // Those seen keep theirs.
        assert_eq!(n.load(8, 4, false), b);
        assert_eq!(MAX_LOADS, 1 << 18);
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
    }
}
