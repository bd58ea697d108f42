//! `smem verify`: checks the model against hardware corpora.
//!
//! Reads corpus files (JSON lines in the format of `smem_model::corpus`),
//! predicts every record, and prints a table of exact /
//! total per (kind, op, width), one `KIND: exact/total exact` line per kind
//! (access, atomics, cp.async, winners, timing), the first mismatches in full,
//! and a last line `exact: N/M`. Lines longer than
//! `smem_model::corpus::MAX_LINE_BYTES` (1 MiB) end the reading of their file
//! with an error naming the file, the line and the limit. The exit status is 0 only when every record was predicted
//! exactly and nothing went wrong, so the command can gate CI on new
//! measurements.
//!
//! A line that cannot be checked (malformed JSON, a misaligned offset, an op the
//! capability lacks, ...) is reported on stderr as `error: FILE:LINE: reason` and
//! reading goes on, so that one bad line does not hide the rest of the corpus.
//! Such lines are counted separately from `M`: `M` is the number of records the
//! model made a prediction for, and the report says how many lines it could not
//! check.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use smem_model::corpus::{self, Check, Record, RecordKind, Summary};
use smem_model::ComputeCapability;

/// The `schema` of `smem verify --json`.
pub const SCHEMA: &str = "smem-verify/1";

/// How many mismatches are printed in full: enough to see a pattern, few enough
/// that the table and the last line stay on screen when a whole corpus is off.
const SHOWN_MISMATCHES: usize = 5;

/// Arguments of `smem verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Predict every record for this compute capability (e.g. sm_90 or 9.0)
    /// instead of the record's own arch, to see how another architecture would
    /// serve the measured patterns.
    #[arg(long, value_name = "CC", value_parser = crate::arch::parse)]
    arch: Option<ComputeCapability>,

    /// Print the report as JSON instead of text (errors stay on stderr).
    #[arg(long)]
    json: bool,

    /// Corpus files, one JSON object a line.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

/// A record the model did not predict exactly, with where it came from, so that
/// the report can point at the line to look at.
#[derive(Debug)]
struct Mismatch {
    /// The file, as given on the command line.
    source: String,
    /// The line in that file, counting from 1.
    line: usize,
    /// The record as read.
    record: Record,
    /// The prediction beside the measurement.
    check: Check,
}

/// Everything counted over all files; the report is written from it at the end.
#[derive(Debug, Default)]
struct Tally {
    /// Exact / total per (op, width), over the records that could be checked.
    summary: Summary,
    /// The first [`SHOWN_MISMATCHES`] mismatches, located.
    shown: Vec<Mismatch>,
    /// All mismatches, including those not shown.
    mismatches: usize,
    /// Lines that could not be checked (already reported on stderr).
    line_errors: usize,
    /// Files that could not be opened (already reported on stderr).
    file_errors: usize,
}

