// The racecheck cases of tests/data/racecheck, as CUDA kernels, to run under
// compute-sanitizer (racecheck and synccheck) on an sm_90 GPU. One binary;
// the first argument names the case. Built and run by tools/racecheck/run.sh.
//
// Each kernel is the one the model checks (examples/racecheck.rs and the
// traces written by tests/data/racecheck/make_traces.py); "racy" in a comment
// means the model reports a hazard or a barrier error for it. Shared variables
// written by one thread and read by another are `volatile` where nvcc would
// otherwise drop the accesses (it did for ab_race without it).

#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
    do {                                                                          \
        cudaError_t e_ = (x);                                                     \
        if (e_ != cudaSuccess) {                                                  \
            printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, \
                   __LINE__);                                                     \
            return 1;                                                             \
        }                                                                         \
    } while (0)

// 1. Thread A (0, warp 0) writes x, thread B (32, warp 1) reads it. Racy.
__global__ void ab_race(int *out) {
    __shared__ volatile int x;
    if (threadIdx.x == 0) x = 42;
    if (threadIdx.x == 32) out[0] = x;
}

// 1b. The same with __syncthreads() between them. Clean.
__global__ void ab_sync(int *out) {
    __shared__ volatile int x;
    if (threadIdx.x == 0) x = 42;
    __syncthreads();
    if (threadIdx.x == 32) out[0] = x;
}

// 2. staticReverse (CUDA's shared-memory example), 64 threads. Clean.
__global__ void reverse_sync(int *d, int n) {
    __shared__ int s[64];
    int t = threadIdx.x, tr = n - t - 1;
    s[t] = d[t];
    __syncthreads();
    d[t] = s[tr];
}

// 2b. Without the barrier. Racy (read-write between the two warps).
__global__ void reverse_nosync(int *d, int n) {
    __shared__ int s[64];
    int t = threadIdx.x, tr = n - t - 1;
    s[t] = d[t];
    d[t] = s[tr];
}

