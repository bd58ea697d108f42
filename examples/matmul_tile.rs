//! The tiled matrix products of the CUDA Best Practices Guide (section on shared
//! memory in matrix multiplication), with w x w tiles, w = 32: one warp is one
//! tile row (`threadIdx.y` fixed, `threadIdx.x` = lane).
//!
//! C = AB reads `aTile[threadIdx.y][i]` (every lane the same word: a broadcast)
//! and `bTile[i][threadIdx.x]` (a row: conflict-free), so padding changes
//! nothing. C = AA^T reads `transposedTile[threadIdx.x][i]`, a column: 32-way
//! without padding and conflict-free with `transposedTile[TILE_DIM][TILE_DIM+1]`.
//!
//! Run with `cargo run --example matmul_tile`.

use std::io::{self, Write};

use smem_model::{ComputeCapability, SharedMemory, StoreOrder};

const W: usize = 32;

/// Wavefronts of (aTile row read, bTile row read, transposed column read, tile
/// store) for tiles with `pitch` floats per row.
fn costs(pitch: usize) -> Result<[u32; 4], Box<dyn std::error::Error>> {
    let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    let a_tile = kernel.declare_2d::<f32>("aTile", W, pitch)?;
    let b_tile = kernel.declare_2d::<f32>("bTile", W, pitch)?;
    let mut block = kernel.launch(0)?;
    let (ty, i) = (5, 7);
    let mut store = 0;
    for row in 0..W {
        for tile in [a_tile, b_tile] {
            // aTile[threadIdx.y][threadIdx.x] = a[...];
            let s = block.warp_store(
                tile,
                |lane| Some((tile.index(row, lane.index()).ok()?, 1.0)),
                StoreOrder::Undefined,
            )?;
            store = store.max(s.partition().wavefronts());
        }
    }
    let a_row = block.warp_load(a_tile, |_| a_tile.index(ty, i).ok())?;
    let b_row = block.warp_load(b_tile, |lane| b_tile.index(i, lane.index()).ok())?;
    let transposed = block.warp_load(b_tile, |lane| b_tile.index(lane.index(), i).ok())?;
    Ok([
        a_row.partition().wavefronts(),
        b_row.partition().wavefronts(),
        transposed.partition().wavefronts(),
        store,
    ])
}

fn run(out: &mut impl Write) -> Result<[[u32; 4]; 2], Box<dyn std::error::Error>> {
    writeln!(
        out,
        "tiled C = AB and C = AA^T, {W}x{W} float tiles, one warp per tile row, sm_90"
    )?;
    writeln!(
        out,
        "{:<22}{:>12}{:>12}{:>14}{:>12}",
        "tile", "aTile[y][i]", "bTile[i][x]", "tTile[x][i]", "store"
    )?;
    let mut all = [[0; 4]; 2];
    for (k, (name, pitch)) in [("[32][32]", W), ("[32][33] (padded)", W + 1)]
        .into_iter()
        .enumerate()
    {
        let c = costs(pitch)?;
        writeln!(
            out,
            "{name:<22}{:>12}{:>12}{:>14}{:>12}",
            c[0], c[1], c[2], c[3]
        )?;
        all[k] = c;
    }
    writeln!(out, "(wavefronts per warp access; 1 is conflict-free)")?;
    Ok(all)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run(&mut io::stdout().lock()).map(|_| ())
}

#[test]
fn padding_fixes_only_the_column_read() {
    let costs = run(&mut Vec::new()).unwrap();
    assert_eq!(costs, [[1, 1, 32, 1], [1, 1, 1, 1]]);
}
