//! Counting wavefronts (`wavefronts`, `cost`) and building partitions allocate
//! nothing per request: a counting global allocator watches a stream of
//! requests of every shape that fits the partition's inline storage (up to 36
//! transactions: all but 1.x).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use smem_model::{BankConfig, ComputeCapability, Matrices, Op, SharedMemConfig, WarpRequest};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn requests() -> Vec<WarpRequest> {
    let mut all = Vec::new();
    for width in [1u32, 2, 4, 8, 16] {
        for stride in [0u32, 1, 2, 3, 32, 33] {
            for op in [Op::Load, Op::Store] {
                all.push(
                    WarpRequest::from_fn(op, width, |l| Some(l.get() * stride * width)).unwrap(),
                );
            }
        }
    }
    all.push(WarpRequest::from_fn(Op::Atomic, 4, |l| Some(l.get() % 4 * 128)).unwrap());
    for m in [Matrices::X1, Matrices::X2, Matrices::X4] {
        all.push(WarpRequest::from_fn(Op::LdMatrix(m), 16, |l| Some(l.get() * 128)).unwrap());
        all.push(WarpRequest::from_fn(Op::StMatrix(m), 16, |l| Some(l.get() * 144)).unwrap());
    }
    all
}

#[test]
fn no_heap_allocation_per_request() {
    let requests = requests();
    let configs = [
        BankConfig::new(ComputeCapability::Sm90),
        BankConfig::new(ComputeCapability::Sm61),
        BankConfig::new(ComputeCapability::Sm20),
        BankConfig::new(ComputeCapability::Sm35).with_shared_mem_config(SharedMemConfig::EightByte),
    ];
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut checked = 0;
    let mut total = 0u64;
    for config in configs {
        for request in &requests {
            let Ok(count) = config.wavefronts(request) else {
                continue;
            };
            let cost = config.cost(request).unwrap();
            let partition = config.partition(request).unwrap();
            assert!(partition.wavefronts() <= 36);
            total += u64::from(
                count + cost.ways() + partition.wavefronts() + partition.bank_conflicts(),
            );
            checked += 1;
        }
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert!(checked > 200, "{checked}");
    assert!(total > 0);
    assert_eq!(after - before, 0, "allocations over {checked} requests");
}
