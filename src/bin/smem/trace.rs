//! `smem trace`: a stream of warp requests, analysed.
//!
//! Reads any number of files, each in one of three formats, told apart by its
//! first line:
//!
//! - the corpus format of `smem_model::corpus`: one JSON object a line; the measured fields are optional, and the
//!   optional `label` names the instruction;
//! - the Accel-Sim / NVBit trace format (`kernel-N.traceg` and the raw
//!   `kernel-N.trace`), of which the shared-memory instructions are read: see
//!   `smem_model::kernel::accelsim::line` for the format and its source; constant loads (`LDC`,
//!   `ULDC`) are counted apart, with their constant-cache requests where the
//!   line gives addresses (`smem_model::ConstantLoad`);
//! - Accel-Sim's kernel list (`kernelslist.g`): the kernel files it names are
//!   read in its place, relative to its folder (`kernel-N.traceg`, or
//!   `kernel-N.traceg.xz` where only that is there).
//!
//! Any of them may be xz-compressed (told by its first bytes, not its name).
//!
//! The output is the totals (requests, wavefronts, ideal wavefronts, bank
//! conflicts), the same per kind of instruction with the Nsight Compute metric
//! each corresponds to, and the instructions with the most bank conflicts:
//! corpus records grouped by `label` (a record without one is an instruction
//! of its own), trace instructions by kernel and PC, or by kernel and source
//! line (`--by-line`, for traces made with lineinfo).
//!
//! # Streaming, threads, determinism
//!
//! The reading is the library's `smem_model::kernel::accelsim::parallel`:
//! chunks of lines read on this thread, tallied by `--threads` workers, the
//! errors handed back in input order, the tallies merged at the end; memory
//! bounded whatever the input's length, the output the same whatever the
//! number of threads. This file parses the arguments, draws the progress bar
//! and prints the errors and the report.
//!
//! # Bad input
//!
//! A line that cannot be analysed is reported on stderr as `FILE:LINE: reason`
//! (the first 20; the rest are counted) and reading goes on; `--strict` stops
//! at the first one. A line longer than 1 MiB stops its file. The exit status
//! is 1 when any line or file could not be read, 0 otherwise. A failure inside
//! a worker thread (a bug) is an `error:` line and exit status 1.

mod merge;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use smem_model::kernel::accelsim::input::{Format, Input, Location, Reader};
use smem_model::kernel::accelsim::parallel::{ParallelTally, Timings, WORKER_THREAD};
use smem_model::kernel::ncu;
use smem_model::kernel::tally::{nvprof_counters, Entry, Key, Profiler, Tally, Totals};
use smem_model::{ComputeCapability, Op};

use crate::output::{emit, fail, plural, styled, usage, warn, HEADING, NOTE};
use crate::table::{Align, Table};

/// Arguments of `smem trace`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Formats (told apart by each file's first line; any of them may be xz-compressed):
  corpus       one JSON object a line: arch, op (ld, st, atom, ldsm, stsm), width, 32 offsets
               (-1 = inactive), optional label, gpu, group, wavefronts, ncu_bank_conflicts
  accel-sim    Accel-Sim / NVBit traces (kernel-N.traceg or the raw kernel-N.trace): LDS, STS,
               ATOMS, LDSM and STSM lines, in any address-compression mode (list, base+stride,
               base+delta); the arch comes from the header's -binary version. Constant loads
               (LDC, ULDC: ld.const) are counted on lines of their own, never in the
               shared-memory totals: with addresses, their constant-cache requests (one per
               distinct address, per half-warp on 1.x); without (Accel-Sim's tracer records
               none for constant memory), as loads without addresses in the trace.
  kernel list  Accel-Sim's kernelslist.g: the kernel-N.traceg (or .traceg.xz) files it names,
               relative to its folder, are read in its place.

Limits: lines of at most 1 MiB (a longer one stops its file); at most 64 threads.

Examples:
  smem trace tests/data/traces/transpose.traceg
  smem trace traces/kernelslist.g
  smem trace --arch sm_86 --top 5 traces/kernel-*.traceg.xz
  smem trace --by-line kernel-1.traceg
  smem trace --json requests.jsonl
  smem trace --json a/kernelslist.g > a.json; smem trace --json b/kernelslist.g > b.json
  smem trace --merge a.json b.json")]
