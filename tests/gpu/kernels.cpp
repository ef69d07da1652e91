// Every CUDA kernel (the ladder's rungs 0-4 and the sm90 production kernels) on the device,
// each through the one testbed (verify_case: seeded operands with guard bands, fp64
// reference, gauge bound, padding and inputs unchanged).
//   - the tile-edge grid (residues 1, align, tile-1, tile, tile+1, 2*tile+1) at each kernel's
//     own tile, K wrapping its pipeline ring;
//   - 0.5 / 1.25 / 2.5 waves of the 132 SMs;
//   - every (trans_a, trans_b) x layout of A, B and C/D, on K-aligned and odd shapes;
//   - bf16/fp16 inputs x f32/f16/bf16 outputs x alpha/beta (alpha = 0, beta = 0, K = 0);
//   - unaligned and padded leading dimensions, pointer offsets 1..15, batches, broadcast;
//   - beta == 0 never reads C (NaN there), results bitwise identical over repeated runs.
// Every failure message names the kernel, the case and its seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bench/device_mem.hpp"
#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/view.hpp"
#include "cuda/gemv/gemv.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/device_run.hpp"
#include "support/gpu_test.hpp"

namespace gemmkit {
namespace {

struct Subject {
  const char* kernel;
  std::int64_t tile_m, tile_n, tile_k, stages;
  dispatch::KernelRole role = dispatch::KernelRole::Ladder;
};

constexpr auto kProduction = dispatch::KernelRole::Production;
const Subject kRungs[] = {
    {"cuda.ladder.rung0", 16, 16, 1, 1},
    {"cuda.ladder.rung1", 128, 128, 32, 1},
    {"cuda.ladder.rung2", 128, 128, 32, 3},
    {"cuda.ladder.rung3", 128, 128, 32, 3},
    {"cuda.ladder.rung4", 128, 128, 64, 3},
    {"cuda.sm90_gemm_tma_ws_128x256x64_s4_c2", 128, 256, 64, 4, kProduction},
    {"cuda.sm90_gemm_tma_ws_128x256x64_s4", 128, 256, 64, 4, kProduction},
    {"cuda.sm90_gemm_tma_ws_128x192x64_s5", 128, 192, 64, 5, kProduction},
    {"cuda.sm90_gemm_tma_ws_128x128x64_s6", 128, 128, 64, 6, kProduction},
    {"cuda.sm90_gemm_tma_ws_128x128x64_s6_c2", 128, 128, 64, 6, kProduction},
    {"cuda.sm90_gemm_tma_ws_64x64x64_s12", 64, 64, 64, 12, kProduction},
    {"cuda.sm90_gemm_tma_ws_64x64x64_s12_c2", 64, 64, 64, 12, kProduction},
    {"cuda.sm90_gemm_tma_ws_64x128x64_s8", 64, 128, 64, 8, kProduction},
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

// Runs one case on the device under `opt` and expects Passed; returns whether it did.
bool expect_passes(const Case& c, std::uint64_t seed, const Options& opt) {
  const bench::VerifyResult r = bench::verify_case(make_desc(c), c.alpha, c.beta, opt, seed);
  EXPECT_EQ(r.disposition, bench::Disposition::Passed)
      << (opt.kernel ? opt.kernel : "(planner)") << " " << describe(c, seed)
      << " split=" << opt.split_k << " schedule=" << static_cast<int>(opt.schedule)
      << " sms=" << opt.sm_count_target << ": " << bench::disposition_name(r.disposition) << " "
      << r.note << " " << r.cmp.first_failure << " (max err/bound " << r.cmp.max_err_over_bound
      << ") " << to_string(r.status);
  return r.disposition == bench::Disposition::Passed;
}

// The same with the kernel named; `split`: the split-K pieces asked for (Options::split_k; 0:
// the kernel's choice); `schedule`: the scheduler mode asked for (Options::schedule).
bool expect_passes(const char* kernel, const Case& c, std::uint64_t seed, int split = 0,
                   Schedule schedule = Schedule::Auto) {
  return expect_passes(
      c, seed,
      Options{.backend = Backend::Cuda, .kernel = kernel, .split_k = split, .schedule = schedule});
}

using test::run_device;

// Fills C with NaN (the call is beta == 0, so it must never be read).
void fill_c_with_nan(bench::HostCase& hc, DType out) { test::fill_with_nan(hc.c, out); }

// Runs hc twice under opt (operands at offset_bytes) and expects the same bits both times;
// the first result is returned in `first`. False when a call failed.
bool runs_repeatably(bench::HostCase& hc, const Options& opt, std::vector<std::uint8_t>& first,
                     const std::string& what, const std::int64_t (&offset_bytes)[4] = {0, 0, 0, 0}) {
  first = hc.d;
  std::vector<std::uint8_t> second = hc.d;
  const Status s1 = run_device(hc, first, opt, offset_bytes);
  const Status s2 = run_device(hc, second, opt, offset_bytes);
  EXPECT_TRUE(s1.ok() && s2.ok()) << what << ": " << to_string(s1) << " / " << to_string(s2);
  EXPECT_TRUE(first == second) << what << ": not bitwise repeatable";
  return s1.ok() && s2.ok();
}

// beta == 0 with NaN in C, the operands (A, B, D) `off` elements past 16 bytes, run twice:
// right against the reference and the same bits both times.
void expect_nan_c_offsets_repeat(const char* kernel, const Case& c, std::uint64_t seed,
                                 std::int64_t off) {
  const Options opt{.backend = Backend::Cuda, .kernel = kernel};
  bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, seed);
  const std::vector<std::uint8_t> d_before = hc.d;
  fill_c_with_nan(hc, c.c);
  std::vector<std::uint8_t> first;
  const std::int64_t at[4] = {off * 2, off * 2, 0, off * 2};
  const std::string what = std::string(kernel) + " " + describe(c, seed) + " offset " +
                           std::to_string(off);
  if (!runs_repeatably(hc, opt, first, what, at)) return;
  const bench::Compare cmp = bench::compare_to_reference(hc, first, d_before);
  EXPECT_TRUE(cmp.passed) << what << ": " << cmp.first_failure;
}

class CudaKernel : public ::testing::TestWithParam<Subject> {};

TEST_P(CudaKernel, IsRegisteredAsCudaKernel) {
  const dispatch::KernelInfo* k = dispatch::registry().find(GetParam().kernel);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->backend, Backend::Cuda);
  EXPECT_EQ(k->role, GetParam().role);
  EXPECT_TRUE(dispatch::is_filled(k->config)) << dispatch::to_string(k->config);
}

// The tile-edge grid: m, n in {1, align, tile-1, tile, tile+1, 2*tile+1, 512-3*align}; k in
// {align, TileK*(stages+1)-align, large}. Every (m, n) pair, k cycling through its three.
TEST_P(CudaKernel, TileEdgeGrid) {
  const Subject& r = GetParam();
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
TEST_P(CudaKernel, Waves) {
  const Subject& r = GetParam();
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
TEST_P(CudaKernel, TransposesAndLayouts) {
  const Subject& r = GetParam();
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
TEST_P(CudaKernel, DtypesAndScalars) {
  const Subject& r = GetParam();
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
TEST_P(CudaKernel, TinyK) {
  const Subject& r = GetParam();
  std::uint64_t seed = 500;
  for (std::int64_t k : {0, 1, 2, 15, 17}) {
    Case c{.m = 70, .n = 90, .k = k, .c = DType::F32, .d = DType::F32, .alpha = 2.0, .beta = 1.5};
    expect_passes(r.kernel, c, ++seed);
  }
}

// Leading dimensions: unaligned (scalar gather, never a fault) and padded to 8 (16-byte
// copies over padding), both layouts; and packed batches.
TEST_P(CudaKernel, LeadingDimensionsAndBatches) {
  const Subject& r = GetParam();
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
// and all at once: unaligned bases must take the kernels' per-element
// or zero-filling paths and never fault or read past an operand.
TEST_P(CudaKernel, PointerOffsets) {
  const Subject& r = GetParam();
  std::uint64_t seed = 700;
  const Options opt{.backend = Backend::Cuda, .kernel = r.kernel};
  for (std::int64_t off : {1, 3, 8, 15})
    for (int which = 0; which < 5; ++which) {  // A, B, C, D, all four
      const Case c{.m = 200, .n = 136, .k = 72, .lc = Layout::ColMajor, .beta = 0.5};
      bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, ++seed);
      const std::vector<std::uint8_t> d_before = hc.d;
      std::vector<std::uint8_t> d_out = hc.d;
      std::int64_t at[4];
      for (int i = 0; i < 4; ++i) at[i] = (which == i || which == 4) ? off * 2 : 0;  // 16-bit
      const Status st = run_device(hc, d_out, opt, at);
      ASSERT_TRUE(st.ok()) << r.kernel << " offset " << off << " operand " << which << ": "
                           << st.message;
      const bench::Compare cmp = bench::compare_to_reference(hc, d_out, d_before);
      EXPECT_TRUE(cmp.passed) << r.kernel << " offset " << off << " operand " << which
                              << " (0 A, 1 B, 2 C, 3 D, 4 all) " << describe(c, seed) << ": "
                              << cmp.first_failure;
    }
}

// What a kernel does not take, it refuses before launching anything.
TEST_P(CudaKernel, RefusesOtherDtypes) {
  const Options opt{.backend = Backend::Cuda, .kernel = GetParam().kernel};
  GemmDesc d = make_desc(Case{.m = 16, .n = 16, .k = 16});
  d.a.dtype = d.b.dtype = DType::F32;
  d.c.dtype = d.d.dtype = DType::F32;
  EXPECT_EQ(can_implement(d, opt).code, StatusCode::NotSupported);
  d = make_desc(Case{.m = 16, .n = 16, .k = 16});
  d.b.dtype = DType::F16;  // mixed bf16 x fp16
  EXPECT_EQ(can_implement(d, opt).code, StatusCode::NotSupported);
  // fp8 (the CPU's for now) and block scales: refused, never run unscaled.
  for (DType t : {DType::E4M3, DType::E5M2}) {
    d = make_desc(Case{.m = 16, .n = 16, .k = 128});
    d.a.dtype = d.b.dtype = t;
    EXPECT_EQ(can_implement(d, opt).code, StatusCode::NotSupported) << dtype_name(t);
  }
  d = make_desc(Case{.m = 16, .n = 16, .k = 128});
  d.scale_a.mode = ScaleMode::Block1x128;
  d.scale_b.mode = ScaleMode::Block128x128;
  d = with_default_lds(d);
  EXPECT_EQ(can_implement(d, opt).code, StatusCode::NotSupported);
  d = make_desc(Case{.m = 16, .n = 16, .k = 16});
  EXPECT_TRUE(can_implement(d, opt).ok());
}

// beta == 0 never reads C: C full of NaN still gives a finite D, on every edge path.
TEST_P(CudaKernel, BetaZeroNeverReadsC) {
  const Subject& r = GetParam();
  const Options opt{.backend = Backend::Cuda, .kernel = r.kernel};
  std::uint64_t seed = 800;
  for (const std::int64_t m : {r.tile_m, r.tile_m + 5})
    for (DType out : {DType::F32, DType::BF16}) {
      const Case c{.m = m, .n = r.tile_n + 3, .k = 70, .c = out, .d = out, .beta = 0.0};
      bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, ++seed);
      const std::vector<std::uint8_t> d_before = hc.d;
      fill_c_with_nan(hc, out);
      std::vector<std::uint8_t> d_out = hc.d;
      ASSERT_TRUE(run_device(hc, d_out, opt).ok());
      const bench::Compare cmp = bench::compare_to_reference(hc, d_out, d_before);
      EXPECT_TRUE(cmp.passed) << r.kernel << " " << describe(c, seed) << ": "
                              << cmp.first_failure;
    }
}

// The same call twice gives the same bits (no atomics, a fixed reduction order).
TEST_P(CudaKernel, BitwiseRepeatable) {
  const Subject& r = GetParam();
  const Options opt{.backend = Backend::Cuda, .kernel = r.kernel};
  const Case c{.m = 3 * r.tile_m + 1, .n = 2 * r.tile_n + 7, .k = 1000, .c = DType::F32,
               .d = DType::F32, .beta = 0.5};
  bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, 900);
  std::vector<std::uint8_t> first;
  runs_repeatably(hc, opt, first, r.kernel);
}

// Batched with a broadcast operand (batch stride 0) for A, then for B.
TEST_P(CudaKernel, BatchedBroadcast) {
  const Subject& r = GetParam();
  std::uint64_t seed = 1000;
  for (int which : {0, 1}) {
    Case c{.m = r.tile_m + 9, .n = r.tile_n - 5, .k = 136, .batch = 3, .alpha = 1.0,
           .beta = 1.0};
    GemmDesc d = make_desc(c);
    (which == 0 ? d.a : d.b).batch_stride = 0;
    const bench::VerifyResult v = bench::verify_case(
        d, c.alpha, c.beta, Options{.backend = Backend::Cuda, .kernel = r.kernel}, ++seed);
    EXPECT_EQ(v.disposition, bench::Disposition::Passed)
        << r.kernel << " broadcast " << (which == 0 ? "A" : "B") << ": " << v.note << " "
        << v.cmp.first_failure;
  }
}

// Split-K (a scheduler mode of the production kernels): few tiles and a long K cut into the
// pieces asked for (0: the kernel's own count; more than one piece per SM is clamped), C read
// once (beta != 0), batched, the last piece ragged, counts of 8 to 24 pieces, D f32 and B
// transposed; then the same call twice, same bits, at two counts.
TEST_P(CudaKernel, SplitK) {
  const Subject& r = GetParam();
  if (r.role != kProduction) GTEST_SKIP() << "split-K is a mode of the production kernels";
  std::uint64_t seed = 1100;
  for (int split : {0, 2, 3, 7, 8, 12, 16, 24}) {
    const Case c{.m = r.tile_m + 5,
                 .n = r.tile_n - 3,
                 .k = 64 * 40 + 7,
                 .c = DType::F32,
                 .d = DType::BF16,
                 .batch = split == 3 || split == 12 ? 2 : 1,
                 .alpha = 0.5,
                 .beta = -1.5};
    expect_passes(r.kernel, c, ++seed, split);
  }
  for (int split : {8, 16}) {
    const Case c{.m = 3 * r.tile_m - 1,
                 .n = r.tile_n + 9,
                 .k = 64 * 33,
                 .tb = Op::Trans,
                 .c = DType::F32,
                 .d = DType::F32,
                 .beta = 0.0};
    expect_passes(r.kernel, c, ++seed, split);
  }
  // More pieces than K-iterations (41), or than resident CTAs over the tiles: refused, D
  // untouched (a count run lower than asked would be reported as the count asked for).
  for (const auto& [m, split] : {std::pair{r.tile_m + 5, 500}, std::pair{40 * r.tile_m, 8}}) {
    const Case c{
        .m = m, .n = r.tile_n - 3, .k = 64 * 40 + 7, .c = DType::F32, .d = DType::F32, .beta = 0.5};
    bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, 1140);
    std::vector<std::uint8_t> d = hc.d;
    const Status s =
        run_device(hc, d, Options{.backend = Backend::Cuda, .kernel = r.kernel, .split_k = split});
    EXPECT_EQ(s.code, StatusCode::NotSupported)
        << r.kernel << " split " << split << ": " << to_string(s);
    EXPECT_NE(s.message.find("Options::split_k"), std::string::npos) << s.message;
    EXPECT_TRUE(d == hc.d) << r.kernel << " split " << split << ": D changed by a refused call";
  }
  // Repeatable bits, the same in gemmkit's pooled workspace and in a caller's, at its start
  // and 16 bytes in (pieces off 128-byte lines: the reduction keeps their L2 lines, where at
  // the start it drops them once summed); 2 to 64 pieces (the reduction's thread groups
  // differ with the count; 64 only where the tiles leave room).
  for (int split : {2, 7, 16, 64}) {
    const Options opt{.backend = Backend::Cuda, .kernel = r.kernel, .split_k = split};
    const Case c{
        .m = 2 * r.tile_m, .n = r.tile_n, .k = 5000, .c = DType::F32, .d = DType::F32, .beta = 0.5};
    const std::string what = std::string(r.kernel) + " split-K " + std::to_string(split);
    bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, 1150);
    const std::size_t bytes = workspace_size(hc.desc, opt);
    if (split == 64 && bytes == 0) continue;
    std::vector<std::uint8_t> pooled, own;
    if (!runs_repeatably(hc, opt, pooled, what)) continue;
    void* ws = nullptr;
    std::string err;
    ASSERT_TRUE(bench::device_alloc(&ws, bytes + 16, &err)) << err;
    for (std::size_t offset : {0, 16}) {
      Options with_ws = opt;
      with_ws.workspace = static_cast<unsigned char*>(ws) + offset;
      with_ws.workspace_bytes = bytes;
      const std::string at = what + " (caller's workspace + " + std::to_string(offset) + ")";
      runs_repeatably(hc, with_ws, own, at);
      EXPECT_TRUE(own == pooled) << at << ": other bits than the pool";
    }
    bench::device_free(ws);
  }
}

// Options::dynamic_schedule (tiles from a counter; clustered kernels keep the fixed deal):
// 1.25 and 2.5 waves of tiles, a batch, alpha == 0 and K == 0 (no operand read, every tile
// still taken), beta != 0, f32 D; the bits equal the fixed deal's, call after call (the
// counter is left at zero), from gemmkit's pool and from a caller's workspace.
TEST_P(CudaKernel, DynamicSchedule) {
  const Subject& r = GetParam();
  if (r.role != kProduction) GTEST_SKIP() << "a mode of the production kernels";
  const Options dyn{.backend = Backend::Cuda, .kernel = r.kernel, .dynamic_schedule = true};
  const std::int64_t tiles_m = 11, tiles_n = 15;  // 165 tiles: 1.25 waves
  std::uint64_t seed = 1300;
  const Case cases[] = {
      {.m = tiles_m * r.tile_m - 3,
       .n = tiles_n * r.tile_n + 0,
       .k = 200,
       .c = DType::F32,
       .d = DType::F32,
       .beta = 0.5},
      {.m = 2 * tiles_m * r.tile_m, .n = tiles_n * r.tile_n - 1, .k = 72, .beta = 0.0},
      {.m = 3 * r.tile_m + 1, .n = 2 * r.tile_n + 7, .k = 300, .batch = 3, .beta = 1.0},
      {.m = tiles_m * r.tile_m, .n = tiles_n * r.tile_n, .k = 64, .alpha = 0.0, .beta = 2.0},
      {.m = tiles_m * r.tile_m, .n = r.tile_n, .k = 0, .beta = -1.0},
  };
  for (const Case& c : cases) {
    const bench::VerifyResult v = bench::verify_case(make_desc(c), c.alpha, c.beta, dyn, ++seed);
    EXPECT_EQ(v.disposition, bench::Disposition::Passed)
        << r.kernel << " dynamic " << describe(c, seed) << ": " << v.note << " "
        << v.cmp.first_failure;
  }
  const Case c = cases[0];
  bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, 1390);
  std::vector<std::uint8_t> fixed = hc.d, dynamic;
  const Options fixed_opt{.backend = Backend::Cuda, .kernel = r.kernel};
  ASSERT_TRUE(run_device(hc, fixed, fixed_opt).ok());
  const std::string what = std::string(r.kernel) + " dynamic";
  if (!runs_repeatably(hc, dyn, dynamic, what)) return;
  EXPECT_TRUE(dynamic == fixed) << what << ": not the fixed deal's bits";
  if (dispatch::registry().find(r.kernel)->config.cluster_m > 1) return;  // the fixed deal
  // A caller's workspace: the counter there, cleared on the stream each call.
  const std::size_t bytes = workspace_size(hc.desc, dyn);
  EXPECT_GT(bytes, 0u) << what << ": no room for the counter in a caller's workspace";
  void* ws = nullptr;
  std::string err;
  ASSERT_TRUE(bench::device_alloc(&ws, bytes, &err)) << err;
  Options with_ws = dyn;
  with_ws.workspace = ws;
  with_ws.workspace_bytes = bytes;
  std::vector<std::uint8_t> again;
  runs_repeatably(hc, with_ws, again, what + " (caller's workspace)");
  EXPECT_TRUE(again == fixed) << what << " (caller's workspace): not the fixed deal's bits";
  bench::device_free(ws);
}

