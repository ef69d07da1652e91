// quantize_weights: f32 / bf16 weights into the w8a16 / w4a16 operands gemm()
// consumes (i8 / i4 B, group scales along K of 32 / 64 / 128 in f32 / f16 / bf16, optional
// zero points): the round trip within half a step, exact on representable values, quantize
// then GEMM against the unquantized product, named errors that write nothing, the C ABI.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/view.hpp"
#include "gemmkit/gemmkit.h"
#include "gemmkit/quantize.hpp"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::production_kernels;

// op(B) K x N of a weight-only problem; kcontig: B stored N x K row-major with trans_b (a
// linear layer's weight), else K x N row-major. S (and Z) K/group x N, `sl` layout.
GemmDesc wq_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType tb, std::int64_t group,
                 DType sdt, bool zeros, bool kcontig, Layout sl = Layout::ColMajor) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_b = kcontig ? Op::Trans : Op::NoTrans;
  d.a = {DType::F32, Layout::RowMajor, 0, 0};
  d.b = {tb, Layout::RowMajor, 0, 0};
  d.c = d.d = {DType::F32, Layout::RowMajor, 0, 0};
  d.scale_b = {
      .mode = ScaleMode::Group, .layout = sl, .group = group, .dtype = sdt, .zero_points = zeros};
  return with_default_lds(d);
}

struct Quantized {
  std::vector<std::uint8_t> q, s, z;
};
Quantized quantize(const GemmDesc& d, DType src_t, const void* src, Status* st) {
  const Extent e = scale_extent_b(d);
  const std::size_t sbytes = std::size_t(core::footprint(d.scale_b.layout, e, d.scale_b.ld)) *
                             std::size_t(dtype_bits(d.scale_b.dtype) / 8);
  Quantized out{std::vector<std::uint8_t>(std::size_t(d.k * d.n * dtype_bits(d.b.dtype) / 8)),
                std::vector<std::uint8_t>(sbytes), std::vector<std::uint8_t>(sbytes)};
  *st = quantize_weights(d, {src_t, Layout::RowMajor, 0, 0}, src, out.q.data(), out.s.data(),
                         d.scale_b.zero_points ? out.z.data() : nullptr);
  return out;
}

// w(p, j) = (q - z) * s as gemm() reads it (the reference's dequantization).
double dequant(const GemmDesc& d, const Quantized& q, std::int64_t p, std::int64_t j) {
  const core::ProblemView v = core::make_view(d);
  const core::KScale ks = core::k_scale(d, q.s.data(), q.z.data(), false);
  return ks.dequant(core::load_element(d.b.dtype, q.q.data(), p * v.b.row + j * v.b.col), j, p);
}

// Every form: |x - w| <= s / 2, q in range, integer zero points; bf16 sources too.
TEST(CpuQuantizeWeights, RoundTripWithinHalfAStep) {
  const std::uint64_t seed = test::test_seed();
  int cases = 0;
  for (DType tb : {DType::I8, DType::I4})
    for (std::int64_t g : {32, 64, 128})
      for (DType sdt : {DType::F32, DType::F16, DType::BF16})
        for (bool zeros : {false, true})
          for (DType src_t : {DType::F32, DType::BF16}) {
            const bool kcontig = cases % 2 == 0;
            const std::int64_t n = 3 + cases % 4, k = 2 * g;
            const GemmDesc d = wq_desc(1, n, k, tb, g, sdt, zeros, kcontig,
                                       cases % 3 ? Layout::ColMajor : Layout::RowMajor);
            std::vector<std::uint8_t> x(std::size_t(n * k * 4));
            // Shifted ranges, so that the asymmetric form has something to do.
            bench::fill_uniform(src_t, x.data(), n * k, seed + cases, -0.3 - 0.1 * (cases % 5),
                                1.7);
            Status st;
            const Quantized q = quantize(d, src_t, x.data(), &st);
            ASSERT_TRUE(st) << to_string(st);
            const core::ProblemView v = core::make_view(d);
            const core::KScale ks = core::k_scale(d, q.s.data(), q.z.data(), false);
            for (std::int64_t p = 0; p < k; ++p)
              for (std::int64_t j = 0; j < n; ++j) {
                const double xv = core::load_element(src_t, x.data(), p * v.b.row + j * v.b.col);
                const double s = ks.at(j, p), w = dequant(d, q, p, j);
                ASSERT_GT(s, 0.0);
                ASSERT_LE(std::fabs(xv - w), 0.5 * s * (1 + 1e-12))
                    << dtype_name(tb) << " g" << g << " " << dtype_name(sdt) << " zeros " << zeros
                    << " (" << p << "," << j << "): x " << xv << " w " << w << " s " << s;
                if (zeros) {
                  const double z = ks.zero_at(j, p);
                  ASSERT_EQ(z, std::nearbyint(z));
                  ASSERT_GE(z, tb == DType::I4 ? -8 : -128);
                  ASSERT_LE(z, tb == DType::I4 ? 7 : 127);
                }
              }
            ++cases;
          }
  EXPECT_EQ(cases, 72);
}

