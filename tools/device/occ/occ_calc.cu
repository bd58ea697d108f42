// NVIDIA's occupancy calculator (cuda_occupancy.h, header-only, from the CUDA
// toolkit) over a grid of (compute capability, threads per block, registers
// per thread, dynamic shared bytes per block, carveout preference). One JSON
// line per point. The device properties fed for each capability are the CUDA
// C++ Programming Guide's per-capability limits (table "Technical
// Specifications per Compute Capability"); they are printed first, one
// {"kind":"device"} line each. No GPU is used.
#include <cstdio>
#include <climits>
#include <cstring>
#include "cuda_occupancy.h"

struct Cap {
  int major, minor, threadsPerSM, regsPerSM, regsPerBlock;
  size_t smemPerSM, smemPerBlockOptin, reserved;
};
// Guide values: max resident threads per SM, 32-bit registers per SM and per
// block, shared memory per SM (the largest carveout), per block with the
// opt-in, and reserved per block (1 KB from 8.0 on).
static const Cap caps[] = {
    {3, 5, 2048, 65536, 65536, 49152, 49152, 0},      {3, 7, 2048, 131072, 65536, 114688, 49152, 0},
    {5, 0, 2048, 65536, 65536, 65536, 49152, 0},      {5, 2, 2048, 65536, 65536, 98304, 49152, 0},
    {5, 3, 2048, 65536, 32768, 65536, 49152, 0},      {6, 0, 2048, 65536, 65536, 65536, 49152, 0},
    {6, 1, 2048, 65536, 65536, 98304, 49152, 0},      {6, 2, 2048, 65536, 65536, 65536, 49152, 0},
    {7, 0, 2048, 65536, 65536, 98304, 98304, 0},      {7, 2, 2048, 65536, 65536, 98304, 98304, 0},
    {7, 5, 1024, 65536, 65536, 65536, 65536, 0},      {8, 0, 2048, 65536, 65536, 167936, 166912, 1024},
    {8, 6, 1536, 65536, 65536, 102400, 101376, 1024}, {8, 7, 1536, 65536, 65536, 167936, 166912, 1024},
    {8, 9, 1536, 65536, 65536, 102400, 101376, 1024}, {9, 0, 2048, 65536, 65536, 233472, 232448, 1024},
    {10, 0, 2048, 65536, 65536, 233472, 232448, 1024}, {10, 3, 2048, 65536, 65536, 233472, 232448, 1024},
    {11, 0, 1536, 65536, 65536, 233472, 232448, 1024}, {12, 0, 1536, 65536, 65536, 102400, 101376, 1024},
    {12, 1, 1536, 65536, 65536, 102400, 101376, 1024},
};

static cudaOccDeviceProp prop_of(const Cap &c) {
  cudaOccDeviceProp p;
  p.computeMajor = c.major;
  p.computeMinor = c.minor;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = c.threadsPerSM;
  p.regsPerBlock = c.regsPerBlock;
  p.regsPerMultiprocessor = c.regsPerSM;
  p.warpSize = 32;
  p.sharedMemPerBlock = 49152;
  p.sharedMemPerMultiprocessor = c.smemPerSM;
  p.numSms = 1;
  p.sharedMemPerBlockOptin = c.smemPerBlockOptin;
  p.reservedSharedMemPerBlock = c.reserved;
  return p;
}

static void limiting(unsigned f, char *buf) {
  buf[0] = 0;
  const char *names[] = {"warps", "registers", "shared_memory", "blocks", "barriers"};
  int first = 1;
  for (int i = 0; i < 5; ++i)
    if (f & (1u << i)) {
      sprintf(buf + strlen(buf), "%s\"%s\"", first ? "" : ",", names[i]);
      first = 0;
    }
}

