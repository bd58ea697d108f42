//! Which blocks of a launch do the same thing, by their values: the
//! instructions a block must run to tell, and what of them goes into its
//! *key*.
//!
//! The static analysis ([`classes`](super::classes)) keeps every block apart
//! along a component of the block index that reaches what the consumer
//! sees, whatever it reaches it with. A grid-stride loop's bound, a tile
//! copied from a block-dependent global address into shared memory, keep
//! every block of the largest launches apart, though most of them do the
//! same thing. So where the static analysis leaves components relevant,
//! each block gets a key, computed by a cheap run of part of its program
//! (the *key run*, [`exec::block_key`](super::exec::block_key)), and blocks
//! with equal keys are run once (see [`grid`](super::grid)).
//!
//! # The key
//!
//! A value is *tainted* when it may differ between blocks: computed from
//! `%ctaid` (`%clusterid`, `%cluster_ctaid`, `%cluster_ctarank`), through
//! an instruction's operands and its guard, through the `.param` and shared
//! state spaces (flow-insensitive, as [`classes`](super::classes) does),
//! except a numbered global load's result: its value number is packed from
//! its address ([`number`](super::number)), but the consumer sees only which
//! numbers are equal, and the key holds which of the block's loads are
//! equal. The *sinks* are [`classes`](super::classes)' (shared addresses,
//! stored values, guards of events and branches, barrier operands,
//! `bar.warp.sync`'s mask, the counter that picks an unrolled loop's merge,
//! every operand of an instruction that numbers its result, the global
//! address of a `cp.async`, the bits of it that its event carries), but the
//! address of a numbered global load, and the guards of what advances the
//! global epoch. A block's key is, in the order its run executes them:
//!
//! - at every executed instruction with a tainted sink operand: the place
//!   (function, instruction, warp, the warp's active mask), and for each
//!   tainted sink operand the lanes of the mask that know it and their
//!   values (a `cp.async`'s source address: the bits [`Event::CpAsyncSource`]
//!   is computed from, the low 7 for `.ca`, the low 32 for `.cg`; nothing
//!   for a `.cg` whose event the static analysis proved the same in every
//!   two blocks on one path, [`Classes::same_sources`]);
//! - at every executed numbered global load: the place, the lanes that run
//!   it and those of them that know their address, and which of its pieces
//!   equal which loads before: nothing, where every numbered load of the
//!   block reads bytes that no load read before in its epoch (checked on
//!   byte ranges, adjacent ones merged: a tile copy's rows are one range),
//!   else each piece's first occurrence among the block's loads
//!   ([`FirstSeen`](super::number::FirstSeen)). The key's first word says
//!   which.
//!
//! The key is exact (a `Vec<u64>`, compared whole): a hash collision can
//! never merge two blocks. A block whose key run stops short (an address or
//! epoch that does not pack, more than 2^18 distinct loads, a key of more
//! than 2^23 words, an error, the step budget) has no key and is
//! interpreted.
//!
//! # Why equal keys give equal runs
//!
//! By induction over the steps of two blocks' runs with equal keys: they
//! run the same instructions in the same warps under the same masks, and
//! every untainted value is equal in both, known bits, known lanes and value
//! numbers alike. A branch, call, exit, barrier or guard that decides what
//! runs is a sink: equal where tainted (the key), equal where not (the
//! induction), so the schedule (warps run until they wait, barriers release
//! in order) is the same. A value number is made of known bits and numbers
//! (both equal: the operands of an instruction that numbers are sinks), or
//! is a global load's: packed from its address and epoch, so different in
//! the two blocks, but equal exactly where the other block's are (the key
//! holds which loads are equal, and a key run stops where an address or
//! epoch would not pack, so no load of either block reaches the table of
//! expressions). Renaming the one block's load numbers to the other's makes
//! every value correspond: the table of expressions sees corresponding keys
//! in the same order, so it hands out the same numbers and overflows at the
//! same entry, and the consumer sees only which numbers are equal. Every
//! event's contents is a sink, or computed from equal values, or a `.cg`
//! source left out of the key: equal by the static analysis's lane facts,
//! which hold of any two blocks on one path ([`classes`](super::classes),
//! "What a value keeps of the lane"); so are the notes, the steps and the
//! errors (a shared access out of bounds names the block: the first block
//! of a class is run, and its error ends the launch before any other block
//! of it). So the consumer is called alike, byte for byte.
//!
//! # The slice
//!
//! The key run executes only the instructions its key and its control flow
//! need: branches, calls, exits and barriers; numbered global loads (and
//! every instruction that may advance the global epoch, which their numbers
//! depend on); stores to `.param` (a `.param` load may be needed); and, by
//! a backward closure over each function's registers (flow-insensitive:
//! every instruction that writes a register a needed one reads), whatever
//! computes the operands those and the key read. Where the closure needs a
//! value the key run cannot compute exactly without running the whole block
//! (a load from shared, generic or constant memory, a shared atomic's
//! result, a matrix fragment, an mbarrier's state), or the kernel uses
//! mbarriers, bulk copies, `mapa` or `cp.async.mbarrier.arrive` (whose
//! waits reorder warps), there is no slice: the launch keeps the static
//! classes alone. The other instructions are skipped, counted as steps (so
//! a key run ends on the run budget where the block would).

