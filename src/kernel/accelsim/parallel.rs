//! Tallying a trace on several threads: what `smem trace` does.
//!
//! The calling thread reads the input in chunks of whole lines
//! ([`Reader`]), numbering the lines, telling each file's format, following
//! trace headers and kernel lists: all that must happen in input order.
//! Worker threads take the chunks from a queue and read them into a
//! [`Tally`] of their own ([`read_chunk`]; corpus records, with the `corpus`
//! feature, record by record), and send back the chunk's errors and buffer;
//! the calling thread hands the errors on in input order and merges the
//! workers' tallies once, at the end. Every figure of a tally is a sum or a
//! maximum and its ranking breaks ties by first appearance, so the result is
//! the same whatever the number of threads.
//!
//! Memory holds the queued chunks and those being read
//! ([`CHUNK_BYTES`](super::input::CHUNK_BYTES) each, at most two a thread),
//! each worker's tally (one entry per distinct instruction), each kernel
//! name once, and the first errors of each chunk, whatever the input's
//! length.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::input::{Chunk, Format, Input, Location, Reader};
use super::read_chunk;
use crate::kernel::tally::Tally;
use crate::kernel::{Consumer, Event, KernelInfo, Place};
use crate::{ComputeCapability, Error};

/// The most worker threads: beyond a few, the one reading thread is the
/// bound, and each thread holds up to two chunks of the queue.
pub const MAX_THREADS: usize = 64;

/// The name of the worker threads (a panic hook can tell them by it).
pub const WORKER_THREAD: &str = "smem-trace-worker";

/// How to tally a trace on several threads (see the [module docs](self)).
///
/// # Example: tally files on two threads
///
/// ```
/// use smem_model::kernel::accelsim::input::{Input, Reader};
/// use smem_model::kernel::accelsim::parallel::ParallelTally;
///
/// let trace = "-kernel name = k\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n\
///              0010 ffffffff 0 LDS 1 R2 4 1 0x0 128\n0020 ffffffff 0 BRA 0 0 0\n#END_TB\n";
/// let mut reader = Reader::new(vec![Input::reader("k.traceg", trace.as_bytes())]);
/// let mut errors = Vec::new();
/// let tallied = ParallelTally::new().with_threads(2).read(
///     &mut reader,
///     |err| {
///         errors.push(err.to_string());
///         Ok(())
///     },
///     |_progress| {},
/// )?;
/// assert_eq!(tallied.tally.totals().wavefronts, 32);
/// assert_eq!(tallied.tally.other_instructions(), 1);
/// assert!(errors.is_empty());
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ParallelTally {
    threads: usize,
    top: usize,
    capability: Option<ComputeCapability>,
    timed: bool,
    shown_errors: usize,
    panic_at: Option<u64>,
}

/// What [`ParallelTally::read`] found.
#[derive(Debug)]
#[non_exhaustive]
pub struct Tallied {
    /// The tally of every line read.
    pub tally: Tally,
    /// Lines that could not be read (each reported or counted).
    pub lines_not_read: u64,
    /// Files that could not be read, or not to their end.
    pub files_not_read: u64,
    /// Errors handed to the error handler (the first ones, in input order).
    pub errors_reported: u64,
    /// Where the time went, when [timed](ParallelTally::timed).
    pub timings: Option<Timings>,
}

/// Where the time of a [`ParallelTally::read`] went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timings {
    /// From start to end.
    pub wall: Duration,
    /// Reading the input into chunks, on the calling thread.
    pub reading: Duration,
    /// Reading lines into events, summed over the workers.
    pub parse: Duration,
    /// Predicting the requests and counting them (what a simulator would
    /// do), summed over the workers.
    pub analysis: Duration,
    /// The worker threads.
    pub threads: usize,
}

impl Default for ParallelTally {
    fn default() -> ParallelTally {
        ParallelTally::new()
    }
}

