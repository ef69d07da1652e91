// The transposing pack (cpu/pack_transpose.hpp) through the kernels that use it: an operand
// whose K index is the unit stride (row-major A, column-major B) packed into micro-panels whose
// width is not a multiple of the register transpose (the AVX2 MR = 6 against 8 floats or
// 4 doubles), so its last group of lines is partial and its stores overlap the next panel row.
// Rows 1 .. 2 * MR + 1 (a partial panel, a full one, several) times K around the transpose
// block (tails of 1 .. W - 1 steps) and past one K block; every result against the fp64
// reference.
#include <gtest/gtest.h>

#include <string>

#include "bench/testbed.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

int run(const char* kernel, DType t, int mr) {
  const dispatch::KernelInfo* k = dispatch::registry().find(kernel);
  if (k == nullptr) return -1;
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0, runs = 0;
  for (std::int64_t rows = 1; rows <= 2 * mr + 1; ++rows)
    for (std::int64_t kk : {1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 400})
      for (int side = 0; side < 2; ++side, ++i) {
        // side 0: M = rows with A row-major; side 1: N = rows with B column-major (the
        // planner's orientation puts the short side on either tile edge).
        GemmDesc d{.m = side ? 37 : rows, .n = side ? rows : 37, .k = kk};
        d.a.layout = Layout::RowMajor;
        d.b.layout = Layout::ColMajor;
        d.c.layout = d.d.layout = (i & 2) ? Layout::RowMajor : Layout::ColMajor;
        d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = d.compute = t;
        d = with_default_lds(d);
        d.a.ld += i % 3;  // lines not 32-byte aligned
        d.b.ld += i % 2;
        if (!k->can_implement(d)) return -1;
        const Options opt{.backend = Backend::Cpu, .kernel = kernel, .threads = 1 + i % 2};
        const auto v = bench::verify_case(d, 0.7, i % 4 ? 1.3 : 0.0, opt, seed + i);
        ++runs;
        if (v.disposition != bench::Disposition::Passed && ++failures <= 5)
          ADD_FAILURE() << kernel << " m=" << d.m << " n=" << d.n << " k=" << kk << " case " << i
                        << ": " << v.cmp.first_failure << v.note;
      }
  EXPECT_GT(runs, 0);
  return failures;
}

TEST(CpuTransposePack, Avx2SgemmPartialGroups) {
  const int f = run("cpu.sgemm_avx2_6x16", DType::F32, 6);
  if (f < 0) GTEST_SKIP() << "no AVX2 on this CPU";
  EXPECT_EQ(f, 0);
}

TEST(CpuTransposePack, Avx2DgemmPartialGroups) {
  const int f = run("cpu.dgemm_avx2_6x8", DType::F64, 6);
  if (f < 0) GTEST_SKIP() << "no AVX2 on this CPU";
  EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace gemmkit
