//! `cp.async` (LDGSTS) and `stmatrix` (STSM) against the H200: the probes of
//! `tools/device/s4d/async_probe.cu` (one warp, each lane's shared and global
//! offsets from tables, one instruction executed `reps` times a launch)
//! through the model's rules, against Nsight Compute's instruction-level
//! counters. `tests/data/ncu/cp_async/README.md` says how they were measured;
//! the same rules over whole PTX launches are checked by `tests/ncu_hopper.rs`
//! (cuda-samples' globalToShmemAsyncCopy).

use std::path::PathBuf;

use smem_model::kernel::tally::{ldgsts_bypass_wavefronts, ldgsts_wavefronts};
use smem_model::{BankConfig, ComputeCapability, CpAsync, LaneSet, Matrices, Op, WarpRequest};

const INST: &str = "smsp__sass_inst_executed_op_ldgsts.sum";
const WAVES: &str = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum";
const CONFLICTS: &str = "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum";

/// The launches of `tests/data/ncu/cp_async/<file>`.
fn data(file: &str) -> Vec<serde_json::Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ncu/cp_async")
        .join(file);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Each lane's value in `field` (a negative shared offset: the lane does not
/// execute).
fn lanes(m: &serde_json::Value, field: &str) -> Vec<i64> {
    m[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect()
}

fn request(op: Op, width: u32, shared: &[i64]) -> WarpRequest {
    WarpRequest::from_fn(op, width, |lane| {
        let o = shared[lane.get() as usize];
        (o >= 0).then_some(o as u32)
    })
    .unwrap()
}

/// How many times a warp ran the launch's instruction: repeats times warps
/// times blocks.
fn warp_launches(m: &serde_json::Value) -> u32 {
    let field = |f: &str| m[f].as_u64().unwrap();
    (field("reps") * field("threads") / 32 * field("blocks")) as u32
}

fn ncu(m: &serde_json::Value, counter: &str) -> u32 {
    m["ncu"][counter].as_u64().unwrap() as u32
}

/// `.ca` of 4, 8 and 16 bytes (with and without a src-size): instructions,
/// wavefronts and conflicts exact, by the rule of both sides.
#[test]
fn ca_wavefronts_are_the_larger_side_phase_by_phase() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let mut checked = 0;
    for m in data("measured.json") {
        let probe = m["probe"].as_str().unwrap();
        let Some(width) = probe
            .strip_prefix("ca")
            .map(|w| w.trim_end_matches('z').parse::<u32>().unwrap())
        else {
            continue;
        };
        let reps = m["reps"].as_u64().unwrap() as u32;
        let shared = lanes(&m, "shared");
        let global = lanes(&m, "global");
        let req = request(Op::CpAsync(CpAsync::Ca), width, &shared);
        let active: [u32; 32] = core::array::from_fn(|l| {
            if shared[l] >= 0 {
                shared[l] as u32
            } else {
                u32::MAX
            }
        });
        let global: [u32; 32] = core::array::from_fn(|l| global[l] as u32);
        // A src-size of 0 zero-fills: no lane reads global memory.
        let zero_fill = probe.ends_with('z') && m["src_size"].as_u64() == Some(0);
        let reads = if zero_fill {
            LaneSet::EMPTY
        } else {
            req.active()
        };
        let waves = ldgsts_wavefronts(width, &active, &global, reads);
        let ideal = sm90.cost(&req).unwrap().ideal_wavefronts();
        let what = format!("launch {} {probe} {}", m["launch"], m["what"]);
        assert_eq!(ncu(&m, INST), reps, "{what}");
        assert_eq!(ncu(&m, WAVES), reps * waves, "{what}");
        assert_eq!(ncu(&m, CONFLICTS), reps * (waves - ideal), "{what}");
        checked += 1;
    }
    assert_eq!(checked, 121);
}

