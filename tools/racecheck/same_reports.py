#!/usr/bin/env python3
"""Whether two `smem` binaries give the same race reports, byte for byte.

Runs `smem racecheck --json` on every trace (each kernel file and each
kernelslist.g of ../shared/real-traces where it is there, and the traces of
tests/data) and `smem kernel --json` on every launch of tests/data/ptx (each
fixture's launch.json) and tests/data/ncu/hopper/launches.txt, with each
binary, and compares stdout and the exit status. For a change to the block
model that must not change its answers (issue 35 item 4).

    python3 tools/racecheck/same_reports.py BASE_SMEM NEW_SMEM [--timeout S]

Prints each input that differs and the count compared; exits 1 if any did.
A launch that runs past the timeout with the base binary is left out, and
counted as such.
"""

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def traces():
    """Every trace input, as `smem racecheck` arguments."""
    found = []
    real = ROOT.parent / "shared" / "real-traces"
    if not real.is_dir():
        real = ROOT / ".." / ".." / "shared" / "real-traces"
    roots = [ROOT / "tests" / "data"] + ([real] if real.is_dir() else [])
    for root in roots:
        for path in sorted(root.rglob("*")):
            name = path.name
            if name.endswith((".traceg", ".traceg.xz")) or name == "kernelslist.g":
                found.append([str(path)])
    return found


def fixture_launches():
    """Each tests/data/ptx fixture's launch.json, as `smem kernel` arguments."""
    found = []
    for launch in sorted((ROOT / "tests" / "data" / "ptx").glob("*/launch.json")):
        spec = json.loads(launch.read_text())
        ptx = launch.parent / "kernel.ptx"
        if not ptx.is_file():
            continue
        args = [
            str(ptx),
            "--kernel",
            spec["kernel"],
            "--grid",
            ",".join(map(str, spec["grid"])),
            "--block",
            ",".join(map(str, spec["block"])),
            "--dynamic-shared",
            str(spec.get("dynamic_shared", 0)),
        ]
        for index, arg in enumerate(spec.get("args", [])):
            if not arg.get("pointer") and "value" in arg:
                args += ["--arg", f"{arg.get('index', index)}={arg['value']}"]
        found.append(args)
    return found


def hopper_launches():
    """tests/data/ncu/hopper/launches.txt, as `smem kernel` arguments."""
    base = ROOT / "tests" / "data" / "ncu" / "hopper"
    found = []
    listing = base / "launches.txt"
    if not listing.is_file():
        return found
    for line in listing.read_text().splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        _, ptx, kernel, grid, block, shared = fields[:6]
        args = [str(base / ptx), "--kernel", kernel, "--grid", grid, "--block", block]
        args += ["--dynamic-shared", shared]
        for extra in fields[9:]:
            if extra.startswith("map:"):
                args += ["--tensor-map", extra[4:]]
            else:
                args += ["--arg", extra]
        found.append(args)
    return found


def run(binary, command, args, timeout):
    try:
        done = subprocess.run(
            [binary, command, "--json", *args],
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    return done.returncode, done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--timeout", type=float, default=60)
    options = parser.parse_args()
    inputs = [("racecheck", a) for a in traces()]
    inputs += [("kernel", a + ["-j", "1"]) for a in fixture_launches() + hopper_launches()]
    compared, differ, slow = 0, 0, 0
    statuses = {}
    for command, args in inputs:
        base = run(options.base, command, args, options.timeout)
        if base is None:
            slow += 1
            print(f"left out (past {options.timeout} s): {command} {' '.join(args)}")
            continue
        new = run(options.new, command, args, 10 * options.timeout)
        compared += 1
        statuses[base[0]] = statuses.get(base[0], 0) + 1
        if new != base:
            differ += 1
            print(f"DIFFERS: {command} {' '.join(args)}")
    print(f"{compared} inputs compared, {differ} differ, {slow} left out")
    print("exit status: inputs", dict(sorted(statuses.items())))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
