// The usual block sum: __shfl_down_sync within each warp, lane 0 of each warp
// writes its partial to shared memory (one active lane), a barrier, then the
// first warp reads the partials back (lanes < number of warps active) and
// reduces them with shuffles. 32 blocks of 256 threads over 8192 ints
// (in[i] = i % 13).
#include "fx.h"

__global__ void warpShuffleReduce(const int *in, int *out) {
  __shared__ int partial[32];
  int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  int v = in[blockIdx.x * blockDim.x + t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? partial[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

int main() {
  const int blocks = 32, threads = 256, n = blocks * threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i % 13;
  int *di = fx_upload(in);
  int *dout = fx_alloc<int>(blocks);
  fx_record("warpShuffleReduce", dim3(blocks), dim3(threads), 0,
            {fx_ptr(n * 4, "in[i] = i % 13"), fx_ptr(blocks * 4, "out, poisoned 0xff")});
  warpShuffleReduce<<<blocks, threads>>>(di, dout);
  fx_sync();
  auto r = fx_download(dout, blocks);
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    int s = 0;
    for (int j = 0; j < threads; ++j) s += in[b * threads + j];
    ok &= r[b] == s;
  }
  return fx_check(ok, "block sums");
}
