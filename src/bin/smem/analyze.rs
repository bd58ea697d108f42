//! `smem analyze`: warp requests from the command line, partitioned and drawn.
//!
//! The addresses are a C expression in `lane` (see `expr.rs` for the grammar),
//! a list of 32 byte addresses, or `-` for either read from stdin. The output
//! is the request, the totals Nsight Compute would report, and the bank
//! diagram (`diagram.rs`): as text (coloured on a terminal), as JSON
//! (`--json`), and as an SVG picture (`--svg FILE`, `svg.rs`). Several
//! `--arch` values or several address arguments are compared side by side
//! (`compare.rs`).

mod compare;
mod constant;
pub(crate) mod diagram;
pub(crate) mod expr;
mod svg;

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;
use smem_model::{
    AccessWidth, BankConfig, Classification, ComputeCapability, Op, Partition, SharedMemConfig,
    TileLayout, WarpRequest, WARP_SIZE,
};

use crate::layout::NamedLayout;
use crate::output::{emit, fail, styled, BAD, GOOD, HEADING, NOTE, WARN};

/// Arguments of `smem analyze`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  smem analyze 'lane*33*4'                      column of a padded float[32][33] tile: 1 wavefront
  smem analyze 'lane*32*4'                      column of float[32][32]: 32 wavefronts
  smem analyze 'lane*32*4' 'lane*33*4'          both side by side
  smem analyze --arch sm_90 --arch sm_35 'lane*8'   one access on two GPUs
  smem analyze -D k=3 -D base=0x400 'base + (lane*k)*sizeof(float)'
  smem analyze --width 16 '(lane%8)*16'         float4 reads of 8 distinct addresses
  smem analyze 'lane<16 ? lane*8 : -'           only the lower half-warp is active
  smem analyze --op ldsm.x4 '(lane%8)*128 + (lane/8)*16'
  smem analyze --arch sm_35 --bank-mode 8 '4*((3*lane)%32)'
  smem analyze --block 16x16 --warp 1 '(threadIdx.y*17 + threadIdx.x)*4'   a 16x16 tile, padded
  smem analyze --svg column.svg 'lane*32*4'     also draw the diagram as an SVG picture
  smem analyze --tile 32x32 --layout 'Swizzle<5,0,5>' 'lane*32*4'   a column under CuTe's swizzle
  smem analyze --tile 64x64 --element half --layout triton:8,1,8 --op ldsm.x4 \
      '((lane%16)*64 + (lane/16)*8)*2'           ldmatrix on Triton's layout
  print_addresses | smem analyze -              the addresses from stdin