/// Runs `smem verify`: exit status 0 iff every record is exact and every line
/// and file could be read, 1 otherwise.
pub fn run(args: &Args) -> ExitCode {
    let mut tally = Tally::default();
    for path in &args.files {
        let name = path.display().to_string();
        match open(path).and_then(|mut reader| not_a_corpus(&mut reader).map(|why| (reader, why))) {
            Ok((reader, None)) => tally.check_all(reader, &name, args.arch),
            Ok((_, Some(why))) => {
                eprintln!("error: {name} is not a corpus (JSON lines): {why}");
                tally.file_errors += 1;
            }
            Err(err) => {
                eprintln!("error: cannot read {name}: {err}");
                tally.file_errors += 1;
            }
        }
    }
    if tally.summary.total() == 0 && tally.line_errors == 0 && tally.file_errors == 0 {
        eprintln!(
            "error: no records: {} held nothing to check",
            if args.files.len() == 1 {
                "the file"
            } else {
                "the files"
            }
        );
    }
    let report = if args.json {
        match serde_json::to_string_pretty(&tally.json(args.arch)) {
            Ok(json) => json + "\n",
            Err(err) => {
                eprintln!("error: {err}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        tally.report(args.arch)
    };
    if let Err(err) = io::stdout().lock().write_all(report.as_bytes()) {
        // A closed pipe (`smem verify ... | head`) is the reader's choice, not an
        // error worth a message; anything else is.
        if err.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the report: {err}");
        }
        return ExitCode::FAILURE;
    }
    if tally.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Why a file is not a corpus, from its first non-blank byte: a corpus line is a
/// JSON object, and an Accel-Sim trace starts with `-kernel name` or a `#`
/// comment. `None` when it may be one (its lines are then checked one by one).
fn not_a_corpus(reader: &mut BufReader<File>) -> io::Result<Option<String>> {
    let head = reader.fill_buf()?;
    let Some(start) = head.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Ok(None);
    };
    // Accel-Sim traces start with `-kernel name = ...` or `#` comments; other
    // text is read line by line and each bad line reported.
    if !matches!(head[start], b'-' | b'#') {
        return Ok(None);
    }
    let line: String = String::from_utf8_lossy(&head[start..])
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(40)
        .collect();
    Ok(Some(format!(
        "its first line is not a JSON object but a trace's (`{line}`); `smem trace FILE` \
         reads Accel-Sim and NVBit traces"
    )))
}

/// Opens a corpus file for reading, refusing directories up front: on Linux a
/// directory opens fine and only fails on the first read, which would surface
/// as a confusing `FILE:1:` line error.
fn open(path: &Path) -> io::Result<BufReader<File>> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    Ok(BufReader::new(file))
}

impl Tally {
    /// Checks every record of one source, reporting each line that cannot be
    /// checked on stderr and going on with the next.
    fn check_all<R: BufRead>(&mut self, reader: R, name: &str, arch: Option<ComputeCapability>) {
        let mut records = corpus::read(reader, name);
        while let Some(item) = records.next() {
            // Errors from parsing are located by the reader; errors found while
            // predicting (a misaligned offset, an unknown arch) are located here,
            // while the reader still stands on the record's line.
            let checked = item.and_then(|record| match record.check(arch) {
                Ok(check) => Ok((record, check)),
                Err(err) => Err(records.locate(err)),
            });
            match checked {
                Ok((record, check)) => {
                    self.summary.add(&record, &check);
                    if check.compared() && !check.is_exact() {
                        self.mismatches += 1;
                        if self.shown.len() < SHOWN_MISMATCHES {
                            self.shown.push(Mismatch {
                                source: name.to_owned(),
                                line: records.line(),
                                record,
                                check,
                            });
                        }
                    }
                }
                Err(err) => {
                    // `MalformedRecord` displays as `FILE:LINE: reason`.
                    eprintln!("error: {err}");
                    self.line_errors += 1;
                }
            }
        }
    }

    /// Whether the run should exit with status 0: something was checked, all of
    /// it exactly, and nothing went wrong.
    fn is_clean(&self) -> bool {
        self.file_errors == 0
            && self.line_errors == 0
            && self.summary.total() > 0
            && self.summary.exact() == self.summary.total()
    }

    /// What `--json` prints.
    fn json(&self, arch: Option<ComputeCapability>) -> VerifyJson {
        VerifyJson {
            schema: SCHEMA,
            arch: arch.map(ComputeCapability::sm_name),
            rows: self
                .summary
                .rows()
                .map(|(op, width, exact, total)| RowJson {
                    op: op.to_owned(),
                    width,
                    exact,
                    total,
                })
                .collect(),
            mismatches: self.mismatches,
            shown_mismatches: self
                .shown
                .iter()
                .map(|m| MismatchJson {
                    source: m.source.clone(),
                    line: m.line,
                    op: m.record.op.to_string(),
                    width: m.record.width,
                    arch: m.record.arch.to_string(),
                    predicted_wavefronts: m.check.wavefronts,
                    measured_wavefronts: m.check.measured_wavefronts,
                    predicted_bank_conflicts: m.check.bank_conflicts,
                    measured_bank_conflicts: m.check.measured_bank_conflicts,
                })
                .collect(),
            lines_not_checked: self.line_errors,
            files_not_read: self.file_errors,
            exact: self.summary.exact(),
            total: self.summary.total(),
            passed: self.is_clean(),
        }
    }

    /// The whole report, ending with the line `exact: N/M`. Built as one string
    /// so that writing it is one fallible step.
    fn report(&self, arch: Option<ComputeCapability>) -> String {
        let mut out = String::new();
        // `fmt::Write` into a `String` cannot fail, hence the ignored results.
        match arch {
            Some(cc) => _ = writeln!(out, "predicted for: compute capability {cc} (--arch)"),
            None => _ = writeln!(out, "predicted for: each record's own arch"),
        }
        // No rows means nothing was checked; a bare header would only add noise
        // above the errors that explain why.
        if self.summary.total() > 0 {
            out.push_str(&self.table());
            // Per kind of record (accesses, atomics, cp.async, winners,
            // timing), as the format in tests/data/hw-corpus/README.md asks of a reader.
            out.push('\n');
            for (kind, exact, total) in self.summary.kinds() {
                _ = writeln!(out, "{kind}: {exact}/{total} exact");
                if kind == RecordKind::Timing {
                    // What the timing model claims (smem_model::Timing).
                    _ = writeln!(
                        out,
                        "  (timing figures claimed, within 2%: latency at every warp count; \
                         throughput from 12 warps, but not merged 8-byte loads)"
                    );
                }
            }
        }
        if self.mismatches > 0 {
            _ = write!(out, "\nmismatches: {}", self.mismatches);
            if self.mismatches > self.shown.len() {
                _ = write!(out, " (first {} shown)", self.shown.len());
            }
            out.push('\n');
            for mismatch in &self.shown {
                out.push_str(&mismatch.describe());
            }
        }
        if self.line_errors > 0 || self.file_errors > 0 || self.summary.not_compared() > 0 {
            out.push('\n');
        }
        if self.summary.not_compared() > 0 {
            _ = writeln!(
                out,
                "not compared: {} (no figure the model claims; not counted below)",
                plural(self.summary.not_compared(), "record")
            );
        }
        if self.line_errors > 0 {
            _ = writeln!(
                out,
                "not checked: {} (errors on stderr; not counted below)",
                plural(self.line_errors, "line")
            );
        }
        if self.file_errors > 0 {
            _ = writeln!(
                out,
                "not read: {} (errors on stderr)",
                plural(self.file_errors, "file")
            );
        }
        _ = writeln!(
            out,
            "exact: {}/{}",
            self.summary.exact(),
            self.summary.total()
        );
        out
    }

    /// The per-(op, width) table, columns as wide as their widest entry so that
    /// it stays aligned whatever the counts.
    fn table(&self) -> String {
        let header = ["kind", "op", "width", "exact", "total"];
        let rows: Vec<[String; 5]> = self
            .summary
            .rows_by_kind()
            .map(|(kind, op, width, exact, total)| {
                [
                    kind.to_string(),
                    op.to_owned(),
                    width.to_string(),
                    exact.to_string(),
                    total.to_string(),
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.len());
            }
        }
        let [w0, w1, w2, w3, w4] = widths;
        let mut out = String::new();
        let [h0, h1, h2, h3, h4] = header;
        _ = writeln!(out, "{h0:<w0$}  {h1:<w1$}  {h2:>w2$}  {h3:>w3$}  {h4:>w4$}");
        for [kind, op, width, exact, total] in &rows {
            _ = writeln!(
                out,
                "{kind:<w0$}  {op:<w1$}  {width:>w2$}  {exact:>w3$}  {total:>w4$}"
            );
        }
        out
    }
}

impl Mismatch {
    /// The mismatch in full: where, what, and both figures beside each other.
    fn describe(&self) -> String {
        let Mismatch {
            source,
            line,
            record,
            check,
        } = self;
        let mut out = String::new();
        _ = write!(
            out,
            "{source}:{line}: {} width {}, arch {}",
            record.op, record.width, record.arch
        );
        // The optional fields, named as in the corpus, so that the line can be
        // found by its group as well as by its number.
        for (field, value) in [
            ("gpu", &record.gpu),
            ("group", &record.group),
            ("label", &record.label),
        ] {
            if let Some(value) = value {
                _ = write!(out, ", {field} {value}");
            }
        }
        out.push('\n');
        _ = writeln!(out, "  offsets: {:?}", record.offsets);
        _ = writeln!(
            out,
            "  wavefronts: predicted {}, measured {}",
            check.wavefronts,
            measured(check.measured_wavefronts, check.wavefronts)
        );
        _ = writeln!(
            out,
            "  bank conflicts: predicted {}, measured {}",
            check.bank_conflicts,
            measured(check.measured_bank_conflicts, check.bank_conflicts)
        );
        if !check.visible_to_nsight {
            _ = writeln!(
                out,
                "  (not visible to Nsight's counters: the model's shared-side figure is compared with 0)"
            );
        }
        for c in check.comparisons.iter().filter(|c| !c.holds()) {
            let within = if c.tolerance > 0.0 {
                format!(" (more than {}% apart)", c.tolerance * 100.0)
            } else {
                String::new()
            };
            _ = writeln!(
                out,
                "  {}: predicted {}, measured {}{within}",
                c.figure, c.predicted, c.measured
            );
        }
        out
    }
}

/// A measured figure for display: `none` when the record has none (which makes
/// the record inexact for wavefronts), marked when it differs from the prediction.
fn measured(value: Option<u32>, predicted: u32) -> String {
    match value {
        None => "none".to_owned(),
        Some(value) if value == predicted => value.to_string(),
        Some(value) => format!("{value} (differs)"),
    }
}

/// `1 line`, `2 lines`: the counts in the report are read by people.
fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("{count} {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// What `--json` prints: the figures of the text report.
#[derive(Debug, Serialize)]
struct VerifyJson {
    schema: &'static str,
    /// The `--arch` given, or `null` when each record's own arch was used.
    arch: Option<&'static str>,
    /// Exact / total per (op, width).
    rows: Vec<RowJson>,
    mismatches: usize,
    /// The first mismatches, located.
    shown_mismatches: Vec<MismatchJson>,
    lines_not_checked: usize,
    files_not_read: usize,
    exact: usize,
    total: usize,
    /// The exit status is 0 exactly when this is true.
    passed: bool,
}

/// One row of the per-(op, width) table.
#[derive(Debug, Serialize)]
struct RowJson {
    op: String,
    width: u32,
    exact: usize,
    total: usize,
}

/// A mismatch in `--json`.
#[derive(Debug, Serialize)]
struct MismatchJson {
    source: String,
    line: usize,
    op: String,
    width: u32,
    arch: String,
    predicted_wavefronts: u32,
    measured_wavefronts: Option<u32>,
    predicted_bank_conflicts: u32,
    measured_bank_conflicts: Option<u32>,
}
