// Occupancy ground truth on the device: one kernel compiled with
// -maxrregcount=REGS (a build per value), its real register count read with
// cudaFuncGetAttributes, then for each (threads per block, dynamic shared
// bytes, carveout preference):
//  - cudaOccupancyMaxActiveBlocksPerMultiprocessor (the runtime's answer),
//  - cuda_occupancy.h's answer from the live cudaDeviceProp and the kernel's
//    attributes (the header as the runtime's twin),
//  - the residency actually seen: a launch of 40 blocks per SM where each
//    block's thread 0 counts itself in on its SM (atomicAdd on a per-SM
//    counter, %smid), records the peak, spins SPIN cycles and counts itself
//    out; the largest peak over the SMs is the number of blocks that were
//    resident together.
// One JSON line per point on stdout.
#include <cstdio>
#include <cstring>
#include <climits>
#include <vector>
#include "cuda_occupancy.h"

#ifndef REGS
#define REGS 0
#endif
#ifndef NLIVE
#define NLIVE 96  // live floats: 96 needs 124 registers uncapped, 200 needs more
#endif

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "CUDA error %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));   \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

__global__ void occ_kernel(float *out, const float *in, int n, int mode, unsigned *cur, unsigned *peak,
                           long long spin) {
  extern __shared__ float dyn[];
  if (mode == 1) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (threadIdx.x == 0) {
      unsigned c = atomicAdd(&cur[smid], 1u) + 1u;
      atomicMax(&peak[smid], c);
      long long t0 = clock64();
      while (clock64() - t0 < spin) {
      }
      atomicSub(&cur[smid], 1u);
    }
    __syncthreads();
    return;
  }
  // Register pressure: NLIVE live floats, mixed in unrolled rounds.
  float r[NLIVE];
#pragma unroll
  for (int i = 0; i < NLIVE; ++i) r[i] = in[threadIdx.x + i * n];
#pragma unroll
  for (int k = 0; k < 6; ++k)
