//! Tile layouts, swizzles, access patterns and the advisor: the classic results
//! (each wavefront count computed by the model and, where the hardware corpus
//! measured the same addresses, equal to the measurement), every error message,
//! and the invariants of layouts and swizzles.

use std::path::Path;

#[cfg(feature = "proptest")]
use proptest::prelude::*;
#[cfg(feature = "proptest")]
use proptest::sample::select;
use smem_model::{
    BankConfig, Classification, ComputeCapability, Error, Fix, Lane, LaneSet, Matrices, Op,
    Swizzle, TileAccess, TileLayout, TmaSwizzle, TritonShared, WarpRequest,
};

fn sm90() -> BankConfig {
    BankConfig::new(ComputeCapability::Sm90)
}

fn wavefronts(layout: TileLayout, access: &TileAccess) -> u32 {
    sm90().wavefronts(&layout.request(access).unwrap()).unwrap()
}

fn float_tile() -> TileLayout {
    TileLayout::new(32, 32, 4).unwrap()
}

fn xor_rows() -> Swizzle {
    Swizzle::new(5, 0, 5).unwrap()
}

/// The A fragments of `mma.m16n8k16` from a `rows x 64` half tile: one
/// `ldmatrix.x4` per 16x16 block.
fn a_fragments(rows: u32) -> Vec<TileAccess> {
    let mut accesses = Vec::new();
    for r in (0..rows).step_by(16) {
        for c in (0..64).step_by(16) {
            accesses.push(TileAccess::ldmatrix(Matrices::X4, |m| {
                (r + 8 * (m % 2), c + 8 * (m / 2))
            }));
        }
    }
    accesses
}

// ---------------------------------------------------------------------------
// The classic results.

/// Issue 4: a 32x32 float transpose is 32-way with no padding, and
/// conflict-free with one float of padding per row or with an XOR swizzle.
/// The corpus measured the column of each (`tilecol_pad0`: 32, `tilecol_pad1`:
/// 1, `xorswz31`: 1); see `corpus_tile_patterns_match_the_measurements`.
#[test]
fn transpose_32x32_float_is_32_way_unpadded_and_free_padded_or_swizzled() {
    let [read, write] = TileAccess::transposed_copy(0);
    let plain = float_tile();
    let padded = plain.with_padding(1).unwrap();
    let swizzled = plain.with_swizzle(xor_rows()).unwrap();
    assert_eq!(
        (wavefronts(plain, &read), wavefronts(plain, &write)),
        (1, 32)
    );
    assert_eq!(
        (wavefronts(padded, &read), wavefronts(padded, &write)),
        (1, 1)
    );
    assert_eq!(
        (wavefronts(swizzled, &read), wavefronts(swizzled, &write)),
        (1, 1)
    );
    let column = sm90().partition(&plain.request(&write).unwrap()).unwrap();
    assert_eq!(column.classification(), Classification::Serial { ways: 32 });

    // The whole tile: rows 0 to 31 read, columns 0 to 31 written.
    let accesses: Vec<TileAccess> = (0..32).flat_map(TileAccess::transposed_copy).collect();
    let advice = plain.advise(sm90(), &accesses).unwrap();
    assert_eq!(advice.original().wavefronts(), 32 + 32 * 32);
    assert_eq!(advice.original().ideal_wavefronts(), 64);
    let best = advice.best();
    assert_eq!(best.fix(), Fix::Swizzle(xor_rows()));
    assert_eq!(best.layout(), swizzled);
    assert_eq!((best.wavefronts(), best.extra_bytes()), (64, 0));
    let runner_up = advice.candidates()[1];
    assert_eq!(runner_up.fix(), Fix::Padding { elements: 1 });
    assert_eq!(runner_up.layout(), padded);
    assert_eq!((runner_up.wavefronts(), runner_up.extra_bytes()), (64, 128));
    // Ranked by wavefronts, then bytes.
    let keys: Vec<_> = advice
        .candidates()
        .iter()
        .map(|c| (c.wavefronts(), c.extra_bytes()))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    // Why: each column write, every lane in the column's bank.
    assert_eq!(advice.conflicts().len(), 32);
    for (i, why) in advice.conflicts().iter().enumerate() {
        assert_eq!(why.access(), 2 * i + 1);
        assert_eq!(why.op(), Op::Store);
        assert_eq!(why.bank().index(), i);
        assert_eq!(
            (why.lanes(), why.words(), why.ways()),
            (LaneSet::FULL, 32, 32)
        );
    }
}

/// The 128-byte TMA swizzle on 4-byte elements is only 4-way for a column:
/// it permutes 8 chunks of 4 floats, so rows l, l + 8, l + 16 and l + 24 meet.
/// That is why the advisor prefers the full XOR of the row into the column.
#[test]
fn transpose_with_the_128_byte_tma_swizzle_is_4_way() {
    let tma = float_tile().with_tma_swizzle(TmaSwizzle::B128).unwrap();
    assert_eq!(tma.swizzle(), Swizzle::new(3, 2, 3).ok());
    let [read, write] = TileAccess::transposed_copy(0);
    assert_eq!((wavefronts(tma, &read), wavefronts(tma, &write)), (1, 4));
}

/// Issue 4: a 64-wide half tile read by ldmatrix is conflict-free with a
/// 128-byte swizzle. The corpus measured `ldmatrix.x1/.x2/.x4` on 128-byte rows
/// (`pitch128`: 8, 16, 32 wavefronts) and on the same rows swizzled
/// (`swz_pitch128`: 1, 2, 4).
#[test]
fn ldmatrix_of_a_64_wide_half_tile_is_free_with_the_128_byte_swizzle() {
    let plain = TileLayout::new(64, 64, 2).unwrap();
    let swizzled = plain.with_tma_swizzle(TmaSwizzle::B128).unwrap();
    assert_eq!(swizzled.swizzle(), Swizzle::new(3, 3, 3).ok());
    for access in a_fragments(64) {
        // Each matrix: 8 rows 128 bytes apart, all in the same 4 banks.
        assert_eq!(wavefronts(plain, &access), 32);
        assert_eq!(wavefronts(swizzled, &access), 4);
    }
    let advice = plain.advise(sm90(), &a_fragments(64)).unwrap();
    assert_eq!(advice.original().wavefronts(), 16 * 32);
    let best = advice.best();
    assert_eq!(best.fix(), Fix::Tma(TmaSwizzle::B128));
    assert_eq!((best.wavefronts(), best.extra_bytes()), (64, 0));
    assert!(best.is_conflict_free());
    // The XOR swizzle with the same bits is the same layout: tried once, as TMA.
    assert!(!advice
        .candidates()
        .iter()
        .any(|c| c.fix() == Fix::Swizzle(Swizzle::new(3, 3, 3).unwrap())));
    // The cheapest padding that works keeps rows 16-byte aligned: 8 halves.
    let padding = advice
        .candidates()
        .iter()
        .find(|c| matches!(c.fix(), Fix::Padding { .. }) && c.is_conflict_free())
        .unwrap();
    assert_eq!(padding.fix(), Fix::Padding { elements: 8 });
    assert_eq!(padding.extra_bytes(), 64 * 16);
    // Why: in matrix 0 (phase 0), rows 0-7 all read banks 0-3.
    let why = advice.conflicts()[0];
    assert_eq!((why.access(), why.phase(), why.bank().index()), (0, 0, 0));
    assert_eq!(
        (why.lanes().to_string(), why.words(), why.ways()),
        ("0-7".to_string(), 8, 8)
    );
    // stmatrix of the same fragments: the same numbers.
    let store = TileAccess::stmatrix(Matrices::X4, |m| (8 * (m % 2), 8 * (m / 2)));
    assert_eq!(
        (wavefronts(plain, &store), wavefronts(swizzled, &store)),
        (32, 4)
    );
}

