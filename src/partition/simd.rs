//! Vectorised paths on x86-64 with AVX2, taken where the CPU has it (checked
//! at run time) and always giving what the scalar scheduler gives: the tests
//! compare them with brute force and the scalar scheduler, and the property
//! tests and the hardware corpus judge the public calls that use them.
//!
//! - [`count`]: the busiest bank's distinct words, for any 32 addresses
//!   below 256 KiB, without a data-dependent branch (the 4-byte count), and
//!   the closed form for evenly spaced 8- and 16-byte accesses.
//! - [`word_schedule`]: the schedule of 4-byte accesses, for partitions.
//! - [`quarter_warps`]: the schedule of 16-byte accesses, four quarter-warp
//!   phases at once.
//! - [`phases`] (and [`count`] for the same requests): every other phase
//!   shape of up to 32 (phase, bank group) pairs at once, with lanes on one
//!   key merged (8-byte half-warps, merged load phases) or not (native
//!   atomics and `cp.async`, which count lanes: a histogram of the active
//!   lanes per bank group, without the duplicate marks of the word count).
//! - [`followers`]: for `WarpRequest::write_collisions`, the lanes that
//!   share an address with an earlier lane, by the word count's duplicate
//!   marks, and each one's first lane.
//! - [`with_avx2`]: any code (the compare-and-swap loop's direct count)
//!   compiled for AVX2 and POPCNT, for its bit counts.
//!
//! The word count: words fit in 16 bits below 256 KiB, so each lane's word
//! becomes two bytes and one register holds a byte of all 32 lanes. Rotating
//! the two registers by `r` positions (`r` = 1 to 16) and comparing finds
//! every pair of lanes with the same word, and the later lane of each pair is
//! marked a duplicate: what is left is one lane per distinct word. The bank of
//! each lane is its word's low five bits; splitting the unmarked lanes by
//! those five bit planes gives each bank's lanes, and the answer is the
//! largest. Lane order never matters to the count, so its bytes stay in the
//! order the packing instructions leave them; the schedulers put them back in
//! lane order, since steps are ranked by first appearance. Inactive lanes take
//! the first active lane's word, which changes no bank's set of words.
//!
//! This is the crate's only `unsafe`: calling functions compiled for AVX2,
//! which is sound only after [`available`] said the CPU has it, unaligned
//! loads of the address array and a store into a 32-byte array, and an
//! empty `asm!` that hides a value from the optimiser.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::types::{Count, Path, Phases, Sink, Totals};
use crate::lane::WARP_SIZE;
use crate::{BankConfig, LaneSet, Op, WarpRequest};

/// Whether this CPU has what the vectorised paths need. Cached by the
/// standard library.
#[inline]
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")
}

/// `body` compiled for AVX2 and POPCNT (every call and generic it inlines
/// too), where the CPU has them: its bit counts are one instruction each
/// instead of a dozen. `None` where the CPU lacks them.
#[inline(always)]
pub(super) fn with_avx2<R>(body: impl FnOnce() -> R) -> Option<R> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `with_avx2_enabled` is compiled for.
    Some(unsafe { with_avx2_enabled(body) })
}

#[target_feature(enable = "avx2,popcnt")]
fn with_avx2_enabled<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// [`word_ways_avx2`], for the tests: `None` also where the CPU lacks AVX2.
#[cfg(test)]
pub(super) fn word_ways(addresses: &[u32; WARP_SIZE], active: u32, limit: u32) -> Option<u32> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `word_ways_avx2` is compiled for.
    unsafe { word_ways_avx2(addresses, active, limit) }
}

/// The totals of a request, validation included, where one vectorised pass
/// finds them: on the word path ([`Path::Word`]) by [`word_ways_avx2`]; for
/// 8- and 16-byte loads and stores from 5.0 on ([`Path::Wide`]) by the
/// closed form when the warp is full and evenly spaced (not all at one
/// address, which may merge phases), else by the phase schedulers
/// ([`quarter_warps`], [`phases`]) after the load-merge test; on the
/// lane-counting path ([`Path::Lanes`]) by [`phases`] once the capability
/// is known to have the op. The path tests and the window's limit are
/// computed inside the vectorised function, so the call costs one feature
/// check. `None` sends the request the long way: the CPU lacks AVX2, another
/// path, an empty warp, an op the capability lacks, or as `word_ways_avx2`
/// says.
#[inline(always)]
pub(super) fn count(config: BankConfig, request: &WarpRequest, path: Path) -> Option<Totals> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `count_avx2` is compiled for.
    unsafe { count_avx2(config, request, path) }
}

#[target_feature(enable = "avx2,popcnt")]
fn count_avx2(config: BankConfig, request: &WarpRequest, path: Path) -> Option<Totals> {
    let active = request.active().bits();
    if active == 0 {
        return None;
    }
    // Every address at most the limit: the access ends inside the window.
    let width = request.width().bytes();
    let limit = config.capability().shared_window_size() - width;
    let addresses = request.raw_addresses();
    if path == Path::Word {
        let ways = word_ways_avx2(addresses, active, limit)?;
        return Some(Totals {
            wavefronts: ways,
            ideal: 1,
            ways,
            ..Totals::ZERO
        });
    }
    other_avx2(config, request, path, active, limit, &mut Count)
}

/// The schedule of a request on the wide or the lane-counting path
/// ([`Path::Wide`], [`Path::Lanes`]), validation included, reported to
/// `sink`, with its totals: for partitions, as [`count`] is for counts.
/// `None` (nothing reported) sends the request the long way: the CPU lacks
/// AVX2, another path, an empty warp, an op the capability lacks, or an
/// address that needs the exact window check.
#[inline(always)]
pub(super) fn phase_schedule<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    path: Path,
    sink: &mut S,
) -> Option<Totals> {
    let active = request.active().bits();
    if active == 0 || !matches!(path, Path::Wide | Path::Lanes) || !available() {
        return None;
    }
    let limit = config.capability().shared_window_size() - request.width().bytes();
    // SAFETY: the CPU has every feature `other_avx2` is compiled for.
    unsafe { other_avx2(config, request, path, active, limit, sink) }
}

