// CPU variants: streaming GEMV, deterministic split-K, strided batched (stride-0 broadcast),
// grouped. Each is checked against the fp64 reference, for equivalence with the data-parallel
// kernel, and for the NaN/Inf rules (beta 0 never reads C; NaN and Inf in A or B propagate).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "cpu/kernels.hpp"
#include "dispatch/planner.hpp"
#include "gemmkit/grouped.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

const Options kCpu{.backend = Backend::Cpu, .threads = 2};

GemmDesc desc_of(std::int64_t m, std::int64_t n, std::int64_t k, DType t, int i = 0) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_a = (i & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (i & 2) ? Op::Trans : Op::NoTrans;
  d.a.layout = (i & 4) ? Layout::RowMajor : Layout::ColMajor;
  d.b.layout = (i & 8) ? Layout::RowMajor : Layout::ColMajor;
  d.c.layout = d.d.layout = (i & 16) ? Layout::RowMajor : Layout::ColMajor;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = d.compute = t;
  return with_default_lds(d);
}

std::string planned(const GemmDesc& d) {
  const dispatch::Plan p = dispatch::make_plan(with_default_lds(d), kCpu);
  return p.launch.kernel ? p.launch.kernel->name : "none";
}

// ---------------------------------------------------------------- GEMV

TEST(CpuGemv, PlannerRoutesVectorShapes) {
  EXPECT_EQ(planned(desc_of(1, 4096, 4096, DType::F32)).rfind("cpu.gemv_", 0), 0u);
  EXPECT_EQ(planned(desc_of(4096, 1, 512, DType::F64)).rfind("cpu.gemv_", 0), 0u);
  EXPECT_EQ(planned(desc_of(64, 64, 64, DType::F32)).rfind("cpu.gemv_", 0), std::string::npos);
}

TEST(CpuGemv, EveryLayoutAndShape) {
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0;
  for (const dispatch::KernelInfo* k : dispatch::registry().match("cpu.gemv_*"))
    for (DType t : {DType::F32, DType::F64})
      for (auto [m, n, kk] : {std::tuple{1, 1, 1},
                              {1, 1, 300},
                              {1, 77, 5},
                              {1, 1100, 33},
                              {93, 1, 129},
                              {1, 3, 2050}})
        for (int lay = 0; lay < 32; lay += 3, ++i) {
          const GemmDesc d = desc_of(m, n, kk, t, lay);
          if (!k->can_implement(d)) continue;
          Options opt = kCpu;
          opt.kernel = k->name.c_str();
          const auto v = bench::verify_case(d, i % 2 ? 0.7 : 1.0, i % 3 ? 1.3 : 0.0, opt, seed + i);
          if (v.disposition != bench::Disposition::Passed && ++failures <= 5)
            ADD_FAILURE() << k->name << " m=" << m << " n=" << n << " k=" << kk << " lay=" << lay
                          << ": " << v.cmp.first_failure << v.note << to_string(v.status);
        }
  EXPECT_EQ(failures, 0);
}

// ---------------------------------------------------------------- split-K

TEST(CpuSplitK, PlannerPicksSplitKForFewTilesAndLongK) {
  EXPECT_EQ(planned(desc_of(16, 16, 8192, DType::F32)).rfind("cpu.gemm_splitk_", 0), 0u);
  EXPECT_EQ(planned(desc_of(512, 512, 8192, DType::F32)).find("splitk"), std::string::npos);
  EXPECT_EQ(planned(desc_of(32, 32, 256, DType::F32)).find("splitk"), std::string::npos);
}

// Splits 2, 3, max (8) and max + 1 all pass the reference; each is bitwise reproducible and
// independent of the thread count.
TEST(CpuSplitK, EverySplitCountIsCorrectAndDeterministic) {
  const cpu::IsaKernels& kern = cpu::portable_kernels();
  for (const cpu::IsaKernels* isa : {&cpu::avx512_kernels(), &cpu::avx2_kernels(), &kern}) {
    if (dispatch::registry()
            .find(std::string("cpu.gemm_splitk_") + cpu::isa_name(isa->isa))
            ->can_implement(desc_of(16, 16, 8192, DType::F32))
            .code == StatusCode::ArchMismatch)
      continue;
    for (DType t : {DType::F32, DType::F64})
      for (int splits : {2, 3, 8, 9}) {
        const GemmDesc d = desc_of(29, 35, 3001, t, splits);
        bench::HostCase hc = bench::HostCase::make(d, 0.7, 1.3, test::test_seed());
        bench::HostCase r1 = hc, r2 = hc, r3 = hc;
        Options one = kCpu;
        one.threads = 1;
        ASSERT_TRUE(isa->splitk(hc.desc, r1.args(), kCpu, splits));
        ASSERT_TRUE(isa->splitk(hc.desc, r2.args(), kCpu, splits));
        ASSERT_TRUE(isa->splitk(hc.desc, r3.args(), one, splits));
        const bench::Compare c = bench::compare_to_reference(hc, r1.d, hc.d);
        EXPECT_TRUE(c.passed) << cpu::isa_name(isa->isa) << " splits " << splits << ": "
                              << c.first_failure;
        EXPECT_EQ(r1.d, r2.d) << "split-K is not reproducible";
        EXPECT_EQ(r1.d, r3.d) << "split-K depends on the thread count";
      }
  }
}

