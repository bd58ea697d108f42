// Host-side helpers shared by the fixture drivers (no device code here, so
// nothing of this file reaches the PTX). Each driver prints one FXLAUNCH line
// (the launch as JSON: grid, block, dynamic shared bytes, arguments in order)
// before its launch and one FXCHECK line after it.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__,   \
              cudaGetErrorString(e_));                                          \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

struct FxArg {
  bool pointer;
  long long value;   // scalars
  size_t bytes;      // pointers: the allocation's size
  const char *init;  // pointers: how the buffer was filled
};
static inline FxArg fx_ptr(size_t bytes, const char *init) { return {true, 0, bytes, init}; }
static inline FxArg fx_int(long long v) { return {false, v, 0, ""}; }

static inline void fx_record(const char *kernel, dim3 g, dim3 b, size_t dyn,
                             const std::vector<FxArg> &args) {
  printf("FXLAUNCH {\"kernel\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], "
         "\"dynamic_shared\": %zu, \"args\": [",
         kernel, g.x, g.y, g.z, b.x, b.y, b.z, dyn);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].pointer)
      printf("%s{\"pointer\": true, \"bytes\": %zu, \"init\": \"%s\"}", i ? ", " : "",
             args[i].bytes, args[i].init);
    else
      printf("%s{\"pointer\": false, \"value\": %lld}", i ? ", " : "", args[i].value);
  }
  printf("]}\n");
  fflush(stdout);
}

template <typename T> static T *fx_upload(const std::vector<T> &h) {
  T *d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T> static T *fx_alloc(size_t n) {
  T *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemset(d, 0xff, n * sizeof(T)));  // poison: unwritten outputs show
  return d;
}
template <typename T> static std::vector<T> fx_download(const T *d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
static inline void fx_sync() {
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}
static inline int fx_check(bool ok, const char *what) {
  printf("FXCHECK %s %s\n", ok ? "ok" : "MISMATCH", what);
  return ok ? 0 : 3;
}
