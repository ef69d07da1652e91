// Tile-edge grid on every CPU ladder rung, f32 and f64, through the one
// testbed: guard bands, untouched inputs and the gauge bound against the fp64 reference.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

struct Rung {
  const char* name;
  std::int64_t tile_m, tile_n;  // register/cache tile of the rung, f32
};

const Rung kRungs[] = {
    {"cpu.ladder.naive", 1, 1}, {"cpu.ladder.blocked", 32, 64}, {"cpu.ladder.packed", 4, 8},
    {"cpu.ladder.simd", 6, 16}, {"cpu.ladder.threaded", 6, 16},
};

std::vector<std::int64_t> edges(std::int64_t tile) {
  std::vector<std::int64_t> v = {1, 8, tile - 1, tile, tile + 1, 2 * tile + 1};
  std::erase_if(v, [](std::int64_t x) { return x < 1; });
  return v;
}

// Case number `i` picks one of the 16 combinations of transposes and layouts, so the grid
// covers all of them without multiplying its size by 16.
GemmDesc make_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType t, int i) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_a = (i & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (i & 2) ? Op::Trans : Op::NoTrans;
  d.a.layout = (i & 4) ? Layout::RowMajor : Layout::ColMajor;
  d.b.layout = (i & 8) ? Layout::RowMajor : Layout::ColMajor;
  d.c.layout = d.d.layout = (i & 16) ? Layout::RowMajor : Layout::ColMajor;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = d.compute = t;
  d = with_default_lds(d);
  d.a.ld += i % 3;  // some cases with ld > rows (padding gaps checked by the testbed)
  d.c.ld += i % 2;
  d.d.ld = d.c.ld;
  return d;
}

class LadderGrid : public ::testing::TestWithParam<Rung> {};

// Rungs that need an ISA this CPU (or GEMMKIT_CPU_ISA) lacks answer ArchMismatch: skipped.
bool runnable(const Rung& r) {
  GemmDesc d = with_default_lds(GemmDesc{.m = 1, .n = 1, .k = 1});
  return dispatch::registry().find(r.name)->can_implement(d).code != StatusCode::ArchMismatch;
}

TEST_P(LadderGrid, TileEdgesPassF32AndF64) {
  const Rung r = GetParam();
  if (!runnable(r)) GTEST_SKIP() << r.name << " needs an ISA this CPU lacks";
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0;
  for (DType t : {DType::F32, DType::F64})
    for (std::int64_t m : edges(r.tile_m))
      for (std::int64_t n : edges(r.tile_n))
        for (std::int64_t k : {8, 257, 600}) {
          const GemmDesc d = make_desc(m, n, k, t, i);
          const double alpha = (i % 3 == 0) ? 1.0 : 0.7, beta = (i % 4 == 0) ? 0.0 : 1.3;
          const Options opt{.backend = Backend::Cpu, .kernel = r.name, .threads = 2};
          const bench::VerifyResult v = bench::verify_case(d, alpha, beta, opt, seed + i);
          if (v.disposition != bench::Disposition::Passed && ++failures < 5)
            ADD_FAILURE() << r.name << " " << dtype_name(t) << " m=" << m << " n=" << n
                          << " k=" << k << " case " << i << ": " << to_string(v.status) << " "
                          << v.cmp.first_failure << " " << v.note;
          ++i;
        }
  EXPECT_EQ(failures, 0) << "of " << i << " cases";
}

TEST_P(LadderGrid, LargeOddShapePasses) {
  const Rung r = GetParam();
  if (!runnable(r)) GTEST_SKIP() << r.name << " needs an ISA this CPU lacks";
  for (DType t : {DType::F32, DType::F64}) {
    const GemmDesc d = make_desc(509, 477, 67, t, 5);
    const Options opt{.backend = Backend::Cpu, .kernel = r.name, .threads = 2};
    const bench::VerifyResult v = bench::verify_case(d, 0.7, 1.3, opt, test::test_seed());
    EXPECT_EQ(v.disposition, bench::Disposition::Passed)
        << r.name << " " << dtype_name(t) << ": " << v.cmp.first_failure << " " << v.note;
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, LadderGrid, ::testing::ValuesIn(kRungs), [](const auto& info) {
  std::string s = info.param.name;
  return s.substr(s.rfind('.') + 1);
});

}  // namespace
}  // namespace gemmkit
