// The tuning cache: the file format, the device and build identity, and the process's copy.
#include "dispatch/tune_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/describe.hpp"
#include "dispatch/kernel_config.hpp"
#include "dispatch/plan_cache.hpp"
#include "dispatch/registry.hpp"

#ifndef GEMMKIT_GIT_COMMIT
#define GEMMKIT_GIT_COMMIT ""
#endif

namespace gemmkit::dispatch {

namespace {

constexpr const char* kFormat = "gemmkit-tune";
constexpr int kVersion = 1;

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos && c + 2 <= line.size()) return line.substr(c + 2);
    }
  return "unknown";
}

std::string layouts_of(const GemmDesc& d) {
  const auto one = [](const char* name, Layout l, bool t) {
    return std::string(name) + "=" + std::string(layout_name(l)) + (t ? "^T" : "");
  };
  return one("A", d.a.layout, d.trans_a == Op::Trans) + " " +
         one("B", d.b.layout, d.trans_b == Op::Trans) + " " + one("C", d.c.layout, false);
}

bool parse_mode(const std::string& s, sched::Mode* out) {
  for (sched::Mode m : kAllModes)
    if (mode_name(m) == s) return *out = m, true;
  return false;
}

bool parse_backend(const std::string& s, Backend* out) {
  if (s == "cpu") return *out = Backend::Cpu, true;
  if (s == "cuda") return *out = Backend::Cuda, true;
  return false;
}

// The process's copy of the file: loaded once, replaced by set_tune_cache_path.
struct Loaded {
  std::string path;
  bool usable = false;
  std::vector<TuneEntry> entries;
};

struct State {
  std::mutex mu;
  bool path_set = false;  // by set_tune_cache_path; else GEMMKIT_TUNE_CACHE
  std::string path;
  std::shared_ptr<const Loaded> loaded;  // null: not read yet
};

State& state() {
  static State s;
  return s;
}

void warn(const std::string& path, const std::string& why) {
  std::fprintf(stderr, "gemmkit: warning: tune cache %s %s: ignored\n", path.c_str(), why.c_str());
}

// Reads and checks a file; a warning (once: the result is kept) when it cannot be used.
std::shared_ptr<const Loaded> load(const std::string& path) {
  auto l = std::make_shared<Loaded>();
  l->path = path;
  if (path.empty()) return l;
  std::ifstream f(path);
  if (!f) {
    warn(path, "cannot be read");
    return l;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::string build, err;
  std::vector<TuneEntry> entries;
  if (!parse_tune_file(ss.str(), &build, &entries, &err)) {
    warn(path, "is malformed (" + err + ")");
    return l;
  }
  if (build != tune_build_id()) {
    warn(path, "belongs to build " + build + ", this is build " + tune_build_id());
    return l;
  }
  for (const TuneEntry& e : entries) {
    const std::string& here = device_name(e.backend);
    if (here.empty()) continue;  // no such device in this process: the entry never matches
    if (e.device != here) {
      warn(path, "was tuned on " + e.device + ", this " + std::string(backend_name(e.backend)) +
                     " device is " + here);
      return l;
    }
  }
  l->entries = std::move(entries);
  l->usable = true;
  return l;
}

std::shared_ptr<const Loaded> current() {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (!s.loaded) {
    if (!s.path_set) {
      const char* env = std::getenv("GEMMKIT_TUNE_CACHE");
      s.path = env ? env : "";
    }
    s.loaded = load(s.path);
  }
  return s.loaded;
}

}  // namespace

const std::string& tune_build_id() {
  static const std::string id =
      std::string(GEMMKIT_GIT_COMMIT).empty() ? "unknown" : std::string(GEMMKIT_GIT_COMMIT);
  return id;
}

const std::string& device_name(Backend b) {
  static const std::string cpu = cpu_model_name();
  static const std::string gpu = [] {
    std::string name;
    int sms = 0;
    return cuda_device_identity(&name, &sms) ? name : std::string();
  }();
  return b == Backend::Cuda ? gpu : cpu;
}

bool tunable(const GemmDesc& d) noexcept {
  const EpilogueDesc& e = d.epilogue;
  return e.bias == BiasMode::None && e.act == Activation::None && !e.scale_d && !e.amax_d &&
         d.scale_a.mode == ScaleMode::None && d.scale_b.mode == ScaleMode::None;
}

TuneEntry tune_key(const GemmDesc& d, Backend b, double beta, int threads) {
  TuneEntry e;
  e.backend = b;
  e.device = device_name(b);
  e.dtypes = core::dtypes_string(d);
  e.layouts = layouts_of(d);
  e.m = d.m, e.n = d.n, e.k = d.k, e.batch = d.batch;
  e.beta_zero = beta == 0.0;
  e.threads = threads;
  return e;
}

bool same_key(const TuneEntry& x, const TuneEntry& y) noexcept {
  return x.backend == y.backend && x.device == y.device && x.dtypes == y.dtypes &&
         x.layouts == y.layouts && x.m == y.m && x.n == y.n && x.k == y.k && x.batch == y.batch &&
         x.beta_zero == y.beta_zero && x.threads == y.threads;
}

