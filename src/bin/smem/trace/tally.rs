//! What `smem trace` counts: sums over requests, per op and per instruction,
//! the best-ranked instructions and the first errors.
//!
//! Each worker keeps one [`Counts`] over all the chunks it analyses (so an
//! instruction costs one table entry a worker, not one a chunk, and nothing is
//! merged per chunk); the main thread merges the workers' counts once, at the
//! end. Every figure is a sum, a minimum or a maximum, and the ranking breaks
//! ties by first appearance, so the result does not depend on how the input
//! was split among threads.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::Serialize;
use smem_model::{AccessWidth, ComputeCapability, Cost, Op};

use smem_model::kernel::accelsim::input::Location;

/// Errors printed in full; the rest are counted.
pub(super) const SHOWN_ERRORS: usize = 20;

/// Sums over requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(super) struct Totals {
    pub(super) requests: u64,
    pub(super) wavefronts: u64,
    pub(super) ideal_wavefronts: u64,
    pub(super) bank_conflicts: u64,
    /// Requests with at least one bank conflict.
    pub(super) conflicted_requests: u64,
    /// The worst request's ways (the busiest phase's steps).
    pub(super) worst_ways: u32,
}

impl Totals {
    pub(super) fn add(&mut self, cost: Cost) {
        self.requests += 1;
        self.wavefronts += u64::from(cost.wavefronts());
        self.ideal_wavefronts += u64::from(cost.ideal_wavefronts());
        self.bank_conflicts += u64::from(cost.bank_conflicts());
        self.conflicted_requests += u64::from(cost.bank_conflicts() > 0);
        self.worst_ways = self.worst_ways.max(cost.ways());
    }

    pub(super) fn merge(&mut self, other: &Totals) {
        self.requests += other.requests;
        self.wavefronts += other.wavefronts;
        self.ideal_wavefronts += other.ideal_wavefronts;
        self.bank_conflicts += other.bank_conflicts;
        self.conflicted_requests += other.conflicted_requests;
        self.worst_ways = self.worst_ways.max(other.worst_ways);
    }
}

/// What identifies an instruction of the ranking.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// A trace instruction: the kernel (its interned name) and PC. Two
    /// kernels of one name (a header repeated) are one.
    Code { kernel: u32, pc: u64 },
    /// Corpus records with this label.
    Label(Box<str>),
    /// A corpus record without a label: an instruction of its own.
    Record(Location),
}

/// A source line (`--by-line`): the file where the trace names one, and the line.
pub(super) type SourceLine = (Option<Box<str>>, u32);

/// One instruction: a trace PC, a label or an unlabelled record.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) key: Key,
    /// The opcode as the trace writes it (trace instructions only).
    pub(super) opcode: Box<str>,
    pub(super) op: (Op, AccessWidth),
    pub(super) first: Location,
    pub(super) source: Option<SourceLine>,
    pub(super) totals: Totals,
}

impl Entry {
    /// The ranking: most bank conflicts first, then first appearance.
    pub(super) fn rank(&self) -> (Reverse<u64>, Location) {
        (Reverse(self.totals.bank_conflicts), self.first)
    }

    fn merge(&mut self, other: Entry) {
        self.totals.merge(&other.totals);
        if other.first < self.first {
            self.first = other.first;
            self.opcode = other.opcode;
            self.op = other.op;
            self.source = other.source;
        }
    }
}

/// A line that could not be analysed, or a file that could not be read.
#[derive(Debug, Clone)]
pub(super) struct LineError {
    pub(super) at: Location,
    pub(super) reason: String,
    pub(super) file_level: bool,
}

/// The errors of some lines: the first [`SHOWN_ERRORS`] and how many.
#[derive(Debug, Default)]
pub(super) struct Errors {
    pub(super) shown: Vec<LineError>,
    pub(super) lines: u64,
    pub(super) files: u64,
}

impl Errors {
    pub(super) fn push(&mut self, at: Location, reason: String, file_level: bool) {
        if file_level {
            self.files += 1;
        } else {
            self.lines += 1;
        }
        if self.shown.len() < SHOWN_ERRORS {
            self.shown.push(LineError {
                at,
                reason,
                file_level,
            });
        }
    }
}

/// Where the workers' time went (`--timings`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Timings {
    /// Turning lines into requests.
    pub(super) parse: Duration,
    /// Predicting the requests and counting them: what a simulator would do.
    pub(super) analysis: Duration,
}

/// Entries of [`Counts::recent`].
const RECENT: usize = 64;

