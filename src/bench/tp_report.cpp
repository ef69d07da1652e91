// The tensor-parallel bench's figures, table and JSON (tp_report.hpp).
#include "bench/tp_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gemmkit::bench {

namespace {

nlohmann::json num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

nlohmann::json check_json(const TpCheck& c) {
  return {{"passed", c.passed},
          {"checked", c.checked},
          {"mismatches", c.mismatches},
          {"max_err_over_bound", num(c.max_err_over_bound)},
          {"rel_frobenius", num(c.rel_frobenius)},
          {"first_failure", c.first_failure}};
}

std::string check_text(const TpCheck& c) {
  char s[200];
  std::snprintf(s, sizeof s, "%s, max err/bound %.3g, rel. Frobenius %.3g%s%s",
                c.passed ? "passed" : "FAILED", c.max_err_over_bound, c.rel_frobenius,
                c.passed ? "" : ": ", c.passed ? "" : c.first_failure.c_str());
  return s;
}

}  // namespace

const char* tp_variant_name(int v) {
  static const char* names[kTpVariants] = {"overlapped", "unchunked", "baseline", "gemm", "comm"};
  return v >= 0 && v < kTpVariants ? names[v] : "?";
}

TpTimes tp_times(const std::vector<double> (&rounds)[kTpVariants]) {
  TpTimes t;
  for (int v = 0; v < kTpVariants; ++v) t.ms[v] = summarize(rounds[v]);
  std::vector<double> ratios;
  const std::size_t n = std::min(rounds[kTpBaseline].size(), rounds[kTpOverlapped].size());
  for (std::size_t i = 0; i < n; ++i)
    if (rounds[kTpOverlapped][i] > 0)
      ratios.push_back(rounds[kTpBaseline][i] / rounds[kTpOverlapped][i]);
  t.ratio_baseline = median_of(ratios);
  t.rounds = static_cast<int>(rounds[kTpOverlapped].size());
  return t;
}

TpFigures tp_figures(const TpBenchSpec& s, const TpTimes& t) {
  TpFigures f;
  f.flop_per_gpu = 2.0 * double(s.m) * double(s.n) * double(s.k) / s.gpus;
  for (int v = 0; v < kTpVariants; ++v)
    f.tflops[v] = v != kTpComm && t.ms[v].n > 0 && t.ms[v].median > 0
                      ? f.flop_per_gpu / (t.ms[v].median * 1e-3) * 1e-12
                      : NAN;
  const double gemm = t.ms[kTpGemm].n ? t.ms[kTpGemm].median : NAN;
  const double comm = t.ms[kTpComm].n ? t.ms[kTpComm].median : NAN;
  const double over = t.ms[kTpOverlapped].n ? t.ms[kTpOverlapped].median : NAN;
  const double unch = t.ms[kTpUnchunked].n ? t.ms[kTpUnchunked].median : NAN;
  f.serial_ms = gemm + comm;
  f.speedup_vs_serial = f.serial_ms / over;
  f.overlap_efficiency = comm >= 0.01 * gemm ? (f.serial_ms - over) / std::min(gemm, comm) : NAN;
  f.chunking_gain = unch / over;
  return f;
}

nlohmann::json tp_json(const TpResult& r) {
  const TpBenchSpec& s = r.spec;
  nlohmann::json j = {{"tp", tp_split_name(s.split)},
                      {"collective", tp_collective_name(s)},
                      {"gpus", s.gpus},
                      {"chunks", s.chunks},
                      {"m", s.m},
                      {"n", s.n},
                      {"k", s.k},
                      {"dtype_ab", std::string(dtype_name(s.dtype_ab))},
                      {"dtype_d", std::string(dtype_name(s.dtype_d))},
                      {"layouts", "A row-major, B column-major (x @ W^T), D row-major, beta 0"},
                      {"alpha", s.alpha},
                      {"devices", r.devices},
                      {"nccl_version", r.nccl_version},
                      {"disposition", std::string(disposition_name(r.disposition))},
                      {"error", r.error},
                      {"verification",
                       {{"reference", "single-GPU gemmkit gemm() of the whole problem on GPU 0"},
                        {"overlapped", check_json(r.check_overlapped)},
                        {"unchunked", check_json(r.check_unchunked)}}},
                      {"baseline_config", r.baseline_config},
                      {"prediction", r.prediction}};
  if (r.timed) {
    const TpFigures f = tp_figures(s, r.times);
    nlohmann::json t;
    for (int v = 0; v < kTpVariants; ++v) {
      const Stats& st = r.times.ms[v];
      t[tp_variant_name(v)] = {{"median_ms", num(st.n ? st.median : NAN)},
                               {"min_ms", num(st.n ? st.min : NAN)},
                               {"max_ms", num(st.n ? st.max : NAN)},
                               {"n", st.n},
                               {"tflops_per_gpu", num(f.tflops[v])}};
    }
    j["times"] = t;
    j["rounds"] = r.times.rounds;
    j["ratio_baseline"] = num(r.times.ratio_baseline);
    j["serial_ms"] = num(f.serial_ms);
    j["speedup_vs_serial"] = num(f.speedup_vs_serial);
    j["overlap_efficiency"] = num(f.overlap_efficiency);
    j["chunking_gain"] = num(f.chunking_gain);
  }
  return j;
}

