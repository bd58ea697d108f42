// The matmul fixture's kernel launched as ONE block (A 32 high, 320 wide; B 32
// wide): the same warps and accesses with no other block on the GPU, to tell
// the access pattern's wavefronts from arbitration with other blocks' traffic.
// Otherwise as ../matmul (cuda-samples' matrixMul, BLOCK_SIZE 32, A = 1.0,
// B = 0.01): grid 1x1, one block of 32x32 threads, 10 tiles.
#include "fx.h"

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

int main() {
  const int bs = 32;
  const int wA = 5 * 2 * bs, hA = bs, wB = bs, hB = 5 * 2 * bs;
  std::vector<float> a(wA * hA, 1.0f), b(wB * hB, 0.01f);
  float *dA = fx_upload(a), *dB = fx_upload(b);
  float *dC = fx_alloc<float>(wB * hA);
  dim3 threads(bs, bs), grid(wB / bs, hA / bs);
  fx_record("MatrixMulCUDA", grid, threads, 0,
            {fx_ptr(wB * hA * 4, "C, poisoned 0xff"), fx_ptr(wA * hA * 4, "A = 1.0f"),
             fx_ptr(wB * hB * 4, "B = 0.01f"), fx_int(wA), fx_int(wB)});
  MatrixMulCUDA<32><<<grid, threads>>>(dC, dA, dB, wA, wB);
  fx_sync();
  auto r = fx_download(dC, wB * hA);
  bool ok = true;
  for (float v : r) ok &= fabsf(v - wA * 0.01f) < 1e-3f;
  return fx_check(ok, "C = wA * 0.01");
}
