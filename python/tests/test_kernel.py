"""A kernel's shared memory from its PTX, from Python: the device fixtures of
tests/data/ptx (compiled by nvcc 13 and Triton 3.6, measured with ncu on an
H100/H200) against their measured wavefronts."""

import _thread
import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import smem_model

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "data" / "ptx"


def fixture(name):
    folder = FIXTURES / name
    launch = json.loads((folder / "launch.json").read_text())
    ncu = json.loads((folder / "ncu.json").read_text())["key"]
    scalars = {a["index"]: a["value"] for a in launch["args"] if not a.get("pointer")}
    return folder, launch, ncu, scalars


@pytest.mark.parametrize("name", ["transpose_naive_smem", "triton_colsum", "triton_softmax"])
def test_a_launch_reproduces_its_measured_wavefronts(name):
    folder, launch, ncu, scalars = fixture(name)
    run = smem_model.kernel(
        (folder / "kernel.ptx").read_text(),
        tuple(launch["grid"]),
        tuple(launch["block"]),
        scalars,
        dynamic_shared=launch.get("dynamic_shared", 0),
        arch=(9, 0),
    )
    assert run.blocks_run == run.blocks_total == launch["grid"][0] * launch["grid"][1] * launch["grid"][2]
    assert not run.sampled and run.notes == []
    assert run.estimated_totals is None
    by_op = run.summary.by_op

    def ours(prefixes, field):
        return sum(getattr(t, field) for op, t in by_op.items() if op.split(".")[0] in prefixes)

    # Instructions exactly, wavefronts within 1%, as tests/ptx_fixtures.rs checks them.
    # Triton softmax's div.full and ex2.approx are not evaluated (no shared access).
    assert run.opaque == ({"div.full.f32": 8, "ex2.approx.f32": 8} if name == "triton_softmax" else {})
    assert ours({"LDS"}, "requests") == ncu["smsp__sass_inst_executed_op_shared_ld.sum"]
    assert ours({"LDSM"}, "requests") == ncu["smsp__sass_inst_executed_op_ldsm.sum"]
    assert ours({"STS"}, "requests") == ncu["smsp__sass_inst_executed_op_shared_st.sum"]
    for prefixes, metric in [({"LDS", "LDSM"}, "ld"), ({"STS", "STSM"}, "st")]:
        measured = ncu[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{metric}.sum"]
        assert abs(ours(prefixes, "wavefronts") - measured) <= 0.01 * measured, (by_op, metric, measured)


def test_a_compiled_triton_kernel():
    folder, launch, ncu, scalars = fixture("triton_colsum")
    meta = json.loads((folder / "kernel.json").read_text())
    # What triton.compile returns, as far as the helper reads it.
    compiled = SimpleNamespace(
        asm={"ptx": (folder / "kernel.ptx").read_text()},
        metadata=SimpleNamespace(
            num_warps=meta["num_warps"], shared=meta["shared"], name=meta["name"],
            target=SimpleNamespace(arch=meta["target"]["arch"]),
        ),
    )
    args = [None, None, 512, 512, 512, None, None]  # x_ptr, y_ptr, three sizes, scratch pointers
    run = smem_model.triton_kernel(compiled, tuple(launch["grid"]), args)
    direct = smem_model.kernel(
        (folder / "kernel.ptx").read_text(), tuple(launch["grid"]), (128,), scalars,
        dynamic_shared=1024,
    )
    assert run.name == "fx_colsum"
    assert run.summary == direct.summary
    # Its cache entry as Triton leaves it on disk: the folder, the .json, the .ptx.
    for entry in (folder, folder / "kernel.json", str(folder / "kernel.ptx")):
        assert smem_model.triton_kernel(entry, tuple(launch["grid"]), args).summary == direct.summary
    # The fixtures' folder as a cache root: an entry picked by its directory.
    with pytest.raises(ValueError, match=r"holds 52 kernels: probe \(async_sanitizer\), kernel \(bitonic_sort\), .* and 44 more"):
        smem_model.triton_kernel(FIXTURES, 1)
    assert smem_model.triton_kernel(FIXTURES, tuple(launch["grid"]), args, kernel="triton_cols").summary == direct.summary
    sampled = smem_model.triton_kernel(compiled, tuple(launch["grid"]), args, sample=2)
    assert sampled.sampled and sampled.blocks_run == 2
    # The sample's totals scaled to the grid, as smem kernel --json gives them.
    estimate = sampled.estimated_totals
    assert estimate is not None
    assert estimate["scale"] == sampled.blocks_total / 2
    totals = sampled.summary.totals
    assert estimate["requests"] == (totals.requests * sampled.blocks_total + 1) // 2
    assert not sampled.needs_opt_in


def test_races_and_barrier_errors_from_ptx():
    runs = {}
    for name in ("racy_neighbour", "divergent_barrier", "transpose_naive_smem"):
        folder, launch, _, scalars = fixture(name)
        runs[name] = smem_model.kernel(
            (folder / "kernel.ptx").read_text(), tuple(launch["grid"]), tuple(launch["block"]),
            scalars, dynamic_shared=launch.get("dynamic_shared", 0),
        )
    # compute-sanitizer found these on the device (racecheck.txt: a write at
    # racy_neighbour.cu:10 racing with reads at :12; synccheck.txt: a
    # divergent barrier at divergent_barrier.cu:10, block (0,0,0)), in the
    # shape `smem kernel --json` gives (tests/cli_kernel.rs checks the same).
    races = runs["racy_neighbour"].races
    assert len(races) == 4 and all(r["blocks"] == 2 for r in races)
    assert races[0] == {
        "kind": "read-write", "severity": "error",
        "first": {"ptx_line": 43, "source_line": "racy_neighbour.cu:10", "warp": 1, "lane": 0,
                  "thread": [32, 0, 0], "access": "write"},
        "second": {"ptx_line": 48, "source_line": "racy_neighbour.cu:12", "warp": 0, "lane": 31,
                   "thread": [31, 0, 0], "access": "read"},
        "bytes": 32, "blocks": 2, "example_block": [0, 0, 0], "example_address": 0x80,
    }
    assert runs["racy_neighbour"].barrier_errors == []
    divergent = runs["divergent_barrier"].barrier_errors[1]
    assert divergent["message"] == (
        "divergent barrier 0 at PTX line 48 (divergent_barrier.cu:10): "
        "lanes 0-15 of warp 0 reach it, lanes 16-31 do not"
    )
    assert divergent["error"]["type"] == "divergent-lanes" and divergent["example_block"] == [0, 0, 0]
    # Clean under compute-sanitizer, clean here.
    assert runs["transpose_naive_smem"].races == []
    assert runs["transpose_naive_smem"].barrier_errors == []


def test_bad_launches_are_errors():
    folder, launch, _, scalars = fixture("triton_colsum")
    text = (folder / "kernel.ptx").read_text()
    with pytest.raises(ValueError) as e:
        smem_model.kernel(text, (8,), (128,), {}, dynamic_shared=1024)
    assert "fx_colsum_param_2" in str(e.value)  # an unset scalar is named
    with pytest.raises(ValueError):
        smem_model.kernel("not ptx", 1, 32)
    with pytest.raises(ValueError) as e:
        smem_model.kernel(text, (-1,), (128,), scalars)
    assert str(e.value) == "grid[0]: -1 is not an integer from 0 to 2^32 - 1"
    with pytest.raises(ValueError) as e:
        smem_model.kernel(text, 1, (1, 1, 1, 1), scalars)
    assert str(e.value) == "block: expected 1 to 3 sizes, got (1, 1, 1, 1)"
    with pytest.raises(TypeError, match=r"^compiled: expected a compiled Triton kernel"):
        smem_model.triton_kernel(object(), 1)


def test_data_dependent_addresses_are_counted_not_costed():
    folder, launch, ncu, scalars = fixture("histogram_atomics")
    run = smem_model.kernel(
        (folder / "kernel.ptx").read_text(), tuple(launch["grid"]), tuple(launch["block"]), scalars,
    )
    # The histogram's bins come from its input: each ATOMS is one instruction
    # (ncu's count), listed apart with its cost unknown, and its line named.
    assert run.summary.unmodelled == {
        "ATOMS.ADD.32 (address unknown)": ncu["smsp__sass_inst_executed_op_shared_atom.sum"]
    }
    assert not any(op.startswith("ATOMS") for op in run.summary.by_op)
    assert len(run.notes) == 1 and "data-dependent address" in run.notes[0]
    # Said what it means, as `smem kernel` says it.
    assert run.notes[0].endswith(
        "): the address comes from memory the model does not hold (a global load, an atomic's "
        "result): counted as an instruction, left out of the wavefronts and the race check"
    )


NCU = FIXTURES.parent / "ncu"


def test_counters_are_named_by_what_they_equal():
    folder, launch, _, scalars = fixture("transpose_naive_smem")
    run = smem_model.kernel((folder / "kernel.ptx").read_text(), (8, 8), (32, 32), scalars)
    by_name = {c["metric"]: c for c in run.counters}
    ld = by_name["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    assert (ld["relation"], ld["predicted"], ld["total"]) == ("equal", 65_536, "wavefronts")
    unit = by_name["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
    assert (unit["relation"], unit["predicted"]) == ("at_least", 63_488)
    assert "arbitration" in unit["reason"]
    assert by_name["L1 Wavefronts Shared Excessive"]["predicted"] == 63_488
    assert run.ncu is None
    # Before 7.0 Nsight Compute does not run: no counter of its named.
    assert smem_model.kernel((folder / "kernel.ptx").read_text(), (8, 8), (32, 32), scalars, arch="sm_61").counters == []


def test_a_profile_is_compared_as_smem_kernel_does():
    folder, launch, _, scalars = fixture("matmul")
    run = smem_model.kernel(
        (folder / "kernel.ptx").read_text(),
        tuple(launch["grid"]),
        tuple(launch["block"]),
        scalars,
        ncu=[NCU / "matmul" / "raw.csv", str(NCU / "matmul" / "source_cuda_sass.csv")],
    )
    c = run.ncu
    assert c["launch_id"] == 0 and c["launch_kernel"].startswith("void MatrixMulCUDA<32>")
    assert all(r["holds"] for r in c["counters"])
    units = {u["unit"]: u for u in c["units"]}
    assert (units["op_ld"]["layout"], units["op_ld"]["arbitration"]) == (0, 38)
    assert (units["op_st"]["layout"], units["op_st"]["arbitration"]) == (0, 4_825)
    assert {l["source_line"] for l in c["source_lines"]} == {"matmul.cu:20", "matmul.cu:21", "matmul.cu:24"}
    assert c["absent"] == []


def test_the_profile_names_the_gpu_to_predict_for():
    folder, launch, _, scalars = fixture("matmul")
    # The same PTX for sm_80: predicted for the H200 the export was measured
    # on (CC 9.0); an arch other than it, or a target it cannot run, refused.
    ptx = (folder / "kernel.ptx").read_text().replace("\n.target sm_90\n", "\n.target sm_80\n")
    args = (ptx, tuple(launch["grid"]), tuple(launch["block"]), scalars)
    raw = NCU / "matmul" / "raw.csv"
    assert smem_model.kernel(*args).arch == "sm_80"
    assert smem_model.kernel(*args, ncu=raw).arch == "sm_90"
    with pytest.raises(ValueError, match="measured on compute capability 9.0, not the 8.0 given"):
        smem_model.kernel(*args, ncu=raw, arch="sm_80")
    newer = ptx.replace("\n.target sm_80\n", "\n.target sm_100a\n")
    with pytest.raises(ValueError, match=r"does not run this PTX \(\.target sm_100a"):
        smem_model.kernel(newer, *args[1:], ncu=raw)


def test_a_bad_profile_is_a_value_error():
    folder, launch, _, scalars = fixture("ldmatrix_stmatrix")
    ptx = (folder / "kernel.ptx").read_text()
    raw = NCU / "ldmatrix_stmatrix" / "raw.csv"
    with pytest.raises(ValueError, match="2 launches of _Z16ldmatrixStmatrixPji with this grid and block"):
        smem_model.kernel(ptx, 1, 128, scalars, ncu=raw)
    assert smem_model.kernel(ptx, 1, 128, scalars, ncu=raw, ncu_id=1).ncu["launch_id"] == 1
    with pytest.raises(ValueError, match="no header row"):
        smem_model.kernel(ptx, 1, 128, scalars, ncu=FIXTURES / "README.md")
    with pytest.raises(TypeError, match="ncu: expected a path or a sequence of paths"):
        smem_model.kernel(ptx, 1, 128, scalars, ncu=[3])


SMEM = next(
    (p for p in [
        Path(os.environ["SMEM_BIN"]) if os.environ.get("SMEM_BIN") else None,
        FIXTURES.parents[2] / "target" / "release" / "smem",
        FIXTURES.parents[2] / "target" / "debug" / "smem",
    ] if p is not None and p.is_file()),
    None,
)


def cli(path, *args):
    out = subprocess.run(
        [str(SMEM), "kernel", str(path), "--json", "--by-line", "--top", "1000", *args],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(SMEM is None, reason="no smem binary (cargo build --release --features cli)")
@pytest.mark.parametrize(
    "name", ["transpose_naive_smem", "ldmatrix_stmatrix", "triton_softmax", "histogram_atomics", "triton_colsum"]
)
def test_the_cli_and_python_give_one_answer(name):
    # The same PTX through `smem kernel --json` and `smem_model.kernel`, each
    # left to its defaults (the arch from the PTX or Triton's metadata).
    folder, launch, _, scalars = fixture(name)
    path = folder / ("kernel.json" if name.startswith("triton") else "kernel.ptx")
    flags = ["--grid", ",".join(map(str, launch["grid"]))]
    block = None
    if not name.startswith("triton"):
        block = tuple(launch["block"])
        flags += ["--block", ",".join(map(str, block))]
        if launch.get("dynamic_shared"):
            flags += ["--dynamic-shared", str(launch["dynamic_shared"])]
    for index, value in scalars.items():
        flags += ["--arg", f"{index}={value}"]
    report = cli(path, *flags)
    kwargs = {} if name.startswith("triton") else {"dynamic_shared": launch.get("dynamic_shared", 0)}
    run = smem_model.kernel(path, tuple(launch["grid"]), block, scalars, **kwargs)
    target = re.search(r"^\.target (sm_\d+)", (folder / "kernel.ptx").read_text(), re.M).group(1)
    assert run.arch == report["arch"] == target
    assert run.name == report["kernel"]
    assert (run.blocks_run, run.warp_instructions) == (report["blocks_run"], report["warp_instructions"])
    fields = ["requests", "wavefronts", "ideal_wavefronts", "bank_conflicts"]
    assert {f: getattr(run.summary.totals, f) for f in fields} == {f: report[f] for f in fields}
    assert sorted(run.summary.by_op) == sorted(report["by_op"])
    for op, totals in report["by_op"].items():
        assert {f: getattr(run.summary.by_op[op], f) for f in fields} == {f: totals[f] for f in fields}, op
    assert run.by_line == report["by_line"]
    assert run.counters == report["ncu_metrics"]
    assert run.races == report["races"]["hazards"]


def test_names_a_user_holds():
    folder = FIXTURES / "pred_off_flag"
    ptx = folder / "kernel.ptx"
    # predOffFlag(int* out, int arg): by a prefix of its C++ name; `arg` is an
    # int, so -1 (numpy's too) is a value, and turns the guarded accesses on.
    on = smem_model.kernel(ptx, 1, 128, {1: 1}, kernel="predOff")
    for value in (-1, np.int32(-1), np.int64(-1)):
        assert smem_model.kernel(ptx, np.int64(1), (np.uint32(128),), {1: value}).summary == on.summary
    assert smem_model.kernel(ptx, 1, 128, {1: 0}).summary != on.summary
    with pytest.raises(ValueError, match="^value 2147483648 of kernel parameter _Z11predOffFlagPii_param_1 does not read as int$"):
        smem_model.kernel(ptx, 1, 128, {1: 2**31})
    with pytest.raises(ValueError, match=r"is given twice"):
        smem_model.kernel(ptx, 1, 128, {1: 1, "_Z11predOffFlagPii_param_1": 1})
    with pytest.raises(ValueError, match=r"^the PTX module has no kernel named nope: its kernels are _Z11predOffFlagPii \(predOffFlag\(int\*, int\)\)$"):
        smem_model.kernel(ptx, 1, 128, {1: 1}, kernel="nope")
    # A Triton kernel by its Python names (from the IR beside the cache's PTX),
    # every missing scalar named at once.
    softmax = FIXTURES / "triton_softmax" / "kernel.json"
    names = {"input_row_stride": 781, "output_row_stride": 781, "n_rows": 128, "n_cols": np.int32(781)}
    by_name = smem_model.kernel(softmax, 128, args=names)
    assert by_name.summary == smem_model.kernel(softmax, 128, args={2: 781, 3: 781, 4: 128, 5: 781}).summary
    with pytest.raises(ValueError, match=r"^kernel parameters 2 \(input_row_stride, i32\), 3 \(output_row_stride, i32\) have no value"):
        smem_model.kernel(softmax, 128, args={"n_rows": 128, "n_cols": 781})


def test_a_constexpr_given_is_refused_by_name():
    folder = FIXTURES / "triton_softmax"
    meta = json.loads((folder / "kernel.json").read_text())
    compiled = SimpleNamespace(
        asm={"ptx": (folder / "kernel.ptx").read_text(), "ttgir": (folder / "kernel.ttgir").read_text()},
        metadata=meta,
        src=SimpleNamespace(fn=SimpleNamespace(arg_names=[
            "output_ptr", "input_ptr", "input_row_stride", "output_row_stride", "n_rows", "n_cols", "BLOCK_SIZE",
        ])),
    )
    args = {"input_row_stride": 781, "output_row_stride": 781, "n_rows": 128, "n_cols": 781}
    run = smem_model.triton_kernel(compiled, 128, args)
    assert run.arch == "sm_90" and run.summary == smem_model.kernel(folder / "kernel.json", 128, args=args).summary
    with pytest.raises(ValueError, match="^BLOCK_SIZE is a constexpr of the Triton kernel"):
        smem_model.triton_kernel(compiled, 128, {**args, "BLOCK_SIZE": 1024})


SPIN = """.version 8.0
.target sm_90
.address_size 64
.visible .entry spin(.param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  .shared .align 4 .b8 s[128];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.u32 %r3, s;
LOOP:
  st.shared.u32 [%r3], %r2;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  ret;
}
"""


def test_ctrl_c_stops_a_run():
    # A loop of 4 x 20 million warp instructions (seconds); Ctrl-C after 0.2 s.
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        smem_model.kernel(SPIN, 1, 32, {"n": 20_000_000})
    timer.cancel()
    assert time.monotonic() - start < 2.0


def test_a_struct_parameter_is_given_to_its_last_byte():
    # struct { long a, b, c; } by value (.param .b8 p[24]): c is the address
    # of the store, given as bytes in memory order or as one int.
    ptx = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .align 8 .b8 k_param_0[24])
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    .shared .align 4 .b8 s[1024];
    ld.param.u64 %rd1, [k_param_0+16];
    cvt.u32.u64 %r1, %rd1;
    st.shared.u32 [%r1], %r1;
    ret;
}
"""
    a, b, c = 4, 8, 12
    raw = b"".join(v.to_bytes(8, "little") for v in (a, b, c))
    for arg in (raw, int.from_bytes(raw, "little")):
        run = smem_model.kernel(ptx, 1, 32, {0: arg})
        assert run.notes == [] and run.summary.totals.requests == 1
    with pytest.raises(ValueError, match="does not read as .b8"):
        smem_model.kernel(ptx, 1, 32, {0: b"\x01" * 25})


def test_races_past_4096_are_counted_not_listed():
    # Thread 0 stores to s[0], then thread 32 from 4,200 instructions: 4,200
    # races, 4,096 listed (smem kernel's default --max), the rest counted.
    stores = "".join(f"st.shared.u32 [s], {i};\n" for i in range(4200))
    ptx = (
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
        ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n.shared .align 4 .b8 s[4];\n"
        "mov.u32 %r1, %tid.x;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra $L0;\n"
        "st.shared.u32 [s], 1;\n$L0:\nsetp.ne.u32 %p1, %r1, 32;\n@%p1 bra $L1;\n"
        + stores + "$L1:\nret;\n}\n"
    )
    run = smem_model.kernel(ptx, 1, 64)
    assert (len(run.races), run.hazards_not_listed) == (4096, 104)
    assert all(r["kind"] == "write-write" for r in run.races)


HOPPER = Path(__file__).resolve().parents[2] / "tests" / "data" / "ncu" / "hopper"


class _Tensor:
    """A stand-in for the torch tensor a TensorDescriptor holds."""

    def element_size(self):
        return 2


def _desc(shape, block):
    return SimpleNamespace(base=_Tensor(), shape=shape, strides=[shape[1], 1], block_shape=block)


def test_a_triton_tma_matmul_runs_from_its_tensor_descriptors():
    # Triton 3.6's TMA matmul on an H200 (tests/data/ncu/hopper): 1,024
    # stmatrix, 4,096 wavefronts, no race, no barrier error.
    ptx = HOPPER / "triton" / "triton_h_matmul_tma" / "kernel.ptx"
    run = smem_model.kernel(
        ptx,
        grid=16,
        block=128,
        dynamic_shared=98328,
        args={
            "a_desc": _desc([512, 512], [128, 64]),
            "b_desc": _desc([512, 512], [64, 128]),
            "c_desc": _desc([512, 512], [128, 128]),
            "M": 512,
            "N": 512,
            "K": 512,
        },
    )
    counters = {c["metric"]: c["predicted"] for c in run.counters}
    assert counters["smsp__sass_inst_executed_op_shared_stsm.sum"] == 1024
    assert counters["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"] == 4096
    assert run.races == [] and run.barrier_errors == []
    assert not any("cp.async.bulk" in name for name in run.summary.unmodelled)


def test_tensor_maps_by_text_or_fields_and_their_errors():
    ptx = HOPPER / "triton" / "triton_h_matmul_tma" / "kernel.ptx"
    maps = {
        "a_desc": "dims:512x512,box:128x64,elem:2,swizzle:128",
        5: {"dims": (512, 512), "box": (64, 64), "elem": 2, "swizzle": 128},
        "c_desc": _desc([512, 512], [128, 128]),
    }
    run = smem_model.kernel(
        ptx, grid=16, block=128, dynamic_shared=98328, args={"M": 512, "N": 512, "K": 512},
        tensor_maps=maps,
    )
    assert run.races == []
    with pytest.raises(ValueError, match="tensor map field swizzle: the innermost box dimension"):
        smem_model.kernel(
            ptx, grid=16, block=128, dynamic_shared=98328,
            tensor_maps={"a_desc": "dims:512x512,box:128x128,elem:2,swizzle:128"},
        )
    with pytest.raises(TypeError, match="tensor_maps: expected a dict"):
        smem_model.kernel(ptx, grid=16, block=128, tensor_maps=["dims:64,box:64,elem:2"])
