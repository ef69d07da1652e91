// MXFP4 on the CPU: e2m1 elements (4-bit float, two a byte, low nibble first) with
// one e8m0 scale per 32 consecutive K (OCP Microscaling v1.0), dequantized while packing, against
// the fp64 reference; every e2m1 value; quantize_fp4's shared exponents (X = 2^(floor(log2 amax)
// - 2)); e8m0's extremes; named errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/reference.hpp"
#include "cpu/weight_stream_shape.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/gemmkit.h"
#include "gemmkit/quantize.hpp"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::mx_desc;
using test::production_kernels;

constexpr double kE2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

// Every code decodes to its value and encodes back; ties go to the even code; beyond 6 and Inf
// saturate; NaN gives +0; a negative value that rounds to zero keeps its sign.
TEST(CpuMxfp4, EveryE2m1ValueExactly) {
  for (int c = 0; c < 16; ++c) {
    const double want = (c & 8 ? -1 : 1) * kE2m1[c & 7];
    EXPECT_EQ(e2m1_to_float(std::uint8_t(c)), want) << c;
    EXPECT_EQ(std::signbit(e2m1_to_float(std::uint8_t(c))), (c & 8) != 0) << c;
    EXPECT_EQ(to_e2m1(want), (c == 8 ? 8 : c)) << c;  // -0 keeps its sign
    EXPECT_EQ(e2m1_to_float(std::uint8_t(c | 0xF0)), want) << "only the low nibble counts";
  }
  // Midpoints: 0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4.
  // Off the midpoint the nearest wins: just above goes up, just below goes down.
  const double mid[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5};
  const double even[] = {0, 1, 1, 2, 2, 4, 4};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(e2m1_to_float(to_e2m1(mid[i])), even[i]) << mid[i];
    EXPECT_EQ(e2m1_to_float(to_e2m1(-mid[i])), -even[i]) << -mid[i];
    EXPECT_EQ(e2m1_to_float(to_e2m1(std::nextafter(mid[i], 10.0))), kE2m1[i + 1]) << mid[i];
    EXPECT_EQ(e2m1_to_float(to_e2m1(std::nextafter(mid[i], 0.0))), kE2m1[i]) << mid[i];
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (double big : {6.0, 6.5, 7.0, 1e30, inf}) {
    EXPECT_EQ(to_e2m1(big), 0x7) << big;
    EXPECT_EQ(to_e2m1(-big), 0xF) << -big;
  }
  EXPECT_EQ(to_e2m1(std::nan("")), 0x0);
  EXPECT_EQ(to_e2m1(-0.1), 0x8);
  EXPECT_EQ(to_e2m1(1e-300), 0x0);
}

// Element 2t in the low nibble of byte t, 2t + 1 in the high one; setting one keeps the other.
TEST(CpuMxfp4, NibbleOrder) {
  std::uint8_t buf[2] = {0x00, 0xEE};
  e2m1_set(buf, 0, 0x1);  // 0.5
  e2m1_set(buf, 1, 0x2);  // 1.0
  EXPECT_EQ(buf[0], 0x21);
  EXPECT_EQ(buf[1], 0xEE);
  EXPECT_EQ(e2m1_get(buf, 0), 0.5f);
  EXPECT_EQ(e2m1_get(buf, 1), 1.0f);
  EXPECT_EQ(core::load_element(DType::E2M1, buf, 3), -4.0);  // 0xE: S=1, E=3, M=0
  core::store_element(DType::E2M1, buf, 2, 3.0);
  EXPECT_EQ(buf[1], 0xE5);
  // Through every CPU path: op(A) = [0.5 1] (one byte), B = [1; 10]: 10.5, not 6.
  const GemmDesc d = test::layout_desc(1, 1, 2, DType::E2M1, DType::F32, DType::F32, 0);
  const std::uint8_t a = 0x21;
  const float b[2] = {1.0f, 10.0f};
  std::vector<std::string> kernels = production_kernels(d);
  ASSERT_FALSE(kernels.empty());
  kernels.push_back("cpu.reference");
  for (const std::string& k : kernels) {
    float out = -1.0f;
    ASSERT_TRUE(
        gemm(d, {&a, b, nullptr, &out, 1.0, 0.0}, {.backend = Backend::Cpu, .kernel = k.c_str()}));
    EXPECT_EQ(out, 10.5f) << k;
  }
}

