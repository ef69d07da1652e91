// The testbed's probe-vector check (for shapes too large for the fp64 reference): it accepts
// a correct result in every layout and rejects systematic and isolated errors.
#include <gtest/gtest.h>

#include <cstdio>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/reference.hpp"
#include "core/view.hpp"

namespace gemmkit::bench {
namespace {

struct Case {
  HostCase hc;
  std::vector<std::uint8_t> d_ref;  // the reference result, rounded to D's dtype
};

Case make_case(GemmDesc d, double alpha, double beta, std::uint64_t seed) {
  Case c{HostCase::make(d, alpha, beta, seed), {}};
  c.d_ref = c.hc.d;
  core::reference_gemm(c.hc.desc,
                       GemmArgs{c.hc.a.data(), c.hc.b.data(), c.hc.c.data(), c.d_ref.data(),
                                alpha, beta});
  return c;
}

void set(const GemmDesc& d, std::vector<std::uint8_t>& buf, std::int64_t i, std::int64_t j,
         double v) {
  const core::Strides s = core::stored_strides(d.d.layout, d.d.ld);
  core::store_element(d.d.dtype, buf.data(), i * s.row + j * s.col, v);
}
double get(const GemmDesc& d, const std::vector<std::uint8_t>& buf, std::int64_t i,
           std::int64_t j) {
  const core::Strides s = core::stored_strides(d.d.layout, d.d.ld);
  return core::load_element(d.d.dtype, buf.data(), i * s.row + j * s.col);
}

TEST(BenchProbe, AcceptsTheReferenceInEveryLayout) {
  for (int bits = 0; bits < 8; ++bits)
    for (DType t : {DType::F32, DType::BF16}) {
      GemmDesc d{.m = 37, .n = 29, .k = 41};
      d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = t;
      d.a.layout = bits & 1 ? Layout::RowMajor : Layout::ColMajor;
      d.trans_b = bits & 2 ? Op::Trans : Op::NoTrans;
      d.c.layout = d.d.layout = bits & 4 ? Layout::RowMajor : Layout::ColMajor;
      d.c.ld = d.d.ld = 45;  // padding between rows/columns must be left alone
      const Case c = make_case(d, 1.5, 0.5, 11 + bits);
      const Compare r = probe_compare(c.hc, c.d_ref, c.hc.d, 3);
      EXPECT_TRUE(r.passed) << "bits " << bits << " " << dtype_name(t) << ": " << r.first_failure;
      EXPECT_EQ(r.metric, "probe");
      EXPECT_GT(r.checked, 2 * 37);
    }
}

TEST(BenchProbe, RejectsAWrongColumnAndAMissingKBlock) {
  GemmDesc d{.m = 64, .n = 48, .k = 256};
  const Case c = make_case(d, 1.0, 0.0, 5);
  // A whole column off by a small relative amount: every row's D*t moves.
  std::vector<std::uint8_t> wrong = c.d_ref;
  for (std::int64_t i = 0; i < d.m; ++i) set(c.hc.desc, wrong, i, 17, get(c.hc.desc, wrong, i, 17) + 0.05);
  EXPECT_FALSE(probe_compare(c.hc, wrong, c.hc.d, 1).passed);
  // Missing the last K block: recompute with K shortened.
  GemmDesc shorter = c.hc.desc;
  shorter.k = 192;
  std::vector<std::uint8_t> partial = c.hc.d;
  core::reference_gemm(shorter, GemmArgs{c.hc.a.data(), c.hc.b.data(), c.hc.c.data(),
                                         partial.data(), 1.0, 0.0});
  EXPECT_FALSE(probe_compare(c.hc, partial, c.hc.d, 1).passed);
}

TEST(BenchProbe, RejectsNaNAndOverwrittenPadding) {
  GemmDesc d{.m = 20, .n = 20, .k = 20};
  d.c.ld = d.d.ld = 24;
  const Case c = make_case(d, 1.0, 0.0, 9);
  std::vector<std::uint8_t> nan = c.d_ref;
  set(c.hc.desc, nan, 13, 7, std::nan(""));
  EXPECT_FALSE(probe_compare(c.hc, nan, c.hc.d, 1).passed);
  std::vector<std::uint8_t> pad = c.d_ref;
  pad[4 * 21] ^= 0xFF;  // element 21 of column 0: in the gap between rows 20 and 24
  const Compare r = probe_compare(c.hc, pad, c.hc.d, 1);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.first_failure.find("padding"), std::string::npos) << r.first_failure;
}

TEST(BenchProbe, CheckResultPicksReferenceOrProbeBySize) {
  GemmDesc d{.m = 16, .n = 16, .k = 16};
  const Case c = make_case(d, 1.0, 0.0, 1);
  CheckPolicy small;
  small.max_reference_flop = 1e9;
  EXPECT_EQ(check_result(c.hc, c.d_ref, c.hc.d, small).metric, "gauge");
  CheckPolicy tiny;
  tiny.max_reference_flop = 100;
  const Compare p = check_result(c.hc, c.d_ref, c.hc.d, tiny);
  EXPECT_EQ(p.metric, "probe");
  EXPECT_TRUE(p.passed) << p.first_failure;
  // The corrupt hook reaches the probe path too (D(0,0) is a sampled corner).
  setenv("GEMMKIT_TEST_CORRUPT_RESULT", "1", 1);
  const Compare bad = check_result(c.hc, c.d_ref, c.hc.d, tiny);
  unsetenv("GEMMKIT_TEST_CORRUPT_RESULT");
  EXPECT_FALSE(bad.passed);
}

}  // namespace
}  // namespace gemmkit::bench
