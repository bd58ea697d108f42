// Issue 34, session 5 (lead): what smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts
// counts for cp.async.cg (LDGSTS.E.BYPASS.128). Round 2 (tools/device/s4d) found 0 for every
// *predicated* (@P0) .cg probe, while cuda-samples' GEMMs, whose LDGSTS.BYPASS are unpredicated,
// count 1.6x the shared side. Here: the same patterns unpredicated and predicated, one copy or
// sixteen back to back (the GEMMs' C copy), the GEMMs' A/B pattern, and .ca beside them.
//   ./cg_probe [sweep|zfill]   one launch per case, the case list on stdout (index = ncu ID)
// Build: nvcc -arch=sm_90 -lineinfo
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Tab { int soff[32]; long long goff[32]; };

// MODE 0: unpredicated .cg 16; 1: .cg 16 under a runtime guard true in every lane; 2: sixteen
// unpredicated .cg 16 back to back, each its own group (shared +512 B, global +row each);
// 3: unpredicated .ca 16; 4: .cg with an immediate src-size of 16 (what cuda::memcpy_async emits);
// 5: sixteen predicated .cg back to back; 6: .cg 16 under a guard false in lanes 16-31;
// 7: .cg 16 with a src-size register (read from memory, as a mask makes it) of 16 in every lane
// (SASS .ZFILL), no guard; 8: the same with a src-size of 0 in lanes 16-31 (they zero-fill).
template <int MODE>
__global__ void cg(const Tab* t, const unsigned char* g, int reps, int row) {
  extern __shared__ __align__(1024) unsigned char sm[];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const uint32_t dst = (uint32_t)__cvta_generic_to_shared(sm) + (uint32_t)(t->soff[lane] + 8192 * w);
  const unsigned char* src = g + t->goff[lane] + 65536 * w + (long long)blockIdx.x * (1 << 20);
  const bool on = MODE == 6 ? lane < 16 : t->soff[lane] >= 0;
#pragma unroll 1
  for (int r = 0; r < reps; r++) {
    if (MODE == 0) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    if (MODE == 1 || MODE == 6) { if (on) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory"); }
    if (MODE == 3) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    if (MODE == 4) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;\n" ::"r"(dst), "l"(src) : "memory");
    if (MODE == 7 || MODE == 8) {
      const int size = row > 0 && (MODE == 7 || lane < 16) ? 16 : 0;  // a runtime register (row is 8192), as a mask gives
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(size) : "memory");
    }
    if (MODE == 2 || MODE == 5) {
#pragma unroll
      for (int i = 0; i < 16; i++) {
        if (MODE == 2 || on) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst + 512 * i), "l"(src + (long long)row * i) : "memory");
        asm volatile("cp.async.commit_group;\n" ::: "memory");
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

typedef void (*Kern)(const Tab*, const unsigned char*, int, int);
static Tab* d_tab;
static unsigned char* d_g;
static int idx = 0;

static void go(const char* kname, Kern k, const Tab& t, int reps, int threads, int blocks, const std::string& what) {
  CK(cudaMemcpy(d_tab, &t, sizeof t, cudaMemcpyHostToDevice));
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
  k<<<blocks, threads, 72 * 1024>>>(d_tab, d_g, reps, 8192);
  CK(cudaDeviceSynchronize());
  printf("%d %s reps=%d threads=%d blocks=%d %s soff=", idx++, kname, reps, threads, blocks, what.c_str());
  for (int l = 0; l < 32; l++) printf("%d%s", t.soff[l], l < 31 ? "," : "");
  printf(" goff=");
  for (int l = 0; l < 32; l++) printf("%lld%s", t.goff[l], l < 31 ? "," : "");
  printf("\n");
}


int main(int argc, char** argv) {
  CK(cudaMalloc(&d_tab, sizeof(Tab)));
  CK(cudaMalloc(&d_g, 160 << 20));
  CK(cudaMemset(d_g, 1, 160 << 20));
  auto T = [](auto sf, auto gf) { Tab t; for (int l = 0; l < 32; l++) { t.soff[l] = sf(l); t.goff[l] = gf(l); } return t; };
  if (argc > 1 && std::string(argv[1]) == "zfill") {
    // Round 5: the src-size register form (LDGSTS.E.BYPASS.128.ZFILL), unguarded, on round 4's rows.
    struct V { const char* name; Kern k; };
    const V vs[] = {{"cgZ", cg<7>}, {"cgZhalf", cg<8>}};
    for (const V& v : vs)
      for (int S : {128, 144, 160, 192})
        for (int sb : {0, 16, 64})
          for (long long G : {128LL, 8192LL})
            for (long long gb : {0LL, 16LL}) {
              Tab t = T([&](int l) { return sb + (l / 8) * S + (l % 8) * 16; }, [&](int l) { return gb + (l / 8) * G + (l % 8) * 16; });
              go(v.name, v.k, t, 1, 32, 1, "S=" + std::to_string(S) + " sb=" + std::to_string(sb) + " G=" + std::to_string(G) + " gb=" + std::to_string(gb));
            }
    go("cgZ", cg<7>, T([](int l) { return l * 16; }, [](int l) { return (long long)l * 16; }), 4, 256, 132, "contig");
    go("cgZ", cg<7>, T([](int l) { return l * 16; }, [](int l) { return (long long)l * 128; }), 1, 32, 1, "gstride128");
    go("cgZ", cg<7>, T([](int l) { return l * 128; }, [](int l) { return (long long)l * 16; }), 1, 32, 1, "sstride128");
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "sweep") {
    // Round 2: quarter-warp rows of 128 B on both sides. Shared rows S apart from shared offset sb,
    // global rows G apart from global offset gb; unpredicated .cg and .ca.
    struct V { const char* name; Kern k; };
    const V vs[] = {{"cgU", cg<0>}, {"caU", cg<3>}};
    for (const V& v : vs)
      for (int S : {128, 144, 160, 192, 256})
        for (int sb : {0, 16, 64})
          for (long long G : {128LL, 512LL, 1024LL, 2048LL, 4096LL, 8192LL})
            for (long long gb : {0LL, 16LL}) {
              if (v.k == cg<3> && (sb == 64 || gb == 16)) continue;
              Tab t = T([&](int l) { return sb + (l / 8) * S + (l % 8) * 16; }, [&](int l) { return gb + (l / 8) * G + (l % 8) * 16; });
              go(v.name, v.k, t, 1, 32, 1, "S=" + std::to_string(S) + " sb=" + std::to_string(sb) + " G=" + std::to_string(G) + " gb=" + std::to_string(gb));
            }
    // Lanes on one address (all 32, or pairs), and half-rows.
    go("cgU", cg<0>, T([](int l) { return 0; }, [](int l) { return 0LL; }), 1, 32, 1, "all-same");
    go("cgU", cg<0>, T([](int l) { return (l / 2) * 16; }, [](int l) { return (long long)(l / 2) * 16; }), 1, 32, 1, "pairs");
    go("cgU", cg<0>, T([](int l) { return (l / 4) * 144 + (l % 4) * 16; }, [](int l) { return (long long)(l / 4) * 8192 + (l % 4) * 16; }), 1, 32, 1, "rows64 S=144 G=8192");
    go("cgU", cg<0>, T([](int l) { return (l / 4) * 64 + (l % 4) * 16; }, [](int l) { return (long long)(l / 4) * 8192 + (l % 4) * 16; }), 1, 32, 1, "rows64 S=64 G=8192");
    go("cgU", cg<0>, T([](int l) { return l * 16; }, [](int l) { return (long long)(l % 8) * 16 + (l / 8) * 8192; }), 1, 32, 1, "s=contig G=8192");
    go("cgU", cg<0>, T([](int l) { return (l % 8) * 16 + (l / 8) * 144; }, [](int l) { return (long long)l * 16; }), 1, 32, 1, "S=144 g=contig");
    return 0;
  }

  const Tab contig = T([](int l) { return l * 16; }, [](int l) { return (long long)l * 16; });
  // cuda-samples bf16 A/B copy: 8 lanes a 128-byte row; shared rows 144 B apart, global rows 8 KiB apart.
  const Tab ab = T([](int l) { return (l / 8) * 144 + (l % 8) * 16; }, [](int l) { return (long long)(l / 8) * 8192 + (l % 8) * 16; });
  const Tab gstride = T([](int l) { return l * 16; }, [](int l) { return (long long)l * 128; });
  const Tab sconf = T([](int l) { return l * 128; }, [](int l) { return (long long)l * 16; });
  struct V { const char* name; Kern k; };
  const V vs[] = {{"cgU", cg<0>}, {"cgP", cg<1>}, {"cgU16", cg<2>}, {"caU", cg<3>}, {"cgImm", cg<4>}, {"cgP16", cg<5>}, {"cgHalf", cg<6>}};
  for (const V& v : vs) {
    go(v.name, v.k, contig, 1, 32, 1, "contig");
    go(v.name, v.k, ab, 1, 32, 1, "ab");
    go(v.name, v.k, gstride, 1, 32, 1, "gstride128");
    go(v.name, v.k, sconf, 1, 32, 1, "sstride128");
    go(v.name, v.k, contig, 4, 256, 1, "contig");
    go(v.name, v.k, ab, 4, 256, 132, "ab");
  }
  return 0;
}
