// The planner ranks candidates by the ledger: on the h200 machine model (no GPU needed) with
// entries shaped like the sm90 family, split-K for few output tiles over a long K and
// data-parallel for 4096^3; the split counts it tries; a forced split count; refused
// candidates with their reason; and the same through make_plan and gemm() on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/status.hpp"
#include "dispatch/planner.hpp"
#include "support/oracle.hpp"

namespace gemmkit::dispatch {
namespace {

using sched::Mode;

// Registry entries with the sm90 family's configs and priorities (src/cuda/register.cu);
// they implement everything and run nothing.
std::vector<KernelInfo> sm90_like() {
  std::vector<KernelInfo> out;
  auto add = [&](int blk_n, int stages, int cluster, int priority) {
    KernelInfo k;
    k.name = "test.sm90_128x" + std::to_string(blk_n) + (cluster > 1 ? "_c2" : "");
    k.backend = Backend::Cuda;
    k.config = {
        .tile_m = 128,
        .tile_n = blk_n,
        .tile_k = 64,
        .stages = stages,
        .threads = 384,
        .warpgroups = 3,
        .cluster_m = cluster,
        .modes = static_cast<ModeSet>(mode_bit(Mode::DataParallel) | mode_bit(Mode::SplitK)),
        .raster_group = 8,
        .swizzle = Swizzle::B128,
        .isa = Isa::Wgmma};
    k.priority = priority;
    k.can_implement = [](const GemmDesc&) { return Status{}; };
    out.push_back(std::move(k));
  };
  add(256, 4, 2, 5);
  add(256, 4, 1, 30);
  add(192, 5, 1, 20);
  add(128, 6, 1, 10);
  return out;
}

std::vector<const KernelInfo*> pointers(const std::vector<KernelInfo>& ks) {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo& k : ks) out.push_back(&k);
  return out;
}

GemmDesc bf16(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a.dtype = d.b.dtype = DType::BF16;
  d.c.dtype = d.d.dtype = DType::BF16;
  return with_default_lds(d);
}

const ledger::Machine& h200() { return *ledger::find_machine("h200"); }

TEST(PlannerRank, DataParallelFor4096Cubed) {
  const auto ks = sm90_like();
  const auto ranked = rank_candidates(bf16(4096, 4096, 4096), 0.0, pointers(ks), h200());
  ASSERT_FALSE(ranked.empty());
  ASSERT_TRUE(ranked.front().status) << to_string(ranked.front().status);
  EXPECT_EQ(ranked.front().mode, Mode::DataParallel);
  EXPECT_EQ(ranked.front().split, 1);
  // 512 tiles of 128x256 fill 132 SMs (no split-K candidate: tiles > SMs); the clustered
  // entry predicts the same and loses on priority.
  EXPECT_EQ(ranked.front().kernel->name, "test.sm90_128x256");
  for (const Candidate& c : ranked) EXPECT_EQ(c.mode, Mode::DataParallel) << c.kernel->name;
}

TEST(PlannerRank, SplitKForFewTilesAndLongK) {
  const auto ks = sm90_like();
  for (auto [m, n, k] : {std::tuple{256, 256, 32768}, {128, 512, 16384}, {512, 256, 65536}, {16, 4096, 4096}}) {
    const auto ranked = rank_candidates(bf16(m, n, k), 0.0, pointers(ks), h200());
    ASSERT_TRUE(ranked.front().status);
    EXPECT_EQ(ranked.front().mode, Mode::SplitK) << m << "x" << n << "x" << k;
    EXPECT_GT(ranked.front().split, 1);
    // Better than the best data-parallel candidate by the model, and the split fits the SMs.
    const auto dp = std::find_if(ranked.begin(), ranked.end(),
                                 [](const Candidate& c) { return c.mode == Mode::DataParallel; });
    ASSERT_NE(dp, ranked.end());
    EXPECT_LT(ranked.front().predicted_s(), dp->predicted_s());
    const KernelConfig& cfg = ranked.front().kernel->config;
    const std::int64_t tiles =
        (m + cfg.tile_m - 1) / cfg.tile_m * ((n + cfg.tile_n - 1) / cfg.tile_n);
    EXPECT_LE(tiles * ranked.front().split, h200().sm_count);
  }
}

TEST(PlannerRank, SplitCountsStayInsideTheirBounds) {
  const KernelConfig cfg = sm90_like()[1].config;  // 128x256x64
  for (std::int64_t m : {1, 128, 300, 1024, 4096})
    for (std::int64_t n : {1, 256, 700, 4096})
      for (std::int64_t k : {64, 1000, 8192, 65536})
        for (int workers : {1, 16, 132}) {
          const GemmDesc d = bf16(m, n, k);
          EXPECT_EQ(split_counts(d, cfg, Mode::DataParallel, workers), std::vector<int>{1});
          const std::int64_t tiles = (m + 127) / 128 * ((n + 255) / 256);
          const std::int64_t k_iters = (k + 63) / 64;
          const std::vector<int> s = split_counts(d, cfg, Mode::SplitK, workers);
          for (int x : s) {
            EXPECT_GE(x, 2);
            EXPECT_LE(tiles * x, workers);
            EXPECT_LE(x, k_iters / 4);
          }
          EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
          const std::int64_t most = std::min<std::int64_t>({workers / tiles, k_iters / 4, 256});
          if (most >= 2) {
            EXPECT_EQ(s.back(), most) << "floor(workers / tiles) within the bounds";
            if (most / 2 >= 2)
              EXPECT_NE(std::find(s.begin(), s.end(), static_cast<int>(most / 2)), s.end())
                  << "half the most: one piece per SM pair";
          } else {
            EXPECT_TRUE(s.empty());
          }
          EXPECT_EQ(split_counts(d, cfg, Mode::StreamK, workers), std::vector<int>{1});
        }
}

// A cluster of two 128-row CTAs takes 256 rows as one tile and one piece per resident
// cluster: 300 rows are 2 cluster tiles (not 3 CTA tiles), on 66 clusters of 132 SMs.
TEST(PlannerRank, SplitCountsCountClusterTiles) {
  const KernelConfig cfg = sm90_like()[0].config;  // 128x256x64, clusters of 2
  ASSERT_EQ(cfg.cluster_m, 2);
  for (std::int64_t m : {128, 256, 300, 600})
    for (std::int64_t n : {256, 700}) {
      const GemmDesc d = bf16(m, n, 65536);
      const std::int64_t tiles = (m + 255) / 256 * ((n + 255) / 256);
      const std::vector<int> s = split_counts(d, cfg, Mode::SplitK, 132);
      ASSERT_FALSE(s.empty()) << m << "x" << n;
      EXPECT_EQ(s.back(), 66 / tiles) << m << "x" << n << ": one piece per cluster";
    }
}

TEST(PlannerRank, ForcedSplitCount) {
  const auto ks = sm90_like();
  const GemmDesc d = bf16(4096, 4096, 4096);
  for (int forced : {2, 3, 8}) {
    const auto ranked = rank_candidates(d, 0.0, pointers(ks), h200(), forced);
    ASSERT_EQ(ranked.size(), ks.size());  // one per kernel, even past the SM bound
    for (const Candidate& c : ranked) {
      EXPECT_EQ(c.mode, Mode::SplitK);
      EXPECT_EQ(c.split, forced);
    }
  }
  const auto one = rank_candidates(bf16(256, 256, 32768), 0.0, pointers(ks), h200(), 1);
  for (const Candidate& c : one) EXPECT_EQ(c.mode, Mode::DataParallel);
}

TEST(PlannerRank, RefusedCandidatesComeLastWithTheirReason) {
  auto ks = sm90_like();
  ks[1].can_implement = [](const GemmDesc&) { return GEMMKIT_UNSUPPORTED("not this one"); };
  KernelInfo streamk = ks[3];
  streamk.name = "test.streamk_only";
  streamk.config.modes = mode_bit(Mode::StreamK);
  ks.push_back(streamk);
  ks.back().can_implement = [](const GemmDesc&) { return GEMMKIT_UNSUPPORTED("nor this"); };
  const auto ranked = rank_candidates(bf16(4096, 4096, 4096), 0.0, pointers(ks), h200());
  bool seen_refused = false;
  int refused = 0;
  for (const Candidate& c : ranked) {
    if (!c.status) {
      seen_refused = true;
      ++refused;
      EXPECT_TRUE(c.kernel->name == "test.sm90_128x256" || c.kernel->name == "test.streamk_only")
          << c.kernel->name;
      EXPECT_FALSE(c.status.message.empty());
    } else {
      EXPECT_FALSE(seen_refused) << "a viable candidate after a refused one";
      EXPECT_NE(c.kernel->name, "test.sm90_128x256");
    }
  }
  EXPECT_EQ(refused, 2);
  // With the unclustered 128x256 refused, the clustered one (same prediction) is next best.
  EXPECT_EQ(ranked.front().kernel->name, "test.sm90_128x256_c2");
}

// The same entries with stream-K: chosen where the last wave of tiles is nearly empty (2048 x
// 2112 x 16384: 16 x 17 = 272 tiles of 128 x 128 = 2.06 waves, data-parallel pays 3; a spread
// wave costs 1.7 data-parallel ones), not where the tiles fill whole waves (12 x 11 = 132 tiles
// of 128 x 256) or nearly (4096^3: 3.88 waves of 128 x 256).
TEST(PlannerRank, StreamKForAPartialLastWave) {
  auto ks = sm90_like();
  for (KernelInfo& k : ks)  // as registered: the tiles up to 192 wide have stream-K
    if (k.config.tile_n <= 192) k.config.modes |= mode_bit(Mode::StreamK);
  const auto odd = rank_candidates(bf16(2048, 2112, 16384), 0.0, pointers(ks), h200());
  ASSERT_TRUE(odd.front().status);
  EXPECT_EQ(odd.front().mode, Mode::StreamK) << odd.front().kernel->name;
  EXPECT_EQ(odd.front().split, 1);
  EXPECT_GT(odd.front().prediction.term("fixup"), 0);
  for (auto [m, n] : {std::pair{1536, 2816}, {4096, 4096}}) {
    const auto even = rank_candidates(bf16(m, n, 4096), 0.0, pointers(ks), h200());
    ASSERT_TRUE(even.front().status);
    EXPECT_EQ(even.front().mode, Mode::DataParallel) << m << "x" << n;
  }
  // Options::schedule keeps one mode.
  const auto only = rank_candidates(bf16(4096, 4096, 4096), 0.0, pointers(ks), h200(), 0,
                                    Schedule::StreamK);
  ASSERT_FALSE(only.empty());
  for (const Candidate& c : only) EXPECT_EQ(c.mode, Mode::StreamK) << c.kernel->name;
}

// Options::schedule through make_plan: a contradiction with Options::split_k is InvalidValue
// naming both; a mode no kernel of the backend has is NotSupported naming Options::schedule.
TEST(PlannerRank, ScheduleRequests) {
  const GemmDesc d = with_default_lds(GemmDesc{.m = 64, .n = 64, .k = 512});
  const Plan bad = make_plan(
      d, {.backend = Backend::Cpu, .split_k = 2, .schedule = Schedule::StreamK});
  EXPECT_EQ(bad.status.code, StatusCode::InvalidValue);
  EXPECT_NE(bad.status.message.find("Options::split_k"), std::string::npos) << bad.status.message;
  EXPECT_NE(bad.status.message.find("Options::schedule"), std::string::npos) << bad.status.message;
  const Plan none = make_plan(d, {.backend = Backend::Cpu, .schedule = Schedule::StreamK});
  EXPECT_EQ(none.status.code, StatusCode::NotSupported);
  EXPECT_NE(none.status.message.find("Options::schedule"), std::string::npos)
      << none.status.message;
  const Plan dp = make_plan(d, {.backend = Backend::Cpu, .schedule = Schedule::DataParallel});
  ASSERT_TRUE(dp.status) << to_string(dp.status);
  EXPECT_EQ(dp.launch.mode, Mode::DataParallel);
  const Plan sk = make_plan(d, {.backend = Backend::Cpu, .threads = 2, .schedule = Schedule::SplitK});
  if (sk.status) EXPECT_EQ(sk.launch.mode, Mode::SplitK);
  else EXPECT_EQ(sk.status.code, StatusCode::NotSupported) << to_string(sk.status);
}

// Through the CPU planner and the front door: the forced split count reaches the kernel, the
// result is right, and a kernel without split-K refuses a forced count.
TEST(PlannerRank, ForcedSplitOnTheCpu) {
  GemmDesc d{.m = 16, .n = 16, .k = 8192};
  d = with_default_lds(d);
  for (int split : {2, 3, 5}) {
    const Options opt{.backend = Backend::Cpu, .threads = 2, .split_k = split};
    const Plan p = make_plan(d, opt);
    ASSERT_TRUE(p.status) << to_string(p.status);
    EXPECT_EQ(p.launch.mode, Mode::SplitK);
    EXPECT_EQ(p.launch.split, split);
    EXPECT_NE(p.launch.kernel->name.find("splitk"), std::string::npos);
    const auto v = bench::verify_case(d, 0.7, 1.3, opt, test::test_seed() + split);
    EXPECT_EQ(v.disposition, bench::Disposition::Passed) << v.note << to_string(v.status);
  }
  const Options dp_only{.backend = Backend::Cpu, .kernel = "cpu.gemm_portable", .split_k = 4};
  const Plan refused = make_plan(d, dp_only);
  EXPECT_EQ(refused.status.code, StatusCode::NotSupported);
  EXPECT_NE(refused.status.message.find("split_k"), std::string::npos) << refused.status.message;
  // Forced to one piece: data-parallel.
  const Plan one = make_plan(d, {.backend = Backend::Cpu, .split_k = 1});
  ASSERT_TRUE(one.status);
  EXPECT_EQ(one.launch.mode, Mode::DataParallel);
  EXPECT_EQ(one.launch.split, 1);
}

// Options::sm_count_target: the planner ranks on a machine with that many SMs (split counts
// that fill them, slower predictions for work that filled the whole device); the CPU machine
// is untouched; a negative count is refused naming the option, and gemm() writes nothing.
TEST(PlannerRank, SmCountTarget) {
  const ledger::Machine capped = limit_sms(h200(), 100);
  EXPECT_EQ(capped.sm_count, 100);
  EXPECT_LT(capped.peak[0], h200().peak[0]);
  EXPECT_DOUBLE_EQ(capped.dram_bytes_per_s, h200().dram_bytes_per_s);
  EXPECT_EQ(limit_sms(h200(), 0).sm_count, h200().sm_count);
  EXPECT_EQ(limit_sms(h200(), 500).sm_count, h200().sm_count);
  const ledger::Machine cpu = ledger::host_machine_nominal();
  EXPECT_EQ(limit_sms(cpu, 1).sm_count, cpu.sm_count);

  const auto ks = sm90_like();
  const auto full = rank_candidates(bf16(256, 256, 32768), 0.0, pointers(ks), h200());
  const auto part = rank_candidates(bf16(256, 256, 32768), 0.0, pointers(ks), capped);
  ASSERT_TRUE(full.front().status);
  ASSERT_TRUE(part.front().status);
  for (const Candidate& c : part) {
    if (!c.status || c.mode != Mode::SplitK) continue;
    const KernelConfig& cfg = c.kernel->config;
    const std::int64_t tiles = (256 + cfg.tile_m * cfg.cluster_m - 1) /
                               (cfg.tile_m * cfg.cluster_m) * ((256 + cfg.tile_n - 1) / cfg.tile_n);
    EXPECT_LE(tiles * c.split, 100) << c.kernel->name << " split " << c.split;
  }
  const auto big_full = rank_candidates(bf16(8192, 8192, 8192), 0.0, pointers(ks), h200());
  const auto big_part = rank_candidates(bf16(8192, 8192, 8192), 0.0, pointers(ks), capped);
  EXPECT_GT(big_part.front().predicted_s(), 1.2 * big_full.front().predicted_s());

  const GemmDesc d = with_default_lds(GemmDesc{.m = 8, .n = 8, .k = 8});
  const Plan bad = make_plan(d, {.backend = Backend::Cpu, .sm_count_target = -1});
  EXPECT_EQ(bad.status.code, StatusCode::InvalidValue);
  EXPECT_NE(bad.status.message.find("sm_count_target"), std::string::npos) << bad.status.message;
  std::vector<float> a(64, 1.f), b(64, 1.f), out(64, 7.f);
  const Status s = gemm(d, {.a = a.data(), .b = b.data(), .d = out.data(), .alpha = 1, .beta = 0},
                        {.backend = Backend::Cpu, .sm_count_target = -3});
  EXPECT_EQ(s.code, StatusCode::InvalidValue);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float x) { return x == 7.f; }));
  // On the CPU the count is ignored: the plan and the result are as without it.
  const Plan cpu_plan = make_plan(d, {.backend = Backend::Cpu, .sm_count_target = 4});
  ASSERT_TRUE(cpu_plan.status) << to_string(cpu_plan.status);
}

}  // namespace
}  // namespace gemmkit::dispatch
