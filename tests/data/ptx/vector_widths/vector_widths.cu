// 64- and 128-bit shared accesses with strides: per warp, a float2 store and
// load at element t * s2, a float4 store and load at t * s4, and a double load
// at t * s8 (elements of each type). Fixture launch: s2 = s4 = s8 = 2 (the
// vectors of lanes t and t + 16 / t + 8 collide); second launch: all 1
// (conflict-free). One block of 64 threads.
#include "fx.h"

__global__ void vectorWidths(float *out, int s2, int s4, int s8) {
  __shared__ __align__(16) float2 v2[128];
  __shared__ __align__(16) float4 v4[128];
  __shared__ double d[128];
  int t = threadIdx.x;
  v2[(t * s2) & 127] = make_float2(t, t + 1);
  v4[(t * s4) & 127] = make_float4(t, t + 1, t + 2, t + 3);
  d[(t * s8) & 127] = t * 0.5;
  __syncthreads();
  float2 a = v2[(t * s2) & 127];
  float4 b = v4[(t * s4) & 127];
  double c = d[(t * s8) & 127];
  out[t] = a.x + a.y + b.x + b.y + b.z + b.w + (float)c;
}

int main() {
  float *dout = fx_alloc<float>(64);
  int s[2] = {2, 1};
  for (int k : s) {
    fx_record("vectorWidths", dim3(1), dim3(64), 0,
              {fx_ptr(64 * 4, "out, poisoned 0xff"), fx_int(k), fx_int(k), fx_int(k)});
    vectorWidths<<<1, 64>>>(dout, k, k, k);
    fx_sync();
  }
  auto r = fx_download(dout, 64);
  bool ok = true;
  for (int t = 0; t < 64; ++t) ok &= r[t] == (float)(6 * t + 7) + (float)(t * 0.5);
  return fx_check(ok, "values");
}
