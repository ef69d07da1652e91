#include "bench/suite.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace gemmkit::bench {

namespace {

namespace fs = std::filesystem;

std::vector<std::int64_t> ints(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return {};
  const auto& v = j[key];
  if (v.is_number_integer()) return {v.get<std::int64_t>()};
  if (!v.is_array()) throw std::runtime_error(std::string("'") + key + "' must be a number or list");
  std::vector<std::int64_t> out;
  for (const auto& x : v) out.push_back(x.get<std::int64_t>());
  return out;
}

std::string shape_name(const std::string& tag, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch) {
  std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  if (batch > 1) s += "x" + std::to_string(batch);
  return tag.empty() ? s : tag + " " + s;
}

}  // namespace

std::vector<std::string> suite_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* e = std::getenv("GEMMKIT_SUITES"); e && *e) dirs.push_back(e);
  dirs.push_back("bench/suites");
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    for (int up = 0; up < 4 && !dir.empty(); ++up) {
      dirs.push_back((dir / "bench" / "suites").string());
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
  }
  return dirs;
}

bool parse_suite(const std::string& text, Suite* out, std::string* err) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    out->name = j.value("name", "");
    out->description = j.value("description", "");
    if (j.contains("dtype")) {
      if (j["dtype"].is_string()) {
        out->dtype["cpu"] = out->dtype["cuda"] = j["dtype"].get<std::string>();
      } else {
        for (const auto& [k, v] : j["dtype"].items()) out->dtype[k] = v.get<std::string>();
      }
    }
    if (!j.contains("problems") || !j["problems"].is_array())
      throw std::runtime_error("no \"problems\" list");
    for (const auto& p : j["problems"]) {
      SuiteEntry base;
      for (const char* key : {"layout_a", "layout_b", "layout_c", "dtype"})
        if (p.contains(key)) base.options[key] = p[key].get<std::string>();
      for (const char* key : {"trans_a", "trans_b"})
        if (p.contains(key)) base.options[key] = p[key].get<bool>() ? "1" : "0";
      if (p.contains("beta")) base.options["beta"] = std::to_string(p["beta"].get<double>());
      const std::string tag = p.value("tag", "");
      std::vector<std::int64_t> batches = ints(p, "batch");
      if (batches.empty()) batches = {1};
      if (p.contains("group_m")) {
        SuiteEntry e = base;
        e.group_m = ints(p, "group_m");
        e.n = p.at("n").get<std::int64_t>();
        e.k = p.at("k").get<std::int64_t>();
        for (std::int64_t g : e.group_m) e.m += g;
        e.name = (tag.empty() ? "grouped" : tag) + " G=" + std::to_string(e.group_m.size()) +
                 " " + std::to_string(e.m) + "x" + std::to_string(e.n) + "x" + std::to_string(e.k);
        out->entries.push_back(e);
        continue;
      }
      std::vector<std::pair<std::int64_t, std::int64_t>> nk;
      if (p.contains("nk")) {
        for (const auto& pair : p["nk"])
          nk.emplace_back(pair.at(0).get<std::int64_t>(), pair.at(1).get<std::int64_t>());
      } else {
        for (std::int64_t n : ints(p, "n"))
          for (std::int64_t k : ints(p, "k")) nk.emplace_back(n, k);
      }
      const std::vector<std::int64_t> ms = ints(p, "m");
      if (ms.empty() || nk.empty()) throw std::runtime_error("an entry needs m and n, k (or nk)");
      for (std::int64_t m : ms)
        for (const auto& [n, k] : nk)
          for (std::int64_t b : batches) {
            SuiteEntry e = base;
            e.m = m;
            e.n = n;
            e.k = k;
            e.batch = b;
            e.name = shape_name(tag, m, n, k, b);
            out->entries.push_back(e);
          }
    }
  } catch (const std::exception& e) {
    *err = e.what();
    return false;
  }
  return true;
}

bool load_suite(const std::string& name_or_path, Suite* out, std::string* err) {
  std::vector<std::string> candidates;
  if (name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 &&
       name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0))
    candidates.push_back(name_or_path);
  for (const std::string& d : suite_search_dirs()) candidates.push_back(d + "/" + name_or_path + ".json");
  for (const std::string& path : candidates) {
    std::ifstream f(path);
    if (!f) continue;
    std::stringstream ss;
    ss << f.rdbuf();
    out->path = path;
    if (!parse_suite(ss.str(), out, err)) {
      *err = path + ": " + *err;
      return false;
    }
    return true;
  }
  *err = "no suite '" + name_or_path + "' (looked for " + name_or_path +
         ".json in $GEMMKIT_SUITES, ./bench/suites and bench/suites near the executable)";
  return false;
}

}  // namespace gemmkit::bench
