// A race: every thread writes its own word and then reads its neighbours'
// (t+1 and t-1, wrapping in a block of 128 threads), with the
// __syncthreads() between the write and the reads missing. 2 blocks.
// Reads by lanes 31 and 0 of each warp cross into the next/previous warp.
#include "fx.h"

__global__ void racyNeighbour(int *out, const int *in) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  // missing: __syncthreads();
  out[blockIdx.x * 128 + t] = s[(t + 1) & 127] + s[(t + 127) & 127];
}

int main() {
  const int blocks = 2, n = blocks * 128;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  int *di = fx_upload(in);
  int *dout = fx_alloc<int>(n);
  fx_record("racyNeighbour", dim3(blocks), dim3(128), 0,
            {fx_ptr(n * 4, "out, poisoned 0xff"), fx_ptr(n * 4, "in[i] = i")});
  racyNeighbour<<<blocks, 128>>>(dout, di);
  fx_sync();
  auto r = fx_download(dout, n);
  bool ok = true;  // the values may or may not come out right: a race
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 128; ++t)
      ok &= r[b * 128 + t] == in[b * 128 + ((t + 1) & 127)] + in[b * 128 + ((t + 127) & 127)];
  return fx_check(true, ok ? "ran (values happened to be right)" : "ran (values wrong: the race showed)");
}
