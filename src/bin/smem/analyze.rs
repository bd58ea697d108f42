//! `smem analyze`: one warp request from the command line, partitioned and
//! drawn.
//!
//! The addresses are an expression in `lane` (see `expr.rs` for the grammar)
//! or a list of 32 byte addresses. The output is the request, the totals
//! Nsight Compute would report, and the bank diagram (`diagram.rs`): as text
//! (coloured on a terminal), as JSON (`--json`), and as an SVG picture
//! (`--svg FILE`, `svg.rs`).

mod constant;
pub(crate) mod diagram;
mod expr;
mod svg;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use serde::Serialize;
use smem_model::{
    AccessWidth, BankConfig, Classification, ComputeCapability, LaneSet, Matrices, Op, Partition,
    SharedMemConfig, WarpRequest, WordAccess, WARP_SIZE,
};

use crate::output::{emit, fail, styled, BAD, GOOD, HEADING, NOTE};

/// Arguments of `smem analyze`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  smem analyze 'lane*33*4'                      column of a padded float[32][33] tile: 1 wavefront
  smem analyze 'lane*32*4'                      column of float[32][32]: 32 wavefronts
  smem analyze --width 16 '(lane%8)*16'         float4 reads of 8 distinct addresses
  smem analyze 'lane<16 ? lane*8 : -'           only the lower half-warp is active
  smem analyze --op ldsm.x4 '(lane%8)*128 + (lane/8)*16'
  smem analyze --arch sm_35 --bank-mode 8 '4*((3*lane)%32)'
  smem analyze --svg column.svg 'lane*32*4'      also draw the diagram as an SVG picture

Expressions use C's operators and precedence: + - * / % << >> & ^ | == != < <= > >= && || ?: and
parentheses, on 64-bit integers (decimal or 0x hexadecimal). A `-` with no operand after it marks
the lane inactive. A list holds 32 entries separated by commas or spaces, each a byte address or
`-` (or -1) for an inactive lane.")]
pub struct Args {
    /// Compute capability: sm_90, 9.0, sm_86, compute_75, ...
    #[arg(long, value_name = "CC", default_value = "sm_90")]
    arch: ComputeCapability,

    /// The instruction: ld (LDS), st (STS), atom (ATOMS, 32-bit), ldsm.x1, ldsm.x2, ldsm.x4
    /// (ldmatrix: lanes 8m..8m+7 give the 16-byte rows of matrix m), stsm.x1, stsm.x2,
    /// stsm.x4 (stmatrix), ldc (a constant-memory load: one serialised request per
    /// distinct address). SASS names (lds, sts, atoms) are accepted too.
    #[arg(
        long,
        value_enum,
        value_name = "OP",
        default_value = "ld",
        hide_possible_values = true
    )]
    op: OpName,

    /// Bytes each lane accesses: 1, 2, 4, 8 or 16. Default 4 for ld and st; atom is
    /// always 4 and ldsm/stsm 16 (one matrix row).
    #[arg(long, value_name = "BYTES")]
    width: Option<u32>,

    /// Kepler's bank mode (cudaDeviceSetSharedMemConfig): 4 or 8 bytes. Only 3.x has
    /// it; elsewhere it changes nothing.
    #[arg(long, value_name = "BYTES", value_parser = ["4", "8"])]
    bank_mode: Option<String>,

    /// Print the request and its partition as JSON instead of text.
    #[arg(long)]
    json: bool,

    /// Also write the bank diagram as an SVG picture to FILE.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,

    /// The shared-memory byte addresses: an expression in `lane` such as
    /// `lane*33*4`, or a list of 32 addresses.
    #[arg(value_name = "ADDRESSES", required = true, num_args = 1..)]
    addresses: Vec<String>,
}

/// The spellings of `--op`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OpName {
    #[value(name = "ld", alias = "lds", alias = "load")]
    Ld,
    #[value(name = "st", alias = "sts", alias = "store")]
    St,
    #[value(name = "atom", alias = "atoms", alias = "atomic")]
    Atom,
    #[value(name = "ldsm.x1", alias = "ldmatrix.x1")]
    LdsmX1,
    #[value(name = "ldsm.x2", alias = "ldmatrix.x2")]
    LdsmX2,
    #[value(name = "ldsm.x4", alias = "ldmatrix.x4")]
    LdsmX4,
    #[value(name = "stsm.x1", alias = "stmatrix.x1")]
    StsmX1,
    #[value(name = "stsm.x2", alias = "stmatrix.x2")]
    StsmX2,
    #[value(name = "stsm.x4", alias = "stmatrix.x4")]
    StsmX4,
    /// A constant-memory load (`LDC`, `ld.const`): not shared memory.
    #[value(name = "ldc", alias = "ld.const")]
    Ldc,
}

