//! A block's events, kept to be given to a consumer later: once in block
//! order when the block ran on another thread, and as the calls of each
//! further block of its class when blocks run alike
//! ([`classes`](super::classes)), which a consumer may take or not
//! ([`Repeat`](crate::kernel::Repeat)).

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::kernel::{BlockInfo, Consumer, Event, Place, Recall, Recorded};
use crate::{Error, LaneSet};

/// One call a block's run made on its consumer: what it gave, by its index
/// in [`Tape::events`] or [`Tape::places`]. A block makes millions of calls
/// (a full-size dmma GEMM's, 5.9 M) but few distinct ones (a pipelined
/// GEMM's shared addresses come round again with its stages), so each call
/// takes 16 bytes and each distinct one its 200 once: a tape of 192-byte
/// calls did not fit in the reuse cache, and every block was interpreted.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// `event`.
    Event { warp: u32, event: u32 },
    /// `event_unchanged`.
    Unchanged {
        warp: u32,
        event: u32,
        unchanged: LaneSet,
    },
    /// `place`.
    Place(u32),
}

/// An event as a tape keeps it: its borrowed parts as indices. `name`
/// indexes [`Tape::names`] for the events that carry one (else 0);
/// `chunks` is a [`Event::GmmaReads`]'s chunks (their range in
/// [`Tape::chunks`]) or a [`Event::BulkCopy`]'s runs (in [`Tape::runs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stored {
    event: Event<'static>,
    name: u32,
    chunks: (u32, u32),
}

/// As the derived hash would, but a request's lanes as their word: bitvec
/// hashes a lane set bit by bit, 32 writes (a tenth of recording a GEMM
/// block, whose calls are mostly requests).
impl Hash for Stored {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match &self.event {
            Event::Access { site, request } | Event::CasRound { site, request } => {
                core::mem::discriminant(&self.event).hash(state);
                site.hash(state);
                request.op().hash(state);
                request.width().hash(state);
                request.raw().hash(state);
            }
            event => event.hash(state),
        }
        self.name.hash(state);
        self.chunks.hash(state);
    }
}

/// A place as a tape keeps it, its strings in [`Tape::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct StoredPlace {
    input: u32,
    line: u64,
    instruction: u32,
    source_file: Option<u32>,
}

/// Bytes a hash table's entry costs beside its key and value, roughly.
const ENTRY_OVERHEAD: usize = 8;

/// The calls a block's run made on its consumer between `begin_block` and
/// `end_block`, in order, as a [`Consumer`] that records them.
#[derive(Debug, Default)]
pub(super) struct Tape {
    calls: Vec<Call>,
    /// The distinct events, each once.
    events: Vec<Stored>,
    /// The distinct places, each once.
    places: Vec<StoredPlace>,
    /// Where each distinct event and place is, while recording (dropped by
    /// [`seal`](Tape::seal)).
    event_index: FxHashMap<Stored, u32>,
    place_index: FxHashMap<StoredPlace, u32>,
    /// The strings the events and places borrowed, each once.
    names: Vec<Box<str>>,
    index: FxHashMap<Box<str>, u32>,
    /// The names by the address and length of a string given.
    at: FxHashMap<(usize, usize), u32>,
    names_bytes: usize,
    /// The chunks the [`Event::GmmaReads`] events borrowed, one after another.
    chunks: Vec<u32>,
    /// The runs the [`Event::BulkCopy`] events borrowed, one after another.
    runs: Vec<(u32, u32)>,
    /// At most this many bytes ([`bytes`](Tape::bytes)) are kept: past it,
    /// recording stops with [`Tape::FULL`] (the caller runs the block again
    /// into its consumer).
    limit: usize,
    /// Set when the run ends early: recording stops as when full.
    stop: Option<Arc<AtomicBool>>,
    /// Whether a call was refused: the tape is short of the block's calls
    /// (a full tape may hold fewer bytes once [sealed](Tape::seal)).
    refused: bool,
}

impl Tape {
    /// The error a full tape stops its block with (never seen outside).
    pub(super) const FULL: Error = Error::Interrupted;

    /// A tape that keeps at most `limit` bytes.
    pub(super) fn with_limit(limit: usize) -> Self {
        Tape {
            limit,
            ..Tape::default()
        }
    }

