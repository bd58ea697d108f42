//! Shadow state per 4-byte word of shared memory: the accesses since the last
//! barrier that ordered the whole block, enough to tell whether a new access
//! races with any.
//!
//! As compute-sanitizer's racecheck keeps shadow memory for shared memory (and
//! FastTrack keeps epochs), each word keeps its accesses with the accessing
//! warp's clock: one record per instruction (site), kind of access and set of
//! the word's bytes, holding the lanes and the latest time that instruction
//! touched those bytes, and the set of warps it stands for. Records name bytes
//! with a 4-bit mask, so the shadow is exact per byte while a 4-byte (or
//! wider) access costs one record per word, not four.
//!
//! A record stands for every warp in its set: warps whose records of a word
//! would be equal but for the warp (same instruction, lanes, bytes, step in
//! their own program order and own clock, as the warps of a kernel running one
//! program in step are) share one. So a word that all 32 warps read from one
//! instruction costs one record, not 32, and adding a warp to it is a bit.
//! This is a lossless encoding: a shared record behaves exactly as the
//! per-warp records it stands for. The one thing that depends on the order of
//! a word's records, which of a warp's own records a new access merges into,
//! sees each warp's records in the order they were made: a warp joins a
//! shared record only when it has no record after it, and a record taken out
//! of a shared one for a merge goes right after it.
//!
//! The words are a flat table indexed by word, allocated once per block model
//! and reused across blocks; a barrier that every warp passes clears only the
//! words touched since the last one, and only their kinds: a word's cell
//! holds records only while its kinds are not 0, and is emptied when the
//! word is next touched, when it is written anyway.
//!
//! A quad (4 words, 16 bytes, aligned) that one 16-byte lane of a warp
//! access covers is often touched only by such lanes: 16-byte loads and
//! stores (`LDS.128`, `STS.128`, `ldmatrix` rows) are most of the words of
//! tensor-core kernels. While its four cells would hold the same records
//! (one or two, in place), the quad is coarse ([`COARSE_BIT`]): its first
//! word's cell holds them for all four, and an access of 16-byte lanes
//! checks and writes them once, not four times. Any other check of a
//! coarse word reads its quad's first cell
//! ([`records_any`](Shadow::records_any)); anything else that changes a
//! word's records splits its quad first, copying that cell to the other
//! three ([`split`](Shadow::split)), where it has just read the word's
//! kinds, so that nothing else pays for quads. So a coarse quad behaves exactly as its four
//! cells would: a modelling device, not a rule (the property tests of
//! `src/block/tests.rs` run the same programs without it).
//!
//! Four lanes of 4 bytes one after the other on a quad (a row stored a
//! word a lane: FlashInfer prefill's `STS`, whose quads its `LDSM` rows
//! then read) make it coarse too: their records differ only in their lanes,
//! lane `l + i` on word `i`, so the quad's cell holds one record whose
//! [`lane_stride`](Record::lane_stride) says so, and a check reads each
//! word's record with its own lanes ([`Shadow::records_at`], [`AFFINE_BIT`]).
//! An affine lane-to-word record, on a quad: the common case of a row costs
//! a record per four lanes, not one per lane.
//!
//! Accesses that cannot race with anything deferred so far wait unwritten
//! while the shadow holds nothing they conflict with
//! ([`Shadow::deferred`]): most of a clean kernel's accesses between two
//! barriers are never written at all.
//!
//! Memory is bounded: at most 4 x [`SITES_PER_WARP`] records per warp and
//! kind on a word, so at least that many instructions apart (an instruction
//! has up to four records on a word, one per byte mask, for 1-byte
//! accesses); past that, a new instruction is merged into the warp's latest
//! record of that kind: a modelling choice, every racing byte is still
//! found, but of more racing instructions of one warp on one word only some
//! are named. At most [`MAX_RECORDS`] records in all.

use super::report::AccessKind;

/// The fewest instructions (sites) one warp keeps apart per kind of access
/// on one word: it keeps up to four times as many records, an instruction
/// having up to one per byte mask.
pub(super) const SITES_PER_WARP: usize = 8;

/// The most records the shadow holds for one block, over all words: 64 MiB at
/// 32 bytes a record, 132 MiB with the room of the arena's spans
/// ([`Shadow::spill`]). A block
/// whose accesses between two barriers of the whole block need more is
/// refused ([`crate::Error::ShadowFull`]).
pub(super) const MAX_RECORDS: usize = 1 << 21;