/// `.cg` (LDGSTS.BYPASS) under a guard (`if (shared offset >= 0)`, which
/// ptxas turned into `@P0 LDGSTS`): the plain `.cg` counted no wavefront
/// whatever its addresses; with a src-size and both sides contiguous, twice
/// the shared side when it reads, the shared side when it zero-fills. Not
/// the rule of unguarded copies (`bypass_wavefronts_follow_the_line_pairs`):
/// the counter is erratic for predicated copies, and the model's figure for
/// them is an estimate.
#[test]
fn cg_wavefronts_lie_between_none_and_twice_the_shared_side() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let mut plain = 0;
    for m in data("measured.json") {
        let probe = m["probe"].as_str().unwrap();
        if !probe.starts_with("cg16") {
            continue;
        }
        let req = request(Op::CpAsync(CpAsync::Cg), 16, &lanes(&m, "shared"));
        let shared_side = sm90.cost(&req).unwrap().wavefronts();
        let reps = m["reps"].as_u64().unwrap() as u32;
        let waves = ncu(&m, WAVES);
        assert_eq!(ncu(&m, INST), reps);
        if probe == "cg16" {
            assert_eq!(waves, 0, "launch {}", m["launch"]);
            plain += 1;
        } else if m["src_size"].as_u64() == Some(0) {
            assert_eq!(waves, shared_side, "launch {}", m["launch"]);
        } else {
            assert_eq!(waves, 2 * shared_side, "launch {}", m["launch"]);
        }
    }
    assert_eq!(plain, 36);
}

/// `stmatrix` x1/x2/x4, plain and `.trans`, from PTX: the rule the model
/// already had (DESIGN.md 2.1: each matrix the degree of its 8 rows).
#[test]
fn stmatrix_costs_what_the_model_says() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let mut checked = 0;
    for m in data("measured.json") {
        let probe = m["probe"].as_str().unwrap();
        let Some(form) = probe.strip_prefix("stm_") else {
            continue;
        };
        let matrices = match form {
            "x1" => Matrices::X1,
            "x2" => Matrices::X2,
            "x4" => Matrices::X4,
            "x1_trans" => Matrices::X1Trans,
            "x2_trans" => Matrices::X2Trans,
            _ => Matrices::X4Trans,
        };
        let reps = m["reps"].as_u64().unwrap() as u32;
        let cost = sm90
            .cost(&request(Op::StMatrix(matrices), 16, &lanes(&m, "shared")))
            .unwrap();
        let what = format!("launch {} {probe} {}", m["launch"], m["what"]);
        assert_eq!(
            ncu(&m, "smsp__sass_inst_executed_op_shared_stsm.sum"),
            reps,
            "{what}"
        );
        assert_eq!(
            ncu(
                &m,
                "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"
            ),
            reps * cost.wavefronts(),
            "{what}"
        );
        assert_eq!(
            ncu(
                &m,
                "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum"
            ),
            reps * cost.bank_conflicts(),
            "{what}"
        );
        checked += 1;
    }
    assert_eq!(checked, 42);
}

/// From PTX: `stmatrix...x2.trans` is an STSM of two transposed matrices,
/// rows 128 bytes apart (every row in one bank group): 16 wavefronts, as
/// launch 183 measured.
#[test]
fn stmatrix_trans_from_ptx() {
    use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
    use smem_model::kernel::tally::Tally;
    let text = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<8>;
    .shared .align 16 .b8 s[4096];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 7;
    shl.b32 %r3, %r2, 7;
    shr.u32 %r4, %r1, 3;
    shl.b32 %r5, %r4, 4;
    add.s32 %r6, %r3, %r5;
    mov.u32 %r7, s;
    add.s32 %r6, %r6, %r7;
    stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r6], {%r1, %r2};
    ret;
}
"#;
    let module = ptx::parse(text).unwrap();
    let kernel = Kernel::new(&module, None).unwrap();
    let launch = KernelLaunch::new([1, 1, 1], [32, 1, 1]).unwrap();
    let mut tally = Tally::new().with_capability(ComputeCapability::Sm90);
    kernel.run(&launch, &RunOptions::new(), &mut tally).unwrap();
    let by_op = tally.by_op();
    assert_eq!(by_op.len(), 1);
    assert_eq!(by_op[0].0 .0, Op::StMatrix(Matrices::X2Trans));
    assert_eq!((by_op[0].1.requests, by_op[0].1.wavefronts), (1, 16));
}

