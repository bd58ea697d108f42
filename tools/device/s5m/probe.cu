// Issue 34, racecheck/synccheck verdicts not yet measured (helper M, session 5):
//  (1) cp.async completed through cp.async.mbarrier.arrive WITHOUT .noinc, and
//      accesses to a cp.async's bytes while it is in flight across a bar.sync
//      (or before it is issued) when it completes through an mbarrier;
//  (2) a bulk / tensor store (`.global.shared::cta`) whose shared source is
//      rewritten before (or without) `cp.async.bulk.wait_group.read`.
// One block of 64 threads (2 warps), one case per process: ./probe CASE;
// ./probe list prints the names. Reads and writes of other threads' words sit on
// their own source lines (built with -lineinfo) so that racecheck's report tells
// within-warp (lane ^ 1: "intra") from across warps (t + 32: "cross") apart.
// Helpers (mbarrier, bulk, tensor wrappers, bounded waits): ../s4e/common.h.
#include "../s4e/common.h"

#define NT 64
struct Flags { int v[NT * 4]; };

__device__ __forceinline__ void cpasync4(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem_u32(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
__device__ __forceinline__ void cp_arrive_noinc(uint64_t* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void cp_arrive_inc(uint64_t* b) {
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(smem_u32(b)) : "memory");
}

enum {
  INC_NOWAIT, INC_OK, NOINC_BAR_NOWAIT, INC_BAR_NOWAIT, NOINC_BAR_BEFORE_ARRIVE, INC_BAR_BEFORE_ARRIVE,
  NOINC_WAR, INC_WAR, NOINC_WAW, INC_WAW, WAITGROUP_NOWAIT, WAITGROUP_BAR_NOWAIT, MIXED_LANES,
  BULK_REWRITE, BULK_REWRITE_WAITREAD, BULK_REWRITE_BAR_NOREAD, BULK_REWRITE_OK,
  TENSOR_REWRITE, TENSOR_REWRITE_WAITREAD, TENSOR_REWRITE_BAR_NOREAD, TENSOR_REWRITE_OK, NCASES
};
static const char* names[] = {
  "inc_nowait", "inc_ok", "noinc_bar_nowait", "inc_bar_nowait", "noinc_bar_before_arrive", "inc_bar_before_arrive",
  "noinc_war", "inc_war", "noinc_waw", "inc_waw", "waitgroup_nowait", "waitgroup_bar_nowait", "mixed_lanes",
  "bulk_rewrite", "bulk_rewrite_waitread", "bulk_rewrite_bar_noread", "bulk_rewrite_ok",
  "tensor_rewrite", "tensor_rewrite_waitread", "tensor_rewrite_bar_noread", "tensor_rewrite_ok", nullptr};

__global__ void k(int which, const uint32_t* g, uint32_t* out, Flags* f, const __grid_constant__ CUtensorMap tm) {
  __shared__ __align__(128) uint32_t data[1024];
  __shared__ __align__(8) uint64_t bar[2];
  int t = threadIdx.x, w = t / 32;
  int* fl = f->v + t * 4;
  const int intra = t ^ 1, cross = (t + 32) % NT;
  bool inc = which == INC_NOWAIT || which == INC_OK || which == INC_BAR_NOWAIT || which == INC_BAR_BEFORE_ARRIVE ||
             which == INC_WAR || which == INC_WAW;
  // Each thread copies one word (data[t]) and completes it on bar[0]: with .noinc its
  // cp.async.mbarrier.arrive is its arrival (count NT); without, the instruction adds a
  // pending arrival that the copy's completion removes, so each thread also arrives
  // with mbarrier.arrive (count NT, as cuda::pipeline's producer_commit does).
  switch (which) {
  case INC_NOWAIT: case INC_OK: case NOINC_BAR_NOWAIT: case INC_BAR_NOWAIT: {
    // Reads of other threads' copied words before the wait (INC_OK: after it);
    // *_BAR_*: the copy is completed on the mbarrier, then a bar.sync, then the reads.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    cpasync4(&data[t], g + t);
    if (inc) { cp_arrive_inc(&bar[0]); mbar_arrive(&bar[0]); } else cp_arrive_noinc(&bar[0]);
    if (which == NOINC_BAR_NOWAIT || which == INC_BAR_NOWAIT) __syncthreads();
    if (which == INC_OK) fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[intra];
    out[NT + t] = data[cross];
    if (which != INC_OK) fl[0] = mbar_wait(&bar[0], 0);
    break; }
  case NOINC_BAR_BEFORE_ARRIVE: case INC_BAR_BEFORE_ARRIVE: {
    // The copy in flight across a bar.sync, other threads read its word, then its
    // thread completes it on the mbarrier (and later waits).
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    cpasync4(&data[t], g + t);
    __syncthreads();
    out[t] = data[intra];
    out[NT + t] = data[cross];
    if (inc) { cp_arrive_inc(&bar[0]); mbar_arrive(&bar[0]); } else cp_arrive_noinc(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    break; }
  case NOINC_WAR: case INC_WAR: {
    // Other threads read a word, then (no barrier) its thread copies into it.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    data[t] = 5u * t;
    __syncthreads();
    out[t] = data[intra];
    out[NT + t] = data[cross];
    cpasync4(&data[t], g + t);
    if (inc) { cp_arrive_inc(&bar[0]); mbar_arrive(&bar[0]); } else cp_arrive_noinc(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    break; }
  case NOINC_WAW: case INC_WAW: {
    // Other threads store to a word whose copy is in flight (before its arrive): lanes
    // of warp 0 to the words with bit 1 set, warp 1 to those with it clear (no two
    // plain stores to one word).
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    cpasync4(&data[t], g + t);
    if (w == 0 && (t & 2)) data[intra] = 7u;
    if (w == 1 && !(t & 2)) data[cross] = 9u;
    if (inc) { cp_arrive_inc(&bar[0]); mbar_arrive(&bar[0]); } else cp_arrive_noinc(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    __syncthreads();
    out[t] = data[t];
    break; }
  case WAITGROUP_NOWAIT: case WAITGROUP_BAR_NOWAIT: {
    // Controls: the same copy completed by cp.async.wait_all (after the reads).
    cpasync4(&data[t], g + t);
    cp_commit();
    if (which == WAITGROUP_BAR_NOWAIT) __syncthreads();
    out[t] = data[intra];
    out[NT + t] = data[cross];
    cp_wait_all();
    break; }
  case MIXED_LANES: {
    // One copy instruction per warp, its odd lanes completed by wait_all, its even
    // lanes through cp.async.mbarrier.arrive.noinc (count 32); the reads race with
    // both halves (no barrier): does racecheck report the odd lanes' words only?
    if (t == 0) { mbar_init(&bar[0], NT / 2); fence_mbar_init(); }
    __syncthreads();
    cpasync4(&data[t], g + t);
    cp_commit();
    if (t & 1) cp_wait_all(); else cp_arrive_noinc(&bar[0]);
    out[t] = data[intra];
    out[NT + t] = data[cross];
    fl[0] = mbar_wait(&bar[0], 0);
    cp_wait_all();
    break; }
  default: {
    // (2) Stores from shared: all 256 words written, fenced for the async proxy, then
    // thread 0 issues a 1-D bulk store (1 KiB) or a 2-D tensor store (box 32 x 8 u32,
    // 1 KiB) of data[0..256] and commits it. Then data[0..64] is rewritten: word 0
    // by thread 0 itself, words 2..31 by other lanes of warp 0, words 32..63 by warp 1.
    //   *_REWRITE: no wait_group.read, no barrier; *_WAITREAD: thread 0 waits with
    //   cp.async.bulk.wait_group.read 0 first (others not ordered after it);
    //   *_BAR_NOREAD: a bar.sync, no wait_group.read; *_OK: wait_group.read, bar.sync.
    bool tensor = which >= TENSOR_REWRITE;
    int v = (which - BULK_REWRITE) % 4;  // 0 rewrite, 1 waitread, 2 bar_noread, 3 ok
    for (int i = 0; i < 4; ++i) data[t + NT * i] = 3u * (t + NT * i);
    fence_proxy_async();
    __syncthreads();
    if (t == 0) {
      if (tensor) tma_store2(&tm, 0, 0, data); else bulk_s2g(out, data, 1024);
      bulk_commit();
      if (v == 1 || v == 3) bulk_wait_read0();
    }
    if (v >= 2) __syncthreads();
    if (t == 0) data[0] = 0xdead0000u;
    if (w == 0 && t >= 2) data[t] = 0xbeef0000u + t;
    if (w == 1) data[t] = 0xcafe0000u + t;
    if (t == 0) bulk_wait0();
    break; }
  }
}

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "list")) { for (int i = 0; names[i]; ++i) printf("%s\n", names[i]); return 0; }
  int which = -1;
  for (int i = 0; names[i]; ++i) if (!strcmp(names[i], argv[1])) which = i;
  if (which < 0) { fprintf(stderr, "unknown case\n"); return 2; }
  uint32_t *g, *out; Flags* f;
  CK(cudaMalloc(&g, 1 << 16)); CK(cudaMalloc(&out, 1 << 16)); CK(cudaMalloc(&f, sizeof(Flags)));
  static uint32_t hg[16384]; for (int i = 0; i < 16384; ++i) hg[i] = 0x1000 + i;
  CK(cudaMemcpy(g, hg, sizeof hg, cudaMemcpyHostToDevice));
  CK(cudaMemset(out, 0, 1 << 16)); CK(cudaMemset(f, 0, sizeof(Flags)));
  // The tensor store's map: a 64 x 64 u32 matrix at g, box 32 x 8.
  CUtensorMap tm; memset(&tm, 0, sizeof tm);
  cuuint64_t dims[2] = {64, 64}, strides[1] = {256}; cuuint32_t box[2] = {32, 8}, es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, g, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("CASE %s enc=%d\n", argv[1], (int)r);
  k<<<1, NT>>>(which, g, out, f, tm);
  cudaError_t e = cudaDeviceSynchronize();
  printf("launch: %s\n", cudaGetErrorString(e));
  Flags h; uint32_t ho[256], hgo[256];
  if (cudaMemcpy(&h, f, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess &&
      cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost) == cudaSuccess &&
      cudaMemcpy(hgo, g, sizeof hgo, cudaMemcpyDeviceToHost) == cudaSuccess) {
    printf("waits:"); for (int i = 0; i < NT; ++i) printf(" %d", h.v[i * 4]); printf("\n");
    printf("out:"); for (int i = 0; i < 256; ++i) printf(" %x", ho[i]); printf("\n");
    printf("g:"); for (int i = 0; i < 256; ++i) printf(" %x", hgo[i]); printf("\n");
  }
  return e == cudaSuccess ? 0 : 1;
}
