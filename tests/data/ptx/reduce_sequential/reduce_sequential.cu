// cuda-samples' reduce2: sequential addressing (tid < s, s halving): conflict-free.
// Blocks of 256 threads, 64 blocks, n = 16384 ints (in[i] = i % 7); the block's
// shared array is dynamic (256 ints = 1024 bytes), as in cuda-samples' reduction.
#include "fx.h"

__global__ void reduce2(const int *g_idata, int *g_odata, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

int main() {
  const unsigned threads = 256, blocks = 64, n = threads * blocks;
  std::vector<int> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = i % 7;
  int *di = fx_upload(in);
  int *dout = fx_alloc<int>(blocks);
  size_t dyn = threads * sizeof(int);
  fx_record("reduce2", dim3(blocks), dim3(threads), dyn,
            {fx_ptr(n * 4, "g_idata[i] = i % 7"), fx_ptr(blocks * 4, "g_odata, poisoned 0xff"), fx_int(n)});
  reduce2<<<blocks, threads, dyn>>>(di, dout, n);
  fx_sync();
  auto r = fx_download(dout, blocks);
  bool ok = true;
  for (unsigned b = 0; b < blocks; ++b) {
    int s = 0;
    for (unsigned j = 0; j < threads; ++j) s += in[b * threads + j];
    ok &= r[b] == s;
  }
  return fx_check(ok, "block sums");
}
