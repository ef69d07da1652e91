// The small exhaustive grid. m, n, k in {0,1,2,3,5,9} x both transposes x
// alpha {0,1,0.7} x beta {0,1,1.3} x row/col major, ld = rows + 1: every CPU kernel that
// implements the case against the fp64 reference (gauge bound), and gemmkit_dgemm against
// netlib BLAS's dgemm (Debian libblas3) on the same data.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bench/testbed.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "gemmkit/gemmkit.h"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

constexpr int kSizes[] = {0, 1, 2, 3, 5, 9};
constexpr double kAlphas[] = {0.0, 1.0, 0.7};
constexpr double kBetas[] = {0.0, 1.0, 1.3};

GemmDesc grid_desc(DType t, int m, int n, int k, bool ta, bool tb, Layout l) {
  GemmDesc d{.m = m, .n = n, .k = k, .trans_a = ta ? Op::Trans : Op::NoTrans,
             .trans_b = tb ? Op::Trans : Op::NoTrans,
             .a = {t, l, 0, 0}, .b = {t, l, 0, 0}, .c = {t, l, 0, 0}, .d = {t, l, 0, 0},
             .compute = t == DType::F64 ? DType::F64 : DType::F32};
  auto ld = [&](Extent e) { return (l == Layout::ColMajor ? e.rows : e.cols) + 1; };
  d.a.ld = ld(stored_extent_a(d));
  d.b.ld = ld(stored_extent_b(d));
  d.c.ld = d.d.ld = ld(stored_extent_cd(d));
  return d;
}

TEST(ExhaustiveGrid, EveryCpuKernelAgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  int cases = 0;
  for (const auto& kern : dispatch::registry().all()) {
    if (kern.backend != Backend::Cpu) continue;
    for (DType t : {DType::F64, DType::F32}) {
      for (int m : kSizes) for (int n : kSizes) for (int k : kSizes)
      for (bool ta : {false, true}) for (bool tb : {false, true})
      for (Layout l : {Layout::ColMajor, Layout::RowMajor}) {
        const GemmDesc d = grid_desc(t, m, n, k, ta, tb, l);
        if (!kern.can_implement(d).ok()) continue;
        for (double alpha : kAlphas) for (double beta : kBetas) {
          auto r = bench::verify_case(d, alpha, beta,
                                      {.backend = Backend::Cpu, .kernel = kern.name.c_str()},
                                      seed + cases);
          ++cases;
          ASSERT_EQ(r.disposition, bench::Disposition::Passed)
              << kern.name << " " << dtype_name(t) << " m=" << m << " n=" << n << " k=" << k
              << " ta=" << ta << " tb=" << tb << " " << layout_name(l) << " alpha=" << alpha
              << " beta=" << beta << ": " << r.note << " " << r.cmp.first_failure;
        }
      }
    }
  }
  std::printf("checked %d cases\n", cases);
  EXPECT_GT(cases, 10000);
}

TEST(ExhaustiveGrid, DgemmMatchesNetlib) {
  if (test::kAddressSanitizer)
    GTEST_SKIP() << "netlib is loaded with RTLD_DEEPBIND, which ASan does not allow";
  auto netlib = test::netlib_dgemm();
  ASSERT_NE(netlib, nullptr) << "netlib BLAS not found at " << test::netlib_path()
                             << " (apt-get install libblas3)";
  std::mt19937_64 rng(test::test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  int cases = 0;
  for (int m : kSizes) for (int n : kSizes) for (int k : kSizes)
  for (bool ta : {false, true}) for (bool tb : {false, true})
  for (double alpha : kAlphas) for (double beta : kBetas)
  for (int layout : {GEMMKIT_COL_MAJOR, GEMMKIT_ROW_MAJOR}) {
    // Column-major problem for netlib; a row-major call computes the transposed problem
    // C^T = op(B)^T op(A)^T on the same memory, which netlib can be asked for directly.
    const bool row = layout == GEMMKIT_ROW_MAJOR;
    const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int lda = (row ? ac : ar) + 1, ldb = (row ? bc : br) + 1, ldc = (row ? n : m) + 1;
    std::vector<double> a((row ? ar : ac) * lda + 1), b((row ? br : bc) * ldb + 1),
        c((row ? m : n) * ldc + 1);
    for (auto* v : {&a, &b, &c}) for (double& x : *v) x = u(rng);
    std::vector<double> mine = c, ref = c;
    const int rc = gemmkit_dgemm(layout, ta ? GEMMKIT_TRANS : GEMMKIT_NO_TRANS,
                                 tb ? GEMMKIT_TRANS : GEMMKIT_NO_TRANS, m, n, k, alpha, a.data(),
                                 lda, b.data(), ldb, beta, mine.data(), ldc);
    ASSERT_EQ(rc, 0) << gemmkit_last_error();
    const char tA = ta ? 'T' : 'N', tB = tb ? 'T' : 'N';
    if (!row) {
      netlib(&tA, &tB, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, ref.data(),
             &ldc, 1, 1);
    } else {  // row-major C (m x n) is column-major C^T (n x m) = op(B)^T op(A)^T
      netlib(&tB, &tA, &n, &m, &k, &alpha, b.data(), &ldb, a.data(), &lda, &beta, ref.data(),
             &ldc, 1, 1);
    }
    for (std::size_t i = 0; i < ref.size(); ++i)
      ASSERT_NEAR(mine[i], ref[i], 1e-13 * (1 + std::fabs(ref[i])))
          << "m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb
          << " alpha=" << alpha << " beta=" << beta << " row=" << row << " i=" << i;
    ++cases;
  }
  EXPECT_EQ(cases, 6 * 6 * 6 * 4 * 9 * 2);
}

}  // namespace
}  // namespace gemmkit