impl ParallelTally {
    /// One worker thread a core (at most [`MAX_THREADS`]), the tally's
    /// default ranking, each kernel's own capability, 20 errors reported.
    pub fn new() -> ParallelTally {
        ParallelTally {
            threads: std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_THREADS),
            top: 10,
            capability: None,
            timed: false,
            shown_errors: 20,
            panic_at: None,
        }
    }

    /// `threads` worker threads, taken to be 1 to [`MAX_THREADS`]. The
    /// result does not depend on it.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> ParallelTally {
        self.threads = threads.clamp(1, MAX_THREADS);
        self
    }

    /// The instructions the tally ranks ([`Tally::with_top`]).
    #[must_use]
    pub fn with_top(mut self, top: usize) -> ParallelTally {
        self.top = top;
        self
    }

    /// Predicts every request on this capability ([`Tally::with_capability`]).
    #[must_use]
    pub fn with_capability(mut self, capability: ComputeCapability) -> ParallelTally {
        self.capability = Some(capability);
        self
    }

    /// Measures where the time goes ([`Tallied::timings`]).
    #[must_use]
    pub fn timed(mut self, timed: bool) -> ParallelTally {
        self.timed = timed;
        self
    }

    /// Hands at most `count` errors to the error handler; the rest are
    /// counted only.
    #[must_use]
    pub fn with_shown_errors(mut self, count: usize) -> ParallelTally {
        self.shown_errors = count;
        self
    }

    /// A line at which a worker panics, to test how a caller handles a
    /// worker's failure.
    #[doc(hidden)]
    #[must_use]
    pub fn with_panic_at(mut self, line: Option<u64>) -> ParallelTally {
        self.panic_at = line;
        self
    }

    /// Reads everything `reader` reads, on the worker threads, into one
    /// tally. Each line or file that cannot be read (an [`Error::Trace`],
    /// as [`Trace::read_with`](super::Trace::read_with) gives it) goes to
    /// `on_error`, in input order, the first [`with_shown_errors`](Self::with_shown_errors)
    /// of them; `Err` stops the reading with that error. `on_chunk` sees the
    /// reader after each chunk (for a progress bar: [`Reader::progress`]).
    ///
    /// # Errors
    ///
    /// What `on_error` returns; [`Error::Threads`] when a worker thread
    /// cannot be started or fails (a bug: its panic's message, and where in
    /// the input it was).
    pub fn read(
        &self,
        reader: &mut Reader,
        mut on_error: impl FnMut(Error) -> Result<(), Error>,
        mut on_chunk: impl FnMut(&Reader),
    ) -> Result<Tallied, Error> {
        let started = Instant::now();
        let mut reading = Duration::ZERO;
        // Chunks go to the workers with their place in the input; at most
        // one a worker waits to be taken.
        let (work_sender, jobs) = mpsc::sync_channel::<(u64, Chunk)>(self.threads);
        let jobs = Mutex::new(jobs);
        let (done, results) = mpsc::channel::<Message>();
        let mut merger = Merger {
            waiting: BTreeMap::new(),
            next: 0,
            errors: Errors::new(self.shown_errors),
            reported: 0,
            shown: self.shown_errors,
            workers: Vec::new(),
            on_error: &mut on_error,
        };
        std::thread::scope(|scope| {
            // Owned here: however this returns, the workers then find no more work.
            let work_sender = work_sender;
            for _ in 0..self.threads {
                let (jobs, done) = (&jobs, done.clone());
                std::thread::Builder::new()
                    .name(WORKER_THREAD.to_owned())
                    .spawn_scoped(scope, move || self.work(jobs, &done))
                    .map_err(|err| Error::Threads {
                        reason: format!("cannot start worker threads: {err}"),
                    })?;
            }
            drop(done);
            let mut sent = 0u64;
            loop {
                let at = Instant::now();
                let chunk = reader.next_chunk();
                reading += at.elapsed();
                on_chunk(reader);
                let Some(chunk) = chunk else { break };
                send(&work_sender, &results, (sent, chunk), &mut merger, reader)?;
                sent += 1;
                while let Ok(message) = results.try_recv() {
                    merger.take(message, reader)?;
                }
            }
            drop(work_sender);
            while let Ok(message) = results.recv() {
                merger.take(message, reader)?;
            }
            Ok::<(), Error>(())
        })?;
        let mut workers = std::mem::take(&mut merger.workers).into_iter();
        let (mut tally, mut time) = match workers.next() {
            Some(worker) => (worker.tally, worker.timings),
            None => (self.tally(), WorkerTimes::default()),
        };
        for worker in workers {
            tally.merge(worker.tally);
            time.parse += worker.timings.parse;
            time.analysis += worker.timings.analysis;
        }
        Ok(Tallied {
            tally,
            lines_not_read: merger.errors.lines,
            files_not_read: merger.errors.files,
            errors_reported: merger.reported,
            timings: self.timed.then(|| Timings {
                wall: started.elapsed(),
                reading,
                parse: time.parse,
                analysis: time.analysis,
                threads: self.threads,
            }),
        })
    }

    fn tally(&self) -> Tally {
        let tally = Tally::default().with_top(self.top);
        match self.capability {
            Some(cc) => tally.with_capability(cc),
            None => tally,
        }
    }

    /// A worker: takes chunks until there are no more, then sends its tally.
    fn work(&self, jobs: &Mutex<Receiver<(u64, Chunk)>>, done: &mpsc::Sender<Message>) {
        let place = Cell::new(Location { input: 0, line: 0 });
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut worker = Box::new(Worker {
                tally: self.tally(),
                timings: WorkerTimes::default(),
            });
            loop {
                // The lock is held only to take a chunk, not to read it.
                let job = jobs
                    .lock()
                    .map_err(drop)
                    .and_then(|jobs| jobs.recv().map_err(drop));
                let Ok((index, chunk)) = job else { break };
                place.set(Location {
                    input: chunk.file,
                    line: chunk.first_line,
                });
                let errors = self.analyse(&chunk, &mut worker);
                let message = Message::Chunk {
                    index,
                    errors,
                    buf: chunk.buf,
                };
                if done.send(message).is_err() {
                    return;
                }
            }
            let _ = done.send(Message::Done(worker));
        }));
        if let Err(payload) = result {
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("(no message)")
                .to_owned();
            let _ = done.send(Message::Failed {
                message,
                at: place.get(),
            });
        }
    }

    /// Reads one chunk into the worker's tally. Returns the chunk's errors,
    /// in input order.
    fn analyse(&self, chunk: &Chunk, worker: &mut Worker) -> Errors {
        let started = Instant::now();
        if let Some(line) = self.panic_at {
            let lines = chunk.lines().count() as u64;
            if (chunk.first_line..chunk.first_line + lines).contains(&line) {
                panic!("a deliberate failure at line {line} (ParallelTally::with_panic_at)");
            }
        }
        let tally = &mut worker.tally;
        let refused = tally.error_count();
        let mut found: Vec<(Location, String)> = Vec::new();
        if chunk.format == Some(Format::Corpus) {
            for line in chunk.lines() {
                if let Err(reason) = corpus_line(&line, self.capability, tally) {
                    found.push((line.at, reason));
                }
            }
        } else {
            let mut on_error = |at, reason| found.push((at, reason));
            let summary = if self.timed {
                let mut timed = Timed {
                    inner: tally,
                    analysis: Duration::ZERO,
                };
                let summary = read_chunk(chunk, &mut timed, &mut on_error);
                worker.timings.analysis += timed.analysis;
                summary
            } else {
                read_chunk(chunk, tally, &mut on_error)
            };
            // The tally returns no error of its own.
            if let Ok(summary) = summary {
                worker
                    .tally
                    .add_other_instructions(summary.other_instructions);
            }
        }
        let tally = &mut worker.tally;
        let kept = tally.take_errors();
        let dropped = tally.error_count() - refused - kept.len() as u64;
        found.extend(kept.into_iter().map(|e| (e.at, e.reason)));
        found.sort_by_key(|(at, _)| *at);
        let mut errors = Errors::new(self.shown_errors);
        for (at, reason) in found {
            errors.push(at, reason, false);
        }
        errors.lines += dropped;
        // The reader's errors come after the chunk's lines.
        for error in &chunk.errors {
            errors.push(error.at, error.reason.clone(), error.file_level);
        }
        if self.timed {
            worker.timings.parse += started.elapsed().saturating_sub(worker.timings.analysis);
        }
        errors
    }
}

