// A barrier error: __syncthreads() inside if (threadIdx.x < 16) in a block of
// 64 threads, so lanes 0-15 of warp 0 reach it and the other 48 threads do
// not. 1 block.
#include "fx.h"

__global__ void divergentBarrier(int *out, const int *in) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  if (threadIdx.x < 16) __syncthreads();
  out[t] = s[63 - t];
}

int main() {
  const int n = 64;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  int *di = fx_upload(in);
  int *dout = fx_alloc<int>(n);
  fx_record("divergentBarrier", dim3(1), dim3(n), 0,
            {fx_ptr(n * 4, "out, poisoned 0xff"), fx_ptr(n * 4, "in[i] = i")});
  divergentBarrier<<<1, n>>>(dout, di);
  fx_sync();
  return fx_check(true, "ran");
}
