//! Nsight Compute's CSV exports, read (feature `ncu`), and a launch's
//! measured counters compared with the model's predictions.
//!
//! Three exports are read, as `ncu` 2025.3 writes them (`tests/data/ncu`
//! holds one of each per fixture):
//!
//! - the raw page, `ncu --csv --page raw --metrics ... ./app`: one row per
//!   launch, one column per counter, under a header row (`"ID","Process
//!   ID",...`) and a row of units; the program's own output and `==PROF==`
//!   lines may come first;
//! - the details page, `ncu --csv --page details` (or `-i report --csv
//!   --page details`): one row per launch and metric (`"Metric Name"`,
//!   `"Metric Value"`);
//! - the Source page, `ncu -i report --csv --page source --print-source
//!   sass` (per SASS instruction) or `cuda,sass` (per CUDA line, each
//!   followed by its instructions): "L1 Wavefronts Shared", "L1 Wavefronts
//!   Shared Ideal" and "L1 Wavefronts Shared Excessive" per row, a
//!   `"Kernel Name"` (or `"Function Name"`) row before each kernel's rows.
//!   The `cuda` and `ptx` views alone export the source text without any
//!   counter, and are refused as such.
//!
//! Numbers may carry thousands separators (`63,488`). Every malformed
//! input is an [`Error::NcuCsv`] with its line, never a panic.
//!
//! # Example
//!
//! ```
//! use smem_model::kernel::ncu::profile::read_launches;
//!
//! let csv = "\
//! ==PROF== Connected to process 1151
//! \"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"smsp__sass_inst_executed_op_shared_ld.sum\"
//! \"\",\"\",\"\",\"\",\"inst\"
//! \"0\",\"transposeNaiveShared(float *, const float *, int, int)\",\"(32, 32, 1)\",\"(8, 8, 1)\",\"2,048\"
//! ";
//! let launches = read_launches(csv)?;
//! assert_eq!(launches[0].grid, Some([8, 8, 1]));
//! assert_eq!(launches[0].counter("smsp__sass_inst_executed_op_shared_ld.sum")?, 2048);
//! assert!(launches[0].is_kernel("_Z20transposeNaiveSharedPfPKfii"));
//! # Ok::<(), smem_model::Error>(())
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use super::{predictions, Family, Prediction, Relation, Unit, SOURCE_EXCESSIVE};
use crate::kernel::tally::Tally;
use crate::{ComputeCapability, Error};

/// One launch of a raw or details export.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Launch {
    /// Its ID in the export (`"ID"`: ncu's launch number, from 0).
    pub id: u64,
    /// The kernel's name as exported (demangled by default:
    /// `transposeNaiveShared(float *, const float *, int, int)`).
    pub kernel: String,
    /// The block's dimensions, where the export gives them.
    pub block: Option<[u32; 3]>,
    /// The grid's dimensions, where the export gives them.
    pub grid: Option<[u32; 3]>,
    /// Every metric's value as exported, by name.
    pub values: BTreeMap<String, String>,
    /// The compute capability of the GPU it ran on, where the export gives
    /// it (the raw page's `device__attribute_compute_capability_major` and
    /// `_minor`, or the `"CC"` column of either page: `9.0`) and the crate
    /// knows it.
    pub capability: Option<ComputeCapability>,
}

impl Launch {
    /// The count a counter holds (thousands separators allowed).
    ///
    /// # Errors
    ///
    /// [`Error::NcuCounter`] when the launch has no such counter, or a value
    /// that is not a whole number.
    pub fn counter(&self, name: &str) -> Result<u64, Error> {
        self.measured(name)?.ok_or_else(|| Error::NcuCounter {
            launch: self.id,
            counter: name.to_owned(),
            value: String::new(),
            metrics: METRICS.join(","),
        })
    }

    /// The count a counter holds, or `None` when the export does not have
    /// it (no such column or metric, or an empty value).
    ///
    /// # Errors
    ///
    /// [`Error::NcuCounter`] when its value is not a whole number.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ncu::profile::read_launches;
    ///
    /// let csv = "\"ID\",\"Kernel Name\",\"a.sum\"\n\"0\",\"k\",\"1,024\"\n";
    /// let launch = &read_launches(csv)?[0];
    /// assert_eq!(launch.measured("a.sum")?, Some(1024));
    /// assert_eq!(launch.measured("b.sum")?, None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn measured(&self, name: &str) -> Result<Option<u64>, Error> {
        match self.values.get(name).map(String::as_str) {
            None | Some("") => Ok(None),
            Some(value) => count(value).map(Some).ok_or_else(|| Error::NcuCounter {
                launch: self.id,
                counter: name.to_owned(),
                value: value.to_owned(),
                metrics: METRICS.join(","),
            }),
        }
    }

    /// Whether the launch is of `kernel` (its PTX name, mangled or not):
    /// the same name, or the same function once demangled, without its
    /// return type, template arguments or parameters (ncu writes
    /// `MatrixMulCUDA<32>` where the Source page has `MatrixMulCUDA<(int)32>`).
    pub fn is_kernel(&self, kernel: &str) -> bool {
        same_kernel(&self.kernel, kernel)
    }

    /// `ID 0 name grid (8, 8, 1) block (32, 32, 1)`.
    fn describe(&self) -> String {
        let dims = |d: Option<[u32; 3]>| {
            d.map_or_else(|| "?".to_owned(), |[x, y, z]| format!("({x}, {y}, {z})"))
        };
        format!(
            "ID {} {} grid {} block {}",
            self.id,
            self.kernel,
            dims(self.grid),
            dims(self.block)
        )
    }
}

