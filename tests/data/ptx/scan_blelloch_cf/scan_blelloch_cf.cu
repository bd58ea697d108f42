// The same scan with GPU Gems 3's bank-conflict avoidance (39.2.3): every
// index ai gets CONFLICT_FREE_OFFSET(ai) = ai >> 5 added (32 banks), and the
// shared array grows by n/32 ints; 512 elements per block of 256 threads,
// 8 blocks, 2112 bytes of dynamic shared memory.
#include "fx.h"

#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void prescanConflictFree(int *g_odata, const int *g_idata, int n) {
  extern __shared__ int temp[];
  int thid = threadIdx.x;
  int offset = 1;
  const int *in = g_idata + blockIdx.x * n;
  int *out = g_odata + blockIdx.x * n;
  int ai = thid, bi = thid + (n / 2);
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
  int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = in[ai];
  temp[bi + bankOffsetB] = in[bi];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai);
      bi += CONFLICT_FREE_OFFSET(bi);
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai);
      bi += CONFLICT_FREE_OFFSET(bi);
      int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  out[ai] = temp[ai + bankOffsetA];
  out[bi] = temp[bi + bankOffsetB];
}

int main() {
  const int n = 512, blocks = 8, threads = n / 2;
  std::vector<int> in(n * blocks);
  for (int i = 0; i < n * blocks; ++i) in[i] = (i * 3) % 11;
  int *di = fx_upload(in);
  int *dout = fx_alloc<int>(n * blocks);
  size_t dyn = (n + n / 32) * sizeof(int);
  fx_record("prescanConflictFree", dim3(blocks), dim3(threads), dyn,
            {fx_ptr(n * blocks * 4, "g_odata, poisoned 0xff"), fx_ptr(n * blocks * 4, "g_idata[i] = (i * 3) % 11"),
             fx_int(n)});
  prescanConflictFree<<<blocks, threads, dyn>>>(dout, di, n);
  fx_sync();
  auto r = fx_download(dout, n * blocks);
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    int s = 0;
    for (int j = 0; j < n; ++j) {
      ok &= r[b * n + j] == s;
      s += in[b * n + j];
    }
  }
  return fx_check(ok, "exclusive scans");
}
