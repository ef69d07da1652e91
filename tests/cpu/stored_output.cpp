// bf16 / fp16 C and D through every CPU production kernel (no fall to the reference path):
// the write-back rounds the f32 result to nearest even, once, bit for bit like
// gemmkit::to_bf16 / to_f16, in the register path (full unit-stride tiles) and the scalar path (edges, strided outputs); C is
// widened exactly and never read when beta == 0. Checked against the fp64 reference with the
// testbed's gauge bound, where the output rounding is the eps_out term.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "cpu/stored.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/convert.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

struct Kernel {
  std::string name;
  int mr, nr;
};

GemmDesc probe_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType out) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.c.dtype = d.d.dtype = out;
  return with_default_lds(d);
}

// The registered production kernels this CPU runs that take f32 A and B with `out` C and D on
// the probe shape, with their tile read from the name ("..._8x32"; 4x16 otherwise).
std::vector<Kernel> kernels(const GemmDesc& probe) {
  std::vector<Kernel> out;
  for (const auto& k : dispatch::registry().all()) {
    if (k.backend != Backend::Cpu || k.role != dispatch::KernelRole::Production) continue;
    if (!k.can_implement(probe)) continue;
    Kernel kn{k.name, 4, 16};
    int mr = 0, nr = 0;
    const auto u = k.name.rfind('_');
    if (u != std::string::npos && std::sscanf(k.name.c_str() + u + 1, "%dx%d", &mr, &nr) == 2)
      kn.mr = mr, kn.nr = nr;
    out.push_back(kn);
  }
  return out;
}

std::vector<Kernel> packed_kernels(DType out) {
  std::vector<Kernel> ks = kernels(probe_desc(64, 64, 64, out));
  std::erase_if(ks, [](const Kernel& k) {
    return k.name.find("sgemm") == std::string::npos && k.name != "cpu.gemm_portable";
  });
  return ks;
}

// ---------------------------------------------------------------- the scalar conversions

// Floats at and around every rounding boundary of bf16 and of fp16 (normal and subnormal): all
// 2^16 upper halves with low halves at, just below and just above the bf16 half-way point
// (0x8000) and the fp16 normal one (bit 12), and zero / one / all ones.
std::vector<std::uint32_t> boundary_floats() {
  std::vector<std::uint32_t> v;
  for (std::uint32_t hi = 0; hi < 0x10000; ++hi)
    for (std::uint32_t lo :
         {0x0000u, 0x0001u, 0x0FFFu, 0x1000u, 0x1001u, 0x3000u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu})
      v.push_back(hi << 16 | lo);
  return v;
}

