// The f32 and f64 CUDA kernels (src/cuda/simt: FFMA, DMMA) on the device, through the one
// testbed (seeded operands with guard bands, the fp64 reference on the GPU, the gauge bound,
// padding and inputs unchanged), with cuBLAS SGEMM / DGEMM semantics:
//   - the planner takes them for f32 / f64 problems on the CUDA backend;
//   - the tile-edge grid, odd squares (1000, 1023, 1025) in every transpose, every layout of
//     A, B and C/D, unaligned and padded leading dimensions, pointer offsets, batches;
//   - alpha / beta: beta == 0 never reads C (NaN there), alpha == 0 never reads A or B (NaN
//     there), K == 0 gives beta * C;
//   - the same bits over repeated runs, and each row of D the same whatever M is.
// Every failure message names the kernel, the case and its seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/view.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/device_run.hpp"
#include "support/gpu_test.hpp"

namespace gemmkit {
namespace {

struct Subject {
  const char* kernel;
  DType dtype;
  std::int64_t tile_m, tile_n, tile_k, stages;
};

const Subject kSubjects[] = {
    {"cuda.sgemm_ffma_128x128x16_s3", DType::F32, 128, 128, 16, 3},
    {"cuda.dgemm_dmma_128x128x16_s4", DType::F64, 128, 128, 16, 4},
};

struct Case {
  std::int64_t m, n, k;
  Op ta = Op::NoTrans, tb = Op::NoTrans;
  Layout la = Layout::RowMajor, lb = Layout::RowMajor, lc = Layout::RowMajor;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t batch = 1;
  double alpha = 1.0, beta = 0.0;
};

GemmDesc make_desc(const Case& c, DType t) {
  GemmDesc d{.m = c.m,
             .n = c.n,
             .k = c.k,
             .trans_a = c.ta,
             .trans_b = c.tb,
             .a = {t, c.la, c.lda, 0},
             .b = {t, c.lb, c.ldb, 0},
             .c = {t, c.lc, c.ldc, 0},
             .d = {t, c.lc, c.ldc, 0},
             .batch = c.batch,
             .compute = t};
  return with_default_lds(core::with_packed_batch_strides(d));
}

std::string describe(const Case& c, std::uint64_t seed) {
  std::ostringstream os;
  os << "m=" << c.m << " n=" << c.n << " k=" << c.k << " trans=" << (c.ta == Op::Trans)
     << (c.tb == Op::Trans) << " layouts(a,b,c)=" << layout_name(c.la) << "," << layout_name(c.lb)
     << "," << layout_name(c.lc) << " ld=" << c.lda << "," << c.ldb << "," << c.ldc
     << " batch=" << c.batch << " alpha=" << c.alpha << " beta=" << c.beta << " seed=" << seed;
  return os.str();
}

Options on(const Subject& s) { return Options{.backend = Backend::Cuda, .kernel = s.kernel}; }

void expect_passes(const Subject& s, const Case& c, std::uint64_t seed) {
  const bench::VerifyResult r =
      bench::verify_case(make_desc(c, s.dtype), c.alpha, c.beta, on(s), seed);
  EXPECT_EQ(r.disposition, bench::Disposition::Passed)
      << s.kernel << " " << describe(c, seed) << ": " << bench::disposition_name(r.disposition)
      << " " << r.note << " " << r.cmp.first_failure << " (max err/bound "
      << r.cmp.max_err_over_bound << ")";
}

class SimtKernel : public ::testing::TestWithParam<Subject> {};

TEST_P(SimtKernel, IsRegisteredAndPlanned) {
  const Subject& s = GetParam();
  const dispatch::KernelInfo* k = dispatch::registry().find(s.kernel);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->backend, Backend::Cuda);
  EXPECT_EQ(k->role, dispatch::KernelRole::Production);
  EXPECT_TRUE(dispatch::is_filled(k->config)) << dispatch::to_string(k->config);
  // The planner's own choice on the CUDA backend, with no kernel named.
  const GemmDesc d = make_desc(Case{.m = 1000, .n = 1023, .k = 1025}, s.dtype);
  const dispatch::Plan p = dispatch::make_plan(d, Options{.backend = Backend::Cuda}, nullptr);
  ASSERT_TRUE(p.status) << to_string(p.status);
  ASSERT_NE(p.launch.kernel, nullptr);
  EXPECT_EQ(p.launch.kernel->name, s.kernel);
}

// The tile-edge grid: m, n in {1, 4, tile-1, tile, tile+1, 2*tile+1, 500}; k in {4, a K that
// wraps the ring, 300}. Every (m, n) pair, k cycling through its three.
TEST_P(SimtKernel, TileEdgeGrid) {
  const Subject& s = GetParam();
  const auto edges = [](std::int64_t t) {
    return std::vector<std::int64_t>{1, 4, t - 1, t, t + 1, 2 * t + 1, 500};
  };
  const std::int64_t ks[] = {4, s.tile_k * (s.stages + 1) - 3, 300};
  std::uint64_t seed = 100;
  int i = 0;
  for (std::int64_t m : edges(s.tile_m))
    for (std::int64_t n : edges(s.tile_n))
      expect_passes(s, Case{.m = m, .n = n, .k = ks[i++ % 3], .alpha = 0.75, .beta = -1.25},
                    ++seed);
}

// 1000 x 1023 x 1025 and 1025 x 1000 x 1023 in every (trans_a, trans_b), D row- and
// column-major (the kernel then runs the transposed problem).
TEST_P(SimtKernel, OddSquaresEveryTranspose) {
  const Subject& s = GetParam();
  std::uint64_t seed = 200;
  for (Op ta : {Op::NoTrans, Op::Trans})
    for (Op tb : {Op::NoTrans, Op::Trans})
      for (Layout lc : {Layout::RowMajor, Layout::ColMajor}) {
        const bool first = lc == Layout::RowMajor;
        expect_passes(s,
                      Case{.m = first ? 1000 : 1025,
                           .n = first ? 1023 : 1000,
                           .k = first ? 1025 : 1023,
                           .ta = ta,
                           .tb = tb,
                           .lc = lc,
                           .alpha = 1.0,
                           .beta = 0.5},
                      ++seed);
      }
}

// Every (trans_a, trans_b) x layout of A x layout of B x layout of C/D, on a shape of whole
// 16-byte chunks and an odd one.
TEST_P(SimtKernel, TransposesAndLayouts) {
  const Subject& s = GetParam();
  std::uint64_t seed = 300;
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{136, 144, 96}, {77, 203, 71}};
  const Layout both[] = {Layout::ColMajor, Layout::RowMajor};
  for (Op ta : {Op::NoTrans, Op::Trans})
    for (Op tb : {Op::NoTrans, Op::Trans})
      for (Layout la : both)
        for (Layout lb : both)
          for (Layout lc : both)
            for (const Shape& sh : shapes)
              expect_passes(s,
                            Case{.m = sh.m,
                                 .n = sh.n,
                                 .k = sh.k,
                                 .ta = ta,
                                 .tb = tb,
                                 .la = la,
                                 .lb = lb,
                                 .lc = lc,
                                 .alpha = 1.0,
                                 .beta = 1.0},
                            ++seed);
}

