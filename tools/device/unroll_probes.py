"""Writes the PTX probes of tests/data/ptx/ptxas_unrolling (issue 22):
loops with constant and parameter trip counts (full and partial unrolling by
ptxas, merges across iterations) and the merge cases left unsettled by
ptxas_merging_more (long if-converted arms, stores of mixed widths, variables
packed in one 16-byte chunk).

    python3 tools/device/unroll_probes.py OUTDIR

writes OUTDIR/{loops,bodies,shapes,unsettled,packed}.ptx and OUTDIR/kernels.json
(each kernel's file, what its PTX does, and the `n` it is launched with).
Every kernel is `.entry NAME(.param .u64 o, .param .u32 n)`; `o` receives
one 32-bit word per thread (so no load is dead), `n` is a trip count where
the kernel uses one.
"""
import json
import sys
from pathlib import Path

HEAD = """.version 9.0
.target sm_90
.address_size 64
"""

# Every kernel launched with n = N_ARG (one block of 32 threads).
N_ARG = 8

KERNELS = {}


def prologue(shift=4):
    """%r5 = sm + ((tid & 15) << shift): 16-aligned for shift >= 4."""
    return f"""	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 15;
	shl.b32 %r3, %r2, {shift};
	mov.u32 %r4, sm;
	add.s32 %r5, %r4, %r3;
	ld.param.u64 %rd1, [o];
	ld.param.u32 %r11, [n];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r10, 0;
	mov.u64 %rd6, 0;
"""


EPILOGUE = """	cvt.u32.u64 %r15, %rd6;
	add.s32 %r10, %r10, %r15;
	st.global.u32 [%rd3], %r10;
	ret;
"""

DECLS = """	.reg .pred %p<8>;
	.reg .b16 %rs<8>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<16>;
"""


def access(kind, addr, val="%r12"):
    """One shared access at `addr` of kind ld32/ld64/ldv2/ldv4/st32/st64/stv2/stv4/st16."""
    return {
        "ld32": f"	ld.shared.b32 %r6, [{addr}];\n	add.s32 %r10, %r10, %r6;\n",
        "ld64": f"	ld.shared.b64 %rd5, [{addr}];\n	add.s64 %rd6, %rd6, %rd5;\n",
        "ldv2": f"	ld.shared.v2.b32 {{%r6, %r7}}, [{addr}];\n	add.s32 %r10, %r10, %r6;\n	add.s32 %r10, %r10, %r7;\n",
        "ldv4": f"	ld.shared.v4.b32 {{%r6, %r7, %r8, %r9}}, [{addr}];\n	add.s32 %r10, %r10, %r6;\n	add.s32 %r10, %r10, %r7;\n	add.s32 %r10, %r10, %r8;\n	add.s32 %r10, %r10, %r9;\n",
        "st32": f"	st.shared.b32 [{addr}], {val};\n",
        "st64": f"	cvt.u64.u32 %rd5, {val};\n	st.shared.b64 [{addr}], %rd5;\n",
        "stv2": f"	st.shared.v2.b32 [{addr}], {{{val}, %r1}};\n",
        "stv4": f"	st.shared.v4.b32 [{addr}], {{{val}, %r1, {val}, %r2}};\n",
        "st16": f"	cvt.u16.u32 %rs1, {val};\n	st.shared.u16 [{addr}], %rs1;\n",
    }[kind]


def alu(k):
    """k instructions of arithmetic ptxas cannot fold (squares and xors)."""
    out = ""
    for j in range(k):
        out += "	mul.lo.s32 %r10, %r10, %r10;\n" if j % 2 == 0 else "	xor.b32 %r10, %r10, %r12;\n"
    return out


def entry(file, name, what, body, shared="sm"):
    KERNELS[name] = {"file": file, "ptx": what, "n": N_ARG}
    return f"""
// {what}
.visible .entry {name}(.param .u64 o, .param .u32 n)
{{
{DECLS}{body}{EPILOGUE}}}
"""