/// One instruction's accesses to some bytes of a word, as the shadow keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Record {
    /// The instruction's site.
    pub site: u64,
    /// The lanes that accessed the bytes (bits).
    pub lanes: u32,
    /// The warp's instruction number (its own program order), the latest.
    pub step: u32,
    /// The warp's own component of its vector clock, the latest.
    pub clock: u32,
    /// The warps it stands for (bits): one for a `cp.async` write not yet
    /// waited for, which is never shared.
    pub warps: u32,
    /// What the access does.
    pub kind: AccessKind,
    /// The word's bytes accessed (bit `i`: byte `i` of the word).
    pub bytes: u8,
    /// A `cp.async` write its thread has not yet waited for: it races with
    /// every access to its bytes, and `clock` holds its group (the number of
    /// groups its warp had committed when it was issued) until it completes.
    pub pending: bool,
    /// In a coarse quad's cell, how the lanes go from word to word: word
    /// `i` of the quad (0 to 3) has the record with lanes `lanes << (i *
    /// lane_stride)`. 0 (the same lanes on every word: a 16-byte lane) or 1
    /// (four lanes of 4 bytes, one after the other, on the quad's four
    /// words); always 0 outside a coarse quad's cell.
    pub lane_stride: u8,
}

impl Record {
    /// A record standing for nothing: what an unused place of a cell holds.
    pub(super) const EMPTY: Record = Record {
        site: 0,
        lanes: 0,
        step: 0,
        clock: 0,
        warps: 0,
        kind: AccessKind::Read,
        bytes: 0,
        pending: false,
        lane_stride: 0,
    };

    /// Whether `self` and `other` are the same record but for their warps:
    /// one record can stand for both. Never for a pending write.
    pub fn alike(&self, other: &Record) -> bool {
        self.site == other.site
            && self.lanes == other.lanes
            && self.step == other.step
            && self.clock == other.clock
            && self.kind == other.kind
            && self.bytes == other.bytes
            && self.lane_stride == other.lane_stride
            && !self.pending
            && !other.pending
    }

    /// Whether, `self` and `other` being records of a coarse quad (with
    /// their [`lane_stride`](Self::lane_stride)), on some word of the quad
    /// they are the same record but for their warps.
    pub fn alike_on_a_word(&self, other: &Record) -> bool {
        let lanes = |r: &Record, i: u32| r.lanes << (i * u32::from(r.lane_stride));
        Record {
            lanes: 0,
            lane_stride: 0,
            ..*self
        }
        .alike(&Record {
            lanes: 0,
            lane_stride: 0,
            ..*other
        }) && (0..4).any(|i| lanes(self, i) == lanes(other, i))
    }

    /// The lanes `self` has on some word of a coarse quad that holds it.
    #[inline]
    pub fn spread(&self) -> u32 {
        let l = self.lanes;
        if self.lane_stride == 0 {
            l
        } else {
            l | l << 1 | l << 2 | l << 3
        }
    }

    /// Whether `self` and `other` are the same record but for their lanes
    /// (and how those go from word to word).
    #[inline]
    pub fn same_but_lanes(&self, other: &Record) -> bool {
        self.site == other.site
            && self.step == other.step
            && self.clock == other.clock
            && self.warps == other.warps
            && self.kind == other.kind
            && self.bytes == other.bytes
            && self.pending == other.pending
    }

    /// The record of word `i` (0 to 3) of a coarse quad that holds `self`.
    #[inline]
    pub fn on_word(&self, i: u32) -> Record {
        Record {
            lanes: self.lanes << (i * u32::from(self.lane_stride)),
            lane_stride: 0,
            ..*self
        }
    }
}

/// The accesses to one word since the last block-wide barrier: up to two
/// records in place, more in a span of the shadow's spill arena
/// ([`Shadow::spill`]). Why an arena and not a small vector that spills to
/// the heap: a racy kernel without barriers keeps three to five records on
/// most words it touches (the Rodinia LUD extract: 505 of its 768 words),
/// and a cell that outgrew two was an allocation, a copy and a free each,
/// 14% of that trace's time; four records in place (136-byte cells) cost
/// that, but made clean kernels 3-9% slower, their table of cells no
/// longer in the core's cache (a 32 KB window: 1.1 MB of cells, not 590 KB).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cell {
    /// Records held: in place up to two, else in the arena.
    len: u32,
    /// With more than two records: the start of the cell's span in the
    /// arena, of room for [`span`]`(len)` records at least.
    at: u32,
    /// The records while there are at most two.
    inline: [Record; 2],
}

impl Cell {
    /// A cell without records.
    const EMPTY: Cell = Cell {
        len: 0,
        at: 0,
        inline: [Record::EMPTY; 2],
    };
}

// The size the block module's memory docs give.
const _: () = assert!(core::mem::size_of::<Cell>() == 72);

/// The room of an arena span for `len` records (more than two): a power of
/// two, at least four, so that a cell that grows moves a logarithmic number
/// of times.
const fn span(len: u32) -> u32 {
    let room = len.next_power_of_two();
    if room < 4 {
        4
    } else {
        room
    }
}