TEST(CpuSplitK, PlannedSplitKPassesTheTestbed) {
  for (int lay : {0, 7, 21}) {
    const auto v = bench::verify_case(desc_of(19, 15, 4100, DType::F32, lay), 0.7, 1.3, kCpu,
                                      test::test_seed());
    EXPECT_EQ(v.disposition, bench::Disposition::Passed) << v.cmp.first_failure << v.note;
  }
}

// ---------------------------------------------------------------- batched

TEST(CpuBatched, StridedAndBroadcastOperands) {
  const std::uint64_t seed = test::test_seed();
  for (DType t : {DType::F32, DType::F64})
    for (int bcast = 0; bcast < 4; ++bcast)
      for (std::int64_t batch : {0, 1, 3}) {
        GemmDesc d = desc_of(21, 35, 40, t, bcast * 5);
        d.batch = batch;
        d.a.batch_stride = (bcast & 1) ? 0 : 21 * 40 + 7;
        d.b.batch_stride = (bcast & 2) ? 0 : 35 * 40 + 3;
        d.c.batch_stride = bcast == 3 ? 0 : 21 * 35;
        d.d.batch_stride = 21 * 35 + 5;
        const auto v = bench::verify_case(d, 0.7, 1.3, kCpu, seed + bcast);
        EXPECT_EQ(v.disposition, bench::Disposition::Passed)
            << dtype_name(t) << " broadcast " << bcast << " batch " << batch << ": "
            << v.cmp.first_failure << v.note;
      }
}

// ---------------------------------------------------------------- grouped

TEST(CpuGrouped, DifferentShapesEmptyAndSingleGroups) {
  const std::uint64_t seed = test::test_seed();
  std::vector<GemmDesc> descs = {desc_of(17, 33, 65, DType::F32, 3), desc_of(0, 5, 5, DType::F32),
                                 desc_of(1, 300, 70, DType::F32, 8),
                                 desc_of(130, 70, 200, DType::F64, 19)};
  std::vector<bench::HostCase> cases;
  for (std::size_t g = 0; g < descs.size(); ++g)
    cases.push_back(bench::HostCase::make(descs[g], 0.7, 1.3, seed + g));
  std::vector<bench::HostCase> before = cases;
  std::vector<GemmProblem> problems;
  for (auto& c : cases) problems.push_back({c.desc, c.args()});
  for (std::int64_t count : {std::int64_t{1}, std::int64_t(problems.size())}) {
    ASSERT_TRUE(gemm_grouped(problems.data(), count, kCpu));
    for (std::int64_t g = 0; g < count; ++g) {
      const bench::Compare c = bench::compare_to_reference(before[g], cases[g].d, before[g].d);
      EXPECT_TRUE(c.passed) << "group " << g << ": " << c.first_failure;
    }
  }
  EXPECT_TRUE(gemm_grouped(nullptr, 0, kCpu));
}

TEST(CpuGrouped, BadCountAndBadGroupChangeNothing) {
  std::vector<float> a(64, 1), b(64, 1), d0(64, 5), d1(64, 5);
  GemmProblem ps[2] = {{desc_of(4, 4, 4, DType::F32), {a.data(), b.data(), nullptr, d0.data()}},
                       {desc_of(4, 4, 4, DType::F32), {a.data(), b.data(), nullptr, d1.data()}}};
  Status s = gemm_grouped(ps, -1, kCpu);
  EXPECT_EQ(s.code, StatusCode::InvalidValue);
  EXPECT_EQ(s.arg, Arg::GroupCount);
  s = gemm_grouped(nullptr, 2, kCpu);
  EXPECT_EQ(s.arg, Arg::GroupCount);
  ps[1].desc.a.ld = 2;  // below max(1, rows) = 4
  s = gemm_grouped(ps, 2, kCpu);
  EXPECT_EQ(s.code, StatusCode::InvalidValue);
  EXPECT_EQ(s.arg, Arg::Lda);
  EXPECT_NE(s.message.find("group 1"), std::string::npos) << s.message;
  EXPECT_EQ(d0, std::vector<float>(64, 5)) << "group 0 ran although group 1 was invalid";
  EXPECT_EQ(d1, std::vector<float>(64, 5));
}

// ---------------------------------------------------------------- NaN / Inf rules

// A variant runs D = alpha * A * B + beta * C for column-major f32 operands of one shape.
using Runner = std::function<Status(const GemmDesc&, const GemmArgs&)>;

struct Variant {
  const char* name;
  std::int64_t m, n, k;
  Runner run;
};

Status by_kernel(const char* kernel, const GemmDesc& d, const GemmArgs& a) {
  Options o = kCpu;
  o.kernel = kernel;
  return gemm(d, a, o);
}

