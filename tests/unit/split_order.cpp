// The thread groups of the split-K reduction (split_groups): for every CTA tile the sm90 kernels
// have and every piece count a launch can have, G is a power of two dividing 256, no group is
// without pieces (G <= S), G = 1 exactly when a piece's share of the tile is over 128 float4s,
// and otherwise a group's threads cover that share with less than half of them idle.
#include "cuda/sm90/split_k.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace gemmkit::sm90 {
namespace {

TEST(SplitOrder, GroupsCoverTheSliceAndEveryGroupHasPieces) {
  for (const int blk_m : {64, 128})
    for (const int blk_n : {64, 128, 192, 256}) {
      const int quads = blk_n / 8 * 2 * blk_m;
      for (std::int64_t s = 2; s <= 264; ++s) {
        const int g = split_groups(quads, s);
        const std::int64_t widest = (quads + s - 1) / s;
        ASSERT_GT(g, 0);
        EXPECT_EQ(256 % g, 0) << quads << " " << s;
        EXPECT_EQ(g & (g - 1), 0) << quads << " " << s;
        EXPECT_LE(g, s) << quads << " " << s << ": a group without pieces";
        EXPECT_EQ(g == 1, widest > 128) << quads << " " << s;
        if (g > 1) {
          EXPECT_GE(256 / g, widest) << quads << " " << s << ": a slice wider than a group";
          EXPECT_LT(256 / g, 2 * widest) << quads << " " << s << ": groups left idle";
        }
      }
    }
}

}  // namespace
}  // namespace gemmkit::sm90