/// A warp's access as its records are written, now or later
/// ([`Shadow::deferred`]): what the records need of the access and of its
/// warp at the time, but the lanes' addresses.
#[derive(Debug, Clone, Copy)]
pub(super) struct AccessAt {
    /// The warp.
    pub warp: u32,
    /// The instruction's site.
    pub site: u64,
    /// What the access does.
    pub kind: AccessKind,
    /// The warp's instruction number.
    pub step: u32,
    /// The warp's own component of its vector clock.
    pub clock: u32,
    /// The warp's order floor ([`super::Order`]); a warp with a lane order
    /// of its own (`seen`) is never deferred.
    pub floor: u32,
    /// The active lanes (bits).
    pub active: u32,
    /// Bytes a lane.
    pub width: u32,
    /// The highest address of the active lanes (0 for none).
    pub highest: u32,
    /// Whether the access is of whole words, each lane on words of its own
    /// (written lane by lane), else in batches of the lanes on each word.
    pub whole: bool,
}

/// An access of [`Shadow::deferred`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Deferred {
    /// The access and its warp at the time.
    pub access: AccessAt,
    /// Each lane's address (of the active lanes).
    pub addresses: [u32; 32],
    /// The lowest and the highest word the access touches.
    pub words: (u32, u32),
}

/// Whether an access of `kind` must be ordered after an earlier one of
/// `other`: reads race with writes and atomics, atomics with reads and writes
/// (never with atomics), writes with everything (CUDA C++ Programming Guide,
/// synchronization functions); a `cp.async` write is a write.
pub(super) const fn conflicts(kind: AccessKind, other: AccessKind) -> bool {
    !matches!(
        (kind, other),
        (AccessKind::Read, AccessKind::Read) | (AccessKind::Atomic, AccessKind::Atomic)
    )
}

/// The bit of a kind of access in [`Shadow::kinds`].
pub(super) const fn kind_bit(kind: AccessKind) -> u8 {
    match kind {
        AccessKind::Read => 1,
        AccessKind::Write => 2,
        AccessKind::Atomic => 4,
        AccessKind::AsyncCopy => 8,
    }
}

/// The bit of a pending `cp.async` write in [`Shadow::kinds`].
pub(super) const PENDING_BIT: u8 = 16;

/// The bit of [`Shadow::kinds`] that marks each word of a coarse quad (see
/// the module's docs): the word's records are those of the quad's first
/// word's cell, which holds at most two, in place, none pending. Never in
/// [`Shadow::any`], nor in [`relevant`]'s bits.
pub(super) const COARSE_BIT: u8 = 32;

/// The bit of [`Shadow::kinds`] that marks each word of a coarse quad one
/// of whose records has a [`lane_stride`](Record::lane_stride) of 1: its
/// words' records differ in their lanes, and a check reads each word's
/// ([`records_at`](Shadow::records_at)). Only with [`COARSE_BIT`].
pub(super) const AFFINE_BIT: u8 = 64;

/// The bits of [`Shadow::kinds`] an access of `kind` must look at: the kinds
/// it conflicts with, and pending `cp.async` writes.
pub(super) const fn relevant(kind: AccessKind) -> u8 {
    const TABLE: [u8; 4] = [
        relevant_bits(AccessKind::Read),
        relevant_bits(AccessKind::Write),
        relevant_bits(AccessKind::Atomic),
        relevant_bits(AccessKind::AsyncCopy),
    ];
    TABLE[kind as usize]
}

/// [`relevant`], worked out from [`conflicts`].
const fn relevant_bits(kind: AccessKind) -> u8 {
    let mut bits = PENDING_BIT;
    let all = [
        AccessKind::Read,
        AccessKind::Write,
        AccessKind::Atomic,
        AccessKind::AsyncCopy,
    ];
    let mut i = 0;
    while i < all.len() {
        if conflicts(kind, all[i]) {
            bits |= kind_bit(all[i]);
        }
        i += 1;
    }
    bits
}

