// cp.async double buffering (sm_80+), written in inline PTX so the PTX shows
// exactly cp.async.cg (16 bytes) + commit_group + wait_group: while tile k is
// read from one buffer, tile k+1 is copied into the other. Blocks of 128
// threads, 4 blocks, 8 tiles of 128 float4 each. Each tile is read twice: as
// float4 (LDS.128, conflict-free) and as floats at word (4t+1) % 512 (a 4-way
// bank conflict).
#include "fx.h"

#define TILE 128

__global__ void cpAsyncDoubleBuffer(float *out, const float4 *in, int tiles) {
  __shared__ __align__(16) float4 buf[2][TILE];
  int t = threadIdx.x;
  const float4 *src = in + blockIdx.x * tiles * TILE;
  float acc = 0.f;
  unsigned s0 = (unsigned)__cvta_generic_to_shared(&buf[0][t]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s0), "l"(src + t) : "memory");
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  for (int k = 0; k < tiles; ++k) {
    if (k + 1 < tiles) {
      unsigned sn = (unsigned)__cvta_generic_to_shared(&buf[(k + 1) & 1][t]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sn), "l"(src + (k + 1) * TILE + t)
                   : "memory");
      asm volatile("cp.async.commit_group;\n" ::: "memory");
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
    __syncthreads();
    float4 v = buf[k & 1][t];
    const float *f = reinterpret_cast<const float *>(buf[k & 1]);
    acc += v.x + v.y + v.z + v.w + f[(t * 4 + 1) % (4 * TILE)];
    __syncthreads();
  }
  out[blockIdx.x * TILE + t] = acc;
}

int main() {
  const int blocks = 4, tiles = 8, n4 = blocks * tiles * TILE;
  std::vector<float4> in(n4);
  for (int i = 0; i < n4; ++i) in[i] = make_float4(i % 5, i % 3, 1.f, 2.f);
  float4 *di = fx_upload(in);
  float *dout = fx_alloc<float>(blocks * TILE);
  fx_record("cpAsyncDoubleBuffer", dim3(blocks), dim3(TILE), 0,
            {fx_ptr(blocks * TILE * 4, "out, poisoned 0xff"),
             fx_ptr(n4 * 16, "in[i] = float4(i % 5, i % 3, 1, 2)"), fx_int(tiles)});
  cpAsyncDoubleBuffer<<<blocks, TILE>>>(dout, di, tiles);
  fx_sync();
  auto r = fx_download(dout, blocks * TILE);
  bool ok = true;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < TILE; ++t) {
      float acc = 0.f;
      for (int k = 0; k < tiles; ++k) {
        const float4 *tile = &in[(b * tiles + k) * TILE];
        float4 v = tile[t];
        const float *f = reinterpret_cast<const float *>(tile);
        acc += v.x + v.y + v.z + v.w + f[(t * 4 + 1) % (4 * TILE)];
      }
      ok &= fabsf(r[b * TILE + t] - acc) < 1e-3f;
    }
  return fx_check(ok, "sums");
}