// Residue shapes, MX on A, on B and on both, e2m1 against e2m1 and against e4m3 (MXFP4 x
// MXFP8), every layout bit, K of 1..9 MX blocks (across KC), f32 / bf16 outputs, beta 0 and not.
TEST(CpuMxfp4, ResidueShapesAgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 32},  {2, 3, 64},    {7, 17, 96},  {9, 33, 288},
                          {33, 5, 64}, {16, 64, 256}, {13, 15, 160}};
  int i = 0, failures = 0, runs = 0;
  for (DType other : {DType::E2M1, DType::E4M3})
    for (int which = 0; which < 3; ++which)
      for (const Shape& s : shapes) {
        const int layout = (i * 11) % 32;
        const bool fp4_a = i % 2 == 0;  // the e2m1 operand: A or B
        const GemmDesc d =
            mx_desc(s.m, s.n, s.k, fp4_a ? DType::E2M1 : other, fp4_a ? other : DType::E2M1,
                    i % 3 ? DType::F32 : DType::BF16, layout, which != 1, which != 0);
        bench::HostCase hc =
            bench::HostCase::make(d, i % 4 ? 1.0 : -2.0, i % 2 ? 0.5 : 0.0, seed + i);
        const int here =
            test::run_on_every_kernel(hc, &failures, [&] { return test::mx_name(d, layout); });
        EXPECT_GT(here, 0) << test::shape_name(s.m, s.n, s.k);
        runs += here;
        // The testbed's own verdict (similarity and padding) on the planner's choice.
        const bench::VerifyResult v =
            bench::verify_case(d, 1.0, 0.5, {.backend = Backend::Cpu}, seed + i);
        EXPECT_EQ(v.disposition, bench::Disposition::Passed) << v.cmp.first_failure << v.note;
        ++i;
      }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(runs, 42);
}

// fp4 weights under f32 / bf16 activations (the MXFP4 decode shape): op(B) K-contiguous with
// M <= 16 takes the streaming path (weight_stream.hpp), other shapes the packed one; MX, tensor
// and column scales on B, a row scale on A, beta 0 and not.
TEST(CpuMxfp4, Fp4WeightsStreamedAndPacked) {
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0, streamed = 0;
  for (std::int64_t m : {1, 3, 16, 17})
    for (bool kcontig : {true, false})
      for (ScaleMode sb : {ScaleMode::Mx, ScaleMode::Column, ScaleMode::None}) {
        GemmDesc d{.m = m, .n = 37, .k = 192};
        d.trans_b = kcontig ? Op::Trans : Op::NoTrans;
        d.a = {i % 2 ? DType::BF16 : DType::F32, Layout::RowMajor, 0, 0};
        d.b = {DType::E2M1, Layout::RowMajor, 0, 0};
        d.c = d.d = {i % 3 ? DType::F32 : DType::BF16, Layout::RowMajor, 0, 0};
        d.scale_b.mode = sb;
        if (sb == ScaleMode::Mx) d.scale_b.dtype = DType::E8M0;
        if (i % 4 == 1) d.scale_a.mode = ScaleMode::Row;
        d = with_default_lds(d);
        streamed += cpu::weight_stream_applies(d);
        EXPECT_EQ(cpu::weight_stream_applies(d), kcontig && m <= 16) << m << " " << kcontig;
        bench::HostCase hc = bench::HostCase::make(d, 1.0, i % 2 ? 0.5 : 0.0, seed + i);
        test::run_on_every_kernel(hc, &failures, [&] {
          return "m " + std::to_string(m) + " kcontig " + std::to_string(kcontig) + " scale_b " +
                 std::to_string(int(sb));
        });
        ++i;
      }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(streamed, 9);
}

