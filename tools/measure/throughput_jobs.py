#!/usr/bin/env python3
"""Jobs for throughput.cu from the corpus's `measure: throughput` records.

Usage: throughput_jobs.py CORPUS.jsonl PHASE... > jobs.txt
Phases:
  curve   every record at 1, 2, 3, 4, 5, 6, 8, 12, 16 warps (unroll 16), 3 launches
  unroll  loads at 1, 4, 16 warps with 1, 2, 4, 8, 16, 32 loads per block
  pad     every record at 4 warps with 1 and 2 integer adds after each access
  dep     every record at 4 warps, each block's addresses depending on the last
  place   every record with 2, 4 and 8 warps placed on fewer schedulers
          (warp w runs on sub-partition w % 4)
  robust  every record at 4, 8, 12 and 16 warps with each variant of the
          instruction stream: 1, 2, 4, 8, 32 loads per block, 1 and 2 integer
          adds after each access, dependent blocks
Each job: tag op width unroll pad dep launched mask iters reps offsets...
"""
import json
import sys

INSTRUCTIONS = 16384  # per warp
REPS = 3


def records(path):
    for line in open(path):
        r = json.loads(line)
        if r.get("measure") == "throughput":
            yield r


def job(r, unroll=16, pad=0, dep=0, launched=4, mask=None, reps=REPS):
    if mask is None:
        mask = (1 << launched) - 1
    tag = f"{r['op']}{r['width']}_{r['group']}_wf{r['wavefronts']}"
    iters = INSTRUCTIONS // unroll
    offs = " ".join(str(o) for o in r["offsets"])
    return f"{tag} {r['op']} {r['width']} {unroll} {pad} {dep} {launched} {mask:x} {iters} {reps} {offs}"


def main():
    corpus, phases = sys.argv[1], sys.argv[2:]
    recs = list(records(corpus))
    out = []
    for phase in phases:
        for r in recs:
            if phase == "curve":
                out += [job(r, launched=w) for w in (1, 2, 3, 4, 5, 6, 8, 12, 16)]
            elif phase == "unroll" and r["op"] == "ld":
                out += [job(r, unroll=u, launched=w, reps=2) for w in (1, 4, 16) for u in (1, 2, 4, 8, 32)]
            elif phase == "pad":
                out += [job(r, pad=p, reps=2) for p in (1, 2)]
            elif phase == "dep":
                out += [job(r, dep=1, reps=2)]
            elif phase == "robust":
                for w in (4, 8, 12, 16):
                    out += [job(r, unroll=u, launched=w, reps=2) for u in (1, 2, 4, 8, 32)]
                    out += [job(r, pad=p, launched=w, reps=2) for p in (1, 2)]
                    out.append(job(r, dep=1, launched=w, reps=2))
            elif phase == "place":
                # 2 warps on one scheduler; 4 warps on 1 and on 2 schedulers;
                # 8 warps on 2 schedulers; 4 warps spread but launched with 16.
                for launched, mask in ((8, 0x11), (16, 0x1111), (16, 0x0033), (16, 0x3333), (16, 0x000F)):
                    out.append(job(r, launched=launched, mask=mask, reps=2))
    print("\n".join(out))


if __name__ == "__main__":
    main()
