// fp8 outputs on the CPU: D in e4m3 / e5m2, written saturating, with the output's
// scale (D = round(v * s_d), a multiply as Transformer Engine's) and the amax of the unscaled v
// (EpilogueDesc::scale_d / amax_d), in the write-back's one pass; against the fp64 reference,
// bit for bit where the values are exact; named errors; the C ABI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/gemmkit.h"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::production_kernels;
using test::run_on;

constexpr float kSentinel = -12345.0f;

// The reference's amax (v before s_d) and the largest unscaled gauge of D: the bound of the
// candidate's amax is the bound of the element it comes from.
struct AmaxWant {
  double amax = 0, bound = 0;
};
AmaxWant reference_amax(const bench::HostCase& hc, const GemmArgs& args) {
  AmaxWant w;
  GemmArgs in = args;
  in.d = nullptr, in.amax_d = nullptr;
  const double sd = hc.desc.epilogue.scale_d ? std::fabs(double(*args.scale_d)) : 1.0;
  double gauge = 0;
  core::reference_visit_epilogue(
      hc.desc, in, true,
      [&](std::int64_t, std::int64_t, std::int64_t, double, double g) {
        gauge = std::max(gauge, g / sd);
      },
      &w.amax);
  w.bound = (8.0 + std::sqrt(double(hc.desc.k))) * std::ldexp(1.0, -24) * gauge +
            std::ldexp(1.0, -24) * w.amax;
  return w;
}

// fp8 D (and C) next to f32 / bf16 / e4m3 inputs, with and without the output's scale and
// amax, residue shapes, every layout bit, beta 0 and not, on every CPU kernel that takes it.
TEST(CpuFp8Output, AgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 1}, {7, 17, 33}, {33, 5, 300}, {16, 40, 64}, {200, 150, 40}};
  int i = 0, failures = 0, runs = 0;
  for (DType out : {DType::E4M3, DType::E5M2})
    for (DType in : {DType::F32, DType::BF16, DType::E4M3})
      for (const Shape& s : shapes) {
        GemmDesc d = test::layout_desc(s.m, s.n, s.k, in, in, out, (i * 7) % 32);
        d.epilogue.scale_d = i % 3 != 0;
        d.epilogue.amax_d = i % 2 == 0;
        if (i % 5 == 4) d.epilogue.act = Activation::Relu;
        bench::HostCase hc = bench::HostCase::make(d, 1.0, i % 2 ? 0.5 : 0.0, seed + i);
        const float sd = i % 4 ? 0.25f : 3.0f;
        float amax = kSentinel;
        GemmArgs args = hc.args();
        if (d.epilogue.scale_d) args.scale_d = &sd;
        if (d.epilogue.amax_d) args.amax_d = &amax;
        const std::vector<std::string> kernels = production_kernels(hc.desc);
        EXPECT_FALSE(kernels.empty()) << i;
        const AmaxWant want = reference_amax(hc, args);
        for (const std::string& k : kernels) {
          std::vector<std::uint8_t> got = hc.d;
          args.d = got.data();
          amax = kSentinel;
          const Status st = gemm(hc.desc, args, {.backend = Backend::Cpu, .kernel = k.c_str()});
          ++runs;
          // check_d's bound, with s_d in the reference's value and gauge, plus half of the
          // output's smallest subnormal (rounding there is absolute: e4m3 2^-9, e5m2 2^-16).
          const double tiny = std::ldexp(1.0, out == DType::E4M3 ? -10 : -17);
          std::string err = st ? "" : to_string(st);
          const core::Strides sdd = core::stored_strides(hc.desc.d.layout, hc.desc.d.ld);
          GemmArgs ref_args = args;
          ref_args.d = nullptr, ref_args.amax_d = nullptr;
          if (st)
            core::reference_visit_epilogue(
                hc.desc, ref_args, true,
                [&](std::int64_t, std::int64_t r, std::int64_t c, double w, double g) {
                  const double x = core::load_element(out, got.data(), r * sdd.row + c * sdd.col);
                  const double b = tiny + bench::unit_roundoff(out) * std::fabs(w) +
                                   (8.0 + std::sqrt(double(s.k))) * std::ldexp(1.0, -24) * g;
                  if (err.empty() && !(std::fabs(x - w) <= b))
                    err = "D(" + std::to_string(r) + "," + std::to_string(c) + ") got " +
                          std::to_string(x) + " want " + std::to_string(w);
                });
          if (err.empty() && d.epilogue.amax_d && !(std::fabs(amax - want.amax) <= want.bound))
            err = "amax " + std::to_string(amax) + ", want " + std::to_string(want.amax);
          if (!err.empty() && ++failures <= 8)
            ADD_FAILURE() << k << " " << dtype_name(in) << " -> " << dtype_name(out) << " " << s.m
                          << "x" << s.n << "x" << s.k << " scale_d " << d.epilogue.scale_d
                          << " amax " << d.epilogue.amax_d << ": " << err;
        }
        ++i;
      }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(runs, 30);
}

