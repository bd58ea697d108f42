//! mbarriers, bulk and tensor (TMA) copies and distributed shared memory:
//! the asynchronous side of sm_90 kernels, run by the interpreter.
//!
//! An mbarrier (PTX ISA, mbarrier) is a 64-bit object in shared memory: an
//! expected arrival count, the arrivals pending in the current phase, a
//! transaction count and the phase. A phase completes when no arrival is
//! pending and the transaction count is 0; the next phase then starts with
//! the expected count pending. The interpreter keeps each mbarrier's state
//! apart from the bytes (whose encoding the hardware does not document: the
//! bytes become unknown) and gives the consumer what happens to it
//! ([`Event::Mbarrier`]).
//!
//! A wait (`test_wait`, `try_wait`) on a phase that has not completed blocks
//! the warp until it has, and is then run again: a spin loop
//! (`@!p bra wait;`) sees the phase complete at its first try. (A
//! modelling choice: a non-blocking `test_wait` is the same, the schedule
//! the model follows being one where it is tried once the phase is done.)
//! When every warp waits and none can go on, a waiting warp is answered
//! "incomplete" once ([`MbarrierOp::NeverCompletes`]); a warp that then
//! waits for the same phase again would hang on the GPU and is ended.
//!
//! A bulk copy into shared memory (`cp.async.bulk`, `cp.async.bulk.tensor`)
//! writes its bytes through the async proxy and completes them on its
//! mbarrier's transaction count: the model takes it as complete when
//! issued (the bytes are unknown: they come from global memory), and says so
//! to the consumer ([`Event::BulkCopy`]) with the phase it completes on. A
//! tensor copy's bytes are those of its tensor map, given with the launch
//! ([`TensorMap`](super::super::super::TensorMap)); without one, the copy is
//! not modelled, and its mbarrier's transaction count is no longer followed
//! (its phases complete on arrivals alone).

use std::collections::BTreeSet;

use super::*;

/// One mbarrier's state.
#[derive(Debug, Clone, Copy)]
struct Mbar {
    expected: u32,
    pending: u32,
    tx: i64,
    phase: u32,
    /// A copy of unknown size completed on it: the transaction count is
    /// not followed any more.
    unknown_tx: bool,
}

impl Mbar {
    /// Completes the phase if nothing is pending.
    fn settle(&mut self) {
        if self.pending == 0 && (self.tx == 0 || self.unknown_tx) {
            self.phase = self.phase.wrapping_add(1);
            self.pending = self.expected;
            self.tx = 0;
        }
    }
}

/// The mbarriers of a block, by shared offset.
#[derive(Debug, Default)]
pub(super) struct Mbarriers {
    map: BTreeMap<u32, Mbar>,
    /// Threads (by index in the block) with a `cp.async.mbarrier.arrive`
    /// without `.noinc` on an mbarrier they have not waited on since.
    inc: BTreeSet<(u32, u32)>,
    /// Per warp and mbarrier, the last phase a wait of the warp observed.
    seen: BTreeMap<(u32, u32), u32>,
    /// Threads already reported for an arrival after one (synccheck
    /// reports it once per thread: 8,192 "Missing wait" for the 32
    /// producer threads of each of 256 blocks of `cuda::pipeline`'s
    /// shared-state matmul, tests/data/ncu/hopper/globalToShmemAsyncCopy).
    reported: BTreeSet<u32>,
}

impl Mbarriers {
    /// Whether phase `phase` of the mbarrier at `bar` has completed (or the
    /// mbarrier is gone: nothing is left to wait for).
    pub(super) fn done(&self, bar: u32, phase: u32) -> bool {
        self.map.get(&bar).is_none_or(|m| m.phase > phase)
    }
}

/// What running an asynchronous instruction came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    /// Go on.
    Next,
    /// The warp waits (its state says for what); the instruction runs again
    /// when it is woken.
    Block,
}

/// The shared offsets of a memory operand in every executing lane, or
/// `None` (an unmodelled event given) where they are not all known shared
/// addresses of this block.
#[allow(clippy::too_many_arguments)]
fn offsets<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &Warp,
    space: Space,
    addr: &Addr,
    mask: u32,
    (site, name, here): (Site, &str, (u32, u32)),
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<Option<[u32; 32]>, Error> {
    let a = addresses(warp, ctx, addr);
    match shared_target(space, &a, mask, 0, here, notes) {
        Target::Shared(offsets) => Ok(Some(offsets)),
        _ => {
            unmodelled(consumer, warp.id, site, name, mask)?;
            Ok(None)
        }
    }
}

