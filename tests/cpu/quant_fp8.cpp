// fp8 e4m3 / e5m2 GEMMs on the CPU: fp32 accumulation, f32 / bf16 /
// fp16 output, tensor / row / column scales and DeepGEMM's block scales (1 x 128, 128 x 128),
// validated at the front door, computed by the fp64 reference (the spec) and by the production
// CPU kernels, which dequantize while packing. Plus quantize_fp8 and the C ABI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/view.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/gemmkit.h"
#include "gemmkit/quantize.hpp"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::check_d;
using test::production_kernels;
using test::run_on;

const char* mode_name(ScaleMode m) {
  switch (m) {
    case ScaleMode::None:
      return "none";
    case ScaleMode::Tensor:
      return "tensor";
    case ScaleMode::Row:
      return "row";
    case ScaleMode::Column:
      return "column";
    case ScaleMode::Block1x128:
      return "block1x128";
    case ScaleMode::Block128x128:
      return "block128x128";
    case ScaleMode::Group:
      return "group";
    case ScaleMode::Mx:
      return "mx";
  }
  return "?";
}

// An fp8 problem: `layout` bits as in tests/cpu/epilogue.cpp (trans_a, trans_b, row-major A, B,
// C/D); D's ld padded by one when bit 0 is set.
GemmDesc fp8_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType ta, DType tb, DType out,
                  int layout, ScaleMode sa = ScaleMode::None, ScaleMode sb = ScaleMode::None) {
  GemmDesc d = test::layout_desc(m, n, k, ta, tb, out, layout);
  d.scale_a.mode = sa;
  d.scale_b.mode = sb;
  // Block scales: row-major S for odd layouts, with a padded ld; DeepGEMM's column-major else.
  if (layout & 1) d.scale_a.layout = d.scale_b.layout = Layout::RowMajor;
  d = with_default_lds(d);
  if (core::is_block_scale(sa)) d.scale_a.ld += layout % 3;
  if (core::is_block_scale(sb)) d.scale_b.ld += layout % 3;
  d.d.ld += layout % 2;
  d.c.ld = d.d.ld;
  return d;
}

// ---------------------------------------------------------------- exact small integers

// Integers in [-4, 4] are exact in e4m3 and e5m2 and so are their products and the f32 sums:
// D must equal the reference exactly, on every production kernel and on both formats.
TEST(CpuFp8, ExactSmallIntegers) {
  for (DType ta : {DType::E4M3, DType::E5M2})
    for (DType tb : {DType::E4M3, DType::E5M2}) {
      const GemmDesc d = fp8_desc(13, 37, 300, ta, tb, DType::F32, 4);
      std::vector<std::uint8_t> a(13 * 300), b(300 * 37);
      for (std::size_t i = 0; i < a.size(); ++i)
        core::store_element(ta, a.data(), std::int64_t(i), double(int(i * 7 % 9) - 4));
      for (std::size_t i = 0; i < b.size(); ++i)
        core::store_element(tb, b.data(), std::int64_t(i), double(int(i * 5 % 9) - 4));
      std::vector<float> want(13 * 37), got(13 * 37, -1.0f);
      core::reference_gemm(d, {a.data(), b.data(), nullptr, want.data(), 1.0, 0.0});
      const auto kernels = production_kernels(d);
      ASSERT_FALSE(kernels.empty()) << "no production kernel takes fp8";
      for (const std::string& k : kernels) {
        std::fill(got.begin(), got.end(), -1.0f);
        const Options o{.backend = Backend::Cpu, .kernel = k.c_str()};
        ASSERT_TRUE(gemm(d, {a.data(), b.data(), nullptr, got.data(), 1.0, 0.0}, o)) << k;
        EXPECT_EQ(got, want) << k << " " << dtype_name(ta) << " x " << dtype_name(tb);
      }
    }
}

