// The two-thread (and odd-team) work split of the production driver: the team shares each
// packed B block and splits the rows in MR micro-rows (BLIS's ic loop, one barrier per block
// with two B buffers), or splits the columns when there is a single row block. Odd sizes leave
// remainders in every loop; forced small blocks (GEMMKIT_CPU_BLOCKS) make every loop run many
// times, so the buffer parity, the panel shares and empty row shares all occur. Every result
// is checked by the testbed and must be bitwise equal to the one-thread result.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "bench/testbed.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

std::vector<std::string> kernels(const char* pattern, DType t) {
  std::vector<std::string> out;
  for (const dispatch::KernelInfo* k : dispatch::registry().match(pattern)) {
    GemmDesc probe{.m = 8, .n = 8, .k = 8};
    probe.a.dtype = probe.b.dtype = probe.c.dtype = probe.d.dtype = probe.compute = t;
    if (k->can_implement(with_default_lds(probe))) out.push_back(k->name);
  }
  return out;
}

GemmDesc desc_of(std::int64_t m, std::int64_t n, std::int64_t k, DType t, int i) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_a = (i & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (i & 2) ? Op::Trans : Op::NoTrans;
  d.c.layout = d.d.layout = (i & 4) ? Layout::RowMajor : Layout::ColMajor;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = d.compute = t;
  d = with_default_lds(d);
  d.a.ld += i % 3;
  d.c.ld += i % 2;
  d.d.ld = d.c.ld;
  return d;
}

// Verifies `threads` against the reference and against the one-thread bits; returns failures.
int check(const std::string& kernel, const GemmDesc& d, int threads, std::uint64_t seed) {
  const double alpha = 0.7, beta = (d.m + d.n) % 2 ? 1.3 : 0.0;
  const Options opt{.backend = Backend::Cpu, .kernel = kernel.c_str(), .threads = threads};
  const bench::VerifyResult v = bench::verify_case(d, alpha, beta, opt, seed);
  int failures = 0;
  if (v.disposition != bench::Disposition::Passed) {
    ADD_FAILURE() << kernel << " " << d.m << "x" << d.n << "x" << d.k << " threads " << threads
                  << ": " << to_string(v.status) << " " << v.cmp.first_failure << " " << v.note;
    ++failures;
  }
  bench::HostCase one = bench::HostCase::make(d, alpha, beta, seed);
  bench::HostCase team = one;
  const Options opt1{.backend = Backend::Cpu, .kernel = kernel.c_str(), .threads = 1};
  if (!gemm(one.desc, one.args(), opt1) || !gemm(team.desc, team.args(), opt) || one.d != team.d) {
    ADD_FAILURE() << kernel << " " << d.m << "x" << d.n << "x" << d.k << " threads " << threads
                  << ": not bitwise equal to one thread";
    ++failures;
  }
  return failures;
}

TEST(CpuTeamSplit, OddSquaresAndTallShapes) {
  const std::uint64_t seed = test::test_seed();
  int i = 0;
  for (auto [pattern, t] : {std::pair{"cpu.sgemm_*", DType::F32}, {"cpu.dgemm_*", DType::F64}})
    for (const std::string& kn : kernels(pattern, t))
      for (auto [m, n, k] : {std::tuple{1025, 517, 131},
                             {1023, 345, 389},
                             {345, 700, 390},
                             {2049, 40, 300},
                             {16, 4097, 200},
                             {700, 64, 1025}}) {
        EXPECT_EQ(check(kn, desc_of(m, n, k, t, i), 2, seed + i), 0);
        ++i;
      }
}

using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

