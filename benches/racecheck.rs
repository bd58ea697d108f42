//! The block model (`smem racecheck`'s checker) old and new side by side in one
//! run: `old` is the model of commit ee664fa (a per-byte shadow in a hash map,
//! `benches/old_block/`), `new` the crate's (a per-word shadow in a flat table
//! reused across blocks). Throughput is per warp request.
//!
//! Workloads:
//! - `gen_trace`: the request mix of `examples/gen_trace.rs` (strided and
//!   random `LDS`/`STS`, `LDS.128`, list-mode `LDS`; 64 PCs) by one warp with
//!   no barrier: a racy stream, every request checked against many records.
//! - `tile`: a block of 8 warps that store a 32 x 33 tile by rows, pass
//!   `__syncthreads()`, read it by columns and pass another, 64 times: the
//!   clean shape of most real kernels.
//! - `blocks`: 256 blocks of 2 warps, each a reverse kernel (store, barrier,
//!   load): the cost of starting a block (`new` reuses its tables through
//!   `Racecheck`; `old` builds a `Block` per block).
//! - `cases`: the generated racecheck traces of `tests/data/racecheck`
//!   (`make_traces.py` there: the kernels of `tools/racecheck/cases.cu`, racy
//!   and clean), each a kernel, through one checker.
//! - `real/NAME`: every real trace in `../shared/real-traces` (FlashInfer
//!   single-decode, prefill and GEMM, the 118 PyTorch kernels of nn-onestep,
//!   the Rodinia LUD extract, matrixMul; read once with
//!   `kernel::accelsim::Trace`), replayed kernel by kernel and block by block
//!   on the trace's compute capability (skipped where the traces are not
//!   there).
//!
//! `new` is `Racecheck` as the tool runs it: each kernel given its grid (a
//! grid of one block keeps no reference block) and a block whose events
//! repeat its kernel's first block reusing that block's report. `new-each` turns that off
//! (`Racecheck::without_memo`, hidden from the docs), so every block runs through the block model:
//! the per-request cost of blocks that differ.
//!
//! Run `cargo bench -p smem-bench --bench racecheck -- --warm-up-time 1
//! --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem_model::kernel::{BarrierKind, BlockInfo, Consumer, Event, KernelInfo, Site};
use smem_model::{Block, ComputeCapability, LaneSet, Op, Racecheck, WarpRequest};

#[allow(dead_code, clippy::all)]
mod old_block;

const SM90: ComputeCapability = ComputeCapability::Sm90;

/// One event of a block: an access, or a `__syncthreads()`.
#[derive(Clone, Copy)]
enum Ev {
    Access(u32, u64, WarpRequest),
    Syncthreads(u32, u64),
}

fn requests(events: &[Ev]) -> u64 {
    events
        .iter()
        .filter(|e| matches!(e, Ev::Access(..)))
        .count() as u64
}

/// `examples/gen_trace.rs`'s mix, as one warp's events.
fn gen_trace(n: u64) -> Vec<Ev> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below) as u32
    };
    (0..n)
        .map(|i| {
            let pc = 0x100 + 16 * (i % 64);
            let request = match i % 8 {
                7 => {
                    let a: Vec<u32> = (0..32).map(|_| 4 * random(1024)).collect();
                    WarpRequest::from_fn(Op::Load, 4, |l| Some(a[l.index()]))
                }
                6 => {
                    let base = 16 * random(512);
                    WarpRequest::from_fn(Op::Load, 16, |_| Some(base))
                }
                5 => {
                    let base = 4 * random(2048);
                    WarpRequest::from_fn(Op::Load, 4, |_| Some(base))
                }
                k => {
                    let stride = [4, 8, 128, 132, 16][(i / 8 % 5) as usize];
                    let base = 4 * random(1024);
                    let op = if k % 2 == 1 { Op::Store } else { Op::Load };
                    WarpRequest::from_fn(op, 4, |l| Some(base + stride * l.get()))
                }
            };
            Ev::Access(0, pc, request.unwrap())
        })
        .collect()
}

/// The tile kernel: 8 warps, 64 rounds of row stores and column loads.
fn tile() -> Vec<Ev> {
    let mut events = Vec::new();
    for round in 0..64u64 {
        let site = 0x100 * round;
        for warp in 0..8u32 {
            for r in 0..4 {
                let row = 4 * warp + r;
                let store =
                    WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * (33 * row + l.get()))).unwrap();
                events.push(Ev::Access(warp, site + 0x10, store));
            }
            events.push(Ev::Syncthreads(warp, site + 0x20));
            for r in 0..4 {
                let col = 4 * warp + r;
                let load =
                    WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (33 * l.get() + col))).unwrap();
                events.push(Ev::Access(warp, site + 0x30, load));
            }
            events.push(Ev::Syncthreads(warp, site + 0x40));
        }
    }
    events
}