// The planner sends fp8 problems to a production kernel, not to the reference.
TEST(CpuFp8, PlannerPicksAProductionKernel) {
  const GemmDesc d = fp8_desc(256, 256, 256, DType::E4M3, DType::E4M3, DType::BF16, 0,
                              ScaleMode::Block1x128, ScaleMode::Block128x128);
  const dispatch::Plan p = dispatch::make_plan(d, {.backend = Backend::Cpu});
  ASSERT_TRUE(p.launch.kernel) << to_string(p.status);
  EXPECT_EQ(p.launch.kernel->role, dispatch::KernelRole::Production) << p.launch.kernel->name;
}

// ---------------------------------------------------------------- special values

// e4m3 NaN (S.1111.111) in a row of A gives NaN in exactly that row; e5m2 +Inf in a column of
// B gives +-Inf (or NaN where an Inf meets a zero) in exactly that column, as the reference.
TEST(CpuFp8, NanRowAndInfColumn) {
  const GemmDesc d = fp8_desc(9, 20, 128, DType::E4M3, DType::E5M2, DType::F32, 0);
  for (const std::string& k : production_kernels(d)) {
    bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, test::test_seed());
    const core::ProblemView v = core::make_view(hc.desc);
    hc.a[3 * v.a.row + 17 * v.a.col] = 0x7F;  // A(3, 17) = NaN
    hc.b[40 * v.b.row + 6 * v.b.col] = 0x7C;  // B(40, 6) = +Inf
    EXPECT_TRUE(std::isnan(e4m3_to_float(0x7F)));
    EXPECT_TRUE(std::isinf(e5m2_to_float(0x7C)));
    EXPECT_EQ(run_on(k.c_str(), hc), "") << k;
    std::vector<std::uint8_t> got = hc.d;
    GemmArgs args = hc.args();
    args.d = got.data();
    ASSERT_TRUE(gemm(hc.desc, args, {.backend = Backend::Cpu, .kernel = k.c_str()}));
    const core::Strides sd = core::stored_strides(hc.desc.d.layout, hc.desc.d.ld);
    for (std::int64_t i = 0; i < d.m; ++i)
      for (std::int64_t j = 0; j < d.n; ++j) {
        const double x = core::load_element(DType::F32, got.data(), i * sd.row + j * sd.col);
        if (i == 3)
          EXPECT_TRUE(std::isnan(x)) << k << " D(" << i << "," << j << ") = " << x;
        else if (j == 6)
          EXPECT_TRUE(std::isinf(x) || std::isnan(x)) << k << " D(" << i << "," << j << ")";
        else
          EXPECT_TRUE(std::isfinite(x)) << k << " D(" << i << "," << j << ") = " << x;
      }
  }
}

// quantize_fp8 saturates: e4m3 has no Inf, so 1000 and +Inf give 448 (0x7E) with no scale;
// e5m2 saturates 1e5 (past 61440) and +Inf to 57344 (0x7B); NaN stays NaN.
TEST(CpuFp8, QuantizeSaturatesAndKeepsNan) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1e5f, -1e5f, inf, -inf, std::nanf(""), 1.0f, 0.0f, -0.0f};
  for (DType t : {DType::E4M3, DType::E5M2}) {
    GemmDesc d = fp8_desc(8, 1, 1, t, t, DType::F32, 0);  // A is 8 x 1
    std::vector<std::uint8_t> q(8, 0xAA);
    ASSERT_TRUE(
        quantize_fp8(d, Arg::A, {DType::F32, Layout::ColMajor, 0, 0}, x.data(), q.data(), nullptr));
    const bool e4 = t == DType::E4M3;
    EXPECT_EQ(q[0], e4 ? 0x7E : 0x7B);
    EXPECT_EQ(q[1], e4 ? 0xFE : 0xFB);
    EXPECT_EQ(q[2], e4 ? 0x7E : 0x7B);  // saturating: +Inf -> max finite
    EXPECT_EQ(q[3], e4 ? 0xFE : 0xFB);
    EXPECT_TRUE(std::isnan(core::load_element(t, q.data(), 4)));
    EXPECT_EQ(core::load_element(t, q.data(), 5), 1.0);
    EXPECT_EQ(q[6], 0x00);
    EXPECT_EQ(q[7], 0x80);
  }
}

// ---------------------------------------------------------------- quantization helpers

