// The fused epilogue through the one testbed (what `gemmkit verify` and every bench row run):
// HostCase fills the bias from the seed, verify_case passes it to gemm() and judges D against
// the fp64 reference with the bias and the activation (bench::reference_dgemm, on OpenBLAS above
// its size threshold), and the check fails on a D computed without them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

constexpr Activation kActs[] = {Activation::None, Activation::Relu, Activation::GeluErf,
                                Activation::GeluTanh, Activation::Silu};

using test::act_name;
using test::bias_name;

GemmDesc desc_of(std::int64_t m, std::int64_t n, std::int64_t k, DType t, BiasMode bias,
                 Activation act, DType bias_t = DType::F32) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = t;
  d.compute = t == DType::F64 ? DType::F64 : DType::F32;
  d.epilogue = {.bias = bias, .bias_dtype = bias_t, .act = act};
  return with_default_lds(d);
}

std::string describe(const GemmDesc& d, double beta) {
  return std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) + " " +
         std::string(dtype_name(d.a.dtype)) + " bias " + bias_name(d.epilogue.bias) + " (" +
         std::string(dtype_name(d.epilogue.bias_dtype)) + ") act " + act_name(d.epilogue.act) +
         " beta " + std::to_string(beta);
}

// The bias is part of the case: filled from the seed, the same for the same seed, changed by
// another seed, and handed to gemm() by args().
TEST(EpilogueVerify, TheCaseCarriesASeededBias) {
  const GemmDesc row = desc_of(7, 5, 3, DType::F32, BiasMode::Row, Activation::None);
  const GemmDesc col = desc_of(7, 5, 3, DType::F32, BiasMode::Column, Activation::None);
  bench::HostCase r = bench::HostCase::make(row, 1.0, 0.0, 3);
  bench::HostCase c = bench::HostCase::make(col, 1.0, 0.0, 3);
  EXPECT_EQ(r.bias.size(), 7 * sizeof(float) + bench::HostCase::kGuardBytes);
  EXPECT_EQ(c.bias.size(), 5 * sizeof(float) + bench::HostCase::kGuardBytes);
  EXPECT_EQ(r.args().bias, r.bias.data());
  EXPECT_EQ(r.inputs().bias, r.bias.data());
  for (std::size_t i = 0; i < 7; ++i) {
    const double v = core::load_element(DType::F32, r.bias.data(), static_cast<std::int64_t>(i));
    EXPECT_TRUE(v >= -1.0 && v <= 1.0) << v;
  }
  EXPECT_EQ(r.bias.back(), bench::HostCase::kSentinel);  // the guard band
  EXPECT_EQ(bench::HostCase::make(row, 1.0, 0.0, 3).bias, r.bias);
  EXPECT_NE(bench::HostCase::make(row, 1.0, 0.0, 4).bias, r.bias);
  const bench::HostCase none = bench::HostCase::make(
      desc_of(7, 5, 3, DType::F32, BiasMode::None, Activation::Relu), 1.0, 0.0, 3);
  EXPECT_TRUE(none.bias.empty());
  EXPECT_EQ(const_cast<bench::HostCase&>(none).args().bias, nullptr);
}

// Bias row and column (and none) x every activation x beta 0 and != 0, on the production
// kernels the planner picks: PASS against the reference, on the reference's sequential loop
// (33x21x17) and on its OpenBLAS path (300x200x200, above 2e7 flop).
TEST(EpilogueVerify, EveryBiasAndActivationPasses) {
  const std::uint64_t seed = test::test_seed();
  const Options opt{.backend = Backend::Cpu};
  struct Shape {
    std::int64_t m, n, k;
  };
  for (const Shape s : {Shape{33, 21, 17}, Shape{300, 200, 200}})
    for (BiasMode bias : {BiasMode::None, BiasMode::Row, BiasMode::Column})
      for (Activation act : kActs)
        for (double beta : {0.0, 0.5}) {
          if (bias == BiasMode::None && act == Activation::None) continue;
          const GemmDesc d = desc_of(s.m, s.n, s.k, DType::F32, bias, act);
          const bench::VerifyResult r = bench::verify_case(d, 0.75, beta, opt, seed);
          EXPECT_EQ(r.disposition, bench::Disposition::Passed)
              << describe(d, beta) << ": " << r.note << " " << r.cmp.first_failure
              << " seed=" << seed;
          EXPECT_EQ(r.cmp.metric, "gauge") << describe(d, beta);
          EXPECT_EQ(r.cmp.checked, s.m * s.n) << describe(d, beta);
        }
}

// Other bias dtypes and outputs: bf16 / f16 bias under f32, bf16 operands, f64 with an f64 bias.
TEST(EpilogueVerify, BiasDtypesAndOutputs) {
  const std::uint64_t seed = test::test_seed();
  const Options opt{.backend = Backend::Cpu};
  for (BiasMode bias : {BiasMode::Row, BiasMode::Column})
    for (double beta : {0.0, -1.25}) {
      const GemmDesc ds[] = {
          desc_of(45, 38, 70, DType::F32, bias, Activation::GeluErf, DType::BF16),
          desc_of(45, 38, 70, DType::F32, bias, Activation::Silu, DType::F16),
          desc_of(45, 38, 70, DType::BF16, bias, Activation::GeluTanh),
          desc_of(45, 38, 70, DType::F64, bias, Activation::GeluErf, DType::F64),
      };
      for (const GemmDesc& d : ds) {
        const bench::VerifyResult r = bench::verify_case(d, 1.0, beta, opt, seed);
        EXPECT_EQ(r.disposition, bench::Disposition::Passed)
            << describe(d, beta) << ": " << r.note << " " << r.cmp.first_failure
            << " seed=" << seed;
      }
    }
}

