// The seed's staticReverse: one block of 64 threads reverses 64 ints through
// a static shared array.
#include "fx.h"

__global__ void staticReverse(int *d, int n) {
  __shared__ int s[64];
  int t = threadIdx.x, tr = n - t - 1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}

int main() {
  const int n = 64;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  int *d = fx_upload(h);
  dim3 g(1), b(n);
  fx_record("staticReverse", g, b, 0, {fx_ptr(n * 4, "d[i] = i"), fx_int(n)});
  staticReverse<<<g, b>>>(d, n);
  fx_sync();
  auto r = fx_download(d, n);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok &= r[i] == n - 1 - i;
  return fx_check(ok, "d reversed");
}