// Scales from the amax: s = amax / 448 per group, the largest element of each group lands on
// +-448, and q * s reconstructs x within half an e4m3 ulp (2^-4 relative) or, among the
// subnormals, half their step (2^-10 s).
TEST(CpuFp8, QuantizeScalesFromTheAmax) {
  const std::int64_t m = 130, k = 256;
  std::vector<float> x(m * k);
  bench::fill_uniform(DType::F32, x.data(), m * k, test::test_seed());
  for (std::int64_t i = 0; i < m; ++i)  // rows of very different magnitudes
    for (std::int64_t p = 0; p < k; ++p) x[p * m + i] *= std::ldexp(1.0f, int(i % 11) - 5);
  for (ScaleMode mode :
       {ScaleMode::Tensor, ScaleMode::Row, ScaleMode::Block1x128, ScaleMode::Block128x128}) {
    GemmDesc d = fp8_desc(m, 1, k, DType::E4M3, DType::E4M3, DType::F32, 0, mode);
    const Extent e = scale_extent_a(d);
    std::vector<float> s(core::footprint(d.scale_a.layout, e, d.scale_a.ld));
    std::vector<std::uint8_t> q(m * k);
    ASSERT_TRUE(
        quantize_fp8(d, Arg::A, {DType::F32, Layout::ColMajor, 0, 0}, x.data(), q.data(), s.data()))
        << mode_name(mode);
    const core::KScale bs = core::k_scale(d, s.data(), nullptr, true);
    auto scale_of = [&](std::int64_t i, std::int64_t p) {
      if (bs.base) return bs.at(i, p);
      return mode == ScaleMode::Tensor ? s[0] : s[i];
    };
    // Each group's amax.
    std::vector<double> amax(s.size(), 0.0);
    auto group = [&](std::int64_t i, std::int64_t p) -> std::size_t {
      if (bs.base) return bs.index(i, p);
      return mode == ScaleMode::Tensor ? 0 : i;
    };
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t i = 0; i < m; ++i)
        amax[group(i, p)] = std::max(amax[group(i, p)], std::fabs(double(x[p * m + i])));
    double worst = 0;
    int at_max = 0;
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t i = 0; i < m; ++i) {
        const double sc = scale_of(i, p);
        EXPECT_EQ(sc, float(amax[group(i, p)] / 448.0));
        const double y = e4m3_to_float(q[p * m + i]) * sc, xv = x[p * m + i];
        worst = std::max(worst, std::fabs(y - xv) / (0x1p-4 * std::fabs(xv) + 0x1p-10 * sc));
        at_max +=
            std::fabs(xv) == amax[group(i, p)] && std::fabs(e4m3_to_float(q[p * m + i])) == 448.0f;
      }
    EXPECT_LE(worst, 1.0) << mode_name(mode);
    EXPECT_GE(at_max, 1) << mode_name(mode);
  }
}

TEST(CpuFp8, QuantizeNamesBadArguments) {
  std::vector<float> x(256 * 4, 1.0f), s(64);
  std::vector<std::uint8_t> q(256 * 4);
  const MatrixDesc f32{DType::F32, Layout::ColMajor, 0, 0};
  GemmDesc d = fp8_desc(4, 4, 256, DType::BF16, DType::E4M3, DType::F32, 0, ScaleMode::Row);
  EXPECT_EQ(quantize_fp8(d, Arg::A, f32, x.data(), q.data(), s.data()).arg, Arg::DTypeA);
  d = fp8_desc(4, 4, 256, DType::E4M3, DType::E4M3, DType::F32, 0, ScaleMode::Row);
  EXPECT_EQ(
      quantize_fp8(d, Arg::A, {DType::I8, Layout::ColMajor, 0, 0}, x.data(), q.data(), s.data())
          .arg,
      Arg::A);
  EXPECT_EQ(quantize_fp8(d, Arg::A, f32, x.data(), q.data(), nullptr).arg, Arg::ScaleA);
  EXPECT_EQ(
      quantize_fp8(d, Arg::A, {DType::F32, Layout::ColMajor, 2, 0}, x.data(), q.data(), s.data())
          .arg,
      Arg::Lda);
  d.k = 200;
  d.scale_a.mode = ScaleMode::Block1x128;
  d.a.ld = 4;
  d.scale_a.ld = 0;
  const auto q0 = q;
  EXPECT_EQ(quantize_fp8(d, Arg::A, f32, x.data(), q.data(), s.data()).arg, Arg::ScaleA);
  EXPECT_EQ(q, q0);
}

