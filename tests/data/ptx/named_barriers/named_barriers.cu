// Producer/consumer with named barriers: warps 0-1 write a tile and signal
// barrier 1 with bar.arrive (128 threads expected), warps 2-3 wait on it with
// bar.sync 1, 128 and read the tile; then all 128 threads meet at barrier 0
// (__syncthreads) before warps 0-1 read what warps 2-3 wrote. Race-free. One
// block of 128 threads.
#include "fx.h"

__global__ void namedBarriers(int *out) {
  __shared__ int tile[64];
  __shared__ int back[64];
  int t = threadIdx.x;
  if (t < 64) {
    tile[t] = t * 7;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    back[t - 64] = tile[127 - t] + 1;
  }
  __syncthreads();
  out[t] = t < 64 ? back[63 - t] : tile[t - 64];
}

int main() {
  int *dout = fx_alloc<int>(128);
  fx_record("namedBarriers", dim3(1), dim3(128), 0, {fx_ptr(128 * 4, "out, poisoned 0xff")});
  namedBarriers<<<1, 128>>>(dout);
  fx_sync();
  auto r = fx_download(dout, 128);
  // back[63 - t] = tile[127 - (64 + 63 - t)] + 1 = tile[t] + 1 = 7t + 1
  bool ok = true;
  for (int t = 0; t < 64; ++t) ok &= r[t] == 7 * t + 1;
  for (int t = 64; t < 128; ++t) ok &= r[t] == 7 * (t - 64);
  return fx_check(ok, "values");
}
