//! The race checker's own rate on a trace: warp requests a second through
//! `Racecheck` (the block model behind `smem racecheck`), the trace read
//! once into memory so that reading it is not counted.
//!
//! ```sh
//! cargo run --release --features trace --example racecheck_rate -- \
//!     tests/data/racecheck/matmul_sync.traceg
//! cargo run --release --features trace --example racecheck_rate -- \
//!     ../shared/real-traces/flashinfer-prefill/kernelslist.g 200 each
//! cargo run --release --features trace --example racecheck_rate -- \
//!     tests/data/racecheck/ab_race.traceg 100000 reuse
//! ```
//!
//! Arguments: the trace (anything `smem racecheck` reads), the number of
//! times to run it (default 1000; a new checker each time, as a new run of
//! the tool would be), `each` to run every block through the block model
//! (`Racecheck::without_memo`) rather than reuse the report of a block whose
//! events repeat its kernel's first block, and `reuse` to give every run to
//! one checker, as one run of the tool gives it the kernels of a list: the
//! rate without a checker's start (its tables allocated and zeroed, about a
//! microsecond, most of the time of a kernel of a few requests). The
//! compute capability is the
//! trace's (`-binary version`), as `smem racecheck` takes it. The load average
//! before and after is printed: on a shared machine, compare rates taken in
//! one sitting. `benches/racecheck.rs` measures the same with criterion, on
//! fixed inputs and beside the old model.

use std::time::Instant;

use smem_model::kernel::{accelsim::Trace, BlockInfo, Consumer, Event, KernelInfo};
use smem_model::{ComputeCapability, Error, Racecheck};

/// A kernel as recorded: its header and each block's events, each with its warp.
struct Kernel {
    name: String,
    capability: Option<ComputeCapability>,
    block_dim: Option<[u32; 3]>,
    grid_dim: Option<[u32; 3]>,
    blocks: Vec<(BlockInfo, Vec<(u32, Event<'static>)>)>,
}

/// Every event `Racecheck` takes, in order.
#[derive(Default)]
struct Recorded {
    kernels: Vec<Kernel>,
    requests: u64,
}

impl Consumer for Recorded {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.kernels.push(Kernel {
            name: kernel.name.to_string(),
            capability: kernel.capability,
            block_dim: kernel.block_dim,
            grid_dim: kernel.grid_dim,
            blocks: Vec::new(),
        });
        Ok(())
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        if let Some(kernel) = self.kernels.last_mut() {
            kernel.blocks.push((*block, Vec::new()));
        }
        Ok(())
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        // The events that name an instruction (`Unmodelled`) borrow its name
        // from the reader: the checker only counts them, so they are left out.
        let event: Event<'static> = match *event {
            Event::Access { site, request } => {
                self.requests += 1;
                Event::Access { site, request }
            }
            Event::CasRound { site, request } => Event::CasRound { site, request },
            Event::Barrier {
                site,
                lanes,
                id,
                threads,
                kind,
            } => Event::Barrier {
                site,
                lanes,
                id,
                threads,
                kind,
            },
            Event::SyncWarp { site, lanes, mask } => Event::SyncWarp { site, lanes, mask },
            Event::Fence { site, lanes } => Event::Fence { site, lanes },
            _ => return Ok(()),
        };
        if let Some((_, events)) = self.kernels.last_mut().and_then(|k| k.blocks.last_mut()) {
            events.push((warp, event));
        }
        Ok(())
    }
}

/// A new checker, as `smem racecheck` makes one.
fn checker(each: bool) -> Racecheck {
    if each {
        Racecheck::new().without_memo()
    } else {
        Racecheck::new()
    }
}

/// Runs every kernel through `checker`; the hazards of those kernels.
fn check(recorded: &Recorded, checker: &mut Racecheck) -> Result<usize, Error> {
    for kernel in &recorded.kernels {
        let mut info = KernelInfo::named(&kernel.name);
        info.capability = kernel.capability;
        info.block_dim = kernel.block_dim;
        info.grid_dim = kernel.grid_dim;
        checker.begin_kernel(&info)?;
        for (block, events) in &kernel.blocks {
            checker.begin_block(block)?;
            for (warp, event) in events {
                checker.event(*warp, event)?;
            }
            checker.end_block()?;
        }
        checker.end_kernel()?;
    }
    let kernels = checker.kernels();
    let these = &kernels[kernels.len() - recorded.kernels.len()..];
    Ok(these.iter().map(|k| k.hazards().len()).sum())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: racecheck_rate TRACE [RUNS [each] [reuse]]";
    let path = args.next().ok_or(usage)?;
    let runs: u32 = match args.next() {
        Some(n) => n.parse().map_err(|e| format!("{usage}: RUNS: {e}"))?,
        None => 1000,
    };
    let (mut each, mut reuse) = (false, false);
    for flag in args {
        match flag.as_str() {
            "each" => each = true,
            "reuse" => reuse = true,
            other => return Err(format!("{usage}: not `each` nor `reuse`: {other}").into()),
        }
    }
    let mut recorded = Recorded::default();
    Trace::open(&path).read(&mut recorded)?;
    println!("load before: {}", load());
    let started = Instant::now();
    let mut hazards = 0;
    let mut shared = checker(each);
    for _ in 0..runs.max(1) {
        hazards = if reuse {
            check(&recorded, &mut shared)?
        } else {
            check(&recorded, &mut checker(each))?
        };
    }
    let seconds = started.elapsed().as_secs_f64();
    let requests = recorded.requests * u64::from(runs.max(1));
    println!(
        "{path}: {} warp requests x {} runs in {seconds:.3} s: {:.2} M requests/s ({}, {}; {hazards} hazards)",
        recorded.requests,
        runs.max(1),
        requests as f64 / seconds / 1e6,
        if each { "every block through the model" } else { "as smem racecheck runs it" },
        if reuse { "one checker for all runs" } else { "a new checker a run" },
    );
    println!("load after: {}", load());
    Ok(())
}
