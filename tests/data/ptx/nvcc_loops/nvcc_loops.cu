// Loops as nvcc leaves them in PTX for ptxas to unroll (issue 22, session
// unroll): each kernel fills a shared array, then each thread sums a run of
// it through a loop shaped by a pragma. One block of 32 threads, n = 8.
//   nvcc -arch=sm_90 -lineinfo -ptx nvcc_loops.cu; nvcc -arch=sm_90 -lineinfo -cubin -Xptxas -v
#define FILL                                                        \
    __shared__ float s[4096];                                       \
    for (int j = threadIdx.x; j < 4096; j += blockDim.x) s[j] = j;  \
    __syncthreads();                                                \
    const int base = (threadIdx.x & 15) * 64;                       \
    float acc = 0.0f;

// NVVM unrolls by 4: a PTX loop of 64 trips, four loads each.
extern "C" __global__ void unroll4_256(unsigned* o, unsigned n) {
    FILL
#pragma unroll 4
    for (int i = 0; i < 256; i++) acc += s[base + i];
    o[threadIdx.x] = (unsigned)acc;
}

// `#pragma unroll 1`: PTX keeps the loop with `.pragma "nounroll"`.
extern "C" __global__ void unroll1_8(unsigned* o, unsigned n) {
    FILL
#pragma unroll 1
    for (int i = 0; i < 8; i++) acc += s[base + i];
    o[threadIdx.x] = (unsigned)acc;
}

// Both in one function: a kept loop and a loop unrolled by 4.
extern "C" __global__ void mixed_pragmas(unsigned* o, unsigned n) {
    FILL
#pragma unroll 1
    for (int i = 0; i < 8; i++) acc += s[base + i];
#pragma unroll 4
    for (int i = 0; i < 64; i++) acc += s[base + 128 + i];
    o[threadIdx.x] = (unsigned)acc;
}

// No pragma, 32 trips: NVVM unrolls it itself.
extern "C" __global__ void plain_32(unsigned* o, unsigned n) {
    FILL
    for (int i = 0; i < 32; i++) acc += s[base + i];
    o[threadIdx.x] = (unsigned)acc;
}

// `#pragma unroll 2` over 512 values with a stride-2 index (every other float).
extern "C" __global__ void unroll2_stride2(unsigned* o, unsigned n) {
    FILL
#pragma unroll 2
    for (int i = 0; i < 1024; i += 2) acc += s[(base & 511) + i];
    o[threadIdx.x] = (unsigned)acc;
}

// A parameter trip count (n = 8), `#pragma unroll 4`.
extern "C" __global__ void param_n(unsigned* o, unsigned n) {
    FILL
#pragma unroll 4
    for (unsigned i = 0; i < n; i++) acc += s[base + i];
    o[threadIdx.x] = (unsigned)acc;
}

// Stores: a loop of 16 writing a row, `#pragma unroll 4`.
extern "C" __global__ void store_unroll4(unsigned* o, unsigned n) {
    __shared__ float t[2048];
    const int base = (threadIdx.x & 15) * 64;
#pragma unroll 4
    for (int i = 0; i < 16; i++) t[base + i] = i * threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = (unsigned)t[(threadIdx.x * 33) & 2047];
}
