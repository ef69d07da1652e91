// BLAS semantics on every CPU kernel in the registry (reference, ladder, production): quick
// returns (M, N or batch 0; alpha 0 or K 0), NaN/Inf rules (beta 0 never reads C), guard bands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "bench/testbed.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

GemmDesc f32_desc(std::int64_t m, std::int64_t n, std::int64_t k) {
  return GemmDesc{.m = m, .n = n, .k = k,
                  .a = {DType::F32, Layout::ColMajor, 0, 0},
                  .b = {DType::F32, Layout::ColMajor, 0, 0},
                  .c = {DType::F32, Layout::ColMajor, 0, 0},
                  .d = {DType::F32, Layout::ColMajor, 0, 0}};
}

// CPU kernels that implement a plain f32 problem of this shape.
std::vector<const dispatch::KernelInfo*> cpu_kernels(const GemmDesc& d) {
  std::vector<const dispatch::KernelInfo*> out;
  for (const auto& k : dispatch::registry().all())
    if (k.backend == Backend::Cpu && k.can_implement(with_default_lds(d)).ok()) out.push_back(&k);
  return out;
}

TEST(QuickReturn, EmptyProblemsSucceedWithNullPointers) {
  for (auto [m, n] : {std::pair{0, 5}, {5, 0}, {0, 0}}) {
    EXPECT_TRUE(gemm(f32_desc(m, n, 7), GemmArgs{nullptr, nullptr, nullptr, nullptr, 1, 1},
                     {.backend = Backend::Cpu})
                    .ok());
  }
  GemmDesc d = f32_desc(3, 3, 3);
  d.batch = 0;
  EXPECT_TRUE(gemm(d, GemmArgs{nullptr, nullptr, nullptr, nullptr, 1, 1}, {}).ok());
}

TEST(QuickReturn, KZeroAndAlphaZeroGiveBetaCWithoutReadingAB) {
  const GemmDesc probe = f32_desc(5, 4, 3);
  for (const auto* k : cpu_kernels(probe)) {
    SCOPED_TRACE(k->name);
    for (std::int64_t kk : {std::int64_t{0}, std::int64_t{3}}) {
      std::vector<float> c(20), d(20, kNaN);
      for (int i = 0; i < 20; ++i) c[i] = 0.25f * i - 2;
      const double alpha = kk == 0 ? 1.0 : 0.0;  // K == 0, or alpha == 0 with null A and B
      Status s = gemm(f32_desc(5, 4, kk), GemmArgs{nullptr, nullptr, c.data(), d.data(), alpha, 1.5},
                      {.backend = Backend::Cpu, .kernel = k->name.c_str()});
      ASSERT_TRUE(s.ok()) << to_string(s);
      for (int i = 0; i < 20; ++i) EXPECT_EQ(d[i], 1.5f * c[i]) << i;
    }
  }
}

TEST(QuickReturn, AlphaZeroBetaOneLeavesCUntouched) {
  const GemmDesc probe = f32_desc(5, 4, 3);
  for (const auto* k : cpu_kernels(probe)) {
    SCOPED_TRACE(k->name);
    std::vector<float> c(20);
    for (int i = 0; i < 20; ++i) c[i] = std::ldexp(1.0f + i, -i);
    c[7] = kNaN;
    c[8] = -0.0f;
    const auto c0 = c;
    Status s = gemm(probe, GemmArgs{nullptr, nullptr, c.data(), c.data(), 0.0, 1.0},
                    {.backend = Backend::Cpu, .kernel = k->name.c_str()});
    ASSERT_TRUE(s.ok()) << to_string(s);
    EXPECT_EQ(0, std::memcmp(c.data(), c0.data(), c.size() * sizeof(float)));
  }
}

TEST(NanInf, BetaZeroNeverReadsC) {
  const GemmDesc d = f32_desc(6, 5, 4);
  for (const auto* k : cpu_kernels(d)) {
    SCOPED_TRACE(k->name);
    std::vector<float> a(24, 0.5f), b(20, 0.25f), c(30, kNaN), out(30, kInf);
    ASSERT_TRUE(gemm(d, GemmArgs{a.data(), b.data(), c.data(), out.data(), 1.0, 0.0},
                     {.backend = Backend::Cpu, .kernel = k->name.c_str()})
                    .ok());
    for (float v : out) EXPECT_EQ(v, 0.5f);  // 4 * 0.5 * 0.25
    // In place, C full of NaN, beta == 0: still finite.
    ASSERT_TRUE(gemm(d, GemmArgs{a.data(), b.data(), c.data(), c.data(), 2.0, 0.0},
                     {.backend = Backend::Cpu, .kernel = k->name.c_str()})
                    .ok());
    for (float v : c) EXPECT_EQ(v, 1.0f);
  }
}

