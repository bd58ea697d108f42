//! `wmma.load` / `wmma.store` on shared memory against the H200: the probes of
//! `tools/device/s4d/wmma_probe.cu` (one warp, one `wmma` a launch; every
//! shape, type, matrix and layout at several leading dimensions), run from
//! their PTX by the interpreter with the launch's arguments, give Nsight
//! Compute's shared-memory instruction and wavefront counts exactly.
//! `tests/data/ncu/wmma/README.md` says how they were measured.

use std::path::PathBuf;

use smem_model::kernel::ncu::predictions;
use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::tally::Tally;
use smem_model::ComputeCapability;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ncu/wmma")
        .join(name)
}

#[test]
fn every_probe_gives_the_measured_counts() {
    let text = std::fs::read_to_string(data("wmma_sm90.ptx")).unwrap();
    let module = ptx::parse(&text).unwrap();
    let measured: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(data("measured.json")).unwrap()).unwrap();
    assert_eq!(measured.len(), 406);
    let mut wrong = Vec::new();
    for m in &measured {
        let kernel = Kernel::new(&module, m["kernel"].as_str()).unwrap();
        // (ldm, fill = -1: no fill and no copy-out, nbytes, out)
        let launch = KernelLaunch::new([1, 1, 1], [32, 1, 1])
            .unwrap()
            .with_dynamic_shared(48 * 1024)
            .with_arg(format!("0={}", m["ldm"]).parse().unwrap())
            .with_arg("1=4294967295".parse().unwrap())
            .with_arg("2=0".parse().unwrap());
        let mut tally = Tally::new().with_capability(ComputeCapability::Sm90);
        kernel.run(&launch, &RunOptions::new(), &mut tally).unwrap();
        assert!(
            tally.unmodelled().is_empty(),
            "{}: {:?}",
            m["case"],
            tally.unmodelled()
        );
        let ours = predictions(&tally);
        for (counter, value) in m["ncu"].as_object().unwrap() {
            let predicted = ours
                .iter()
                .find(|p| p.counter == counter)
                .map_or(0, |p| p.predicted);
            if predicted != value.as_u64().unwrap() {
                wrong.push(format!(
                    "launch {} {} ldm {}: {counter}: ours {predicted}, ncu {value}",
                    m["launch"], m["case"], m["ldm"]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