/// The lane's value of `src`, if known (`absent` for an operand not given).
fn value(warp: &Warp, ctx: &Ctx<'_>, src: Src, lane: usize, absent: u64) -> Option<u64> {
    if src == Src::Imm(u64::MAX) {
        return Some(absent);
    }
    warp.read(ctx, src).get(lane).bits()
}

/// Forgets shared bytes `start..start + len` (bulk copies bring unknown data).
fn forget_range(shared: &mut Shared, start: u32, len: u32) {
    let end = u64::from(start) + u64::from(len);
    let mut at = u64::from(start);
    while at < end {
        let n = (end - at).min(8) as u32;
        shared.forget(at, n);
        at += u64::from(n);
    }
}

fn mbar_event<C: Consumer + ?Sized>(
    consumer: &mut C,
    warp: u32,
    site: Site,
    lanes: u32,
    barrier: u32,
    op: MbarrierOp,
) -> Result<(), Error> {
    consumer.event(
        warp,
        &Event::Mbarrier {
            site,
            lanes: LaneSet::from_bits(lanes),
            barrier,
            op,
        },
    )
}

/// [`mbar_event`] for one lane.
fn lane_event<C: Consumer + ?Sized>(
    consumer: &mut C,
    (wid, site): (u32, Site),
    lane: usize,
    barrier: u32,
    op: MbarrierOp,
) -> Result<(), Error> {
    mbar_event(consumer, wid, site, 1 << lane, barrier, op)
}

/// The mbarrier at `bar`, or `None` with the lane's access told to the
/// consumer as one of a barrier never initialised (synccheck's "Missing
/// init").
fn mbar_at<'s, C: Consumer + ?Sized>(
    mbars: &'s mut Mbarriers,
    bar: u32,
    (wid, site): (u32, Site),
    lane: usize,
    consumer: &mut C,
) -> Result<Option<&'s mut Mbar>, Error> {
    match mbars.map.get_mut(&bar) {
        Some(m) => Ok(Some(m)),
        None => {
            lane_event(consumer, (wid, site), lane, bar, MbarrierOp::Uninitialised)?;
            Ok(None)
        }
    }
}

/// A lane's operands of an mbarrier instruction `op`: its arrival count
/// (`init`'s and `arrive`'s `a`, `arrive.expect_tx`'s `b`; 1 where not
/// given) and its transaction bytes (`arrive.expect_tx`'s, `expect_tx`'s
/// and `complete_tx`'s `a`; 0 where not given). `None`, the lane told to the
/// consumer as not modelled, where one is not known.
fn lane_operands<C: Consumer + ?Sized>(
    warp: &Warp,
    ctx: &Ctx<'_>,
    (op, a, b): (MbarOp, Src, Src),
    lane: usize,
    (site, name): (Site, &str),
    consumer: &mut C,
) -> Result<Option<(u64, u64)>, Error> {
    let (count, tx) = match op {
        MbarOp::Init
        | MbarOp::Arrive {
            expect_tx: false, ..
        } => (value(warp, ctx, a, lane, 1), Some(0)),
        MbarOp::Arrive {
            expect_tx: true, ..
        } => (value(warp, ctx, b, lane, 1), value(warp, ctx, a, lane, 0)),
        MbarOp::ExpectTx | MbarOp::CompleteTx => (Some(1), value(warp, ctx, a, lane, 0)),
        MbarOp::Wait { .. } | MbarOp::Inval => (Some(1), Some(0)),
    };
    match (count, tx) {
        (Some(count), Some(tx)) => Ok(Some((count, tx))),
        _ => {
            unmodelled(consumer, warp.id, site, name, 1 << lane)?;
            Ok(None)
        }
    }
}

