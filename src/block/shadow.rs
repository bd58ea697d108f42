//! Shadow state per shared byte: the accesses since the last barrier that
//! ordered the whole block, enough to tell whether a new access races with any.
//!
//! Like compute-sanitizer's racecheck shadow memory (and FastTrack's epochs),
//! each byte keeps the last plain write and, per warp, the latest read and the
//! latest atomic, each with the warp's clock at the time. Memory is bounded by
//! the bytes touched times the warps of the block, and a barrier that every
//! warp passes clears it all. What is kept per warp is the latest access
//! (with the lanes of the warp's unordered accesses merged into it): a
//! modelling choice that finds every racing byte, but can name only the latest
//! of several racing instructions of one warp on one byte.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::report::AccessKind;

/// One instruction's access to a byte, as the shadow keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Record {
    /// The warp.
    pub warp: u8,
    /// The lanes that accessed the byte (bits).
    pub lanes: u32,
    /// The warp's instruction number (its own program order).
    pub step: u32,
    /// The warp's own component of its vector clock.
    pub clock: u32,
    /// The instruction's site.
    pub site: u64,
}

/// The accesses to one byte since the last block-wide barrier.
#[derive(Debug, Default)]
pub(super) struct Cell {
    pub write: Option<Record>,
    pub reads: SmallVec<[Record; 1]>,
    pub atomics: SmallVec<[Record; 1]>,
}

impl Cell {
    /// The records a new access of `kind` must be ordered after, with the
    /// kind of each.
    pub fn conflicting(&self, kind: AccessKind) -> impl Iterator<Item = (&Record, AccessKind)> {
        let write = self.write.iter().map(|r| (r, AccessKind::Write));
        let reads = self.reads.iter().map(|r| (r, AccessKind::Read));
        let atomics = self.atomics.iter().map(|r| (r, AccessKind::Atomic));
        // Reads race with writes and atomics; atomics with reads and writes,
        // never with atomics; writes with everything.
        let (with_reads, with_atomics) = match kind {
            AccessKind::Read => (false, true),
            AccessKind::Atomic => (true, false),
            AccessKind::Write => (true, true),
        };
        write
            .chain(reads.filter(move |_| with_reads))
            .chain(atomics.filter(move |_| with_atomics))
    }
}

/// Every byte touched since the last block-wide barrier.
#[derive(Debug, Default)]
pub(super) struct Shadow {
    pub cells: HashMap<u32, Cell>,
}

impl Shadow {
    /// Forgets everything: a barrier every warp passed orders all of it before
    /// whatever comes next.
    pub fn clear(&mut self) {
        self.cells.clear();
    }
}
