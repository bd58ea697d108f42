// Bitonic sort in shared memory after cuda-samples' bitonicSortShared
// (Samples/2_Concepts_and_Techniques/sortingNetworks), keys only: each block
// of 512 threads sorts 1024 unsigned keys ascending; 8 blocks. The comparator
// is written branch-free (min/max, then both stored unconditionally) so that
// the shared accesses do not depend on the key values.
#include "fx.h"

#define SHARED_SIZE_LIMIT 1024U

__device__ inline void Comparator(unsigned &keyA, unsigned &keyB, unsigned dir) {
  unsigned lo = min(keyA, keyB), hi = max(keyA, keyB);
  keyA = dir ? lo : hi;
  keyB = dir ? hi : lo;
}

__global__ void bitonicSortShared(unsigned *d_DstKey, const unsigned *d_SrcKey, unsigned arrayLength,
                                  unsigned dir) {
  __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
  d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x + 0] = d_SrcKey[0];
  s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
  for (unsigned size = 2; size < arrayLength; size <<= 1) {
    unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_key[pos + stride], ddd);
    }
  }
  for (unsigned stride = arrayLength / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    Comparator(s_key[pos + 0], s_key[pos + stride], dir);
  }
  __syncthreads();
  d_DstKey[0] = s_key[threadIdx.x + 0];
  d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}

int main() {
  const unsigned blocks = 8, n = blocks * SHARED_SIZE_LIMIT;
  std::vector<unsigned> in(n);
  unsigned x = 12345u;
  for (unsigned i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;  // Numerical Recipes' LCG
    in[i] = x >> 8;
  }
  unsigned *di = fx_upload(in);
  unsigned *dout = fx_alloc<unsigned>(n);
  fx_record("bitonicSortShared", dim3(blocks), dim3(SHARED_SIZE_LIMIT / 2), 0,
            {fx_ptr(n * 4, "d_DstKey, poisoned 0xff"),
             fx_ptr(n * 4, "d_SrcKey: x = 12345; x = x * 1664525 + 1013904223; key = x >> 8"),
             fx_int(SHARED_SIZE_LIMIT), fx_int(1)});
  bitonicSortShared<<<blocks, SHARED_SIZE_LIMIT / 2>>>(dout, di, SHARED_SIZE_LIMIT, 1);
  fx_sync();
  auto r = fx_download(dout, n);
  bool ok = true;
  for (unsigned b = 0; b < blocks; ++b) {
    std::vector<unsigned> ref(in.begin() + b * SHARED_SIZE_LIMIT, in.begin() + (b + 1) * SHARED_SIZE_LIMIT);
    std::sort(ref.begin(), ref.end());
    for (unsigned j = 0; j < SHARED_SIZE_LIMIT; ++j) ok &= r[b * SHARED_SIZE_LIMIT + j] == ref[j];
  }
  return fx_check(ok, "sorted blocks");
}