// Options::sm_count_target (at most that many SMs for the persistent grid): data-parallel at
// 1.25 waves of the whole device (so a capped grid walks more tiles per CTA), split-K whose
// count must fit the capped grid, stream-K; each verified, and the data-parallel bits equal
// the uncapped call's (a tile's sum does not depend on which CTA computes it). A cap of one
// SM (a clustered kernel takes its cluster) still runs every tile. The capped calls come
// first, so that in a process of their own (--gtest_filter) the kernel is set up under a cap,
// and the uncapped split-K call after them must still get every SM's pieces.
TEST_P(CudaKernel, SmCountTarget) {
  const Subject& r = GetParam();
  if (r.role != kProduction) GTEST_SKIP() << "a launch option of the persistent kernels";
  const dispatch::KernelConfig& cfg = dispatch::registry().find(r.kernel)->config;
  std::uint64_t seed = 1500;
  const Case dp_case{.m = 11 * r.tile_m - 3,
                     .n = 15 * r.tile_n,
                     .k = 200,
                     .c = DType::F32,
                     .d = DType::F32,
                     .beta = 0.5};
  bench::HostCase hc = bench::HostCase::make(make_desc(dp_case), dp_case.alpha, dp_case.beta, 1490);
  const Options all{
      .backend = Backend::Cuda, .kernel = r.kernel, .schedule = Schedule::DataParallel};
  std::vector<std::vector<std::uint8_t>> capped_bits;
  const int caps[] = {20, 1, 66, 131};
  for (int sms : caps) {
    Options capped = all;
    capped.sm_count_target = sms;
    std::vector<std::uint8_t> got = hc.d;
    ASSERT_TRUE(run_device(hc, got, capped).ok()) << r.kernel << " on " << sms << " SMs";
    capped_bits.push_back(std::move(got));
    const bench::VerifyResult v =
        bench::verify_case(make_desc(dp_case), dp_case.alpha, dp_case.beta, capped, ++seed);
    EXPECT_EQ(v.disposition, bench::Disposition::Passed)
        << r.kernel << " on " << sms << " SMs " << describe(dp_case, seed) << ": " << v.note << " "
        << v.cmp.first_failure;
  }
  std::vector<std::uint8_t> whole = hc.d;
  ASSERT_TRUE(run_device(hc, whole, all).ok());
  for (std::size_t i = 0; i < capped_bits.size(); ++i)
    EXPECT_TRUE(capped_bits[i] == whole)
        << r.kernel << " on " << caps[i] << " SMs: not the uncapped call's bits";
  // Split-K, few tiles and a long K: on the whole device after the capped calls, then on 40 SMs
  // (the planner's count fits the capped grid).
  const Case sk{
      .m = 2 * r.tile_m, .n = r.tile_n, .k = 5000, .c = DType::F32, .d = DType::F32, .beta = 0.5};
  if (cfg.supports(sched::Mode::SplitK))
    for (int sms : {0, 40}) {
      const Options opt{.backend = Backend::Cuda,
                        .kernel = r.kernel,
                        .schedule = Schedule::SplitK,
                        .sm_count_target = sms};
      const bench::VerifyResult v =
          bench::verify_case(make_desc(sk), sk.alpha, sk.beta, opt, ++seed);
      EXPECT_EQ(v.disposition, bench::Disposition::Passed)
          << r.kernel << " split-K on " << (sms ? sms : kSms) << " SMs " << describe(sk, seed)
          << ": " << v.note << " " << v.cmp.first_failure << " " << to_string(v.status);
    }
  if (cfg.supports(sched::Mode::StreamK)) {
    const Case st{.m = 3 * r.tile_m, .n = 5 * r.tile_n, .k = 3000, .beta = 1.0};
    const Options opt{.backend = Backend::Cuda,
                      .kernel = r.kernel,
                      .schedule = Schedule::StreamK,
                      .sm_count_target = 12};
    const bench::VerifyResult v = bench::verify_case(make_desc(st), st.alpha, st.beta, opt, ++seed);
    EXPECT_EQ(v.disposition, bench::Disposition::Passed)
        << r.kernel << " stream-K on 12 SMs " << describe(st, seed) << ": " << v.note << " "
        << v.cmp.first_failure;
  }
}