def loop(kind="ld32", trips=8, stride=4, form="ptr", extra=0, bound=None, start=0, step=1,
         cmp="lt.u32", pragma=False, bar=False, shift=4):
    """A bottom-tested loop (as nvcc emits them): i = start; do { body; i += step } while (i CMP bound).
    form ptr: the address register steps by `stride`; idx: addr = base + stride * i."""
    bound = bound if bound is not None else start + trips * step
    b = prologue(shift) + f"	mov.u32 %r12, {start};\n"
    if form == "ptr":
        b += "	mov.u32 %r20, %r5;\n"
    b += "L:\n"
    if pragma:
        b += '	.pragma "nounroll";\n'
    if form == "ptr":
        b += access(kind, "%r20")
        b += f"	add.s32 %r20, %r20, {stride};\n"
    else:
        b += f"	mul.lo.s32 %r13, %r12, {stride};\n	add.s32 %r14, %r5, %r13;\n"
        b += access(kind, "%r14")
    b += alu(extra)
    if bar:
        b += "	bar.sync 0;\n"
    b += f"	add.s32 %r12, %r12, {step};\n	setp.{cmp} %p1, %r12, {bound};\n	@%p1 bra L;\n"
    return b


def gen_loops():
    f = "loops.ptx"
    out = HEAD + ".shared .align 16 .b8 sm[16384];\n"
    for t in [2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 24, 32, 33, 48, 64, 65, 128, 256]:
        out += entry(f, f"ld_t{t}", f"ld.shared.b32 at base + 4*i, i = 0..{t} (constant), pointer steps by 4", loop("ld32", t))
        out += entry(f, f"st_t{t}", f"st.shared.b32 at base + 4*i, i = 0..{t} (constant), pointer steps by 4", loop("st32", t))
    for t in [8, 32, 256]:
        out += entry(f, f"ldidx_t{t}", f"ld.shared.b32 at base + 4*i (index form: mul.lo, add), {t} trips", loop("ld32", t, form="idx"))
        out += entry(f, f"stidx_t{t}", f"st.shared.b32 at base + 4*i (index form), {t} trips", loop("st32", t, form="idx"))
    for t in [8, 32]:
        out += entry(f, f"ldparam_t{t}", f"ld.shared.b32 at base + 4*i, the bound n a parameter (launched with n = {N_ARG})", loop("ld32", t, bound="%r11"))
    out += entry(f, "stparam", f"st.shared.b32 at base + 4*i, bound n a parameter (n = {N_ARG})", loop("st32", 8, bound="%r11"))
    out += entry(f, "ldv4param", f"ld.shared.v4.b32 at base + 16*i, bound n a parameter (n = {N_ARG})", loop("ldv4", 8, stride=16, bound="%r11"))
    return out


