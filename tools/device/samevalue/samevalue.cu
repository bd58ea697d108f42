// Does compute-sanitizer racecheck report two warps writing the same value
// to one shared word with no barrier between them? (lead, 2026-11-26)
#include <cstdio>
__device__ int sink;
// both warps write the constant 7 to s[lane]
__global__ void waw_same_const() {
  __shared__ int s[32];
  s[threadIdx.x % 32] = 7;
  __syncthreads();
  if (threadIdx.x == 0) sink = s[0];
}
// warps write their warp id: different values
__global__ void waw_diff() {
  __shared__ int s[32];
  s[threadIdx.x % 32] = threadIdx.x / 32;
  __syncthreads();
  if (threadIdx.x == 0) sink = s[0];
}
// both warps write a value loaded from global memory (equal at run time)
__global__ void waw_same_loaded(const int *g) {
  __shared__ int s[32];
  s[threadIdx.x % 32] = g[threadIdx.x % 32];
  __syncthreads();
  if (threadIdx.x == 0) sink = s[0];
}
// loaded values that differ between the warps
__global__ void waw_diff_loaded(const int *g) {
  __shared__ int s[32];
  s[threadIdx.x % 32] = g[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) sink = s[0];
}
// warp 0 writes s[lane] = 0 over a 0 (value unchanged); warp 1 reads it, no barrier
__global__ void raw_unchanged() {
  __shared__ int s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  else sink += s[threadIdx.x % 32];
}
// same, but the value changes
__global__ void raw_changed() {
  __shared__ int s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x < 32) s[threadIdx.x] = 1;
  else sink += s[threadIdx.x % 32];
}

__device__ void spin() {
  long long t0 = clock64();
  while (clock64() - t0 < 200000) {}
}
// warp 0 writes the value already there (5); warp 1 reads it later, no barrier
__global__ void raw_after_silent() {
  __shared__ int s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 5;
  __syncthreads();
  if (threadIdx.x < 32) s[threadIdx.x] = 5;
  else { spin(); sink += s[threadIdx.x % 32]; }
}
// warp 0 writes the value already there (5); warp 1 later writes 9, no barrier
__global__ void waw_after_silent() {
  __shared__ int s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 5;
  __syncthreads();
  if (threadIdx.x < 32) s[threadIdx.x] = 5;
  else { spin(); s[threadIdx.x % 32] = 9; }
  __syncthreads();
  if (threadIdx.x == 0) sink = s[0];
}
// warp 0 writes 7 (a change); warp 1 later reads it, no barrier (control: RAW)
__global__ void raw_changed_late() {
  __shared__ int s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 5;
  __syncthreads();
  if (threadIdx.x < 32) s[threadIdx.x] = 7;
  else { spin(); sink += s[threadIdx.x % 32]; }
}
int main(int argc, char **argv) {
  int h[64];
  for (int i = 0; i < 64; i++) h[i] = 100 + i;
  int *g; cudaMalloc(&g, sizeof h); cudaMemcpy(g, h, sizeof h, cudaMemcpyHostToDevice);
  int which = argc > 1 ? atoi(argv[1]) : 0;
  switch (which) {
    case 0: waw_same_const<<<1, 64>>>(); break;
    case 1: waw_diff<<<1, 64>>>(); break;
    case 2: waw_same_loaded<<<1, 64>>>(g); break;
    case 3: waw_diff_loaded<<<1, 64>>>(g); break;
    case 4: raw_unchanged<<<1, 64>>>(); break;
    case 5: raw_changed<<<1, 64>>>(); break;
    case 6: raw_after_silent<<<1, 64>>>(); break;
    case 7: waw_after_silent<<<1, 64>>>(); break;
    case 8: raw_changed_late<<<1, 64>>>(); break;
  }
  printf("kernel %d: %s\n", which, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