/// The words touched since the last block-wide barrier.
#[derive(Debug, Default)]
pub(super) struct Shadow {
    /// One cell per 4-byte word of the shared window; its records are the
    /// word's only while the word's [`kinds`](Self::kinds) are not 0 (a
    /// cleared word keeps stale records until it is next touched).
    cells: Vec<Cell>,
    /// The records of the cells that hold more than two, each cell's in a
    /// span of its own. A cell that outgrows its span moves to a new one at
    /// the end, twice as large (the last span grows where it is); the old
    /// one is left unused until the arena is compacted, before a cell grows
    /// when it holds more than twice the records and the words with
    /// records, plus 4,096, or emptied (by a barrier of the whole block or a
    /// reset). So it holds at most twice the records and words of its last
    /// growth, plus 4,096 and that growth (at most twice the growing cell's
    /// records): 132 MiB with [`MAX_RECORDS`] records over many words,
    /// about 260 MiB if one word held nearly all of them.
    spill: Vec<Record>,
    /// Per word, the kinds of its records (bits of [`kind_bit`], and
    /// [`PENDING_BIT`] while it may hold a pending `cp.async` write), and
    /// [`COARSE_BIT`] while its quad is coarse: a read skips a word that
    /// only reads touched without looking at its records. 0 exactly for the
    /// words without records; the four words of a coarse quad have the same.
    pub kinds: Vec<u8>,
    /// The kinds of all words together (bits of [`kind_bit`] and
    /// [`PENDING_BIT`]): an access of a kind that none of them conflicts with
    /// (a read where the block only read since its last barrier) has nothing
    /// to check.
    pub any: u8,
    /// The words with records, for clearing.
    touched: Vec<u32>,
    /// Scratch of one access, zero between accesses: per word of the shared
    /// window, 1 + the index of the access's batch of lanes on that word.
    pub marks: Vec<u16>,
    /// Tests only: one record per warp and a batch per lane and word, the
    /// encoding the shared records must behave exactly as.
    #[cfg(test)]
    pub plain: bool,
    /// Tests only: no quad is made coarse, each word keeps its own records.
    #[cfg(test)]
    pub fine: bool,
    /// Records held, over all cells.
    pub records: usize,
    /// Records of `cp.async` writes not yet waited for.
    pub pending: usize,
    /// Accesses since the last block-wide barrier whose records are not
    /// written yet, in the order they ran: while the shadow holds no record
    /// the access conflicts with (none at all, or, for a read, only reads:
    /// records are only ever written before the deferred accesses, by the
    /// access that settled them), an access (not a `cp.async`) whose check
    /// provably finds nothing (each
    /// earlier deferred access whose words it overlaps is of a kind it does
    /// not conflict with, or ordered before it: its own warp's at or below
    /// its floor, another warp's at or below its clock) is kept here rather
    /// than written word by word, and a barrier of the whole block (or the
    /// block's end) drops it unwritten. The first access that cannot be
    /// deferred writes them all first, in order and each as it would have
    /// been written when it ran ([`super::Block::settle`]), so the records
    /// are the same. Why: a clean tiled kernel's accesses (stores, a
    /// barrier, loads, a barrier) need no record at all, and a record a lane
    /// and word was most of their time; reads over a shadow of reads (a
    /// tile's `ldmatrix` rows after an access that wrote the records) wait
    /// too. A modelling device, not a rule: the
    /// reports are the same (the property tests of `src/block/tests.rs` and
    /// `tests/block_reference.rs`).
    pub deferred: Vec<Deferred>,
    /// The indices in [`deferred`](Self::deferred) of the accesses that are
    /// not reads: all that a read must be tested against (reads do not
    /// conflict with reads).
    pub deferred_writes: Vec<u32>,
}

impl Shadow {
    /// Whether records stand for one warp each and lanes run one by one (tests only).
    pub fn plain(&self) -> bool {
        #[cfg(test)]
        return self.plain;
        #[cfg(not(test))]
        false
    }

    /// Whether quads may be made coarse (always but in tests that compare
    /// with word-by-word cells).
    #[inline]
    pub fn quads(&self) -> bool {
        #[cfg(test)]
        return !self.fine;
        #[cfg(not(test))]
        true
    }

    /// Empties the table for a shared window of `bytes` bytes. The table
    /// grows to the highest word touched (a kernel that uses 48 KB pays for
    /// 48 KB), and is kept for the next block.
    pub fn reset(&mut self, bytes: u32) {
        for &word in &self.touched {
            self.kinds[word as usize] = 0;
        }
        self.touched.clear();
        self.spill.clear();
        self.deferred.clear();
        self.deferred_writes.clear();
        self.any = 0;
        self.records = 0;
        self.pending = 0;
        let words = bytes.div_ceil(4) as usize;
        if self.cells.len() > words {
            self.cells.truncate(words);
            self.kinds.truncate(words);
        }
    }

    /// Forgets everything but the `cp.async` writes not yet waited for: a
    /// barrier every warp passed orders all of it before whatever comes next,
    /// but does not complete an asynchronous copy (PTX ISA, completion
    /// mechanisms for asynchronous copy operations).
    pub fn clear(&mut self) {
        self.deferred.clear();
        self.deferred_writes.clear();
        if self.pending == 0 {
            for &word in &self.touched {
                self.kinds[word as usize] = 0;
            }
            self.touched.clear();
            self.spill.clear();
            self.any = 0;
            self.records = 0;
            return;
        }
        self.any = kind_bit(AccessKind::AsyncCopy) | PENDING_BIT;
        let mut touched = core::mem::take(&mut self.touched);
        let mut kept = 0;
        touched.retain(|&word| {
            if self.kinds[word as usize] & COARSE_BIT != 0 {
                // A coarse quad holds no pending write.
                self.kinds[word as usize] = 0;
                return false;
            }
            let len = self.retain(word, |r| r.pending);
            kept += len;
            self.kinds[word as usize] = if len == 0 {
                0
            } else {
                kind_bit(AccessKind::AsyncCopy) | PENDING_BIT
            };
            len != 0
        });
        self.touched = touched;
        self.records = kept;
        // The arena keeps only the pending records' spans.
        self.compact();
    }