static void point(const Cap &c, int threads, int regs, size_t smem, int carveout) {
  cudaOccDeviceProp p = prop_of(c);
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = 1024;
  a.numRegs = regs;
  a.sharedSizeBytes = 0;
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = smem > 49152 ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  a.maxDynamicSharedSizeBytes = smem > 49152 ? smem : 49152;
  a.numBlockBarriers = 1;
  cudaOccDeviceState s;
  s.cacheConfig = CACHE_PREFER_NONE;
  s.carveoutConfig = carveout;
  cudaOccResult r;
  memset(&r, 0, sizeof r);
  cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, threads, smem);
  char lim[128];
  limiting(r.limitingFactors, lim);
  printf("{\"kind\":\"occupancy\",\"cc\":\"%d.%d\",\"threads\":%d,\"registers\":%d,\"dynamic_shared\":%zu,"
         "\"static_shared\":0,\"carveout\":%d,\"shmem_limit_config\":\"%s\",\"status\":%d",
         c.major, c.minor, threads, regs, smem, carveout, smem > 49152 ? "optin" : "default", (int)e);
  if (e == CUDA_OCC_SUCCESS) {
    printf(",\"blocks_per_sm\":%d,\"warps_per_sm\":%d,\"limiting\":[%s],\"limit_registers\":%d,"
           "\"limit_shared\":%d,\"limit_warps\":%d,\"limit_blocks\":%d,\"limit_barriers\":%d,"
           "\"allocated_registers_per_block\":%d,\"allocated_shared_per_block\":%zu",
           r.activeBlocksPerMultiprocessor, r.activeBlocksPerMultiprocessor * ((threads + 31) / 32), lim,
           r.blockLimitRegs == INT_MAX ? -1 : r.blockLimitRegs,
           r.blockLimitSharedMem == INT_MAX ? -1 : r.blockLimitSharedMem,
           r.blockLimitWarps == INT_MAX ? -1 : r.blockLimitWarps,
           r.blockLimitBlocks == INT_MAX ? -1 : r.blockLimitBlocks,
           r.blockLimitBarriers == INT_MAX ? -1 : r.blockLimitBarriers, r.allocatedRegistersPerBlock,
           r.allocatedSharedMemPerBlock);
  }
  printf("}\n");
}

int main() {
  for (const Cap &c : caps) {
    cudaOccDeviceProp p = prop_of(c);
    int sg = -1, rg = -1, rmax = -1, bmax = -1, parts = -1;
    cudaOccError e1 = cudaOccSMemAllocationGranularity(&sg, &p);
    cudaOccRegAllocationGranularity(&rg, &p);
    cudaOccRegAllocationMaxPerThread(&rmax, &p);
    cudaOccMaxBlocksPerMultiprocessor(&bmax, &p);
    cudaOccSubPartitionsPerMultiprocessor(&parts, &p);
    printf("{\"kind\":\"device\",\"cc\":\"%d.%d\",\"known\":%s,\"max_threads_per_sm\":%d,\"regs_per_sm\":%d,"
           "\"regs_per_block\":%d,\"shared_per_sm\":%zu,\"shared_per_block\":49152,\"shared_per_block_optin\":%zu,"
           "\"reserved_shared_per_block\":%zu,\"header_shared_granularity\":%d,\"header_register_granularity\":%d,"
           "\"header_max_registers_per_thread\":%d,\"header_max_blocks_per_sm\":%d,\"header_subpartitions\":%d}\n",
           c.major, c.minor, e1 == CUDA_OCC_SUCCESS ? "true" : "false", c.threadsPerSM, c.regsPerSM,
           c.regsPerBlock, c.smemPerSM, c.smemPerBlockOptin, c.reserved, sg, rg, rmax, bmax, parts);
  }
  const int threads[] = {32, 96, 128, 256, 512, 768, 1024};
  const int regs[] = {16, 33, 64, 128, 255};
  const size_t smem[] = {0, 12288, 40000, 100000};
  for (const Cap &c : caps)
    for (int t : threads)
      for (int r : regs)
        for (size_t m : smem) point(c, t, r, m, -1);
  // Carveout preferences, for the capabilities with a configurable split.
  const int carveouts[] = {0, 25, 50, 100};
  const size_t csmem[] = {0, 12288, 40000, 100000};
  for (const Cap &c : caps) {
    if (c.major < 7) continue;
    for (int cv : carveouts)
      for (int t : {128, 256})
        for (size_t m : csmem) point(c, t, 32, m, cv);
  }
  return 0;
}