/// The lecture's examples: "0,1; 1,2; 2,3" is conflict-free, "0,1; 1,1; 2,1" a
/// 3-way conflict; the same pairs through the builder and the parser.
#[test]
fn lecture_bank_lists() {
    let free = WarpRequest::parse_banks(sm90(), Op::Load, "0,1; 1,2; 2,3").unwrap();
    let three = WarpRequest::parse_banks(sm90(), Op::Load, " 0 , 1 ;1,1;2,1 ; ").unwrap();
    assert_eq!(
        free,
        WarpRequest::from_banks(sm90(), Op::Load, &[(0, 1), (1, 2), (2, 3)]).unwrap()
    );
    assert_eq!(free.active(), LaneSet::range(0, 3));
    assert_eq!(free.address(Lane::new(2).unwrap()), Some((2 * 32 + 3) * 4));
    let free = sm90().partition(&free).unwrap();
    let three = sm90().partition(&three).unwrap();
    assert_eq!(free.classification(), Classification::Parallel);
    assert_eq!(three.classification(), Classification::Serial { ways: 3 });
    // Banks and rows follow the configuration: 16 banks on 1.x, 8-byte words
    // in Kepler's eight-byte mode.
    let tesla = BankConfig::new(ComputeCapability::Sm13);
    let request = WarpRequest::parse_banks(tesla, Op::Load, "1,15").unwrap();
    assert_eq!(request.address(Lane::new(0).unwrap()), Some((16 + 15) * 4));
    let kepler8 = BankConfig::new(ComputeCapability::Sm35)
        .with_shared_mem_config(smem_model::SharedMemConfig::EightByte);
    let request = WarpRequest::parse_banks(kepler8, Op::Load, "1,1").unwrap();
    assert_eq!(request.width().bytes(), 8);
    assert_eq!(request.address(Lane::new(0).unwrap()), Some(33 * 8));
    // An empty list: no active lane, no wavefront.
    let empty = WarpRequest::parse_banks(sm90(), Op::Load, "").unwrap();
    assert_eq!(sm90().wavefronts(&empty).unwrap(), 0);
}

/// The seeds' tiled product C = AB: the A read broadcasts within each row of
/// threads, the B read is a row; conflict-free for w = 8, 16 and 32.
#[test]
fn matmul_tile_reads_are_conflict_free() {
    for w in [8, 16, 32] {
        let tile = TileLayout::new(w, w, 4).unwrap();
        let warps = (w * w).div_ceil(32);
        for warp in 0..warps {
            for k in [0, w / 2, w - 1] {
                let a = TileAccess::matmul_a(w, k, warp);
                let b = TileAccess::matmul_b(w, k, warp);
                assert_eq!(a.lanes().len(), 32.min((w * w) as usize));
                assert_eq!(
                    (wavefronts(tile, &a), wavefronts(tile, &b)),
                    (1, 1),
                    "w {w}"
                );
            }
        }
    }
    // The 32 threads of one row of a w = 32 block all read As[ty][k].
    let a = TileAccess::matmul_a(32, 7, 3);
    assert!(a.elements().all(|(_, element)| element == (3, 7)));
    let b = TileAccess::matmul_b(32, 7, 3);
    assert_eq!(b.element(Lane::new(9).unwrap()), Some((7, 9)));
    // w = 0 describes no block: no lane.
    assert!(TileAccess::matmul_a(0, 0, 0).lanes().is_empty());
}

/// The padding that fixes columns breaks the diagonal: tile[l][l] is a
/// stride of pitch + 1 floats, 34 with one float of padding, 2-way.
#[test]
fn padding_for_columns_makes_the_diagonal_2_way() {
    let diagonal = TileAccess::diagonal(Op::Load, 0, 0, 1);
    assert_eq!(wavefronts(float_tile(), &diagonal), 1);
    assert_eq!(
        wavefronts(float_tile().with_padding(1).unwrap(), &diagonal),
        2
    );
    assert_eq!(
        wavefronts(float_tile().with_padding(2).unwrap(), &diagonal),
        1
    );
    let swizzled = float_tile().with_swizzle(xor_rows()).unwrap();
    // tile[l][l] of the swizzled tile is column 0 of memory: 32-way.
    assert_eq!(wavefronts(swizzled, &diagonal), 32);
}

/// The seeds' advice for column accesses, on sm_90: one element of padding
/// for 4-, 8- and 16-byte elements whenever the row is a multiple of 32 banks
/// of 4 bytes; a whole word for narrower elements on 128-byte rows.
#[test]
fn column_padding_on_sm90() {
    let pad = |element, cols| TileLayout::column_padding(sm90(), element, cols).unwrap();
    for element in [4, 8, 16] {
        for rows_of_128_bytes in 1..=4 {
            let cols = rows_of_128_bytes * 128 / element;
            assert_eq!(pad(element, cols), Some(1), "{element}-byte x {cols}");
        }
    }
    assert_eq!(pad(4, 33), Some(0));
    assert_eq!(pad(2, 32), Some(1)); // 66-byte rows: measured conflict-free (tilecol_pad1)
    assert_eq!(pad(2, 64), Some(2));
    assert_eq!(pad(1, 32), Some(1)); // 33-byte rows: measured conflict-free (tilecol_pad1)
    assert_eq!(pad(1, 128), Some(4));
    // The answer really is conflict-free, and one less is not.
    for (element, cols) in [(1, 128), (2, 64), (4, 32), (8, 32), (16, 32)] {
        let p = pad(element, cols).unwrap();
        let tile = TileLayout::new(32, cols, element).unwrap();
        let column = TileAccess::column(Op::Load, 0, 0, 1);
        let fixed = sm90()
            .partition(&tile.with_padding(p).unwrap().request(&column).unwrap())
            .unwrap();
        assert_eq!(fixed.bank_conflicts(), 0);
        let short = sm90()
            .partition(&tile.with_padding(p - 1).unwrap().request(&column).unwrap())
            .unwrap();
        assert!(short.bank_conflicts() > 0);
    }
    // Long rows are searched without leaving the shared window.
    assert_eq!(pad(4, 32 * 64), Some(1));
    // Kepler's four-byte mode never serves two doubles of far-apart rows together.
    let kepler = BankConfig::new(ComputeCapability::Sm35);
    assert_eq!(TileLayout::column_padding(kepler, 8, 32).unwrap(), None);
    assert_eq!(TileLayout::column_padding(kepler, 4, 32).unwrap(), Some(1));
}

/// The builders agree with each other: a column of an unswizzled tile is a
/// strided request, a row of floats a stride-1 request.
#[test]
fn tile_accesses_are_the_strided_patterns() {
    let tile = float_tile()
        .with_padding(3)
        .unwrap()
        .with_base(0x400)
        .unwrap();
    let column = tile
        .request(&TileAccess::column(Op::Store, 0, 5, 1))
        .unwrap();
    assert_eq!(
        column,
        WarpRequest::strided(Op::Store, 4, 0x400 + 5 * 4, 35).unwrap()
    );
    let row = tile.request(&TileAccess::row(Op::Load, 2, 0, 1)).unwrap();
    assert_eq!(
        row,
        WarpRequest::strided(Op::Load, 4, 0x400 + 2 * 35 * 4, 1).unwrap()
    );
    // float4 at (1, 1), byte 144 of the tile, read by every lane.
    let uniform = tile
        .request(&TileAccess::from_fn(Op::Load, 4, |_| Some((1, 1))))
        .unwrap();
    assert_eq!(
        uniform,
        WarpRequest::broadcast(Op::Load, 16, 0x400 + (35 + 1) * 4).unwrap()
    );
}

/// 1-, 2-, 4-, 8- and 16-byte elements and vectors: a row read with the widest
/// vector that fits 16 bytes is conflict-free, a column of one element per
/// lane is as wide a conflict as a 128-byte row allows.
#[test]
fn rows_and_columns_for_every_element_size() {
    for element in [1u32, 2, 4, 8, 16] {
        let cols = 128 / element; // 128-byte rows
        let tile = TileLayout::new(32, cols, element).unwrap();
        let vector = 16 / element;
        let lanes = (cols / vector).min(32);
        let row = TileAccess::row(Op::Load, 1, 0, vector).with_mask(LaneSet::range(0, lanes));
        let request = tile.request(&row).unwrap();
        assert_eq!(request.width().bytes(), 16);
        let partition = sm90().partition(&request).unwrap();
        assert_eq!(partition.bank_conflicts(), 0, "{element}-byte");
        // A column: each lane's element in the same bank, a distinct word.
        let column = tile
            .request(&TileAccess::column(Op::Load, 0, 0, 1))
            .unwrap();
        let expected = match element {
            1 | 2 | 4 => 32, // one phase, 32 words of one bank
            8 => 2 * 16,     // two half-warps of 16
            16 => 4 * 8,     // four quarter-warps of 8
            _ => unreachable!(),
        };
        assert_eq!(
            sm90().wavefronts(&column).unwrap(),
            expected,
            "{element}-byte"
        );
    }
}

