// Production CPU kernels: tile-edge grid over every layout, transpose, ld, alpha and beta, the
// portable kernel as oracle of the SIMD ones, D aliasing C,
// bf16/f16 inputs, exact i8 -> i32, thread-count independence and the packing hook.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "cpu/cpu_info.hpp"
#include "cpu/kernels.hpp"
#include "cpu/pack.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

struct Kernel {
  std::string name;
  int mr, nr;
};

// Registered production GEMM kernels of one family that this CPU can run, with their tile
// read from the name ("..._12x32"); the portable kernel's tile is given.
std::vector<Kernel> kernels(const char* pattern, DType t) {
  std::vector<Kernel> out;
  for (const dispatch::KernelInfo* k : dispatch::registry().match(pattern)) {
    GemmDesc probe{.m = 8, .n = 8, .k = 8};
    probe.a.dtype = probe.b.dtype = t;
    probe.c.dtype = probe.d.dtype = t == DType::I8 ? DType::I32 : t;
    probe.compute = t == DType::I8 ? DType::I32 : t;
    if (!k->can_implement(with_default_lds(probe))) continue;  // ISA missing on this CPU
    Kernel kn{k->name, 4, 16};
    const auto x = k->name.rfind('x'), u = k->name.rfind('_');
    if (x != std::string::npos && u != std::string::npos && x > u) {
      kn.mr = std::stoi(k->name.substr(u + 1, x - u - 1));
      kn.nr = std::stoi(k->name.substr(x + 1));
    }
    out.push_back(kn);
  }
  return out;
}

std::vector<std::int64_t> edges(std::int64_t tile) {
  std::vector<std::int64_t> v = {1, 2, tile - 1, tile, tile + 1, 2 * tile + 1};
  std::erase_if(v, [](std::int64_t x) { return x < 1; });
  return v;
}

GemmDesc make_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType out, int i) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_a = (i & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (i & 2) ? Op::Trans : Op::NoTrans;
  d.a.layout = (i & 4) ? Layout::RowMajor : Layout::ColMajor;
  d.b.layout = (i & 8) ? Layout::RowMajor : Layout::ColMajor;
  d.c.layout = (i & 16) ? Layout::RowMajor : Layout::ColMajor;
  d.d.layout = (i & 32) ? Layout::RowMajor : Layout::ColMajor;  // C and D may differ
  d.a.dtype = d.b.dtype = in;
  d.c.dtype = d.d.dtype = out;
  d.compute = in == DType::I8 ? DType::I32 : (out == DType::F64 ? DType::F64 : DType::F32);
  d = with_default_lds(d);
  d.a.ld += i % 3;
  d.b.ld += (i / 3) % 2;
  d.c.ld += i % 2;
  d.d.ld += (i / 2) % 2;
  return d;
}

constexpr double kAlphas[] = {1.0, 0.7, 0.0, -1.5};
constexpr double kBetas[] = {0.0, 1.0, 1.3};

int run_grid(const Kernel& kn, DType in, DType out, std::vector<std::int64_t> ks) {
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0;
  for (std::int64_t m : edges(kn.mr))
    for (std::int64_t n : edges(kn.nr))
      for (std::int64_t k : ks) {
        const GemmDesc d = make_desc(m, n, k, in, out, i);
        const double alpha = kAlphas[i % 4], beta = kBetas[(i / 4) % 3];
        const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
        const bench::VerifyResult v = bench::verify_case(d, alpha, beta, opt, seed + i);
        if (v.disposition != bench::Disposition::Passed && ++failures <= 5)
          ADD_FAILURE() << kn.name << " " << dtype_name(in) << " m=" << m << " n=" << n
                        << " k=" << k << " alpha=" << alpha << " beta=" << beta << " case " << i
                        << ": " << to_string(v.status) << " " << v.cmp.first_failure << " "
                        << v.note;
        ++i;
      }
  return failures;
}

TEST(CpuProduction, SgemmTileEdgeGrid) {
  const auto ks = kernels("cpu.sgemm_*", DType::F32);
  if (ks.empty()) GTEST_SKIP() << "no SIMD sgemm kernel runs on this CPU";
  for (const Kernel& kn : ks) EXPECT_EQ(run_grid(kn, DType::F32, DType::F32, {1, 7, 389, 600}), 0);
}