// Saturation, bit for bit: K = 1 and B = 1, so D(i) = round(a_i * s_d) exactly. e4m3: beyond
// 448 (464 ties to 448, 465 does not) and Inf give 448, NaN stays NaN; e5m2: beyond 57344 and
// Inf give 57344. The amax is of a_i (before s_d): Inf here, NaN once a NaN is in.
TEST(CpuFp8Output, SaturatesAndCountsTheAmax) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType out : {DType::E4M3, DType::E5M2})
    for (bool with_nan : {false, true})
      for (float sd : {1.0f, 0.5f, 64.0f}) {
        std::vector<float> a = {1000, -1000, 300, 448, 464, 465, 1e5f, float(-inf), 0.75f, -3};
        if (with_nan) a.push_back(std::numeric_limits<float>::quiet_NaN());
        const auto m = std::int64_t(a.size());
        GemmDesc d = test::layout_desc(m, 1, 1, DType::F32, DType::F32, out, 0);
        d.epilogue.scale_d = d.epilogue.amax_d = true;
        d = with_default_lds(d);
        const float b = 1.0f;
        std::vector<std::uint8_t> want(m, 0xEE), got(m, 0xEE);
        float want_amax = kSentinel, amax = kSentinel;
        GemmArgs args{a.data(), &b, nullptr, want.data(), 1.0, 0.0};
        args.scale_d = &sd, args.amax_d = &want_amax;
        core::reference_gemm_epilogue(d, args);
        const bool e4 = out == DType::E4M3;
        for (std::int64_t i = 0; i < m; ++i) {
          const double v = double(a[i]) * sd;
          EXPECT_EQ(want[i], e4 ? to_e4m3(v, true) : to_e5m2(v, true)) << a[i] << " * " << sd;
        }
        EXPECT_EQ(want[0], e4 ? 0x7E : sd == 64.0f ? 0x7B : to_e5m2(1000.0 * sd, true));
        EXPECT_EQ(want[7], e4 ? 0xFE : 0xFB) << "-Inf saturates";
        if (with_nan)
          EXPECT_TRUE(std::isnan(want_amax));
        else
          EXPECT_EQ(want_amax, float(inf));
        args.amax_d = &amax;
        const std::vector<std::string> kernels = production_kernels(d);
        ASSERT_FALSE(kernels.empty());
        for (const std::string& k : kernels) {
          args.d = got.data();
          amax = kSentinel;
          ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = k.c_str()}));
          EXPECT_EQ(got, want) << k << " " << dtype_name(out) << " s_d " << sd;
          if (with_nan)
            EXPECT_TRUE(std::isnan(amax)) << k;
          else
            EXPECT_EQ(amax, want_amax) << k;
        }
      }
}