An expression is C's: + - * / % << >> & ^ | == != < <= > >= && || ! ~ ?: and parentheses, with
C's precedence, on 64-bit integers; literals 42, 0x2a, 052, 0b101010 with any u/l suffix;
the names lane (0 to 31), warpSize, sizeof(TYPE), the constants given with --define, and with
--block threadIdx.x/y/z (of the lane's thread in warp --warp) and blockDim.x/y/z. A `-`
with no operand after it marks the lane inactive. A constant expression ('0x100 + 4') gives every
lane the same address. A list holds 32 entries separated by commas (each entry an expression) or
spaces (each a number), `-` for an inactive lane.

With --layout (and --tile), the addresses are byte offsets in the packed row-major tile, the
element (row, col) at element_size * (row * COLS + col), as the kernel computes them without
the layout; each lane's element is moved to where the layout stores it, whose index formula is
printed, and the request analysed is that one.")]
pub struct Args {
    /// Compute capability: sm_90, 9.0, 90, H100, RTX 4090, hopper, ... (`smem archs` lists
    /// them). Repeat to compare GPUs side by side.
    #[arg(
        long,
        value_name = "CC",
        default_value = "sm_90",
        value_parser = crate::arch::parse,
        action = clap::ArgAction::Append
    )]
    arch: Vec<ComputeCapability>,

    /// The instruction: ld (LDS), st (STS), atom.KIND and red.KIND (KIND: add, add.f32,
    /// add.f64, exch, cas, min, max, inc, dec, and, or, xor; `atom` alone is add),
    /// cp.async.ca, cp.async.cg (LDGSTS, shared side), ldsm.x1, ldsm.x2, ldsm.x4
    /// (ldmatrix: lanes 8m..8m+7 give the 16-byte rows of matrix m), stsm.x1, stsm.x2,
    /// stsm.x4 (stmatrix; `.trans` after the count for the transposed forms), ldc (a
    /// constant-memory load: one serialised request per distinct address). SASS and PTX
    /// spellings are accepted too, their size giving the width: LDS.U.128, STS.64,
    /// ATOMS.CAS.64, LDSM.16.MT88.4, LDGSTS.E.BYPASS.128, ld.shared.v4.f32,
    /// atom.shared.add.u64, ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16.
    #[arg(long, value_name = "OP", default_value = "ld", value_parser = op_name_arg)]
    op: OpName,

    /// Bytes each lane accesses: 1, 2, 4, 8 or 16. Default 4, or the width the op's name
    /// gives (LDS.128: 16), or the op's only width (16 for ldsm/stsm, one matrix row, and
    /// cp.async.cg); atomics take 4 or 8. A width the op's name contradicts is an error.
    #[arg(long, value_name = "BYTES")]
    width: Option<u32>,

    /// Kepler's bank mode (cudaDeviceSetSharedMemConfig): 4 or 8 bytes. Only 3.x has
    /// it; elsewhere it changes nothing.
    #[arg(long, value_name = "BYTES", value_parser = ["4", "8"])]
    bank_mode: Option<String>,

    /// Print the request and its partition as JSON instead of text.
    #[arg(long)]
    json: bool,

    /// Also write the bank diagram as an SVG picture to FILE (`-`: to stdout, instead
    /// of the text).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,

    /// The block's shape, X, XxY or XxYxZ threads: the expressions may then use
    /// `threadIdx.x/y/z` (of the lane's thread, in warp --warp) and `blockDim.x/y/z`.
    #[arg(long, value_name = "XxYxZ", value_parser = parse_block)]
    block: Option<[u32; 3]>,

    /// The warp of the block whose lanes are analysed (with --block).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "block")]
    warp: u32,

    /// A constant for the expressions: NAME=VALUE, VALUE a constant expression
    /// (it may use constants defined before it). Repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    define: Vec<String>,

    /// Store the tile (--tile) under a layout named as Triton or CuTe names it, the
    /// addresses given being offsets in the packed tile (`smem advise --layout` takes the
    /// same): `pad:N`, `swizzle:B,M,S` or `Swizzle<B,M,S>` (CuTe, on element offsets),
    /// `tma:32|64|128`, `triton:VEC,PERPHASE,MAXPHASE` (#ttg.swizzled_shared),
    /// `nvmma:0|32|64|128` (#ttg.nvmma_shared swizzle bytes; rows wider than the swizzle
    /// are stored as column tiles of its width, as Triton does).
    #[arg(long, value_name = "LAYOUT", value_parser = crate::layout::parse_layout, requires = "tile")]
    layout: Option<NamedLayout>,

    /// The tile --layout stores: ROWSxCOLS elements, e.g. 64x64.
    #[arg(long, value_name = "ROWSxCOLS", value_parser = crate::layout::parse_tile, requires = "layout")]
    tile: Option<(u32, u32)>,

    /// Bytes per element of the --tile, or a C/CUDA type: 4, float, double, half, float4, ...
    #[arg(
        long,
        value_name = "BYTES|TYPE",
        default_value = "4",
        value_parser = crate::layout::parse_element,
        requires = "layout"
    )]
    element: u32,

    /// The shared-memory byte addresses: an expression in `lane` such as `lane*33*4`,
    /// or a list of 32 addresses; `-` reads them from stdin. Several are compared side
    /// by side.
    #[arg(value_name = "ADDRESSES", required = true, num_args = 1..)]
    addresses: Vec<String>,
}

/// What `--op` names: a shared-memory op, or a constant-memory load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpName {
    /// Any op the model has, read by the library's parser with the width
    /// its name gives (`ld`, `atom.cas`, `red.add.f32`, `cp.async.cg`,
    /// `ldsm.x4`, `LDS.U.128`, `ld.shared.v4.f32`, ...).
    Shared(smem_model::OpName),
    /// A constant-memory load (`LDC`, `ld.const`): not shared memory.
    Ldc,
}