/// The counters [`compare`] reads: both families for every shared-memory
/// instruction kind (what `ncu --metrics` should be given).
pub const METRICS: [&str; 20] = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_shared_stsm.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
];

/// A whole number as ncu writes it: `63,488`, `0`.
fn count(text: &str) -> Option<u64> {
    let digits: String = text.trim().chars().filter(|c| *c != ',').collect();
    digits.parse().ok()
}

/// `(32, 32, 1)`.
fn dims(text: &str) -> Option<[u32; 3]> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut out = [0u32; 3];
    let mut parts = inner.split(',');
    for slot in &mut out {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// A kernel name without return type, template arguments and parameters:
/// `void MatrixMulCUDA<(int)32>(float *, int)` is `MatrixMulCUDA`.
fn base_name(name: &str) -> &str {
    let mut depth = 0usize;
    let mut end = name.len();
    let mut start = 0;
    for (i, c) in name.char_indices() {
        match c {
            '<' => {
                if depth == 0 {
                    end = end.min(i);
                }
                depth += 1;
            }
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 => {
                end = end.min(i);
                break;
            }
            ' ' if depth == 0 && i < end => start = i + 1,
            _ => {}
        }
    }
    name.get(start..end).unwrap_or(name).trim()
}

/// Whether an exported kernel name and a PTX one are the same kernel.
fn same_kernel(exported: &str, ptx: &str) -> bool {
    if exported == ptx {
        return true;
    }
    let demangled = cpp_demangle::Symbol::new(ptx)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| ptx.to_owned());
    let base = base_name(&demangled);
    !base.is_empty() && base_name(exported) == base
}

/// The text from the line whose first field is `first` (quoted or not),
/// and how many lines come before it.
fn from_header<'a>(text: &'a str, first: &[&str]) -> Option<(&'a str, u64)> {
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let field = line.split(',').next().unwrap_or("").trim();
        let field = field.trim_matches('"');
        if first.contains(&field) {
            return Some((&text[offset..], n as u64));
        }
        offset += line.len();
    }
    None
}

fn csv_error(skipped: u64, err: &csv::Error) -> Error {
    Error::NcuCsv {
        line: skipped + err.position().map_or(0, |p| p.line()),
        reason: err.to_string(),
    }
}

fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
}

/// The launches of a raw or details export (told apart by the header: a
/// details export has `"Metric Name"` and `"Metric Value"` columns), in the
/// order exported.
///
/// # Errors
///
/// [`Error::NcuCsv`] when no header row (`"ID",...`) is found, a row cannot
/// be read as CSV, or a launch's ID is not a number.
pub fn read_launches(text: &str) -> Result<Vec<Launch>, Error> {
    let (body, skipped) = from_header(text, &["ID"]).ok_or_else(|| Error::NcuCsv {
        line: 0,
        reason: "not one: no header row starting with \"ID\" (expected ncu --csv --page raw \
                 or --page details)"
            .to_owned(),
    })?;
    let mut records = reader(body).into_records();
    let header = match records.next() {
        Some(Ok(h)) => h,
        Some(Err(e)) => return Err(csv_error(skipped, &e)),
        None => unreachable_header(),
    };
    let column = |name: &str| header.iter().position(|h| h == name);
    let (id, kernel, block, grid, cc) = (
        column("ID"),
        column("Kernel Name"),
        column("Block Size"),
        column("Grid Size"),
        column("CC"),
    );
    let details = column("Metric Name").zip(column("Metric Value"));
    let mut out: Vec<Launch> = Vec::new();
    for (n, record) in records.enumerate() {
        let record = record.map_err(|e| csv_error(skipped, &e))?;
        let line = skipped + 2 + n as u64;
        let field = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("");
        let id_text = field(id);
        if id_text.is_empty() {
            // The raw page's units row.
            continue;
        }
        let launch_id = count(id_text).ok_or_else(|| Error::NcuCsv {
            line,
            reason: format!("launch ID {id_text:?} is not a number"),
        })?;
        let launch = match out.iter().position(|l| l.id == launch_id) {
            Some(i) if details.is_some() => &mut out[i],
            _ => {
                out.push(Launch {
                    id: launch_id,
                    kernel: field(kernel).to_owned(),
                    block: dims(field(block)),
                    grid: dims(field(grid)),
                    values: BTreeMap::new(),
                    capability: capability_of(field(cc)),
                });
                out.last_mut().expect("just pushed")
            }
        };
        match details {
            Some((name, value)) => {
                let name = field(Some(name));
                if !name.is_empty() {
                    launch
                        .values
                        .entry(name.to_owned())
                        .or_insert_with(|| field(Some(value)).to_owned());
                }
            }
            None => {
                for (h, v) in header.iter().zip(record.iter()) {
                    launch.values.insert(h.to_owned(), v.to_owned());
                }
                let attribute = |which: &str| {
                    launch
                        .values
                        .get(&format!("device__attribute_compute_capability_{which}"))
                        .and_then(|v| v.parse::<u32>().ok())
                };
                if let (Some(major), Some(minor)) = (attribute("major"), attribute("minor")) {
                    launch.capability = ComputeCapability::new(major, minor);
                }
            }
        }
    }
    Ok(out)
}