    /// The records of `word`'s cell: its records when its kinds are not 0;
    /// else stale ones, or none where they were in spans of the arena that
    /// a barrier emptied (every caller looks at the kinds first).
    #[inline]
    pub fn records(&self, word: u32) -> &[Record] {
        debug_assert!(self
            .kinds
            .get(word as usize)
            .is_none_or(|k| k & COARSE_BIT == 0));
        let cell = &self.cells[word as usize];
        let (at, len) = (cell.at as usize, cell.len as usize);
        if len <= 2 {
            &cell.inline[..len]
        } else {
            self.spill.get(at..at + len).unwrap_or(&[])
        }
    }

    /// The records of `word`, whose kinds are `kinds`, its quad coarse or
    /// not: [`records`](Self::records) for a check, which reads them.
    #[inline]
    pub fn records_any(&self, word: u32, kinds: u8) -> &[Record] {
        if kinds & COARSE_BIT != 0 {
            let cell = &self.cells[(word & !3) as usize];
            return &cell.inline[..cell.len as usize];
        }
        self.records(word)
    }

    /// The records of `word`, whose kinds are `kinds`, as a check reads
    /// them: [`records_any`](Self::records_any), but those of a word of a
    /// coarse quad with lanes that go from word to word
    /// ([`AFFINE_BIT`]) are written into `buf` with the word's lanes.
    #[inline(always)]
    pub fn records_at<'a>(
        &'a self,
        word: u32,
        kinds: u8,
        buf: &'a mut [Record; 2],
    ) -> &'a [Record] {
        if kinds & AFFINE_BIT != 0 {
            return self.records_on_word(word, buf);
        }
        self.records_any(word, kinds)
    }

    /// [`records_at`](Self::records_at) of a word of a coarse quad with
    /// [`AFFINE_BIT`]: out of line, so that the checks of other words pay
    /// one test for it.
    #[inline(never)]
    fn records_on_word<'a>(&self, word: u32, buf: &'a mut [Record; 2]) -> &'a [Record] {
        let cell = &self.cells[(word & !3) as usize];
        let records = &cell.inline[..cell.len as usize];
        for (to, from) in buf.iter_mut().zip(records) {
            *to = from.on_word(word & 3);
        }
        &buf[..records.len()]
    }

    /// Makes `word`'s quad, if coarse (its kinds `kinds`), four cells
    /// again: each holds the records the first holds. Before anything but
    /// the steps of 16-byte lanes changes one word's records.
    #[inline]
    pub fn split(&mut self, word: u32, kinds: u8) {
        if kinds & COARSE_BIT != 0 {
            self.split_quad(word & !3);
        }
    }

    /// [`split`](Self::split) of the coarse quad from word `first`.
    #[inline(never)]
    fn split_quad(&mut self, first: u32) {
        let first = first as usize;
        let cell = self.cells[first];
        debug_assert!(cell.len <= 2);
        for (i, to) in self.cells[first..first + 4].iter_mut().enumerate() {
            *to = cell;
            for record in &mut to.inline {
                *record = record.on_word(i as u32);
            }
        }
        for kinds in &mut self.kinds[first..first + 4] {
            *kinds &= !(COARSE_BIT | AFFINE_BIT);
        }
    }

    /// Whether the four words from `first` (a multiple of 4) are a coarse
    /// quad.
    #[inline]
    pub fn coarse(&self, first: u32) -> bool {
        self.kinds
            .get(first as usize)
            .is_some_and(|&kinds| kinds & COARSE_BIT != 0)
    }

    /// Whether none of the four words from `first` (a multiple of 4, within
    /// the table) has records.
    #[inline]
    pub fn quad_empty(&self, first: u32) -> bool {
        let first = first as usize;
        self.kinds[first..first + 4] == [0; 4]
    }

    /// The records of the coarse quad from `first`, to change them in
    /// place for all four words.
    #[inline]
    pub fn quad_records_mut(&mut self, first: u32) -> &mut [Record] {
        let cell = &mut self.cells[first as usize];
        &mut cell.inline[..cell.len as usize]
    }

    /// Makes `record` the only record of each of the four words from
    /// `first` (a multiple of 4, within the table), none of which has
    /// records, as a coarse quad: [`push_first`](Self::push_first) of each.
    #[inline]
    pub fn push_quad(&mut self, first: u32, record: Record) {
        debug_assert!(self.quad_empty(first) && !record.pending);
        self.restart(first, record);
        self.touched
            .extend_from_slice(&[first, first + 1, first + 2, first + 3]);
        let bits = kind_bit(record.kind);
        let at = first as usize;
        let affine = if record.lane_stride == 0 {
            0
        } else {
            AFFINE_BIT
        };
        self.kinds[at..at + 4].fill(bits | COARSE_BIT | affine);
        self.any |= bits;
        self.records += 4;
    }

    /// Adds a record that is not a pending write after the one record of
    /// the coarse quad from `first`: [`push_more`](Self::push_more) of
    /// each of its words.
    #[inline]
    pub fn push_more_quad(&mut self, first: u32, record: Record) {
        let cell = &mut self.cells[first as usize];
        debug_assert!(cell.len == 1 && !record.pending);
        cell.inline[1] = record;
        cell.len = 2;
        let affine = if record.lane_stride == 0 {
            0
        } else {
            AFFINE_BIT
        };
        let bits = kind_bit(record.kind);
        let at = first as usize;
        for kinds in &mut self.kinds[at..at + 4] {
            *kinds |= bits | affine;
        }
        self.any |= bits;
        self.records += 4;
    }

    /// [`records`](Self::records), to change them in place.
    #[inline]
    pub fn records_mut(&mut self, word: u32) -> &mut [Record] {
        debug_assert!(self
            .kinds
            .get(word as usize)
            .is_none_or(|k| k & COARSE_BIT == 0));
        let cell = &mut self.cells[word as usize];
        let (at, len) = (cell.at as usize, cell.len as usize);
        if len <= 2 {
            &mut cell.inline[..len]
        } else {
            self.spill.get_mut(at..at + len).unwrap_or(&mut [])
        }
    }

    /// Makes `record` the only record of `word`'s cell, replacing whatever
    /// it held (stale records of a word a barrier cleared, or none left by
    /// [`retain`](Self::retain)); the word's kinds and counts are the
    /// caller's.
    #[inline]
    pub fn restart(&mut self, word: u32, record: Record) {
        debug_assert!(self
            .kinds
            .get(word as usize)
            .is_none_or(|k| k & COARSE_BIT == 0));
        let cell = &mut self.cells[word as usize];
        cell.len = 1;
        cell.inline[0] = record;
    }

    /// Adds `record` after the records of `word`'s cell, moving them into
    /// the arena when they outgrow the cell, or their span.
    #[inline]
    fn append(&mut self, word: u32, record: Record) {
        debug_assert!(self
            .kinds
            .get(word as usize)
            .is_none_or(|k| k & COARSE_BIT == 0));
        let cell = &mut self.cells[word as usize];
        let len = cell.len;
        if len < 2 {
            cell.inline[len as usize] = record;
            cell.len += 1;
            return;
        }
        if len == 2 || len == span(len) {
            self.make_room(word);
        }
        let cell = &mut self.cells[word as usize];
        self.spill[(cell.at + len) as usize] = record;
        cell.len += 1;
    }

    /// Moves the records of `word`'s cell, two in place or a full span, to
    /// a span of the arena with room for one more.
    #[cold]
    fn make_room(&mut self, word: u32) {
        if self.spill.len() > 2 * (self.records + self.touched.len()) + 4096 {
            self.compact();
        }
        let Cell { len, at, .. } = self.cells[word as usize];
        if len > 2 && (at + span(len)) as usize == self.spill.len() {
            // The last span grows where it is (a word that takes most of
            // the records does not need room for them twice).
            self.spill
                .resize(self.spill.len() + span(len) as usize, Record::EMPTY);
            return;
        }
        let at = self.spill.len();
        self.spill
            .resize(at + span(len + 1) as usize, Record::EMPTY);
        let cell = &mut self.cells[word as usize];
        if len == 2 {
            self.spill[at..at + 2].copy_from_slice(&cell.inline);
        } else {
            let from = cell.at as usize;
            self.spill.copy_within(from..from + len as usize, at);
        }
        cell.at = at as u32;
    }

    /// Moves the cells with more than two records to spans one after the
    /// other at the arena's start, leaving out the spans no cell uses.
    #[cold]
    fn compact(&mut self) {
        let mut spill = Vec::with_capacity(2 * self.records);
        for &word in &self.touched {
            let cell = &mut self.cells[word as usize];
            // A coarse quad's records are in place (its other cells are
            // stale).
            let kinds = self.kinds[word as usize];
            if kinds == 0 || kinds & COARSE_BIT != 0 || cell.len <= 2 {
                continue;
            }
            let at = spill.len();
            let from = cell.at as usize;
            spill.extend_from_slice(&self.spill[from..from + cell.len as usize]);
            spill.resize(at + span(cell.len) as usize, Record::EMPTY);
            cell.at = at as u32;
        }
        self.spill = spill;
    }

    /// Keeps the records of `word`'s cell that `keep` keeps (it may change
    /// them), in order; the number kept. A cell left with two or fewer
    /// holds them in place again.
    pub fn retain(&mut self, word: u32, mut keep: impl FnMut(&mut Record) -> bool) -> usize {
        let records = self.records_mut(word);
        let mut kept = 0;
        for i in 0..records.len() {
            if keep(&mut records[i]) {
                records[kept] = records[i];
                kept += 1;
            }
        }
        let cell = &mut self.cells[word as usize];
        if cell.len > 2 && kept <= 2 {
            let from = cell.at as usize;
            cell.inline[..kept].copy_from_slice(&self.spill[from..from + kept]);
        }
        cell.len = kept as u32;
        kept
    }

    /// The number of records of `word`'s cell (stale ones when its kinds
    /// are 0).
    pub fn len(&self, word: u32) -> usize {
        debug_assert!(self
            .kinds
            .get(word as usize)
            .is_none_or(|k| k & COARSE_BIT == 0));
        self.cells[word as usize].len as usize
    }

    /// The records of a word: none when its kinds are 0 (its cell may hold
    /// stale ones) or it is past the table.
    #[cfg(test)]
    pub fn cell(&self, word: u32) -> Vec<Record> {
        match self.kinds.get(word as usize) {
            Some(&kinds) if kinds != 0 => self
                .records_at(word, kinds, &mut [Record::EMPTY; 2])
                .to_vec(),
            _ => Vec::new(),
        }
    }

    /// Puts a record at `index` of a word's cell, which has records.
    pub fn insert(&mut self, word: u32, index: usize, record: Record) {
        self.append(word, record);
        self.records_mut(word)[index..].rotate_right(1);
        let bits = kind_bit(record.kind) | (PENDING_BIT * u8::from(record.pending));
        self.kinds[word as usize] |= bits;
        self.any |= bits;
        self.records += 1;
        self.pending += usize::from(record.pending);
    }

    /// Grows the table to hold `words` words.
    pub fn grow(&mut self, words: usize) {
        if self.cells.len() < words {
            self.cells.resize(words, Cell::EMPTY);
            self.kinds.resize(words, 0);
        }
    }

    /// Adds the first record of a word the table holds and no record covers
    /// (its [`kinds`](Self::kinds) are 0): [`push`](Self::push) without its
    /// checks, for the commonest step of whole-word accesses.
    #[inline]
    pub fn push_first(&mut self, word: u32, record: Record) {
        debug_assert!(self.kinds[word as usize] == 0 && !record.pending);
        self.restart(word, record);
        self.touched.push(word);
        self.kinds[word as usize] = kind_bit(record.kind);
        self.any |= kind_bit(record.kind);
        self.records += 1;
    }

    /// Adds a record that is not a pending write to the cell of a word that
    /// has records: [`push`](Self::push) without its checks.
    #[inline]
    pub fn push_more(&mut self, word: u32, record: Record) {
        debug_assert!(self.kinds[word as usize] != 0 && !record.pending);
        self.append(word, record);
        self.kinds[word as usize] |= kind_bit(record.kind);
        self.any |= kind_bit(record.kind);
        self.records += 1;
    }

    /// Adds a record to a word's cell.
    pub fn push(&mut self, word: u32, record: Record) {
        if self.cells.len() <= word as usize {
            self.cells.resize(word as usize + 1, Cell::EMPTY);
            self.kinds.resize(word as usize + 1, 0);
        }
        if self.kinds[word as usize] == 0 {
            self.restart(word, record);
            self.touched.push(word);
        } else {
            self.append(word, record);
        }
        let bits = kind_bit(record.kind) | (PENDING_BIT * u8::from(record.pending));
        self.kinds[word as usize] |= bits;
        self.any |= bits;
        self.records += 1;
        self.pending += usize::from(record.pending);
    }
}