def gen_shapes():
    """Strides, widths, counting direction, compare kinds, start/step, pragma, barriers, top-tested loops."""
    f = "shapes.ptx"
    out = HEAD + ".shared .align 16 .b8 sm[16384];\n"
    for kind, stride in [("ld32", 8), ("ld32", 16), ("st32", 8), ("st32", 16), ("ld64", 8), ("st64", 8),
                         ("ldv2", 8), ("stv2", 8), ("ldv4", 16), ("stv4", 16), ("st16", 2)]:
        for t in [4, 8, 32]:
            out += entry(f, f"{kind}_s{stride}_t{t}", f"{kind} at base + {stride}*i, {t} trips (constant)", loop(kind, t, stride=stride))
    # 8-aligned base only ((tid & 15) << 3)
    out += entry(f, "ld_a8_t8", "ld.shared.b32 at base + 4*i, 8 trips, base only 8-aligned", loop("ld32", 8, shift=3))
    out += entry(f, "st_a8_t8", "st.shared.b32 at base + 4*i, 8 trips, base only 8-aligned", loop("st32", 8, shift=3))
    # counting down: i = 8 .. 1, addr = base + 4*(i-1) (pointer from the top down)
    b = prologue() + "	mov.u32 %r12, 8;\n	add.s32 %r20, %r5, 28;\nL:\n" + access("ld32", "%r20") + \
        "	add.s32 %r20, %r20, -4;\n	add.s32 %r12, %r12, -1;\n	setp.ne.s32 %p1, %r12, 0;\n	@%p1 bra L;\n"
    out += entry(f, "ld_down8", "i = 8 down to 1 (setp.ne 0), ld.shared.b32 at a pointer from base + 28 stepping by -4", b)
    b = prologue() + "	mov.u32 %r12, 8;\n	add.s32 %r20, %r5, 28;\nL:\n" + access("st32", "%r20") + \
        "	add.s32 %r20, %r20, -4;\n	add.s32 %r12, %r12, -1;\n	setp.gt.s32 %p1, %r12, 0;\n	@%p1 bra L;\n"
    out += entry(f, "st_down8", "i = 8 down to 1 (setp.gt 0), st.shared.b32 at base + 28 - 4*k", b)
    b = prologue() + "	mov.u32 %r12, 7;\nL:\n	shl.b32 %r13, %r12, 2;\n	add.s32 %r14, %r5, %r13;\n" + access("ld32", "%r14") + \
        "	add.s32 %r12, %r12, -1;\n	setp.ge.s32 %p1, %r12, 0;\n	@%p1 bra L;\n"
    out += entry(f, "ldidx_down8", "i = 7 down to 0 (setp.ge 0), ld.shared.b32 at base + 4*i (index form)", b)
    b = prologue() + "	mov.u32 %r12, 32;\n	add.s32 %r20, %r5, 124;\nL:\n" + access("ld32", "%r20") + \
        "	add.s32 %r20, %r20, -4;\n	add.s32 %r12, %r12, -1;\n	setp.ne.s32 %p1, %r12, 0;\n	@%p1 bra L;\n"
    out += entry(f, "ld_down32", "i = 32 down to 1, ld.shared.b32 at a pointer stepping by -4", b)
    # compare kinds and starts / steps
    out += entry(f, "ld_ne8", "i = 0..8, setp.ne.u32 i, 8", loop("ld32", 8, cmp="ne.u32"))
    out += entry(f, "ld_le8", "i = 0..7, setp.le.s32 i, 7", loop("ld32", 8, cmp="le.s32", bound=7))
    out += entry(f, "ld_lts8", "i = 0..8, setp.lt.s32", loop("ld32", 8, cmp="lt.s32"))
    out += entry(f, "ld_start4", "i = 4..12 (8 trips), pointer steps by 4", loop("ld32", 8, start=4))
    out += entry(f, "ldidx_start4", "i = 4..12 (8 trips), ld at base + 4*i (index form: words 4..11)", loop("ld32", 8, start=4, form="idx"))
    out += entry(f, "ldidx_step2", "i = 0, 2, .., 14 (8 trips), ld at base + 2*i (index form)", loop("ld32", 8, step=2, stride=2, form="idx"))
    out += entry(f, "ldidx_step3", "i = 0, 3, .., 21 (8 trips), ld at base + 4*i (index form: every third word)", loop("ld32", 8, step=3, form="idx"))
    out += entry(f, "ld_odd7_bound", "i = 0..7 with setp.lt 7 (7 trips), pointer steps by 4", loop("ld32", 7))
    # pragma nounroll
    out += entry(f, "ld_nounroll8", '.pragma "nounroll" in the loop header, 8 trips of ld.shared.b32 at base + 4*i', loop("ld32", 8, pragma=True))
    out += entry(f, "st_nounroll8", '.pragma "nounroll", 8 trips of st.shared.b32', loop("st32", 8, pragma=True))
    out += entry(f, "ld_nounroll64", '.pragma "nounroll", 64 trips of ld.shared.b32', loop("ld32", 64, pragma=True))
    # barriers
    out += entry(f, "ld_bar8", "8 trips: ld.shared.b32 at base + 4*i, then bar.sync 0", loop("ld32", 8, bar=True))
    out += entry(f, "st_bar8", "8 trips: st.shared.b32 at base + 4*i, then bar.sync 0", loop("st32", 8, bar=True))
    out += entry(f, "ld_bar64", "64 trips: ld.shared.b32 at base + 4*i, then bar.sync 0", loop("ld32", 64, bar=True))
    # top-tested loop (while form)
    b = prologue() + "	mov.u32 %r12, 0;\n	mov.u32 %r20, %r5;\nL:\n	setp.ge.u32 %p1, %r12, 8;\n	@%p1 bra E;\n" + \
        access("ld32", "%r20") + "	add.s32 %r20, %r20, 4;\n	add.s32 %r12, %r12, 1;\n	bra.uni L;\nE:\n"
    out += entry(f, "ld_while8", "top-tested loop (setp.ge; @p bra out; body; bra.uni top), 8 trips", b)
    # two arrays per iteration (matmul-like: a row and a column)
    b = prologue() + "	mov.u32 %r12, 0;\n	mov.u32 %r20, %r5;\n	shl.b32 %r21, %r2, 2;\n	add.s32 %r21, %r21, %r4;\n	add.s32 %r21, %r21, 8192;\nL:\n" + \
        access("ld32", "%r20") + "	ld.shared.b32 %r7, [%r21];\n	add.s32 %r10, %r10, %r7;\n" + \
        "	add.s32 %r20, %r20, 4;\n	add.s32 %r21, %r21, 128;\n	add.s32 %r12, %r12, 1;\n	setp.lt.u32 %p1, %r12, 32;\n	@%p1 bra L;\n"
    out += entry(f, "ld_rowcol32", "32 trips: a row (base + 4*i) and a column (col + 128*i, 4-aligned) per trip (matmul-like)", b)
    b = b.replace("setp.lt.u32 %p1, %r12, 32", "setp.lt.u32 %p1, %r12, 8")
    out += entry(f, "ld_rowcol8", "8 trips: a row (base + 4*i) and a column (col + 128*i) per trip", b)
    # a load and a store per trip
    b = prologue() + "	mov.u32 %r12, 0;\n	mov.u32 %r20, %r5;\nL:\n" + access("ld32", "%r20") + \
        "	st.shared.b32 [%r20+8192], %r10;\n	add.s32 %r20, %r20, 4;\n	add.s32 %r12, %r12, 1;\n	setp.lt.u32 %p1, %r12, 8;\n	@%p1 bra L;\n"
    out += entry(f, "ldst8", "8 trips: ld base + 4*i, then st base + 8192 + 4*i", b)
    # nested loops
    for to, ti in [(2, 4), (4, 4), (4, 8), (8, 8), (16, 16), (4, 32)]:
        b = prologue() + "	mov.u32 %r22, 0;\nLO:\n	mov.u32 %r12, 0;\nL:\n" + \
            f"	mad.lo.s32 %r13, %r22, {ti}, %r12;\n	shl.b32 %r13, %r13, 2;\n	add.s32 %r14, %r5, %r13;\n" + access("ld32", "%r14") + \
            f"	add.s32 %r12, %r12, 1;\n	setp.lt.u32 %p1, %r12, {ti};\n	@%p1 bra L;\n" + \
            f"	add.s32 %r22, %r22, 1;\n	setp.lt.u32 %p2, %r22, {to};\n	@%p2 bra LO;\n"
        out += entry(f, f"nest_{to}x{ti}", f"nested: outer {to} (constant), inner {ti} (constant), ld at base + 4*(o*{ti} + i)", b)
    b = prologue() + "	mov.u32 %r22, 0;\nLO:\n	mov.u32 %r12, 0;\nL:\n" + \
        "	shl.b32 %r13, %r12, 2;\n	add.s32 %r14, %r5, %r13;\n" + access("ld32", "%r14") + \
        "	add.s32 %r12, %r12, 1;\n	setp.lt.u32 %p1, %r12, 8;\n	@%p1 bra L;\n	bar.sync 0;\n" + \
        "	add.s32 %r22, %r22, 1;\n	setp.lt.u32 %p2, %r22, %r11;\n	@%p2 bra LO;\n"
    out += entry(f, "nest_param_x8", f"nested: outer n (a parameter, n = {N_ARG}) with bar.sync, inner 8 (constant) ld at base + 4*i", b)
    b = prologue() + "	mov.u32 %r22, 0;\nLO:\n	mov.u32 %r12, 0;\n	shl.b32 %r23, %r22, 4;\n	add.s32 %r24, %r5, %r23;\nL:\n" + \
        "	shl.b32 %r13, %r12, 2;\n	add.s32 %r14, %r24, %r13;\n" + access("ld32", "%r14") + \
        "	add.s32 %r12, %r12, 1;\n	setp.lt.u32 %p1, %r12, %r11;\n	@%p1 bra L;\n" + \
        "	add.s32 %r22, %r22, 1;\n	setp.lt.u32 %p2, %r22, 4;\n	@%p2 bra LO;\n"
    out += entry(f, "nest_4_xparam", f"nested: outer 4 (constant), inner n (a parameter, n = {N_ARG})", b)
    return out


