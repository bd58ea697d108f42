//! `smem racecheck`: shared-memory hazards and barrier errors in Accel-Sim
//! traces, found on a CPU (CUDA C++ Programming Guide, synchronization
//! functions).
//!
//! The library does the work: [`Trace`] reads the files (what `smem trace`
//! reads: `.traceg`, raw `.trace`, `kernelslist.g`, `.xz`, `-` for stdin) into
//! kernel events, and [`Racecheck`] checks each block with the block model.
//! This module parses the arguments, keeps the source lines of the PCs, turns
//! errors into capped messages and prints.
//!
//! # Bad input
//!
//! A line the reader refuses, or a block the model refuses (more warps than
//! its size, a named barrier count that is not a multiple of 32, a shadow past
//! its bound), is an error `FILE:LINE: reason` on stderr and exit status 2; the
//! line (or the block) is skipped and the rest still checked. The same reason
//! is printed at most [`SAME_REASON`] times, then counted. Barrier errors (warps
//! with different numbers of barriers, barriers reached from different
//! instructions or by part of a warp) are findings: status 1.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use smem_model::kernel::accelsim::Trace;
use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Place};
use smem_model::{ComputeCapability, Error, KernelRaces, Racecheck, Severity};

use crate::output::{emit, plural};

/// How many errors of one reason are printed; the rest are counted.
pub const SAME_REASON: u64 = 3;

/// The most distinct reasons kept (the rest are counted together), so that
/// memory stays bounded whatever the input.
const REASONS: usize = 1000;

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Reads Accel-Sim traces (what `smem trace` reads: .traceg, raw .trace, kernelslist.g, \
xz-compressed or not, `-` for standard input) and reports, per kernel, each pair of \
instructions that race on shared memory (read-write or write-write, between warps as errors and \
between lanes of one warp as warnings), with the blocks and bytes involved and one example, then \
the barrier errors (barriers not every warp reaches, reached at different instructions or by \
part of a warp), then the instructions it could not check (TMA, LDGSTS whose shared address the \
trace lacks, ...) with their counts, and a summary line. Exit status: 0 nothing found, 1 hazards \
or barrier errors, 2 bad input.

