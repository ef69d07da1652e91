// Measured candidates as JSON, and the per-family efficiency fit.
#include "dispatch/family_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "dispatch/planner.hpp"

namespace gemmkit::dispatch {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "gemmkit-measurements";
constexpr double kGridLo = 0.25, kGridHi = 1.5, kGridStep = 0.01;

json matrix_json(const MatrixDesc& m) {
  return {{"dtype", dtype_name(m.dtype)},
          {"layout", layout_name(m.layout)},
          {"ld", m.ld},
          {"batch_stride", m.batch_stride}};
}

DType dtype_at(const json& j, const char* key) {
  DType t{};
  if (!parse_dtype(j.at(key).get<std::string>(), &t))
    throw std::invalid_argument(std::string("unknown dtype in '") + key + "'");
  return t;
}

MatrixDesc matrix_from(const json& j) {
  MatrixDesc m;
  m.dtype = dtype_at(j, "dtype");
  const std::string l = j.at("layout").get<std::string>();
  if (l != "row" && l != "col") throw std::invalid_argument("layout '" + l + "' is not row or col");
  m.layout = l == "row" ? Layout::RowMajor : Layout::ColMajor;
  m.ld = j.at("ld").get<std::int64_t>();
  m.batch_stride = j.at("batch_stride").get<std::int64_t>();
  return m;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  double m = v[h];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + h)) / 2;
  return m;
}

double relative_error(double predicted, double measured) {
  return std::fabs(predicted - measured) / measured;
}

// The rows' errors with the family's figures set to (compute, dram): every row re-priced, since
// the terms interact through the max and the 4-norm.
std::vector<double> errors_with(const std::vector<const Measurement*>& rows,
                                ledger::Machine* m, ledger::FamilyEfficiency* e, double compute,
                                double dram) {
  e->compute = compute;
  e->dram = dram;
  std::vector<double> err;
  err.reserve(rows.size());
  for (const Measurement* r : rows) err.push_back(relative_error(predicted_s(*r, *m), r->measured_s));
  return err;
}

}  // namespace

json measurement_json(const Measurement& m) {
  const GemmDesc& d = m.desc;
  return {{"m", d.m},
          {"n", d.n},
          {"k", d.k},
          {"batch", d.batch},
          {"trans_a", d.trans_a == Op::Trans},
          {"trans_b", d.trans_b == Op::Trans},
          {"a", matrix_json(d.a)},
          {"b", matrix_json(d.b)},
          {"c", matrix_json(d.c)},
          {"d", matrix_json(d.d)},
          {"compute", dtype_name(d.compute)},
          {"beta", m.beta},
          {"kernel", m.kernel},
          {"config", to_string(m.config)},
          {"family", family_key(m.config, m.desc)},
          {"mode", mode_name(m.mode)},
          {"split", m.split},
          {"measured_ms", m.measured_s * 1e3}};
}

Measurement measurement_from_json(const json& j) {
  Measurement m;
  const char* key = "";
  try {
    GemmDesc& d = m.desc;
    key = "m", d.m = j.at(key).get<std::int64_t>();
    key = "n", d.n = j.at(key).get<std::int64_t>();
    key = "k", d.k = j.at(key).get<std::int64_t>();
    key = "batch", d.batch = j.at(key).get<std::int64_t>();
    key = "trans_a", d.trans_a = j.at(key).get<bool>() ? Op::Trans : Op::NoTrans;
    key = "trans_b", d.trans_b = j.at(key).get<bool>() ? Op::Trans : Op::NoTrans;
    key = "a", d.a = matrix_from(j.at(key));
    key = "b", d.b = matrix_from(j.at(key));
    key = "c", d.c = matrix_from(j.at(key));
    key = "d", d.d = matrix_from(j.at(key));
    key = "compute", d.compute = dtype_at(j, key);
    key = "beta", m.beta = j.at(key).get<double>();
    key = "kernel", m.kernel = j.at(key).get<std::string>();
    key = "config", m.config = parse_kernel_config(j.at(key).get<std::string>());
    key = "mode";
    const std::string mode = j.at(key).get<std::string>();
    bool found = false;
    for (sched::Mode x : kAllModes)
      if (mode_name(x) == mode) m.mode = x, found = true;
    if (!found) throw std::invalid_argument("unknown mode '" + mode + "'");
    key = "split", m.split = j.at(key).get<int>();
    key = "measured_ms", m.measured_s = j.at(key).get<double>() * 1e-3;
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("key '") + key + "': " + e.what());
  }
  if (m.desc.m <= 0 || m.desc.n <= 0 || m.desc.k <= 0 || m.split < 1 || !(m.measured_s > 0))
    throw std::invalid_argument("m, n, k and split must be >= 1 and measured_ms > 0");
  return m;
}