/// The reverse kernel of 64 threads.
fn reverse() -> Vec<Ev> {
    let mut events = Vec::new();
    for warp in 0..2u32 {
        let store = WarpRequest::from_fn(Op::Store, 4, |l| Some(4 * (32 * warp + l.get())));
        events.push(Ev::Access(warp, 0x10, store.unwrap()));
        events.push(Ev::Syncthreads(warp, 0x20));
        let load = WarpRequest::from_fn(Op::Load, 4, |l| Some(4 * (63 - 32 * warp - l.get())));
        events.push(Ev::Access(warp, 0x30, load.unwrap()));
    }
    events
}

fn run_new(threads: u32, events: &[Ev]) -> usize {
    let mut block = Block::new(SM90, threads).unwrap();
    for e in events {
        match *e {
            Ev::Access(w, site, ref r) => block.access(w, site, r).unwrap(),
            Ev::Syncthreads(w, site) => block
                .sync(w, site, LaneSet::FULL, smem_model::SyncOp::Threads)
                .unwrap(),
        }
    }
    block.finish().hazards().len()
}

fn run_old(threads: u32, events: &[Ev]) -> usize {
    let mut block = old_block::Block::new(SM90, threads).unwrap();
    for e in events {
        match *e {
            Ev::Access(w, site, ref r) => block.access(w, site, r).unwrap(),
            Ev::Syncthreads(w, site) => block
                .sync(w, site, LaneSet::FULL, old_block::SyncOp::Threads)
                .unwrap(),
        }
    }
    block.finish().hazards().len()
}

/// `Racecheck` as the tool runs it (`reuse`: a block whose events repeat its
/// kernel's first block reuses that block's report), or running every block
/// through the block model: the per-request cost of blocks that differ.
fn checker(reuse: bool) -> Racecheck {
    if reuse {
        Racecheck::new()
    } else {
        Racecheck::new().without_memo()
    }
}

/// Many blocks through `Racecheck`, which keeps one block model.
fn run_new_blocks(blocks: u32, events: &[Ev], reuse: bool) -> usize {
    let mut check = checker(reuse);
    let kernel = KernelInfo::named("reverse").with_block_dim([64, 1, 1]);
    check.begin_kernel(&kernel).unwrap();
    for b in 0..blocks {
        check.begin_block(&BlockInfo::new([b, 0, 0], None)).unwrap();
        for e in events {
            let (warp, event) = match *e {
                Ev::Access(w, site, request) => (
                    w,
                    Event::Access {
                        site: Site::pc(site),
                        request,
                    },
                ),
                Ev::Syncthreads(w, site) => (
                    w,
                    Event::Barrier {
                        site: Site::pc(site),
                        lanes: LaneSet::FULL,
                        id: 0,
                        threads: None,
                        kind: BarrierKind::Sync,
                    },
                ),
            };
            check.event(warp, &event).unwrap();
        }
        check.end_block().unwrap();
    }
    check.end_kernel().unwrap();
    check.kernels()[0].hazards().len()
}

/// One block's events of a real trace, as the block model takes them.
#[derive(Clone, Copy)]
enum Real {
    Access(u32, u64, WarpRequest),
    Barrier(u32, u64, LaneSet, u32, Option<u32>),
    SyncWarp(u32, u64, LaneSet, LaneSet),
    Fence(u32, u64, LaneSet),
}

/// A trace's kernels, each its blocks: threads and events.
#[derive(Default)]
struct Recorded {
    block_dim: Option<[u32; 3]>,
    /// The first kernel's (`-binary version`).
    capability: Option<ComputeCapability>,
    /// Each kernel's grid (`-grid dim`), and its blocks.
    kernels: Vec<RecordedKernel>,
}

/// A kernel's grid and its blocks, each with its threads and events.
type RecordedKernel = (Option<[u32; 3]>, Vec<(u32, Vec<Real>)>);

/// A kernel to replay: its grid, as the tool gives it to the checker (a
/// grid of one block keeps no reference block), and its blocks.
type Replayed<'a> = (Option<[u32; 3]>, &'a [(u32, Vec<Real>)]);

/// The kernels of a recording, to replay.
fn replayed(recorded: &[RecordedKernel]) -> Vec<Replayed<'_>> {
    recorded
        .iter()
        .map(|(grid, blocks)| (*grid, blocks.as_slice()))
        .collect()
}

