// Options::batch_invariant on the CUDA backend: each row of D has the same bits whatever M is.
// One M = 4096 problem runs once; problems of M = 1, 7, 64, 1000 over the first rows of its A
// (and C) must give its first rows bit for bit (memcmp of the device results copied back):
// bf16 and fp16 inputs, f32 and bf16 outputs, three (N, K), beta 0 (the serving case) and, in
// a test of its own, beta != 0 with alpha != 1 (C read in the edge tiles' staged rows and in
// the full tiles' direct stores). The plan is one kernel, config and mode for every M; the
// kernels that depend on M (small-N, decode tile, decode TMA) are refused by name. Without the
// mode, whether the rows differ is printed, not asserted (the planner may or may not switch).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#ifdef GEMMKIT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/gemm.hpp"
#include "support/gpu_test.hpp"
#include "support/xwt_case.hpp"

namespace gemmkit {
namespace {

#ifdef GEMMKIT_HAVE_CUDA

constexpr std::int64_t kBigM = 4096;
constexpr std::int64_t kSmallM[] = {1, 7, 64, 1000};

struct Shape {
  std::int64_t n, k;
};
// A small one with edge columns, a square layer, an MLP down projection.
constexpr Shape kShapes[] = {{384, 1000}, {4096, 4096}, {4096, 11008}};

struct Types {
  DType in, out;
};
constexpr Types kTypes[] = {
    {DType::BF16, DType::F32}, {DType::BF16, DType::BF16}, {DType::F16, DType::F16}};

// x @ W^T (support/xwt_case.hpp): a small problem's A and C are the big one's first rows.
GemmDesc desc_of(std::int64_t m, Shape s, Types t) {
  return test::xwt_desc(m, s.n, s.k, t.in, t.out);
}

std::size_t bytes_of(std::int64_t count, DType t) {
  return static_cast<std::size_t>(count * dtype_bits(t) / 8);
}

// A device buffer of `count` values U[-1, 1] stored as `t` (f32, bf16, fp16); freed on exit.
struct DeviceBuffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  DeviceBuffer(std::int64_t count, DType t, std::mt19937_64* rng) : bytes(bytes_of(count, t)) {
    std::vector<std::uint8_t> h(bytes, 0);
    if (rng != nullptr) {
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      for (std::int64_t i = 0; i < count; ++i) {
        const float v = u(*rng);
        const std::uint16_t half = t == DType::BF16 ? to_bf16(v) : to_f16(v);
        if (t == DType::F32)
          std::memcpy(h.data() + 4 * i, &v, 4);
        else
          std::memcpy(h.data() + 2 * i, &half, 2);
      }
    }
    if (cudaMalloc(&p, bytes) != cudaSuccess ||
        cudaMemcpy(p, h.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      p = nullptr;
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Case {
  Shape s;
  Types t;
  DeviceBuffer a, b, c, d;
  Case(Shape s_, Types t_, std::uint64_t seed)
      : s(s_),
        t(t_),
        a(kBigM * s_.k, t_.in, rng(seed)),
        b(s_.k * s_.n, t_.in, rng(seed + 1)),
        c(kBigM * s_.n, t_.out, rng(seed + 2)),
        d(kBigM * s_.n, t_.out, nullptr) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  }
  bool ok() const { return a.p && b.p && c.p && d.p; }
  static std::mt19937_64* rng(std::uint64_t seed) {
    thread_local std::mt19937_64 r;
    r.seed(seed);
    return &r;
  }
  // D of the m-row problem, copied to the host (empty on failure, *st says why).
  std::vector<std::uint8_t> run(std::int64_t m, double alpha, double beta, const Options& opt,
                                Status* st) {
    const std::size_t out = bytes_of(m * s.n, t.out);
    if (cudaMemset(d.p, 0xA5, d.bytes) != cudaSuccess) return {};
    *st = gemm(desc_of(m, s, t), GemmArgs{a.p, b.p, c.p, d.p, alpha, beta}, opt);
    std::vector<std::uint8_t> h(out);
    if (!*st || cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(h.data(), d.p, out, cudaMemcpyDeviceToHost) != cudaSuccess)
      return {};
    return h;
  }
  std::string name(double beta) const {
    return std::string(dtype_name(t.in)) + "->" + std::string(dtype_name(t.out)) +
           " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) +
           " beta=" + std::to_string(beta);
  }
  // The first row of M = m that differs from the same row of M = 4096; -1 when none.
  static std::int64_t first_diff(const std::vector<std::uint8_t>& small,
                                 const std::vector<std::uint8_t>& big, std::int64_t m,
                                 std::size_t row_bytes) {
    for (std::int64_t i = 0; i < m; ++i)
      if (std::memcmp(small.data() + i * row_bytes, big.data() + i * row_bytes, row_bytes) != 0)
        return i;
    return -1;
  }
  // Every small M against the big one under `opt`; returns failures (asserted when `strict`).
  int check(double alpha, double beta, const Options& opt, bool strict) {
    Status st;
    const std::vector<std::uint8_t> big = run(kBigM, alpha, beta, opt, &st);
    if (big.empty()) {
      ADD_FAILURE() << name(beta) << " M = " << kBigM << ": " << to_string(st);
      return 1;
    }
    const std::size_t row_bytes = bytes_of(s.n, t.out);
    int failures = 0;
    for (std::int64_t m : kSmallM) {
      const std::vector<std::uint8_t> small = run(m, alpha, beta, opt, &st);
      if (small.empty()) {
        ADD_FAILURE() << name(beta) << " M = " << m << ": " << to_string(st);
        ++failures;
        continue;
      }
      const std::int64_t row = first_diff(small, big, m, row_bytes);
      if (row >= 0) {
        ++failures;
        if (strict)
          ADD_FAILURE() << name(beta) << ": row " << row << " of M = " << m
                        << " differs from the same row of M = " << kBigM;
        else
          std::printf("without batch_invariant, %s: row %lld of M = %lld differs from M = %lld\n",
                      name(beta).c_str(), static_cast<long long>(row), static_cast<long long>(m),
                      static_cast<long long>(kBigM));
      }
    }
    return failures;
  }
};

const Options kInvariant{.backend = Backend::Cuda, .batch_invariant = true};

TEST(CudaBatchInvariant, RowsAreBitwiseEqualToTheSameRowsOfM4096) {
  std::uint64_t seed = 8100;
  for (Shape s : kShapes)
    for (Types t : kTypes) {
      Case c(s, t, seed += 3);
      ASSERT_TRUE(c.ok()) << "cudaMalloc";
      EXPECT_EQ(c.check(1.0, 0.0, kInvariant, true), 0) << c.name(0.0);
      // For the record: the unconstrained planner on the same data.
      c.check(1.0, 0.0, Options{.backend = Backend::Cuda}, false);
    }
}

// C read: the edge tiles of a small M store through the staged rows, the full tiles of M = 4096
// directly from registers; both must compute alpha * acc + beta * C alike.
TEST(CudaBatchInvariant, WithBetaAndAlpha) {
  std::uint64_t seed = 8200;
  for (Types t : kTypes) {
    Case c(kShapes[0], t, seed += 3);
    ASSERT_TRUE(c.ok()) << "cudaMalloc";
    EXPECT_EQ(c.check(0.7, 1.3, kInvariant, true), 0) << c.name(1.3);
  }
}

TEST(CudaBatchInvariant, ThePlanDoesNotDependOnM) {
  for (Shape s : kShapes)
    for (Types t : kTypes) {
      const dispatch::Plan ref = dispatch::make_plan(desc_of(kBatchInvariantM, s, t), kInvariant);
      ASSERT_TRUE(ref.status) << to_string(ref.status);
      EXPECT_TRUE(ref.launch.kernel->m_invariant) << ref.launch.kernel->name;
      for (std::int64_t m :
           {std::int64_t{1}, std::int64_t{7}, std::int64_t{64}, std::int64_t{1000}, kBigM}) {
        const dispatch::Plan p = dispatch::make_plan(desc_of(m, s, t), kInvariant);
        ASSERT_TRUE(p.status) << to_string(p.status);
        EXPECT_EQ(p.launch.kernel, ref.launch.kernel) << "M = " << m;
        EXPECT_EQ(p.launch.config, ref.launch.config) << "M = " << m;
        EXPECT_EQ(p.launch.mode, sched::Mode::DataParallel) << "M = " << m;
        EXPECT_EQ(p.launch.split, 1) << "M = " << m;
        EXPECT_EQ(p.planned_m, kBatchInvariantM);
      }
    }
}

// The kernels whose orientation or summation order follows M, forced by name, are refused.
TEST(CudaBatchInvariant, MDependentKernelsAreRefused) {
  int refused = 0;
  for (const dispatch::KernelInfo& k : dispatch::registry().all()) {
    if (k.backend != Backend::Cuda || k.role != dispatch::KernelRole::Production || k.m_invariant)
      continue;
    Options opt = kInvariant;
    opt.kernel = k.name.c_str();
    const Status st = can_implement(desc_of(1, kShapes[1], kTypes[0]), opt);
    EXPECT_EQ(st.code, StatusCode::NotSupported) << k.name << ": " << to_string(st);
    EXPECT_NE(st.message.find("Options::batch_invariant"), std::string::npos) << st.message;
    ++refused;
  }
  EXPECT_GE(refused, 3);  // small-N, the 128x64 decode tile, the row-block decode kernel
}

#else

TEST(CudaBatchInvariant, NeedsCuda) { GTEST_SKIP() << "built without CUDA"; }

#endif

}  // namespace
}  // namespace gemmkit
