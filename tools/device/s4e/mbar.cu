// Probe (c): mbarrier semantics and compute-sanitizer's verdicts (synccheck,
// racecheck) on small kernels, one case per process: ./mbar CASE
// Each case prints "CASE name" and the flags its threads recorded (wait results,
// try/test_wait answers, arrive tokens). ./mbar list prints the case names.
#include "common.h"

#define NT 64
struct Flags { int v[NT * 4]; };

__device__ __forceinline__ uint64_t mbar_arrive_cnt(uint64_t* b, uint32_t n) {
  uint64_t st;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(smem_u32(b)), "r"(n) : "memory");
  return st;
}
__device__ __forceinline__ bool mbar_test_state(uint64_t* b, uint64_t st) {
  uint32_t ok;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
               : "=r"(ok) : "r"(smem_u32(b)), "l"(st) : "memory");
  return ok != 0;
}
__device__ __forceinline__ void cpasync4(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem_u32(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void cpasync_mbar_arrive_noinc(uint64_t* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void cpasync_mbar_arrive(uint64_t* b) {
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(smem_u32(b)) : "memory");
}

__global__ void k(int which, const uint32_t* g, uint32_t* out, Flags* f, const __grid_constant__ CUtensorMap tm) {
  __shared__ __align__(128) uint32_t data[1024];
  __shared__ __align__(8) uint64_t bar[4];
  int t = threadIdx.x, w = t / 32, lane = t % 32;
  int* fl = f->v + t * 4;
  switch (which) {
  case 0: case 1: {  // pc_ok / pc_nowait: warp 0 writes, arrives; warp 1 waits (or not) and reads.
    if (t == 0) { mbar_init(&bar[0], 32); fence_mbar_init(); }
    __syncthreads();
    if (w == 0) { data[lane] = lane + 1; mbar_arrive(&bar[0]); }
    else { if (which == 0) fl[0] = mbar_wait(&bar[0], 0); out[lane] = data[lane]; }
    break; }
  case 2: case 3: {  // bulk_ok / bulk_nowait: 1-D bulk copy, all threads read after the wait (or not).
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) { mbar_arrive_expect_tx(&bar[0], 256); bulk_g2s(data, g, 256, &bar[0]); }
    if (which == 2) fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[t];
    if (which == 3) fl[0] = mbar_wait(&bar[0], 0);  // drain before exit
    break; }
  case 4: case 5: {  // tensor_ok / tensor_nowait: 2-D TMA (box 32x8 of u32).
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) { int c[5] = {0, 0, 0, 0, 0}; mbar_arrive_expect_tx(&bar[0], 1024); tma_load(2, data, &tm, c, &bar[0]); }
    if (which == 4) fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[t];
    if (which == 5) fl[0] = mbar_wait(&bar[0], 0);
    break; }
  case 6: {  // arrive_over_count: init 4, one arrive with count 8.
    if (t == 0) { mbar_init(&bar[0], 4); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) { uint64_t st = mbar_arrive_cnt(&bar[0], 8); fl[1] = (int)(st & 0xffffffff); fl[2] = (int)(st >> 32); }
    __syncthreads();
    fl[0] = mbar_try_wait(&bar[0], 0); fl[3] = mbar_try_wait(&bar[0], 1);
    break; }
  case 7: {  // arrive_extra_threads: init 32, all 64 threads arrive once, then wait phase 1.
    if (t == 0) { mbar_init(&bar[0], 32); fence_mbar_init(); }
    __syncthreads();
    mbar_arrive(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0); fl[1] = mbar_wait(&bar[0], 1);
    break; }
  case 8: {  // never_completes: init 64, only warp 0 arrives, everyone waits (bounded).
    if (t == 0) { mbar_init(&bar[0], 64); fence_mbar_init(); }
    __syncthreads();
    if (w == 0) mbar_arrive(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0, 20000000ull);
    break; }
  case 9: case 10: {  // tma_store_nofence / tma_store_fence: st.shared then a bulk store.
    data[t] = t * 3;
    if (which == 10) fence_proxy_async();
    __syncthreads();
    if (t == 0) { bulk_s2g(out, data, NT * 4); bulk_commit(); bulk_wait0(); }
    break; }
  case 11: case 12: {  // reuse_noinval / reuse_inval: a barrier's word reused as data.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    mbar_arrive(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    __syncthreads();
    if (t == 0) { if (which == 12) mbar_inval(&bar[0]); ((volatile uint32_t*)&bar[0])[0] = 7; }
    __syncthreads();
    out[t] = ((volatile uint32_t*)&bar[0])[0];
    break; }
  case 13: {  // reinit_noinval: init twice without inval.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    mbar_arrive(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    __syncthreads();
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    mbar_arrive(&bar[0]);
    fl[1] = mbar_wait(&bar[0], 0);
    break; }
  case 14: {  // parity_semantics: what try_wait/test_wait answer in each state.
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) {
      fl[0] = mbar_test_wait(&bar[0], 0); fl[1] = mbar_test_wait(&bar[0], 1);   // phase 0 pending
      uint64_t st = mbar_arrive(&bar[0]);                                         // completes phase 0
      fl[2] = mbar_test_wait(&bar[0], 0); fl[3] = mbar_test_wait(&bar[0], 1);
      f->v[NT * 4 - 1] = mbar_test_state(&bar[0], st);
      mbar_arrive(&bar[0]);                                                       // completes phase 1
      f->v[NT * 4 - 2] = mbar_test_wait(&bar[0], 0); f->v[NT * 4 - 3] = mbar_test_wait(&bar[0], 1);
      uint64_t raw = *(volatile uint64_t*)&bar[0];
      f->v[NT * 4 - 4] = (int)(raw & 0xffffffff); f->v[NT * 4 - 5] = (int)(raw >> 32);
    }
    break; }
  case 15: {  // expect_tx_short: expects 512 bytes, copies 256 (bounded wait).
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) { mbar_arrive_expect_tx(&bar[0], 512); bulk_g2s(data, g, 256, &bar[0]); }
    fl[0] = mbar_wait(&bar[0], 0, 20000000ull);
    out[t] = data[t];
    break; }
  case 16: {  // expect_tx_over: expects 256, copies 512.
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) { mbar_arrive_expect_tx(&bar[0], 256); bulk_g2s(data, g, 512, &bar[0]); }
    fl[0] = mbar_wait(&bar[0], 0, 20000000ull);
    out[t] = data[t];
    fl[1] = mbar_wait(&bar[0], 1, 20000000ull);
    break; }
  case 17: {  // no_init: arrive and wait on a word never initialised.
    __syncthreads();
    mbar_arrive(&bar[1]);
    fl[0] = mbar_wait(&bar[1], 0, 20000000ull);
    break; }
  case 18: case 19: {  // pipeline_ok / pipeline_noempty: 2 stages, full/empty barriers, 6 rounds.
    if (t == 0) { mbar_init(&bar[0], 32); mbar_init(&bar[1], 32); mbar_init(&bar[2], 32); mbar_init(&bar[3], 32); fence_mbar_init(); }
    __syncthreads();
    for (int it = 0; it < 6; ++it) {
      int s = it & 1; uint32_t ph = (it >> 1) & 1;
      if (w == 0) {
        if (it >= 2 && which == 18) fl[0] += !mbar_wait(&bar[2 + s], ph ^ 1);  // empty[s]
        data[s * 32 + lane] = it * 100 + lane;
        mbar_arrive(&bar[s]);                                                  // full[s]
      } else {
        fl[1] += !mbar_wait(&bar[s], ph);
        out[it * 32 + lane] = data[s * 32 + lane];
        mbar_arrive(&bar[2 + s]);
      }
    }
    break; }
  case 20: case 21: {  // cpasync_mbar_ok / cpasync_mbar_nowait: cp.async + cp.async.mbarrier.arrive.noinc.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    cpasync4(&data[t], g + t);
    cpasync_mbar_arrive_noinc(&bar[0]);
    if (which == 20) fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[(t + 1) % NT];
    if (which == 21) fl[0] = mbar_wait(&bar[0], 0);
    break; }
  case 22: {  // cpasync_mbar_inc: cp.async.mbarrier.arrive (with increment), init NT, plus a normal arrive each.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    cpasync4(&data[t], g + t);
    cpasync_mbar_arrive(&bar[0]);
    mbar_arrive(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[(t + 1) % NT];
    break; }
  case 23: {  // complete_tx_manual: expect_tx + complete_tx by threads, no copy.
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) mbar_expect_tx(&bar[0], 64);
    __syncthreads();
    if (w == 0) { data[lane] = lane; mbar_complete_tx(&bar[0], 2); }
    __syncthreads();
    if (t == 0) mbar_arrive(&bar[0]);
    fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[(t + 3) % 32];
    break; }
  case 24: {  // write_tma_dst_while_pending: a thread st.shared into the destination of a pending TMA.
    if (t == 0) { mbar_init(&bar[0], 1); fence_mbar_init(); }
    __syncthreads();
    if (t == 0) { mbar_arrive_expect_tx(&bar[0], 256); bulk_g2s(data, g, 256, &bar[0]); }
    if (t == 1) data[5] = 99;
    fl[0] = mbar_wait(&bar[0], 0);
    out[t] = data[t];
    break; }
  case 25: {  // arrive_after_complete_wrong_phase: wait on parity 1 before anything arrives.
    if (t == 0) { mbar_init(&bar[0], NT); fence_mbar_init(); }
    __syncthreads();
    fl[0] = mbar_try_wait(&bar[0], 1);
    if (w == 1) fl[1] = mbar_wait(&bar[0], 1);
    if (w == 1) out[lane] = data[lane];
    if (w == 0) data[lane] = lane;
    mbar_arrive(&bar[0]);
    fl[2] = mbar_wait(&bar[0], 0);
    break; }
  }
}

