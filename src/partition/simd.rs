//! The word-keyed count on x86-64 with AVX-512: the busiest bank's distinct
//! words, for any 32 addresses, without a data-dependent branch.
//!
//! The 32 words become keys with the bank in the top five bits and the row
//! below (a rotate), a bitonic network sorts them in two registers, and in the
//! sorted order a new word starts wherever a key differs from its neighbour and a
//! new bank wherever the top bits do. The answer is the most new words inside
//! one bank's run. Inactive lanes take the first active lane's word, which
//! changes no bank's set of words.
//!
//! This is the crate's only `unsafe`: calling functions compiled for AVX-512,
//! which is sound only after [`available`] said the CPU has it, and two
//! unaligned loads of the address array.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use crate::lane::WARP_SIZE;

/// Whether this CPU has what [`ways`] needs. The standard library caches the answer.
#[inline]
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512cd")
        && is_x86_feature_detected!("avx512vpopcntdq")
}

/// The most distinct words any bank holds among the active lanes (`active` not
/// empty), words being `address >> 2` and banks `word % 32`.
///
/// `None` when the CPU lacks the instructions (see [`available`]).
#[inline]
pub(super) fn ways(addresses: &[u32; WARP_SIZE], active: u32) -> Option<u32> {
    if !available() {
        return None;
    }
    // SAFETY: the CPU has every feature `ways_avx512` is compiled for
    // (checked just above; the check is a cached load).
    Some(unsafe { ways_avx512(addresses, active) })
}

#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
fn ways_avx512(addresses: &[u32; WARP_SIZE], active: u32) -> u32 {
    debug_assert!(active != 0);
    let fill = _mm512_set1_epi32(addresses[active.trailing_zeros() as usize] as i32);
    let pointer = addresses.as_ptr().cast::<__m512i>();
    // SAFETY: the array holds 32 u32, two 64-byte vectors; the loads are unaligned.
    let (low, high) = unsafe {
        (
            _mm512_loadu_si512(pointer),
            _mm512_loadu_si512(pointer.add(1)),
        )
    };
    let low = _mm512_mask_blend_epi32(active as u16, fill, low);
    let high = _mm512_mask_blend_epi32((active >> 16) as u16, fill, high);
    // word = address >> 2; key = word rotated right by 5: bank on top, row below.
    let key = |x: __m512i| _mm512_ror_epi32::<5>(_mm512_srli_epi32::<2>(x));
    let (low, high) = sort(key(low), key(high));

    // Each key's predecessor in sorted order (lane 0's is itself: masked below).
    let before_low = _mm512_alignr_epi32::<15>(low, low);
    let before_high = _mm512_alignr_epi32::<15>(high, low);
    let differ = |a: __m512i, b: __m512i, c: __m512i, d: __m512i| {
        u32::from(_mm512_cmpneq_epu32_mask(a, b))
            | u32::from(_mm512_cmpneq_epu32_mask(c, d)) << 16
            | 1
    };
    let new_word = differ(low, before_low, high, before_high);
    let bank = |x: __m512i| _mm512_srli_epi32::<27>(x);
    let new_bank = differ(bank(low), bank(before_low), bank(high), bank(before_high));

    // Lane i: the new words from its bank run's start up to i.
    let upto_low = _mm512_set_epi32(
        0xffff, 0x7fff, 0x3fff, 0x1fff, 0xfff, 0x7ff, 0x3ff, 0x1ff, 0xff, 0x7f, 0x3f, 0x1f, 0xf,
        0x7, 0x3, 0x1,
    );
    let upto_high = _mm512_or_si512(_mm512_slli_epi32::<16>(upto_low), _mm512_set1_epi32(0xffff));
    let starts = _mm512_set1_epi32(new_bank as i32);
    let words = _mm512_set1_epi32(new_word as i32);
    let run = |upto: __m512i| {
        // The highest run start at or below i, as a one-bit mask, then every
        // bit from it up to i.
        let start = _mm512_srlv_epi32(
            _mm512_set1_epi32(i32::MIN),
            _mm512_lzcnt_epi32(_mm512_and_si512(starts, upto)),
        );
        let run = _mm512_and_si512(upto, _mm512_sub_epi32(_mm512_setzero_si512(), start));
        _mm512_popcnt_epi32(_mm512_and_si512(words, run))
    };
    _mm512_reduce_max_epu32(_mm512_max_epu32(run(upto_low), run(upto_high)))
}

/// Sorts 32 keys held in two registers, ascending (a bitonic network, 15 layers).
#[target_feature(enable = "avx512f")]
fn sort(mut a: __m512i, mut b: __m512i) -> (__m512i, __m512i) {
    (a, b) = layer::<1, 2>(a, b);
    (a, b) = layer::<2, 4>(a, b);
    (a, b) = layer::<1, 4>(a, b);
    (a, b) = layer::<4, 8>(a, b);
    (a, b) = layer::<2, 8>(a, b);
    (a, b) = layer::<1, 8>(a, b);
    (a, b) = layer::<8, 16>(a, b);
    (a, b) = layer::<4, 16>(a, b);
    (a, b) = layer::<2, 16>(a, b);
    (a, b) = layer::<1, 16>(a, b);
    // The merge of the two sorted halves: lane i against lane i + 16 first.
    (a, b) = (_mm512_min_epu32(a, b), _mm512_max_epu32(a, b));
    (a, b) = layer::<8, 32>(a, b);
    (a, b) = layer::<4, 32>(a, b);
    (a, b) = layer::<2, 32>(a, b);
    layer::<1, 32>(a, b)
}

/// One compare-exchange layer of the network: element `g` (0 to 31, `a` holding
/// 0 to 15) against `g ^ J` in the same register, ascending where `g & K == 0`.
#[target_feature(enable = "avx512f")]
fn layer<const J: i32, const K: i32>(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    let partner = _mm512_xor_si512(
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        _mm512_set1_epi32(J),
    );
    let exchange = |x: __m512i, takes_max: u16| {
        let p = _mm512_permutexvar_epi32(partner, x);
        _mm512_mask_blend_epi32(takes_max, _mm512_min_epu32(x, p), _mm512_max_epu32(x, p))
    };
    (
        exchange(a, takes_max(J, K, 0)),
        exchange(b, takes_max(J, K, 16)),
    )
}

/// The lanes of the register holding elements `first..first + 16` that keep the
/// larger key: the upper of each pair in an ascending block, the lower in a
/// descending one.
const fn takes_max(j: i32, k: i32, first: i32) -> u16 {
    let mut mask = 0;
    let mut i = 0;
    while i < 16 {
        let g = first + i;
        if (g & j != 0) == (g & k == 0) {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}
