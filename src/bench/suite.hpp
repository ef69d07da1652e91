// Shape suites as data (bench/suites/*.json, BENCH.md): shared by the bench, the tests and
// the tuner. A suite file:
//   {"name": "square", "description": "...", "dtype": {"cuda": "bf16", "cpu": "f32"},
//    "problems": [{"m": 512, "n": 512, "k": 512}, {"tag": "decode", "m": [1, 4], "nk": [[4096,
//    4096]]}, {"tag": "moe8", "group_m": [..], "n": 4096, "k": 7168}, ...]}
// m, n, k, batch may be a number or a list (cartesian product); "nk" lists (n, k) pairs;
// optional per-entry keys layout_a, layout_b, layout_c ("row"/"col"), trans_a, trans_b
// (booleans), beta, dtype override the command line for that entry.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gemmkit::bench {

struct SuiteEntry {
  std::string name;  // "512x512x512" or "decode 1x4096x4096"
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::vector<std::int64_t> group_m;            // grouped (MoE): one M per group
  std::map<std::string, std::string> options;   // layout_a, trans_b, beta, dtype, ...
};

struct Suite {
  std::string name, description, path;
  std::map<std::string, std::string> dtype;  // backend name -> default dtype
  std::vector<SuiteEntry> entries;
};

// `name_or_path`: a file path, or a suite name looked up as NAME.json in $GEMMKIT_SUITES,
// ./bench/suites, and bench/suites beside or above the running executable.
bool load_suite(const std::string& name_or_path, Suite* out, std::string* err);
std::vector<std::string> suite_search_dirs();

// Parses the JSON text of a suite (used by load_suite and by tests).
bool parse_suite(const std::string& text, Suite* out, std::string* err);

}  // namespace gemmkit::bench
