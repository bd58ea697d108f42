// Launches each named kernel of a cubin once, one block of 32 threads, with
// (o: a 4 KiB zeroed device buffer, n: the value given), for ncu to count
// its shared instructions (issue 22, tests/data/ptx/ptxas_unrolling).
//   nvcc -o unroll_driver unroll_driver.cu -lcuda
//   ./unroll_driver FILE.cubin N NAME...
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

static void check(CUresult r, const char* what, const char* name) {
    if (r != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorString(r, &s);
        std::printf("FAIL %s %s: %s\n", what, name, s ? s : "?");
        std::exit(1);
    }
}

int main(int argc, char** argv) {
    if (argc < 4) {
        std::printf("usage: %s FILE.cubin N NAME...\n", argv[0]);
        return 2;
    }
    check(cuInit(0), "cuInit", "");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet", "");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain", "");
    check(cuCtxSetCurrent(ctx), "set", "");
    CUmodule mod;
    check(cuModuleLoad(&mod, argv[1]), "cuModuleLoad", argv[1]);
    CUdeviceptr o;
    check(cuMemAlloc(&o, 4096), "cuMemAlloc", "");
    unsigned n = (unsigned)std::atoi(argv[2]);
    for (int i = 3; i < argc; i++) {
        CUfunction f;
        check(cuModuleGetFunction(&f, mod, argv[i]), "get", argv[i]);
        check(cuMemsetD8(o, 0, 4096), "memset", argv[i]);
        void* args[] = {&o, &n};
        check(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, args, nullptr), "launch", argv[i]);
        check(cuCtxSynchronize(), "sync", argv[i]);
        unsigned w = 0;
        check(cuMemcpyDtoH(&w, o, 4), "copy", argv[i]);
        std::printf("RAN %s %u\n", argv[i], w);
    }
    return 0;
}
