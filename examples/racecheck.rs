//! The classic block-level shared-memory bugs, checked on a CPU with `smem_model::Block`:
//! the same kernels as tools/racecheck/cases.cu (run under compute-sanitizer
//! on an H100) and the traces of tests/data/racecheck (run through
//! `smem racecheck`). Each kernel is written as its warps' shared accesses and
//! barriers, at the addresses its `__shared__` arrays get on sm_90 (laid out
//! by `SharedMemory`); a site is the kernel's source line.
//!
//! | kernel | the model says |
//! |---|---|
//! | A/B threads: thread 0 writes `x`, thread 32 reads it | read-write race |
//! | the same with `__syncthreads()` between | nothing |
//! | staticReverse with / without `__syncthreads()` | nothing / read-write race |
//! | tiled transpose: barrier in place / missing / moved before the writes | nothing / race / race |
//! | tiled matmul: both barriers / no second / no first | nothing / race / race |
//! | `__syncthreads()` in both branches of an `if` | barrier error |
//! | `__syncthreads()` reached by half of each warp | barrier error |
//! | warp-synchronous sum without / with `__syncwarp()` | warnings / nothing |
//! | a fence on both sides of the A/B race | still a race |
//!
//! Run with `cargo run --example racecheck`.

use std::io::{self, Write};

use smem_model::{
    Array, Block, BlockReport, ComputeCapability, Element, Error, LaneSet, Op, SharedMemory,
    SyncOp, WarpRequest,
};

const SM90: ComputeCapability = ComputeCapability::Sm90;

/// A warp's access to `array[index(lane)]`, `None` where the lane is off.
fn warp<T: Element>(
    smem: &SharedMemory,
    op: Op,
    array: Array<T>,
    index: impl Fn(u32) -> Option<usize>,
) -> Result<WarpRequest, Error> {
    let mut addresses = [None; 32];
    for lane in 0..32 {
        if let Some(i) = index(lane) {
            addresses[lane as usize] = Some(smem.address(array, i)?);
        }
    }
    WarpRequest::new(op, T::SIZE, addresses)
}

/// Thread 0 writes `x`, thread 32 reads it; with a barrier, a fence, or
/// nothing between.
fn ab(between: Option<SyncOp>) -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let x = kernel.declare::<i32>("x", 1)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 64)?;
    let only0 = |l: u32| (l == 0).then_some(0);
    block.access(0, 28, &warp(&smem, Op::Store, x, only0)?)?;
    if let Some(sync) = between {
        let lanes = if sync == SyncOp::Fence {
            LaneSet::from_bits(1)
        } else {
            LaneSet::FULL
        };
        block.sync(0, 29, lanes, sync)?;
        block.sync(1, 29, lanes, sync)?;
    }
    block.access(1, 30, &warp(&smem, Op::Load, x, only0)?)?;
    Ok(block.finish())
}

/// staticReverse<<<1, 64>>>, with or without its barrier.
fn reverse(barrier: bool) -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let s = kernel.declare::<i32>("s", 64)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 64)?;
    for w in 0..2u32 {
        let t = move |l: u32| (32 * w + l) as usize;
        block.access(w, 43, &warp(&smem, Op::Store, s, |l| Some(t(l)))?)?;
        if barrier {
            block.sync(w, 44, LaneSet::FULL, SyncOp::Threads)?;
        }
        block.access(w, 45, &warp(&smem, Op::Load, s, |l| Some(63 - t(l)))?)?;
    }
    Ok(block.finish())
}

/// Where the transpose's barrier is.
#[derive(Clone, Copy, PartialEq)]
enum Barrier {
    InPlace,
    Missing,
    Moved,
}

/// The tiled transpose through `tile[32][33]`, blocks of 32 x 8.
fn transpose(barrier: Barrier) -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let tile = kernel.declare_2d::<f32>("tile", 32, 33)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 256)?;
    for ty in 0..8u32 {
        if barrier == Barrier::Moved {
            block.sync(ty, 60, LaneSet::FULL, SyncOp::Threads)?;
        }
        for j in (0..32).step_by(8) {
            let write = |tx: u32| tile.index((ty + j) as usize, tx as usize).ok();
            block.access(ty, 63, &warp(&smem, Op::Store, tile, write)?)?;
        }
        if barrier == Barrier::InPlace {
            block.sync(ty, 64, LaneSet::FULL, SyncOp::Threads)?;
        }
        for j in (0..32).step_by(8) {
            let read = |tx: u32| tile.index(tx as usize, (ty + j) as usize).ok();
            block.access(ty, 67, &warp(&smem, Op::Load, tile, read)?)?;
        }
    }
    Ok(block.finish())
}

