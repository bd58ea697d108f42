//! What `smem trace` counts: sums over requests, per op and per instruction,
//! the best-ranked instructions and the first errors. Tallies of consecutive
//! chunks merge into the tally of both, in input order, so the result does not
//! depend on how the input was split among threads.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use smem_model::Partition;

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
    pub(super) fn add(&mut self, p: &Partition) {
        self.requests += 1;
        self.wavefronts += u64::from(p.wavefronts());
        self.ideal_wavefronts += u64::from(p.ideal_wavefronts());
        self.bank_conflicts += u64::from(p.bank_conflicts());
        self.conflicted_requests += u64::from(p.bank_conflicts() > 0);
        self.worst_ways = self.worst_ways.max(p.ways());
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

    pub(super) fn add(
        &mut self,
        key: Option<Key>,
        name: String,
        at: Location,
        p: &Partition,
        top: usize,
    ) {
        let op = crate::analyze::instruction(p.request());
        self.totals.add(p);
        self.by_op.entry(op.clone()).or_default().add(p);
        self.archs.insert(p.config().capability().sm_name());
        let mut totals = Totals::default();
        totals.add(p);
        let instruction = Instruction {
            name,
            op,
            first: at,
            totals,
        };
        match key {
            Some(key) => match self.named.get_mut(&key) {
                Some(known) => known.merge(instruction),
                None => {
                    self.named.insert(key, instruction);
                }
            },
            None => keep_best(&mut self.unnamed, instruction, top),
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