// Stream-K (a scheduler mode of the production kernels): 1.25 waves of tiles (all spread by K;
// a worker's share crosses tile boundaries: 8 K-iterations a tile, 10 a worker), 2.5 waves
// (two data-parallel waves first), fewer tiles than SMs, a batch, alpha == 0, K == 0, an
// unaligned D (the staged epilogue after the fixup); then the same call twice, same bits.
TEST_P(CudaKernel, StreamK) {
  const Subject& r = GetParam();
  if (r.role != kProduction) GTEST_SKIP() << "stream-K is a mode of the production kernels";
  if (!dispatch::registry().find(r.kernel)->config.supports(sched::Mode::StreamK)) {
    // A kernel without the mode refuses the request, naming it, and runs nothing.
    const Case c{.m = 300, .n = 300, .k = 300};
    const Status st = can_implement(
        make_desc(c), Options{.backend = Backend::Cuda, .kernel = r.kernel,
                              .schedule = Schedule::StreamK});
    EXPECT_EQ(st.code, StatusCode::NotSupported) << r.kernel;
    EXPECT_NE(st.message.find("Options::schedule"), std::string::npos) << st.message;
    return;
  }
  const auto waves = [&](double w) {
    return (static_cast<std::int64_t>(w * kSms) + 10) / 11 * r.tile_n;  // n of 11 tile rows
  };
  const std::int64_t m11 = 11 * r.tile_m - 3;
  const Case cases[] = {
      {.m = m11, .n = waves(1.25), .k = 8 * 64 - 5, .c = DType::F32, .beta = -1.5},
      {.m = m11, .n = waves(2.5), .k = 3 * 64, .c = DType::BF16, .beta = 0.5},
      {.m = 2 * r.tile_m + 1, .n = r.tile_n - 3, .k = 5000, .c = DType::F32, .d = DType::F32,
       .beta = 1.0},
      {.m = r.tile_m + 5, .n = 3 * r.tile_n, .k = 64 * 20 + 7, .batch = 3, .beta = 0.25},
      {.m = m11, .n = waves(1.25), .k = 300, .alpha = 0.0, .beta = 2.0},
      {.m = 300, .n = 200, .k = 0, .c = DType::F32, .d = DType::F32, .beta = -0.5},
      {.m = m11, .n = waves(1.25) - 2, .k = 8 * 64 + 1, .ldc = waves(1.25) - 1, .beta = 0.75},
  };
  std::uint64_t seed = 1200;
  for (const Case& c : cases) expect_passes(r.kernel, c, ++seed, 0, Schedule::StreamK);
  const Options opt{.backend = Backend::Cuda, .kernel = r.kernel, .schedule = Schedule::StreamK};
  const Case c{.m = m11, .n = waves(1.25), .k = 1000, .c = DType::F32, .d = DType::F32,
               .beta = 0.5};
  bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, 1250);
  std::vector<std::uint8_t> first;
  runs_repeatably(hc, opt, first, std::string(r.kernel) + " stream-K");
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaKernel, ::testing::ValuesIn(kRungs),
                         [](const ::testing::TestParamInfo<Subject>& i) {
                           std::string n = i.param.kernel;
                           for (char& ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

// The decode tile (cuda.sm90_gemm_tma_ws_128x64x64_s8): M or N <= 64 (down to 3; 1 and 2 with
// K contiguous are the small-N kernel's), the large side as the
// tile's M, split-K over the SMs. Both orientations (small M: x @ W^T decode; small N),
// every transpose and layout, dtypes, split counts, unaligned leading dimensions and bases
// (the staging path), beta == 0 with NaN C, repeatable bits.
constexpr const char* kDecode = "cuda.sm90_gemm_tma_ws_128x64x64_s8";

// The small-N kernel (cuda.gemv_small_n): M or N <= 2, both operands streamed along K.
// Both orientations, K residues (chunks of 8, the unrolled loop's tail), every transpose and
// layout it takes (and NotSupported for those it does not: the large operand's K must be
// contiguous), misaligned bases (scalar loads), batches, beta == 0 with NaN C, repeatable.
constexpr const char* kGemv = "cuda.gemv_small_n";

TEST(CudaGemvKernel, SmallSideAndKResidues) {
  std::uint64_t seed = 2400;
  int i = 0;
  for (std::int64_t small : {1, 2})
    for (std::int64_t large : {1, 31, 1000, 4103})
      for (std::int64_t k : {1, 7, 8, 2047, 4100}) {
        const bool small_m = i++ % 2 == 0;
        // Both operands K-contiguous: A row-major, B column-major.
        const Case c{.m = small_m ? small : large, .n = small_m ? large : small, .k = k,
                     .la = Layout::RowMajor, .lb = Layout::ColMajor, .lc = Layout::RowMajor,
                     .c = DType::F32, .d = i % 3 == 0 ? DType::F32 : DType::BF16,
                     .alpha = 1.0, .beta = i % 4 == 0 ? 0.0 : 0.5};
        expect_passes(kGemv, c, ++seed);
      }
}

TEST(CudaGemvKernel, LayoutsTakenAndRefused) {
  const Options opt{.backend = Backend::Cuda, .kernel = kGemv};
  std::uint64_t seed = 2500;
  const Layout both[] = {Layout::ColMajor, Layout::RowMajor};
  int taken = 0;
  for (Op ta : {Op::NoTrans, Op::Trans})
    for (Op tb : {Op::NoTrans, Op::Trans})
      for (Layout la : both)
        for (Layout lb : both)
          for (Layout lc : both) {
            const Case c{.m = 2, .n = 1000, .k = 1032, .ta = ta, .tb = tb, .la = la, .lb = lb,
                         .lc = lc, .in = seed % 3 == 0 ? DType::F16 : DType::BF16,
                         .alpha = -0.5, .beta = 1.0};
            // Taken when K runs contiguously in op(A) (step 1 along a row) and in op(B) (step 1
            // down a column).
            const core::ProblemView v = core::make_view(with_default_lds(make_desc(c)));
            const Status s = can_implement(make_desc(c), opt);
            if (v.a.col != 1 || v.b.row != 1) {
              EXPECT_EQ(s.code, StatusCode::NotSupported) << describe(c, seed);
              continue;
            }
            ++taken;
            expect_passes(kGemv, c, ++seed);
          }
  EXPECT_EQ(taken, 8);
  const Case batched{.m = 1000, .n = 2, .k = 520, .lb = Layout::ColMajor, .batch = 3,
                     .alpha = 1.0, .beta = 1.0};
  expect_passes(kGemv, batched, ++seed);
  // A single row of the small side may have any stride (M = 1, x column-major, lda = 1).
  const Case one{.m = 1, .n = 3000, .k = 2048, .la = Layout::ColMajor, .lb = Layout::ColMajor,
                 .alpha = 1.0, .beta = 0.0};
  EXPECT_TRUE(can_implement(make_desc(one), opt).ok());
  expect_passes(kGemv, one, ++seed);
}

TEST(CudaGemvKernel, OffsetsNaNCAndRepeats) {
  std::uint64_t seed = 2600;
  for (std::int64_t off : {0, 1, 3})
    expect_nan_c_offsets_repeat(kGemv,
                                Case{.m = 2, .n = 2000, .k = 1000, .la = Layout::RowMajor,
                                     .lb = Layout::ColMajor, .c = DType::BF16, .d = DType::BF16,
                                     .beta = 0.0},
                                ++seed, off);
}

// Rows the TMA can read but that start off 128 bytes (ld 4600 bf16 = 9200 bytes) are copied
// into rows padded to 128 bytes when the GEMM is long enough for that to pay (4600^3), and read
// as they are when not (1000^3); both right. The workspace says which happened.
TEST(CudaStaging, MisalignedRowsCopiedWhereItPays) {
  const char* k = "cuda.sm90_gemm_tma_ws_128x256x64_s4";
  const Options opt{.backend = Backend::Cuda, .kernel = k, .split_k = 1};  // no partials
  const GemmDesc big = make_desc(Case{.m = 4600, .n = 4600, .k = 4600});
  const std::size_t padded = 2 * std::size_t{4600} * 4608 * 2;  // both operands, 64-element rows
  EXPECT_GE(workspace_size(big, opt), padded);
  EXPECT_EQ(workspace_size(make_desc(Case{.m = 1000, .n = 1000, .k = 1000}), opt), 0u);
  EXPECT_EQ(workspace_size(make_desc(Case{.m = 4096, .n = 4096, .k = 4096}), opt), 0u);
  expect_passes(k, Case{.m = 4600, .n = 4600, .k = 4600, .beta = 0.5}, 1300);
  expect_passes(k, Case{.m = 1000, .n = 1000, .k = 1000, .beta = 0.5}, 1301);
}

// An operand of more than 2^31 elements (A: 65539 x 32776 bf16, 4.3 GB; row- and
// column-major): 64-bit index math end to end, through the planner's kernel and a
// data-parallel one. Skipped when the device has not the memory.
TEST(CudaLargeOperand, MoreThan2To31Elements) {
  std::size_t free_bytes = 0, total = 0;
  ASSERT_TRUE(bench::device_mem_info(&free_bytes, &total));
  const std::int64_t m = (1 << 16) + 3, k = (1 << 15) + 8, n = 24;
  ASSERT_GT(m * k, std::int64_t{1} << 31);
  if (free_bytes < 12ull << 30) GTEST_SKIP() << "needs 12 GB of device memory";
  std::uint64_t seed = 2300;
  for (Layout la : {Layout::RowMajor, Layout::ColMajor})
    for (const char* kernel : {static_cast<const char*>(nullptr),
                               "cuda.sm90_gemm_tma_ws_128x128x64_s6"}) {
      const Case c{.m = m, .n = n, .k = k, .la = la, .c = DType::F32, .d = DType::F32,
                   .alpha = 1.0, .beta = 1.0};
      const bench::VerifyResult r = bench::verify_case(
          make_desc(c), c.alpha, c.beta, Options{.backend = Backend::Cuda, .kernel = kernel},
          ++seed);
      EXPECT_EQ(r.disposition, bench::Disposition::Passed)
          << (kernel ? kernel : "planner") << " " << describe(c, seed) << ": " << r.note << " "
          << r.cmp.first_failure;
    }
}

TEST(CudaDecodeKernel, SmallSideEdgesAndSplits) {
  std::uint64_t seed = 2000;
  int i = 0;
  for (std::int64_t small : {3, 7, 8, 16, 33, 63, 64})
    for (std::int64_t large : {3, 127, 129, 1000, 4099}) {
      const std::int64_t k = i % 3 == 0 ? 8 : i % 3 == 1 ? 520 : 4100;
      const bool small_m = i++ % 2 == 0;
      const Case c{.m = small_m ? small : large, .n = small_m ? large : small, .k = k,
                   .c = DType::F32, .d = DType::BF16, .alpha = 1.0, .beta = 0.5};
      // 3 pieces forced where K has 3 iterations of 64 (fewer are refused, as on every tile).
      expect_passes(kDecode, c, ++seed, i % 4 == 0 ? 1 : i % 4 == 1 && k > 8 ? 3 : 0);
    }
  const dispatch::KernelInfo* k = dispatch::registry().find(kDecode);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->can_implement(make_desc(Case{.m = 65, .n = 65, .k = 8})).code,
            StatusCode::NotSupported);
}

// Options::sm_count_target on the decode tile: its own split count (the large side's tiles
// over the SMs it is given) and a forced one fit the capped grid; verified on 1, 16 and 100 SMs,
// small side as M and as N.
TEST(CudaDecodeKernel, SmCountTarget) {
  std::uint64_t seed = 2050;
  for (int sms : {1, 16, 100})
    for (auto [small, large, k] :
         {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 4096, 4096},
          {1, 2112, 7168},
          {7, 1000, 520}}) {
      const bool small_m = seed % 2 == 0;
      const Case c{.m = small_m ? small : large,
                   .n = small_m ? large : small,
                   .k = k,
                   .c = DType::F32,
                   .d = DType::BF16,
                   .alpha = 1.0,
                   .beta = 0.5};
      for (int split : {0, 2}) {
        const Options opt{
            .backend = Backend::Cuda, .kernel = kDecode, .split_k = split, .sm_count_target = sms};
        // Two pieces of each 128-row tile of the large side fit one per CTA, or are refused.
        if (split == 2 && 2 * ((large + 127) / 128) > sms) {
          const bench::VerifyResult v =
              bench::verify_case(make_desc(c), c.alpha, c.beta, opt, ++seed);
          EXPECT_EQ(v.status.code, StatusCode::NotSupported)
              << kDecode << " on " << sms << " SMs, split 2 " << describe(c, seed)
              << ": more pieces than CTAs, not refused";
          continue;
        }
        expect_passes(c, ++seed, opt);
      }
    }
}