// ---------------------------------------------------------------- every scale mode

// Every scale mode of A x every scale mode of B, both formats, f32 / bf16 / fp16 outputs, on
// residue shapes (M, N around the 6 x 16 tile and the 128 block), K of one to three scale
// blocks and across the KC = 256 boundary, every layout bit, beta 0 (C unread) and != 0.
TEST(CpuFp8, EveryScaleModeAgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 128},   {7, 17, 256},  {129, 15, 384},
                          {6, 130, 128}, {31, 33, 640}, {2, 129, 256}};
  const ScaleMode amodes[] = {ScaleMode::None, ScaleMode::Tensor, ScaleMode::Row,
                              ScaleMode::Block1x128, ScaleMode::Block128x128};
  const ScaleMode bmodes[] = {ScaleMode::None, ScaleMode::Tensor, ScaleMode::Column,
                              ScaleMode::Block1x128, ScaleMode::Block128x128};
  const DType outs[] = {DType::F32, DType::BF16, DType::F16};
  int i = 0, failures = 0, runs = 0;
  for (ScaleMode sa : amodes)
    for (ScaleMode sb : bmodes)
      for (int rep = 0; rep < 2; ++rep) {
        const Shape& s = shapes[i % 6];
        const DType ta = (i & 1) ? DType::E5M2 : DType::E4M3;
        const DType tb = (i & 2) ? DType::E5M2 : DType::E4M3;
        const int layout = (i * 7) % 32;
        const GemmDesc d = fp8_desc(s.m, s.n, s.k, ta, tb, outs[i % 3], layout, sa, sb);
        const double beta = rep ? 0.75 : 0.0;
        bench::HostCase hc = bench::HostCase::make(d, i % 4 == 0 ? -1.5 : 1.0, beta, seed + i);
        runs += test::run_on_every_kernel(hc, &failures, [&] {
          return std::string(dtype_name(ta)) + "x" + std::string(dtype_name(tb)) + "->" +
                 std::string(dtype_name(d.d.dtype)) + " scale_a " + mode_name(sa) + " scale_b " +
                 mode_name(sb) + " " + test::shape_name(s.m, s.n, s.k) + " layout " +
                 std::to_string(layout) + " beta " + std::to_string(beta);
        });
        ++i;
      }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(runs, 2 * 25 * 2);  // avx2 (or avx512) and the portable kernel
}

// The check can fail: block scales ignored (what a kernel that dropped them would give) is
// caught, for A's and for B's.
TEST(CpuFp8, TheCheckSeesIgnoredBlockScales) {
  for (bool on_a : {true, false}) {
    const GemmDesc d = fp8_desc(20, 24, 256, DType::E4M3, DType::E4M3, DType::F32, 0,
                                on_a ? ScaleMode::Block1x128 : ScaleMode::None,
                                on_a ? ScaleMode::None : ScaleMode::Block128x128);
    bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, test::test_seed());
    // Two K blocks with scales a factor 2 apart: a kernel that used one scale for both is off.
    std::vector<std::uint8_t>& s = on_a ? hc.scale_a : hc.scale_b;
    for (std::size_t q = 0; q < s.size() / 4; ++q)
      core::store_element(DType::F32, s.data(), std::int64_t(q), q % 2 ? 1.0 : 2.0);
    std::vector<std::uint8_t> got = hc.d;
    GemmDesc plain = hc.desc;
    plain.scale_a = plain.scale_b = {};
    ASSERT_TRUE(gemm(plain, {hc.a.data(), hc.b.data(), nullptr, got.data(), 1.0, 0.0},
                     {.backend = Backend::Cpu}));
    EXPECT_NE(check_d(hc, got), "") << (on_a ? "A" : "B");
  }
}

