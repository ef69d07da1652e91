// The plan cache under concurrent calls: 8 threads x 200 gemm() calls over mixed shapes,
// dtypes, thread counts and split requests on the CPU, every result checked against the fp64
// reference; the cache answers repeats and never holds more plans than distinct problems.
#include "dispatch/plan_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/testbed.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

struct Shape {
  std::int64_t m, n, k;
  DType t;
  int threads, split_k;
  bool trans_b;
};

// GEMV, split-K, forced split, small and odd shapes, f32 and f64, one and two threads.
const std::vector<Shape> kShapes = {
    {1, 300, 77, DType::F32, 1, 0, false},   {300, 1, 64, DType::F64, 2, 0, true},
    {16, 16, 4100, DType::F32, 2, 0, false}, {19, 15, 4100, DType::F64, 1, 3, true},
    {33, 47, 65, DType::F32, 1, 0, true},    {64, 64, 64, DType::F64, 2, 0, false},
    {7, 129, 33, DType::F32, 2, 1, false},   {100, 90, 300, DType::F32, 1, 0, false},
};

GemmDesc desc_of(const Shape& s) {
  GemmDesc d{.m = s.m, .n = s.n, .k = s.k};
  d.trans_b = s.trans_b ? Op::Trans : Op::NoTrans;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = d.compute = s.t;
  return with_default_lds(d);
}

TEST(PlanCache, EightThreadsOfMixedCallsAreAllCorrect) {
  const std::uint64_t seed = test::test_seed();
  dispatch::clear_plan_cache();
  const std::size_t hits_before = dispatch::plan_cache_hits();
  constexpr int kThreads = 8, kCalls = 200;
  std::atomic<int> failures{0}, passed{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const Shape& s = kShapes[(t * 3 + i) % kShapes.size()];
        const double beta = i % 3 == 0 ? 0.0 : 0.5;
        bench::HostCase hc = bench::HostCase::make(desc_of(s), 1.25, beta, seed + 1000 * t + i);
        std::vector<std::uint8_t> before = hc.d;
        const Options opt{.backend = Backend::Cpu, .threads = s.threads, .split_k = s.split_k};
        const Status st = gemm(hc.desc, hc.args(), opt);
        const bench::Compare c =
            st ? bench::compare_to_reference(hc, hc.d, before) : bench::Compare{};
        if (!st || !c.passed) {
          if (failures.fetch_add(1) < 5)
            ADD_FAILURE() << "thread " << t << " call " << i << " " << s.m << "x" << s.n << "x"
                          << s.k << ": " << to_string(st) << " " << c.first_failure;
        } else {
          passed.fetch_add(1);
        }
      }
    });
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(passed.load(), kThreads * kCalls);
  // Every distinct (shape, beta == 0) was planned at least once, the rest came from the cache.
  EXPECT_LE(dispatch::plan_cache_size(), 2 * kShapes.size());
  EXPECT_GE(dispatch::plan_cache_hits() - hits_before,
            static_cast<std::size_t>(kThreads * kCalls) - kThreads * 2 * kShapes.size());
}

TEST(PlanCache, CachedPlanEqualsAFreshOne) {
  for (const Shape& s : kShapes) {
    const GemmDesc d = desc_of(s);
    const Options opt{.backend = Backend::Cpu, .threads = s.threads, .split_k = s.split_k};
    const GemmArgs args{.beta = 0.5};
    const dispatch::Plan fresh = dispatch::make_plan(d, opt, &args);
    const dispatch::Plan first = dispatch::cached_plan(d, opt, &args);
    const dispatch::Plan again = dispatch::cached_plan(d, opt, &args);
    for (const dispatch::Plan* p : {&first, &again}) {
      ASSERT_TRUE(p->status) << to_string(p->status);
      EXPECT_EQ(p->launch.kernel, fresh.launch.kernel);
      EXPECT_EQ(p->launch.mode, fresh.launch.mode);
      EXPECT_EQ(p->launch.split, fresh.launch.split);
      EXPECT_EQ(p->launch.config, fresh.launch.config);
    }
  }
  // Different requests are different entries: a forced split is not served a cached plan of
  // the planner's own choice.
  const GemmDesc d = desc_of(kShapes[2]);
  const dispatch::Plan own =
      dispatch::cached_plan(d, {.backend = Backend::Cpu, .threads = 2}, nullptr);
  const dispatch::Plan forced =
      dispatch::cached_plan(d, {.backend = Backend::Cpu, .threads = 2, .split_k = 7}, nullptr);
  ASSERT_TRUE(own.status && forced.status);
  EXPECT_EQ(forced.launch.split, 7);
  // A kernel forced by name on the wrong backend is refused, and that refusal is not what the
  // same kernel gets on its own backend.
  const Options wrong{.backend = Backend::Cuda, .kernel = "cpu.gemm_portable"};
  const Options right{.backend = Backend::Auto, .kernel = "cpu.gemm_portable"};
  EXPECT_EQ(dispatch::cached_plan(d, wrong, nullptr).status.code, StatusCode::InvalidValue);
  EXPECT_TRUE(dispatch::cached_plan(d, right, nullptr).status);
}

}  // namespace
}  // namespace gemmkit
