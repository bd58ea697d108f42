//! The tally's part of a block, worked out once for its class and added for
//! each further block ([`Consumer::repeat_block`]).
//!
//! Why this is exact: everything [`Tally::event`](Consumer::event) and
//! [`Tally::place`](Consumer::place) change is a sum (totals, an
//! instruction's totals, counts by name or by op, errors counted), a
//! maximum (worst ways), a list added to in the order met (the first
//! [`KEPT_ERRORS`] errors, the ops of the compare-and-swap loops and of the
//! requests of unknown address, the instructions, the capabilities), or
//! what the last call left (where the last event was read, the pending
//! `cp.async` source). A block's calls into a fresh tally that starts with
//! the same last-call state give the block's sums, its lists in order and
//! its last-call state; adding those to a tally gives what the calls
//! themselves would have: sums add, maxima take the larger, a list's items
//! go after the tally's where it has them not, errors are kept while
//! fewer than [`KEPT_ERRORS`] are, and an instruction the tally has keeps
//! its first appearance. Nothing else the events read differs between
//! blocks: the kernel and its capability, which are checked, and the
//! last-call state, which is too (a block that starts in another is
//! worked out again). The block's index reaches nothing.

use super::{
    CasLoops, ConstantCounts, Entry, Form, GmmaCounts, Key, Location, Tally, TallyError, Totals,
    KEPT_ERRORS,
};
use crate::kernel::{BlockInfo, Consumer, PerClass, Repeat};
use crate::{AccessWidth, ComputeCapability, Error, Op};

/// Bytes the parts a tally keeps take at most, together (a part is about
/// 200 bytes and 24 an instruction).
pub(super) const PARTS_BYTES: usize = 64 << 20;

/// What a tally's events read of the calls before them, and leave to those
/// after: where the last was read, and the pending `cp.async` source.
#[derive(Debug, Clone, PartialEq)]
struct Carried {
    at: Location,
    instruction: String,
    source_file: Option<Box<str>>,
    source: Option<(u64, u32, [u32; 32], Form)>,
}

/// One block's part of a tally.
#[derive(Debug, Clone)]
pub(super) struct BlockPart {
    kernel: u32,
    capability: ComputeCapability,
    before: Carried,
    after: Carried,
    totals: Totals,
    archs: Vec<ComputeCapability>,
    /// By index in the tally's entries.
    entries: Vec<(u32, Totals)>,
    unmodelled: Vec<(Box<str>, u64)>,
    unknown_addresses: Vec<((Op, AccessWidth), u64)>,
    cas_loops: Vec<((Op, AccessWidth), CasLoops)>,
    other_instructions: u64,
    predicated_off: u64,
    constant: ConstantCounts,
    gmma: GmmaCounts,
    ldgsts_unsourced: u64,
    bypass: super::BypassEstimates,
    errors: Vec<TallyError>,
    error_count: u64,
}

impl Tally {
    fn carried(&self) -> Carried {
        Carried {
            at: self.at,
            instruction: self.instruction.clone(),
            source_file: self.source_file.clone(),
            source: self.source,
        }
    }

    /// Whether the tally's last-call state is `carried` (without
    /// allocating: this is asked once a block).
    fn carries(&self, carried: &Carried) -> bool {
        self.at == carried.at
            && self.instruction == carried.instruction
            && self.source_file == carried.source_file
            && self.source == carried.source
    }

