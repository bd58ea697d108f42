//! Which blocks of a launch do the same thing: the components of the block
//! index (`%ctaid.x`, `.y`, `.z`) whose value can change what a block tells
//! its consumer.
//!
//! A block's run is a function of its index alone: the launch's arguments,
//! grid, block and dynamic shared size are the same for every block, global
//! memory is never read back as values (a global load is unknown, or a value
//! number of its address, [`number`](super::number)), and nothing one block
//! does is seen by another. So two blocks whose indices agree on every
//! component that can reach what the consumer sees run alike: the same
//! events in the same order, the same notes, the same steps, the same
//! errors. [`relevant`] finds those components by a taint analysis over
//! the lowered program, flow-insensitive over each function's registers
//! and over the `.param` and shared state spaces:
//!
//! - A value is tainted by the components of `%ctaid` (and `%clusterid`,
//!   the block index of a launch without clusters) it is computed from:
//!   through every instruction's operands, a guard's predicate into what the
//!   instruction writes, stores into the `.param` and shared spaces and
//!   loads from them, and a numbered global load's address into the number
//!   (two loads are equal exactly when their addresses are).
//! - What the consumer sees, the *sinks*: the address of every access that
//!   may touch shared memory (`.shared`, generic, `.const` whose addresses
//!   are events), the value of a store there (a store of what memory holds
//!   is an event of its own, [`Consumer::event_unchanged`]), the global
//!   address and source size of a `cp.async` (its global side is an event,
//!   [`Event::CpAsyncSource`]), the guard of
//!   every instruction that is an event, a branch, a call or a barrier, a
//!   barrier's id and count, `bar.warp.sync`'s mask, the counter that picks
//!   an unrolled loop's merge, and every operand of an instruction that
//!   numbers its result (the numbers a block hands out must not depend on a
//!   component left out). Where the kernel numbers global loads at all, the
//!   guard of whatever may write global memory is a sink too (it advances
//!   the numbering's epoch).
//!
//! A component that reaches no sink can only change values that reach none:
//! blocks that agree on the others run alike. A modelling choice on the safe
//! side: a component is kept whenever a path exists in the program, whether
//! or not it is ever taken (a grid-stride loop's bound keeps the component
//! that starts it, though most blocks run as many trips).

#[cfg(doc)]
use crate::kernel::{Consumer, Event};

use super::ir::{Addr, BarKind, Kind, Program, Space, Special, Src};
use super::number::Plan;

/// The components `x`, `y`, `z` of the block index, as bits 0, 1, 2 of a
/// mask.
pub(crate) type Components = u8;

/// The taint of a source operand, given the taints of its function's
/// registers.
fn of(regs: &[Components], s: &Src) -> Components {
    match *s {
        Src::Reg(r) => regs.get(r as usize).copied().unwrap_or(0),
        Src::Special(Special::Ctaid(d) | Special::ClusterId(d) | Special::ClusterCtaid(d)) => {
            1 << d.min(2)
        }
        // The rank in the cluster mixes every component.
        Src::Special(Special::ClusterCtarank) => 0b111,
        _ => 0,
    }
}

