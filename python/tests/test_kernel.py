"""A kernel's shared memory from its PTX, from Python: the device fixtures of
tests/data/ptx (compiled by nvcc 13 and Triton 3.6, measured with ncu on an
H100/H200) against their measured wavefronts."""

import json
from pathlib import Path
from types import SimpleNamespace

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
    with pytest.raises(ValueError, match="holds 0 .ptx files"):
        smem_model.triton_kernel(FIXTURES, 1)
    sampled = smem_model.triton_kernel(compiled, tuple(launch["grid"]), args, sample=2)
    assert sampled.sampled and sampled.blocks_run == 2


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
