// MXFP8 on the CPU: e4m3 / e5m2 A and B with one e8m0 scale per 32
// consecutive K (OCP Microscaling v1.0), dequantized while packing, against the fp64 reference;
// quantize_fp8's MX scales (X = 2^(floor(log2 amax) - emax)); e8m0's extremes; named errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/reference.hpp"
#include "core/view.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/quantize.hpp"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::mx_desc;
using test::production_kernels;

// Both formats, MX on A, on B and on both, residue shapes with K of 1..9 MX blocks (across the
// KC = 256 boundary), every layout bit, f32 / bf16 outputs, beta 0 and != 0.
TEST(CpuMx, Mxfp8AgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 32}, {7, 17, 96}, {9, 33, 288}, {33, 5, 64}, {16, 64, 256}};
  int i = 0, failures = 0, runs = 0;
  for (DType t : {DType::E4M3, DType::E5M2})
    for (int which = 0; which < 3; ++which)
      for (const Shape& s : shapes) {
        const int layout = (i * 11) % 32;
        const GemmDesc d =
            mx_desc(s.m, s.n, s.k, t, i % 2 ? DType::E5M2 : DType::E4M3,
                    i % 3 ? DType::F32 : DType::BF16, layout, which != 1, which != 0);
        bench::HostCase hc =
            bench::HostCase::make(d, i % 4 ? 1.0 : -2.0, i % 2 ? 0.5 : 0.0, seed + i);
        runs += test::run_on_every_kernel(hc, &failures, [&] { return test::mx_name(d, layout); });
        ++i;
      }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(runs, 30 * 2);
}

// quantize_fp8 with MX scales: the code of each 32-group is floor(log2 amax) - emax + 127, the
// group's largest element lands in [2^emax, 2^(emax+1)) (no saturation), zero groups get 1.
TEST(CpuMx, QuantizeSharedExponents) {
  const std::int64_t m = 3, k = 96;
  std::vector<float> x(m * k);
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < m; ++i)
      x[p * m + i] = float(std::ldexp(1.0 + 0.01 * double(p % 32), int(i * 7) - 10 + int(p / 32)) *
                           (p % 3 ? 1 : -1));
  for (std::int64_t p = 64; p < 96; ++p) x[p * m + 2] = 0.0f;  // row 2, third group: zero
  for (DType t : {DType::E4M3, DType::E5M2}) {
    const GemmDesc d = mx_desc(m, 1, k, t, t, DType::F32, 0, true, false);
    std::vector<std::uint8_t> q(m * k), s(m * 3);
    ASSERT_TRUE(quantize_fp8(d, Arg::A, {DType::F32, Layout::ColMajor, 0, 0}, x.data(), q.data(),
                             s.data()));
    const int emax = t == DType::E4M3 ? 8 : 15;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t g = 0; g < 3; ++g) {
        const std::uint8_t code = s[g * m + i];  // S_A column-major, ld = M
        if (i == 2 && g == 2) {
          EXPECT_EQ(code, 127) << "a zero group: scale 1";
          continue;
        }
        double amax = 0;
        for (std::int64_t p = g * 32; p < g * 32 + 32; ++p)
          amax = std::max(amax, std::fabs(double(x[p * m + i])));
        EXPECT_EQ(int(code), std::ilogb(amax) - emax + 127)
            << dtype_name(t) << " " << i << "," << g;
        for (std::int64_t p = g * 32; p < g * 32 + 32; ++p) {
          const double v = core::load_element(t, q.data(), p * m + i) * e8m0_to_float(code);
          EXPECT_LE(std::fabs(v - x[p * m + i]),
                    std::ldexp(std::fabs(x[p * m + i]), -3) + std::ldexp(e8m0_to_float(code), -9))
              << dtype_name(t);
        }
      }
  }
}

// e8m0's extremes through the GEMM: code 0 is 2^-127, 254 is 2^127, 0xFF is NaN (its rows are
// NaN), exactly as the reference.
TEST(CpuMx, E8m0Extremes) {
  EXPECT_EQ(e8m0_to_float(0), std::ldexp(1.0f, -127));
  EXPECT_EQ(e8m0_to_float(254), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(e8m0_to_float(0xFF)));
  const GemmDesc d = mx_desc(4, 3, 64, DType::E4M3, DType::E4M3, DType::F32, 0, true, false);
  std::vector<std::uint8_t> a(4 * 64, 0x38), b(64 * 3, 0x38);             // every element 1.0
  std::vector<std::uint8_t> s = {0, 254, 0xFF, 127, 127, 127, 127, 127};  // S_A 4 x 2
  std::vector<float> want(12), got(12);
  GemmArgs args{a.data(), b.data(), nullptr, want.data(), 1.0, 0.0};
  args.scale_a = s.data();
  core::reference_gemm_epilogue(d, args);
  EXPECT_EQ(want[0], float(32 * std::ldexp(1.0, -127) + 32));  // 2^-127 * 32 + 1 * 32
  EXPECT_EQ(want[1], float(32 * std::ldexp(1.0, 127) + 32));
  EXPECT_TRUE(std::isnan(want[2]));
  EXPECT_EQ(want[3], 64.0f);
  for (const std::string& k : production_kernels(d)) {
    args.d = got.data();
    ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = k.c_str()}));
    for (int e = 0; e < 12; ++e) {
      if (std::isnan(want[e]))
        EXPECT_TRUE(std::isnan(got[e])) << k << " " << e;
      else
        EXPECT_EQ(got[e], want[e]) << k << " " << e;
    }
  }
}

TEST(CpuMx, BadDescriptorsAreNamed) {
  std::vector<test::BadDesc> bad;
  auto base = [] { return mx_desc(4, 4, 64, DType::E4M3, DType::E5M2, DType::F32, 0); };
  GemmDesc d = mx_desc(4, 4, 80, DType::E4M3, DType::E5M2, DType::F32, 0);
  bad.push_back({"K % 32 (A first)", d, Arg::ScaleA});
  d = base();
  d.scale_b.dtype = DType::F32;
  bad.push_back({"f32 MX scales", d, Arg::ScaleB});
  d = base();
  d.scale_a.dtype = DType::F32;
  d.scale_a.mode = ScaleMode::Tensor;
  d.scale_b.dtype = DType::F16;  // e8m0 only
  bad.push_back({"f16 MX scales", d, Arg::ScaleB});
  d = base();
  d.a.dtype = DType::BF16;
  bad.push_back({"MX on bf16", d, Arg::ScaleA});
  d = base();
  d.scale_a.ld = 2;  // S_A is 4 x 2 column-major: ld >= 4
  bad.push_back({"ld of S_A", d, Arg::ScaleA});
  d = base();
  d.scale_b.mode = ScaleMode::Tensor;  // e8m0 for a tensor scale
  bad.push_back({"e8m0 tensor scale", d, Arg::ScaleB});
  std::vector<std::uint8_t> a(4 * 64, 0x38), b(64 * 4, 0x38), s(64, 127);
  std::vector<float> out(16, -1.0f);
  GemmArgs args{a.data(), b.data(), nullptr, out.data(), 1.0, 0.0};
  args.scale_a = s.data(), args.scale_b = s.data();
  test::expect_named(bad, args);
  for (float v : out) EXPECT_EQ(v, -1.0f);
}

}  // namespace
}  // namespace gemmkit