/// The compute capability a `"CC"` column gives (`9.0`), where the crate
/// knows it.
fn capability_of(text: &str) -> Option<ComputeCapability> {
    let (major, minor) = text.trim().split_once('.')?;
    ComputeCapability::new(major.parse().ok()?, minor.parse().ok()?)
}

/// The header row was found by its first field, so a reader of the text
/// from there yields at least that row.
fn unreachable_header() -> csv::StringRecord {
    csv::StringRecord::new()
}

/// What the Source page gives one row: "L1 Wavefronts Shared", its
/// "Ideal" and its "Excessive", and "Instructions Executed".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Wavefronts {
    /// "L1 Wavefronts Shared".
    pub wavefronts: u64,
    /// "L1 Wavefronts Shared Ideal".
    pub ideal: u64,
    /// "L1 Wavefronts Shared Excessive" (wavefronts less ideal).
    pub excessive: u64,
    /// "Instructions Executed" (warp instructions).
    pub executed: u64,
}

impl Wavefronts {
    fn add(&mut self, other: &Wavefronts) {
        self.wavefronts += other.wavefronts;
        self.ideal += other.ideal;
        self.excessive += other.excessive;
        self.executed += other.executed;
    }
}

/// A SASS instruction's row of the Source page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SassRow {
    /// Its address (`0x7fa3297a01c0`).
    pub address: String,
    /// The instruction (`LDS R9, [R6]`).
    pub sass: String,
    /// Its shared-memory family, if it is a shared-memory instruction.
    pub family: Option<Family>,
    /// The CUDA line it is under (the `cuda,sass` view only).
    pub line: Option<u32>,
    /// Its figures.
    pub figures: Wavefronts,
}

/// A CUDA source line's row of the Source page (the `cuda,sass` view).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineRow {
    /// The source file's path, as exported.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The line's source text.
    pub source: String,
    /// Its figures: those of its instructions, summed.
    pub figures: Wavefronts,
}

/// One kernel of a Source page export.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SourceKernel {
    /// The kernel's name as exported.
    pub kernel: String,
    /// Its CUDA lines (empty for the `sass` view).
    pub lines: Vec<LineRow>,
    /// Its SASS instructions.
    pub instructions: Vec<SassRow>,
}

impl SourceKernel {
    /// Whether it is `kernel`'s (as [`Launch::is_kernel`]).
    pub fn is_kernel(&self, kernel: &str) -> bool {
        same_kernel(&self.kernel, kernel)
    }

    /// The figures of its shared-memory instructions, by family.
    pub fn by_family(&self) -> BTreeMap<Family, Wavefronts> {
        let mut out: BTreeMap<Family, Wavefronts> = BTreeMap::new();
        for row in &self.instructions {
            if let Some(family) = row.family {
                out.entry(family).or_default().add(&row.figures);
            }
        }
        out
    }

    /// The figures of every instruction, summed.
    pub fn total(&self) -> Wavefronts {
        let mut total = Wavefronts::default();
        for row in &self.instructions {
            total.add(&row.figures);
        }
        total
    }
}

const SHARED: &str = "L1 Wavefronts Shared";
const IDEAL: &str = "L1 Wavefronts Shared Ideal";
const EXCESSIVE: &str = SOURCE_EXCESSIVE;
const EXECUTED: &str = "Instructions Executed";