#[cfg(doc)]
use super::classes::Classes;
#[cfg(doc)]
use crate::kernel::Event;

use super::ir::{Addr, BarKind, Inst, Kind, Merge, Program, Space, Special, Src};
use super::number::Plan;
use crate::CpAsync;

/// What the key run does with one instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Role {
    /// Executed; otherwise skipped.
    pub run: bool,
    /// Operands whose values go into the key before it runs, each with the
    /// bits of it that matter.
    pub record: Vec<(Src, u64)>,
    /// A numbered global load: its numbers go into the key after it runs.
    pub numbers: bool,
    /// The next instruction that is run or recorded: a key run goes on
    /// there from a skipped one (none between is a branch target it must
    /// stop at but the reconvergence point, which the run checks).
    pub next: u32,
}

/// A kernel's slice: each instruction's [`Role`].
#[derive(Debug, Clone)]
pub(crate) struct Slice {
    roles: Vec<Vec<Role>>,
}

/// What a key records of a `cp.async`'s global address, as the bits of each
/// lane's value to keep, or [`LINE_RELATIVE`]: what decides its event (see
/// [`Event::CpAsyncSource`]). For `.ca` the low 7 bits (the low bits of a
/// sum are those of the low bits of its terms, so they are the base
/// register's); for `.cg` each lane's base less the first recorded lane's
/// 128-byte line, 32 bits: the event's offsets (each reading lane's address
/// less the first reading lane's line) are a function of those, of which
/// lanes read (the src-size, a sink of its own) and of the immediate offset,
/// since a multiple of 128 added to every lane changes neither.
fn cp_async_source_bits(kind: CpAsync) -> u64 {
    match kind {
        CpAsync::Ca => u64::from(crate::kernel::CP_ASYNC_SOURCE_MASK),
        CpAsync::Cg => LINE_RELATIVE,
    }
}

/// A sink's "bits" that ask for each lane's 32-bit value less the first
/// recorded lane's 128-byte line ([`cp_async_source_bits`]); no real mask
/// has its top bit set without its low bits.
pub(crate) const LINE_RELATIVE: u64 = 1 << 63;

/// Whether a source operand is tainted, given its function's registers.
fn tainted(regs: &[bool], s: &Src) -> bool {
    match *s {
        Src::Reg(r) => regs.get(r as usize).copied().unwrap_or(false),
        Src::Special(
            Special::Ctaid(_)
            | Special::ClusterId(_)
            | Special::ClusterCtaid(_)
            | Special::ClusterCtarank,
        ) => true,
        _ => false,
    }
}

/// One instruction, as the analysis sees it.
#[derive(Debug, Default)]
struct Facts {
    /// Registers it may write.
    defs: Vec<u32>,
    /// Operands its results are computed from (beyond its guard).
    data: Vec<Src>,
    /// Its results also depend on shared (or `.param`) memory.
    reads_shared: bool,
    reads_param: bool,
    /// What it stores into shared or `.param` memory: those operands taint
    /// the space.
    taints_shared: Vec<Src>,
    taints_param: Vec<Src>,
    /// Operands the consumer sees (the guard included where it counts),
    /// with the bits that matter.
    sinks: Vec<(Src, u64)>,
    /// Run in every key run (its effects are needed): branches, barriers,
    /// what may advance the global epoch, numbered loads, `.param` stores.
    always: bool,
    /// What it needs, when run, to do what the key run needs of it.
    needs: Vec<Src>,
    /// Its results cannot be computed in a key run.
    opaque_results: bool,
    /// A numbered global load.
    numbered: bool,
}