#[test]
fn shuffled_requests_are_seeded_permutations() {
    let a = WarpRequest::shuffled(Op::Load, 4, 0x400, 1).unwrap();
    assert_eq!(a, WarpRequest::shuffled(Op::Load, 4, 0x400, 1).unwrap());
    assert_ne!(a, WarpRequest::shuffled(Op::Load, 4, 0x400, 2).unwrap());
    for seed in 0..50 {
        for width in [1, 2, 4] {
            let request = WarpRequest::shuffled(Op::Store, width, 0, seed).unwrap();
            let mut offsets: Vec<u32> = request.active_addresses().map(|(_, a)| a).collect();
            offsets.sort_unstable();
            assert_eq!(offsets, (0..32).map(|i| i * width).collect::<Vec<_>>());
            assert_eq!(sm90().wavefronts(&request).unwrap(), 1);
        }
    }
}

// ---------------------------------------------------------------------------
// The hardware corpus.

struct Measured {
    group: String,
    op: Op,
    width: u32,
    offsets: Vec<i64>,
    wavefronts: u32,
}

fn structured_corpus() -> Vec<Measured> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hw-corpus/sm90-structured.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["arch"], "sm_90");
            let width = v["width"].as_u64().unwrap() as u32;
            let op = match v["op"].as_str().unwrap() {
                "ld" => Op::Load,
                "st" => Op::Store,
                "atom" => Op::ATOMIC_ADD,
                "ldsm" => Op::LdMatrix(Matrices::from_count(width).unwrap()),
                "stsm" => Op::StMatrix(Matrices::from_count(width).unwrap()),
                other => panic!("unknown op {other}"),
            };
            Measured {
                group: v["group"].as_str().unwrap().to_string(),
                op,
                width,
                offsets: v["offsets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o.as_i64().unwrap())
                    .collect(),
                wavefronts: v["wavefronts"].as_u64().unwrap() as u32,
            }
        })
        .collect()
}

/// The dynamic window's start on sm_90: the corpus offsets are relative to it.
const WINDOW: u32 = 0x400;

/// Checks that `request` has the record's addresses and the measured
/// wavefronts.
fn check_measured(record: &Measured, request: &WarpRequest) {
    let expected: Vec<Option<u32>> = record
        .offsets
        .iter()
        .map(|&o| (o >= 0).then(|| WINDOW + o as u32))
        .collect();
    let lanes = record.op.address_lanes();
    let expected: Vec<Option<u32>> = expected
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.filter(|_| lanes.contains(Lane::new(i as u32).unwrap())))
        .collect();
    assert_eq!(
        request.to_array().to_vec(),
        expected,
        "{} {} x{}: the builder does not make the measured addresses",
        record.group,
        record.op,
        record.width
    );
    assert_eq!(
        sm90().wavefronts(request).unwrap(),
        record.wavefronts,
        "{} {} x{}",
        record.group,
        record.op,
        record.width
    );
}

fn number(group: &str, prefix: &str) -> Option<u32> {
    group.strip_prefix(prefix)?.parse().ok()
}