/// The kernels of a Source page export (`--page source --csv`, the `sass`
/// or `cuda,sass` view), in the order exported.
///
/// # Errors
///
/// [`Error::NcuCsv`] when the export has no "L1 Wavefronts Shared" columns
/// (the `cuda` and `ptx` views: export `--print-source sass` or
/// `cuda,sass`), a row cannot be read as CSV, or a figure or line number is
/// not a number.
pub fn read_source(text: &str) -> Result<Vec<SourceKernel>, Error> {
    let mut out: Vec<SourceKernel> = Vec::new();
    // Column indices: line, address, sass text, the four figures.
    let mut columns: Option<(Option<usize>, usize, usize, [usize; 4])> = None;
    let mut file = String::new();
    let mut files: Vec<String> = Vec::new();
    let mut width = 0;
    let mut line_no: Option<u32> = None;
    let mut saw_header = false;
    for (n, record) in reader(text).into_records().enumerate() {
        let line = n as u64 + 1;
        let record = record.map_err(|e| csv_error(0, &e))?;
        let first = record.get(0).unwrap_or("");
        match first {
            "Kernel Name" | "Function Name" => {
                let name = record.get(1).unwrap_or("");
                // The `cuda,sass` view repeats a function once per source
                // file its instructions come from (an inlined header's):
                // the same function under a file not yet seen goes on; the
                // same file again is another launch.
                let goes_on = out.last().is_some_and(|k| k.kernel == name)
                    && first == "Function Name"
                    && !files.contains(&file);
                if !goes_on {
                    out.push(SourceKernel {
                        kernel: name.to_owned(),
                        ..SourceKernel::default()
                    });
                    files.clear();
                }
                files.push(file.clone());
                line_no = None;
                continue;
            }
            "File Path" | "File Name" => {
                file = record.get(1).unwrap_or("").to_owned();
                continue;
            }
            "Address" | "Line No" => {
                saw_header = true;
                width = record.len();
                let at = |name: &str| record.iter().position(|h| h == name);
                columns = match (at("Address"), at(SHARED), at(IDEAL), at(EXCESSIVE)) {
                    (Some(address), Some(shared), Some(ideal), Some(excessive)) => Some((
                        at("Line No"),
                        address,
                        // The SASS text is the "Source" after "Address".
                        address + 1,
                        [shared, ideal, excessive, at(EXECUTED).unwrap_or(shared)],
                    )),
                    _ => None,
                };
                continue;
            }
            _ => {}
        }
        let Some((line_col, address, sass, figures)) = columns else {
            continue;
        };
        let kernel = match out.last_mut() {
            Some(k) => k,
            None => {
                out.push(SourceKernel::default());
                out.last_mut().expect("just pushed")
            }
        };
        // ncu leaves the quotes inside source text unescaped
        // (`asm volatile("cp.async.cg ...")`), which splits that text into
        // more fields: the columns after the text are then counted from the
        // end of the row.
        let extra = record.len().saturating_sub(width);
        let get = |i: usize| record.get(i).unwrap_or("");
        let text_column = if line_col.is_some_and(|c| !get(c).is_empty()) {
            1
        } else {
            sass
        };
        let after = |i: usize| {
            if i > text_column {
                get(i + extra)
            } else {
                get(i)
            }
        };
        let address_text = after(address);
        if address_text == "..." {
            continue;
        }
        let number = |i: usize| -> Result<u64, Error> {
            match after(i) {
                "" | "-" => Ok(0),
                t => count(t).ok_or_else(|| Error::NcuCsv {
                    line,
                    reason: format!("{t:?} is not a count"),
                }),
            }
        };
        let fig = Wavefronts {
            wavefronts: number(figures[0])?,
            ideal: number(figures[1])?,
            excessive: number(figures[2])?,
            executed: if figures[3] == figures[0] {
                0
            } else {
                number(figures[3])?
            },
        };
        let cuda_line = line_col.map(get).filter(|t| !t.is_empty());
        if let Some(text) = cuda_line {
            let no: u32 = text.trim().parse().map_err(|_| Error::NcuCsv {
                line,
                reason: format!("line number {text:?} is not a number"),
            })?;
            line_no = Some(no);
            kernel.lines.push(LineRow {
                file: file.clone(),
                line: no,
                source: get(1).to_owned(),
                figures: fig,
            });
            continue;
        }
        let text = get(sass);
        kernel.instructions.push(SassRow {
            address: address_text.to_owned(),
            sass: text.trim().to_owned(),
            family: Family::of_sass(text),
            line: line_no,
            figures: fig,
        });
    }
    if columns.is_none() {
        return Err(Error::NcuCsv {
            line: 0,
            reason: if saw_header {
                "a Source page without the \"L1 Wavefronts Shared\" columns (the cuda and ptx \
                 views export the source text alone): export with --page source \
                 --print-source sass, or cuda,sass"
                    .to_owned()
            } else {
                "no Source page header (\"Address\" or \"Line No\"): expected ncu --csv --page \
                 source --print-source sass or cuda,sass"
                    .to_owned()
            },
        });
    }
    Ok(out)
}

/// What an export file holds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Export {
    /// A raw or details page: launches and their counters.
    Launches(Vec<Launch>),
    /// A Source page: per-instruction (and per-line) figures.
    Source(Vec<SourceKernel>),
}

/// Reads an export, whichever page it is: a Source page when a row starts
/// with `"Kernel Name"`, `"Function Name"`, `"File Path"`, `"Address"` or
/// `"Line No"` before any `"ID"` row, else a raw or details page.
///
/// # Errors
///
/// As [`read_launches`] and [`read_source`].
pub fn read_export(text: &str) -> Result<Export, Error> {
    let source_first = [
        "Kernel Name",
        "Function Name",
        "File Path",
        "File Name",
        "Address",
        "Line No",
    ];
    match from_header(
        text,
        &[
            "ID",
            "Kernel Name",
            "Function Name",
            "File Path",
            "File Name",
            "Address",
            "Line No",
        ],
    ) {
        Some((body, _)) => {
            let first = body
                .split(',')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches('"');
            if source_first.contains(&first) {
                read_source(text).map(Export::Source)
            } else {
                read_launches(text).map(Export::Launches)
            }
        }
        None => read_launches(text).map(Export::Launches),
    }
}

/// Reads the export at `path` ([`read_export`]).
///
/// # Errors
///
/// [`Error::NcuCsv`] (line 0) when the file cannot be read; otherwise as
/// [`read_export`].
pub fn read_export_file(path: &Path) -> Result<Export, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::NcuCsv {
        line: 0,
        reason: format!("{}: cannot read it: {e}", path.display()),
    })?;
    read_export(&text)
}