/// The words an access of `width` bytes at `address` covers, each with the mask
/// of its bytes.
pub(super) fn words(address: u32, width: u32) -> impl Iterator<Item = (u32, u8)> {
    let end = address.saturating_add(width).saturating_sub(1);
    let (first, last) = (address / 4, end / 4);
    // The first word's bytes from the address on, the last word's up to the end.
    let head = (0xf << (address % 4)) & 0xf;
    let tail = 0xf >> (3 - end % 4);
    (first..=last).map(move |word| {
        let mut mask = 0xf;
        if word == first {
            mask &= head;
        }
        if word == last {
            mask &= tail;
        }
        (word, mask)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_masks_of_each_width() {
        let all = |a, w| words(a, w).collect::<Vec<_>>();
        assert_eq!(all(5, 1), [(1, 0b0010)]);
        assert_eq!(all(6, 2), [(1, 0b1100)]);
        assert_eq!(all(8, 4), [(2, 0b1111)]);
        assert_eq!(all(8, 8), [(2, 0b1111), (3, 0b1111)]);
        assert_eq!(all(16, 16).len(), 4);
        // Misaligned (never built by a request, handled all the same).
        assert_eq!(all(3, 2), [(0, 0b1000), (1, 0b0001)]);
    }

    /// A record told apart by its site; pending or not.
    fn numbered(site: u64, pending: bool) -> Record {
        Record {
            site,
            lanes: 1,
            kind: AccessKind::Write,
            bytes: 0xf,
            pending,
            ..Record::EMPTY
        }
    }

    /// What `complete` does after taking records out of a cell: the counts.
    fn retain(shadow: &mut Shadow, word: u32, keep: impl Fn(&Record) -> bool) -> Vec<Record> {
        let mut out = Vec::new();
        let kept = shadow.retain(word, |r| {
            let keep = keep(r);
            if !keep {
                out.push(*r);
            }
            keep
        });
        shadow.records -= out.len();
        shadow.pending -= out.iter().filter(|r| r.pending).count();
        assert_eq!(shadow.len(word), kept);
        out
    }

    /// The arena holds about twice the records at most, whatever the cells
    /// do: the bound of the docs, with `peak` the most records held since
    /// the last barrier (a cell that lost records keeps its span).
    fn assert_bounded(shadow: &Shadow, peak: usize) {
        let bound = 2 * (peak + shadow.touched.len()) + 4096;
        assert!(
            shadow.spill.len() <= bound + 2 * span(peak as u32 + 1) as usize,
            "arena of {} records for {} records on {} words",
            shadow.spill.len(),
            shadow.records,
            shadow.touched.len()
        );
    }

    /// Cells that grow past two records into the arena, move to larger
    /// spans, lose records (back in place at two or fewer), take records
    /// at any index, and are cleared by barriers that keep pending writes:
    /// each word's records are always a plain list's.
    #[test]
    fn cells_hold_the_records_of_a_list() {
        for seed in 1..=20u64 {
            let mut state = seed;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut shadow = Shadow::default();
            shadow.reset(64 * 4);
            let mut model: Vec<Vec<Record>> = vec![Vec::new(); 64];
            let (mut site, mut peak) = (0, 0);
            for _ in 0..20_000 {
                // A few words take most of the operations: long cells.
                let word = (next() % if next() % 4 == 0 { 64 } else { 4 }) as u32;
                let list = &mut model[word as usize];
                site += 1;
                let record = numbered(site, next() % 16 == 0);
                match next() % 16 {
                    0..=8 => {
                        shadow.push(word, record);
                        list.push(record);
                    }
                    9..=11 if !list.is_empty() => {
                        let index = (next() % (list.len() as u64 + 1)) as usize;
                        shadow.insert(word, index, record);
                        list.insert(index, record);
                    }
                    12..=14 if !list.is_empty() => {
                        // Keeps the first record (the cell keeps records)
                        // and about half of the others.
                        let first = list[0].site;
                        let odd = next() % 2;
                        let keep = |r: &Record| r.site == first || r.site % 2 == odd;
                        retain(&mut shadow, word, keep);
                        list.retain(keep);
                    }
                    15 if next() % 64 == 0 => {
                        shadow.clear();
                        for list in &mut model {
                            list.retain(|r| r.pending);
                        }
                        peak = 0;
                    }
                    _ => {}
                }
                peak = peak.max(shadow.records);
                assert_bounded(&shadow, peak);
            }
            for (word, list) in model.iter().enumerate() {
                assert_eq!(
                    shadow.cell(word as u32),
                    list[..],
                    "seed {seed}, word {word}"
                );
            }
        }
    }

    /// A cell that loses records and grows again, again and again, leaves
    /// spans behind; the arena is compacted, not grown without end.
    #[test]
    fn spans_left_behind_are_compacted() {
        let mut shadow = Shadow::default();
        shadow.reset(16);
        shadow.grow(4);
        let mut site = 0;
        let mut compacted = false;
        for _ in 0..10_000 {
            while shadow.len(1) < 9 {
                site += 1;
                shadow.push(1, numbered(site, false));
            }
            let before = shadow.spill.len();
            let first = shadow.records(1)[0].site;
            retain(&mut shadow, 1, |r| r.site == first || r.site > site - 2);
            assert_eq!(shadow.len(1), 3);
            compacted |= shadow.spill.len() < before;
            assert_bounded(&shadow, 9);
        }
        let sites: Vec<u64> = shadow.records(1).iter().map(|r| r.site).collect();
        assert_eq!(sites, [1, site - 1, site]);
        assert!(compacted || shadow.spill.len() < 4096, "never compacted");
    }
}