impl OpName {
    fn op(self) -> Op {
        match self {
            OpName::Ld => Op::Load,
            OpName::St => Op::Store,
            OpName::Atom => Op::ATOMIC_ADD,
            OpName::LdsmX1 => Op::LdMatrix(Matrices::X1),
            OpName::LdsmX2 => Op::LdMatrix(Matrices::X2),
            OpName::LdsmX4 => Op::LdMatrix(Matrices::X4),
            OpName::StsmX1 => Op::StMatrix(Matrices::X1),
            OpName::StsmX2 => Op::StMatrix(Matrices::X2),
            OpName::StsmX4 => Op::StMatrix(Matrices::X4),
            // Read through `constant::describe`, not partitioned.
            OpName::Ldc => Op::Load,
        }
    }
}

/// What `--json` prints: the request as given and the partition.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The capability, as `sm_XY`.
    arch: String,
    /// The instruction, as SASS names it (`LDS`, `LDSM.x4`, ...).
    op: String,
    /// Bytes per lane.
    width: u32,
    /// Banks and their width in bytes, in the bank mode used.
    banks: u32,
    bank_width: u32,
    /// Each lane's address, `null` when inactive.
    addresses: Vec<Option<u32>>,
    /// The totals Nsight Compute reports, and the verdict.
    wavefronts: u32,
    ideal_wavefronts: u32,
    bank_conflicts: u32,
    ways: u32,
    classification: Classification,
    verdict: String,
    /// The transactions in the order served.
    transactions: Vec<TransactionReport>,
    /// Lanes of a store writing the same address (one write lands).
    write_collisions: Vec<CollisionReport>,
}

/// One wavefront in `--json`.
#[derive(Debug, Serialize)]
struct TransactionReport {
    lanes: LaneSet,
    phase: u32,
    part: u32,
    words: Vec<WordAccess>,
    broadcast_words: Vec<WordAccess>,
}

/// One write collision in `--json`.
#[derive(Debug, Serialize)]
struct CollisionReport {
    address: u32,
    lanes: LaneSet,
}