// check() for every f32 and f64 kernel on every shape and team size, with the driver's blocks
// forced (GEMMKIT_CPU_BLOCKS = `blocks`: MC,KC,NC, 0 keeps the machine's); returns failures.
int check_forced(const char* blocks, std::initializer_list<Shape> shapes,
                 std::initializer_list<int> teams) {
  const std::uint64_t seed = test::test_seed();
  if (setenv("GEMMKIT_CPU_BLOCKS", blocks, 1) != 0) {
    ADD_FAILURE() << "cannot set GEMMKIT_CPU_BLOCKS";
    return 1;
  }
  int i = 0, failures = 0;
  for (auto [pattern, t] : {std::pair{"cpu.sgemm_*", DType::F32}, {"cpu.dgemm_*", DType::F64}})
    for (const std::string& kn : kernels(pattern, t))
      for (auto [m, n, k] : shapes)
        for (int threads : teams) {
          failures += check(kn, desc_of(m, n, k, t, i), threads, seed + i);
          ++i;
        }
  unsetenv("GEMMKIT_CPU_BLOCKS");
  return failures;
}

// Small forced blocks: several NC blocks, many KC blocks (both B buffers), many MC blocks, an
// uneven micro-row share, and teams of 2 and 3.
TEST(CpuTeamSplit, ForcedSmallBlocksEveryLoopRepeats) {
  EXPECT_EQ(check_forced("48,40,96", {{203, 517, 300}, {97, 250, 81}, {25, 301, 129}}, {2, 3}), 0);
}

// A single row block (a short side of at most MC after the orientation, either operand order)
// streamed by a team: its (K block, panel group) pairs dealt from one counter. Forced KC = 40
// gives up to 13 K blocks; 100 columns are a single group, so every pair waits for the one
// before it (taken by the other thread, in turn); 4097 columns are many groups and a ragged
// last one. Teams of 2, 3 and 4.
TEST(CpuTeamSplit, SingleRowBlockTeamDealsPanelGroups) {
  EXPECT_EQ(check_forced(
                "0,40,0",
                {{1000, 40, 517}, {40, 1000, 300}, {100, 17, 500}, {64, 4097, 129}, {4097, 64, 81}},
                {2, 3, 4}),
            0);
}

// gemm(threads = 2) called from every thread of an outer OpenMP parallel region: nested regions
// get one thread by default, so a team split that trusts its requested size leaves the other
// share of D unwritten. The region is opened through libgomp's entry point (what
// `#pragma omp parallel` compiles to; these tests are built without -fopenmp), found at run time
// in the libgomp that libgemmkit loads.
struct OuterRegion {
  GemmDesc desc;
  const float *a, *b;
  const std::vector<float>* expected;
  std::atomic<int> mismatches{0}, calls{0};
};

void outer_body(void* data) {
  auto* r = static_cast<OuterRegion*>(data);
  std::vector<float> d(r->desc.m * r->desc.n, -1.0f);
  const Options opt{.backend = Backend::Cpu, .threads = 2};
  if (!gemm(r->desc, GemmArgs{.a = r->a, .b = r->b, .d = d.data()}, opt)) r->mismatches += 1;
  int bad = 0;
  for (std::size_t i = 0; i < d.size(); ++i) bad += d[i] != (*r->expected)[i];
  r->mismatches += bad;
  r->calls += 1;
}

TEST(CpuTeamSplit, InsideAnOuterOpenMPRegion) {
  using GompParallel = void (*)(void (*)(void*), void*, unsigned, unsigned);
  const auto gomp_parallel = reinterpret_cast<GompParallel>(dlsym(RTLD_DEFAULT, "GOMP_parallel"));
  if (gomp_parallel == nullptr) GTEST_SKIP() << "libgomp's GOMP_parallel not found";
  const std::int64_t m = 1025, n = 300, k = 200;
  std::vector<float> a(m * k), b(k * n), expected(m * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 13) - 6.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 7) - 3.0f;
  OuterRegion r{.desc = with_default_lds(GemmDesc{.m = m, .n = n, .k = k}),
                .a = a.data(),
                .b = b.data(),
                .expected = &expected};
  ASSERT_TRUE(gemm(r.desc, GemmArgs{.a = a.data(), .b = b.data(), .d = expected.data()},
                   {.backend = Backend::Cpu, .threads = 1}));
  gomp_parallel(outer_body, &r, 2, 0);
  EXPECT_EQ(r.calls.load(), 2);
  EXPECT_EQ(r.mismatches.load(), 0);
}

}  // namespace
}  // namespace gemmkit
