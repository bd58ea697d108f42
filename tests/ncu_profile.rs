//! The counters `kernel::ncu` names, against Nsight Compute's own exports of
//! the same launches (tests/data/ncu: H200, ncu 2025.3; raw, details and
//! Source pages of 12 nvcc fixtures and 3 Triton kernels): every counter
//! named equal to the prediction is equal to the measurement, every one
//! named a lower bound is at least the prediction, and the comparison
//! splits the unit-level conflicts into layout and arbitration as measured.

use std::path::{Path, PathBuf};

use smem_model::kernel::ncu::profile::{
    compare, read_export, read_export_file, read_launches, read_source, select, select_source,
    Comparison, Export, Launch, SourceKernel,
};
use smem_model::kernel::ncu::{Relation, Unit, SOURCE_EXCESSIVE};
use smem_model::kernel::ptx::RunOptions;
use smem_model::kernel::tally::Tally;
use smem_model::{ComputeCapability, Error};

#[path = "support/fixture.rs"]
mod fixture;

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// A fixture of tests/data/ptx run as its launch.json says (scalars given,
/// pointers left to fake addresses), tallied on sm_90: (kernel name, grid,
/// block, tally).
fn run(name: &str) -> (String, [u32; 3], [u32; 3], Tally) {
    let (kernel, kl) = fixture::load(name);
    let mut tally = Tally::new().with_capability(ComputeCapability::Sm90);
    kernel
        .run(
            &kl,
            &RunOptions::new().with_capability(ComputeCapability::Sm90),
            &mut tally,
        )
        .unwrap();
    (kernel.name().to_owned(), kl.grid(), kl.block(), tally)
}

fn launches(path: &Path) -> Vec<Launch> {
    match read_export_file(path).unwrap() {
        Export::Launches(l) => l,
        other => panic!("{}: not a launch export: {other:?}", path.display()),
    }
}

fn source(path: &Path) -> Vec<SourceKernel> {
    match read_export_file(path).unwrap() {
        Export::Source(s) => s,
        other => panic!("{}: not a Source page: {other:?}", path.display()),
    }
}

/// The nvcc fixtures measured, each with the ID of the launch its
/// launch.json describes (two fixtures' programs launch the kernel twice).
const FIXTURES: [(&str, u64); 12] = [
    ("bitonic_sort", 0),
    ("cp_async_double_buffer", 0),
    ("histogram_atomics", 0),
    ("ldmatrix_stmatrix", 0),
    ("matmul", 0),
    ("pipeline_memcpy_async", 0),
    ("reduce_interleaved", 0),
    ("reverse_dynamic", 0),
    ("scan_blelloch", 0),
    ("transpose_coalesced_padded", 0),
    ("transpose_naive_smem", 0),
    ("vector_widths", 0),
];

/// The Triton kernels measured: fixture, and its launch's ID in triton/.
const TRITON: [(&str, u64); 3] = [
    ("triton_matmul_w2", 0),
    ("triton_softmax", 1),
    ("triton_matmul", 2),
];

/// Every counter holds as named, for one launch, from one export.
fn check(fixture: &str, what: &str, c: &Comparison) {
    assert!(!c.counters.is_empty(), "{fixture}: nothing compared");
    for row in &c.counters {
        let p = &row.prediction;
        if let Some(holds) = row.holds() {
            assert!(
                holds,
                "{fixture} ({what}): {} predicted {} ({:?}), measured {:?}",
                p.counter, p.predicted, p.relation, row.measured
            );
        }
    }
}

/// Every counter the model names equal is equal to the raw and details
/// pages' value, and every lower bound holds, on all 15 launches.
#[test]
fn named_counters_hold_on_every_measured_launch() {
    let mut equal = 0;
    for (fixture, id) in FIXTURES {
        let (name, grid, block, tally) = run(fixture);
        for page in ["raw.csv", "details.csv"] {
            let all = launches(&data("ncu").join(fixture).join(page));
            let launch = select(&all, &name, grid, block, Some(id)).unwrap();
            let c = compare(&tally, Some(launch), None).unwrap();
            check(fixture, page, &c);
            equal += c
                .counters
                .iter()
                .filter(|r| r.prediction.relation == Relation::Equal && r.measured.is_some())
                .count();
        }
    }
    for (fixture, id) in TRITON {
        let (name, grid, block, tally) = run(fixture);
        for page in ["raw.csv", "details.csv"] {
            let all = launches(&data("ncu/triton").join(page));
            let launch = select(&all, &name, grid, block, Some(id)).unwrap();
            check(fixture, page, &compare(&tally, Some(launch), None).unwrap());
        }
    }
    // Not vacuous: the instruction and wavefront counters of every family
    // present, both pages.
    assert!(equal >= 100, "{equal}");
}

