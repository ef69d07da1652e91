// Harness self-tests: verification runs before timing and gates it;
// a row forced wrong is Incorrect, untimed and out of the summary; rotated (cache-cold) timing
// is measurably slower than warm timing on a cache-sized problem; the OpenBLAS baseline
// agrees with the reference in every layout (the column-major restatement is right).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bench/cache_size.hpp"
#include "bench/harness.hpp"
#include "bench/measure.hpp"
#include "bench/operand_sets.hpp"
#include "bench/rotation.hpp"

namespace gemmkit::bench {
namespace {

GemmDesc f32_desc(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDesc d{.m = m, .n = n, .k = k};
  return d;
}

HarnessSettings quick_settings(const std::string& baseline) {
  HarnessSettings hs;
  hs.backend = Backend::Cpu;
  hs.baseline = baseline;
  hs.measure.warmup_ms = 2;
  hs.measure.rep_ms = 10;
  hs.llc_bytes = 1 << 20;  // keep the rotation small: these tests check logic, not speed
  hs.threads = 1;
  return hs;
}

struct EnvGuard {
  explicit EnvGuard(const char* name, const char* value) : name_(name) {
    setenv(name, value, 1);
  }
  ~EnvGuard() { unsetenv(name_); }
  const char* name_;
};

TEST(BenchHarness, PassedRowsAreVerifiedThenTimed) {
  Harness h(quick_settings("openblas"));
  ASSERT_TRUE(h.init().ok());
  BenchProblem p{"48x40x32", f32_desc(48, 40, 32), 1.0, 0.0, ""};
  const auto rows = h.run(p, {{"cpu.reference", "", true}});
  ASSERT_EQ(rows.size(), 2u);
  for (const Row& r : rows) {
    EXPECT_EQ(r.disposition, Disposition::Passed) << r.provider << ": " << r.note;
    EXPECT_NE(r.check.find("gauge"), std::string::npos) << r.check;  // full reference check
    EXPECT_GE(r.stats.n, 3);
    EXPECT_GT(r.stats.median, 0.0);
    EXPECT_LE(r.stats.min, r.stats.median);
    EXPECT_GE(r.stats.max, r.stats.median);
  }
  EXPECT_EQ(rows[0].provider, "gemmkit");
  EXPECT_EQ(rows[1].provider, "openblas");
  EXPECT_TRUE(std::isfinite(rows[0].ratio_baseline));
  EXPECT_GT(rows[0].ratio_baseline, 0.0);
}

TEST(BenchHarness, ARowForcedWrongIsIncorrectUntimedAndOutOfTheSummary) {
  EnvGuard corrupt("GEMMKIT_TEST_CORRUPT_RESULT", "1");
  Harness h(quick_settings("openblas"));
  ASSERT_TRUE(h.init().ok());
  BenchProblem p{"32^3", f32_desc(32, 32, 32), 1.0, 0.0, ""};
  const auto rows = h.run(p, {{"cpu.reference", "", true}});
  ASSERT_EQ(rows.size(), 2u);
  for (const Row& r : rows) {
    EXPECT_EQ(r.disposition, Disposition::Incorrect) << r.provider;
    EXPECT_EQ(r.stats.n, 0) << "an Incorrect row must never be timed";
    EXPECT_FALSE(std::isfinite(r.ratio_baseline));
    EXPECT_NE(r.note.find("D(0,0)"), std::string::npos) << r.note;
  }
  const Summary s = summarize_rows(rows);
  EXPECT_EQ(s.incorrect, 2);
  EXPECT_EQ(s.passed, 0);
  EXPECT_EQ(s.ratios, 0);
  EXPECT_TRUE(std::isnan(s.geomean_ratio));
}

TEST(BenchHarness, ProbeCheckRunsAboveTheReferenceLimit) {
  HarnessSettings hs = quick_settings("openblas");
  hs.check.max_reference_flop = 1e5;  // force the probe on a small shape
  Harness h(hs);
  ASSERT_TRUE(h.init().ok());
  BenchProblem p{"96x80x64", f32_desc(96, 80, 64), 0.5, 0.0, ""};
  const auto rows = h.run(p, {{"cpu.reference", "", true}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].disposition, Disposition::Passed) << rows[1].note;
  EXPECT_NE(rows[1].check.find("probe"), std::string::npos) << rows[1].check;
}

TEST(BenchHarness, OpenBlasBaselinePassesInEveryLayout) {
  // Each combination restates the problem in column-major form differently (colmajor_form):
  // a wrong transpose or swap would show up as Incorrect here.
  Harness h(quick_settings("openblas"));
  ASSERT_TRUE(h.init().ok());
  int checked = 0;
  for (int bits = 0; bits < 32; ++bits) {
    GemmDesc d = f32_desc(13, 7, 5);
    d.a.layout = bits & 1 ? Layout::RowMajor : Layout::ColMajor;
    d.b.layout = bits & 2 ? Layout::RowMajor : Layout::ColMajor;
    d.c.layout = d.d.layout = bits & 4 ? Layout::RowMajor : Layout::ColMajor;
    d.trans_a = bits & 8 ? Op::Trans : Op::NoTrans;
    d.trans_b = bits & 16 ? Op::Trans : Op::NoTrans;
    BenchProblem p{"layout " + std::to_string(bits), d, 1.5, bits % 3 == 0 ? 0.0 : -0.75, ""};
    const auto rows = h.run(p, {});  // baseline only
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].disposition, Disposition::Passed)
        << layouts_string(d) << " beta " << p.beta << ": " << rows[0].note;
    ++checked;
  }
  EXPECT_EQ(checked, 32);
}