/// [`count_avx2`] off the word path (apart, so that the word path keeps a
/// small frame), and [`phase_schedule`]: `active` not empty, `limit` the
/// highest address inside the window.
#[target_feature(enable = "avx2,popcnt")]
#[inline(never)]
fn other_avx2<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    path: Path,
    active: u32,
    limit: u32,
    sink: &mut S,
) -> Option<Totals> {
    let addresses = request.raw_addresses();
    let width = request.width().bytes();
    if path == Path::Lanes {
        // The op at its width (the long way reports the error), then the window.
        config.check_access(request.op(), request.width()).ok()?;
        let a = load(addresses, limit)?;
        return phases_avx2(&a, active, Phases::of_lanes(config, request), sink);
    }
    if path != Path::Wide {
        return None;
    }
    let a = load(addresses, limit)?;
    // One phase is a lane per bank group: 16 lanes of 8 bytes, 8 of 16.
    let key_shift = width.trailing_zeros();
    let group_bits = 7 - key_shift;
    if active == u32::MAX {
        // A broadcast may merge phases (below); the closed form has none.
        if let Some(stride) = stride_of(addresses, &a).filter(|&stride| stride != 0) {
            let groups = 1 << group_bits;
            let ways = closed_form(stride, key_shift, groups);
            let phases = WARP_SIZE as u32 / groups;
            if S::STEPS {
                for phase in 0..phases {
                    for lanes in super::affine::steps(groups, ways) {
                        let lanes = LaneSet::from_bits(lanes << (phase * groups));
                        sink.step(phase as u8, 0, lanes);
                    }
                }
            }
            return Some(Totals {
                wavefronts: phases * ways,
                ideal: phases,
                ways,
                ..Totals::ZERO
            });
        }
    }
    // The wide path's phases, as `schedule::wide` cuts them.
    let merged =
        config.merges_paired_loads() && request.op() == Op::Load && pairs_share(&a, active);
    if !merged && group_bits == 3 {
        return Some(quarter_warps_avx2(addresses, active, sink));
    }
    let keyed = Phases {
        key_shift,
        group_bits,
        phase_bits: group_bits + u32::from(merged),
        merge: true,
        repeat: 1,
    };
    phases_avx2(&a, active, keyed, sink)
}

/// The load-merge condition of `schedule::pairs_share_addresses`, on the
/// loaded addresses: every pair of active lanes `(n, n ^ 1)`, or every pair
/// `(n, n ^ 2)`, has one address (`active` not empty).
#[target_feature(enable = "avx2")]
#[inline]
fn pairs_share(a: &[__m256i; 4], active: u32) -> bool {
    let (mut same1, mut same2) = (0u32, 0u32);
    for (k, &x) in a.iter().enumerate() {
        let swap1 = _mm256_shuffle_epi32::<0b10_11_00_01>(x);
        let swap2 = _mm256_shuffle_epi32::<0b01_00_11_10>(x);
        let mask = |y: __m256i| _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, y)));
        same1 |= (mask(swap1) as u32) << (8 * k);
        same2 |= (mask(swap2) as u32) << (8 * k);
    }
    let partner1 = (active >> 1 & 0x5555_5555) | (active & 0x5555_5555) << 1;
    let partner2 = (active >> 2 & 0x3333_3333) | (active & 0x3333_3333) << 2;
    active & partner1 & !same1 == 0 || active & partner2 & !same2 == 0
}

/// The 32 addresses, four lanes of eight, after the window check's common
/// case as `validate` does it (inactive lanes hold 0, and the OR of all
/// addresses is at least the highest): `None` when the OR is past `limit`, or
/// at or past 256 KiB (words must fit in 16 bits; every shared window does).
#[target_feature(enable = "avx2")]
#[inline]
fn load(addresses: &[u32; WARP_SIZE], limit: u32) -> Option<[__m256i; 4]> {
    let pointer = addresses.as_ptr().cast::<__m256i>();
    // SAFETY: the array holds 32 u32, four 32-byte vectors; the loads are unaligned.
    let a = unsafe {
        [
            _mm256_loadu_si256(pointer),
            _mm256_loadu_si256(pointer.add(1)),
            _mm256_loadu_si256(pointer.add(2)),
            _mm256_loadu_si256(pointer.add(3)),
        ]
    };
    (or_of(&a) <= limit.min((1 << 18) - 1)).then_some(a)
}

/// The OR of all 32 addresses: at least the highest.
#[target_feature(enable = "avx2")]
#[inline]
fn or_of(a: &[__m256i; 4]) -> u32 {
    let any = _mm256_or_si256(_mm256_or_si256(a[0], a[1]), _mm256_or_si256(a[2], a[3]));
    let any = _mm_or_si128(
        _mm256_castsi256_si128(any),
        _mm256_extracti128_si256::<1>(any),
    );
    let any = _mm_or_si128(any, _mm_shuffle_epi32::<0b01_00_11_10>(any));
    let any = _mm_or_si128(any, _mm_shuffle_epi32::<0b10_11_00_01>(any));
    _mm_cvtsi128_si32(any) as u32
}

/// One rotation step of the duplicate search: compares every lane's word with
/// the word `$r` positions before it (cyclically), and marks the later lane of
/// each equal pair in `$dup`. `$shift` is `16 - $r` (a literal, as the
/// intrinsic needs).
macro_rules! rotation {
    ($dup:ident, $lo:ident, $lo_t:ident, $hi:ident, $hi_t:ident, $r:literal, $shift:literal) => {{
        let rl = _mm256_alignr_epi8::<$shift>($lo, $lo_t);
        let rh = _mm256_alignr_epi8::<$shift>($hi, $hi_t);
        let same = _mm256_and_si256(_mm256_cmpeq_epi8($lo, rl), _mm256_cmpeq_epi8($hi, rh));
        let e = _mm256_movemask_epi8(same) as u32;
        // Lane i >= r met lane i - r; lane i < r met lane i - r + 32, the later.
        $dup = opaque($dup | (e & !((1u32 << $r) - 1)) | e << (32 - $r));
    }};
}

