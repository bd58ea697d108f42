// ldmatrix (.x1, .x2, .x4, .x4.trans) and stmatrix (.x4) on sm_90, written in
// inline PTX. One block of 4 warps; each warp reads four 8x8 b16 matrices from
// rows warp*8 .. warp*8+7 (lane l gives the address of row l % 8 of matrix
// l / 8; the matrices sit side by side, 16 bytes apart) and writes them back
// with stmatrix to rows 32 + warp*8 ... The row pitch is the argument
// `stride` (bytes): 128 in the fixture's launch (every row starts in bank 0:
// the 8 rows of a matrix conflict), then 144 (padded by 16 bytes:
// conflict-free) as the second launch.
#include "fx.h"

__global__ void ldmatrixStmatrix(unsigned *out, int stride) {
  __shared__ __align__(128) unsigned char tile[64 * 160];
  int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  unsigned *w = reinterpret_cast<unsigned *>(tile);
  for (int i = t; i < 64 * 160 / 4; i += blockDim.x) w[i] = i;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(tile);
  unsigned a = base + (warp * 8 + (lane & 7)) * stride + (lane >> 3) * 16;
  unsigned r0, r1, r2, r3, s0, s1, s2, s3, x0, y0, y1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3) : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x0) : "r"(a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(y0), "=r"(y1) : "r"(a));
  __syncthreads();
  unsigned b = base + (32 + warp * 8 + (lane & 7)) * stride + (lane >> 3) * 16;
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               ::"r"(b), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  __syncthreads();
  out[t] = r0 ^ r1 ^ r2 ^ r3 ^ s0 ^ s1 ^ s2 ^ s3 ^ x0 ^ y0 ^ y1 ^ w[t + 8 * stride];
}

int main() {
  unsigned *dout = fx_alloc<unsigned>(128);
  int strides[2] = {128, 144};
  for (int s : strides) {
    fx_record("ldmatrixStmatrix", dim3(1), dim3(128), 0, {fx_ptr(128 * 4, "out, poisoned 0xff"), fx_int(s)});
    ldmatrixStmatrix<<<1, 128>>>(dout, s);
    fx_sync();
  }
  return fx_check(true, "ran both launches");
}
