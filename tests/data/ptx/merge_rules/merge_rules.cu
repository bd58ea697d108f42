// ptxas's merges of shared accesses (tests/data/ptx/ptxas_merging*), measured
// end to end with ncu: each thread owns 48 bytes of `sm` (stride 48: bank
// conflicts) and makes merged and unmerged runs of inline-PTX loads and
// stores. Per warp, as ptxas 13.0 compiles it for sm_90:
//   4 x st.shared.u16 at +0..+6          -> STS.64
//   3 x st.shared.b32 at +16..+24        -> STS.64 + STS
//   2 x st.shared.b32 at +40,+44         -> STS.64
//   3 x ld.shared.b32 at +16..+24        -> LDS.128 (reads +28 too)
//   2 x ld.shared.b32 at +40,+44         -> LDS.64
//   @p ld.shared.b32 at +0,+4            -> 2 x LDS (guarded: never merged)
//   3 x ld.shared.b32 at base+4k+12..+20 -> 3 x LDS (k a parameter: alignment unprovable)
//   2 x ld.volatile.shared.b32 +40,+44   -> 2 x LDS
// Fixture launch: 2 blocks of 128 threads, k = 1.
#include "fx.h"

#define LD(b, off) ({ unsigned v_; asm volatile("ld.shared.b32 %0, [%1+" #off "];" : "=r"(v_) : "r"(b)); v_; })
#define LDV(b, off) ({ unsigned v_; asm volatile("ld.volatile.shared.b32 %0, [%1+" #off "];" : "=r"(v_) : "r"(b)); v_; })
#define ST(b, off, v) asm volatile("st.shared.b32 [%0+" #off "], %1;" :: "r"(b), "r"(v) : "memory")
#define ST16(b, off, v) asm volatile("st.shared.u16 [%0+" #off "], %1;" :: "r"(b), "h"((unsigned short)(v)) : "memory")

__global__ void mergeRules(unsigned *out, const unsigned *in, unsigned k) {
  __shared__ __align__(16) unsigned sm[2048];
  unsigned t = threadIdx.x;
  unsigned base = (unsigned)__cvta_generic_to_shared(sm) + t * 48u;
  unsigned v = in[blockIdx.x * blockDim.x + t];
  ST16(base, 0, t); ST16(base, 2, t + 1); ST16(base, 4, t + 2); ST16(base, 6, t + 3);
  ST(base, 16, v); ST(base, 20, v + 1); ST(base, 24, v + 2);
  ST(base, 40, v + 3); ST(base, 44, v + 4);
  __syncthreads();
  unsigned r = LD(base, 16) + LD(base, 20) + LD(base, 24);
  r += LD(base, 40) + LD(base, 44);
  unsigned a = 0, b = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p ld.shared.b32 %0, [%2]; @p ld.shared.b32 %1, [%2+4]; }"
               : "+r"(a), "+r"(b) : "r"(base), "r"(t & 1u));
  r += a + b;
  unsigned base2 = base + 4u * k;
  r += LD(base2, 12) + LD(base2, 16) + LD(base2, 20);
  r += LDV(base, 40) + LDV(base, 44);
  out[blockIdx.x * blockDim.x + t] = r;
}

int main() {
  const int n = 256;
  std::vector<unsigned> h(n);
  for (int i = 0; i < n; ++i) h[i] = 7u * i + 1u;
  unsigned *din = fx_upload(h);
  unsigned *dout = fx_alloc<unsigned>(n);
  fx_record("mergeRules", dim3(2), dim3(128), 0,
            {fx_ptr(n * 4, "out, poisoned 0xff"), fx_ptr(n * 4, "in[i] = 7i + 1"), fx_int(1)});
  mergeRules<<<2, 128>>>(dout, din, 1);
  fx_sync();
  auto r = fx_download(dout, n);
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    unsigned t = i % 128, v = h[i];
    unsigned w0 = t | ((t + 1) << 16), w1 = (t + 2) | ((t + 3) << 16);
    unsigned e = (3 * v + 3) + (2 * v + 7) + ((t & 1) ? w0 + w1 : 0) + (3 * v + 3) + (2 * v + 7);
    ok &= r[i] == e;
  }
  return fx_check(ok, "sums");
}