std::vector<Variant> variants() {
  std::vector<Variant> v;
  v.push_back({"packed", 37, 45, 60, [](auto& d, auto& a) { return gemm(d, a, kCpu); }});
  v.push_back({"gemv M=1", 1, 45, 60, [](auto& d, auto& a) { return gemm(d, a, kCpu); }});
  v.push_back({"gemv N=1", 37, 1, 60, [](auto& d, auto& a) { return gemm(d, a, kCpu); }});
  v.push_back({"split-K", 13, 15, 4096, [](auto& d, auto& a) { return gemm(d, a, kCpu); }});
  v.push_back({"portable", 37, 45, 60,
               [](auto& d, auto& a) { return by_kernel("cpu.gemm_portable", d, a); }});
  v.push_back({"batched", 37, 45, 60, [](const GemmDesc& d, const GemmArgs& a) {
                 // Batch 2 where batch 1 repeats batch 0's operands (stride 0) into a second D.
                 GemmDesc b = d;
                 b.batch = 2;
                 b.d.batch_stride = d.m * d.n;
                 std::vector<float> two(2 * d.m * d.n, 9.0f);
                 GemmArgs x = a;
                 x.d = two.data();
                 if (Status s = gemm(b, x, kCpu); !s) return s;
                 for (std::int64_t e = 0; e < d.m * d.n; ++e) {
                   const float u = two[e], w = two[d.m * d.n + e];
                   if (!(u == w || (std::isnan(u) && std::isnan(w))))
                     return Status{StatusCode::ExecutionFailed, Arg::None, "batches differ"};
                   static_cast<float*>(a.d)[e] = u;
                 }
                 return Status{};
               }});
  v.push_back({"grouped", 37, 45, 60, [](const GemmDesc& d, const GemmArgs& a) {
                 std::vector<float> other(4 * 4, 0.0f), oa(16, 1.0f);
                 GemmProblem ps[2] = {
                     {desc_of(4, 4, 4, DType::F32), {oa.data(), oa.data(), nullptr, other.data()}},
                     {d, a}};
                 return gemm_grouped(ps, 2, kCpu);
               }});
  return v;
}

struct Buffers {
  std::vector<float> a, b, c, d;
  Buffers(std::int64_t m, std::int64_t n, std::int64_t k)
      : a(m * k), b(k * n), c(m * n), d(m * n, -3.0f) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = float((i * 7) % 11) / 11.0f - 0.5f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = float((i * 5) % 13) / 13.0f - 0.5f;
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = float((i * 3) % 7) / 7.0f;
  }
};

TEST(CpuNanInf, EveryVariantFollowsBlasRules) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const Variant& v : variants()) {
    const GemmDesc d = desc_of(v.m, v.n, v.k, DType::F32);
    const std::int64_t m = v.m, n = v.n, k = v.k;
    SCOPED_TRACE(v.name);
    {  // beta == 0 with NaN in C: C is never read, D is finite.
      Buffers x(m, n, k);
      std::fill(x.c.begin(), x.c.end(), nan);
      ASSERT_TRUE(v.run(d, {x.a.data(), x.b.data(), x.c.data(), x.d.data(), 1.0, 0.0}));
      for (float e : x.d) ASSERT_TRUE(std::isfinite(e));
    }
    {  // alpha == 0 with NaN/Inf in A and B: exactly beta * C; null A and B are fine too.
      Buffers x(m, n, k);
      std::fill(x.a.begin(), x.a.end(), nan);
      std::fill(x.b.begin(), x.b.end(), inf);
      ASSERT_TRUE(v.run(d, {x.a.data(), x.b.data(), x.c.data(), x.d.data(), 0.0, 2.0}));
      for (std::size_t e = 0; e < x.d.size(); ++e) ASSERT_EQ(x.d[e], 2.0f * x.c[e]);
      Buffers y(m, n, k);
      ASSERT_TRUE(v.run(d, {nullptr, nullptr, y.c.data(), y.d.data(), 0.0, 2.0}));
      EXPECT_EQ(x.d, y.d);
    }
    {  // NaN in one row of A: NaN in exactly that row of D.
      Buffers x(m, n, k);
      const std::int64_t r = m / 2;
      x.a[r + (k / 3) * m] = nan;  // column-major A(r, k/3)
      ASSERT_TRUE(v.run(d, {x.a.data(), x.b.data(), x.c.data(), x.d.data(), 1.0, 1.0}));
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          ASSERT_EQ(std::isnan(x.d[i + j * m]), i == r) << "D(" << i << "," << j << ")";
    }
    {  // Inf * 0 gives NaN: A(r, p) = Inf against a zero row p of B.
      Buffers x(m, n, k);
      const std::int64_t r = m - 1, p = k - 1;
      x.a[r + p * m] = inf;
      for (std::int64_t j = 0; j < n; ++j) x.b[p + j * k] = 0.0f;
      ASSERT_TRUE(v.run(d, {x.a.data(), x.b.data(), x.c.data(), x.d.data(), 1.0, 0.0}));
      for (std::int64_t j = 0; j < n; ++j) ASSERT_TRUE(std::isnan(x.d[r + j * m])) << j;
      if (m > 1) {
        ASSERT_TRUE(std::isfinite(x.d[0]));
      }
    }
  }
}

}  // namespace
}  // namespace gemmkit
