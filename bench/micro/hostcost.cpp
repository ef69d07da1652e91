// Microbenchmark: what one gemm() call costs on the GPU at small sizes: the host's time per call
// (no synchronization between calls), the wall time per call once the stream has drained
// (back-to-back calls: the larger of host and GPU time), and one call between two events
// (host work before the launch plus the kernel), for the planner's pick, a data-parallel sm90
// tile and the ladder's rung 4. Build: g++ -std=c++20 -O2 -I include -I /usr/local/cuda/include
//   bench/micro/hostcost.cpp -L build -lgemmkit -L /usr/local/cuda/lib64 -lcudart
//   -Wl,-rpath,$PWD/build -o hostcost
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <gemmkit/gemm.hpp>
using namespace gemmkit;
int main() {
  for (long n : {512L, 1024L}) {
    void *a, *b, *d;
    cudaMalloc(&a, n * n * 2); cudaMalloc(&b, n * n * 2); cudaMalloc(&d, n * n * 2);
    cudaMemset(a, 0, n * n * 2); cudaMemset(b, 0, n * n * 2);
    GemmDesc desc{.m = n, .n = n, .k = n};
    desc.a.dtype = desc.b.dtype = desc.c.dtype = desc.d.dtype = DType::BF16;
    for (const char* k : {(const char*)nullptr, "cuda.sm90_gemm_tma_ws_128x128x64_s6", "cuda.ladder.rung4"}) {
      Options o{.backend = Backend::Cuda, .kernel = k, .split_k = k ? 1 : 0};
      GemmArgs args{.a = a, .b = b, .c = d, .d = d, .alpha = 1, .beta = 0};
      for (int i = 0; i < 20; ++i) gemm(desc, args, o);
      cudaDeviceSynchronize();
      const int reps = 300;
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; ++i) gemm(desc, args, o);
      auto t1 = std::chrono::steady_clock::now();
      cudaDeviceSynchronize();
      auto t2 = std::chrono::steady_clock::now();
      cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
      float single = 0; double sum = 0;
      for (int i = 0; i < 50; ++i) { cudaEventRecord(e0); gemm(desc, args, o); cudaEventRecord(e1); cudaEventSynchronize(e1); cudaEventElapsedTime(&single, e0, e1); sum += single; }
      std::printf("n=%ld %-40s host %.2f us/call, wall %.2f us/call, one call between events %.2f us\n", n, k ? k : "planner",
        std::chrono::duration<double, std::micro>(t1 - t0).count() / reps,
        std::chrono::duration<double, std::micro>(t2 - t0).count() / reps, sum / 50 * 1e3);
    }
  }
}
