#!/usr/bin/env python3
"""Turns the raw output of tools/device/run.sh (unpacked results.tar.gz) into
tests/data/ptx/<fixture>/ and tests/data/device/.

    [ONLY='fixture ...'] python3 tools/device/collect.py RESULTS_DIR REPO_ROOT JOB_DIR

Per CUDA fixture: the source, kernel.ptx, kernel.sass (cuobjdump -sass),
kernel.lines.sass (nvdisasm with line info), build.log (nvcc/ptxas -v),
launch.json (from the driver's FXLAUNCH line and the PTX .entry's parameters),
ncu.json (every counter ncu gave for the launch), racecheck.txt, synccheck.txt.
Per Triton fixture: the same from triton_fixtures.py's dump and the one ncu
run over all fx_ kernels.
"""
import csv
import io
import json
import os
import re
import shutil
import sys

RES, REPO = sys.argv[1], sys.argv[2]
# The sources the job compiled (the folder run.sh ran from: cuda/*.cu, cuda/fx.h, triton/).
SRC = sys.argv[3] if len(sys.argv) > 3 else os.path.join(REPO, "tools", "device")
PTX = os.path.join(REPO, "tests", "data", "ptx")
DEV = os.path.join(REPO, "tests", "data", "device")

KEY = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_shared_stsm.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_shared_ld_pred_on_any.sum",
    "smsp__inst_executed_op_shared_st_pred_on_any.sum",
    "smsp__inst_executed_op_shared_atom_pred_on_any.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
]


def num(s):
    s = s.replace(",", "").strip()
    try:
        f = float(s)
    except ValueError:
        return s
    return int(f) if f.is_integer() and "." not in s else f


def read_ncu(path):
    """Rows of an `ncu --csv --page raw` report: dicts metric -> value."""
    if not os.path.exists(path):
        return []
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("".join(lines))))
    if len(rows) < 3:
        return []
    hdr, units = rows[0], rows[1]
    out = []
    for r in rows[2:]:
        m, u = {}, {}
        for h, unit, v in zip(hdr, units, r):
            if v == "":
                continue
            if h.endswith((".avg", ".min", ".max")):
                continue
            m[h] = num(v)
            if unit:
                u[h] = unit
        out.append((m, u))
    return out


def env():
    e = open(os.path.join(RES, "env.txt")).read()
    def grab(p):
        m = re.search(p, e)
        return m.group(1).strip() if m else None
    gpu = grab(r"\n(NVIDIA [^,\n]+), [0-9.]+, \d+ MHz")
    return {
        "gpu": gpu,
        "driver": grab(r"Driver Version: ([0-9.]+)"),
        "nvcc": grab(r"(Cuda compilation tools, release [^\n]+)"),
        "ncu": grab(r"Nsight Compute Command Line Profiler\n.*\n(Version [^\n]+)"),
        "compute_sanitizer": grab(r"Compute Sanitizer\n.*\n(Version [^\n]+)"),
        "triton": grab(r"triton ([0-9.]+)"),
        "torch": grab(r"torch ([^ ]+)"),
    }


def ptx_params(ptx):
    m = re.search(r"\.entry\s+(\S+)\s*\((.*?)\)", ptx, re.S)
    if not m:
        return None, []
    params = []
    for p in m.group(2).split(","):
        toks = p.split()
        if toks:
            params.append({"name": toks[-1], "decl": " ".join(toks[:-1])})
    return m.group(1), params


def key_of(m):
    return {k: m[k] for k in KEY if k in m}