/// The tile request a structured-corpus group measured, if it is one.
fn tile_request(record: &Measured) -> Option<WarpRequest> {
    let g = record.group.as_str();
    let request = |layout: TileLayout, access: TileAccess| {
        Some(layout.with_base(WINDOW).unwrap().request(&access).unwrap())
    };
    match record.op {
        Op::Load | Op::Store => {
            // A 32x32 tile of `width`-byte elements.
            let tile = TileLayout::new(32, 32, record.width).unwrap();
            if let Some(p) = number(g, "tilecol_pad") {
                request(
                    tile.with_padding(p).unwrap(),
                    TileAccess::column(record.op, 0, 0, 1),
                )
            } else if let Some(p) = number(g, "tilerow_pad") {
                request(
                    tile.with_padding(p).unwrap(),
                    TileAccess::row(record.op, 5, 0, 1),
                )
            } else if let Some(mask) = number(g, "xorswz") {
                // tile[row][col ^ (row & mask)]: Swizzle<log2(mask + 1), 0, 5>.
                let swizzle = Swizzle::new((mask + 1).trailing_zeros(), 0, 5).unwrap();
                request(
                    tile.with_swizzle(swizzle).unwrap(),
                    TileAccess::column(record.op, 0, 0, 1),
                )
            } else {
                None
            }
        }
        Op::LdMatrix(m) | Op::StMatrix(m) => {
            // Matrices stacked down column 0 of a half tile: matrix k at row 8k.
            let access = TileAccess::from_fn(record.op, 1, |lane| Some((lane.get(), 0)));
            let half_tile = |pitch_bytes: u32| TileLayout::new(8 * m.count(), pitch_bytes / 2, 2);
            if let Some(pitch) = number(g, "pitch") {
                request(half_tile(pitch).unwrap(), access)
            } else if g == "swz_pitch128" {
                let tile = half_tile(128)
                    .unwrap()
                    .with_tma_swizzle(TmaSwizzle::B128)
                    .unwrap();
                request(tile, access)
            } else if g == "swz_pitch256" {
                // The 16-byte chunk of a 256-byte row XORed with the row: on
                // halves, Swizzle<3,3,4> (not a TMA mode: rows over 128 bytes).
                let tile = half_tile(256)
                    .unwrap()
                    .with_swizzle(Swizzle::new(3, 3, 4).unwrap());
                request(tile.unwrap(), access)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The pattern-builder request a structured-corpus group measured, if it is one.
fn pattern_request(record: &Measured) -> Option<WarpRequest> {
    let g = record.group.as_str();
    let (op, width) = (record.op, record.width);
    if matches!(op, Op::LdMatrix(_) | Op::StMatrix(_)) {
        return None;
    }
    let strided = |base: u32, stride: u32| WarpRequest::strided(op, width, WINDOW + base, stride);
    if let Some(stride) = number(g, "stride") {
        return Some(strided(0, stride).unwrap());
    }
    if let Some(rest) = g.strip_prefix("base") {
        let (base, stride) = rest.split_once("_stride")?;
        return Some(strided(base.parse().ok()?, stride.parse().ok()?).unwrap());
    }
    if let Some(n) = g
        .strip_prefix("first")
        .and_then(|r| r.strip_suffix("_stride2"))
    {
        let n: u32 = n.parse().ok()?;
        return Some(strided(0, 2).unwrap().with_mask(LaneSet::range(0, n)));
    }
    match g {
        "broadcast" => {
            Some(WarpRequest::broadcast(op, width, WINDOW + record.offsets[0] as u32).unwrap())
        }
        "perm" => {
            let base = *record.offsets.iter().min().unwrap() as u32;
            let index = |lane: Lane| (record.offsets[lane.index()] as u32 - base) / width;
            Some(WarpRequest::from_elements(op, width, WINDOW + base, |l| Some(index(l))).unwrap())
        }
        _ => None,
    }
}

/// Every corpus record of a padded, swizzled or ldmatrix tile: the layout makes
/// the measured addresses and the model the measured wavefronts.
#[test]
fn corpus_tile_patterns_match_the_measurements() {
    let mut checked = 0;
    for record in structured_corpus() {
        if let Some(request) = tile_request(&record) {
            check_measured(&record, &request);
            checked += 1;
        }
    }
    // tilecol, tilerow (5 paddings each) and xorswz (4 masks): 14 groups x 5
    // widths x (ld, st); pitch (9 pitches) and swz_pitch128/256: 11 groups x 3
    // counts x (ldsm, stsm).
    assert_eq!(checked, 14 * 5 * 2 + 11 * 3 * 2);
}

/// The classic results, read straight from the corpus.
#[test]
fn corpus_measured_the_classic_results() {
    let corpus = structured_corpus();
    let measured = |group: &str, op: Op, width: u32| {
        corpus
            .iter()
            .find(|r| r.group == group && r.op == op && r.width == width)
            .map(|r| r.wavefronts)
            .unwrap()
    };
    for op in [Op::Load, Op::Store] {
        assert_eq!(measured("tilecol_pad0", op, 4), 32);
        assert_eq!(measured("tilecol_pad1", op, 4), 1);
        assert_eq!(measured("xorswz31", op, 4), 1);
        assert_eq!(measured("tilerow_pad0", op, 4), 1);
    }
    let x4 = |op: fn(Matrices) -> Op| op(Matrices::X4);
    assert_eq!(measured("pitch128", x4(Op::LdMatrix), 4), 32);
    assert_eq!(measured("swz_pitch128", x4(Op::LdMatrix), 4), 4);
    assert_eq!(measured("swz_pitch128", x4(Op::StMatrix), 4), 4);
}

/// Every strided, based-strided, first-n, broadcast and permutation record:
/// the pattern builders make the measured addresses.
#[test]
fn corpus_patterns_match_the_builders() {
    let mut checked = 0;
    for record in structured_corpus() {
        if let Some(request) = pattern_request(&record) {
            check_measured(&record, &request);
            checked += 1;
        }
    }
    // stride{k}: 650 loads and stores, 8 atomics; base{b}_stride{k}: 558;
    // first{n}_stride2: 50; broadcast: 36; perm: 60.
    assert_eq!(checked, 650 + 8 + 558 + 50 + 36 + 60);
}

// ---------------------------------------------------------------------------
// Errors: every new variant, with its exact message.

fn message(err: Error) -> String {
    err.to_string()
}

#[test]
fn swizzle_errors() {
    let err = Swizzle::new(3, 0, 2).unwrap_err();
    assert_eq!(err, Error::SwizzleOverlap { bits: 3, shift: 2 });
    assert_eq!(
        message(err),
        "swizzle bit ranges overlap: a shift of 2 is less than the 3 bits XORed"
    );
    let err = Swizzle::new(4, 20, 10).unwrap_err();
    assert_eq!(
        err,
        Error::SwizzleWidth {
            bits: 4,
            base: 20,
            shift: 10
        }
    );
    assert_eq!(
        message(err),
        "swizzle of 4 bits at base 20 with shift 10 reaches past bit 32 of the offset: \
         base + shift + bits must be at most 32"
    );
    // At the limit it is fine; huge values do not overflow the check.
    assert!(Swizzle::new(16, 0, 16).is_ok());
    assert!(Swizzle::new(0, 32, 0).unwrap().is_identity());
    assert!(Swizzle::new(1, u32::MAX, u32::MAX).is_err());
    // 30 rows of 32: a whole number of 32-element blocks.
    let thirty = TileLayout::new(30, 32, 4).unwrap();
    assert_eq!(thirty.with_swizzle(xor_rows()).err(), None);
    let err = TileLayout::new(3, 10, 4)
        .unwrap()
        .with_swizzle(xor_rows())
        .unwrap_err();
    assert_eq!(
        err,
        Error::SwizzleTile {
            block: 32,
            elements: 30
        }
    );
    assert_eq!(
        message(err),
        "swizzle permutes aligned blocks of 32 elements, but the tile's storage of 30 elements \
         is not a whole number of blocks"
    );
    let err = float_tile().with_tma_swizzle(TmaSwizzle::B64).unwrap_err();
    assert_eq!(
        err,
        Error::TmaRowTooLong {
            row_bytes: 128,
            span: 64
        }
    );
    assert_eq!(
        message(err),
        "rows of 128 bytes are longer than the 64-byte span of the TMA swizzle"
    );
    assert_eq!(
        TmaSwizzle::B32.for_element(3),
        Err(Error::InvalidWidth { width: 3 })
    );
}

#[test]
fn layout_errors() {
    let err = TileLayout::new(0, 32, 4).unwrap_err();
    assert_eq!(
        message(err),
        "tile of 0 rows and 32 columns has no elements"
    );
    let err = TileLayout::new(32, 32, 4)
        .unwrap()
        .with_pitch(31)
        .unwrap_err();
    assert_eq!(
        err,
        Error::PitchTooSmall {
            pitch: 31,
            cols: 32
        }
    );
    assert_eq!(
        message(err),
        "row pitch of 31 elements is smaller than the row of 32 elements"
    );
    let err = float_tile().with_base(u32::MAX - 8).unwrap_err();
    assert_eq!(
        err,
        Error::SpanOverflow {
            base: u32::MAX - 8,
            bytes: 4096
        }
    );
    assert_eq!(
        message(err),
        "4096 bytes from 0xfffffff7 run past the end of the 32-bit shared address space"
    );
    let err = TileLayout::new(65536, 65536, 2).unwrap_err();
    assert_eq!(
        err,
        Error::SpanOverflow {
            base: 0,
            bytes: 1 << 33
        }
    );
    let err = float_tile().with_padding(u32::MAX).unwrap_err();
    assert!(matches!(err, Error::SpanOverflow { base: 0, .. }));
    // Exactly the 32-bit space is fine.
    assert!(TileLayout::new(65536, 65536, 1).is_ok());

    let big = TileLayout::new(128, 128, 4).unwrap();
    let err = big.check_fits(ComputeCapability::Sm61).unwrap_err();
    assert_eq!(
        message(err),
        "tile of 65536 bytes exceeds the 49152-byte per-block shared memory of compute \
         capability 6.1"
    );
    assert_eq!(big.check_fits(ComputeCapability::Sm90), Ok(()));
    // The advisor refuses a tile the capability cannot hold.
    let pascal = BankConfig::new(ComputeCapability::Sm61);
    let err = big
        .advise(pascal, &[TileAccess::column(Op::Load, 0, 0, 1)])
        .unwrap_err();
    assert!(matches!(
        err,
        Error::TileTooLarge {
            bytes: 65536,
            limit: 49152,
            ..
        }
    ));

    let mut kernel = smem_model::SharedMemory::builder(ComputeCapability::Sm90);
    let array = kernel.declare_2d::<f32>("tile", 32, 33).unwrap();
    let err = TileLayout::from_array(array, 34).unwrap_err();
    assert_eq!(
        err,
        Error::PitchTooSmall {
            pitch: 33,
            cols: 34
        }
    );
}

#[test]
fn access_errors() {
    let err = float_tile().offset(32, 0).unwrap_err();
    assert_eq!(
        err,
        Error::OutsideTile {
            row: 32,
            col: 0,
            rows: 32,
            cols: 32
        }
    );
    assert_eq!(
        message(err),
        "element (row 32, column 0) is outside the tile of 32 rows and 32 columns"
    );
    // A vector that runs off the row names its first element outside.
    let err = float_tile()
        .request(&TileAccess::from_fn(Op::Load, 4, |_| Some((0, 30))))
        .unwrap_err();
    assert_eq!(
        err,
        Error::OutsideTile {
            row: 0,
            col: 32,
            rows: 32,
            cols: 32
        }
    );
    // Column 31 of an address near u32::MAX: no overflow.
    let err = float_tile()
        .request(&TileAccess::from_fn(Op::Load, 2, |_| Some((0, u32::MAX))))
        .unwrap_err();
    assert!(matches!(err, Error::OutsideTile { col: u32::MAX, .. }));

    // Coordinates saturate rather than wrap back into the tile.
    let far = TileAccess::row(Op::Load, 0, u32::MAX - 1, 1);
    assert_eq!(far.element(Lane::new(31).unwrap()), Some((0, u32::MAX)));
    assert!(matches!(
        float_tile().request(&far),
        Err(Error::OutsideTile { .. })
    ));

    let swizzled = float_tile().with_swizzle(xor_rows()).unwrap();
    let float2 = TileAccess::from_fn(Op::Load, 2, |_| Some((1, 0)));
    let err = swizzled.request(&float2).unwrap_err();
    assert_eq!(
        err,
        Error::VectorSplit {
            row: 1,
            col: 0,
            vector: 2
        }
    );
    assert_eq!(
        message(err),
        "the 2 elements from row 1, column 0 are not contiguous in the swizzled layout, so one \
         lane cannot access them at once"
    );
    // Vectors the hardware has no access for.
    let err = float_tile()
        .request(&TileAccess::row(Op::Load, 0, 0, 3))
        .unwrap_err();
    assert_eq!(err, Error::InvalidWidth { width: 12 });
    let err = float_tile()
        .request(&TileAccess::row(Op::Load, 0, 0, 0))
        .unwrap_err();
    assert_eq!(err, Error::InvalidWidth { width: 0 });
    // atomicInc on doubles: the op is 4 bytes.
    let doubles = TileLayout::new(32, 32, 8).unwrap();
    let inc = Op::Atomic(smem_model::AtomicKind::Inc);
    let err = doubles.request(&TileAccess::row(inc, 0, 0, 1)).unwrap_err();
    assert_eq!(
        err,
        Error::WidthMismatch {
            op: inc,
            width: 8,
            expected: 4
        }
    );
    // A padded pitch that misaligns a float4 row.
    let err = float_tile()
        .with_padding(1)
        .unwrap()
        .request(&TileAccess::row(Op::Load, 1, 0, 4).with_mask(LaneSet::range(0, 8)))
        .unwrap_err();
    assert!(matches!(
        err,
        Error::Misaligned {
            lane: 0,
            address: 132,
            width: 16
        }
    ));
}

#[test]
fn pattern_errors() {
    let err = WarpRequest::parse_banks(sm90(), Op::Load, "0,1; 1").unwrap_err();
    assert_eq!(
        err,
        Error::BankListSyntax {
            entry: 1,
            text: "1".into()
        }
    );
    assert_eq!(
        message(err),
        "entry 1 of the bank list, \"1\", is not a pair of numbers `row,bank`"
    );
    for bad in ["0,1;;1,2", "a,b", "1,2,3", "-1,0", "0;"] {
        assert!(
            matches!(
                WarpRequest::parse_banks(sm90(), Op::Load, bad),
                Err(Error::BankListSyntax { .. })
            ),
            "{bad:?}"
        );
    }
    let err = WarpRequest::from_banks(sm90(), Op::Load, &[(0, 32)]).unwrap_err();
    assert_eq!(
        message(err),
        "bank 32 does not exist: the configuration has 32 banks"
    );
    let tesla = BankConfig::new(ComputeCapability::Sm13);
    let err = WarpRequest::parse_banks(tesla, Op::Load, "0,16").unwrap_err();
    assert_eq!(
        err,
        Error::BankOutOfRange {
            bank: 16,
            banks: 16
        }
    );
    let err = WarpRequest::from_banks(sm90(), Op::Load, &[(0, 0); 33]).unwrap_err();
    assert_eq!(err, Error::LaneCount { given: 33 });
    let err = WarpRequest::from_banks(sm90(), Op::Load, &[(u32::MAX, 0)]).unwrap_err();
    assert!(matches!(err, Error::SpanOverflow { base: 0, .. }));
    let err = WarpRequest::strided(Op::Load, 4, 0x400, u32::MAX).unwrap_err();
    assert_eq!(
        err,
        Error::SpanOverflow {
            base: 0x400,
            bytes: 4 * u64::from(u32::MAX) + 4
        }
    );
    assert_eq!(
        message(err),
        "17179869184 bytes from 0x400 run past the end of the 32-bit shared address space"
    );
    assert_eq!(
        WarpRequest::strided(Op::Load, 3, 0, 1),
        Err(Error::InvalidWidth { width: 3 })
    );
}

// ---------------------------------------------------------------------------
// Invariants: property tests, with the `proptest` feature (`cargo test --all-features`).

#[cfg(feature = "proptest")]
fn swizzle() -> impl Strategy<Value = Swizzle> {
    (0u32..=8, 0u32..=6, 0u32..=10).prop_filter_map("valid swizzle", |(bits, base, extra)| {
        Swizzle::new(bits, base, bits + extra).ok()
    })
}

/// Layouts with every element size, a padding or column tiles, and a
/// swizzle that fits.
#[cfg(feature = "proptest")]
fn layout() -> impl Strategy<Value = TileLayout> {
    (
        1u32..=40,
        1u32..=40,
        select(vec![1u32, 2, 4, 8, 16]),
        0u32..=9,
        proptest::option::of(swizzle()),
        0u32..1024,
        1u32..=4,
    )
        .prop_filter_map(
            "layout",
            |(rows, cols, element, padding, swizzle, base, tiles)| {
                let packed = TileLayout::new(rows, cols, element).ok()?;
                let shaped = if tiles > 1 {
                    packed.with_column_tiles(cols / tiles).ok()?
                } else {
                    packed.with_padding(padding).ok()?
                };
                let layout = shaped.with_base(base * element).ok()?;
                match swizzle {
                    Some(swizzle) => layout.with_swizzle(swizzle).ok(),
                    None => Some(layout),
                }
            },
        )
}

#[cfg(feature = "proptest")]
proptest! {
    /// A swizzle is its own inverse and keeps each offset in its block.
    #[test]
    fn swizzles_are_involutions_within_blocks(swizzle in swizzle(), offset in any::<u32>()) {
        let swizzled = swizzle.apply(offset);
        prop_assert_eq!(swizzle.apply(swizzled), offset);
        prop_assert_eq!(u64::from(swizzled) / swizzle.block(), u64::from(offset) / swizzle.block());
        // The low `base` bits never move.
        let low = (1u64 << swizzle.base()) - 1;
        prop_assert_eq!(u64::from(swizzled) & low, u64::from(offset) & low);
    }

    /// Every layout is a bijection from the tile's elements onto distinct,
    /// aligned places inside its storage, and `element_at` inverts it.
    #[test]
    fn layouts_are_bijections(layout in layout()) {
        let mut seen = std::collections::HashSet::new();
        for row in 0..layout.rows() {
            for col in 0..layout.cols() {
                let offset = layout.offset(row, col).unwrap();
                prop_assert_eq!(offset % layout.element_bytes(), 0);
                prop_assert!(u64::from(offset) + u64::from(layout.element_bytes()) <= layout.bytes());
                prop_assert!(seen.insert(offset));
                prop_assert_eq!(layout.element_at(offset), Some((row, col)));
                prop_assert_eq!(layout.address(row, col).unwrap(), layout.base() + offset);
            }
        }
        // The other places are padding.
        let places = layout.bytes() / u64::from(layout.element_bytes());
        let padding = (0..places as u32)
            .filter(|&i| layout.element_at(i * layout.element_bytes()).is_none())
            .count() as u64;
        prop_assert_eq!(padding * u64::from(layout.element_bytes()), layout.extra_bytes());
    }

    /// Column tiles are the tiles stacked: each column tile of `T` columns is
    /// the `rows x T` tile on its own (same swizzle), placed after the ones
    /// on its left.
    #[test]
    fn column_tiles_are_stacked_tiles(
        rows in 1u32..=24,
        tile_cols in 1u32..=24,
        tiles in 1u32..=4,
        element in select(vec![1u32, 2, 4, 8, 16]),
        // Small swizzles, whose periods fit these tiles often.
        swizzle in proptest::option::of((1u32..=3, 0u32..=2, 0u32..=2).prop_map(|(b, m, extra)| {
            Swizzle::new(b, m, b + extra).unwrap()
        })),
    ) {
        let cols = tile_cols * tiles;
        let mut layout = TileLayout::new(rows, cols, element).unwrap().with_column_tiles(tile_cols).unwrap();
        let mut one = TileLayout::new(rows, tile_cols, element).unwrap();
        if let Some(swizzle) = swizzle {
            // Only a swizzle whose period fits one tile reads nothing of the
            // tile's place.
            prop_assume!(u64::from(rows * tile_cols) % swizzle.period() == 0);
            layout = layout.with_swizzle(swizzle).unwrap();
            one = one.with_swizzle(swizzle).unwrap();
        }
        let span = rows * tile_cols * element;
        for row in 0..rows {
            for col in 0..cols {
                let (tile, within) = (col / tile_cols, col % tile_cols);
                prop_assert_eq!(
                    layout.offset(row, col).unwrap(),
                    tile * span + one.offset(row, within).unwrap()
                );
            }
        }
    }

    /// Padding never changes which element an index maps to: the padded
    /// layout puts `(row, col)` at `row * pitch + col`, keeps row-major order,
    /// and reads each element back as itself.
    #[test]
    fn padding_keeps_every_element(
        rows in 1u32..=40,
        cols in 1u32..=40,
        element in select(vec![1u32, 2, 4, 8, 16]),
        padding in 0u32..=40,
    ) {
        let packed = TileLayout::new(rows, cols, element).unwrap();
        let padded = packed.with_padding(padding).unwrap();
        let mut last = None;
        for row in 0..rows {
            for col in 0..cols {
                let offset = padded.offset(row, col).unwrap();
                prop_assert_eq!(offset, (row * (cols + padding) + col) * element);
                prop_assert_eq!(padded.element_at(offset), Some((row, col)));
                let index = packed.offset(row, col).unwrap() / element;
                prop_assert_eq!(index, row * cols + col);
                prop_assert!(last < Some(offset));
                last = Some(offset);
            }
        }
    }

    /// The TMA modes on elements are the byte-address swizzles.
    #[test]
    fn tma_element_swizzles_are_the_byte_swizzles(
        mode in select(TmaSwizzle::ALL.to_vec()),
        element in select(vec![1u32, 2, 4, 8, 16]),
        index in 0u32..1 << 20,
    ) {
        let on_elements = mode.for_element(element).unwrap();
        prop_assert_eq!(
            on_elements.apply(index) * element,
            mode.byte_swizzle().apply(index * element)
        );
    }

    /// The advisor's best is never worse than the layout as given, and the
    /// ranking is sorted.
    #[test]
    fn advice_is_ranked(
        cols in select(vec![8u32, 16, 32, 64]),
        element in select(vec![1u32, 2, 4, 8]),
        stride in 1u32..=3,
        col in 0u32..8,
    ) {
        let tile = TileLayout::new(32, cols, element).unwrap();
        let accesses = [
            TileAccess::column(Op::Load, 0, col, 1),
            TileAccess::from_fn(Op::Store, 1, |lane| {
                let row = lane.get() * stride % 32;
                Some((row, (lane.get() + col) % cols))
            }),
        ];
        let advice = tile.advise(sm90(), &accesses).unwrap();
        prop_assert!(advice.best().wavefronts() <= advice.original().wavefronts());
        let keys: Vec<_> = advice.candidates().iter().map(|c| (c.wavefronts(), c.extra_bytes())).collect();
        prop_assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        prop_assert!(advice.candidates().contains(advice.original()));
        prop_assert_eq!(advice.conflicts().is_empty(), advice.original().is_conflict_free());
    }
}

#[test]
fn advice_report() {
    let accesses: Vec<TileAccess> = (0..32).flat_map(TileAccess::transposed_copy).collect();
    let advice = float_tile().advise(sm90(), &accesses).unwrap();
    let report = advice.to_string();
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(
        lines[0],
        "64 accesses on 32x32 of 4-byte elements, pitch 32 (compute capability 9.0)"
    );
    assert_eq!(lines[1], "layouts tried, one line per outcome, best first:");
    // One line per outcome: the odd paddings that also work are counted, not listed.
    assert_eq!(
        lines[2],
        "  1. 64 wavefronts (ideal 64), conflict-free, 17 layouts: Swizzle<5,0,5>, \
         index row * 32 + (col ^ (row % 32)), 0 extra bytes; also 1 element of padding per \
         row, index row * 33 + col, 128 extra bytes; and 15 more layouts"
    );
    assert!(lines[3].starts_with("  2. 96 wavefronts (ideal 64), 10 layouts: Swizzle<4,0,5>"));
    // The TMA mode with its XOR swizzle, and what a cp.async kernel does with it.
    assert!(lines[4].starts_with(
        "  3. 160 wavefronts (ideal 64), 7 layouts: TMA 128B swizzle = Swizzle<3,2,3>, \
         index row * 32 + (col ^ ((row % 8) * 4)), 0 extra bytes"
    ));
    assert!(report.contains("\nTMA modes are the layouts a TMA load writes"));
    let outcomes = advice.outcomes().count();
    assert_eq!(outcomes, 6);
    assert_eq!(
        advice.outcomes().map(<[_]>::len).sum::<usize>(),
        advice.candidates().len()
    );
    // The 32 column writes conflict alike, each in its own bank: one line each.
    assert!(report.contains(
        "why the layout as given conflicts:\n  access 1 (STS): lanes 0-31 meet in bank 0 \
         (32 distinct words, 32 wavefronts)"
    ));
    assert!(report.ends_with("\n  and 24 more lines"), "{report}");
    let free = float_tile()
        .advise(sm90(), &[TileAccess::row(Op::Load, 0, 0, 1)])
        .unwrap();
    let text = free.to_string();
    assert!(text.starts_with("1 access on "), "{text}");
    assert!(
        text.contains("\n  1. 1 wavefront (ideal 1), conflict-free, "),
        "{text}"
    );
    assert!(text.ends_with("the layout as given is conflict-free"));
    assert!(free.best().is_conflict_free());
    assert_eq!(free.best().fix(), Fix::AsGiven);
}

/// Accesses that conflict alike (same op, bank, lanes, words) share a line.
#[test]
fn alike_conflicts_share_a_line() {
    let tile = TileLayout::new(64, 128, 2).unwrap();
    let advice = tile
        .advise(sm90(), &TileAccess::ldmatrix_tile(64, 128, 2).unwrap())
        .unwrap();
    assert_eq!(advice.conflicts().len(), 32);
    let report = advice.to_string();
    assert!(
        report.contains(
            "\n  accesses 0, 4, 8, 12, 16, 20, 24, 28 (LDSM.x4): lanes 0-7 meet in bank 0 \
         (8 distinct words, 8 wavefronts)\n  accesses 1, 5, 9,"
        ),
        "{report}"
    );
}

/// `ldmatrix` over any tile: every matrix read once, `.x2`/`.x1` at odd edges,
/// and tiles that are not whole matrices refused.
#[test]
fn ldmatrix_reads_every_matrix_of_any_tile_once() {
    for (rows, cols, element) in [
        (32, 32, 2),
        (64, 32, 2),
        (64, 128, 2),
        (16, 64, 2),
        (24, 40, 2),
        (8, 8, 2),
        (32, 16, 4),
        (16, 48, 1),
    ] {
        let all = TileAccess::ldmatrix_tile(rows, cols, element).unwrap();
        let w = 16 / element;
        let mut seen = std::collections::BTreeSet::new();
        for access in &all {
            for (lane, (row, col)) in access.elements() {
                // Lanes 8m..8m+7 give the rows of matrix m.
                assert!(
                    seen.insert((row, col)),
                    "({row}, {col}) read twice, lane {lane}"
                );
                assert_eq!(col % w, 0);
            }
        }
        let expected: std::collections::BTreeSet<_> = (0..rows)
            .flat_map(|r| (0..cols).step_by(w as usize).map(move |c| (r, c)))
            .collect();
        assert_eq!(seen, expected, "{rows}x{cols} of {element}-byte elements");
        // Every access is a request on the plain tile.
        let tile = TileLayout::new(rows, cols, element).unwrap();
        assert!(all.iter().all(|a| tile.request(a).is_ok()));
    }
    let x = |n| Op::LdMatrix(Matrices::from_count(n).unwrap());
    let ops: Vec<Op> = TileAccess::ldmatrix_tile(24, 24, 2)
        .unwrap()
        .iter()
        .map(TileAccess::op)
        .collect();
    assert_eq!(ops, [x(4), x(2), x(2), x(1)]);
    for (rows, cols, element) in [(20, 16, 2), (16, 12, 2), (0, 16, 2), (16, 2, 4)] {
        let err = TileAccess::ldmatrix_tile(rows, cols, element).unwrap_err();
        assert_eq!(
            err,
            Error::MatrixTile {
                rows,
                cols,
                matrix_cols: 16 / element,
                element_bytes: element
            }
        );
    }
    assert_eq!(
        TileAccess::ldmatrix_tile(16, 16, 2 * 3).unwrap_err(),
        Error::InvalidWidth { width: 6 }
    );
    assert_eq!(
        TileAccess::ldmatrix_tile(20, 16, 2)
            .unwrap_err()
            .to_string(),
        "a tile of 20 rows and 16 columns is not a whole number of ldmatrix matrices of 8 rows \
         and 8 columns (16 bytes of 2-byte elements)"
    );
}

/// A C expression over `row`, `col` and `i` with `* / % + >> ^` and
/// parentheses, at C's precedence: enough for `index_formula`'s output.
fn smem_eval(text: &str, row: u32, col: u32, i: u32) -> u32 {
    fn tokens(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let chars: Vec<char> = text.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            if c.is_whitespace() {
                k += 1;
            } else if c.is_ascii_alphanumeric() {
                let start = k;
                while k < chars.len() && chars[k].is_ascii_alphanumeric() {
                    k += 1;
                }
                out.push(chars[start..k].iter().collect());
            } else if c == '>' {
                out.push(">>".to_owned());
                k += 2;
            } else {
                out.push(c.to_string());
                k += 1;
            }
        }
        out
    }
    // Binary operators by precedence level, loosest first.
    const LEVELS: [&[&str]; 4] = [&["^"], &[">>"], &["+"], &["*", "/", "%"]];
    fn parse(t: &[String], pos: &mut usize, level: usize, vars: (u32, u32, u32)) -> u32 {
        if level == LEVELS.len() {
            let token = &t[*pos];
            *pos += 1;
            return match token.as_str() {
                "(" => {
                    let v = parse(t, pos, 0, vars);
                    assert_eq!(t[*pos], ")");
                    *pos += 1;
                    v
                }
                "row" => vars.0,
                "col" => vars.1,
                "i" => vars.2,
                n => n.parse().unwrap(),
            };
        }
        let mut v = parse(t, pos, level + 1, vars);
        while *pos < t.len() && LEVELS[level].contains(&t[*pos].as_str()) {
            let op = t[*pos].clone();
            *pos += 1;
            let w = parse(t, pos, level + 1, vars);
            v = match op.as_str() {
                "^" => v ^ w,
                ">>" => v >> w,
                "+" => v + w,
                "*" => v * w,
                "/" => v / w,
                _ => v % w,
            };
        }
        v
    }
    let t = tokens(text);
    let mut pos = 0;
    let v = parse(&t, &mut pos, 0, (row, col, i));
    assert_eq!(pos, t.len(), "{text}");
    v
}

/// The index formula printed beside each fix, checked against the layout's
/// own offsets by evaluating it.
#[test]
fn index_formulas_match_the_offsets() {
    fn eval(formula: &str, row: u32, col: u32) -> u32 {
        // The two shapes index_formula writes, evaluated by hand.
        let (expr, i) = match formula.split_once(", i = ") {
            Some((expr, linear)) => (expr, Some(linear)),
            None => (formula, None),
        };
        let value = |text: &str, i: u32| smem_eval(text, row, col, i);
        match i {
            Some(linear) => {
                let i = value(linear, 0);
                value(expr, i)
            }
            None => value(expr, 0),
        }
    }
    let mut layouts = vec![
        TileLayout::new(32, 32, 4).unwrap().with_padding(1).unwrap(),
        TileLayout::new(32, 32, 4)
            .unwrap()
            .with_swizzle(xor_rows())
            .unwrap(),
    ];
    for mode in TmaSwizzle::ALL {
        for (rows, cols, element) in [
            (64, 64, 2),
            (64, 32, 2),
            (32, 16, 4),
            (16, 8, 16),
            (64, 16, 2),
        ] {
            if let Ok(t) = TileLayout::new(rows, cols, element)
                .unwrap()
                .with_tma_swizzle(mode)
            {
                layouts.push(t);
            }
        }
    }
    for (b, m, s) in [(3, 3, 4), (2, 0, 6), (3, 4, 3), (1, 1, 1)] {
        if let Ok(t) = TileLayout::new(64, 64, 2)
            .unwrap()
            .with_swizzle(Swizzle::new(b, m, s).unwrap())
        {
            layouts.push(t);
        }
    }
    // Column tiles: Triton's wide NVMMA rows (the XOR within each tile), and
    // tiles too short for the swizzle's period (the XOR form on `i`).
    for (rows, cols, element, bytes) in [(64, 64, 4, 128), (16, 128, 2, 64), (8, 64, 4, 32)] {
        layouts.push(
            TileLayout::new(rows, cols, element)
                .unwrap()
                .with_nvmma_swizzle(bytes)
                .unwrap(),
        );
    }
    let short = TileLayout::new(4, 64, 2)
        .unwrap()
        .with_column_tiles(32)
        .unwrap()
        .with_swizzle(Swizzle::new(3, 3, 3).unwrap())
        .unwrap();
    assert_eq!(
        short.index_formula(),
        "i ^ (((i >> 6) % 8) * 8), i = (col / 32) * 128 + row * 32 + col % 32"
    );
    layouts.push(short);
    layouts.push(
        TileLayout::new(8, 96, 1)
            .unwrap()
            .with_column_tiles(32)
            .unwrap(),
    );
    for layout in layouts {
        let formula = layout.index_formula();
        for row in 0..layout.rows() {
            for col in 0..layout.cols() {
                let index = layout.offset(row, col).unwrap() / layout.element_bytes();
                assert_eq!(
                    eval(&formula, row, col),
                    index,
                    "{layout}: {formula} at ({row}, {col})"
                );
            }
        }
    }
}
#[test]
fn public_tile_types_are_send_sync_and_copy() {
    fn send_sync<T: Send + Sync>() {}
    fn copy<T: Copy>() {}
    send_sync::<smem_model::Advice>();
    send_sync::<smem_model::BankConflict>();
    copy::<smem_model::BankConflict>();
    copy::<smem_model::Candidate>();
    copy::<Fix>();
    copy::<Swizzle>();
    copy::<TileAccess>();
    copy::<TileLayout>();
    copy::<TmaSwizzle>();
}

#[test]
fn display_forms() {
    let tile = float_tile()
        .with_padding(1)
        .unwrap()
        .with_base(0x400)
        .unwrap();
    assert_eq!(
        tile.to_string(),
        "32x32 of 4-byte elements, pitch 33 at 0x400"
    );
    let swizzled = float_tile().with_swizzle(xor_rows()).unwrap();
    assert_eq!(
        swizzled.to_string(),
        "32x32 of 4-byte elements, pitch 32, Swizzle<5,0,5>"
    );
    assert_eq!(TmaSwizzle::B32.to_string(), "TMA 32B swizzle");
    assert_eq!(
        Fix::Padding { elements: 8 }.to_string(),
        "8 elements of padding per row"
    );
    // Removing a swizzle with the identity.
    let identity = Swizzle::new(0, 4, 3).unwrap();
    assert_eq!(swizzled.with_swizzle(identity).unwrap(), float_tile());
}

/// A Triton linear layout's bases checked against a tile: the element at
/// element offset `o` is the XOR of the bases of `o`'s set bits.
fn assert_bases(tile: TileLayout, bases: &[(u32, u32)]) {
    let elements = tile.rows() * tile.cols();
    assert_eq!(1u32 << bases.len(), elements, "{tile}");
    for offset in 0..elements {
        let (mut row, mut col) = (0, 0);
        for (bit, (r, c)) in bases.iter().enumerate() {
            if offset >> bit & 1 == 1 {
                row ^= r;
                col ^= c;
            }
        }
        assert_eq!(
            tile.element_at(offset * tile.element_bytes()),
            Some((row, col)),
            "{tile} at element offset {offset}"
        );
    }
}

/// Triton's own examples (unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp):
/// the offset bases its `toLinearLayout` gives for swizzled and NVMMA shared
/// encodings, as (dim0, dim1) with dim1 contiguous.
#[test]
fn triton_shared_encodings_match_tritons_tests() {
    let cols = |n: u32| (0..n.trailing_zeros()).map(move |k| (0, 1 << k));
    let swizzled = |rows, c, (vec, per_phase, max_phase)| {
        TileLayout::new(rows, c, 2)
            .unwrap()
            .with_triton_shared(TritonShared::new(vec, per_phase, max_phase).unwrap())
            .unwrap()
    };
    // SharedSwizzled2D_MaxPhaseOnly: {32, 32}, shared(1, 1, 4).
    let mut bases: Vec<_> = cols(32).collect();
    bases.extend([(1, 1), (2, 2), (4, 0), (8, 0), (16, 0)]);
    assert_bases(swizzled(32, 32, (1, 1, 4)), &bases);
    // SharedSwizzled2D_PerPhaseMaxPhase: shared(1, 2, 4).
    let mut bases: Vec<_> = cols(32).collect();
    bases.extend([(1, 0), (2, 1), (4, 2), (8, 0), (16, 0)]);
    assert_bases(swizzled(32, 32, (1, 2, 4)), &bases);
    // SharedSwizzled2D_PerPhaseMaxPhaseVec: shared(2, 2, 4).
    let mut bases: Vec<_> = cols(32).collect();
    bases.extend([(1, 0), (2, 2), (4, 4), (8, 0), (16, 0)]);
    assert_bases(swizzled(32, 32, (2, 2, 4)), &bases);
    // SharedSwizzled2D_Order01: {4, 8} with order {0, 1}: dim0 (4) is the
    // contiguous one, so the tile is 8 rows (dim1) of 4 columns (dim0); the
    // bases are Triton's with the pair swapped.
    assert_bases(
        swizzled(8, 4, (1, 1, 4)),
        &[(0, 1), (0, 2), (1, 1), (2, 2), (4, 0)],
    );
    let nvmma = |rows, c, bytes, element| {
        TileLayout::new(rows, c, element)
            .unwrap()
            .with_nvmma_swizzle(bytes)
            .unwrap()
    };
    // LeadingOffset_8x16_4_2: {8, 16}, nvmmaShared(32, 16-bit).
    let mut bases: Vec<_> = cols(16).collect();
    bases.extend([(1, 0), (2, 0), (4, 8)]);
    assert_bases(nvmma(8, 16, 32, 2), &bases);
    // LeadingOffset_128x16_4_2: the same rows repeated down 128.
    let mut bases: Vec<_> = cols(16).collect();
    bases.extend([(1, 0), (2, 0), (4, 8), (8, 0), (16, 0), (32, 0), (64, 0)]);
    assert_bases(nvmma(128, 16, 32, 2), &bases);
    // LeadingOffset_8x32_2_4: nvmmaShared(64, 16-bit).
    let mut bases: Vec<_> = cols(32).collect();
    bases.extend([(1, 0), (2, 8), (4, 16)]);
    assert_bases(nvmma(8, 32, 64, 2), &bases);
    // LeadingOffset_8x64_1_8: nvmmaShared(128, 16-bit).
    let mut bases: Vec<_> = cols(64).collect();
    bases.extend([(1, 8), (2, 16), (4, 32)]);
    assert_bases(nvmma(8, 64, 128, 2), &bases);
    // Rows wider than the swizzle: column tiles of the swizzle's width, each
    // all rows high, one after another (nvmmaSharedToLinearLayout).
    // LeadingOffset_8x64_1_8_32b: {8, 64} fp32, 128 bytes: the last basis
    // starts the second 32-column tile.
    let mut bases: Vec<_> = cols(32).collect();
    bases.extend([(1, 4), (2, 8), (4, 16), (0, 32)]);
    assert_bases(nvmma(8, 64, 128, 4), &bases);
    // LeadingOffset_128x128_1_8_128b_transposed: {128, 128} fp32 with dim0
    // contiguous, so 128 rows (dim1) of 128 columns (dim0); Triton's bases
    // with each pair swapped.
    let mut bases: Vec<_> = cols(32).collect();
    bases.extend([(1, 4), (2, 8), (4, 16), (8, 0), (16, 0), (32, 0), (64, 0)]);
    bases.extend([(0, 32), (0, 64)]);
    assert_bases(nvmma(128, 128, 128, 4), &bases);
    // LeadingOffset_32x4x64_1_8_32b: {32, 4, 64} fp32, 64 bytes; Triton
    // collapses the outer dimensions into 128 rows (row = 4 * d0 + d1).
    let mut bases: Vec<_> = cols(16).collect();
    bases.extend([(1, 0), (2, 4), (4, 8), (8, 0), (16, 0), (32, 0), (64, 0)]);
    bases.extend([(0, 16), (0, 32)]);
    assert_bases(nvmma(128, 64, 64, 4), &bases);
    // Narrower rows Triton refuses (getTMABlockShape), and so do we, by name.
    assert_eq!(
        TileLayout::new(8, 16, 4).unwrap().with_nvmma_swizzle(128),
        Err(Error::NvmmaRow {
            row_bytes: 64,
            swizzle_bytes: 128
        })
    );
    assert_eq!(
        Error::NvmmaRow {
            row_bytes: 64,
            swizzle_bytes: 128
        }
        .to_string(),
        "rows of 64 bytes are narrower than the 128-byte NVMMA swizzle, which Triton refuses: \
         give rows of at least 128 bytes"
    );
}

/// Column tiles: the layout Triton's wide NVMMA rows take, by hand.
#[test]
fn column_tiles_stack_the_tiles() {
    let tile = TileLayout::new(16, 96, 2)
        .unwrap()
        .with_column_tiles(32)
        .unwrap();
    assert_eq!(
        (tile.tile_cols(), tile.pitch(), tile.padding()),
        (32, 32, 0)
    );
    assert_eq!(tile.bytes(), 16 * 96 * 2);
    assert_eq!(tile.extra_bytes(), 0);
    // Column 32 starts the second tile, after all 16 rows of the first.
    assert_eq!(tile.offset(0, 31).unwrap(), 31 * 2);
    assert_eq!(tile.offset(1, 0).unwrap(), 32 * 2);
    assert_eq!(tile.offset(0, 32).unwrap(), 16 * 32 * 2);
    assert_eq!(tile.offset(15, 95).unwrap(), (16 * 96 - 1) * 2);
    assert_eq!(tile.element_at(16 * 32 * 2 + 2), Some((0, 33)));
    assert_eq!(
        tile.index_formula(),
        "(col / 32) * 512 + row * 32 + col % 32"
    );
    assert_eq!(
        tile.to_string(),
        "16x96 of 2-byte elements, pitch 32, column tiles of 32"
    );
    // Column tiles are packed: no pitch, padding or tile that does not divide.
    assert_eq!(
        tile.with_pitch(40),
        Err(Error::ColumnTiles {
            cols: 96,
            tile_cols: 32,
            padding: 8
        })
    );
    assert_eq!(
        TileLayout::new(16, 96, 2)
            .unwrap()
            .with_padding(2)
            .unwrap()
            .with_column_tiles(32),
        Err(Error::ColumnTiles {
            cols: 96,
            tile_cols: 32,
            padding: 2
        })
    );
    assert_eq!(
        TileLayout::new(16, 96, 2).unwrap().with_column_tiles(0),
        Err(Error::ColumnTiles {
            cols: 96,
            tile_cols: 0,
            padding: 0
        })
    );
    assert_eq!(
        TileLayout::new(16, 96, 2)
            .unwrap()
            .with_column_tiles(64)
            .unwrap_err()
            .to_string(),
        "column tiles of 64 columns on a tile of 96 columns with 0 elements of padding a row: \
         the tiles must divide the row and the tile be packed"
    );
    // A tile of one column tile is the packed tile.
    let packed = TileLayout::new(16, 96, 2).unwrap();
    assert_eq!(packed.with_column_tiles(96), Ok(packed));
}

/// Without a swizzle, Triton's NVMMA layout is row-major in TMA blocks of at
/// most 256 elements a row (getTMABlockShape), blocks one after another.
#[test]
fn unswizzled_nvmma_rows_past_256_elements_are_column_tiles() {
    let narrow = TileLayout::new(8, 256, 1).unwrap();
    assert_eq!(narrow.with_nvmma_swizzle(0), Ok(narrow));
    let wide = TileLayout::new(8, 512, 1)
        .unwrap()
        .with_nvmma_swizzle(0)
        .unwrap();
    assert_eq!(wide.tile_cols(), 256);
    assert_eq!(wide.offset(0, 256).unwrap(), 8 * 256);
    assert_eq!(wide.offset(1, 0).unwrap(), 256);
}

#[test]
fn triton_parameters_are_checked() {
    assert_eq!(
        TritonShared::new(8, 0, 8),
        Err(Error::TritonParameter {
            name: "perPhase",
            value: 0
        })
    );
    assert_eq!(
        TritonShared::new(8, 1, 6).unwrap_err().to_string(),
        "Triton's maxPhase must be a power of two up to 65536, not 6"
    );
    let shared = TritonShared::new(8, 1, 8).unwrap();
    assert_eq!(
        TileLayout::new(32, 48, 2)
            .unwrap()
            .with_triton_shared(shared),
        Err(Error::TritonShape { cols: 48 })
    );
    assert_eq!(
        TileLayout::new(32, 32, 2)
            .unwrap()
            .with_padding(8)
            .unwrap()
            .with_triton_shared(shared),
        Err(Error::TritonPadded { padding: 8 })
    );
    assert_eq!(
        TritonShared::nvmma(96, 2),
        Err(Error::NvmmaSwizzle { bytes: 96 })
    );
    // No swizzle: any row, unchanged.
    let plain = TileLayout::new(8, 100, 2).unwrap();
    assert_eq!(plain.with_nvmma_swizzle(0), Ok(plain));
}
