//! nvcc's compare-and-swap loop for the shared atomics sm_90 lacks in
//! hardware (tests/data/hw-corpus/sm90-atomics.jsonl, measured on sm_90 for `add.f32` and
//! 64-bit `add`; the other emulated kinds follow the same rule as a modelling
//! choice, see [`Op::is_cas_loop`](crate::Op::is_cas_loop)).
//!
//! Each round, the lanes still pending load their word (an ordinary load of
//! those lanes, under the capability's load rules) and try an
//! `ATOMS.CAST.SPIN`. In each phase (the warp at 4 bytes, half-warps at 8) the
//! lowest pending lane of each bank group tries; a try fails when a lane of an
//! earlier phase that succeeded this round has the same address. Each phase
//! with pending lanes costs 2 ATOMS wavefronts. Rounds are the ATOMS
//! instructions executed. The lowest pending lane always succeeds, so a warp
//! needs at most 32 rounds.
//!
//! A leaf: the caller gives the loads' cost, and it calls nothing above.

use super::types::{Sink, Totals};
use crate::lane::WARP_SIZE;
use crate::{BankConfig, LaneSet, Op, WarpRequest};

/// ATOMS wavefronts of one phase's try (measured on sm_90).
const TRY_WAVEFRONTS: u32 = 2;

/// The loop's totals: `wavefronts` are the ATOMS wavefronts, `loads` the LDS
/// wavefronts, `rounds` the ATOMS instructions; each try is reported to `sink`
/// as two steps serving the phase's pending lanes. `load_wavefronts` gives the
/// wavefronts of a load request under `config`.
pub(super) fn run<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    sink: &mut S,
    mut load_wavefronts: impl FnMut(&WarpRequest) -> u32,
) -> Totals {
    let width = request.width();
    let addresses = request.raw_addresses();
    let phase_lanes = config.phase_lanes(request.op(), width);
    let key_bytes = width.bytes().max(config.bank_width().bytes());
    let groups = config.bank_count() * config.bank_width().bytes() / key_bytes;
    let group = |lane: usize| (addresses[lane] / key_bytes) % groups;
    let mut pending = request.active().bits();
    let mut totals = Totals {
        rounds: 0,
        ..Totals::ZERO
    };
    while pending != 0 {
        let round = totals.rounds;
        if S::STEPS {
            sink.round(round as u8);
        }
        // The loads of the pending lanes.
        let load = WarpRequest::from_raw(Op::Load, width, LaneSet::from_bits(pending), addresses);
        totals.loads += load_wavefronts(&load);
        // The tries, phase by phase.
        let mut succeeded = 0u32;
        let mut phases_tried = 0;
        for phase in 0..WARP_SIZE as u32 / phase_lanes {
            let lanes = LaneSet::range(phase * phase_lanes, (phase + 1) * phase_lanes).bits();
            let trying = pending & lanes;
            if trying == 0 {
                continue;
            }
            phases_tried += 1;
            if S::STEPS {
                for _ in 0..TRY_WAVEFRONTS {
                    sink.step(phase as u8, 0, LaneSet::from_bits(trying));
                }
            }
            let mut taken = 0u64;
            let mut rest = trying;
            while rest != 0 {
                let lane = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let bit = 1u64 << group(lane);
                if taken & bit != 0 {
                    continue;
                }
                taken |= bit;
                // Fails when an earlier phase's winner wrote the same address.
                let mut earlier = succeeded;
                let mut clash = false;
                while earlier != 0 {
                    let other = earlier.trailing_zeros() as usize;
                    earlier &= earlier - 1;
                    clash |= addresses[other] == addresses[lane];
                }
                if !clash {
                    succeeded |= 1 << lane;
                }
            }
        }
        if round == 0 {
            totals.ideal = TRY_WAVEFRONTS * phases_tried;
        }
        totals.wavefronts += TRY_WAVEFRONTS * phases_tried;
        totals.rounds += 1;
        pending &= !succeeded;
    }
    totals.ways = totals.rounds;
    totals
}

/// ATOMS wavefronts of one round (one `ATOMS.CAST.SPIN`) whose pending lanes
/// are `request`'s active lanes: [`TRY_WAVEFRONTS`] for each phase with a
/// pending lane, as [`run`] counts each round.
pub(super) fn try_wavefronts(config: BankConfig, request: &WarpRequest) -> u32 {
    let phase_lanes = config.phase_lanes(request.op(), request.width());
    let pending = request.active().bits();
    let phases_tried = (0..WARP_SIZE as u32 / phase_lanes)
        .filter(|&phase| {
            pending & LaneSet::range(phase * phase_lanes, (phase + 1) * phase_lanes).bits() != 0
        })
        .count() as u32;
    TRY_WAVEFRONTS * phases_tried
}
