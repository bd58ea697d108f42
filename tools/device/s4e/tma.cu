// Probe (a)+(b): the shared-memory byte layout TMA tile loads and stores produce,
// per swizzle, element size, box, rank, interleave, out-of-bounds fill and
// destination offset, and 1-D bulk copies. Global memory holds, in each 4-byte
// word, that word's index, so every 4 bytes of a dumped shared tile name the
// global word they came from. Shared memory is pre-filled with 0xEE so bytes
// TMA did not write show.
//   ./tma dump  > tma_results.txt     (one block per config, tile copied back)
//   ./tma ncu                         (launches for Nsight Compute: TMA only, no copy-back)
#include "common.h"
#include <vector>
#include <string>

struct Cfg {
  const char* name;
  int rank;
  cuuint64_t dims[5];
  cuuint32_t box[5];
  int elem;            // bytes per element: 1, 2, 4 (4 = float32 for the NaN fill)
  int swz;             // 0, 32, 64, 128
  int inter;           // 0, 16, 32
  int nanfill;         // 1: CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  int coords[5];
  int dst_off;         // bytes from a 1024-aligned shared base
  cuuint32_t estride[5];
  cuuint64_t pitch_pad; // extra bytes per row of dim 0 in global (0: packed)
};

static CUtensorMapDataType dtype(int elem, int nan) {
  if (elem == 1) return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  if (elem == 2) return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  return nan ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
}
static CUtensorMapSwizzle swz(int s) {
  switch (s) { case 32: return CU_TENSOR_MAP_SWIZZLE_32B; case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
               case 128: return CU_TENSOR_MAP_SWIZZLE_128B; default: return CU_TENSOR_MAP_SWIZZLE_NONE; }
}
static CUtensorMapInterleave itl(int i) {
  return i == 16 ? CU_TENSOR_MAP_INTERLEAVE_16B : i == 32 ? CU_TENSOR_MAP_INTERLEAVE_32B : CU_TENSOR_MAP_INTERLEAVE_NONE;
}

#define SMEM_BYTES (96 * 1024)

// Loads one box at `coords` to base+dst_off, waits on the mbarrier (bounded), and
// (copyback) writes `dump_bytes` of shared memory from base+dst_off to `out`.
__global__ void tma_load_kernel(const __grid_constant__ CUtensorMap m, int rank, int4 c03, int c4,
                                int dst_off, uint32_t tx, int dump_bytes, uint8_t* out, int* status, int copyback) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ uint64_t bar;
  uint8_t* base = (uint8_t*)(((uintptr_t)dsm + 1023) & ~(uintptr_t)1023);
  if (copyback) {
    for (int i = threadIdx.x; i < dump_bytes; i += blockDim.x) base[dst_off + i] = 0xEE;
  }
  if (threadIdx.x == 0) { mbar_init(&bar, 1); fence_mbar_init(); }
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    int c[5] = {c03.x, c03.y, c03.z, c03.w, c4};
    mbar_arrive_expect_tx(&bar, tx);
    tma_load(rank, base + dst_off, &m, c, &bar);
  }
  bool ok = mbar_wait(&bar, 0);
  if (threadIdx.x == 0) *status = ok ? 1 : 0;
  if (copyback) {
    for (int i = threadIdx.x; i < dump_bytes; i += blockDim.x) out[i] = base[dst_off + i];
  } else if (threadIdx.x == 0) {
    out[0] = base[dst_off];
  }
}

// Stores one 2-D box from shared (filled with its own word index) to global.
__global__ void tma_store_kernel(const __grid_constant__ CUtensorMap m, int c0, int c1, int dst_off, int fill_words, int* status) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  uint8_t* base = (uint8_t*)(((uintptr_t)dsm + 1023) & ~(uintptr_t)1023);
  uint32_t* w = (uint32_t*)(base + dst_off);
  for (int i = threadIdx.x; i < fill_words; i += blockDim.x) w[i] = 0x40000000u | i;
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store2(&m, c0, c1, base + dst_off);
    bulk_commit();
    bulk_wait0();
    *status = 1;
  }
}

