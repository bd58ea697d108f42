"""smem_model.triton_kernel on real Triton compiled kernels (issue 22, item 5).

Run on the device machine (Triton 3.6, torch, a GPU) with the abi3 wheel
installed, from the repository root:

    python3 tools/device/triton_check.py OUT.json

For each fixture of tests/data/ptx/triton_fixtures.py it launches the
@triton.jit function as the fixture does (the launch returns the compiled
kernel) and calls `smem_model.triton_kernel(compiled, grid, args)` with the
call's own arguments (torch tensors, ints, a float): that is, on the object
Triton returns, not on a cache entry. For `triton_colsum` it also builds the
kernel through `triton.compile(ASTSource(...))`. It records what the helper
returned, whether the PTX equals the one committed in tests/data/ptx/<name>/,
and the committed ncu counts beside the prediction.
"""
import difflib
import hashlib
import json
import sys
import traceback
from pathlib import Path

# The repository root: the first folder above this file that holds tests/data/ptx
# (the script also ran from a scratch folder at the root).
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tests" / "data" / "ptx").is_dir())
FX = ROOT / "tests" / "data" / "ptx"
sys.path.insert(0, str(FX))

import smem_model  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton_fixtures as fx  # noqa: E402

KEYS = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
]


def predicted(run):
    by_op = run.summary.by_op

    def ours(prefixes, field):
        return sum(getattr(t, field) for op, t in by_op.items() if op.split(".")[0] in prefixes)

    return {
        "smsp__sass_inst_executed_op_shared_ld.sum": ours({"LDS"}, "requests"),
        "smsp__sass_inst_executed_op_shared_st.sum": ours({"STS"}, "requests"),
        "smsp__sass_inst_executed_op_ldsm.sum": ours({"LDSM"}, "requests"),
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ours({"LDS", "LDSM"}, "wavefronts"),
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": ours({"STS", "STSM"}, "wavefronts"),
    }


def strip_files(ptx):
    return [line for line in ptx.splitlines() if not line.lstrip().startswith(".file")]


def record(name, how, compiled, grid, values):
    ptx = compiled.asm["ptx"]
    committed = (FX / name / "kernel.ptx").read_text()
    md = compiled.metadata
    run = smem_model.triton_kernel(compiled, tuple(grid), values)
    ncu = json.loads((FX / name / "ncu.json").read_text())["key"]
    pred = predicted(run)
    return {
        "fixture": name,
        "how": how,
        "compiled_type": f"{type(compiled).__module__}.{type(compiled).__qualname__}",
        "metadata": {"name": md.name, "num_warps": md.num_warps, "shared": md.shared,
                     "target": str(md.target)},
        "grid": list(grid),
        "args": [f"tensor {tuple(v.shape)} {v.dtype}" if isinstance(v, torch.Tensor) else v
                 for v in values],
        "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest(),
        "ptx_equals_committed": ptx == committed,
        # The committed PTX was compiled from another folder: its .file lines differ.
        "ptx_equals_committed_but_file_lines": strip_files(ptx) == strip_files(committed),
        "ptx_diff": list(difflib.unified_diff(committed.splitlines(), ptx.splitlines(), "committed", "compiled",
                                              n=0, lineterm=""))[:60],
        "run": {
            "name": run.name,
            "blocks_run": run.blocks_run,
            "blocks_total": run.blocks_total,
            "sampled": run.sampled,
            "warp_instructions": run.warp_instructions,
            "notes": run.notes,
            "races": run.races,
            "barrier_errors": run.barrier_errors,
            "summary": run.summary.to_dict(),
        },
        "predicted": pred,
        "ncu": {k: ncu.get(k, 0) for k in KEYS},
        "instructions_exact": all(pred[k] == ncu.get(k, 0) for k in KEYS[:3]),
        "wavefronts_within_1pct": all(abs(pred[k] - ncu.get(k, 0)) <= 0.01 * ncu.get(k, 0)
                                      for k in KEYS[3:]),
    }


def ast_compile_colsum():
    # triton.compile on an ASTSource, as a user who does not launch would.
    from triton.compiler import ASTSource
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32", "stride_xm": "i32",
           "BM": "constexpr", "BN": "constexpr"}
    src = ASTSource(fn=fx.fx_colsum, signature=sig, constexprs={"BM": 64, "BN": 64})
    target = triton.runtime.driver.active.get_current_target()
    return triton.compile(src, target=target, options={"num_warps": 4})


def recompile(k):
    # triton.compile on the JIT's own source object (same specialization).
    target = triton.runtime.driver.active.get_current_target()
    md = k.metadata
    return triton.compile(k.src, target=target,
                          options={"num_warps": md.num_warps, "num_stages": md.num_stages})


def main():
    out = {"triton": triton.__version__, "torch": torch.__version__,
           "smem_model": getattr(smem_model, "__version__", None),
           "gpu": torch.cuda.get_device_name(0), "python": sys.version.split()[0],
           "results": [], "errors": []}
    for name, fn in fx.FIXTURES.items():
        try:
            k, grid, args, _, ok = fn()
            values = [a[1] for a in args]
            r = record(name, "jit launch ([grid](...) return value)", k, grid, values)
            r["fixture_check"] = ok
            out["results"].append(r)
            if name in ("triton_colsum", "triton_matmul"):
                r2 = record(name, "triton.compile(compiled.src) (the JIT's ASTSource)", recompile(k), grid, values)
                out["results"].append(r2)
            print(name, r["instructions_exact"], r["wavefronts_within_1pct"], r["ptx_equals_committed"], flush=True)
        except Exception:
            out["errors"].append({"fixture": name, "traceback": traceback.format_exc()})
            traceback.print_exc()
    try:
        c = ast_compile_colsum()
        r = record("triton_colsum", "triton.compile(ASTSource(...)) without the JIT's specialization "
                   "(another kernel: ncu's counts are not its own)", c, (8,),
                   [torch.zeros(512, 512, device="cuda"), torch.zeros(512, device="cuda"), 512, 512, 512])
        out["results"].append(r)
        print("colsum via triton.compile", r["instructions_exact"], r["ptx_equals_committed"], flush=True)
    except Exception:
        out["errors"].append({"fixture": "triton_colsum (triton.compile)", "traceback": traceback.format_exc()})
        traceback.print_exc()
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
