// Issue 34 item 1: how ptxas lowers wmma.load.{a,b,c} / wmma.store.d on shared memory.
// One kernel per (shape, type, matrix, layout), one warp, ldm a runtime argument.
//   ./wmma_probe map   prints, per combination and leading dimension, which shared
//                      byte each fragment byte of each lane came from (load) or went
//                      to (store): two launches per case, shared filled with byte
//                      k = (k >> 0) & 255, then (k >> 8) & 255.
//   ./wmma_probe ncu   one launch per case (no fill, no copy-out: the only shared
//                      instructions executed are the wmma's own), the case list on stdout.
// Build: nvcc -arch=sm_90 -DARCH=90 (ARCH limits the combinations to the target's).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
using namespace nvcuda;
namespace ex = nvcuda::wmma::experimental;
#ifndef ARCH
#define ARCH 90
#endif
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// OP: 0 load a/b, 1 load c row, 2 load c col, 3 store d row, 4 store d col
template <class F, class P, int OP>
__global__ void wk(unsigned ldm, int fill, unsigned nbytes, unsigned char* out) {
  extern __shared__ __align__(128) unsigned char sm[];
  const unsigned lane = threadIdx.x;
  F f;
  constexpr unsigned NB = sizeof(f.x);
  if (OP <= 2) {
    if (fill >= 0) {
      for (unsigned i = lane; i < nbytes; i += 32) sm[i] = (unsigned char)(i >> (8 * fill));
      __syncwarp();
    }
    if constexpr (OP == 0) wmma::load_matrix_sync(f, (const P*)sm, ldm);
    else wmma::load_matrix_sync(f, (const P*)sm, ldm, OP == 1 ? wmma::mem_row_major : wmma::mem_col_major);
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&f.x[0]);
#pragma unroll
    for (unsigned j = 0; j < NB; j++) out[lane * NB + j] = p[j];
  } else {
    if (fill >= 0) {
      for (unsigned i = lane; i < nbytes; i += 32) sm[i] = 0xff;
      __syncwarp();
    }
    unsigned char* p = reinterpret_cast<unsigned char*>(&f.x[0]);
    const int sh = fill < 0 ? 0 : 8 * fill;
#pragma unroll
    for (unsigned j = 0; j < NB; j++) p[j] = (unsigned char)((lane * NB + j) >> sh);
    if constexpr (OP >= 3)
      wmma::store_matrix_sync((P*)sm, f, ldm, OP == 3 ? wmma::mem_row_major : wmma::mem_col_major);
    if (fill >= 0) {
      __syncwarp();
      for (unsigned i = lane; i < nbytes; i += 32) out[i] = sm[i];
    }
  }
}

typedef void (*Kern)(unsigned, int, unsigned, unsigned char*);
struct Case {
  std::string name;  // shape.type.matrix.layout
  Kern k;
  unsigned bits;     // element bits in memory
  unsigned lines;    // rows (row-major) or columns (col-major) the fragment spans
  unsigned extent;   // elements along the leading dimension the fragment spans
  unsigned nb;       // fragment bytes a lane
};
static std::vector<Case> cases;

template <class F, class P, int OP>
static void add(const char* name, unsigned bits, unsigned lines, unsigned extent) {
  F f;
  cases.push_back({name, wk<F, P, OP>, bits, lines, extent, (unsigned)sizeof(f.x)});
}