/// Runs an `mbarrier`, bulk-copy, `mapa` or `cp.async.mbarrier.arrive`
/// instruction for the lanes `mask`.
#[allow(clippy::too_many_arguments, clippy::too_many_lines)]
pub(super) fn run<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    shared: &mut Shared,
    inst: &Inst,
    mask: u32,
    (site, name, here): (Site, &str, (u32, u32)),
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<Flow, Error> {
    let wid = warp.id;
    let at = (site, name, here);
    match &inst.kind {
        Kind::Mapa {
            generic,
            d,
            a,
            rank,
        } => {
            let av = warp.read_owned(ctx, *a);
            let rv = warp.read_owned(ctx, *rank);
            let own = ctx.cluster_rank();
            let mut out = Lanes::UNKNOWN;
            for lane in lanes_of(mask & av.known() & rv.known()) {
                let (x, r) = (av.v[lane], rv.v[lane]);
                let mapped = if r == u64::from(own) {
                    Some(x)
                } else if *generic {
                    let rel = x.wrapping_sub(SHARED_WINDOW_BASE);
                    u32::try_from(rel)
                        .ok()
                        .map(|o| CLUSTER_WINDOW_BASE + (r << 32) + u64::from(o))
                } else {
                    u32::try_from(x)
                        .ok()
                        .filter(|&o| o >> CLUSTER_RANK_SHIFT == 0 && r < 255)
                        .map(|o| u64::from(o) | ((r + 1) << CLUSTER_RANK_SHIFT))
                };
                if let Some(m) = mapped {
                    out.v[lane] = m;
                    out.k |= 1 << lane;
                }
            }
            warp.write(*d, &out, mask);
            warp.forget(*d, mask & !out.k);
            Ok(Flow::Next)
        }
        Kind::CpAsyncArrive { bar, noinc } => {
            consumer.event(
                wid,
                &Event::CpAsyncArrive {
                    site,
                    lanes: LaneSet::from_bits(mask),
                },
            )?;
            let Some(bar) = bar else {
                return Ok(Flow::Next);
            };
            if mask == 0 {
                return Ok(Flow::Next);
            }
            let Some(offs) = offsets(ctx, warp, Space::Shared, bar, mask, at, consumer, notes)?
            else {
                return Ok(Flow::Next);
            };
            // Without .noinc the pending count is raised by one and the
            // arrival takes it back: the phase waits for the copies, and the
            // count is unchanged.
            let count = u32::from(*noinc);
            if !*noinc {
                for lane in lanes_of(mask) {
                    shared
                        .mbars
                        .inc
                        .insert((32 * wid + lane as u32, offs[lane]));
                }
            }
            arrive_lanes(
                shared,
                &offs,
                mask,
                (count, 0, false),
                (wid, site),
                consumer,
            )?;
            Ok(Flow::Next)
        }
        Kind::Mbar {
            op,
            space,
            bar,
            d,
            a,
            b,
        } => {
            if mask == 0 {
                return Ok(Flow::Next);
            }
            let Some(offs) = offsets(ctx, warp, *space, bar, mask, at, consumer, notes)? else {
                if let Some(d) = d {
                    warp.forget(*d, mask);
                }
                return Ok(Flow::Next);
            };
            let who = (wid, site);
            let operands = (*op, *a, *b);
            match op {
                MbarOp::Init => {
                    for lane in lanes_of(mask) {
                        let Some((count, _)) =
                            lane_operands(warp, ctx, operands, lane, (site, name), consumer)?
                        else {
                            continue;
                        };
                        let count = count as u32;
                        shared.mbars.map.insert(
                            offs[lane],
                            Mbar {
                                expected: count,
                                pending: count,
                                tx: 0,
                                phase: 0,
                                unknown_tx: false,
                            },
                        );
                        forget_range(shared, offs[lane], 8);
                        lane_event(consumer, who, lane, offs[lane], MbarrierOp::Init { count })?;
                    }
                    Ok(Flow::Next)
                }
                MbarOp::Inval => {
                    for lane in lanes_of(mask) {
                        shared.mbars.map.remove(&offs[lane]);
                        lane_event(consumer, who, lane, offs[lane], MbarrierOp::Inval)?;
                    }
                    Ok(Flow::Next)
                }
                MbarOp::Arrive { drop, .. } => {
                    let mut states = Lanes::UNKNOWN;
                    for lane in lanes_of(mask) {
                        let Some((count, tx)) =
                            lane_operands(warp, ctx, operands, lane, (site, name), consumer)?
                        else {
                            continue;
                        };
                        let thread = 32 * wid + lane as u32;
                        if shared.mbars.inc.contains(&(thread, offs[lane]))
                            && shared.mbars.reported.insert(thread)
                        {
                            lane_event(consumer, who, lane, offs[lane], MbarrierOp::MissingWait)?;
                        }
                        let mut one = [0u32; 32];
                        one[lane] = offs[lane];
                        let phase = arrive_lanes(
                            shared,
                            &one,
                            1 << lane,
                            (count as u32, tx as u32, *drop),
                            (wid, site),
                            consumer,
                        )?;
                        if let Some(p) = phase {
                            // The state a later test_wait takes: the phase
                            // arrived on (the hardware's encoding is opaque).
                            states.v[lane] = u64::from(p);
                            states.k |= 1 << lane;
                        }
                    }
                    if let Some(d) = d {
                        warp.write(*d, &states, mask);
                        warp.forget(*d, mask & !states.k);
                    }
                    Ok(Flow::Next)
                }
                MbarOp::ExpectTx | MbarOp::CompleteTx => {
                    for lane in lanes_of(mask) {
                        let Some((_, tx)) =
                            lane_operands(warp, ctx, operands, lane, (site, name), consumer)?
                        else {
                            continue;
                        };
                        let Some(m) = mbar_at(&mut shared.mbars, offs[lane], who, lane, consumer)?
                        else {
                            continue;
                        };
                        // PTX's transaction counts are .u32.
                        let tx = i64::from(tx as u32);
                        if *op == MbarOp::ExpectTx {
                            m.tx += tx;
                        } else {
                            // A thread completing transactions releases
                            // what it did before, as an arrival would.
                            let phase = m.phase;
                            m.tx -= tx;
                            m.settle();
                            let op = MbarrierOp::Arrive {
                                phase,
                                count: 0,
                                tx: 0,
                            };
                            lane_event(consumer, who, lane, offs[lane], op)?;
                        }
                    }
                    Ok(Flow::Next)
                }
                MbarOp::Wait { parity } => wait(
                    ctx, warp, shared, &offs, mask, *parity, *a, *d, at, consumer, notes,
                ),
            }
        }
        Kind::Bulk(kind) => bulk(ctx, warp, shared, kind, mask, at, consumer, notes),
        _ => Ok(Flow::Next),
    }
}

