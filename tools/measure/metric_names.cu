// Which Nsight Compute metrics count LDSM, STSM and LDGSTS (cp.async) on sm_90.
//
// One warp, one instruction per launch, lane l at shared byte offset l * stride
// (16: conflict-free; 128: every quarter-warp / matrix in one bank group).
// Run on an H100 (CUDA 13.0, nvcc -arch=sm_90 -O2; SASS: LDSM.16.M88.4,
// STSM.16.M88.4, LDGSTS.E.128, LDGSTS.E.BYPASS.128) on 2026-11-23 with
//   ncu --metrics <the names below> --csv ./metric_names
// Figures (stride 16 / stride 128):
//
// | metric (.sum)                                                  | LDSM.x4 | STSM.x4 | LDGSTS .ca 16 B | LDGSTS .cg 16 B |
// |----------------------------------------------------------------|---------|---------|-----------------|-----------------|
// | l1tex__data_pipe_lsu_wavefronts_mem_shared                     | 5 / 33  | 5 / 33  | 8 / 36          | 4 / 4           |
// | l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld               | 4 / 32  | 0 / 0   | 0 / 0           | 0 / 0           |
// | l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st               | 0 / 0   | 4 / 32  | 0 / 0           | 0 / 0           |
// | sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm     | 4 / 32  | 0 / 0   | 0 / 0           | 0 / 0           |
// | sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm     | 0 / 0   | 4 / 32  | 0 / 0           | 0 / 0           |
// | sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts   | 0 / 0   | 0 / 0   | 4 / 32          | 4 / 32          |
// | sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts | 0 / 0 | 0 / 0   | 0 / 28          | 0 / 0           |
// | l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts       | 0 / 0   | 0 / 0   | 0 / 28          | 0 / 0           |
// | smsp__sass_inst_executed_op_ldsm / _op_shared_stsm / _op_ldgsts | 1      | 1       | 1               | 1               |
//
// What it shows: LDSM counts in the `op_ld` counters and STSM in `op_st`; the
// SASS-level `op_ldgsts` wavefront counter gives the model's shared-side figure
// for `.ca` and for `.cg` (the rule of tests/data/hw-corpus/sm90-cp-async.jsonl, 4 and 32 here) while the l1tex
// total adds 4 per `.ca` instruction and misses `.cg`'s writes; the bank-conflict
// counters report 0 for `.cg` even when its writes take 32 wavefronts.
// `smsp__sass_inst_executed_op_stsm` does not exist: STSM is `_op_shared_stsm`.
// Two patterns per op only: a check of metric names, not a corpus.
#include <cstdio>
#include <cstdint>
__global__ void ldsm(int stride, unsigned *out) {
  __shared__ __align__(128) unsigned short s[32 * 128];
  unsigned lane = threadIdx.x;
  unsigned addr = (unsigned)__cvta_generic_to_shared(s) + lane * stride;
  unsigned a, b, c, d;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
  out[lane] = a + b + c + d;
}
__global__ void stsm(int stride, unsigned *out) {
  __shared__ __align__(128) unsigned short s[32 * 128];
  unsigned lane = threadIdx.x;
  unsigned addr = (unsigned)__cvta_generic_to_shared(s) + lane * stride;
  unsigned v = out[lane];
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%1,%1,%1};" :: "r"(addr), "r"(v) : "memory");
}
__global__ void ldgsts_ca(int stride, const int4 *src, unsigned *out) {
  __shared__ __align__(128) int4 s[32 * 8];
  unsigned lane = threadIdx.x;
  unsigned addr = (unsigned)__cvta_generic_to_shared(s) + lane * stride;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(addr), "l"(src + lane) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
}
__global__ void ldgsts_cg(int stride, const int4 *src, unsigned *out) {
  __shared__ __align__(128) int4 s[32 * 8];
  unsigned lane = threadIdx.x;
  unsigned addr = (unsigned)__cvta_generic_to_shared(s) + lane * stride;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(addr), "l"(src + lane) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
}
int main() {
  unsigned *out; int4 *src;
  cudaMalloc(&out, 4096); cudaMalloc(&src, 1 << 16); cudaMemset(out, 0, 4096);
  for (int stride : {16, 128}) {
    ldsm<<<1, 32>>>(stride, out); stsm<<<1, 32>>>(stride, out);
    ldgsts_ca<<<1, 32>>>(stride, src, out); ldgsts_cg<<<1, 32>>>(stride, src, out);
  }
  cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
}