TEST(CpuProduction, DgemmTileEdgeGrid) {
  const auto ks = kernels("cpu.dgemm_*", DType::F64);
  if (ks.empty()) GTEST_SKIP() << "no SIMD dgemm kernel runs on this CPU";
  for (const Kernel& kn : ks) EXPECT_EQ(run_grid(kn, DType::F64, DType::F64, {1, 7, 389, 600}), 0);
}

TEST(CpuProduction, PortableGridF32F64) {
  const Kernel kn{"cpu.gemm_portable", 4, 16};
  EXPECT_EQ(run_grid(kn, DType::F32, DType::F32, {3, 257}), 0);
  EXPECT_EQ(run_grid(kn, DType::F64, DType::F64, {3, 257}), 0);
}

TEST(CpuProduction, LargeShapeCrossesEveryBlock) {
  // M > MC (336), K > 2 KC (384), N not a multiple of NR: every loop of the driver has a remainder.
  for (auto [pattern, t] : {std::pair{"cpu.sgemm_*", DType::F32}, {"cpu.dgemm_*", DType::F64}})
    for (const Kernel& kn : kernels(pattern, t)) {
      const GemmDesc d = make_desc(349, 97, 800, t, t, 5);
      const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
      const auto v = bench::verify_case(d, 0.7, 1.3, opt, test::test_seed());
      EXPECT_EQ(v.disposition, bench::Disposition::Passed)
          << kn.name << ": " << v.cmp.first_failure << v.note;
    }
}

TEST(CpuProduction, LowPrecisionInputsAccumulateInF32) {
  for (const Kernel& kn : kernels("cpu.sgemm_*", DType::F32)) {
    int i = 0;
    for (DType ta : {DType::BF16, DType::F16})
      for (DType tb : {DType::BF16, DType::F16, DType::F32}) {
        GemmDesc d = make_desc(37, 45, 300, ta, DType::F32, i++);
        d.b.dtype = tb;
        const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
        const auto v = bench::verify_case(d, 0.7, 1.3, opt, test::test_seed() + i);
        EXPECT_EQ(v.disposition, bench::Disposition::Passed)
            << kn.name << " " << dtype_name(ta) << "x" << dtype_name(tb) << ": "
            << v.cmp.first_failure << v.note;
      }
  }
}

TEST(CpuProduction, Int8IsExact) {
  auto ks = kernels("cpu.igemm_*", DType::I8);
  ks.push_back({"cpu.gemm_portable", 4, 16});
  for (const Kernel& kn : ks) {
    int i = 0;
    for (auto [m, n, k] : {std::tuple{1, 1, 1}, {5, 33, 7}, {67, 31, 1000}, {130, 70, 3}}) {
      const GemmDesc d = make_desc(m, n, k, DType::I8, DType::I32, i);
      const double alpha = i % 2 ? 2.0 : 1.0, beta = i % 3 ? -1.0 : 0.0;
      const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
      const auto v = bench::verify_case(d, alpha, beta, opt, test::test_seed() + i++);
      EXPECT_EQ(v.disposition, bench::Disposition::Passed)
          << kn.name << ": " << v.cmp.first_failure << v.note;
      EXPECT_EQ(v.cmp.metric, "exact");
    }
  }
}

TEST(CpuProduction, DMayAliasC) {
  for (auto [pattern, t] : {std::pair{"cpu.sgemm_*", DType::F32}, {"cpu.dgemm_*", DType::F64}})
    for (const Kernel& kn : kernels(pattern, t))
      for (int i : {0, 16 + 32, 3}) {
        GemmDesc d = make_desc(77, 91, 700, t, t, i);
        d.d = d.c;  // same layout and ld
        bench::HostCase hc = bench::HostCase::make(d, 0.7, 1.3, test::test_seed());
        bench::HostCase run = hc;
        const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
        ASSERT_TRUE(gemm(run.desc, run.args_in_place(), opt));
        const bench::Compare cmp = bench::compare_to_reference(hc, run.c, hc.c);
        EXPECT_TRUE(cmp.passed) << kn.name << " case " << i << ": " << cmp.first_failure;
      }
}