/// The lanes whose word an earlier lane also holds (bit `i`: lane `i` met one
/// of the lanes below it), from the words' low and high bytes as
/// [`word_bytes`] packs them: 15 rotations within each 128-bit half and one
/// swap of the halves compare every pair of lanes once. A macro, not a
/// function: a call costs the 4-byte count about 4% and `write_collisions` 9%
/// (measured with `examples/api_costs.rs`).
macro_rules! duplicates {
    ($lo:ident, $hi:ident) => {{
        let (lo, hi) = ($lo, $hi);
        let lo_t = _mm256_permute2x128_si256::<1>(lo, lo);
        let hi_t = _mm256_permute2x128_si256::<1>(hi, hi);
        let mut dup = 0u32;
        rotation!(dup, lo, lo_t, hi, hi_t, 1, 15);
        rotation!(dup, lo, lo_t, hi, hi_t, 2, 14);
        rotation!(dup, lo, lo_t, hi, hi_t, 3, 13);
        rotation!(dup, lo, lo_t, hi, hi_t, 4, 12);
        rotation!(dup, lo, lo_t, hi, hi_t, 5, 11);
        rotation!(dup, lo, lo_t, hi, hi_t, 6, 10);
        rotation!(dup, lo, lo_t, hi, hi_t, 7, 9);
        rotation!(dup, lo, lo_t, hi, hi_t, 8, 8);
        rotation!(dup, lo, lo_t, hi, hi_t, 9, 7);
        rotation!(dup, lo, lo_t, hi, hi_t, 10, 6);
        rotation!(dup, lo, lo_t, hi, hi_t, 11, 5);
        rotation!(dup, lo, lo_t, hi, hi_t, 12, 4);
        rotation!(dup, lo, lo_t, hi, hi_t, 13, 3);
        rotation!(dup, lo, lo_t, hi, hi_t, 14, 2);
        rotation!(dup, lo, lo_t, hi, hi_t, 15, 1);
        let same = _mm256_and_si256(_mm256_cmpeq_epi8(lo, lo_t), _mm256_cmpeq_epi8(hi, hi_t));
        dup | ((_mm256_movemask_epi8(same) as u32) & 0xffff_0000)
    }};
}

/// The most distinct words any bank holds among the `active` lanes (not
/// empty), with the window check of `BankConfig::validate` folded in: `None`
/// when the OR of all addresses is past `limit` (the caller then runs the
/// exact check, which finds the error or clears the request), or when an
/// address is at or past 256 KiB (words must fit in 16 bits; every shared
/// window does).
///
/// Full warps at evenly spaced words take the closed form of [`super::affine`];
/// the rest, the branch-free search the module describes.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn word_ways_avx2(addresses: &[u32; WARP_SIZE], active: u32, limit: u32) -> Option<u32> {
    debug_assert!(active != 0);
    let mut a = load(addresses, limit)?;
    if active == u32::MAX {
        match stride_of(addresses, &a) {
            Some(0) => return Some(1),
            Some(stride) if stride & 3 == 0 => return Some(closed_form(stride, 2, 32)),
            _ => {}
        }
    } else {
        fill_inactive(&mut a, addresses, active);
    }
    let w = a.map(|x| _mm256_srli_epi32::<2>(x));
    // The count does not depend on lane order: the bytes stay as packed.
    let (lo, hi) = word_bytes(&w);
    let dup = duplicates!(lo, hi);
    // One lane per distinct word: the first of each.
    let first = opaque(!dup);
    let rows = bank_rows(lo, first).map(|row| popcount32(row));
    let most = _mm256_max_epi32(
        _mm256_max_epi32(rows[0], rows[1]),
        _mm256_max_epi32(rows[2], rows[3]),
    );
    let most = _mm_max_epi32(
        _mm256_castsi256_si128(most),
        _mm256_extracti128_si256::<1>(most),
    );
    let most = _mm_max_epi32(most, _mm_shuffle_epi32::<0b01_00_11_10>(most));
    let most = _mm_max_epi32(most, _mm_shuffle_epi32::<0b10_11_00_01>(most));
    Some(_mm_cvtsi128_si32(most) as u32)
}

/// The lanes of `lanes` in each bank, as lane `l` of register `j` for bank
/// `8j + l`, for bytes `lo` whose low five bits are the lanes' banks (lane
/// masks in the order of `lo`'s bytes).
#[target_feature(enable = "avx2")]
#[inline]
fn bank_rows(lo: __m256i, lanes: u32) -> [__m256i; 4] {
    // Bank bit k of every lane, as a lane mask.
    let plane = |x: __m256i| opaque(_mm256_movemask_epi8(x) as u32);
    let planes = [
        plane(_mm256_slli_epi16::<7>(lo)),
        plane(_mm256_slli_epi16::<6>(lo)),
        plane(_mm256_slli_epi16::<5>(lo)),
        plane(_mm256_slli_epi16::<4>(lo)),
        plane(_mm256_slli_epi16::<3>(lo)),
    ];
    // Banks 0 to 7 of a register by the low three bit planes (each lane
    // taking a plane or its complement), then the register's group of eight
    // by the top two.
    let splat = |x: u32| _mm256_set1_epi32(x as i32);
    let pick = |plane: u32, k: i32| {
        // Lane l keeps the plane where bit k of l is set, its complement elsewhere.
        let clear = _mm256_cmpeq_epi32(
            _mm256_and_si256(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), splat(1 << k)),
            _mm256_setzero_si256(),
        );
        _mm256_xor_si256(splat(plane), clear)
    };
    let low = _mm256_and_si256(
        _mm256_and_si256(pick(planes[0], 0), pick(planes[1], 1)),
        pick(planes[2], 2),
    );
    let lanes = opaque(lanes);
    let (b3, b4) = (planes[3], planes[4]);
    [
        lanes & !b3 & !b4,
        lanes & b3 & !b4,
        lanes & !b3 & b4,
        lanes & b3 & b4,
    ]
    .map(|group| _mm256_and_si256(low, splat(group)))
}