pub struct Args {
    /// Files to read; `-` reads standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Predict every request on this compute capability, instead of each record's
    /// `arch` and each trace's `-binary version` (sm_90 when a trace has none).
    #[arg(long, value_name = "CC", value_parser = crate::arch::parse)]
    arch: Option<ComputeCapability>,

    /// How many instructions (or source lines) to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,

    /// Rank source lines rather than instructions: traces made with lineinfo
    /// (`TRACE_LINEINFO=1`, a binary built with `-lineinfo`) give each
    /// instruction's line.
    #[arg(long)]
    by_line: bool,

    /// Print the result as JSON.
    #[arg(long)]
    json: bool,

    /// The files are `--json` reports of earlier runs: print them merged
    /// into one (as JSON), whose totals, per-op totals, Nsight Compute
    /// predictions and counts are those of one run over all their files.
    #[arg(long)]
    merge: bool,

    /// Stop at the first line that cannot be analysed.
    #[arg(long)]
    strict: bool,

    /// Worker threads, 1 to 64 (default: one per core, at most 64). The output
    /// does not depend on it.
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

pub use smem_model::kernel::accelsim::parallel::MAX_THREADS;

/// The worst request's ways, as the tables show them: none without a
/// request (issue 23 item 8: an empty trace has no worst).
fn worst(t: &Totals) -> String {
    if t.requests == 0 {
        "-".to_owned()
    } else {
        format!("{}-way", t.worst_ways)
    }
}

/// A kernel name short enough for a table cell, shortened in the middle
/// (issue 23 item 8): the namespace it starts with and the name it ends
/// with both stay (`flashinfer...`, then the name's last 11 characters).
pub(super) fn short(name: &str) -> String {
    const MAX: usize = 24;
    let count = name.chars().count();
    if name.is_empty() {
        "(kernel)".to_owned()
    } else if count <= MAX {
        name.to_owned()
    } else {
        let head: String = name.chars().take(10).collect();
        let tail: String = name.chars().skip(count - (MAX - 13)).collect();
        format!("{head}...{tail}")
    }
}

/// A file's name as the tables show it: relative to the current folder
/// where it lies below it (issue 23 item 8: the table fits 120 columns).
fn shown_path(name: &str) -> String {
    let path = std::path::Path::new(name);
    if path.is_absolute() {
        if let Ok(cwd) = std::env::current_dir() {
            if let Ok(relative) = path.strip_prefix(&cwd) {
                return relative.display().to_string();
            }
        }
    }
    name.to_owned()
}

/// A C++ kernel name demangled (`_Z13transposeTilePfPKf` is
/// `transposeTile(float*, float const*)`); `brief` leaves out the parameters
/// and return type. A name that is not a mangled C++ name stays as it is.
fn demangle(name: &str, brief: bool) -> String {
    let Ok(symbol) = cpp_demangle::Symbol::new(name) else {
        return name.to_owned();
    };
    let options = if brief {
        cpp_demangle::DemangleOptions::new()
            .no_params()
            .no_return_type()
    } else {
        cpp_demangle::DemangleOptions::new()
    };
    symbol
        .demangle_with_options(&options)
        .unwrap_or_else(|_| name.to_owned())
}

/// Runs `smem trace`.
pub fn run(args: &Args) -> ExitCode {
    if args.merge {
        return match merge::merge(&args.files) {
            Ok(report) => match serde_json::to_string_pretty(&report) {
                Ok(text) => emit(&(text + "\n")).map_or_else(|code| code, |()| ExitCode::SUCCESS),
                Err(err) => fail(err),
            },
            Err(message) => fail(message),
        };
    }
    let threads = match args.threads {
        Some(0) => return usage("--threads must be at least 1"),
        Some(n) if n > MAX_THREADS => {
            return usage(format_args!(
                "--threads {n} is more than the maximum of {MAX_THREADS}"
            ))
        }
        Some(n) => n,
        None => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS),
    };
    trace(args, threads)
}