impl Consumer for Recorded {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), smem_model::Error> {
        self.block_dim = kernel.block_dim;
        self.capability = self.capability.or(kernel.capability);
        self.kernels.push((kernel.grid_dim, Vec::new()));
        Ok(())
    }
    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), smem_model::Error> {
        let threads = block
            .threads
            .or(self.block_dim.map(|d| d[0] * d[1] * d[2]))
            .unwrap_or(1024);
        if let Some(kernel) = self.kernels.last_mut() {
            kernel.1.push((threads, Vec::new()));
        }
        Ok(())
    }
    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), smem_model::Error> {
        let real = match *event {
            Event::Access { site, request } | Event::CasRound { site, request } => {
                Real::Access(warp, site.pc, request)
            }
            Event::Barrier {
                site,
                lanes,
                id,
                threads,
                ..
            } => Real::Barrier(warp, site.pc, lanes, id, threads),
            Event::SyncWarp { site, lanes, mask } => Real::SyncWarp(warp, site.pc, lanes, mask),
            Event::Fence { site, lanes } => Real::Fence(warp, site.pc, lanes),
            _ => return Ok(()),
        };
        if let Some(block) = self.kernels.last_mut().and_then(|k| k.1.last_mut()) {
            block.1.push(real);
        }
        Ok(())
    }
}

fn real_requests(blocks: &[(u32, Vec<Real>)]) -> u64 {
    blocks
        .iter()
        .flat_map(|b| &b.1)
        .filter(|e| matches!(e, Real::Access(..)))
        .count() as u64
}

