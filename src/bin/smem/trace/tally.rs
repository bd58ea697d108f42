//! What `smem trace` counts: sums over requests, per op and per instruction,
//! the best-ranked instructions and the first errors. Tallies of consecutive
//! chunks merge into the tally of both, in input order, so the result does not
//! depend on how the input was split among threads.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::Serialize;
use smem_model::{AccessWidth, ComputeCapability, Cost, Op, WarpRequest};

use super::accelsim::Kernel;
use super::reader::Location;

/// Errors printed in full; the rest are counted.
const SHOWN_ERRORS: usize = 20;

/// What to call an instruction in the ranking.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// A corpus record's label.
    Label(String),
    /// A trace instruction: kernel name and PC.
    Code(String, u64),
}

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

/// One instruction of the ranking.
#[derive(Debug, Clone)]
pub(super) struct Instruction {
    pub(super) name: String,
    pub(super) op: String,
    pub(super) first: Location,
    pub(super) totals: Totals,
}

impl Instruction {
    /// The ranking: most bank conflicts first, then first appearance.
    fn rank(&self) -> (Reverse<u64>, Location) {
        (Reverse(self.totals.bank_conflicts), self.first)
    }

    pub(super) fn merge(&mut self, other: Instruction) {
        self.totals.merge(&other.totals);
        if other.first < self.first {
            self.first = other.first;
            self.name = other.name;
            self.op = other.op;
        }
    }
}

/// A line that could not be analysed.
#[derive(Debug, Clone)]
pub(super) struct LineError {
    pub(super) at: Location,
    pub(super) reason: String,
    pub(super) file_level: bool,
}

/// Everything counted over some lines; chunks' tallies merge in input order.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) totals: Totals,
    pub(super) by_op: BTreeMap<String, Totals>,
    pub(super) archs: BTreeSet<&'static str>,
    pub(super) named: HashMap<Key, Instruction>,
    /// The best `top` records without a label, each an instruction of its own.
    pub(super) unnamed: Vec<Instruction>,
    /// The first errors, in input order, and how many there were.
    pub(super) errors: Vec<LineError>,
    pub(super) line_errors: u64,
    pub(super) file_errors: u64,
    /// Trace lines that looked like shared-memory instructions but are not
    /// (`LDGSTS`, say).
    pub(super) other_instructions: u64,
    /// Time spent parsing lines and analysing requests, summed over threads.
    pub(super) timings: Timings,
}

/// Where the workers' time went (`--timings`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Timings {
    /// Turning lines into requests.
    pub(super) parse: Duration,
    /// Predicting the requests and counting them: what a simulator would do.
    pub(super) analysis: Duration,
}

impl Tally {
    pub(super) fn error(&mut self, at: Location, reason: String, file_level: bool) {
        if file_level {
            self.file_errors += 1;
        } else {
            self.line_errors += 1;
        }
        if self.errors.len() < SHOWN_ERRORS {
            self.errors.push(LineError {
                at,
                reason,
                file_level,
            });
        }
    }

    /// Adds `other`, which holds the lines right after this tally's.
    pub(super) fn merge(&mut self, other: Tally, top: usize) {
        self.totals.merge(&other.totals);
        for (op, totals) in other.by_op {
            self.by_op.entry(op).or_default().merge(&totals);
        }
        self.archs.extend(other.archs);
        for (key, instruction) in other.named {
            match self.named.get_mut(&key) {
                Some(known) => known.merge(instruction),
                None => {
                    self.named.insert(key, instruction);
                }
            }
        }
        for instruction in other.unnamed {
            keep_best(&mut self.unnamed, instruction, top);
        }
        let room = SHOWN_ERRORS - self.errors.len();
        self.errors.extend(other.errors.into_iter().take(room));
        self.line_errors += other.line_errors;
        self.file_errors += other.file_errors;
        self.other_instructions += other.other_instructions;
        self.timings.parse += other.timings.parse;
        self.timings.analysis += other.timings.analysis;
    }

    /// The `top` instructions with the most bank conflicts.
    pub(super) fn ranking(&self, top: usize) -> Vec<&Instruction> {
        let mut all: Vec<&Instruction> = self.named.values().chain(&self.unnamed).collect();
        all.sort_by_key(|i| i.rank());
        all.truncate(top);
        all
    }
}

/// Inserts `instruction` into `best`, keeping the `top` best ranked.
pub(super) fn keep_best(best: &mut Vec<Instruction>, instruction: Instruction, top: usize) {
    if top == 0 {
        return;
    }
    let at = best.partition_point(|i| i.rank() < instruction.rank());
    if at < top {
        best.insert(at, instruction);
        best.truncate(top);
    }
}

/// What names a request's instruction.
#[derive(Debug, Clone)]
pub(super) enum Source<'a> {
    /// A corpus record, with its label if it has one (without, the record is
    /// an instruction of its own).
    Record(Option<String>),
    /// A trace instruction: its kernel, PC and opcode.
    Code {
        kernel: &'a Arc<Kernel>,
        pc: u64,
        opcode: &'a str,
    },
}