// alpha == 0: D = act(beta C) * s_d and the amax of beta C, also in place with beta == 1
// (which without a scale or an amax is netlib's quick return); M == 0 writes no amax.
TEST(CpuFp8Output, AlphaZeroAndQuickReturns) {
  const std::int64_t m = 5, n = 3;
  GemmDesc d = test::layout_desc(m, n, 8, DType::F32, DType::F32, DType::F32, 0);
  d.epilogue.scale_d = d.epilogue.amax_d = true;
  d = with_default_lds(d);
  std::vector<float> c(m * n);
  for (std::int64_t e = 0; e < m * n; ++e) c[e] = float(e % 7) - 3.5f;
  const float sd = 2.0f;
  for (const std::string& k : production_kernels(d)) {
    std::vector<float> io = c;  // in place: D = C
    float amax = kSentinel;
    GemmArgs args{nullptr, nullptr, io.data(), io.data(), 0.0, 1.0};
    args.scale_d = &sd, args.amax_d = &amax;
    ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = k.c_str()}));
    for (std::int64_t e = 0; e < m * n; ++e) EXPECT_EQ(io[e], c[e] * 2.0f) << k;
    EXPECT_EQ(amax, 3.5f) << k;
  }
  // The same in-place call with a bias instead: not a quick return either (D = C + bias).
  GemmDesc biased = test::layout_desc(m, n, 8, DType::F32, DType::F32, DType::F32, 0);
  biased.epilogue.bias = BiasMode::Column;
  std::vector<float> io = c, bias(n, 10.0f);
  GemmArgs bargs{nullptr, nullptr, io.data(), io.data(), 0.0, 1.0};
  bargs.bias = bias.data();
  ASSERT_TRUE(gemm(biased, bargs, {.backend = Backend::Cpu}));
  for (std::int64_t e = 0; e < m * n; ++e) EXPECT_EQ(io[e], c[e] + 10.0f) << e;
  GemmDesc empty = d;
  empty.m = 0;
  float amax = kSentinel;
  GemmArgs args{nullptr, nullptr, nullptr, nullptr, 1.0, 0.0};
  args.scale_d = &sd, args.amax_d = &amax;
  EXPECT_TRUE(gemm(with_default_lds(empty), args, {.backend = Backend::Cpu}));
  EXPECT_EQ(amax, kSentinel);
}

// The plan cache tells a problem with the output's scale from the same one without: the GEMV
// that the plain M == 1 problem plans has no epilogue, so reusing its plan would drop s_d.
TEST(CpuFp8Output, PlanCacheKeepsTheOutputScaleApart) {
  GemmDesc d = test::layout_desc(1, 64, 32, DType::F32, DType::F32, DType::F32, 0);
  std::vector<float> a(32, 1.0f), b(32 * 64, 0.5f), plain(64), scaled(64);
  ASSERT_TRUE(
      gemm(d, {a.data(), b.data(), nullptr, plain.data(), 1.0, 0.0}, {.backend = Backend::Cpu}));
  d.epilogue.scale_d = d.epilogue.amax_d = true;
  const float sd = 4.0f;
  float amax = kSentinel;
  GemmArgs args{a.data(), b.data(), nullptr, scaled.data(), 1.0, 0.0};
  args.scale_d = &sd, args.amax_d = &amax;
  ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu}));
  for (int j = 0; j < 64; ++j) {
    EXPECT_EQ(plain[j], 16.0f);
    EXPECT_EQ(scaled[j], 64.0f) << j;
  }
  EXPECT_EQ(amax, 16.0f);
}

// An f64 GEMM's amax is an f32 rounded as the reference stores one: 1e300 gives Inf, 1e20 its
// nearest float, on every f64 kernel (a plain cast past FLT_MAX would be undefined).
TEST(CpuFp8Output, F64AmaxRoundsLikeTheReference) {
  for (double big : {1e300, 1e20, -3.5}) {
    GemmDesc d = test::layout_desc(3, 2, 1, DType::F64, DType::F64, DType::F64, 0);
    d.compute = DType::F64;
    d.epilogue.amax_d = true;
    d = with_default_lds(d);
    const double a[3] = {0.5, big, -2.0}, b[2] = {1.0, 0.25};
    double out[6];
    float want = kSentinel;
    GemmArgs args{a, b, nullptr, out, 1.0, 0.0};
    args.amax_d = &want;
    core::reference_gemm_epilogue(d, args);
    EXPECT_EQ(want, big == 1e300 ? std::numeric_limits<float>::infinity()
                                 : float(std::max(std::fabs(big), 2.0)));
    const std::vector<std::string> kernels = production_kernels(d);
    ASSERT_FALSE(kernels.empty());
    for (const std::string& k : kernels) {
      float amax = kSentinel;
      args.amax_d = &amax;
      ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = k.c_str()}));
      EXPECT_EQ(amax, want) << k << " " << big;
    }
  }
}