/// Keeps the worker threads' panics quiet: the library reports each as an
/// error (`Error::Threads`), which is printed as an `error:` line.
fn quiet_worker_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(WORKER_THREAD) {
            previous(info);
        }
    }));
}

fn trace(args: &Args, threads: usize) -> ExitCode {
    let inputs: Vec<Input> = args.files.iter().map(Input::path).collect();
    let mut reader = Reader::new(inputs);
    let progress = progress_bar(args, &reader);
    let mut parallel = ParallelTally::new()
        .with_threads(threads)
        .with_top(args.top)
        .with_shown_errors(SHOWN_ERRORS)
        .timed(args.timings);
    if let Some(arch) = args.arch {
        parallel = parallel.with_capability(arch);
    }
    // A deliberate worker failure, to test its handling (debug builds only).
    if cfg!(debug_assertions) {
        parallel = parallel.with_panic_at(
            std::env::var("SMEM_TRACE_PANIC_AT_LINE")
                .ok()
                .and_then(|v| v.parse().ok()),
        );
    }
    quiet_worker_panics();
    let mut strict_stop = false;
    let outcome = parallel.read(
        &mut reader,
        |err| {
            // Errors go out as soon as they are known, in input order. With
            // --strict, the first is the last.
            progress.suspend(|| warn(&err));
            if args.strict {
                strict_stop = true;
                return Err(err);
            }
            Ok(())
        },
        |reader| show_progress(&progress, reader),
    );
    progress.finish_and_clear();
    let tallied = match outcome {
        Ok(tallied) => tallied,
        Err(_) if strict_stop => return ExitCode::FAILURE,
        Err(err) => return fail(err),
    };
    if let Some(time) = tallied.timings {
        eprint!("{}", timings(&tallied.tally, time));
    }
    let hidden = tallied.lines_not_read + tallied.files_not_read - tallied.errors_reported;
    if hidden > 0 {
        let noun = if hidden == 1 { "error" } else { "errors" };
        warn(format_args!("{hidden} more {noun} not shown"));
    }
    let report = Report {
        tally: &tallied.tally,
        lines_not_read: tallied.lines_not_read,
        files_not_read: tallied.files_not_read,
    };
    let text = if args.json {
        match serde_json::to_string_pretty(&json_report(args, &reader, &report)) {
            Ok(json) => json + "\n",
            Err(err) => return fail(err),
        }
    } else {
        text_report(args, &reader, &report)
    };
    if let Err(code) = emit(&text) {
        return code;
    }
    if report.lines_not_read > 0 || report.files_not_read > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Errors printed in full; the rest are counted.
const SHOWN_ERRORS: usize = 20;

/// What the reports print: the tally, and the errors met.
struct Report<'a> {
    tally: &'a Tally,
    lines_not_read: u64,
    files_not_read: u64,
}

impl Report<'_> {
    /// The capabilities predicted on, by name.
    fn archs(&self) -> std::collections::BTreeSet<&'static str> {
        self.tally
            .capabilities()
            .iter()
            .map(|cc| cc.sm_name())
            .collect()
    }

    /// Totals per op, by its name (`LDS.128`, ...).
    fn by_op(&self) -> BTreeMap<String, Totals> {
        let mut out: BTreeMap<String, Totals> = BTreeMap::new();
        for ((op, width), totals) in self.tally.by_op() {
            out.entry(crate::analyze::op_name(op, width))
                .or_default()
                .merge(&totals);
        }
        out
    }
}

/// What `--timings` prints.
fn timings(tally: &Tally, time: Timings) -> String {
    let requests = tally.totals().requests;
    let rate = requests as f64 / time.analysis.as_secs_f64().max(f64::MIN_POSITIVE) / 1e6;
    format!(
        "timings: {requests} requests in {:.2} s on {} {}\n\
         \x20 reading  {:>8.2} s (one thread, beside the workers)\n\
         \x20 parsing  {:>8.2} s (summed over the workers)\n\
         \x20 analysis {:>8.2} s (summed over the workers): {rate:.1} million requests/s a thread\n",
        time.wall.as_secs_f64(),
        time.threads,
        if time.threads == 1 { "thread" } else { "threads" },
        time.reading.as_secs_f64(),
        time.parse.as_secs_f64(),
        time.analysis.as_secs_f64(),
    )
}

