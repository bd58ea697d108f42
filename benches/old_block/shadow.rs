//! Shadow state per shared byte: the accesses since the last barrier that
//! ordered the whole block, enough to tell whether a new access races with any.
//!
//! As compute-sanitizer's racecheck keeps shadow memory for shared memory (and
//! FastTrack keeps epochs), each byte keeps its accesses with the accessing
//! warp's clock: one record per warp, instruction (site) and kind of access,
//! holding the lanes and the latest time that instruction touched the byte. A
//! barrier that every warp passes clears it all. Memory is bounded: at most
//! [`SITES_PER_WARP`] records per warp and kind on a byte; past that, a new
//! site is merged into the warp's latest record of that kind (a modelling
//! choice: every racing byte is still found, but of more than that many racing
//! instructions of one warp on one byte, only some are named).

use smallvec::SmallVec;

use super::report::AccessKind;

/// The most records one warp keeps per kind of access on one byte.
pub(super) const SITES_PER_WARP: usize = 8;

/// One instruction's accesses to a byte, as the shadow keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Record {
    /// The warp.
    pub warp: u8,
    /// What the access does.
    pub kind: AccessKind,
    /// The lanes that accessed the byte (bits).
    pub lanes: u32,
    /// The warp's instruction number (its own program order), the latest.
    pub step: u32,
    /// The warp's own component of its vector clock, the latest.
    pub clock: u32,
    /// The instruction's site.
    pub site: u64,
}

/// The accesses to one byte since the last block-wide barrier.
#[derive(Debug, Default)]
pub(super) struct Cell {
    pub records: SmallVec<[Record; 2]>,
}

impl Cell {
    /// The records a new access of `kind` must be ordered after: reads race
    /// with writes and atomics, atomics with reads and writes (never with
    /// atomics), writes with everything (CUDA C++ Programming Guide, synchronization functions).
    pub fn conflicting(&self, kind: AccessKind) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(move |r| {
            !matches!(
                (kind, r.kind),
                (AccessKind::Read, AccessKind::Read) | (AccessKind::Atomic, AccessKind::Atomic)
            )
        })
    }
}

/// Every byte touched since the last block-wide barrier.
#[derive(Debug, Default)]
pub(super) struct Shadow {
    pub cells: std::collections::HashMap<u32, Cell>,
}

impl Shadow {
    /// Forgets everything: a barrier every warp passed orders all of it before
    /// whatever comes next.
    pub fn clear(&mut self) {
        self.cells.clear();
    }
}
