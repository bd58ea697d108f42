//! The hardware corpus and the compare-and-swap loops as the benchmarks
//! read them (`partition.rs`, `gpgpusim.rs`); apart from `common` because it
//! needs the `corpus` feature, which `examples/throughput.rs` (a user of
//! `common`) does not turn on.

use smem_model::{Op, WarpRequest};

/// Every request of the hardware corpus in the repository
/// (`tests/data/hw-corpus/*.jsonl`, the files in name order), as sm_90 has
/// them: what `smem verify` models, one request a record.
pub fn corpus() -> Vec<WarpRequest> {
    use std::io::BufReader;

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/hw-corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut requests = Vec::new();
    for path in files {
        let reader = BufReader::new(std::fs::File::open(&path).unwrap());
        for record in smem_model::corpus::read(reader, &path.display().to_string()) {
            let record = record.unwrap();
            requests.push(record.request(record.capability().unwrap()).unwrap());
        }
    }
    requests
}

/// The atomics nvcc runs as a compare-and-swap loop (`atomicAdd` on floats,
/// 64-bit `atomicAdd`), on the addresses a kernel gives them: every lane on
/// one word (a histogram's hot bin: 32 rounds), conflict-free, 2-way and
/// 32-way strides, and the pseudo-random warps of `common::mix`.
pub fn cas_loops(width: u32) -> Vec<WarpRequest> {
    let op = if width == 4 {
        Op::Atomic(smem_model::AtomicKind::AddF32)
    } else {
        Op::Atomic(smem_model::AtomicKind::Add)
    };
    let mut requests = vec![WarpRequest::from_fn(op, width, |_| Some(256)).unwrap()];
    for stride in [1u32, 2, 32] {
        requests.push(WarpRequest::from_fn(op, width, |l| Some(l.get() * stride * width)).unwrap());
    }
    for random in &super::common::mix(width)[9..] {
        let addresses = random.to_array();
        requests.push(WarpRequest::from_fn(op, width, |l| addresses[l.index()]).unwrap());
    }
    requests
}