/// The launch of `kernel` with `grid` and `block` (where the export gives
/// them) among `launches`; with `id`, the one of that ID.
///
/// # Errors
///
/// [`Error::NcuLaunch`] when none matches, or several and no `id` says
/// which.
pub fn select<'a>(
    launches: &'a [Launch],
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    id: Option<u64>,
) -> Result<&'a Launch, Error> {
    let matching: Vec<&Launch> = launches
        .iter()
        .filter(|l| l.is_kernel(kernel))
        .filter(|l| l.grid.is_none_or(|g| g == grid) && l.block.is_none_or(|b| b == block))
        .filter(|l| id.is_none_or(|id| l.id == id))
        .collect();
    match matching.as_slice() {
        [one] => Ok(one),
        _ => Err(Error::NcuLaunch {
            kernel: kernel.to_owned(),
            matching: matching.len(),
            found: launches
                .iter()
                .map(Launch::describe)
                .collect::<Vec<_>>()
                .join("; "),
        }),
    }
}

/// The Source page's kernel for `kernel`: the `nth` (from 0) of that name,
/// where the export holds several (the `n`-th launch of that name).
///
/// # Errors
///
/// [`Error::NcuLaunch`] when there is no such kernel, or several and no
/// `nth` says which.
pub fn select_source<'a>(
    kernels: &'a [SourceKernel],
    kernel: &str,
    nth: Option<usize>,
) -> Result<&'a SourceKernel, Error> {
    let matching: Vec<&SourceKernel> = kernels.iter().filter(|k| k.is_kernel(kernel)).collect();
    let chosen = match nth {
        Some(n) => matching.get(n).copied(),
        None if matching.len() == 1 => Some(matching[0]),
        None => None,
    };
    chosen.ok_or_else(|| Error::NcuLaunch {
        kernel: kernel.to_owned(),
        matching: if nth.is_some() { 0 } else { matching.len() },
        found: kernels
            .iter()
            .enumerate()
            .map(|(i, k)| format!("#{i} {} (Source page)", k.kernel))
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// One counter predicted and measured.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CounterRow {
    /// The prediction.
    pub prediction: Prediction,
    /// The measured value (`None`: a Source page column without a Source
    /// page given).
    pub measured: Option<u64>,
}

impl CounterRow {
    /// Whether the measurement is what the relation says: equal, at least
    /// the prediction, or for an estimate within its
    /// [`range`](Prediction::range) where it has one, anything where not
    /// (`None` when not measured).
    pub fn holds(&self) -> Option<bool> {
        let m = self.measured?;
        Some(match (self.prediction.relation, self.prediction.range) {
            (Relation::Equal, _) => m == self.prediction.predicted,
            (Relation::AtLeast, _) => m >= self.prediction.predicted,
            (_, Some((low, high))) => (low..=high).contains(&m),
            _ => true,
        })
    }
}

/// A unit-level counter pair's excess over the layout, split: bank
/// conflicts = layout conflicts + arbitration (+ what neither explains).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnitSplit {
    /// The unit (`op_ld`, `op_st`, `op_atom`).
    pub unit: Unit,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*`, measured.
    pub unit_wavefronts: u64,
    /// The instruction-level wavefronts of its families, measured
    /// (`smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_*`, summed).
    pub instruction_wavefronts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_*`, measured.
    pub unit_conflicts: u64,
    /// What the layout causes: predicted wavefronts less ideal, its
    /// families summed.
    pub layout: u64,
    /// What arbitration adds: unit-level less instruction-level wavefronts
    /// measured (0 where the unit-level count is the smaller).
    pub arbitration: u64,
    /// Conflicts measured that neither explains (measured less layout less
    /// arbitration; negative when they explain more than was measured).
    pub unexplained: i64,
}

/// A CUDA source line, measured (Source page, `cuda,sass` view) and
/// predicted (the PTX's `.loc`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineComparison {
    /// The file's name (without its directory).
    pub file: String,
    /// The line.
    pub line: u32,
    /// The Source page's figures (zero where it has no such line).
    pub measured: Wavefronts,
    /// Predicted wavefronts.
    pub wavefronts: u64,
    /// Predicted ideal wavefronts.
    pub ideal: u64,
    /// Predicted bank conflicts.
    pub conflicts: u64,
}

/// A family's Source page figures against the prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FamilyComparison {
    /// The family.
    pub family: Family,
    /// The Source page's figures of its instructions, summed.
    pub measured: Wavefronts,
    /// Predicted wavefronts.
    pub wavefronts: u64,
    /// Predicted ideal wavefronts.
    pub ideal: u64,
}

/// A launch's measured counters against the model's predictions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Comparison {
    /// The launch's ID and name in the export (`None` when only a Source
    /// page was given).
    pub launch: Option<(u64, String)>,
    /// Every counter predicted, with its measurement.
    pub counters: Vec<CounterRow>,
    /// Each unit's conflicts split into layout and arbitration (with a raw
    /// or details export).
    pub units: Vec<UnitSplit>,
    /// Per family, the Source page's figures (with a Source page).
    pub families: Vec<FamilyComparison>,
    /// Per CUDA line, measured and predicted, most excessive wavefronts
    /// first (with a `cuda,sass` Source page; lines with no shared
    /// wavefronts on either side left out).
    pub lines: Vec<LineComparison>,
    /// The counters the comparison needs that the raw or details export
    /// does not have, in the order first needed: their predictions are
    /// not compared (`measured` `None`), and a unit split that needs one is
    /// left out.
    pub absent: Vec<&'static str>,
}