// `gemmkit verify --check auto` and bench rows: a problem with a bias or an activation always
// takes the full reference (the probe vectors do not model them), whatever its size.
TEST(EpilogueVerify, TheEpilogueIsCheckedInFull) {
  const bench::CheckPolicy probe{.mode = bench::CheckMode::Probe};
  const bench::CheckPolicy tiny{.mode = bench::CheckMode::Auto, .max_reference_flop = 1};
  for (BiasMode bias : {BiasMode::None, BiasMode::Column})
    for (Activation act : {Activation::None, Activation::GeluErf}) {
      const GemmDesc d = desc_of(64, 64, 64, DType::F32, bias, act);
      const bool fused = bias != BiasMode::None || act != Activation::None;
      const bench::CheckMode want = fused ? bench::CheckMode::Full : bench::CheckMode::Probe;
      EXPECT_EQ(bench::resolve_check(d, probe), want);
      EXPECT_EQ(bench::resolve_check(d, tiny), want);
    }
  const GemmDesc d = desc_of(64, 48, 32, DType::F32, BiasMode::Row, Activation::Silu);
  const bench::VerifyResult r =
      bench::verify_case(d, 1.0, 1.0, {.backend = Backend::Cpu}, 5, probe);
  EXPECT_EQ(r.disposition, bench::Disposition::Passed) << r.cmp.first_failure;
  EXPECT_EQ(r.cmp.metric, "gauge");
}

// The check can fail: D computed without the bias and the activation (what a kernel that
// ignored the epilogue would write), or with the other bias, is a mismatch for every epilogue,
// on both of the reference's paths.
TEST(EpilogueVerify, AResultWithoutTheEpilogueIsAMismatch) {
  const std::uint64_t seed = test::test_seed();
  struct Shape {
    std::int64_t m, n, k;
  };
  for (const Shape s : {Shape{19, 37, 40}, Shape{300, 200, 200}})
    for (BiasMode bias : {BiasMode::None, BiasMode::Row, BiasMode::Column})
      for (Activation act : kActs)
        for (double beta : {0.0, 0.5}) {
          if (bias == BiasMode::None && act == Activation::None) continue;
          const GemmDesc d = desc_of(s.m, s.n, s.k, DType::F32, bias, act);
          bench::HostCase hc = bench::HostCase::make(d, 1.0, beta, seed);
          const std::vector<std::uint8_t> before = hc.d;
          GemmDesc plain = hc.desc;
          plain.epilogue = {};
          GemmArgs args = hc.args();
          args.bias = nullptr;
          ASSERT_TRUE(gemm(plain, args, {.backend = Backend::Cpu}));
          const bench::Compare c = bench::compare_to_reference(hc, hc.d, before);
          EXPECT_FALSE(c.passed) << describe(d, beta) << " seed=" << seed;
          EXPECT_GT(c.mismatches, 0) << describe(d, beta);
          EXPECT_NE(c.first_failure, "") << describe(d, beta);
        }
  // The bias of the wrong direction (a square problem: both have N = M values).
  const GemmDesc d = desc_of(40, 40, 24, DType::F32, BiasMode::Column, Activation::GeluErf);
  bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, seed);
  const std::vector<std::uint8_t> before = hc.d;
  GemmDesc row = hc.desc;
  row.epilogue.bias = BiasMode::Row;
  ASSERT_TRUE(gemm(row, hc.args(), {.backend = Backend::Cpu}));
  EXPECT_FALSE(bench::compare_to_reference(hc, hc.d, before).passed);
  // ... and the same call with the right one passes (the check is not failing everything).
  hc = bench::HostCase::make(d, 1.0, 0.0, seed);
  ASSERT_TRUE(gemm(hc.desc, hc.args(), {.backend = Backend::Cpu}));
  EXPECT_TRUE(bench::compare_to_reference(hc, hc.d, before).passed);
}

// A kernel that refuses the epilogue is a refusal (Failed with NotSupported), never a result.
TEST(EpilogueVerify, AKernelWithoutTheEpilogueRefuses) {
  const GemmDesc d = desc_of(16, 16, 16, DType::F32, BiasMode::Column, Activation::Relu);
  const bench::VerifyResult r =
      bench::verify_case(d, 1.0, 0.0, {.backend = Backend::Cpu, .kernel = "cpu.ladder.naive"}, 1);
  EXPECT_EQ(r.disposition, bench::Disposition::Failed);
  EXPECT_EQ(r.status.code, StatusCode::NotSupported) << to_string(r.status);
}

}  // namespace
}  // namespace gemmkit