/// Runs `smem analyze`: status 0 when the request could be partitioned (and the
/// SVG written), 1 otherwise, with the reason on stderr.
pub fn run(args: &Args) -> ExitCode {
    match analyze(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn analyze(args: &Args) -> Result<(), ExitCode> {
    let op = args.op.op();
    let width = args
        .width
        .or(op.fixed_width().map(|w| w.bytes()))
        .unwrap_or(4);
    let mut config = BankConfig::new(args.arch);
    match args.bank_mode.as_deref() {
        Some("8") => config = config.with_shared_mem_config(SharedMemConfig::EightByte),
        Some(_) => config = config.with_shared_mem_config(SharedMemConfig::FourByte),
        None => {}
    }
    let source = args.addresses.join(" ");
    let addresses = addresses(&args.addresses).map_err(fail)?;
    if args.op == OpName::Ldc {
        return emit(&constant::describe(args.arch, width, &addresses, args.json).map_err(fail)?);
    }
    let request = WarpRequest::from_slice(op, width, &addresses).map_err(fail)?;
    let partition = config.partition(&request).map_err(fail)?;
    let grid = diagram::grid(&partition);

    if let Some(path) = &args.svg {
        // A list of 32 addresses is too long for a title line.
        let shown = if source.chars().count() > 60 {
            format!("{}...", source.chars().take(57).collect::<String>())
        } else {
            source.clone()
        };
        let title = format!(
            "{} on {}: {shown}",
            instruction(&request),
            args.arch.sm_name()
        );
        let picture = svg::render(&grid, &title, &totals_line(&partition));
        std::fs::write(path, picture)
            .map_err(|err| fail(format_args!("cannot write {}: {err}", path.display())))?;
    }
    let text = if args.json {
        let mut json = serde_json::to_string_pretty(&report(&partition)).map_err(fail)?;
        json.push('\n');
        json
    } else {
        describe(&partition, &source, &grid)
    };
    emit(&text)
}

/// The 32 addresses: the arguments read as an expression in `lane` when they
/// name it or are a single item, as a list otherwise.
fn addresses(args: &[String]) -> Result<Vec<Option<u32>>, String> {
    let joined = args.join(" ");
    let items: Vec<&str> = joined
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect();
    let is_list = !joined.contains("lane") && (joined.contains(',') || items.len() > 1);
    if is_list {
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| list_entry(i, item))
            .collect();
    }
    let expr = expr::parse(&joined)
        .map_err(|err| format!("invalid address expression: {err}\n{}", err.show(&joined)))?;
    (0..WARP_SIZE as u32)
        .map(|lane| {
            let value = expr.eval(lane).map_err(|err| {
                format!("cannot evaluate the address expression: {err}\n{}", err.show(&joined))
            })?;
            value
                .map(|v| {
                    u32::try_from(v).map_err(|_| {
                        format!(
                            "lane {lane} has address {v}: expected 0 to {} (a 32-bit shared address)",
                            u32::MAX
                        )
                    })
                })
                .transpose()
        })
        .collect()
}

/// One entry of an address list: a byte address, or `-`/`-1` for an inactive lane.
fn list_entry(index: usize, item: &str) -> Result<Option<u32>, String> {
    if item == "-" || item == "-1" {
        return Ok(None);
    }
    let parsed = match item.strip_prefix("0x").or_else(|| item.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => item.parse(),
    };
    parsed.map(Some).map_err(|_| {
        format!(
            "entry {index} of the address list is `{item}`: expected a byte address from 0 to {} or `-` for an inactive lane",
            u32::MAX
        )
    })
}

/// `LDS.32`, `STS.128`, `ATOMS`, `LDSM.x4`: the op with its width where it varies.
pub(crate) fn instruction(request: &WarpRequest) -> String {
    op_name(request.op(), request.width())
}

/// [`instruction`]'s name for an op and width.
pub(crate) fn op_name(op: Op, width: AccessWidth) -> String {
    match op {
        Op::Load | Op::Store => format!("{op}.{}", 8 * width.bytes()),
        op => op.to_string(),
    }
}

/// `32 wavefronts (ideal 1, 31 bank conflicts): serial (32-way)`.
fn totals_line(partition: &Partition) -> String {
    format!(
        "{} (ideal {}, {}): {}",
        crate::output::plural(u64::from(partition.wavefronts()), "wavefront"),
        partition.ideal_wavefronts(),
        crate::output::plural(u64::from(partition.bank_conflicts()), "bank conflict"),
        partition.classification()
    )
}

/// The text output: the request, the totals and the diagram.
fn describe(partition: &Partition, source: &str, grid: &diagram::Grid) -> String {
    let config = partition.config();
    let request = partition.request();
    let cc = config.capability();
    let mut out = String::new();
    _ = writeln!(
        out,
        "{} on compute capability {cc} ({}, {}): {} banks x {} bytes",
        styled(HEADING, instruction(request)),
        cc.sm_name(),
        cc.architecture(),
        config.bank_count(),
        config.bank_width().bytes()
    );
    _ = writeln!(out, "addresses: {source}");
    let cells: Vec<String> = smem_model::Lane::all()
        .map(|lane| match request.address(lane) {
            Some(address) => format!("{address:#x}"),
            None => "-".to_owned(),
        })
        .collect();
    let width = cells.iter().map(String::len).max().unwrap_or(1);
    for (row, chunk) in cells.chunks(8).enumerate() {
        let line: Vec<String> = chunk.iter().map(|c| format!("{c:>width$}")).collect();
        _ = writeln!(
            out,
            "  lanes {:>2}-{:<2}  {}",
            8 * row,
            8 * row + 7,
            line.join(" ")
        );
    }
    out.push('\n');
    let conflicts = partition.bank_conflicts();
    let figure = if conflicts > 0 {
        styled(BAD, conflicts)
    } else {
        styled(GOOD, conflicts)
    };
    _ = writeln!(
        out,
        "wavefronts: {}   ideal: {}   bank conflicts: {figure}   {}",
        partition.wavefronts(),
        partition.ideal_wavefronts(),
        partition.classification()
    );
    if let Some(fraction) = partition.bandwidth_fraction() {
        _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                format!("bandwidth: {:.1}% of the peak", 100.0 * fraction)
            )
        );
    }
    for collision in request.write_collisions() {
        _ = writeln!(
            out,
            "write collision: lanes {} store to {:#x}; one write lands, which one is undefined",
            collision.lanes(),
            collision.address()
        );
    }
    if !grid.rows.is_empty() {
        _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                "bank diagram: banks across, wavefronts down; each cell is the lane the bank serves"
            )
        );
        out.push_str(&diagram::text(grid));
    }
    out
}

/// The `--json` report.
fn report(partition: &Partition) -> Report {
    let config = partition.config();
    let request = partition.request();
    Report {
        arch: config.capability().sm_name().to_owned(),
        op: request.op().to_string(),
        width: request.width().bytes(),
        banks: config.bank_count(),
        bank_width: config.bank_width().bytes(),
        addresses: request.to_array().to_vec(),
        wavefronts: partition.wavefronts(),
        ideal_wavefronts: partition.ideal_wavefronts(),
        bank_conflicts: partition.bank_conflicts(),
        ways: partition.ways(),
        classification: partition.classification(),
        verdict: partition.classification().to_string(),
        transactions: partition
            .transactions()
            .map(|t| TransactionReport {
                lanes: t.lanes(),
                phase: t.phase(),
                part: t.part(),
                words: t.words().to_vec(),
                broadcast_words: t.broadcast_words().collect(),
            })
            .collect(),
        write_collisions: request
            .write_collisions()
            .iter()
            .map(|c| CollisionReport {
                address: c.address(),
                lanes: c.lanes(),
            })
            .collect(),
    }
}