/// The set bits of each 32-bit lane: a nibble table, then the four bytes summed.
#[target_feature(enable = "avx2")]
#[inline]
fn popcount32(x: __m256i) -> __m256i {
    let nibble = _mm256_set1_epi8(0x0f);
    let table = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let bytes = _mm256_add_epi8(
        _mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble)),
        _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16::<4>(x), nibble)),
    );
    let pairs = _mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1));
    _mm256_madd_epi16(pairs, _mm256_set1_epi16(1))
}

/// Gives inactive lanes the first active lane's address, which changes no
/// bank's set of words (`active` not empty).
#[target_feature(enable = "avx2")]
#[inline]
fn fill_inactive(a: &mut [__m256i; 4], addresses: &[u32; WARP_SIZE], active: u32) {
    let fill = _mm256_set1_epi32(addresses[active.trailing_zeros() as usize] as i32);
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for (k, x) in a.iter_mut().enumerate() {
        let m = _mm256_set1_epi32((active >> (8 * k)) as i32);
        let on = _mm256_cmpeq_epi32(_mm256_and_si256(m, bits), bits);
        *x = _mm256_blendv_epi8(fill, *x, on);
    }
}

/// The low and high bytes of 32 words below 2^16, a register each, in the
/// lane order the packing instructions leave: 0-3, 8-11, 16-19, 24-27, 4-7,
/// 12-15, 20-23, 28-31 (see [`in_lane_order`]).
#[target_feature(enable = "avx2")]
#[inline]
fn word_bytes(w: &[__m256i; 4]) -> (__m256i, __m256i) {
    let p01 = _mm256_packus_epi32(w[0], w[1]);
    let p23 = _mm256_packus_epi32(w[2], w[3]);
    let byte = _mm256_set1_epi16(0xff);
    let lo = _mm256_packus_epi16(_mm256_and_si256(p01, byte), _mm256_and_si256(p23, byte));
    let hi = _mm256_packus_epi16(_mm256_srli_epi16::<8>(p01), _mm256_srli_epi16::<8>(p23));
    (lo, hi)
}

/// Bytes packed from four registers of 32-bit lanes (as [`word_bytes`] leaves
/// them), put in lane order.
#[target_feature(enable = "avx2")]
#[inline]
fn in_lane_order(packed: __m256i) -> __m256i {
    _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
}

/// [`word_steps_avx2`] without a window limit, for the tests: `None` also
/// where the CPU lacks AVX2.
#[cfg(test)]
pub(super) fn word_steps<S: Sink>(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    sink: &mut S,
) -> Option<u32> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `word_steps_avx2` is compiled for.
    unsafe { word_steps_avx2(addresses, active, u32::MAX, sink) }
}

/// The schedule of a request on the word path ([`Path::Word`]),
/// validation included, reported to `sink`, with its totals: the closed form
/// for full evenly spaced warps, [`word_steps_avx2`]'s scheduler for the rest.
/// `None` sends the request the long way: the CPU lacks AVX2, another path,
/// an empty warp, or an address that needs the exact window check (nothing is
/// reported then).
#[inline(always)]
pub(super) fn word_schedule<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    path: Path,
    sink: &mut S,
) -> Option<Totals> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `word_schedule_avx2` is compiled for.
    unsafe { word_schedule_avx2(config, request, path, sink) }
}

#[target_feature(enable = "avx2,popcnt")]
fn word_schedule_avx2<S: Sink>(
    config: BankConfig,
    request: &WarpRequest,
    path: Path,
    sink: &mut S,
) -> Option<Totals> {
    let active = request.active().bits();
    if active == 0 || path != Path::Word {
        return None;
    }
    // Every address at most the limit: the access ends inside the window.
    let limit = config.capability().shared_window_size() - request.width().bytes();
    let steps = word_steps_avx2(request.raw_addresses(), active, limit, sink)?;
    Some(Totals {
        wavefronts: steps,
        ideal: 1,
        ways: steps,
        ..Totals::ZERO
    })
}

/// One rotation step of the first-lane search (`$r` = 1 to 15, `$shift` =
/// 16 - `$r`): every pair of lanes `$r` apart (cyclically) with the same word
/// offers the earlier lane to the later one as its first.
macro_rules! first_lane {
    ($first:ident, $lo:ident, $lo_t:ident, $hi:ident, $hi_t:ident, $r:literal, $shift:literal) => {{
        let lane = _mm256_setr_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        );
        let none = _mm256_set1_epi8(-1);
        let rl = _mm256_alignr_epi8::<$shift>($lo, $lo_t);
        let rh = _mm256_alignr_epi8::<$shift>($hi, $hi_t);
        let same = _mm256_and_si256(_mm256_cmpeq_epi8($lo, rl), _mm256_cmpeq_epi8($hi, rh));
        let above = _mm256_cmpgt_epi8(lane, _mm256_set1_epi8($r - 1));
        // Lane i >= r met lane i - r, an earlier one.
        let earlier = _mm256_and_si256(same, above);
        let candidate = _mm256_sub_epi8(lane, _mm256_set1_epi8($r));
        $first.0 = _mm256_min_epu8($first.0, _mm256_blendv_epi8(none, candidate, earlier));
        // Lane i < r met lane i - r + 32, a later one: moved there (a
        // rotation by 32 - r), it is that lane's candidate.
        let later = _mm256_andnot_si256(above, same);
        let moved = _mm256_alignr_epi8::<$r>(_mm256_permute2x128_si256::<1>(later, later), later);
        let candidate = _mm256_sub_epi8(lane, _mm256_set1_epi8(32 - $r));
        $first.1 = _mm256_min_epu8($first.1, _mm256_blendv_epi8(none, candidate, moved));
    }};
}

