"""Issue 35's Triton launches at 4096^3, as `smem kernel` runs them (README speed table):
the fixture matmul (cp.async + mma.sync, 64x64x32 tiles, 4 warps: 4,096 blocks) and the
sm_90 matmul (wgmma, 128x128x64 tiles: 1,024 blocks), each launched once on seeded fp16
inputs after a warm-up launch that compiles it.

    python3 triton_4096.py [matmul|h_matmul]...
"""
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../../tests/data/ptx"))
sys.path.insert(0, os.path.join(HERE, "../s4"))
import triton_fixtures as fx  # noqa: E402
import triton_hopper as th  # noqa: E402

M = N = K = 4096
SHAPES = {"matmul": (fx.fx_matmul, 64, 64, 32), "h_matmul": (th.fx_h_matmul, 128, 128, 64)}


def launch(name):
    fn, bm, bn, bk = SHAPES[name]
    a = fx.gen(4, M, K, dtype=torch.float16)
    b = fx.gen(5, K, N, dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    fn[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
             BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    print(name, "grid", grid, "ok", torch.allclose(c[:64, :64].float(), (a[:64].float() @ b[:, :64].float()), atol=0.5, rtol=0.05))


for name in sys.argv[1:] or list(SHAPES):
    launch(name)
