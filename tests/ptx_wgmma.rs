//! `wgmma.mma_async`'s shared-memory operand reads against the H200: the
//! probes of `tools/device/s4d/gen_wgmma.py` (one warpgroup, one `wgmma` a
//! launch; every type, N, A source, transpose bit and swizzle mode, and
//! strides off the canonical layouts), run from their PTX by the interpreter
//! with the launch's arguments, give Nsight Compute's gmma counters exactly.
//! `tests/data/ncu/wgmma/README.md` says how they were measured.

use std::path::PathBuf;

use smem_model::kernel::ncu::predictions;
use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::tally::Tally;
use smem_model::ComputeCapability;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ncu/wgmma")
        .join(name)
}

/// The probe's `Args` (eight `u32` fields) as one little-endian hex number.
fn args_hex(args: &serde_json::Value) -> String {
    let fields = [
        "offa", "lboa", "sboa", "swza", "offb", "lbob", "sbob", "swzb",
    ];
    let digits: String = fields
        .iter()
        .rev()
        .map(|f| format!("{:08x}", args[f].as_u64().unwrap()))
        .collect();
    format!("0={}", format_args!("0x{digits}"))
}

#[test]
fn every_probe_gives_the_measured_gmma_counters() {
    let text = std::fs::read_to_string(data("wgmma_sm90a.ptx")).unwrap();
    let module = ptx::parse(&text).unwrap();
    let names: Vec<String> = module.entries().map(|f| f.name.to_owned()).collect();
    let measured: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(data("measured.json")).unwrap()).unwrap();
    assert_eq!(measured.len(), 276);
    let mut checked = 0;
    for m in &measured {
        let probe = m["kernel"].as_str().unwrap();
        let entry = names
            .iter()
            .find(|n| n.contains(&format!("{probe}4Args")))
            .unwrap_or_else(|| panic!("{probe}: no kernel"));
        let kernel = Kernel::new(&module, Some(entry)).unwrap();
        let launch = KernelLaunch::new([1, 1, 1], [128, 1, 1])
            .unwrap()
            .with_dynamic_shared(220 * 1024)
            .with_arg(args_hex(&m["args"]).parse().unwrap());
        let mut tally = Tally::new().with_capability(ComputeCapability::Sm90);
        kernel.run(&launch, &RunOptions::new(), &mut tally).unwrap();
        let ours = predictions(&tally);
        for (counter, value) in m["ncu"].as_object().unwrap() {
            let predicted = ours
                .iter()
                .find(|p| p.counter == counter)
                .map_or(0, |p| p.predicted);
            assert_eq!(
                predicted,
                value.as_u64().unwrap(),
                "launch {} ({probe}, {}): {counter}",
                m["launch"],
                m["args"]
            );
        }
        assert!(
            tally.unmodelled().is_empty(),
            "{probe}: {:?}",
            tally.unmodelled()
        );
        checked += 1;
    }
    assert_eq!(checked, 276);
}

/// A warpgroup whose B operand another warp stores to. The operand reads
/// happen between the `wgmma` and the `wgmma.wait_group` that retires it: a
/// store ordered before the `wgmma` by a barrier, or after the wait, is no
/// hazard; one without a barrier, or after a barrier that the `wgmma` is
/// issued before but the wait comes after, races with the reads.
#[test]
fn the_race_checker_sees_the_operand_reads_until_the_wait() {
    let kernel_text = |before: &str, after_issue: &str, after_wait: &str| {
        format!(
            r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<4>;
    .shared .align 1024 .b8 s[8192];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, s;
    setp.eq.u32 %p1, %r1, 40;
    {before}
    // A at s (K-major, no swizzle: LBO 128, SBO 256), B at s + 4096.
    shr.u32 %r3, %r2, 4;
    cvt.u64.u32 %rd1, %r3;
    or.b64 %rd1, %rd1, 68720001024;
    add.s32 %r4, %r2, 4096;
    shr.u32 %r5, %r4, 4;
    cvt.u64.u32 %rd2, %r5;
    or.b64 %rd2, %rd2, 68720001024;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%f1, %f2, %f3, %f0}}, %rd1, %rd2, 1, 1, 1, 0, 0;
    wgmma.commit_group.sync.aligned;
    {after_issue}
    wgmma.wait_group.sync.aligned 0;
    {after_wait}
    ret;
}}
"#
        )
    };
    let store = "@%p1 st.shared.u32 [%r2+4096], %r1;";
    let races = |text: String| {
        let module = ptx::parse(&text).unwrap();
        let kernel = Kernel::new(&module, None).unwrap();
        let launch = KernelLaunch::new([1, 1, 1], [128, 1, 1]).unwrap();
        let mut check = smem_model::Racecheck::new();
        kernel.run(&launch, &RunOptions::new(), &mut check).unwrap();
        let mut tally = Tally::new().with_capability(ComputeCapability::Sm90);
        kernel.run(&launch, &RunOptions::new(), &mut tally).unwrap();
        // m64n8k16: A's 16 core matrices and B's 2.
        assert_eq!(
            (tally.gmma().instructions, tally.gmma().wavefronts),
            (4, 18)
        );
        check.into_kernels().remove(0).hazards().len()
    };
    let with_bar = format!("{store}\n    bar.sync 0;");
    assert_eq!(races(kernel_text(&with_bar, "", "")), 0);
    assert!(races(kernel_text(store, "", "")) > 0);
    let bar_then_store = format!("bar.sync 0;\n    {store}");
    assert_eq!(races(kernel_text("", "", &bar_then_store)), 0);
    assert!(races(kernel_text("", &bar_then_store, "")) > 0);
}