/// What one worker counts over all its chunks. Each request costs no
/// allocation: instructions are found by integer key (a direct-mapped cache
/// in front of a hash table), and a new instruction's entry is the only
/// allocation, once a worker.
#[derive(Debug)]
pub(super) struct Counts {
    totals: Totals,
    archs: Vec<ComputeCapability>,
    /// Requests of corpus records by op; those of trace instructions (a PC has
    /// one opcode) are added up from the entries at the end.
    by_op: Vec<((Op, AccessWidth), Totals)>,
    /// Trace instructions by (kernel, PC): an index into `entries`. FxHash:
    /// the keys are small integers not chosen by an adversary that matters
    /// (a trace's PCs only slow down its own reading).
    codes: FxHashMap<(u32, u64), u32>,
    /// A direct-mapped cache in front of `codes`, by the PC's low bits
    /// (instructions are 16 bytes apart): a loop's few dozen instructions
    /// skip the hash. `u32::MAX` marks an empty slot.
    recent: [(u32, u64, u32); RECENT],
    labels: FxHashMap<Box<str>, u32>,
    entries: Vec<Entry>,
    /// The best `top` records without a label.
    unnamed: Vec<Entry>,
    top: usize,
    pub(super) other_instructions: u64,
    /// Instructions that touch shared memory but are not modelled, by family.
    pub(super) unmodelled: BTreeMap<&'static str, u64>,
    /// Shared-memory instructions with no active lane (mask 0): no request.
    pub(super) predicated_off: u64,
    /// Constant-memory loads (`LDC`, `ULDC`), apart from shared memory.
    pub(super) constant: ConstantCounts,
    pub(super) timings: Timings,
}

/// Constant-memory loads (`LDC`, `ULDC`: `ld.const`), counted apart from
/// the shared-memory totals.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct ConstantCounts {
    /// Loads whose lines give their addresses.
    pub(super) loads: u64,
    /// Their serialised constant-cache requests (one per distinct address;
    /// per half-warp on 1.x).
    pub(super) requests: u64,
    /// Loads whose lines give no addresses (Accel-Sim's tracer records none
    /// for constant memory): issued, but no cost can be given.
    pub(super) without_addresses: u64,
}

impl ConstantCounts {
    fn merge(&mut self, other: &ConstantCounts) {
        self.loads += other.loads;
        self.requests += other.requests;
        self.without_addresses += other.without_addresses;
    }
}

impl Counts {
    pub(super) fn new(top: usize) -> Counts {
        Counts {
            totals: Totals::default(),
            archs: Vec::new(),
            by_op: Vec::new(),
            codes: FxHashMap::default(),
            recent: [(u32::MAX, 0, 0); RECENT],
            labels: FxHashMap::default(),
            entries: Vec::new(),
            unnamed: Vec::new(),
            top,
            other_instructions: 0,
            unmodelled: BTreeMap::new(),
            predicated_off: 0,
            constant: ConstantCounts::default(),
            timings: Timings::default(),
        }
    }

    fn arch(&mut self, capability: ComputeCapability) {
        if !self.archs.contains(&capability) {
            self.archs.push(capability);
        }
    }

    /// Counts one request of a trace instruction.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_code(
        &mut self,
        at: Location,
        kernel: u32,
        pc: u64,
        opcode: &str,
        source: Option<(Option<&str>, u32)>,
        capability: ComputeCapability,
        op: (Op, AccessWidth),
        cost: Cost,
    ) {
        self.totals.add(cost);
        self.arch(capability);
        let slot = (pc >> 4) as usize % RECENT;
        let (known, known_pc, index) = self.recent[slot];
        let index = if (known, known_pc) == (kernel, pc) {
            index
        } else {
            let next = self.entries.len() as u32;
            let index = *self.codes.entry((kernel, pc)).or_insert(next);
            if index == next {
                self.entries.push(Entry {
                    key: Key::Code { kernel, pc },
                    opcode: opcode.into(),
                    op,
                    first: at,
                    source: source.map(|(file, line)| (file.map(Box::from), line)),
                    totals: Totals::default(),
                });
            }
            self.recent[slot] = (kernel, pc, index);
            index
        };
        self.entries[index as usize].totals.add(cost);
    }

    /// Counts one request of a corpus record.
    pub(super) fn add_record(
        &mut self,
        at: Location,
        label: Option<&str>,
        capability: ComputeCapability,
        op: (Op, AccessWidth),
        cost: Cost,
    ) {
        self.totals.add(cost);
        self.arch(capability);
        match self.by_op.iter_mut().find(|(known, _)| *known == op) {
            Some((_, totals)) => totals.add(cost),
            None => {
                let mut totals = Totals::default();
                totals.add(cost);
                self.by_op.push((op, totals));
            }
        }
        let mut totals = Totals::default();
        totals.add(cost);
        match label {
            Some(label) => {
                let next = self.entries.len() as u32;
                let index = match self.labels.get(label) {
                    Some(&index) => index,
                    None => {
                        self.labels.insert(label.into(), next);
                        self.entries.push(Entry {
                            key: Key::Label(label.into()),
                            opcode: Box::from(""),
                            op,
                            first: at,
                            source: None,
                            totals: Totals::default(),
                        });
                        next
                    }
                };
                self.entries[index as usize].totals.add(cost);
            }
            None => {
                let top = self.top;
                let rank = (Reverse(totals.bank_conflicts), at);
                // Entries are built only for records that make the ranking.
                if top > 0 && (self.unnamed.len() < top || rank < self.unnamed[top - 1].rank()) {
                    let entry = Entry {
                        key: Key::Record(at),
                        opcode: Box::from(""),
                        op,
                        first: at,
                        source: None,
                        totals,
                    };
                    keep_best(&mut self.unnamed, entry, top);
                }
            }
        }
    }
}

