//! `smem trace`: a stream of warp requests, analysed.
//!
//! Reads any number of files, each in one of two formats, told apart by its
//! first line:
//!
//! - the corpus format of `smem_model::corpus` (the design reference, section
//!   6): one JSON object a line; the measured fields are optional, and the
//!   optional `label` names the instruction;
//! - the Accel-Sim / NVBit trace format (`kernel-N.traceg` and the raw
//!   `kernel-N.trace`), of which the shared-memory instructions are read: see
//!   `trace/accelsim.rs` for the format and its source.
//!
//! The output is the totals (requests, wavefronts, ideal wavefronts, bank
//! conflicts), the same per kind of instruction, and the instructions with the
//! most bank conflicts: corpus records grouped by `label` (a record without one
//! is an instruction of its own), trace instructions by kernel and PC.
//!
//! # Streaming, threads, determinism
//!
//! The main thread reads the input (`reader.rs`) in chunks of whole lines,
//! numbering the lines, telling each file's format and following trace
//! headers, which is all that must happen in input order. `--threads` workers
//! take the chunks from a queue (two a worker at most), split, parse, predict
//! and count their lines into tallies (`tally.rs`), and send them back; the
//! main thread merges them in input order. Memory holds the queued chunks and
//! those being analysed (256 KB each), one entry per distinct instruction and
//! the best `--top` unlabelled records, whatever the input's length: a million
//! corpus requests peaked at 8 MB on two threads (the ignored test in
//! `tests/cli_trace.rs` measures it). Every figure is a sum or a maximum, and
//! the instruction ranking breaks ties by first appearance, so the output is
//! the same whatever the number of threads.
//!
//! # Bad lines
//!
//! A line that cannot be analysed is reported on stderr as `FILE:LINE: reason`
//! (the first 20; the rest are counted) and reading goes on; `--strict` stops
//! at the first one. The exit status is 1 when any line or file could not be
//! read, 0 otherwise.

mod accelsim;
mod reader;
mod tally;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use smem_model::corpus::Record;
use smem_model::{BankConfig, ComputeCapability, WarpRequest};

use accelsim::Kernel;
use reader::{Chunk, Format, Input, Location, Reader};
use tally::{ChunkTally, LineError, Source, Tally, Timings, Totals};

use crate::output::{emit, fail, plural, styled, warn, HEADING, NOTE};
use crate::table::{Align, Table};

/// Arguments of `smem trace`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Formats (told apart by each file's first line):
  corpus     one JSON object a line: arch, op (ld, st, atom, ldsm, stsm), width, 32 offsets
             (-1 = inactive), optional label, gpu, group, wavefronts, ncu_bank_conflicts
  accel-sim  Accel-Sim / NVBit traces (kernel-N.traceg or the raw kernel-N.trace): LDS, STS,
             ATOMS, LDSM and STSM lines, in any address-compression mode (list, base+stride,
             base+delta); the arch comes from the header's -binary version.
Compressed traces: xz -dc kernel-1.traceg.xz | smem trace -

Examples:
  smem trace tests/data/traces/transpose.traceg
  smem trace --arch sm_86 --top 5 traces/kernel-*.traceg
  smem trace --json requests.jsonl")]
pub struct Args {
    /// Files to read; `-` reads standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Predict every request on this compute capability, instead of each record's
    /// `arch` and each trace's `-binary version` (sm_90 when a trace has none).
    #[arg(long, value_name = "CC")]
    arch: Option<ComputeCapability>,

    /// How many instructions to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,

    /// Print the result as JSON.
    #[arg(long)]
    json: bool,

    /// Stop at the first line that cannot be analysed.
    #[arg(long)]
    strict: bool,

    /// Worker threads (default: one per core). The output does not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,

    /// Never draw the progress bar (it is drawn only on a terminal, for inputs
    /// over 1 MB).
    #[arg(long)]
    no_progress: bool,

    /// Print where the time went to standard error: reading, parsing and the
    /// analysis proper (predicting and counting), with its rate per thread.
    #[arg(long)]
    timings: bool,
}

/// The capability used for trace instructions whose header names none.
const DEFAULT_ARCH: ComputeCapability = ComputeCapability::Sm90;