def cuda_fixture(n, ENV, metrics_cmd):
    raw = os.path.join(RES, "cuda", n)
    d = os.path.join(PTX, n)
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(SRC, "cuda", n + ".cu"), os.path.join(d, n + ".cu"))
    for a, b in [("kernel.ptx", "kernel.ptx"), ("kernel.sass", "kernel.sass"),
                 ("kernel.nvdisasm.txt", "kernel.lines.sass"), ("nvcc.log", "build.log"),
                 ("racecheck.txt", "racecheck.txt"), ("synccheck.txt", "synccheck.txt"), ("run.txt", "run.txt")]:
        if os.path.exists(os.path.join(raw, a)):
            txt = open(os.path.join(raw, a), errors="replace").read()
            txt = txt.replace("/tmp/fxbuild/", "./")
            open(os.path.join(d, b), "w").write(txt)
    ptx = open(os.path.join(raw, "kernel.ptx")).read()
    entry, params = ptx_params(ptx)
    launches = [json.loads(l[len("FXLAUNCH "):]) for l in open(os.path.join(raw, "run.txt")) if l.startswith("FXLAUNCH ")]
    rows = read_ncu(os.path.join(raw, "ncu.csv"))

    def launch_obj(L):
        args = []
        for i, p in enumerate(params):
            a = {"index": i, "name": p["name"], "decl": p["decl"]}
            if i < len(L["args"]):
                a.update(L["args"][i])
            args.append(a)
        return args

    L0 = launches[0]
    st = rows[0][0].get("launch__shared_mem_per_block_static") if rows else None
    launch = {
        "kernel": entry,
        "source": n + ".cu",
        "source_kernel": L0["kernel"],
        "grid": L0["grid"],
        "block": L0["block"],
        "dynamic_shared": L0["dynamic_shared"],
        "static_shared": st,
        "args": launch_obj(L0),
    }
    if len(launches) > 1:
        launch["more_launches"] = [{"args": launch_obj(L)} for L in launches[1:]]
    json.dump(launch, open(os.path.join(d, "launch.json"), "w"), indent=1)
    out = dict(ENV)
    out["command"] = (f"ncu --clock-control none --metrics <metrics.txt, line 1> --csv --page raw "
                      f"--print-units base ./{n}")
    out["kernel"] = entry
    out["launches"] = []
    for i, (m, u) in enumerate(rows):
        out["launches"].append({"index": i, "args": [a.get("value") for a in (launches[i]["args"] if i < len(launches) else [])],
                                "key": key_of(m), "metrics": m})
    if rows:
        out["key"] = out["launches"][0]["key"]
        out["metrics"] = out["launches"][0]["metrics"]
    # The same command run again (ncu_repeat stage): the run-to-run spread.
    reps = []
    for i in range(2, 10):
        rr = read_ncu(os.path.join(raw, f"ncu.r{i}.csv"))
        if rr:
            reps.append(key_of(rr[0][0]))
    if reps:
        out["repeats"] = reps
    json.dump(out, open(os.path.join(d, "ncu.json"), "w"), indent=1, sort_keys=False)
    return launch, out


def triton_fixtures(ENV):
    raw = os.path.join(RES, "triton")
    rows = read_ncu(os.path.join(raw, "ncu.csv"))
    byname = {}
    for m, u in rows:
        byname.setdefault(m.get("Kernel Name"), []).append(m)
    res = {}
    for n in sorted(os.listdir(raw)):
        src = os.path.join(raw, n)
        if not os.path.isdir(src):
            continue
        d = os.path.join(PTX, n)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(src):
            if f in ("kernel.ptx", "kernel.json", "kernel.sass", "kernel.ttgir", "launch.json"):
                shutil.copy(os.path.join(src, f), os.path.join(d, f))
        launch = json.load(open(os.path.join(src, "launch.json")))
        launch["source"] = "../triton_fixtures.py"
        json.dump(launch, open(os.path.join(d, "launch.json"), "w"), indent=1)
        ms = byname.get(launch["kernel"], [])
        out = dict(ENV)
        out["command"] = ("TRITON_CACHE_DIR=/tmp/tcache ncu --clock-control none --metrics <metrics.txt, line 1> "
                          "--csv --page raw --print-units base -k regex:^fx_ python3 triton_fixtures.py -")
        out["kernel"] = launch["kernel"]
        if ms:
            out["key"] = key_of(ms[0])
            out["metrics"] = ms[0]
        json.dump(out, open(os.path.join(d, "ncu.json"), "w"), indent=1)
        res[n] = (launch, out)
    return res


