// the classic coalesced transpose with the tile padded to 32x33 floats: conflict-free.
#include "fx.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeCoalescedPadded(float *odata, const float *idata) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transpose block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int w = 256;  // square: the kernel uses gridDim.x * TILE_DIM for both
  std::vector<float> in(w * w);
  for (int i = 0; i < w * w; ++i) in[i] = (float)i;
  float *di = fx_upload(in);
  float *dout = fx_alloc<float>(w * w);
  dim3 g(w / TILE_DIM, w / TILE_DIM), b(TILE_DIM, BLOCK_ROWS);
  fx_record("transposeCoalescedPadded", g, b, 0,
            {fx_ptr(w * w * 4, "output, poisoned 0xff"), fx_ptr(w * w * 4, "idata[i] = (float)i")});
  transposeCoalescedPadded<<<g, b>>>(dout, di);
  fx_sync();
  auto r = fx_download(dout, w * w);
  bool ok = true;
  for (int y = 0; y < w; ++y)
    for (int x = 0; x < w; ++x) ok &= r[x * w + y] == in[y * w + x];
  return fx_check(ok, "transposed");
}
