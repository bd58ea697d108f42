// Launches one kernel of a PTX file once (driver API, JIT for the GPU at hand),
// for ncu to measure held-out public kernels (issue 33).
//   nvcc -o launch_ptx launch_ptx.cu -lcuda
//   ./launch_ptx FILE.ptx KERNEL GX,GY,GZ BX,BY,BZ DYN ARG...
// ARG: p (a 64 MiB device buffer of floats (i % 13) * 0.25), u:V (32-bit
// integer), f:V (float), h:V (16-bit raw bits), l:V (64-bit integer).
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *s = nullptr, *n = nullptr;
    cuGetErrorString(r, &s); cuGetErrorName(r, &n);
    std::printf("FAIL %s: %s %s\n", what, n ? n : "?", s ? s : "?");
    std::exit(1);
  }
}

static void dims(const char *s, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  std::sscanf(s, "%u,%u,%u", &d[0], &d[1], &d[2]);
}

int main(int argc, char **argv) {
  if (argc < 6) { std::printf("usage: %s FILE.ptx KERNEL G B DYN ARG...\n", argv[0]); return 2; }
  check(cuInit(0), "init");
  CUdevice dev; check(cuDeviceGet(&dev, 0), "device");
  CUcontext ctx; check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain"); check(cuCtxSetCurrent(ctx), "set");
  CUmodule mod; check(cuModuleLoad(&mod, argv[1]), "load");
  CUfunction f; check(cuModuleGetFunction(&f, mod, argv[2]), "function");
  unsigned g[3], b[3]; dims(argv[3], g); dims(argv[4], b);
  unsigned dyn = (unsigned)std::strtoul(argv[5], nullptr, 0);
  if (dyn > 48 * 1024) check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn), "opt-in");
  const size_t bytes = 64u << 20;
  std::vector<float> host(bytes / 4);
  for (size_t i = 0; i < host.size(); ++i) host[i] = (float)(i % 13) * 0.25f;
  int n = argc - 6;
  std::vector<unsigned long long> store(n);
  std::vector<void *> args(n);
  for (int i = 0; i < n; ++i) {
    const char *a = argv[6 + i];
    if (a[0] == 'p') {
      CUdeviceptr p; check(cuMemAlloc(&p, bytes), "alloc");
      check(cuMemcpyHtoD(p, host.data(), bytes), "copy");
      store[i] = p;
    } else if (a[0] == 'f') {
      float v = std::strtof(a + 2, nullptr); std::memcpy(&store[i], &v, 4);
    } else {
      store[i] = std::strtoull(a + 2, nullptr, 0);
    }
    args[i] = &store[i];
  }
  check(cuLaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], dyn, 0, args.data(), nullptr), "launch");
  check(cuCtxSynchronize(), "sync");
  std::printf("RAN %s\n", argv[2]);
  return 0;
}