float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool is_nan16(std::uint16_t h, bool bf16) {
  return bf16 ? (h & 0x7F80) == 0x7F80 && (h & 0x7F) != 0
              : (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
}

bool same_bits(float x, float y) { return std::memcmp(&x, &y, 4) == 0; }

TEST(CpuStoredOutput, ScalarNarrowingMatchesConvertBitForBit) {
  int bad = 0;
  for (std::uint32_t u : boundary_floats()) {
    const float f = as_float(u);
    const std::uint16_t b = cpu::bf16_from_float(f), h = cpu::f16_from_float(f);
    if (b != to_bf16(f) && ++bad <= 5) ADD_FAILURE() << std::hex << "bf16 of 0x" << u;
    if (h != to_f16(f) && ++bad <= 5) ADD_FAILURE() << std::hex << "f16 of 0x" << u;
  }
  EXPECT_EQ(bad, 0);
  for (std::uint32_t c = 0; c < 0x10000; ++c) {  // widening is exact: every code round-trips
    const auto x = static_cast<std::uint16_t>(c);
    EXPECT_TRUE(same_bits(cpu::float_from_bf16(x), bf16_to_float(x))) << c;
    EXPECT_TRUE(same_bits(cpu::float_from_f16(x), f16_to_float(x))) << c;
  }
}

// ---------------------------------------------------------------- through the kernels

// D (M, N) = A (M, 1) * B (1, N) with B(0, j) = +-1: every D(i, j) is 0 + (+-a_i) exactly in
// f32, so D must hold its to_bf16 / to_f16 bit for bit (NaN: a NaN of the same sign). With
// N = 32 the tiles are full and unit-stride (the register path) except at the M edge; with
// N = 31 every tile is an edge tile (the scalar path).
int narrowing_mismatches(const Kernel& kn, DType out, std::int64_t n, Layout layout) {
  const std::vector<std::uint32_t> vals = boundary_floats();
  const std::int64_t m = static_cast<std::int64_t>(vals.size());
  GemmDesc d{.m = m, .n = n, .k = 1};
  d.d.dtype = d.c.dtype = out;
  d.c.layout = d.d.layout = layout;
  d = with_default_lds(d);
  std::vector<float> a(m), b(n);
  for (std::int64_t i = 0; i < m; ++i) a[i] = as_float(vals[i]);
  for (std::int64_t j = 0; j < n; ++j) b[j] = j % 3 == 1 ? -1.0f : 1.0f;
  std::vector<std::uint16_t> dd(m * n, 0x5A5A);
  const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
  if (Status s = gemm(d, GemmArgs{a.data(), b.data(), nullptr, dd.data(), 1.0, 0.0}, opt); !s) {
    ADD_FAILURE() << kn.name << ": " << to_string(s);
    return 1;
  }
  const bool bf16 = out == DType::BF16;
  int bad = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const float want_f = 0.0f + a[i] * b[j];  // the sum starts at +0: -0 * 1 gives +0
      const std::uint16_t want = bf16 ? to_bf16(want_f) : to_f16(want_f);
      const std::uint16_t got = dd[layout == Layout::ColMajor ? i + j * m : i * n + j];
      const bool ok =
          std::isnan(want_f) ? is_nan16(got, bf16) && (got >> 15) == (want >> 15) : got == want;
      if (!ok && ++bad <= 3)
        ADD_FAILURE() << kn.name << " " << dtype_name(out) << " n=" << n << " D(" << i << "," << j
                      << "): a = " << std::hex << "0x" << vals[i] << " got 0x" << got << " want 0x"
                      << want;
    }
  return bad;
}

TEST(CpuStoredOutput, KernelsRoundToNearestEvenBitForBit) {
  for (DType out : {DType::BF16, DType::F16})
    for (const Kernel& kn : packed_kernels(out))
      for (std::int64_t n : {32, 31})
        for (Layout l : {Layout::RowMajor, Layout::ColMajor})
          EXPECT_EQ(narrowing_mismatches(kn, out, n, l), 0) << kn.name;
}

// C stored as bf16 / fp16 is widened exactly: D = 0 + 1 * C gives C back for every code (NaN:
// a NaN of the same sign; -0 + +0 is +0).
TEST(CpuStoredOutput, KernelsWidenCExactly) {
  for (DType out : {DType::BF16, DType::F16})
    for (const Kernel& kn : packed_kernels(out)) {
      const std::int64_t m = 2048, n = 32;  // every 16-bit code once, full tiles
      GemmDesc d{.m = m, .n = n, .k = 1};
      d.c.dtype = d.d.dtype = out;
      d.c.layout = d.d.layout = Layout::RowMajor;
      d = with_default_lds(d);
      std::vector<float> a(m, 0.0f), b(n, 1.0f);
      std::vector<std::uint16_t> c(m * n), dd(m * n, 0x5A5A);
      for (std::int64_t e = 0; e < m * n; ++e) c[e] = static_cast<std::uint16_t>(e);
      const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
      ASSERT_TRUE(gemm(d, GemmArgs{a.data(), b.data(), c.data(), dd.data(), 1.0, 1.0}, opt));
      const bool bf16 = out == DType::BF16;
      int bad = 0;
      for (std::int64_t e = 0; e < m * n; ++e) {
        const std::uint16_t want = (c[e] == 0x8000) ? 0 : c[e];
        const bool ok = is_nan16(c[e], bf16)
                            ? is_nan16(dd[e], bf16) && (dd[e] >> 15) == (c[e] >> 15)
                            : dd[e] == want;
        if (!ok && ++bad <= 3)
          ADD_FAILURE() << kn.name << " " << dtype_name(out) << std::hex << " C = 0x" << c[e]
                        << " gave D = 0x" << dd[e];
      }
      EXPECT_EQ(bad, 0) << kn.name;
    }
}

// ---------------------------------------------------------------- against the fp64 reference

std::vector<std::int64_t> edges(std::int64_t tile) {
  std::vector<std::int64_t> v = {1, 2, tile - 1, tile, tile + 1, 2 * tile + 1};
  std::erase_if(v, [](std::int64_t x) { return x < 1; });
  return v;
}

