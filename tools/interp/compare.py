#!/usr/bin/env python3
"""Runs `smem kernel --json` of two builds on every PTX fixture
(tests/data/ptx/*/launch.json) and on issue 35's full-size launches with
shrunk grids, and says where their outputs differ: an interpreter change
must leave every answer byte-identical. The new build is also run with
`--no-reuse` (every block interpreted), which must agree too.

usage: tools/interp/compare.py OLD_SMEM NEW_SMEM [FULL_DIR]
FULL_DIR holds the full-size PTX files (/work/devres/full/LAUNCHES.md)."""
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Issue 35's launches: (PTX, kernel, grid, block, dynamic shared, arguments,
# whether to interpret every block too). dxtc and the cp.async matmul with
# shrunk grids; the cuda-samples GEMMs loop over the whole matrix in each
# block, so a smaller grid is more work: at full size, where most blocks are
# replayed (interpreting all of them takes minutes).
FULL = [
    ("dxtc.ptx", "compress", "256", "64", None, ["3=0"], True),
    ("globalToShmemAsyncCopy.ptx", "MatrixMulAsyncCopyMultiStageLargeChunk<16>", "4,4",
     "16,16", None, ["3=1280", "4=1280"], True),
    ("tf32TensorCoreGemm.ptx", "compute_tf32gemm_async_copy", "264", "256", "73728",
     ["4=1.1", "5=1.2"], False),
    ("cudaTensorCoreGemm.ptx", "compute_gemm", "132", "256", "65536", ["4=1.1", "5=1.2"],
     False),
    ("immaTensorCoreGemm.ptx", "compute_gemm_imma", "132", "256", "65536", ["4=1", "5=1"],
     False),
]


def fixture_launches():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/ptx/*/launch.json"))):
        d = os.path.dirname(path)
        launch = json.load(open(path))
        args = ["kernel", os.path.join(d, "kernel.ptx"), "--kernel", launch["kernel"],
                "--grid", ",".join(map(str, launch["grid"])),
                "--block", ",".join(map(str, launch["block"])),
                "--dynamic-shared", str(launch.get("dynamic_shared", 0))]
        for i, a in enumerate(launch.get("args", [])):
            if not a.get("pointer") and "value" in a:
                args += ["--arg", f"{a.get('index', i)}={a['value']}"]
        yield os.path.basename(d), args, True


def full_launches(full):
    for ptx, kernel, grid, block, dyn, args, every in FULL:
        path = os.path.join(full, ptx)
        if not os.path.exists(path):
            continue
        cmd = ["kernel", path, "--kernel", kernel, "--grid", grid, "--block", block]
        if dyn:
            cmd += ["--dynamic-shared", dyn]
        for a in args:
            cmd += ["--arg", a]
        yield ptx, cmd, every


def run(smem, args):
    p = subprocess.run([smem] + args + ["--json", "-j", "1"], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    old, new = sys.argv[1], sys.argv[2]
    full = sys.argv[3] if len(sys.argv) > 3 else "/work/devres/full"
    bad = 0
    count = 0
    for name, args, every in list(fixture_launches()) + list(full_launches(full)):
        start = time.time()
        a = run(old, args)
        b = run(new, args)
        c = run(new, args + ["--no-reuse"]) if every else b
        count += 1
        if a != b:
            bad += 1
            print(f"DIFFERS (old/new): {name}", flush=True)
        elif b[0] != c[0] or b[1] != c[1]:
            bad += 1
            print(f"DIFFERS (reuse/--no-reuse): {name}")
        else:
            print(f"same: {name} ({time.time() - start:.1f} s)", flush=True)
    print(f"{count} launches, {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