def gen_bodies():
    """Body size: k extra arithmetic instructions per trip."""
    f = "bodies.ptx"
    out = HEAD + ".shared .align 16 .b8 sm[16384];\n"
    for t in [4, 8, 16, 32, 64]:
        for k in [2, 8, 16, 32, 64, 128, 256]:
            if t * k > 8192:
                continue
            out += entry(f, f"ld_t{t}_k{k}", f"{t} trips: ld.shared.b32 at base + 4*i and {k} arithmetic instructions", loop("ld32", t, extra=k))
    for t in [8, 32]:
        for k in [16, 64, 128]:
            out += entry(f, f"st_t{t}_k{k}", f"{t} trips: st.shared.b32 at base + 4*i and {k} arithmetic instructions", loop("st32", t, extra=k))
    return out


def skip(k, store=False, arm="alu", first="ld32"):
    """Two accesses at +0 and +4 around a branch over `k` instructions."""
    b = prologue() + "	ld.global.u32 %r30, [%rd3+256];\n	mov.u32 %r12, 1;\n"
    b += access("st32" if store else "ld32", "%r5")
    b += "	setp.ne.u32 %p1, %r30, 5;\n	@%p1 bra S;\n"
    for j in range(k):
        if arm == "alu":
            b += "	mul.lo.u32 %r12, %r12, %r30;\n" if j % 2 == 0 else "	add.s32 %r12, %r12, %r30;\n"
        else:
            b += f"	st.global.u32 [%rd3+{512 + 4 * j}], %r30;\n"
    b += "S:\n" + access("st32" if store else "ld32", "%r5+4") + "	add.s32 %r10, %r10, %r12;\n"
    return b


