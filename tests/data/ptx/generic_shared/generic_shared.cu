// Shared memory reached through generic addresses: a __noinline__ device
// function stores through an int* (the PTX has a .func and a generic st, no
// .shared), and an inline-PTX generic ld.u32 reads through a generic pointer
// into the shared array (cvta'd by the compiler). One block of 64 threads;
// the read is s[(t * stride) & 1023] with stride 2 (a 2-way bank conflict).
#include "fx.h"

__device__ __noinline__ void storeGeneric(int *p, int v) { *p = v; }

__global__ void genericShared(int *out, int stride) {
  __shared__ int s[1024];
  int t = threadIdx.x;
  for (int i = t; i < 1024; i += blockDim.x) storeGeneric(&s[i], i);
  __syncthreads();
  const int *p = &s[(t * stride) & 1023];
  int v;
  asm volatile("ld.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  out[t] = v;
}

int main() {
  int *dout = fx_alloc<int>(64);
  fx_record("genericShared", dim3(1), dim3(64), 0, {fx_ptr(64 * 4, "out, poisoned 0xff"), fx_int(2)});
  genericShared<<<1, 64>>>(dout, 2);
  fx_sync();
  auto r = fx_download(dout, 64);
  bool ok = true;
  for (int t = 0; t < 64; ++t) ok &= r[t] == ((t * 2) & 1023);
  return fx_check(ok, "values");
}
