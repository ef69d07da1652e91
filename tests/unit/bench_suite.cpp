// The six shape suites of BENCH.md are data files that parse and hold the shapes BENCH.md lists.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "bench/suite.hpp"

namespace gemmkit::bench {
namespace {

Suite load(const std::string& name) {
  const char* src = std::getenv("GEMMKIT_TEST_SRC");
  const std::string path = std::string(src ? src : ".") + "/bench/suites/" + name + ".json";
  Suite s;
  std::string err;
  EXPECT_TRUE(load_suite(path, &s, &err)) << err;
  return s;
}

TEST(BenchSuite, TheSixSuitesParseWithTheirShapes) {
  const Suite sq = load("square");
  ASSERT_EQ(sq.entries.size(), 6u);
  EXPECT_EQ(sq.entries[0].m, 512);
  EXPECT_EQ(sq.entries[5].k, 8192);
  EXPECT_EQ(sq.dtype.at("cuda"), "bf16");
  EXPECT_EQ(sq.dtype.at("cpu"), "f32");
  const Suite odd = load("odd");
  ASSERT_EQ(odd.entries.size(), 8u);
  EXPECT_EQ(odd.entries.back().k, 4095);
  const Suite llm = load("llm");
  EXPECT_EQ(llm.entries.size(), (4u + 6u) * 5u);
  std::set<std::pair<std::int64_t, std::int64_t>> nk;
  for (const auto& e : llm.entries) nk.insert({e.n, e.k});
  EXPECT_EQ(nk, (std::set<std::pair<std::int64_t, std::int64_t>>{
                    {4096, 4096}, {14336, 4096}, {4096, 14336}, {2112, 7168}, {7168, 2048}}));
  EXPECT_EQ(load("splitk").entries.size(), 3u);
  const Suite moe = load("moe");
  ASSERT_EQ(moe.entries.size(), 6u);
  for (const auto& e : moe.entries) {
    EXPECT_EQ(e.m, 16384);  // token counts add up
    std::set<std::int64_t> distinct(e.group_m.begin(), e.group_m.end());
    EXPECT_GT(distinct.size(), 1u) << "uneven token counts";
  }
  const Suite cpu = load("cpu");
  ASSERT_EQ(cpu.entries.size(), 12u);
  EXPECT_EQ(cpu.entries[9].name, "1x4096x4096");
  EXPECT_EQ(cpu.entries[11].n, 64);
}

TEST(BenchSuite, ListsExpandAsACartesianProductAndBadFilesFail) {
  Suite s;
  std::string err;
  ASSERT_TRUE(parse_suite(R"({"name": "t", "problems": [
      {"tag": "x", "m": [1, 2], "n": [3, 4], "k": 5, "layout_a": "row", "trans_b": true}]})",
                          &s, &err))
      << err;
  ASSERT_EQ(s.entries.size(), 4u);
  EXPECT_EQ(s.entries[3].name, "x 2x4x5");
  EXPECT_EQ(s.entries[0].options.at("layout_a"), "row");
  EXPECT_EQ(s.entries[0].options.at("trans_b"), "1");
  Suite bad;
  EXPECT_FALSE(parse_suite(R"({"problems": [{"n": 3}]})", &bad, &err));
  EXPECT_FALSE(parse_suite("not json", &bad, &err));
}

}  // namespace
}  // namespace gemmkit::bench