bool parse_tune_file(const std::string& text, std::string* build, std::vector<TuneEntry>* out,
                     std::string* err) {
  out->clear();
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) return *err = "not a JSON object", false;
    if (j.value("format", "") != kFormat)
      return *err = std::string("\"format\" is not \"") + kFormat + "\"", false;
    if (j.value("version", 0) != kVersion)
      return *err = "\"version\" is not " + std::to_string(kVersion), false;
    *build = j.at("build").get<std::string>();
    for (const nlohmann::json& x : j.at("entries")) {
      TuneEntry e;
      if (!parse_backend(x.at("backend").get<std::string>(), &e.backend))
        return *err = "unknown backend " + x.at("backend").dump(), false;
      e.device = x.at("device").get<std::string>();
      e.dtypes = x.at("dtypes").get<std::string>();
      e.layouts = x.at("layouts").get<std::string>();
      e.m = x.at("m").get<std::int64_t>();
      e.n = x.at("n").get<std::int64_t>();
      e.k = x.at("k").get<std::int64_t>();
      e.batch = x.at("batch").get<std::int64_t>();
      e.beta_zero = x.at("beta_zero").get<bool>();
      e.threads = x.at("threads").get<int>();
      const nlohmann::json& p = x.at("plan");
      e.kernel = p.at("kernel").get<std::string>();
      if (!parse_mode(p.at("mode").get<std::string>(), &e.mode))
        return *err = "unknown mode " + p.at("mode").dump(), false;
      e.split = p.at("split").get<int>();
      e.measured_ms = p.at("measured_ms").get<double>();
      e.predicted_ms = p.value("predicted_ms", 0.0);
      e.timed = x.value("timed", 0);
      out->push_back(std::move(e));
    }
  } catch (const std::exception& ex) {
    out->clear();
    *err = ex.what();
    return false;
  }
  return true;
}

std::string format_tune_file(const std::string& build, const std::vector<TuneEntry>& entries) {
  nlohmann::json j = {{"format", kFormat}, {"version", kVersion}, {"build", build}};
  nlohmann::json list = nlohmann::json::array();
  for (const TuneEntry& e : entries)
    list.push_back({{"backend", backend_name(e.backend)},
                    {"device", e.device},
                    {"dtypes", e.dtypes},
                    {"layouts", e.layouts},
                    {"m", e.m},
                    {"n", e.n},
                    {"k", e.k},
                    {"batch", e.batch},
                    {"beta_zero", e.beta_zero},
                    {"threads", e.threads},
                    {"plan",
                     {{"kernel", e.kernel},
                      {"mode", mode_name(e.mode)},
                      {"split", e.split},
                      {"measured_ms", e.measured_ms},
                      {"predicted_ms", e.predicted_ms}}},
                    {"timed", e.timed}});
  j["entries"] = std::move(list);
  return j.dump(2) + "\n";
}

bool merge_tune_file(const std::string& path, const std::vector<TuneEntry>& winners,
                     std::string* warning, std::string* err) {
  std::vector<TuneEntry> entries;
  if (std::ifstream f(path); f) {
    std::stringstream ss;
    ss << f.rdbuf();
    std::string build, why;
    if (!parse_tune_file(ss.str(), &build, &entries, &why)) {
      *warning = path + " is malformed (" + why + "): replaced";
      entries.clear();
    } else if (build != tune_build_id()) {
      *warning = path + " belongs to build " + build + ": replaced";
      entries.clear();
    } else {
      for (const TuneEntry& e : entries)
        if (!device_name(e.backend).empty() && e.device != device_name(e.backend)) {
          *warning = path + " was tuned on " + e.device + ": replaced";
          entries.clear();
          break;
        }
    }
  }
  for (const TuneEntry& w : winners) {
    bool replaced = false;
    for (TuneEntry& e : entries)
      if (same_key(e, w)) e = w, replaced = true;
    if (!replaced) entries.push_back(w);
  }
  std::ofstream f(path, std::ios::trunc);
  if (!f) return *err = "cannot write " + path, false;
  f << format_tune_file(tune_build_id(), entries);
  if (!f) return *err = "cannot write " + path, false;
  return true;
}

std::optional<TuneEntry> find_tuned(const GemmDesc& d, Backend b, double beta, int threads) {
  if (!tunable(d)) return std::nullopt;
  const std::shared_ptr<const Loaded> l = current();
  if (!l->usable || l->entries.empty()) return std::nullopt;
  const TuneEntry key = tune_key(d, b, beta, threads);
  for (const TuneEntry& e : l->entries)
    if (same_key(e, key)) return e;
  return std::nullopt;
}

std::string tune_cache_path() { return current()->path; }

void set_tune_cache_path(const std::string& path) {
  {
    State& s = state();
    std::lock_guard lock(s.mu);
    s.path_set = true;
    s.path = path;
    s.loaded.reset();
  }
  clear_plan_cache();
}

}  // namespace gemmkit::dispatch