TEST(CudaDecodeKernel, TransposesLayoutsDtypes) {
  std::uint64_t seed = 2100;
  const Layout both[] = {Layout::ColMajor, Layout::RowMajor};
  for (Op ta : {Op::NoTrans, Op::Trans})
    for (Op tb : {Op::NoTrans, Op::Trans})
      for (Layout la : both)
        for (Layout lb : both)
          for (Layout lc : both) {
            const bool small_m = seed % 2 == 0;
            const Case c{.m = small_m ? 13 : 777, .n = small_m ? 777 : 13, .k = 1096, .ta = ta,
                         .tb = tb, .la = la, .lb = lb, .lc = lc,
                         .in = seed % 3 == 0 ? DType::F16 : DType::BF16, .alpha = 1.0,
                         .beta = seed % 4 == 0 ? 0.0 : 1.0};
            expect_passes(kDecode, c, ++seed);
          }
  for (std::int64_t pad : {1, 3}) {  // leading dimensions the TMA cannot take: staged
    const Case c{.m = 4, .n = 3001, .k = 2050, .lda = 2050 + pad, .ldb = 3001 + pad,
                 .ldc = 3001 + pad, .alpha = 1.0, .beta = 1.0};
    expect_passes(kDecode, c, ++seed);
  }
  const Case batched{.m = 16, .n = 1000, .k = 512, .batch = 3, .alpha = 1.0, .beta = 1.0};
  expect_passes(kDecode, batched, ++seed);
}