std::vector<Measurement> read_measurements(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot open '" + path + "'");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || j.value("format", "") != kFormat || !j.contains("rows") ||
      !j["rows"].is_array())
    throw std::invalid_argument(path + ": expected {\"format\": \"" + kFormat +
                                "\", \"rows\": [...]} (gemmkit tune --measurements)");
  std::vector<Measurement> out;
  std::size_t i = 0;
  for (const json& r : j["rows"]) {
    try {
      out.push_back(measurement_from_json(r));
      out.back().origin = path;
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(path + ": row " + std::to_string(i) + ": " + e.what());
    }
    ++i;
  }
  return out;
}

namespace {

// Rows of one problem: the same descriptor and beta (the measurement's JSON without the plan)
// in one file (a shape timed in two runs is two problems: the runs may differ by more than 5%).
std::vector<std::vector<std::size_t>> problems_of(const std::vector<Measurement>& rows) {
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    json key = measurement_json(rows[i]);
    for (const char* k : {"kernel", "config", "family", "mode", "split", "measured_ms"})
      key.erase(k);
    const auto [it, added] = index.emplace(rows[i].origin + key.dump(), out.size());
    if (added) out.emplace_back();
    out[it->second].push_back(i);
  }
  return out;
}

// The ranking's score: the mean over problems of how much slower the predicted-fastest row ran
// than the fastest (0 when the pick is the fastest), plus kErrorWeight x the median error.
constexpr double kErrorWeight = 0.5;
double ranking_score(const std::vector<Measurement>& rows,
                     const std::vector<std::vector<std::size_t>>& problems,
                     const std::vector<double>& pred) {
  double regret = 0;
  for (const std::vector<std::size_t>& g : problems) {
    std::size_t pick = g.front();
    double fastest = rows[pick].measured_s;
    for (std::size_t i : g) {
      if (pred[i] < pred[pick]) pick = i;
      fastest = std::min(fastest, rows[i].measured_s);
    }
    regret += rows[pick].measured_s / fastest - 1;
  }
  std::vector<double> err(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) err[i] = relative_error(pred[i], rows[i].measured_s);
  return regret / static_cast<double>(std::max<std::size_t>(1, problems.size())) +
         kErrorWeight * median(err);
}

}  // namespace

double predicted_s(const Measurement& m, const ledger::Machine& machine) {
  return predict_config(m.desc, m.beta, m.config, m.mode, m.split, machine).total_s;
}

std::vector<ledger::FamilyEfficiency> fit_families(const std::vector<Measurement>& rows,
                                                   const ledger::Machine& machine,
                                                   const std::string& source, int min_rows) {
  std::map<std::string, std::vector<const Measurement*>> by_family;
  for (const Measurement& r : rows) by_family[family_key(r.config, r.desc)].push_back(&r);
  std::vector<ledger::FamilyEfficiency> out;
  for (const auto& [family, members] : by_family) {
    if (static_cast<int>(members.size()) < min_rows) continue;
    // A machine whose only fitted family is this one, at the grid point being tried.
    ledger::Machine m = machine;
    m.family_efficiency.assign(1, ledger::FamilyEfficiency{});
    m.family_efficiency.front().family = family;
    ledger::FamilyEfficiency* e = &m.family_efficiency.front();
    const double before = median(errors_with(members, &m, e, 1.0, 1.0));
    // Smallest median error; ties (the median is flat between rows) by the mean error, then
    // by the pair nearest 1.0 and 1.0.
    std::tuple<double, double, double> best{1e300, 1e300, 1e300};
    double best_c = 1.0, best_d = 1.0;
    const int steps = static_cast<int>(std::lround((kGridHi - kGridLo) / kGridStep));
    for (int i = 0; i <= steps; ++i) {
      for (int k = 0; k <= steps; ++k) {
        const double c = kGridLo + i * kGridStep, dr = kGridLo + k * kGridStep;
        const std::vector<double> err = errors_with(members, &m, e, c, dr);
        double mean = 0;
        for (double x : err) mean += x;
        mean /= static_cast<double>(err.size());
        const std::tuple<double, double, double> score{
            std::round(median(err) * 1e4), mean, std::fabs(c - 1) + std::fabs(dr - 1)};
        if (score < best) best = score, best_c = c, best_d = dr;
      }
    }
    const double after = median(errors_with(members, &m, e, best_c, best_d));
    out.push_back({.family = family,
                   .compute = best_c,
                   .dram = best_d,
                   .rows = static_cast<int>(members.size()),
                   .median_error = after,
                   .median_error_before = before,
                   .source = source});
  }
  return out;
}

