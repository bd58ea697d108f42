// Shared-memory atomics of several kinds at addresses fixed by the lane, so
// the counts do not depend on timing: 32-bit add/min/max/and/or/xor/exch/inc
// with the result used (ATOMS) and unused, a single-attempt atomicCAS, 64-bit
// add, and float atomicAdd (how each compiles: see kernel.sass). Addresses:
// word lane (conflict-free), word lane * 2 (2-way), word lane % 8 (4 lanes
// per address); the 64-bit and float adds, which compile to compare-and-swap
// loops, use one address per thread (t) so that no loop ever retries and the
// counts do not depend on timing. One block of 64 threads.
#include "fx.h"

__global__ void sharedAtomicsKinds(unsigned *out) {
  __shared__ unsigned u[256];
  __shared__ unsigned long long q[64];
  __shared__ float f[64];
  int t = threadIdx.x, lane = t & 31;
  for (int i = t; i < 256; i += blockDim.x) u[i] = i;
  q[t] = t;
  f[t] = 0.f;
  __syncthreads();
  unsigned r = 0;
  r += atomicAdd(&u[lane], 1u);
  r += atomicMin(&u[lane * 2], 5u);
  r += atomicMax(&u[lane % 8], 100u);
  atomicAnd(&u[64 + lane], 0xffu);        // result unused
  atomicOr(&u[64 + lane * 2], 0x100u);    // result unused
  r += atomicXor(&u[128 + lane], 3u);
  r += atomicExch(&u[160 + lane], 7u);
  r += atomicInc(&u[192 + lane], 1000u);
  r += atomicCAS(&u[224 + lane], 224u + lane, 1u);
  r += (unsigned)atomicAdd(&q[t], 1ull);  // a CAS loop: one address per thread, so no retries
  atomicAdd(&f[t], 1.5f);                 // float add on shared: a CAS loop too
  __syncthreads();
  out[t] = r + u[t] + (unsigned)q[t] + (unsigned)f[t];
}

int main() {
  unsigned *dout = fx_alloc<unsigned>(64);
  fx_record("sharedAtomicsKinds", dim3(1), dim3(64), 0, {fx_ptr(64 * 4, "out, poisoned 0xff")});
  sharedAtomicsKinds<<<1, 64>>>(dout);
  fx_sync();
  return fx_check(true, "ran");
}
