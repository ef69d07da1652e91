// Microbenchmark: what a call's launch costs inside a CUDA graph of 200 back-to-back calls
// (how `gemmkit bench` times short calls): a memset node before each kernel (the split-K
// counters of a caller's workspace were zeroed so), 220 KiB of shared memory and 384 threads
// (the sm90 kernels), a cluster-dimension attribute of (1, 1, 1), programmatic dependent
// launch. H200, 2026-12-02 (bench/results/h200-2026-12-02-s15-launch-cost-run3.txt): a 4 KiB
// memset node adds 2.4 us a call, the cluster attribute 0.2 us at 132 CTAs, PDL saves 0.1 us
// on an empty kernel.
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/micro/launch_cost.cu
//   -o launch_cost
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void k_small(int* p) {
  if (threadIdx.x == 0 && blockIdx.x == 1000000) p[0] = 1;
}
__global__ void __launch_bounds__(384, 1) k_big(int* p) {
  extern __shared__ int s[];
  if (threadIdx.x == 0) s[0] = blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0 && s[0] == 1000000) p[0] = 1;
}
__global__ void __launch_bounds__(384, 1) k_big_pdl(int* p) {
  extern __shared__ int s[];
  if (threadIdx.x == 0) s[0] = blockIdx.x;
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  __syncthreads();
  if (threadIdx.x == 0 && s[0] == 1000000) p[0] = 1;
}
__global__ void __launch_bounds__(384, 1) k_spin(int* p, long long ns) {
  extern __shared__ int s[];
  long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  long long t = t0;
  while (t - t0 < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  if (threadIdx.x == 0 && t == 0) p[0] = 1;
}

int* g_p;
unsigned* g_flags;
template <class F>
double graph_us(cudaStream_t st, F one, int calls = 200) {
  cudaGraph_t g;
  cudaGraphExec_t e;
  cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < calls; ++i) one(st);
  cudaStreamEndCapture(st, &g);
  if (cudaGraphInstantiate(&e, g, 0) != cudaSuccess) {
    printf("instantiate failed\n");
    return -1;
  }
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> v;
  for (int r = 0; r < 7; ++r) {
    cudaEventRecord(a, st);
    cudaGraphLaunch(e, st);
    cudaEventRecord(b, st);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    v.push_back(ms * 1e3 / calls);
  }
  std::sort(v.begin(), v.end());
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  return v[3];
}
void launch(cudaStream_t st, void (*f)(int*), int grid, int smem, bool cluster, bool pdl) {
  cudaLaunchAttribute at[2];
  int n = 0;
  if (cluster) {
    at[n].id = cudaLaunchAttributeClusterDimension;
    at[n].val.clusterDim = {1, 1, 1};
    ++n;
  }
  if (pdl) {
    at[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  cudaLaunchConfig_t c{};
  c.gridDim = grid;
  c.blockDim = 384;
  c.dynamicSmemBytes = smem;
  c.stream = st;
  c.attrs = at;
  c.numAttrs = n;
  cudaLaunchKernelEx(&c, f, g_p);
}
int main() {
  cudaMalloc(&g_p, 64);
  cudaMalloc(&g_flags, 4096);
  cudaFuncSetAttribute(k_big, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024);
  cudaFuncSetAttribute(k_big_pdl, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024);
  cudaFuncSetAttribute(k_spin, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024);
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  const int smem = 220 * 1024;
  printf("us per call, graph of 200 back-to-back calls\n");
  for (int grid : {1, 132}) {
    printf("grid %d\n", grid);
    printf("  small kernel (no smem)                 %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { k_small<<<grid, 384, 0, s>>>(g_p); }));
    printf("  220 KiB smem, 384 thr                  %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { launch(s, k_big, grid, smem, false, false); }));
    printf("  + cluster attr (1,1,1)                 %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { launch(s, k_big, grid, smem, true, false); }));
    printf("  + PDL (trigger + sync)                 %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { launch(s, k_big_pdl, grid, smem, false, true); }));
    printf("  + cluster + PDL                        %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { launch(s, k_big_pdl, grid, smem, true, true); }));
    printf("  memset 4 KiB + 220 KiB kernel          %6.2f\n", graph_us(st, [&](cudaStream_t s) {
             cudaMemsetAsync(g_flags, 0, 4096, s);
             launch(s, k_big, grid, smem, true, false);
           }));
    printf("  memset 4 KiB alone                     %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { cudaMemsetAsync(g_flags, 0, 4096, s); }));
    printf("  5 us spin kernel                       %6.2f\n",
           graph_us(st, [&](cudaStream_t s) { k_spin<<<grid, 384, smem, s>>>(g_p, 5000); }));
    printf("  memset + 5 us spin kernel              %6.2f\n", graph_us(st, [&](cudaStream_t s) {
             cudaMemsetAsync(g_flags, 0, 4096, s);
             k_spin<<<grid, 384, smem, s>>>(g_p, 5000);
           }));
  }
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