PickCheck check_picks(const std::vector<Measurement>& rows, const ledger::Machine& machine) {
  std::vector<double> pred(rows.size()), err(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    pred[i] = predicted_s(rows[i], machine);
    err[i] = relative_error(pred[i], rows[i].measured_s);
  }
  PickCheck pc;
  pc.median_error = median(err);
  for (const std::vector<std::size_t>& g : problems_of(rows)) {
    std::size_t p = g.front(), f = g.front();
    for (std::size_t i : g) {
      if (pred[i] < pred[p]) p = i;
      if (rows[i].measured_s < rows[f].measured_s) f = i;
    }
    const Measurement* pick = &rows[p];
    const Measurement* fastest = &rows[f];
    ++pc.problems;
    if (pick->measured_s <= fastest->measured_s * 1.05) {
      ++pc.within_5pct;
      continue;
    }
    const auto plan = [](const Measurement& x) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " %s split %d %.4g us", std::string(mode_name(x.mode)).c_str(),
                    x.split, x.measured_s * 1e6);
      return x.kernel + buf;
    };
    pc.misses.push_back(std::to_string(pick->desc.m) + "x" + std::to_string(pick->desc.n) + "x" +
                        std::to_string(pick->desc.k) + ": picked " + plan(*pick) + ", fastest " +
                        plan(*fastest));
  }
  return pc;
}

std::vector<ledger::FamilyEfficiency> refine_for_picks(
    const std::vector<Measurement>& rows, const ledger::Machine& machine,
    std::vector<ledger::FamilyEfficiency> fitted, int passes) {
  ledger::Machine m = machine;
  m.family_efficiency = fitted;
  // The fitted family each row's prediction reads (its own, else the whole tile's), or none.
  std::vector<int> family(rows.size(), -1);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (const ledger::FamilyEfficiency* e = family_efficiency(m, rows[i].config, rows[i].desc))
      family[i] = static_cast<int>(e - m.family_efficiency.data());
  const std::vector<std::vector<std::size_t>> problems = problems_of(rows);
  std::vector<double> pred(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) pred[i] = predicted_s(rows[i], m);
  double score = ranking_score(rows, problems, pred);
  constexpr double kReach = 0.3, kStep = 0.02;
  const int steps = static_cast<int>(std::lround(2 * kReach / kStep));
  for (int pass = 0; pass < passes; ++pass) {
    bool moved = false;
    for (std::size_t f = 0; f < m.family_efficiency.size(); ++f) {
      ledger::FamilyEfficiency& e = m.family_efficiency[f];
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (family[i] == static_cast<int>(f)) mine.push_back(i);
      if (mine.empty()) continue;
      const double c0 = e.compute, d0 = e.dram;
      double best_c = c0, best_d = d0;
      std::vector<double> trial = pred;
      for (int a = 0; a <= steps; ++a) {
        for (int b = 0; b <= steps; ++b) {
          const double c = c0 - kReach + a * kStep, d = d0 - kReach + b * kStep;
          if (c < kGridLo || d < kGridLo || c > kGridHi || d > kGridHi) continue;
          e.compute = c, e.dram = d;
          for (std::size_t i : mine) trial[i] = predicted_s(rows[i], m);
          const double sc = ranking_score(rows, problems, trial);
          if (sc < score - 1e-9) score = sc, best_c = c, best_d = d, moved = true;
        }
      }
      e.compute = best_c, e.dram = best_d;
      for (std::size_t i : mine) pred[i] = predicted_s(rows[i], m);
    }
    if (!moved) break;
  }
  // Each family's error as it now predicts its rows.
  for (std::size_t f = 0; f < m.family_efficiency.size(); ++f) {
    std::vector<double> err;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (family[i] == static_cast<int>(f)) err.push_back(relative_error(pred[i], rows[i].measured_s));
    m.family_efficiency[f].median_error = median(err);
  }
  return m.family_efficiency;
}

}  // namespace gemmkit::dispatch
