// Weight-only GEMMs on the CPU: f32 / bf16 / fp16 activations A,
// i8 or i4 weights B (two a byte, low nibble first, sign-extended) with per-group scales along K
// (32, 64, 128; f32 / f16 / bf16) and optional zero points, w = (q - z) * s. The streaming path
// (weight_stream.hpp: M <= 16, K-contiguous B) and the packed path (dequantize while packing)
// against the fp64 reference; the front door's named errors; the C ABI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/view.hpp"
#include "cpu/weight_stream_shape.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/gemmkit.h"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::production_kernels;

// A weight-only problem. kcontig: op(B) K-contiguous (B stored N x K row-major, trans_b: the
// streaming layout), else N-contiguous (B stored K x N row-major: the packed path).
GemmDesc wo_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType ta, DType tb, DType out,
                 bool kcontig, ScaleMode sb = ScaleMode::Group, std::int64_t group = 128,
                 DType sdt = DType::F32, bool zeros = false) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_b = kcontig ? Op::Trans : Op::NoTrans;
  d.a = {ta, Layout::RowMajor, 0, 0};
  d.b = {tb, Layout::RowMajor, 0, 0};
  d.c = d.d = {out, Layout::RowMajor, 0, 0};
  d.compute = DType::F32;
  d.scale_b.mode = sb;
  if (sb == ScaleMode::Group) {
    d.scale_b.group = group;
    d.scale_b.dtype = sdt;
    d.scale_b.zero_points = zeros;
  }
  return with_default_lds(d);
}

// ---------------------------------------------------------------- int4 nibble order and sign

// One-hot rows of A pick single elements of B: element 2t of the stored matrix is the low
// nibble of byte t and 2t + 1 the high one, both two's complement (0x8 = -8, 0xF = -1).
TEST(CpuWeightOnly, Int4NibbleOrderAndSign) {
  const std::int64_t k = 64, n = 3;
  for (bool kcontig : {true, false}) {
    const GemmDesc d =
        wo_desc(k, n, k, DType::F32, DType::I4, DType::F32, kcontig, ScaleMode::None);
    std::vector<std::uint8_t> b(k * n / 2);
    for (std::size_t t = 0; t < b.size(); ++t) b[t] = static_cast<std::uint8_t>(t * 29 + 0x7F);
    b[0] = 0x7F;  // elements 0, 1: -1, 7
    b[1] = 0x80;  // elements 2, 3: 0, -8
    b[2] = 0x19;  // elements 4, 5: -7, 1
    std::vector<float> a(k * k, 0.0f), out(k * n, 99.0f);
    for (std::int64_t i = 0; i < k; ++i) a[i * k + i] = 1.0f;  // A = I: D = op(B)
    const core::ProblemView v = core::make_view(d);
    for (const std::string& kn : production_kernels(d)) {
      ASSERT_TRUE(gemm(d, {a.data(), b.data(), nullptr, out.data(), 1.0, 0.0},
                       {.backend = Backend::Cpu, .kernel = kn.c_str()}));
      for (std::int64_t p = 0; p < k; ++p)
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t e = p * v.b.row + j * v.b.col;  // stored element of op(B)(p, j)
          const int byte = b[e / 2];
          const int nib = e % 2 ? byte >> 4 : byte & 0xF;
          const int want = nib >= 8 ? nib - 16 : nib;
          ASSERT_EQ(int4_get(b.data(), e), want);
          ASSERT_EQ(out[p * n + j], float(want)) << kn << " op(B)(" << p << "," << j << ")";
        }
      EXPECT_EQ(out[0 * n + 0], kcontig ? -1.0f : -1.0f);
    }
    // The hand-written codes, stored element by element.
    EXPECT_EQ(int4_get(b.data(), 0), -1);
    EXPECT_EQ(int4_get(b.data(), 1), 7);
    EXPECT_EQ(int4_get(b.data(), 2), 0);
    EXPECT_EQ(int4_get(b.data(), 3), -8);
    EXPECT_EQ(int4_get(b.data(), 4), -7);
    EXPECT_EQ(int4_get(b.data(), 5), 1);
  }
}

// ---------------------------------------------------------------- exact small integers

