#!/usr/bin/env python3
"""Joins run.sh's ncu chunks with the case lists: one JSON object a launch,
{"index", "case", "metrics": {name: value}}.
  python3 collect.py RESULTS_DIR PROBE > PROBE.json     (PROBE: async, wgmma, wmma)"""
import csv
import glob
import io
import json
import os
import re
import sys

res, probe = sys.argv[1], sys.argv[2]
cases = [l.rstrip("\n") for l in open(f"{res}/{probe}_cases.txt")]
out = []
for path in sorted(glob.glob(f"{res}/ncu_{probe}*.csv")):
    chunk = re.search(r"_(\d{4})\.csv$", path)
    if chunk is None and not path.endswith(f"ncu_{probe}.csv"):
        continue
    start = int(chunk.group(1)) if chunk else 0
    text = open(path).read()
    at = text.find('"ID"')
    rows = list(csv.reader(io.StringIO(text[at:])))
    head, body = rows[0], rows[1:]
    if body and body[0][head.index("Kernel Name")] == "":
        body = body[1:]  # a units row
    for row in body:
        rec = dict(zip(head, row))
        i = start + int(rec["ID"])
        metrics = {}
        for k, v in rec.items():
            if "__" in k:
                try:
                    metrics[k] = float(v.replace(",", ""))
                except ValueError:
                    metrics[k] = None
        out.append({"index": i, "kernel": rec["Kernel Name"], "case": cases[i], "metrics": metrics})
json.dump(out, sys.stdout, indent=0)
