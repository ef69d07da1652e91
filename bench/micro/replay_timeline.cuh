// Timeline marks under CUDA-graph replays (bench/micro/decode_timeline.cu, split_timeline.cu):
// each CTA records %globaltimer at marks 0-7 of every call of a replayed graph, the first and
// the last time a point is reached in that call. A CTA counts its own calls at mark 0 (entry),
// so mark 0 must come first and be reached by its writer; the other writers read the count
// afterwards (behind barriers that order them after the entry). Include before the kernel's
// file. On the host: a graph of calls over rotated operand sets, replayed, and per call the
// times of each mark from the moment the call was released by the one before it.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

constexpr int kTimelineCalls = 64;  // calls of a graph recorded (later calls wrap around)
constexpr int kTimelineCtas = 1024;

__device__ unsigned g_calls[kTimelineCtas];
__device__ unsigned long long g_first[kTimelineCalls][kTimelineCtas][8];
__device__ unsigned long long g_last[kTimelineCalls][kTimelineCtas][8];

__device__ __forceinline__ void replay_mark(int point, unsigned writer) {
  if (threadIdx.x != writer) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  unsigned call;
  if (point == 0)
    call = atomicAdd(&g_calls[blockIdx.x], 1u);
  else
    call = *static_cast<volatile unsigned*>(&g_calls[blockIdx.x]) - 1;
  call %= kTimelineCalls;
  auto* first = static_cast<volatile unsigned long long*>(&g_first[call][blockIdx.x][point]);
  if (*first == 0) *first = t;
  g_last[call][blockIdx.x][point] = t;
}

// Replays a graph of `calls` calls (enqueue(stream, i) enqueues call i) and prints the median
// us a call and, per mark, the median over calls of the earliest, median and latest CTA's
// first time there (and the latest CTA's last time at `issue_point`, the last copy issued),
// counted from the call's release (its earliest CTA at `release_point`); then the gap from a
// call's last CTA at `end_point` to the next call's release. `names`: the 8 marks.
inline double replay_timeline(cudaStream_t st, int calls, int ctas,
                              const std::function<void(cudaStream_t, int)>& enqueue,
                              const char* const names[8], int issue_point, int end_point,
                              int release_point = 1) {
  calls = std::min(calls, kTimelineCalls);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < calls; ++i) enqueue(st, i);
  cudaStreamEndCapture(st, &graph);
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    std::printf("graph instantiation failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return -1;
  }
  unsigned* calls_d = nullptr;
  unsigned long long *first_d = nullptr, *last_d = nullptr;
  cudaGetSymbolAddress(reinterpret_cast<void**>(&calls_d), g_calls);
  cudaGetSymbolAddress(reinterpret_cast<void**>(&first_d), g_first);
  cudaGetSymbolAddress(reinterpret_cast<void**>(&last_d), g_last);
  const std::size_t n = std::size_t{kTimelineCalls} * kTimelineCtas * 8;
  std::vector<unsigned long long> hf(n), hl(n);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> v[8][3], last_issue, gap, call_us;
  for (int r = 0; r < 8; ++r) {
    cudaMemsetAsync(calls_d, 0, sizeof(unsigned) * kTimelineCtas, st);
    cudaMemsetAsync(first_d, 0, sizeof(unsigned long long) * n, st);
    cudaEventRecord(e0, st);
    cudaGraphLaunch(exec, st);
    cudaEventRecord(e1, st);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(hf.data(), first_d, n * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(hl.data(), last_d, n * 8, cudaMemcpyDeviceToHost);
    if (r < 2) continue;  // module load, first touches
    call_us.push_back(ms * 1e3 / calls);
    const auto at = [&](const std::vector<unsigned long long>& h, int call, int cta, int q) {
      return static_cast<double>(h[(static_cast<std::size_t>(call) * kTimelineCtas + cta) * 8 + q]);
    };
    for (int call = 1; call + 1 < calls; ++call) {
      double t0 = 1e300, next = 1e300, end = 0, li = 0;
      for (int b = 0; b < ctas; ++b) {
        const double r0 = at(hf, call, b, release_point), r1 = at(hf, call + 1, b, release_point);
        if (r0 != 0) t0 = std::min(t0, r0);
        if (r1 != 0) next = std::min(next, r1);
        end = std::max(end, at(hl, call, b, end_point));
        li = std::max(li, at(hl, call, b, issue_point));
      }
      gap.push_back((next - end) * 1e-3);
      last_issue.push_back((li - t0) * 1e-3);
      for (int q = 0; q < 8; ++q) {
        std::vector<double> w;
        for (int b = 0; b < ctas; ++b)
          if (at(hf, call, b, q) != 0) w.push_back((at(hf, call, b, q) - t0) * 1e-3);
        if (w.empty()) continue;
        std::sort(w.begin(), w.end());
        v[q][0].push_back(w.front());
        v[q][1].push_back(w[w.size() / 2]);
        v[q][2].push_back(w.back());
      }
    }
  }
  const auto med = [](std::vector<double> w) {
    if (w.empty()) return -1.0;
    std::sort(w.begin(), w.end());
    return w[w.size() / 2];
  };
  std::printf("   us after the release      earliest  median  latest CTA\n");
  for (int q = 0; q < 8; ++q)
    std::printf("   %d %-22s %9.2f %7.2f %7.2f\n", q, names[q], med(v[q][0]), med(v[q][1]),
                med(v[q][2]));
  std::printf(
      "   last copy issued (latest CTA) %.2f; last CTA at mark %d to the next release %.2f\n",
      med(last_issue), end_point, med(gap));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return med(call_us);
}

// The copy bandwidth as the bench measures it (1 GiB device to device, 2 x bytes / time).
inline double copy_bandwidth(cudaStream_t st, void* src, void* dst, std::size_t bytes) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> cv;
  for (int i = 0; i < 11; ++i) {
    cudaEventRecord(a, st);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st);
    cudaEventRecord(b, st);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (i > 0) cv.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(cv.begin(), cv.end());
  return 2.0 * static_cast<double>(bytes) / (cv[cv.size() / 2] * 1e-3);
}
