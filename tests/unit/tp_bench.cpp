// The host side of `gemmkit bench --gpus N --tp column|row` (src/bench/tp_plan, tp_check,
// tp_report): the flags' rules (each names its flag), what each rank holds, the verification
// bound, the report's figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "bench/tp_check.hpp"
#include "bench/tp_plan.hpp"
#include "bench/tp_report.hpp"
#include "gemmkit/convert.hpp"

namespace gemmkit::bench {
namespace {

TpBenchSpec spec(int p, TpSplit split, std::int64_t m = 8192, std::int64_t n = 28672,
                 std::int64_t k = 8192) {
  TpBenchSpec s;
  s.gpus = p, s.split = split, s.m = m, s.n = n, s.k = k;
  return s;
}

TEST(TpBenchSpec, GoalShapesRunOnOneToEightGpus) {
  for (int p : {1, 2, 4, 8})
    for (TpSplit t : {TpSplit::Column, TpSplit::Row}) {
      EXPECT_TRUE(check_tp_spec(spec(p, t), 8).ok()) << p;
      EXPECT_TRUE(check_tp_spec(spec(p, t, 16384, 8192, 28672), 8).ok()) << p;
    }
}

TEST(TpBenchSpec, EachBadValueNamesItsFlag) {
  const auto flag = [](const TpBenchSpec& s, int visible) {
    return check_tp_spec(s, visible).flag;
  };
  EXPECT_EQ(flag(spec(0, TpSplit::Column), 1), "--gpus");
  const TpSpecError e = check_tp_spec(spec(4, TpSplit::Column), 1);
  EXPECT_EQ(e.flag, "--gpus");
  EXPECT_NE(e.why.find("4 GPUs asked, 1 visible"), std::string::npos) << e.why;
  EXPECT_EQ(flag(spec(1, TpSplit::Column), 0), "--gpus");  // no GPU at all
  TpBenchSpec s = spec(2, TpSplit::Column);
  s.chunks = 0;
  EXPECT_EQ(flag(s, 2), "--chunks");
  EXPECT_EQ(flag(spec(2, TpSplit::Column, 0), 2), "--m");
  EXPECT_EQ(flag(spec(2, TpSplit::Column, 8, 0), 2), "--n");
  EXPECT_EQ(flag(spec(2, TpSplit::Row, 8, 8, 0), 2), "--k");
  EXPECT_EQ(flag(spec(2, TpSplit::Column, 1001), 2), "--m");
  EXPECT_EQ(flag(spec(2, TpSplit::Column, 1000, 1001), 2), "--n");
  EXPECT_EQ(flag(spec(2, TpSplit::Row, 1000, 1001, 1001), 2), "--k");
  EXPECT_EQ(flag(spec(2, TpSplit::Row, 1000, 1001, 1000), 2), "");  // N free for row
  TpBenchSpec ar = spec(2, TpSplit::Row, 1001, 64, 64);
  EXPECT_EQ(flag(ar, 2), "--m");
  ar.all_reduce = true;  // all-reduce: every rank gets all M rows
  EXPECT_EQ(flag(ar, 2), "");
  s = spec(1, TpSplit::Column);
  s.dtype_ab = DType::E4M3;
  EXPECT_EQ(flag(s, 1), "--dtype");
  s = spec(1, TpSplit::Row);
  s.dtype_d = DType::I32;
  EXPECT_EQ(flag(s, 1), "--dtype-d");
}

TEST(TpBenchPlan, RanksTileTheProblem) {
  for (int p : {1, 2, 3, 8}) {
    const TpBenchSpec c = spec(p, TpSplit::Column, 24 * p, 16 * p, 40);
    std::int64_t a_rows = 0, cols = 0;
    for (int r = 0; r < p; ++r) {
      const TpRankPlan pl = tp_rank_plan(c, r);
      EXPECT_EQ(pl.a_rows0, a_rows);
      EXPECT_EQ(pl.col0, cols);
      a_rows += pl.a_rows, cols += pl.cols;
      EXPECT_EQ(pl.rows, c.m);
      EXPECT_EQ(pl.local.m, c.m);
      EXPECT_EQ(pl.local.n, c.n / p);
      EXPECT_EQ(pl.local.k, c.k);
      EXPECT_EQ(pl.local.a.layout, Layout::RowMajor);
      EXPECT_EQ(pl.local.a.ld, c.k);
      EXPECT_EQ(pl.local.b.layout, Layout::ColMajor);
      EXPECT_EQ(pl.local.d.layout, Layout::RowMajor);
      EXPECT_EQ(pl.local.d.ld, c.n / p);
    }
    EXPECT_EQ(a_rows, c.m);
    EXPECT_EQ(cols, c.n);
    for (bool all_reduce : {false, true}) {
      TpBenchSpec rw = spec(p, TpSplit::Row, 24 * p, 40, 16 * p);
      rw.all_reduce = all_reduce;
      std::int64_t rows = 0, ks = 0;
      for (int r = 0; r < p; ++r) {
        const TpRankPlan pl = tp_rank_plan(rw, r);
        EXPECT_EQ(pl.k0, ks);
        ks += pl.kr;
        EXPECT_EQ(pl.local.k, rw.k / p);
        EXPECT_EQ(pl.local.n, rw.n);
        EXPECT_EQ(pl.cols, rw.n);
        if (all_reduce) {
          EXPECT_EQ(pl.row0, 0);
          EXPECT_EQ(pl.rows, rw.m);
        } else {
          EXPECT_EQ(pl.row0, rows);
          rows += pl.rows;
        }
      }
      EXPECT_EQ(ks, rw.k);
      if (!all_reduce) {
        EXPECT_EQ(rows, rw.m);
      }
    }
  }
}

TEST(TpBenchCheck, BoundGrowsWithRanksAndRowSums) {
  const TpBound col{.dtype_d = DType::BF16, .gpus = 2, .k = 8192, .row = false};
  TpBound row = col;
  row.row = true;
  EXPECT_GT(tp_element_bound(row, 1.0, 100.0), tp_element_bound(col, 1.0, 100.0));
  TpBound row8 = row;
  row8.gpus = 8;
  EXPECT_GT(tp_element_bound(row8, 1.0, 100.0), tp_element_bound(row, 1.0, 100.0));
  // Column, f32 D: 2 u |ref| + 2 (K + P + 2) u G with u = 2^-24.
  const TpBound f32{.dtype_d = DType::F32, .gpus = 1, .k = 100, .row = false};
  EXPECT_DOUBLE_EQ(tp_element_bound(f32, 2.0, 10.0), std::ldexp(1.0, -24) * (4.0 + 2 * 103 * 10));
}

TEST(TpBenchCheck, ComparesTheRanksBlockAndCatchesErrors) {
  // Whole D 4 x 6 (f32), the rank holds rows 2..3, columns 3..5.
  const std::int64_t m = 4, n = 6;
  std::vector<float> ref(m * n), gauge(m * n, 8.0f);
  for (std::int64_t i = 0; i < m * n; ++i) ref[i] = 0.25f * float(i) - 2.0f;
  const TpBound b{.dtype_d = DType::F32, .gpus = 2, .k = 64, .row = true};
  std::vector<float> got;
  for (std::int64_t i = 2; i < 4; ++i)
    for (std::int64_t j = 3; j < 6; ++j) got.push_back(ref[i * n + j]);
  TpCheck c = tp_compare(b, got.data(), 2, 3, 2, 3, ref.data(), gauge.data(), n);
  EXPECT_TRUE(c.passed) << c.first_failure;
  EXPECT_EQ(c.checked, 6);
  EXPECT_EQ(c.max_err_over_bound, 0.0);

  std::vector<float> bad = got;
  bad[4] += 0.5f;  // D(3,4)
  c = tp_compare(b, bad.data(), 2, 3, 2, 3, ref.data(), gauge.data(), n);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NE(c.first_failure.find("D(3,4)"), std::string::npos) << c.first_failure;

  bad = got;
  bad[0] = NAN;
  EXPECT_FALSE(tp_compare(b, bad.data(), 2, 3, 2, 3, ref.data(), gauge.data(), n).passed);

  // The wrong block (rows 0..1) fails.
  EXPECT_FALSE(tp_compare(b, got.data(), 2, 3, 0, 3, ref.data(), gauge.data(), n).passed);

  // bf16 D: values rounded once more still pass.
  std::vector<std::uint16_t> ref16(m * n), got16;
  for (std::int64_t i = 0; i < m * n; ++i) ref16[i] = to_bf16(ref[i]);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) got16.push_back(to_bf16(ref[i * n + j] * (1 + 1e-3)));
  const TpBound b16{.dtype_d = DType::BF16, .gpus = 1, .k = 64, .row = false};
  c = tp_compare(b16, got16.data(), m, n, 0, 0, ref16.data(), gauge.data(), n);
  EXPECT_TRUE(c.passed) << c.first_failure;

