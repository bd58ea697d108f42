//! Running a launch's blocks: in block order into the consumer, each block
//! interpreted once per class of blocks that run alike
//! ([`classes`](super::classes)) and replayed for the others, on one thread
//! or several, with the whole run's budget.
//!
//! The consumer sees exactly what it would see if every block were
//! interpreted in order on this thread: `begin_block` with each block's own
//! index, the block's calls in their order, `end_block`. A block interpreted
//! on another thread records its calls on a [`Tape`], which this thread
//! gives to the consumer when the block's turn comes; a block whose class
//! has a tape is given as a repeat of it ([`Consumer::repeat_block`]: by
//! default the tape's calls between `begin_block` and `end_block`; the
//! library's consumers add what they worked out for the class instead).
//! The class's first block is recorded before the consumer sees it, and
//! given as the class's first repeat: a consumer that works out a part per
//! class takes the calls once, not once as they come and again for the
//! part (that was a third of a full-size dmma GEMM's 12 s). Notes and
//! steps are added per block, the same way. So neither the reuse
//! nor the number of threads changes anything the consumer or the summary
//! holds, errors included.
//!
//! Memory: the blocks are never listed (the `n`-th is computed); tapes of
//! blocks in flight hold at most [`IN_FLIGHT_BYTES`] together (a block with
//! more calls is run again on this thread, straight into the consumer), and
//! the tapes kept for reuse at most [`CACHE_BYTES`] (the oldest give way to
//! a new one, so classes met in order, a row of the grid after another, are
//! each kept while their blocks come; a class whose tape alone does not fit
//! is interpreted for each of its blocks).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::kernel::{BlockClass, BlockInfo, Consumer, Repeat};
use crate::{ComputeCapability, Error};

use super::classes::{self, Relevant};
use super::exec::{self, BlockRun, Notes};
use super::ir::Program;
use super::number::Plan;
use super::slice::Slice;
use super::tape::{Held, Tape};
use super::RunOptions;

/// Bytes the tapes of the blocks being run on other threads hold at most,
/// together.
pub(crate) const IN_FLIGHT_BYTES: usize = 1 << 30;

/// Bytes the tapes kept for reuse hold at most, together: a class whose
/// tape does not fit is interpreted for each of its blocks. One block of a
/// full-size cuda-samples dmma GEMM makes 5.9 M calls (bf16's and tf32's
/// 1.7 M), which take about 95 MB as a tape keeps them ([`Tape`]: 16 bytes a
/// call, each distinct event once); at 192 bytes a call they did not fit,
/// and dmma took over 240 s of CPU instead of 35.
pub(crate) const CACHE_BYTES: usize = 1 << 30;

/// The blocks to run, by linear index, without listing them: every block,
/// or a sample of `n` spread over the grid.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Blocks {
    total: u64,
    /// The sample's size, when smaller than the grid.
    sample: Option<u64>,
}

impl Blocks {
    pub(crate) fn new(total: u64, sample: Option<u64>) -> Self {
        Blocks {
            total,
            sample: sample.filter(|&n| n < total),
        }
    }

    /// How many.
    pub(crate) fn len(&self) -> u64 {
        self.sample.unwrap_or(self.total)
    }

    /// The linear index of the `i`-th: with a sample of `n`,
    /// `i (total - 1) / (n - 1)` (in 128 bits: no wrap on the largest grid),
    /// so the first and the last block are in it, and no block twice
    /// (`n - 1 < total - 1`, so each step moves at least one block); a
    /// sample of one is the last block.
    pub(crate) fn get(&self, i: u64) -> u64 {
        match self.sample {
            Some(1) => self.total - 1,
            Some(n) => {
                let last = u128::from(self.total - 1);
                (u128::from(i) * last / u128::from(n - 1)) as u64
            }
            None => i,
        }
    }
}

/// What a block needs beyond its index: everything [`exec::Ctx`] holds.
pub(crate) struct Launch<'p> {
    pub program: &'p Program,
    pub plan: &'p Plan,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub shared_end: u64,
    pub args: &'p [Vec<u8>],
    pub cluster: [u32; 3],
    pub tensor_maps: &'p [(u32, super::super::TensorMap)],
    pub options: &'p RunOptions,
}

