// The tile schedulers on the host: for every mode, over a grid of shapes, batch counts and
// worker counts, every (tile, K-iteration) of the problem is covered exactly once, every piece
// lies inside its tile's K range, and the grouped order is a permutation of the tiles.
#include "sched/tile_scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gemmkit::sched {
namespace {

struct Counts {
  std::vector<int> per_iter;  // (tile, k-iteration) -> times computed
  std::vector<int> tile_seen;  // tile_at(t) coordinates -> times produced
};

void expect_exact_cover(const Problem& pb, Mode mode, int64_t workers, int group, int64_t splits) {
  const Params p = make_params(pb, mode, workers, group, splits, 4);
  const int64_t tiles = p.tiles(), kk = p.k_iters > 0 ? p.k_iters : 1;
  std::vector<int> cover(static_cast<std::size_t>(tiles * kk), 0);
  std::vector<int> pieces_with_zero_k(static_cast<std::size_t>(tiles), 0);
  for (int64_t w = 0; w < p.workers; ++w) {
    Scheduler s(p, w);
    Work item;
    int guard = 0;
    while (s.next(&item)) {
      ASSERT_LT(++guard, 1 << 22) << "scheduler does not terminate";
      ASSERT_GE(item.tile, 0);
      ASSERT_LT(item.tile, tiles);
      const Work t = tile_at(p, item.tile);
      EXPECT_EQ(item.batch, t.batch);
      EXPECT_EQ(item.tile_m, t.tile_m);
      EXPECT_EQ(item.tile_n, t.tile_n);
      ASSERT_LE(0, item.k_begin);
      ASSERT_LE(item.k_begin, item.k_end);
      ASSERT_LE(item.k_end, p.k_iters);
      if (mode == Mode::SplitK) {  // the piece index names the piece's K-range
        ASSERT_GE(item.split, 0);
        ASSERT_LT(item.split, p.splits);
        // As even as can be: the first k_iters % splits pieces one K-iteration longer.
        const int64_t q = p.k_iters / p.splits, r = p.k_iters % p.splits;
        EXPECT_EQ(item.k_begin, item.split * q + std::min(item.split, r));
        EXPECT_EQ(item.k_end - item.k_begin, item.split < r ? q + 1 : q);
        EXPECT_EQ(item.k_begin, split_begin(p, item.split));
      } else {
        EXPECT_EQ(item.split, 0);
      }
      if (p.k_iters == 0) ++pieces_with_zero_k[static_cast<std::size_t>(item.tile)];
      for (int64_t k = item.k_begin; k < item.k_end; ++k)
        ++cover[static_cast<std::size_t>(item.tile * kk + k)];
    }
  }
  const auto what = [&] {
    return "m=" + std::to_string(pb.m) + " n=" + std::to_string(pb.n) +
           " k_iters=" + std::to_string(pb.k_iters) + " batch=" + std::to_string(pb.batch) +
           " tile=" + std::to_string(pb.tile_m) + "x" + std::to_string(pb.tile_n) +
           " mode=" + std::to_string(static_cast<int>(mode)) + " workers=" +
           std::to_string(workers) + " group=" + std::to_string(group) +
           " splits=" + std::to_string(splits);
  };
  if (p.k_iters == 0) {
    // K == 0: every tile still visited (its epilogue writes beta * C) exactly once.
    for (int64_t t = 0; t < tiles; ++t)
      ASSERT_EQ(pieces_with_zero_k[static_cast<std::size_t>(t)], 1) << what() << " tile " << t;
    return;
  }
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t k = 0; k < p.k_iters; ++k)
      ASSERT_EQ(cover[static_cast<std::size_t>(t * kk + k)], 1)
          << what() << " tile " << t << " k-iteration " << k;
}