// alpha / beta as BLAS has them, K = 0 (beta * C), K = 1 and 2.
TEST_P(SimtKernel, ScalarsAndTinyK) {
  const Subject& s = GetParam();
  std::uint64_t seed = 400;
  struct Scalars {
    double alpha, beta;
  };
  const Scalars scalars[] = {{1.0, 0.0}, {0.7, 1.3}, {-1.0, 0.5}, {0.0, 1.3}, {0.0, 0.0}};
  for (const Scalars& sc : scalars)
    for (Layout l : {Layout::RowMajor, Layout::ColMajor})
      expect_passes(s,
                    Case{.m = 100,
                         .n = 150,
                         .k = 90,
                         .la = l,
                         .lb = l,
                         .lc = l,
                         .alpha = sc.alpha,
                         .beta = sc.beta},
                    ++seed);
  for (std::int64_t k : {0, 1, 2})
    expect_passes(s, Case{.m = 70, .n = 90, .k = k, .alpha = 2.0, .beta = 1.5}, ++seed);
}

// Unaligned leading dimensions (element copies), padded ones (16-byte copies over padding),
// both layouts; packed batches of 2 and 3.
TEST_P(SimtKernel, LeadingDimensionsAndBatches) {
  const Subject& s = GetParam();
  std::uint64_t seed = 500;
  for (Layout l : {Layout::ColMajor, Layout::RowMajor})
    for (std::int64_t pad : {1, 3, 8}) {
      const std::int64_t m = 131, n = 67, k = 88;
      const bool col = l == Layout::ColMajor;
      expect_passes(s,
                    Case{.m = m,
                         .n = n,
                         .k = k,
                         .la = l,
                         .lb = l,
                         .lc = l,
                         .lda = (col ? m : k) + pad,
                         .ldb = (col ? k : n) + pad,
                         .ldc = (col ? m : n) + pad,
                         .alpha = 1.0,
                         .beta = 0.25},
                    ++seed);
    }
  for (std::int64_t batch : {2, 3})
    expect_passes(s,
                  Case{.m = 65,
                       .n = 130,
                       .k = 40,
                       .ta = Op::Trans,
                       .la = Layout::ColMajor,
                       .lb = Layout::ColMajor,
                       .lc = Layout::ColMajor,
                       .batch = batch,
                       .alpha = 1.0,
                       .beta = 1.0},
                  ++seed);
}

