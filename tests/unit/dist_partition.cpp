// Tensor-parallel partitioning on the host (src/dist/partition.hpp): shards tile [0, total) in
// rank order for P = 1..8, equal or caller-given (unequal, empty) sizes, M not divisible by P;
// every row of every chunk is in exactly one piece, of the rank whose shard holds it, at the right
// local row; chunk counts that do not divide M; bad sizes rejected with the reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "dist/partition.hpp"
#include "support/oracle.hpp"

namespace gemmkit::dist {
namespace {

void expect_tiling(const std::vector<Range>& r, std::int64_t total, std::size_t parts) {
  ASSERT_EQ(r.size(), parts);
  std::int64_t at = 0;
  for (const Range& x : r) {
    EXPECT_EQ(x.begin, at);
    EXPECT_GE(x.size(), 0);
    at = x.end;
  }
  EXPECT_EQ(at, total);
}

// Every row of every chunk lands in exactly one piece, owned by the shard that holds it.
void expect_pieces_cover(const std::vector<Range>& shards, std::int64_t total, int chunks) {
  const std::vector<Range> plan = chunk_plan(total, chunks);
  std::vector<int> seen(static_cast<std::size_t>(total), 0);
  for (const Range& c : plan) {
    std::int64_t at = c.begin;
    for (const Piece& p : pieces_of(c, shards)) {
      ASSERT_GE(p.rank, 0);
      ASSERT_LT(p.rank, static_cast<int>(shards.size()));
      const Range& s = shards[static_cast<std::size_t>(p.rank)];
      EXPECT_EQ(p.rows.begin, at) << "pieces in row order, no gap";
      EXPECT_GT(p.rows.size(), 0);
      EXPECT_GE(p.rows.begin, s.begin);
      EXPECT_LE(p.rows.end, s.end);
      EXPECT_EQ(p.local, p.rows.begin - s.begin);
      for (std::int64_t i = p.rows.begin; i < p.rows.end; ++i) ++seen[static_cast<std::size_t>(i)];
      at = p.rows.end;
    }
    EXPECT_EQ(at, c.end);
  }
  for (std::int64_t i = 0; i < total; ++i)
    ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << "row " << i << " total " << total;
}

TEST(DistPartition, EqualShardsEveryPAndM) {
  for (int p = 1; p <= 8; ++p)
    for (std::int64_t m : {0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1000, 1001}) {
      const std::vector<Range> r = equal_ranges(m, p);
      expect_tiling(r, m, static_cast<std::size_t>(p));
      for (const Range& x : r) {  // sizes differ by at most one, larger first
        EXPECT_LE(r.front().size() - x.size(), 1);
        EXPECT_GE(r.front().size(), x.size());
      }
      EXPECT_EQ(all_equal(r), m % p == 0);
      for (int c : {1, 2, 3, 5, 8, 13, 1000, 5000}) expect_pieces_cover(r, m, c);
    }
}

TEST(DistPartition, UnequalShardsGivenByTheCaller) {
  const std::uint64_t seed = test::test_seed();
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 300; ++iter) {
    const int p = 1 + static_cast<int>(rng() % 8);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(p));
    std::int64_t m = 0;
    for (auto& s : sizes) m += (s = static_cast<std::int64_t>(rng() % 4 == 0 ? 0 : rng() % 97));
    ASSERT_EQ(check_sizes(sizes, m, p), "") << "seed " << seed;
    const std::vector<Range> r = ranges_of_sizes(sizes);
    expect_tiling(r, m, static_cast<std::size_t>(p));
    for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(r[i].size(), sizes[i]);
    const int c = 1 + static_cast<int>(rng() % 11);
    expect_pieces_cover(r, m, c);
  }
}

TEST(DistPartition, ChunkPlanDoesNotNeedToDivide) {
  for (std::int64_t m : {1, 5, 10, 127, 128, 129}) {
    for (int c : {1, 2, 3, 4, 7, 16, 200}) {
      const std::vector<Range> plan = chunk_plan(m, c);
      expect_tiling(plan, m, static_cast<std::size_t>(std::min<std::int64_t>(c, m)));
      for (const Range& x : plan) EXPECT_GT(x.size(), 0) << "no empty chunk";
    }
  }
  EXPECT_EQ(chunk_plan(0, 4), (std::vector<Range>{Range{0, 0}}));
  EXPECT_EQ(chunk_plan(10, 0).size(), 1u) << "chunks < 1 is one chunk";
}

TEST(DistPartition, PiecesOfAChunkAcrossShards) {
  // Shards {0..3, 3..3 (empty), 3..10}; the chunk 2..5 is rows 2 of rank 0 and 3, 4 of rank 2.
  const std::vector<Range> shards = ranges_of_sizes(std::vector<std::int64_t>{3, 0, 7});
  const std::vector<Piece> p = pieces_of({2, 5}, shards);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].rank, 0);
  EXPECT_EQ(p[0].rows, (Range{2, 3}));
  EXPECT_EQ(p[0].local, 2);
  EXPECT_EQ(p[1].rank, 2);
  EXPECT_EQ(p[1].rows, (Range{3, 5}));
  EXPECT_EQ(p[1].local, 0);
}

TEST(DistPartition, BadSizesRejectedWithTheReason) {
  const std::vector<std::int64_t> ok{4, 4, 2};
  EXPECT_EQ(check_sizes(ok, 10, 3), "");
  EXPECT_NE(check_sizes(ok, 11, 3).find("add up to 10, not 11"), std::string::npos);
  EXPECT_NE(check_sizes(ok, 9, 3).find("more than 9"), std::string::npos);
  EXPECT_NE(check_sizes(ok, 10, 4).find("3 shard sizes for 4 ranks"), std::string::npos);
  const std::vector<std::int64_t> neg{5, -1, 6};
  EXPECT_NE(check_sizes(neg, 10, 3).find("negative"), std::string::npos);
  const std::vector<std::int64_t> huge{INT64_MAX, INT64_MAX};
  EXPECT_NE(check_sizes(huge, 10, 2), "") << "a sum that overflows is refused";
  EXPECT_TRUE(ranges_of_sizes(neg).empty());
  EXPECT_TRUE(equal_ranges(-1, 2).empty());
  EXPECT_TRUE(equal_ranges(10, 0).empty());
}

}  // namespace
}  // namespace gemmkit::dist
