// Issue 21 item 4: is a shared-memory instruction whose predicate is off in
// every lane counted by smsp__sass_inst_executed_op_shared_{ld,st}? The guard depends on the thread (t < arg), so ptxas predicates the access per lane; arg = 0 turns it off in every lane.
// One block of 128 threads (4 warps). The driver launches twice: first with
// the argument 0 (the fixture's launch, launch.json: every guarded access off),
// then with 64 (the control). Per warp: one unconditional STS and LDS, one
// guarded LDS and one guarded STS.
#include "fx.h"

__global__ void predOffTid(int *out, int arg) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = t * 3;  // STS, always
  __syncthreads();
  int v = -1;
  if (t < arg) v = s[(t + 1) & 127];  // LDS guarded per thread
  __syncthreads();
  if (t < arg) s[(t + 5) & 127] = v;  // STS guarded per thread
  __syncthreads();
  out[t] = v + s[t];  // LDS, always
}

int main() {
  int *dout = fx_alloc<int>(128);
  int args[2] = {0, 64};
  for (int a : args) {
    fx_record("predOffTid", dim3(1), dim3(128), 0, {fx_ptr(128 * 4, "out, poisoned 0xff"), fx_int(a)});
    predOffTid<<<1, 128>>>(dout, a);
    fx_sync();
  }
  return fx_check(true, "ran both launches");
}