// Runs a case by hand: `nan` names the buffers filled with NaN first ("c", "ab"), `off` the
// element offset of every operand (1: off the 16-byte copies); the result must pass the
// reference and come out with the same bits twice.
void expect_by_hand(const Subject& s, const Case& c, std::uint64_t seed, const char* nan,
                    std::int64_t off) {
  bench::HostCase hc = bench::HostCase::make(make_desc(c, s.dtype), c.alpha, c.beta, seed);
  const std::vector<std::uint8_t> d_before = hc.d;
  if (std::strchr(nan, 'c')) test::fill_with_nan(hc.c, s.dtype);
  if (std::strchr(nan, 'a')) test::fill_with_nan(hc.a, s.dtype);
  if (std::strchr(nan, 'b')) test::fill_with_nan(hc.b, s.dtype);
  const std::int64_t bytes = off * dtype_bits(s.dtype) / 8;
  const std::int64_t at[4] = {bytes, bytes, bytes, bytes};
  std::vector<std::uint8_t> first = hc.d, second = hc.d;
  const std::string what = std::string(s.kernel) + " " + describe(c, seed) + " NaN in " + nan +
                           " offset " + std::to_string(off);
  const Status s1 = test::run_device(hc, first, on(s), at);
  const Status s2 = test::run_device(hc, second, on(s), at);
  ASSERT_TRUE(s1.ok() && s2.ok()) << what << ": " << to_string(s1) << " / " << to_string(s2);
  EXPECT_TRUE(first == second) << what << ": not bitwise repeatable";
  const bench::Compare cmp = bench::compare_to_reference(hc, first, d_before);
  EXPECT_TRUE(cmp.passed) << what << ": " << cmp.first_failure;
}

// beta == 0 with C full of NaN: C is never read. alpha == 0 with A and B full of NaN: they
// are never read (D = beta * C exactly). Operands 1 element off 16 bytes.
TEST_P(SimtKernel, NeverReadsWhatBlasSaysNot) {
  const Subject& s = GetParam();
  std::uint64_t seed = 600;
  for (Op ta : {Op::NoTrans, Op::Trans})
    for (Op tb : {Op::NoTrans, Op::Trans}) {
      const Case c{.m = 300, .n = 257, .k = 129, .ta = ta, .tb = tb, .alpha = 1.5, .beta = 0.0};
      expect_by_hand(s, c, ++seed, "c", 0);
      expect_by_hand(s, c, ++seed, "c", 1);
    }
  const Case zero_alpha{.m = 200, .n = 130, .k = 64, .alpha = 0.0, .beta = 0.5};
  expect_by_hand(s, zero_alpha, ++seed, "ab", 0);
}

// Row i of D is the same bits whether M is 333 or 1 (the kernels are registered M-invariant):
// row-major A, the M = 1 problem's A the row of the M = 333 one.
TEST_P(SimtKernel, RowsDoNotDependOnM) {
  const Subject& s = GetParam();
  const Case big{.m = 333, .n = 200, .k = 257, .alpha = 1.0, .beta = 0.0};
  bench::HostCase hb = bench::HostCase::make(make_desc(big, s.dtype), 1.0, 0.0, 700);
  std::vector<std::uint8_t> d_big = hb.d;
  ASSERT_TRUE(test::run_device(hb, d_big, on(s)));
  const std::int64_t es = dtype_bits(s.dtype) / 8, row_bytes = big.n * es;
  for (std::int64_t i : {0, 127, 128, 332}) {
    Case one = big;
    one.m = 1;
    bench::HostCase h1 = bench::HostCase::make(make_desc(one, s.dtype), 1.0, 0.0, 701);
    std::memcpy(h1.a.data(), hb.a.data() + i * big.k * es, static_cast<std::size_t>(big.k * es));
    h1.b = hb.b;
    std::vector<std::uint8_t> d_one = h1.d;
    ASSERT_TRUE(test::run_device(h1, d_one, on(s)));
    EXPECT_EQ(0, std::memcmp(d_one.data(), d_big.data() + i * row_bytes,
                             static_cast<std::size_t>(row_bytes)))
        << s.kernel << ": row " << i << " of M = 333 differs from the same row alone";
  }
}

INSTANTIATE_TEST_SUITE_P(All, SimtKernel, ::testing::ValuesIn(kSubjects),
                         [](const ::testing::TestParamInfo<Subject>& i) {
                           return std::string(dtype_name(i.param.dtype));
                         });

}  // namespace
}  // namespace gemmkit