impl Launch<'_> {
    fn ctx(&self, block_id: [u32; 3]) -> exec::Ctx<'_> {
        exec::Ctx {
            program: self.program,
            entry: 0,
            grid: self.grid,
            block: self.block,
            block_id,
            dynamic_shared: self.dynamic_shared,
            shared_end: self.shared_end,
            reserved: self
                .options
                .capability
                .unwrap_or(ComputeCapability::Sm90)
                .reserved_shared_memory_per_block(),
            args: self.args,
            capability: self.options.capability.unwrap_or(ComputeCapability::Sm90),
            cluster: self.cluster,
            tensor_maps: self.tensor_maps,
            budget: self.options.budget,
            plan: self.plan,
        }
    }

    fn id(&self, linear: u64) -> [u32; 3] {
        let gx = u64::from(self.grid[0]);
        let gy = u64::from(self.grid[1]);
        [
            (linear % gx) as u32,
            (linear / gx % gy) as u32,
            (linear / (gx * gy)) as u32,
        ]
    }

    fn threads(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }
}

/// What a run of the blocks came to.
#[derive(Debug, Default)]
pub(crate) struct Totals {
    pub notes: Notes,
    pub steps: u64,
    /// Blocks interpreted (the others replayed).
    pub interpreted: u64,
}

/// A class's recorded run.
struct Class {
    /// What the consumer is told the class is.
    id: BlockClass,
    tape: Arc<Tape>,
    steps: u64,
    notes: Notes,
}

/// What a worker sends back for a block.
enum Back {
    Ran(Box<Outcome>),
    Panicked(Box<dyn std::any::Any + Send>),
}

/// One block's run on a worker thread.
struct Outcome {
    tape: Tape,
    run: Result<BlockRun, Error>,
    notes: Notes,
}

fn add_notes(into: &mut Notes, from: &Notes) {
    for (&k, &(kind, count)) in from {
        into.entry(k).or_insert((kind, 0)).1 += count;
    }
}

/// The blocks' classes: a key per block, and whether reuse can pay at all.
///
/// The static key is the low bits of each component of the block index
/// that matter ([`classes`]). Where they would leave more than half the
/// blocks apart and the kernel has a [`Slice`], a block's key is its value
/// key instead ([`slice`](super::slice), computed by [`exec::block_key`]),
/// numbered by first occurrence: class `[n, 0, 0]` is the `n`-th distinct
/// key. A block without one (its key run stopped short, the keys kept fill
/// [`KEY_BYTES`], or the first [`KEYED_WITHOUT_HIT`] blocks keyed all
/// differed) is in no class: interpreted, never reused.
struct Keys {
    relevant: Relevant,
    reuse: bool,
    dynamic: Option<Dynamic>,
}

/// The value keys seen, each once, and the blocks' keys computed ahead.
struct Dynamic {
    slice: Slice,
    classes: rustc_hash::FxHashMap<Vec<u64>, u32>,
    bytes: usize,
    ahead: HashMap<u64, Option<[u32; 3]>>,
    /// Blocks keyed, and those of them whose class had a block before.
    keyed: u64,
    hits: u64,
}

/// Blocks keyed with no two alike, after which the rest are not keyed
/// (interpreted, each on its own): a key run costs a part of a block's run,
/// and a launch whose first blocks all differ (a `cp.async` source's
/// addresses in every key) would pay it for nothing.
const KEYED_WITHOUT_HIT: u64 = 64;

/// Bytes the value keys kept hold at most, together.
pub(crate) const KEY_BYTES: usize = 256 << 20;

impl Keys {
    fn new(launch: &Launch<'_>, blocks: &Blocks) -> Self {
        let given = classes::Given {
            args: launch.args,
            grid: launch.grid,
            block: launch.block,
            dynamic_shared: launch.dynamic_shared,
        };
        let found = classes::classes(launch.program, launch.plan, &given);
        let relevant = found.relevant;
        let classes = relevant.classes(launch.grid);
        let dynamic = (launch.options.reuse && !relevant.none() && classes > blocks.len() / 2)
            .then(|| Slice::new(launch.program, launch.plan, &found.same_sources))
            .flatten()
            .map(|slice| Dynamic {
                slice,
                classes: rustc_hash::FxHashMap::default(),
                bytes: 0,
                ahead: HashMap::new(),
                keyed: 0,
                hits: 0,
            });
        Keys {
            relevant,
            reuse: launch.options.reuse && (classes < blocks.len() || dynamic.is_some()),
            dynamic,
        }
    }