    /// The tally's part of `block`, repeating `repeat`: its calls given to
    /// an empty tally of the same capability and last-call state. The
    /// instructions it counts are found in (or added to) this tally's.
    fn part_of(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<BlockPart, Error> {
        let before = self.carried();
        let mut part = Tally::new().with_top(0);
        part.capability = self.capability;
        part.config = self.config;
        part.at = before.at;
        part.instruction.clone_from(&before.instruction);
        part.source_file.clone_from(&before.source_file);
        part.source = before.source;
        part.begin_block(block)?;
        repeat.replay(&mut part)?;
        part.end_block()?;
        let after = part.carried();
        // Every field named, none left to `..`: a field added to the tally
        // fails to build here until it is added to the part (or said to
        // hold nothing of a block's events).
        let Tally {
            capability: _,
            top: _,
            totals,
            archs,
            // add_request's alone, as are labels and unnamed.
            by_op: _,
            kernel: _,
            config: _,
            kernel_names: _,
            kernel_ids: _,
            at: _,
            instruction: _,
            source_file: _,
            codes: _,
            recent: _,
            labels: _,
            entries: part_entries,
            unnamed: _,
            other_instructions,
            unmodelled,
            unknown_addresses,
            cas_loops,
            predicated_off,
            constant,
            gmma,
            source: _,
            ldgsts_unsourced,
            bypass,
            errors,
            error_count,
            parts: _,
        } = part;
        let mut entries = Vec::with_capacity(part_entries.len());
        for entry in part_entries {
            let Key::Code { pc, .. } = entry.key else {
                continue;
            };
            let totals = entry.totals;
            let next = self.entries.len() as u32;
            let index = *self.codes.entry((self.kernel, pc)).or_insert(next);
            if index == next {
                // Not seen before in this kernel (the class's first block
                // came to this tally with the same calls, so never in
                // practice): added as the calls would have added it.
                self.entries.push(Entry {
                    key: Key::Code {
                        kernel: self.kernel,
                        pc,
                    },
                    totals: Totals::default(),
                    ..entry
                });
            }
            entries.push((index, totals));
        }
        Ok(BlockPart {
            kernel: self.kernel,
            capability: self.config.capability(),
            before,
            after,
            totals,
            archs,
            entries,
            unmodelled: unmodelled.into_iter().collect(),
            unknown_addresses,
            cas_loops,
            other_instructions,
            predicated_off,
            constant,
            gmma,
            ldgsts_unsourced,
            bypass,
            errors,
            error_count,
        })
    }

    /// Adds a block's part (see the module docs for why this equals giving
    /// the block's calls).
    fn add_part(&mut self, part: &BlockPart) {
        self.totals.merge(&part.totals);
        for &cc in &part.archs {
            self.arch(cc);
        }
        for &(index, ref totals) in &part.entries {
            self.entries[index as usize].totals.merge(totals);
        }
        for (name, count) in &part.unmodelled {
            match self.unmodelled.get_mut(name) {
                Some(n) => *n += count,
                None => {
                    self.unmodelled.insert(name.clone(), *count);
                }
            }
        }
        for &(op, count) in &part.unknown_addresses {
            self.add_unknown_address(op, count);
        }
        for &(op, loops) in &part.cas_loops {
            self.add_cas_loops(op, loops);
        }
        self.other_instructions += part.other_instructions;
        self.predicated_off += part.predicated_off;
        self.constant.merge(&part.constant);
        self.gmma.instructions += part.gmma.instructions;
        self.gmma.wavefronts += part.gmma.wavefronts;
        self.gmma.conflicts += part.gmma.conflicts;
        self.ldgsts_unsourced += part.ldgsts_unsourced;
        self.bypass.add(&part.bypass);
        self.error_count += part.error_count;
        let room = KEPT_ERRORS.saturating_sub(self.errors.len());
        self.errors.extend(part.errors.iter().take(room).cloned());
        self.at = part.after.at;
        self.instruction.clone_from(&part.after.instruction);
        self.source_file.clone_from(&part.after.source_file);
        self.source = part.after.source;
    }

    /// [`Consumer::repeat_block`]: the class's part, worked out at its first
    /// repeat (or again where the kernel, capability or last-call state
    /// differ from that one's), added.
    pub(super) fn repeat(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        let class = repeat.class();
        // Out of the tally while it is added to (put back below).
        let mut parts = core::mem::replace(&mut self.parts, PerClass::new(0));
        let known = parts.get(class).filter(|p| {
            p.kernel == self.kernel
                && p.capability == self.config.capability()
                && self.carries(&p.before)
        });
        let result = match known {
            Some(part) => {
                self.add_part(part);
                Ok(())
            }
            None => self.part_of(block, repeat).map(|part| {
                self.add_part(&part);
                let bytes = core::mem::size_of::<BlockPart>()
                    + part.entries.len() * core::mem::size_of::<(u32, Totals)>()
                    + part
                        .errors
                        .iter()
                        .map(|e| e.reason.len() + 40)
                        .sum::<usize>();
                parts.keep(class, part, bytes);
            }),
        };
        self.parts = parts;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::testing::{give, Calls};
    use crate::kernel::{BlockClass, Event, KernelInfo, Place, Site};
    use crate::{LaneSet, WarpRequest};

    fn access(pc: u64, stride: u32) -> Event<'static> {
        let request = WarpRequest::from_fn(Op::Load, 4, |l| Some(stride * l.get())).unwrap();
        Event::Access {
            site: Site::pc(pc),
            request,
        }
    }

    /// What the tests compare: every figure, in order.
    fn told(t: &Tally) -> String {
        let entries: Vec<_> = t.entries().map(|e| format!("{e:?}")).collect();
        format!(
            "{:?} {entries:?} {:?} {:?} {:?} {} {:?} {}",
            t.totals(),
            t.unmodelled(),
            t.capabilities(),
            t.errors(),
            t.error_count(),
            t.source,
            t.ldgsts_without_source(),
        )
    }

    /// Two classes of blocks, each with three requests the model refuses
    /// (past the shared window), one of them opening without a place (so
    /// where it is read is where the block before left off) and leaving a
    /// `cp.async` source pending: met in the order A A B A B B A,
    /// repeated blocks added as parts give what their calls give, the
    /// errors kept the first 20 of the 21, in order.
    #[test]
    fn repeated_blocks_add_what_their_calls_add() {
        let far = 1 << 20;
        let source = Event::CpAsyncSource {
            site: Site::pc(9),
            lanes: LaneSet::FULL,
            offsets: [0; 32],
            zero_fill: false,
            guarded: false,
        };
        let a = Calls(vec![
            (0, None, access(1, far)),
            (0, Some(Place::new(0, 10, "ld.shared.b32")), access(2, 4)),
            (0, Some(Place::new(0, 11, "ld.shared.b32")), access(3, far)),
            (0, None, access(3, far)),
            (0, Some(Place::new(0, 12, "cp.async")), source),
        ]);
        let b = Calls(vec![
            (0, Some(Place::new(0, 20, "ld.shared.b32")), access(1, 8)),
            (0, None, access(4, far)),
            (0, Some(Place::new(0, 21, "ld.shared.b32")), access(4, far)),
            (0, None, access(6, far)),
            (
                0,
                None,
                Event::Unmodelled {
                    site: Site::pc(5),
                    lanes: LaneSet::FULL,
                    name: "x",
                },
            ),
        ]);
        let classes = [BlockClass::new(), BlockClass::new()];
        let mut by_calls = Tally::new();
        let mut by_parts = Tally::new();
        let kernel = KernelInfo::named("k");
        by_calls.begin_kernel(&kernel).unwrap();
        by_parts.begin_kernel(&kernel).unwrap();
        let mut met = [false; 2];
        for (n, c) in [0, 0, 1, 0, 1, 1, 0].into_iter().enumerate() {
            let calls = [&a, &b][c];
            let block = BlockInfo::new([n as u32, 0, 0], Some(32));
            let repeat = Repeat::new(classes[c], calls);
            give(&mut by_calls, &mut by_parts, &block, &repeat, &mut met[c]).unwrap();
            assert_eq!(told(&by_parts), told(&by_calls), "block {n}");
        }
        assert_eq!((by_calls.error_count(), by_calls.errors().len()), (21, 20));
        assert_eq!(by_calls.totals().requests, 7);
    }
}