// The testbed (what `gemmkit verify` runs): fp8 cases are judged by the similarity, fp8
// operands come from quantize_fp8, and a corrupted D fails.
TEST(CpuFp8, TestbedSimilarity) {
  const GemmDesc d = fp8_desc(64, 48, 256, DType::E4M3, DType::E5M2, DType::BF16, 0,
                              ScaleMode::Block1x128, ScaleMode::Block128x128);
  const bench::VerifyResult r = bench::verify_case(d, 1.0, 0.5, {.backend = Backend::Cpu}, 7);
  EXPECT_EQ(r.disposition, bench::Disposition::Passed) << r.note << r.cmp.first_failure;
  EXPECT_EQ(r.cmp.metric, "similarity");
  EXPECT_LT(r.cmp.similarity_diff, 1e-5);
  EXPECT_LE(r.cmp.max_err_over_bound, 1.0);  // and within the gauge bound, on the CPU
  // A D that is half wrong.
  bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, 7);
  std::vector<std::uint8_t> got = hc.d;
  GemmArgs args = hc.args();
  args.d = got.data();
  ASSERT_TRUE(gemm(hc.desc, args, {.backend = Backend::Cpu}));
  const auto before = hc.d;
  EXPECT_TRUE(bench::compare_to_reference(hc, got, before).passed);
  for (std::int64_t e = 0; e < d.m * d.n; e += 2)
    core::store_element(DType::BF16, got.data(), e,
                        -core::load_element(DType::BF16, got.data(), e));
  const bench::Compare bad = bench::compare_to_reference(hc, got, before);
  EXPECT_FALSE(bad.passed);
  EXPECT_GT(bad.similarity_diff, 1e-3);
}

// ---------------------------------------------------------------- the front door

TEST(CpuFp8, BadScaleDescriptorsAreNamed) {
  std::vector<test::BadDesc> bad;
  auto base = [] {
    return fp8_desc(8, 8, 256, DType::E4M3, DType::E4M3, DType::F32, 0, ScaleMode::Block1x128,
                    ScaleMode::Block128x128);
  };
  GemmDesc d = base();
  d.k = 200;  // not a multiple of 128: both are block-scaled, A is named first
  bad.push_back({"K % 128 (A)", d, Arg::ScaleA});
  d.scale_a.mode = ScaleMode::Tensor;
  bad.push_back({"K % 128 (B)", d, Arg::ScaleB});
  d = base();
  d.scale_a.layout = static_cast<Layout>(7);
  bad.push_back({"layout of S_A", d, Arg::ScaleA});
  d = base();
  d.scale_b.ld = 1;  // S_B is 2 x 1 column-major: ld >= 2
  bad.push_back({"ld of S_B", d, Arg::ScaleB});
  d = base();
  d.scale_a.layout = Layout::RowMajor;
  d.scale_a.ld = 1;  // S_A is 8 x 2 row-major: ld >= 2
  bad.push_back({"ld of S_A", d, Arg::ScaleA});
  d = base();
  d.scale_b.mode = ScaleMode::Row;
  bad.push_back({"row scale of B", d, Arg::ScaleB});
  d = base();
  d.scale_a.mode = static_cast<ScaleMode>(77);
  bad.push_back({"unknown mode", d, Arg::ScaleA});
  std::vector<std::uint8_t> a(8 * 256, 0x38), b(256 * 8, 0x38);
  std::vector<float> sa(64, 1.0f), sb(64, 1.0f), out(64, -3.0f);
  test::expect_named(bad, {a.data(), b.data(), nullptr, out.data(), 1.0, 0.0}, true);
  // Null scales, D over a scale matrix.
  GemmArgs args{a.data(), b.data(), nullptr, out.data(), 1.0, 0.0};
  args.scale_b = sb.data();
  EXPECT_EQ(gemm(base(), args, {.backend = Backend::Cpu}).arg, Arg::ScaleA);
  args.scale_a = sa.data();
  args.scale_b = nullptr;
  EXPECT_EQ(gemm(base(), args, {.backend = Backend::Cpu}).arg, Arg::ScaleB);
  args.scale_b = out.data() + 60;
  EXPECT_EQ(gemm(base(), args, {.backend = Backend::Cpu}).arg, Arg::D);
  for (float v : out) EXPECT_EQ(v, -3.0f);
  // Integers take no scales; K == 0 with block scales is fine (zero blocks), and alpha == 0
  // reads none.
  d = base();
  d.k = 0;
  d = with_default_lds(d);
  std::vector<float> c(64, 2.0f);
  EXPECT_TRUE(
      gemm(d, {nullptr, nullptr, c.data(), out.data(), 1.0, 0.5}, {.backend = Backend::Cpu}));
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_TRUE(gemm(base(), {a.data(), b.data(), c.data(), out.data(), 0.0, 2.0},
                   {.backend = Backend::Cpu}));
  EXPECT_EQ(out[5], 4.0f);
}