/// One line of a chunk, parsed: a request to predict.
struct Parsed<'a> {
    at: Location,
    config: BankConfig,
    request: WarpRequest,
    source: Source<'a>,
}

/// Lines parsed before they are analysed: the parsed requests stay in cache.
const PARSED_LINES: usize = 512;

/// Analyses one chunk: reads its lines, some hundreds at a time, into
/// requests, then predicts and counts them, timing the two apart (`--timings`).
fn analyse(chunk: &Chunk, arch: Option<ComputeCapability>, top: usize) -> Tally {
    let mut errors: Vec<(Location, String, bool)> = Vec::new();
    let mut other_instructions = 0;
    let mut timings = Timings::default();
    let mut counts = ChunkTally::default();
    let mut parsed = Vec::with_capacity(PARSED_LINES);
    let mut lines = chunk.lines().peekable();
    while lines.peek().is_some() {
        let started = Instant::now();
        parsed.clear();
        for line in lines.by_ref().take(PARSED_LINES) {
            let Ok(text) = std::str::from_utf8(line.bytes) else {
                let reason = "cannot read: stream did not contain valid UTF-8";
                errors.push((line.at, reason.to_owned(), false));
                continue;
            };
            let text = text.trim();
            let result = match line.format {
                _ if text.is_empty() => continue,
                // Blank or unreadable lines only come before the format is known.
                None => continue,
                Some(Format::Corpus) => corpus_line(text, arch)
                    .map(|(label, config, request)| Some((config, request, Source::Record(label)))),
                Some(Format::AccelSim) => {
                    if text.starts_with('-')
                        || text.starts_with('#')
                        || text.starts_with("thread block")
                        || text.starts_with("warp")
                        || text.starts_with("insts")
                    {
                        // Headers (the reader follows them) and the structure
                        // of the .traceg form: nothing to analyse.
                        continue;
                    }
                    if !accelsim::may_be_shared(text) {
                        other_instructions += 1;
                        continue;
                    }
                    accelsim_line(text, line.kernel, arch)
                }
            };
            match result {
                Ok(Some((config, request, source))) => parsed.push(Parsed {
                    at: line.at,
                    config,
                    request,
                    source,
                }),
                Ok(None) => other_instructions += 1,
                Err(reason) => errors.push((line.at, reason, false)),
            }
        }
        let analysis_started = Instant::now();
        for line in &parsed {
            match line.config.cost(&line.request) {
                Ok(cost) => counts.add(
                    line.at,
                    &line.source,
                    line.config.capability(),
                    &line.request,
                    cost,
                    top,
                ),
                Err(err) => {
                    let reason = match &line.source {
                        Source::Code { opcode, .. } => format!("{opcode}: {err}"),
                        Source::Record(_) => err.to_string(),
                    };
                    errors.push((line.at, reason, false));
                }
            }
        }
        let finished = Instant::now();
        timings.parse += analysis_started - started;
        timings.analysis += finished - analysis_started;
    }
    let mut tally = counts.finish(top);
    errors.extend(
        chunk
            .errors
            .iter()
            .map(|e| (e.at, e.reason.clone(), e.file_level)),
    );
    // Errors in input order, whichever pass found them.
    errors.sort_by_key(|&(at, _, _)| at);
    for (at, reason, file_level) in errors {
        tally.error(at, reason, file_level);
    }
    tally.other_instructions = other_instructions;
    tally.timings = timings;
    tally
}

/// A corpus record's label, configuration and request.
fn corpus_line(
    text: &str,
    arch: Option<ComputeCapability>,
) -> Result<(Option<String>, BankConfig, WarpRequest), String> {
    let record = Record::from_json(text).map_err(|e| e.to_string())?;
    let cc = match arch {
        Some(cc) => cc,
        None => record.capability().map_err(|e| e.to_string())?,
    };
    let request = record.request(cc).map_err(|e| e.to_string())?;
    Ok((record.label, BankConfig::new(cc), request))
}

