// The fast fp64 reference (bench::reference_dgemm: widened operands, OpenBLAS dgemm) against
// its oracle, the element-by-element core::reference_visit (bench::reference_sequential):
// residue shapes, both transposes, every layout, padded leading dimensions, batches (packed and
// broadcast), every input type, alpha and beta including 0, NaN in C with beta 0, NaN and Inf
// in A and B. Finite values agree within 1e-13 of the gauge (the two differ only in the order
// of fp64 sums); NaN, Inf and the sign of Inf agree exactly.
#include "bench/reference_blas.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/view.hpp"
#include "support/reference_case.hpp"

namespace gemmkit::bench {
namespace {

using Case = test::ReferenceCase;
using test::describe;
using test::make_desc;

// Every case through OpenBLAS (reference_dgemm's small-problem path is the oracle's own loop;
// SmallProblemsTakeTheOraclesLoop checks it).
constexpr double kBlas = 0;

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Every element of `fast` against `slow`: NaN where NaN, the same Inf, finite values within
// 1e-13 of the oracle's gauge `tol` (exactly equal where it is 0); gauges within 1e-13.
::testing::AssertionResult agree(const ReferenceMatrix& fast, const ReferenceMatrix& slow,
                                 const std::vector<double>& tol) {
  if (fast.value.size() != slow.value.size() || fast.gauge.size() != slow.gauge.size() ||
      tol.size() != slow.value.size())
    return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t e = 0; e < slow.value.size(); ++e) {
    const double f = fast.value[e], s = slow.value[e];
    const double g = tol[e];
    bool ok;
    if (std::isnan(s) || std::isinf(s))
      ok = std::isnan(s) ? std::isnan(f) : same_bits(f, s);
    else
      ok = std::isfinite(f) && std::fabs(f - s) <= 1e-13 * g;
    if (ok && !slow.gauge.empty()) {
      const double fg = fast.gauge[e], sg = slow.gauge[e];
      ok = std::isnan(sg) ? std::isnan(fg) : (fg == sg || std::fabs(fg - sg) <= 1e-13 * sg);
    }
    if (!ok)
      return ::testing::AssertionFailure()
             << "element " << e << ": fast " << f << " (gauge "
             << (fast.gauge.empty() ? 0.0 : fast.gauge[e]) << "), oracle " << s << " (gauge "
             << (slow.gauge.empty() ? 0.0 : slow.gauge[e]) << ")";
  }
  return ::testing::AssertionSuccess();
}

void expect_agrees(const Case& c, std::uint64_t seed) {
  HostCase hc = HostCase::make(make_desc(c), c.alpha, c.beta, seed);
  const GemmArgs args = hc.args();
  const std::vector<double> tol = reference_sequential(hc.desc, args, true).gauge;
  for (bool gauge : {true, false}) {
    EXPECT_TRUE(agree(reference_dgemm(hc.desc, args, gauge, kBlas),
                      reference_sequential(hc.desc, args, gauge), tol))
        << describe(c) << " gauge=" << gauge << " seed=" << seed;
  }
}

// agree() with the oracle's own gauge as the tolerance.
::testing::AssertionResult agree(const ReferenceMatrix& fast, const ReferenceMatrix& slow) {
  return agree(fast, slow, slow.gauge);
}

TEST(ReferenceBlas, ResidueShapesTransposesLayoutsAndPadding) {
  const std::int64_t sizes[] = {1, 2, 3, 7, 17, 33};
  std::uint64_t seed = 1;
  int bits = 0;
  for (std::int64_t m : sizes)
    for (std::int64_t n : sizes)
      for (std::int64_t k : {1, 3, 17, 65}) {
        ++bits;
        Case c{.m = m, .n = n, .k = k};
        c.ta = bits & 1 ? Op::Trans : Op::NoTrans;
        c.tb = bits & 2 ? Op::Trans : Op::NoTrans;
        c.la = bits & 4 ? Layout::RowMajor : Layout::ColMajor;
        c.lb = bits & 8 ? Layout::RowMajor : Layout::ColMajor;
        c.lc = bits & 16 ? Layout::RowMajor : Layout::ColMajor;
        c.pad = bits % 3;
        c.alpha = bits % 5 == 0 ? -0.7 : 1.0;
        c.beta = bits % 4 == 0 ? 1.3 : 0.0;
        expect_agrees(c, ++seed);
      }
}

TEST(ReferenceBlas, EveryInputTypeAndOutputType) {
  std::uint64_t seed = 500;
  for (DType in : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::E4M3, DType::E5M2,
                   DType::I8, DType::I4})
    for (Layout l : {Layout::ColMajor, Layout::RowMajor}) {
      const bool integer = in == DType::I8 || in == DType::I4;
      Case c{.m = 9, .n = 7, .k = 33, .la = l, .lb = l, .lc = l, .in = in};
      c.c = integer ? DType::I32 : (in == DType::F64 ? DType::F64 : DType::BF16);
      c.beta = 0.5;
      expect_agrees(c, ++seed);
    }
}

