//! The interpreter's placement of static `__shared__` variables against the
//! addresses a kernel printed on the device (tests/data/ptx/shared_placement:
//! nvcc 13.0, sm_90, H200; `(unsigned)__cvta_generic_to_shared(&x)` of each).
//! The device's addresses start at 1024 (the shared window's first 1 KiB is
//! reserved on sm_90); the interpreter's offsets start at 0, so the test
//! compares offsets, address - 1024. 1024 is a multiple of 128, so bank and
//! alignment arithmetic is the same either way.

use std::path::PathBuf;

use smem_model::kernel::ptx::{self, Kernel};

fn fixture(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ptx/shared_placement")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn static_shared_placement_matches_the_device() {
    let expected: serde_json::Value = serde_json::from_str(&fixture("placement.json")).unwrap();
    let base = expected["shared_window_base"].as_u64().unwrap();
    let text = fixture("kernel.ptx");
    let module = ptx::parse(&text).unwrap();
    let kernel = Kernel::new(&module, None).unwrap();
    let placed: Vec<(String, u64, bool)> = kernel
        .shared_variables()
        .map(|v| (v.name.to_string(), u64::from(v.offset), v.dynamic))
        .collect();
    let measured: Vec<(String, u64, bool)> = expected["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                v["address"].as_u64().unwrap() - base,
                v["dynamic"].as_bool().unwrap(),
            )
        })
        .collect();
    let mut placed_sorted = placed.clone();
    placed_sorted.sort_by_key(|p| p.1);
    assert_eq!(placed_sorted, measured);
    // ptxas -v: "384 bytes smem", where the dynamic region starts.
    assert_eq!(
        u64::from(kernel.static_shared()),
        expected["ptxas_static_shared"].as_u64().unwrap()
    );
    assert_eq!(kernel.static_shared(), 384);
}
