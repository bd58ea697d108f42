// Which runs of consecutive 32-bit ld.shared/st.shared ptxas (sm_90) merges into
// LDS.64/LDS.128/STS.64/STS.128. Inline PTX so the front end cannot vectorize.
__shared__ __align__(16) unsigned sm[256];

#define LD(off) ({ unsigned v_; asm volatile("ld.shared.b32 %0, [%1+" #off "];" : "=r"(v_) : "r"(base)); v_; })
#define ST(off, v) asm volatile("st.shared.b32 [%0+" #off "], %1;" :: "r"(base), "r"(v) : "memory")

// base is a multiple of 16 (ptxas can prove it: (t & ~3u) * 16 + symbol)
#define BASE16 unsigned base = (unsigned)__cvta_generic_to_shared(sm) + ((threadIdx.x & 15u) << 4)

extern "C" __global__ void ld2_aligned8(unsigned *o) { BASE16; o[threadIdx.x] = LD(0) + LD(4); }
extern "C" __global__ void ld2_off4(unsigned *o) { BASE16; o[threadIdx.x] = LD(4) + LD(8); }
extern "C" __global__ void ld4_aligned16(unsigned *o) { BASE16; o[threadIdx.x] = LD(0) + LD(4) + LD(8) + LD(12); }
extern "C" __global__ void ld4_off8(unsigned *o) { BASE16; o[threadIdx.x] = LD(8) + LD(12) + LD(16) + LD(20); }
extern "C" __global__ void ld4_off4(unsigned *o) { BASE16; o[threadIdx.x] = LD(4) + LD(8) + LD(12) + LD(16); }
extern "C" __global__ void ld3_aligned16(unsigned *o) { BASE16; o[threadIdx.x] = LD(0) + LD(4) + LD(8); }
extern "C" __global__ void ld8_aligned16(unsigned *o) { BASE16; o[threadIdx.x] = LD(0)+LD(4)+LD(8)+LD(12)+LD(16)+LD(20)+LD(24)+LD(28); }
extern "C" __global__ void st2_aligned8(unsigned *o) { BASE16; unsigned v = o[threadIdx.x]; ST(0, v); ST(4, v + 1); }
extern "C" __global__ void st2_off4(unsigned *o) { BASE16; unsigned v = o[threadIdx.x]; ST(4, v); ST(8, v + 1); }
extern "C" __global__ void st4_aligned16(unsigned *o) { BASE16; unsigned v = o[threadIdx.x]; ST(0, v); ST(4, v + 1); ST(8, v + 2); ST(12, v + 3); }
extern "C" __global__ void st4_off8(unsigned *o) { BASE16; unsigned v = o[threadIdx.x]; ST(8, v); ST(12, v + 1); ST(16, v + 2); ST(20, v + 3); }
// Unknown alignment: base from a runtime value (only 4-byte alignment provable).
extern "C" __global__ void ld2_unknown(unsigned *o, unsigned k) { unsigned base = (unsigned)__cvta_generic_to_shared(sm) + 4 * k; o[threadIdx.x] = LD(0) + LD(4); }
extern "C" __global__ void ld4_unknown(unsigned *o, unsigned k) { unsigned base = (unsigned)__cvta_generic_to_shared(sm) + 4 * k; o[threadIdx.x] = LD(0) + LD(4) + LD(8) + LD(12); }
// Plain C (no inline asm): the front end's own choices.
extern "C" __global__ void c_ld2(unsigned *o) { unsigned i = (threadIdx.x & 15u) * 4; o[threadIdx.x] = sm[i] + sm[i + 1]; }
extern "C" __global__ void c_ld4(unsigned *o) { unsigned i = (threadIdx.x & 15u) * 4; o[threadIdx.x] = sm[i] + sm[i + 1] + sm[i + 2] + sm[i + 3]; }
extern "C" __global__ void c_st4(unsigned *o) { unsigned i = (threadIdx.x & 15u) * 4; unsigned v = o[threadIdx.x]; sm[i] = v; sm[i+1] = v+1; sm[i+2] = v+2; sm[i+3] = v+3; __syncthreads(); o[threadIdx.x] = sm[(i + 5) & 255]; }