/// Compares the tally of a launch with its measurements: a raw or details
/// export's `launch` and/or a Source page's `source` kernel. A counter the
/// launch lacks is listed in [`Comparison::absent`] and not compared (profile
/// with every name of [`METRICS`] to compare all).
///
/// # Errors
///
/// [`Error::NcuCounter`] when a counter's value in `launch` is not a whole
/// number.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ncu::profile::{compare, read_launches};
/// use smem_model::kernel::tally::Tally;
///
/// let csv = "\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n";
/// let launches = read_launches(csv)?;
/// // Nothing predicted: nothing to compare, nothing missing.
/// let comparison = compare(&Tally::new(), Some(&launches[0]), None)?;
/// assert!(comparison.counters.is_empty());
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn compare(
    tally: &Tally,
    launch: Option<&Launch>,
    source: Option<&SourceKernel>,
) -> Result<Comparison, Error> {
    let mut absent: Vec<&'static str> = Vec::new();
    let mut measure = |l: &Launch, counter: &'static str| {
        let value = l.measured(counter)?;
        if value.is_none() && !absent.contains(&counter) {
            absent.push(counter);
        }
        Ok::<_, Error>(value)
    };
    let mut counters = Vec::new();
    for prediction in predictions(tally) {
        let measured = if prediction.counter == SOURCE_EXCESSIVE {
            source.map(|s| s.total().excessive)
        } else {
            match launch {
                Some(l) => measure(l, prediction.counter)?,
                None => None,
            }
        };
        counters.push(CounterRow {
            prediction,
            measured,
        });
    }
    let by_op = tally.by_op();
    let predicted = |family: Family| {
        by_op
            .iter()
            .filter(|((op, _), _)| Family::of(*op) == family)
            .fold((0, 0), |(w, i), (_, t)| {
                (w + t.wavefronts, i + t.ideal_wavefronts)
            })
    };
    let mut units = Vec::new();
    if let Some(l) = launch {
        for unit in Unit::ALL {
            let families: Vec<Family> = unit.families().collect();
            let present = families.iter().any(|f| predicted(*f).0 > 0)
                || l.counter(unit.wavefronts_counter()).unwrap_or(0) > 0;
            if !present {
                continue;
            }
            let unit_wavefronts = measure(l, unit.wavefronts_counter())?;
            let unit_conflicts = measure(l, unit.conflicts_counter())?;
            let mut instruction_wavefronts = Some(0);
            for f in &families {
                let w = measure(l, f.wavefronts_counter())?;
                instruction_wavefronts = instruction_wavefronts.zip(w).map(|(a, b)| a + b);
            }
            let (Some(unit_wavefronts), Some(unit_conflicts), Some(instruction_wavefronts)) =
                (unit_wavefronts, unit_conflicts, instruction_wavefronts)
            else {
                continue;
            };
            let layout: u64 = families
                .iter()
                .map(|f| {
                    let (w, i) = predicted(*f);
                    w - i.min(w)
                })
                .sum();
            let arbitration = unit_wavefronts.saturating_sub(instruction_wavefronts);
            units.push(UnitSplit {
                unit,
                unit_wavefronts,
                instruction_wavefronts,
                unit_conflicts,
                layout,
                arbitration,
                unexplained: unit_conflicts as i64 - layout as i64 - arbitration as i64,
            });
        }
    }
    let mut families = Vec::new();
    let mut lines = Vec::new();
    if let Some(s) = source {
        let measured = s.by_family();
        for family in Family::ALL {
            let (wavefronts, ideal) = predicted(family);
            let m = measured.get(&family).copied().unwrap_or_default();
            if wavefronts == 0 && m.wavefronts == 0 && m.executed == 0 {
                continue;
            }
            families.push(FamilyComparison {
                family,
                measured: m,
                wavefronts,
                ideal,
            });
        }
        lines = compare_lines(tally, s);
    }
    Ok(Comparison {
        launch: launch.map(|l| (l.id, l.kernel.clone())),
        counters,
        units,
        families,
        lines,
        absent,
    })
}

/// A path's file name.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The Source page's CUDA lines against the tally's source lines, matched
/// by file name and line.
fn compare_lines(tally: &Tally, source: &SourceKernel) -> Vec<LineComparison> {
    fn slot<'m>(
        by: &'m mut BTreeMap<(String, u32), LineComparison>,
        file: &str,
        line: u32,
    ) -> &'m mut LineComparison {
        by.entry((file_name(file).to_owned(), line))
            .or_insert_with(|| LineComparison {
                file: file_name(file).to_owned(),
                line,
                measured: Wavefronts::default(),
                wavefronts: 0,
                ideal: 0,
                conflicts: 0,
            })
    }
    let mut by: BTreeMap<(String, u32), LineComparison> = BTreeMap::new();
    for row in &source.lines {
        if row.figures.wavefronts > 0 {
            slot(&mut by, &row.file, row.line)
                .measured
                .add(&row.figures);
        }
    }
    for entry in tally.entries() {
        if let Some((file, line)) = &entry.source {
            if entry.totals.wavefronts > 0 {
                let s = slot(&mut by, file.as_deref().unwrap_or(""), *line);
                s.wavefronts += entry.totals.wavefronts;
                s.ideal += entry.totals.ideal_wavefronts;
                s.conflicts += entry.totals.bank_conflicts;
            }
        }
    }
    let mut out: Vec<LineComparison> = by.into_values().collect();
    out.sort_by_key(|l| {
        (
            std::cmp::Reverse(l.measured.excessive.max(l.conflicts)),
            l.file.clone(),
            l.line,
        )
    });
    out
}