    /// The class of the `i`-th block, whose index is `id`, computed now
    /// and kept for [`take`](Self::take).
    fn peek(&mut self, launch: &Launch<'_>, i: u64, id: [u32; 3]) -> Option<[u32; 3]> {
        let key = self.take(launch, i, id);
        if let Some(d) = &mut self.dynamic {
            d.ahead.insert(i, key);
        }
        key
    }

    /// The class of the `i`-th block, whose index is `id`.
    fn take(&mut self, launch: &Launch<'_>, i: u64, id: [u32; 3]) -> Option<[u32; 3]> {
        let Some(d) = &mut self.dynamic else {
            return Some(self.relevant.key(id));
        };
        if let Some(key) = d.ahead.remove(&i) {
            return key;
        }
        if d.hits == 0 && d.keyed >= KEYED_WITHOUT_HIT {
            return None;
        }
        d.keyed += 1;
        let key = exec::block_key(&launch.ctx(id), &d.slice)?;
        if let Some(&n) = d.classes.get(&key) {
            d.hits += 1;
            return Some([n, 0, 0]);
        }
        let bytes = key.len() * 8 + 64;
        if d.bytes + bytes > KEY_BYTES {
            return None;
        }
        let n = d.classes.len() as u32;
        d.bytes += bytes;
        d.classes.insert(key, n);
        Some([n, 0, 0])
    }
}

/// The whole run's budget (see [`RunOptions::with_run_budget`]): checked
/// before each block and after the last, against the steps so far plus
/// what the blocks left cost at least (a warp's first instruction each, or,
/// where every block runs alike, the first block's steps each). It depends
/// on the blocks' steps alone, so it ends a run at the same block whether
/// blocks are reused or not, on any number of threads.
struct Budget {
    budget: u64,
    blocks: u64,
    warps: u64,
    /// Every block's steps, when all run alike and one has run.
    each: Option<u64>,
    alike: bool,
}

impl Budget {
    fn check(&self, done: u64, steps: u64) -> Result<(), Error> {
        let left = self.blocks - done;
        let least = self.each.unwrap_or(self.warps);
        let need = u128::from(steps) + u128::from(left) * u128::from(least);
        if need > u128::from(self.budget) {
            return Err(Error::RunBudget {
                budget: self.budget,
                blocks_done: done,
                blocks: self.blocks,
                warp_instructions: steps,
                at_least: u64::try_from(need).unwrap_or(u64::MAX),
            });
        }
        Ok(())
    }

    fn ran(&mut self, steps: u64) {
        if self.alike && self.each.is_none() {
            self.each = Some(steps);
        }
    }
}

/// Runs `blocks` of `launch` into `consumer` (see the module docs).
pub(crate) fn run<C: Consumer + ?Sized>(
    launch: &Launch<'_>,
    blocks: &Blocks,
    consumer: &mut C,
) -> Result<Totals, Error> {
    let mut keys = Keys::new(launch, blocks);
    let mut budget = Budget {
        budget: launch.options.run_budget,
        blocks: blocks.len(),
        warps: u64::from(launch.threads().div_ceil(32)),
        each: None,
        alike: keys.relevant.none(),
    };
    let threads = launch.options.threads.max(1);
    if threads == 1 || blocks.len() <= 1 {
        serial(launch, blocks, &mut keys, &mut budget, consumer)
    } else {
        parallel(launch, blocks, &mut keys, &mut budget, threads, consumer)
    }
}

/// Adds an interpreted block's steps.
fn ran(totals: &mut Totals, budget: &mut Budget, steps: u64) {
    totals.steps += steps;
    totals.interpreted += 1;
    budget.ran(steps);
}