fn progress_bar(args: &Args, reader: &Reader) -> ProgressBar {
    if args.no_progress {
        return ProgressBar::hidden();
    }
    // Known only when every input is a file.
    let files = reader.inputs.iter().all(|input| input.file().is_some());
    let total = files.then(|| reader.progress().total());
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

/// Moves the bar to where the reader is (kernel lists add to the total).
fn show_progress(bar: &ProgressBar, reader: &Reader) {
    if bar.is_hidden() {
        return;
    }
    let progress = reader.progress();
    if bar.length().is_some() {
        bar.set_length(progress.total());
    }
    bar.set_position(progress.read());
}

/// Said under nvprof's counters (`smem trace`, `smem kernel`).
pub(crate) const NVPROF_NOTE: &str = "(nvprof on compute capability 5.x and 6.x, where Nsight \
     Compute does not run; shared atomics have no nvprof transaction or bank-conflict counter; \
     the model's phases for 8- and 16-byte accesses there are those measured on sm_90)";

/// Said where a run on compute capability 3.x or earlier gets no counter names.
pub(crate) const KEPLER_NOTE: &str = "(no profiler names for compute capability 3.x and \
     earlier: Kepler's 256-byte transactions and its replay events are not checked against the \
     model's wavefronts)";

/// One profiler counter and the model's prediction of it.
#[derive(Debug, Serialize)]
struct MetricJson {
    metric: &'static str,
    /// nvprof's only: `metric` (`nvprof --metrics`) or `event` (`--events`).
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// The total it corresponds to: `requests`, `wavefronts` or `bank_conflicts`.
    total: &'static str,
    /// Nsight Compute's only: `equal` (the counter equals `predicted`),
    /// `at_least` (it can be more: `reason`) or `estimate` (`reason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<&'static str>,
    predicted: u64,
    /// Why the counter can differ from `predicted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    /// The ops (as in `by_op`) it sums.
    ops: Vec<String>,
}

/// The profiler whose names the totals are given under: Nsight Compute's
/// from compute capability 7.0 on, nvprof's before (where Nsight Compute
/// does not run); `None` when the run mixes the two, as its per-op totals
/// then add up kernels that no one profiler counts.
fn profiler(tally: &Report<'_>) -> Option<Profiler> {
    let mut profilers = tally
        .tally
        .capabilities()
        .iter()
        .map(|&cc| Profiler::of(cc));
    let first = profilers.next().unwrap_or(Profiler::NsightCompute);
    profilers.all(|p| p == first).then_some(first)
}

/// nvprof's counters for `op` on every capability of the run, where they
/// agree (`nvprof_counters`: 5.x and 6.x only).
fn nvprof_names(tally: &Report<'_>, op: Op) -> [Option<(&'static str, &'static str)>; 3] {
    let mut names = [None; 3];
    for (slot, name) in names.iter_mut().enumerate() {
        let mut each = tally
            .tally
            .capabilities()
            .iter()
            .map(|&cc| nvprof_counters(op, cc)[slot]);
        let first = each.next().flatten();
        if each.all(|c| c == first) {
            *name = first.map(|c| (c.name, if c.event { "event" } else { "metric" }));
        }
    }
    names
}

/// The predicted value of each counter of `profiler`, in a stable order:
/// Nsight Compute's as `kernel::ncu` names them (each with how the counter
/// relates to the prediction), nvprof's by op.
fn metrics(tally: &Report<'_>, profiler: Profiler) -> Vec<MetricJson> {
    let mut ops: Vec<_> = tally.tally.by_op().into_iter().map(|(op, _)| op).collect();
    ops.extend(tally.tally.unknown_addresses().iter().map(|(op, _)| *op));
    if profiler != Profiler::Nvprof {
        return ncu::predictions(tally.tally)
            .into_iter()
            .map(|p| {
                let mut names: Vec<String> = ops
                    .iter()
                    .filter(|(op, _)| p.families.contains(&ncu::Family::of(*op)))
                    .map(|(op, width)| crate::analyze::op_name(*op, *width))
                    .collect();
                names.sort();
                names.dedup();
                MetricJson {
                    metric: p.counter,
                    kind: None,
                    total: p.quantity.total(),
                    relation: Some(p.relation.name()),
                    predicted: p.predicted,
                    reason: p.reason,
                    ops: names,
                }
            })
            .collect();
    }
    let mut out: Vec<MetricJson> = Vec::new();
    let mut ops: Vec<_> = tally.tally.by_op().into_iter().collect();
    ops.sort_by_key(|((op, width), _)| crate::analyze::op_name(*op, *width));
    for ((op, width), totals) in &ops {
        let name = crate::analyze::op_name(*op, *width);
        let values = [
            ("requests", totals.requests),
            ("wavefronts", totals.wavefronts),
            ("bank_conflicts", totals.bank_conflicts),
        ];
        let counters = nvprof_names(tally, *op);
        for (counter, (total, value)) in counters.into_iter().zip(values) {
            let Some((metric, kind)) = counter else {
                continue;
            };
            let kind = (!kind.is_empty()).then_some(kind);
            match out.iter_mut().find(|m| m.metric == metric) {
                Some(known) => {
                    known.predicted += value;
                    if !known.ops.contains(&name) {
                        known.ops.push(name.clone());
                    }
                }
                None => out.push(MetricJson {
                    metric,
                    kind,
                    total,
                    relation: None,
                    predicted: value,
                    reason: None,
                    ops: vec![name.clone()],
                }),
            }
        }
    }
    out
}

/// One row of the ranking in `--json`.
#[derive(Debug, Serialize)]
struct RankedJson {
    instruction: String,
    op: String,
    first_seen: String,
    /// A trace instruction's kernel, demangled.
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pc: Option<u64>,
    /// The source line (`FILE:LINE` or `LINE`), where the trace has lineinfo.
    #[serde(skip_serializing_if = "Option::is_none")]
    source_line: Option<String>,
    #[serde(flatten)]
    totals: Totals,
}

/// One source line of `--by-line` in `--json`.
#[derive(Debug, Serialize)]
struct LineJson {
    /// `FILE:LINE`, `LINE`, or null for instructions without line information.
    source_line: Option<String>,
    kernel: String,
    ops: Vec<String>,
    instructions: usize,
    first_seen: String,
    #[serde(flatten)]
    totals: Totals,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct ReportJson {
    /// `smem-trace/1`: the shape of this report (see the README's JSON section).
    schema: &'static str,
    files: Vec<FileJson>,
    archs: Vec<&'static str>,
    #[serde(flatten)]
    totals: Totals,
    other_instructions: u64,
    /// Instructions touching shared memory that are not modelled, by family.
    not_modelled: BTreeMap<String, u64>,
    /// Shared-memory instructions with mask 0.
    predicated_off: u64,
    /// Constant-memory loads (LDC, ULDC) whose lines give addresses.
    constant_loads: u64,
    /// Their serialised constant-cache requests (one per distinct address).
    constant_requests: u64,
    /// Constant-memory loads whose lines give no addresses.
    constant_loads_without_addresses: u64,
    lines_not_analysed: u64,
    files_not_read: u64,
    by_op: BTreeMap<String, Totals>,
    /// The Nsight Compute metric of each total, with the predicted value
    /// (compute capability 7.0 and later; empty before, and when the run
    /// mixes capabilities on both sides of 7.0).
    ncu_metrics: Vec<MetricJson>,
    /// nvprof's counter of each total, for runs on capabilities before 7.0
    /// (5.x and 6.x: `nvprof_counters`); absent when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    nvprof_metrics: Vec<MetricJson>,
    top: Vec<RankedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_line: Option<Vec<LineJson>>,
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
        Format::KernelList => "kernel-list",
    })
}

