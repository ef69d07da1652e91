#include "bench/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

namespace gemmkit::bench {

namespace {

std::string num(double v, int digits = 6) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

nlohmann::json num_json(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

const std::string& csv_header() {
  static const std::string h =
      "problem,provider,kernel,disposition,m,n,k,batch,dtypes,layouts,config,ms_median,ms_min,"
      "ms_max,n,tflops,gbps,ratio_baseline,ledger_pred_ms";
  return h;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const Row& r) {
  const bool timed = r.stats.n > 0;
  std::ostringstream os;
  os << csv_escape(r.problem) << ',' << csv_escape(r.provider) << ',' << csv_escape(r.kernel)
     << ',' << disposition_name(r.disposition) << ',' << r.m << ',' << r.n << ',' << r.k << ','
     << r.batch << ',' << csv_escape(r.dtypes) << ',' << csv_escape(r.layouts) << ','
     << csv_escape(r.config) << ',' << (timed ? num(r.stats.median) : "") << ','
     << (timed ? num(r.stats.min) : "") << ',' << (timed ? num(r.stats.max) : "") << ','
     << (timed ? std::to_string(r.stats.n) : "") << ',' << (timed ? num(r.tflops, 5) : "") << ','
     << (timed ? num(r.gbps, 5) : "") << ',' << num(r.ratio_baseline, 4) << ','
     << num(r.ledger_pred_ms);
  return os.str();
}

nlohmann::json row_json(const Row& r) {
  const bool timed = r.stats.n > 0;
  const auto t = [&](double v) { return timed ? num_json(v) : nlohmann::json(nullptr); };
  return nlohmann::json{
      {"problem", r.problem},
      {"provider", r.provider},
      {"kernel", r.kernel},
      {"disposition", disposition_name(r.disposition)},
      {"m", r.m},
      {"n", r.n},
      {"k", r.k},
      {"batch", r.batch},
      {"dtypes", r.dtypes},
      {"layouts", r.layouts},
      {"config", r.config},
      {"ms_median", t(r.stats.median)},
      {"ms_min", t(r.stats.min)},
      {"ms_max", t(r.stats.max)},
      {"ms_mean", t(r.stats.mean)},
      {"n_samples", r.stats.n},  // the CSV's second "n" column (JSON keys must differ)
      {"tflops", t(r.tflops)},
      {"gbps", t(r.gbps)},
      {"ratio_baseline", num_json(r.ratio_baseline)},
      {"ledger_pred_ms", num_json(r.ledger_pred_ms)},
      {"timing", r.timing},
      {"cache", r.cache},
      {"check", r.check},
      {"threads", r.threads},
      {"note", r.note},
  };
}

Summary summarize_rows(const std::vector<Row>& rows) {
  Summary s;
  double log_sum = 0;
  for (const Row& r : rows) {
    ++s.rows;
    switch (r.disposition) {
      case Disposition::Passed: ++s.passed; break;
      case Disposition::Incorrect: ++s.incorrect; break;
      case Disposition::NotVerified: ++s.not_verified; break;
      case Disposition::Failed: ++s.failed; break;
    }
    if (r.disposition != Disposition::Passed || r.provider != "gemmkit") continue;
    if (!std::isfinite(r.ratio_baseline) || r.ratio_baseline <= 0) continue;
    ++s.ratios;
    log_sum += std::log(r.ratio_baseline);
    s.min_ratio = s.ratios == 1 ? r.ratio_baseline : std::min(s.min_ratio, r.ratio_baseline);
    s.max_ratio = s.ratios == 1 ? r.ratio_baseline : std::max(s.max_ratio, r.ratio_baseline);
  }
  if (s.ratios > 0) s.geomean_ratio = std::exp(log_sum / s.ratios);
  return s;
}

nlohmann::json summary_json(const Summary& s) {
  return nlohmann::json{{"rows", s.rows},
                        {"passed", s.passed},
                        {"incorrect", s.incorrect},
                        {"not_verified", s.not_verified},
                        {"failed", s.failed},
                        {"ratios", s.ratios},
                        {"geomean_ratio_baseline", num_json(s.geomean_ratio)},
                        {"min_ratio_baseline", num_json(s.min_ratio)},
                        {"max_ratio_baseline", num_json(s.max_ratio)}};
}

std::string summary_text(const Summary& s) {
  std::ostringstream os;
  os << s.rows << " rows: " << s.passed << " Passed, " << s.incorrect << " Incorrect, "
     << s.not_verified << " NotVerified, " << s.failed << " Failed";
  if (s.ratios > 0)
    os << "; ratio_baseline over " << s.ratios << " Passed gemmkit rows: geomean "
       << num(s.geomean_ratio, 4) << " (min " << num(s.min_ratio, 4) << ", max "
       << num(s.max_ratio, 4) << ")";
  else
    os << "; no Passed gemmkit row with a baseline ratio";
  return os.str();
}

void write_csv(std::ostream& os, const std::vector<Row>& rows) {
  os << csv_header() << '\n';
  for (const Row& r : rows) os << csv_line(r) << '\n';
}

void write_json(std::ostream& os, const nlohmann::json& context, const std::vector<Row>& rows) {
  nlohmann::json j;
  j["context"] = context;
  j["rows"] = nlohmann::json::array();
  for (const Row& r : rows) j["rows"].push_back(row_json(r));
  j["summary"] = summary_json(summarize_rows(rows));
  os << j.dump(2) << '\n';
}

void write_table(std::ostream& os, const std::vector<Row>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"problem", "provider", "kernel", "disp", "m", "n", "k", "dtypes", "ms_median",
                   "samples", "TFLOP/s", "GB/s", "ratio", "ledger_ms", "timing", "cache"});
  for (const Row& r : rows) {
    const bool timed = r.stats.n > 0;
    cells.push_back({r.problem, r.provider, r.kernel, std::string(disposition_name(r.disposition)),
                     std::to_string(r.m), std::to_string(r.n), std::to_string(r.k), r.dtypes,
                     timed ? num(r.stats.median, 4) : "-", timed ? std::to_string(r.stats.n) : "-",
                     timed ? num(r.tflops, 4) : "-", timed ? num(r.gbps, 4) : "-",
                     std::isfinite(r.ratio_baseline) ? num(r.ratio_baseline, 3) : "-",
                     std::isfinite(r.ledger_pred_ms) ? num(r.ledger_pred_ms, 3) : "-", r.timing,
                     r.cache});
  }
  std::vector<std::size_t> w(cells[0].size(), 0);
  for (const auto& line : cells)
    for (std::size_t i = 0; i < line.size(); ++i) w[i] = std::max(w[i], line[i].size());
  for (std::size_t li = 0; li < cells.size(); ++li) {
    std::string s;
    for (std::size_t i = 0; i < cells[li].size(); ++i) {
      std::string c = cells[li][i];
      if (i + 1 < cells[li].size()) c.resize(w[i], ' ');
      s += c + (i + 1 < cells[li].size() ? "  " : "");
    }
    os << s << '\n';
    if (li > 0 && !rows[li - 1].note.empty()) os << "    note: " << rows[li - 1].note << '\n';
  }
  os << summary_text(summarize_rows(rows)) << '\n';
}

bool compare_runs(const nlohmann::json& a, const nlohmann::json& b, CompareResult* out,
                  std::string* err) {
  const auto index = [&](const nlohmann::json& run, const char* which,
                         std::map<std::string, double>* keys) {
    if (!run.is_object() || !run.contains("rows") || !run["rows"].is_array()) {
      *err = std::string(which) + ": not a gemmkit bench JSON ({\"context\", \"rows\"})";
      return false;
    }
    for (const auto& r : run["rows"]) {
      if (r.value("disposition", "") != "Passed" || !r.contains("ms_median") ||
          !r["ms_median"].is_number())
        continue;
      std::ostringstream key;
      key << r.value("problem", "") << " | " << r.value("provider", "") << " | "
          << r.value("kernel", "") << " | " << r.value("m", 0) << "x" << r.value("n", 0) << "x"
          << r.value("k", 0) << "x" << r.value("batch", 1) << " | " << r.value("dtypes", "")
          << " | " << r.value("layouts", "");
      (*keys)[key.str()] = r["ms_median"].get<double>();
    }
    return true;
  };
  std::map<std::string, double> ka, kb;
  if (!index(a, "first run", &ka) || !index(b, "second run", &kb)) return false;
  double log_sum = 0;
  for (const auto& [key, ms] : ka) {
    auto it = kb.find(key);
    if (it == kb.end() || ms <= 0 || it->second <= 0) {
      ++out->only_a;
      continue;
    }
    out->lines.push_back(CompareLine{key, ms, it->second, ms / it->second});
    log_sum += std::log(ms / it->second);
  }
  for (const auto& [key, ms] : kb)
    if (!ka.count(key)) ++out->only_b;
  if (!out->lines.empty()) out->geomean = std::exp(log_sum / static_cast<double>(out->lines.size()));
  return true;
}

void write_compare(std::ostream& os, const CompareResult& r) {
  std::size_t w = 3;
  for (const auto& l : r.lines) w = std::max(w, l.key.size());
  std::string head = "row";
  head.resize(w, ' ');
  os << head << "  a_ms        b_ms        speedup (a/b)\n";
  for (const auto& l : r.lines) {
    std::string k = l.key;
    k.resize(w, ' ');
    char buf[96];
    std::snprintf(buf, sizeof buf, "  %-10.4g  %-10.4g  %.4f", l.a_ms, l.b_ms, l.speedup);
    os << k << buf << '\n';
  }
  os << "matched " << r.lines.size() << " Passed rows (" << r.only_a << " only in a, " << r.only_b
     << " only in b); geometric mean speedup a/b: " << num(r.geomean, 4)
     << " (above 1: the second run is faster)\n";
}

}  // namespace gemmkit::bench