/// The Source page's "L1 Wavefronts Shared Excessive", summed, equals the
/// model's bank conflicts (wavefronts less ideal) on every launch without
/// LDGSTS, and bounds them on those with; per family, its "Ideal" is the
/// model's ideal and its wavefronts the model's, except LDGSTS's.
#[test]
fn source_page_excess_is_the_model_conflicts() {
    for (fixture, _) in FIXTURES {
        let (name, _, _, tally) = run(fixture);
        for page in ["source_sass.csv", "source_cuda_sass.csv"] {
            let kernels = source(&data("ncu").join(fixture).join(page));
            let nth = (kernels.iter().filter(|k| k.is_kernel(&name)).count() > 1).then_some(0);
            let s = select_source(&kernels, &name, nth).unwrap();
            let c = compare(&tally, None, Some(s)).unwrap();
            check(fixture, page, &c);
            let excess = c
                .counters
                .iter()
                .find(|r| r.prediction.counter == SOURCE_EXCESSIVE)
                .unwrap();
            assert!(excess.measured.is_some());
            for f in &c.families {
                if f.family != smem_model::kernel::ncu::Family::Ldgsts
                    && fixture != "histogram_atomics"
                {
                    assert_eq!(
                        (f.measured.wavefronts, f.measured.ideal),
                        (f.wavefronts, f.ideal),
                        "{fixture} {page} {:?}",
                        f.family
                    );
                } else if f.family == smem_model::kernel::ncu::Family::Ldgsts {
                    // The shared-side rule is the page's ideal.
                    assert_eq!(f.measured.ideal, f.wavefronts, "{fixture} {page}");
                }
            }
        }
    }
    let kernels = source(&data("ncu/triton/source_sass.csv"));
    for (fixture, _) in TRITON {
        let (name, _, _, tally) = run(fixture);
        let s = select_source(&kernels, &name, None).unwrap();
        check(
            fixture,
            "source_sass",
            &compare(&tally, None, Some(s)).unwrap(),
        );
    }
}

fn unit(c: &Comparison, unit: Unit) -> (u64, u64, i64) {
    let u = c.units.iter().find(|u| u.unit == unit).unwrap();
    (u.layout, u.arbitration, u.unexplained)
}

/// The naive transpose's load conflicts are all the layout's: 63,488, no
/// arbitration (64 blocks).
#[test]
fn transpose_naive_conflicts_are_the_layout() {
    let (name, grid, block, tally) = run("transpose_naive_smem");
    let all = launches(&data("ncu/transpose_naive_smem/raw.csv"));
    let c = compare(
        &tally,
        Some(select(&all, &name, grid, block, None).unwrap()),
        None,
    )
    .unwrap();
    assert_eq!(unit(&c, Unit::Ld), (63_488, 0, 0));
    assert_eq!(unit(&c, Unit::St), (0, 0, 0));
    assert_eq!(
        c.launch,
        Some((
            0,
            "transposeNaiveShared(float *, const float *, int, int)".into()
        ))
    );
}