// Small integers in A, power-of-two group scales and integer zero points: every product and
// sum is exact in f32, so D equals the reference exactly, on both paths and both widths.
TEST(CpuWeightOnly, ExactSmallIntegers) {
  for (DType tb : {DType::I8, DType::I4})
    for (bool kcontig : {true, false})
      for (std::int64_t m : {1, 7, 16, 20}) {
        const std::int64_t n = 37, k = 256;
        const GemmDesc d = wo_desc(m, n, k, DType::F32, tb, DType::F32, kcontig, ScaleMode::Group,
                                   64, DType::F16, true);
        std::vector<float> a(m * k);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 5 % 7) - 3);
        std::vector<std::uint8_t> b(k * n);
        const int lo = tb == DType::I4 ? -8 : -100, span = tb == DType::I4 ? 16 : 201;
        for (std::int64_t e = 0; e < k * n; ++e)
          core::store_element(tb, b.data(), e, double(lo + int(e * 13 % span)));
        const std::int64_t groups = k / 64 * n;
        std::vector<std::uint16_t> s(groups), z(groups);
        for (std::int64_t g = 0; g < groups; ++g) {
          s[g] = to_f16(std::ldexp(1.0, int(g % 3) - 1));  // 0.5, 1, 2
          z[g] = to_f16(double(int(g % 5) - 2));
        }
        std::vector<float> want(m * n), got(m * n);
        GemmArgs args{a.data(), b.data(), nullptr, want.data(), 1.0, 0.0};
        args.scale_b = s.data();
        args.zero_b = z.data();
        core::reference_gemm_epilogue(d, args);
        for (const std::string& kn : production_kernels(d)) {
          args.d = got.data();
          std::fill(got.begin(), got.end(), -1.0f);
          ASSERT_TRUE(gemm(d, args, {.backend = Backend::Cpu, .kernel = kn.c_str()})) << kn;
          EXPECT_EQ(got, want) << kn << " " << dtype_name(tb) << " m=" << m
                               << (kcontig ? " K-contiguous" : " N-contiguous");
        }
      }
}

// The streaming path takes the decode shapes it was written for, and only those.
TEST(CpuWeightOnly, StreamingPathShapes) {
  EXPECT_TRUE(
      cpu::weight_stream_applies(wo_desc(1, 4096, 4096, DType::F32, DType::I4, DType::F32, true)));
  EXPECT_TRUE(cpu::weight_stream_applies(
      wo_desc(16, 100, 256, DType::BF16, DType::I8, DType::BF16, true, ScaleMode::Column)));
  EXPECT_FALSE(
      cpu::weight_stream_applies(wo_desc(17, 100, 256, DType::F32, DType::I8, DType::F32, true)));
  EXPECT_FALSE(
      cpu::weight_stream_applies(wo_desc(4, 100, 256, DType::F32, DType::I8, DType::F32, false)));
  GemmDesc odd = wo_desc(4, 100, 256, DType::F32, DType::I4, DType::F32, true);
  odd.b.ld = 257;  // i4 columns starting mid-byte: the packed path
  EXPECT_FALSE(cpu::weight_stream_applies(odd));
  EXPECT_FALSE(cpu::weight_stream_applies(
      wo_desc(4, 100, 256, DType::F32, DType::F32, DType::F32, true, ScaleMode::None)));
}

// ---------------------------------------------------------------- every scale mode