fn first_seen(inputs: &[Input], at: Location) -> String {
    format!(
        "{}:{}",
        shown_path(&inputs[at.input as usize].name),
        at.line
    )
}

fn source_text(source: &Option<smem_model::kernel::tally::SourceLine>) -> Option<String> {
    source.as_ref().map(|(file, line)| match file {
        Some(file) => format!("{file}:{line}"),
        None => line.to_string(),
    })
}

/// An entry's name as the reports show it: a trace instruction as kernel
/// (shortened), PC and opcode; a record by its label.
fn entry_name(tally: &Tally, entry: &Entry, demangled: bool) -> String {
    match &entry.key {
        Key::Code { kernel, pc } => {
            let name = tally.kernel_name(*kernel);
            let name = if demangled {
                demangle(name, true)
            } else {
                name.to_owned()
            };
            // The table's cell is shortened in the middle; `--json` keeps
            // its `smem-trace/1` spelling (the first 37 characters and `...`
            // past 40), the full name being its `kernel`.
            let name = if demangled {
                short(&name)
            } else if name.chars().count() > 40 {
                format!("{}...", name.chars().take(37).collect::<String>())
            } else {
                name
            };
            format!("{name} {pc:#06x} {}", entry.instruction)
        }
        Key::Label(label) => label.to_string(),
        _ => "(no label)".to_owned(),
    }
}