/// The body of [`first_lanes`], for the word path's scheduler to take
/// inline (a call there costs a tenth of it).
macro_rules! first_lanes_inline {
    ($lo:expr, $hi:expr) => {{
        let (lo, hi) = ($lo, $hi);
        let lo_t = _mm256_permute2x128_si256::<1>(lo, lo);
        let hi_t = _mm256_permute2x128_si256::<1>(hi, hi);
        let own = lane_bytes();
        // Two running minimums (earlier partners, later ones) halve the chain.
        let mut first = (own, own);
        first_lane!(first, lo, lo_t, hi, hi_t, 1, 15);
        first_lane!(first, lo, lo_t, hi, hi_t, 2, 14);
        first_lane!(first, lo, lo_t, hi, hi_t, 3, 13);
        first_lane!(first, lo, lo_t, hi, hi_t, 4, 12);
        first_lane!(first, lo, lo_t, hi, hi_t, 5, 11);
        first_lane!(first, lo, lo_t, hi, hi_t, 6, 10);
        first_lane!(first, lo, lo_t, hi, hi_t, 7, 9);
        first_lane!(first, lo, lo_t, hi, hi_t, 8, 8);
        first_lane!(first, lo, lo_t, hi, hi_t, 9, 7);
        first_lane!(first, lo, lo_t, hi, hi_t, 10, 6);
        first_lane!(first, lo, lo_t, hi, hi_t, 11, 5);
        first_lane!(first, lo, lo_t, hi, hi_t, 12, 4);
        first_lane!(first, lo, lo_t, hi, hi_t, 13, 3);
        first_lane!(first, lo, lo_t, hi, hi_t, 14, 2);
        first_lane!(first, lo, lo_t, hi, hi_t, 15, 1);
        {
            // r = 16 pairs each lane with the one 16 away; the lower comes first.
            let same = _mm256_and_si256(_mm256_cmpeq_epi8(lo, lo_t), _mm256_cmpeq_epi8(hi, hi_t));
            let upper = _mm256_cmpgt_epi8(own, _mm256_set1_epi8(15));
            let candidate = _mm256_sub_epi8(own, _mm256_set1_epi8(16));
            let earlier = _mm256_and_si256(same, upper);
            first.0 = _mm256_min_epu8(
                first.0,
                _mm256_blendv_epi8(_mm256_set1_epi8(-1), candidate, earlier),
            );
        }
        _mm256_min_epu8(first.0, first.1)
    }};
}

/// The multicast schedule of one phase of 32 lanes keyed by word (loads and
/// stores of up to 4 bytes on 2.x and from 5.0 on), reported to `sink`; the
/// step count. `None` (and nothing reported) when the OR of the addresses is
/// past `limit` or an address is at or past 256 KiB.
///
/// Full warps at evenly spaced words take the closed form. Otherwise a lane's
/// step is its word's rank among the distinct words of its bank, in order of
/// first appearance: the rotations of the count find, for every lane, the
/// first lane with its word (`first`), and the rank is the number of first
/// lanes of the same bank below that lane. The tests compare it with the
/// scalar scheduler.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn word_steps_avx2<S: Sink>(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    limit: u32,
    sink: &mut S,
) -> Option<u32> {
    debug_assert!(active != 0);
    let mut a = load(addresses, limit)?;
    if active == u32::MAX {
        let ways = match stride_of(addresses, &a) {
            Some(0) => Some(1),
            Some(stride) if stride & 3 == 0 => Some(closed_form(stride, 2, 32)),
            _ => None,
        };
        if let Some(ways) = ways {
            if S::STEPS {
                for lanes in super::affine::steps(32, ways) {
                    sink.step(0, 0, LaneSet::from_bits(lanes));
                }
            }
            return Some(ways);
        }
    } else {
        // Inactive lanes below the first active one then share its word and
        // come first for it: its word still comes first, and its rank is right.
        fill_inactive(&mut a, addresses, active);
    }
    let w = a.map(|x| _mm256_srli_epi32::<2>(x));
    let (lo, hi) = word_bytes(&w);
    let (lo, hi) = (in_lane_order(lo), in_lane_order(hi));
    let own = lane_bytes();
    let first = first_lanes_inline!(lo, hi);
    let firsts = _mm256_movemask_epi8(_mm256_cmpeq_epi8(first, own)) as u32;
    let ranks = lane_ranks(&w, bank_rows(lo, firsts), first);
    // Step k serves the lanes of rank k; every rank up to the largest has some.
    let mut waiting = active;
    let mut steps = 0;
    while waiting != 0 {
        let served = _mm256_movemask_epi8(_mm256_cmpeq_epi8(ranks, _mm256_set1_epi8(steps as i8)))
            as u32
            & active;
        if S::STEPS {
            sink.step(0, 0, LaneSet::from_bits(served));
        }
        waiting &= !served;
        steps += 1;
    }
    Some(steps)
}

/// The bytes 0 to 31: each lane's own index, in lane order.
#[target_feature(enable = "avx2")]
#[inline]
fn lane_bytes() -> __m256i {
    _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    )
}

/// Per lane (a byte each, in lane order): the first lane whose 16-bit word
/// (low bytes `lo`, high bytes `hi`, in lane order) is its own.
#[target_feature(enable = "avx2")]
#[inline]
fn first_lanes(lo: __m256i, hi: __m256i) -> __m256i {
    first_lanes_inline!(lo, hi)
}