def gen_unsettled():
    f = "unsettled.ptx"
    out = HEAD + ".shared .align 16 .b8 sm[16384];\n"
    for k in [2, 4, 5, 6, 8, 10, 12, 16, 24, 32]:
        out += entry(f, f"skip_alu{k}", f"ld +0; @p bra over {k} arithmetic instructions (p data-dependent); ld +4", skip(k))
    for k in [1, 2, 4, 5, 8]:
        out += entry(f, f"skip_stg{k}", f"ld +0; @p bra over {k} global stores; ld +4", skip(k, arm="stg"))
    for k in [2, 5, 8]:
        out += entry(f, f"stskip_alu{k}", f"st +0; @p bra over {k} arithmetic instructions; st +4", skip(k, store=True))
    mixed = {
        "mix_32_32_64": [("st32", 0), ("st32", 4), ("st64", 8)],
        "mix_64_32_32": [("st64", 0), ("st32", 8), ("st32", 12)],
        "mix_32_64_32": [("st32", 0), ("st64", 8), ("st32", 4)],
        "mix_v2_32_32": [("stv2", 0), ("st32", 8), ("st32", 12)],
        "mix_32_32_v2": [("st32", 0), ("st32", 4), ("stv2", 8)],
        "mix_64_v2": [("st64", 0), ("stv2", 8)],
        "mix_16_16_32": [("st16", 0), ("st16", 2), ("st32", 4)],
        "mix_32_16_16": [("st32", 0), ("st16", 4), ("st16", 6)],
        "mix_16x2_32_64": [("st16", 0), ("st16", 2), ("st32", 4), ("st64", 8)],
        "mix_32_16_16_64": [("st32", 0), ("st16", 4), ("st16", 6), ("st64", 8)],
        "mix_64_32": [("st64", 0), ("st32", 8)],
        "mix_32_32_32_v2_32": [("st32", 0), ("st32", 4), ("st32", 8), ("stv2", 16), ("st32", 24)],
        "mixld_32_32_64": [("ld32", 0), ("ld32", 4), ("ld64", 8)],
        "mixld_64_32": [("ld64", 0), ("ld32", 8)],
    }
    for name, parts in mixed.items():
        b = prologue() + "	add.s32 %r12, %r1, 7;\n"
        for kind, off in parts:
            b += access(kind, f"%r5+{off}")
        out += entry(f, name, "; ".join(f"{k} +{o}" for k, o in parts) + " (base 16-aligned)", b)
    return out


