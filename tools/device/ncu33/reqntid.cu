// Launch .reqntid 64 / .maxntid 64 kernels with other block sizes (driver API).
#include <cstdio>
#include <cuda.h>
static void pr(const char *w, CUresult r) { const char *n = 0, *s = 0; cuGetErrorName(r, &n); cuGetErrorString(r, &s); printf("%s: %s (%d) %s\n", w, n, (int)r, s); }
int main() {
  cuInit(0); CUdevice d; cuDeviceGet(&d, 0); CUcontext c; cuDevicePrimaryCtxRetain(&c, d); cuCtxSetCurrent(c);
  CUmodule m; pr("load", cuModuleLoad(&m, "reqntid.ptx"));
  CUdeviceptr p; cuMemAlloc(&p, 4096);
  const char *names[] = {"req64", "max64"};
  unsigned blocks[][3] = {{64, 1, 1}, {32, 1, 1}, {128, 1, 1}, {32, 2, 1}};
  for (int k = 0; k < 2; ++k) {
    CUfunction f; pr(names[k], cuModuleGetFunction(&f, m, names[k]));
    for (auto &b : blocks) {
      void *args[] = {&p};
      char w[64]; snprintf(w, 64, "%s block %ux%ux%u", names[k], b[0], b[1], b[2]);
      pr(w, cuLaunchKernel(f, 1, 1, 1, b[0], b[1], b[2], 0, 0, args, 0));
      cuCtxSynchronize();
    }
  }
  return 0;
}