/// The lanes `mask` arrive on the mbarriers at `offs`, `count` times each,
/// expecting `tx` bytes (lowering the expected count with `drop`); gives
/// the phase the last lane arrived on.
fn arrive_lanes<C: Consumer + ?Sized>(
    shared: &mut Shared,
    offs: &[u32; 32],
    mask: u32,
    (count, tx, drop): (u32, u32, bool),
    (wid, site): (u32, Site),
    consumer: &mut C,
) -> Result<Option<u32>, Error> {
    let mut last = None;
    // Lanes that arrive alike are one event.
    let mut group: Option<(u32, MbarrierOp, u32)> = None;
    for lane in lanes_of(mask) {
        let bar = offs[lane];
        let Some(m) = mbar_at(&mut shared.mbars, bar, (wid, site), lane, consumer)? else {
            continue;
        };
        let phase = m.phase;
        m.tx += i64::from(tx);
        let over = count > m.pending;
        m.pending = m.pending.saturating_sub(count);
        if drop {
            m.expected = m.expected.saturating_sub(count);
        }
        m.settle();
        let op = MbarrierOp::Arrive { phase, count, tx };
        match &mut group {
            Some((b, o, lanes)) if (*b, *o) == (bar, op) => *lanes |= 1 << lane,
            _ => {
                if let Some((b, o, lanes)) = group.take() {
                    mbar_event(consumer, wid, site, lanes, b, o)?;
                }
                group = Some((bar, op, 1 << lane));
            }
        }
        if over {
            if let Some((b, o, lanes)) = group.take() {
                mbar_event(consumer, wid, site, lanes, b, o)?;
            }
            mbar_event(
                consumer,
                wid,
                site,
                1 << lane,
                bar,
                MbarrierOp::Overflow { phase },
            )?;
        }
        last = Some(phase);
    }
    if let Some((b, o, lanes)) = group {
        mbar_event(consumer, wid, site, lanes, b, o)?;
    }
    Ok(last)
}

