// More probes of which consecutive shared loads/stores ptxas (sm_90) merges
// into LDS/STS.64/.128 (issue 22; the first set is ../ptxas_merging). Inline
// PTX so that the front end cannot vectorize; every kernel is compiled only
// (cubin + cuobjdump -sass), none is launched.
__shared__ __align__(16) unsigned sm[256];
__shared__ unsigned padw[1];          // .align 4, declared before s4
__shared__ unsigned s4[64];           // .align 4: placed at 4 after padw?
extern __shared__ __align__(16) unsigned dyn16[];
extern __shared__ unsigned dyn4[];    // .align 4

#define LDB(b, off) ({ unsigned v_; asm volatile("ld.shared.b32 %0, [%1+" #off "];" : "=r"(v_) : "r"(b)); v_; })
#define LD(off) LDB(base, off)
#define LDV(off) ({ unsigned v_; asm volatile("ld.volatile.shared.b32 %0, [%1+" #off "];" : "=r"(v_) : "r"(base)); v_; })
#define LD16(off) ({ unsigned short v_; asm volatile("ld.shared.u16 %0, [%1+" #off "];" : "=h"(v_) : "r"(base)); (unsigned)v_; })
#define LD8(off) ({ unsigned v_; asm volatile("ld.shared.u8 %0, [%1+" #off "];" : "=r"(v_) : "r"(base)); v_; })
#define LD64(off) ({ unsigned long long v_; asm volatile("ld.shared.b64 %0, [%1+" #off "];" : "=l"(v_) : "r"(base)); (unsigned)(v_ ^ (v_ >> 32)); })
#define LDV2(off) ({ unsigned a_, b_; asm volatile("ld.shared.v2.b32 {%0, %1}, [%2+" #off "];" : "=r"(a_), "=r"(b_) : "r"(base)); a_ + b_; })
#define ST(off, v) asm volatile("st.shared.b32 [%0+" #off "], %1;" :: "r"(base), "r"(v) : "memory")
#define ST16(off, v) asm volatile("st.shared.u16 [%0+" #off "], %1;" :: "r"(base), "h"((unsigned short)(v)) : "memory")
#define ST64(off, v) asm volatile("st.shared.b64 [%0+" #off "], %1;" :: "r"(base), "l"((unsigned long long)(v)) : "memory")
#define STV2(off, v) asm volatile("st.shared.v2.b32 [%0+" #off "], {%1, %2};" :: "r"(base), "r"(v), "r"((v) + 7) : "memory")

#define CVTA(s) ((unsigned)__cvta_generic_to_shared(s))
#define T threadIdx.x
#define BASE16 unsigned base = CVTA(sm) + ((T & 15u) << 4)
#define BASE8 unsigned base = CVTA(sm) + ((T & 15u) << 3)
#define K extern "C" __global__ void