/// A source line of `--by-line`: the instructions of one kernel on one line.
struct LineRow {
    kernel: u32,
    source: Option<smem_model::kernel::tally::SourceLine>,
    ops: Vec<String>,
    instructions: usize,
    first: Location,
    totals: Totals,
}

/// The trace instructions grouped by kernel and source line, ranked.
fn by_line(tally: &Report<'_>, top: usize) -> Vec<LineRow> {
    let mut rows: Vec<LineRow> = Vec::new();
    let mut index: BTreeMap<(u32, Option<smem_model::kernel::tally::SourceLine>), usize> =
        BTreeMap::new();
    for entry in tally.tally.entries() {
        let Key::Code { kernel, .. } = entry.key else {
            continue;
        };
        let op = crate::analyze::op_name(entry.op.0, entry.op.1);
        let key = (kernel, entry.source.clone());
        let row = match index.get(&key) {
            Some(&at) => &mut rows[at],
            None => {
                index.insert(key, rows.len());
                rows.push(LineRow {
                    kernel,
                    source: entry.source.clone(),
                    ops: Vec::new(),
                    instructions: 0,
                    first: entry.first,
                    totals: Totals::default(),
                });
                rows.last_mut().expect("just pushed")
            }
        };
        row.totals.merge(&entry.totals);
        row.instructions += 1;
        row.first = row.first.min(entry.first);
        if !row.ops.contains(&op) {
            row.ops.push(op);
        }
    }
    for row in &mut rows {
        row.ops.sort();
    }
    rows.sort_by_key(|r| (std::cmp::Reverse(r.totals.bank_conflicts), r.first));
    rows.truncate(top);
    rows
}

fn json_report(args: &Args, reader: &Reader, tally: &Report<'_>) -> ReportJson {
    ReportJson {
        schema: "smem-trace/1",
        files: reader
            .inputs
            .iter()
            .map(|input| FileJson {
                name: input.name.clone(),
                format: format_name(input.format),
            })
            .collect(),
        archs: tally.archs().into_iter().collect(),
        totals: tally.tally.totals(),
        other_instructions: tally.tally.other_instructions(),
        not_modelled: tally
            .tally
            .unmodelled()
            .iter()
            .map(|(name, count)| (name.to_string(), *count))
            .collect(),
        predicated_off: tally.tally.predicated_off(),
        constant_loads: tally.tally.constant().loads,
        constant_requests: tally.tally.constant().requests,
        constant_loads_without_addresses: tally.tally.constant().without_addresses,
        lines_not_analysed: tally.lines_not_read,
        files_not_read: tally.files_not_read,
        by_op: tally.by_op(),
        ncu_metrics: match profiler(tally) {
            Some(Profiler::NsightCompute) => metrics(tally, Profiler::NsightCompute),
            _ => Vec::new(),
        },
        nvprof_metrics: match profiler(tally) {
            Some(Profiler::Nvprof) => metrics(tally, Profiler::Nvprof),
            _ => Vec::new(),
        },
        top: tally
            .tally
            .ranking(args.top)
            .into_iter()
            .map(|entry| {
                let (kernel, pc) = match entry.key {
                    Key::Code { kernel, pc } => (
                        Some(demangle(tally.tally.kernel_name(kernel), false)),
                        Some(pc),
                    ),
                    _ => (None, None),
                };
                RankedJson {
                    instruction: entry_name(tally.tally, entry, false),
                    op: crate::analyze::op_name(entry.op.0, entry.op.1),
                    first_seen: first_seen(&reader.inputs, entry.first),
                    kernel,
                    pc,
                    source_line: source_text(&entry.source),
                    totals: entry.totals,
                }
            })
            .collect(),
        by_line: args.by_line.then(|| {
            by_line(tally, args.top)
                .into_iter()
                .map(|row| LineJson {
                    source_line: source_text(&row.source),
                    kernel: demangle(tally.tally.kernel_name(row.kernel), false),
                    ops: row.ops,
                    instructions: row.instructions,
                    first_seen: first_seen(&reader.inputs, row.first),
                    totals: row.totals,
                })
                .collect()
        }),
    }
}

