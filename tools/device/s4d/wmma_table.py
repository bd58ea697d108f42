#!/usr/bin/env python3
"""From the device's wmma fragment maps (`wmma_map.txt` of run.sh) and the SASS of
the same build (`wmma_sm90.sass`), the lowering of every wmma.load/store case:
the SASS shared instructions ptxas emits and, for each, every lane's address as
(line, byte): line * ldm-in-bytes + byte from the fragment's pointer.

  python3 wmma_table.py tests/data/ncu/wmma > src/kernel/ptx/interp/wmma/table.rs

Checks on the way: the lowering is the same at every leading dimension measured
(a line/byte pair that moves with ldm is a failure), each instruction's bytes
are contiguous, and the number of distinct fragment registers fills the SASS
instructions exactly."""
import gzip
import os
import re
import sys
from collections import OrderedDict


def read(path):
    """The file, or its .gz beside it (tests/data/ncu/wmma keeps them gzipped)."""
    if os.path.exists(path):
        return open(path).read()
    return gzip.open(path + ".gz", "rt").read()

res = sys.argv[1]

# ---- SASS: per kernel, its wmma instructions (after the fill code) ----
sass = read(f"{res}/wmma_sm90.sass")
TYPES = {"6__half": "f16", "f": "f32", "i": "s32", "a": "s8", "h": "u8", "13__nv_bfloat16": "bf16",
         "d": "f64", "NS1_9precision4tf32E": "tf32"}


def case_name(mangled):
    m = re.search(r"fragmentINS1_(?:8matrix_([ab])|11accumulator)ELi(\d+)ELi(\d+)ELi(\d+)E(.*)$", mangled)
    mat, M, N, K, rest = m.groups()
    shape = f"m{M}n{N}k{K}"
    op = int(re.search(r"Li(\d)EEvjijPh", mangled).group(1))
    if mat:
        lay = "row" if "9row_major" in rest else "col"
        t = rest.split("NS1_9")[0]
        if "precision2s4" in rest:
            ty = "s4"
        elif "precision2u4" in rest:
            ty = "u4"
        elif "precision2b1" in rest:
            ty = "b1"
        elif "precision4tf32" in rest:
            ty = "tf32"
        else:
            ty = TYPES[t]
        return f"{shape}.{ty}.{mat}.{lay}"
    t = rest.split("vEE")[0]
    ty = TYPES[t]
    if ty == "s32":
        ty = "s32"
    kind = {1: "c.row", 2: "c.col", 3: "d.row", 4: "d.col"}[op]
    return f"{shape}.{ty}.{kind}"


sass_of = {}
movm = set()
for f in re.split(r"\n\s*Function : ", sass)[1:]:
    name = f.split("\n")[0].strip()
    ins = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d\s+)?([A-Z0-9_.]+)\s+([^;]*);", f)
    c = case_name(name)
    load = ".a." in c or ".b." in c or ".c." in c
    out = []
    for op, args in ins:
        base = op.split(".")[0]
        if load and base in ("LDS", "LDSM", "LD"):
            out.append(op)
        if not load and base in ("STS", "ST") and op != "STS.U8":
            out.append(op)
    sass_of[c] = out
    if "MOVM" in f:
        movm.add(c)

# ---- the maps ----
maps = OrderedDict()
cur = None
for line in read(f"{res}/wmma_map.txt").splitlines():
    if line.startswith("case "):
        m = re.match(r"case (\S+) ldm=(\d+) ldbytes=(\d+) nb=(\d+)", line)
        cur = (m.group(1), int(m.group(3)))
        maps.setdefault(m.group(1), {})[int(m.group(3))] = []
        nb = int(m.group(4))
    elif line.strip().startswith("lane"):
        offs = [int(x) for x in line.split(":")[1].split()]
        maps[cur[0]][cur[1]].append(offs)


def width_of(op):
    base = op.split(".")[0]
    if base == "LDSM":
        n = int(op.split(".")[-1]) if op.split(".")[-1] in ("2", "4") else 1
        return ("ldsm", n, ".MT88" in op)
    parts = op.split(".")
    w = 4
    for p in parts[1:]:
        if p in ("64", "128"):
            w = int(p) // 8
        if p in ("U8", "S8"):
            w = 1
        if p in ("U16", "S16"):
            w = 2
    return ("st" if base in ("STS", "ST") else "ld", w, base in ("LD", "ST"))


def line_byte(off, ldb):
    return off // ldb, off % ldb