/// Tallies trace files (as [`Trace::files`](super::Trace::files) reads
/// them: `.traceg`, raw `.trace`, `kernelslist.g`, `.xz`; corpus records with
/// the `corpus` feature) on `threads` worker threads, stopping at the first
/// line or file that cannot be read.
///
/// # Errors
///
/// [`Error::Trace`] for the first line or file that cannot be read;
/// [`Error::Threads`] when the worker threads cannot be started or fail.
///
/// # Example
///
/// ```no_run
/// use smem_model::kernel::accelsim::parallel::tally_files;
///
/// let tally = tally_files(["traces/kernelslist.g"], 4)?;
/// println!("{} bank conflicts", tally.totals().bank_conflicts);
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn tally_files<P: Into<PathBuf>>(
    paths: impl IntoIterator<Item = P>,
    threads: usize,
) -> Result<Tally, Error> {
    let mut reader = Reader::new(paths.into_iter().map(Input::path).collect());
    ParallelTally::new()
        .with_threads(threads)
        .with_shown_errors(1)
        .read(&mut reader, Err, |_| {})
        .map(|tallied| tallied.tally)
}

/// Reads one corpus record into the tally.
#[cfg(feature = "corpus")]
fn corpus_line(
    line: &super::input::Line<'_>,
    capability: Option<ComputeCapability>,
    tally: &mut Tally,
) -> Result<(), String> {
    use crate::corpus::Record;
    let Ok(text) = std::str::from_utf8(line.bytes) else {
        return Err("cannot read: stream did not contain valid UTF-8".to_owned());
    };
    let text = text.trim();
    // Blank lines, and lines before the format was known (blank ones).
    if text.is_empty() || line.format.is_none() {
        return Ok(());
    }
    let record = Record::from_json(text).map_err(|e| e.to_string())?;
    let cc = match capability {
        Some(cc) => cc,
        None => record.capability().map_err(|e| e.to_string())?,
    };
    let request = record.request(cc).map_err(|e| e.to_string())?;
    tally.add_request(
        line.at,
        record.label.as_deref(),
        crate::BankConfig::new(cc),
        &request,
    );
    Ok(())
}