/// matrixMul's layout has no conflict; what ncu's unit-level counters call
/// conflicts (38 on loads, 4,825 on stores, 200 blocks) is arbitration.
#[test]
fn matmul_conflicts_are_arbitration() {
    let (name, grid, block, tally) = run("matmul");
    let all = launches(&data("ncu/matmul/raw.csv"));
    let c = compare(
        &tally,
        Some(select(&all, &name, grid, block, None).unwrap()),
        None,
    )
    .unwrap();
    assert_eq!(unit(&c, Unit::Ld), (0, 38, 0));
    assert_eq!(unit(&c, Unit::St), (0, 4_825, 0));
    // The templated name: raw has `MatrixMulCUDA<32>`, the Source page
    // `MatrixMulCUDA<(int)32>`, the PTX `_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii`.
    let kernels = source(&data("ncu/matmul/source_cuda_sass.csv"));
    let s = select_source(&kernels, &name, None).unwrap();
    let c = compare(&tally, Some(&all[0]), Some(s)).unwrap();
    assert!(c
        .lines
        .iter()
        .all(|l| l.measured.excessive == 0 && l.conflicts == 0));
    assert_eq!(
        c.lines.iter().map(|l| l.measured.wavefronts).sum::<u64>(),
        c.lines.iter().map(|l| l.wavefronts).sum::<u64>()
    );
}

/// Per CUDA line, the Source page and the PTX's `.loc` lines agree: the
/// transpose's line 16 has all 63,488 excessive wavefronts, predicted and
/// measured.
#[test]
fn lines_responsible_are_named() {
    let (name, _, _, tally) = run("transpose_naive_smem");
    let kernels = source(&data("ncu/transpose_naive_smem/source_cuda_sass.csv"));
    let c = compare(
        &tally,
        None,
        Some(select_source(&kernels, &name, None).unwrap()),
    )
    .unwrap();
    let top = &c.lines[0];
    assert_eq!(
        (top.file.as_str(), top.line),
        ("transpose_naive_smem.cu", 16)
    );
    assert_eq!((top.measured.excessive, top.conflicts), (63_488, 63_488));
    assert_eq!((top.measured.wavefronts, top.wavefronts), (65_536, 65_536));
    assert_eq!(c.lines.len(), 2);
    // bitonic sort: every line with shared wavefronts, equal on both sides.
    let (name, _, _, tally) = run("bitonic_sort");
    let kernels = source(&data("ncu/bitonic_sort/source_cuda_sass.csv"));
    let c = compare(
        &tally,
        None,
        Some(select_source(&kernels, &name, None).unwrap()),
    )
    .unwrap();
    assert!(!c.lines.is_empty());
    for l in &c.lines {
        assert_eq!(
            (
                l.measured.wavefronts,
                l.measured.ideal,
                l.measured.excessive
            ),
            (l.wavefronts, l.ideal, l.conflicts),
            "{l:?}"
        );
    }
}

/// LDGSTS: the instruction count is named equal and is. Triton's
/// `cp.async.cg` copies carry a src-size register (SASS's source predicate
/// operand, here `P1` to `P6`): the bypass rule where they read (8 for the A
/// tile's 64-byte rows, 4 for B's 128-byte ones), the shared side where they
/// zero-fill (the last two trips), which is the 14,336 measured. Named an
/// estimate all the same: had ptxas put the operand in `P0`, Nsight Compute
/// would have counted the shared side alone (10,240; tests/data/ncu/cp_async,
/// round 6), and PTX does not say which register it gets: the prediction
/// says the counter lies between the two.
#[test]
fn ldgsts_cg_with_a_src_size_register_follows_the_rule() {
    let (name, grid, block, tally) = run("triton_matmul_w2");
    let all = launches(&data("ncu/triton/raw.csv"));
    let c = compare(
        &tally,
        Some(select(&all, &name, grid, block, None).unwrap()),
        None,
    )
    .unwrap();
    let row = |counter: &str| {
        c.counters
            .iter()
            .find(|r| r.prediction.counter == counter)
            .unwrap()
    };
    let inst = row("smsp__sass_inst_executed_op_ldgsts.sum");
    assert_eq!(
        (inst.prediction.relation, inst.measured),
        (Relation::Equal, Some(2_560))
    );
    let wave = row("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum");
    assert_eq!(wave.prediction.relation, Relation::Estimate);
    assert_eq!(
        (wave.prediction.predicted, wave.measured),
        (14_336, Some(14_336))
    );
    // The two values the counter can take: the shared side (a `P0`
    // operand) and the rule; the comparison holds within them.
    assert_eq!(wave.prediction.range, Some((10_240, 14_336)));
    assert_eq!(wave.holds(), Some(true));
    // op_ld holds LDS and LDSM: 1,024 + 12,288, no arbitration.
    let u = c.units.iter().find(|u| u.unit == Unit::Ld).unwrap();
    assert_eq!(
        (u.unit_wavefronts, u.instruction_wavefronts, u.arbitration),
        (13_312, 13_312, 0)
    );
}