TEST(NanInf, AlphaZeroIgnoresNanAndInfInAB) {
  const GemmDesc d = f32_desc(6, 5, 4);
  for (const auto* k : cpu_kernels(d)) {
    SCOPED_TRACE(k->name);
    std::vector<float> a(24, kNaN), b(20, kInf), c(30, 2.0f), out(30, 0.0f);
    ASSERT_TRUE(gemm(d, GemmArgs{a.data(), b.data(), c.data(), out.data(), 0.0, -0.5},
                     {.backend = Backend::Cpu, .kernel = k->name.c_str()})
                    .ok());
    for (float v : out) EXPECT_EQ(v, -1.0f);
  }
}

TEST(NanInf, NanInARowOfAPoisonsExactlyThatRowAndInfTimesZeroIsNan) {
  const std::int64_t m = 7, n = 6, kk = 5;
  const GemmDesc d = f32_desc(m, n, kk);
  for (const auto* k : cpu_kernels(d)) {
    SCOPED_TRACE(k->name);
    std::vector<float> a(m * kk, 0.5f), b(kk * n, 0.25f), out(m * n, 0.0f);
    a[2 + 3 * m] = kNaN;         // A(2, 3)
    a[4 + 1 * m] = kInf;         // A(4, 1) ...
    for (std::int64_t j = 0; j < n; ++j) b[1 + j * kk] = 0.0f;  // ... times B(1, :) == 0
    ASSERT_TRUE(gemm(d, GemmArgs{a.data(), b.data(), nullptr, out.data(), 1.0, 0.0},
                     {.backend = Backend::Cpu, .kernel = k->name.c_str()})
                    .ok());
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const float v = out[i + j * m];
        if (i == 2 || i == 4) EXPECT_TRUE(std::isnan(v)) << i << "," << j;
        else EXPECT_TRUE(std::isfinite(v)) << i << "," << j;
      }
  }
}

TEST(GuardBands, PaddingAndInputsUntouchedForEveryKernel) {
  const std::uint64_t seed = test::test_seed();
  for (auto [m, n, k] : {std::tuple{17, 13, 11}, {1, 9, 33}, {40, 1, 7}, {65, 31, 129}}) {
    GemmDesc d = f32_desc(m, n, k);
    d.a.ld = m + 3;
    d.b.layout = Layout::RowMajor;
    d.b.ld = n + 5;
    d.c.ld = m + 2;
    d.d.ld = m + 7;
    for (const auto* kern : cpu_kernels(d)) {
      SCOPED_TRACE(kern->name + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k));
      auto r = bench::verify_case(d, 0.75, -1.25, {.backend = Backend::Cpu,
                                                   .kernel = kern->name.c_str()}, seed);
      EXPECT_EQ(r.disposition, bench::Disposition::Passed)
          << r.note << " " << r.cmp.first_failure;
    }
  }
}

TEST(Testbed, DetectsAWrongResultAndOverwrittenPadding) {
  bench::HostCase hc = bench::HostCase::make(f32_desc(9, 8, 7), 1.0, 0.0, 3);
  hc.desc.d.ld = 9;
  std::vector<std::uint8_t> out = hc.d;
  ASSERT_TRUE(gemm(hc.desc, GemmArgs{hc.a.data(), hc.b.data(), nullptr, out.data(), 1.0, 0.0},
                   {.backend = Backend::Cpu}).ok());
  EXPECT_TRUE(bench::compare_to_reference(hc, out, hc.d).passed);
  auto wrong = out;
  reinterpret_cast<float*>(wrong.data())[5] += 1e-3f;
  EXPECT_FALSE(bench::compare_to_reference(hc, wrong, hc.d).passed);
  auto guard = out;
  guard[guard.size() - 1] ^= 1;  // last byte of the guard band
  EXPECT_FALSE(bench::compare_to_reference(hc, guard, hc.d).passed);
  auto nan = out;
  reinterpret_cast<float*>(nan.data())[0] = kNaN;
  EXPECT_FALSE(bench::compare_to_reference(hc, nan, hc.d).passed);
}

}  // namespace
}  // namespace gemmkit