/// The tiled matmul with 16 x 16 tiles and blocks, `tiles` tiles along k
/// (n = 16 x tiles); `first` and `second` say which of its two barriers are
/// there.
fn matmul(first: bool, second: bool, tiles: usize) -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let a = kernel.declare_2d::<f32>("as", 16, 16)?;
    let b = kernel.declare_2d::<f32>("bs", 16, 16)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 256)?;
    // Warp w holds rows 2w (lanes 0-15) and 2w + 1 (lanes 16-31).
    for w in 0..8u32 {
        let ty = move |l: u32| (2 * w + l / 16) as usize;
        let tx = |l: u32| (l % 16) as usize;
        for _tile in 0..tiles {
            block.access(
                w,
                114,
                &warp(&smem, Op::Store, a, |l| a.index(ty(l), tx(l)).ok())?,
            )?;
            block.access(
                w,
                115,
                &warp(&smem, Op::Store, b, |l| b.index(ty(l), tx(l)).ok())?,
            )?;
            if first {
                block.sync(w, 116, LaneSet::FULL, SyncOp::Threads)?;
            }
            for k in 0..16 {
                block.access(
                    w,
                    117,
                    &warp(&smem, Op::Load, a, |l| a.index(ty(l), k).ok())?,
                )?;
                block.access(
                    w,
                    117,
                    &warp(&smem, Op::Load, b, |l| b.index(k, tx(l)).ok())?,
                )?;
            }
            if second {
                block.sync(w, 118, LaneSet::FULL, SyncOp::Threads)?;
            }
        }
    }
    Ok(block.finish())
}

/// `if (t < 32) { s[t] = t; __syncthreads(); } else { __syncthreads(); ... = s[t - 32]; }`
fn divergent_ifelse() -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let s = kernel.declare::<i32>("s", 32)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 64)?;
    block.access(0, 143, &warp(&smem, Op::Store, s, |l| Some(l as usize))?)?;
    block.sync(0, 144, LaneSet::FULL, SyncOp::Threads)?;
    block.sync(1, 146, LaneSet::FULL, SyncOp::Threads)?;
    block.access(1, 147, &warp(&smem, Op::Load, s, |l| Some(l as usize))?)?;
    Ok(block.finish())
}

/// `s[t] = t; if (t % 32 < 16) __syncthreads(); ... = s[63 - t];`
fn divergent_lanes() -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let s = kernel.declare::<i32>("s", 64)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 64)?;
    for w in 0..2u32 {
        let t = move |l: u32| (32 * w + l) as usize;
        block.access(w, 155, &warp(&smem, Op::Store, s, |l| Some(t(l)))?)?;
        block.sync(w, 156, LaneSet::range(0, 16), SyncOp::Threads)?;
        block.access(w, 157, &warp(&smem, Op::Load, s, |l| Some(63 - t(l)))?)?;
    }
    Ok(block.finish())
}

/// One warp sums 32 ints in `s[64]`: `s[t] += s[t + d]` for d = 16 .. 1,
/// with or without `__syncwarp()` between each read and write.
fn warp_reduce(syncwarp: bool) -> Result<BlockReport, Error> {
    let mut kernel = SharedMemory::builder(SM90);
    let s = kernel.declare::<i32>("s", 64)?;
    let smem = kernel.launch(0)?;
    let mut block = Block::new(SM90, 32)?;
    let sync =
        |block: &mut Block, line| block.sync(0, line, LaneSet::FULL, SyncOp::Warp(LaneSet::FULL));
    block.access(0, 166, &warp(&smem, Op::Store, s, |t| Some(t as usize))?)?;
    block.access(
        0,
        167,
        &warp(&smem, Op::Store, s, |t| Some(t as usize + 32))?,
    )?;
    if syncwarp {
        sync(&mut block, 168)?;
    }
    for d in [16, 8, 4, 2, 1] {
        block.access(
            0,
            169,
            &warp(&smem, Op::Load, s, |t| Some((t + d) as usize))?,
        )?;
        block.access(0, 169, &warp(&smem, Op::Load, s, |t| Some(t as usize))?)?;
        if syncwarp {
            sync(&mut block, 170)?;
        }
        block.access(0, 171, &warp(&smem, Op::Store, s, |t| Some(t as usize))?)?;
        if syncwarp {
            sync(&mut block, 172)?;
        }
    }
    Ok(block.finish())
}

/// Every case: its name and what the model found.
fn cases() -> Result<Vec<(&'static str, BlockReport)>, Error> {
    Ok(vec![
        ("ab_race", ab(None)?),
        ("ab_sync", ab(Some(SyncOp::Threads))?),
        ("fence_race", ab(Some(SyncOp::Fence))?),
        ("reverse_sync", reverse(true)?),
        ("reverse_nosync", reverse(false)?),
        ("transpose_sync", transpose(Barrier::InPlace)?),
        ("transpose_nosync", transpose(Barrier::Missing)?),
        ("transpose_moved", transpose(Barrier::Moved)?),
        ("matmul_sync", matmul(true, true, 2)?),
        ("matmul_no_second", matmul(true, false, 2)?),
        ("matmul_no_first", matmul(false, true, 2)?),
        ("divergent_ifelse", divergent_ifelse()?),
        ("divergent_lanes", divergent_lanes()?),
        ("warp_reduce_nosync", warp_reduce(false)?),
        ("warp_reduce_syncwarp", warp_reduce(true)?),
    ])
}