/// The components of the block index that can change what a block of
/// `program`'s entry tells its consumer (see the module docs).
pub(crate) fn relevant(program: &Program, plan: &Plan) -> Components {
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
    let mut regs: Vec<Vec<Components>> = program
        .functions
        .iter()
        .map(|f| vec![0; f.regs as usize])
        .collect();
    let (mut param, mut shared, mut sinks): (Components, Components, Components) = (0, 0, 0);
    loop {
        let before = (param, shared, sinks, regs.clone());
        for (f, func) in program.functions.iter().enumerate() {
            let r = &mut regs[f];
            for (pc, inst) in func.insts.iter().enumerate() {
                let guard = inst.guard.map_or(0, |(p, _)| of(r, &Src::Reg(p)));
                let addr = |a: &Addr| of(r, &a.base);
                let mut srcs: Components = 0;
                let mut writes: Vec<u32> = Vec::new();
                // What the destinations get beyond the operands.
                let mut extra: Components = 0;
                match &inst.kind {
                    Kind::Mov { d, a, .. }
                    | Kind::IntUn { d, a, .. }
                    | Kind::PredNot { d, a }
                    | Kind::Cvt { d, a, .. }
                    | Kind::CvtaWindow { d, a, .. }
                    | Kind::Redux { d, a, .. }
                    | Kind::Vote { d, a, .. } => {
                        srcs = of(r, a);
                        writes.push(*d);
                    }
                    Kind::Pack { d, parts, .. } => {
                        srcs = parts.iter().fold(0, |t, s| t | of(r, s));
                        writes.push(*d);
                    }
                    Kind::Unpack { ds, a, .. } => {
                        srcs = of(r, a);
                        writes.extend(ds.iter().flatten());
                    }
                    Kind::IntBin { d, a, b, .. }
                    | Kind::PredBin { d, a, b, .. }
                    | Kind::Set { d, a, b, .. } => {
                        srcs = of(r, a) | of(r, b);
                        writes.push(*d);
                    }
                    Kind::Mad { d, a, b, c, .. }
                    | Kind::Mad24 { d, a, b, c, .. }
                    | Kind::Bfe { d, a, b, c, .. }
                    | Kind::Prmt { d, a, b, c, .. }
                    | Kind::Lop3 { d, a, b, c, .. }
                    | Kind::Float { d, a, b, c, .. }
                    | Kind::Selp { d, a, b, c, .. } => {
                        srcs = of(r, a) | of(r, b) | of(r, c);
                        writes.push(*d);
                    }
                    Kind::Bfi { d, a, b, c, e, .. } => {
                        srcs = of(r, a) | of(r, b) | of(r, c) | of(r, e);
                        writes.push(*d);
                    }
                    Kind::Setp {
                        p,
                        q,
                        a,
                        b,
                        combine,
                        ..
                    } => {
                        srcs = of(r, a) | of(r, b) | combine.map_or(0, |(_, c, _)| of(r, &c));
                        writes.extend(p.iter().chain(q));
                    }
                    Kind::Shfl { d, p, a, b, c, .. } => {
                        srcs = of(r, a) | of(r, b) | of(r, c);
                        writes.push(*d);
                        writes.extend(p);
                    }
                    Kind::Activemask { d } => writes.push(*d),
                    Kind::Elect { d, p } => writes.extend(d.iter().chain(p)),
                    Kind::Opaque { ds, srcs: s, .. } => {
                        srcs = s.iter().flatten().fold(0, |t, s| t | of(r, s));
                        writes.extend(ds);
                        if numbered_loads {
                            sinks |= guard;
                        }
                    }
                    Kind::Unmodelled { ds } => {
                        sinks |= guard;
                        writes.extend(ds);
                    }
                    Kind::Ld {
                        space,
                        ds,
                        addr: a,
                        merge,
                        ..
                    } => {
                        writes.extend(ds.iter().flatten());
                        match space {
                            Space::Shared
                            | Space::SharedCluster
                            | Space::Generic
                            | Space::Const => {
                                sinks |= addr(a) | guard;
                                srcs = addr(a);
                                extra = shared;
                            }
                            Space::Param => {
                                srcs = addr(a);
                                extra = param;
                            }
                            // Unknown values, or numbers of their addresses
                            // (only where wanted: see below).
                            Space::Global | Space::Local => {}
                        }
                        if let super::ir::Merge::Loop { table } = merge {
                            if let Some(l) = func.loops.get(*table as usize) {
                                sinks |= of(r, &Src::Reg(l.counter));
                            }
                        }
                        if *space == Space::Global && plan.wants(f as u32, pc as u32) {
                            srcs = addr(a);
                        }
                    }
                    Kind::St {
                        space,
                        srcs: values,
                        addr: a,
                        merge,
                        ..
                    } => {
                        let v = values.iter().fold(0, |t, s| t | of(r, s));
                        match space {
                            Space::Shared | Space::SharedCluster | Space::Generic => {
                                sinks |= addr(a) | v | guard;
                                shared |= v;
                            }
                            Space::Param => param |= addr(a) | v | guard,
                            Space::Global | Space::Local | Space::Const => {
                                if numbered_loads {
                                    sinks |= guard;
                                }
                            }
                        }
                        if let super::ir::Merge::Loop { table } = merge {
                            if let Some(l) = func.loops.get(*table as usize) {
                                sinks |= of(r, &Src::Reg(l.counter));
                            }
                        }
                    }
                    Kind::Atom {
                        space,
                        d,
                        addr: a,
                        val,
                        ..
                    } => {
                        writes.extend(d);
                        match space {
                            Space::Global | Space::Local | Space::Const | Space::Param => {
                                if numbered_loads {
                                    sinks |= guard;
                                }
                            }
                            // A shared atomic's new value and old value are
                            // computed where known: its operand flows into
                            // shared memory and its result.
                            _ => {
                                sinks |= addr(a) | guard;
                                shared |= of(r, val) | addr(a) | guard;
                                srcs = of(r, val) | addr(a);
                                extra = shared;
                            }
                        }
                    }
                    Kind::LdMatrix { ds, addr: a, .. } => {
                        sinks |= addr(a) | guard;
                        srcs = addr(a);
                        extra = shared;
                        writes.extend(ds);
                    }
                    Kind::Wmma {
                        space,
                        ds,
                        addr: a,
                        stride,
                        ..
                    } => {
                        // Fragments are unknown after it, wherever it reads.
                        writes.extend(ds);
                        if matches!(
                            space,
                            Space::Shared | Space::SharedCluster | Space::Generic | Space::Const
                        ) {
                            sinks |= addr(a) | of(r, stride) | guard;
                        }
                    }
                    Kind::Wgmma { a, b, ds, .. } => {
                        // The descriptors are shared addresses.
                        sinks |= a.map_or(0, |a| of(r, &a)) | of(r, b) | guard;
                        writes.extend(ds);
                    }
                    Kind::StMatrix { addr: a, .. } => sinks |= addr(a) | guard,
                    // The global side is an event too (its addresses' banks,
                    // Event::CpAsyncSource), and how much it reads.
                    Kind::CpAsync {
                        dst, src, src_size, ..
                    } => {
                        sinks |= addr(dst) | addr(src) | src_size.map_or(0, |s| of(r, &s)) | guard;
                    }
                    Kind::Bar { kind, id, count } => {
                        let t = of(r, id) | count.map_or(0, |c| of(r, &c)) | guard;
                        sinks |= t;
                        if let BarKind::Red { dst, pred, .. } = kind {
                            srcs = t | of(r, pred);
                            writes.extend(dst);
                        }
                    }
                    Kind::BarWarp { mask } => sinks |= of(r, mask) | guard,
                    Kind::CpAsyncArrive { bar, .. } => {
                        sinks |= bar.as_ref().map_or(0, addr) | guard;
                    }
                    // What an mbarrier or a bulk copy does depends on its
                    // operands (the mbarrier, counts, parities, bytes, the
                    // map's parameter and coordinates, the destination), and
                    // its results can reach what the consumer sees.
                    Kind::Mbar { bar, d, a, b, .. } => {
                        let t = addr(bar) | of(r, a) | of(r, b) | guard;
                        sinks |= t;
                        srcs = t;
                        writes.extend(d);
                    }
                    Kind::Bulk(kind) => {
                        sinks |= guard
                            | match kind {
                                super::ir::BulkKind::Load { dst, size, bar } => {
                                    addr(dst) | of(r, size) | addr(bar)
                                }
                                super::ir::BulkKind::Store { src, size } => addr(src) | of(r, size),
                                super::ir::BulkKind::TensorLoad {
                                    dst,
                                    map,
                                    coords,
                                    bar,
                                } => {
                                    addr(dst)
                                        | of(r, map)
                                        | coords.iter().fold(0, |t, c| t | of(r, c))
                                        | addr(bar)
                                }
                                super::ir::BulkKind::TensorStore { src, map, coords } => {
                                    addr(src)
                                        | of(r, map)
                                        | coords.iter().fold(0, |t, c| t | of(r, c))
                                }
                            };
                    }
                    Kind::Mapa { d, a, rank, .. } => {
                        srcs = of(r, a) | of(r, rank);
                        writes.push(*d);
                    }
                    Kind::MatchAny { d, a, .. } => {
                        srcs = of(r, a);
                        writes.push(*d);
                    }
                    Kind::CpAsyncCommit
                    | Kind::CpAsyncWait { .. }
                    | Kind::WgmmaCommit
                    | Kind::WgmmaWait { .. }
                    | Kind::Fence
                    | Kind::Bra { .. }
                    | Kind::Call { .. }
                    | Kind::Ret
                    | Kind::Exit => sinks |= guard,
                    Kind::Nop => {}
                }
                // An instruction that numbers its result: every operand.
                if plan.wants(f as u32, pc as u32) {
                    sinks |= srcs | guard;
                }
                let t = srcs | guard | extra;
                for d in writes {
                    if let Some(slot) = r.get_mut(d as usize) {
                        *slot |= t;
                    }
                }
            }
        }
        if (param, shared, sinks, &regs) == (before.0, before.1, before.2, &before.3) {
            return sinks;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relevant_of(body: &str) -> Components {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 g, .param .u32 n)\n{{\n\
             .reg .b32 %r<20>;\n.reg .b64 %rd<20>;\n.reg .pred %p<8>;\n\
             .shared .align 4 .b8 s[4096];\n{body}\nret;\n}}\n"
        );
        let module = crate::kernel::ptx::parse(&text).unwrap();
        let program = super::super::lower::lower(&module, Some("k")).unwrap();
        let plan = Plan::new(&program);
        relevant(&program, &plan)
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
        assert_eq!(r, 0);
    }

    #[test]
    fn a_shared_address_a_branch_or_a_stored_value_keeps_its_component() {
        // The shared address depends on ctaid.y.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.y;\nmov.u32 %r5, s;\nshl.b32 %r6, %r1, 2;\n\
             add.s32 %r7, %r5, %r6;\nst.shared.u32 [%r7], 1;",
        );
        assert_eq!(r, 0b010);
        // A branch on ctaid.z.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.z;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra DONE;\n\
             st.shared.u32 [s], 1;\nDONE:",
        );
        assert_eq!(r, 0b100);
        // The value stored: ctaid.x.
        let r = relevant_of("mov.u32 %r1, %ctaid.x;\nst.shared.u32 [s], %r1;");
        assert_eq!(r, 0b001);
        // Through a guard into a value stored.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nsetp.eq.u32 %p1, %r1, 0;\nmov.u32 %r2, 0;\n\
             @%p1 mov.u32 %r2, 1;\nst.shared.u32 [s], %r2;",
        );
        assert_eq!(r, 0b001);
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
        assert_eq!(r, 0b001);
        // A global load of a block-dependent address that reaches only a
        // global store: unnumbered, irrelevant.
        let r = relevant_of(
            "mov.u32 %r1, %ctaid.x;\nld.param.u64 %rd1, [g];\nmul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r8, [%rd3];\n\
             st.global.u32 [%rd1], %r8;",
        );
        assert_eq!(r, 0);
    }

    #[test]
    fn param_memory_carries_the_taint() {
        let r = relevant_of(
            ".param .b32 t;\nmov.u32 %r1, %ctaid.y;\nst.param.b32 [t], %r1;\n\
             ld.param.b32 %r2, [t];\nst.shared.u32 [s], %r2;",
        );
        assert_eq!(r, 0b010);
    }
}