void write_tp_table(std::ostream& os, const TpResult& r) {
  const TpBenchSpec& s = r.spec;
  char line[400];
  std::string devs;
  for (std::size_t i = 0; i < r.devices.size(); ++i) devs += (i ? ", " : "") + r.devices[i];
  std::snprintf(line, sizeof line,
                "tensor-parallel bench: %s, %d GPU%s (%s), %s; M %lld x N %lld x K %lld, %s -> "
                "%s, %d chunks\n",
                tp_split_name(s.split).c_str(), s.gpus, s.gpus == 1 ? "" : "s", devs.c_str(),
                tp_collective_name(s).c_str(), (long long)s.m, (long long)s.n, (long long)s.k,
                dtype_name(s.dtype_ab).data(), dtype_name(s.dtype_d).data(), s.chunks);
  os << line;
  os << "  verification against the single-GPU gemmkit GEMM on GPU 0: "
     << disposition_name(r.disposition) << "\n";
  if (r.check_overlapped.checked || !r.check_overlapped.passed)
    os << "    overlapped: " << check_text(r.check_overlapped) << "\n";
  if (r.check_unchunked.checked || !r.check_unchunked.passed)
    os << "    unchunked:  " << check_text(r.check_unchunked) << "\n";
  if (!r.error.empty()) os << "  error: " << r.error << "\n";
  if (!r.timed) {
    os << "  not timed (only a verified configuration is timed)\n";
    return;
  }
  const TpFigures f = tp_figures(s, r.times);
  const char* label[kTpVariants] = {"overlapped (gemmkit::dist, C chunks)",
                                    "unchunked (gemmkit::dist, 1 chunk)",
                                    "baseline (NCCL + cuBLASLt, serial)",
                                    "local GEMM alone (gemmkit)", "collective alone (NCCL)"};
  std::snprintf(line, sizeof line, "  %-38s %10s %10s %10s %14s\n", "variant (slowest rank)",
                "median ms", "min ms", "max ms", "TFLOP/s/GPU");
  os << line;
  for (int v = 0; v < kTpVariants; ++v) {
    const Stats& st = r.times.ms[v];
    if (st.n == 0) {
      std::snprintf(line, sizeof line, "  %-38s %10s\n", label[v], "not run");
    } else {
      char tf[32] = "-";
      if (std::isfinite(f.tflops[v])) std::snprintf(tf, sizeof tf, "%.1f", f.tflops[v]);
      std::snprintf(line, sizeof line, "  %-38s %10.4f %10.4f %10.4f %14s\n", label[v], st.median,
                    st.min, st.max, tf);
    }
    os << line;
  }
  std::snprintf(line, sizeof line,
                "  %d rounds; serial (GEMM + collective) %.4f ms; overlapped %.3fx of serial "
                "speed; overlap efficiency %s; chunking gain %.3fx\n",
                r.times.rounds, f.serial_ms, f.speedup_vs_serial,
                std::isfinite(f.overlap_efficiency)
                    ? (std::to_string(static_cast<int>(std::lround(100 * f.overlap_efficiency))) +
                       "% of the shorter stage hidden")
                          .c_str()
                    : "n/a (nothing to hide)",
                f.chunking_gain);
  os << line;
  std::snprintf(line, sizeof line,
                "  ratio_baseline (NCCL + cuBLASLt / overlapped, median of per-round ratios): "
                "%.3f\n",
                r.times.ratio_baseline);
  os << line;
  if (!r.baseline_config.empty()) os << "  cuBLASLt: " << r.baseline_config << "\n";
  if (r.prediction.is_object()) {
    const nlohmann::json& p = r.prediction;
    std::snprintf(line, sizeof line,
                  "  ledger (%s, link %.3g GB/s): GEMM %.4g us, collective %.4g us, "
                  "unoverlapped %.4g us, overlapped %.4g us (gain %.3fx)\n",
                  p["machine"].get<std::string>().c_str(),
                  p["link_bytes_per_s"].get<double>() / 1e9, p["gemm_s"].get<double>() * 1e6,
                  p["comm_s"].get<double>() * 1e6, p["unoverlapped_s"].get<double>() * 1e6,
                  p["overlapped_s"].get<double>() * 1e6, p["gain"].get<double>());
    os << line;
  }
}

}  // namespace gemmkit::bench
