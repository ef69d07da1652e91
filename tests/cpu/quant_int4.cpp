// int4 x int4 -> int32 on the CPU (exact): two values a byte, element 2t of
// the stored matrix in the low nibble of byte t, sign-extended; unpacked to i32 while packing
// into the integer kernels (VNNI where the CPU has it); exact, against the fp64 reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/element.hpp"
#include "core/reference.hpp"
#include "core/view.hpp"
#include "gemmkit/convert.hpp"
#include "support/oracle.hpp"
#include "support/quant_case.hpp"

namespace gemmkit {
namespace {

using test::production_kernels;

GemmDesc i4_desc(std::int64_t m, std::int64_t n, std::int64_t k, int layout, DType ta = DType::I4,
                 DType tb = DType::I4) {
  GemmDesc d = test::layout_desc(m, n, k, ta, tb, DType::I32, layout);
  d = with_default_lds(d);
  d.a.ld += 2 * (layout % 2);  // even pads keep i4 lines on bytes; odd ones start mid-byte
  d.b.ld += layout % 3;
  return d;
}

std::vector<std::uint8_t> fill_i4(std::int64_t elements, std::uint64_t seed) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>((elements + 1) / 2 + 8), 0);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t e = 0; e < elements; ++e) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int4_set(v.data(), e, int(x % 16) - 8);  // the whole range -8..7
  }
  return v;
}

// Every production kernel that takes int4, on residue shapes around the 8 x 32 / 4 x 16 tiles,
// every layout bit (odd leading dimensions: lines starting mid-byte), alpha and beta integers,
// with the whole -8..7 range: D equals the reference exactly.
TEST(CpuInt4, ExactAgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 1}, {7, 31, 33}, {9, 33, 64}, {17, 5, 257}, {64, 64, 128}};
  int i = 0, runs = 0;
  for (const Shape& s : shapes)
    for (int layout : {0, 5, 10, 19, 31}) {
      const GemmDesc d = i4_desc(s.m, s.n, s.k, layout, DType::I4, i % 3 ? DType::I4 : DType::I8);
      const Extent ea = stored_extent_a(d), eb = stored_extent_b(d);
      const std::vector<std::uint8_t> a =
          fill_i4(core::footprint(d.a.layout, ea, d.a.ld), seed + i);
      std::vector<std::uint8_t> b;
      if (d.b.dtype == DType::I4) {
        b = fill_i4(core::footprint(d.b.layout, eb, d.b.ld), seed + i + 50);
      } else {
        b.resize(core::footprint(d.b.layout, eb, d.b.ld));
        for (std::size_t e = 0; e < b.size(); ++e) b[e] = std::uint8_t(e * 97 + i);
      }
      std::vector<std::int32_t> c(s.m * s.n), want(s.m * s.n), got(s.m * s.n);
      for (std::size_t e = 0; e < c.size(); ++e) c[e] = std::int32_t(e % 11) - 5;
      const double alpha = i % 2 ? -3 : 1, beta = i % 4 == 1 ? 0 : 2;
      core::reference_gemm(d, {a.data(), b.data(), c.data(), want.data(), alpha, beta});
      const auto kernels = production_kernels(d);
      ASSERT_FALSE(kernels.empty()) << "no production kernel takes int4";
      for (const std::string& k : kernels) {
        std::fill(got.begin(), got.end(), 12345);
        ASSERT_TRUE(gemm(d, {a.data(), b.data(), c.data(), got.data(), alpha, beta},
                         {.backend = Backend::Cpu, .kernel = k.c_str()}))
            << k;
        EXPECT_EQ(got, want) << k << " " << s.m << "x" << s.n << "x" << s.k << " layout " << layout
                             << " B " << dtype_name(d.b.dtype);
        ++runs;
      }
      ++i;
    }
  EXPECT_GE(runs, 25 * 2);
}

// Nibble order and sign in A: B = I picks op(A) itself, element 2t from the low and 2t + 1 from
// the high nibble of byte t, 0x8 -> -8 and 0xF -> -1.
TEST(CpuInt4, NibbleOrderAndSignOfA) {
  const std::int64_t m = 6, k = 6;
  GemmDesc d = i4_desc(m, k, k, 4);  // A row-major 6 x 6: byte t holds A(2t / 6, 2t % 6 ..)
  d.b.ld = k;                        // B = I, packed
  std::vector<std::uint8_t> a(m * k / 2);
  for (std::size_t t = 0; t < a.size(); ++t) a[t] = std::uint8_t(0x8F - 0x11 * t);
  std::vector<std::uint8_t> b((k * k + 1) / 2, 0);
  for (std::int64_t p = 0; p < k; ++p) int4_set(b.data(), p * k + p, 1);  // identity
  std::vector<std::int32_t> got(m * k, 99);
  for (const std::string& kn : production_kernels(d)) {
    ASSERT_TRUE(gemm(d, {a.data(), b.data(), nullptr, got.data(), 1.0, 0.0},
                     {.backend = Backend::Cpu, .kernel = kn.c_str()}));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t p = 0; p < k; ++p) {
        const std::int64_t e = i * k + p;
        const int byte = a[e / 2], nib = e % 2 ? byte >> 4 : byte & 0xF;
        EXPECT_EQ(got[p * m + i], nib >= 8 ? nib - 16 : nib) << kn << " A(" << i << "," << p << ")";
      }
  }
  EXPECT_EQ(int4_get(a.data(), 0), -1);  // 0x8F: low 0xF = -1, high 0x8 = -8
  EXPECT_EQ(int4_get(a.data(), 1), -8);
}

}  // namespace
}  // namespace gemmkit