/// Without the `corpus` feature, a corpus record is an error.
#[cfg(not(feature = "corpus"))]
fn corpus_line(
    line: &super::input::Line<'_>,
    _: Option<ComputeCapability>,
    _: &mut Tally,
) -> Result<(), String> {
    if line.bytes.trim_ascii().is_empty() || line.format.is_none() {
        return Ok(());
    }
    Err("a corpus record (JSON line): reading them needs the `corpus` feature".to_owned())
}

/// A worker's tally and times.
struct Worker {
    tally: Tally,
    timings: WorkerTimes,
}

/// A worker's time, reading lines and in the tally.
#[derive(Debug, Clone, Copy, Default)]
struct WorkerTimes {
    parse: Duration,
    analysis: Duration,
}

/// A consumer that times another's handling of the events: the rest of a
/// chunk's time is reading its lines.
struct Timed<'a> {
    inner: &'a mut Tally,
    analysis: Duration,
}

impl Consumer for Timed<'_> {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.inner.begin_kernel(kernel)
    }

    fn place(&mut self, place: &Place<'_>) {
        self.inner.place(place);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        let started = Instant::now();
        let result = self.inner.event(warp, event);
        self.analysis += started.elapsed();
        result
    }
}

/// A line that could not be read, or a file.
#[derive(Debug, Clone)]
struct LineError {
    at: Location,
    reason: String,
    file_level: bool,
}

