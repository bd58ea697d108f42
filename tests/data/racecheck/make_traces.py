#!/usr/bin/env python3
"""Writes the Accel-Sim traces of tests/data/racecheck (see README.md there).

Each trace is the kernel of tools/racecheck/cases.cu of the same name, written
by hand from its source and its sm_90 SASS (CUDA 13.0, `nvcc -arch=sm_90
-lineinfo -O2`): the PCs are those of the SASS, the line numbers those of
cases.cu, the shared addresses those of the kernel (its variables start at
0x400, after sm_90's reserved kilobyte). Only the instructions that matter to
racecheck are written (shared accesses, barriers, NOP, MEMBAR, WARPSYNC, EXIT).

    python3 tests/data/racecheck/make_traces.py   # rewrites the files in place
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = 0x00007F0000000000  # -shmem base_addr: shared offset 0 as a generic address
FULL = 0xFFFFFFFF


def header(name, block_dim, grid_dim=(1, 1, 1)):
    return (
        f"-kernel name = {name}\n-kernel id = 1\n"
        f"-grid dim = ({grid_dim[0]},{grid_dim[1]},{grid_dim[2]})\n"
        f"-block dim = ({block_dim[0]},{block_dim[1]},{block_dim[2]})\n"
        "-shmem = 4096\n-nregs = 32\n-binary version = 90\n-cuda stream id = 0\n"
        f"-shmem base_addr = {BASE:#018x}\n-local mem base_addr = 0x00007f1000000000\n"
        "-nvbit version = 1.7.1\n-accelsim tracer version = 5\n-enable lineinfo = 1\n\n"
        "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
        "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n"
    )


def mask_of(addrs):
    return sum(1 << l for l, a in enumerate(addrs) if a is not None)


def access(line, pc, opcode, width, addrs):
    """A shared access: addrs[lane] is the shared offset or None."""
    m = mask_of(addrs)
    listed = " ".join(f"{BASE + a:#018x}" for a in addrs if a is not None)
    if opcode.startswith("ST"):
        return f"{line} {pc:04x} {m:08x} 0 {opcode} 2 R2 R3 {width} 0 {listed}"
    dests = "1 R4" if width <= 4 else "4 R4 R5 R6 R7"
    return f"{line} {pc:04x} {m:08x} {dests} {opcode} 1 R5 {width} 0 {listed}"


def other(line, pc, opcode, mask=FULL, imm=""):
    return f"{line} {pc:04x} {mask:08x} 0 {opcode} 0 0 {imm}".rstrip()


def lanes(f):
    return [f(l) for l in range(32)]


def one_lane(lane, address):
    return lanes(lambda l: address if l == lane else None)


def traceg(name, block_dim, warps, block=(0, 0, 0)):
    """warps: list of instruction lists (one per warp)."""
    out = ["#BEGIN_TB\n", f"\nthread block = {block[0]},{block[1]},{block[2]}\n"]
    for w, insts in enumerate(warps):
        out.append(f"\nwarp = {w}\ninsts = {len(insts)}\n")
        out.extend(i + "\n" for i in insts)
    out.append("\n#END_TB\n")
    return header(name, block_dim) + "".join(out)


X = 0x400  # the first shared variable


def ab(sync):
    bar = [other(34, 0x90, "BAR.SYNC.DEFER_BLOCKING", imm="0x0")] if sync else []
    w0 = [access(28 if not sync else 35, 0x80, "STS", 4, one_lane(0, X))] + bar
    w1 = bar + [access(29 if not sync else 37, 0xE0, "LDS", 4, one_lane(0, X))]
    return [w + [other(30, 0x100, "EXIT")] for w in (w0, w1)]


def reverse(sync):
    lines = (43, 45) if sync else (51, 52)
    warps = []
    for w in range(2):
        insts = [access(lines[0], 0xE0, "STS", 4, lanes(lambda l: X + 4 * (32 * w + l)))]
        if sync:
            insts.append(other(44, 0xF0, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"))
        insts.append(access(lines[1], 0x100, "LDS", 4, lanes(lambda l: X + 4 * (63 - 32 * w - l))))
        insts.append(other(lines[1], 0x130, "EXIT"))
        warps.append(insts)
    return warps


def transpose(kind):
    # tile[32][33] floats; blocks of 32 x 8: warp w has threadIdx.y = w.
    tile = lambda r, c: X + 4 * (33 * r + c)
    warps = []
    for ty in range(8):
        insts = []
        if kind == "moved":
            insts.append(other(86, 0x80, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"))
        for k, j in enumerate(range(0, 32, 8)):
            insts.append(access(63, 0x100 + 16 * k, "STS", 4, lanes(lambda tx: tile(ty + j, tx))))
        if kind == "sync":
            insts.append(other(64, 0x140, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"))
        for k, j in enumerate(range(0, 32, 8)):
            insts.append(access(67, 0x200 + 16 * k, "LDS", 4, lanes(lambda tx: tile(tx, ty + j))))
        insts.append(other(67, 0x300, "EXIT"))
        warps.append(insts)
    return warps


def matmul(kind):
    # as[16][16] at 0x400, bs[16][16] at 0x800; blocks of 16 x 16: warp w has
    # rows 2w (lanes 0-15) and 2w + 1 (lanes 16-31); n = 32, two tiles.
    a = lambda r, c: X + 4 * (16 * r + c)
    b = lambda r, c: X + 0x400 + 4 * (16 * r + c)
    ty = lambda w, l: 2 * w + l // 16
    tx = lambda l: l % 16
    line = {"sync": (114, 115, 116, 117, 118), "no_second": (133, 134, 135, 136, None),
            "no_first": (150, 151, None, 152, 153)}[kind]
    warps = []
    for w in range(8):
        insts = []
        for _tile in range(2):
            insts.append(access(line[0], 0x270, "STS", 4, lanes(lambda l: a(ty(w, l), tx(l)))))
            insts.append(access(line[1], 0x280, "STS", 4, lanes(lambda l: b(ty(w, l), tx(l)))))
            if line[2]:
                insts.append(other(line[2], 0x290, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"))
            for k in range(16):
                insts.append(access(line[3], 0x2A0 + 32 * k, "LDS", 4, lanes(lambda l: a(ty(w, l), k))))
                insts.append(access(line[3], 0x2B0 + 32 * k, "LDS", 4, lanes(lambda l: b(k, tx(l)))))
            if line[4]:
                insts.append(other(line[4], 0x4B0, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"))
        insts.append(other(155, 0x600, "EXIT"))
        warps.append(insts)
    return warps


def divergent_ifelse():
    w0 = [access(143, 0xF0, "STS", 4, lanes(lambda l: X + 4 * l)),
          other(144, 0x100, "WARPSYNC.ALL"),
          other(144, 0x110, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"),
          other(149, 0x120, "EXIT")]
    w1 = [other(146, 0x80, "BAR.SYNC.DEFER_BLOCKING", imm="0x0"),
          access(147, 0xB0, "LDS", 4, lanes(lambda l: X + 4 * l)),
          other(149, 0xE0, "EXIT")]
    return [w0, w1]


def divergent_lanes():
    warps = []
    for w in range(2):
        warps.append([
            access(155, 0xF0, "STS", 4, lanes(lambda l: X + 4 * (32 * w + l))),
            other(156, 0x100, "BAR.SYNC.DEFER_BLOCKING", mask=0x0000FFFF, imm="0x0"),
            access(157, 0x120, "LDS", 4, lanes(lambda l: X + 4 * (63 - 32 * w - l))),
            other(158, 0x140, "EXIT")])
    return warps


def warp_reduce(syncwarp):
    s = lambda i: X + 4 * i
    if not syncwarp:
        insts = [access(166, 0xB0, "STS", 4, lanes(lambda t: s(t))),
                 access(167, 0xC0, "STS", 4, lanes(lambda t: s(t + 32)))]
        pc = 0xD0
        for line, d in zip(range(168, 173), (16, 8, 4, 2, 1)):
            insts.append(access(line, pc, "LDS", 4, lanes(lambda t: s(t))))
            insts.append(access(line, pc + 0x10, "LDS", 4, lanes(lambda t: s(t + d))))
            insts.append(access(line, pc + 0x30, "STS", 4, lanes(lambda t: s(t))))
            pc += 0x40
        insts.append(access(173, 0x220, "LDS", 4, one_lane(0, s(0))))
        return [insts + [other(174, 0x250, "EXIT")]]
    insts = [access(183, 0xB0, "STS", 4, lanes(lambda t: s(t + 32))),
             access(182, 0xC0, "STS", 4, lanes(lambda t: s(t))),
             other(184, 0xD0, "NOP")]
    pc = 0xE0
    for d in (16, 8, 4, 2, 1):
        insts.append(access(186, pc, "LDS", 4, lanes(lambda t: s(t + d))))
        insts.append(other(187, pc + 0x10, "NOP"))
        insts.append(access(188, pc + 0x20, "LDS", 4, lanes(lambda t: s(t))))
        insts.append(access(188, pc + 0x40, "STS", 4, lanes(lambda t: s(t))))
        insts.append(other(189, pc + 0x50, "NOP"))
        pc += 0x60
    insts.append(access(191, 0x2D0, "LDS", 4, one_lane(0, s(0))))
    return [insts + [other(192, 0x300, "EXIT")]]


def fence_race():
    w0 = [access(197, 0xA0, "STS", 4, one_lane(0, X)),
          other(198, 0xB0, "MEMBAR.SC.CTA", mask=1),
          other(204, 0x160, "EXIT")]
    w1 = [other(201, 0xF0, "MEMBAR.SC.CTA", mask=1),
          access(202, 0x140, "LDS", 4, one_lane(0, X)),
          other(204, 0x160, "EXIT")]
    return [w0, w1]


def named_barrier():
    bar = other(211, 0xF0, "BAR.SYNC.DEFER_BLOCKING", imm="0x1 0x40")
    w0 = [access(210, 0xD0, "STS", 4, one_lane(0, X)), bar, other(214, 0x130, "EXIT")]
    w1 = [bar, access(212, 0x110, "LDS", 4, one_lane(0, X)), other(214, 0x130, "EXIT")]
    w2 = [access(213, 0x180, "LDS", 4, one_lane(0, X)), other(214, 0x1A0, "EXIT")]
    return [w0, w1, w2]


CASES = {
    "ab_race": ("_Z7ab_racePi", (64, 1, 1), ab(False)),
    "ab_sync": ("_Z7ab_syncPi", (64, 1, 1), ab(True)),
    "reverse_sync": ("_Z12reverse_syncPii", (64, 1, 1), reverse(True)),
    "reverse_nosync": ("_Z14reverse_nosyncPii", (64, 1, 1), reverse(False)),
    "transpose_sync": ("_Z14transpose_syncPfPKf", (32, 8, 1), transpose("sync")),
    "transpose_nosync": ("_Z16transpose_nosyncPfPKf", (32, 8, 1), transpose("nosync")),
    "transpose_moved": ("_Z15transpose_movedPfPKf", (32, 8, 1), transpose("moved")),
    "matmul_sync": ("_Z11matmul_syncPKfS0_Pfi", (16, 16, 1), matmul("sync")),
    "matmul_no_second": ("_Z16matmul_no_secondPKfS0_Pfi", (16, 16, 1), matmul("no_second")),
    "matmul_no_first": ("_Z15matmul_no_firstPKfS0_Pfi", (16, 16, 1), matmul("no_first")),
    "divergent_ifelse": ("_Z16divergent_ifelsePi", (64, 1, 1), divergent_ifelse()),
    "divergent_lanes": ("_Z15divergent_lanesPi", (64, 1, 1), divergent_lanes()),
    "warp_reduce_nosync": ("_Z18warp_reduce_nosyncPKiPi", (32, 1, 1), warp_reduce(False)),
    "warp_reduce_syncwarp": ("_Z20warp_reduce_syncwarpPKiPi", (32, 1, 1), warp_reduce(True)),
    "fence_race": ("_Z10fence_racePi", (64, 1, 1), fence_race()),
    "named_barrier": ("_Z13named_barrierPi", (96, 1, 1), named_barrier()),
}


def raw(name, block_dim, warps):
    """The raw .trace form: block and warp on every line, warps interleaved
    one instruction at a time, as they might have run."""
    out = []
    longest = max(len(w) for w in warps)
    for i in range(longest):
        for w, insts in enumerate(warps):
            if i < len(insts):
                out.append(f"0 0 0 {w} {insts[i]}\n")
    return header(name, block_dim) + "".join(out)


BAD = {
    # Warp 1 passes one __syncthreads() more than warp 0.
    "bad_barrier_counts": header("_Z12reverse_syncPii", (64, 1, 1)) + "#BEGIN_TB\n\nthread block = 0,0,0\n"
    + "\nwarp = 0\ninsts = 2\n" + other(44, 0xF0, "BAR.SYNC.DEFER_BLOCKING", imm="0x0") + "\n"
    + other(46, 0x130, "EXIT") + "\n"
    + "\nwarp = 1\ninsts = 3\n" + other(44, 0xF0, "BAR.SYNC.DEFER_BLOCKING", imm="0x0") + "\n"
    + other(44, 0x120, "BAR.SYNC.DEFER_BLOCKING", imm="0x0") + "\n" + other(46, 0x130, "EXIT") + "\n#END_TB\n",
    # bar.sync 1, 48: not a multiple of 32.
    "bad_named_count": header("_Z13named_barrierPi", (96, 1, 1)) + "#BEGIN_TB\n\nthread block = 0,0,0\n"
    + "\nwarp = 0\ninsts = 1\n" + other(211, 0xF0, "BAR.SYNC.DEFER_BLOCKING", imm="0x1 0x30") + "\n#END_TB\n",
    # A block with no warps.
    "bad_no_warps": header("_Z7ab_racePi", (64, 1, 1)) + "#BEGIN_TB\n\nthread block = 0,0,0\n\n#END_TB\n",
    # Block (1,0,0) begins before block (0,0,0) ends.
    "bad_interleaved": header("_Z7ab_racePi", (64, 1, 1)) + "#BEGIN_TB\n\nthread block = 0,0,0\n"
    + "\nwarp = 0\ninsts = 1\n" + access(28, 0x80, "STS", 4, one_lane(0, X))
    + "\nthread block = 1,0,0\n\nwarp = 0\ninsts = 1\n" + access(28, 0x80, "STS", 4, one_lane(0, X)) + "\n#END_TB\n",
}


def main():
    for case, (name, block_dim, warps) in CASES.items():
        with open(os.path.join(HERE, f"{case}.traceg"), "w") as f:
            f.write(traceg(name, block_dim, warps))
    name, block_dim, warps = CASES["reverse_nosync"]
    with open(os.path.join(HERE, "reverse_nosync.trace"), "w") as f:
        f.write(raw(name, block_dim, warps))
    for case, text in BAD.items():
        with open(os.path.join(HERE, f"{case}.traceg"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
