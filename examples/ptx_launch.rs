//! Runs matrixMul's whole launch (tests/data/ptx/matmul: 200 blocks of 32x32
//! threads, 7.15 million warp instructions) through the PTX interpreter N
//! times with a consumer that only counts, for a fixed amount of work under
//! `perf stat -e instructions:u` (a count the machine's load does not
//! change, unlike a time; criterion's `benches/ptx.rs` gives the times).
//!
//!     cargo run --release --features ptx --example ptx_launch -- 3 [BLOCKS]
//!
//! BLOCKS runs a sample of that many blocks (for callgrind, where the whole
//! launch is slow).

use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::{Consumer, Event};
use smem_model::Error;

struct Count(u64);

impl Consumer for Count {
    fn event(&mut self, _warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.0 += u64::from(matches!(event, Event::Access { .. }));
        Ok(())
    }
}

fn main() -> Result<(), Error> {
    let runs: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ptx/matmul/kernel.ptx"
    );
    let text = std::fs::read_to_string(path).expect("the matmul fixture");
    let module = ptx::parse(&text)?;
    let kernel = Kernel::new(&module, None)?;
    let launch = KernelLaunch::new([20, 10, 1], [32, 32, 1])?
        .with_arg("3=320".parse()?)
        .with_arg("4=640".parse()?);
    let mut options = RunOptions::new();
    if let Some(blocks) = std::env::args().nth(2).and_then(|a| a.parse().ok()) {
        options = options.with_sample(blocks);
    }
    let mut count = Count(0);
    let mut steps = 0;
    for _ in 0..runs {
        steps += kernel.run(&launch, &options, &mut count)?.warp_instructions;
    }
    println!("{steps} warp instructions, {} accesses", count.0);
    Ok(())
}