// 1-D bulk copies: global -> shared at (src_off, dst_off, bytes), then shared -> global.
__global__ void bulk_kernel(const uint8_t* g, int src_off, int dst_off, int bytes, uint8_t* out, int dump_bytes,
                            uint8_t* gout, int* status) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ uint64_t bar;
  uint8_t* base = (uint8_t*)(((uintptr_t)dsm + 1023) & ~(uintptr_t)1023);
  for (int i = threadIdx.x; i < dump_bytes; i += blockDim.x) base[i] = 0xEE;
  if (threadIdx.x == 0) { mbar_init(&bar, 1); fence_mbar_init(); }
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, bytes);
    bulk_g2s(base + dst_off, g + src_off, bytes, &bar);
  }
  bool ok = mbar_wait(&bar, 0);
  if (threadIdx.x == 0) *status = ok ? 1 : 0;
  for (int i = threadIdx.x; i < dump_bytes; i += blockDim.x) out[i] = base[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    bulk_s2g(gout + 32, base + dst_off, bytes);
    bulk_commit();
    bulk_wait0();
  }
}

static std::vector<Cfg> configs() {
  std::vector<Cfg> v;
  auto add = [&](Cfg c) { for (int i = 0; i < 5; ++i) if (c.estride[i] == 0) c.estride[i] = 1; v.push_back(c); };
  static std::vector<std::string> names;
  names.reserve(512);
  auto nm = [&](std::string s) { names.push_back(s); return names.back().c_str(); };
  // 2-D: every swizzle x element size, inner box = the swizzle span and half of it.
  int elems[3] = {1, 2, 4}, swzs[4] = {0, 32, 64, 128};
  for (int e : elems) for (int s : swzs) {
    int span = s ? s : 64;
    for (int frac = 1; frac <= 2; ++frac) {
      int inner = span / frac / e; if (inner * e < 16) continue;
      Cfg c = {}; c.rank = 2; c.dims[0] = 256; c.dims[1] = 64; c.box[0] = inner; c.box[1] = 16;
      c.elem = e; c.swz = s; c.coords[0] = 32; c.coords[1] = 8;
      c.name = nm("2d_e" + std::to_string(e) + "_s" + std::to_string(s) + "_in" + std::to_string(inner * e) + "B");
      add(c);
    }
  }
  // Swizzle none with a wide inner box (256 B) and a tall one.
  { Cfg c = {}; c.rank = 2; c.dims[0] = 256; c.dims[1] = 64; c.box[0] = 128; c.box[1] = 8; c.elem = 2; c.swz = 0;
    c.coords[0] = 0; c.coords[1] = 0; c.name = "2d_e2_s0_in256B"; add(c); }
  { Cfg c = {}; c.rank = 2; c.dims[0] = 256; c.dims[1] = 256; c.box[0] = 64; c.box[1] = 256; c.elem = 2; c.swz = 128;
    c.coords[0] = 64; c.coords[1] = 0; c.name = "2d_e2_s128_box64x256"; add(c); }
  // Destination not 1024-aligned: is the swizzle pattern address-based or box-relative?
  int offs[4] = {128, 256, 512, 896};
  for (int s : swzs) for (int o : offs) {
    if (s == 0 && o != 128) continue;
    Cfg c = {}; c.rank = 2; c.dims[0] = 256; c.dims[1] = 64; c.box[0] = (s ? s : 64) / 2; c.box[1] = 16; c.elem = 2; c.swz = s;
    c.coords[0] = 0; c.coords[1] = 0; c.dst_off = o;
    c.name = nm("2d_e2_s" + std::to_string(s) + "_dst" + std::to_string(o)); add(c);
  }
  // 3-D, 1-D, 4-D, 5-D.
  for (int s : swzs) { Cfg c = {}; c.rank = 3; c.dims[0] = 64; c.dims[1] = 8; c.dims[2] = 4; c.box[0] = 32; c.box[1] = 4; c.box[2] = 2;
    c.elem = 2; c.swz = s; c.coords[0] = 32; c.coords[1] = 2; c.coords[2] = 1; c.name = nm("3d_e2_s" + std::to_string(s)); add(c); }
  { Cfg c = {}; c.rank = 1; c.dims[0] = 1024; c.box[0] = 64; c.elem = 4; c.coords[0] = 100; c.name = "1d_e4"; add(c); }
  { Cfg c = {}; c.rank = 4; c.dims[0] = 16; c.dims[1] = 4; c.dims[2] = 3; c.dims[3] = 2; c.box[0] = 8; c.box[1] = 2; c.box[2] = 2; c.box[3] = 2;
    c.elem = 4; c.coords[0] = 8; c.coords[1] = 1; c.coords[2] = 1; c.name = "4d_e4"; add(c); }
  { Cfg c = {}; c.rank = 5; c.dims[0] = 8; c.dims[1] = 2; c.dims[2] = 2; c.dims[3] = 2; c.dims[4] = 2; c.box[0] = 8; c.box[1] = 2; c.box[2] = 1; c.box[3] = 2; c.box[4] = 1;
    c.elem = 4; c.coords[2] = 1; c.coords[4] = 1; c.name = "5d_e4"; add(c); }
  { Cfg c = {}; c.rank = 5; c.dims[0] = 64; c.dims[1] = 2; c.dims[2] = 2; c.dims[3] = 2; c.dims[4] = 2; c.box[0] = 64; c.box[1] = 2; c.box[2] = 2; c.box[3] = 1; c.box[4] = 2;
    c.elem = 2; c.swz = 128; c.coords[3] = 1; c.name = "5d_e2_s128"; add(c); }
  // Out of bounds: partially past the end, negative coordinates, zero and NaN fill.
  for (int nan = 0; nan <= 1; ++nan) {
    { Cfg c = {}; c.rank = 2; c.dims[0] = 100; c.dims[1] = 10; c.box[0] = 32; c.box[1] = 8; c.elem = 4; c.nanfill = nan;
      c.coords[0] = 80; c.coords[1] = 6; c.name = nan ? "oob_end_nan" : "oob_end_zero"; add(c); }
    { Cfg c = {}; c.rank = 2; c.dims[0] = 100; c.dims[1] = 10; c.box[0] = 32; c.box[1] = 8; c.elem = 4; c.nanfill = nan;
      c.coords[0] = -8; c.coords[1] = -3; c.name = nan ? "oob_neg_nan" : "oob_neg_zero"; add(c); }
  }
  { Cfg c = {}; c.rank = 2; c.dims[0] = 100; c.dims[1] = 10; c.box[0] = 32; c.box[1] = 8; c.elem = 2; c.swz = 64;
    c.coords[0] = 80; c.coords[1] = 6; c.name = "oob_end_e2_s64"; add(c); }
  { Cfg c = {}; c.rank = 2; c.dims[0] = 100; c.dims[1] = 10; c.box[0] = 32; c.box[1] = 8; c.elem = 4;
    c.coords[0] = 200; c.coords[1] = 0; c.name = "oob_all"; add(c); }
  // Interleave (rank >= 3; inner dim then counts 16 B / 32 B channel groups).
  for (int i : {16, 32}) for (int s : {0, 32, 64, 128}) { Cfg c = {}; c.rank = 3; c.dims[0] = i / 2; c.dims[1] = 32; c.dims[2] = 4; c.box[0] = i / 2; c.box[1] = 16; c.box[2] = 2;
    c.elem = 2; c.inter = i; c.swz = s; c.coords[1] = 8; c.coords[2] = 1; c.name = nm("inter" + std::to_string(i) + "_e2_s" + std::to_string(s)); add(c); }
  // Element strides (traversal stride 2 in dim 0 and 1).
  { Cfg c = {}; c.rank = 2; c.dims[0] = 256; c.dims[1] = 64; c.box[0] = 32; c.box[1] = 8; c.elem = 2; c.estride[0] = 2; c.estride[1] = 2;
    c.coords[0] = 0; c.coords[1] = 0; c.name = "2d_e2_estride2"; add(c); }
  { Cfg c = {}; c.rank = 2; c.dims[0] = 256; c.dims[1] = 64; c.box[0] = 64; c.box[1] = 8; c.elem = 2; c.swz = 128; c.estride[1] = 2;
    c.coords[0] = 0; c.coords[1] = 0; c.name = "2d_e2_s128_estride1x2"; add(c); }
  // Padded row pitch.
  { Cfg c = {}; c.rank = 2; c.dims[0] = 100; c.dims[1] = 16; c.box[0] = 64; c.box[1] = 8; c.elem = 2; c.swz = 128; c.pitch_pad = 56;
    c.coords[0] = 16; c.coords[1] = 4; c.name = "2d_e2_s128_pitch256"; add(c); }
  return v;
}