// ---------------------------------------------------------------- the C ABI

TEST(CpuFp8, CAbiFusedAndQuantize) {
  const std::int64_t m = 5, n = 6, k = 256;
  gemmkit_problem p{};
  p.abi_version = GEMMKIT_ABI_VERSION;
  p.trans_a = p.trans_b = GEMMKIT_NO_TRANS;
  p.m = m, p.n = n, p.k = k, p.batch = 1;
  p.a = {GEMMKIT_E4M3, GEMMKIT_COL_MAJOR, 0, 0};
  p.b = {GEMMKIT_E5M2, GEMMKIT_COL_MAJOR, 0, 0};
  p.c = p.d = {GEMMKIT_F32, GEMMKIT_COL_MAJOR, 0, 0};
  p.backend = GEMMKIT_BACKEND_CPU;
  gemmkit_fusion f{};
  f.scale_a.mode = GEMMKIT_SCALE_BLOCK_1X128;
  f.scale_b.mode = GEMMKIT_SCALE_BLOCK_128X128;
  std::vector<float> xa(m * k), xb(k * n), sa(m * 2), sb(2), out(m * n, -1.0f);
  bench::fill_uniform(DType::F32, xa.data(), m * k, 3);
  bench::fill_uniform(DType::F32, xb.data(), k * n, 4);
  std::vector<std::uint8_t> a(m * k), b(k * n);
  const gemmkit_matrix f32{GEMMKIT_F32, GEMMKIT_COL_MAJOR, 0, 0};
  gemmkit_status st{};
  ASSERT_EQ(gemmkit_quantize_fp8(&p, &f, 0, &f32, xa.data(), a.data(), sa.data(), &st), 0)
      << st.message;
  ASSERT_EQ(gemmkit_quantize_fp8(&p, &f, 1, &f32, xb.data(), b.data(), sb.data(), &st), 0)
      << st.message;
  f.scale_a.values = sa.data();
  f.scale_b.values = sb.data();
  ASSERT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 0)
      << st.message;
  // Against the f32 product of the unquantized values: fp8's error, well under 10%.
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (std::int64_t q = 0; q < k; ++q) want += double(xa[q * m + i]) * xb[j * k + q];
      num += (out[j * m + i] - want) * (out[j * m + i] - want);
      den += want * want;
    }
  EXPECT_LT(std::sqrt(num / den), 0.1);
  // Bad values by position: 34 scale_a, 35 scale_b.
  p.k = 200;
  EXPECT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 34);
  EXPECT_STREQ(st.arg_name, std::string(arg_name(Arg::ScaleA)).c_str());
  p.k = k;
  f.scale_b.mode = 99;
  EXPECT_EQ(gemmkit_can_implement_fused(&p, &f, &st), 35);
  f.scale_b.mode = GEMMKIT_SCALE_BLOCK_128X128;
  f.scale_a.values = nullptr;
  EXPECT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 34);
  EXPECT_EQ(gemmkit_gemm_fused(&p, nullptr, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st),
            0);  // no fusion: the plain fp8 GEMM
}

}  // namespace
}  // namespace gemmkit
