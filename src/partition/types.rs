//! The types the partition modules share, and the one place a request's
//! path is picked. A leaf: it imports nothing from the modules that use it.
//!
//! The flow of a request (see `dispatch`): `Path::of` picks its path once;
//! the vectorised passes (`simd`) answer the common ones with the window
//! check folded in; everything else is validated once (`validate`) and runs
//! the path's scalar code (`schedule`, `cas_loop`), which never calls back up.

use crate::bank::Rules;
use crate::{AccessWidth, BankConfig, LaneSet, Op, WarpRequest};

/// The code that serves a request, picked by [`Path::of`] alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Path {
    /// Loads and stores of at most 4 bytes on 2.x and from 5.0 on: one phase
    /// of 32 lanes keyed by word (what simulators ask most): the closed form
    /// for evenly spaced full warps, the vectorised count and scheduler, the
    /// scalar scheduler.
    Word,
    /// Loads and stores of 8 and 16 bytes from 5.0 on, and `ldmatrix` /
    /// `stmatrix` rows: half- and quarter-warp phases keyed by double and quad
    /// word.
    Wide,
    /// The atomics nvcc emulates with a compare-and-swap loop
    /// ([`Op::is_cas_loop`]).
    CasLoop,
    /// Native atomics and reductions (`ATOMS`, not a compare-and-swap loop)
    /// and `cp.async`: every active lane is served on its own (lanes on one
    /// address are not merged), so a phase costs the most active lanes in
    /// one bank group. What the planner resolves for them on every
    /// capability (1.x included: those ops are one part), without it.
    Lanes,
    /// Everything else: the planner resolves the capability's rules.
    Planned,
}

impl Path {
    /// The path of `request` under `config`.
    #[inline(always)]
    pub(crate) fn of(config: BankConfig, request: &WarpRequest) -> Path {
        let width = request.width();
        match (request.op(), config.rules()) {
            (Op::Load | Op::Store, Rules::Fermi | Rules::Maxwell | Rules::Measured)
                if width <= AccessWidth::B4 =>
            {
                Path::Word
            }
            (Op::Load | Op::Store, Rules::Maxwell | Rules::Measured) => Path::Wide,
            // ldmatrix/stmatrix rows are 16-byte lanes in quarter-warp phases
            // (one matrix each), which never merge: the 16-byte path's rules.
            // Only where the capability has the op, so that the vectorised
            // count (which does not check the op) never answers for one it
            // lacks.
            (Op::LdMatrix(_), Rules::Measured) if config.capability().has_ldmatrix() => Path::Wide,
            (Op::StMatrix(_), Rules::Measured) if config.capability().has_stmatrix() => Path::Wide,
            (op, _) if op.is_cas_loop(width) => Path::CasLoop,
            (Op::Atomic(_) | Op::Reduction(_) | Op::CpAsync(_), _) if config.parts(width) == 1 => {
                Path::Lanes
            }
            _ => Path::Planned,
        }
    }
}

/// What the scheduler reports, step by step.
pub(crate) trait Sink {
    /// Whether the sink wants each step's lanes (the counting path does not).
    const STEPS: bool;
    /// One step of phase `phase` of part `part`, serving `lanes` (empty for the
    /// 2.x extra 128-bit step).
    fn step(&mut self, phase: u8, part: u8, lanes: LaneSet);
    /// The steps that follow belong to round `round` of a compare-and-swap
    /// loop (0 until called).
    #[inline]
    fn round(&mut self, round: u8) {
        let _ = round;
    }
}

/// Totals of a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    pub(crate) wavefronts: u32,
    pub(crate) ideal: u32,
    /// The most steps any phase took.
    pub(crate) ways: u32,
    /// LDS wavefronts of a compare-and-swap loop's loads (0 for other ops).
    pub(crate) loads: u32,
    /// Instructions executed: 1, or a compare-and-swap loop's rounds.
    pub(crate) rounds: u32,
}

impl Default for Totals {
    fn default() -> Totals {
        Totals::ZERO
    }
}

impl Totals {
    /// Nothing served, in one instruction.
    pub(crate) const ZERO: Totals = Totals {
        wavefronts: 0,
        ideal: 0,
        ways: 0,
        loads: 0,
        rounds: 1,
    };
}

/// Reports each step of the sink it wraps `times` times: `cas` serves each
/// step twice.
pub(crate) struct Repeat<'a, S>(pub(crate) &'a mut S, pub(crate) u32);

impl<S: Sink> Sink for Repeat<'_, S> {
    const STEPS: bool = S::STEPS;
    #[inline]
    fn step(&mut self, phase: u8, part: u8, lanes: LaneSet) {
        for _ in 0..self.1 {
            self.0.step(phase, part, lanes);
        }
    }
}

/// A sink that only counts.
pub(crate) struct Count;

impl Sink for Count {
    const STEPS: bool = false;
    #[inline]
    fn step(&mut self, _: u8, _: u8, _: LaneSet) {}
}

/// A request cut into phases and keyed by bank group, as the vectorised
/// schedulers take it: lane `l`'s key is `address >> key_shift`, its group
/// the key's low `group_bits` bits, its phase `l >> phase_bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Phases {
    pub(crate) key_shift: u32,
    pub(crate) group_bits: u32,
    pub(crate) phase_bits: u32,
    /// Lanes with one key are served together (loads and stores: the
    /// multicast rule); `false`: every lane on its own (atomics, `cp.async`).
    pub(crate) merge: bool,
    /// Each step is taken this many times (2 for `cas`).
    pub(crate) repeat: u32,
}

impl Phases {
    /// The phases of a request on [`Path::Lanes`]: what `Plan::new` resolves
    /// for an op that counts lanes (keys of the access's width or the bank's,
    /// whichever is wider; the capability's phases for the op; `cas` twice).
    /// The tests compare the two paths on every capability.
    #[inline]
    pub(crate) fn of_lanes(config: BankConfig, request: &WarpRequest) -> Phases {
        let (op, width) = (request.op(), request.width());
        let bank_bytes = config.bank_width().bytes();
        let key_shift = width.bytes().max(bank_bytes).trailing_zeros();
        let row_shift = (config.bank_count() * bank_bytes).trailing_zeros();
        Phases {
            key_shift,
            group_bits: row_shift - key_shift,
            phase_bits: config.phase_lanes(op, width).trailing_zeros(),
            merge: false,
            repeat: if matches!(op.atomic(), Some(crate::AtomicKind::Cas)) {
                2
            } else {
                1
            },
        }
    }
}