/// Several launches of one kernel with the same grid and block: refused
/// without an ID, naming each; with one, that launch.
#[test]
fn several_matching_launches_are_refused() {
    let (name, grid, block, _) = run("ldmatrix_stmatrix");
    let all = launches(&data("ncu/ldmatrix_stmatrix/raw.csv"));
    let err = select(&all, &name, grid, block, None).unwrap_err();
    assert!(
        matches!(err, Error::NcuLaunch { matching: 2, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("2 launches of _Z16ldmatrixStmatrixPji"),
        "{text}"
    );
    assert!(
        text.contains("ID 1 ldmatrixStmatrix(unsigned int *, int) grid (1, 1, 1)"),
        "{text}"
    );
    assert_eq!(select(&all, &name, grid, block, Some(1)).unwrap().id, 1);
}

/// No launch of the kernel, or none with the launch's grid: refused.
#[test]
fn no_matching_launch_is_refused() {
    let all = launches(&data("ncu/transpose_naive_smem/raw.csv"));
    let err = select(&all, "_Z9otherNamePf", [8, 8, 1], [32, 32, 1], None).unwrap_err();
    assert!(
        matches!(err, Error::NcuLaunch { matching: 0, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(
            "its launches: ID 0 transposeNaiveShared(float *, const float *, int, int) grid \
             (8, 8, 1) block (32, 32, 1)"
        ),
        "{err}"
    );
    let name = "_Z20transposeNaiveSharedPfPKfii";
    assert!(select(&all, name, [4, 8, 1], [32, 32, 1], None).is_err());
    assert!(select(&all, name, [8, 8, 1], [32, 32, 1], Some(3)).is_err());
}

/// An export without counters the comparison needs is compared on what it
/// has, the others listed as absent in the order predicted; a counter asked
/// for by name is an error naming it and the --metrics to profile with, and
/// a value that is not a count is an error in the comparison too.
#[test]
fn missing_counters_are_listed_and_a_bad_value_is_named() {
    let csv = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\"\n\
               \"0\",\"transposeNaiveShared(float *, const float *, int, int)\",\"(32, 32, 1)\",\"(8, 8, 1)\",\"65,536\"\n";
    let all = read_launches(csv).unwrap();
    let (_, _, _, tally) = run("transpose_naive_smem");
    let c = compare(&tally, Some(&all[0]), None).unwrap();
    let present = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
    for row in &c.counters {
        let counter = row.prediction.counter;
        if counter == present {
            assert_eq!(row.measured, Some(65_536));
        } else if counter != SOURCE_EXCESSIVE {
            assert_eq!(row.measured, None, "{counter}");
        }
    }
    assert_eq!(c.absent[0], "smsp__sass_inst_executed_op_shared_ld.sum");
    assert!(!c.absent.contains(&present));
    // Every unit split needs a conflicts counter the export lacks.
    assert!(c.units.is_empty());
    let err = all[0]
        .counter("smsp__sass_inst_executed_op_shared_ld.sum")
        .unwrap_err();
    match &err {
        Error::NcuCounter {
            launch,
            counter,
            value,
            ..
        } => {
            assert_eq!(
                (*launch, counter.as_str(), value.as_str()),
                (0, "smsp__sass_inst_executed_op_shared_ld.sum", "")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .contains("profile with ncu --metrics smsp__sass_inst_executed_op_shared_ld.sum,"),
        "{err}"
    );
    let bad = csv.replace("\"65,536\"", "\"n/a\"");
    let bad = read_launches(&bad).unwrap();
    let err = compare(&tally, Some(&bad[0]), None).unwrap_err();
    assert!(err.to_string().contains("= \"n/a\", not a count"), "{err}");
}

/// Malformed files: typed errors with the line, never a panic.
#[test]
fn malformed_exports_are_refused() {
    let err = read_launches("hello\nworld\n").unwrap_err();
    assert_eq!(err.to_string(), "Nsight Compute CSV export: not one: no header row starting with \"ID\" (expected ncu --csv --page raw or --page details)");
    let err = read_launches("==PROF== x\n\"ID\",\"Kernel Name\"\n\"zero\",\"k\"\n").unwrap_err();
    assert_eq!(
        err,
        Error::NcuCsv {
            line: 3,
            reason: "launch ID \"zero\" is not a number".into()
        }
    );
    // The CUDA and PTX views alone hold no counters.
    for page in [
        "ncu/transpose_naive_smem/source_cuda.csv",
        "ncu/triton/source_ptx.csv",
    ] {
        let err = read_export_file(&data(page)).unwrap_err();
        assert!(
            err.to_string()
                .contains("export with --page source --print-source sass, or cuda,sass"),
            "{err}"
        );
    }
    let err = read_source("\"Address\",\"Source\",\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\",\"L1 Wavefronts Shared Excessive\"\n\"0x10\",\"LDS R1, [R2]\",\"lots\",\"1\",\"0\"\n").unwrap_err();
    assert_eq!(
        err,
        Error::NcuCsv {
            line: 2,
            reason: "\"lots\" is not a count".into()
        }
    );
    let err = read_export_file(&data("ncu/no-such-file.csv")).unwrap_err();
    assert!(
        err.to_string().starts_with("Nsight Compute CSV export: "),
        "{err}"
    );
    // Whatever the bytes, no panic.
    for text in [
        "",
        "\"",
        "\"ID\"",
        "\"ID\"\n\"\"\n",
        "\"Kernel Name\"\n\"Address\"\n\"1\"",
        "\"Line No\",\"Source\"\n,,,\n",
    ] {
        let _ = read_export(text);
    }
}

/// nvcc's compare-and-swap loops (shared_atomics_kinds: float and 64-bit
/// atomics, one warp) feed the atom and ld counters with rounds: those
/// counters are never named equal, and each one named a lower bound is at
/// most what ncu measured (tests/data/ptx/shared_atomics_kinds/ncu.json);
/// the stores, which no loop touches, stay equal.
#[test]
fn compare_and_swap_loops_are_never_named_equal() {
    let (_, _, _, tally) = run("shared_atomics_kinds");
    let measured: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data("ptx/shared_atomics_kinds/ncu.json")).unwrap(),
    )
    .unwrap();
    let named = smem_model::kernel::ncu::predictions(&tally);
    let find = |counter: &str| named.iter().find(|p| p.counter == counter).unwrap();
    for counter in [
        "smsp__sass_inst_executed_op_shared_atom.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    ] {
        let p = find(counter);
        assert_ne!(p.relation, Relation::Equal, "{counter}");
        assert!(p.reason.is_some(), "{counter}");
        if p.relation == Relation::AtLeast {
            let m = measured["key"][counter].as_u64().unwrap();
            assert!(p.predicted <= m, "{counter}: {} > {m}", p.predicted);
        }
    }
    let st = find("smsp__sass_inst_executed_op_shared_st.sum");
    assert_eq!(
        (st.relation, st.predicted),
        (
            Relation::Equal,
            measured["key"]["smsp__sass_inst_executed_op_shared_st.sum"]
                .as_u64()
                .unwrap()
        )
    );
}

/// The GPU a launch ran on: the raw page's device attributes, the details
/// page's CC column (both 9.0, the H200), nothing where neither is exported.
#[test]
fn the_launch_names_its_gpu() {
    for page in ["raw", "details"] {
        let Export::Launches(all) =
            read_export_file(&data(&format!("ncu/matmul/{page}.csv"))).unwrap()
        else {
            panic!("{page}: not a launch export");
        };
        assert_eq!(all[0].capability, Some(ComputeCapability::Sm90), "{page}");
    }
    let csv = "\"ID\",\"Kernel Name\",\"CC\"\n\"0\",\"k\",\"8.6\"\n\"1\",\"k\",\"\"\n";
    let all = read_launches(csv).unwrap();
    assert_eq!(all[0].capability, Some(ComputeCapability::Sm86));
    assert_eq!(all[1].capability, None);
}