/// Per lane, in lane order (a byte each): the first lanes of its bank (as
/// `rows` holds them, from [`bank_rows`] in lane order) below its word's
/// first lane `first` (a byte per lane, in lane order); `w` holds the lanes'
/// words, whose low five bits are their banks, lanes `8k` to `8k + 7` in
/// register `k`.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn lane_ranks(w: &[__m256i; 4], rows: [__m256i; 4], first: __m256i) -> __m256i {
    let splat = |x: i32| _mm256_set1_epi32(x);
    let first_low = _mm256_castsi256_si128(first);
    let first_high = _mm256_extracti128_si256::<1>(first);
    let firsts_of = [
        _mm256_cvtepu8_epi32(first_low),
        _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(first_low)),
        _mm256_cvtepu8_epi32(first_high),
        _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(first_high)),
    ];
    let rank = |k: usize| {
        let bank = _mm256_and_si256(w[k], splat(31));
        let within = _mm256_and_si256(bank, splat(7));
        let pick = |j: usize| _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(rows[j], within));
        // blendv_ps takes each lane's sign: bank bits 3 and 4 moved there.
        let bit3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(bank));
        let bit4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(bank));
        let row = _mm256_blendv_ps(
            _mm256_blendv_ps(pick(0), pick(1), bit3),
            _mm256_blendv_ps(pick(2), pick(3), bit3),
            bit4,
        );
        let below = _mm256_sub_epi32(_mm256_sllv_epi32(splat(1), firsts_of[k]), splat(1));
        popcount32(_mm256_and_si256(_mm256_castps_si256(row), below))
    };
    in_lane_order(_mm256_packus_epi16(
        _mm256_packus_epi32(rank(0), rank(1)),
        _mm256_packus_epi32(rank(2), rank(3)),
    ))
}

/// The stride of a full warp at evenly spaced addresses (all below 256 KiB,
/// so the sequence cannot wrap): the closed form of [`super::affine`] applies.
#[target_feature(enable = "avx2")]
#[inline]
fn stride_of(addresses: &[u32; WARP_SIZE], a: &[__m256i; 4]) -> Option<u32> {
    let first = addresses[0];
    let stride = addresses[1].wrapping_sub(first);
    let step = _mm256_set1_epi32(stride as i32);
    let mut expected = _mm256_add_epi32(
        _mm256_set1_epi32(first as i32),
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), step),
    );
    let eight = _mm256_slli_epi32::<3>(step);
    let mut off = _mm256_setzero_si256();
    for &x in a {
        off = _mm256_or_si256(off, _mm256_xor_si256(x, expected));
        expected = _mm256_add_epi32(expected, eight);
    }
    (_mm256_testz_si256(off, off) == 1).then_some(stride)
}

/// The steps of a phase of `groups` bank groups whose lanes are `stride`
/// bytes apart, keys being `1 << key_shift` bytes: gcd(key stride, groups),
/// as [`super::affine`] shows.
fn closed_form(stride: u32, key_shift: u32, groups: u32) -> u32 {
    1 << ((stride >> key_shift) & (groups - 1))
        .trailing_zeros()
        .min(groups.trailing_zeros())
}

/// `x`, hidden from the optimiser: without it LLVM turns the lane masks back
/// into vectors of booleans and extracts them a byte at a time.
#[inline(always)]
fn opaque(mut x: u32) -> u32 {
    // SAFETY: an empty assembly block that only names a register.
    unsafe { core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack)) };
    x
}

/// The multicast schedule of quarter-warp phases keyed by quad word (16-byte
/// loads and stores from 5.0 on, phases not merged), all four phases at once:
/// lane `l` of register `p` is warp lane `8p + l`. `None` when the CPU lacks
/// AVX2; the scalar scheduler then runs, and the tests compare the two.
///
/// In each phase a lane's step is its quad word's rank among the distinct
/// quad words of its bank group, in order of first appearance: for the first
/// lane of a quad word, the first lanes of its group before it; for the
/// others, their first lane's rank. Steps are reported as `Sink::step`
/// would be by the scalar scheduler.
#[inline]
pub(super) fn quarter_warps<S: Sink>(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    sink: &mut S,
) -> Option<Totals> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `quarter_warps_avx2` is compiled for.
    Some(unsafe { quarter_warps_avx2(addresses, active, sink) })
}

