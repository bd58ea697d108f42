"""Triton 3.6 kernels on sm_90 that move shared data with wgmma, cp.async, TMA and
mbarriers (issue 34's "done when"): the tutorial matmul (pointer loads: cp.async +
wgmma), the same matmul through host TensorDescriptors (TMA + mbarrier + wgmma), and a
fused attention forward through TensorDescriptors, each launched once on seeded inputs.

    python3 triton_hopper.py [OUTDIR|-] [NAME...]

With OUTDIR, each kernel's PTX, TTGIR, TTIR, cache metadata, SASS and launch.json go to
OUTDIR/<name>/ (as tests/data/ptx/triton_fixtures.py writes them), launch.json with
"python_args": the Python-level arguments, tensor descriptors as their fields.
"""
import json
import os
import sys
import traceback

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/data/ptx"))
import triton_fixtures as fx  # noqa: E402


@triton.jit
def fx_h_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr):
    fx._matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


@triton.jit
def fx_h_matmul_tma(a_desc, b_desc, c_desc, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@triton.jit
def fx_h_attention(q_desc, k_desc, v_desc, o_desc, sm_scale, N_CTX,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # A flash-attention forward (online softmax), one (batch*head, query block) per program,
    # Q, K, V, O as 2-D (batch*heads*N_CTX, HEAD_DIM) tensor descriptors.
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = off_hz * N_CTX
    q = q_desc.load([base + start_m * BLOCK_M, 0])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        k = k_desc.load([base + start_n, 0])
        qk = tl.dot(q, k.T)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = v_desc.load([base + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([base + start_m * BLOCK_M, 0], acc.to(tl.float16))


def desc_fields(d, init):
    t = d.base
    return {"tensor_descriptor": True, "shape": [int(x) for x in d.shape], "strides": [int(x) for x in d.strides],
            "block_shape": [int(x) for x in d.block_shape], "dtype": str(t.dtype).replace("torch.", ""),
            "element_size": t.element_size(), "bytes": t.numel() * t.element_size(), "init": init,
            "padding": str(getattr(d, "padding", ""))}


def run_matmul():
    M = N = K = 512
    a = fx.gen(11, M, K, dtype=torch.float16)
    b = fx.gen(12, K, N, dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    BM, BN, BK, G = 128, 128, 64, 8
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    k = fx_h_matmul[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                          BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=G, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    ok = torch.allclose(c.float(), a.float() @ b.float(), atol=0.2, rtol=0.02)
    args = [("a_ptr", a, "fp16 torch.randn(512, 512), seed 11"), ("b_ptr", b, "fp16 torch.randn(512, 512), seed 12"),
            ("c_ptr", c, "output"), ("M", M, None), ("N", N, None), ("K", K, None),
            ("stride_am", a.stride(0), None), ("stride_bk", b.stride(0), None), ("stride_cm", c.stride(0), None)]
    return k, grid, args, {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK, "GROUP_M": G}, ok


def run_matmul_tma():
    M = N = K = 512
    a = fx.gen(13, M, K, dtype=torch.float16)
    b = fx.gen(14, K, N, dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    BM, BN, BK = 128, 128, 64
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b, [BK, BN])
    cd = TensorDescriptor.from_tensor(c, [BM, BN])
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    k = fx_h_matmul_tma[grid](ad, bd, cd, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    ok = torch.allclose(c.float(), a.float() @ b.float(), atol=0.2, rtol=0.02)
    args = [("a_desc", desc_fields(ad, "fp16 torch.randn(512, 512), seed 13"), None),
            ("b_desc", desc_fields(bd, "fp16 torch.randn(512, 512), seed 14"), None),
            ("c_desc", desc_fields(cd, "output"), None), ("M", M, None), ("N", N, None), ("K", K, None)]
    return k, grid, args, {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK}, ok


def run_attention():
    Z, H, N_CTX, D = 1, 2, 512, 64
    q = fx.gen(15, Z * H * N_CTX, D, dtype=torch.float16)
    kk = fx.gen(16, Z * H * N_CTX, D, dtype=torch.float16)
    v = fx.gen(17, Z * H * N_CTX, D, dtype=torch.float16)
    o = torch.empty_like(q)
    BM, BN = 128, 64
    qd = TensorDescriptor.from_tensor(q, [BM, D])
    kd = TensorDescriptor.from_tensor(kk, [BN, D])
    vd = TensorDescriptor.from_tensor(v, [BN, D])
    od = TensorDescriptor.from_tensor(o, [BM, D])
    scale = 0.125
    grid = (N_CTX // BM, Z * H)
    k = fx_h_attention[grid](qd, kd, vd, od, scale, N_CTX, BLOCK_M=BM, BLOCK_N=BN, HEAD_DIM=D,
                             num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    ref = torch.cat([torch.softmax((q[i*N_CTX:(i+1)*N_CTX].float() @ kk[i*N_CTX:(i+1)*N_CTX].float().T) * scale, 1)
                     @ v[i*N_CTX:(i+1)*N_CTX].float() for i in range(Z * H)])
    ok = torch.allclose(o.float(), ref, atol=2e-2, rtol=2e-2)
    args = [("q_desc", desc_fields(qd, "fp16 torch.randn(1024, 64), seed 15"), None),
            ("k_desc", desc_fields(kd, "fp16 torch.randn(1024, 64), seed 16"), None),
            ("v_desc", desc_fields(vd, "fp16 torch.randn(1024, 64), seed 17"), None),
            ("o_desc", desc_fields(od, "output"), None), ("sm_scale", scale, None), ("N_CTX", N_CTX, None)]
    return k, grid, args, {"BLOCK_M": BM, "BLOCK_N": BN, "HEAD_DIM": D}, ok


FIXTURES = {"triton_h_matmul": run_matmul, "triton_h_matmul_tma": run_matmul_tma,
            "triton_h_attention": run_attention}


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "-" else None
    names = sys.argv[2:] or list(FIXTURES)
    for name in names:
        try:
            k, grid, args, cx, ok = FIXTURES[name]()
            print(f"FXCHECK {name} {'ok' if ok else 'MISMATCH'}", flush=True)
            if outdir:
                py = [{"name": n, **(v if isinstance(v, dict) else
                                     {"tensor": True, "dtype": str(v.dtype), "shape": list(v.shape), "init": i}
                                     if isinstance(v, torch.Tensor) else {"value": v})} for n, v, i in args]
                plain = [(n, (None if isinstance(v, dict) else v), i) for n, v, i in args]
                try:
                    fx.dump(outdir, name, k, grid, plain, cx)
                except Exception:
                    traceback.print_exc()
                lj = os.path.join(outdir, name, "launch.json")
                launch = json.load(open(lj)) if os.path.exists(lj) else {}
                launch["python_args"] = py
                launch["note"] = ("args are mapped by index onto the PTX parameters; with tensor descriptors "
                                  "that mapping is wrong (each descriptor is several parameters): use python_args")
                os.makedirs(os.path.join(outdir, name), exist_ok=True)
                json.dump(launch, open(lj, "w"), indent=1)
        except Exception:
            print(f"FXFAIL {name}", flush=True)
            traceback.print_exc()


if __name__ == "__main__":
    main()