fn reg(r: u32) -> Src {
    Src::Reg(r)
}

fn facts(
    program: &Program,
    plan: &Plan,
    same_sources: &[(u32, u32)],
    (f, pc): (usize, usize),
    inst: &Inst,
) -> Option<Facts> {
    let func = &program.functions[f];
    let guard: Vec<Src> = inst.guard.iter().map(|&(p, _)| reg(p)).collect();
    let all = |v: &[Src]| v.iter().map(|&s| (s, u64::MAX)).collect::<Vec<_>>();
    let counter = |merge: &Merge| match merge {
        Merge::Loop { table } => func.loops.get(*table as usize).map(|l| reg(l.counter)),
        _ => None,
    };
    let addr = |a: &Addr| a.base;
    let mut x = Facts::default();
    let wanted = plan.wants(f as u32, pc as u32);
    match &inst.kind {
        Kind::Mov { d, a, .. }
        | Kind::IntUn { d, a, .. }
        | Kind::PredNot { d, a }
        | Kind::Cvt { d, a, .. }
        | Kind::CvtaWindow { d, a, .. }
        | Kind::Redux { d, a, .. }
        | Kind::Vote { d, a, .. }
        | Kind::MatchAny { d, a, .. } => {
            x.defs.push(*d);
            x.data.push(*a);
        }
        Kind::Pack { d, parts, .. } => {
            x.defs.push(*d);
            x.data.extend(parts);
        }
        Kind::Unpack { ds, a, .. } => {
            x.defs.extend(ds.iter().flatten());
            x.data.push(*a);
        }
        Kind::IntBin { d, a, b, .. }
        | Kind::PredBin { d, a, b, .. }
        | Kind::Set { d, a, b, .. } => {
            x.defs.push(*d);
            x.data.extend([*a, *b]);
        }
        Kind::Mad { d, a, b, c, .. }
        | Kind::Mad24 { d, a, b, c, .. }
        | Kind::Bfe { d, a, b, c, .. }
        | Kind::Prmt { d, a, b, c, .. }
        | Kind::Lop3 { d, a, b, c, .. }
        | Kind::Float { d, a, b, c, .. }
        | Kind::Selp { d, a, b, c, .. } => {
            x.defs.push(*d);
            x.data.extend([*a, *b, *c]);
        }
        Kind::Bfi { d, a, b, c, e, .. } => {
            x.defs.push(*d);
            x.data.extend([*a, *b, *c, *e]);
        }
        Kind::Setp {
            p,
            q,
            a,
            b,
            combine,
            ..
        } => {
            x.defs.extend(p.iter().chain(q));
            x.data.extend([*a, *b]);
            x.data.extend(combine.map(|(_, c, _)| c));
        }
        Kind::Shfl { d, p, a, b, c, .. } => {
            x.defs.push(*d);
            x.defs.extend(p);
            x.data.extend([*a, *b, *c]);
        }
        Kind::Activemask { d } => x.defs.push(*d),
        Kind::Elect { d, p } => x.defs.extend(d.iter().chain(p)),
        Kind::Opaque { ds, srcs, .. } => {
            x.defs.extend(ds);
            x.data.extend(srcs.iter().flatten());
            // Its results are unknown (or numbers, from its operands).
            x.always = plan.may_write_global(inst.name);
            x.needs = guard.clone();
        }
        Kind::Unmodelled { ds } => {
            x.defs.extend(ds);
            x.sinks.extend(all(&guard));
            x.always = plan.may_write_global(inst.name);
            x.needs = guard.clone();
        }
        Kind::Ld {
            space,
            ds,
            addr: a,
            merge,
            ..
        } => {
            x.defs.extend(ds.iter().flatten());
            x.sinks.extend(counter(merge).map(|c| (c, u64::MAX)));
            x.needs.extend(counter(merge));
            match space {
                Space::Shared | Space::SharedCluster | Space::Generic | Space::Const => {
                    x.sinks.push((addr(a), u64::MAX));
                    x.sinks.extend(all(&guard));
                    x.data.push(addr(a));
                    x.reads_shared = true;
                    x.opaque_results = true;
                }
                Space::Param => {
                    x.data.push(addr(a));
                    x.reads_param = true;
                    x.needs.push(addr(a));
                    x.needs.extend(&guard);
                }
                Space::Global | Space::Local => {
                    x.needs.extend(&guard);
                    if *space == Space::Global && wanted && plan.load_class(inst.name).is_some() {
                        x.numbered = true;
                        x.always = true;
                        x.needs.push(addr(a));
                    }
                }
            }
        }
        Kind::St {
            space,
            srcs,
            addr: a,
            merge,
            ..
        } => {
            x.sinks.extend(counter(merge).map(|c| (c, u64::MAX)));
            x.needs.extend(counter(merge));
            match space {
                Space::Shared | Space::SharedCluster | Space::Generic => {
                    x.sinks.push((addr(a), u64::MAX));
                    x.sinks.extend(all(srcs));
                    x.sinks.extend(all(&guard));
                    x.taints_shared.extend(srcs);
                    if *space != Space::Shared {
                        // Where its address is not this block's shared
                        // memory it advances the global epoch.
                        x.always = true;
                        x.needs.push(addr(a));
                        x.needs.extend(&guard);
                    }
                }
                Space::Param => {
                    x.taints_param.extend(srcs);
                    x.taints_param.push(addr(a));
                    x.taints_param.extend(&guard);
                    x.always = true;
                    x.needs.extend(srcs);
                    x.needs.push(addr(a));
                    x.needs.extend(&guard);
                }
                // The epoch advances at a global store whatever its guard.
                Space::Global => x.always = true,
                Space::Local | Space::Const => {}
            }
        }
        Kind::Atom {
            space,
            d,
            addr: a,
            val,
            ..
        } => {
            x.defs.extend(d);
            match space {
                Space::Global | Space::Local | Space::Const | Space::Param => {
                    x.always = *space != Space::Local;
                    x.needs.extend(&guard);
                }
                _ => {
                    x.sinks.push((addr(a), u64::MAX));
                    x.sinks.extend(all(&guard));
                    // What it leaves in memory decides whether a later store
                    // writes what memory holds (an event of its own).
                    x.sinks.push((*val, u64::MAX));
                    x.taints_shared.extend([*val, addr(a)]);
                    x.taints_shared.extend(&guard);
                    x.data.extend([*val, addr(a)]);
                    x.reads_shared = true;
                    x.opaque_results = true;
                    if *space != Space::Shared {
                        // As a store: the epoch.
                        x.always = true;
                        x.needs.push(addr(a));
                        x.needs.extend(&guard);
                    }
                }
            }
        }
        Kind::LdMatrix { ds, addr: a, .. } => {
            x.defs.extend(ds);
            x.sinks.push((addr(a), u64::MAX));
            x.sinks.extend(all(&guard));
            x.data.push(addr(a));
            x.reads_shared = true;
            x.opaque_results = true;
        }
        Kind::Wmma {
            space,
            ds,
            addr: a,
            stride,
            ..
        } => {
            x.defs.extend(ds);
            x.opaque_results = true;
            if matches!(
                space,
                Space::Shared | Space::SharedCluster | Space::Generic | Space::Const
            ) {
                x.sinks.push((addr(a), u64::MAX));
                x.sinks.push((*stride, u64::MAX));
                x.sinks.extend(all(&guard));
            }
            // A store whose addresses may be global memory's begins an epoch.
            if ds.is_empty() && *space != Space::Shared {
                x.always = true;
                x.needs.extend([addr(a), *stride]);
                x.needs.extend(&guard);
            }
        }
        Kind::Wgmma { a, b, ds, .. } => {
            x.defs.extend(ds);
            x.opaque_results = true;
            x.sinks.extend(a.map(|a| (a, u64::MAX)));
            x.sinks.push((*b, u64::MAX));
            x.sinks.extend(all(&guard));
        }
        Kind::StMatrix { addr: a, .. } => {
            x.sinks.push((addr(a), u64::MAX));
            x.sinks.extend(all(&guard));
        }
        Kind::CpAsync {
            kind,
            dst,
            src,
            src_size,
            ..
        } => {
            x.sinks.push((addr(dst), u64::MAX));
            // Not where the static analysis proved the event the same in
            // every two blocks that run alike (classes.rs).
            if same_sources.binary_search(&(f as u32, pc as u32)).is_err() {
                x.sinks.push((addr(src), cp_async_source_bits(*kind)));
            }
            x.sinks.extend(src_size.map(|s| (s, u64::MAX)));
            x.sinks.extend(all(&guard));
        }
        Kind::Bar { kind, id, count } => {
            x.always = true;
            x.sinks.push((*id, u64::MAX));
            x.sinks.extend(count.map(|c| (c, u64::MAX)));
            x.sinks.extend(all(&guard));
            x.needs.push(*id);
            x.needs.extend(count);
            x.needs.extend(&guard);
            if let BarKind::Red { dst, pred, .. } = kind {
                x.defs.extend(dst);
                x.data.extend([*id, *pred]);
                x.data.extend(count);
                x.needs.push(*pred);
            }
        }
        Kind::BarWarp { mask } => {
            x.sinks.push((*mask, u64::MAX));
            x.sinks.extend(all(&guard));
        }
        Kind::CpAsyncCommit
        | Kind::CpAsyncWait { .. }
        | Kind::WgmmaCommit
        | Kind::WgmmaWait { .. }
        | Kind::Fence => x.sinks.extend(all(&guard)),
        Kind::Bra { .. } | Kind::Call { .. } | Kind::Ret | Kind::Exit => {
            x.sinks.extend(all(&guard));
            x.always = true;
            x.needs.extend(&guard);
        }
        Kind::Nop => {}
        // Their waits reorder warps, their state is in shared memory: no
        // slice.
        Kind::Mbar { .. } | Kind::Bulk(_) | Kind::Mapa { .. } | Kind::CpAsyncArrive { .. } => {
            return None;
        }
    }
    // An instruction that numbers its result: every operand (its number is
    // made of them); a numbered load's is its canonical number instead.
    if wanted && !x.numbered {
        x.sinks.extend(all(&x.data));
        x.sinks.extend(all(&guard));
    }
    // When run because a result is needed: whatever it is computed from
    // (an opaque instruction's results are unknown whatever its operands:
    // only the full run numbers them).
    if !matches!(inst.kind, Kind::Opaque { .. }) {
        x.needs.extend(&x.data);
    }
    x.needs.extend(&guard);
    Some(x)
}

