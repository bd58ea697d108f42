//! Full warps whose addresses are an arithmetic sequence in the lane: the shape
//! of nearly every shared-memory access a kernel makes (`s[base + stride * lane]`),
//! solved in closed form.
//!
//! Lane `i` reads key `k0 + i * t` (keys being 4-, 8- or 16-byte slots), and a
//! phase holds as many lanes as there are bank groups, `G` (32 words, 16
//! double words or 8 quad words: 128 bytes). Two lanes `i`, `j` of a phase share
//! a group exactly when `(i - j) * t` is a multiple of `G`, so with
//! `g = gcd(t, G)` each group holds `g` of the phase's lanes, all at different
//! keys, and the schedule of the multicast rule (step `k` serves the `k`-th
//! distinct key of every group, in lane order) is the phase's lanes
//! `k * G / g .. (k + 1) * G / g`. This is number theory, not a hardware rule;
//! the tests check it against the reference partitioner.

use crate::lane::WARP_SIZE;

/// A full warp at evenly spaced addresses that never wrap past `2^32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Affine {
    /// Bytes from one lane's address to the next (two's complement: a sequence
    /// may run downwards).
    stride: u32,
}

impl Affine {
    /// `addresses` as `a0 + i * stride`, or `None` when they are not an
    /// arithmetic sequence or one that wraps (and so can revisit an address).
    #[inline]
    pub(super) fn of(addresses: &[u32; WARP_SIZE]) -> Option<Affine> {
        let first = addresses[0];
        let stride = addresses[1].wrapping_sub(first);
        let mut off = 0;
        for pair in addresses.windows(2) {
            off |= pair[1].wrapping_sub(pair[0]) ^ stride;
        }
        if off != 0 {
            return None;
        }
        let span = u64::from((stride as i32).unsigned_abs()) * (WARP_SIZE as u64 - 1);
        let wraps = if (stride as i32) >= 0 {
            u64::from(first) + span > u64::from(u32::MAX)
        } else {
            u64::from(first) < span
        };
        (!wraps).then_some(Affine { stride })
    }

    /// Whether every lane has the same address.
    #[inline]
    pub(super) fn is_broadcast(self) -> bool {
        self.stride == 0
    }

    /// Steps per phase when keys are `1 << key_shift` bytes in `groups` bank
    /// groups (a power of two, at most 32), a phase being `groups` lanes; `None`
    /// for strides that are not whole keys (1- and 2-byte accesses that share
    /// words), which the scheduler takes.
    #[inline]
    pub(super) fn ways(self, key_shift: u32, groups: u32) -> Option<u32> {
        if self.stride == 0 {
            return Some(1);
        }
        if self.stride & ((1 << key_shift) - 1) != 0 {
            return None;
        }
        // gcd(t, G) for the key stride t, taken modulo G.
        let t = (self.stride >> key_shift) & (groups - 1);
        Some(1 << t.trailing_zeros().min(groups.trailing_zeros()))
    }
}

/// The lanes of every step of a phase of `phase_lanes` lanes (starting at
/// lane 0) that takes `ways` steps, in order: runs of `phase_lanes / ways`
/// lanes. Both are powers of two with `ways <= phase_lanes <= 32`, so the
/// runs need no division.
#[inline]
pub(super) fn steps(phase_lanes: u32, ways: u32) -> impl ExactSizeIterator<Item = u32> {
    debug_assert!(phase_lanes.is_power_of_two() && ways.is_power_of_two());
    let per_step = phase_lanes >> ways.trailing_zeros();
    let low = u32::MAX >> (32 - per_step);
    (0..ways).map(move |k| low << (k * per_step))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(base: u32, stride: u32) -> [u32; WARP_SIZE] {
        std::array::from_fn(|i| base.wrapping_add(stride.wrapping_mul(i as u32)))
    }

    fn word_ways(addresses: &[u32; WARP_SIZE]) -> Option<u32> {
        Affine::of(addresses)?.ways(2, 32)
    }

    #[test]
    fn word_strides_give_the_gcd_with_32() {
        for (stride, steps) in [
            (4, 1),
            (8, 2),
            (12, 1),
            (16, 4),
            (32, 8),
            (64, 16),
            (128, 32),
        ] {
            assert_eq!(word_ways(&warp(0, stride)), Some(steps), "{stride}");
        }
        assert_eq!(word_ways(&warp(4096, 132)), Some(1));
        assert_eq!(word_ways(&warp(4096, 0)), Some(1));
        assert!(Affine::of(&warp(4096, 0)).unwrap().is_broadcast());
        // Descending: stride -128 is still 32-way.
        assert_eq!(word_ways(&warp(4096, 128u32.wrapping_neg())), Some(32));
    }

    #[test]
    fn wide_strides_give_the_gcd_with_the_groups() {
        // float4 (16-byte keys, 8 groups): s4[2 * lane] is 2-way in each
        // quarter-warp, s4[8 * lane] 8-way, s4[3 * lane] conflict-free.
        let quad = |stride| Affine::of(&warp(0, stride)).unwrap().ways(4, 8);
        assert_eq!(quad(16), Some(1));
        assert_eq!(quad(32), Some(2));
        assert_eq!(quad(48), Some(1));
        assert_eq!(quad(128), Some(8));
        assert_eq!(quad(1024), Some(8));
        // double (8-byte keys, 16 groups).
        let double = |stride| Affine::of(&warp(0, stride)).unwrap().ways(3, 16);
        assert_eq!(double(8), Some(1));
        assert_eq!(double(32), Some(4));
        assert_eq!(double(128), Some(16));
        // A stride of one word is not a whole 8-byte key.
        assert_eq!(double(4), None);
    }

    #[test]
    fn what_the_closed_form_does_not_cover_goes_to_the_scheduler() {
        // Two-byte strides share words.
        assert_eq!(word_ways(&warp(0, 2)), None);
        // Wrapping past 2^32 revisits addresses: 0, 2^31, 0, ...
        assert_eq!(Affine::of(&warp(0, 1 << 31)), None);
        assert_eq!(Affine::of(&warp(64, 128u32.wrapping_neg())), None);
        let mut bent = warp(0, 4);
        bent[31] = 0;
        assert_eq!(Affine::of(&bent), None);
    }

    #[test]
    fn steps_are_consecutive_lane_ranges() {
        let all = |lanes, ways| steps(lanes, ways).collect::<Vec<u32>>();
        assert_eq!(all(32, 8)[0], 0xf);
        assert_eq!(all(32, 8)[7], 0xf000_0000);
        assert_eq!(all(32, 8).len(), 8);
        assert_eq!(all(32, 1), [u32::MAX]);
        assert_eq!(all(32, 32)[5], 1 << 5);
        assert_eq!(all(8, 2), [0xf, 0xf0]);
        assert_eq!(all(16, 1), [0xffff]);
    }
}