def summarize():
    """The table of every fixture folder in tests/data/ptx (from its own files)."""
    lines = ["| fixture | GPU | kernel | grid | block | dyn. shared | LDS | STS | ATOMS | LDSM | STSM | LDGSTS | wavefronts ld / st / atom | conflicts ld / st | ideal share |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = {}
    for n in sorted(os.listdir(PTX)):
        d = os.path.join(PTX, n)
        if not os.path.isfile(os.path.join(d, "ncu.json")):
            continue
        launch = json.load(open(os.path.join(d, "launch.json")))
        out = json.load(open(os.path.join(d, "ncu.json")))
        k = out.get("key", {})
        g = lambda s: k.get(s, "-")
        wl, ws, wa = g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"), g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum")
        cl, cs = g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
        try:
            tot = wl + ws + wa
            share = f"{100 * (tot - cl - cs) / tot:.0f}%" if tot else "-"
        except TypeError:
            share = "-"
        gpu = (out.get("gpu") or "?").replace("NVIDIA ", "").replace(" 80GB HBM3", "")
        lines.append(f"| `{n}` | {gpu} | `{launch['kernel']}` | {'x'.join(map(str, launch['grid']))} | {'x'.join(map(str, launch['block']))} | {launch['dynamic_shared']} | "
                     f"{g('smsp__sass_inst_executed_op_shared_ld.sum')} | {g('smsp__sass_inst_executed_op_shared_st.sum')} | {g('smsp__sass_inst_executed_op_shared_atom.sum')} | "
                     f"{g('smsp__sass_inst_executed_op_ldsm.sum')} | {g('smsp__sass_inst_executed_op_shared_stsm.sum')} | {g('smsp__sass_inst_executed_op_ldgsts.sum')} | {wl} / {ws} / {wa} | {cl} / {cs} | {share} |")
        summary[n] = {"kernel": launch["kernel"], "gpu": out.get("gpu"), "key": k}
    open(os.path.join(PTX, "summary.md"), "w").write("\n".join(lines) + "\n")
    json.dump(summary, open(os.path.join(PTX, "summary.json"), "w"), indent=1)
    print("\n".join(lines))


def main():
    """Collect the CUDA fixtures named in $ONLY (all if unset) and, unless
    $ONLY is set, the Triton ones; then rebuild the summary."""
    ENV = env()
    os.makedirs(PTX, exist_ok=True)
    only = os.environ.get("ONLY", "").split()
    if not only:
        shutil.copy(os.path.join(SRC, "cuda", "fx.h"), os.path.join(PTX, "fx.h"))
        shutil.copy(os.path.join(SRC, "triton", "triton_fixtures.py"), os.path.join(PTX, "triton_fixtures.py"))
        shutil.copy(os.path.join(RES, "metrics.txt"), os.path.join(PTX, "metrics.txt"))
        shutil.copy(os.path.join(RES, "env.txt"), os.path.join(PTX, "env.txt"))
    if os.environ.get("SOURCE_ONLY"):
        source_files(ENV)
        return
    for n in sorted(os.listdir(os.path.join(RES, "cuda"))):
        if not only or n in only:
            cuda_fixture(n, ENV, None)
    if not only:
        triton_fixtures(ENV)
    summarize()


def source_files(ENV):
    """ncu_source.json in every fixture folder, from a run's source stage."""
    for n in sorted(os.listdir(os.path.join(RES, "cuda"))):
        raw = os.path.join(RES, "cuda", n)
        if os.path.exists(os.path.join(raw, "source_sass.csv")) and os.path.isdir(os.path.join(PTX, n)):
            o = source_view(os.path.join(raw, "source_sass.csv"), os.path.join(raw, "source_cuda_sass.csv"), ENV,
                            f"ncu --clock-control none --section SourceCounters -o src ./{n}; "
                            "ncu -i src.ncu-rep --page source --csv --print-source sass (and cuda,sass)")
            json.dump(o, open(os.path.join(PTX, n, "ncu_source.json"), "w"), indent=1)
    tsrc = os.path.join(RES, "triton", "source_sass.csv")
    if os.path.exists(tsrc):
        o = source_view(tsrc, None, ENV, "TRITON_CACHE_DIR=/tmp/tcache ncu --clock-control none --section SourceCounters "
                        "-k regex:^fx_ -o src python3 triton_fixtures.py -; ncu -i src.ncu-rep --page source --csv --print-source sass")
        for n in sorted(os.listdir(PTX)):
            lj = os.path.join(PTX, n, "launch.json")
            if n.startswith("triton_") and os.path.exists(lj):
                k = json.load(open(lj))["kernel"]
                if k in o["kernels"]:
                    one = {x: o[x] for x in o if x != "kernels"}
                    one["kernels"] = {k: o["kernels"][k]}
                    json.dump(one, open(os.path.join(PTX, n, "ncu_source.json"), "w"), indent=1)




SRC_COLS = {
    "Instructions Executed": "executed",
    "Predicated-On Thread Instructions Executed": "threads_pred_on",
    "Address Space": "space",
    "Access Operation": "op",
    "Access Size": "size",
    "L1 Conflicts Shared N-Way": "n_way",
    "L1 Wavefronts Shared": "wavefronts",
    "L1 Wavefronts Shared Ideal": "ideal",
    "L1 Wavefronts Shared Excessive": "excessive",
}


