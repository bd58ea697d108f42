//! Full warps whose addresses are an arithmetic sequence in the lane: the shape
//! of nearly every shared-memory access a kernel makes (`s[base + stride * lane]`),
//! solved in closed form.
//!
//! Lane `i` reads word `w0 + i * t`. Two lanes `i`, `j` share a bank exactly when
//! `(i - j) * t` is a multiple of 32, so with `g = gcd(t, 32)` each bank holds
//! `g` lanes, all at different words, and the schedule of the multicast rule
//! (step `k` serves the `k`-th distinct word of every bank, in lane order) is
//! lanes `k * 32 / g .. (k + 1) * 32 / g`. This is number theory, not a hardware
//! rule; the tests check it against the reference partitioner.

use crate::lane::WARP_SIZE;

/// A full warp's word-keyed schedule, when the addresses allow the closed form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Affine {
    /// Steps: the ways of the busiest bank.
    pub(super) steps: u32,
}

impl Affine {
    /// The schedule of `addresses` (every lane active) keyed by 4-byte word in
    /// 32 banks, or `None` when they are not `a0 + i * s` with `s` a multiple
    /// of 4 and no wrap-around (the general scheduler takes those).
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
        if stride == 0 {
            return Some(Affine { steps: 1 });
        }
        // Sub-word strides of 1- and 2-byte accesses put several lanes in one
        // word; and a sequence that wraps past 2^32 can revisit an address.
        let span = u64::from((stride as i32).unsigned_abs()) * (WARP_SIZE as u64 - 1);
        let wraps = if (stride as i32) >= 0 {
            u64::from(first) + span > u64::from(u32::MAX)
        } else {
            u64::from(first) < span
        };
        if !stride.is_multiple_of(4) || wraps {
            return None;
        }
        // gcd(t, 32) for the word stride t = stride / 4, taken modulo 32.
        let t = (stride >> 2) & 31;
        Some(Affine {
            steps: 1 << t.trailing_zeros().min(5),
        })
    }

    /// The lanes served in step `k`.
    #[inline]
    pub(super) fn step_lanes(self, k: u32) -> u32 {
        let per_step = WARP_SIZE as u32 / self.steps;
        let low = if per_step == 32 {
            u32::MAX
        } else {
            (1 << per_step) - 1
        };
        low << (k * per_step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(base: u32, stride: u32) -> [u32; WARP_SIZE] {
        std::array::from_fn(|i| base.wrapping_add(stride.wrapping_mul(i as u32)))
    }

    #[test]
    fn strides_give_the_gcd_with_32() {
        for (stride, steps) in [
            (4, 1),
            (8, 2),
            (12, 1),
            (16, 4),
            (32, 8),
            (64, 16),
            (128, 32),
        ] {
            assert_eq!(
                Affine::of(&warp(0, stride)),
                Some(Affine { steps }),
                "{stride}"
            );
        }
        assert_eq!(Affine::of(&warp(4096, 132)), Some(Affine { steps: 1 }));
        assert_eq!(Affine::of(&warp(4096, 0)), Some(Affine { steps: 1 }));
        // Descending: stride -128 is still 32-way.
        assert_eq!(
            Affine::of(&warp(4096, 128u32.wrapping_neg())),
            Some(Affine { steps: 32 })
        );
    }

    #[test]
    fn what_the_closed_form_does_not_cover_goes_to_the_scheduler() {
        // Two-byte strides share words.
        assert_eq!(Affine::of(&warp(0, 2)), None);
        // Wrapping past 2^32 revisits addresses: 0, 2^31, 0, ...
        assert_eq!(Affine::of(&warp(0, 1 << 31)), None);
        assert_eq!(Affine::of(&warp(64, 128u32.wrapping_neg())), None);
        let mut bent = warp(0, 4);
        bent[31] = 0;
        assert_eq!(Affine::of(&bent), None);
    }

    #[test]
    fn steps_are_consecutive_lane_ranges() {
        let eight = Affine { steps: 8 };
        assert_eq!(eight.step_lanes(0), 0xf);
        assert_eq!(eight.step_lanes(7), 0xf000_0000);
        assert_eq!(Affine { steps: 1 }.step_lanes(0), u32::MAX);
        assert_eq!(Affine { steps: 32 }.step_lanes(5), 1 << 5);
    }
}