problems = []
table = OrderedDict()
for case, by_ld in maps.items():
    ops = sass_of.get(case)
    if ops is None:
        problems.append(f"{case}: no SASS")
        continue
    # (line, byte) of each lane's fragment bytes, checked equal at every ldm
    lb = None
    for ldb, lanes in sorted(by_ld.items()):
        this = [[None if o < 0 else line_byte(o, ldb) for o in lane] for lane in lanes]
        if lb is None:
            lb = this
        elif this != lb:
            problems.append(f"{case}: lowering moves with ldm ({ldb} bytes)")
    nb = len(lb[0])
    pieces = []
    kinds = [width_of(o) for o in ops]
    if all(k[0] == "ldsm" for k in kinds):
        # registers: 4-byte groups, distinct over lanes, in fragment order
        regs = []
        for r in range(nb // 4):
            col = tuple(tuple(lb[l][4 * r:4 * r + 4]) for l in range(32))
            if col not in [x[1] for x in regs]:
                regs.append((r, col))
        need = sum(k[1] for k in kinds)
        if need != len(regs):
            problems.append(f"{case}: {len(regs)} registers for {ops}")
            continue
        i = 0
        for (_, n, trans) in kinds:
            rows = []  # per matrix, 8 row (line, byte) addresses
            for r, col in regs[i:i + n]:
                mrows = []
                for row in range(8):
                    if trans:
                        lane, byte = row >> 1, 2 * (row & 1)
                    else:
                        lane, byte = 4 * row, 0
                    mrows.append(col[lane][byte])
                # every byte of the register must lie in these rows' 16 bytes
                for l in range(32):
                    for b in range(4):
                        ln, by = col[l][b]
                        if not any(ln == a and a2 <= by < a2 + 16 for a, a2 in mrows):
                            problems.append(f"{case}: lane {l} byte {b} outside its matrix rows")
                rows.append(mrows)
            i += n
            # lanes past 8n give no address: repeat the matrices there
            lanes = [rows[(l // 8) % n][l % 8] for l in range(32)]
            pieces.append((("ldsm", n, trans), lanes))
    else:
        ws = set(k[1] for k in kinds)
        if len(ws) != 1:
            problems.append(f"{case}: mixed widths {ops}")
            continue
        w = ws.pop()
        if case in movm:
            # The words are exchanged between lanes after the loads (before
            # the stores) by MOVM.16.MT88, an 8x8 transpose: each instruction
            # reads (writes) one 8-line x 16-byte block, lanes 4r..4r+3 its
            # line r. Which lane has which word of a block does not change a
            # 4-byte access's wavefronts.
            assert w == 4, case
            words = sorted(set((ln, by - by % 4) for lane in lb for ln, by in lane))
            blocks = sorted(set((ln // 8, by // 16) for ln, by in words))
            if len(blocks) != len(kinds) or len(words) != 32 * len(blocks):
                problems.append(f"{case}: {len(blocks)} MOVM blocks for {ops}")
                continue
            for (kind, _, generic), (bl, bb) in zip(kinds, blocks):
                lanes = [(8 * bl + (l >> 2), 16 * bb + 4 * (l & 3)) for l in range(32)]
                pieces.append(((kind, w, generic), lanes))
            table[case] = pieces
            continue
        # Each lane's distinct W-byte chunks, in address order: the k-th is
        # its address in the k-th instruction (ptxas permutes the halves of
        # a column-major fragment after loading whole words: the fragment's
        # byte order is not the loads').
        per_lane = []
        for l in range(32):
            starts = sorted(set((ln, by - by % w) for ln, by in lb[l] if ln is not None))
            per_lane.append(starts)
            covered = set((ln, st + b) for ln, st in starts for b in range(w))
            if covered != set(lb[l]):
                problems.append(f"{case}: lane {l} reads bytes outside its fragment")
        if any(len(x) != len(kinds) for x in per_lane):
            problems.append(f"{case}: {[len(x) for x in per_lane][:4]} chunks of {w} bytes for {len(kinds)} instructions {ops}")
            continue
        for k, (kind, _, generic) in enumerate(kinds):
            pieces.append(((kind, w, generic), [per_lane[l][k] for l in range(32)]))
    table[case] = pieces

for p in problems:
    print("//", p, file=sys.stderr)


def linear(lanes):
    """(base, [delta per lane bit]) if the lane map is additive over lane bits."""
    base = lanes[0]
    deltas = []
    for b in range(5):
        l = lanes[1 << b]
        deltas.append((l[0] - base[0], l[1] - base[1]))
    for lane in range(32):
        e = [base[0], base[1]]
        for b in range(5):
            if lane >> b & 1:
                e[0] += deltas[b][0]
                e[1] += deltas[b][1]
        if tuple(e) != tuple(lanes[lane]):
            return None
    return base, deltas


print("// Generated by tools/device/s4d/wmma_table.py from the device's fragment maps")
print("// (tests/data/ncu/wmma/wmma_map.txt.gz) and SASS (wmma_sm90.sass.gz): do not edit.")
print("use super::{Lanes, Piece, Row};")
print("use crate::Matrices;\n")
print("/// Every case measured: (name, its SASS instructions in order).")
print("#[rustfmt::skip]")
print("pub(crate) const TABLE: &[(&str, &[Row])] = &[")
nonlinear = 0
for case, pieces in table.items():
    rows = []
    for (kind, n, flag), lanes in pieces:
        if kind == "ldsm":
            m = {1: "X1", 2: "X2", 4: "X4"}[n] + ("Trans" if flag else "")
            piece = f"Piece::Ldsm(Matrices::{m})"
        elif kind == "ld":
            piece = f"Piece::{'Ld' if flag else 'Lds'}({n})"
        else:
            piece = f"Piece::{'St' if flag else 'Sts'}({n})"
        lin = linear(lanes)
        if lin is None:
            nonlinear += 1
            continue
        (b0, b1), d = lin
        ds = ", ".join(f"({a}, {b})" for a, b in d)
        rows.append(f"Row {{ piece: {piece}, lanes: Lanes {{ base: ({b0}, {b1}), steps: [{ds}] }} }}")
    print(f'    ("{case}", &[')
    for r in rows:
        print(f"        {r},")
    print("    ]),")
print("];")
print(f"// {len(table)} cases, {nonlinear} pieces not linear in the lane bits", file=sys.stderr)
if nonlinear or problems:
    sys.exit(1)
