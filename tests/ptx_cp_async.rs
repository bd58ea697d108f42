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
/// the guard is `P0` here (`@P0 LDGSTS.E.BYPASS.128`, and `.ZFILL` with a
/// src-size), which Nsight Compute misreads
/// (`predicated_bypass_copies_follow_the_register`), and the model's figure
/// for guarded copies is an estimate.
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
/// on the same patterns; round 5's src-size register form, whose source
/// predicate ptxas put in `P0` there, follows the shared side alone (99
/// launches: Nsight Compute reads `P0` as false, round 6).
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
                // What the interpreter's event carries: each address less
                // the first lane's 128-byte line.
                let relative = global.map(|g| g.wrapping_sub(global[0] & !127));
                assert_eq!(ldgsts_bypass_wavefronts(&shared, &relative), rule);
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
            // Guarded `.cg`, on `P0` both (SASS `@P0` and `@!P0`): Nsight
            // Compute reads `P0` as false in every lane (round 6), so `@P0`
            // counted nothing and `@!P0` (a guard lanes 0-15 passed) the
            // whole warp. `cgP16`'s guard is `P1`: counted as unguarded.
            "cgP" => assert_eq!(ncu(&m, WAVES), 0, "{what}"),
            "cgHalf" => {
                let rule = ldgsts_bypass_wavefronts(&shared, &global);
                assert_eq!(ncu(&m, WAVES), copies * rule.wavefronts, "{what}");
            }
            // Round 5: a src-size register (SASS's source predicate
            // operand, Triton's form), in `P0`: the shared side alone, every
            // lane's (zero-filling ones too), whatever the global side.
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

/// How Nsight Compute's instrumentation counts a *predicated* LDGSTS, from
/// round 6 (`tools/device/s6/pred_probe.cu`, 40 launches, each SASS
/// instruction's count from the Source page): what it shows for one
/// instruction whose guard passes the lanes of `passes`, given the SASS.
/// Lane `l` copies 16 bytes from global `128 l` to shared `16 l` (copy `c`
/// adds `8 KiB c` and `1 KiB c`), so that the bypass rule counts a
/// wavefront a lane; `other` gives the address registers of the lanes the
/// guard fails, where the probe set them apart.
fn instrumented(sass: &str, passes: u32, copy: u32, other: Option<(u32, u32)>) -> u32 {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let at = |l: u32, on: bool| match (on, other) {
        (false, Some(o)) => o,
        _ => (16 * l + 1024 * copy, 128 * l + 8192 * copy),
    };
    // The bypass rule (or `.ca`'s) over the lanes of `lanes`, each at the
    // address its registers hold.
    let rule = |lanes: u32| {
        let on = |l: u32| lanes >> l & 1 == 1;
        let shared: [u32; 32] = core::array::from_fn(|l| {
            let l = l as u32;
            if on(l) {
                at(l, passes >> l & 1 == 1).0
            } else {
                u32::MAX
            }
        });
        let global: [u32; 32] = core::array::from_fn(|l| at(l as u32, passes >> l & 1 == 1).1);
        if sass.contains("BYPASS") {
            ldgsts_bypass_wavefronts(&shared, &global).wavefronts
        } else {
            ldgsts_wavefronts(16, &shared, &global, LaneSet::from_bits(lanes))
        }
    };
    let shared_side = |lanes: u32| {
        let req = WarpRequest::from_fn(Op::CpAsync(CpAsync::Cg), 16, |lane| {
            let l = lane.get();
            (lanes >> l & 1 == 1).then_some(at(l, true).0)
        })
        .unwrap();
        sm90.cost(&req).map_or(0, |c| c.wavefronts())
    };
    let bypass = sass.contains("BYPASS");
    // A source predicate operand (`..., Pn, [R]` on the Source page): the
    // src-size register form, every lane writing.
    let source = sass
        .split(", ")
        .find(|t| t.len() == 2 && t.starts_with('P'))
        .map(|t| t.as_bytes()[1] - b'0');
    if let Some(p) = source {
        let quiet = (0..4)
            .filter(|q| passes >> (8 * q) & 0xff == 0)
            .fold(0u32, |m, q| m | 0xff << (8 * q));
        return match (p, passes) {
            // Read as false: every lane zero-fills.
            (0, _) => shared_side(u32::MAX),
            (_, u32::MAX) => rule(u32::MAX),
            (_, 0) => shared_side(u32::MAX),
            _ => 2 * rule(passes) + shared_side(!passes & quiet),
        };
    }
    match (sass.starts_with("@P0 "), sass.starts_with("@!P0 ")) {
        // `P0` read as false in every lane: `@P0` passes none...
        (true, _) if bypass => 0,
        // ...and `@!P0` every lane, with whatever its registers hold.
        (_, true) if bypass => rule(u32::MAX),
        _ => rule(passes),
    }
}

/// Round 6: Nsight Compute's instrumentation reads predicate `P0` as false
/// in every lane of an LDGSTS.BYPASS, whether `P0` guards it (`@P0`: no lane
/// counted, `@!P0`: every lane, with the addresses its registers hold) or is
/// its src-size register's source predicate (the shared side alone). With
/// `P1` to `P3`, and for `.ca` under `P0`, the counters follow the rules the
/// model applies to the lanes that copy.
#[test]
fn predicated_bypass_copies_follow_the_register() {
    let mut checked = 0;
    for m in data("predicated.json") {
        let kernel = m["kernel"].as_str().unwrap();
        let on = lanes(&m, "on");
        assert_eq!(m["ncu"], m["ncu_again"], "launch {}", m["launch"]);
        for inst in m["instructions"].as_array().unwrap() {
            let sass = inst["sass"].as_str().unwrap();
            // `[R11+0x400]`: the second of four copies.
            let copy = sass.split("+0x").nth(1).map_or(0, |h| {
                u32::from_str_radix(&h[..h.find(']').unwrap()], 16).unwrap() / 1024
            });
            let bit = [15, 2, 4, 8][copy as usize];
            let passes = (0..32)
                .filter(|&l| on[l] & bit != 0)
                .fold(0u32, |m, l| m | 1 << l);
            let other = kernel.ends_with("_sel").then_some((8192, 1 << 20));
            let want = instrumented(sass, passes, copy, other);
            assert_eq!(
                inst["wavefronts"].as_u64().unwrap() as u32,
                want,
                "launch {} {kernel} {} `{sass}`",
                m["launch"],
                m["guard"]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 64);
}