GemmDesc grid_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType c, DType out,
                   int i) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_a = (i & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (i & 2) ? Op::Trans : Op::NoTrans;
  d.a.layout = (i & 4) ? Layout::RowMajor : Layout::ColMajor;
  d.b.layout = (i & 8) ? Layout::RowMajor : Layout::ColMajor;
  d.c.layout = (i & 16) ? Layout::RowMajor : Layout::ColMajor;
  d.d.layout = (i & 32) ? Layout::RowMajor : Layout::ColMajor;
  d.a.dtype = d.b.dtype = in;
  d.c.dtype = c;
  d.d.dtype = out;
  d = with_default_lds(d);
  d.a.ld += i % 3;
  d.c.ld += i % 2;
  d.d.ld += (i / 2) % 2;
  return d;
}

// One case through the testbed: C filled U[-1, 1], or all NaN when beta == 0 (never read, so
// D must come out finite); D against the fp64 reference under the gauge bound (eps_out is
// bf16's / fp16's unit roundoff), A, B, C and D's padding unchanged.
void nan_fill_c(bench::HostCase& hc) {
  const std::int64_t elems = static_cast<std::int64_t>(
      (hc.c.size() - bench::HostCase::kGuardBytes) * 8 / dtype_bits(hc.desc.c.dtype));
  for (std::int64_t e = 0; e < elems; ++e)
    core::store_element(hc.desc.c.dtype, hc.c.data(), e, std::numeric_limits<double>::quiet_NaN());
}

bench::Compare run_case(const Kernel& kn, const GemmDesc& desc, double alpha, double beta,
                        std::uint64_t seed, std::string* why) {
  bench::HostCase hc = bench::HostCase::make(desc, alpha, beta, seed);
  if (beta == 0.0) nan_fill_c(hc);
  const auto a0 = hc.a, b0 = hc.b, c0 = hc.c, d0 = hc.d;
  const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
  bench::Compare cmp;
  if (Status s = gemm(hc.desc, hc.args(), opt); !s) {
    cmp.passed = false;
    *why = to_string(s);
    return cmp;
  }
  if (hc.a != a0 || hc.b != b0 || hc.c != c0) {
    cmp.passed = false;
    *why = "an input was modified";
    return cmp;
  }
  if (bench::corrupt_result_requested()) bench::corrupt_d00(hc.desc, hc.d);
  cmp = bench::compare_to_reference(hc, hc.d, d0);
  *why = cmp.first_failure;
  return cmp;
}

constexpr double kAlphas[] = {1.0, 0.7, -1.5};
constexpr double kBetas[] = {0.0, 1.0, -1.3};

int run_grid(const Kernel& kn, DType in, DType c, DType out, std::vector<std::int64_t> ks) {
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0;
  for (std::int64_t m : edges(kn.mr))
    for (std::int64_t n : edges(kn.nr))
      for (std::int64_t k : ks) {
        const GemmDesc d = grid_desc(m, n, k, in, c, out, i);
        const double alpha = kAlphas[i % 3], beta = kBetas[(i / 3) % 3];
        std::string why;
        const bench::Compare cmp = run_case(kn, d, alpha, beta, seed + i, &why);
        if (!cmp.passed && ++failures <= 5)
          ADD_FAILURE() << kn.name << " " << dtype_name(in) << "->" << dtype_name(c) << "/"
                        << dtype_name(out) << " m=" << m << " n=" << n << " k=" << k
                        << " alpha=" << alpha << " beta=" << beta << " case " << i << ": " << why;
        ++i;
      }
  return failures;
}

// K = 389 and 600 cross the K blocks (KC <= 384 for f32 on every ISA table): the running sum
// goes through the f32 buffer and only the last block narrows.
TEST(CpuStoredOutput, PackedKernelsTileEdgeGrid) {
  for (DType out : {DType::BF16, DType::F16})
    for (const Kernel& kn : packed_kernels(out)) {
      EXPECT_EQ(run_grid(kn, DType::F32, out, out, {1, 7, 389, 600}), 0);
      EXPECT_EQ(run_grid(kn, out, out, out, {5, 600}), 0);  // bf16 in, bf16 out
    }
}

