//! Everything the documentation promises allocates nothing, checked with a
//! counting global allocator over a stream of requests of every op, width and
//! shape, on every rule family (1.x only where its partitions fit the inline
//! storage of 36 transactions):
//! - building requests: `new`, `from_fn`, `from_slice`, `from_offsets`,
//!   `from_generic`, `with_mask`, and reading an op's name;
//! - counting (`wavefronts`, `cost`) and building partitions, on every
//!   path: words, wide accesses (closed form, vectorised phases, merged or
//!   not), matrix rows, native atomics and `cp.async` (lane counting), and
//!   the planner;
//! - every accessor of a partition and its transactions: `transactions`,
//!   `into_transactions`, `words`, `banks`, `broadcast_words`, `serves`,
//!   `classification`, a transaction's `Debug` form (written to a sink that
//!   does not allocate), and `write_collisions`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use smem_model::{
    BankConfig, Classification, ComputeCapability, Lane, LaneSet, Matrices, Op, SharedMemConfig,
    WarpRequest,
};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Only the test's own thread is counted: the harness's main thread
    // allocates too (its "has been running for over 60 seconds" notice on a
    // loaded machine made this test fail with allocations that were not ours).
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: a thread being torn down has no thread-locals left.
        if COUNTED.try_with(Cell::get).unwrap_or(false) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Counts what is written and keeps nothing.
struct Sink(usize);

impl Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// (op, width, offsets): strided, broadcast, pairwise-shared and pseudo-random.
fn shapes() -> Vec<(Op, u32, [u32; 32])> {
    let mut all = Vec::new();
    for width in [1u32, 2, 4, 8, 16] {
        for stride in [0u32, 1, 2, 3, 32, 33] {
            for op in [Op::Load, Op::Store] {
                all.push((
                    op,
                    width,
                    std::array::from_fn(|l| l as u32 * stride * width),
                ));
            }
        }
        let mut state = 0x9e37_79b9u32 ^ width;
        all.push((
            Op::Store,
            width,
            std::array::from_fn(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state % 1024 / width * width
            }),
        ));
        all.push((
            Op::Load,
            width,
            std::array::from_fn(|l| l as u32 / 2 * width),
        ));
    }
    // Native atomics and reductions (the lane-counting path; `cas` twice),
    // 64-bit exch/cas in half-warps, and cp.async.
    use smem_model::{AtomicKind as K, CpAsync};
    let mut lane_ops = vec![(Op::Atomic(K::Exch), 8), (Op::Atomic(K::Cas), 8)];
    for kind in [K::Add, K::Exch, K::Cas, K::Min, K::Inc, K::Xor] {
        lane_ops.push((Op::Atomic(kind), 4));
        if kind != K::Exch && kind != K::Cas {
            lane_ops.push((Op::Reduction(kind), 4));
        }
    }
    for width in [4, 8, 16] {
        lane_ops.push((Op::CpAsync(CpAsync::Ca), width));
    }
    lane_ops.push((Op::CpAsync(CpAsync::Cg), 16));
    for (op, width) in lane_ops {
        all.push((op, width, std::array::from_fn(|l| l as u32 % 4 * 128)));
        all.push((op, width, std::array::from_fn(|l| l as u32 / 3 * width)));
    }
    for m in [Matrices::X1, Matrices::X2, Matrices::X4] {
        all.push((Op::LdMatrix(m), 16, std::array::from_fn(|l| l as u32 * 128)));
        all.push((Op::StMatrix(m), 16, std::array::from_fn(|l| l as u32 * 144)));
    }
    all
}

#[test]
fn no_heap_allocation_per_request() {
    let shapes = shapes();
    let configs = [
        BankConfig::new(ComputeCapability::Sm90),
        BankConfig::new(ComputeCapability::Sm61),
        BankConfig::new(ComputeCapability::Sm20),
        BankConfig::new(ComputeCapability::Sm35),
        BankConfig::new(ComputeCapability::Sm35).with_shared_mem_config(SharedMemConfig::EightByte),
        BankConfig::new(ComputeCapability::Sm13),
    ];
    let op_names = ["LDS", "sts", "ATOMS", "ldmatrix.x4", "STSM.x2"];
    let base = 0x7f00_0000_0000u64;
    let mask = LaneSet::from_bits(0xfff7_ffff);
    let mut sink = Sink(0);
    COUNTED.with(|counted| counted.set(true));
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let (mut checked, mut transactions, mut total) = (0, 0, 0u64);
    for config in configs {
        for &(op, width, offsets) in &shapes {
            // Building: every constructor, the same request each time.
            let request = WarpRequest::from_offsets(op, width, mask, &offsets).unwrap();
            let generic = offsets.map(|o| base + u64::from(o));
            let from_generic = WarpRequest::from_generic(op, width, mask, &generic, base).unwrap();
            let optional = offsets.map(Some);
            let from_new = WarpRequest::new(op, width, optional)
                .unwrap()
                .with_mask(mask);
            let from_slice = WarpRequest::from_slice(op, width, &optional[..]).unwrap();
            let from_fn = WarpRequest::from_fn(op, width, |l| Some(offsets[l.index()])).unwrap();
            assert_eq!((from_generic, from_new), (request, request));
            assert_eq!(from_slice.with_mask(mask), from_fn.with_mask(mask));
            for name in op_names {
                total += u64::from(name.parse::<Op>().unwrap().writes());
            }
            total += request.write_collisions().len() as u64;

            // Counting, then the partition where it fits inline.
            let Ok(cost) = config.cost(&request) else {
                continue;
            };
            total += u64::from(config.wavefronts(&request).unwrap() + cost.ways());
            if cost.wavefronts() > 36 {
                continue;
            }
            let partition = config.partition(&request).unwrap();
            total += u64::from(partition.bank_conflicts());
            total += u64::from(partition.classification() != Classification::Empty);
            total += u64::from(partition.bandwidth_fraction().is_some());
            for t in partition.transactions() {
                let words = t.words();
                total += words.len() as u64 + t.banks().len() as u64;
                total += t.broadcast_words().count() as u64;
                total += u64::from(t.serves(Lane::new(0).unwrap()));
                write!(sink, "{t:?}").unwrap();
                transactions += 1;
            }
            let owned = partition.into_transactions();
            total += owned.map(|t| t.lanes().len() as u64).sum::<u64>();
            checked += 1;
        }
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTED.with(|counted| counted.set(false));
    assert!(checked > 250, "{checked}");
    assert!(transactions > 1000, "{transactions}");
    assert!(total > 0 && sink.0 > 0);
    assert_eq!(after - before, 0, "allocations over {checked} requests");
}
