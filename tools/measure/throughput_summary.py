#!/usr/bin/env python3
"""Summarise throughput.cu's output against the corpus.

Usage: throughput_summary.py CORPUS.jsonl RESULTS.jsonl
Prints, per record and warp count (all warps launched active), the median
cycles per instruction over the launches, the spread (max - min) / median, and
the corpus figure where there is one.
"""
import json
import statistics
import sys
from collections import defaultdict


def main():
    corpus = {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("measure") == "throughput":
            corpus[f"{r['op']}{r['width']}_{r['group']}_wf{r['wavefronts']}"] = r
    runs = defaultdict(list)
    for line in open(sys.argv[2]):
        j = json.loads(line)
        key = (j["tag"], j["unroll"], j["pad"], j["dep"], j["launched"], j["mask"])
        runs[key].append(j["cpi"])
    for (tag, unroll, pad, dep, launched, mask), cpis in sorted(runs.items()):
        med = statistics.median(cpis)
        spread = (max(cpis) - min(cpis)) / med * 100
        warps = bin(int(mask, 16) & ((1 << launched) - 1)).count("1")
        ref = corpus.get(tag, {}).get("cycles_per_instruction", {}).get(f"warps_{warps}")
        full = int(mask, 16) == (1 << launched) - 1
        cmp = f" corpus {ref:.3f} ({(med / ref - 1) * 100:+.1f}%)" if ref and full and unroll == 16 and not pad and not dep else ""
        print(f"{tag:22} u{unroll:<2} p{pad} d{dep} L{launched:<2} m{mask:>4} w{warps:<2} {med:8.3f} spread {spread:4.1f}%{cmp}")


if __name__ == "__main__":
    main()