/// The exports `--ncu` names: at most one raw or details export and one
/// Source page ([`Exports::read`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Exports {
    /// The raw or details export's launches.
    pub launches: Option<Vec<Launch>>,
    /// The Source page's kernels.
    pub source: Option<Vec<SourceKernel>>,
}

impl Exports {
    /// Reads the exports at `paths`, in any order.
    ///
    /// # Errors
    ///
    /// [`Error::NcuCsv`] for a file that cannot be read or does not read as
    /// an export, or a second export of one kind.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ncu::profile::Exports;
    ///
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ncu/matmul");
    /// let exports = Exports::read(&[format!("{dir}/raw.csv"), format!("{dir}/source_sass.csv")])?;
    /// assert_eq!(exports.launches.map(|l| l.len()), Some(1));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn read<P: AsRef<Path>>(paths: &[P]) -> Result<Exports, Error> {
        let mut exports = Exports::default();
        for path in paths {
            let path = path.as_ref();
            let within = |e: Error| match e {
                // The file's name, where the reader did not give it.
                Error::NcuCsv { line, reason } if !reason.starts_with(&*path.to_string_lossy()) => {
                    Error::NcuCsv {
                        line,
                        reason: format!("{}: {reason}", path.display()),
                    }
                }
                other => other,
            };
            match read_export_file(path).map_err(within)? {
                Export::Launches(l) if exports.launches.is_none() => exports.launches = Some(l),
                Export::Source(s) if exports.source.is_none() => exports.source = Some(s),
                _ => {
                    return Err(Error::NcuCsv {
                        line: 0,
                        reason: format!(
                            "{}: a second export of the same page: give one raw or details \
                             export and one Source page",
                            path.display()
                        ),
                    });
                }
            }
        }
        Ok(exports)
    }

    /// The raw or details export's launch of `kernel` with `grid` and
    /// `block` (or of ID `id`; [`select`]), `None` without such an export.
    ///
    /// # Errors
    ///
    /// [`Error::NcuLaunch`] for no matching launch or several.
    pub fn launch(
        &self,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        id: Option<u64>,
    ) -> Result<Option<&Launch>, Error> {
        match &self.launches {
            Some(all) => select(all, kernel, grid, block, id).map(Some),
            None => Ok(None),
        }
    }

    /// Compares the tally with the launch [`launch`](Self::launch) picks and
    /// the Source page's kernel ([`compare`]). Where the Source page holds
    /// several launches of the kernel, the one in the chosen launch's place
    /// among them is taken (the page lists launches in order, without their
    /// IDs).
    ///
    /// # Errors
    ///
    /// [`Error::NcuLaunch`] for no matching launch or several;
    /// [`Error::NcuCounter`] for a counter whose value is not a number.
    pub fn compare(
        &self,
        tally: &Tally,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        id: Option<u64>,
    ) -> Result<Comparison, Error> {
        let launch = self.launch(kernel, grid, block, id)?;
        let source_kernel = match &self.source {
            Some(kernels) => {
                let same = kernels.iter().filter(|k| k.is_kernel(kernel)).count();
                let nth = match (&self.launches, launch) {
                    (Some(all), Some(chosen)) if same > 1 => all
                        .iter()
                        .filter(|l| l.is_kernel(kernel))
                        .position(|l| l.id == chosen.id),
                    _ => None,
                };
                Some(select_source(kernels, kernel, nth)?)
            }
            None => None,
        };
        compare(tally, launch, source_kernel)
    }
}

/// The compute capability to predict a launch for when its measurements
/// come from a GPU of `measured` ([`Launch::capability`], where the export
/// gives it): the one `given`, else `measured` (`None` when neither is
/// known), checked against the PTX's `.target`s (`targets`, as the module
/// writes them). A GPU runs PTX for `sm_XY` from `XY` on (the driver
/// compiles it), for the architecture-specific `sm_XYa` only on `XY`, and
/// for the family-specific `sm_XYf` on `XY`'s major version from `XY` on
/// (PTX ISA, target directive; CUDA C++ Programming Guide, compute
/// capabilities).
///
/// # Errors
///
/// [`Error::NcuCapability`] when `given` is not `measured`, or a target
/// does not run on `measured`.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ncu::profile::capability;
/// use smem_model::ComputeCapability;
///
/// let h200 = Some(ComputeCapability::Sm90);
/// assert_eq!(capability(None, h200, &["sm_80"])?, h200);
/// assert!(capability(None, h200, &["sm_100a"]).is_err());
/// assert!(capability(Some(ComputeCapability::Sm80), h200, &["sm_80"]).is_err());
/// assert_eq!(capability(None, None, &["sm_80"])?, None);
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn capability(
    given: Option<ComputeCapability>,
    measured: Option<ComputeCapability>,
    targets: &[&str],
) -> Result<Option<ComputeCapability>, Error> {
    let Some(m) = measured else {
        return Ok(given);
    };
    let (major, minor) = m.version();
    let refuse = |other: ComputeCapability, target: &str| {
        let (other_major, other_minor) = other.version();
        Error::NcuCapability {
            measured_major: major,
            measured_minor: minor,
            other_major,
            other_minor,
            target: target.to_owned(),
        }
    };
    if let Some(g) = given {
        return if g == m {
            Ok(given)
        } else {
            Err(refuse(g, ""))
        };
    }
    for &target in targets {
        let Ok(t) = target.parse::<ComputeCapability>() else {
            // Not a capability (`texmode_independent`, `debug`).
            continue;
        };
        let suffix = target
            .trim_end()
            .chars()
            .last()
            .map(|c| c.to_ascii_lowercase());
        let runs = match suffix {
            Some('a') => t == m,
            Some('f') => t.major() == major && t.minor() <= minor,
            _ => t.version() <= (major, minor),
        };
        if !runs {
            return Err(refuse(t, target));
        }
    }
    Ok(measured)
}

