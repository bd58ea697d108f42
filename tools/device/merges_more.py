"""Writes tests/data/ptx/ptxas_merging_more/merges.json from the SASS the
device gave (cuobjdump -sass of ptxas_merging_more.cu's cubin and of
probes.ptx's): each probe kernel's shared instructions, with what its PTX does.

    python3 tools/device/merges_more.py tests/data/ptx/ptxas_merging_more
"""
import json
import re
import sys
from pathlib import Path

PTX = {
    # ptxas_merging_more.cu (nvcc -arch=sm_90 -lineinfo -cubin; inline PTX)
    "ld_w02": "ld.shared.b32 at base+0,+8 (base 16-aligned)",
    "ld_w03": "ld.shared.b32 at +0,+12",
    "ld_w13": "ld.shared.b32 at +4,+12",
    "ld_w23": "ld.shared.b32 at +8,+12",
    "ld_w013": "ld.shared.b32 at +0,+4,+12",
    "ld_w023": "ld.shared.b32 at +0,+8,+12",
    "ld_w123": "ld.shared.b32 at +4,+8,+12",
    "ld_rev4": "ld.shared.b32 at +12,+8,+4,+0 (in that order)",
    "ld_span": "ld.shared.b32 at +12,+16 (two 16-byte chunks)",
    "ld_w0_w4": "ld.shared.b32 at +0,+16",
    "ld6": "ld.shared.b32 at +0..+20",
    "ld_far": "ld.shared.b32 at +0..+12 and +512,+516",
    "ld_sep4": "ld.shared.b32 [r+0] with r = base, base+4, base+8, base+12 in registers of their own (add.s32)",
    "ld8b_2": "ld.shared.b32 at +0,+4, base only 8-aligned ((tid&15)<<3)",
    "ld8b_3": "ld.shared.b32 at +0,+4,+8, base 8-aligned",
    "ld8b_4": "ld.shared.b32 at +0..+12, base 8-aligned",
    "ld4_mul48": "base = sm + (tid&3)*48 (mul.lo)",
    "ld4_xor": "base = sm + (((tid&7) ^ ((tid>>3)&7)) << 4)",
    "ld4_t16": "base = sm + tid*16",
    "ld4_param16": "base = sm + 16*k, k a parameter",
    "ld2_param8": "base = sm + 8*k + 8, two loads",
    "ld4_and": "base = sm + ((tid*4) & ~15)",
    "ld4_shr": "base = sm + ((tid>>2) << 4)",
    "ld_placed0": "s4 (.align 4) alone (nvcc removed padw: its stores were dead), loads +0..+12",
    "ld_placed12": "s4 alone, loads +12..+24",
    "ld_s4_alone": "s4 (.align 4, placed at 0), loads +0..+12",
    "ld4_dyn16": "extern .align 16 dynamic array, loads +0..+12",
    "ld4_dyn4": "extern array declared without __align__ (nvcc emitted .align 16 for every extern), loads +0..+12",
    "ld4_dyn4_pad": "as ld4_dyn4 (padw removed by nvcc)",
    "ld4_dyn16_pad": "as ld4_dyn16 (padw removed by nvcc)",
    "ld16_2": "ld.shared.u16 at +0,+2",
    "ld16_4": "ld.shared.u16 at +0..+6",
    "ld16_8": "ld.shared.u16 at +0..+14",
    "ld8_4": "ld.shared.u8 at +0..+3",
    "ld64_2": "ld.shared.b64 at +0,+8",
    "ld64_off8": "ld.shared.b64 at +8,+16",
    "ldv2_2": "ld.shared.v2.b32 at +0,+8",
    "ldv2_b32": "ld.shared.v2.b32 at +0, ld.shared.b32 at +8,+12",
    "ld_volatile4": "ld.volatile.shared.b32 at +0..+12",
    "st3": "st.shared.b32 at +0,+4,+8",
    "st_w02": "st.shared.b32 at +0,+8",
    "st_w123": "st.shared.b32 at +4,+8,+12",
    "st_rev4": "st.shared.b32 at +12,+8,+4,+0",
    "st8": "st.shared.b32 at +0..+28",
    "st8b_4": "st.shared.b32 at +0..+12, base 8-aligned",
    "st16_2": "st.shared.u16 at +0,+2",
    "st16_4": "st.shared.u16 at +0..+6",
    "st64_2": "st.shared.b64 at +0,+8",
    "stv2_2": "st.shared.v2.b32 at +0,+8",
    "st4_unknown": "st.shared.b32 at +0..+12, base = sm + 4*k",
    "ld_st_ld": "ld +0; st.shared +64; ld +4",
    "st_ld_st": "st +0; ld.shared +64; st +4",
    "ld_bar_ld": "ld +0; bar.sync; ld +4",
    "st_bar_st": "st +0; bar.sync; st +4",
    "ld_branch_ld": "ld +0; a branch around a global store; ld +4",
    "ld_fence_ld": "ld +0; membar.cta; ld +4",
    "ld_guard_same": "@p ld +0; @p ld +4 (p set in the same asm block)",
    "ld_guard_diff": "@p ld +0; @q ld +4",
    # probes.ptx (ptxas -arch=sm_90 -v)
    "p_s4_alone": "s4 (.align 4) the only variable (placed at 0), loads +0..+12",
    "p_s4_pad0": "padw (4 bytes) then s4 (.align 4, placed at 4: SASS adds 0x4), loads s4+16k+0..+12",
    "p_s4_pad12": "s4 placed at 4, loads s4+16k+12..+24 (16-aligned addresses, if the exact offset were used)",
    "p_dyn4_alone": ".extern .shared .align 4 dyn4[] alone, loads +0..+12",
    "p_dyn4_pad0": "padw then dyn4 (.align 4): ptxas -v says 16 bytes smem; loads dyn4+16k+0..+12",
    "p_dyn4_pad12": "padw then dyn4, loads +12..+24",
    "p_selp": "base = selp(s4+16, s4+64, p), loads +0..+12",
    "p_loop": "a loop whose base steps by 16 (ptxas unrolled it by 4)",
    "p_st8_4": "st.shared.u8 at +0..+3",
    "p_st8_2": "st.shared.u8 at +0,+1",
    "p_st16_off2": "st.shared.u16 at +2,+4",
    "p_st16_8": "st.shared.u16 at +0..+14",
    "p_ldv2_b32_3": "ld.shared.v2.b32 at +0, ld.shared.b32 at +8 (three words)",
    "p_ld_stglobal_ld": "ld.shared +0; st.global; ld.shared +4",
    "p_guard_same": "@p ld +0; @p ld +4, p computed before",
    "p_guard_st": "@p st +0; @p st +4",
    "q_t4_at16": "t4 (.align 4) placed at 16 after p16 (SASS adds 0x10), loads +0..+12",
    "q_u4_at8": "u4 (.align 4) placed at 8 after p8 (SASS adds 0x8), loads +0..+12",
    "q_u4_at8_off8": "u4 at 8, loads +8..+20 (16-aligned addresses, if the exact offset were used)",
    # branches.ptx (ptxas -arch=sm_90 -v)
    "b1_ld_skip": "ld +0; @p bra L over a global store (p from a global load); L: ld +4",
    "b2_ld_diamond": "ld +0; if/else with a global store on each side; ld +4",
    "b3_st_skip": "st +0; @p bra L over a global store; L: st +4",
    "b4_ld_skip_st_other": "ld +0; @p bra L over a shared store to another array; L: ld +4",
    "b5_ld_skip_ld": "ld +0; @p bra L over ld +8; L: ld +4",
    "b6_ld_skip_param": "ld +0; @p bra.uni L over a global store (p from a parameter); L: ld +4",
    "b7_ld_skip_alu": "ld +0; @p bra L over a mul.lo; L: ld +4, +8, +12",
    "b8_loop_top_bottom": "a loop: ld +0 at its top, ld +4 at its bottom (ptxas unrolled it by 4)",
    # loops.ptx (ptxas -arch=sm_90 -v)
    "l1_step4_param": "a loop of n iterations (n a parameter), ld [base], base += 4 (ptxas unrolled it by 4, not merged)",
    "l2_step4_const8": "a loop of 8 iterations, ld [base], base += 4 (ptxas unrolled it fully and merged: 2 LDS.128)",
    "l3_index_const8": "a loop of 8 iterations, ld [base + 4*i] (unrolled fully and merged: 2 LDS.128)",
    "l4_store_step4_const8": "a loop of 8 iterations, st [base], base += 4 (unrolled fully and merged: 2 STS.128)",
}