// Which words of a 16-byte chunk (offsets 0, 4, 8, 12 from a 16-aligned base).
K ld_w02(unsigned *o) { BASE16; o[T] = LD(0) + LD(8); }
K ld_w03(unsigned *o) { BASE16; o[T] = LD(0) + LD(12); }
K ld_w13(unsigned *o) { BASE16; o[T] = LD(4) + LD(12); }
K ld_w23(unsigned *o) { BASE16; o[T] = LD(8) + LD(12); }
K ld_w013(unsigned *o) { BASE16; o[T] = LD(0) + LD(4) + LD(12); }
K ld_w023(unsigned *o) { BASE16; o[T] = LD(0) + LD(8) + LD(12); }
K ld_w123(unsigned *o) { BASE16; o[T] = LD(4) + LD(8) + LD(12); }
K ld_rev4(unsigned *o) { BASE16; unsigned a = LD(12); unsigned b = LD(8); unsigned c = LD(4); unsigned d = LD(0); o[T] = a + b + c + d; }
K ld_span(unsigned *o) { BASE16; o[T] = LD(12) + LD(16); }
K ld_w0_w4(unsigned *o) { BASE16; o[T] = LD(0) + LD(16); }
K ld6(unsigned *o) { BASE16; o[T] = LD(0) + LD(4) + LD(8) + LD(12) + LD(16) + LD(20); }
K ld_far(unsigned *o) { BASE16; o[T] = LD(0) + LD(4) + LD(8) + LD(12) + LD(512) + LD(516); }
// Base registers of their own (base + 4 computed apart).
K ld_sep4(unsigned *o) { BASE16; unsigned b1 = base + 4, b2 = base + 8, b3 = base + 12; o[T] = LDB(base, 0) + LDB(b1, 0) + LDB(b2, 0) + LDB(b3, 0); }
// An 8-aligned base.
K ld8b_2(unsigned *o) { BASE8; o[T] = LD(0) + LD(4); }
K ld8b_3(unsigned *o) { BASE8; o[T] = LD(0) + LD(4) + LD(8); }
K ld8b_4(unsigned *o) { BASE8; o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
// How the alignment is proved.
K ld4_mul48(unsigned *o) { unsigned base = CVTA(sm) + (T & 3u) * 48u; o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_xor(unsigned *o) { unsigned base = CVTA(sm) + (((T & 7u) ^ ((T >> 3) & 7u)) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_t16(unsigned *o) { unsigned base = CVTA(sm) + T * 16u; o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_param16(unsigned *o, unsigned k) { unsigned base = CVTA(sm) + 16u * k; o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld2_param8(unsigned *o, unsigned k) { unsigned base = CVTA(sm) + 8u * k + 8u; o[T] = LD(0) + LD(4); }
K ld4_and(unsigned *o) { unsigned base = CVTA(sm) + ((T * 4u) & ~15u); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_shr(unsigned *o) { unsigned base = CVTA(sm) + ((T >> 2) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
// Symbol placement: s4 (.align 4) after padw; does ptxas use the placed offset?
K ld_placed0(unsigned *o) { if (T == 999) padw[0] = 1; unsigned base = CVTA(s4) + ((T & 3u) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld_placed12(unsigned *o) { if (T == 999) padw[0] = 1; unsigned base = CVTA(s4) + ((T & 3u) << 4); o[T] = LD(12) + LD(16) + LD(20) + LD(24); }
K ld_s4_alone(unsigned *o) { unsigned base = CVTA(s4) + ((T & 3u) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
// Dynamic shared memory.
K ld4_dyn16(unsigned *o) { unsigned base = CVTA(dyn16) + ((T & 15u) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_dyn4(unsigned *o) { unsigned base = CVTA(dyn4) + ((T & 15u) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_dyn4_pad(unsigned *o) { if (T == 999) padw[0] = 1; unsigned base = CVTA(dyn4) + ((T & 15u) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
K ld4_dyn16_pad(unsigned *o) { if (T == 999) padw[0] = 1; unsigned base = CVTA(dyn16) + ((T & 15u) << 4); o[T] = LD(0) + LD(4) + LD(8) + LD(12); }
// Widths other than 32 bits.
K ld16_2(unsigned *o) { BASE16; o[T] = LD16(0) + LD16(2); }
K ld16_4(unsigned *o) { BASE16; o[T] = LD16(0) + LD16(2) + LD16(4) + LD16(6); }
K ld16_8(unsigned *o) { BASE16; o[T] = LD16(0) + LD16(2) + LD16(4) + LD16(6) + LD16(8) + LD16(10) + LD16(12) + LD16(14); }
K ld8_4(unsigned *o) { BASE16; o[T] = LD8(0) + LD8(1) + LD8(2) + LD8(3); }
K ld64_2(unsigned *o) { BASE16; o[T] = LD64(0) + LD64(8); }
K ld64_off8(unsigned *o) { BASE16; o[T] = LD64(8) + LD64(16); }
K ldv2_2(unsigned *o) { BASE16; o[T] = LDV2(0) + LDV2(8); }
K ldv2_b32(unsigned *o) { BASE16; o[T] = LDV2(0) + LD(8) + LD(12); }
K ld_volatile4(unsigned *o) { BASE16; o[T] = LDV(0) + LDV(4) + LDV(8) + LDV(12); }
// Stores.
K st3(unsigned *o) { BASE16; unsigned v = o[T]; ST(0, v); ST(4, v + 1); ST(8, v + 2); }
K st_w02(unsigned *o) { BASE16; unsigned v = o[T]; ST(0, v); ST(8, v + 1); }
K st_w123(unsigned *o) { BASE16; unsigned v = o[T]; ST(4, v); ST(8, v + 1); ST(12, v + 2); }
K st_rev4(unsigned *o) { BASE16; unsigned v = o[T]; ST(12, v); ST(8, v + 1); ST(4, v + 2); ST(0, v + 3); }
K st8(unsigned *o) { BASE16; unsigned v = o[T]; ST(0, v); ST(4, v + 1); ST(8, v + 2); ST(12, v + 3); ST(16, v + 4); ST(20, v + 5); ST(24, v + 6); ST(28, v + 7); }
K st8b_4(unsigned *o) { BASE8; unsigned v = o[T]; ST(0, v); ST(4, v + 1); ST(8, v + 2); ST(12, v + 3); }
K st16_2(unsigned *o) { BASE16; unsigned v = o[T]; ST16(0, v); ST16(2, v + 1); }
K st16_4(unsigned *o) { BASE16; unsigned v = o[T]; ST16(0, v); ST16(2, v + 1); ST16(4, v + 2); ST16(6, v + 3); }
K st64_2(unsigned *o) { BASE16; unsigned v = o[T]; ST64(0, v); ST64(8, v + 1); }
K stv2_2(unsigned *o) { BASE16; unsigned v = o[T]; STV2(0, v); STV2(8, v + 1); }
K st4_unknown(unsigned *o, unsigned k) { unsigned base = CVTA(sm) + 4 * k; unsigned v = o[T]; ST(0, v); ST(4, v + 1); ST(8, v + 2); ST(12, v + 3); }
// What stands between.
K ld_st_ld(unsigned *o) { BASE16; unsigned v = o[T]; unsigned a = LD(0); ST(64, v); unsigned b = LD(4); o[T] = a + b; }
K st_ld_st(unsigned *o) { BASE16; unsigned v = o[T]; ST(0, v); unsigned a = LD(64); ST(4, v + 1); o[T] = a; }
K ld_bar_ld(unsigned *o) { BASE16; unsigned a = LD(0); __syncthreads(); unsigned b = LD(4); o[T] = a + b; }
K st_bar_st(unsigned *o) { BASE16; unsigned v = o[T]; ST(0, v); __syncthreads(); ST(4, v + 1); }
K ld_branch_ld(unsigned *o) { BASE16; unsigned a = LD(0); if (o[T + 32] == 5) o[T + 64] = 1; unsigned b = LD(4); o[T] = a + b; }
K ld_fence_ld(unsigned *o) { BASE16; unsigned a = LD(0); __threadfence_block(); unsigned b = LD(4); o[T] = a + b; }
K ld_guard_same(unsigned *o) {
  BASE16; unsigned a = 1, b = 2, c = o[T];
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; @p ld.shared.b32 %0, [%2]; @p ld.shared.b32 %1, [%2+4]; }" : "+r"(a), "+r"(b) : "r"(base), "r"(c));
  o[T] = a + b; }
K ld_guard_diff(unsigned *o) {
  BASE16; unsigned a = 1, b = 2, c = o[T];
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %3, 0; setp.ne.u32 q, %3, 1; @p ld.shared.b32 %0, [%2]; @q ld.shared.b32 %1, [%2+4]; }" : "+r"(a), "+r"(b) : "r"(base), "r"(c));
  o[T] = a + b; }