// i8 / i4 x f32 / bf16 / fp16 activations x scale of B {none, tensor, column, group 32 / 64 /
// 128 in f32 / f16 / bf16, with and without zero points} x both paths, on residue shapes
// (M around the 16-row limit and the tile, N around the 4-column block), beta 0 (C unread)
// and != 0, some with a row scale of A and a bias + GELU; against the fp64 reference.
TEST(CpuWeightOnly, EveryScaleModeAgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  struct Mode {
    ScaleMode mode;
    std::int64_t group;
    DType dtype;
    bool zeros;
  };
  const Mode modes[] = {
      {ScaleMode::None, 0, DType::F32, false},   {ScaleMode::Tensor, 0, DType::F32, false},
      {ScaleMode::Column, 0, DType::F32, false}, {ScaleMode::Group, 32, DType::F32, false},
      {ScaleMode::Group, 64, DType::F16, true},  {ScaleMode::Group, 128, DType::BF16, true},
      {ScaleMode::Group, 128, DType::F32, true}, {ScaleMode::Group, 32, DType::BF16, false}};
  const std::int64_t ms[] = {1, 2, 5, 16, 17, 40};
  const std::int64_t ns[] = {1, 3, 4, 5, 33, 70};
  const DType acts[] = {DType::F32, DType::BF16, DType::F16};
  int i = 0, failures = 0, runs = 0;
  for (DType tb : {DType::I8, DType::I4})
    for (const Mode& md : modes)
      for (bool kcontig : {true, false})
        for (int rep = 0; rep < 2; ++rep) {
          const std::int64_t m = ms[i % 6], n = ns[(i / 2) % 6], k = 128 * (1 + i % 3);
          const DType ta = acts[i % 3];
          const DType out = ta == DType::F16    ? DType::F16
                            : ta == DType::BF16 ? DType::BF16
                                                : DType::F32;
          GemmDesc d =
              wo_desc(m, n, k, ta, tb, out, kcontig, md.mode, md.group, md.dtype, md.zeros);
          const bool fused = i % 4 == 3;
          if (fused) {
            d.scale_a.mode = ScaleMode::Row;
            d.epilogue = {
                .bias = BiasMode::Column, .bias_dtype = DType::F32, .act = Activation::GeluTanh};
          }
          const double beta = rep ? 0.6 : 0.0;
          bench::HostCase hc = bench::HostCase::make(d, i % 5 == 0 ? -0.7 : 1.0, beta, seed + i);
          std::vector<float> bias(n);
          bench::fill_uniform(DType::F32, bias.data(), n, seed + i + 100);
          const auto what = [&] {
            std::ostringstream os;
            os << dtype_name(ta) << " x " << dtype_name(tb) << " scale_b " << int(md.mode)
               << " group " << md.group << " " << dtype_name(md.dtype) << (md.zeros ? " zeros" : "")
               << (fused ? " +row scale, bias, gelu" : "") << " " << m << "x" << n << "x" << k
               << (kcontig ? " K-contiguous" : " N-contiguous") << " beta " << beta;
            return os.str();
          };
          runs += test::run_on_every_kernel(hc, &failures, what, fused ? bias.data() : nullptr);
          ++i;
        }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(runs, 2 * 8 * 2 * 2 * 2);  // the SIMD kernel(s) and the portable one
}

// The check can fail: zero points ignored (what a kernel that dropped them gives) are caught.
TEST(CpuWeightOnly, TheCheckSeesIgnoredZeroPoints) {
  for (bool kcontig : {true, false}) {
    const GemmDesc d = wo_desc(4, 20, 256, DType::F32, DType::I4, DType::F32, kcontig,
                               ScaleMode::Group, 64, DType::F32, true);
    bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, test::test_seed());
    std::vector<std::uint8_t> got = hc.d;
    GemmDesc no_zeros = hc.desc;
    no_zeros.scale_b.zero_points = false;
    GemmArgs args = hc.args();
    args.d = got.data();
    ASSERT_TRUE(gemm(no_zeros, args, {.backend = Backend::Cpu}));
    EXPECT_NE(test::check_d(hc, got), "") << kcontig;
  }
}

// ---------------------------------------------------------------- the front door

