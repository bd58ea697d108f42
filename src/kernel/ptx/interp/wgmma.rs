//! `wgmma.mma_async`'s shared-memory operands: which bytes a warpgroup's
//! matrix multiply reads through its matrix descriptors, and what Nsight
//! Compute counts for them.
//!
//! A descriptor is a 64-bit value the kernel computes (PTX ISA, "Matrix
//! Descriptor Format" of the asynchronous warpgroup-level matrix
//! instructions): the start address `>> 4` in bits 0-13, the leading
//! dimension byte offset (LBO) `>> 4` in bits 16-29, the stride dimension
//! byte offset (SBO) `>> 4` in bits 32-45, a base offset in bits 49-51 and
//! the swizzle mode in bits 62-63 (0 none, 1 128 bytes, 2 64 bytes, 3 32
//! bytes).
//!
//! The operand is read in *core matrices*: 8 rows of 16 bytes. Where they
//! lie is the canonical layout CUTLASS writes for each mode
//! (`cute/atom/mma_traits_sm90_gmma.hpp`, `make_gmma_desc`; in 16-byte units,
//! `T` elements a unit):
//! - K-major, no swizzle: `((8,n),2):((1,SBO),LBO)`: a core matrix's rows are
//!   16 bytes apart, the 8-row groups SBO apart, the two 16-byte halves of a
//!   row's 32 bytes of K LBO apart.
//! - K-major, swizzle width W (32, 64, 128 bytes): `((8,n),2):((W/16,SBO),1)`:
//!   rows W bytes apart, 8-row groups SBO apart, K contiguous.
//! - MN-major (the transpose bit, 16-bit types only), no swizzle:
//!   `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`: a core matrix is 8 rows of K,
//!   each 16 bytes of M or N; core matrices along M/N SBO apart, the two
//!   8-row groups of K LBO apart.
//! - MN-major, swizzle width W: `((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO))`:
//!   rows of K W bytes apart, 8-row groups SBO apart, W-byte atoms along M/N
//!   LBO apart.
//!
//! Swizzling then permutes the 16-byte chunks of the address (CUTLASS's
//! `Swizzle<B,4,3>`, B = 3, 2, 1 for 128, 64, 32 bytes): bits 4 to 4+B take
//! the XOR of bits 7 to 7+B. The hardware applies it to the shared address
//! itself, which is why a swizzled tile must be aligned to the pattern's
//! repeat (1,024, 512, 256 bytes) or carry the base offset; a descriptor with
//! a non-zero base offset is not modelled.
//!
//! # What Nsight Compute counts
//!
//! Each of the warpgroup's 4 warps executes the instruction:
//! `smsp__sass_inst_executed_op_shared_gmma` counts one a warp. The operand
//! reads are the warpgroup's: one wavefront a core matrix where its 8 rows
//! fall in 8 different groups of 4 banks (every canonical layout), so
//! `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma` is A's 16 core
//! matrices (64 rows x 32 bytes, where A is in shared memory) plus B's N / 4.
//! Measured on an H200 (`tests/data/ncu/wgmma`, `tests/ptx_wgmma.rs`): 276
//! probes, every type (f16, bf16, tf32, e4m3, s8), N from 8 to 256, A from
//! shared memory or registers, both major-nesses, each swizzle mode and
//! strides off the canonical layouts, all exact, at instruction level
//! (`sm__sass_..._op_gmma`) and unit level alike; and Triton 3.6's
//! `fx_h_matmul` (`tests/data/ncu/hopper`: 4,096 instructions, 49,152
//! wavefronts). No layout measured conflicted: a core matrix's rows are 16
//! bytes apart or swizzled across the 8 groups, whatever LBO and SBO say. A
//! core matrix whose chunks did share a group would take as many wavefronts
//! as the most in one group (a modelling choice: no descriptor found makes
//! one).
//!
//! # When the reads happen
//!
//! The hardware reads the operands asynchronously, between the
//! `wgmma.mma_async` and the `wgmma.wait_group` that retires its group
//! (`wgmma.commit_group` closes a group; `wait_group N` leaves the `N` most
//! recent pending). The counts are given at the instruction; the reads reach
//! the race checker at that wait ([`Event::GmmaReads`](crate::kernel::Event::GmmaReads)),
//! the last moment they can happen: a store by another warp after the
//! `wgmma` and before the wait races with them even across a barrier, one
//! ordered after the wait does not (`tests/ptx_wgmma.rs`). A store by the
//! reading warp itself between the two comes before the modelled reads in
//! its program order, though the hardware may read before it: not
//! reported. A warp that ends without waiting has its reads placed at its
//! end.

/// The swizzle mode of a descriptor (bits 62-63).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swizzle {
    None,
    B128,
    B64,
    B32,
}

impl Swizzle {
    /// The swizzle width in bytes (the row pitch of a swizzled layout);
    /// `None` for no swizzle.
    pub(crate) const fn width(self) -> Option<u32> {
        match self {
            Swizzle::None => None,
            Swizzle::B128 => Some(128),
            Swizzle::B64 => Some(64),
            Swizzle::B32 => Some(32),
        }
    }

    /// The address with its 16-byte chunk index XORed with the bits above
    /// the 128-byte line (CUTLASS `Swizzle<B,4,3>`).
    pub(crate) const fn apply(self, addr: u32) -> u32 {
        let bits = match self {
            Swizzle::None => return addr,
            Swizzle::B128 => 3,
            Swizzle::B64 => 2,
            Swizzle::B32 => 1,
        };
        addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)
    }
}