/// `test_wait` / `try_wait`: blocks the warp until every lane's phase has
/// completed, then writes true and tells the consumer which phase each lane
/// observed.
#[allow(clippy::too_many_arguments)]
fn wait<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    shared: &mut Shared,
    offs: &[u32; 32],
    mask: u32,
    parity: bool,
    a: Src,
    d: Option<Reg>,
    (site, name, here): (Site, &str, (u32, u32)),
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<Flow, Error> {
    let wid = warp.id;
    // Per lane: the phase it waits for and whether it has completed.
    let mut waits: Vec<(usize, u32, u32, bool)> = Vec::new();
    let mut unknown = 0u32;
    for lane in lanes_of(mask) {
        let bar = offs[lane];
        // synccheck reports a missing init at the arrivals, not the waits
        // (tests/data/ptx/mbarrier_sanitizer: no_init).
        let Some(m) = shared.mbars.map.get(&bar) else {
            unknown |= 1 << lane;
            continue;
        };
        let Some(x) = value(warp, ctx, a, lane, 0) else {
            unknown |= 1 << lane;
            continue;
        };
        // .parity: complete when the current phase's parity is the other
        // one (measured, parity_semantics: a wait for parity 1 while phase
        // 0 is pending is complete at once). The phase it orders after is
        // the earliest it may have seen: the first completed phase of that
        // parity after the last one the warp observed, so that a waiter
        // the schedule let fall phases behind is still ordered only after
        // what it could have seen (a producer running ahead of its
        // consumers races with them in some order of the warps).
        // A state: the phase it was taken in.
        let (phase, done) = if parity {
            let p = (x & 1) as u32;
            if p == m.phase & 1 {
                (m.phase, false)
            } else {
                let after = shared
                    .mbars
                    .seen
                    .get(&(wid, bar))
                    .map_or(0, |&s| s.wrapping_add(1));
                let first = after.wrapping_add(u32::from(after % 2 != p));
                (first.min(m.phase.wrapping_sub(1)), true)
            }
        } else {
            let p = x as u32;
            (p, m.phase > p)
        };
        waits.push((lane, bar, phase, done));
    }
    if unknown != 0 {
        unmodelled(consumer, wid, site, name, unknown)?;
    }
    let pending = waits.iter().find(|w| !w.3).copied();
    if let Some((_, bar, phase, _)) = pending {
        match warp.forced {
            Some((b, p, false)) if (b, p) == (bar, phase) => {
                warp.forced = Some((b, p, true));
                note(notes, here.0, here.1, NoteKind::MbarrierHang);
            }
            _ => {
                warp.state = State::MbarWait { bar, phase };
                return Ok(Flow::Block);
            }
        }
    } else {
        warp.forced = None;
    }
    for &(lane, bar, phase, done) in &waits {
        if done {
            shared.mbars.inc.remove(&(32 * wid + lane as u32, bar));
            shared.mbars.seen.insert((wid, bar), phase);
        }
    }
    let mut result = Lanes::UNKNOWN;
    // Lanes that observed alike are one event (a whole warp's wait orders
    // its lanes too: SyncOp::MbarrierWait).
    let mut groups: Vec<(u32, MbarrierOp, u32)> = Vec::new();
    for &(lane, bar, phase, done) in &waits {
        result.v[lane] = u64::from(done);
        result.k |= 1 << lane;
        let op = if done {
            MbarrierOp::Wait { phase }
        } else {
            MbarrierOp::NeverCompletes { phase }
        };
        match groups.iter_mut().find(|g| (g.0, g.1) == (bar, op)) {
            Some(g) => g.2 |= 1 << lane,
            None => groups.push((bar, op, 1 << lane)),
        }
    }
    for (bar, op, lanes) in groups {
        mbar_event(consumer, wid, site, lanes, bar, op)?;
    }
    if let Some(d) = d {
        warp.write(d, &result, mask);
        warp.forget(d, mask & !result.k);
    }
    Ok(Flow::Next)
}

/// The kernel parameter a tensor map operand points at, by its offset in
/// param memory: a generic address in the param window (`cvta.param`) or a
/// param symbol's own address.
fn map_param(v: u64) -> Option<u32> {
    if let Ok(o) = u32::try_from(v.wrapping_sub(PARAM_WINDOW_BASE)) {
        return Some(o);
    }
    u32::try_from(v).ok().filter(|&o| o < 1 << 16)
}