/// The errors of some lines: the first ones and how many.
#[derive(Debug)]
struct Errors {
    shown: Vec<LineError>,
    keep: usize,
    lines: u64,
    files: u64,
}

impl Errors {
    fn new(keep: usize) -> Errors {
        Errors {
            shown: Vec::new(),
            keep,
            lines: 0,
            files: 0,
        }
    }

    fn push(&mut self, at: Location, reason: String, file_level: bool) {
        if file_level {
            self.files += 1;
        } else {
            self.lines += 1;
        }
        if self.shown.len() < self.keep {
            self.shown.push(LineError {
                at,
                reason,
                file_level,
            });
        }
    }
}

/// What the workers send the reading thread.
enum Message {
    /// A chunk's errors, and its buffer to read into again.
    Chunk {
        index: u64,
        errors: Errors,
        buf: Vec<u8>,
    },
    /// A worker failed (a bug): what it said, and where it was.
    Failed { message: String, at: Location },
    /// A worker's tally, once the input has ended.
    Done(Box<Worker>),
}

/// The reading thread's side: errors in input order, the workers' tallies.
struct Merger<'a> {
    /// Chunks' errors that came back before those of earlier chunks.
    waiting: BTreeMap<u64, Errors>,
    next: u64,
    errors: Errors,
    reported: u64,
    shown: usize,
    workers: Vec<Worker>,
    on_error: &'a mut dyn FnMut(Error) -> Result<(), Error>,
}

impl Merger<'_> {
    fn take(&mut self, message: Message, reader: &mut Reader) -> Result<(), Error> {
        match message {
            Message::Chunk { index, errors, buf } => {
                reader.recycle(buf);
                self.waiting.insert(index, errors);
                while let Some(part) = self.waiting.remove(&self.next) {
                    self.next += 1;
                    self.errors.lines += part.lines;
                    self.errors.files += part.files;
                    for error in part.shown {
                        if self.reported as usize >= self.shown {
                            break;
                        }
                        // Errors go out as soon as they are known, in input order.
                        self.reported += 1;
                        let name = reader
                            .inputs
                            .get(error.at.input as usize)
                            .map_or("?", |i| i.name.as_str());
                        (self.on_error)(Error::Trace {
                            source_name: name.to_owned(),
                            line: error.at.line,
                            whole_file: error.file_level,
                            reason: error.reason,
                        })?;
                    }
                }
                Ok(())
            }
            Message::Failed { message, at } => {
                let name = reader
                    .inputs
                    .get(at.input as usize)
                    .map_or("?", |i| i.name.as_str());
                Err(Error::Threads {
                    reason: format!(
                        "internal error: a worker thread failed on the lines of {name} from \
                         line {}: {message} (please report it)",
                        at.line
                    ),
                })
            }
            Message::Done(worker) => {
                self.workers.push(*worker);
                Ok(())
            }
        }
    }
}

/// Hands `job` to the workers, taking their results while the queue is full.
/// Never blocks on a queue nobody takes from: when every worker is gone, the
/// results channel says so.
fn send(
    work: &SyncSender<(u64, Chunk)>,
    results: &Receiver<Message>,
    mut job: (u64, Chunk),
    merger: &mut Merger<'_>,
    reader: &mut Reader,
) -> Result<(), Error> {
    let gone = || Error::Threads {
        reason: "internal error: no worker thread is left".to_owned(),
    };
    loop {
        match work.try_send(job) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Full(back)) => {
                job = back;
                match results.recv() {
                    Ok(message) => merger.take(message, reader)?,
                    Err(_) => return Err(gone()),
                }
            }
            Err(TrySendError::Disconnected(_)) => return Err(gone()),
        }
    }
}
