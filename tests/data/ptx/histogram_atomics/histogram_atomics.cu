// A 256-bin histogram with shared-memory atomics: each block clears its own
// bins, counts its grid-stride share of the data with atomicAdd on shared
// memory, then adds its bins to the global histogram. 16 blocks of 256
// threads, 16384 bytes of data (data[i] = (i * 2654435761) >> 24: Knuth's
// multiplicative hash, so a warp's bins collide now and then). The shared
// addresses depend on the data: the model must call them data-dependent.
#include "fx.h"

__global__ void histogram256(unsigned *hist, const unsigned char *data, int n) {
  __shared__ unsigned s_hist[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s_hist[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], s_hist[i]);
}

int main() {
  const int blocks = 16, threads = 256, n = 16384;
  std::vector<unsigned char> in(n);
  for (int i = 0; i < n; ++i) in[i] = (unsigned char)(((unsigned)i * 2654435761u) >> 24);
  unsigned char *di = fx_upload(in);
  unsigned *dh = nullptr;
  CK(cudaMalloc(&dh, 256 * 4));
  CK(cudaMemset(dh, 0, 256 * 4));
  fx_record("histogram256", dim3(blocks), dim3(threads), 0,
            {fx_ptr(256 * 4, "hist, zeroed"), fx_ptr(n, "data[i] = (unsigned char)((i * 2654435761u) >> 24)"),
             fx_int(n)});
  histogram256<<<blocks, threads>>>(dh, di, n);
  fx_sync();
  auto r = fx_download(dh, 256);
  std::vector<unsigned> ref(256, 0);
  for (int i = 0; i < n; ++i) ref[in[i]]++;
  return fx_check(r == ref, "histogram");
}
