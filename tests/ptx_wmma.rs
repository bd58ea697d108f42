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

/// A form the table does not hold is counted as not modelled, never
/// guessed: f16 without a state space (nvcc writes `.shared` for it, so its
/// generic lowering was not measured), and any wmma on sm_75 (whose ptxas
/// lowers 16-bit fragments differently: `tests/data/ncu/wmma/README.md`).
#[test]
fn unmeasured_forms_are_not_modelled() {
    let text = |space: &str| {
        format!(
            r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{{
    .reg .b32 %r<12>;
    .shared .align 128 .b8 s[4096];
    mov.u32 %r1, s;
    wmma.load.a.sync.aligned.row.m16n16k16{space}.f16 {{%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}}, [%r1], 16;
    ret;
}}
"#
        )
    };
    let run = |text: &str, cc: ComputeCapability| {
        let module = ptx::parse(text).unwrap();
        let kernel = Kernel::new(&module, None).unwrap();
        let launch = KernelLaunch::new([1, 1, 1], [32, 1, 1]).unwrap();
        let mut tally = Tally::new().with_capability(cc);
        let options = RunOptions::new().with_capability(cc);
        kernel.run(&launch, &options, &mut tally).unwrap();
        (
            tally.totals().requests,
            tally.unmodelled().values().sum::<u64>(),
        )
    };
    // As measured: one LDSM.x4.
    assert_eq!(run(&text(".shared"), ComputeCapability::Sm90), (1, 0));
    assert_eq!(run(&text(".shared"), ComputeCapability::Sm80), (1, 0));
    assert_eq!(run(&text(""), ComputeCapability::Sm90), (0, 1));
    assert_eq!(run(&text(".shared"), ComputeCapability::Sm75), (0, 1));
}