/// A trace line's configuration, request and instruction; `None` when it
/// does not access shared memory after all.
fn accelsim_line<'a>(
    text: &'a str,
    kernel: &'a Arc<Kernel>,
    arch: Option<ComputeCapability>,
) -> Result<Option<(BankConfig, WarpRequest, Source<'a>)>, String> {
    let Some(instruction) = accelsim::parse(text, kernel)? else {
        return Ok(None);
    };
    let cc = arch
        .or_else(|| {
            kernel
                .binary_version
                .and_then(|v| ComputeCapability::new(v / 10, v % 10))
        })
        .unwrap_or(DEFAULT_ARCH);
    let request = WarpRequest::new(instruction.op, instruction.width, instruction.addresses)
        .map_err(|e| format!("{}: {e}", instruction.opcode))?;
    let source = Source::Code {
        kernel,
        pc: instruction.pc,
        opcode: instruction.opcode,
    };
    Ok(Some((BankConfig::new(cc), request, source)))
}

/// A kernel name short enough for a table cell.
pub(super) fn short(name: &str) -> String {
    const MAX: usize = 40;
    if name.is_empty() {
        "(kernel)".to_owned()
    } else if name.chars().count() <= MAX {
        name.to_owned()
    } else {
        let head: String = name.chars().take(MAX - 3).collect();
        format!("{head}...")
    }
}