impl Slice {
    /// The slice of `program`'s kernel (see the module docs), or `None`
    /// where its keys cannot be computed by a partial run; the sources of
    /// the copies `same_sources` (sorted) are left out of the key.
    pub(crate) fn new(
        program: &Program,
        plan: &Plan,
        same_sources: &[(u32, u32)],
    ) -> Option<Slice> {
        let facts: Vec<Vec<Facts>> = program
            .functions
            .iter()
            .enumerate()
            .map(|(f, func)| {
                func.insts
                    .iter()
                    .enumerate()
                    .map(|(pc, inst)| facts(program, plan, same_sources, (f, pc), inst))
                    .collect::<Option<Vec<_>>>()
            })
            .collect::<Option<Vec<_>>>()?;
        let taint = taint(program, &facts);
        // The roles: what is always run, what the key records.
        let mut roles: Vec<Vec<Role>> = facts
            .iter()
            .enumerate()
            .map(|(f, fs)| {
                fs.iter()
                    .map(|x| Role {
                        run: x.always,
                        record: x
                            .sinks
                            .iter()
                            .filter(|(s, _)| tainted(&taint[f], s))
                            .copied()
                            .collect(),
                        numbers: x.numbered,
                        next: 0,
                    })
                    .collect()
            })
            .collect();
        // The backward closure, per function.
        for (f, func) in program.functions.iter().enumerate() {
            let mut needed = vec![false; func.regs as usize];
            let mark = |needed: &mut Vec<bool>, s: &Src| -> bool {
                if let Src::Reg(r) = *s
                    && let Some(slot) = needed.get_mut(r as usize)
                    && !*slot
                {
                    *slot = true;
                    return true;
                }
                false
            };
            for role in &roles[f] {
                for (s, _) in &role.record {
                    mark(&mut needed, s);
                }
            }
            loop {
                let mut changed = false;
                for (role, x) in roles[f].iter_mut().zip(&facts[f]) {
                    let wanted = x
                        .defs
                        .iter()
                        .any(|&d| needed.get(d as usize).copied().unwrap_or(false));
                    if wanted && x.opaque_results {
                        return None;
                    }
                    if wanted && !role.run {
                        role.run = true;
                        changed = true;
                    }
                    if role.run {
                        for s in &x.needs {
                            changed |= mark(&mut needed, s);
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        for f in &mut roles {
            let mut next = f.len() as u32;
            for (pc, role) in f.iter_mut().enumerate().rev() {
                role.next = next;
                if role.run || !role.record.is_empty() || role.numbers {
                    next = pc as u32;
                }
            }
        }
        Some(Slice { roles })
    }

    /// The role of instruction `pc` of function `func`.
    #[inline]
    pub(crate) fn role(&self, func: u32, pc: u32) -> &Role {
        const SKIP: &Role = &Role {
            run: false,
            record: Vec::new(),
            numbers: false,
            next: u32::MAX,
        };
        self.roles
            .get(func as usize)
            .and_then(|f| f.get(pc as usize))
            .unwrap_or(SKIP)
    }

    /// Whether any instruction's operands go into the key: without, every
    /// block's key is its numbered loads' alone.
    #[cfg(test)]
    pub(crate) fn records(&self) -> usize {
        self.roles.iter().flatten().map(|r| r.record.len()).sum()
    }

    /// Instructions the key run executes (tests).
    #[cfg(test)]
    pub(crate) fn runs(&self) -> usize {
        self.roles.iter().flatten().filter(|r| r.run).count()
    }
}

/// The tainted registers of each function (see the module docs): a
/// fixpoint over every function, with the `.param` and shared spaces.
fn taint(program: &Program, facts: &[Vec<Facts>]) -> Vec<Vec<bool>> {
    let mut regs: Vec<Vec<bool>> = program
        .functions
        .iter()
        .map(|f| vec![false; f.regs as usize])
        .collect();
    let (mut shared, mut param) = (false, false);
    loop {
        let mut changed = false;
        for (f, func) in program.functions.iter().enumerate() {
            let r = &mut regs[f];
            for (inst, x) in func.insts.iter().zip(&facts[f]) {
                let guard = inst.guard.is_some_and(|(p, _)| tainted(r, &reg(p)));
                if x.taints_shared.iter().any(|s| tainted(r, s)) && !shared {
                    shared = true;
                    changed = true;
                }
                if x.taints_param.iter().any(|s| tainted(r, s)) && !param {
                    param = true;
                    changed = true;
                }
                let t = guard
                    || x.data.iter().any(|s| tainted(r, s))
                    || (x.reads_shared && shared)
                    || (x.reads_param && param);
                if !t {
                    continue;
                }
                for &d in &x.defs {
                    if let Some(slot) = r.get_mut(d as usize)
                        && !*slot
                    {
                        *slot = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return regs;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice_of(body: &str) -> Option<Slice> {
        slice_and_names(body).0
    }

    /// The slice, and each instruction's opcode.
    fn slice_and_names(body: &str) -> (Option<Slice>, Vec<String>) {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 g, .param .u32 n)\n{{\n\
             .reg .b32 %r<20>;\n.reg .b64 %rd<20>;\n.reg .pred %p<8>;\n\
             .reg .f64 %fd<20>;\n.shared .align 8 .b8 s[4096];\n{body}\nret;\n}}\n"
        );
        let module = crate::kernel::ptx::parse(&text).unwrap();
        let program = super::super::lower::lower(&module, Some("k")).unwrap();
        let plan = Plan::new(&program);
        let names = program.functions[0]
            .insts
            .iter()
            .map(|i| program.names[i.name as usize].clone())
            .collect();
        (Slice::new(&program, &plan, &[]), names)
    }

    #[test]
    fn a_wmma_mma_is_not_run_and_a_wmma_store_that_may_write_global_memory_is() {
        // dmmaTensorCoreGemm's loop: fragments loaded from shared memory
        // through a generic address, multiplied, stored back; then a store
        // to global memory. A key run needs the stores (each may begin a
        // global epoch) and what their addresses are computed from; the
        // mma writes registers only (taken to write global memory, it put
        // a full-size dmma GEMM's 2,048 a tile in every key run: 3.5 ms
        // a key run became 55).
        let (s, names) = slice_and_names(
            "mov.u32 %r1, %ctaid.x;\nld.param.u32 %r2, [n];\nsetp.ge.u32 %p1, %r1, %r2;\n\
             @%p1 bra DONE;\nmov.u64 %rd5, s;\ncvta.shared.u64 %rd6, %rd5;\n\
             wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd1}, [%rd6], 4;\n\
             wmma.load.b.sync.aligned.col.m8n8k4.f64 {%fd2}, [%rd6+256], 4;\n\
             wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd3, %fd4}, {%fd1}, {%fd2}, {%fd5, %fd6};\n\
             wmma.store.d.sync.aligned.row.m8n8k4.f64 [%rd6+512], {%fd3, %fd4}, 8;\n\
             ld.param.u64 %rd1, [g];\n\
             wmma.store.d.sync.aligned.row.m8n8k4.global.f64 [%rd1], {%fd3, %fd4}, 8;\nDONE:",
        );
        let s = s.unwrap();
        let run: Vec<&str> = (0..names.len() as u32)
            .filter(|&pc| s.role(0, pc).run)
            .map(|pc| names[pc as usize].as_str())
            .collect();
        assert_eq!(
            run,
            [
                "mov.u32",
                "ld.param.u32",
                "setp.ge.u32",
                "bra",
                "mov.u64",
                "cvta.shared.u64",
                "wmma.store.d.sync.aligned.row.m8n8k4.f64",
                "wmma.store.d.sync.aligned.row.m8n8k4.global.f64",
                "ret"
            ]
        );
    }

    #[test]
    fn a_tile_copied_from_a_block_dependent_address_keys_by_its_numbers() {
        // s[tid] = g[ctaid.x * 32 + tid]: the load is numbered, its address
        // not in the key, nothing recorded; the load and its address run.
        let s = slice_of(
            "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nshl.b32 %r3, %r1, 5;\n\
             add.s32 %r4, %r3, %r2;\nld.param.u64 %rd1, [g];\nmul.wide.u32 %rd2, %r4, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r8, [%rd3];\n\
             mov.u32 %r5, s;\nshl.b32 %r6, %r2, 2;\nadd.s32 %r7, %r5, %r6;\n\
             st.shared.u32 [%r7], %r8;",
        )
        .unwrap();
        assert_eq!(s.records(), 0);
        let numbered: Vec<u32> = (0..20).filter(|&pc| s.role(0, pc).numbers).collect();
        assert_eq!(numbered.len(), 1);
        // The address (7 instructions with the load), the load and the
        // return run;
        // the shared address and the store do not.
        assert!(s.role(0, numbered[0]).run);
        assert!(!s.role(0, numbered[0] + 4).run);
        assert_eq!(s.runs(), 9);
    }

    #[test]
    fn a_branch_on_the_block_index_is_recorded_and_its_predicate_computed() {
        let s = slice_of(
            "mov.u32 %r1, %ctaid.x;\nld.param.u32 %r2, [n];\nsetp.ge.u32 %p1, %r1, %r2;\n\
             @%p1 bra DONE;\nmov.u32 %r3, %tid.x;\nshl.b32 %r4, %r3, 2;\n\
             mov.u32 %r5, s;\nadd.s32 %r6, %r5, %r4;\nst.shared.u32 [%r6], %r3;\nDONE:",
        )
        .unwrap();
        // The branch's guard, whole.
        assert_eq!(s.records(), 1);
        assert!(matches!(
            s.role(0, 3).record.as_slice(),
            [(Src::Reg(_), u64::MAX)]
        ));
        assert!((0..4).all(|pc| s.role(0, pc).run));
        // The shared store's side is not run.
        assert!((4..9).all(|pc| !s.role(0, pc).run));
    }

    #[test]
    fn a_value_from_shared_memory_that_decides_a_branch_leaves_no_slice() {
        assert!(slice_of(
            "mov.u32 %r1, %ctaid.x;\nst.shared.u32 [s], %r1;\nbar.sync 0;\n\
             ld.shared.u32 %r2, [s];\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra DONE;\n\
             st.shared.u32 [s+4], 1;\nDONE:",
        )
        .is_none());
        // An mbarrier: none either.
        assert!(slice_of("mbarrier.init.shared.b64 [s], 32;").is_none());
    }
}
