//! `smem advise`: the tile advisor from the command line. Give a tile, the
//! warp accesses made to it and the GPU; get the layouts tried (as given,
//! paddings, TMA swizzles, XOR swizzles) ranked by wavefronts and extra bytes,
//! and why the layout as given conflicts.

use std::process::ExitCode;

use clap::ValueEnum;
use serde::Serialize;
use smem_model::{Advice, BankConfig, Candidate, ComputeCapability, Op, TileAccess, TileLayout};

use crate::layout::{parse_element, parse_layout, parse_tile, NamedLayout};
use crate::output::{emit, fail};

/// The `schema` of `smem advise --json`.
pub const SCHEMA: &str = "smem-advise/1";

/// Arguments of `smem advise`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  smem advise --tile 32x32 column                 float tile[32][32] read down a column
  smem advise --tile 32x32 transpose              an in-tile transpose: row read, column write
  smem advise --tile 64x64 --element half ldmatrix   ldmatrix.x4 of every 16x16 block
  smem advise --tile 32x32 --element double --arch sm_35 column
  smem advise --tile 16x16 matmul --json
  smem advise --tile 128x64 --element half --layout triton:8,1,8 ldmatrix   Triton's layout, checked
  smem advise --tile 64x64 --element half --layout 'Swizzle<3,3,3>' ldmatrix   CuTe's

Accesses (each by one warp, lane l):
  row, store-row        (0, l*V)      along row 0, V = --vector elements a lane
  column, store-column  (l, 0)        down column 0
  diagonal              (l, l*V)
  transpose             reads (0, l) and writes (l, 0): one warp's in-tile transpose
  matmul                As[ty][0] and Bs[0][tx] of the tiled product, ROWS x ROWS threads
  ldmatrix              every 8-row, 16-byte matrix once: ldmatrix.x4 of each 16-row block of
                        two matrices' columns (mma fragments), .x2/.x1 at odd edges

Each line of the answer is one outcome (a number of wavefronts): the layout with the fewest
extra bytes and its element index as C (address = base + element size * index), the cheapest
layout of another kind, and how many more do as well. On sm_90 and later the TMA swizzle modes
are shown with the XOR swizzle they apply: a kernel that fills the tile with cp.async or STS
uses that index.")]
pub struct Args {
    /// The tile: ROWSxCOLS elements, e.g. 32x32.
    #[arg(long, value_name = "ROWSxCOLS", value_parser = parse_tile)]
    tile: (u32, u32),

    /// Bytes per element, or a C/CUDA type: 4, float, double, half, float4, ...
    #[arg(long, value_name = "BYTES|TYPE", default_value = "4", value_parser = parse_element)]
    element: u32,

    /// Elements each lane accesses in row, column and diagonal accesses (1, 2 or 4
    /// for float, float2, float4 over a float tile).
    #[arg(long, value_name = "N", default_value_t = 1)]
    vector: u32,

    /// Compute capability: sm_90, 8.6, H100, ... (`smem archs` lists them).
    #[arg(long, value_name = "CC", default_value = "sm_90", value_parser = crate::arch::parse)]
    arch: ComputeCapability,

    /// The layout as given, by the name Triton or CuTe gives it (default: the packed tile):
    /// `pad:N` (N elements of padding a row), `swizzle:B,M,S` or `Swizzle<B,M,S>` (CuTe, on
    /// element offsets), `tma:32|64|128`, `triton:VEC,PERPHASE,MAXPHASE`
    /// (#ttg.swizzled_shared), `nvmma:0|32|64|128` (#ttg.nvmma_shared swizzle bytes; rows
    /// wider than the swizzle are stored as column tiles of its width, as Triton does).
    #[arg(long, value_name = "LAYOUT", value_parser = parse_layout)]
    layout: Option<NamedLayout>,

    /// Print the advice as JSON instead of text.
    #[arg(long)]
    json: bool,

    /// The warp accesses to optimise the layout for, together.
    #[arg(value_name = "ACCESS", required = true, num_args = 1.., value_enum)]
    accesses: Vec<Pattern>,
}

/// The access patterns `smem advise` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Pattern {
    Row,
    StoreRow,
    Column,
    StoreColumn,
    Diagonal,
    Transpose,
    Matmul,
    Ldmatrix,
}

/// The tile accesses a pattern stands for, on a `rows x cols` tile.
fn accesses(
    pattern: Pattern,
    (rows, cols): (u32, u32),
    element: u32,
    vector: u32,
) -> Result<Vec<TileAccess>, smem_model::Error> {
    Ok(match pattern {
        Pattern::Row => vec![TileAccess::row(Op::Load, 0, 0, vector)],
        Pattern::StoreRow => vec![TileAccess::row(Op::Store, 0, 0, vector)],
        Pattern::Column => vec![TileAccess::column(Op::Load, 0, 0, vector)],
        Pattern::StoreColumn => vec![TileAccess::column(Op::Store, 0, 0, vector)],
        Pattern::Diagonal => vec![TileAccess::diagonal(Op::Load, 0, 0, vector)],
        Pattern::Transpose => TileAccess::transposed_copy(0).to_vec(),
        Pattern::Matmul => vec![
            TileAccess::matmul_a(rows, 0, 0),
            TileAccess::matmul_b(rows, 0, 0),
        ],
        Pattern::Ldmatrix => TileAccess::ldmatrix_tile(rows, cols, element)?,
    })
}