/// Interprets block `id` on this thread and gives it to the consumer: where
/// its class may be reused (the cache's room for its tape), recorded and given
/// as the class's first repeat ([`give_recorded`]); where the tape fills, or
/// without room, its calls straight into the consumer.
fn interpret<C: Consumer + ?Sized>(
    launch: &Launch<'_>,
    (id, info, key): ([u32; 3], &BlockInfo, Option<[u32; 3]>),
    cache: &mut Cache,
    totals: &mut Totals,
    budget: &mut Budget,
    consumer: &mut C,
) -> Result<(), Error> {
    let mut notes = Notes::new();
    let ctx = launch.ctx(id);
    let room = key.map_or(0, |key| cache.room(&key));
    if room == 0 {
        consumer.begin_block(info)?;
        let run = exec::run_block(&ctx, consumer, &mut notes);
        add_notes(&mut totals.notes, &notes);
        ran(totals, budget, run?.steps);
        return consumer.end_block();
    }
    let mut held = Held::new(consumer, info, Tape::with_limit(room));
    let run = exec::run_block(&ctx, &mut held, &mut notes);
    let (tape, error) = held.finish();
    add_notes(&mut totals.notes, &notes);
    // The consumer's error came before the run's (it was the consumer's at
    // an earlier call).
    if let Some(e) = error {
        return Err(e);
    }
    match tape {
        Some(tape) => {
            let run = match run {
                Ok(run) => run,
                Err(e) => {
                    consumer.begin_block(info)?;
                    tape.replay(consumer)?;
                    return Err(e);
                }
            };
            ran(totals, budget, run.steps);
            give_recorded(consumer, info, key, tape, (run.steps, notes), cache)
        }
        // Full: the consumer has had the block's calls, and the class's
        // blocks are interpreted.
        None => {
            if let Some(key) = key {
                cache.refuse(key);
            }
            ran(totals, budget, run?.steps);
            consumer.end_block()
        }
    }
}

/// Gives a block interpreted without error, whose tape holds all its calls,
/// to the consumer: as the first repeat of its class, kept for the class's
/// further blocks (the consumer takes the calls once, and a consumer that
/// works out a part per class has it for them); where the class is not
/// kept, its calls.
fn give_recorded<C: Consumer + ?Sized>(
    consumer: &mut C,
    info: &BlockInfo,
    key: Option<[u32; 3]>,
    tape: Tape,
    (steps, notes): (u64, Notes),
    cache: &mut Cache,
) -> Result<(), Error> {
    let tape = match key {
        Some(key) => match cache.keep(key, tape, steps, notes) {
            Ok(class) => {
                return consumer.repeat_block(info, &Repeat::new(class.id, &*class.tape));
            }
            Err(tape) => *tape,
        },
        None => tape,
    };
    consumer.begin_block(info)?;
    tape.replay(consumer)?;
    consumer.end_block()
}

/// The reuse cache: the classes' tapes, the oldest dropped where a new one
/// needs room in `capacity` bytes ([`CACHE_BYTES`]).
struct Cache {
    capacity: usize,
    classes: HashMap<[u32; 3], Class>,
    /// The classes kept, oldest first.
    order: VecDeque<[u32; 3]>,
    bytes: usize,
    /// Classes whose tape was not kept (longer than the cache): each of
    /// their blocks is interpreted.
    refused: HashSet<[u32; 3]>,
}

impl Cache {
    fn new(capacity: usize) -> Cache {
        Cache {
            capacity,
            classes: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            refused: HashSet::new(),
        }
    }

    /// How many bytes a tape of class `key` may record and still be kept.
    fn room(&self, key: &[u32; 3]) -> usize {
        if self.refused.contains(key) || self.classes.contains_key(key) {
            return 0;
        }
        self.capacity
    }

    fn get(&self, key: &[u32; 3]) -> Option<&Class> {
        self.classes.get(key)
    }

    /// Keeps `tape` as class `key`'s (the oldest classes giving way), and
    /// returns the class; or the tape, where it is not kept (full, or longer
    /// than the cache: the class's blocks are interpreted). A class kept
    /// already is returned as it is (its blocks make the same calls).
    fn keep(
        &mut self,
        key: [u32; 3],
        mut tape: Tape,
        steps: u64,
        notes: Notes,
    ) -> Result<&Class, Box<Tape>> {
        if self.classes.contains_key(&key) {
            return Ok(&self.classes[&key]);
        }
        if tape.is_full() {
            self.refused.insert(key);
            return Err(Box::new(tape));
        }
        tape.seal();
        if tape.bytes() > self.capacity {
            self.refused.insert(key);
            return Err(Box::new(tape));
        }
        while self.bytes + tape.bytes() > self.capacity {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(class) = self.classes.remove(&old) {
                self.bytes -= class.tape.bytes();
            }
        }
        self.bytes += tape.bytes();
        self.order.push_back(key);
        let class = Class {
            id: BlockClass::new(),
            tape: Arc::new(tape),
            steps,
            notes,
        };
        Ok(self.classes.entry(key).or_insert(class))
    }