/// Round 2: `.ca`'s rule holds whatever the warps, blocks and repeats (each
/// instruction on its own), and a plain `.cg` stays invisible to the
/// counter with 8 warps and 8 blocks too.
#[test]
fn round2_ca_scales_and_plain_cg_stays_uncounted() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let (mut ca, mut cg) = (0, 0);
    for m in data("round2.json") {
        let probe = m["probe"].as_str().unwrap();
        let copies = warp_launches(&m);
        assert_eq!(ncu(&m, INST), copies, "launch {}", m["launch"]);
        let what = format!("launch {} {probe} {}", m["launch"], m["what"]);
        if probe == "cg16" {
            assert_eq!(ncu(&m, WAVES), 0, "{what}");
            cg += 1;
            continue;
        }
        let Some(width) = probe.strip_prefix("ca").map(|w| w.parse::<u32>().unwrap()) else {
            continue;
        };
        let shared = lanes(&m, "shared");
        let req = request(Op::CpAsync(CpAsync::Ca), width, &shared);
        let active: [u32; 32] = core::array::from_fn(|l| {
            if shared[l] >= 0 {
                shared[l] as u32
            } else {
                u32::MAX
            }
        });
        let global: [u32; 32] = core::array::from_fn(|l| lanes(&m, "global")[l] as u32);
        let waves = ldgsts_wavefronts(width, &active, &global, req.active());
        let ideal = sm90.cost(&req).unwrap().ideal_wavefronts();
        assert_eq!(ncu(&m, WAVES), copies * waves, "{what}");
        assert_eq!(ncu(&m, CONFLICTS), copies * (waves - ideal), "{what}");
        ca += 1;
    }
    assert_eq!((ca, cg), (34, 17));
}

/// Rounds 3 and 4 (`tools/device/s5/cg_probe.cu`): unguarded `.cg`
/// (LDGSTS.BYPASS) follows `ldgsts_bypass_wavefronts` in every launch where
/// the rule claims exactness (187: rows of 64 and 128 bytes, shared rows 128
/// to 256 bytes apart from offsets 0, 16 and 64, global rows 128 bytes to
/// 8 KiB apart, aligned or 16 bytes off; one to eight warps, one or 132
/// blocks, one or sixteen instructions in a row), and stays within four of
/// it where it does not (17 launches, 7 of them off). `.ca` keeps its rule
/// on the same patterns; round 5's src-size register form follows the shared
/// side alone (99 launches).
#[test]
fn bypass_wavefronts_follow_the_line_pairs() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let (mut exact, mut estimated, mut off, mut ca, mut zero_fill) = (0, 0, 0, 0, 0);
    for m in data("bypass.json") {
        let probe = m["probe"].as_str().unwrap();
        let copies = warp_launches(&m) * if probe.ends_with("16") { 16 } else { 1 };
        assert_eq!(ncu(&m, INST), copies, "launch {}", m["launch"]);
        let what = format!(
            "round {} launch {} {probe} {}",
            m["round"], m["launch"], m["what"]
        );
        let shared: [u32; 32] = core::array::from_fn(|l| lanes(&m, "shared")[l] as u32);
        let global: [u32; 32] = core::array::from_fn(|l| lanes(&m, "global")[l] as u32);
        match probe {
            "cgU" | "cgImm" | "cgU16" => {
                let rule = ldgsts_bypass_wavefronts(&shared, &global);
                let measured = ncu(&m, WAVES);
                if rule.exact {
                    assert_eq!(measured, copies * rule.wavefronts, "{what}");
                    exact += 1;
                } else {
                    let diff = measured.abs_diff(copies * rule.wavefronts);
                    assert!(
                        diff <= 4 * copies,
                        "{what}: {measured} vs {}",
                        rule.wavefronts
                    );
                    estimated += 1;
                    off += u32::from(diff != 0);
                }
            }
            "caU" => {
                let waves = ldgsts_wavefronts(16, &shared, &global, LaneSet::FULL);
                assert_eq!(ncu(&m, WAVES), copies * waves, "{what}");
                ca += 1;
            }
            // Guarded (SASS-predicated) `.cg`: under a guard every lane
            // passed, read from memory, the counter saw nothing; under one
            // that half the lanes passed it counted the whole warp. Pinned
            // here because the docs say so.
            "cgP" => assert_eq!(ncu(&m, WAVES), 0, "{what}"),
            "cgHalf" => {
                let rule = ldgsts_bypass_wavefronts(&shared, &global);
                assert_eq!(ncu(&m, WAVES), copies * rule.wavefronts, "{what}");
            }
            // Round 5: a src-size register (SASS's source-ignore predicate
            // operand, Triton's form): the shared side alone, every lane's
            // (zero-filling ones too), whatever the global side.
            "cgZ" | "cgZhalf" => {
                let req = request(Op::CpAsync(CpAsync::Cg), 16, &lanes(&m, "shared"));
                let shared_side = sm90.cost(&req).unwrap().wavefronts();
                assert_eq!(ncu(&m, WAVES), copies * shared_side, "{what}");
                zero_fill += 1;
            }
            _ => {}
        }
    }
    assert_eq!((exact, estimated, off, ca, zero_fill), (187, 17, 7, 66, 99));
}