/// Kernels one after the other through one `Racecheck`, as `smem racecheck`
/// runs the files it is given: hazards over all of them.
fn replay_kernels(capability: ComputeCapability, kernels: &[Replayed<'_>], reuse: bool) -> usize {
    let mut check = checker(reuse).with_capability(capability);
    for &(grid, blocks) in kernels {
        replay_kernel(&mut check, grid, blocks);
    }
    check.kernels().iter().map(|k| k.hazards().len()).sum()
}

fn replay_kernel(check: &mut Racecheck, grid: Option<[u32; 3]>, blocks: &[(u32, Vec<Real>)]) {
    let mut info = KernelInfo::named("real");
    info.grid_dim = grid;
    check.begin_kernel(&info).unwrap();
    for (i, (threads, events)) in blocks.iter().enumerate() {
        check
            .begin_block(&BlockInfo::new([i as u32, 0, 0], Some(*threads)))
            .unwrap();
        for e in events {
            let (warp, event) = match *e {
                Real::Access(w, pc, request) => (
                    w,
                    Event::Access {
                        site: Site::pc(pc),
                        request,
                    },
                ),
                Real::Barrier(w, pc, lanes, id, threads) => (
                    w,
                    Event::Barrier {
                        site: Site::pc(pc),
                        lanes,
                        id,
                        threads,
                        kind: BarrierKind::Sync,
                    },
                ),
                Real::SyncWarp(w, pc, lanes, mask) => (
                    w,
                    Event::SyncWarp {
                        site: Site::pc(pc),
                        lanes,
                        mask,
                    },
                ),
                Real::Fence(w, pc, lanes) => (
                    w,
                    Event::Fence {
                        site: Site::pc(pc),
                        lanes,
                    },
                ),
            };
            check.event(warp, &event).unwrap();
        }
        check.end_block().unwrap();
    }
    check.end_kernel().unwrap();
}

fn replay_old(capability: ComputeCapability, blocks: &[(u32, Vec<Real>)]) -> usize {
    use old_block::SyncOp;
    let mut found = 0;
    for (threads, events) in blocks {
        let mut block = old_block::Block::new(capability, *threads).unwrap();
        for e in events {
            match *e {
                Real::Access(w, pc, ref r) => block.access(w, pc, r).unwrap(),
                Real::Barrier(w, pc, lanes, id, threads) => {
                    let op = match (id, threads) {
                        (0, None) => SyncOp::Threads,
                        (id, t) => SyncOp::Named {
                            id,
                            threads: t.unwrap_or(32 * block.warps()),
                        },
                    };
                    block.sync(w, pc, lanes, op).unwrap()
                }
                Real::SyncWarp(w, pc, lanes, mask) => {
                    block.sync(w, pc, lanes, SyncOp::Warp(mask)).unwrap()
                }
                Real::Fence(w, pc, lanes) => block.sync(w, pc, lanes, SyncOp::Fence).unwrap(),
            }
        }
        found += block.finish().hazards().len();
    }
    found
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("racecheck");
    for (name, threads, events) in [("gen_trace", 32, gen_trace(1024)), ("tile", 256, tile())] {
        group.throughput(Throughput::Elements(requests(&events)));
        assert_eq!(run_old(threads, &events), run_new(threads, &events));
        group.bench_function(format!("{name}/old"), |b| {
            b.iter(|| run_old(threads, black_box(&events)))
        });
        group.bench_function(format!("{name}/new"), |b| {
            b.iter(|| run_new(threads, black_box(&events)))
        });
    }
    let one = reverse();
    let blocks = 256;
    group.throughput(Throughput::Elements(u64::from(blocks) * requests(&one)));
    group.bench_function("blocks/old", |b| {
        b.iter(|| {
            (0..blocks)
                .map(|_| run_old(64, black_box(&one)))
                .sum::<usize>()
        })
    });
    group.bench_function("blocks/new", |b| {
        b.iter(|| run_new_blocks(blocks, black_box(&one), true))
    });
    group.bench_function("blocks/new-each", |b| {
        b.iter(|| run_new_blocks(blocks, black_box(&one), false))
    });
    // The generated racecheck traces of tests/data/racecheck (written by its
    // make_traces.py from the kernels of tools/racecheck/cases.cu: A/B
    // threads, reverse, transpose, tiled matmul, warp reductions, divergent
    // and named barriers, fences), every one `smem racecheck` reads without
    // an error, each a kernel, all through one checker.
    let cases = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/racecheck");
    let mut kernels = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "traceg"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("bad_"))
        .collect();
    names.sort();
    for path in &names {
        let mut recorded = Recorded::default();
        smem_model::kernel::accelsim::Trace::open(path)
            .read(&mut recorded)
            .unwrap();
        kernels.extend(recorded.kernels);
    }
    let kernels = replayed(&kernels);
    let requests: u64 = kernels.iter().map(|k| real_requests(k.1)).sum();
    group.throughput(Throughput::Elements(requests));
    assert_eq!(
        replay_kernels(SM90, &kernels, true),
        replay_kernels(SM90, &kernels, false)
    );
    group.bench_function("cases/old", |b| {
        b.iter(|| {
            kernels
                .iter()
                .map(|k| replay_old(SM90, black_box(k.1)))
                .sum::<usize>()
        })
    });
    group.bench_function("cases/new", |b| {
        b.iter(|| replay_kernels(SM90, black_box(&kernels), true))
    });
    group.bench_function("cases/new-each", |b| {
        b.iter(|| replay_kernels(SM90, black_box(&kernels), false))
    });
    let traces = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/real-traces");
    for (name, file) in [
        (
            "flashinfer-singledecode",
            "flashinfer-singledecode/kernelslist.g",
        ),
        ("flashinfer-prefill", "flashinfer-prefill/kernelslist.g"),
        ("flashinfer-gemm", "flashinfer-gemm/kernelslist.g"),
        ("nn-onestep", "nn-onestep/kernelslist.g"),
        ("lud", "lud_perimeter.kernel-8.extract.traceg"),
        ("matrixmul", "matrixmul-32-32.kernel-1.traceg"),
    ] {
        let path = format!("{traces}/{file}");
        if !std::path::Path::new(&path).exists() {
            eprintln!("real/{name}: {path} is not there, skipped");
            continue;
        }
        let mut recorded = Recorded::default();
        smem_model::kernel::accelsim::Trace::open(&path)
            .read(&mut recorded)
            .unwrap();
        let capability = recorded.capability.unwrap_or(ComputeCapability::Sm80);
        let kernels = replayed(&recorded.kernels);
        let requests: u64 = kernels.iter().map(|k| real_requests(k.1)).sum();
        group.throughput(Throughput::Elements(requests));
        let old = |kernels: &[Replayed<'_>]| -> usize {
            kernels.iter().map(|k| replay_old(capability, k.1)).sum()
        };
        assert_eq!(
            old(&kernels) == 0,
            replay_kernels(capability, &kernels, true) == 0
        );
        assert_eq!(
            replay_kernels(capability, &kernels, true),
            replay_kernels(capability, &kernels, false)
        );
        group.bench_function(format!("real/{name}/old"), |b| {
            b.iter(|| old(black_box(&kernels)))
        });
        group.bench_function(format!("real/{name}/new"), |b| {
            b.iter(|| replay_kernels(capability, black_box(&kernels), true))
        });
        group.bench_function(format!("real/{name}/new-each"), |b| {
            b.iter(|| replay_kernels(capability, black_box(&kernels), false))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