    /// Class `key`'s blocks are interpreted, each on its own.
    fn refuse(&mut self, key: [u32; 3]) {
        self.refused.insert(key);
    }
}

fn progress(launch: &Launch<'_>, done: u64, blocks: u64) -> Result<(), Error> {
    match &launch.options.progress {
        Some(p) if !(p.0)(done, blocks) => Err(Error::Interrupted),
        _ => Ok(()),
    }
}

fn serial<C: Consumer + ?Sized>(
    launch: &Launch<'_>,
    blocks: &Blocks,
    keys: &mut Keys,
    budget: &mut Budget,
    consumer: &mut C,
) -> Result<Totals, Error> {
    let mut totals = Totals::default();
    let mut cache = Cache::new(CACHE_BYTES);
    let n = blocks.len();
    for i in 0..n {
        budget.check(i, totals.steps)?;
        progress(launch, i, n)?;
        let id = launch.id(blocks.get(i));
        let info = BlockInfo::new(id, Some(launch.threads()));
        let key = if keys.reuse {
            keys.take(launch, i, id)
        } else {
            None
        };
        if let Some(class) = key.and_then(|key| cache.get(&key)) {
            consumer.repeat_block(&info, &Repeat::new(class.id, &*class.tape))?;
            add_notes(&mut totals.notes, &class.notes);
            totals.steps += class.steps;
            budget.ran(class.steps);
            continue;
        }
        interpret(
            launch,
            (id, &info, key),
            &mut cache,
            &mut totals,
            budget,
            consumer,
        )?;
    }
    budget.check(n, totals.steps)?;
    progress(launch, n, n)?;
    Ok(totals)
}

/// How far past the block being given to the consumer blocks are handed
/// out.
const LOOKAHEAD: u64 = 1 << 12;

/// Jobs for the workers: a block's place in the run and its index.
type Job = (u64, [u32; 3]);

fn parallel<C: Consumer + ?Sized>(
    launch: &Launch<'_>,
    blocks: &Blocks,
    keys: &mut Keys,
    budget: &mut Budget,
    threads: usize,
    consumer: &mut C,
) -> Result<Totals, Error> {
    let window = 2 * threads;
    let limit = (IN_FLIGHT_BYTES / window).max(1 << 20);
    let stop = Arc::new(AtomicBool::new(false));
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<(u64, Back)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let (job_rx, stop) = (&job_rx, Arc::clone(&stop));
            scope.spawn(move || loop {
                let job = match job_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((i, id)) = job else { return };
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let mut tape = Tape::with_limit(limit).with_stop(Arc::clone(&stop));
                let mut notes = Notes::new();
                // A panic (a bug) goes to the thread that waits for the
                // block, which raises it: never a wait that does not end.
                let back = match std::panic::catch_unwind(AssertUnwindSafe(|| {
                    exec::run_block(&launch.ctx(id), &mut tape, &mut notes)
                })) {
                    Ok(run) => {
                        tape.seal();
                        Back::Ran(Box::new(Outcome { tape, run, notes }))
                    }
                    Err(panic) => Back::Panicked(panic),
                };
                if done_tx.send((i, back)).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        let result = feed(
            launch,
            blocks,
            keys,
            budget,
            consumer,
            (&job_tx, &done_rx, window),
        );
        stop.store(true, Ordering::Relaxed);
        drop(job_tx);
        result
    })
}

