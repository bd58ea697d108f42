//! Inputs and the baseline shared by `benches/partition.rs` and
//! `examples/throughput.rs`, so both measure the same thing.

use std::collections::HashMap;

use smem_model::{Op, WarpRequest};

/// A deterministic realistic mix of full-warp loads of `width` bytes:
/// conflict-free, broadcast, 2- to 32-way strided, and pseudo-random.
pub fn mix(width: u32) -> Vec<WarpRequest> {
    let mut requests = Vec::new();
    for stride in [1u32, 2, 3, 4, 8, 16, 32, 33] {
        requests.push(
            WarpRequest::from_fn(Op::Load, width, |l| Some(l.get() * stride * width)).unwrap(),
        );
    }
    requests.push(WarpRequest::from_fn(Op::Load, width, |_| Some(256)).unwrap());
    let mut state = 0x9e37_79b9u32;
    for _ in 0..7 {
        requests.push(
            WarpRequest::from_fn(Op::Load, width, |_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                Some(state % 4096 / width * width)
            })
            .unwrap(),
        );
    }
    requests
}

/// The worst case for 4-byte loads: 32 distinct words in one bank, lane `i`
/// at row `i` (an arithmetic sequence, which the model solves in closed form).
pub fn serial() -> WarpRequest {
    WarpRequest::from_fn(Op::Load, 4, |l| Some(l.get() * 128)).unwrap()
}

/// The worst case for the general path: the same 32 words of one bank, with
/// the rows shuffled across the lanes so no closed form applies.
pub fn serial_shuffled() -> WarpRequest {
    WarpRequest::from_fn(Op::Load, 4, |l| Some((l.get() * 13 + 7) % 32 * 128)).unwrap()
}

/// How cycle simulators commonly count 4-byte bank conflicts today: per
/// request, a map from bank to a map from word to the lanes reading it; the
/// wavefronts are the most distinct words in one bank.
pub fn baseline_wavefronts(request: &WarpRequest) -> u32 {
    let mut banks: HashMap<u32, HashMap<u32, u32>> = HashMap::new();
    for (_, address) in request.active_addresses() {
        let word = address / 4;
        *banks.entry(word % 32).or_default().entry(word).or_default() += 1;
    }
    banks
        .values()
        .map(|words| words.len() as u32)
        .max()
        .unwrap_or(0)
}