#[target_feature(enable = "avx2,popcnt")]
fn quarter_warps_avx2<S: Sink>(addresses: &[u32; WARP_SIZE], active: u32, sink: &mut S) -> Totals {
    let pointer = addresses.as_ptr().cast::<__m256i>();
    let splat = |x: u32| _mm256_set1_epi32(x as i32);
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let own = _mm256_sllv_epi32(splat(1), lane);
    let below = _mm256_sub_epi32(own, splat(1));
    let seven = splat(7);
    let nibble = splat(0x0f);
    let table = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let mut totals = Totals::default();
    for phase in 0..4 {
        let phase_active = (active >> (8 * phase)) & 0xff;
        if phase_active == 0 {
            continue;
        }
        // SAFETY: the array holds 32 u32: four 32-byte vectors, `phase` < 4.
        let quads = _mm256_srli_epi32::<4>(unsafe { _mm256_loadu_si256(pointer.add(phase)) });
        let on = splat(phase_active);
        let lane_on = _mm256_cmpeq_epi32(_mm256_and_si256(on, own), own);
        // Per lane, the phase's lanes with the same quad word: lane l compared
        // with lane (l - r) mod 8 sets bit (l - r) mod 8.
        let mut same = own;
        macro_rules! rotation {
            ($($r:literal),*) => {$(
                let from = _mm256_and_si256(_mm256_sub_epi32(lane, splat($r)), seven);
                let other = _mm256_permutevar8x32_epi32(quads, from);
                let equal = _mm256_cmpeq_epi32(quads, other);
                same = _mm256_or_si256(same, _mm256_and_si256(equal, _mm256_sllv_epi32(splat(1), from)));
            )*};
        }
        rotation!(1, 2, 3, 4, 5, 6, 7);
        let same = _mm256_and_si256(same, on);
        // Per lane, the phase's lanes in the same bank group (the quad word's
        // low three bits): those that differ from it in none of the bits.
        let group = _mm256_and_si256(quads, seven);
        let mut differ = _mm256_setzero_si256();
        macro_rules! group_bit {
            ($($k:literal),*) => {$(
                let set = _mm256_srai_epi32::<31>(_mm256_slli_epi32::<{ 31 - $k }>(group));
                let plane = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32::<{ 31 - $k }>(group))) as u32;
                differ = _mm256_or_si256(differ, _mm256_xor_si256(set, splat(plane)));
            )*};
        }
        group_bit!(0, 1, 2);
        let peers = _mm256_andnot_si256(differ, on);
        // First lanes of their quad word; each one's rank is the first lanes of
        // its group before it.
        let first = _mm256_and_si256(
            _mm256_cmpeq_epi32(_mm256_and_si256(same, below), _mm256_setzero_si256()),
            lane_on,
        );
        let firsts = _mm256_movemask_ps(_mm256_castsi256_ps(first)) as u32;
        let before = _mm256_and_si256(_mm256_and_si256(peers, below), splat(firsts));
        // Fewer than 8 bits: a nibble table on the low two nibbles.
        let rank = _mm256_add_epi32(
            _mm256_shuffle_epi8(table, _mm256_and_si256(before, nibble)),
            _mm256_shuffle_epi8(
                table,
                _mm256_and_si256(_mm256_srli_epi32::<4>(before), nibble),
            ),
        );
        // Every lane takes the rank of its quad word's first lane: the lowest
        // bit of `same` (a power of two, so its float exponent is the index).
        let lowest = _mm256_and_si256(same, _mm256_sub_epi32(_mm256_setzero_si256(), same));
        let index = _mm256_sub_epi32(
            _mm256_srli_epi32::<23>(_mm256_castps_si256(_mm256_cvtepi32_ps(lowest))),
            splat(127),
        );
        let rank = _mm256_and_si256(_mm256_permutevar8x32_epi32(rank, index), lane_on);
        let most = _mm256_max_epu32(rank, _mm256_permute2x128_si256::<1>(rank, rank));
        let most = _mm256_max_epu32(most, _mm256_shuffle_epi32::<0b01_00_11_10>(most));
        let most = _mm256_max_epu32(most, _mm256_shuffle_epi32::<0b10_11_00_01>(most));
        let steps = _mm256_cvtsi256_si32(most) as u32 + 1;
        if S::STEPS {
            for k in 0..steps {
                let served = _mm256_and_si256(_mm256_cmpeq_epi32(rank, splat(k)), lane_on);
                let lanes = _mm256_movemask_ps(_mm256_castsi256_ps(served)) as u32;
                sink.step(phase as u8, 0, LaneSet::from_bits(lanes << (8 * phase)));
            }
        }
        totals.ideal += 1;
        totals.wavefronts += steps;
        totals.ways = totals.ways.max(steps);
    }
    totals
}

/// The schedule of lanes in phases keyed by bank group ([`Phases`]), all
/// phases at once, reported to `sink` as the scalar schedulers report it:
/// the lane-counting path (native atomics, `cp.async`: every lane on its
/// own) and the wide path's phases the quarter-warp scheduler does not take
/// (8-byte half-warps, merged phases: lanes with one key served together).
/// `None` (nothing reported) when the CPU lacks AVX2, or the phases do not
/// fit the scheme below (more than 32 (phase, group) pairs, fewer than 8
/// groups, merged keys at or past the bound); the scalar scheduler then runs,
/// and the tests compare the two.
///
/// Each lane gets a virtual word: its group plus its phase times the group
/// count in the low five bits (a virtual bank, so that phases never meet),
/// and for merged phases the rest of its key above them (below 2^16). Then,
/// as on the word path, a lane's step is the rank of its key among the
/// distinct keys of its virtual bank in order of first appearance (for
/// unmerged lanes, every lane is the first of its key), and a phase's steps
/// are the most keys of one of its virtual banks.
#[inline]
pub(super) fn phases<S: Sink>(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    phases: Phases,
    sink: &mut S,
) -> Option<Totals> {
    if active == 0 || !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `phases_avx2` and `load` are compiled for.
    unsafe { phases_avx2(&load(addresses, u32::MAX)?, active, phases, sink) }
}