TEST(CudaDecodeKernel, BetaZeroNeverReadsCAndRepeats) {
  expect_nan_c_offsets_repeat(
      kDecode, Case{.m = 8, .n = 4096, .k = 4096, .c = DType::BF16, .d = DType::BF16, .beta = 0.0},
      2200, 0);
}

// The row-block decode kernel (cuda.decode_rows_mma): M or N <= 16, the weight's rows (the
// large side) K-contiguous and streamed through the TMA, row blocks of R rows each taken by
// one CTA over the full K or by a cluster of 2 to 4 CTAs over a share of K each (their sums
// added through shared memory); x copied as K-contiguous rows on 16 bytes or as a packed
// M-major block (other layouts refused; a base off 16 bytes served by the decode tile). Cuts
// of 24 to 128 rows a block (fewer are refused), splits of 1 to 4, K tails (leading
// dimensions past K), both orientations, the layouts it takes and refuses, dtypes, batches
// (and a broadcast weight), alpha = 0, K = 0, beta == 0 with NaN C, a base off 16 bytes,
// repeatable bits.
constexpr const char* kRows = "cuda.decode_rows_mma";

// Whether the row-block kernel takes the problem: the weight's rows K-contiguous, a cut of at
// least 24 rows a block (not 33-47 when K > 8192 and K is not split), x K-contiguous (rows on 16
// bytes) or packed M-major, K a multiple of 8.
bool takes(const GemmDesc& desc) {
  const GemmDesc d = with_default_lds(desc);
  const core::ProblemView v = core::make_view(d);
  const bool small_m = d.m <= d.n;
  const bool w_kcontig = small_m ? v.b.row == 1 : v.a.col == 1;
  const gemv::DecodeRowsCut cut = gemv::decode_rows_cut(d);
  if (!w_kcontig || cut.rows < 24 ||
      (cut.splits == 1 && d.k > 8192 && cut.rows > 32 && cut.rows < 48))
    return false;
  const std::int64_t small = small_m ? d.m : d.n;
  // x as (small, k): op(A) rows when M is small, op(B) columns when N is.
  const std::int64_t s_k = small_m ? v.a.col : v.b.row, s_outer = small_m ? v.a.row : v.b.col;
  const bool x_rows = s_k == 1 && (small == 1 || s_outer % 8 == 0);
  const bool x_packed = s_outer == 1 && s_k == small;
  return d.k % 8 == 0 && (x_rows || x_packed);
}