/// One candidate layout in `--json`.
#[derive(Debug, Serialize)]
struct CandidateJson {
    /// What it changes: `as given`, `1 element of padding per row`, `TMA 128B swizzle`, ...
    fix: String,
    /// The fix with the XOR swizzle a TMA mode stands for: `TMA 128B swizzle = Swizzle<3,3,3>`.
    name: String,
    /// The element index of (row, col), a C expression: `row * 33 + col`.
    index: String,
    wavefronts: u32,
    ideal_wavefronts: u32,
    bank_conflicts: u32,
    conflict_free: bool,
    extra_bytes: u64,
}

impl CandidateJson {
    fn new(candidate: &Candidate) -> CandidateJson {
        CandidateJson {
            fix: candidate.fix().to_string(),
            name: candidate.name(),
            index: candidate.layout().index_formula(),
            wavefronts: candidate.wavefronts(),
            ideal_wavefronts: candidate.ideal_wavefronts(),
            bank_conflicts: candidate.bank_conflicts(),
            conflict_free: candidate.is_conflict_free(),
            extra_bytes: candidate.extra_bytes(),
        }
    }
}

/// Why one access conflicts, in `--json`.
#[derive(Debug, Serialize)]
struct ConflictJson {
    access: usize,
    op: String,
    phase: u32,
    bank: u32,
    lanes: Vec<u32>,
    words: u32,
    ways: u32,
    /// The sentence the text output prints.
    reason: String,
}

/// One outcome in `--json`: the layouts that take the same wavefronts.
#[derive(Debug, Serialize)]
struct OutcomeJson {
    wavefronts: u32,
    ideal_wavefronts: u32,
    conflict_free: bool,
    /// The layouts' `fix`es, fewest extra bytes first.
    fixes: Vec<String>,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct AdviceJson {
    schema: &'static str,
    arch: &'static str,
    rows: u32,
    cols: u32,
    element_bytes: u32,
    accesses: Vec<String>,
    original: CandidateJson,
    best: CandidateJson,
    /// Every layout tried, best first.
    candidates: Vec<CandidateJson>,
    /// One entry per distinct outcome, best first.
    outcomes: Vec<OutcomeJson>,
    /// Why the layout as given conflicts, one entry per conflicting access.
    conflicts: Vec<ConflictJson>,
}

fn json(args: &Args, advice: &Advice) -> AdviceJson {
    AdviceJson {
        schema: SCHEMA,
        arch: args.arch.sm_name(),
        rows: args.tile.0,
        cols: args.tile.1,
        element_bytes: args.element,
        accesses: args
            .accesses
            .iter()
            .filter_map(|p| p.to_possible_value().map(|v| v.get_name().to_owned()))
            .collect(),
        original: CandidateJson::new(advice.original()),
        best: CandidateJson::new(advice.best()),
        candidates: advice.candidates().iter().map(CandidateJson::new).collect(),
        outcomes: advice
            .outcomes()
            .filter_map(|outcome| {
                let first = outcome.first()?;
                Some(OutcomeJson {
                    wavefronts: first.wavefronts(),
                    ideal_wavefronts: first.ideal_wavefronts(),
                    conflict_free: first.is_conflict_free(),
                    fixes: outcome.iter().map(|c| c.fix().to_string()).collect(),
                })
            })
            .collect(),
        conflicts: advice
            .conflicts()
            .iter()
            .map(|c| ConflictJson {
                access: c.access(),
                op: c.op().to_string(),
                phase: c.phase(),
                bank: c.bank().index() as u32,
                lanes: c.lanes().iter().map(|l| l.get()).collect(),
                words: c.words(),
                ways: c.ways(),
                reason: c.to_string(),
            })
            .collect(),
    }
}

/// Runs `smem advise`: status 0 with the advice, 1 when the tile or an access
/// is refused, with the reason on stderr.
pub fn run(args: &Args) -> ExitCode {
    match advise(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn advise(args: &Args) -> Result<(), ExitCode> {
    let (rows, cols) = args.tile;
    let mut layout = TileLayout::new(rows, cols, args.element).map_err(fail)?;
    if let Some(named) = args.layout {
        layout = named.apply(layout).map_err(fail)?;
    }
    let mut all: Vec<TileAccess> = Vec::new();
    for &pattern in &args.accesses {
        all.extend(accesses(pattern, args.tile, args.element, args.vector).map_err(fail)?);
    }
    let advice = layout
        .advise(BankConfig::new(args.arch), &all)
        .map_err(fail)?;
    let text = if args.json {
        serde_json::to_string_pretty(&json(args, &advice)).map_err(fail)? + "\n"
    } else {
        let mut text = advice.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        for (label, candidate) in [("as given", advice.original()), ("best", advice.best())] {
            text.push_str(&format!("{label}: {candidate}\n"));
        }
        text
    };
    emit(&text)
}