/// Runs `smem trace`.
pub fn run(args: &Args) -> ExitCode {
    let threads = match args.threads {
        Some(0) => return fail("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    trace(args, threads)
}

fn trace(args: &Args, threads: usize) -> ExitCode {
    let inputs: Vec<Input> = args
        .files
        .iter()
        .map(|path| {
            let stdin = path.as_os_str() == "-";
            Input {
                path: (!stdin).then(|| path.clone()),
                name: if stdin {
                    "<stdin>".to_owned()
                } else {
                    path.display().to_string()
                },
                format: None,
            }
        })
        .collect();
    let progress = progress_bar(args, &inputs);
    let mut reader = Reader::new(inputs, progress.clone());
    let started = Instant::now();
    let mut reading = Duration::ZERO;
    let mut tally = Tally::default();
    let mut shown = 0;
    // Chunks go to the workers with their place in the input, and their
    // tallies come back in any order; `waiting` holds them until every chunk
    // before has been merged. At most two a worker wait to be taken.
    let (work, jobs) = mpsc::sync_channel::<(u64, Chunk)>(2 * threads);
    let jobs = Mutex::new(jobs);
    let (done, results) = mpsc::channel::<(u64, Tally)>();
    let outcome: std::io::Result<bool> = std::thread::scope(|scope| {
        // Owned here: however this returns, the workers then find no more work.
        let work = work;
        for _ in 0..threads {
            let (jobs, done) = (&jobs, done.clone());
            std::thread::Builder::new().spawn_scoped(scope, move || loop {
                // The lock is held only to take a chunk, not to analyse it.
                let job = jobs
                    .lock()
                    .map_err(drop)
                    .and_then(|jobs| jobs.recv().map_err(drop));
                let Ok((index, chunk)) = job else { break };
                if done
                    .send((index, analyse(&chunk, args.arch, args.top)))
                    .is_err()
                {
                    break;
                }
            })?;
        }
        drop(done);
        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        let mut sent = 0u64;
        // Merges what has come back, in input order; false to stop (--strict).
        let mut merge = |tally: &mut Tally, part: (u64, Tally), reader: &Reader| {
            waiting.insert(part.0, part.1);
            while let Some(part) = waiting.remove(&next) {
                next += 1;
                tally.merge(part, args.top);
                // Errors go out as soon as they are known, in input order.
                // With --strict, the first is the last.
                for error in &tally.errors[shown..] {
                    let message = describe_error(&reader.inputs, error);
                    progress.suspend(|| warn(message));
                    if args.strict {
                        return false;
                    }
                }
                shown = tally.errors.len();
            }
            true
        };
        loop {
            let at = Instant::now();
            let chunk = reader.next_chunk();
            reading += at.elapsed();
            let Some(chunk) = chunk else { break };
            if work.send((sent, chunk)).is_err() {
                break;
            }
            sent += 1;
            while let Ok(part) = results.try_recv() {
                if !merge(&mut tally, part, &reader) {
                    return Ok(false);
                }
            }
        }
        drop(work);
        while let Ok(part) = results.recv() {
            if !merge(&mut tally, part, &reader) {
                return Ok(false);
            }
        }
        Ok(true)
    });
    match outcome {
        Ok(true) => {}
        Ok(false) => {
            progress.finish_and_clear();
            return ExitCode::FAILURE;
        }
        Err(err) => {
            progress.finish_and_clear();
            return fail(format_args!("cannot start worker threads: {err}"));
        }
    }
    progress.finish_and_clear();
    if args.timings {
        eprint!("{}", timings(&tally, started.elapsed(), reading, threads));
    }
    let hidden = tally.line_errors + tally.file_errors - tally.errors.len() as u64;
    if hidden > 0 {
        let noun = if hidden == 1 { "error" } else { "errors" };
        warn(format_args!("{hidden} more {noun} not shown"));
    }
    let text = if args.json {
        match serde_json::to_string_pretty(&json_report(args, &reader, &tally)) {
            Ok(json) => json + "\n",
            Err(err) => return fail(err),
        }
    } else {
        text_report(args, &reader, &tally)
    };
    if let Err(code) = emit(&text) {
        return code;
    }
    if tally.line_errors > 0 || tally.file_errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// What `--timings` prints.
fn timings(tally: &Tally, wall: Duration, reading: Duration, threads: usize) -> String {
    let Timings { parse, analysis } = tally.timings;
    let requests = tally.totals.requests;
    let rate = requests as f64 / analysis.as_secs_f64().max(f64::MIN_POSITIVE) / 1e6;
    format!(
        "timings: {requests} requests in {:.2} s on {} {}\n\
         \x20 reading  {:>8.2} s (one thread, beside the workers)\n\
         \x20 parsing  {:>8.2} s (summed over the workers)\n\
         \x20 analysis {:>8.2} s (summed over the workers): {rate:.1} million requests/s a thread\n",
        wall.as_secs_f64(),
        threads,
        if threads == 1 { "thread" } else { "threads" },
        reading.as_secs_f64(),
        parse.as_secs_f64(),
        analysis.as_secs_f64(),
    )
}

fn describe_error(inputs: &[Input], error: &LineError) -> String {
    let name = &inputs[error.at.file as usize].name;
    if error.at.line == 0 {
        format!("cannot read {name}: {}", error.reason)
    } else if error.file_level {
        format!("{name}: {}", error.reason)
    } else {
        format!("{name}:{}: {}", error.at.line, error.reason)
    }
}

fn progress_bar(args: &Args, inputs: &[Input]) -> ProgressBar {
    if args.no_progress {
        return ProgressBar::hidden();
    }
    let mut total = Some(0u64);
    for input in inputs {
        let size = input
            .path
            .as_ref()
            .and_then(|path| std::fs::metadata(path).ok())
            .map(|m| m.len());
        total = total.zip(size).map(|(a, b)| a + b);
    }
    if total.is_some_and(|total| total < 1 << 20) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = if total.is_some() {
        "{spinner} reading {bytes}/{total_bytes} {wide_bar} {eta} left"
    } else {
        "{spinner} reading {bytes} ({bytes_per_sec})"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// One row of the ranking in `--json`.
#[derive(Debug, Serialize)]
struct RankedJson {
    instruction: String,
    op: String,
    first_seen: String,
    #[serde(flatten)]
    totals: Totals,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct ReportJson {
    files: Vec<FileJson>,
    archs: Vec<&'static str>,
    #[serde(flatten)]
    totals: Totals,
    other_instructions: u64,
    lines_not_analysed: u64,
    files_not_read: u64,
    by_op: BTreeMap<String, Totals>,
    top: Vec<RankedJson>,
}

#[derive(Debug, Serialize)]
struct FileJson {
    name: String,
    format: Option<&'static str>,
}

fn format_name(format: Option<Format>) -> Option<&'static str> {
    format.map(|f| match f {
        Format::Corpus => "corpus",
        Format::AccelSim => "accel-sim",
    })
}

fn first_seen(inputs: &[Input], at: Location) -> String {
    format!("{}:{}", inputs[at.file as usize].name, at.line)
}

fn json_report(args: &Args, reader: &Reader, tally: &Tally) -> ReportJson {
    ReportJson {
        files: reader
            .inputs
            .iter()
            .map(|input| FileJson {
                name: input.name.clone(),
                format: format_name(input.format),
            })
            .collect(),
        archs: tally.archs.iter().copied().collect(),
        totals: tally.totals,
        other_instructions: tally.other_instructions,
        lines_not_analysed: tally.line_errors,
        files_not_read: tally.file_errors,
        by_op: tally.by_op.clone(),
        top: tally
            .ranking(args.top)
            .into_iter()
            .map(|i| RankedJson {
                instruction: i.name.clone(),
                op: i.op.clone(),
                first_seen: first_seen(&reader.inputs, i.first),
                totals: i.totals,
            })
            .collect(),
    }
}

fn text_report(args: &Args, reader: &Reader, tally: &Tally) -> String {
    let mut out = String::new();
    let count = |format| {
        reader
            .inputs
            .iter()
            .filter(|i| i.format == Some(format))
            .count() as u64
    };
    let mut kinds = Vec::new();
    for (format, noun) in [
        (Format::Corpus, "corpus file"),
        (Format::AccelSim, "Accel-Sim trace"),
    ] {
        let n = count(format);
        if n > 0 {
            kinds.push(plural(n, noun));
        }
    }
    let t = &tally.totals;
    _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!(
                "{} from {}",
                plural(t.requests, "shared-memory request"),
                if kinds.is_empty() {
                    "no readable file".to_owned()
                } else {
                    kinds.join(" and ")
                }
            )
        )
    );
    let archs: Vec<&str> = tally.archs.iter().copied().collect();
    _ = writeln!(
        out,
        "predicted for: {}{}",
        match args.arch {
            Some(cc) => format!("{} (--arch)", cc.sm_name()),
            None => "each record's arch and each trace's binary version".to_owned(),
        },
        if archs.is_empty() || args.arch.is_some() {
            String::new()
        } else {
            format!(" ({})", archs.join(", "))
        }
    );
    let other = tally.other_instructions;
    if other > 0 {
        _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                format!(
                    "({} not touching shared memory skipped)",
                    plural(other, "trace instruction")
                )
            )
        );
    }
    out.push('\n');
    let mut table = Table::new(&[
        ("op", Align::Left),
        ("requests", Align::Right),
        ("wavefronts", Align::Right),
        ("ideal", Align::Right),
        ("bank conflicts", Align::Right),
        ("conflicted requests", Align::Right),
        ("worst", Align::Right),
    ]);
    let row = |name: &str, t: &Totals| {
        [
            name.to_owned(),
            t.requests.to_string(),
            t.wavefronts.to_string(),
            t.ideal_wavefronts.to_string(),
            t.bank_conflicts.to_string(),
            t.conflicted_requests.to_string(),
            format!("{}-way", t.worst_ways),
        ]
    };
    for (op, totals) in &tally.by_op {
        table.row(row(op, totals));
    }
    if tally.by_op.len() != 1 {
        table.row(row("all", t));
    }
    out.push_str(&table.render(0));
    let ranking = tally.ranking(args.top);
    if !ranking.is_empty() {
        _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                format!(
                    "instructions with the most bank conflicts (top {}):",
                    ranking.len()
                )
            )
        );
        let mut table = Table::new(&[
            ("#", Align::Right),
            ("instruction", Align::Left),
            ("op", Align::Left),
            ("first seen", Align::Left),
            ("requests", Align::Right),
            ("wavefronts", Align::Right),
            ("bank conflicts", Align::Right),
            ("worst", Align::Right),
        ]);
        for (i, instruction) in ranking.iter().enumerate() {
            let t = &instruction.totals;
            table.row([
                (i + 1).to_string(),
                instruction.name.clone(),
                instruction.op.clone(),
                first_seen(&reader.inputs, instruction.first),
                t.requests.to_string(),
                t.wavefronts.to_string(),
                t.bank_conflicts.to_string(),
                format!("{}-way", t.worst_ways),
            ]);
        }
        out.push_str(&table.render(0));
    }
    if tally.line_errors > 0 || tally.file_errors > 0 {
        out.push('\n');
    }
    if tally.line_errors > 0 {
        _ = writeln!(
            out,
            "not analysed: {} (errors on stderr)",
            plural(tally.line_errors, "line")
        );
    }
    if tally.file_errors > 0 {
        _ = writeln!(
            out,
            "not read: {} (errors on stderr)",
            plural(tally.file_errors, "file")
        );
    }
    out
}