    /// The same tape, stopping (as when full) once `stop` is set.
    pub(super) fn with_stop(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Whether recording stopped short: at the limit, or told to stop.
    pub(super) fn is_full(&self) -> bool {
        self.refused
            || self.bytes() >= self.limit
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Bytes it holds, roughly (what a cache of tapes counts): the indices
    /// while recording too.
    pub(super) fn bytes(&self) -> usize {
        let event = std::mem::size_of::<Stored>();
        let place = std::mem::size_of::<StoredPlace>();
        self.calls.len() * std::mem::size_of::<Call>()
            + self.events.len() * event
            + self.places.len() * place
            + self.event_index.len() * (event + 4 + ENTRY_OVERHEAD)
            + self.place_index.len() * (place + 4 + ENTRY_OVERHEAD)
            + self.names_bytes
            + self.chunks.len() * 4
            + self.runs.len() * 8
    }

    /// Drops what only recording needs (the indices of the distinct events,
    /// places and names): the tape is complete.
    pub(super) fn seal(&mut self) {
        self.event_index = FxHashMap::default();
        self.place_index = FxHashMap::default();
        self.index = FxHashMap::default();
        self.at = FxHashMap::default();
        self.calls.shrink_to_fit();
        self.events.shrink_to_fit();
        self.places.shrink_to_fit();
    }

    fn intern(&mut self, s: &str) -> u32 {
        // By where the string is first (the interpreter's are its program's,
        // the same each time), checked: a string's hash costs more.
        let at = (s.as_ptr() as usize, s.len());
        if let Some(&i) = self.at.get(&at) {
            if *self.names[i as usize] == *s {
                return i;
            }
        }
        let i = match self.index.get(s) {
            Some(&i) => i,
            None => {
                let i = self.names.len() as u32;
                self.names.push(s.into());
                self.index.insert(s.into(), i);
                self.names_bytes += 2 * s.len() + 48;
                i
            }
        };
        if self.at.len() < 1 << 12 {
            self.at.insert(at, i);
            self.names_bytes += 24;
        }
        i
    }

    /// Whether a call may be recorded: the tape is not full before it
    /// (what the call adds may take it past its limit, so that a tape found
    /// not full always takes the next call, as [`Held`] needs).
    fn admit(&mut self) -> Result<(), Error> {
        if self.is_full() {
            self.refused = true;
            return Err(Tape::FULL);
        }
        Ok(())
    }

    /// The index of `stored` among the distinct events, added if new. An
    /// event that borrowed chunks or runs has its own range (no two alike):
    /// it is added.
    fn event_index(&mut self, stored: Stored) -> u32 {
        let n = self.events.len() as u32;
        if stored.chunks != (0, 0) {
            self.events.push(stored);
            return n;
        }
        let i = *self.event_index.entry(stored).or_insert(n);
        if i == n {
            self.events.push(stored);
        }
        i
    }

    fn record(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: Option<LaneSet>,
    ) -> Result<(), Error> {
        self.admit()?;
        let mut chunks = (0, 0);
        let (event, name) = match *event {
            Event::GmmaReads { site, chunks: c } => {
                if !c.is_empty() {
                    chunks = (self.chunks.len() as u32, c.len() as u32);
                }
                self.chunks.extend_from_slice(c);
                (Event::GmmaReads { site, chunks: &[] }, 0)
            }
            Event::Unmodelled { site, lanes, name } => (
                Event::Unmodelled {
                    site,
                    lanes,
                    name: "",
                },
                self.intern(name),
            ),
            Event::UnknownAddress {
                site,
                lanes,
                op,
                width,
                name,
            } => (
                Event::UnknownAddress {
                    site,
                    lanes,
                    op,
                    width,
                    name: "",
                },
                self.intern(name),
            ),
            Event::Gmma {
                site,
                lanes,
                wavefronts,
                conflicts,
            } => (
                Event::Gmma {
                    site,
                    lanes,
                    wavefronts,
                    conflicts,
                },
                0,
            ),
            Event::BulkCopy {
                site,
                lanes,
                runs,
                write,
                barrier,
                name,
            } => {
                if !runs.is_empty() {
                    chunks = (self.runs.len() as u32, runs.len() as u32);
                }
                self.runs.extend_from_slice(runs);
                (
                    Event::BulkCopy {
                        site,
                        lanes,
                        runs: &[],
                        write,
                        barrier,
                        name: "",
                    },
                    self.intern(name),
                )
            }
            Event::Mbarrier {
                site,
                lanes,
                barrier,
                op,
            } => (
                Event::Mbarrier {
                    site,
                    lanes,
                    barrier,
                    op,
                },
                0,
            ),
            Event::Access { site, request } => (Event::Access { site, request }, 0),
            Event::CasRound { site, request } => (Event::CasRound { site, request }, 0),
            Event::Barrier {
                site,
                lanes,
                id,
                threads,
                kind,
            } => (
                Event::Barrier {
                    site,
                    lanes,
                    id,
                    threads,
                    kind,
                },
                0,
            ),
            Event::SyncWarp { site, lanes, mask } => (Event::SyncWarp { site, lanes, mask }, 0),
            Event::Fence { site, lanes } => (Event::Fence { site, lanes }, 0),
            Event::CpAsyncCommit { site, lanes } => (Event::CpAsyncCommit { site, lanes }, 0),
            Event::CpAsyncWait {
                site,
                lanes,
                pending,
            } => (
                Event::CpAsyncWait {
                    site,
                    lanes,
                    pending,
                },
                0,
            ),
            Event::CpAsyncArrive { site, lanes } => (Event::CpAsyncArrive { site, lanes }, 0),
            Event::CpAsyncSource {
                site,
                lanes,
                offsets,
                zero_fill,
                guarded,
            } => (
                Event::CpAsyncSource {
                    site,
                    lanes,
                    offsets,
                    zero_fill,
                    guarded,
                },
                0,
            ),
            Event::ConstantLoad {
                site,
                lanes,
                width,
                load,
            } => (
                Event::ConstantLoad {
                    site,
                    lanes,
                    width,
                    load,
                },
                0,
            ),
        };
        let event = self.event_index(Stored {
            event,
            name,
            chunks,
        });
        self.calls.push(match unchanged {
            None => Call::Event { warp, event },
            Some(unchanged) => Call::Unchanged {
                warp,
                event,
                unchanged,
            },
        });
        Ok(())
    }

    /// Gives the recorded calls to `consumer`, in order.
    ///
    /// # Errors
    ///
    /// The consumer's, at the call that returned it.
    pub(super) fn replay<C: Consumer + ?Sized>(&self, consumer: &mut C) -> Result<(), Error> {
        self.each(|call| call.give(consumer))
    }

    /// Calls `f` with each recorded call, in order, up to the first error.
    fn each<F: FnMut(Recall<'_>) -> Result<(), Error>>(&self, mut f: F) -> Result<(), Error> {
        for call in &self.calls {
            let (warp, event, unchanged) = match *call {
                Call::Event { warp, event } => (warp, event, None),
                Call::Unchanged {
                    warp,
                    event,
                    unchanged,
                } => (warp, event, Some(unchanged)),
                Call::Place(i) => {
                    let p = &self.places[i as usize];
                    let mut place =
                        Place::new(p.input, p.line, &self.names[p.instruction as usize]);
                    if let Some(file) = p.source_file {
                        place = place.with_source_file(&self.names[file as usize]);
                    }
                    f(Recall::Place(&place))?;
                    continue;
                }
            };
            let Stored {
                event,
                name,
                chunks,
            } = self.events[event as usize];
            let name = self.names.get(name as usize).map_or("", |n| n);
            let range = chunks.0 as usize..chunks.0 as usize + chunks.1 as usize;
            let event = match event {
                Event::GmmaReads { site, .. } => Event::GmmaReads {
                    site,
                    chunks: &self.chunks[range],
                },
                Event::Unmodelled { site, lanes, .. } => Event::Unmodelled { site, lanes, name },
                Event::BulkCopy {
                    site,
                    lanes,
                    write,
                    barrier,
                    ..
                } => Event::BulkCopy {
                    site,
                    lanes,
                    runs: &self.runs[range],
                    write,
                    barrier,
                    name,
                },
                Event::UnknownAddress {
                    site,
                    lanes,
                    op,
                    width,
                    ..
                } => Event::UnknownAddress {
                    site,
                    lanes,
                    op,
                    width,
                    name,
                },
                other => other,
            };
            f(Recall::Event {
                warp,
                event: &event,
                unchanged,
            })?;
        }
        Ok(())
    }
}

impl Recorded for Tape {
    fn each(&self, f: &mut dyn FnMut(Recall<'_>) -> Result<(), Error>) -> Result<(), Error> {
        Tape::each(self, f)
    }
}

impl Consumer for Tape {
    fn place(&mut self, place: &Place<'_>) {
        // A full tape has already stopped its block at an event (or will at
        // the next); a place past the limit is dropped with it.
        if self.admit().is_err() {
            return;
        }
        let instruction = self.intern(place.instruction);
        let source_file = place.source_file.map(|f| self.intern(f));
        let stored = StoredPlace {
            input: place.input,
            line: place.line,
            instruction,
            source_file,
        };
        let n = self.places.len() as u32;
        let i = *self.place_index.entry(stored).or_insert(n);
        if i == n {
            self.places.push(stored);
        }
        self.calls.push(Call::Place(i));
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.record(warp, event, None)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        self.record(warp, event, Some(unchanged))
    }
}

/// Holds a block's calls on a tape, for the consumer to be given them
/// later, as the first repeat of the block's class
/// ([`Consumer::repeat_block`], which a consumer that works out a part per
/// class takes once); where the tape fills, gives the consumer
/// `begin_block`, the calls held, and every call after as it comes.
pub(super) struct Held<'a, C: ?Sized> {
    consumer: &'a mut C,
    block: &'a BlockInfo,
    tape: Option<Tape>,
    /// The consumer's error at taking the calls held: returned at the next
    /// event (a place cannot return one), or by [`finish`](Held::finish).
    error: Option<Error>,
}

impl<'a, C: Consumer + ?Sized> Held<'a, C> {
    pub(super) fn new(consumer: &'a mut C, block: &'a BlockInfo, tape: Tape) -> Self {
        Held {
            consumer,
            block,
            tape: Some(tape),
            error: None,
        }
    }

    /// The tape where it holds every call (the consumer was given none:
    /// not even `begin_block`), and the consumer's error not yet returned.
    pub(super) fn finish(self) -> (Option<Tape>, Option<Error>) {
        (self.tape, self.error)
    }

    /// Where the tape is full, gives the consumer its calls: the next calls
    /// go to the consumer.
    fn give_when_full(&mut self) {
        if self.tape.as_ref().is_some_and(Tape::is_full) {
            if let Some(tape) = self.tape.take() {
                let given = self
                    .consumer
                    .begin_block(self.block)
                    .and_then(|()| tape.replay(self.consumer));
                self.error = given.err();
            }
        }
    }
}

impl<C: Consumer + ?Sized> Consumer for Held<'_, C> {
    fn place(&mut self, place: &Place<'_>) {
        self.give_when_full();
        match &mut self.tape {
            Some(tape) => tape.place(place),
            None if self.error.is_none() => self.consumer.place(place),
            None => {}
        }
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.give_when_full();
        match &mut self.tape {
            Some(tape) => tape.event(warp, event),
            None => match self.error.take() {
                Some(e) => Err(e),
                None => self.consumer.event(warp, event),
            },
        }
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        self.give_when_full();
        match &mut self.tape {
            Some(tape) => tape.event_unchanged(warp, event, unchanged),
            None => match self.error.take() {
                Some(e) => Err(e),
                None => self.consumer.event_unchanged(warp, event, unchanged),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Site;
    use crate::request::WarpRequest;
    use crate::Op;

    /// Every call as text, in order.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Consumer for Log {
        fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
            self.0.push(format!("{block:?}"));
            Ok(())
        }

        fn place(&mut self, place: &Place<'_>) {
            self.0.push(format!("{place:?}"));
        }

        fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
            self.0.push(format!("{warp} {event:?}"));
            Ok(())
        }

        fn event_unchanged(
            &mut self,
            warp: u32,
            event: &Event<'_>,
            unchanged: LaneSet,
        ) -> Result<(), Error> {
            self.0.push(format!("{warp} {event:?} {unchanged:?}"));
            Ok(())
        }
    }

    /// A loop's calls, its stages coming round again: a load of stage
    /// `i % 2` by warp `i % 4`, between places, with the borrowed kinds.
    fn calls(c: &mut dyn Consumer, n: u32) -> Result<(), Error> {
        let chunks: Vec<u32> = (0..8).collect();
        for i in 0..n {
            let instruction = if i % 3 == 0 {
                "ld.shared.b32"
            } else {
                "wmma.load"
            };
            let place = Place::new(0, u64::from(i % 5), instruction);
            c.place(&place.with_source_file("gemm.cu"));
            let addresses = core::array::from_fn(|l| Some(4 * l as u32 + 128 * (i % 2)));
            let request = WarpRequest::new(Op::Load, 4, addresses)?;
            let site = Site::pc(u64::from(i % 7));
            c.event(i % 4, &Event::Access { site, request })?;
            c.event_unchanged(1, &Event::Access { site, request }, LaneSet::from_bits(i))?;
            let lanes = LaneSet::FULL;
            let name = if i % 2 == 0 { "tex.2d" } else { "suld" };
            c.event(0, &Event::Unmodelled { site, lanes, name })?;
            c.event(
                0,
                &Event::GmmaReads {
                    site,
                    chunks: &chunks[(i % 8) as usize..],
                },
            )?;
            let runs = [(i, 16), (i + 64, 8)];
            let bulk = Event::BulkCopy {
                site,
                lanes,
                runs: &runs[..(i % 3).min(2) as usize],
                write: i % 2 == 0,
                barrier: None,
                name: "cp.async.bulk",
            };
            c.event(2, &bulk)?;
        }
        Ok(())
    }

    #[test]
    fn a_replay_gives_the_calls_recorded_and_each_distinct_one_is_kept_once() {
        let (mut direct, mut replayed) = (Log::default(), Log::default());
        calls(&mut direct, 40).unwrap();
        let mut tape = Tape::with_limit(1 << 30);
        calls(&mut tape, 40).unwrap();
        tape.seal();
        tape.replay(&mut replayed).unwrap();
        assert_eq!(direct.0, replayed.0);
        assert_eq!(tape.calls.len(), 40 * 6);
        // Places: (line, whether a load) pairs. Events: loads by (site,
        // stage), the warp and the unchanged lanes being the call's; the
        // unmodelled by (site, name); bulk copies without runs by (site,
        // write); the 40 gmma reads and the 26 bulk copies with runs each
        // on its own.
        assert_eq!(tape.places.len(), 10);
        assert_eq!(tape.events.len(), 14 + 14 + 14 + 40 + 26);
        assert_eq!(tape.names.len(), 6);
    }

    #[test]
    fn a_tape_not_full_takes_the_next_call_whatever_it_adds() {
        let mut tape = Tape::with_limit(1);
        let site = Site::pc(0);
        let lanes = LaneSet::FULL;
        let name = "tex.2d";
        let call = Event::Unmodelled { site, lanes, name };
        assert!(!tape.is_full());
        assert_eq!(tape.event(0, &call), Ok(()));
        assert!(tape.is_full());
        assert_eq!(tape.event(0, &call), Err(Tape::FULL));
        assert_eq!(tape.calls.len(), 1);
    }

    #[test]
    fn a_full_tape_stays_full_once_sealed() {
        let mut tape = Tape::with_limit(4096);
        assert!(calls(&mut tape, 40) == Err(Tape::FULL));
        assert!(tape.is_full());
        tape.seal();
        assert!(tape.bytes() < 4096 && tape.is_full());
    }

    #[test]
    fn a_held_block_is_given_where_its_tape_fills_and_held_whole_otherwise() {
        let block = BlockInfo::new([3, 0, 0], Some(64));
        let mut direct = Log::default();
        direct.begin_block(&block).unwrap();
        calls(&mut direct, 40).unwrap();
        // Room for all: the consumer has seen nothing.
        let mut log = Log::default();
        let mut held = Held::new(&mut log, &block, Tape::with_limit(1 << 30));
        calls(&mut held, 40).unwrap();
        let (tape, error) = held.finish();
        assert!(log.0.is_empty() && error.is_none());
        let mut replayed = Log::default();
        replayed.begin_block(&block).unwrap();
        tape.unwrap().replay(&mut replayed).unwrap();
        assert_eq!(replayed.0, direct.0);
        // Room for some: begin_block, the calls held, then the others as
        // they come, in order.
        let mut log = Log::default();
        let mut held = Held::new(&mut log, &block, Tape::with_limit(4096));
        calls(&mut held, 40).unwrap();
        let (tape, error) = held.finish();
        assert!(tape.is_none() && error.is_none());
        assert_eq!(log.0, direct.0);
    }

    /// Refuses `begin_block`.
    struct Refuses;

    impl Consumer for Refuses {
        fn begin_block(&mut self, _: &BlockInfo) -> Result<(), Error> {
            Err(Error::Interrupted)
        }

        fn event(&mut self, _: u32, _: &Event<'_>) -> Result<(), Error> {
            Ok(())
        }
    }

    #[test]
    fn a_consumer_error_at_giving_the_calls_held_ends_the_block_at_its_next_event() {
        let block = BlockInfo::new([0, 0, 0], None);
        let mut refuses = Refuses;
        let mut held = Held::new(&mut refuses, &block, Tape::with_limit(4096));
        assert_eq!(calls(&mut held, 40), Err(Error::Interrupted));
        let (tape, error) = held.finish();
        assert!(tape.is_none() && error.is_none());
    }
}
