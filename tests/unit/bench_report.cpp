// Harness self-tests: the CSV header and the JSON schema are golden;
// rows that did not pass never enter the summary.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>

#include "bench/harness.hpp"
#include "bench/report.hpp"

namespace gemmkit::bench {
namespace {

Row passed_row(const std::string& problem, double ratio) {
  Row r;
  r.problem = problem;
  r.provider = "gemmkit";
  r.kernel = "cpu.k";
  r.disposition = Disposition::Passed;
  r.m = r.n = r.k = 64;
  r.stats = Stats{1.0, 0.9, 1.2, 1.05, 10};
  r.tflops = 0.5;
  r.gbps = 2.0;
  r.ratio_baseline = ratio;
  return r;
}

TEST(BenchReport, CsvHeaderIsGolden) {
  EXPECT_EQ(csv_header(),
            "problem,provider,kernel,disposition,m,n,k,batch,dtypes,layouts,config,ms_median,"
            "ms_min,ms_max,n,tflops,gbps,ratio_baseline,ledger_pred_ms");
  std::ostringstream os;
  write_csv(os, {});
  EXPECT_EQ(os.str(), csv_header() + "\n");
}

TEST(BenchReport, CsvLineHasNineteenFieldsAndQuotesCommas) {
  Row r = passed_row("sq", 1.25);
  r.config = "MR=6,NR=16 \"x\"";
  r.dtypes = "f32/f32/f32/f32/f32";
  r.layouts = "A=col B=col C=col";
  const std::string line = csv_line(r);
  EXPECT_EQ(line,
            "sq,gemmkit,cpu.k,Passed,64,64,64,1,f32/f32/f32/f32/f32,A=col B=col C=col,"
            "\"MR=6,NR=16 \"\"x\"\"\",1,0.9,1.2,10,0.5,2,1.25,");
  // An untimed row leaves the time columns empty (and never writes 0).
  Row u;
  u.problem = "p";
  u.provider = "cublas";
  u.kernel = "cublasLtMatmul";
  u.disposition = Disposition::NotVerified;
  EXPECT_EQ(csv_line(u), "p,cublas,cublasLtMatmul,NotVerified,0,0,0,1,,,,,,,,,,,");
}

TEST(BenchReport, JsonRowSchemaIsGolden) {
  const nlohmann::json j = row_json(passed_row("sq", 2.0));
  std::set<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.insert(k);
  const std::set<std::string> want = {
      "problem", "provider", "kernel", "disposition", "m", "n", "k", "batch", "dtypes",
      "layouts", "config", "ms_median", "ms_min", "ms_max", "ms_mean", "n_samples", "tflops", "gbps",
      "ratio_baseline", "ledger_pred_ms", "timing", "cache", "check", "threads", "note"};
  EXPECT_EQ(keys, want);
  EXPECT_EQ(j["disposition"], "Passed");
  EXPECT_DOUBLE_EQ(j["ms_median"].get<double>(), 1.0);
  EXPECT_EQ(j["n"], 64);          // the problem's N
  EXPECT_EQ(j["n_samples"], 10);  // the timed samples (the CSV's second "n")
  EXPECT_TRUE(j["ledger_pred_ms"].is_null());  // NaN is written as null, never as a number
}

TEST(BenchReport, JsonDocumentHasContextRowsSummary) {
  HarnessSettings hs;
  hs.backend = Backend::Cpu;
  hs.baseline = "openblas";
  Harness h(hs);
  ASSERT_TRUE(h.init().ok());
  std::ostringstream os;
  write_json(os, h.context(), {passed_row("a", 2.0)});
  const nlohmann::json j = nlohmann::json::parse(os.str());
  std::set<std::string> top;
  for (const auto& [k, v] : j.items()) top.insert(k);
  EXPECT_EQ(top, (std::set<std::string>{"context", "rows", "summary"}));
  const nlohmann::json& c = j["context"];
  for (const char* key : {"git_commit", "date_utc", "backend", "baseline", "warmup_ms", "rep_ms",
                          "seed", "cache", "host", "threads", "openblas", "device", "env"})
    EXPECT_TRUE(c.contains(key)) << key;
  EXPECT_TRUE(c["host"].contains("cpu_model"));
  EXPECT_TRUE(c["openblas"].contains("corename"));
  EXPECT_FALSE(c["openblas"]["corename"].get<std::string>().empty());
  EXPECT_GT(c["cache"]["llc_bytes"].get<std::int64_t>(), 0);
  EXPECT_TRUE(c["device"].is_null());  // CPU run
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["summary"]["passed"], 1);
}

TEST(BenchReport, RowsNotPassedAreExcludedFromTheSummary) {
  Row wrong = passed_row("b", 100.0);
  wrong.disposition = Disposition::Incorrect;  // a forced-wrong row with a tempting ratio
  Row unverified = passed_row("c", 50.0);
  unverified.disposition = Disposition::NotVerified;
  Row baseline = passed_row("a", std::nan(""));
  baseline.provider = "openblas";
  const Summary s = summarize_rows({passed_row("a", 2.0), passed_row("d", 0.5), wrong,
                                    unverified, baseline});
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.passed, 3);
  EXPECT_EQ(s.incorrect, 1);
  EXPECT_EQ(s.not_verified, 1);
  EXPECT_EQ(s.ratios, 2);
  EXPECT_NEAR(s.geomean_ratio, 1.0, 1e-12);  // sqrt(2 * 0.5): 100 and 50 left out
  EXPECT_DOUBLE_EQ(s.max_ratio, 2.0);
}