def gen_packed():
    """Variables packed into one 16-byte chunk; each kernel uses all of them."""
    out = HEAD + ".shared .align 16 .b8 pa[8];\n.shared .align 8 .b8 pb[8];\n"
    f = "packed.ptx"

    def pk(name, what, accs):
        b = prologue().replace("mov.u32 %r4, sm;", "mov.u32 %r4, pa;") + "	add.s32 %r12, %r1, 7;\n	mov.u32 %r25, pa;\n	mov.u32 %r26, pb;\n"
        for kind, addr in accs:
            b += access(kind, addr)
        return entry(f, name, what, b)
    out += pk("pk_ld_sym", "pa (.align 16, 8 bytes) at 0, pb (.align 8) at 8: ld [pa], [pa+4], [pb], [pb+4]",
              [("ld32", "pa"), ("ld32", "pa+4"), ("ld32", "pb"), ("ld32", "pb+4")])
    out += pk("pk_ld_reg", "the same through registers (mov.u32 r, pa; mov.u32 s, pb)",
              [("ld32", "%r25"), ("ld32", "%r25+4"), ("ld32", "%r26"), ("ld32", "%r26+4")])
    out += pk("pk_st_sym", "st [pa], [pa+4], [pb], [pb+4]",
              [("st32", "pa"), ("st32", "pa+4"), ("st32", "pb"), ("st32", "pb+4")])
    out += pk("pk_st_reg", "st through registers of pa, pb",
              [("st32", "%r25"), ("st32", "%r25+4"), ("st32", "%r26"), ("st32", "%r26+4")])
    out += pk("pk_ld_3", "ld [pa], [pa+4], [pb] (three words over two variables)",
              [("ld32", "pa"), ("ld32", "pa+4"), ("ld32", "pb")])
    out += pk("pk_ld_a4_b0", "ld [pa+4], [pb] (two words over two variables, not one half)",
              [("ld32", "pa+4"), ("ld32", "pb")])
    out += pk("pk_st_64_64", "st.b64 [pa], st.b64 [pb]", [("st64", "pa"), ("st64", "pb")])
    out += pk("pk_ld_64_64", "ld.b64 [pa], ld.b64 [pb]", [("ld64", "pa"), ("ld64", "pb")])
    # four .align 4 words
    out += ".shared .align 16 .b8 qa[4];\n.shared .align 4 .b8 qb[4];\n.shared .align 4 .b8 qc[4];\n.shared .align 4 .b8 qd[4];\n"

    def pq(name, what, accs):
        b = prologue().replace("mov.u32 %r4, sm;", "mov.u32 %r4, qa;") + "	add.s32 %r12, %r1, 7;\n"
        for kind, addr in accs:
            b += access(kind, addr)
        return entry(f, name, what, b)
    out += pq("pk4_ld", "qa (.align 16), qb, qc, qd (.align 4, 4 bytes each; at 0, 4, 8, 12): ld each",
              [("ld32", "qa"), ("ld32", "qb"), ("ld32", "qc"), ("ld32", "qd")])
    out += pq("pk4_st", "st to qa, qb, qc, qd", [("st32", "qa"), ("st32", "qb"), ("st32", "qc"), ("st32", "qd")])
    out += pq("pk4_ld_ab", "ld qa, qb (one 8-byte half, two variables)", [("ld32", "qa"), ("ld32", "qb")])
    out += pq("pk4_st_ab", "st qa, qb", [("st32", "qa"), ("st32", "qb")])
    return out