TEST(CudaDecodeRows, SmallSideCutsAndKTails) {
  std::uint64_t seed = 2700;
  int i = 0;
  for (std::int64_t small : {1, 2, 3, 8, 9, 16})
    for (std::int64_t large : {5, 129, 1000, 4096, 14340})
      for (std::int64_t k : {8, 520, 1000, 9000}) {
        if (large * k > 40'000'000) continue;
        const bool small_m = i++ % 2 == 0;
        const std::int64_t ld = (k + 7) / 8 * 8 + (i % 3 == 0 ? 8 : 0);  // rows on 16 bytes
        // The weight K-contiguous: op(B) columns (small M) or op(A) rows (small N).
        const Case c{.m = small_m ? small : large, .n = small_m ? large : small, .k = k,
                     .la = Layout::RowMajor, .lb = Layout::ColMajor, .lc = Layout::RowMajor,
                     .c = DType::F32, .d = i % 3 == 0 ? DType::F32 : DType::BF16,
                     .lda = ld, .ldb = ld, .alpha = 1.0, .beta = i % 4 == 0 ? 0.0 : 0.5};
        if (!takes(make_desc(c))) {
          EXPECT_EQ(can_implement(make_desc(c), Options{.backend = Backend::Cuda,
                                                        .kernel = kRows})
                        .code,
                    StatusCode::NotSupported)
              << describe(c, seed);
          continue;
        }
        expect_passes(kRows, c, ++seed);
      }
}