// 3. Tiled transpose through tile[32][33], blocks of 32 x 8. Clean.
__global__ void transpose_sync(float *odata, const float *idata) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    int width = gridDim.x * 32;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 3b. The barrier missing. Racy.
__global__ void transpose_nosync(float *odata, const float *idata) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    int width = gridDim.x * 32;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 3c. The barrier moved before the writes to the tile. Racy.
__global__ void transpose_moved(float *odata, const float *idata) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    int width = gridDim.x * 32;
    __syncthreads();
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 4. Tiled matmul, 16 x 16 tiles and blocks, two barriers per tile. Clean.
__global__ void matmul_sync(const float *a, const float *b, float *c, int n) {
    __shared__ float as[16][16], bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += 16) {
        as[ty][tx] = a[row * n + k0 + tx];
        bs[ty][tx] = b[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

// 4b. Without the second barrier: the next tile's writes race with this
// tile's reads (write-after-read). Racy.
__global__ void matmul_no_second(const float *a, const float *b, float *c, int n) {
    __shared__ float as[16][16], bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += 16) {
        as[ty][tx] = a[row * n + k0 + tx];
        bs[ty][tx] = b[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
    }
    c[row * n + col] = acc;
}

// 4c. Without the first barrier: reads of the tile race with its writes. Racy.
__global__ void matmul_no_first(const float *a, const float *b, float *c, int n) {
    __shared__ float as[16][16], bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += 16) {
        as[ty][tx] = a[row * n + k0 + tx];
        bs[ty][tx] = b[(k0 + ty) * n + col];
        for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

// 5. __syncthreads() in both branches of an if: warps reach different
// barrier instructions. A barrier error for the model.
__global__ void divergent_ifelse(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = t;
        __syncthreads();
    } else {
        __syncthreads();
        out[t - 32] = s[t - 32];
    }
}

// 5b. __syncthreads() reached by half of each warp. A barrier error.
__global__ void divergent_lanes(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (t % 32 < 16) __syncthreads();
    out[t] = s[63 - t];
}

// 6. Warp-synchronous sum without __syncwarp (the pre-Volta idiom). A
// warning (lanes of one warp) for the model.
__global__ void warp_reduce_nosync(const int *in, int *out) {
    __shared__ volatile int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    s[t + 32] = 0;
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
    if (t == 0) out[0] = s[0];
}

// 6b. The same with __syncwarp() between every read and write. Clean.
__global__ void warp_reduce_syncwarp(const int *in, int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    s[t + 32] = 0;
    __syncwarp();
    for (int d = 16; d >= 1; d /= 2) {
        int v = s[t + d];
        __syncwarp();
        s[t] += v;
        __syncwarp();
    }
    if (t == 0) out[0] = s[0];
}

// 7. A fence on both sides does not order two threads. Racy.
__global__ void fence_race(int *out) {
    __shared__ volatile int x;
    if (threadIdx.x == 0) {
        x = 42;
        __threadfence_block();
    }
    if (threadIdx.x == 32) {
        __threadfence_block();
        out[0] = x;
    }
}

// 8. A named barrier for warps 0 and 1 (bar.sync 1, 64) in a block of 96:
// thread 32 is ordered after thread 0's write, thread 64 is not. Racy (64).
__global__ void named_barrier(int *out) {
    __shared__ volatile int x;
    if (threadIdx.x == 0) x = 42;
    if (threadIdx.x < 64) asm volatile("bar.sync 1, 64;" ::: "memory");
    if (threadIdx.x == 32) out[0] = x;
    if (threadIdx.x == 64) out[1] = x;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        printf("usage: %s CASE\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    const int n = 64;
    int *di;
    float *fa, *fb, *fc;
    CHECK(cudaMalloc(&di, 1024 * sizeof(int)));
    CHECK(cudaMemset(di, 0, 1024 * sizeof(int)));
    CHECK(cudaMalloc(&fa, 1024 * 1024 * sizeof(float)));
    CHECK(cudaMalloc(&fb, 1024 * 1024 * sizeof(float)));
    CHECK(cudaMalloc(&fc, 1024 * 1024 * sizeof(float)));
    CHECK(cudaMemset(fa, 0, 1024 * 1024 * sizeof(float)));
    CHECK(cudaMemset(fb, 0, 1024 * 1024 * sizeof(float)));
    if (!strcmp(c, "ab_race")) ab_race<<<1, 64>>>(di);
    else if (!strcmp(c, "ab_sync")) ab_sync<<<1, 64>>>(di);
    else if (!strcmp(c, "reverse_sync")) reverse_sync<<<1, 64>>>(di, 64);
    else if (!strcmp(c, "reverse_nosync")) reverse_nosync<<<1, 64>>>(di, 64);
    else if (!strcmp(c, "transpose_sync")) transpose_sync<<<dim3(2, 2), dim3(32, 8)>>>(fc, fa);
    else if (!strcmp(c, "transpose_nosync")) transpose_nosync<<<dim3(2, 2), dim3(32, 8)>>>(fc, fa);
    else if (!strcmp(c, "transpose_moved")) transpose_moved<<<dim3(2, 2), dim3(32, 8)>>>(fc, fa);
    else if (!strcmp(c, "matmul_sync")) matmul_sync<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(fa, fb, fc, n);
    else if (!strcmp(c, "matmul_no_second")) matmul_no_second<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(fa, fb, fc, n);
    else if (!strcmp(c, "matmul_no_first")) matmul_no_first<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(fa, fb, fc, n);
    else if (!strcmp(c, "divergent_ifelse")) divergent_ifelse<<<1, 64>>>(di);
    else if (!strcmp(c, "divergent_lanes")) divergent_lanes<<<1, 64>>>(di);
    else if (!strcmp(c, "warp_reduce_nosync")) warp_reduce_nosync<<<1, 32>>>(di, di + 512);
    else if (!strcmp(c, "warp_reduce_syncwarp")) warp_reduce_syncwarp<<<1, 32>>>(di, di + 512);
    else if (!strcmp(c, "fence_race")) fence_race<<<1, 64>>>(di);
    else if (!strcmp(c, "named_barrier")) named_barrier<<<1, 96>>>(di);
    else {
        printf("unknown case %s\n", c);
        return 2;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("case %s ran\n", c);
    return 0;
}