/// A decoded matrix descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Descriptor {
    /// Shared-memory byte address of the operand's first core matrix.
    pub start: u32,
    /// Leading dimension byte offset.
    pub lbo: u32,
    /// Stride dimension byte offset.
    pub sbo: u32,
    /// Bits 49-51.
    pub base_offset: u32,
    pub swizzle: Swizzle,
}

impl Descriptor {
    /// The fields of a 64-bit descriptor.
    pub(crate) fn decode(d: u64) -> Descriptor {
        let field = |shift: u32| (((d >> shift) & 0x3FFF) as u32) << 4;
        Descriptor {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            base_offset: ((d >> 49) & 7) as u32,
            swizzle: match (d >> 62) & 3 {
                0 => Swizzle::None,
                1 => Swizzle::B128,
                2 => Swizzle::B64,
                _ => Swizzle::B32,
            },
        }
    }
}

/// The byte offset of each 16-byte chunk of one operand a `wgmma` reads, in
/// core-matrix order (each run of 8 is one core matrix).
///
/// `rows` is the operand's extent in M or N (64 for A, N for B); every dense
/// `wgmma` reads 32 bytes of K a row (16 16-bit elements, 8 `tf32`, 32 8-bit
/// ones). `mn_major`: the transpose bit (16-bit types: K is then 16 rows of
/// `rows * 2` bytes).
pub(crate) fn chunks(desc: &Descriptor, rows: u32, mn_major: bool) -> Vec<u32> {
    let mut out = Vec::with_capacity((rows * 2) as usize);
    let sw = desc.swizzle;
    if !mn_major {
        // Core matrix (group g of 8 rows, K half c): row r of it.
        for g in 0..rows / 8 {
            for c in 0..2 {
                for r in 0..8 {
                    let a = match sw.width() {
                        None => desc.start + g * desc.sbo + r * 16 + c * desc.lbo,
                        Some(w) => desc.start + g * desc.sbo + r * w + c * 16,
                    };
                    out.push(sw.apply(a));
                }
            }
        }
    } else {
        // Core matrix (16-byte unit j of M/N, group h of 8 K rows): K row r.
        for j in 0..rows * 2 / 16 {
            for h in 0..2 {
                for r in 0..8 {
                    let a = match sw.width() {
                        None => desc.start + j * desc.sbo + h * desc.lbo + r * 16,
                        Some(w) => {
                            let (atom, within) = (j * 16 / w, j * 16 % w);
                            desc.start + atom * desc.lbo + h * desc.sbo + r * w + within
                        }
                    };
                    out.push(sw.apply(a));
                }
            }
        }
    }
    out
}

/// Wavefronts to read `chunks` (core matrices of 8 chunks): for each core
/// matrix, the largest number of its distinct chunks that fall in one group
/// of 4 banks (16-byte chunk index mod 8): 1 where its 8 rows cover the 32
/// banks once.
pub(crate) fn wavefronts(chunks: &[u32]) -> u64 {
    chunks
        .chunks(8)
        .map(|m| {
            let mut distinct: Vec<u32> = m.iter().map(|a| a & !15).collect();
            distinct.sort_unstable();
            distinct.dedup();
            let mut per = [0u32; 8];
            for a in distinct {
                per[((a >> 4) & 7) as usize] += 1;
            }
            u64::from(per.into_iter().max().unwrap_or(0))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(start: u32, lbo: u32, sbo: u32, swizzle: u64) -> u64 {
        u64::from(start >> 4)
            | u64::from(lbo >> 4) << 16
            | u64::from(sbo >> 4) << 32
            | swizzle << 62
    }

    #[test]
    fn triton_descriptors_decode() {
        // tests/data/ncu/hopper/triton/triton_h_matmul/kernel.ptx: the
        // constants ORed into A's and B's start addresses.
        let a = Descriptor::decode(4_611_686_293_305_294_848 | 0x0C00);
        assert_eq!(a.swizzle, Swizzle::B128);
        assert_eq!((a.start, a.lbo, a.sbo, a.base_offset), (0xC000, 0, 1024, 0));
        let b = Descriptor::decode(4_611_686_293_338_849_280);
        assert_eq!((b.lbo, b.sbo, b.swizzle), (8192, 1024, Swizzle::B128));
    }

    #[test]
    fn canonical_layouts_read_each_byte_once_without_conflicts() {
        // A (64 rows) and B (N rows) in each mode's canonical layout: 2 x
        // rows / 8 core matrices, one wavefront each.
        for (sw, w) in [(0u64, 0u32), (1, 128), (2, 64), (3, 32)] {
            for rows in [8u32, 64, 256] {
                let (lbo, sbo) = if w == 0 { (128, 256) } else { (16, 8 * w) };
                let d = Descriptor::decode(desc(0x1_0000, lbo, sbo, sw));
                let c = chunks(&d, rows, false);
                let mut sorted = c.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(
                    sorted.len() as u32,
                    rows * 2,
                    "K-major swizzle {w} rows {rows}"
                );
                assert_eq!(wavefronts(&c), u64::from(rows / 4), "K-major swizzle {w}");
                let (lbo, sbo) = if w == 0 {
                    (rows / 8 * 128, 128)
                } else {
                    (16 * w, 8 * w)
                };
                let d = Descriptor::decode(desc(0x1_0000, lbo, sbo, sw));
                let c = chunks(&d, rows, true);
                assert_eq!(wavefronts(&c), u64::from(rows / 4), "MN-major swizzle {w}");
            }
        }
    }
}
