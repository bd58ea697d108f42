// Where nvcc 13 / ptxas (sm_90) place static __shared__ variables declared in an
// interleaved order of types and alignments, and where the dynamic region starts.
#include <cstdio>
#include "fx.h"

struct __align__(128) Big { int v[3]; };

__global__ void shared_placement(unsigned *out, int n) {
  __shared__ char c3[3];
  __shared__ double d5[5];
  __shared__ int i7[7];
  __shared__ float4 f4[2];
  __shared__ __align__(128) int a128[9];
  __shared__ short s1;
  __shared__ Big big[1];
  extern __shared__ int dyn[];
  int t = threadIdx.x;
  // Touch every variable so none is removed.
  c3[t % 3] = (char)t; d5[t % 5] = t; i7[t % 7] = t; f4[t % 2] = make_float4(t, t, t, t);
  a128[t % 9] = t; s1 = (short)t; big[0].v[t % 3] = t; dyn[t] = t;
  __syncthreads();
  if (t == 0) {
    out[0] = (unsigned)__cvta_generic_to_shared(&c3[0]);
    out[1] = (unsigned)__cvta_generic_to_shared(&d5[0]);
    out[2] = (unsigned)__cvta_generic_to_shared(&i7[0]);
    out[3] = (unsigned)__cvta_generic_to_shared(&f4[0]);
    out[4] = (unsigned)__cvta_generic_to_shared(&a128[0]);
    out[5] = (unsigned)__cvta_generic_to_shared(&s1);
    out[6] = (unsigned)__cvta_generic_to_shared(&big[0]);
    out[7] = (unsigned)__cvta_generic_to_shared(&dyn[0]);
    out[8] = c3[1] + (int)d5[1] + i7[1] + (int)f4[1].x + a128[1] + s1 + big[0].v[1] + dyn[n];
  }
}

int main() {
  unsigned *d; CK(cudaMalloc(&d, 16 * sizeof(unsigned)));
  dim3 g(1), b(32); size_t dyn = 256;
  fx_record("_Z16shared_placementPji", g, b, dyn, {fx_ptr(64, "zero"), fx_int(3)});
  shared_placement<<<g, b, dyn>>>(d, 3);
  CK(cudaDeviceSynchronize());
  unsigned h[16]; CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  const char *names[] = {"c3", "d5", "i7", "f4", "a128", "s1", "big", "dyn"};
  printf("PLACEMENT {");
  for (int i = 0; i < 8; ++i) printf("%s\"%s\": %u", i ? ", " : "", names[i], h[i]);
  printf("}\n");
  printf("FXCHECK ok\n");
  return 0;
}
