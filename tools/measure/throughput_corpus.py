#!/usr/bin/env python3
"""Corpus records (tests/data/hw-corpus format) from throughput.cu's output.

Usage: throughput_corpus.py CORPUS.jsonl RESULTS.jsonl... > sm90-throughput-streams.jsonl

One record per pattern of CORPUS's `measure: throughput` records and per
instruction stream (unroll, pad, dep) found in RESULTS, counting only runs with
every launched warp active; `cycles_per_instruction` holds, per warp count
measured, the median over that stream's launches (3 decimals). `group` is the
pattern's group and the stream, e.g. `kway8 unroll16`, `kway8 unroll16 pad2`,
`kway8 unroll16 dep`.
"""
import json
import statistics
import sys
from collections import defaultdict


def main():
    patterns = {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("measure") == "throughput":
            patterns[f"{r['op']}{r['width']}_{r['group']}_wf{r['wavefronts']}"] = r
    runs = defaultdict(lambda: defaultdict(list))
    for path in sys.argv[2:]:
        for line in open(path):
            j = json.loads(line)
            if int(j["mask"], 16) != (1 << j["launched"]) - 1:
                continue
            stream = (j["unroll"], j["pad"], j["dep"])
            runs[(j["tag"], stream)][j["warps"]].append(j["cpi"])
    order = {tag: i for i, tag in enumerate(patterns)}
    streams = sorted({s for _, s in runs}, key=lambda s: (s != (16, 0, 0), s))
    for stream in streams:
        for tag in sorted(patterns, key=order.get):
            figures = runs.get((tag, stream))
            if not figures:
                continue
            r = patterns[tag]
            unroll, pad, dep = stream
            group = f"{r['group']} unroll{unroll}" + (f" pad{pad}" if pad else "") + (" dep" if dep else "")
            out = {
                "arch": "sm_90",
                "gpu": "H100 80GB HBM3",
                "group": group,
                "op": r["op"],
                "measure": "throughput",
                "width": r["width"],
                "offsets": r["offsets"],
                "wavefronts": r["wavefronts"],
                "cycles_per_instruction": {
                    f"warps_{w}": round(statistics.median(v), 3) for w, v in sorted(figures.items())
                },
            }
            print(json.dumps(out, separators=(",", ":")))


if __name__ == "__main__":
    main()
