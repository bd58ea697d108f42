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

Accesses (each by one warp, lane l; on a tile narrower than the warp, rows go on into the next
rows and columns into the next columns, as a block of ROWS x COLS threads does: 16x16 works):
  row, store-row        (0, l*V)      along row 0, V = --vector elements a lane
  column, store-column  (l, 0)        down column 0
  diagonal              (l, l*V)
  transpose             reads (0, l) and writes (l, 0): one warp's in-tile transpose
  fill                  stores of 16 bytes a lane along the rows (st.shared.v4, cp.async): the
                        stores that fill the tile, to judge with the loads that read it
  matmul                the tiled product with ROWS x ROWS threads: the fills As[ty][tx] and
                        Bs[ty][tx] (stores) and the reads As[ty][0] and Bs[0][tx]
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
    Fill,
    Matmul,
    Ldmatrix,
}

/// The tile accesses a pattern stands for, on a `rows x cols` tile.
///
/// A warp is 32 threads of a block shaped like the tile (the tutorials'
/// `tile[threadIdx.y][threadIdx.x]`, thread `t` at `(t / cols, t % cols)`):
/// on a tile narrower than a warp's row (16x16: two rows of 16 threads a
/// warp) row accesses go on into the next rows and column accesses into
/// the next columns, and lanes past the tile do not take part (a modelling
/// choice: the layout of threads the CUDA samples use).
fn accesses(
    pattern: Pattern,
    (rows, cols): (u32, u32),
    element: u32,
    vector: u32,
) -> Result<Vec<TileAccess>, smem_model::Error> {
    let vector = vector.max(1);
    // Lane l along rows, `v` elements a lane: (l / per_row, l % per_row * v).
    let row = |op: Op, v: u32| {
        let per_row = (cols / v).max(1);
        TileAccess::from_fn(op, v, move |lane| {
            let l = lane.get();
            let r = l / per_row;
            (r < rows).then_some((r, l % per_row * v))
        })
    };
    // Lane l down columns: (l % rows, l / rows * v).
    let column = |op: Op| {
        TileAccess::from_fn(op, vector, move |lane| {
            let l = lane.get();
            let c = l / rows.max(1) * vector;
            (c < cols).then_some((l % rows.max(1), c))
        })
    };
    Ok(match pattern {
        Pattern::Row => vec![row(Op::Load, vector)],
        Pattern::StoreRow => vec![row(Op::Store, vector)],
        Pattern::Column => vec![column(Op::Load)],
        Pattern::StoreColumn => vec![column(Op::Store)],
        Pattern::Diagonal => vec![TileAccess::from_fn(Op::Load, vector, |lane| {
            let l = lane.get();
            Some((l % rows.max(1), l * vector % cols.max(1)))
        })],
        Pattern::Transpose => vec![row(Op::Load, 1), column(Op::Store)],
        Pattern::Fill => vec![row(Op::Store, (16 / element).max(1))],
        Pattern::Matmul => {
            // The classic kernel's tile fills (As[ty][tx] = A[...], Bs[ty][tx]
            // = B[...]) and its reads of them (As[ty][k], Bs[k][tx]).
            let fill = TileAccess::from_fn(Op::Store, 1, |lane| {
                let t = lane.get();
                let (ty, tx) = (t / rows.max(1), t % rows.max(1));
                (ty < rows).then_some((ty, tx))
            });
            vec![
                fill,
                fill,
                TileAccess::matmul_a(rows, 0, 0),
                TileAccess::matmul_b(rows, 0, 0),
            ]
        }
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
        if !all.iter().any(|a| a.op().writes()) {
            text.push_str(
                "stores not judged: add fill (or store-row, store-column) for the stores that \
                 fill the tile; a layout that suits the loads may make them conflict\n",
            );
        }
        text
    };
    emit(&text)
}
