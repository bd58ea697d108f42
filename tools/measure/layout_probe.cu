// Probe: where nvcc places static __shared__ arrays and the extern region, and
// what the driver's occupancy API answers for a range of shared-memory sizes.
// Build and run: nvcc -arch=sm_90 -o layout_probe layout_probe.cu && ./layout_probe
#include <cstdio>
#include <cuda_runtime.h>

__device__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void k_none(unsigned *out) {
    extern __shared__ int dyn[];
    if (threadIdx.x == 0) { out[0] = sa(dyn); dyn[0] = 1; }
}

__global__ void k_mixed(unsigned *out) {
    __shared__ char c[3];
    __shared__ float f[5];
    __shared__ double d[2];
    __shared__ short s[3];
    extern __shared__ int dyn[];
    extern __shared__ char dync[];
    volatile char *vc = c; volatile float *vf = f; volatile double *vd = d; volatile short *vs = s;
    vc[threadIdx.x % 3] = 1; vf[threadIdx.x % 5] = 1; vd[threadIdx.x % 2] = 1; vs[threadIdx.x % 3] = 1;
    if (threadIdx.x == 0) {
        out[0] = sa(c); out[1] = sa(f); out[2] = sa(d); out[3] = sa(s); out[4] = sa(dyn); out[5] = sa(dync);
        dyn[0] = vc[1] + vf[1] + vd[1] + vs[1];
    }
}

__global__ void k_char_only(unsigned *out) {
    __shared__ char c[5];
    extern __shared__ float4 dyn4[];
    volatile char *vc = c;
    vc[threadIdx.x % 5] = 1;
    if (threadIdx.x == 0) { out[0] = sa(c); out[1] = sa(dyn4); dyn4[0].x = vc[2]; }
}

__global__ void k_tile(unsigned *out) {
    __shared__ float tile[32][33];
    __shared__ char flag;
    extern __shared__ double dynd[];
    volatile float *vt = &tile[0][0];
    vt[threadIdx.x] = 1; *(volatile char *)&flag = 1;
    if (threadIdx.x == 0) { out[0] = sa(tile); out[1] = sa(&flag); out[2] = sa(dynd); dynd[0] = vt[3]; }
}

template <typename K>
void layout(const char *name, K kernel, int n) {
    unsigned *d, h[8] = {0};
    cudaMalloc(&d, sizeof h);
    kernel<<<1, 32, 64>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, kernel);
    printf("layout %s static=%zu err=%s addrs:", name, attr.sharedSizeBytes, cudaGetErrorString(e));
    for (int i = 0; i < n; i++) printf(" 0x%x", h[i]);
    printf("\n");
    cudaFree(d);
}

__global__ void k_static12k(int *p) {
    __shared__ int buf[3072];
    volatile int *v = buf; v[threadIdx.x] = threadIdx.x;
    extern __shared__ int dyn[];
    if (p) p[0] = v[1] + dyn[0];
}

__global__ void k_static12k_plain(int *p) {
    __shared__ int buf[3072];
    volatile int *v = buf; v[threadIdx.x] = threadIdx.x;
    extern __shared__ int dyn[];
    if (p) p[0] = v[1] + dyn[0];
}

int main() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int reserved = 0, optin = 0, perSm = 0, maxBlocks = 0;
    cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    cudaDeviceGetAttribute(&perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
    cudaDeviceGetAttribute(&maxBlocks, cudaDevAttrMaxBlocksPerMultiprocessor, 0);
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt); cudaDriverGetVersion(&drv);
    printf("device %s cc %d.%d runtime %d driver %d sharedMemPerBlock %zu optin %d perSM %d reserved %d maxBlocksPerSM %d\n",
           prop.name, prop.major, prop.minor, rt, drv, prop.sharedMemPerBlock, optin, perSm, reserved, maxBlocks);

    layout("none", k_none, 1);
    layout("mixed(char3,float5,double2,short3;int[],char[])", k_mixed, 6);
    layout("char_only(char5;float4[])", k_char_only, 2);
    layout("tile(float[32][33],char;double[])", k_tile, 3);

    // Occupancy: blocks per SM from shared memory alone (32-thread blocks, so
    // warps and registers do not bind before shared memory does).
    cudaFuncSetAttribute(k_static12k, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 12288);
    size_t dyns[] = {0, 1, 128, 129, 1024, 4096, 8192, 12288, 20480, 36864, 65536, 90112, 102400, 150000, (size_t)optin - 12288};
    int carveouts[] = {-1, 0, 25, 50, 100};
    for (int ci = 0; ci < 5; ci++) {
        cudaFuncSetAttribute(k_static12k, cudaFuncAttributePreferredSharedMemoryCarveout, carveouts[ci]);
        for (size_t dyn : dyns) {
            int blocks = -1;
            cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_static12k, 32, dyn);
            printf("occ static=12288 carveout=%d dynamic=%zu blocks=%d %s\n", carveouts[ci], dyn, blocks, e ? cudaGetErrorString(e) : "");
        }
    }
    // Launch limits: 48 KB without the opt-in, the opt-in maximum with it.
    int *dp = nullptr;
    cudaFuncSetAttribute(k_static12k, cudaFuncAttributePreferredSharedMemoryCarveout, -1);
    for (size_t dyn : {(size_t)36864, (size_t)36865}) {
        k_static12k_plain<<<1, 32, dyn>>>(dp);
        cudaError_t e = cudaGetLastError();
        cudaDeviceSynchronize();
        printf("launch no-opt-in static=12288 dynamic=%zu: %s\n", dyn, cudaGetErrorString(e));
    }
    for (size_t dyn : {(size_t)optin - 12288, (size_t)optin - 12287}) {
        k_static12k<<<1, 32, dyn>>>(dp);
        cudaError_t e = cudaGetLastError();
        cudaDeviceSynchronize();
        printf("launch opt-in=%d static=12288 dynamic=%zu: %s\n", optin - 12288, dyn, cudaGetErrorString(e));
    }
    for (size_t dyn : {(size_t)0, (size_t)1024}) {
        int blocks = -1;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_none, 32, dyn);
        printf("occ static=0 carveout=-1 dynamic=%zu blocks=%d\n", dyn, blocks);
    }
    return 0;
}