TEST(BenchHarness, UnsupportedBaselineGivesANotVerifiedRowNotACrash) {
  Harness h(quick_settings("openblas"));
  ASSERT_TRUE(h.init().ok());
  GemmDesc d = f32_desc(16, 16, 16);
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = DType::BF16;
  const auto rows = h.run(BenchProblem{"bf16", d, 1.0, 0.0, ""}, {{"cpu.reference", "", true}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].disposition, Disposition::Passed) << rows[0].note;
  EXPECT_GT(rows[0].stats.n, 0);                      // timed alone
  EXPECT_FALSE(std::isfinite(rows[0].ratio_baseline));  // no ratio without a baseline
  EXPECT_EQ(rows[1].disposition, Disposition::NotVerified);
  EXPECT_EQ(rows[1].stats.n, 0);
  EXPECT_FALSE(rows[1].note.empty());
}

// Cache-sized problem: M = 4, N = K = 256 f32 (B is 256 KiB, fits the caches) through
// OpenBLAS on one thread. Warm: the same set every call. Rotated: enough sets to exceed 2x
// the detected LLC, so B comes from DRAM every call. The cold median must be clearly higher.
TEST(BenchHarness, RotatedTimingIsSlowerThanWarmOnACacheSizedProblem) {
  GemmDesc d = with_default_lds(f32_desc(4, 256, 256));
  const HostCase hc = HostCase::make(d, 1.0, 0.0, 7);
  auto ob = make_openblas_provider(d, 1.0, 0.0, 1);
  ASSERT_TRUE(ob->unsupported().empty());
  const std::int64_t per_call = static_cast<std::int64_t>(hc.a.size() + hc.b.size() + hc.d.size());
  const std::int64_t per_set = per_call + static_cast<std::int64_t>(hc.c.size());
  const CacheSize llc = host_llc();
  std::printf("LLC %lld bytes (%s)\n", static_cast<long long>(llc.bytes), llc.source.c_str());
  const RotationPlan warm = plan_rotation(per_call, per_set, llc.bytes, 4ll << 30, true);
  const RotationPlan cold = plan_rotation(per_call, per_set, llc.bytes, 4ll << 30, false);
  ASSERT_EQ(cold.mode, CacheMode::Rotate) << cold.describe();
  MeasureSettings ms;
  ms.warmup_ms = 5;
  ms.rep_ms = 40;
  ms.min_reps = 50;
  const MeasureTarget host{};
  double best_ratio = 0;
  for (int attempt = 0; attempt < 3 && best_ratio < 1.3; ++attempt) {
    std::string err;
    Measurement mw, mc;
    {
      OperandSets ws;
      ASSERT_TRUE(ws.create(hc, warm.sets, false, &err)) << err;
      mw = measure(*ob, nullptr, ws, warm, host, ms, 0, 0);
    }
    {
      OperandSets cs;
      ASSERT_TRUE(cs.create(hc, cold.sets, false, &err)) << err;
      ASSERT_TRUE(cs.fill_all(&err)) << err;  // every set touched once: no first-touch faults
      mc = measure(*ob, nullptr, cs, cold, host, ms, 0, 0);
    }
    ASSERT_TRUE(mw.status.ok() && mc.status.ok());
    const double ratio = mc.candidate.median / mw.candidate.median;
    std::printf("warm %.4f ms (n=%lld), rotated over %d sets %.4f ms (n=%lld): %.2fx\n",
                mw.candidate.median, static_cast<long long>(mw.candidate.n), cold.sets,
                mc.candidate.median, static_cast<long long>(mc.candidate.n), ratio);
    best_ratio = std::max(best_ratio, ratio);
  }
  EXPECT_GT(best_ratio, 1.3);
}

TEST(BenchRotation, PlanExceedsTwiceTheCacheOrFlushes) {
  const std::int64_t mib = 1 << 20;
  RotationPlan p = plan_rotation(10 * mib, 12 * mib, 60 * mib, 16ll << 30, false);
  EXPECT_EQ(p.mode, CacheMode::Rotate);
  EXPECT_EQ(p.sets, 13);  // ceil(120 / 10) + 1: 12 other sets (120 MiB) between two uses
  EXPECT_GE((p.sets - 1) * p.bytes_per_call, 2 * p.llc_bytes);
  p = plan_rotation(500 * mib, 500 * mib, 60 * mib, 16ll << 30, false);
  EXPECT_EQ(p.sets, 2);
  p = plan_rotation(500 * mib, 500 * mib, 60 * mib, 600 * mib, false);  // 2 sets do not fit
  EXPECT_EQ(p.mode, CacheMode::Rotate);
  EXPECT_EQ(p.sets, 1);  // one call alone sweeps 2x the cache
  p = plan_rotation(mib, mib, 600 * mib, 100 * mib, false);
  EXPECT_EQ(p.mode, CacheMode::Flush);
  EXPECT_EQ(p.flush_bytes, 1200 * mib);
  p = plan_rotation(mib, mib, 60 * mib, 16ll << 30, true);
  EXPECT_EQ(p.mode, CacheMode::Warm);
  EXPECT_EQ(p.sets, 1);
}

TEST(BenchStats, MedianMinMaxMean) {
  const Stats s = summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(summarize({5.0, 1.0, 9.0}).median, 5.0);
  EXPECT_EQ(summarize({}).n, 0);
}

}  // namespace
}  // namespace gemmkit::bench