/// A bulk or tensor copy.
#[allow(clippy::too_many_arguments, clippy::too_many_lines)]
fn bulk<C: Consumer + ?Sized>(
    ctx: &Ctx<'_>,
    warp: &mut Warp,
    shared: &mut Shared,
    kind: &BulkKind,
    mask: u32,
    at: (Site, &str, (u32, u32)),
    consumer: &mut C,
    notes: &mut Notes,
) -> Result<Flow, Error> {
    let (site, name, here) = at;
    let wid = warp.id;
    if mask == 0 {
        return Ok(Flow::Next);
    }
    let (addr, bar, write) = match kind {
        BulkKind::Load { dst, bar, .. } | BulkKind::TensorLoad { dst, bar, .. } => {
            (dst, Some(bar), true)
        }
        BulkKind::Store { src, .. } | BulkKind::TensorStore { src, .. } => (src, None, false),
    };
    let Some(offs) = offsets(
        ctx,
        warp,
        Space::SharedCluster,
        addr,
        mask,
        at,
        consumer,
        notes,
    )?
    else {
        return Ok(Flow::Next);
    };
    let bar_offs = match bar {
        Some(b) => {
            let Some(o) = offsets(ctx, warp, Space::Shared, b, mask, at, consumer, notes)? else {
                return Ok(Flow::Next);
            };
            Some(o)
        }
        None => None,
    };
    for lane in lanes_of(mask) {
        let start = offs[lane];
        // The bytes: a 1-D copy's size, or the tensor map's box.
        let runs: Option<Vec<(u32, u32)>> = match kind {
            BulkKind::Load { size, .. } | BulkKind::Store { size, .. } => {
                value(warp, ctx, *size, lane, 0).map(|n| vec![(start, n as u32)])
            }
            BulkKind::TensorLoad { map, .. } | BulkKind::TensorStore { map, .. } => warp
                .read(ctx, *map)
                .get(lane)
                .bits()
                .and_then(map_param)
                .and_then(|offset| ctx.tensor_map(offset))
                .map(|m| m.shared_runs(start)),
        };
        // Bytes past the block's shared memory: an access the GPU faults on,
        // not followed.
        let runs = runs.filter(|runs| {
            runs.iter()
                .all(|&(s, l)| u64::from(s) + u64::from(l) <= ctx.shared_end)
        });
        let Some(runs) = runs else {
            unmodelled(consumer, wid, site, name, 1 << lane)?;
            note(notes, here.0, here.1, NoteKind::NoTensorMap);
            if let Some(bars) = bar_offs {
                // Its size is unknown: its mbarrier's transactions are no
                // longer followed, so that its phases still complete.
                if let Some(m) = shared.mbars.map.get_mut(&bars[lane]) {
                    m.unknown_tx = true;
                    m.settle();
                }
            }
            continue;
        };
        if write {
            for &(s, l) in &runs {
                forget_range(shared, s, l);
            }
        }
        let bytes: u32 = runs.iter().map(|r| r.1).sum();
        // The phase its last byte completes in: bytes past what the phase
        // expects go on to the next phase (measured, expect_tx_over: 512
        // bytes on a phase expecting 256 complete it, the next phase never
        // completes, and reads after the first wait race with the copy).
        let mut barrier = None;
        if let Some(bars) = bar_offs {
            let b = bars[lane];
            if let Some(m) = mbar_at(&mut shared.mbars, b, (wid, site), lane, consumer)? {
                let bytes = i64::from(bytes);
                let first = if m.pending == 0 && m.tx > 0 {
                    bytes.min(m.tx)
                } else {
                    bytes
                };
                let phase = m.phase;
                m.tx -= first;
                m.settle();
                let carried = m.phase != phase && bytes > first;
                if carried {
                    m.tx -= bytes - first;
                }
                barrier = Some((b, phase.wrapping_add(u32::from(carried))));
            }
        }
        consumer.event(
            wid,
            &Event::BulkCopy {
                site,
                lanes: LaneSet::from_bits(1 << lane),
                runs: &runs,
                write,
                barrier,
                name,
            },
        )?;
    }
    Ok(Flow::Next)
}