Examples:
  smem racecheck kernel-1.traceg
  smem racecheck traces/kernelslist.g
  smem racecheck --json --max 20 traces/*.traceg.xz")]
pub struct Args {
    /// Trace files or kernel lists; `-` reads standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Check on this compute capability, instead of each trace's `-binary
    /// version` (sm_90 when a trace has none).
    #[arg(long, value_name = "CC", value_parser = crate::arch::parse)]
    arch: Option<ComputeCapability>,

    /// Print one JSON object: `kernels`, `hazards`, `barrier_errors`,
    /// `not_checked` and `summary`.
    #[arg(long)]
    json: bool,

    /// List at most N hazards and N barrier errors per kernel (default: 4096 hazards, every
    /// barrier error); the rest are counted, and the hazards past N are not kept.
    #[arg(long, value_name = "N")]
    max: Option<usize>,
}

/// Errors, by reason: the first few located, the rest counted.
#[derive(Debug, Default)]
struct Errors {
    reasons: HashMap<String, (u64, Vec<String>)>,
    order: Vec<String>,
    other: u64,
    total: u64,
}

impl Errors {
    fn push(&mut self, reason: String, located: String) {
        self.total += 1;
        if !self.reasons.contains_key(&reason) {
            if self.reasons.len() >= REASONS {
                self.other += 1;
                return;
            }
            self.order.push(reason.clone());
        }
        let entry = self.reasons.entry(reason).or_default();
        entry.0 += 1;
        if entry.0 <= SAME_REASON {
            entry.1.push(located);
        }
    }

    fn print(&self) {
        for reason in &self.order {
            let (count, shown) = &self.reasons[reason];
            for message in shown {
                crate::output::warn(message);
            }
            if *count > SAME_REASON {
                let more = count - SAME_REASON;
                let noun = if more == 1 { "error" } else { "errors" };
                crate::output::warn(format!("{more} more {noun} like the above: {reason}"));
            }
        }
        if self.other > 0 {
            crate::output::warn(format!(
                "{} more with other reasons",
                plural(self.other, "error")
            ));
        }
    }
}

/// The checker with what the command adds: where each event came from, the
/// source lines of the PCs, and errors that skip a block instead of stopping.
struct Checker {
    check: Racecheck,
    /// The input and line of the instruction being read.
    place: (u32, u64),
    /// Per kernel, PC to source line (`file:line`, or `line N`).
    lines: Vec<BTreeMap<u64, String>>,
    source_file: Option<String>,
    /// The open block failed: its events are skipped.
    failed: bool,
    /// Errors of the model: input, line, message.
    errors: Vec<(u32, u64, Error)>,
}

impl Checker {
    fn fail(&mut self, error: Error) {
        self.errors.push((self.place.0, self.place.1, error));
        self.check.discard_block();
        self.failed = true;
    }
}

impl Consumer for Checker {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.lines.push(BTreeMap::new());
        self.failed = false;
        if let Err(e) = self.check.begin_kernel(kernel) {
            self.fail(e);
        }
        Ok(())
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        self.failed = false;
        if let Err(e) = self.check.begin_block(block) {
            self.fail(e);
        }
        Ok(())
    }

    fn place(&mut self, place: &Place<'_>) {
        self.place = (place.input, place.line);
        self.source_file = place.source_file.map(str::to_owned);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        if self.failed {
            return Ok(());
        }
        let site = event.site();
        if let (Some(line), Some(lines)) = (site.line, self.lines.last_mut()) {
            lines
                .entry(site.pc)
                .or_insert_with(|| match &self.source_file {
                    Some(file) => format!("{file}:{line}"),
                    None => format!("line {line}"),
                });
        }
        if let Err(e) = self.check.event(warp, event) {
            self.fail(e);
        }
        Ok(())
    }

    fn end_block(&mut self) -> Result<(), Error> {
        if std::mem::take(&mut self.failed) {
            return Ok(());
        }
        if let Err(e) = self.check.end_block() {
            self.fail(e);
            self.failed = false;
        }
        Ok(())
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.failed = false;
        if let Err(e) = self.check.end_kernel() {
            self.fail(e);
            self.failed = false;
        }
        Ok(())
    }
}

/// The kernel's name demangled, when it is a C++ name.
fn demangled(name: &str) -> String {
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| name.to_owned())
}

fn ids(b: [u32; 3]) -> String {
    format!("{},{},{}", b[0], b[1], b[2])
}

/// Errors, warnings and instructions not checked, over all kernels.
fn totals(kernels: &[KernelRaces]) -> (u64, u64, u64) {
    let mut totals = (0, 0, 0);
    for k in kernels {
        for h in k.hazards() {
            match h.example().severity() {
                Severity::Error => totals.0 += 1,
                Severity::Warning => totals.1 += 1,
            }
        }
        totals.0 += k.hazards_not_listed_of(Severity::Error);
        totals.1 += k.hazards_not_listed_of(Severity::Warning);
        totals.0 += k.barrier_errors().len() as u64;
        totals.2 += k.not_checked().map(|(_, n)| n).sum::<u64>();
    }
    totals
}

pub fn run(args: &Args) -> ExitCode {
    // The cap bounds memory, not only what is printed: 100,000 hazards on
    // one word grew `--max 3` to GBs.
    let mut check =
        Racecheck::new().with_max_hazards(args.max.unwrap_or(smem_model::Block::MAX_HAZARDS));
    if let Some(arch) = args.arch {
        check = check.with_capability(arch);
    }
    let mut checker = Checker {
        check,
        place: (0, 0),
        lines: Vec::new(),
        source_file: None,
        failed: false,
        errors: Vec::new(),
    };
    let mut errors = Errors::default();
    let mut trace = Trace::files(args.files.iter().cloned());
    if let Some(arch) = args.arch {
        trace = trace.with_capability(arch);
    }
    let result = trace.read_with(&mut checker, |e| {
        let reason = match &e {
            Error::Trace { reason, .. } => reason.clone(),
            other => other.to_string(),
        };
        errors.push(reason, e.to_string());
        Ok(())
    });
    if let Err(e) = result {
        errors.push(e.to_string(), e.to_string());
    }
    let inputs = &trace.reader().inputs;
    for (input, line, error) in &checker.errors {
        let name = inputs.get(*input as usize).map_or("?", |i| i.name.as_str());
        // Errors before the block's first instruction (its size) are the
        // file's.
        let located = if *line == 0 {
            format!("{name}: {error}")
        } else {
            format!("{name}:{line}: {error}")
        };
        errors.push(error.to_string(), located);
    }
    errors.print();
    let kernels = checker.check.into_kernels();
    let text = if args.json {
        json(&kernels, &checker.lines, args.max)
    } else {
        text(&kernels, &checker.lines, args.max)
    };
    if emit(&text).is_err() {
        return ExitCode::from(2);
    }
    if errors.total > 0 {
        ExitCode::from(2)
    } else if kernels.iter().any(|k| !k.is_clean()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn pc_text(lines: Option<&BTreeMap<u64, String>>, pc: u64) -> String {
    match lines.and_then(|l| l.get(&pc)) {
        Some(line) => format!("pc {pc:#06x} ({line})"),
        None => format!("pc {pc:#06x}"),
    }
}

fn text(kernels: &[KernelRaces], lines: &[BTreeMap<u64, String>], max: Option<usize>) -> String {
    let mut out = String::new();
    let max = max.unwrap_or(usize::MAX);
    if kernels.is_empty() {
        out.push_str("no kernels in the input\n");
    }
    for (k, kernel) in kernels.iter().enumerate() {
        let lines = lines.get(k);
        let _ = writeln!(
            out,
            "kernel {} ({}), {}:",
            demangled(kernel.name()),
            kernel.capability().sm_name(),
            plural(kernel.blocks(), "block")
        );
        if kernel.is_clean() {
            out.push_str("  no hazards, no barrier errors\n");
        }
        for finding in kernel.hazards() {
            let h = finding.example();
            let (a, b) = (h.first(), h.second());
            let _ = writeln!(
                out,
                "  {} {}: {} and {}, {}, {}",
                h.severity(),
                h.kind(),
                pc_text(lines, a.site()),
                pc_text(lines, b.site()),
                plural(finding.blocks(), "block"),
                plural(finding.bytes(), "byte")
            );
            let _ = writeln!(
                out,
                "    e.g. block ({}) byte {:#x}: {} by warp {} lane {}, {} by warp {} lane {}",
                ids(finding.block()),
                h.address(),
                a.access(),
                a.warp(),
                a.lane(),
                b.access(),
                b.warp(),
                b.lane()
            );
        }
        let more = kernel.hazards_not_listed();
        if more > 0 {
            let _ = writeln!(
                out,
                "  {}{more} more {} not listed (--max {})",
                if kernel.hazards_not_listed_exact() {
                    ""
                } else {
                    "at least "
                },
                if more == 1 { "hazard" } else { "hazards" },
                kernel.hazards().len()
            );
        }
        for finding in kernel.barrier_errors().take(max) {
            let _ = writeln!(
                out,
                "  barrier error: {} ({}, e.g. block ({}))",
                finding.error(),
                plural(finding.blocks(), "block"),
                ids(finding.block())
            );
        }
        if kernel.barrier_errors().len() > max {
            let _ = writeln!(
                out,
                "  ... {} not shown (--max {max})",
                plural(
                    (kernel.barrier_errors().len() - max) as u64,
                    "barrier error"
                )
            );
        }
        if kernel.not_checked().len() > 0 {
            let names: Vec<String> = kernel
                .not_checked()
                .map(|(name, n)| format!("{name} x{n}"))
                .collect();
            let _ = writeln!(
                out,
                "  not checked (shared-memory instructions the model does not cover): {}",
                names.join(", ")
            );
        }
    }
    let (errors, warnings, unchecked) = totals(kernels);
    // Past Block::MAX_NOT_LISTED hazards not listed, the count is a bound.
    let exact = kernels.iter().all(KernelRaces::hazards_not_listed_exact);
    let _ = write!(
        out,
        "{}{}, {} over {}",
        if exact { "" } else { "at least " },
        plural(errors, "error"),
        plural(warnings, "warning"),
        plural(kernels.len() as u64, "kernel")
    );
    if unchecked > 0 {
        let _ = write!(out, "; {} not checked", plural(unchecked, "instruction"));
    }
    out.push('\n');
    out
}

fn json(kernels: &[KernelRaces], lines: &[BTreeMap<u64, String>], max: Option<usize>) -> String {
    use serde_json::json;
    let max = max.unwrap_or(usize::MAX);
    let mut hazards = Vec::new();
    let mut barrier_errors = Vec::new();
    let mut not_checked = Vec::new();
    for (k, kernel) in kernels.iter().enumerate() {
        let lines = lines.get(k);
        for finding in kernel.hazards() {
            let mut hazard = finding.to_json(|a| {
                let mut side = serde_json::Map::new();
                side.insert("pc".into(), a.site().into());
                side.insert(
                    "line".into(),
                    lines.and_then(|l| l.get(&a.site())).cloned().into(),
                );
                side
            });
            hazard["kernel"] = kernel.name().into();
            hazards.push(hazard);
        }
        for finding in kernel.barrier_errors().take(max) {
            let mut error = finding.to_json(finding.error().to_string());
            error["kernel"] = kernel.name().into();
            barrier_errors.push(error);
        }
        for (name, count) in kernel.not_checked() {
            not_checked.push(json!({
                "kernel": kernel.name(),
                "instruction": name,
                "count": count,
            }));
        }
    }
    let (errors, warnings, unchecked) = totals(kernels);
    let list: Vec<_> = kernels
        .iter()
        .map(|k| {
            let mut entry = json!({
                "name": k.name(),
                "arch": k.capability().sm_name(),
                "blocks": k.blocks(),
                "requests": k.requests(),
                "hazards": k.hazards().len() as u64 + k.hazards_not_listed(),
                "barrier_errors": k.barrier_errors().len(),
            });
            if k.hazards_not_listed() > 0 {
                entry["hazards_not_listed"] = k.hazards_not_listed().into();
            }
            if !k.hazards_not_listed_exact() {
                // The counts are lower bounds.
                entry["hazards_not_listed_exact"] = false.into();
            }
            entry
        })
        .collect();
    let value = json!({
        "schema": "smem-racecheck/2",
        "kernels": list,
        "hazards": hazards,
        "barrier_errors": barrier_errors,
        "not_checked": not_checked,
        "summary": {
            "errors": errors,
            "warnings": warnings,
            "kernels": kernels.len(),
            "not_checked": unchecked,
        },
    });
    format!("{value:#}\n")
}