impl OpName {
    fn op(self) -> Op {
        match self {
            OpName::Shared(name) => name.op(),
            // Read through `constant::describe`, not partitioned.
            OpName::Ldc => Op::Load,
        }
    }
}

/// `--op`'s parser: `ldc`, or an op as the library's `OpName` reads it.
fn op_name_arg(text: &str) -> Result<OpName, String> {
    if ["ldc", "ld.const"]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(text))
    {
        return Ok(OpName::Ldc);
    }
    text.parse::<smem_model::OpName>()
        .map(OpName::Shared)
        .map_err(|err| err.to_string())
}

/// The `schema` of `smem analyze --json` for one request.
pub const SCHEMA: &str = "smem-analyze/1";

/// What `--json` prints for one request: the request as given and the
/// partition. Several requests print `{"schema": "smem-analyze-compare/1",
/// "cases": [...]}` with one of these per case (`compare.rs`).
#[derive(Debug, Serialize)]
pub struct Report {
    /// The capability, as `sm_XY`.
    arch: String,
    /// The addresses as given: the expression or the list.
    source: String,
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
    classification: ClassificationJson,
    verdict: String,
    /// The bytes the active lanes access, counted once each.
    distinct_bytes: u32,
    /// `Partition::bandwidth_fraction`: `distinct_bytes` over what the
    /// wavefronts could carry (`BankConfig::wavefront_bytes` each: 64-bit
    /// banks on 3.x in both modes), the share of the banks' bandwidth doing
    /// useful work; 0 for no wavefront.
    bank_bandwidth_used: f64,
    /// The transactions in the order served.
    transactions: Vec<TransactionReport>,
    /// Lanes of a store writing the same address (one write lands).
    write_collisions: Vec<CollisionReport>,
    /// A compare-and-swap loop's LDS wavefronts (0 for other ops).
    load_wavefronts: u32,
    /// Instructions executed: 1, or a compare-and-swap loop's rounds.
    instructions: u32,
    /// Whether Nsight's counters see the wavefronts (false for cp.async.cg).
    visible_to_nsight: bool,
    /// Cycles, on sm_90 (where measured); `null` elsewhere.
    cycles: Option<CyclesReport>,
    /// With `--layout`: the addresses as given, offsets in the packed tile,
    /// which the layout moved to `addresses`; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    tile_offsets: Option<Vec<Option<u32>>>,
}

/// `--layout` in `--json` (absent without it): the tile and where it puts
/// each element.
#[derive(Debug, Clone, Serialize)]
pub struct LayoutReport {
    /// The layout in its owner's spelling: `Swizzle<3,3,3>`,
    /// `#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8}>`, ...
    name: String,
    rows: u32,
    cols: u32,
    element_bytes: u32,
    /// The element index of (row, col) as C; the byte offset is
    /// `element_bytes` times it.
    index: String,
}

impl LayoutReport {
    fn new(named: NamedLayout, tile: &TileLayout) -> LayoutReport {
        LayoutReport {
            name: named.to_string(),
            rows: tile.rows(),
            cols: tile.cols(),
            element_bytes: tile.element_bytes(),
            index: tile.index_formula(),
        }
    }

    /// The text output's lines.
    fn text(&self) -> String {
        format!(
            "layout: {} on the {}x{} tile of {}-byte elements: (row, col) at {} * ({})\n{}\n",
            self.name,
            self.rows,
            self.cols,
            self.element_bytes,
            self.element_bytes,
            self.index,
            styled(
                NOTE,
                format!(
                    "  the addresses given are offsets in the packed tile, {} * (row * {} + col); \
                     the request is where the layout stores those elements",
                    self.element_bytes, self.cols
                )
            )
        )
    }
}

/// The timing model's figures in `--json`.
#[derive(Debug, Serialize)]
pub struct CyclesReport {
    pipe: u32,
    latency: Option<f64>,
    latency_16_warps: Option<f64>,
}