TEST(CpuStoredOutput, MixedCAndDStorage) {
  for (const Kernel& kn : packed_kernels(DType::BF16))
    for (auto [c, d] : {std::pair{DType::F32, DType::BF16},
                        {DType::BF16, DType::F32},
                        {DType::F16, DType::BF16},
                        {DType::BF16, DType::F16}})
      EXPECT_EQ(run_grid(kn, DType::BF16, c, d, {3, 500}), 0)
          << dtype_name(c) << " C, " << dtype_name(d) << " D";
}

TEST(CpuStoredOutput, LargeShapeCrossesEveryBlock) {
  // M > MC (510-512), K > 2 KC (256), N not a multiple of NR, D row-major so that the problem
  // keeps its orientation: on 1 thread the jc -> pc -> ic loops (two row blocks), on 2 the
  // team's shared B blocks and split rows, all through the f32 running sum.
  struct Case {
    DType c, d;
    double beta;
    int threads;
  };
  for (const Kernel& kn : packed_kernels(DType::BF16))
    for (const Case& cs : {Case{DType::BF16, DType::BF16, 0.0, 2},
                           {DType::F16, DType::F16, 1.3, 1},
                           {DType::F32, DType::BF16, -0.9, 2}}) {
      const GemmDesc d = grid_desc(520, 200, 520, DType::BF16, cs.c, cs.d, 37);
      bench::HostCase hc = bench::HostCase::make(d, 0.7, cs.beta, test::test_seed());
      if (cs.beta == 0.0) nan_fill_c(hc);
      const auto d0 = hc.d;
      const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = cs.threads};
      ASSERT_TRUE(gemm(hc.desc, hc.args(), opt));
      if (bench::corrupt_result_requested()) bench::corrupt_d00(hc.desc, hc.d);
      const bench::Compare cmp = bench::compare_to_reference(hc, hc.d, d0);
      EXPECT_TRUE(cmp.passed) << kn.name << " " << dtype_name(cs.c) << " C, " << dtype_name(cs.d)
                              << " D, beta=" << cs.beta << ", " << cs.threads
                              << " threads: " << cmp.first_failure;
    }
}

// GEMV (M == 1 or N == 1) and split-K take f32 A and B; their write-back narrows too.
TEST(CpuStoredOutput, GemvAndSplitK) {
  const std::uint64_t seed = test::test_seed();
  int i = 0, gemv = 0, splitk = 0;
  for (DType out : {DType::BF16, DType::F16})
    for (auto [m, n, k] :
         {std::tuple{1, 77, 300}, {93, 1, 129}, {1, 1100, 33}, {17, 23, 3000}, {5, 40, 5000}}) {
      const GemmDesc probe = grid_desc(m, n, k, DType::F32, out, out, i);
      for (const Kernel& kn : kernels(probe)) {
        if (kn.name.find("gemv") == std::string::npos &&
            kn.name.find("splitk") == std::string::npos)
          continue;
        ++(kn.name.find("gemv") != std::string::npos ? gemv : splitk);
        for (double beta : {0.0, 0.6}) {
          std::string why;
          EXPECT_TRUE(run_case(kn, probe, -0.8, beta, seed + i, &why).passed)
              << kn.name << " " << dtype_name(out) << " " << m << "x" << n << "x" << k
              << " beta=" << beta << ": " << why;
        }
      }
      ++i;
    }
  EXPECT_GT(gemv, 0);
  EXPECT_GT(splitk, 0);
}

TEST(CpuStoredOutput, ScaleOnlyAndQuickReturns) {
  // alpha == 0 (A and B null) and K == 0: D = beta * C narrowed; beta == 0 with NaN C gives 0.
  for (const Kernel& kn : packed_kernels(DType::BF16))
    for (std::int64_t k : {0, 9})
      for (double beta : {0.0, 1.5}) {
        std::string why;
        const GemmDesc d = grid_desc(13, 37, k, DType::F32, DType::BF16, DType::BF16, 16 + 32);
        bench::HostCase hc = bench::HostCase::make(d, 0.0, beta, test::test_seed());
        if (beta == 0.0) nan_fill_c(hc);
        const auto d0 = hc.d;
        GemmArgs args = hc.args();
        args.a = args.b = nullptr;
        const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
        ASSERT_TRUE(gemm(hc.desc, args, opt)) << kn.name;
        const bench::Compare cmp = bench::compare_to_reference(hc, hc.d, d0);
        EXPECT_TRUE(cmp.passed) << kn.name << " k=" << k << " beta=" << beta << ": "
                                << cmp.first_failure;
      }
}

