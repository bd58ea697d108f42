// Issue 21 item 4: is a shared-memory instruction whose predicate is off in
// every lane counted by smsp__sass_inst_executed_op_shared_{ld,st}? The guard written as a PTX predicate (@p ld.shared / @p st.shared in inline asm), which ptxas keeps as a predicated LDS/STS.
// One block of 128 threads (4 warps). The driver launches twice: first with
// the argument 0 (the fixture's launch, launch.json: every guarded access off),
// then with 1 (the control). Per warp: one unconditional STS and LDS, one
// guarded LDS and one guarded STS.
#include "fx.h"

__global__ void predOffAsm(int *out, int arg) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = t * 3;  // STS, always
  __syncthreads();
  int v = -1;
  {
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[(t + 1) & 127]);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %2, 0;\n\t@p ld.shared.u32 %0, [%1];\n\t}\n"
        : "+r"(v) : "r"(a), "r"(arg) : "memory");
  }
  __syncthreads();
  {
    unsigned b = (unsigned)__cvta_generic_to_shared(&s[(t + 5) & 127]);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %1, 0;\n\t@p st.shared.u32 [%0], %2;\n\t}\n"
        :: "r"(b), "r"(arg), "r"(v) : "memory");
  }
  __syncthreads();
  out[t] = v + s[t];  // LDS, always
}

int main() {
  int *dout = fx_alloc<int>(128);
  int args[2] = {0, 1};
  for (int a : args) {
    fx_record("predOffAsm", dim3(1), dim3(128), 0, {fx_ptr(128 * 4, "out, poisoned 0xff"), fx_int(a)});
    predOffAsm<<<1, 128>>>(dout, a);
    fx_sync();
  }
  return fx_check(true, "ran both launches");
}
