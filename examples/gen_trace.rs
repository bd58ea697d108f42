//! Writes a synthetic Accel-Sim trace (`.traceg`) of `N` shared-memory
//! requests to standard output, the input of the `smem trace` throughput
//! numbers in the README: `cargo run --release --example gen_trace -- 2000000 > t.traceg`.
//!
//! In every eight lines: four strided `LDS`/`STS` (strides of 4, 8, 16, 128
//! and 132 bytes in turn, from random bases), a broadcast `LDS`, a strided
//! `LDS.U.128`, and a list-mode `LDS` of 32 random addresses; 64 PCs in turn.
//! Deterministic (a fixed xorshift seed), so every run writes the same file.
//!
//! `gen_trace N PCS KERNELS` cycles through `PCS` PCs instead of 64 and
//! splits the requests among `KERNELS` kernels (a header each), to show that
//! the cost per request does not depend on either.

use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let number = |index: usize, default: u64| match std::env::args().nth(index).map(|s| s.parse()) {
        None => default,
        Some(Ok(n)) => n,
        Some(Err(err)) => {
            eprintln!("usage: gen_trace [REQUESTS [PCS [KERNELS]]]: {err}");
            std::process::exit(2);
        }
    };
    let n = number(1, 1_000_000);
    let pcs = number(2, 64).max(1);
    let kernels = number(3, 1).max(1);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    let base = 0x7f4a_3c00_0000u64;
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    writeln!(
        out,
        "-kernel name = _Z5bench\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n\
         -shmem = 49152\n-nregs = 24\n-binary version = 90\n-cuda stream id = 0\n\
         -shmem base_addr = {base:#018x}\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n\
         #BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = {n}"
    )?;
    let per_kernel = n.div_ceil(kernels);
    for i in 0..n {
        if i > 0 && i % per_kernel == 0 {
            writeln!(
                out,
                "\n#END_TB\n\n-kernel name = _Z5benchILi{}EEvv\n-binary version = 90\n\
                 -shmem base_addr = {base:#018x}\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0",
                i / per_kernel
            )?;
        }
        let pc = 0x100 + 16 * (i % pcs);
        match i % 8 {
            7 => {
                write!(out, "{pc:04x} ffffffff 1 R5 LDS 1 R6 4 0")?;
                for _ in 0..32 {
                    write!(out, " {:#x}", base + 4 * random(1024))?;
                }
                writeln!(out, " 0")?;
            }
            6 => {
                let address = base + 16 * random(512);
                writeln!(
                    out,
                    "{pc:04x} ffffffff 4 R4 R5 R6 R7 LDS.U.128 1 R6 16 1 {address:#x} 16 0"
                )?;
            }
            5 => {
                let address = base + 4 * random(2048);
                writeln!(out, "{pc:04x} ffffffff 1 R5 LDS 1 R6 4 1 {address:#x} 0 0")?;
            }
            k => {
                let stride = [4, 8, 128, 132, 16][(i / 8 % 5) as usize];
                let address = base + 4 * random(1024);
                if k % 2 == 1 {
                    writeln!(
                        out,
                        "{pc:04x} ffffffff 0 STS 2 R3 R4 4 1 {address:#x} {stride} 0"
                    )?;
                } else {
                    writeln!(
                        out,
                        "{pc:04x} ffffffff 1 R5 LDS 1 R6 4 1 {address:#x} {stride} 0"
                    )?;
                }
            }
        }
    }
    writeln!(out, "\n#END_TB")?;
    out.flush()
}