/// Reads the exports at `paths` (at most one raw or details export and one
/// Source page, in any order), picks the launch of `kernel` with `grid` and
/// `block` (or of ID `id`) and compares the tally with it ([`Exports`]).
///
/// # Errors
///
/// As [`Exports::read`] and [`Exports::compare`].
pub fn compare_files<P: AsRef<Path>>(
    paths: &[P],
    id: Option<u64>,
    tally: &Tally,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
) -> Result<Comparison, Error> {
    Exports::read(paths)?.compare(tally, kernel, grid, block, id)
}

/// Every counter the tally predicts ([`predictions`]) as `smem kernel
/// --json` gives them in `ncu_metrics`: `{metric, total, relation,
/// predicted, reason, not_costed, range}` (the last three only where they
/// apply; `range` is `[least, most]`).
pub fn predictions_json(tally: &Tally) -> serde_json::Value {
    predictions(tally)
        .into_iter()
        .map(|p| {
            let mut m = serde_json::Map::new();
            m.insert("metric".into(), p.counter.into());
            m.insert("total".into(), p.quantity.total().into());
            m.insert("relation".into(), p.relation.name().into());
            m.insert("predicted".into(), p.predicted.into());
            if let Some(reason) = p.reason {
                m.insert("reason".into(), reason.into());
            }
            if p.not_costed > 0 {
                m.insert("not_costed".into(), p.not_costed.into());
            }
            if let Some((low, high)) = p.range {
                m.insert("range".into(), serde_json::json!([low, high]));
            }
            serde_json::Value::Object(m)
        })
        .collect()
}

impl Comparison {
    /// The comparison as `smem kernel --json` gives it in `ncu_comparison`
    /// (and Python's `KernelRun.ncu`): `launch_id`, `launch_kernel`,
    /// `counters` (`{metric, total, relation, predicted, range, measured,
    /// holds}`, `range` `[least, most]` or null),
    /// `units` (`{unit, unit_conflicts, layout, arbitration, unexplained,
    /// unit_wavefronts, instruction_wavefronts}`), `source_by_kind` and
    /// `source_lines` (`measured` and `predicted` as `{wavefronts, ideal,
    /// excessive}`).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let figures = |w: u64, i: u64, e: u64| json!({"wavefronts": w, "ideal": i, "excessive": e});
        json!({
            "launch_id": self.launch.as_ref().map(|(id, _)| *id),
            "launch_kernel": self.launch.as_ref().map(|(_, name)| name.clone()),
            "counters": self.counters.iter().map(|r| json!({
                "metric": r.prediction.counter,
                "total": r.prediction.quantity.total(),
                "relation": r.prediction.relation.name(),
                "predicted": r.prediction.predicted,
                "range": r.prediction.range.map(|(low, high)| [low, high]),
                "measured": r.measured,
                "holds": r.holds(),
            })).collect::<Vec<_>>(),
            "units": self.units.iter().map(|u| json!({
                "unit": format!("op_{}", u.unit.name()),
                "unit_conflicts": u.unit_conflicts,
                "layout": u.layout,
                "arbitration": u.arbitration,
                "unexplained": u.unexplained,
                "unit_wavefronts": u.unit_wavefronts,
                "instruction_wavefronts": u.instruction_wavefronts,
            })).collect::<Vec<_>>(),
            "source_by_kind": self.families.iter().map(|f| json!({
                "kind": f.family.sass(),
                "measured": figures(f.measured.wavefronts, f.measured.ideal, f.measured.excessive),
                "predicted": figures(f.wavefronts, f.ideal, f.wavefronts - f.ideal.min(f.wavefronts)),
            })).collect::<Vec<_>>(),
            "source_lines": self.lines.iter().map(|l| json!({
                "source_line": format!("{}:{}", l.file, l.line),
                "measured": figures(l.measured.wavefronts, l.measured.ideal, l.measured.excessive),
                "predicted": figures(l.wavefronts, l.ideal, l.conflicts),
            })).collect::<Vec<_>>(),
            "absent": self.absent,
        })
    }
}