// Values q * s with a power-of-two s and each group's extremes present come back exactly, with
// the q they were made of (the asymmetric form's z then 0).
TEST(CpuQuantizeWeights, ExactOnRepresentableValues) {
  for (DType tb : {DType::I8, DType::I4})
    for (bool zeros : {false, true}) {
      const double qmax = tb == DType::I4 ? 7 : 127, qmin = zeros ? -qmax - 1 : -qmax;
      const std::int64_t n = 5, k = 128, g = 32;
      const GemmDesc d = wq_desc(1, n, k, tb, g, DType::BF16, zeros, true);
      std::vector<float> x(n * k);  // B stored N x K row-major: x[j * k + p]
      std::vector<int> want(n * k);
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t p = 0; p < k; ++p) {
          const int span = int(qmax - qmin + 1);
          int qv = int(qmin) + int((p * 7 + j * 3) % span);
          if (p % g == 0) qv = int(qmax);
          if (p % g == 1) qv = int(qmin);
          want[j * k + p] = qv;
          x[j * k + p] = float(qv * std::ldexp(1.0, -int(j) - int(p / g)));
        }
      Status st;
      const Quantized q = quantize(d, DType::F32, x.data(), &st);
      ASSERT_TRUE(st) << to_string(st);
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t p = 0; p < k; ++p) {
          EXPECT_EQ(core::load_element(tb, q.q.data(), j * k + p), want[j * k + p]);
          EXPECT_EQ(dequant(d, q, p, j), x[j * k + p]) << dtype_name(tb) << " " << zeros;
        }
    }
}

// Quantize, then gemm() on every CPU kernel (the streaming path for M <= 16, the packed one
// beyond): within the reference's gauge of the quantized operands, and within the quantization
// bound sum_p |a_p| s_p / 2 of the product of the unquantized weights.
TEST(CpuQuantizeWeights, QuantizeThenGemm) {
  const std::uint64_t seed = test::test_seed();
  int runs = 0;
  for (DType tb : {DType::I8, DType::I4})
    for (bool zeros : {false, true})
      for (std::int64_t m : {1, 16, 33}) {
        const std::int64_t n = 24, k = 256;
        const GemmDesc d = wq_desc(m, n, k, tb, 64, DType::F16, zeros, m != 33);
        std::vector<float> x(n * k), a(m * k), out(m * n), ref(m * n);
        bench::fill_uniform(DType::F32, x.data(), n * k, seed + 1, -2.0, 1.0);
        bench::fill_uniform(DType::F32, a.data(), m * k, seed + 2);
        Status st;
        const Quantized q = quantize(d, DType::F32, x.data(), &st);
        ASSERT_TRUE(st) << to_string(st);
        GemmArgs args{a.data(), q.q.data(), nullptr, ref.data(), 1.0, 0.0};
        args.scale_b = q.s.data();
        args.zero_b = zeros ? q.z.data() : nullptr;
        core::reference_gemm_epilogue(d, args);
        const core::ProblemView v = core::make_view(d);
        const core::KScale ks = core::k_scale(d, q.s.data(), q.z.data(), false);
        const std::vector<std::string> kernels = production_kernels(d);
        ASSERT_FALSE(kernels.empty());
        for (const std::string& kn : kernels) {
          args.d = out.data();
          ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = kn.c_str()}));
          ++runs;
          for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              double exact = 0, bound = 0, gauge = 0;
              for (std::int64_t p = 0; p < k; ++p) {
                const double xv = x[p * v.b.row + j * v.b.col], av = a[i * k + p];
                exact += av * xv;
                bound += std::fabs(av) * ks.at(j, p) / 2;
                gauge += std::fabs(av * dequant(d, q, p, j));
              }
              const double got = out[i * n + j];
              EXPECT_LE(std::fabs(got - ref[i * n + j]), 1e-5 * gauge) << kn;
              EXPECT_LE(std::fabs(got - exact), bound + 1e-5 * gauge)
                  << kn << " " << dtype_name(tb) << " zeros " << zeros << " m " << m;
            }
        }
      }
  EXPECT_GE(runs, 12);
}

