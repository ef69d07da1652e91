// Rows of a bench run and how they are written: CSV (fixed columns, golden-tested), JSON
// ({"context", "rows", "summary"}), an aligned table; the summary (only Passed rows count) and
// the comparison of two JSON runs.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/stats.hpp"
#include "bench/testbed.hpp"

namespace gemmkit::bench {

struct Row {
  std::string problem;   // suite entry name or "m x n x k"
  std::string provider;  // "gemmkit", "openblas", "cublas"
  std::string kernel;
  Disposition disposition = Disposition::NotVerified;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string dtypes;   // "a/b/c/d/acc", e.g. "bf16/bf16/bf16/bf16/f32"
  std::string layouts;  // "A=col B=col C=col", with ^T on transposed operands
  std::string config;
  Stats stats;          // n == 0: not timed (ms, tflops, gbps left empty)
  double tflops = 0, gbps = 0;
  double ratio_baseline = std::nan("");  // baseline time / this time; NaN: none
  double ledger_pred_ms = std::nan("");  // NaN: no prediction
  // JSON and table only.
  std::string timing;   // "steady_clock", "cuda_event", "cuda_graph x64"
  std::string cache;    // RotationPlan::describe()
  std::string check;    // "gauge checked=.. max_err/bound=.."
  std::string note;     // why not verified / not timed
  std::int64_t threads = 0;
};

// The CSV header, exactly (tests compare it byte for byte).
const std::string& csv_header();
std::string csv_line(const Row& r);           // no trailing newline
std::string csv_escape(const std::string& s);  // RFC 4180 quoting when needed

nlohmann::json row_json(const Row& r);

struct Summary {
  int rows = 0, passed = 0, incorrect = 0, not_verified = 0, failed = 0;
  int ratios = 0;              // Passed candidate rows with a ratio (and a Passed baseline)
  double geomean_ratio = std::nan("");  // of those ratios
  double min_ratio = std::nan(""), max_ratio = std::nan("");
};
// Rows not Passed are counted by disposition but never enter the ratio statistics.
Summary summarize_rows(const std::vector<Row>& rows);
nlohmann::json summary_json(const Summary& s);
std::string summary_text(const Summary& s);

void write_csv(std::ostream& os, const std::vector<Row>& rows);
void write_json(std::ostream& os, const nlohmann::json& context, const std::vector<Row>& rows);
void write_table(std::ostream& os, const std::vector<Row>& rows);

// Compares two JSON runs row by row (rows Passed and timed in both, matched on problem,
// provider, kernel, shape, dtypes and layouts): speedup = a.ms_median / b.ms_median (above 1:
// b is faster), then the geometric mean. Returns false with *err when a file does not parse.
struct CompareLine {
  std::string key;
  double a_ms = 0, b_ms = 0, speedup = 0;
};
struct CompareResult {
  std::vector<CompareLine> lines;
  int only_a = 0, only_b = 0;  // rows without a usable partner
  double geomean = std::nan("");
};
bool compare_runs(const nlohmann::json& a, const nlohmann::json& b, CompareResult* out,
                  std::string* err);
void write_compare(std::ostream& os, const CompareResult& r);

}  // namespace gemmkit::bench