/// This thread's part of [`parallel`]: hands out blocks ahead, gives the
/// consumer each block in order.
fn feed<C: Consumer + ?Sized>(
    launch: &Launch<'_>,
    blocks: &Blocks,
    keys: &mut Keys,
    budget: &mut Budget,
    consumer: &mut C,
    (jobs, done, window): (&mpsc::Sender<Job>, &mpsc::Receiver<(u64, Back)>, usize),
) -> Result<Totals, Error> {
    let mut totals = Totals::default();
    let mut cache = Cache::new(CACHE_BYTES);
    let n = blocks.len();
    // Blocks handed out and not yet given to the consumer, and those back.
    let mut out: BTreeMap<u64, Option<Outcome>> = BTreeMap::new();
    // Classes with a block handed out: its place.
    let mut claimed: HashMap<[u32; 3], u64> = HashMap::new();
    let mut ahead = 0u64;
    for i in 0..n {
        // Not further than [`LOOKAHEAD`] blocks: a class's blocks are
        // skipped here, and a grid may hold billions of them.
        while ahead < n && out.len() < window && ahead - i < LOOKAHEAD {
            let id = launch.id(blocks.get(ahead));
            let key = if keys.reuse {
                keys.peek(launch, ahead, id)
            } else {
                None
            };
            let reused = key.is_some_and(|key| {
                !cache.refused.contains(&key)
                    && (cache.classes.contains_key(&key)
                        || claimed.get(&key).is_some_and(|&at| at < ahead))
            });
            if !reused {
                if let Some(key) = key {
                    claimed.insert(key, ahead);
                }
                if jobs.send((ahead, id)).is_err() {
                    break;
                }
                out.insert(ahead, None);
            }
            ahead += 1;
        }
        budget.check(i, totals.steps)?;
        progress(launch, i, n)?;
        let id = launch.id(blocks.get(i));
        let key = if keys.reuse {
            keys.take(launch, i, id)
        } else {
            None
        };
        let info = BlockInfo::new(id, Some(launch.threads()));
        let class = key.and_then(|key| cache.get(&key));
        if let (Some(class), false) = (class, out.contains_key(&i)) {
            consumer.repeat_block(&info, &Repeat::new(class.id, &*class.tape))?;
            add_notes(&mut totals.notes, &class.notes);
            totals.steps += class.steps;
            budget.ran(class.steps);
            continue;
        }
        let outcome = if out.contains_key(&i) {
            while out.get(&i).is_some_and(Option::is_none) {
                let (j, back) = done.recv().map_err(|_| Error::Interrupted)?;
                match back {
                    Back::Ran(outcome) => out.insert(j, Some(*outcome)),
                    Back::Panicked(panic) => std::panic::resume_unwind(panic),
                };
            }
            out.remove(&i).flatten()
        } else {
            None
        };
        match outcome {
            Some(o) if !o.tape.is_full() => {
                add_notes(&mut totals.notes, &o.notes);
                let run = match o.run {
                    Ok(run) => run,
                    Err(e) => {
                        consumer.begin_block(&info)?;
                        o.tape.replay(consumer)?;
                        return Err(e);
                    }
                };
                ran(&mut totals, budget, run.steps);
                give_recorded(
                    consumer,
                    &info,
                    key,
                    o.tape,
                    (run.steps, o.notes),
                    &mut cache,
                )?;
            }
            // Too many calls to record, or a class whose tape was not
            // kept: on this thread.
            _ => {
                interpret(
                    launch,
                    (id, &info, key),
                    &mut cache,
                    &mut totals,
                    budget,
                    consumer,
                )?;
            }
        }
    }
    budget.check(n, totals.steps)?;
    progress(launch, n, n)?;
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Consumer, Event, Site};
    use crate::LaneSet;

    /// A tape of `n` fences.
    fn tape(n: usize) -> Tape {
        let mut t = Tape::with_limit(1 << 20);
        for pc in 0..n {
            let fence = Event::Fence {
                site: Site::pc(pc as u64),
                lanes: LaneSet::FULL,
            };
            t.event(0, &fence).unwrap();
        }
        t
    }

    #[test]
    fn the_oldest_tapes_give_way_to_a_new_one() {
        let each = {
            let mut t = tape(4);
            t.seal();
            t.bytes()
        };
        let mut cache = Cache::new(2 * each);
        for x in 0..3 {
            assert!(cache.room(&[x, 0, 0]) >= each);
            assert!(cache.keep([x, 0, 0], tape(4), 4, Notes::new()).is_ok());
        }
        // Rows met in order: the first went when the third came.
        assert!(cache.get(&[0, 0, 0]).is_none());
        assert!(cache.get(&[1, 0, 0]).is_some() && cache.get(&[2, 0, 0]).is_some());
        assert_eq!(cache.bytes, 2 * each);
        // A class kept has no room to record again; one dropped has.
        assert_eq!(cache.room(&[2, 0, 0]), 0);
        assert!(cache.room(&[0, 0, 0]) > 0);
        // A tape longer than the whole cache is refused, and its class
        // interpreted for every block; the others stay.
        assert!(cache.keep([5, 0, 0], tape(12), 12, Notes::new()).is_err());
        assert!(cache.get(&[5, 0, 0]).is_none() && cache.refused.contains(&[5, 0, 0]));
        assert_eq!(cache.room(&[5, 0, 0]), 0);
        assert!(cache.get(&[2, 0, 0]).is_some());
    }
}
