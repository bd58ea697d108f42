// Probe (d): distributed shared memory in a 2-CTA cluster (mapa,
// ld/st/atom.shared::cluster, barrier.cluster), for Nsight Compute's gds/dshared
// counters and the SASS ptxas emits. ./cluster CASE  (list: ./cluster list)
#include "common.h"

__device__ __forceinline__ uint32_t mapa(uint32_t a, uint32_t rank) {
  uint32_t r; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank)); return r;
}
__device__ __forceinline__ uint32_t ld_dsm(uint32_t a) {
  uint32_t v; asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v;
}
__device__ __forceinline__ void st_dsm(uint32_t a, uint32_t v) {
  asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t atom_dsm(uint32_t a, uint32_t v) {
  uint32_t o; asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;" : "=r"(o) : "r"(a), "r"(v) : "memory"); return o;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ uint32_t cta_rank() {
  uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;
}

// which: 0 ld peer stride 1, 1 ld peer stride 32 (conflicting), 2 st peer stride 1,
// 3 st peer stride 32, 4 atom peer, 5 ld own CTA through mapa (rank = self),
// 6 ld peer v4-free mix: 4 loads per thread stride 1, 7 local ld.shared only (baseline).
__global__ void __cluster_dims__(2, 1, 1) kc(int which, uint32_t* out) {
  __shared__ __align__(128) uint32_t s[32 * 33];
  int t = threadIdx.x;
  uint32_t me = cta_rank(), peer = me ^ 1;
  for (int i = t; i < 32 * 33; i += blockDim.x) s[i] = me * 100000 + i;
  cluster_sync();
  uint32_t base = smem_u32(s);
  uint32_t pb = mapa(base, which == 5 ? me : peer);
  uint32_t acc = 0;
  switch (which) {
  case 0: acc = ld_dsm(pb + 4 * t); break;
  case 1: acc = ld_dsm(pb + 4 * ((t * 32) % (32 * 33))); break;
  case 2: st_dsm(pb + 4 * t, t); break;
  case 3: st_dsm(pb + 4 * ((t * 32) % (32 * 33)), t); break;
  case 4: acc = atom_dsm(pb + 4 * (t % 4), 1); break;
  case 5: acc = ld_dsm(pb + 4 * t); break;
  case 6: for (int k = 0; k < 4; ++k) acc += ld_dsm(pb + 4 * (t + 32 * k)); break;
  case 7: acc = ((volatile uint32_t*)s)[t]; break;
  }
  cluster_sync();
  out[blockIdx.x * blockDim.x + t] = acc + s[t];
}

static const char* names[] = {"ld_peer", "ld_peer_stride32", "st_peer", "st_peer_stride32", "atom_peer", "ld_self_mapa",
                              "ld_peer_x4", "ld_local", nullptr};

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "list")) { for (int i = 0; names[i]; ++i) printf("%s\n", names[i]); return 0; }
  bool all = !strcmp(argv[1], "all");
  uint32_t* out; CK(cudaMalloc(&out, 1 << 16));
  int rc = 0;
  for (int which = 0; names[which]; ++which) {
    if (!all && strcmp(names[which], argv[1])) continue;
    CK(cudaMemset(out, 0, 1 << 16));
    kc<<<2, 32>>>(which, out);
    cudaError_t e = cudaDeviceSynchronize();
    uint32_t h[64]; cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("CASE %s launch=%s out:", names[which], cudaGetErrorString(e));
    for (int i = 0; i < 64; ++i) printf(" %u", h[i]);
    printf("\n");
    if (e != cudaSuccess) return 1;
  }
  return rc;
}