TEST(ReferenceBlas, BatchesPackedAndBroadcast) {
  std::uint64_t seed = 700;
  for (bool broadcast : {false, true})
    for (std::int64_t batch : {1, 2, 3}) {
      Case c{.m = 17, .n = 3, .k = 7, .ta = Op::Trans, .lc = Layout::RowMajor};
      c.batch = batch;
      c.broadcast_b = broadcast;
      c.pad = 1;
      c.beta = -1.5;
      expect_agrees(c, ++seed);
    }
}

TEST(ReferenceBlas, AlphaZeroAndKZeroNeverReadAAndB) {
  for (std::int64_t k : {0, 5}) {
    Case c{.m = 7, .n = 3, .k = k, .lc = Layout::RowMajor};
    c.alpha = k == 0 ? 1.0 : 0.0;
    c.beta = -2.0;
    HostCase hc = HostCase::make(make_desc(c), c.alpha, c.beta, 3);
    core::store_element(DType::F32, hc.c.data(), 0, 0.0);  // beta * 0 = -0 must survive
    GemmArgs args = hc.args();
    args.a = nullptr;  // would crash if read
    args.b = nullptr;
    EXPECT_TRUE(agree(reference_dgemm(hc.desc, args, true, kBlas),
                      reference_sequential(hc.desc, args, true)))
        << describe(c);
    // beta * C exactly, -0 included where C holds 0.
    const ReferenceMatrix r = reference_dgemm(hc.desc, args, false, kBlas);
    const core::Strides sc = core::stored_strides(hc.desc.c.layout, hc.desc.c.ld);
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t i = 0; i < c.m; ++i)
        EXPECT_TRUE(
            same_bits(r.value[r.index(0, i, j)],
                      -2.0 * core::load_element(DType::F32, hc.c.data(), i * sc.row + j * sc.col)));
  }
}

TEST(ReferenceBlas, BetaZeroNeverReadsC) {
  Case c{.m = 5, .n = 6, .k = 7};
  HostCase hc = HostCase::make(make_desc(c), 1.0, 0.0, 4);
  for (std::size_t i = 0; i + 4 <= hc.c.size(); i += 4)
    core::store_element(DType::F32, hc.c.data(), static_cast<std::int64_t>(i / 4), std::nan(""));
  GemmArgs args = hc.args();
  const ReferenceMatrix r = reference_dgemm(hc.desc, args, true, kBlas);
  for (double v : r.value) EXPECT_TRUE(std::isfinite(v));
  args.c = nullptr;  // would crash if read
  EXPECT_TRUE(agree(reference_dgemm(hc.desc, args, true, kBlas), r));
}

// NaN in a row of A gives NaN in exactly that row; Inf * 0 gives NaN; Inf in a column of B
// gives Inf (or NaN against another Inf of the other sign) in that column only.
TEST(ReferenceBlas, NaNAndInfPropagateAsTheOracleSays) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType in : {DType::F32, DType::BF16, DType::F64})
    for (Op ta : {Op::NoTrans, Op::Trans}) {
      Case c{.m = 33, .n = 17, .k = 9, .ta = ta, .tb = Op::Trans, .in = in};
      c.c = in == DType::F64 ? DType::F64 : DType::F32;
      c.beta = 0.5;
      HostCase hc = HostCase::make(make_desc(c), 1.0, 0.5, 9);
      const GemmDesc& d = hc.desc;
      const core::ProblemView v = core::make_view(d);
      const auto set_a = [&](std::int64_t i, std::int64_t p, double x) {
        core::store_element(in, hc.a.data(), i * v.a.row + p * v.a.col, x);
      };
      const auto set_b = [&](std::int64_t p, std::int64_t j, double x) {
        core::store_element(in, hc.b.data(), p * v.b.row + j * v.b.col, x);
      };
      set_a(4, 2, std::nan(""));  // row 4: NaN
      set_a(20, 3, inf);          // row 20: Inf ...
      set_b(3, 5, 0.0);           // ... times 0 in column 5: NaN there
      set_b(6, 11, -inf);         // column 11: -Inf; with row 20's Inf only if A(20,6) is 0
      set_a(30, 6, inf);          // row 30: Inf * -Inf = -Inf in column 11
      const GemmArgs args = hc.args();
      const ReferenceMatrix fast = reference_dgemm(d, args, true, kBlas);
      const ReferenceMatrix slow = reference_sequential(d, args, true);
      EXPECT_TRUE(agree(fast, slow)) << describe(c);
      // The oracle itself says what the semantics are.
      EXPECT_TRUE(std::isnan(slow.value[slow.index(0, 4, 0)]));
      EXPECT_TRUE(std::isnan(slow.value[slow.index(0, 20, 5)]));
      EXPECT_TRUE(std::isfinite(slow.value[slow.index(0, 3, 0)]));
      EXPECT_TRUE(std::isinf(fast.value[fast.index(0, 0, 11)]));
    }
}