static cuuint64_t gbytes(const Cfg& c, cuuint64_t* strides) {
  cuuint64_t row = c.dims[0] * c.elem + c.pitch_pad;
  if (c.inter) row = c.dims[0] * c.elem;  // dims[0] already counts the interleave group
  cuuint64_t s = row;
  for (int i = 1; i < c.rank; ++i) { strides[i - 1] = s; s *= c.dims[i]; }
  return s;
}

static void hexline(const char* tag, const uint8_t* p, size_t n) {
  printf("%s ", tag);
  for (size_t i = 0; i < n; ++i) printf("%02x", p[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "dump";
  const char* only = argc > 2 ? argv[2] : nullptr;  // one config (or "store", "bulk")
  if (!strcmp(mode, "list")) { for (auto& c : configs()) printf("%s\n", c.name); printf("store\nbulk\n"); return 0; }
  bool ncu = strcmp(mode, "ncu") == 0;
  CK(cudaFuncSetAttribute(tma_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  CK(cudaFuncSetAttribute(tma_store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  CK(cudaFuncSetAttribute(bulk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  size_t gcap = 4 << 20;
  uint32_t* g; uint8_t* out; int* status;
  CK(cudaMalloc(&g, gcap)); CK(cudaMalloc(&out, 1 << 20)); CK(cudaMalloc(&status, 4));
  std::vector<uint32_t> hg(gcap / 4);
  for (size_t i = 0; i < hg.size(); ++i) hg[i] = (uint32_t)i;
  CK(cudaMemcpy(g, hg.data(), gcap, cudaMemcpyHostToDevice));
  std::vector<uint8_t> hout(1 << 20);
  auto cf = configs();
  const char* ncu_set[] = {"2d_e2_s0_in64B", "2d_e2_s128_in128B", "2d_e2_s32_in32B", "3d_e2_s64", "oob_end_zero", "2d_e2_s128_box64x256", nullptr};
  for (auto& c : cf) {
    if (only && strcmp(only, c.name)) continue;
    if (ncu) { bool in = false; for (int k = 0; ncu_set[k]; ++k) in |= strcmp(ncu_set[k], c.name) == 0; if (!in) continue; }
    cuuint64_t strides[4] = {0, 0, 0, 0};
    gbytes(c, strides);
    CUtensorMap m; memset(&m, 0, sizeof m);
    CUresult r = cuTensorMapEncodeTiled(&m, dtype(c.elem, c.nanfill), c.rank, g, c.dims, strides, c.box, c.estride,
                                        itl(c.inter), swz(c.swz), CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                        c.nanfill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("CFG %s rank=%d elem=%d swizzle=%d interleave=%d nanfill=%d dst_off=%d dims=", c.name, c.rank, c.elem, c.swz, c.inter, c.nanfill, c.dst_off);
    for (int i = 0; i < c.rank; ++i) printf("%s%llu", i ? "x" : "", (unsigned long long)c.dims[i]);
    printf(" box="); for (int i = 0; i < c.rank; ++i) printf("%s%u", i ? "x" : "", c.box[i]);
    printf(" coords="); for (int i = 0; i < c.rank; ++i) printf("%s%d", i ? "," : "", c.coords[i]);
    printf(" estride="); for (int i = 0; i < c.rank; ++i) printf("%s%u", i ? "x" : "", c.estride[i]);
    printf(" gstrides="); for (int i = 0; i + 1 < c.rank; ++i) printf("%s%llu", i ? "," : "", (unsigned long long)strides[i]);
    printf("\nENC %d\n", (int)r);
    if (r != CUDA_SUCCESS) { fflush(stdout); continue; }
    // Bytes the box writes: each dim's box count divided by its traversal stride (rounded up).
    uint64_t tx = c.elem;
    for (int i = 0; i < c.rank; ++i) tx *= (c.box[i] + c.estride[i] - 1) / c.estride[i];
    if (c.inter) { tx = 1; for (int i = 0; i < c.rank; ++i) tx *= c.box[i]; tx *= c.elem; }
    int dump = (int)tx + 1024;
    CK(cudaMemset(status, 0xff, 4)); CK(cudaMemset(out, 0, dump));
    int4 c03 = make_int4(c.coords[0], c.coords[1], c.coords[2], c.coords[3]);
    tma_load_kernel<<<1, 128, SMEM_BYTES>>>(m, c.rank, c03, c.coords[4], c.dst_off, (uint32_t)tx, dump, out, status, ncu ? 0 : 1);
    cudaError_t e = cudaDeviceSynchronize();
    int st = -2; cudaMemcpy(&st, status, 4, cudaMemcpyDeviceToHost);
    printf("RUN tx=%llu launch=%s status=%d\n", (unsigned long long)tx, cudaGetErrorString(e), st);
    if (e != cudaSuccess) { printf("FATAL\n"); fflush(stdout); return 4; }
    if (!ncu) { CK(cudaMemcpy(hout.data(), out, dump, cudaMemcpyDeviceToHost)); hexline("DUMP", hout.data(), dump); }
    fflush(stdout);
  }
  // TMA stores (2-D, element size 2), each swizzle; global pre-filled with 0xEE.
  for (int s : {0, 32, 64, 128}) {
    if (only && strcmp(only, "store")) break;
    if (ncu && s != 0 && s != 128) continue;
    uint8_t* gs = (uint8_t*)out;
    cuuint64_t dims[2] = {256, 64}, strides[1] = {512};
    cuuint32_t box[2] = {(cuuint32_t)((s ? s : 128) / 2), 16}, es[2] = {1, 1};
    CUtensorMap m;
    CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, gs, dims, strides, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, swz(s), CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("STORE swizzle=%d dims=256x64 box=%ux16 coords=64,8 elem=2 enc=%d\n", s, box[0], (int)r);
    if (r != CUDA_SUCCESS) continue;
    CK(cudaMemset(gs, 0xEE, 256 * 64 * 2));
    tma_store_kernel<<<1, 128, SMEM_BYTES>>>(m, 64, 8, 0, box[0] * 16 * 2 / 4, status);
    cudaError_t e = cudaDeviceSynchronize();
    printf("RUN launch=%s\n", cudaGetErrorString(e));
    if (e != cudaSuccess) { printf("FATAL\n"); return 4; }
    if (!ncu) { CK(cudaMemcpy(hout.data(), gs, 256 * 64 * 2, cudaMemcpyDeviceToHost)); hexline("GLOBAL", hout.data(), 256 * 64 * 2); }
    fflush(stdout);
  }
  // 1-D bulk copies.
  for (int k = 0; k < 2; ++k) {
    if (only && strcmp(only, "bulk")) break;
    int src_off = k ? 48 : 0, dst_off = k ? 16 : 0, bytes = k ? 208 : 256;
    uint8_t* gout = out + 65536;
    CK(cudaMemset(gout, 0xEE, 1024)); CK(cudaMemset(status, 0xff, 4));
    bulk_kernel<<<1, 128, SMEM_BYTES>>>((const uint8_t*)g, src_off, dst_off, bytes, out, 512, gout, status);
    cudaError_t e = cudaDeviceSynchronize();
    int st = -2; cudaMemcpy(&st, status, 4, cudaMemcpyDeviceToHost);
    printf("BULK src_off=%d dst_off=%d bytes=%d launch=%s status=%d\n", src_off, dst_off, bytes, cudaGetErrorString(e), st);
    if (e != cudaSuccess) { printf("FATAL\n"); return 4; }
    if (!ncu) {
      CK(cudaMemcpy(hout.data(), out, 512, cudaMemcpyDeviceToHost)); hexline("DUMP", hout.data(), 512);
      CK(cudaMemcpy(hout.data(), gout, 512, cudaMemcpyDeviceToHost)); hexline("GLOBAL", hout.data(), 512);
    }
    fflush(stdout);
  }
  return 0;
}
