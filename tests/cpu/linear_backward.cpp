// linear_backward against central finite differences (tutorial section 07): Y = X W,
// Loss = 1/2 sum Y^2, so dY = Y, dX = dY W^T, dW = X^T dY. Shapes do not divide any tile.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gemmkit/training.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

// Y = X W in double, row-major, straight loops (independent of the library).
double loss(const std::vector<double>& x, const std::vector<double>& w, std::int64_t m,
            std::int64_t k, std::int64_t n) {
  double l = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double y = 0;
      for (std::int64_t p = 0; p < k; ++p) y += x[i * k + p] * w[p * n + j];
      l += 0.5 * y * y;
    }
  return l;
}

struct Shape {
  std::int64_t m, k, n;
};

class LinearBackward : public ::testing::TestWithParam<Shape> {};

TEST_P(LinearBackward, MatchesCentralDifferencesF64) {
  const auto [m, k, n] = GetParam();
  const std::uint64_t seed = test::test_seed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(m * k), w(k * n), y(m * n), dx(m * k, -7.0), dw(k * n, -7.0);
  for (double& v : x) v = u(rng);
  for (double& v : w) v = u(rng);

  // Forward through gemmkit, then dY = Y.
  const LinearDesc d{.m = m, .k = k, .n = n, .dtype = DType::F64, .layout = Layout::RowMajor};
  const MatrixDesc rm{.dtype = DType::F64, .layout = Layout::RowMajor};
  const GemmDesc fwd{
      .m = m, .n = n, .k = k, .a = rm, .b = rm, .c = rm, .d = rm, .compute = DType::F64};
  const Options opt{.backend = Backend::Cpu, .threads = 2};
  ASSERT_TRUE(gemm(fwd, {x.data(), w.data(), nullptr, y.data(), 1.0, 0.0}, opt));
  ASSERT_TRUE(linear_backward(d, x.data(), w.data(), y.data(), dx.data(), dw.data(), opt));

  // Loss is quadratic in each entry, so the central difference is exact up to rounding.
  const double h = 1e-3;
  auto fd = [&](std::vector<double>& v, std::size_t idx) {
    const double keep = v[idx];
    v[idx] = keep + h;
    const double lp = loss(x, w, m, k, n);
    v[idx] = keep - h;
    const double lm = loss(x, w, m, k, n);
    v[idx] = keep;
    return (lp - lm) / (2 * h);
  };
  std::uniform_int_distribution<std::size_t> pick_x(0, x.size() - 1), pick_w(0, w.size() - 1);
  std::vector<std::size_t> xs = {0, x.size() - 1}, ws = {0, w.size() - 1};
  for (int s = 0; s < 12; ++s) xs.push_back(pick_x(rng)), ws.push_back(pick_w(rng));
  const double scale = std::max(1.0, loss(x, w, m, k, n));
  for (std::size_t i : xs)
    EXPECT_NEAR(dx[i], fd(x, i), 1e-9 * scale) << "dX[" << i << "] seed " << seed;
  for (std::size_t i : ws)
    EXPECT_NEAR(dw[i], fd(w, i), 1e-9 * scale) << "dW[" << i << "] seed " << seed;
}

TEST_P(LinearBackward, F32AgreesWithF64) {
  const auto [m, k, n] = GetParam();
  std::mt19937_64 rng(test::test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<float> x(m * k), w(k * n), dy(m * n), dx(m * k), dw(k * n);
  std::vector<double> xd(m * k), wd(k * n), dyd(m * n), dxd(m * k), dwd(k * n);
  for (std::size_t i = 0; i < x.size(); ++i) xd[i] = x[i] = static_cast<float>(u(rng));
  for (std::size_t i = 0; i < w.size(); ++i) wd[i] = w[i] = static_cast<float>(u(rng));
  for (std::size_t i = 0; i < dy.size(); ++i) dyd[i] = dy[i] = static_cast<float>(u(rng));
  const Options opt{.backend = Backend::Cpu, .threads = 2};
  for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
    ASSERT_TRUE(linear_backward({.m = m, .k = k, .n = n, .dtype = DType::F32, .layout = l},
                                x.data(), w.data(), dy.data(), dx.data(), dw.data(), opt));
    ASSERT_TRUE(linear_backward({.m = m, .k = k, .n = n, .dtype = DType::F64, .layout = l},
                                xd.data(), wd.data(), dyd.data(), dxd.data(), dwd.data(), opt));
    const double tol_x = 1e-5 * (8 + std::sqrt(double(n))) * n;
    const double tol_w = 1e-5 * (8 + std::sqrt(double(m))) * m;
    for (std::size_t i = 0; i < dx.size(); ++i) ASSERT_NEAR(dx[i], dxd[i], tol_x) << i;
    for (std::size_t i = 0; i < dw.size(); ++i) ASSERT_NEAR(dw[i], dwd[i], tol_w) << i;
  }
}

TEST(LinearBackwardArgs, NullGradientIsSkippedAndBadShapeNamed) {
  std::vector<double> x(6), w(6), dy(4), dx(6, 3.0);
  const LinearDesc d{.m = 2, .k = 3, .n = 2, .dtype = DType::F64};
  ASSERT_TRUE(linear_backward(d, x.data(), w.data(), dy.data(), dx.data(), nullptr,
                              {.backend = Backend::Cpu}));
  for (double v : dx) EXPECT_EQ(v, 0.0);  // zeros in, zeros out
  const LinearDesc bad{.m = -1, .k = 3, .n = 2, .dtype = DType::F64};
  const Status s = linear_backward(bad, x.data(), w.data(), dy.data(), dx.data(), nullptr,
                                   {.backend = Backend::Cpu});
  EXPECT_EQ(s.code, StatusCode::InvalidValue);
  EXPECT_EQ(s.arg, Arg::M);
}

INSTANTIATE_TEST_SUITE_P(Cpu, LinearBackward,
                         ::testing::Values(Shape{13, 37, 29}, Shape{1, 50, 7}, Shape{65, 3, 33},
                                           Shape{27, 130, 1}));

}  // namespace
}  // namespace gemmkit