TEST(CpuFp8Output, BadArgumentsAreNamed) {
  GemmDesc d = test::layout_desc(4, 4, 4, DType::F32, DType::F32, DType::E4M3, 0);
  d.epilogue.scale_d = d.epilogue.amax_d = true;
  d = with_default_lds(d);
  std::vector<float> a(16, 1.0f), b(16, 1.0f);
  std::vector<std::uint8_t> out(16, 0xEE);
  float sd = 1.0f, amax = kSentinel;
  auto run = [&](const GemmDesc& desc, const float* s, float* am, void* dst = nullptr) {
    GemmArgs args{a.data(), b.data(), nullptr, dst ? dst : out.data(), 1.0, 0.0};
    args.scale_d = s, args.amax_d = am;
    return gemm(desc, args, {.backend = Backend::Cpu});
  };
  EXPECT_EQ(run(d, nullptr, &amax).arg, Arg::ScaleD);
  EXPECT_EQ(run(d, &sd, nullptr).arg, Arg::AmaxD);
  EXPECT_EQ(run(d, &sd, reinterpret_cast<float*>(out.data() + 4)).arg, Arg::AmaxD);  // in D
  EXPECT_EQ(run(d, &sd, a.data()).arg, Arg::AmaxD);                                  // in A
  std::vector<std::int32_t> di(16);
  GemmDesc integer = test::layout_desc(4, 4, 4, DType::I8, DType::I8, DType::I32, 0);
  integer.epilogue.scale_d = true;
  EXPECT_EQ(run(integer, &sd, nullptr, di.data()).arg, Arg::Epilogue);
  for (std::uint8_t v : out) EXPECT_EQ(v, 0xEE);
  EXPECT_EQ(amax, kSentinel);
  for (std::int32_t v : di) EXPECT_EQ(v, 0);
}

// The C ABI: output_flags with scale_d / amax_d at the struct's end; bad flags are position 31.
TEST(CpuFp8Output, CAbi) {
  const std::int64_t m = 3, n = 4, k = 5;
  gemmkit_problem p{};
  p.abi_version = GEMMKIT_ABI_VERSION;
  p.trans_a = p.trans_b = GEMMKIT_NO_TRANS;
  p.m = m, p.n = n, p.k = k, p.batch = 1;
  p.a = p.b = {GEMMKIT_F32, GEMMKIT_COL_MAJOR, 0, 0};
  p.c = p.d = {GEMMKIT_E5M2, GEMMKIT_COL_MAJOR, 0, 0};
  p.backend = GEMMKIT_BACKEND_CPU;
  std::vector<float> a(m * k), b(k * n);
  bench::fill_uniform(DType::F32, a.data(), m * k, 5, 1.0, 4.0);
  bench::fill_uniform(DType::F32, b.data(), k * n, 6, 1.0, 4.0);
  const float sd = 0.125f;
  float amax = kSentinel, want_amax = kSentinel;
  gemmkit_fusion f{};
  f.output_flags = GEMMKIT_SCALE_D | GEMMKIT_AMAX_D;
  f.scale_d = &sd, f.amax_d = &amax;
  std::vector<std::uint8_t> out(m * n), want(m * n);
  gemmkit_status st{};
  ASSERT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 0)
      << st.message;
  GemmDesc d = test::layout_desc(m, n, k, DType::F32, DType::F32, DType::E5M2, 0);
  d.epilogue.scale_d = d.epilogue.amax_d = true;
  GemmArgs args{a.data(), b.data(), nullptr, want.data(), 1.0, 0.0};
  args.scale_d = &sd, args.amax_d = &want_amax;
  ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu}));
  EXPECT_EQ(out, want);
  EXPECT_EQ(amax, want_amax);
  EXPECT_GT(amax, 5.0f);  // sums of five products of values in [1, 4]
  f.output_flags = 4;
  EXPECT_EQ(gemmkit_can_implement_fused(&p, &f, &st), 31);
  f.output_flags = GEMMKIT_AMAX_D;
  f.amax_d = nullptr;
  EXPECT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st),
            int(Arg::AmaxD));
  EXPECT_STREQ(st.arg_name, "amax_d");
}

}  // namespace
}  // namespace gemmkit
