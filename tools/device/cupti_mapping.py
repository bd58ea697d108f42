#!/usr/bin/env python3
"""Extract the shared-memory rows of CUPTI's mapping tables (nvprof's metric
and event names -> Nsight Compute / Perfworks metrics) from the CUPTI
documentation that ships with the CUDA toolkit.

Run where the toolkit is installed (the device machine had CUDA 13.0):

    python3 tools/device/cupti_mapping.py \
        /usr/local/cuda/extras/CUPTI/doc/html/main/main.html \
        > tests/data/device/cupti_mapping.tsv

The tables are section 2.13.3 "Metrics Mapping Table" (Table 4, CUPTI
metrics) and 2.13.4 "Events Mapping Table" (Table 5, CUPTI events), both for
compute capability 7.0, where nvprof and Nsight Compute both run.
"""
import html
import re
import sys


def rows(text, caption):
    start = text.find(caption)
    if start < 0:
        sys.exit(f"no {caption!r} in the document")
    table = text[start:text.find("</table>", start)]
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        cells = [
            re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", cell))).strip()
            for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
        ]
        if len(cells) == 2 and "shared" in cells[0]:
            yield cells


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    print("# CUPTI's mapping of nvprof's shared-memory metrics and events to Perfworks")
    print("# (Nsight Compute) metrics, compute capability 7.0: CUPTI documentation")
    print("# (Cupti 13.0, CUDA 13.0: extras/CUPTI/doc/html/main/main.html), sections")
    print("# 2.13.3 Metrics Mapping Table (Table 4) and 2.13.4 Events Mapping Table")
    print("# (Table 5); extracted by tools/device/cupti_mapping.py on 2026-11-26.")
    print("# An empty third column: CUPTI gives no Perfworks equivalent.")
    print("kind\tnvprof\tperfworks")
    for kind, caption in (("metric", "Table 4"), ("event", "Table 5")):
        for name, perfworks in rows(text, caption):
            print(f"{kind}\t{name}\t{perfworks}")


if __name__ == "__main__":
    main()