// The SIMD kernels against the portable oracle: same inputs, results within a few ulps of
// the accumulated magnitude.
TEST(CpuProduction, SimdAgreesWithPortableOracle) {
  for (auto [pattern, t] : {std::pair{"cpu.sgemm_*", DType::F32}, {"cpu.dgemm_*", DType::F64}})
    for (const Kernel& kn : kernels(pattern, t)) {
      const GemmDesc d = make_desc(203, 150, 517, t, t, 9);
      bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, test::test_seed());
      bench::HostCase other = hc;
      const Options simd{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
      const Options port{.backend = Backend::Cpu, .kernel = "cpu.gemm_portable", .threads = 2};
      ASSERT_TRUE(gemm(hc.desc, hc.args(), simd));
      ASSERT_TRUE(gemm(other.desc, other.args(), port));
      const double eps = t == DType::F32 ? 1.2e-7 : 2.3e-16;
      const double tol = 2 * (8 + std::sqrt(517.0)) * eps * 517;  // |a|, |b| <= 1
      double worst = 0;
      for (std::int64_t e = 0; e < d.m * d.n; ++e) {
        const std::int64_t i = e % d.m, j = e / d.m;
        const std::int64_t at = d.d.layout == Layout::ColMajor ? i + j * d.d.ld : i * d.d.ld + j;
        double x, y;
        if (t == DType::F32) {
          x = reinterpret_cast<const float*>(hc.d.data())[at];
          y = reinterpret_cast<const float*>(other.d.data())[at];
        } else {
          x = reinterpret_cast<const double*>(hc.d.data())[at];
          y = reinterpret_cast<const double*>(other.d.data())[at];
        }
        worst = std::max(worst, std::fabs(x - y));
      }
      EXPECT_LE(worst, tol) << kn.name << " vs cpu.gemm_portable";
    }
}

// Threads change who computes a tile, never how: results are bitwise identical.
TEST(CpuProduction, ThreadCountDoesNotChangeBits) {
  for (auto [pattern, t] : {std::pair{"cpu.sgemm_*", DType::F32}, {"cpu.dgemm_*", DType::F64}})
    for (const Kernel& kn : kernels(pattern, t)) {
      const GemmDesc d = make_desc(300, 200, 800, t, t, 0);
      bench::HostCase one = bench::HostCase::make(d, 0.7, 1.3, test::test_seed());
      bench::HostCase two = one;
      ASSERT_TRUE(gemm(one.desc, one.args(),
                       {.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 1}));
      ASSERT_TRUE(gemm(two.desc, two.args(),
                       {.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2}));
      EXPECT_EQ(one.d, two.d) << kn.name;
    }
}

// The packing hook: a Custom conversion (here e5m2 bytes decoded per element, standing in for
// the future fp8 / int4 / MX dequantization) packs exactly what Copy packs from the
// pre-converted floats, including the zero padding of the edge panel.
float decode_e5m2(const void* ctx, std::int64_t r, std::int64_t p) {
  const auto* codes = static_cast<const std::uint8_t*>(ctx);
  return e5m2_to_float(codes[r + p * 13]);
}

TEST(CpuProduction, PackingHookCustomMatchesCopy) {
  constexpr std::int64_t rows = 13, kc = 5;
  std::vector<std::uint8_t> codes(rows * kc);
  std::vector<float> floats(rows * kc);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    codes[i] = static_cast<std::uint8_t>((i * 37 + 11) & 0x7B);  // finite codes
    floats[i] = e5m2_to_float(codes[i]);
  }
  cpu::PackSource<float> copy{.base = floats.data(), .s = {1, rows}};
  cpu::PackSource<float> hook{.base = nullptr,
                              .s = {1, rows},
                              .convert = cpu::PackConvert::Custom,
                              .custom = decode_e5m2,
                              .ctx = codes.data()};
  std::vector<float> x(16 * kc, -1.0f), y(16 * kc, -2.0f);
  cpu::pack_panels<8>(copy, 0, rows, 0, kc, x.data());
  cpu::pack_panels<8>(hook, 0, rows, 0, kc, y.data());
  EXPECT_EQ(x, y);
  EXPECT_EQ(x[8 * kc + 7], 0.0f);  // row 15 of the second panel is padding
  EXPECT_EQ(x[1], floats[1]);      // panel 0, k 0, row 1
}

}  // namespace
}  // namespace gemmkit
