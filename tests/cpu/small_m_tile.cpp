// The AVX2 small-M register tiles (4 x 24 f32, 4 x 12 f64): which shapes take them
// (cpu/tile_choice.hpp), and every short side of 17..64 against the fp64 reference, as M or as
// N, with long sides that leave ragged edge tiles in both directions (their masked
// write-back), K over one and several K blocks, alpha and beta (0 and not), f32 and f64, 1 and
// 2 threads.
#include <gtest/gtest.h>

#include "bench/testbed.hpp"
#include "cpu/tile_choice.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

// Case i's layouts; the short side is M for even i / 2, N otherwise.
GemmDesc desc_of(std::int64_t s, std::int64_t l, std::int64_t k, DType t, int i) {
  const bool short_m = (i / 2) % 2 == 0;
  GemmDesc d{.m = short_m ? s : l, .n = short_m ? l : s, .k = k};
  d.trans_a = (i & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (i & 4) ? Op::Trans : Op::NoTrans;
  // D's unit stride along the long side: the orientation puts the short side on the tile rows.
  const bool col = !short_m;
  d.c.layout = d.d.layout = col ? Layout::ColMajor : Layout::RowMajor;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = d.compute = t;
  d = with_default_lds(d);
  d.a.ld += i % 3;
  d.c.ld += i % 2;
  d.d.ld = d.c.ld;
  return d;
}

TEST(CpuSmallMTile, WhichShapes) {
  auto applies = [](std::int64_t m, std::int64_t n, Layout dl, bool invariant = false) {
    GemmDesc d{.m = m, .n = n, .k = 4096};
    d.c.layout = d.d.layout = dl;
    return cpu::small_m_tile_applies(with_default_lds(d), invariant, 4, 24, 6);
  };
  EXPECT_TRUE(applies(4096, 64, Layout::ColMajor));  // 64 = 16 x 4, 6 leaves 4 rows
  EXPECT_TRUE(applies(64, 4096, Layout::RowMajor));
  EXPECT_TRUE(applies(4096, 20, Layout::ColMajor));   // 20 = 5 x 4, 6 pads it to 24
  EXPECT_FALSE(applies(4096, 64, Layout::RowMajor));  // 64 would lie on the 24-column side
  EXPECT_FALSE(applies(4096, 48, Layout::ColMajor));  // 6 divides 48 as well
  EXPECT_FALSE(applies(4096, 17, Layout::ColMajor));  // 4 pads it to 20, 6 to 18
  EXPECT_FALSE(applies(4096, 16, Layout::ColMajor));  // below 17 rows
  EXPECT_FALSE(applies(4096, 65, Layout::ColMajor));
  EXPECT_FALSE(applies(4096, 64, Layout::ColMajor, true));  // batch invariance
}

void every_short_side(const char* kernel, DType t) {
  const dispatch::KernelInfo* k = dispatch::registry().find(kernel);
  ASSERT_NE(k, nullptr);
  if (!k->can_implement(desc_of(17, 24, 8, t, 0))) GTEST_SKIP() << "no AVX2 on this CPU";
  const std::uint64_t seed = test::test_seed();
  int i = 0, failures = 0, small = 0;
  for (std::int64_t s = 17; s <= 64; ++s)
    for (const std::int64_t l : {std::int64_t{23}, 24 + s % 3, std::int64_t{97}}) {
      const std::int64_t kk = i % 3 == 0 ? 9 : i % 3 == 1 ? 300 : 700;
      const GemmDesc d = desc_of(s, l, kk, t, i);
      small += cpu::small_m_tile_applies(d, false, 4, t == DType::F32 ? 24 : 12, 6);
      const Options opt{.backend = Backend::Cpu, .kernel = kernel, .threads = 1 + i % 2};
      const double alpha = i % 2 ? 0.7 : -1.5, beta = i % 3 ? 1.3 : 0.0;
      const auto v = bench::verify_case(d, alpha, beta, opt, seed + i);
      if (v.disposition != bench::Disposition::Passed && ++failures <= 5)
        ADD_FAILURE() << d.m << "x" << d.n << "x" << d.k << " case " << i << ": "
                      << v.cmp.first_failure << v.note;
      ++i;
    }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(small, i / 4) << "a good share of the cases should take the small-M tile";
}

TEST(CpuSmallMTile, F32AgainstTheReference) { every_short_side("cpu.sgemm_avx2_6x16", DType::F32); }
TEST(CpuSmallMTile, F64AgainstTheReference) { every_short_side("cpu.dgemm_avx2_6x8", DType::F64); }

}  // namespace
}  // namespace gemmkit
