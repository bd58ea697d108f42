// Throughput of independent shared-memory loads and stores on one SM, the
// `measure: throughput` records of tests/data/hw-corpus/sm90-timing.jsonl:
// one block on one SM, N warps each issuing a long unrolled run of independent
// volatile ld.shared / st.shared at a fixed per-lane byte offset (the record's
// `offsets`, from the start of the dynamic shared-memory window), timed with
// clock64 per warp. Reported: cycles per warp instruction over the whole SM,
// (latest end - earliest start) / (active warps x instructions per warp), the
// figure the corpus calls `cycles_per_instruction`.
//
// Build: nvcc -O3 -arch=sm_90 -o throughput throughput.cu
// Check the SASS: cuobjdump -sass throughput | grep -E 'LDS|STS'
// Run:   ./throughput < jobs.txt > results.jsonl
// (throughput_jobs.py writes job lists from the corpus, throughput_corpus.py
// turns results into corpus records, throughput_run.sh does all of it; the
// records and what they show: tests/data/hw-corpus/README.md.)
//
// One job a line (whitespace separated):
//   tag op width unroll pad dep warps_launched warp_mask iters reps o0 .. o31
// - op: ld or st; width: 4, 8 or 16 bytes (LDS/STS .32/.64/.128).
// - unroll: loads per block (1, 2, 4, 8, 16, 32): the values of one block are
//   folded (XOR) after the block, so each warp has at most `unroll` loads in
//   flight (the next block's load writes a register the fold reads).
// - pad: independent integer adds issued after each load (0, 1, 2).
// - dep: 0, or 1 to make each load's address depend on the previous block's
//   fold (adds a dependency every `unroll` loads; the address stays the same).
// - warps_launched: warps in the block; warp_mask: which of them run the loop
//   (the others wait at the first barrier and exit), so 4 warps can be placed
//   on one scheduler (warp w runs on sub-partition w % 4) or spread out.
// - iters: blocks per warp (instructions per warp = iters x unroll).
// - reps: launches measured (after one warm-up launch).
// Output: one JSON object a line per launch.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

constexpr int SMEM_BYTES = 8192;

template <int W> struct Vec;
template <> struct Vec<4> { unsigned x; };
template <> struct Vec<8> { unsigned x, y; };
template <> struct Vec<16> { unsigned x, y, z, w; };

__device__ __forceinline__ void ld(Vec<4> &v, unsigned a) {
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v.x) : "r"(a));
}
__device__ __forceinline__ void ld(Vec<8> &v, unsigned a) {
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(a));
}
__device__ __forceinline__ void ld(Vec<16> &v, unsigned a) {
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(a));
}
__device__ __forceinline__ void st(unsigned a, unsigned s) {
    asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(s));
}
__device__ __forceinline__ void st8(unsigned a, unsigned s) {
    asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %1};" ::"r"(a), "r"(s));
}
__device__ __forceinline__ void st16(unsigned a, unsigned s) {
    asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(a), "r"(s));
}
__device__ __forceinline__ unsigned fold(const Vec<4> &v) { return v.x; }
__device__ __forceinline__ unsigned fold(const Vec<8> &v) { return v.x ^ v.y; }
__device__ __forceinline__ unsigned fold(const Vec<16> &v) { return v.x ^ v.y ^ v.z ^ v.w; }

template <int W, bool ST, int U, int P, bool DEP>
__device__ __forceinline__ unsigned run(unsigned addr, int iters, unsigned (&pad)[4]) {
    unsigned acc = 0;
    const unsigned value = addr;
    for (int it = 0; it < iters; ++it) {
        // The address never changes (acc's top bit is 0: shared memory holds
        // zeros), but with DEP the compiler cannot know it, so each block waits
        // for the one before.
        const unsigned a = DEP ? addr + (acc & 0x80000000u) : addr;
        if constexpr (ST) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if constexpr (W == 4) st(a, value);
                if constexpr (W == 8) st8(a, value);
                if constexpr (W == 16) st16(a, value);
#pragma unroll
                for (int p = 0; p < P; ++p) asm volatile("add.u32 %0, %0, 1;" : "+r"(pad[p]));
            }
            if constexpr (DEP) acc += pad[0];
        } else {
            Vec<W> v[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                ld(v[u], a);
#pragma unroll
                for (int p = 0; p < P; ++p) asm volatile("add.u32 %0, %0, 1;" : "+r"(pad[p]));
            }
#pragma unroll
            for (int u = 0; u < U; ++u) acc ^= fold(v[u]);
        }
    }
    return acc;
}