def shared_sass(path):
    out, cur = {}, None
    for line in Path(path).read_text().splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if m and cur and re.search(r"\b(LDS|STS|BAR|MEMBAR)", m.group(1)):
            out[cur].append(re.sub(r"\s+", " ", m.group(1)))
    return out


def main():
    d = Path(sys.argv[1])
    sass = shared_sass(d / "kernel.sass")
    sass.update(shared_sass(d / "probes.sass"))
    sass.update(shared_sass(d / "branches.sass"))
    sass.update(shared_sass(d / "loops.sass"))
    missing = sorted(set(PTX) ^ set(sass))
    if missing:
        sys.exit(f"kernels without a description or SASS: {missing}")
    doc = {
        "gpu": "none needed (compile only); the device machine's NVIDIA H200 host",
        "nvcc": "Cuda compilation tools, release 13.0, V13.0.88",
        "arch": "sm_90",
        "how": "ptxas_merging_more.cu: nvcc -arch=sm_90 -lineinfo -cubin -Xptxas -v; probes.ptx: "
               "ptxas -arch=sm_90 -v, branches.ptx and loops.ptx likewise; all: cuobjdump -sass (tools/device/ptx2.sh). Bases are "
               "symbol + (tid-derived multiple of 16) unless the entry says otherwise. 'sass' lists "
               "the kernel's shared-memory instructions (LDS/STS) and barriers in SASS order.",
        "kernels": {k: {"ptx": PTX[k], "sass": sass[k]} for k in sorted(PTX)},
    }
    (d / "merges.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