  TpCheck all;
  merge_check(&all, c, "rank 0");
  merge_check(&all, tp_compare(b, bad.data(), 2, 3, 2, 3, ref.data(), gauge.data(), n), "rank 1");
  EXPECT_FALSE(all.passed);
  EXPECT_EQ(all.first_failure.rfind("rank 1: ", 0), 0u) << all.first_failure;
}

TEST(TpBenchReport, FiguresFromTheRounds) {
  std::vector<double> rounds[kTpVariants];
  // overlapped 3 ms, unchunked 4, baseline 4.5, GEMM 2.5, collective 1.5 (ms).
  const double t[kTpVariants] = {3.0, 4.0, 4.5, 2.5, 1.5};
  for (int v = 0; v < kTpVariants; ++v) rounds[v] = {t[v], t[v] * 1.1, t[v] * 0.9};
  const TpTimes times = tp_times(rounds);
  EXPECT_EQ(times.rounds, 3);
  EXPECT_DOUBLE_EQ(times.ms[kTpOverlapped].median, 3.0);
  EXPECT_DOUBLE_EQ(times.ratio_baseline, 1.5);
  const TpBenchSpec s = spec(4, TpSplit::Column, 8192, 28672, 8192);
  const TpFigures f = tp_figures(s, times);
  EXPECT_DOUBLE_EQ(f.flop_per_gpu, 2.0 * 8192 * 28672 * 8192 / 4);
  EXPECT_NEAR(f.tflops[kTpOverlapped], f.flop_per_gpu / 3e-3 * 1e-12, 1e-9);
  EXPECT_TRUE(std::isnan(f.tflops[kTpComm]));
  EXPECT_DOUBLE_EQ(f.serial_ms, 4.0);
  EXPECT_NEAR(f.speedup_vs_serial, 4.0 / 3.0, 1e-12);
  EXPECT_NEAR(f.overlap_efficiency, (4.0 - 3.0) / 1.5, 1e-12);  // two thirds of comm hidden
  EXPECT_NEAR(f.chunking_gain, 4.0 / 3.0, 1e-12);

  // One GPU: the collective is (almost) free, nothing to hide.
  for (auto& x : rounds[kTpComm]) x = 0.001;
  EXPECT_TRUE(std::isnan(tp_figures(s, tp_times(rounds)).overlap_efficiency));

  TpResult r;
  r.spec = s;
  r.devices = {"GPU0", "GPU1", "GPU2", "GPU3"};
  r.disposition = Disposition::Passed;
  r.timed = true;
  r.times = times;
  const nlohmann::json j = tp_json(r);
  EXPECT_EQ(j["disposition"], "Passed");
  EXPECT_EQ(j["collective"], "all-gather");
  EXPECT_DOUBLE_EQ(j["times"]["overlapped"]["median_ms"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["ratio_baseline"].get<double>(), 1.5);
  EXPECT_TRUE(j["times"]["comm"]["tflops_per_gpu"].is_null());
  std::ostringstream os;
  write_tp_table(os, r);
  EXPECT_NE(os.str().find("ratio_baseline"), std::string::npos) << os.str();

  r.disposition = Disposition::Incorrect;  // never timed
  r.timed = false;
  EXPECT_FALSE(tp_json(r).contains("times"));
  std::ostringstream os2;
  write_tp_table(os2, r);
  EXPECT_NE(os2.str().find("not timed"), std::string::npos);
}

}  // namespace
}  // namespace gemmkit::bench