def gen_limits():
    """Round 2: trip counts past 256, the body-size limit between 64 and
    128, store loops whose arithmetic cannot fold, a bound held in a
    register, mixed-width stores of distinct values."""
    f = "limits.ptx"
    out = HEAD + ".shared .align 16 .b8 sm[40960];\n"
    for t in [257, 320, 384, 512, 1024, 2048]:
        out += entry(f, f"ld_t{t}", f"ld.shared.b32 at base + 4*i, {t} trips (constant)", loop("ld32", t))
        out += entry(f, f"st_t{t}", f"st.shared.b32 at base + 4*i, {t} trips (constant)", loop("st32", t))
    for t in [512, 1024]:
        out += entry(f, f"ldv2_t{t}", f"ld.shared.v2.b32 at base + 8*i, {t} trips", loop("ldv2", t, stride=8))
    for t, k in [(4, 72), (4, 80), (4, 88), (4, 96), (4, 104), (4, 112), (4, 120), (2, 128), (2, 256),
                 (8, 40), (8, 48), (8, 56), (16, 40), (16, 48), (3, 100), (3, 128)]:
        out += entry(f, f"ld_t{t}_k{k}", f"{t} trips: ld.shared.b32 at base + 4*i and {k} arithmetic instructions", loop("ld32", t, extra=k))
    # stores whose arithmetic cannot fold: the chain starts from a global load
    for t, k in [(4, 64), (4, 128), (8, 32), (8, 64), (8, 128), (32, 16), (32, 32)]:
        b = loop("st32", t, extra=k).replace("	mov.u64 %rd6, 0;\n", "	mov.u64 %rd6, 0;\n	ld.global.u32 %r10, [%rd3+256];\n", 1)
        out += entry(f, f"stu_t{t}_k{k}", f"{t} trips: st.shared.b32 at base + 4*i and {k} arithmetic instructions on a value from global memory", b)
    b = loop("ld32", 8, bound="%r31").replace("	mov.u64 %rd6, 0;\n", "	mov.u64 %rd6, 0;\n	mov.u32 %r31, 8;\n", 1)
    out += entry(f, "ld_regbound8", "8 trips, the bound 8 held in a register (mov.u32 r, 8 before the loop)", b)
    b = loop("ld32", 32, bound="%r31").replace("	mov.u64 %rd6, 0;\n", "	mov.u64 %rd6, 0;\n	mov.u32 %r31, 32;\n", 1)
    out += entry(f, "ld_regbound32", "32 trips, the bound in a register", b)
    # mixed-width stores of distinct values (a, b, c, d computed from tid)
    vals = "	add.s32 %r40, %r1, 11;\n	add.s32 %r41, %r1, 22;\n	add.s32 %r42, %r1, 33;\n	add.s32 %r43, %r1, 44;\n	cvt.u64.u32 %rd10, %r40;\n	cvt.u64.u32 %rd11, %r42;\n"
    st = {
        "v2": lambda o, a, b: f"	st.shared.v2.b32 [%r5+{o}], {{{a}, {b}}};\n",
        "32": lambda o, a, b=None: f"	st.shared.b32 [%r5+{o}], {a};\n",
        "64": lambda o, a, b=None: f"	st.shared.b64 [%r5+{o}], {a};\n",
    }
    mixd = {
        "mixd_v2_32_32": [("v2", 0, "%r40", "%r41"), ("32", 8, "%r42"), ("32", 12, "%r43")],
        "mixd_32_32_v2": [("32", 0, "%r40"), ("32", 4, "%r41"), ("v2", 8, "%r42", "%r43")],
        "mixd_64_32_32": [("64", 0, "%rd10"), ("32", 8, "%r42"), ("32", 12, "%r43")],
        "mixd_32_32_64": [("32", 0, "%r40"), ("32", 4, "%r41"), ("64", 8, "%rd11")],
        "mixd_v2_v2": [("v2", 0, "%r40", "%r41"), ("v2", 8, "%r42", "%r43")],
        "mixd_v2_64": [("v2", 0, "%r40", "%r41"), ("64", 8, "%rd11")],
        "mixd_64_v2": [("64", 0, "%rd10"), ("v2", 8, "%r42", "%r43")],
        "mixd_v2hi_32_32": [("v2", 8, "%r42", "%r43"), ("32", 0, "%r40"), ("32", 4, "%r41")],
        "mixd_32_v2_32": [("32", 0, "%r40"), ("v2", 8, "%r42", "%r43"), ("32", 4, "%r41")],
        "mixd_v2_32": [("v2", 0, "%r40", "%r41"), ("32", 8, "%r42")],
        "mixd_32_32_32_32": [("32", 0, "%r40"), ("32", 4, "%r41"), ("32", 8, "%r42"), ("32", 12, "%r43")],
    }
    for name, parts in mixd.items():
        b = prologue() + vals
        for p in parts:
            b += st[p[0]](p[1], *p[2:])
        out += entry(f, name, "; ".join(f"st{p[0]} +{p[1]}" for p in parts) + " (distinct values, base 16-aligned)", b)
    return out


def main():
    d = Path(sys.argv[1])
    d.mkdir(parents=True, exist_ok=True)
    for name, gen in [("loops", gen_loops), ("shapes", gen_shapes), ("bodies", gen_bodies),
                      ("unsettled", gen_unsettled), ("packed", gen_packed), ("limits", gen_limits)]:
        text = gen()
        (d / f"{name}.ptx").write_text(
            f"// Generated by tools/device/unroll_probes.py (issue 22); do not edit.\n"
            f"//   ptxas -arch=sm_90 -v {name}.ptx -o {name}.cubin && cuobjdump -sass {name}.cubin\n" + text)
    (d / "kernels.json").write_text(json.dumps(KERNELS, indent=1) + "\n")
    print(len(KERNELS), "kernels")


if __name__ == "__main__":
    main()