#pragma unroll
    for (int i = 0; i < NLIVE; ++i) r[i] = r[i] * r[(i + k + 1) % NLIVE] + 1.0f;
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < NLIVE; ++i) s += r[i] * (float)(i + 1);
  if (n < 0) dyn[threadIdx.x] = s;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, occ_kernel));
  int optin = (int)prop.sharedMemPerBlockOptin;
  CK(cudaFuncSetAttribute(occ_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - (int)fa.sharedSizeBytes));
  CK(cudaFuncGetAttributes(&fa, occ_kernel));
  int sms = prop.multiProcessorCount;
  unsigned *cur, *peak;
  CK(cudaMalloc(&cur, sms * 4 * 2));
  CK(cudaMalloc(&peak, sms * 4 * 2));
  float *out, *in;
  CK(cudaMalloc(&out, 64 << 20));
  CK(cudaMalloc(&in, 4 << 20));
  printf("{\"kind\":\"kernel\",\"nlive\":%d,\"maxrregcount\":%d,\"num_regs\":%d,\"static_shared\":%zu,\"local_bytes\":%zu,"
         "\"max_threads_per_block\":%d,\"max_dynamic_shared\":%d,\"device\":\"%s\",\"sms\":%d,"
         "\"shared_per_sm\":%zu,\"shared_per_block_optin\":%zu,\"reserved_shared_per_block\":%zu,"
         "\"regs_per_sm\":%d,\"max_threads_per_sm\":%d,\"max_blocks_per_sm\":%d}\n",
         NLIVE, REGS, fa.numRegs, fa.sharedSizeBytes, fa.localSizeBytes, fa.maxThreadsPerBlock,
         fa.maxDynamicSharedSizeBytes, prop.name, sms, prop.sharedMemPerMultiprocessor,
         prop.sharedMemPerBlockOptin, prop.reservedSharedMemPerBlock, prop.regsPerMultiprocessor,
         prop.maxThreadsPerMultiProcessor, prop.maxBlocksPerMultiProcessor);
  const int threads[] = {32, 64, 128, 256, 384, 512, 768, 1024};
  const int dyns[] = {0, 1024, 8192, 20480, 49152, 65536, 116736, 232448};
  std::vector<int> carveouts = {-1};
  if ((REGS == 32 || REGS == 64 || REGS == 255) && NLIVE == 96) carveouts = {-1, 0, 25, 50, 100};
  for (int cv : carveouts) {
    CK(cudaFuncSetAttribute(occ_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cv));
    for (int t : threads)
      for (int d : dyns) {
        if (cv != -1 && !(t == 128 || t == 256 || t == 1024)) continue;
        int rt = -1;
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&rt, occ_kernel, t, d);
        cudaGetLastError();
        // The header from the live properties.
        cudaOccDeviceProp op(prop);
        cudaOccFuncAttributes oa;
        oa.maxThreadsPerBlock = fa.maxThreadsPerBlock;
        oa.numRegs = fa.numRegs;
        oa.sharedSizeBytes = fa.sharedSizeBytes;
        oa.partitionedGCConfig = PARTITIONED_GC_OFF;
        oa.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        oa.maxDynamicSharedSizeBytes = fa.maxDynamicSharedSizeBytes;
        oa.numBlockBarriers = 1;
        cudaOccDeviceState os;
        os.cacheConfig = CACHE_PREFER_NONE;
        os.carveoutConfig = cv;
        cudaOccResult orr;
        memset(&orr, 0, sizeof orr);
        cudaOccError oe = cudaOccMaxActiveBlocksPerMultiprocessor(&orr, &op, &oa, &os, t, d);
        // Residency seen.
        int seen = -1, seen_min = -1;
        const char *lerr = "not launched";
        if (e == cudaSuccess && rt > 0) {
          CK(cudaMemset(cur, 0, sms * 8));
          CK(cudaMemset(peak, 0, sms * 8));
          occ_kernel<<<sms * 40, t, d>>>(out, in, 1024, 1, cur, peak, 200000);
          cudaError_t le = cudaGetLastError();
          if (le == cudaSuccess) le = cudaDeviceSynchronize();
          lerr = cudaGetErrorString(le);
          if (le == cudaSuccess) {
            std::vector<unsigned> h(sms);
            CK(cudaMemcpy(h.data(), peak, sms * 4, cudaMemcpyDeviceToHost));
            seen = 0;
            seen_min = INT_MAX;
            for (unsigned v : h) {
              if ((int)v > seen) seen = v;
              if ((int)v < seen_min) seen_min = v;
            }
          }
        } else {
          // Does a launch of this shape fail, as the answer 0 says it must?
          occ_kernel<<<1, t, d>>>(out, in, 1024, 1, cur, peak, 0);
          cudaError_t le = cudaGetLastError();
          if (le == cudaSuccess) le = cudaDeviceSynchronize();
          lerr = cudaGetErrorString(le);
        }
        printf("{\"kind\":\"occupancy\",\"nlive\":%d,\"maxrregcount\":%d,\"num_regs\":%d,\"threads\":%d,\"dynamic_shared\":%d,"
               "\"static_shared\":%zu,\"carveout\":%d,\"runtime_status\":\"%s\",\"runtime_blocks_per_sm\":%d,"
               "\"header_status\":%d,\"header_blocks_per_sm\":%d,\"header_limiting\":%u,"
               "\"header_limit_registers\":%d,\"header_limit_shared\":%d,\"header_limit_warps\":%d,"
               "\"header_limit_blocks\":%d,\"header_allocated_shared_per_block\":%zu,"
               "\"seen_blocks_per_sm_max\":%d,\"seen_blocks_per_sm_min\":%d,\"launch\":\"%s\"}\n",
               NLIVE, REGS, fa.numRegs, t, d, fa.sharedSizeBytes, cv, cudaGetErrorString(e), rt, (int)oe,
               orr.activeBlocksPerMultiprocessor, orr.limitingFactors,
               orr.blockLimitRegs == INT_MAX ? -1 : orr.blockLimitRegs,
               orr.blockLimitSharedMem == INT_MAX ? -1 : orr.blockLimitSharedMem,
               orr.blockLimitWarps == INT_MAX ? -1 : orr.blockLimitWarps,
               orr.blockLimitBlocks == INT_MAX ? -1 : orr.blockLimitBlocks, orr.allocatedSharedMemPerBlock,
               seen, seen_min, lerr);
        fflush(stdout);
      }
  }
  return 0;
}
