//! Reading Accel-Sim traces through the library: `Trace::read` into a
//! `Tally` (the three lines a simulator writes) and into a `Racecheck` (what
//! `smem racecheck` does), and `read_chunk` of each chunk (what each `smem
//! trace` worker does), per line of trace.
//!
//! The trace is `$SMEM_BENCH_TRACE` where set (e.g. a real trace, such as
//! those of ../shared/real-traces decompressed), else a generated one with the
//! mix of real ones: of 25 instruction lines, 24 neither touch shared memory
//! nor synchronise (arithmetic, global loads with their addresses, branches)
//! and one is a shared access, a barrier every 50 lines. Run briefly:
//! `cargo bench -p smem-bench --bench trace -- --warm-up-time 1 --measurement-time 3`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smem_model::kernel::accelsim::input::{Input, Reader};
use smem_model::kernel::accelsim::{read_chunk, Trace};
use smem_model::kernel::tally::Tally;
use smem_model::Racecheck;

/// A generated `.traceg` of about `lines` lines in blocks of 4 warps.
fn generated(lines: usize) -> String {
    let others = [
        "1 R1 IMAD.MOV.U32 2 R255 R255 0 0",
        "1 R0 S2R 0 0 0",
        "1 R59 HFMA2.MMA 2 R255 R255 0 0",
        "1 R3 ISETP.GE.AND 2 R0 R2 0 0",
        "1 R4 LDG.E.128 1 R2 16 2 0x7ff890202000 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 0",
        "1 R7 FFMA 3 R5 R6 R7 0 0",
        "0 BRA 0 0 0",
        "1 R8 SHF.R.U32.HI 2 R1 R2 0 0",
    ];
    let mut text = String::from(
        "-kernel name = _Z4benchPf\n-binary version = 80\n-block dim = (128,1,1)\n\
         -shmem base_addr = 0x00007ff97b000000\n-enable lineinfo = 0\n\n",
    );
    let mut written = 0;
    let mut block = 0;
    while written < lines {
        writeln!(text, "#BEGIN_TB\n\nthread block = {block},0,0\n").unwrap();
        for warp in 0..4u32 {
            writeln!(text, "warp = {warp}\ninsts = 250").unwrap();
            for i in 0..250u32 {
                let pc = 16 * i;
                let line = if i % 50 == 49 {
                    "0 BAR.SYNC 0 0 0".to_owned()
                } else if i % 25 == 0 {
                    format!(
                        "1 R9 LDS.128 1 R2 16 1 {:#x} 16 0",
                        0x7ff97b000000u64 + 512 * u64::from(warp)
                    )
                } else {
                    others[i as usize % others.len()].to_owned()
                };
                writeln!(text, "{pc:04x} ffffffff {line}").unwrap();
            }
            written += 252;
        }
        text.push_str("#END_TB\n\n");
        block += 1;
    }
    text
}

fn reading(c: &mut Criterion) {
    let text = match std::env::var_os("SMEM_BENCH_TRACE") {
        Some(path) => std::fs::read_to_string(path).expect("the trace is text"),
        None => generated(200_000),
    };
    let lines = text.lines().count() as u64;
    let mut group = c.benchmark_group("accelsim");
    group.throughput(Throughput::Elements(lines));
    group.bench_function("Trace::read into Tally", |b| {
        b.iter(|| {
            let mut tally = Tally::default();
            Trace::from_reader(
                "bench.traceg",
                std::io::Cursor::new(text.as_bytes().to_vec()),
            )
            .read(&mut tally)
            .expect("the trace reads");
            black_box(tally.totals())
        })
    });
    group.bench_function("Trace::read into Racecheck", |b| {
        b.iter(|| {
            let mut racecheck = Racecheck::new();
            Trace::from_reader(
                "bench.traceg",
                std::io::Cursor::new(text.as_bytes().to_vec()),
            )
            .read(&mut racecheck)
            .expect("the trace reads");
            black_box(racecheck.kernels().len())
        })
    });
    group.bench_function("read_chunk into Tally", |b| {
        b.iter(|| {
            let input = Input::reader(
                "bench.traceg",
                std::io::Cursor::new(text.as_bytes().to_vec()),
            );
            let mut reader = Reader::new(vec![input]);
            let mut tally = Tally::default();
            while let Some(chunk) = reader.next_chunk() {
                read_chunk(&chunk, &mut tally, &mut |at, reason| {
                    panic!("{at:?}: {reason}")
                })
                .expect("the tally takes every event");
                reader.recycle(chunk.buf);
            }
            black_box(tally.totals())
        })
    });
    group.finish();
}

criterion_group!(benches, reading);
criterion_main!(benches);
