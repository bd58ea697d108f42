// Issue 34 items 3 and 4: cp.async (LDGSTS) and stmatrix (STSM) from PTX, one warp, one
// block, per-lane addresses from tables the host writes (lanes with a negative shared
// offset are predicated off), so one kernel serves every pattern.
//   ./async_probe        one launch per pattern, the pattern list on stdout (index = ncu ID)
// Build: nvcc -arch=sm_90
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Tab { int soff[32]; long long goff[32]; };

// W: bytes (4, 8, 16); CG: .cg (16 only); ZF: the src-size operand given (runtime value zsz).
template <int W, bool CG, bool ZF>
__global__ void cpa(const Tab* t, const unsigned char* g, int reps, int zsz) {
  extern __shared__ __align__(1024) unsigned char sm[];
  // Warp w of the block: the table's pattern, w x 4 KiB further in shared
  // memory and w x 64 KiB in global memory.
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int so = t->soff[lane] < 0 ? -1 : t->soff[lane] + 4096 * w;
  const unsigned char* src = g + t->goff[lane] + 65536 * w;
  const uint32_t dst = (uint32_t)__cvta_generic_to_shared(sm) + (uint32_t)so;
#pragma unroll 1
  for (int r = 0; r < reps; r++) {
    if (so >= 0) {
      if (CG) {
        if (ZF) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(zsz) : "memory");
        else asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
      } else {
        if (ZF) asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(W), "r"(zsz) : "memory");
        else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(W) : "memory");
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

// stmatrix: lane l gives row address soff[l] (lanes 8m..8m+7: matrix m's rows).
template <int X, bool T>
__global__ void stm(const Tab* t, const unsigned char* g, int reps, int zsz) {
  extern __shared__ __align__(1024) unsigned char sm[];
  const int lane = threadIdx.x;
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(sm) + (uint32_t)t->soff[lane];
  const uint32_t r0 = lane, r1 = lane * 3, r2 = lane * 5, r3 = lane * 7;
#pragma unroll 1
  for (int r = 0; r < reps; r++) {
    if (X == 1 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(a), "r"(r0) : "memory");
    if (X == 1 && T) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" ::"r"(a), "r"(r0) : "memory");
    if (X == 2 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(a), "r"(r0), "r"(r1) : "memory");
    if (X == 2 && T) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(a), "r"(r0), "r"(r1) : "memory");
    if (X == 4 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
    if (X == 4 && T) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  }
}

typedef void (*Kern)(const Tab*, const unsigned char*, int, int);
static Tab* d_tab;
static unsigned char* d_g;
static int idx = 0;

static int g_threads = 32, g_blocks = 1;
static void go(const char* kname, Kern k, const Tab& t, int reps, int zsz, const std::string& what) {
  CK(cudaMemcpy(d_tab, &t, sizeof t, cudaMemcpyHostToDevice));
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
  k<<<g_blocks, g_threads, 64 * 1024>>>(d_tab, d_g, reps, zsz);
  CK(cudaDeviceSynchronize());
  printf("%d %s reps=%d zsz=%d threads=%d blocks=%d %s soff=", idx++, kname, reps, zsz, g_threads, g_blocks, what.c_str());
  for (int l = 0; l < 32; l++) printf("%d%s", t.soff[l], l < 31 ? "," : "");
  printf(" goff=");
  for (int l = 0; l < 32; l++) printf("%lld%s", t.goff[l], l < 31 ? "," : "");
  printf("\n");
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&d_tab, sizeof(Tab)));
  CK(cudaMalloc(&d_g, 16 << 20));
  CK(cudaMemset(d_g, 1, 16 << 20));
  // The global buffer is 16 MiB; its base is 512-byte aligned (cudaMalloc): offsets here
  // are from a 128-byte line boundary.
  const long long GB = 1 << 20;  // a line-aligned base 1 MiB in
  struct V { const char* name; Kern k; int w; };
  if (argc > 1 && !strcmp(argv[1], "r2")) {
    // Round 2 (issue 34): what LDGSTS.BYPASS's wavefront counter follows.
    struct V2 { const char* name; Kern k; int w; int zsz; };
    const V2 v2[] = {{"cg16", cpa<16, true, false>, 16, 0}, {"cg16z", cpa<16, true, true>, 16, 16},
                     {"ca16", cpa<16, false, false>, 16, 0}, {"ca4", cpa<4, false, false>, 4, 0}};
    for (int threads : {32, 128, 256}) {
      for (int blocks : {1, 8}) {
        if (blocks == 8 && threads != 128) continue;
        g_threads = threads;
        g_blocks = blocks;
        for (const V2& v : v2) {
          const int w = v.w;
          auto T = [&](auto sf, auto gf) { Tab t; for (int l = 0; l < 32; l++) { t.soff[l] = sf(l); t.goff[l] = gf(l); } return t; };
          auto scont = [&](int l) { return l * w; };
          go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)l * w; }), 1, v.zsz, "g=contig s=contig");
          go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)l * w; }), 8, v.zsz, "g=contig s=contig");
          if (threads != 32 || blocks != 1) continue;
          for (int st : {32, 64, 128, 4096})
            go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)l * st; }), 1, v.zsz, "g=stride" + std::to_string(st) + " s=contig");
          go(v.name, v.k, T(scont, [&](int l) { return GB; }), 1, v.zsz, "g=same s=contig");
          go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l % 8) * 128 + (long long)(l / 8) * 16; }), 1, v.zsz, "g=perm s=contig");
          go(v.name, v.k, T(scont, [&](int l) { return GB + 16 + (long long)l * w; }), 1, v.zsz, "g=contig+16 s=contig");
          go(v.name, v.k, T([&](int l) { return l * 128; }, [&](int l) { return GB + (long long)l * w; }), 1, v.zsz, "g=contig s=stride128");
          go(v.name, v.k, T([&](int l) { return l < 8 ? l * w : -1; }, [&](int l) { return GB + (long long)l * w; }), 1, v.zsz, "g=contig s=contig lanes0-7");
        }
      }
    }
    return 0;
  }
  const V vs[] = {{"ca4", cpa<4, false, false>, 4}, {"ca8", cpa<8, false, false>, 8}, {"ca16", cpa<16, false, false>, 16},
                  {"cg16", cpa<16, true, false>, 16}, {"ca4z", cpa<4, false, true>, 4}, {"cg16z", cpa<16, true, true>, 16}};
  for (const V& v : vs) {
    const int w = v.w;
    const bool z = strchr(v.name, 'z') != nullptr;
    auto T = [&](auto sf, auto gf) { Tab t; for (int l = 0; l < 32; l++) { t.soff[l] = sf(l); t.goff[l] = gf(l); } return t; };
    auto scont = [&](int l) { return l * w; };
    auto gcont = [&](int l) { return GB + (long long)l * w; };
    if (z) {  // src-size: full, 0 (all zero-fill), and a partial size
      go(v.name, v.k, T(scont, gcont), 1, w, "g=contig s=contig");
      go(v.name, v.k, T(scont, gcont), 1, 0, "g=contig s=contig");
      go(v.name, v.k, T(scont, gcont), 1, w / 2, "g=contig s=contig");
      go(v.name, v.k, T([&](int l) { return l * 128; }, gcont), 1, 0, "g=contig s=stride128");
      continue;
    }
    // global side varies, shared side conflict-free and contiguous
    go(v.name, v.k, T(scont, gcont), 1, 0, "g=contig s=contig");
    go(v.name, v.k, T(scont, gcont), 2, 0, "g=contig s=contig");
    go(v.name, v.k, T(scont, gcont), 4, 0, "g=contig s=contig");
    for (int o : {4, 8, 16, 32, 64, 96, 112, 120, 124})
      if (o % w == 0) go(v.name, v.k, T(scont, [&](int l) { return GB + o + (long long)l * w; }), 1, 0, "g=contig+" + std::to_string(o) + " s=contig");
    for (int s : {8, 16, 32, 64, 128, 256, 512, 4096})
      if (s > w) go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)l * s; }), 1, 0, "g=stride" + std::to_string(s) + " s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB; }), 1, 0, "g=same s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(31 - l) * w; }), 1, 0, "g=reversed s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l % 2) * 4096 + (long long)(l / 2) * w; }), 1, 0, "g=two-lines s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l % 4) * 4096 + (long long)(l / 4) * w; }), 1, 0, "g=four-lines s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l / 8) * 4096 + (long long)(l % 8) * w; }), 1, 0, "g=rows8x4096 s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l / 4) * 4096 + (long long)(l % 4) * w; }), 1, 0, "g=rows4x4096 s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l / 8) * 128 + (long long)(l % 8) * w; }), 1, 0, "g=rows8x128 s=contig");
    go(v.name, v.k, T(scont, [&](int l) { return GB + (long long)(l % 8) * 8 * w + (long long)(l / 8) * w; }), 1, 0, "g=perm s=contig");
    // shared side varies, global contiguous
    go(v.name, v.k, T([&](int l) { return l * 128; }, gcont), 1, 0, "g=contig s=stride128");
    go(v.name, v.k, T([&](int l) { return l * 2 * w; }, gcont), 1, 0, "g=contig s=stride2w");
    go(v.name, v.k, T([&](int l) { return l * 256; }, gcont), 1, 0, "g=contig s=stride256");
    go(v.name, v.k, T([&](int l) { return 0; }, gcont), 1, 0, "g=contig s=same");
    go(v.name, v.k, T([&](int l) { return (31 - l) * w; }, gcont), 1, 0, "g=contig s=reversed");
    go(v.name, v.k, T([&](int l) { return (l / 8) * 128 + (((l % 8) * w) ^ ((l / 8) * 16 % 128)); }, gcont), 1, 0, "g=contig s=rows8x128-xor");
    go(v.name, v.k, T([&](int l) { return (l / 8) * 128 + (l % 8) * w; }, gcont), 1, 0, "g=contig s=rows8x128");
    go(v.name, v.k, T([&](int l) { return ((l * w) ^ ((l * w / 128) % 8 * 16)); }, gcont), 1, 0, "g=contig s=swz128");
    // both
    go(v.name, v.k, T([&](int l) { return l * 128; }, [&](int l) { return GB + (long long)l * 128; }), 1, 0, "g=stride128 s=stride128");
    go(v.name, v.k, T([&](int l) { return l * 2 * w; }, [&](int l) { return GB + (long long)l * 2 * w; }), 1, 0, "g=stride2w s=stride2w");
    // partial warps
    go(v.name, v.k, T([&](int l) { return l < 8 ? l * w : -1; }, gcont), 1, 0, "g=contig s=contig lanes0-7");
    go(v.name, v.k, T([&](int l) { return l < 16 ? l * w : -1; }, gcont), 1, 0, "g=contig s=contig lanes0-15");
    go(v.name, v.k, T([&](int l) { return l % 2 ? l * w : -1; }, gcont), 1, 0, "g=contig s=contig odd-lanes");
    go(v.name, v.k, T([&](int l) { return l == 5 ? l * w : -1; }, gcont), 1, 0, "g=contig s=contig lane5");
  }
  struct S { const char* name; Kern k; int x; };
  const S ss[] = {{"stm_x1", stm<1, false>, 1}, {"stm_x1_trans", stm<1, true>, 1}, {"stm_x2", stm<2, false>, 2},
                  {"stm_x2_trans", stm<2, true>, 2}, {"stm_x4", stm<4, false>, 4}, {"stm_x4_trans", stm<4, true>, 4}};
  for (const S& s : ss) {
    for (int stride : {16, 128, 144, 64, 256}) {
      Tab t; for (int l = 0; l < 32; l++) { t.soff[l] = (l % 8) * stride + (l / 8) * 8 * stride; t.goff[l] = 0; }
      if (stride == 128) for (int l = 0; l < 32; l++) t.soff[l] = (l % 8) * 128 + (l / 8) * 16;  // 8 rows of 128 B, matrices side by side
      go(s.name, s.k, t, 1, 0, "rows stride" + std::to_string(stride));
    }
    Tab t; for (int l = 0; l < 32; l++) { t.soff[l] = (l % 8) * 128 + ((((l / 8) * 16) ^ ((l % 8) * 16)) & 127); t.goff[l] = 0; }
    go(s.name, s.k, t, 1, 0, "rows 128B-swizzled");
    go(s.name, s.k, t, 3, 0, "rows 128B-swizzled");
  }
  return 0;
}