static const char* names[] = {"pc_ok", "pc_nowait", "bulk_ok", "bulk_nowait", "tensor_ok", "tensor_nowait",
  "arrive_over_count", "arrive_extra_threads", "never_completes", "tma_store_nofence", "tma_store_fence",
  "reuse_noinval", "reuse_inval", "reinit_noinval", "parity_semantics", "expect_tx_short", "expect_tx_over",
  "no_init", "pipeline_ok", "pipeline_noempty", "cpasync_mbar_ok", "cpasync_mbar_nowait", "cpasync_mbar_inc",
  "complete_tx_manual", "write_tma_dst_while_pending", "wait_parity1_first", nullptr};

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "list")) { for (int i = 0; names[i]; ++i) printf("%s\n", names[i]); return 0; }
  // "counters": the clean cases one after another in one process (for Nsight Compute).
  const char* counters[] = {"pc_ok", "bulk_ok", "tensor_ok", "pipeline_ok", "cpasync_mbar_ok", "tma_store_fence", "parity_semantics", nullptr};
  bool many = !strcmp(argv[1], "counters");
  int which = -1;
  for (int i = 0; names[i]; ++i) if (!strcmp(names[i], argv[1])) which = i;
  if (which < 0 && !many) { fprintf(stderr, "unknown case\n"); return 2; }
  uint32_t *g, *out; Flags* f;
  CK(cudaMalloc(&g, 1 << 16)); CK(cudaMalloc(&out, 1 << 16)); CK(cudaMalloc(&f, sizeof(Flags)));
  uint32_t hg[4096]; for (int i = 0; i < 4096; ++i) hg[i] = 0x1000 + i;
  CK(cudaMemcpy(g, hg, sizeof hg, cudaMemcpyHostToDevice));
  CK(cudaMemset(out, 0, 1 << 16)); CK(cudaMemset(f, 0, sizeof(Flags)));
  CUtensorMap tm; memset(&tm, 0, sizeof tm);
  cuuint64_t dims[2] = {64, 64}, strides[1] = {256}; cuuint32_t box[2] = {32, 8}, es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, g, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (many) {
    for (int c = 0; counters[c]; ++c) {
      for (int i = 0; names[i]; ++i) if (!strcmp(names[i], counters[c])) which = i;
      k<<<1, NT>>>(which, g, out, f, tm);
      cudaError_t e = cudaDeviceSynchronize();
      printf("CASE %s launch=%s\n", counters[c], cudaGetErrorString(e));
      if (e != cudaSuccess) return 1;
    }
    return 0;
  }
  printf("CASE %s enc=%d\n", argv[1], (int)r);
  k<<<1, NT>>>(which, g, out, f, tm);
  cudaError_t e = cudaDeviceSynchronize();
  printf("launch: %s\n", cudaGetErrorString(e));
  Flags h; uint32_t ho[256];
  if (cudaMemcpy(&h, f, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess &&
      cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost) == cudaSuccess) {
    printf("flags:"); for (int i = 0; i < NT * 4; ++i) printf(" %d", h.v[i]); printf("\n");
    printf("out:"); for (int i = 0; i < 256; ++i) printf(" %x", ho[i]); printf("\n");
  }
  return e == cudaSuccess ? 0 : 1;
}
