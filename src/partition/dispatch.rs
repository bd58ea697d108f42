//! The one place a request is routed: its path picked once
//! ([`Path::of`]), the vectorised pass tried where it answers (validation
//! folded in), otherwise [`validate`] once and the path's scalar code. The
//! modules below (`schedule`, `simd`, `cas_loop`, `affine`, `validate`) never
//! call each other back up; what one needs of another (the vectorised phase
//! schedulers, the cost of a loop's loads) is passed in from here.

use super::types::{Count, Path, Phases, Sink, Totals};
use super::validate::validate;
use super::{cas_loop, schedule};
use crate::lane::WARP_SIZE;
use crate::{BankConfig, Error, WarpRequest};

/// The schedule of `request` under `config`, reported to `sink`, validated.
#[inline(always)]
pub(super) fn schedule<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    sink: &mut S,
) -> Result<Totals, Error> {
    let path = Path::of(config, request);
    // The word path checks the window as it schedules (nothing is reported
    // when it declines).
    #[cfg(target_arch = "x86_64")]
    if path == Path::Word {
        if let Some(totals) = super::simd::word_schedule(config, request, path, sink) {
            return Ok(totals);
        }
    } else if let Some(totals) = super::simd::phase_schedule(config, request, path, sink) {
        return Ok(totals);
    }
    validate(config, request)?;
    Ok(run(config, request, path, sink))
}

/// The totals of `request` under `config`, validated: the vectorised count
/// where it answers (the word, wide and lane-counting paths), else the long
/// way.
#[inline(always)]
pub(super) fn count(config: BankConfig, request: &WarpRequest) -> Result<Totals, Error> {
    let path = Path::of(config, request);
    #[cfg(target_arch = "x86_64")]
    if let Some(totals) = super::simd::count(config, request, path) {
        return Ok(totals);
    }
    count_checked(config, request, path)
}

/// [`count`] the long way; apart, so the word path's caller keeps a small frame.
#[inline(never)]
fn count_checked(config: BankConfig, request: &WarpRequest, path: Path) -> Result<Totals, Error> {
    validate(config, request)?;
    Ok(run(config, request, path, &mut Count))
}

/// The scalar code of `path` (the request already validated).
fn run<S: Sink>(config: BankConfig, request: &WarpRequest, path: Path, sink: &mut S) -> Totals {
    match path {
        Path::Word => schedule::word(request, sink),
        Path::Wide => schedule::wide(config, request, sink, vector_phases),
        Path::CasLoop => match cas_direct(config, request, sink) {
            Some(totals) => totals,
            None => cas_loop::run(config, request, sink, |load| {
                run(config, load, Path::of(config, load), &mut Count).wavefronts
            }),
        },
        Path::Lanes => schedule::lanes(config, request, sink, vector_phases),
        Path::Planned => schedule::planned(config, request, sink),
    }
}

/// [`cas_loop::direct`], compiled for AVX2 and POPCNT where the CPU has them.
#[inline(never)]
fn cas_direct<S: Sink>(config: BankConfig, request: &WarpRequest, sink: &mut S) -> Option<Totals> {
    #[cfg(target_arch = "x86_64")]
    if let Some(totals) =
        super::simd::with_avx2(|| cas_loop::direct(config, request, sink, key_classes))
    {
        return totals;
    }
    cas_loop::direct(config, request, sink, key_classes)
}

/// For each active lane, the first active lane with its key
/// (`address >> shift`): by the word count's duplicate marks where the CPU
/// has them (every key of an address in the window fits), else lane by lane.
fn key_classes(addresses: &[u32; WARP_SIZE], active: u32, shift: u32) -> cas_loop::Classes {
    let mut class: cas_loop::Classes = core::array::from_fn(|lane| lane as u8);
    #[cfg(target_arch = "x86_64")]
    if let Some((followers, first)) = super::simd::followers(addresses, active, shift) {
        let mut rest = followers;
        while rest != 0 {
            let lane = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            class[lane] = first[lane];
        }
        return class;
    }
    cas_loop::scalar_classes(&mut class, addresses, active, shift);
    class
}

/// The vectorised scheduler of phases keyed by bank group, where the CPU has it.
#[inline(always)]
fn vector_phases<S: Sink>(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    phases: Phases,
    sink: &mut S,
) -> Option<Totals> {
    #[cfg(target_arch = "x86_64")]
    return if phases.merge && phases.phase_bits == 3 && phases.group_bits == 3 {
        // Unmerged quarter-warps keyed by quad word have their own.
        super::simd::quarter_warps(addresses, active, sink)
    } else {
        super::simd::phases(addresses, active, phases, sink)
    };
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (addresses, active, phases, sink);
        None
    }
}
