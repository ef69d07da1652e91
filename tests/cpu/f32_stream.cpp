// The SIMD sgemms' streaming path for few rows (weight_stream.hpp, Weights::F32): which shapes
// take it, and every one of them against the fp64 reference, through the AVX2 and the AVX-512
// kernel (each where the CPU has it): M = 2..16 (AVX-512: 4 rows at a time, AVX2: 2, then 1),
// N around the block of 4 columns (the last block copied, the others read in place), K over
// one and several chunks of 512, both K-contiguous layouts of op(B), alpha, beta, 1 and 2
// threads.
#include <gtest/gtest.h>

#include "bench/testbed.hpp"
#include "cpu/weight_stream_shape.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

GemmDesc f32_desc(std::int64_t m, std::int64_t n, std::int64_t k, bool b_kcontig, int i) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_b = (i & 1) ? Op::Trans : Op::NoTrans;
  // op(B) K-contiguous: column-major B, or row-major B taken transposed.
  const bool col = (d.trans_b == Op::NoTrans) == b_kcontig;
  d.b.layout = col ? Layout::ColMajor : Layout::RowMajor;
  d.a.layout = (i & 2) ? Layout::RowMajor : Layout::ColMajor;
  d.c.layout = d.d.layout = (i & 4) ? Layout::RowMajor : Layout::ColMajor;
  d = with_default_lds(d);
  d.b.ld += i % 3;
  return d;
}

TEST(CpuF32Stream, WhichShapes) {
  EXPECT_TRUE(cpu::f32_stream_applies(f32_desc(16, 4096, 4096, true, 0)));
  EXPECT_TRUE(cpu::f32_stream_applies(f32_desc(2, 100, 64, true, 1)));
  EXPECT_FALSE(cpu::f32_stream_applies(f32_desc(1, 4096, 4096, true, 0)));   // the GEMV
  EXPECT_FALSE(cpu::f32_stream_applies(f32_desc(17, 4096, 4096, true, 0)));  // packed
  EXPECT_FALSE(cpu::f32_stream_applies(f32_desc(16, 4096, 4096, false, 0)));
  EXPECT_FALSE(cpu::f32_stream_applies(f32_desc(16, 4096, 4000 + 1, true, 0)));
  GemmDesc f64 = f32_desc(16, 64, 64, true, 0);
  f64.a.dtype = f64.b.dtype = f64.c.dtype = f64.d.dtype = f64.compute = DType::F64;
  EXPECT_FALSE(cpu::f32_stream_applies(f64));
}

class CpuF32StreamRows : public ::testing::TestWithParam<const char*> {};

TEST_P(CpuF32StreamRows, EveryRowCountAgainstTheReference) {
  const char* kernel = GetParam();
  const dispatch::KernelInfo* k = dispatch::registry().find(kernel);
  ASSERT_NE(k, nullptr);
  if (!k->can_implement(f32_desc(4, 8, 32, true, 0))) GTEST_SKIP() << kernel << ": not on this CPU";
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0;
  for (std::int64_t m = 2; m <= 16; ++m)
    for (std::int64_t n : {1, 3, 4, 5, 37})
      for (std::int64_t kk : {32, 64, 544, 1056}) {
        const GemmDesc d = f32_desc(m, n, kk, true, i);
        ASSERT_TRUE(cpu::f32_stream_applies(d));
        const Options opt{.backend = Backend::Cpu, .kernel = kernel, .threads = 1 + i % 2};
        const double alpha = i % 2 ? 0.7 : -1.5, beta = i % 3 ? 1.3 : 0.0;
        const auto v = bench::verify_case(d, alpha, beta, opt, seed + i);
        if (v.disposition != bench::Disposition::Passed && ++failures <= 5)
          ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << kk << " case " << i << ": "
                        << v.cmp.first_failure << v.note;
        ++i;
      }
  EXPECT_EQ(failures, 0);
}

INSTANTIATE_TEST_SUITE_P(Isas, CpuF32StreamRows,
                         ::testing::Values("cpu.sgemm_avx2_6x16", "cpu.sgemm_avx512_8x32"),
                         [](const auto& info) { return std::string(info.param).substr(10); });

}  // namespace
}  // namespace gemmkit