/// Inserts `entry` into `best`, keeping the `top` best ranked.
fn keep_best(best: &mut Vec<Entry>, entry: Entry, top: usize) {
    if top == 0 {
        return;
    }
    let at = best.partition_point(|i| i.rank() < entry.rank());
    if at < top {
        best.insert(at, entry);
        best.truncate(top);
    }
}

/// Everything counted, merged over the workers.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) totals: Totals,
    pub(super) by_op: BTreeMap<String, Totals>,
    /// The same by op, as the library names them (for the profiler's metrics).
    pub(super) by_model_op: Vec<((Op, AccessWidth), Totals)>,
    pub(super) archs: BTreeSet<&'static str>,
    /// Every instruction: trace PCs and labels, and the best unlabelled records.
    pub(super) entries: Vec<Entry>,
    pub(super) errors: Errors,
    /// Trace instructions that are not shared-memory requests.
    pub(super) other_instructions: u64,
    /// Instructions that touch shared memory but are not modelled, by family.
    pub(super) unmodelled: BTreeMap<&'static str, u64>,
    /// Shared-memory instructions with no active lane (mask 0).
    pub(super) predicated_off: u64,
    /// Constant-memory loads (`LDC`, `ULDC`), apart from shared memory.
    pub(super) constant: ConstantCounts,
    /// Time spent parsing lines and analysing requests, summed over threads.
    pub(super) timings: Timings,
}

impl Tally {
    /// The workers' counts, merged.
    pub(super) fn merge(workers: Vec<Counts>, top: usize) -> Tally {
        let mut tally = Tally::default();
        let mut index: FxHashMap<Key, usize> = FxHashMap::default();
        let mut by_op: Vec<((Op, AccessWidth), Totals)> = Vec::new();
        let mut unnamed: Vec<Entry> = Vec::new();
        let mut archs: Vec<ComputeCapability> = Vec::new();
        let mut add_op = |op: (Op, AccessWidth), totals: &Totals| match by_op
            .iter_mut()
            .find(|(known, _)| *known == op)
        {
            Some((_, known)) => known.merge(totals),
            None => by_op.push((op, *totals)),
        };
        for worker in workers {
            tally.totals.merge(&worker.totals);
            tally.other_instructions += worker.other_instructions;
            tally.predicated_off += worker.predicated_off;
            tally.constant.merge(&worker.constant);
            for (name, count) in &worker.unmodelled {
                *tally.unmodelled.entry(name).or_default() += count;
            }
            tally.timings.parse += worker.timings.parse;
            tally.timings.analysis += worker.timings.analysis;
            for cc in worker.archs {
                if !archs.contains(&cc) {
                    archs.push(cc);
                }
            }
            for (op, totals) in &worker.by_op {
                add_op(*op, totals);
            }
            for entry in worker.entries {
                if matches!(entry.key, Key::Code { .. }) {
                    add_op(entry.op, &entry.totals);
                }
                match index.get(&entry.key) {
                    Some(&at) => tally.entries[at].merge(entry),
                    None => {
                        index.insert(entry.key.clone(), tally.entries.len());
                        tally.entries.push(entry);
                    }
                }
            }
            for entry in worker.unnamed {
                keep_best(&mut unnamed, entry, top);
            }
        }
        tally.entries.extend(unnamed);
        tally.archs = archs.iter().map(|cc| cc.sm_name()).collect();
        for ((op, width), totals) in &by_op {
            tally
                .by_op
                .entry(crate::analyze::op_name(*op, *width))
                .or_default()
                .merge(totals);
        }
        tally.by_model_op = by_op;
        tally
    }

    /// The `top` instructions with the most bank conflicts.
    pub(super) fn ranking(&self, top: usize) -> Vec<&Entry> {
        let mut all: Vec<&Entry> = self.entries.iter().collect();
        // The best `top` first (linear), then only those sorted: a trace can
        // have hundreds of thousands of instructions.
        if all.len() > top {
            if top > 0 {
                all.select_nth_unstable_by_key(top - 1, |e| e.rank());
            }
            all.truncate(top);
        }
        all.sort_by_key(|e| e.rank());
        all
    }
}
