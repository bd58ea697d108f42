// Work-efficient exclusive scan (Blelloch), GPU Gems 3 chapter 39, Example
// 39-2 (without the bank-conflict-avoiding offsets), on ints: each block of
// 256 threads scans its own 512 elements in 2 KB of dynamic shared memory;
// 8 blocks.
#include "fx.h"

__global__ void prescan(int *g_odata, const int *g_idata, int n) {
  extern __shared__ int temp[];
  int thid = threadIdx.x;
  int offset = 1;
  const int *in = g_idata + blockIdx.x * n;
  int *out = g_odata + blockIdx.x * n;
  temp[2 * thid] = in[2 * thid];
  temp[2 * thid + 1] = in[2 * thid + 1];
  for (int d = n >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  out[2 * thid] = temp[2 * thid];
  out[2 * thid + 1] = temp[2 * thid + 1];
}

int main() {
  const int n = 512, blocks = 8, threads = n / 2;
  std::vector<int> in(n * blocks);
  for (int i = 0; i < n * blocks; ++i) in[i] = (i * 3) % 11;
  int *di = fx_upload(in);
  int *dout = fx_alloc<int>(n * blocks);
  size_t dyn = n * sizeof(int);
  fx_record("prescan", dim3(blocks), dim3(threads), dyn,
            {fx_ptr(n * blocks * 4, "g_odata, poisoned 0xff"), fx_ptr(n * blocks * 4, "g_idata[i] = (i * 3) % 11"),
             fx_int(n)});
  prescan<<<blocks, threads, dyn>>>(dout, di, n);
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