def _src_row(hdr, row):
    e = {}
    for h, v in zip(hdr, row):
        if h in SRC_COLS and v not in ("-", ""):
            e[SRC_COLS[h]] = num(v)
    return e


def parse_source_sass(path):
    """ncu --page source --print-source sass: {kernel: [instruction rows]}."""
    out, kernel, hdr = {}, None, None
    for row in csv.reader(open(path, errors="replace")):
        if not row:
            continue
        if row[0] == "Kernel Name":
            kernel, hdr = row[1], None
            out[kernel] = []
        elif row[0] == "Address":
            hdr = row
        elif hdr and kernel is not None and row[0].startswith("0x"):
            e = {"address": int(row[0], 16), "sass": row[1].strip()}
            e.update(_src_row(hdr, row))
            out[kernel].append(e)
    return out


def parse_source_cuda_sass(path):
    """ncu --page source --print-source cuda,sass: per CUDA line, and the
    line each SASS address sits under."""
    lines, addr_line, hdr, cur, fname = [], {}, None, None, None
    for row in csv.reader(open(path, errors="replace")):
        if not row:
            continue
        if row[0] in ("File Path", "File Name"):
            fname = os.path.basename(row[1])
        elif row[0] == "Line No":
            hdr = row
        elif hdr and row[0].isdigit():
            cur = int(row[0])
            e = {"file": fname, "line": cur, "source": row[1].strip()}
            e.update(_src_row(hdr, row))
            lines.append(e)
        elif hdr and row[0] == "" and len(row) > 2 and row[2].startswith("0x"):
            addr_line[int(row[2], 16)] = cur
    return lines, addr_line


def source_view(sass_csv, cuda_csv, ENV, command):
    """ncu_source.json: the shared-memory instructions with their counters
    (address as the offset cuobjdump prints), totals, and per CUDA line."""
    kernels = parse_source_sass(sass_csv)
    lines, addr_line = parse_source_cuda_sass(cuda_csv) if cuda_csv and os.path.exists(cuda_csv) else ([], {})
    res = {}
    for k, rows in kernels.items():
        if not rows:
            continue
        base = min(r["address"] for r in rows)
        inst, tot = [], {}
        for r in rows:
            # Shared by address space, by wavefronts, or by opcode: a warp
            # predicated off in every lane leaves the space blank.
            if not ("Shared" in str(r.get("space", "")) or r.get("wavefronts")
                    or re.search(r"\b(LDS|STS|ATOMS|LDSM|STSM|LDGSTS)(\.|\b)", r["sass"])):
                continue
            e = {"offset": f"0x{r['address'] - base:04x}", "sass": r["sass"]}
            if r["address"] in addr_line:
                e["line"] = addr_line[r["address"]]
            e.update({x: r[x] for x in ("executed", "threads_pred_on", "op", "size", "n_way", "wavefronts", "ideal", "excessive") if x in r})
            inst.append(e)
            op = str(r.get("op", "?")).lower()
            for x in ("executed", "wavefronts", "ideal", "excessive"):
                tot.setdefault(op, {}).setdefault(x, 0)
                tot[op][x] += r.get(x, 0) if isinstance(r.get(x, 0), (int, float)) else 0
        # Per CUDA line: the shared instructions under it, summed (ncu's own
        # line rows are not used: a line whose text holds quotes breaks its CSV).
        text = {l["line"]: l["source"] for l in lines}
        by_line = {}
        for e in inst:
            if "line" not in e:
                continue
            b = by_line.setdefault(e["line"], {"line": e["line"], "source": text.get(e["line"], ""), "instructions": 0,
                                               "executed": 0, "wavefronts": 0, "ideal": 0, "excessive": 0})
            b["instructions"] += 1
            for x in ("executed", "wavefronts", "ideal", "excessive"):
                b[x] += e.get(x, 0) if isinstance(e.get(x, 0), (int, float)) else 0
        shared_lines = sorted(by_line.values(), key=lambda b: b["line"])
        res[k] = {"instructions": inst, "totals_by_access_operation": tot, "lines": shared_lines}
    out = dict(ENV)
    out["command"] = command
    out["kernels"] = res
    return out


if __name__ == "__main__":
    main()