// Every e2m1 code through the streaming path's own decode (weight_stream.hpp computes the value
// from its bits): A = [I I] picks op(B)(i, 0) + op(B)(i + 16, 0), codes i and 15 - i, times the
// MX scale 2^-3, exactly.
TEST(CpuMxfp4, EveryCodeThroughTheStream) {
  GemmDesc d{.m = 16, .n = 1, .k = 32};
  d.trans_b = Op::Trans;
  d.a = {DType::F32, Layout::RowMajor, 0, 0};
  d.b = {DType::E2M1, Layout::RowMajor, 0, 0};
  d.c = d.d = {DType::F32, Layout::RowMajor, 0, 0};
  d.scale_b = {.mode = ScaleMode::Mx, .dtype = DType::E8M0};
  d = with_default_lds(d);
  ASSERT_TRUE(cpu::weight_stream_applies(d));
  std::vector<float> a(16 * 32, 0.0f);
  for (int i = 0; i < 16; ++i) a[i * 32 + i] = a[i * 32 + 16 + i] = 1.0f;
  std::vector<std::uint8_t> b(16);
  for (int p = 0; p < 32; ++p) e2m1_set(b.data(), p, std::uint8_t(p < 16 ? p : 31 - p));
  const std::uint8_t scale = 127 - 3;
  for (const std::string& k : production_kernels(d)) {
    std::vector<float> out(16, -1.0f);
    GemmArgs args{a.data(), b.data(), nullptr, out.data(), 1.0, 0.0};
    args.scale_b = &scale;
    ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = k.c_str()}));
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(out[i], (e2m1_to_float(std::uint8_t(i)) + e2m1_to_float(std::uint8_t(15 - i))) / 8)
          << k << " code " << i;
  }
}

// quantize_fp4 with MX scales: code = floor(log2 amax) - 2 + 127 for each 32-group, the
// elements are to_e2m1(x / X) bit for bit (nearest even, 6 where x / X passes it), a zero group
// gets 1, a NaN group a NaN scale (0xFF), an Inf saturates in a group of scale 1.
TEST(CpuMxfp4, QuantizeSharedExponents) {
  const std::int64_t m = 3, k = 128;
  std::vector<float> x(m * k);
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < m; ++i)
      x[p * m + i] = float(std::ldexp(1.0 + 0.03 * double(p % 32), int(i * 9) - 12 + int(p / 32)) *
                           (p % 3 ? 1 : -1));
  for (std::int64_t p = 64; p < 96; ++p) x[p * m + 2] = 0.0f;  // row 2, group 2: zero
  x[100 * m + 1] = std::numeric_limits<float>::quiet_NaN();    // row 1, group 3: NaN
  x[101 * m + 0] = std::numeric_limits<float>::infinity();     // row 0, group 3: Inf
  const GemmDesc d = mx_desc(m, 1, k, DType::E2M1, DType::E2M1, DType::F32, 0, true, false);
  std::vector<std::uint8_t> q(m * k / 2, 0xAA), s(m * 4, 0xAA);
  ASSERT_TRUE(
      quantize_fp4(d, Arg::A, {DType::F32, Layout::ColMajor, 0, 0}, x.data(), q.data(), s.data()));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t g = 0; g < 4; ++g) {
      const std::uint8_t code = s[g * m + i];  // S_A column-major, ld = M
      double amax = 0;
      bool nan = false, inf = false;
      for (std::int64_t p = g * 32; p < g * 32 + 32; ++p) {
        nan |= std::isnan(x[p * m + i]), inf |= std::isinf(x[p * m + i]);
        if (std::isfinite(x[p * m + i])) amax = std::max(amax, std::fabs(double(x[p * m + i])));
      }
      const int want = nan ? 0xFF : inf || amax == 0 ? 127 : std::ilogb(amax) - 2 + 127;
      EXPECT_EQ(int(code), want) << i << "," << g;
      for (std::int64_t p = g * 32; p < g * 32 + 32; ++p) {
        const std::uint8_t got = static_cast<std::uint8_t>(
            ((p * m + i) & 1) ? q[(p * m + i) / 2] >> 4 : q[(p * m + i) / 2] & 0xF);
        EXPECT_EQ(got, to_e2m1(double(x[p * m + i]) / e8m0_to_float(code))) << i << "," << p;
      }
    }
  EXPECT_EQ(q[(101 * m) / 2] >> 4 & 0x7, 0x7) << "Inf saturates to 6";
  // Without a scale a NaN has nowhere to go: refused, nothing written.
  GemmDesc none = d;
  none.scale_a = {};
  std::vector<std::uint8_t> q2(q.size(), 0xAA);
  const Status st = quantize_fp4(none, Arg::A, {DType::F32, Layout::ColMajor, 0, 0}, x.data(),
                                 q2.data(), nullptr);
  EXPECT_EQ(st.code, StatusCode::InvalidValue);
  EXPECT_EQ(st.arg, Arg::A) << to_string(st);
  for (std::uint8_t v : q2) EXPECT_EQ(v, 0xAA);
}