fn run(out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    for (name, report) in cases()? {
        writeln!(out, "{name}:")?;
        if report.is_clean() {
            writeln!(out, "  nothing found")?;
        }
        for hazard in report.hazards() {
            writeln!(out, "  {hazard}")?;
        }
        for error in report.barrier_errors() {
            writeln!(out, "  barrier error: {error}")?;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run(&mut io::stdout().lock())
}

#[cfg(test)]
mod tests {
    use super::*;
    use smem_model::{BarrierError, HazardKind, Severity};

    fn errors(report: &BlockReport) -> usize {
        report
            .hazards()
            .iter()
            .filter(|h| h.severity() == Severity::Error)
            .count()
    }

    #[test]
    fn correct_kernels_are_clean() {
        for report in [
            ab(Some(SyncOp::Threads)).unwrap(),
            reverse(true).unwrap(),
            transpose(Barrier::InPlace).unwrap(),
            matmul(true, true, 2).unwrap(),
            warp_reduce(true).unwrap(),
        ] {
            assert!(report.is_clean(), "{report}");
        }
    }

    #[test]
    fn the_ab_race_and_a_fence_that_does_not_fix_it() {
        for report in [ab(None).unwrap(), ab(Some(SyncOp::Fence)).unwrap()] {
            assert_eq!(report.hazards().len(), 1);
            let h = &report.hazards()[0];
            assert_eq!(
                (h.kind(), h.severity()),
                (HazardKind::ReadWrite, Severity::Error)
            );
            assert_eq!((h.first().thread(), h.second().thread()), (0, 32));
            assert_eq!((h.address(), h.bytes()), (0x400, 4));
        }
    }

    #[test]
    fn reverse_without_its_barrier_races_on_every_byte() {
        let report = reverse(false).unwrap();
        assert_eq!(report.hazards().len(), 1);
        assert_eq!(report.hazards()[0].bytes(), 256);
    }

    #[test]
    fn transpose_with_the_barrier_missing_or_moved() {
        let missing = transpose(Barrier::Missing).unwrap();
        assert_eq!(missing, transpose(Barrier::Moved).unwrap());
        // One source line writes, one reads: one pair of sites for each
        // severity (other warps' rows, and this warp's own row).
        assert_eq!(missing.hazards().len(), 2);
        assert_eq!(errors(&missing), 1);
        // Warp ty writes rows ty + 8i and reads columns ty + 8j: of the 128
        // floats it reads, the 16 at (ty + 8i, ty + 8j) are its own warp's and
        // the rest other warps' (7/8 of the tile between warps). Of its own 16,
        // the 4 on the diagonal (i = j) are the reading thread's own writes.
        assert_eq!(missing.hazards()[0].bytes(), 32 * 32 * 4 * 7 / 8);
        assert_eq!(missing.hazards()[1].bytes(), 8 * (16 - 4) * 4);
    }

    #[test]
    fn matmul_without_either_barrier() {
        // No second barrier: the second tile's stores race with the first
        // tile's loads of other warps (write-after-read, a read-write pair).
        let second = matmul(true, false, 2).unwrap();
        assert!(errors(&second) > 0);
        assert!(second
            .hazards()
            .iter()
            .all(|h| h.kind() == HazardKind::ReadWrite));
        // No first barrier: the loads race with the stores of the same tile.
        let first = matmul(false, true, 2).unwrap();
        assert!(errors(&first) > 0);
    }

    #[test]
    fn divergent_syncthreads() {
        let ifelse = divergent_ifelse().unwrap();
        assert!(matches!(
            ifelse.barrier_errors(),
            [BarrierError::DifferentSites { id: 0, .. }]
        ));
        let lanes = divergent_lanes().unwrap();
        assert_eq!(lanes.barrier_errors().len(), 2);
        assert!(lanes
            .barrier_errors()
            .iter()
            .all(|e| matches!(e, BarrierError::DivergentLanes { lanes: 0xffff, .. })));
    }

    #[test]
    fn warp_synchronous_code_needs_syncwarp() {
        let report = warp_reduce(false).unwrap();
        assert!(!report.hazards().is_empty());
        assert!(report
            .hazards()
            .iter()
            .all(|h| h.severity() == Severity::Warning));
    }

    #[test]
    fn the_example_prints_every_case() {
        let mut out = Vec::new();
        run(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("nothing found").count(), 5, "{text}");
        assert!(text.contains("barrier error: divergent barrier 0 at site 0x9c"));
    }
}