/// `{"kind": "conflicted", "ways": 2}`: the same shape for every verdict.
#[derive(Debug, Serialize)]
pub struct ClassificationJson {
    /// `empty`, `broadcast`, `parallel`, `conflicted` or `serial`.
    kind: &'static str,
    /// Steps of the busiest phase (0 when empty, 1 when parallel or broadcast).
    ways: u32,
}

impl ClassificationJson {
    /// The JSON form of `classification`, whose partition has `ways` ways.
    pub fn new(classification: Classification, ways: u32) -> ClassificationJson {
        let kind = match classification {
            Classification::Empty => "empty",
            Classification::Broadcast => "broadcast",
            Classification::Parallel => "parallel",
            Classification::Conflicted { .. } => "conflicted",
            Classification::Serial { .. } => "serial",
        };
        ClassificationJson { kind, ways }
    }
}

/// One wavefront in `--json`.
#[derive(Debug, Serialize)]
struct TransactionReport {
    lanes: Vec<u32>,
    phase: u32,
    part: u32,
    words: Vec<WordReport>,
    broadcast_words: Vec<WordReport>,
}

/// One word of a wavefront in `--json`.
#[derive(Debug, Serialize)]
struct WordReport {
    word: u32,
    bank: u32,
    lanes: Vec<u32>,
}

/// One write collision in `--json`.
#[derive(Debug, Serialize)]
struct CollisionReport {
    address: u32,
    lanes: Vec<u32>,
}

/// One request to analyse: the capability and the addresses.
pub struct Case {
    /// The capability.
    pub arch: ComputeCapability,
    /// The addresses as given.
    pub source: String,
    /// Each lane's address.
    pub addresses: Vec<Option<u32>>,
    /// With `--layout`: the addresses as given, before the layout moved them.
    pub tile_offsets: Option<Vec<Option<u32>>>,
}

