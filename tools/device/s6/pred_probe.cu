// Issue 34, session 6 (lead): which lanes Nsight Compute's instrumented LDGSTS counters count for a
// *predicated* cp.async.cg (LDGSTS.E.BYPASS.128). Session 5 saw: `@P0` with every lane on counted 0
// (cgP), `@P1` with every lane on counted right (cgP16), `@!P0` with lanes 0-15 on counted all 32
// (cgHalf), and globalToShmemAsyncCopy kernel 0 (`@!P0`, addresses computed under the guard) counted
// more than its lanes and differently between runs. Hypothesis: the instrumentation clobbers P0.
// Each lane reads its own global line (128 B apart), so with distinct addresses the wavefront and
// sector counts are the number of lanes counted. `on[lane]` (from memory) decides the guard.
//   ./pred_probe   one launch per case, the case list on stdout (index = ncu ID)
// Build: nvcc -arch=sm_90 -lineinfo
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// SASS (nvcc 13, sm_90; checked with cuobjdump): V 0 `@P0`; 1 a branch around an unpredicated copy;
// 2 `@P0` with a second predicate live; 3 `@!P0` (an or.pred guard);
// 4 four copies `@P3 @P0 @P1 @P2` (guards: on != 0, on & 2, on & 4, on & 8; +1 KiB shared, +8 KiB
// global each);
// 5 `@P0`, the off lanes' address registers holding one other address (a select); 6 the same `@!P0`;
// 7 and 8: 0 and 3 with cp.async.ca (LDGSTS.E.128); 9: four unguarded copies with a src-size register
// each (16 where V 4's guard is on, else 0: SASS `LDGSTS.E.BYPASS.128 [..], [..], Px`, Triton's form).
template <int V>
__global__ void pk(const int* on, const unsigned char* g, int* sink, int reps) {
  extern __shared__ __align__(1024) unsigned char sm[];
  const int lane = threadIdx.x & 31;
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(sm);
  const uint32_t dst = base + lane * 16;
  const unsigned char* src = g + (long long)lane * 128;
  const int o = on[lane], k = on[32 + lane];
#pragma unroll 1
  for (int rep = 0; rep < reps; rep++) {
  if (V == 0)
    asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p cp.async.cg.shared.global [%0], [%1], 16; }" ::"r"(dst), "l"(src), "r"(o) : "memory");
  if (V == 1)
    asm volatile("{ .reg .pred p, q, r; setp.eq.s32 p, %2, 0; setp.gt.s32 q, %3, 5; or.pred r, p, q; @!r cp.async.cg.shared.global [%0], [%1], 16; }" ::"r"(dst), "l"(src), "r"(o), "r"(rep) : "memory");
  if (V == 2 || V == 3) {
    int r;
    if (V == 2)
      asm volatile("{ .reg .pred q, p; setp.ne.s32 q, %4, 0; setp.ne.s32 p, %3, 0; @p cp.async.cg.shared.global [%1], [%2], 16; selp.b32 %0, 1, 2, q; }"
                   : "=r"(r) : "r"(dst), "l"(src), "r"(o), "r"(k) : "memory");
    else
      asm volatile("{ .reg .pred q, p, t, u; setp.ne.s32 q, %4, 0; setp.eq.s32 p, %3, 0; setp.gt.s32 t, %5, 5; or.pred u, p, t; @!u cp.async.cg.shared.global [%1], [%2], 16; selp.b32 %0, 1, 2, q; }"
                   : "=r"(r) : "r"(dst), "l"(src), "r"(o), "r"(k), "r"(rep) : "memory");
    sink[threadIdx.x] = r;
  }
  if (V == 4)
    asm volatile("{ .reg .pred a, b, c, d; setp.ne.s32 a, %2, 0; setp.ne.s32 b, %3, 0; setp.ne.s32 c, %4, 0; setp.ne.s32 d, %5, 0;\n"
                 "@a cp.async.cg.shared.global [%0], [%1], 16;\n@b cp.async.cg.shared.global [%0+1024], [%1+8192], 16;\n"
                 "@c cp.async.cg.shared.global [%0+2048], [%1+16384], 16;\n@d cp.async.cg.shared.global [%0+3072], [%1+24576], 16; }"
                 ::"r"(dst), "l"(src), "r"(o), "r"(o & 2), "r"(o & 4), "r"(o & 8) : "memory");
  if (V == 5 || V == 6) {
    const uint32_t d2 = o ? dst : base + 8192;
    const unsigned char* s2 = o ? src : g + (1 << 20);
    if (V == 5)
      asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p cp.async.cg.shared.global [%0], [%1], 16; }" ::"r"(d2), "l"(s2), "r"(o) : "memory");
    else
    {
      int r;
      asm volatile("{ .reg .pred q, p, t, u; setp.ne.s32 q, %4, 0; setp.eq.s32 p, %3, 0; setp.gt.s32 t, %5, 5; or.pred u, p, t; @!u cp.async.cg.shared.global [%1], [%2], 16; selp.b32 %0, 1, 2, q; }"
                   : "=r"(r) : "r"(d2), "l"(s2), "r"(o), "r"(k), "r"(rep) : "memory");
      sink[threadIdx.x] = r;
    }
  }
    if (V == 7)
      asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p cp.async.ca.shared.global [%0], [%1], 16; }" ::"r"(dst), "l"(src), "r"(o) : "memory");
    if (V == 8) {
      int r;
      asm volatile("{ .reg .pred q, p, t, u; setp.ne.s32 q, %4, 0; setp.eq.s32 p, %3, 0; setp.gt.s32 t, %5, 5; or.pred u, p, t; @!u cp.async.ca.shared.global [%1], [%2], 16; selp.b32 %0, 1, 2, q; }"
                   : "=r"(r) : "r"(dst), "l"(src), "r"(o), "r"(k), "r"(rep) : "memory");
      sink[threadIdx.x] = r;
    }
    if (V == 9)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\ncp.async.cg.shared.global [%0+1024], [%1+8192], 16, %3;\n"
                   "cp.async.cg.shared.global [%0+2048], [%1+16384], 16, %4;\ncp.async.cg.shared.global [%0+3072], [%1+24576], 16, %5;\n"
                   ::"r"(dst), "l"(src), "r"(o ? 16 : 0), "r"(o & 2 ? 16 : 0), "r"(o & 4 ? 16 : 0), "r"(o & 8 ? 16 : 0) : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