// One row or one column (where a BLAS may take a gemv path that skips zeros): Inf * 0 = NaN.
TEST(ReferenceBlas, InfTimesZeroInVectorShapes) {
  const double inf = std::numeric_limits<double>::infinity();
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{5, 1}, {1, 5}, {1, 1}}) {
    Case c{.m = m, .n = n, .k = 4};
    HostCase hc = HostCase::make(make_desc(c), 1.0, 0.0, 6);
    const core::ProblemView v = core::make_view(hc.desc);
    core::store_element(DType::F32, hc.a.data(), (m - 1) * v.a.row + 1 * v.a.col, inf);
    core::store_element(DType::F32, hc.b.data(), 1 * v.b.row + (n - 1) * v.b.col, 0.0);
    const ReferenceMatrix fast = reference_dgemm(hc.desc, hc.args(), true, kBlas);
    EXPECT_TRUE(agree(fast, reference_sequential(hc.desc, hc.args(), true))) << m << "x" << n;
    EXPECT_TRUE(std::isnan(fast.value[fast.index(0, m - 1, n - 1)])) << m << "x" << n;
  }
}

TEST(ReferenceBlas, EmptyProblemsGiveEmptyResults) {
  for (std::int64_t m : {0, 3})
    for (std::int64_t n : {0, 3}) {
      if (m && n) continue;
      Case c{.m = m, .n = n, .k = 4};
      HostCase hc = HostCase::make(make_desc(c), 1.0, 1.0, 1);
      const ReferenceMatrix r = reference_dgemm(hc.desc, hc.args(), true, kBlas);
      EXPECT_TRUE(r.value.empty());
    }
}

// Below the BLAS threshold every element is the oracle's loop: the same bits.
TEST(ReferenceBlas, SmallProblemsTakeTheOraclesLoop) {
  Case c{.m = 17, .n = 33, .k = 65, .ta = Op::Trans, .lc = Layout::RowMajor, .in = DType::BF16};
  c.beta = 0.75;
  HostCase hc = HostCase::make(make_desc(c), 1.5, 0.75, 8);
  const ReferenceMatrix fast = reference_dgemm(hc.desc, hc.args(), true);  // default threshold
  const ReferenceMatrix slow = reference_sequential(hc.desc, hc.args(), true);
  ASSERT_EQ(fast.value.size(), slow.value.size());
  for (std::size_t e = 0; e < slow.value.size(); ++e) {
    EXPECT_TRUE(same_bits(fast.value[e], slow.value[e])) << e;
    EXPECT_TRUE(same_bits(fast.gauge[e], slow.gauge[e])) << e;
  }
}

// The epilogue (bias per row or column, each activation, s_d) as reference_visit_epilogue
// applies it, through OpenBLAS and through the small-problem loop (the same bits there).
TEST(ReferenceBlas, BiasAndActivationAsTheSpecSays) {
  const Activation acts[] = {Activation::None, Activation::Relu, Activation::GeluErf,
                             Activation::GeluTanh, Activation::Silu};
  for (BiasMode bias : {BiasMode::None, BiasMode::Row, BiasMode::Column})
    for (Activation act : acts)
      for (double beta : {0.0, 0.75}) {
        Case c{.m = 37, .n = 23, .k = 19, .tb = Op::Trans, .lc = Layout::RowMajor, .pad = 2};
        c.beta = beta;
        GemmDesc d = make_desc(c);
        d.epilogue = {.bias = bias, .bias_dtype = DType::BF16, .act = act, .scale_d = true};
        HostCase hc = HostCase::make(d, -1.5, beta, 11);
        const GemmArgs args = hc.inputs();
        const ReferenceMatrix slow = reference_sequential(hc.desc, args, true);
        EXPECT_TRUE(agree(reference_dgemm(hc.desc, args, true, kBlas), slow))
            << describe(c) << " bias " << int(bias) << " act " << int(act);
        const ReferenceMatrix loop = reference_dgemm(hc.desc, args, true);  // below 2e7 flop
        for (std::size_t e = 0; e < slow.value.size(); ++e) {
          ASSERT_TRUE(same_bits(loop.value[e], slow.value[e])) << e << " " << describe(c);
          ASSERT_TRUE(same_bits(loop.gauge[e], slow.gauge[e])) << e << " " << describe(c);
        }
        // The bias and the activation are applied: without them the values differ.
        if (bias != BiasMode::None || act != Activation::None) {
          GemmDesc plain = hc.desc;
          plain.epilogue = {.scale_d = true};
          EXPECT_FALSE(agree(reference_dgemm(plain, args, true, kBlas), slow)) << describe(c);
        }
      }
}

// The comparison is not vacuous: a reference of a shorter K does not agree.
TEST(ReferenceBlas, TheAgreementCheckCanFail) {
  Case c{.m = 7, .n = 5, .k = 33};
  HostCase hc = HostCase::make(make_desc(c), 1.0, 0.0, 2);
  GemmDesc shorter = hc.desc;
  shorter.k = 32;
  EXPECT_FALSE(agree(reference_dgemm(shorter, hc.args(), true, kBlas),
                     reference_sequential(hc.desc, hc.args(), true)));
}

}  // namespace
}  // namespace gemmkit::bench