// e8m0's extremes with e2m1 elements: code 0 is 2^-127, 254 is 2^127, 0xFF is NaN (its row is
// NaN), exactly as the reference, on every kernel.
TEST(CpuMxfp4, E8m0ExtremesWithE2m1) {
  const GemmDesc d = mx_desc(4, 3, 64, DType::E2M1, DType::E2M1, DType::F32, 0, true, false);
  std::vector<std::uint8_t> a(4 * 64 / 2, 0x22), b(64 * 3 / 2, 0x22);     // every element 1.0
  std::vector<std::uint8_t> s = {0, 254, 0xFF, 127, 127, 127, 127, 127};  // S_A 4 x 2
  std::vector<float> want(12), got(12);
  GemmArgs args{a.data(), b.data(), nullptr, want.data(), 1.0, 0.0};
  args.scale_a = s.data();
  core::reference_gemm_epilogue(d, args);
  EXPECT_EQ(want[0], float(32 * std::ldexp(1.0, -127) + 32));
  EXPECT_EQ(want[1], float(32 * std::ldexp(1.0, 127) + 32));
  EXPECT_TRUE(std::isnan(want[2]));
  EXPECT_EQ(want[3], 64.0f);
  const std::vector<std::string> kernels = production_kernels(d);
  ASSERT_FALSE(kernels.empty());
  for (const std::string& k : kernels) {
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

// A sub-byte operand with an odd batch stride starts its second entry mid-byte: the packed
// kernels refuse it, the reference computes it (the front door's answer is the reference's).
TEST(CpuMxfp4, OddBatchStrideTakesTheReference) {
  GemmDesc d = test::layout_desc(3, 2, 3, DType::E2M1, DType::F32, DType::F32, 0);
  d.batch = 2;
  d = core::with_packed_batch_strides(with_default_lds(d));
  ASSERT_EQ(d.a.batch_stride % 2, 1);
  EXPECT_TRUE(production_kernels(d).empty());
  const bench::VerifyResult v =
      bench::verify_case(d, 1.0, 0.0, {.backend = Backend::Cpu}, test::test_seed());
  EXPECT_EQ(v.disposition, bench::Disposition::Passed) << v.cmp.first_failure << v.note;
}

TEST(CpuMxfp4, BadDescriptorsAreNamed) {
  std::vector<test::BadDesc> bad;
  auto base = [] { return mx_desc(4, 4, 64, DType::E2M1, DType::E2M1, DType::F32, 0); };
  GemmDesc d = mx_desc(4, 4, 80, DType::E2M1, DType::E2M1, DType::F32, 0);
  bad.push_back({"K % 32 (A first)", d, Arg::ScaleA, "not a multiple of the MX block 32"});
  d = mx_desc(4, 4, 80, DType::E2M1, DType::E2M1, DType::F32, 0, false, true);
  bad.push_back({"K % 32 (B)", d, Arg::ScaleB, "not a multiple of the MX block 32"});
  d = base();
  d.scale_b.dtype = DType::F32;
  bad.push_back({"f32 MX scales", d, Arg::ScaleB, "e8m0 for MX"});
  d = base();
  d.d.dtype = d.c.dtype = DType::E2M1;
  bad.push_back({"e2m1 output", d, Arg::DTypeC, "output type"});
  d = base();
  d.scale_a.ld = 2;  // S_A is 4 x 2 column-major: ld >= 4
  bad.push_back({"ld of S_A", d, Arg::ScaleA, "ld"});
  std::vector<std::uint8_t> a(4 * 80, 0x22), b(80 * 4, 0x22), s(64, 127);
  std::vector<float> out(16, -1.0f);
  GemmArgs args{a.data(), b.data(), nullptr, out.data(), 1.0, 0.0};
  args.scale_a = s.data(), args.scale_b = s.data();
  test::expect_named(bad, args);
  for (float v : out) EXPECT_EQ(v, -1.0f);
  // quantize_fp4 writes e2m1 only; quantize_fp8 does not write e2m1.
  std::vector<float> x(4 * 64, 1.0f);
  GemmDesc e4 = mx_desc(4, 4, 64, DType::E4M3, DType::E4M3, DType::F32, 0);
  EXPECT_EQ(quantize_fp4(e4, Arg::A, {}, x.data(), a.data(), s.data()).arg, Arg::DTypeA);
  EXPECT_EQ(quantize_fp8(base(), Arg::B, {}, x.data(), b.data(), s.data()).arg, Arg::DTypeB);
  for (std::uint8_t v : a) EXPECT_EQ(v, 0x22);
  for (std::uint8_t v : b) EXPECT_EQ(v, 0x22);
}

// The C ABI: GEMMKIT_E2M1 operands, gemmkit_quantize_fp4 and gemmkit_gemm_fused give what the
// C++ API gives, bit for bit.
TEST(CpuMxfp4, CAbiQuantizeAndGemm) {
  const std::int64_t m = 5, n = 6, k = 96;
  gemmkit_problem p{};
  p.abi_version = GEMMKIT_ABI_VERSION;
  p.trans_a = GEMMKIT_NO_TRANS, p.trans_b = GEMMKIT_TRANS;
  p.m = m, p.n = n, p.k = k, p.batch = 1;
  p.a = {GEMMKIT_E2M1, GEMMKIT_COL_MAJOR, 0, 0};
  p.b = {GEMMKIT_E2M1, GEMMKIT_COL_MAJOR, 0, 0};
  p.c = p.d = {GEMMKIT_F32, GEMMKIT_COL_MAJOR, 0, 0};
  p.backend = GEMMKIT_BACKEND_CPU;
  gemmkit_fusion f{};
  f.scale_a.mode = f.scale_b.mode = GEMMKIT_SCALE_MX;
  f.scale_a.dtype = f.scale_b.dtype = GEMMKIT_E8M0;
  std::vector<float> xa(m * k), xb(k * n), out(m * n, -1.0f), want(m * n, -2.0f);
  bench::fill_uniform(DType::F32, xa.data(), m * k, 3);
  bench::fill_uniform(DType::F32, xb.data(), k * n, 4);
  std::vector<std::uint8_t> a(m * k / 2), b(k * n / 2), sa(m * 3), sb(3 * n);
  const gemmkit_matrix f32{GEMMKIT_F32, GEMMKIT_COL_MAJOR, 0, 0};
  gemmkit_status st{};
  ASSERT_EQ(gemmkit_quantize_fp4(&p, &f, 0, &f32, xa.data(), a.data(), sa.data(), &st), 0)
      << st.message;
  ASSERT_EQ(gemmkit_quantize_fp4(&p, &f, 1, &f32, xb.data(), b.data(), sb.data(), &st), 0)
      << st.message;
  f.scale_a.values = sa.data();
  f.scale_b.values = sb.data();
  ASSERT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 0)
      << st.message;
  GemmDesc d = mx_desc(m, n, k, DType::E2M1, DType::E2M1, DType::F32, 2);
  GemmArgs args{a.data(), b.data(), nullptr, want.data(), 1.0, 0.0};
  args.scale_a = sa.data(), args.scale_b = sb.data();
  ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu}));
  for (std::int64_t e = 0; e < m * n; ++e) EXPECT_EQ(out[e], want[e]) << e;
  // fp4's error against the unquantized f32 product: well under 30% (one mantissa bit).
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double w = 0;
      for (std::int64_t q = 0; q < k; ++q) w += double(xa[q * m + i]) * xb[q * n + j];
      num += (out[j * m + i] - w) * (out[j * m + i] - w), den += w * w;
    }
  EXPECT_LT(std::sqrt(num / den), 0.3);
  p.k = 80;  // K % 32: position 34, scale_a
  EXPECT_EQ(gemmkit_can_implement_fused(&p, &f, &st), 34);
}

}  // namespace
}  // namespace gemmkit
