"""Per-request cost of the Python module, batch and single calls, beside the
Rust cost on the same requests (bench/batch_reference.rs).

    python bench/batch.py [--rust PATH-TO-batch_reference]

The rows are the benchmarks' mix of 4-byte sm_90 loads (benches/common/mod.rs:
strides 1, 2, 3, 4, 8, 16, 32, 33, a broadcast and 7 pseudo-random rows),
repeated to 65,536 requests. Best of several repetitions; read the ratios,
the machine is shared (the script prints `uptime`).
"""

import argparse
import subprocess
import time

import numpy as np

import smem_model


def mix(width):
    rows = [[lane * stride * width for lane in range(32)] for stride in (1, 2, 3, 4, 8, 16, 32, 33)]
    rows.append([256] * 32)
    state = 0x9E3779B9
    for _ in range(7):
        row = []
        for _ in range(32):
            state ^= (state << 13) & 0xFFFFFFFF
            state ^= state >> 17
            state ^= (state << 5) & 0xFFFFFFFF
            row.append(state % 4096 // width * width)
        rows.append(row)
    return rows


def best_ns(f, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, (time.perf_counter() - t) * 1e9 / n)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rust", help="the batch_reference binary, run first")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.rust:
        print(subprocess.run([args.rust], capture_output=True, text=True, check=True).stdout, end="")
    base = mix(4)
    n = 65_536
    rows = np.array([base[i % len(base)] for i in range(n)], dtype=np.uint32)
    wide = rows.astype(np.int64)
    masks = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
    total = int(smem_model.wavefronts_batch("sm_90", "LDS", 4, rows).sum())
    print(f"python {n} requests, wavefronts total {total}")
    runs = [
        ("wavefronts_batch uint32", lambda: smem_model.wavefronts_batch("sm_90", "LDS", 4, rows)),
        ("wavefronts_batch uint32 + masks", lambda: smem_model.wavefronts_batch("sm_90", "LDS", 4, rows, masks)),
        ("wavefronts_batch int64", lambda: smem_model.wavefronts_batch("sm_90", "LDS", 4, wide)),
        ("cost_batch uint32", lambda: smem_model.cost_batch("sm_90", "LDS", 4, rows)),
    ]
    # Round-robin, best of each: a burst of load on the shared machine then
    # hits every variant alike.
    best = {name: float("inf") for name, _ in runs}
    for _ in range(args.repeat):
        for name, f in runs:
            best[name] = min(best[name], best_ns(f, n, 1))
    for name, _ in runs:
        print(f"python {name:<32} {best[name]:7.1f} ns/request")
    lists = [list(map(int, r)) for r in rows[:4096]]

    def single():
        for r in lists:
            smem_model.wavefronts("sm_90", "LDS", 4, r)

    print(f"python {'wavefronts (one call a request)':<32} {best_ns(single, len(lists), 5):7.1f} ns/request")


if __name__ == "__main__":
    main()
