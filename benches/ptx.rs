//! The PTX interpreter's speed: warp instructions interpreted per second, on
//! the measured fixtures of tests/data/ptx, with a consumer that takes the
//! events and does nothing (the interpretation alone) and with the library's
//! tally (what `smem kernel` pays). `matmul` is cuda-samples' matrixMul,
//! 200 blocks of 32x32 threads: the whole launch per iteration. Run
//! `cargo bench -p smem-bench --bench ptx -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::tally::Tally;
use smem_model::kernel::{Consumer, Event};
use smem_model::Error;

/// Takes every event and keeps nothing but a count.
struct Sink(u64);

impl Consumer for Sink {
    fn event(&mut self, _warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.0 += u64::from(matches!(event, Event::Access { .. }));
        Ok(())
    }
}

fn fixture(name: &str, grid: [u32; 3], block: [u32; 3], args: &[&str]) -> (Kernel, KernelLaunch) {
    let path = format!(
        "{}/../tests/data/ptx/{name}/kernel.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let module = ptx::parse(&text).unwrap();
    let kernel = Kernel::new(&module, None).unwrap();
    let launch = args
        .iter()
        .fold(KernelLaunch::new(grid, block).unwrap(), |l, a| {
            l.with_arg(a.parse().unwrap())
        });
    (kernel, launch)
}

fn interpret(c: &mut Criterion) {
    let options = RunOptions::new();
    let mut group = c.benchmark_group("ptx");
    group.sample_size(10);
    for (name, grid, block, args) in [
        ("matmul", [20, 10, 1], [32, 32, 1], &["3=320", "4=640"][..]),
        ("transpose_coalesced", [8, 8, 1], [32, 8, 1], &[][..]),
        (
            "bitonic_sort",
            [8, 1, 1],
            [512, 1, 1],
            &["2=1024", "3=1"][..],
        ),
    ] {
        let (kernel, launch) = fixture(name, grid, block, args);
        let steps = kernel
            .run(&launch, &options, &mut Sink(0))
            .unwrap()
            .warp_instructions;
        group.throughput(Throughput::Elements(steps));
        group.bench_function(format!("interpret/{name}"), |b| {
            b.iter(|| {
                let mut sink = Sink(0);
                kernel.run(black_box(&launch), &options, &mut sink).unwrap();
                sink.0
            })
        });
        group.bench_function(format!("tally/{name}"), |b| {
            b.iter(|| {
                let mut tally = Tally::new();
                kernel
                    .run(black_box(&launch), &options, &mut tally)
                    .unwrap();
                tally.totals().wavefronts
            })
        });
    }
    group.finish();
}

criterion_group!(benches, interpret);
criterion_main!(benches);
