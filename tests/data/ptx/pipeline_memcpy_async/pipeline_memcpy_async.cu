// cp.async through cuda_pipeline.h (the CUDA 11 primitives): each thread
// copies 4 bytes (a .ca LDGSTS of 4 bytes) and 8 bytes into shared memory
// with __pipeline_memcpy_async, commits, waits with __pipeline_wait_prior(0),
// then a barrier and reads of its neighbours' words. 4 blocks of 128 threads.
#include <cuda_pipeline.h>
#include "fx.h"

__global__ void pipelineMemcpyAsync(int *out, const int *in, const int2 *in2) {
  __shared__ int s[128];
  __shared__ int2 s2[128];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &in[blockIdx.x * 128 + t], sizeof(int));
  __pipeline_memcpy_async(&s2[t], &in2[blockIdx.x * 128 + t], sizeof(int2));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  int2 v = s2[(t + 1) & 127];
  out[blockIdx.x * 128 + t] = s[(t + 1) & 127] + v.x + v.y;
}

int main() {
  const int blocks = 4, n = blocks * 128;
  std::vector<int> in(n);
  std::vector<int2> in2(n);
  for (int i = 0; i < n; ++i) {
    in[i] = i;
    in2[i] = make_int2(i % 3, i % 5);
  }
  int *di = fx_upload(in);
  int2 *di2 = fx_upload(in2);
  int *dout = fx_alloc<int>(n);
  fx_record("pipelineMemcpyAsync", dim3(blocks), dim3(128), 0,
            {fx_ptr(n * 4, "out, poisoned 0xff"), fx_ptr(n * 4, "in[i] = i"),
             fx_ptr(n * 8, "in2[i] = int2(i % 3, i % 5)")});
  pipelineMemcpyAsync<<<blocks, 128>>>(dout, di, di2);
  fx_sync();
  auto r = fx_download(dout, n);
  bool ok = true;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 128; ++t) {
      int j = b * 128 + ((t + 1) & 127);
      ok &= r[b * 128 + t] == in[j] + in2[j].x + in2[j].y;
    }
  return fx_check(ok, "values");
}