/// A chunk's counts while its requests are analysed, kept where each request
/// costs no allocation: instructions by index, ops and capabilities in short
/// lists. [`finish`](Self::finish) turns them into a [`Tally`].
#[derive(Debug)]
pub(super) struct ChunkTally {
    totals: Totals,
    /// Requests by op, but those of trace instructions: a PC has one opcode,
    /// so theirs are added up from `named` once, in `finish`.
    by_op: Vec<((Op, AccessWidth), Totals)>,
    archs: Vec<ComputeCapability>,
    /// Trace instructions by kernel (the header's address: one per kernel in
    /// a chunk) and PC, and labels: each an index into `named`. Looked up once
    /// a request, so with a hash a few instructions long (FxHash; the keys
    /// are not chosen by an adversary).
    codes: FxHashMap<(usize, u64), usize>,
    /// A direct-mapped cache in front of `codes`, by the PC's low bits
    /// (instructions are 16 bytes apart): a loop's few dozen instructions
    /// skip the hash.
    recent: [(usize, u64, usize); RECENT],
    labels: FxHashMap<String, usize>,
    named: Vec<(Key, Instruction, (Op, AccessWidth))>,
    unnamed: Vec<Instruction>,
}

/// Entries of [`ChunkTally::recent`].
const RECENT: usize = 64;

impl Default for ChunkTally {
    fn default() -> ChunkTally {
        ChunkTally {
            totals: Totals::default(),
            by_op: Vec::new(),
            archs: Vec::new(),
            codes: FxHashMap::default(),
            // No kernel lives at address 0.
            recent: [(0, 0, 0); RECENT],
            labels: FxHashMap::default(),
            named: Vec::new(),
            unnamed: Vec::new(),
        }
    }
}

impl ChunkTally {
    /// Counts one request, first seen at `at`.
    pub(super) fn add(
        &mut self,
        at: Location,
        source: &Source<'_>,
        capability: ComputeCapability,
        request: &WarpRequest,
        cost: Cost,
        top: usize,
    ) {
        self.totals.add(cost);
        let op = (request.op(), request.width());
        if !self.archs.contains(&capability) {
            self.archs.push(capability);
        }
        let index = match source {
            Source::Code { kernel, pc, .. } => {
                let kernel = Arc::as_ptr(kernel) as usize;
                let slot = (*pc >> 4) as usize % RECENT;
                let (known, known_pc, index) = self.recent[slot];
                if (known, known_pc) == (kernel, *pc) {
                    Some(index)
                } else {
                    let index = self.codes.get(&(kernel, *pc)).copied();
                    if let Some(index) = index {
                        self.recent[slot] = (kernel, *pc, index);
                    }
                    index
                }
            }
            Source::Record(label) => {
                self.add_op(op, cost);
                match label {
                    Some(label) => self.labels.get(label).copied(),
                    None => {
                        let mut totals = Totals::default();
                        totals.add(cost);
                        let rank = (Reverse(totals.bank_conflicts), at);
                        // Names are built only for records that make the ranking.
                        if top > 0
                            && (self.unnamed.len() < top || rank < self.unnamed[top - 1].rank())
                        {
                            let instruction = new_instruction(source, at, op, totals);
                            keep_best(&mut self.unnamed, instruction, top);
                        }
                        return;
                    }
                }
            }
        };
        match index {
            Some(index) => self.named[index].1.totals.add(cost),
            None => {
                let mut totals = Totals::default();
                totals.add(cost);
                let key = match source {
                    Source::Code { kernel, pc, .. } => {
                        self.codes
                            .insert((Arc::as_ptr(kernel) as usize, *pc), self.named.len());
                        Key::Code(kernel.name.clone(), *pc)
                    }
                    Source::Record(label) => {
                        let label = label.clone().unwrap_or_default();
                        self.labels.insert(label.clone(), self.named.len());
                        Key::Label(label)
                    }
                };
                self.named
                    .push((key, new_instruction(source, at, op, totals), op));
            }
        }
    }

    fn add_op(&mut self, op: (Op, AccessWidth), cost: Cost) {
        match self.by_op.iter_mut().find(|(known, _)| *known == op) {
            Some((_, totals)) => totals.add(cost),
            None => {
                let mut totals = Totals::default();
                totals.add(cost);
                self.by_op.push((op, totals));
            }
        }
    }

    /// The chunk's [`Tally`] (without errors and timings, which the caller adds).
    pub(super) fn finish(mut self, top: usize) -> Tally {
        for (key, instruction, op) in &self.named {
            if matches!(key, Key::Code(..)) {
                match self.by_op.iter_mut().find(|(known, _)| known == op) {
                    Some((_, totals)) => totals.merge(&instruction.totals),
                    None => self.by_op.push((*op, instruction.totals)),
                }
            }
        }
        let mut tally = Tally {
            totals: self.totals,
            unnamed: self.unnamed,
            ..Tally::default()
        };
        for ((op, width), totals) in self.by_op {
            tally
                .by_op
                .entry(crate::analyze::op_name(op, width))
                .or_default()
                .merge(&totals);
        }
        tally.archs = self.archs.iter().map(|cc| cc.sm_name()).collect();
        for (key, instruction, _) in self.named {
            // Two kernels of one name (a trace's header repeated) are one.
            match tally.named.get_mut(&key) {
                Some(known) => known.merge(instruction),
                None => {
                    tally.named.insert(key, instruction);
                }
            }
        }
        debug_assert!(tally.unnamed.len() <= top);
        tally
    }
}

/// An instruction's entry in the ranking, named as the reports show it.
fn new_instruction(
    source: &Source<'_>,
    at: Location,
    (op, width): (Op, AccessWidth),
    totals: Totals,
) -> Instruction {
    let name = match source {
        Source::Record(label) => label.clone().unwrap_or_else(|| "(no label)".to_owned()),
        Source::Code { kernel, pc, opcode } => {
            format!("{} {pc:#06x} {opcode}", super::short(&kernel.name))
        }
    };
    Instruction {
        name,
        op: crate::analyze::op_name(op, width),
        first: at,
        totals,
    }
}
