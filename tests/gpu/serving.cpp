// gemm() where serving stacks call it:
//   - inside a CUDA graph capture (global mode: any allocation or synchronizing call inside the
//     call fails the capture) with the workspace from the caller, sized by workspace_size; the
//     graph replayed three times gives the reference's result each time;
//   - from 8 host threads at once, each on its own stream, 200 mixed calls each (data-parallel,
//     split-K, decode tile, small-N; bf16 and fp16; beta 0 and not), every result checked
//     against the fp64 reference.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#ifdef GEMMKIT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "bench/testbed.hpp"
#include "core/view.hpp"
#include "gemmkit/gemm.hpp"
#include "support/gpu_test.hpp"

namespace gemmkit {
namespace {

#ifdef GEMMKIT_HAVE_CUDA

struct Shape {
  std::int64_t m, n, k;
  DType in;
  double beta;
  const char* what;
};

// The planner's own choice for each: data-parallel tiles, split-K (few tiles, long K), the
// decode tile (M <= 64), the small-N kernel (M <= 2), an odd shape (padded copies).
const Shape kShapes[] = {
    {512, 384, 256, DType::BF16, 0.0, "data-parallel"},
    {128, 128, 8192, DType::BF16, 0.5, "split-K"},
    {8, 2048, 1024, DType::F16, 1.0, "decode tile"},
    {1, 3000, 1024, DType::BF16, 0.0, "small-N"},
    {257, 129, 300, DType::F16, 0.5, "odd, padded copies"},
};

// The same kinds of call, smaller (the 8 x 200 calls' host references stay quick).
const Shape kSmall[] = {
    {256, 192, 128, DType::BF16, 0.0, "data-parallel"},
    {128, 128, 2048, DType::BF16, 0.5, "split-K"},
    {8, 2048, 512, DType::F16, 1.0, "decode tile"},
    {1, 3000, 512, DType::BF16, 0.0, "small-N"},
    {129, 65, 300, DType::F16, 0.5, "odd, padded copies"},
};

GemmDesc desc_of(const Shape& s) {
  GemmDesc d{.m = s.m, .n = s.n, .k = s.k};
  d.a = {s.in, Layout::RowMajor, 0, 0};
  d.b = {s.in, Layout::ColMajor, 0, 0};
  d.c = {DType::F32, Layout::RowMajor, 0, 0};
  d.d = {DType::F32, Layout::RowMajor, 0, 0};
  d.compute = DType::F32;
  return with_default_lds(d);
}

// Device copies of a host case's A, B, C and D, freed on destruction.
struct DeviceCase {
  void* p[4] = {};
  bool ok = true;
  explicit DeviceCase(const bench::HostCase& hc) {
    const std::vector<std::uint8_t>* h[4] = {&hc.a, &hc.b, &hc.c, &hc.d};
    for (int i = 0; i < 4 && ok; ++i)
      ok = cudaMalloc(&p[i], h[i]->size()) == cudaSuccess &&
           cudaMemcpy(p[i], h[i]->data(), h[i]->size(), cudaMemcpyHostToDevice) == cudaSuccess;
    // A copy from pageable memory may return before its DMA has landed, and the calls run on
    // non-blocking streams, which do not wait for the legacy stream's copies.
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
  }
  ~DeviceCase() {
    for (void* q : p) cudaFree(q);
  }
  GemmArgs args(const bench::HostCase& hc) const {
    return GemmArgs{p[0], p[1], p[2], p[3], hc.alpha, hc.beta};
  }
};

TEST(CudaServing, GraphCaptureWithTheCallersWorkspace) {
  std::uint64_t seed = 3100;
  for (const Shape& s : kShapes) {
    bench::HostCase hc = bench::HostCase::make(desc_of(s), 1.0, s.beta, ++seed);
    const std::vector<std::uint8_t> d_before = hc.d;
    DeviceCase dc(hc);
    ASSERT_TRUE(dc.ok);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    Options opt{.backend = Backend::Cuda, .stream = stream};
    const std::size_t ws_bytes = workspace_size(hc.desc, opt);
    void* ws = nullptr;
    if (ws_bytes > 0) {
      ASSERT_EQ(cudaMalloc(&ws, ws_bytes), cudaSuccess);
    }
    opt.workspace = ws;
    opt.workspace_bytes = ws_bytes;
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    const Status st = gemm(hc.desc, dc.args(hc), opt);
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    EXPECT_TRUE(st.ok()) << s.what << ": " << to_string(st);
    ASSERT_EQ(end, cudaSuccess) << s.what << ": " << cudaGetErrorString(end);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << s.what;
    for (int replay = 0; replay < 3; ++replay) {
      // D starts as its guard-banded host image each time, so each replay is checked alone.
      // The image lands before the replay starts: a copy from pageable memory may return
      // before its DMA is done, and `stream` does not wait for the legacy stream (replays
      // found rows of the image written over the result).
      ASSERT_EQ(cudaMemcpy(dc.p[3], d_before.data(), d_before.size(), cudaMemcpyHostToDevice),
                cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::vector<std::uint8_t> out(d_before.size());
      ASSERT_EQ(cudaMemcpy(out.data(), dc.p[3], out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
      const bench::Compare c = bench::compare_to_reference(hc, out, d_before);
      EXPECT_TRUE(c.passed) << s.what << " replay " << replay << ": " << c.first_failure;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(ws);
    cudaStreamDestroy(stream);
  }
}

TEST(CudaServing, EightThreadsOfMixedCallsOnTheirOwnStreams) {
  constexpr int kThreads = 8, kCalls = 200;
  std::atomic<int> failures{0}, passed{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      cudaStream_t stream = nullptr;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        failures.fetch_add(1);
        return;
      }
      for (int i = 0; i < kCalls; ++i) {
        const Shape& s = kSmall[(t * 3 + i) % std::size(kSmall)];
        bench::HostCase hc = bench::HostCase::make(desc_of(s), 1.0, s.beta, 4000 + 1000 * t + i);
        const std::vector<std::uint8_t> d_before = hc.d;
        DeviceCase dc(hc);
        const Options opt{.backend = Backend::Cuda, .stream = stream};
        const Status st = dc.ok ? gemm(hc.desc, dc.args(hc), opt)
                                : Status{StatusCode::ExecutionFailed, Arg::None, "cudaMalloc"};
        std::vector<std::uint8_t> out(d_before.size());
        const bool copied = st.ok() && cudaStreamSynchronize(stream) == cudaSuccess &&
                            cudaMemcpy(out.data(), dc.p[3], out.size(),
                                       cudaMemcpyDeviceToHost) == cudaSuccess;
        const bench::Compare c =
            copied ? bench::compare_to_reference(hc, out, d_before) : bench::Compare{};
        if (!copied || !c.passed) {
          if (failures.fetch_add(1) < 5)
            ADD_FAILURE() << "thread " << t << " call " << i << " (" << s.what
                          << "): " << to_string(st) << " " << c.first_failure;
        } else {
          passed.fetch_add(1);
        }
      }
      cudaStreamDestroy(stream);
    });
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(passed.load(), kThreads * kCalls);
}

#else

TEST(CudaServing, NeedsCuda) { GTEST_SKIP() << "built without CUDA"; }

#endif

}  // namespace
}  // namespace gemmkit