// Options::sm_count_target: the row blocks fill the SMs they are given (fewer rows a block
// or more blocks a CTA, a split only in one wave of the capped clusters); verified on 1, 16
// and 100 SMs, unsplit and split shapes.
TEST(CudaDecodeRows, SmCountTarget) {
  std::uint64_t seed = 2950;
  for (int sms : {1, 16, 100})
    for (auto [small, large, k] :
         {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 4096, 4096},
          {1, 2112, 7168},
          {4, 7168, 2048}}) {
      const Case c{.m = small,
                   .n = large,
                   .k = k,
                   .la = Layout::RowMajor,
                   .lb = Layout::ColMajor,
                   .lc = Layout::RowMajor,
                   .c = DType::F32,
                   .d = DType::BF16,
                   .alpha = 1.0,
                   .beta = 0.5};
      if (!takes(make_desc(c))) continue;
      expect_passes(c, ++seed, {.backend = Backend::Cuda, .kernel = kRows, .sm_count_target = sms});
    }
}

TEST(CudaDecodeRows, LayoutsTakenAndRefused) {
  const Options opt{.backend = Backend::Cuda, .kernel = kRows};
  std::uint64_t seed = 2800;
  const Layout both[] = {Layout::ColMajor, Layout::RowMajor};
  int taken = 0;
  for (bool small_m : {true, false})
    for (Op ta : {Op::NoTrans, Op::Trans})
      for (Op tb : {Op::NoTrans, Op::Trans})
        for (Layout la : both)
          for (Layout lb : both)
            for (Layout lc : both) {
              const Case c{.m = small_m ? 7 : 4100, .n = small_m ? 4100 : 7, .k = 1032, .ta = ta,
                           .tb = tb, .la = la, .lb = lb, .lc = lc,
                           .in = seed % 3 == 0 ? DType::F16 : DType::BF16, .alpha = -0.5,
                           .beta = 1.0};
              const Status s = can_implement(make_desc(c), opt);
              if (!takes(make_desc(c))) {
                EXPECT_EQ(s.code, StatusCode::NotSupported) << describe(c, seed);
                continue;
              }
              ++taken;
              expect_passes(kRows, c, ++seed);
            }
  // The weight is K-contiguous in half the layouts; x (7 x 1032, packed either way) always
  // qualifies for the row-block kernel, and 4100 rows are 31 a CTA.
  EXPECT_EQ(taken, 32);
  EXPECT_EQ(can_implement(make_desc(Case{.m = 17, .n = 1000, .k = 64, .lb = Layout::ColMajor}),
                          opt)
                .code,
            StatusCode::NotSupported);
  // Batches: packed, and the weight broadcast over them (batch stride 0).
  expect_passes(kRows,
                Case{.m = 4000, .n = 5, .k = 520, .batch = 3, .alpha = 1.0, .beta = 1.0}, ++seed);
  Case bc{.m = 4, .n = 4000, .k = 1024, .lb = Layout::ColMajor, .batch = 4, .beta = 0.5};
  GemmDesc d = make_desc(bc);
  d.b.batch_stride = 0;
  const bench::VerifyResult r = bench::verify_case(d, bc.alpha, bc.beta, opt, ++seed);
  EXPECT_EQ(r.disposition, bench::Disposition::Passed) << "broadcast weight: " << r.note << " "
                                                       << r.cmp.first_failure;
  // alpha = 0 and K = 0: only beta * C.
  expect_passes(kRows, Case{.m = 3, .n = 4000, .k = 512, .lb = Layout::ColMajor,
                                 .alpha = 0.0, .beta = 0.5},
                ++seed);
  expect_passes(kRows,
                Case{.m = 3, .n = 4000, .k = 0, .lb = Layout::ColMajor, .beta = 0.5}, ++seed);
}

