// Transpose through shared memory, the naive way: one thread per element of a
// 32x32 tile (blocks of 32x32 threads), the tile written by rows and read by
// columns with no padding, so every read of a warp hits one bank (32-way).
#include "fx.h"

#define TILE 32

__global__ void transposeNaiveShared(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int w = 256, h = 256;
  std::vector<float> in(w * h);
  for (int i = 0; i < w * h; ++i) in[i] = (float)i;
  float *di = fx_upload(in);
  float *dout = fx_alloc<float>(w * h);
  dim3 g(w / TILE, h / TILE), b(TILE, TILE);
  fx_record("transposeNaiveShared", g, b, 0,
            {fx_ptr(w * h * 4, "output, poisoned 0xff"), fx_ptr(w * h * 4, "idata[i] = (float)i"),
             fx_int(w), fx_int(h)});
  transposeNaiveShared<<<g, b>>>(dout, di, w, h);
  fx_sync();
  auto r = fx_download(dout, w * h);
  bool ok = true;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ok &= r[x * h + y] == in[y * w + x];
  return fx_check(ok, "transposed");
}