/// [`phases`] on the loaded addresses (`active` not empty).
#[target_feature(enable = "avx2,popcnt")]
fn phases_avx2<S: Sink>(a: &[__m256i; 4], active: u32, p: Phases, sink: &mut S) -> Option<Totals> {
    // At most 32 (phase, group) pairs, rows of at least 8 groups.
    if !(3..=p.phase_bits).contains(&p.group_bits) {
        return None;
    }
    let splat = |x: u32| _mm256_set1_epi32(x as i32);
    let count = |x: u32| _mm_cvtsi32_si128(x as i32);
    let (key_shift, group_bits) = (count(p.key_shift), count(p.group_bits));
    let group_mask = splat((1 << p.group_bits) - 1);
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    // Inactive lanes: a word no active lane has (active ones stay below it).
    let none = splat(0xffff);
    let mut w = [_mm256_setzero_si256(); 4];
    let mut highest = _mm256_setzero_si256();
    for (k, w) in w.iter_mut().enumerate() {
        let key = _mm256_srl_epi32(a[k], key_shift);
        let lanes = _mm256_add_epi32(lane, splat(8 * k as u32));
        let phase = _mm256_srl_epi32(lanes, count(p.phase_bits));
        let mut x = _mm256_or_si256(
            _mm256_and_si256(key, group_mask),
            _mm256_sll_epi32(phase, group_bits),
        );
        if p.merge {
            x = _mm256_or_si256(x, _mm256_slli_epi32::<5>(_mm256_srl_epi32(key, group_bits)));
        }
        highest = _mm256_max_epu32(highest, x);
        let on = _mm256_set1_epi32((active >> (8 * k)) as i32);
        let on = _mm256_cmpeq_epi32(_mm256_and_si256(on, bits), bits);
        *w = _mm256_blendv_epi8(none, x, on);
    }
    if p.merge && most_of(highest) >= 0xffff {
        return None;
    }
    let (lo, hi) = word_bytes(&w);
    let lo = in_lane_order(lo);
    let phase_count = WARP_SIZE as u32 >> p.phase_bits;
    let phase_lanes = 1u32 << p.phase_bits;
    let phase_mask = if phase_lanes == 32 {
        u32::MAX
    } else {
        (1 << phase_lanes) - 1
    };
    let mut totals = Totals::default();
    if !S::STEPS {
        // The first lane of each key, then each virtual bank's count.
        let firsts = if p.merge {
            let hi = in_lane_order(hi);
            let first = first_lanes(lo, hi);
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(first, lane_bytes())) as u32 & active
        } else {
            active
        };
        let rows = bank_rows(lo, firsts).map(|row| popcount32(row));
        // Phase `q` holds virtual banks `q * groups` onwards: rows of 8.
        // Phase `q` holds virtual banks `q * groups` onwards: each row of 8
        // lies in one phase. Phases with no lane have a most of 0.
        let rows_shift = p.group_bits - 3;
        let mut phase_most = [0u32; 4];
        for (j, row) in rows.into_iter().enumerate() {
            let most = &mut phase_most[(j >> rows_shift) & 3];
            *most = (*most).max(most_of(row));
        }
        for most in phase_most {
            if most > 0 {
                totals.ideal += p.repeat;
                totals.wavefronts += p.repeat * most;
                totals.ways = totals.ways.max(p.repeat * most);
            }
        }
        return Some(totals);
    }
    let (first, firsts) = if p.merge {
        let hi = in_lane_order(hi);
        let first = first_lanes(lo, hi);
        let firsts = _mm256_movemask_epi8(_mm256_cmpeq_epi8(first, lane_bytes())) as u32 & active;
        (first, firsts)
    } else {
        (lane_bytes(), active)
    };
    let ranks = lane_ranks(&w, bank_rows(lo, firsts), first);
    for phase in 0..phase_count {
        let lanes = active & phase_mask << (phase * phase_lanes);
        if lanes == 0 {
            continue;
        }
        // Step k serves the lanes of rank k; every rank up to the largest has some.
        let mut waiting = lanes;
        let mut steps = 0;
        while waiting != 0 {
            let rank = _mm256_cmpeq_epi8(ranks, _mm256_set1_epi8(steps as i8));
            let served = _mm256_movemask_epi8(rank) as u32 & lanes;
            for _ in 0..p.repeat {
                sink.step(phase as u8, 0, LaneSet::from_bits(served));
            }
            waiting &= !served;
            steps += 1;
        }
        totals.ideal += p.repeat;
        totals.wavefronts += p.repeat * steps;
        totals.ways = totals.ways.max(p.repeat * steps);
    }
    Some(totals)
}

/// The largest of eight 32-bit lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn most_of(x: __m256i) -> u32 {
    let most = _mm256_max_epu32(x, _mm256_permute2x128_si256::<1>(x, x));
    let most = _mm256_max_epu32(most, _mm256_shuffle_epi32::<0b01_00_11_10>(most));
    let most = _mm256_max_epu32(most, _mm256_shuffle_epi32::<0b10_11_00_01>(most));
    _mm256_cvtsi256_si32(most) as u32
}

/// The lanes of `active` that share a key (`address >> shift`) with an
/// earlier active lane, and, when there are any, each lane's first active
/// lane with its key (a byte per lane, meaningless for inactive lanes):
/// what [`WarpRequest::write_collisions`] groups. `None` when the CPU lacks
/// AVX2 or a key is at or past `0xffff` (keys are compared as 16-bit words,
/// as on the word path); the caller then takes its scalar path.
#[inline]
pub(crate) fn followers(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    shift: u32,
) -> Option<(u32, [u8; WARP_SIZE])> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `followers_avx2` is compiled for.
    unsafe { followers_avx2(addresses, active, shift) }
}

#[target_feature(enable = "avx2,popcnt")]
fn followers_avx2(
    addresses: &[u32; WARP_SIZE],
    active: u32,
    shift: u32,
) -> Option<(u32, [u8; WARP_SIZE])> {
    let pointer = addresses.as_ptr().cast::<__m256i>();
    let count = _mm_cvtsi32_si128(shift as i32);
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    // Inactive lanes: a key no active lane has (they stay below it).
    let none = _mm256_set1_epi32(0xffff);
    let mut highest = _mm256_setzero_si256();
    let mut w = [_mm256_setzero_si256(); 4];
    for (k, w) in w.iter_mut().enumerate() {
        // SAFETY: the array holds 32 u32: four 32-byte vectors, `k` < 4.
        let key = _mm256_srl_epi32(unsafe { _mm256_loadu_si256(pointer.add(k)) }, count);
        let on = _mm256_set1_epi32((active >> (8 * k)) as i32);
        let on = _mm256_cmpeq_epi32(_mm256_and_si256(on, bits), bits);
        let key = _mm256_and_si256(key, on);
        highest = _mm256_max_epu32(highest, key);
        *w = _mm256_blendv_epi8(none, key, on);
    }
    if most_of(highest) >= 0xffff {
        return None;
    }
    let (lo, hi) = word_bytes(&w);
    let (lo, hi) = (in_lane_order(lo), in_lane_order(hi));
    let dup = duplicates!(lo, hi);
    let followers = dup & active;
    let mut first = [0u8; WARP_SIZE];
    if followers != 0 {
        // SAFETY: 32 bytes into a 32-byte array; the store is unaligned.
        unsafe { _mm256_storeu_si256(first.as_mut_ptr().cast(), first_lanes(lo, hi)) };
    }
    Some((followers, first))
}
