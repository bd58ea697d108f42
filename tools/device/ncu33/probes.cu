// Issue 33 probes (launch checks, memcheck wording, equal values through ex2).
//   ./probes oob        dynamic shared access past the bytes given (memcheck)
//   ./probes ex2        four warps store exp2f(in[lane]) to buf[lane] (racecheck)
//   ./probes limits     dynamic shared over the default and opt-in limits
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

extern __shared__ int dyn[];

__global__ void oobDynamic(int *out) {
  __shared__ int fixed[16];
  if (threadIdx.x < 16) fixed[threadIdx.x] = threadIdx.x;
  dyn[threadIdx.x] = threadIdx.x;  // 64 threads, 128 bytes given: lanes 32-63 past the end
  __syncthreads();
  out[threadIdx.x] = dyn[threadIdx.x % 32] + fixed[threadIdx.x % 16];
}

__global__ void ex2Replicated(float *out, const float *in) {
  __shared__ float buf[32];
  int lane = threadIdx.x % 32;
  buf[lane] = exp2f(in[lane]);
  __syncthreads();
  out[threadIdx.x] = buf[(lane + 1) % 32];
}

__global__ void bigDynamic(int *out) {
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

static void report(const char *what, cudaError_t e) {
  printf("%s: %s (%d) %s\n", what, cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
}

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "oob";
  int *out; float *fin, *fout;
  cudaMalloc(&out, 4096 * 4); cudaMalloc(&fin, 4096 * 4); cudaMalloc(&fout, 4096 * 4);
  cudaMemset(fin, 0, 4096 * 4);
  if (!strcmp(m, "oob")) {
    oobDynamic<<<1, 64, 128>>>(out);
    report("oob launch", cudaGetLastError());
    report("oob sync", cudaDeviceSynchronize());
  } else if (!strcmp(m, "ex2")) {
    ex2Replicated<<<1, 128>>>(fout, fin);
    report("ex2", cudaDeviceSynchronize());
  } else if (!strcmp(m, "limits")) {
    int dev = 0, v = 0;
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, dev); printf("max per block %d\n", v);
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev); printf("max optin %d\n", v);
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev); printf("max per SM %d\n", v);
    cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, dev); printf("reserved per block %d\n", v);
    bigDynamic<<<1, 64, 48 * 1024>>>(out); report("48 KiB no opt-in", cudaGetLastError()); cudaDeviceSynchronize();
    bigDynamic<<<1, 64, 48 * 1024 + 4>>>(out); report("48 KiB + 4 no opt-in", cudaGetLastError()); cudaDeviceSynchronize();
    report("set attr 227 KiB", cudaFuncSetAttribute(bigDynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    bigDynamic<<<1, 64, 227 * 1024>>>(out); report("227 KiB opt-in", cudaGetLastError()); cudaDeviceSynchronize();
    report("set attr 227 KiB + 4", cudaFuncSetAttribute(bigDynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024 + 4));
    bigDynamic<<<1, 64, 227 * 1024 + 4>>>(out); report("227 KiB + 4 launch", cudaGetLastError()); cudaDeviceSynchronize();
    bigDynamic<<<1, 2048, 0>>>(out); report("2048 threads", cudaGetLastError()); cudaDeviceSynchronize();
    bigDynamic<<<dim3(1u << 31), 32, 0>>>(out); report("grid x 2^31", cudaGetLastError()); cudaDeviceSynchronize();
    bigDynamic<<<dim3(1, 65536), 32, 0>>>(out); report("grid y 65536", cudaGetLastError()); cudaDeviceSynchronize();
  }
  return 0;
}