template <int W, bool ST, int U, int P>
__global__ void bench(const int *offsets, int iters, unsigned mask, int dep, long long *times,
                      unsigned *sink) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < SMEM_BYTES / 4; i += blockDim.x) ((unsigned *)smem)[i] = 0;
    const unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    const unsigned addr = base + offsets[lane];
    __syncthreads();
    if (!((mask >> warp) & 1)) return;
    unsigned pad[4] = {1, 2, 3, 4};  // P <= 2 of them used
    const long long t0 = clock64();
    const unsigned acc =
        dep ? run<W, ST, U, P, true>(addr, iters, pad) : run<W, ST, U, P, false>(addr, iters, pad);
    // The store of acc makes the last loads complete before the second clock.
    sink[threadIdx.x] = acc + pad[0] + pad[1] + pad[2] + pad[3];
    __threadfence_block();
    const long long t1 = clock64();
    if (lane == 0) {
        times[2 * warp] = t0;
        times[2 * warp + 1] = t1;
    }
}

typedef void (*Kernel)(const int *, int, unsigned, int, long long *, unsigned *);

template <int W, bool ST, int U> Kernel pick_pad(int p) {
    switch (p) {
    case 0: return bench<W, ST, U, 0>;
    case 1: return bench<W, ST, U, 1>;
    case 2: return bench<W, ST, U, 2>;
    }
    return nullptr;
}
template <int W, bool ST> Kernel pick_unroll(int u, int p) {
    switch (u) {
    case 1: return pick_pad<W, ST, 1>(p);
    case 2: return pick_pad<W, ST, 2>(p);
    case 4: return pick_pad<W, ST, 4>(p);
    case 8: return pick_pad<W, ST, 8>(p);
    case 16: return pick_pad<W, ST, 16>(p);
    case 32: return pick_pad<W, ST, 32>(p);
    }
    return nullptr;
}
Kernel pick(bool st, int w, int u, int p) {
    if (st) {
        if (w == 4) return pick_unroll<4, true>(u, p);
        if (w == 8) return pick_unroll<8, true>(u, p);
        if (w == 16) return pick_unroll<16, true>(u, p);
    } else {
        if (w == 4) return pick_unroll<4, false>(u, p);
        if (w == 8) return pick_unroll<8, false>(u, p);
        if (w == 16) return pick_unroll<16, false>(u, p);
    }
    return nullptr;
}

int main() {
    int *d_off;
    long long *d_times;
    unsigned *d_sink;
    CHECK(cudaMalloc(&d_off, 32 * sizeof(int)));
    CHECK(cudaMalloc(&d_times, 64 * sizeof(long long)));
    CHECK(cudaMalloc(&d_sink, 1024 * sizeof(unsigned)));
    char tag[128], op[8];
    int width, unroll, pad, dep, launched, iters, reps;
    unsigned mask;
    while (scanf("%127s %7s %d %d %d %d %d %x %d %d", tag, op, &width, &unroll, &pad, &dep,
                 &launched, &mask, &iters, &reps) == 10) {
        int off[32];
        for (int i = 0; i < 32; ++i)
            if (scanf("%d", &off[i]) != 1) return 2;
        const bool st = strcmp(op, "st") == 0;
        Kernel k = pick(st, width, unroll, pad);
        if (!k || launched < 1 || launched > 32) {
            fprintf(stderr, "bad job %s\n", tag);
            return 2;
        }
        CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        CHECK(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
        int active = __builtin_popcount(mask & (launched == 32 ? ~0u : (1u << launched) - 1));
        for (int r = -1; r < reps; ++r) {
            k<<<1, 32 * launched, SMEM_BYTES>>>(d_off, iters, mask, dep, d_times, d_sink);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            if (r < 0) continue;
            long long t[64];
            CHECK(cudaMemcpy(t, d_times, sizeof t, cudaMemcpyDeviceToHost));
            long long start = 0, end = 0;
            double sum = 0, lo = 1e30, hi = 0;
            bool first = true;
            for (int w = 0; w < launched; ++w) {
                if (!((mask >> w) & 1)) continue;
                if (first || t[2 * w] < start) start = t[2 * w];
                if (first || t[2 * w + 1] > end) end = t[2 * w + 1];
                first = false;
                double e = (double)(t[2 * w + 1] - t[2 * w]);
                sum += e;
                lo = e < lo ? e : lo;
                hi = e > hi ? e : hi;
            }
            const double n = (double)iters * unroll;
            printf("{\"tag\":\"%s\",\"op\":\"%s\",\"width\":%d,\"unroll\":%d,\"pad\":%d,\"dep\":%d,"
                   "\"launched\":%d,\"mask\":\"%x\",\"warps\":%d,\"rep\":%d,\"cpi\":%.4f,"
                   "\"warp_min\":%.4f,\"warp_mean\":%.4f,\"warp_max\":%.4f}\n",
                   tag, op, width, unroll, pad, dep, launched, mask, active, r,
                   (double)(end - start) / (active * n), lo / n, sum / active / n,
                   hi / n);
        }
        fflush(stdout);
    }
    return 0;
}