TEST(CpuWeightOnly, BadDescriptorsAreNamed) {
  auto base = [] {
    return wo_desc(4, 8, 256, DType::F32, DType::I4, DType::F32, true, ScaleMode::Group, 128,
                   DType::F16, true);
  };
  std::vector<test::BadDesc> bad;
  GemmDesc d = base();
  d.scale_b.group = 48;
  bad.push_back({"group 48", d, Arg::ScaleB});
  d = base();
  d.k = 192;  // not a multiple of 128
  d = with_default_lds(d);
  bad.push_back({"K % group", d, Arg::ScaleB});
  d = base();
  d.scale_b.dtype = DType::I8;
  bad.push_back({"scale dtype", d, Arg::ScaleB});
  d = base();
  d.scale_b.mode = ScaleMode::Column;  // zero points without groups
  bad.push_back({"zero points without groups", d, Arg::ScaleB});
  d = base();
  d.scale_a.mode = ScaleMode::Group;
  bad.push_back({"group scale of A", d, Arg::ScaleA});
  d = base();
  d.b.dtype = DType::BF16;
  bad.push_back({"group scale of a floating B", d, Arg::ScaleB});
  d = base();
  d.a.dtype = DType::I8;
  d.b.dtype = DType::F32;
  d.scale_b = {};
  bad.push_back({"integer A, floating B", d, Arg::DTypeB});
  d = base();
  d.a.dtype = DType::E4M3;
  bad.push_back({"fp8 A with integer weights", d, Arg::DTypeB});
  d = base();
  d.scale_b.ld = 1;  // S_B is 2 x 8 column-major: ld >= 2
  bad.push_back({"ld of S_B", d, Arg::ScaleB});
  d = base();
  d.d.dtype = d.c.dtype = DType::I32;
  bad.push_back({"i32 output", d, Arg::DTypeD});
  std::vector<float> a(4 * 256, 1.0f), out(32, -5.0f);
  std::vector<std::uint8_t> b(256 * 8 / 2, 0x11);
  std::vector<std::uint16_t> s(16, to_f16(1.0)), z(16, 0);
  GemmArgs args{a.data(), b.data(), nullptr, out.data(), 1.0, 0.0};
  args.scale_b = s.data(), args.zero_b = z.data();
  test::expect_named(bad, args);
  args.zero_b = nullptr;
  EXPECT_EQ(gemm(base(), args, {.backend = Backend::Cpu}).arg, Arg::ScaleB);  // zero_b null
  args.zero_b = out.data() + 30;
  EXPECT_EQ(gemm(base(), args, {.backend = Backend::Cpu}).arg, Arg::D);  // D over zero_b
  for (float v : out) EXPECT_EQ(v, -5.0f);
  args.zero_b = z.data();
  EXPECT_TRUE(gemm(base(), args, {.backend = Backend::Cpu}));
  EXPECT_EQ(out[0], 256.0f);  // 0x11: every element 1, scale 1, zero 0
}

// ---------------------------------------------------------------- the C ABI

TEST(CpuWeightOnly, CAbi) {
  const std::int64_t m = 3, n = 5, k = 64;
  gemmkit_problem p{};
  p.abi_version = GEMMKIT_ABI_VERSION;
  p.trans_a = GEMMKIT_NO_TRANS;
  p.trans_b = GEMMKIT_TRANS;
  p.m = m, p.n = n, p.k = k, p.batch = 1;
  p.a = {GEMMKIT_F32, GEMMKIT_ROW_MAJOR, 0, 0};
  p.b = {GEMMKIT_I8, GEMMKIT_ROW_MAJOR, 0, 0};
  p.c = p.d = {GEMMKIT_F32, GEMMKIT_ROW_MAJOR, 0, 0};
  p.backend = GEMMKIT_BACKEND_CPU;
  std::vector<float> a(m * k, 1.0f), s(2 * n, 0.5f), z(2 * n, 1.0f), out(m * n, 0.0f);
  std::vector<std::int8_t> b(n * k, 3);
  gemmkit_fusion f{};
  f.scale_b.mode = GEMMKIT_SCALE_GROUP;
  f.scale_b.group = 32;
  f.scale_b.zero_points = 1;
  f.scale_b.values = s.data();
  f.scale_b.zero = z.data();
  gemmkit_status st{};
  ASSERT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 0)
      << st.message;
  for (float v : out) EXPECT_EQ(v, 64.0f);  // 64 * (3 - 1) * 0.5
  f.scale_b.group = 40;
  EXPECT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 35);
  f.scale_b.group = 32;
  f.scale_b.dtype = GEMMKIT_F16;  // f16 scales: 0x3800 = 0.5
  std::vector<std::uint16_t> s16(2 * n, 0x3800), z16(2 * n, 0x3C00);
  f.scale_b.values = s16.data();
  f.scale_b.zero = z16.data();
  ASSERT_EQ(gemmkit_gemm_fused(&p, &f, a.data(), b.data(), nullptr, out.data(), 1.0, 0.0, &st), 0)
      << st.message;
  for (float v : out) EXPECT_EQ(v, 64.0f);
}

}  // namespace
}  // namespace gemmkit
