"""Turns the results of tools/device/unroll.sh into
tests/data/ptx/ptxas_unrolling/merges.json: for each probe kernel its PTX in
words (kernels.json), its SASS shared instructions and backward branches
(cuobjdump -sass), and ncu's counts for one block of 32 threads with n = 8.

    python3 tools/device/unroll_collect.py RESULTS_DIR OUT_DIR
(OUT_DIR holds kernels.json and the PTX from tools/device/unroll_probes.py;
RESULTS_DIR the unpacked results.tar.gz of both calls, the second's env.txt
renamed env2.txt.)
"""
import csv
import json
import re
import sys
from pathlib import Path

FILES = ["loops", "shapes", "bodies", "unsettled", "packed", "limits"]
METRICS = {
    "lds": "smsp__sass_inst_executed_op_shared_ld.sum",
    "sts": "smsp__sass_inst_executed_op_shared_st.sum",
    "wavefronts_ld": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "wavefronts_st": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}


def sass_functions(text):
    """name -> list of (address, instruction) from cuobjdump -sass."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and name:
            out[name].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def ncu_rows(path):
    rows = [r for r in csv.reader(open(path)) if r]
    start = next(k for k, r in enumerate(rows) if r[0] == "ID")
    head = rows[start]
    out = {}
    for r in rows[start + 2:]:
        if len(r) != len(head):
            continue
        d = dict(zip(head, r))
        out[d["Kernel Name"]] = {k: int(d[m].replace(",", "")) for k, m in METRICS.items()}
    return out


KEEP = ["ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC"] + list(METRICS.values())


def trim(res, outdir, f):
    """The committed copies: SASS without the encoding comments, ncu's CSV
    with the launch's and the four counters' columns only."""
    sass = (res / f"{f}.sass").read_text().splitlines()
    keep = [l for l in sass if not re.fullmatch(r"\s*/\* 0x[0-9a-f]+ \*/\s*", l)]
    keep = [re.sub(r"\s*/\* 0x[0-9a-f]+ \*/\s*$", "", l) for l in keep]
    (outdir / f"{f}.sass").write_text("\n".join(keep) + "\n")
    rows = [r for r in csv.reader(open(res / f"{f}.ncu.csv")) if r]
    start = next(k for k, r in enumerate(rows) if r[0] == "ID")
    cols = [rows[start].index(c) for c in KEEP]
    with open(outdir / f"{f}.ncu.csv", "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n")
        for r in rows[start:]:
            if len(r) == len(rows[start]):
                w.writerow([r[c] for c in cols])
    (outdir / f"{f}.build.log").write_text((res / f"{f}.build.log").read_text())


def main():
    res, outdir = Path(sys.argv[1]), Path(sys.argv[2])
    (outdir / "env.txt").write_text((res / "env.txt").read_text())
    # The second device call (FILES=limits) wrote its own.
    if (res / "env2.txt").exists():
        (outdir / "env2.txt").write_text((res / "env2.txt").read_text())
    kernels = json.loads((outdir / "kernels.json").read_text())
    result = {
        "gpu": "NVIDIA H200, driver 580.159.04",
        "nvcc": "ptxas 13.0 V13.0.88; cuobjdump; ncu 2025.3.1.0",
        "arch": "sm_90",
        "how": "ptxas -arch=sm_90 -v FILE.ptx; cuobjdump -sass; ncu --metrics ... ./unroll_driver FILE.cubin 8 NAMES (one block of 32 threads, n = 8); tools/device/unroll.sh",
        "kernels": {},
    }
    for f in FILES:
        trim(res, outdir, f)
        sass = sass_functions((res / f"{f}.sass").read_text())
        ncu = ncu_rows(res / f"{f}.ncu.csv")
        for name, e in kernels.items():
            if e["file"] != f"{f}.ptx":
                continue
            insts = sass[name]
            shared = [i for _, i in insts if re.search(r"\b(LDS|STS)(\.|\s)", i)]
            back = sum(
                1 for a, i in insts
                if re.match(r"(@!?U?P\d+\s+)?BRA\b", i)
                and (t := re.search(r"0x([0-9a-f]+)", i)) and int(t.group(1), 16) < a
            )
            result["kernels"][name] = {
                "file": e["file"],
                "ptx": e["ptx"],
                "n": e["n"],
                "sass": shared,
                "sass_loops": back,
                "ncu": ncu[name],
            }
    (outdir / "merges.json").write_text(json.dumps(result, indent=1) + "\n")
    print(len(result["kernels"]), "kernels")


if __name__ == "__main__":
    main()
