//! A block's events, kept to be given to a consumer later: once in block
//! order when the block ran on another thread, and as the calls of each
//! further block of its class when blocks run alike
//! ([`classes`](super::classes)), which a consumer may take or not
//! ([`Repeat`](crate::kernel::Repeat)).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::kernel::{Consumer, Event, Place, Recall, Recorded};
use crate::{Error, LaneSet};

/// One call a block's run made on its consumer.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// `event` (`unchanged` none) or `event_unchanged`; `name` indexes
    /// [`Tape::names`] for the events that carry one.
    Event {
        warp: u32,
        event: Event<'static>,
        name: u32,
        /// A [`Event::GmmaReads`]'s chunks: their range in [`Tape::chunks`]; a
        /// [`Event::BulkCopy`]'s runs: their range in [`Tape::runs`].
        chunks: (u32, u32),
        unchanged: Option<LaneSet>,
    },
    /// `place`, its strings in [`Tape::names`].
    Place {
        input: u32,
        line: u64,
        instruction: u32,
        source_file: Option<u32>,
    },
}

/// The calls a block's run made on its consumer between `begin_block` and
/// `end_block`, in order, as a [`Consumer`] that records them.
#[derive(Debug, Default)]
pub(super) struct Tape {
    calls: Vec<Call>,
    /// The strings the events and places borrowed, each once.
    names: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
    /// The chunks the [`Event::GmmaReads`] events borrowed, one after another.
    chunks: Vec<u32>,
    /// The runs the [`Event::BulkCopy`] events borrowed, one after another.
    runs: Vec<(u32, u32)>,
    /// At most this many calls are kept: past it, recording stops with
    /// [`Tape::FULL`] (the caller runs the block again into its consumer).
    limit: usize,
    /// Set when the run ends early: recording stops as when full.
    stop: Option<Arc<AtomicBool>>,
}

impl Tape {
    /// The error a full tape stops its block with (never seen outside).
    pub(super) const FULL: Error = Error::Interrupted;

    /// Bytes a call takes on a tape.
    pub(super) const CALL_BYTES: usize = std::mem::size_of::<Call>();

    /// A tape that keeps at most `limit` calls.
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
        self.calls.len() >= self.limit
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Bytes it holds, roughly (what a cache of tapes counts).
    pub(super) fn bytes(&self) -> usize {
        self.calls.len() * std::mem::size_of::<Call>()
            + self.names.iter().map(|n| n.len() + 48).sum::<usize>()
            + self.chunks.len() * 4
            + self.runs.len() * 8
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.into());
        self.index.insert(s.into(), i);
        i
    }

    fn push(&mut self, call: Call) -> Result<(), Error> {
        if self.is_full() {
            return Err(Tape::FULL);
        }
        self.calls.push(call);
        Ok(())
    }

    fn record(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: Option<LaneSet>,
    ) -> Result<(), Error> {
        let mut chunks = (0, 0);
        let (event, name) = match *event {
            Event::GmmaReads { site, chunks: c } => {
                chunks = (self.chunks.len() as u32, c.len() as u32);
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
                chunks = (self.runs.len() as u32, runs.len() as u32);
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
        self.push(Call::Event {
            warp,
            event,
            name,
            chunks,
            unchanged,
        })
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
            match *call {
                Call::Event {
                    warp,
                    event,
                    name,
                    chunks,
                    unchanged,
                } => {
                    let name = self.names.get(name as usize).map_or("", |n| n);
                    let event = match event {
                        Event::GmmaReads { site, .. } => Event::GmmaReads {
                            site,
                            chunks: &self.chunks
                                [chunks.0 as usize..chunks.0 as usize + chunks.1 as usize],
                        },
                        Event::Unmodelled { site, lanes, .. } => {
                            Event::Unmodelled { site, lanes, name }
                        }
                        Event::BulkCopy {
                            site,
                            lanes,
                            write,
                            barrier,
                            ..
                        } => Event::BulkCopy {
                            site,
                            lanes,
                            runs: &self.runs
                                [chunks.0 as usize..chunks.0 as usize + chunks.1 as usize],
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
                Call::Place {
                    input,
                    line,
                    instruction,
                    source_file,
                } => {
                    let mut place = Place::new(input, line, &self.names[instruction as usize]);
                    if let Some(file) = source_file {
                        place = place.with_source_file(&self.names[file as usize]);
                    }
                    f(Recall::Place(&place))?;
                }
            }
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
        let instruction = self.intern(place.instruction);
        let source_file = place.source_file.map(|f| self.intern(f));
        // A full tape has already stopped its block at an event; a place
        // past the limit is dropped with it.
        let _ = self.push(Call::Place {
            input: place.input,
            line: place.line,
            instruction,
            source_file,
        });
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

/// Gives every call to a consumer and records it on a tape, until the tape
/// is full (then only the consumer gets them).
pub(super) struct Tee<'a, C: ?Sized> {
    pub consumer: &'a mut C,
    pub tape: Option<Tape>,
}

impl<C: Consumer + ?Sized> Tee<'_, C> {
    fn keep(&mut self, f: impl FnOnce(&mut Tape) -> Result<(), Error>) {
        if let Some(tape) = &mut self.tape {
            if f(tape).is_err() {
                self.tape = None;
            }
        }
    }
}

impl<C: Consumer + ?Sized> Consumer for Tee<'_, C> {
    fn place(&mut self, place: &Place<'_>) {
        self.keep(|t| {
            t.place(place);
            if t.is_full() {
                Err(Tape::FULL)
            } else {
                Ok(())
            }
        });
        self.consumer.place(place);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.keep(|t| t.event(warp, event));
        self.consumer.event(warp, event)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        self.keep(|t| t.event_unchanged(warp, event, unchanged));
        self.consumer.event_unchanged(warp, event, unchanged)
    }
}