/// Runs `smem analyze`: status 0 when every request could be partitioned (and
/// the SVG written), 1 otherwise, with the reason on stderr.
pub fn run(args: &Args) -> ExitCode {
    match analyze(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// `--block`'s parser: `256`, `16x16`, `8x8x4`, at most 1024 threads.
fn parse_block(text: &str) -> Result<[u32; 3], String> {
    let mut dims = [1u32; 3];
    let parts: Vec<&str> = text.split(['x', 'X', '*']).collect();
    if parts.len() > 3 {
        return Err(format!(
            "`{text}` is not a block shape: expected X, XxY or XxYxZ"
        ));
    }
    for (dim, part) in dims.iter_mut().zip(&parts) {
        *dim = part
            .trim()
            .parse()
            .map_err(|_| format!("`{part}` in `{text}` is not a number of threads"))?;
    }
    let threads = dims.iter().map(|&d| u64::from(d)).product::<u64>();
    if threads == 0 || threads > 1024 {
        return Err(format!(
            "a block of {threads} threads: a block has 1 to 1024 (Programming Guide, \
             \"Maximum number of threads per block\")"
        ));
    }
    Ok(dims)
}

/// The most requests one run compares.
const MAX_CASES: usize = 64;

/// The most bytes read from stdin: far more than 32 addresses need.
const MAX_STDIN: u64 = 1 << 20;

fn analyze(args: &Args) -> Result<(), ExitCode> {
    let mut constants = expr::Constants::new();
    if let Some(dims) = args.block {
        let warps = (dims[0] * dims[1] * dims[2]).div_ceil(32);
        if args.warp >= warps {
            return Err(fail(format_args!(
                "warp {} does not exist: a block of {}x{}x{} threads has warps 0 to {}",
                args.warp,
                dims[0],
                dims[1],
                dims[2],
                warps - 1
            )));
        }
        constants.set_block(dims, args.warp);
    }
    for definition in &args.define {
        constants.define(definition).map_err(|err| {
            fail(format_args!(
                "invalid --define: {err}\n{}",
                err.show(definition)
            ))
        })?;
    }
    let tile = match (args.layout, args.tile) {
        (Some(named), Some((rows, cols))) => {
            if args.op == OpName::Ldc {
                return Err(fail(
                    "--layout places a tile in shared memory; --op ldc reads constant memory",
                ));
            }
            let tile = TileLayout::new(rows, cols, args.element)
                .and_then(|packed| named.apply(packed))
                .map_err(fail)?;
            Some((LayoutReport::new(named, &tile), tile))
        }
        _ => None,
    };
    let width = request_width(args)?;
    let sets = address_sets(&args.addresses)
        .map_err(fail)?
        .into_iter()
        .map(|source| {
            let given = addresses(&source, &constants)?;
            Ok(match &tile {
                Some((_, layout)) => (source, through_layout(layout, width, &given)?, Some(given)),
                None => (source, given, None),
            })
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(fail)?;
    let mut cases = Vec::new();
    for &arch in &args.arch {
        for (source, addresses, tile_offsets) in &sets {
            cases.push(Case {
                arch,
                source: source.clone(),
                addresses: addresses.clone(),
                tile_offsets: tile_offsets.clone(),
            });
        }
    }
    let layout = tile.map(|(report, _)| report);
    if cases.len() > MAX_CASES {
        return Err(fail(format_args!(
            "{} requests to compare ({} --arch x {} address sets): at most {MAX_CASES}",
            cases.len(),
            args.arch.len(),
            sets.len()
        )));
    }
    let to_stdout = args.svg.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if cases.len() > 1 {
        if args.op == OpName::Ldc {
            return Err(fail(
                "--op ldc analyses one request: give one --arch and one set of addresses",
            ));
        }
        if args.svg.is_some() {
            return Err(fail(
                "--svg draws one request: give one --arch and one set of addresses",
            ));
        }
        let partitions = cases
            .iter()
            .map(|case| partition(args, case))
            .collect::<Result<Vec<_>, _>>()?;
        return emit(&if args.json {
            compare::json(&cases, &partitions, layout).map_err(fail)?
        } else {
            let table = compare::text(&cases, &partitions);
            match (layout, table.split_once('\n')) {
                // Under the heading, as for one request.
                (Some(layout), Some((heading, rest))) => {
                    format!("{heading}\n{}{rest}", layout.text())
                }
                _ => table,
            }
        });
    }
    if to_stdout && args.json {
        return Err(fail("--svg - and --json both write to stdout: choose one"));
    }
    let case = &cases[0];
    if args.op == OpName::Ldc {
        let width = args.width.unwrap_or(4);
        return emit(
            &constant::describe(case.arch, width, &case.addresses, args.json).map_err(fail)?,
        );
    }
    let partition = partition(args, case)?;
    let grid = diagram::grid(&partition);
    if let Some(path) = &args.svg {
        // A list of 32 addresses is too long for a title line.
        let shown = if case.source.chars().count() > 60 {
            format!("{}...", case.source.chars().take(57).collect::<String>())
        } else {
            case.source.clone()
        };
        let title = format!(
            "{} on {}: {shown}",
            instruction(partition.request()),
            case.arch.sm_name()
        );
        let picture = svg::render(&grid, &title, &totals_line(&partition));
        if to_stdout {
            return emit(&picture);
        }
        std::fs::write(path, picture)
            .map_err(|err| fail(format_args!("cannot write {}: {err}", path.display())))?;
    }
    let text = if args.json {
        #[derive(Serialize)]
        struct Single {
            schema: &'static str,
            #[serde(skip_serializing_if = "Option::is_none")]
            layout: Option<LayoutReport>,
            #[serde(flatten)]
            report: Report,
        }
        let single = Single {
            schema: SCHEMA,
            layout,
            report: report(&partition, case),
        };
        let mut json = serde_json::to_string_pretty(&single).map_err(fail)?;
        json.push('\n');
        json
    } else {
        describe(&partition, &case.source, layout.as_ref(), &grid)
    };
    emit(&text)
}

/// The width `--width` gives, checked against the op's name (`LDS.128`
/// given `--width 4` is an error), else the name's, else 4.
fn request_width(args: &Args) -> Result<u32, ExitCode> {
    Ok(match args.op {
        OpName::Shared(name) => name.width_or(args.width, 4).map_err(fail)?.bytes(),
        OpName::Ldc => args.width.unwrap_or(4),
    })
}

/// Each lane's access of `width` bytes at `given`, an offset in the packed
/// row-major tile, moved to where `layout` stores it: the element's place
/// plus the offset within it. A lane whose bytes the layout does not keep
/// together (a vector the swizzle splits) or that lies outside the tile is
/// an error naming the lane.
fn through_layout(
    layout: &TileLayout,
    width: u32,
    given: &[Option<u32>],
) -> Result<Vec<Option<u32>>, String> {
    let element = layout.element_bytes();
    let elements = layout.rows() * layout.cols();
    // The packed tile's element `index` is (index / cols, index % cols).
    let place = |index: u32| {
        layout
            .offset(index / layout.cols(), index % layout.cols())
            .ok()
    };
    let packed_bytes = u64::from(elements) * u64::from(element);
    given
        .iter()
        .enumerate()
        .map(|(lane, address)| {
            let Some(address) = *address else {
                return Ok(None);
            };
            if u64::from(address) + u64::from(width) > packed_bytes {
                return Err(format!(
                    "lane {lane}: bytes {address} to {} are outside the {}x{} tile of {} bytes \
                     (with --layout the addresses are offsets in the packed tile)",
                    u64::from(address) + u64::from(width) - 1,
                    layout.rows(),
                    layout.cols(),
                    packed_bytes
                ));
            }
            let (first, within) = (address / element, address % element);
            let start = place(first).unwrap_or(0);
            // Every element the access touches must follow the first in the
            // layout too, or the lane's bytes are not one access any more.
            let touched = (within + width).div_ceil(element);
            for k in 1..touched {
                if place(first + k) != Some(start + k * element) {
                    let (row, col) = (first / layout.cols(), first % layout.cols());
                    return Err(format!(
                        "lane {lane}: its {width}-byte access at offset {address} covers elements \
                         ({row}, {col}) to ({}, {}), which the layout does not keep together",
                        (first + touched - 1) / layout.cols(),
                        (first + touched - 1) % layout.cols(),
                    ));
                }
            }
            Ok(Some(start + within))
        })
        .collect()
}

/// The partition of one case, or the failure status with the reason on stderr.
fn partition(args: &Args, case: &Case) -> Result<Partition, ExitCode> {
    let op = args.op.op();
    let width = request_width(args)?;
    let mut config = BankConfig::new(case.arch);
    match args.bank_mode.as_deref() {
        Some("8") => config = config.with_shared_mem_config(SharedMemConfig::EightByte),
        Some(_) => config = config.with_shared_mem_config(SharedMemConfig::FourByte),
        None => {}
    }
    let request = WarpRequest::from_slice(op, width, &case.addresses).map_err(fail)?;
    config.partition(&request).map_err(fail)
}

/// The address sets the arguments give, each as text: stdin's for `-`; one
/// list for 32 arguments that are each a plain number or `-` (a list typed
/// without quotes); otherwise one set per argument.
fn address_sets(args: &[String]) -> Result<Vec<String>, String> {
    if args.len() == 1 && args[0] == "-" {
        let mut text = String::new();
        std::io::stdin()
            .take(MAX_STDIN + 1)
            .read_to_string(&mut text)
            .map_err(|err| format!("cannot read the addresses from stdin: {err}"))?;
        if text.len() as u64 > MAX_STDIN {
            return Err(format!(
                "stdin holds more than {MAX_STDIN} bytes: expected one expression or list of 32 addresses"
            ));
        }
        let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if joined.is_empty() {
            return Err(
                "stdin is empty: expected an address expression or a list of 32 addresses"
                    .to_owned(),
            );
        }
        return Ok(vec![joined]);
    }
    if args.len() == WARP_SIZE && args.iter().all(|a| is_plain(a)) {
        return Ok(vec![args.join(" ")]);
    }
    Ok(args.to_vec())
}

/// A number without operators (`12`, `0x1c`) or `-`: an entry of a list.
fn is_plain(item: &str) -> bool {
    item == "-"
        || item.bytes().all(|b| b.is_ascii_alphanumeric())
            && item.starts_with(|c: char| c.is_ascii_digit())
}

/// The 32 addresses of one set: a list when it has commas, or is 32 plain
/// numbers (or `-`) separated by spaces; otherwise a C expression in `lane`.
fn addresses(text: &str, constants: &expr::Constants) -> Result<Vec<Option<u32>>, String> {
    let items: Vec<&str> = text.split_whitespace().collect();
    if text.contains(',') {
        let entries: Vec<&str> = text.split(',').map(str::trim).collect();
        return list(&entries, constants);
    }
    if items.len() == WARP_SIZE && items.iter().all(|item| is_plain(item)) {
        return list(&items, constants);
    }
    let expr = expr::parse_with(text, constants).map_err(|err| {
        let mut message = format!("invalid address expression: {err}\n{}", err.show(text));
        if items.len() > 1 && items.iter().all(|item| is_plain(item)) {
            _ = write!(
                message,
                "\n(a list of addresses needs {WARP_SIZE} entries; this one has {})",
                items.len()
            );
        }
        message
    })?;
    (0..WARP_SIZE as u32)
        .map(|lane| lane_address(&expr, lane, text))
        .collect()
}

/// Lane `lane`'s address under `expr`, checked to be a 32-bit address.
fn lane_address(expr: &expr::Expr, lane: u32, source: &str) -> Result<Option<u32>, String> {
    let value = expr.eval(lane).map_err(|err| {
        format!(
            "cannot evaluate the address expression: {err}\n{}",
            err.show(source)
        )
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
}

/// A list of 32 entries, each `-` for an inactive lane or an expression (in
/// which `lane` is the entry's index).
fn list(entries: &[&str], constants: &expr::Constants) -> Result<Vec<Option<u32>>, String> {
    if entries.len() != WARP_SIZE {
        return Err(format!(
            "a warp has {WARP_SIZE} lanes, but {} addresses were given",
            entries.len()
        ));
    }
    (0u32..)
        .zip(entries)
        .map(|(lane, entry)| {
            if *entry == "-" || *entry == "-1" {
                return Ok(None);
            }
            let expr = expr::parse_with(entry, constants).map_err(|err| {
                format!(
                    "entry {lane} of the address list is `{entry}`: {err}; expected a byte \
                     address from 0 to {} or `-` for an inactive lane",
                    u32::MAX
                )
            })?;
            lane_address(&expr, lane, entry)
        })
        .collect()
}

/// `LDS.32`, `STS.128`, `ATOMS.CAS.64`, `LDSM.x4`: the op with its width where it varies.
pub(crate) fn instruction(request: &WarpRequest) -> String {
    op_name(request.op(), request.width())
}

/// [`instruction`]'s name for an op and width.
pub(crate) fn op_name(op: Op, width: AccessWidth) -> String {
    smem_model::kernel::tally::op_name(op, width)
}

/// `32 wavefronts (ideal 1, 31 bank conflicts): serial (32-way)`.
pub(crate) fn totals_line(partition: &Partition) -> String {
    format!(
        "{} (ideal {}, {}): {}",
        crate::output::plural(u64::from(partition.wavefronts()), "wavefront"),
        partition.ideal_wavefronts(),
        crate::output::plural(u64::from(partition.bank_conflicts()), "bank conflict"),
        partition.classification()
    )
}

/// The bytes the active lanes access, each counted once, and the bytes the
/// wavefronts could have carried (`BankConfig::wavefront_bytes` each).
pub(crate) fn bank_bandwidth(partition: &Partition) -> (u32, u32) {
    // The library's definition (`Partition::bandwidth_fraction`): distinct
    // bytes over what the wavefronts could move (64-bit banks on 3.x).
    let capacity = partition.wavefronts() * partition.config().wavefront_bytes();
    (partition.distinct_bytes(), capacity)
}

/// The text output: the request, the totals and the diagram.
fn describe(
    partition: &Partition,
    source: &str,
    layout: Option<&LayoutReport>,
    grid: &diagram::Grid,
) -> String {
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
    if let Some(layout) = layout {
        out.push_str(&layout.text());
    }
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
    let (distinct, capacity) = bank_bandwidth(partition);
    if capacity > 0 {
        _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                format!(
                    "bank bandwidth used: {:.1}% ({} distinct in {} of at most {} bytes)",
                    100.0 * f64::from(distinct) / f64::from(capacity),
                    crate::output::plural(u64::from(distinct), "byte"),
                    crate::output::plural(u64::from(partition.wavefronts()), "wavefront"),
                    config.wavefront_bytes()
                )
            )
        );
    }
    for line in extra_lines(partition) {
        _ = writeln!(out, "{line}");
    }
    for collision in request.write_collisions() {
        _ = writeln!(
            out,
            "{}",
            styled(
                WARN,
                format!(
                    "write collision: lanes {} store to {:#x}; one write lands, which one is undefined",
                    collision.lanes(),
                    collision.address()
                )
            )
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

/// What the newer ops add to the totals, and the cycles where they were
/// measured: one line each.
fn extra_lines(partition: &Partition) -> Vec<String> {
    let request = partition.request();
    let mut lines = Vec::new();
    if request.op().is_cas_loop(request.width()) {
        lines.push(format!(
            "compare-and-swap loop (nvcc emulates {}): {} ({} LDS + {} ATOMS wavefronts)",
            request.op(),
            crate::output::plural(u64::from(partition.instructions()), "round"),
            partition.load_wavefronts(),
            partition.wavefronts()
        ));
    }
    if !partition.visible_to_nsight() {
        lines.push(
            "not visible to Nsight Compute: cp.async.cg's shared writes never appear in the LSU \
             wavefront counters; the wavefronts above are the model's own figure"
                .to_owned(),
        );
    }
    match partition.config().timing(request) {
        Ok(timing) => {
            let mut line = format!(
                "cycles (measured on sm_90): the shared pipe is busy {}",
                crate::output::plural(u64::from(timing.pipe_cycles()), "cycle")
            );
            match timing.latency() {
                Some(latency) => line.push_str(&format!(
                    "; a dependent load takes {latency:.1} cycles for one warp, {:.2} per instruction with 16 warps",
                    timing.latency_cycles_per_instruction(16).unwrap_or(latency)
                )),
                None => line.push_str("; latency not measured for this op"),
            }
            lines.push(line);
        }
        Err(err) => lines.push(format!("cycles: {err}")),
    }
    lines.push(format!(
        "bank rules: {}",
        crate::archs::Rules::of(partition.config().capability()).source()
    ));
    lines
}

/// The `--json` report of one request.
pub(crate) fn report(partition: &Partition, case: &Case) -> Report {
    let config = partition.config();
    let request = partition.request();
    let lanes = |set: smem_model::LaneSet| set.iter().map(|lane| lane.get()).collect::<Vec<u32>>();
    let word = |w: smem_model::WordAccess| WordReport {
        word: w.word,
        bank: w.bank.index() as u32,
        lanes: lanes(w.lanes),
    };
    let (distinct, _) = bank_bandwidth(partition);
    Report {
        arch: config.capability().sm_name().to_owned(),
        source: case.source.clone(),
        op: request.op().to_string(),
        width: request.width().bytes(),
        banks: config.bank_count(),
        bank_width: config.bank_width().bytes(),
        addresses: request.to_array().to_vec(),
        wavefronts: partition.wavefronts(),
        ideal_wavefronts: partition.ideal_wavefronts(),
        bank_conflicts: partition.bank_conflicts(),
        ways: partition.ways(),
        classification: ClassificationJson::new(partition.classification(), partition.ways()),
        verdict: partition.classification().to_string(),
        distinct_bytes: distinct,
        bank_bandwidth_used: partition.bandwidth_fraction().unwrap_or(0.0),
        transactions: partition
            .transactions()
            .map(|t| TransactionReport {
                lanes: lanes(t.lanes()),
                phase: t.phase(),
                part: t.part(),
                words: t.words().iter().copied().map(word).collect(),
                broadcast_words: t.broadcast_words().map(word).collect(),
            })
            .collect(),
        write_collisions: request
            .write_collisions()
            .iter()
            .map(|c| CollisionReport {
                address: c.address(),
                lanes: lanes(c.lanes()),
            })
            .collect(),
        load_wavefronts: partition.load_wavefronts(),
        instructions: partition.instructions(),
        visible_to_nsight: partition.visible_to_nsight(),
        cycles: config.timing(request).ok().map(|t| CyclesReport {
            pipe: t.pipe_cycles(),
            latency: t.latency(),
            latency_16_warps: t.latency_cycles_per_instruction(16),
        }),
        tile_offsets: case.tile_offsets.clone(),
    }
}