TEST(BenchReport, CompareMatchesPassedRowsAndTakesTheGeometricMean) {
  const auto run = [](double ms_a, double ms_b, const char* disp_b) {
    nlohmann::json j{{"context", nlohmann::json::object()}, {"rows", nlohmann::json::array()}};
    nlohmann::json r1 = row_json(passed_row("x", 1.0));
    r1["ms_median"] = ms_a;
    nlohmann::json r2 = row_json(passed_row("y", 1.0));
    r2["ms_median"] = ms_b;
    r2["disposition"] = disp_b;
    j["rows"].push_back(r1);
    j["rows"].push_back(r2);
    return j;
  };
  CompareResult r;
  std::string err;
  ASSERT_TRUE(compare_runs(run(2.0, 1.0, "Passed"), run(1.0, 4.0, "Passed"), &r, &err)) << err;
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_NEAR(r.geomean, std::sqrt(0.5), 1e-12);  // speedups a/b: 2 and 0.25
  CompareResult r2;
  ASSERT_TRUE(compare_runs(run(2.0, 1.0, "Passed"), run(1.0, 4.0, "Incorrect"), &r2, &err));
  ASSERT_EQ(r2.lines.size(), 1u);  // the Incorrect row of b has no partner
  EXPECT_NEAR(r2.geomean, 2.0, 1e-12);
  CompareResult bad;
  EXPECT_FALSE(compare_runs(nlohmann::json::array(), run(1, 1, "Passed"), &bad, &err));
}

TEST(BenchReport, DtypeAndLayoutStrings) {
  GemmDesc d{.m = 4, .n = 5, .k = 6};
  d.a.dtype = d.b.dtype = DType::E4M3;
  d.c.dtype = d.d.dtype = DType::BF16;
  d.a.layout = Layout::RowMajor;
  d.trans_b = Op::Trans;
  EXPECT_EQ(dtypes_string(d), "e4m3/e4m3/bf16/bf16/f32");
  EXPECT_EQ(layouts_string(d), "A=row B=col^T C=col");
  // 4x6 + 6x5 fp8 bytes read, 4x5 bf16 written; C only when beta != 0.
  EXPECT_DOUBLE_EQ(min_bytes(d, 0.0), 24 + 30 + 40);
  EXPECT_DOUBLE_EQ(min_bytes(d, 1.0), 24 + 30 + 40 + 40);
}

}  // namespace
}  // namespace gemmkit::bench