// The check can fail: a D rounded toward zero (instead of to nearest even) from the exact f32
// result of the same kernel is caught by the gauge bound, and so is one element moved one bf16
// ulp away from the reference; the kernel's own bf16 D passes.
TEST(CpuStoredOutput, TheCheckCatchesTruncationAndOneUlp) {
  const Kernel kn = packed_kernels(DType::BF16).front();
  const GemmDesc d32 = grid_desc(64, 96, 300, DType::BF16, DType::BF16, DType::F32, 0);
  GemmDesc d16 = d32;
  d16.d.dtype = DType::BF16;
  bench::HostCase f32 = bench::HostCase::make(d32, 1.0, 0.0, test::test_seed());
  bench::HostCase b16 = bench::HostCase::make(d16, 1.0, 0.0, test::test_seed());
  ASSERT_EQ(f32.a, b16.a);
  const auto d0 = b16.d;
  const Options opt{.backend = Backend::Cpu, .kernel = kn.name.c_str(), .threads = 2};
  ASSERT_TRUE(gemm(f32.desc, f32.args(), opt));
  ASSERT_TRUE(gemm(b16.desc, b16.args(), opt));
  EXPECT_TRUE(bench::compare_to_reference(b16, b16.d, d0).passed);

  std::vector<std::uint8_t> trunc = d0;
  const std::int64_t ld = d16.d.ld;
  for (std::int64_t j = 0; j < d16.n; ++j)
    for (std::int64_t i = 0; i < d16.m; ++i) {
      float f;
      std::memcpy(&f, f32.d.data() + 4 * (i + j * d32.d.ld), 4);
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      const auto h = static_cast<std::uint16_t>(u >> 16);
      std::memcpy(trunc.data() + 2 * (i + j * ld), &h, 2);
    }
  const bench::Compare t = bench::compare_to_reference(b16, trunc, d0);
  EXPECT_FALSE(t.passed) << "truncation passed the gauge bound";
  EXPECT_GT(t.mismatches, d16.m * d16.n / 20);

  // D(0, 0) one ulp further from the f32 result than the rounding left it.
  std::vector<std::uint8_t> one = b16.d;
  std::uint16_t h;
  std::memcpy(&h, one.data(), 2);
  float f;
  std::memcpy(&f, f32.d.data(), 4);
  const bool rounded_out =
      std::fabs(core::load_element(DType::BF16, one.data(), 0)) >= std::fabs(f);
  const auto away = static_cast<std::uint16_t>(rounded_out ? h + 1 : h - 1);
  std::memcpy(one.data(), &away, 2);
  EXPECT_FALSE(bench::compare_to_reference(b16, one, d0).passed);
}

// ---------------------------------------------------------------- the planner

TEST(CpuStoredOutput, PlannerPicksAProductionKernelForBf16AndF16) {
  for (DType t : {DType::BF16, DType::F16}) {
    GemmDesc d{.m = 512, .n = 512, .k = 512};
    d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = t;
    const dispatch::Plan p =
        dispatch::make_plan(with_default_lds(d), {.backend = Backend::Cpu}, nullptr, true);
    ASSERT_TRUE(p.launch.kernel);
    EXPECT_EQ(p.launch.kernel->role, dispatch::KernelRole::Production) << p.launch.kernel->name;
  }
  // What no production kernel implements still takes the reference path, and says so.
  GemmDesc e{.m = 64, .n = 64, .k = 64, .compute = DType::F64};
  e.a.dtype = e.b.dtype = DType::F64;  // f64 inputs into an f32 output: no production kernel
  const dispatch::Plan p =
      dispatch::make_plan(with_default_lds(e), {.backend = Backend::Cpu}, nullptr, true);
  ASSERT_TRUE(p.launch.kernel);
  EXPECT_EQ(p.launch.kernel->name, "cpu.reference");
  ASSERT_FALSE(p.reasons.empty());
  EXPECT_NE(p.reasons.back().find("no production kernel implements this problem"),
            std::string::npos)
      << p.reasons.back();
}

}  // namespace
}  // namespace gemmkit