#define A_(M, N, K, T, P, bits, nm)                                                                  \
  add<wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major>, P, 0>("m" #M "n" #N "k" #K "." nm ".a.row", bits, M, K); \
  add<wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::col_major>, P, 0>("m" #M "n" #N "k" #K "." nm ".a.col", bits, K, M); \
  add<wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::row_major>, P, 0>("m" #M "n" #N "k" #K "." nm ".b.row", bits, K, N); \
  add<wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major>, P, 0>("m" #M "n" #N "k" #K "." nm ".b.col", bits, N, K);
#define SUB_(M, N, K, T, bits, nm)                                                                   \
  add<wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major>, void, 0>("m" #M "n" #N "k" #K "." nm ".a.row", bits, M, K); \
  add<wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major>, void, 0>("m" #M "n" #N "k" #K "." nm ".b.col", bits, N, K);
#define C_(M, N, K, T, bits, nm)                                                                     \
  add<wmma::fragment<wmma::accumulator, M, N, K, T>, T, 1>("m" #M "n" #N "k" #K "." nm ".c.row", bits, M, N); \
  add<wmma::fragment<wmma::accumulator, M, N, K, T>, T, 2>("m" #M "n" #N "k" #K "." nm ".c.col", bits, N, M); \
  add<wmma::fragment<wmma::accumulator, M, N, K, T>, T, 3>("m" #M "n" #N "k" #K "." nm ".d.row", bits, M, N); \
  add<wmma::fragment<wmma::accumulator, M, N, K, T>, T, 4>("m" #M "n" #N "k" #K "." nm ".d.col", bits, N, M);

static void build() {
  A_(16, 16, 16, half, half, 16, "f16") A_(32, 8, 16, half, half, 16, "f16") A_(8, 32, 16, half, half, 16, "f16")
  C_(16, 16, 16, half, 16, "f16") C_(32, 8, 16, half, 16, "f16") C_(8, 32, 16, half, 16, "f16")
  C_(16, 16, 16, float, 32, "f32") C_(32, 8, 16, float, 32, "f32") C_(8, 32, 16, float, 32, "f32")
#if ARCH >= 72
  A_(16, 16, 16, signed char, signed char, 8, "s8") A_(32, 8, 16, signed char, signed char, 8, "s8") A_(8, 32, 16, signed char, signed char, 8, "s8")
  A_(16, 16, 16, unsigned char, unsigned char, 8, "u8") A_(32, 8, 16, unsigned char, unsigned char, 8, "u8") A_(8, 32, 16, unsigned char, unsigned char, 8, "u8")
  C_(16, 16, 16, int, 32, "s32") C_(32, 8, 16, int, 32, "s32") C_(8, 32, 16, int, 32, "s32")
#endif
#if ARCH >= 75
  SUB_(8, 8, 32, ex::precision::s4, 4, "s4") SUB_(8, 8, 32, ex::precision::u4, 4, "u4") C_(8, 8, 32, int, 32, "s32")
  SUB_(8, 8, 128, ex::precision::b1, 1, "b1") C_(8, 8, 128, int, 32, "s32")
#endif
#if ARCH >= 80
  A_(16, 16, 16, __nv_bfloat16, __nv_bfloat16, 16, "bf16") A_(32, 8, 16, __nv_bfloat16, __nv_bfloat16, 16, "bf16") A_(8, 32, 16, __nv_bfloat16, __nv_bfloat16, 16, "bf16")
  A_(16, 16, 8, wmma::precision::tf32, float, 32, "tf32") C_(16, 16, 8, float, 32, "f32")
  A_(8, 8, 4, double, double, 64, "f64") C_(8, 8, 4, double, 64, "f64")
#endif
}

// Leading dimensions tried, in bytes; those below the fragment's extent are skipped.
static const unsigned LDB[] = {16, 32, 48, 64, 80, 96, 128, 144, 256, 272};

int main(int argc, char** argv) {
  const bool map = argc > 1 && !strcmp(argv[1], "map");
  const bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  if (!map && !ncu) { fprintf(stderr, "usage: wmma_probe map|ncu [regex-free name filter]\n"); return 2; }
  build();
  unsigned char* d_out; CK(cudaMalloc(&d_out, 1 << 20));
  std::vector<unsigned char> h0(1 << 16), h1(1 << 16);
  int n = 0;
  for (const Case& c : cases) {
    if (argc > 2 && c.name.find(argv[2]) == std::string::npos) continue;
    // ncu: f16 fragments (and the f16/f32 accumulators of m16n16k16) at 32, 48, 64, 80,
    // 128, 144 bytes (16..72 halves); every other case at its three smallest ones.
    const bool wide = c.name.find(".f16.") != std::string::npos || c.name.rfind("m16n16k16.f32", 0) == 0;
    int taken = 0;
    for (unsigned ldb : LDB) {
      const unsigned ldm = ldb * 8 / c.bits;
      if (ldm < c.extent) continue;
      if (ncu && (wide ? (ldb == 16 || ldb == 96 || ldb > 144) : taken >= 3)) continue;
      taken++;
      const unsigned nbytes = c.lines * ldb;
      CK(cudaFuncSetAttribute(c.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
      if (ncu) {
        c.k<<<1, 32, nbytes>>>(ldm, -1, nbytes, d_out);
        CK(cudaDeviceSynchronize());
        printf("%d %s ldm=%u ldbytes=%u\n", n++, c.name.c_str(), ldm, ldb);
        continue;
      }
      const bool load = c.name.find(".a.") != std::string::npos || c.name.find(".b.") != std::string::npos || c.name.find(".c.") != std::string::npos;
      const unsigned outb = load ? 32 * c.nb : nbytes;
      for (int fill = 0; fill < 2; fill++) {
        CK(cudaMemset(d_out, 0, 1 << 20));
        c.k<<<1, 32, nbytes>>>(ldm, fill, nbytes, d_out);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(fill ? h1.data() : h0.data(), d_out, outb, cudaMemcpyDeviceToHost));
      }
      // For each lane and fragment byte j: the shared byte offset (load: read from; store: written to; -1 = none).
      std::vector<int> where(32 * c.nb, -1);
      if (load) {
        for (unsigned i = 0; i < 32 * c.nb; i++) where[i] = h0[i] | (h1[i] << 8);
      } else {
        for (unsigned s = 0; s < nbytes; s++) {
          const unsigned tag = h0[s] | (h1[s] << 8);
          if (tag != 0xffff && tag < 32 * c.nb) where[tag] = s;
        }
      }
      printf("case %s ldm=%u ldbytes=%u nb=%u\n", c.name.c_str(), ldm, ldb, c.nb);
      for (unsigned l = 0; l < 32; l++) {
        printf("  lane %2u:", l);
        for (unsigned j = 0; j < c.nb; j++) printf(" %d", where[l * c.nb + j]);
        printf("\n");
      }
    }
  }
  return 0;
}
