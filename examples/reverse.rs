//! The seed's staticReverse and dynamicReverse: a block of 64 threads reverses
//! 64 ints through shared memory,
//!
//! ```cuda
//! __global__ void staticReverse(int *d, int n) {
//!   __shared__ int s[64];
//!   int t = threadIdx.x, tr = n - t - 1;
//!   s[t] = d[t];
//!   __syncthreads();
//!   d[t] = s[tr];
//! }
//! ```
//!
//! and the same with `extern __shared__ int s[];` sized at launch. Each warp's
//! access is printed with its partition: all four are conflict-free.
//!
//! Run with `cargo run --example reverse`.

use std::io::{self, Write};

use smem_model::{Array, ComputeCapability, SharedMemory, StoreOrder};

const N: usize = 64;

/// Runs the kernel body on `block` through `s`, returning `d` afterwards.
fn reverse(
    out: &mut impl Write,
    block: &mut SharedMemory,
    s: Array<i32>,
    d: &mut [i32; N],
) -> Result<(), Box<dyn std::error::Error>> {
    for warp in 0..N / 32 {
        let stored = block.warp_store(
            s,
            |lane| {
                let t = warp * 32 + lane.index();
                Some((t, d[t]))
            },
            StoreOrder::Undefined,
        )?;
        let p = stored.partition();
        writeln!(
            out,
            "  warp {warp}: s[t] = d[t]       {} wavefront(s), {}",
            p.wavefronts(),
            p.classification()
        )?;
    }
    // __syncthreads(): every store above is visible to every load below.
    for warp in 0..N / 32 {
        let loaded = block.warp_load(s, |lane| Some(N - (warp * 32 + lane.index()) - 1))?;
        let p = loaded.partition();
        writeln!(
            out,
            "  warp {warp}: d[t] = s[n-t-1]   {} wavefront(s), {}",
            p.wavefronts(),
            p.classification()
        )?;
        for (lane, value) in loaded.values().iter().enumerate() {
            d[warp * 32 + lane] = value.expect("every lane is active");
        }
    }
    Ok(())
}

fn run(out: &mut impl Write) -> Result<[[i32; N]; 2], Box<dyn std::error::Error>> {
    let mut results = [[0; N]; 2];

    writeln!(out, "staticReverse<<<1, {N}>>> on sm_90:")?;
    let mut kernel = SharedMemory::builder(ComputeCapability::Sm90);
    let s = kernel.declare::<i32>("s", N)?;
    let mut block = kernel.launch(0)?;
    let mut d: [i32; N] = core::array::from_fn(|i| i as i32);
    reverse(out, &mut block, s, &mut d)?;
    results[0] = d;

    writeln!(
        out,
        "dynamicReverse<<<1, {N}, {N} * sizeof(int)>>> on sm_90:"
    )?;
    let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch((N * 4) as u32)?;
    let s = block.extern_array::<i32>("s")?;
    let mut d: [i32; N] = core::array::from_fn(|i| i as i32);
    reverse(out, &mut block, s, &mut d)?;
    results[1] = d;

    writeln!(
        out,
        "d[0..4] = {:?}, d[60..64] = {:?}",
        &results[1][..4],
        &results[1][60..]
    )?;
    Ok(results)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run(&mut io::stdout().lock()).map(|_| ())
}

#[test]
fn both_kernels_reverse_the_array_without_conflicts() {
    let mut out = Vec::new();
    let results = run(&mut out).unwrap();
    let expected: [i32; N] = core::array::from_fn(|i| (N - i - 1) as i32);
    assert_eq!(results, [expected, expected]);
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        text.matches("1 wavefront(s), parallel").count(),
        8,
        "{text}"
    );
}