// Bad input names its argument and writes nothing.
TEST(CpuQuantizeWeights, BadInputIsNamedAndWritesNothing) {
  const std::int64_t n = 4, k = 64;
  std::vector<float> x(n * k, 0.25f);
  auto expect_refused = [&](const GemmDesc& d, const std::vector<float>& src, Arg arg,
                            const char* what, bool with_zeros = true, DType src_t = DType::F32) {
    std::vector<std::uint8_t> q(n * k, 0xAB), s(64, 0xAB), z(64, 0xAB);
    const Status st = quantize_weights(d, {src_t, Layout::RowMajor, 0, 0}, src.data(), q.data(),
                                       s.data(), with_zeros ? z.data() : nullptr);
    EXPECT_EQ(st.code, StatusCode::InvalidValue) << what << ": " << to_string(st);
    EXPECT_EQ(st.arg, arg) << what << ": " << to_string(st);
    for (auto* buf : {&q, &s, &z})
      for (std::uint8_t b : *buf) ASSERT_EQ(b, 0xAB) << what;
  };
  const GemmDesc ok = wq_desc(1, n, k, DType::I4, 32, DType::F16, true, true);
  std::vector<float> nan = x, inf = x, huge = x;
  nan[77] = std::numeric_limits<float>::quiet_NaN();
  inf[5] = -std::numeric_limits<float>::infinity();
  huge[9] = 1e7f;  // s = 1e7 / 15 is past f16's 65504
  expect_refused(ok, nan, Arg::B, "NaN");
  expect_refused(ok, inf, Arg::B, "Inf");
  expect_refused(ok, huge, Arg::ScaleB, "scale overflow");
  expect_refused(ok, x, Arg::ScaleB, "zeros null", false);
  GemmDesc d = ok;
  d.scale_b = {.mode = ScaleMode::Column};
  expect_refused(d, x, Arg::ScaleB, "not group scales");
  d = ok;
  d.b.dtype = DType::E4M3;  // group scales on a floating B
  expect_refused(d, x, Arg::ScaleB, "floating B");
  d = wq_desc(1, n, 48, DType::I8, 32, DType::F32, false, true);
  expect_refused(d, x, Arg::ScaleB, "K % group");
  expect_refused(ok, x, Arg::B, "f64 source", true, DType::F64);
}

// The C ABI's gemmkit_quantize_weights writes what quantize_weights writes; errors by position.
TEST(CpuQuantizeWeights, CAbi) {
  const std::int64_t m = 2, n = 6, k = 128;
  gemmkit_problem p{};
  p.abi_version = GEMMKIT_ABI_VERSION;
  p.trans_a = GEMMKIT_NO_TRANS, p.trans_b = GEMMKIT_TRANS;
  p.m = m, p.n = n, p.k = k, p.batch = 1;
  p.a = {GEMMKIT_F32, GEMMKIT_ROW_MAJOR, 0, 0};
  p.b = {GEMMKIT_I4, GEMMKIT_ROW_MAJOR, 0, 0};
  p.c = p.d = {GEMMKIT_F32, GEMMKIT_ROW_MAJOR, 0, 0};
  p.backend = GEMMKIT_BACKEND_CPU;
  gemmkit_fusion f{};
  f.scale_b.mode = GEMMKIT_SCALE_GROUP;
  f.scale_b.group = 64;
  f.scale_b.dtype = GEMMKIT_BF16;
  f.scale_b.zero_points = 1;
  std::vector<float> x(n * k);
  bench::fill_uniform(DType::F32, x.data(), n * k, 9, -1.0, 3.0);
  std::vector<std::uint8_t> q(n * k / 2), s(2 * n * 2), z(2 * n * 2);
  const gemmkit_matrix src{GEMMKIT_F32, GEMMKIT_ROW_MAJOR, 0, 0};
  gemmkit_status st{};
  ASSERT_EQ(gemmkit_quantize_weights(&p, &f, &src, x.data(), q.data(), s.data(), z.data(), &st), 0)
      << st.message;
  const GemmDesc d = wq_desc(m, n, k, DType::I4, 64, DType::BF16, true, true);
  Status cs;
  const Quantized want = quantize(d, DType::F32, x.data(), &cs);
  ASSERT_TRUE(cs) << to_string(cs);
  EXPECT_EQ(q, want.q);
  EXPECT_EQ(s, want.s);
  EXPECT_EQ(z, want.z);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(gemmkit_quantize_weights(&p, &f, &src, x.data(), q.data(), s.data(), z.data(), &st),
            int(Arg::B));
  EXPECT_EQ(q, want.q);
  EXPECT_EQ(gemmkit_quantize_weights(&p, &f, nullptr, x.data(), q.data(), s.data(), z.data(), &st),
            -int(StatusCode::InvalidValue));
}

}  // namespace
}  // namespace gemmkit
