//! `smem advise`: the tile advisor from the command line. Give a tile, the
//! warp accesses made to it and the GPU; get the layouts tried (as given,
//! paddings, TMA swizzles, XOR swizzles) ranked by wavefronts and extra bytes,
//! and why the layout as given conflicts.

use std::process::ExitCode;

use clap::ValueEnum;
use serde::Serialize;
use smem_model::{
    Advice, BankConfig, Candidate, ComputeCapability, Op, Swizzle, TileAccess, TileLayout,
    TmaSwizzle, TritonShared,
};

use crate::analyze::expr::type_size;
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
    /// (#ttg.swizzled_shared), `nvmma:0|32|64|128` (#ttg.nvmma_shared swizzle bytes).
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

/// A layout named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NamedLayout {
    Padding(u32),
    Swizzle(Swizzle),
    Tma(TmaSwizzle),
    Triton(TritonShared),
    Nvmma(u32),
}

impl NamedLayout {
    /// The packed `tile` under this layout.
    fn apply(self, tile: TileLayout) -> Result<TileLayout, smem_model::Error> {
        match self {
            NamedLayout::Padding(n) => tile.with_padding(n),
            NamedLayout::Swizzle(swizzle) => tile.with_swizzle(swizzle),
            NamedLayout::Tma(mode) => tile.with_tma_swizzle(mode),
            NamedLayout::Triton(shared) => tile.with_triton_shared(shared),
            NamedLayout::Nvmma(bytes) => tile.with_nvmma_swizzle(bytes),
        }
    }
}

/// `--layout`'s parser.
fn parse_layout(text: &str) -> Result<NamedLayout, String> {
    let numbers = |list: &str| -> Result<Vec<u32>, String> {
        list.split(',')
            .map(|n| {
                n.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("`{}` in `{text}` is not a number", n.trim()))
            })
            .collect()
    };
    let trimmed = text.trim();
    let (kind, rest) = if let Some(inner) = trimmed
        .strip_prefix("Swizzle<")
        .or_else(|| trimmed.strip_prefix("swizzle<"))
        .and_then(|r| r.strip_suffix('>'))
    {
        ("swizzle", inner)
    } else {
        trimmed.split_once(':').ok_or_else(|| {
            format!(
                "`{text}` is not a layout: expected pad:N, swizzle:B,M,S, Swizzle<B,M,S>, \
                 tma:BYTES, triton:VEC,PERPHASE,MAXPHASE or nvmma:BYTES"
            )
        })?
    };
    let values = numbers(rest)?;
    let err = |e: smem_model::Error| e.to_string();
    match (kind, values.as_slice()) {
        ("pad", &[n]) => Ok(NamedLayout::Padding(n)),
        ("swizzle", &[b, m, s]) => Swizzle::new(b, m, s).map(NamedLayout::Swizzle).map_err(err),
        ("tma", &[bytes]) => TmaSwizzle::ALL
            .into_iter()
            .find(|mode| mode.span() == bytes)
            .map(NamedLayout::Tma)
            .ok_or_else(|| format!("TMA swizzle of {bytes} bytes: expected 32, 64 or 128")),
        ("triton", &[vec, per_phase, max_phase]) => TritonShared::new(vec, per_phase, max_phase)
            .map(NamedLayout::Triton)
            .map_err(err),
        ("nvmma", &[bytes]) => Ok(NamedLayout::Nvmma(bytes)),
        _ => Err(format!(
            "`{text}` is not a layout: expected pad:N, swizzle:B,M,S, Swizzle<B,M,S>, \
             tma:BYTES, triton:VEC,PERPHASE,MAXPHASE or nvmma:BYTES"
        )),
    }
}

/// `32x32` as (rows, columns).
fn parse_tile(text: &str) -> Result<(u32, u32), String> {
    let (rows, cols) = text
        .split_once(['x', 'X', '*'])
        .ok_or_else(|| format!("`{text}` is not ROWSxCOLS: expected e.g. 32x32"))?;
    let number = |part: &str| {
        part.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{part}` in `{text}` is not a number of elements"))
    };
    Ok((number(rows)?, number(cols)?))
}

/// `4` or `float`: bytes per element.
fn parse_element(text: &str) -> Result<u32, String> {
    if let Ok(bytes) = text.parse::<u32>() {
        return Ok(bytes);
    }
    type_size(text.trim())
        .and_then(|size| u32::try_from(size).ok())
        .ok_or_else(|| {
            format!("`{text}` is not a size in bytes or a type (float, double, half, float4, ...)")
        })
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