TEST(TileScheduler, GroupedOrderIsAPermutation) {
  for (int64_t tm : {1, 3, 8, 11, 32})
    for (int64_t tn : {1, 2, 7, 16})
      for (int group : {1, 4, 8, 16}) {
        const Params p = make_params({.m = tm * 128, .n = tn * 256, .k_iters = 1, .batch = 2,
                                      .tile_m = 128, .tile_n = 256},
                                     Mode::DataParallel, 132, group);
        std::vector<int> seen(static_cast<std::size_t>(p.tiles()), 0);
        for (int64_t t = 0; t < p.tiles(); ++t) {
          const Work w = tile_at(p, t);
          ASSERT_LT(w.tile_m, tm);
          ASSERT_LT(w.tile_n, tn);
          ASSERT_LT(w.batch, 2);
          ++seen[static_cast<std::size_t>(w.batch * tm * tn + w.tile_m * tn + w.tile_n)];
        }
        for (int c : seen) ASSERT_EQ(c, 1) << tm << "x" << tn << " group " << group;
      }
}

TEST(TileScheduler, GroupedOrderWalksPanelsColumnByColumn) {
  const Params p = make_params({.m = 1024, .n = 1024, .k_iters = 1, .tile_m = 128, .tile_n = 128},
                               Mode::DataParallel, 1, 4);
  // Panel of 4 tile rows: tiles 0..3 are column 0, rows 0..3; tile 4 is column 1, row 0.
  EXPECT_EQ(tile_at(p, 3).tile_m, 3);
  EXPECT_EQ(tile_at(p, 3).tile_n, 0);
  EXPECT_EQ(tile_at(p, 4).tile_m, 0);
  EXPECT_EQ(tile_at(p, 4).tile_n, 1);
  EXPECT_EQ(tile_at(p, 32).tile_m, 4);  // second panel
}

TEST(TileScheduler, EveryTileAndKIterationOnceInEveryMode) {
  const int64_t ms[] = {1, 127, 128, 129, 1000, 4096};
  const int64_t ns[] = {1, 255, 256, 257, 4097};
  const int64_t ks[] = {0, 1, 3, 64, 257};
  const int64_t workers[] = {1, 7, 132};
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks)
        for (int64_t wk : workers)
          for (int64_t batch : {1, 3}) {
            const Problem pb{.m = m, .n = n, .k_iters = k, .batch = batch, .tile_m = 128,
                             .tile_n = 256};
            expect_exact_cover(pb, Mode::DataParallel, wk, 8, 1);
            for (int64_t s : {2, 3, 5, 1000}) expect_exact_cover(pb, Mode::SplitK, wk, 8, s);
            expect_exact_cover(pb, Mode::StreamK, wk, 8, 1);
          }
}

TEST(TileScheduler, StreamKKeepsFullWavesDataParallelAndBalancesTheRest) {
  // 4096 x 4096 with 128 x 256 tiles: 512 tiles on 132 workers = 3 full waves + 116.
  const Params p = make_params({.m = 4096, .n = 4096, .k_iters = 64, .tile_m = 128, .tile_n = 256},
                               Mode::StreamK, 132);
  EXPECT_EQ(p.dp_tiles, 2 * 132);
  EXPECT_EQ(p.sk_iters, (512 - 264) * 64);
  EXPECT_EQ(p.sk_workers, 132);
  // Every worker's total K-iterations differ by at most one tile's worth plus one.
  int64_t lo = INT64_MAX, hi = 0;
  for (int64_t w = 0; w < p.workers; ++w) {
    Scheduler s(p, w);
    Work item;
    int64_t iters = 0;
    while (s.next(&item)) iters += item.k_end - item.k_begin;
    lo = iters < lo ? iters : lo;
    hi = iters > hi ? iters : hi;
  }
  EXPECT_LE(hi - lo, 1);
}

TEST(TileScheduler, SplitKClampsToTheKIterations) {
  const Params p = make_params({.m = 128, .n = 128, .k_iters = 3, .tile_m = 128, .tile_n = 128},
                               Mode::SplitK, 132, 8, 10);
  EXPECT_EQ(p.splits, 3);
}

}  // namespace
}  // namespace gemmkit::sched
