//! How ptxas lowers `wmma.load.{a,b,c}` and `wmma.store.d` (CUDA's
//! `nvcuda::wmma` API): the SASS accesses each becomes, and every lane's
//! address in each, measured on sm_90.
//!
//! Source: `tools/device/s4d` run on an H200 (CUDA 13.0; `tests/data/ncu/wmma`,
//! its README says how): for every shape, type, matrix and layout, the SASS
//! ptxas emits for one `wmma.load`/`wmma.store` of a kernel built with
//! `nvcc -arch=sm_90`, and a *fragment map*: shared memory filled with each
//! byte's own offset, the fragment each lane loads gives the offset of each of
//! its bytes (a store: the fragment filled with tags, where each tag lands),
//! at several leading dimensions. `tools/device/s4d/wmma_table.py` turns the
//! two into [`TABLE`](table::TABLE): each SASS instruction and each
//! lane's address in it as (line, byte) from the fragment's pointer, the
//! address being `pointer + line * ldm_bytes + byte`. The same (line, byte)
//! held at every leading dimension measured (the generator checks it), and
//! Nsight Compute's counts of the probes are `tests/ptx_wmma.rs`'s expected
//! values.
//!
//! What the table says, in short (sm_90): 16-bit A/B fragments are `LDSM`
//! (`.trans` for a column-major A or a row-major B), 8-bit ones `LDSM` in the
//! layout it can serve and byte loads (`LDS.U8`) in the other, 4-bit and 1-bit
//! ones one `LDSM`; accumulators are `LDS`/`STS` of 4 or 8 bytes. nvcc writes
//! the bf16, tf32 and f64 forms without a state space (`wmma.load.a...bf16`),
//! and ptxas then emits generic `LD`/`ST`, which reach shared memory as shared
//! loads and stores.

use crate::Matrices;

mod table;

/// One SASS instruction of a lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    /// `LDS` of this many bytes a lane.
    Lds(u32),
    /// `STS` of this many bytes a lane.
    Sts(u32),
    /// `LDSM`: lanes 8m..8m+7 give matrix m's row addresses.
    Ldsm(Matrices),
    /// A generic `LD` of this many bytes (the PTX had no state space).
    Ld(u32),
    /// A generic `ST`.
    St(u32),
}

impl Piece {
    /// Whether ptxas emitted it for a generic (state-space-less) `wmma`.
    pub(crate) const fn generic(self) -> bool {
        matches!(self, Piece::Ld(_) | Piece::St(_))
    }
}

/// Each lane's (line, byte) in one instruction: lane 0's, then what each of
/// the lane index's 5 bits adds (every map measured is such a sum: lane `l`
/// is at the base plus the steps of its set bits; the generator checks it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lanes {
    pub base: (i32, i32),
    pub steps: [(i32, i32); 5],
}

impl Lanes {
    /// Lane `lane`'s (line, byte).
    pub(crate) fn at(&self, lane: usize) -> (i32, i32) {
        let mut out = self.base;
        for (bit, step) in self.steps.iter().enumerate() {
            if lane >> bit & 1 == 1 {
                out.0 += step.0;
                out.1 += step.1;
            }
        }
        out
    }
}

/// One instruction of a lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    pub piece: Piece,
    pub lanes: Lanes,
}

/// What a `wmma.load`/`wmma.store` is, as the table names it:
/// `m16n16k16.f16.a.row`, `m16n16k16.f32.c.col`, `m8n8k32.s4.a.row`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fragment {
    pub name: String,
    /// Bits of one element in memory (the stride is in elements).
    pub bits: u32,
    /// The default stride where the instruction gives none: the extent of
    /// the leading dimension (PTX ISA, wmma.load: "the number of columns
    /// for row layout, rows for column").
    pub default_stride: u32,
}

impl Fragment {
    /// From a `wmma.load`/`wmma.store` mnemonic; `None` where it is not one
    /// the table can know (a shape or type the PTX ISA does not pair).
    pub(crate) fn of(mnemonic: &str) -> Option<Fragment> {
        let parts: Vec<&str> = mnemonic.split('.').collect();
        let matrix = *parts.get(2)?;
        if !matches!(matrix, "a" | "b" | "c" | "d") {
            return None;
        }
        let layout = parts.iter().find(|p| matches!(**p, "row" | "col"))?;
        let shape = parts
            .iter()
            .find(|p| p.starts_with('m') && p.contains('n'))?;
        let ty = *parts.last()?;
        let bits = match ty {
            "f16" | "bf16" => 16,
            "f32" | "s32" | "tf32" => 32,
            "s8" | "u8" => 8,
            "s4" | "u4" => 4,
            "b1" => 1,
            "f64" => 64,
            _ => return None,
        };
        let dims: Vec<u32> = shape[1..]
            .split(['n', 'k'])
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        let [m, n, k] = dims[..] else {
            return None;
        };
        // The leading dimension's extent: A is M x K, B K x N, C/D M x N.
        let row = *layout == "row";
        let default_stride = match (matrix, row) {
            ("a", true) => k,
            ("a", false) | ("c" | "d", false) => m,
            ("b", true) | ("c" | "d", true) => n,
            ("b", false) => k,
            _ => return None,
        };
        Some(Fragment {
            name: format!("{shape}.{ty}.{matrix}.{layout}"),
            bits,
            default_stride,
        })
    }

    /// Its lowering, if measured.
    pub(crate) fn lowering(&self) -> Option<&'static [Row]> {
        table::TABLE
            .iter()
            .find(|(name, _)| *name == self.name)
            .map(|(_, rows)| *rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_are_named_as_the_table_names_them() {
        let f = Fragment::of("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16").unwrap();
        assert_eq!(
            (f.name.as_str(), f.bits, f.default_stride),
            ("m16n16k16.f16.a.row", 16, 16)
        );
        let f = Fragment::of("wmma.store.d.sync.aligned.col.m32n8k16.shared.f32").unwrap();
        assert_eq!(
            (f.name.as_str(), f.default_stride),
            ("m32n8k16.f32.d.col", 32)
        );
        let f = Fragment::of("wmma.load.b.sync.aligned.col.m8n8k128.shared.b1").unwrap();
        assert_eq!(
            (f.name.as_str(), f.bits, f.default_stride),
            ("m8n8k128.b1.b.col", 1, 128)
        );
        assert_eq!(
            Fragment::of("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32"),
            None
        );
    }

    #[test]
    fn linear_lanes_add_their_bits_steps() {
        let l = Lanes {
            base: (1, 2),
            steps: [(0, 4), (0, 8), (1, 0), (2, 0), (8, 0)],
        };
        assert_eq!(l.at(0), (1, 2));
        assert_eq!(l.at(0b10111), (1 + 1 + 8, 2 + 4 + 8));
    }
}
