// The seed's dynamicReverse: the same through `extern __shared__`, sized at
// launch (64 ints = 256 bytes of dynamic shared memory).
#include "fx.h"

__global__ void dynamicReverse(int *d, int n) {
  extern __shared__ int s[];
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
  size_t dyn = n * sizeof(int);
  fx_record("dynamicReverse", g, b, dyn, {fx_ptr(n * 4, "d[i] = i"), fx_int(n)});
  dynamicReverse<<<g, b, dyn>>>(d, n);
  fx_sync();
  auto r = fx_download(d, n);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok &= r[i] == n - 1 - i;
  return fx_check(ok, "d reversed");
}
