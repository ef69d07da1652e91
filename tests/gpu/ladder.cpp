// The CUDA ladder (rungs 0-4) on the device, each rung through the one testbed (verify_case:
// seeded operands with guard bands, fp64 reference, gauge bound, padding and inputs unchanged).
//   - the tile-edge grid of RELIABILITY item 6 at each rung's own tile;
//   - 0.5 / 1.25 / 2.5 waves of the 132 SMs;
//   - every (trans_a, trans_b) x layout of A, B and C/D, on K-aligned and odd shapes;
//   - bf16/fp16 inputs x f32/f16/bf16 outputs x alpha/beta (alpha = 0, beta = 0, K = 0);
//   - unaligned and padded leading dimensions, batches.
// Every failure message names the kernel, the case and its seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "bench/device_mem.hpp"
#include "bench/testbed.hpp"
#include "core/view.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/gpu_test.hpp"

namespace gemmkit {
namespace {

struct Rung {
  const char* kernel;
  std::int64_t tile_m, tile_n, tile_k, stages;
};

const Rung kRungs[] = {
    {"cuda.ladder.rung0", 16, 16, 1, 1},    {"cuda.ladder.rung1", 128, 128, 32, 1},
    {"cuda.ladder.rung2", 128, 128, 32, 3}, {"cuda.ladder.rung3", 128, 128, 32, 3},
    {"cuda.ladder.rung4", 128, 128, 64, 3},
};

constexpr std::int64_t kAlign = 8;  // elements per 16-byte copy
constexpr std::int64_t kSms = 132;

struct Case {
  std::int64_t m, n, k;
  Op ta = Op::NoTrans, tb = Op::NoTrans;
  Layout la = Layout::RowMajor, lb = Layout::RowMajor, lc = Layout::RowMajor;
  DType in = DType::BF16, c = DType::BF16, d = DType::BF16;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t batch = 1;
  double alpha = 1.0, beta = 0.0;
};

GemmDesc make_desc(const Case& c) {
  GemmDesc d{.m = c.m,
             .n = c.n,
             .k = c.k,
             .trans_a = c.ta,
             .trans_b = c.tb,
             .a = {c.in, c.la, c.lda, 0},
             .b = {c.in, c.lb, c.ldb, 0},
             .c = {c.c, c.lc, c.ldc, 0},
             .d = {c.d, c.lc, c.ldc, 0},
             .batch = c.batch,
             .compute = DType::F32};
  return core::with_packed_batch_strides(d);  // packed batches
}

std::string describe(const Case& c, std::uint64_t seed) {
  std::ostringstream os;
  os << "m=" << c.m << " n=" << c.n << " k=" << c.k << " trans=" << (c.ta == Op::Trans)
     << (c.tb == Op::Trans) << " layouts(a,b,c)=" << layout_name(c.la) << "," << layout_name(c.lb)
     << "," << layout_name(c.lc) << " dtypes(in,c,d)=" << dtype_name(c.in) << "," << dtype_name(c.c)
     << "," << dtype_name(c.d) << " ld=" << c.lda << "," << c.ldb << "," << c.ldc
     << " batch=" << c.batch << " alpha=" << c.alpha << " beta=" << c.beta << " seed=" << seed;
  return os.str();
}

// Runs one case on the device and expects Passed; returns whether it did.
bool expect_passes(const char* kernel, const Case& c, std::uint64_t seed) {
  const bench::VerifyResult r = bench::verify_case(
      make_desc(c), c.alpha, c.beta, Options{.backend = Backend::Cuda, .kernel = kernel}, seed);
  EXPECT_EQ(r.disposition, bench::Disposition::Passed)
      << kernel << " " << describe(c, seed) << ": " << bench::disposition_name(r.disposition) << " "
      << r.note << " " << r.cmp.first_failure << " (max err/bound " << r.cmp.max_err_over_bound
      << ")";
  return r.disposition == bench::Disposition::Passed;
}

class Ladder : public ::testing::TestWithParam<Rung> {};

TEST_P(Ladder, IsRegisteredAsCudaLadderKernel) {
  const dispatch::KernelInfo* k = dispatch::registry().find(GetParam().kernel);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->backend, Backend::Cuda);
  EXPECT_EQ(k->role, dispatch::KernelRole::Ladder);
  EXPECT_FALSE(k->config.empty());
}

// RELIABILITY item 6: m, n in {1, align, tile-1, tile, tile+1, 2*tile+1, 512-3*align}; k in
// {align, TileK*(stages+1)-align, large}. Every (m, n) pair, k cycling through its three.
TEST_P(Ladder, TileEdgeGrid) {
  const Rung& r = GetParam();
  const auto edges = [](std::int64_t t) {
    return std::vector<std::int64_t>{1, kAlign, t - 1, t, t + 1, 2 * t + 1, 512 - 3 * kAlign};
  };
  const std::int64_t ring = r.tile_k * (r.stages + 1) - kAlign;  // rung 0: no ring
  const std::int64_t ks[] = {kAlign, ring > kAlign ? ring : kAlign + 1, 300};
  std::uint64_t seed = 100;
  int i = 0;
  for (std::int64_t m : edges(r.tile_m))
    for (std::int64_t n : edges(r.tile_n)) {
      Case c{.m = m, .n = n, .k = ks[i++ % 3], .alpha = 0.75, .beta = -1.25};
      expect_passes(r.kernel, c, ++seed);
    }
}

// 0.5, 1.25 and 2.5 waves of output tiles over the SMs (11 tile rows: a partial raster panel).
TEST_P(Ladder, Waves) {
  const Rung& r = GetParam();
  std::uint64_t seed = 200;
  for (double waves : {0.5, 1.25, 2.5}) {
    const auto tiles = static_cast<std::int64_t>(waves * kSms);
    const std::int64_t tm = 11, tn = (tiles + tm - 1) / tm;
    Case c{.m = tm * r.tile_m - 3,
           .n = tn * r.tile_n,
           .k = 24,
           .c = DType::F32,
           .d = DType::F32,
           .alpha = 1.0,
           .beta = 0.5};
    expect_passes(r.kernel, c, ++seed);
  }
}

// Row- and column-major operands: every (trans_a, trans_b) x layout of A x layout of B x
// layout of C/D, on an aligned shape (16-byte copies) and an odd one (predicated edges).
TEST_P(Ladder, TransposesAndLayouts) {
  const Rung& r = GetParam();
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
            for (const Shape& s : shapes) {
              Case c{.m = s.m,
                     .n = s.n,
                     .k = s.k,
                     .ta = ta,
                     .tb = tb,
                     .la = la,
                     .lb = lb,
                     .lc = lc,
                     .alpha = 1.0,
                     .beta = 1.0};
              expect_passes(r.kernel, c, ++seed);
            }
}

// bf16 and fp16 inputs, f32/f16/bf16 outputs (C and D may differ), BLAS alpha/beta rules.
TEST_P(Ladder, DtypesAndScalars) {
  const Rung& r = GetParam();
  std::uint64_t seed = 400;
  struct Out {
    DType c, d;
  };
  const Out outs[] = {{DType::F32, DType::F32},
                      {DType::F16, DType::F16},
                      {DType::BF16, DType::BF16},
                      {DType::F32, DType::BF16}};
  struct Scalars {
    double alpha, beta;
  };
  const Scalars scalars[] = {{1.0, 0.0}, {0.7, 1.3}, {-1.0, 0.5}, {0.0, 1.3}, {0.0, 0.0}};
  for (DType in : {DType::BF16, DType::F16})
    for (const Out& o : outs)
      for (const Scalars& s : scalars) {
        Case c{.m = 100,
               .n = 150,
               .k = 90,
               .la = Layout::ColMajor,
               .lb = Layout::ColMajor,
               .lc = Layout::ColMajor,
               .in = in,
               .c = o.c,
               .d = o.d,
               .alpha = s.alpha,
               .beta = s.beta};
        expect_passes(r.kernel, c, ++seed);
      }
}

// K = 0 gives beta * C (A and B are empty); K = 1 is one rank-1 update.
TEST_P(Ladder, TinyK) {
  const Rung& r = GetParam();
  std::uint64_t seed = 500;
  for (std::int64_t k : {0, 1, 2, 15, 17}) {
    Case c{.m = 70, .n = 90, .k = k, .c = DType::F32, .d = DType::F32, .alpha = 2.0, .beta = 1.5};
    expect_passes(r.kernel, c, ++seed);
  }
}

// Leading dimensions: unaligned (scalar gather, never a fault) and padded to 8 (16-byte
// copies over padding), both layouts; and packed batches.
TEST_P(Ladder, LeadingDimensionsAndBatches) {
  const Rung& r = GetParam();
  std::uint64_t seed = 600;
  for (Layout l : {Layout::ColMajor, Layout::RowMajor})
    for (std::int64_t pad : {1, 3, 8}) {
      const std::int64_t m = 131, n = 67, k = 88;
      const bool col = l == Layout::ColMajor;
      Case c{.m = m,
             .n = n,
             .k = k,
             .la = l,
             .lb = l,
             .lc = l,
             .lda = (col ? m : k) + pad,
             .ldb = (col ? k : n) + pad,
             .ldc = (col ? m : n) + pad,
             .alpha = 1.0,
             .beta = 0.25};
      expect_passes(r.kernel, c, ++seed);
    }
  for (std::int64_t batch : {2, 3}) {
    Case c{.m = 65,
           .n = 130,
           .k = 40,
           .ta = Op::Trans,
           .la = Layout::ColMajor,
           .lb = Layout::ColMajor,
           .lc = Layout::ColMajor,
           .batch = batch,
           .alpha = 1.0,
           .beta = 1.0};
    expect_passes(r.kernel, c, ++seed);
  }
}

// Operands that start 1..15 elements past an allocation's (256-byte) start, one at a time
// and all at once (RELIABILITY item 7): unaligned bases must take the kernels' per-element
// or zero-filling paths and never fault or read past an operand.
TEST_P(Ladder, PointerOffsets) {
  const Rung& r = GetParam();
  std::uint64_t seed = 700;
  const Options opt{.backend = Backend::Cuda, .kernel = r.kernel};
  for (std::int64_t off : {1, 3, 8, 15})
    for (int which = 0; which < 5; ++which) {  // A, B, C, D, all four
      const Case c{.m = 200, .n = 136, .k = 72, .lc = Layout::ColMajor, .beta = 0.5};
      bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, ++seed);
      const std::vector<std::uint8_t> d_before = hc.d;
      std::vector<std::uint8_t> d_out = hc.d;
      std::vector<std::uint8_t>* host[4] = {&hc.a, &hc.b, &hc.c, &d_out};
      void* dev[4] = {};
      void* at[4] = {};
      std::string err;
      bool ok = true;
      for (int i = 0; i < 4 && ok; ++i) {
        const std::int64_t bytes = (which == i || which == 4) ? off * 2 : 0;  // 16-bit types
        ok = bench::device_alloc(&dev[i], host[i]->size() + 32, &err);
        at[i] = static_cast<std::uint8_t*>(dev[i]) + bytes;
        ok = ok && bench::copy_to_device(at[i], host[i]->data(), host[i]->size(), &err);
      }
      ASSERT_TRUE(ok) << err;
      const Status st = gemm(hc.desc, GemmArgs{at[0], at[1], at[2], at[3], c.alpha, c.beta}, opt);
      ok = bench::device_synchronize(&err) &&
           bench::copy_to_host(d_out.data(), at[3], d_out.size(), &err);
      for (void* p : dev) bench::device_free(p);
      ASSERT_TRUE(ok) << err;
      ASSERT_TRUE(st.ok()) << r.kernel << " offset " << off << " operand " << which << ": "
                           << st.message;
      const bench::Compare cmp = bench::compare_to_reference(hc, d_out, d_before);
      EXPECT_TRUE(cmp.passed) << r.kernel << " offset " << off << " operand " << which
                              << " (0 A, 1 B, 2 C, 3 D, 4 all) " << describe(c, seed) << ": "
                              << cmp.first_failure;
    }
}

// What the ladder does not take, it refuses before launching anything.
TEST_P(Ladder, RefusesOtherDtypes) {
  const Options opt{.backend = Backend::Cuda, .kernel = GetParam().kernel};
  GemmDesc d = make_desc(Case{.m = 16, .n = 16, .k = 16});
  d.a.dtype = d.b.dtype = DType::F32;
  d.c.dtype = d.d.dtype = DType::F32;
  EXPECT_EQ(can_implement(d, opt).code, StatusCode::NotSupported);
  d = make_desc(Case{.m = 16, .n = 16, .k = 16});
  d.b.dtype = DType::F16;  // mixed bf16 x fp16
  EXPECT_EQ(can_implement(d, opt).code, StatusCode::NotSupported);
  d = make_desc(Case{.m = 16, .n = 16, .k = 16});
  EXPECT_TRUE(can_implement(d, opt).ok());
}

INSTANTIATE_TEST_SUITE_P(Rungs, Ladder, ::testing::ValuesIn(kRungs),
                         [](const ::testing::TestParamInfo<Rung>& i) {
                           return std::string("rung") + std::to_string(i.index);
                         });

}  // namespace
}  // namespace gemmkit