fn text_report(args: &Args, reader: &Reader, tally: &Report<'_>) -> String {
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
    let lists = count(Format::KernelList);
    let t = &tally.tally.totals();
    _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!(
                "{} from {}{}",
                plural(t.requests, "shared-memory request"),
                if kinds.is_empty() {
                    "no readable file".to_owned()
                } else {
                    kinds.join(" and ")
                },
                if lists > 0 {
                    format!(" (listed in {})", plural(lists, "kernel list"))
                } else {
                    String::new()
                }
            )
        )
    );
    let archs: Vec<&str> = tally.archs().into_iter().collect();
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
    if tally.tally.predicated_off() > 0 {
        _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                format!(
                    "({} fully predicated off (mask 0): issued, but no request; not in the table, \
                     nor in ncu's smsp__sass_inst_executed_op_shared_*, as measured)",
                    plural(tally.tally.predicated_off(), "shared-memory instruction")
                )
            )
        );
    }
    let unmodelled: u64 = tally.tally.unmodelled().values().sum();
    if unmodelled > 0 {
        let names: Vec<String> = tally
            .tally
            .unmodelled()
            .iter()
            .map(|(name, count)| format!("{name} {count}"))
            .collect();
        _ = writeln!(
            out,
            "not modelled: {} touching shared memory ({}; LDGSTS: the trace holds its global \
             addresses, not the shared ones)",
            plural(unmodelled, "instruction"),
            names.join(", ")
        );
    }
    let constant = tally.tally.constant();
    if constant.loads > 0 {
        _ = writeln!(
            out,
            "constant loads: {}, {} (one per distinct address; not shared memory, not in the \
             table)",
            plural(constant.loads, "instruction"),
            plural(constant.requests, "constant-cache request")
        );
    }
    if constant.without_addresses > 0 {
        _ = writeln!(
            out,
            "constant loads without addresses in the trace: {} (LDC, ULDC; Accel-Sim's \
             tracer records no constant-memory addresses, so no cost is given)",
            plural(constant.without_addresses, "instruction")
        );
    }
    let other = tally.tally.other_instructions();
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
            worst(t),
        ]
    };
    let by_op = tally.by_op();
    for (op, totals) in &by_op {
        table.row(row(op, totals));
    }
    if by_op.len() != 1 {
        table.row(row("all", t));
    }
    out.push_str(&table.render(0));
    let profiler = profiler(tally);
    let metrics = profiler.map_or_else(Vec::new, |p| metrics(tally, p));
    if profiler == Some(Profiler::Nvprof) && !metrics.is_empty() {
        _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                "the same as nvprof's counters (nvprof --metrics NAME, --events NAME), predicted:"
            )
        );
        let mut table = Table::new(&[
            ("counter", Align::Left),
            ("kind", Align::Left),
            ("predicted", Align::Right),
            ("ops", Align::Left),
        ]);
        for m in &metrics {
            table.row([
                m.metric.to_owned(),
                m.kind.unwrap_or_default().to_owned(),
                m.predicted.to_string(),
                m.ops.join(", "),
            ]);
        }
        out.push_str(&table.render(0));
        _ = writeln!(out, "{}", styled(NOTE, NVPROF_NOTE));
    }
    if profiler == Some(Profiler::Nvprof)
        && tally.tally.capabilities().iter().any(|cc| cc.major() < 5)
    {
        _ = writeln!(out, "\n{}", styled(NOTE, KEPLER_NOTE));
    }
    if profiler.is_none() {
        _ = writeln!(
            out,
            "\n{}",
            styled(
                NOTE,
                "(no profiler names: the run mixes compute capabilities before 7.0 (nvprof) and \
                 from 7.0 (Nsight Compute), whose requests these totals add together; run them \
                 apart)"
            )
        );
    }
    if profiler == Some(Profiler::NsightCompute) && !metrics.is_empty() {
        _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                "Nsight Compute counters (ncu --metrics NAME), each with the prediction it equals or bounds:"
            )
        );
        let marks = crate::ncu::marks(metrics.iter().map(|m| m.reason));
        let mut table = Table::new(&[
            ("counter", Align::Left),
            ("predicted", Align::Left),
            ("ops", Align::Left),
        ]);
        for m in &metrics {
            table.row([
                crate::ncu::shown(m.metric),
                crate::ncu::value(m.relation, m.predicted, None, m.reason, &marks, 0),
                m.ops.join(", "),
            ]);
        }
        out.push_str(&table.render(0));
        out.push_str(&crate::ncu::notes(&marks, false));
    }
    if args.by_line {
        let rows = by_line(tally, args.top);
        if !rows.is_empty() {
            _ = writeln!(
                out,
                "\n{}",
                styled(
                    HEADING,
                    format!(
                        "source lines with the most bank conflicts (top {}):",
                        rows.len()
                    )
                )
            );
            let mut table = Table::new(&[
                ("#", Align::Right),
                ("line", Align::Left),
                ("kernel", Align::Left),
                ("ops", Align::Left),
                ("first seen", Align::Left),
                ("requests", Align::Right),
                ("wavefronts", Align::Right),
                ("bank conflicts", Align::Right),
                ("worst", Align::Right),
            ]);
            for (i, row) in rows.iter().enumerate() {
                let t = &row.totals;
                table.row([
                    (i + 1).to_string(),
                    source_text(&row.source).unwrap_or_else(|| "(no lineinfo)".to_owned()),
                    short(&demangle(tally.tally.kernel_name(row.kernel), true)),
                    row.ops.join(","),
                    first_seen(&reader.inputs, row.first),
                    t.requests.to_string(),
                    t.wavefronts.to_string(),
                    t.bank_conflicts.to_string(),
                    worst(t),
                ]);
            }
            out.push_str(&table.render(0));
            if rows.iter().any(|r| r.source.is_none()) {
                _ = writeln!(
                    out,
                    "{}",
                    styled(
                        NOTE,
                        "(no lineinfo: trace with TRACE_LINEINFO=1 a binary built with -lineinfo)"
                    )
                );
            }
        }
    }
    let ranking = tally.tally.ranking(args.top);
    if !ranking.is_empty() && !args.by_line {
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
        for (i, entry) in ranking.iter().enumerate() {
            let t = &entry.totals;
            table.row([
                (i + 1).to_string(),
                entry_name(tally.tally, entry, true),
                crate::analyze::op_name(entry.op.0, entry.op.1),
                first_seen(&reader.inputs, entry.first),
                t.requests.to_string(),
                t.wavefronts.to_string(),
                t.bank_conflicts.to_string(),
                worst(t),
            ]);
        }
        out.push_str(&table.render(0));
    }
    if tally.lines_not_read > 0 || tally.files_not_read > 0 {
        out.push('\n');
    }
    if tally.lines_not_read > 0 {
        _ = writeln!(
            out,
            "not analysed: {} (errors on stderr)",
            plural(tally.lines_not_read, "line")
        );
    }
    if tally.files_not_read > 0 {
        _ = writeln!(
            out,
            "not read: {} (errors on stderr)",
            plural(tally.files_not_read, "file")
        );
    }
    out
}