typedef void (*Kern)(const int*, const unsigned char*, int*, int);
int main() {
  int *d_on, *d_sink; unsigned char* d_g;
  CK(cudaMalloc(&d_on, 64 * sizeof(int))); CK(cudaMalloc(&d_sink, 1024 * sizeof(int)));
  CK(cudaMalloc(&d_g, 4 << 20)); CK(cudaMemset(d_g, 1, 4 << 20));
  struct KV { const char* name; Kern k; };
  const KV ks[] = {{"P", pk<0>}, {"notP", pk<1>}, {"P_2live", pk<2>}, {"notP_2live", pk<3>}, {"P_4live", pk<4>}, {"P_sel", pk<5>}, {"notP_sel", pk<6>}, {"ca_P", pk<7>}, {"ca_notP", pk<8>}, {"zf_4live", pk<9>}};
  // `on` patterns: the guard's lanes (V 4: bits 0-3 pick the four copies' guards).
  struct G { const char* name; int on[32]; };
  G gs[4];
  for (int l = 0; l < 32; l++) {
    gs[0].on[l] = 15;                 // every lane, every copy
    gs[1].on[l] = l < 16 ? 15 : 0;    // lanes 0-15
    gs[2].on[l] = l < 4 ? 15 : 0;     // lanes 0-3
    gs[3].on[l] = 0;                  // none
  }
  gs[0].name = "all"; gs[1].name = "lanes0-15"; gs[2].name = "lanes0-3"; gs[3].name = "none";
  int idx = 0;
  for (const KV& kv : ks)
    for (const G& gg : gs) {
      int h[64];
      for (int l = 0; l < 32; l++) { h[l] = gg.on[l]; h[32 + l] = l & 1; }
      CK(cudaMemcpy(d_on, h, sizeof h, cudaMemcpyHostToDevice));
      CK(cudaFuncSetAttribute(kv.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
      kv.k<<<1, 32, 32 * 1024>>>(d_on, d_g, d_sink, 1);
      CK(cudaDeviceSynchronize());
      printf("%d %s %s\n", idx++, kv.name, gg.name);
    }
  return 0;
}