// The row-block kernel refuses what it cannot copy (the planner then takes another kernel):
// x's rows off 16 bytes, an M-major x with padded columns, K not a multiple of 8; and fewer
// than 24 rows of the weight per SM.
TEST(CudaDecodeRows, RefusesWhatItCannotCopy) {
  const Options opt{.backend = Backend::Cuda, .kernel = kRows};
  const auto code = [&](const Case& c) { return can_implement(make_desc(c), opt).code; };
  EXPECT_EQ(code(Case{.m = 4, .n = 4096, .k = 4096, .la = Layout::RowMajor,
                      .lb = Layout::ColMajor, .lda = 4100}),
            StatusCode::NotSupported);
  EXPECT_EQ(code(Case{.m = 4, .n = 4096, .k = 4096, .la = Layout::ColMajor,
                      .lb = Layout::ColMajor, .lda = 8}),
            StatusCode::NotSupported);
  EXPECT_EQ(code(Case{.m = 4, .n = 4096, .k = 4092, .la = Layout::RowMajor,
                      .lb = Layout::ColMajor}),
            StatusCode::NotSupported);
  // 1000 rows over K = 1024: 8 rows a CTA unsplit, 16 in pairs (a split of 4 needs K >= 2048).
  const Case few{.m = 4, .n = 1000, .k = 1024, .la = Layout::ColMajor, .lb = Layout::ColMajor};
  EXPECT_LT(gemv::decode_rows_cut(make_desc(few)).rows, 24);
  EXPECT_EQ(code(few), StatusCode::NotSupported);
  EXPECT_TRUE(can_implement(make_desc(Case{.m = 4, .n = 4096, .k = 4096, .la = Layout::ColMajor,
                                           .lb = Layout::ColMajor}),
                            opt)
                  .ok());
}

// The cut fills the SMs in one wave; 4096 rows over K = 4096 take blocks of 32 rows unsplit
// (the 16-warp team of the row-block kernel).
TEST(CudaDecodeRows, CutsFillTheSmsInOneWave) {
  for (std::int64_t rows : {1000, 2112, 4096, 7168, 14336, 28672})
    for (std::int64_t k : {1024, 2048, 4096, 14336}) {
      const gemv::DecodeRowsCut cut =
          gemv::decode_rows_cut(make_desc(Case{.m = 16, .n = rows, .k = k}));
      const std::int64_t ctas = (rows + cut.rows - 1) / cut.rows * cut.splits;
      EXPECT_TRUE(cut.splits >= 1 && cut.splits <= 4) << rows << " " << k;
      EXPECT_EQ(cut.rows % 8, 0) << rows << " " << k;
      EXPECT_LE(cut.rows, 128) << rows << " " << k;
      if (cut.splits > 1) {
        EXPECT_LE(ctas, kSms) << rows << " " << k;
      }
      if (rows >= 4096) {
        EXPECT_GE(ctas, kSms * 3 / 4) << rows << " " << k;  // the SMs kept busy
      }
    }
  const gemv::DecodeRowsCut c4096 =
      gemv::decode_rows_cut(make_desc(Case{.m = 16, .n = 4096, .k = 4096}));
  EXPECT_EQ(c4096.splits, 1);
  EXPECT_EQ(c4096.rows, 32);
}

// Splits of 1 to 4 forced (Options::split_k) on the shapes decode serves: right against
// the reference, bitwise repeatable, K tails (K off 64: one box a copy) and batches.
TEST(CudaDecodeRows, ClusterSplitsAddInRankOrder) {
  std::uint64_t seed = 3000;
  const Case cases[] = {
      {.m = 16, .n = 4096, .k = 4096, .la = Layout::RowMajor, .lb = Layout::ColMajor,
       .c = DType::F32, .d = DType::F32, .alpha = 1.0, .beta = 0.5},
      {.m = 1, .n = 2112, .k = 7168, .la = Layout::RowMajor, .lb = Layout::ColMajor},
      {.m = 9, .n = 7168, .k = 2048, .lb = Layout::ColMajor, .alpha = -1.0, .beta = 1.0},
      {.m = 4000, .n = 3, .k = 4104, .c = DType::F32, .alpha = 0.5, .beta = 0.25},
      {.m = 8, .n = 3000, .k = 4096, .la = Layout::ColMajor, .lb = Layout::ColMajor,
       .batch = 2, .alpha = 1.0, .beta = 0.0},
  };
  for (const Case& c : cases)
    for (int split : {1, 2, 3, 4}) {
      const gemv::DecodeRowsCut cut = gemv::decode_rows_cut(make_desc(c), split);
      EXPECT_EQ(cut.splits, split) << describe(c, seed);
      if (!expect_passes(kRows, c, ++seed, split)) continue;
      const Options opt{.backend = Backend::Cuda, .kernel = kRows, .split_k = split};
      bench::HostCase hc = bench::HostCase::make(make_desc(c), c.alpha, c.beta, seed);
      std::vector<std::uint8_t> first;
      runs_repeatably(hc, opt, first, describe(c, seed) + " split " + std::to_string(split));
    }
}

TEST(CudaDecodeRows, OffsetsNaNCAndRepeats) {
  std::uint64_t seed = 2900;
  for (std::int64_t off : {0, 1, 8})  // elements: 1 puts the weight off 16 bytes
    expect_nan_c_offsets_repeat(kRows,
                                Case{.m = 16, .n = 4096, .k = 4096, .la = Layout::RowMajor,
                                     .lb = Layout::ColMajor, .c = DType::BF16, .d = DType::BF16,
                                     .beta = 0.0},
                                ++seed, off);
}

}  // namespace
}  // namespace gemmkit
