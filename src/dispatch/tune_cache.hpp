// The tuning cache: measured winners (kernel, scheduler mode, split count) per problem, written
// by `gemmkit tune` and read by the planner. One JSON file (docs/tune.md):
//   {"format": "gemmkit-tune", "version": 1, "build": COMMIT, "entries": [ENTRY, ...]}
// An entry is matched on backend, device, dtypes, layouts with trans, M, N, K, batch, whether
// beta is zero, and the CPU thread count asked for. Only plain problems are tuned and looked
// up: no epilogue, no scales (their kernels and costs differ).
// Rules of the planner: the file is read once per process (GEMMKIT_TUNE_CACHE, or the path set
// by set_tune_cache_path), under a mutex. A file that does not parse, or whose build differs
// from this library's, or with an entry tuned on another device than the present one of its
// backend, is ignored as a whole with one warning on stderr naming the file. An entry is used
// only when its kernel is registered for the backend, its config has the mode, the split count
// fits the mode, and can_implement accepts the problem; otherwise the ranking decides.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::dispatch {

struct TuneEntry {
  // The key.
  Backend backend = Backend::Cpu;
  std::string device;   // device_name(backend) where it was tuned
  std::string dtypes;   // "a/b/c/d/acc"
  std::string layouts;  // "A=col B=row^T C=col" (^T: transposed)
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool beta_zero = true;
  int threads = 0;  // Options::threads of the timed calls (0: all cores)
  // The winner.
  std::string kernel;
  sched::Mode mode = sched::Mode::DataParallel;
  int split = 1;
  double measured_ms = 0;   // its median
  double predicted_ms = 0;  // the ledger's time for it
  int timed = 0;            // candidates timed (verified) for this entry
};

// The build the cache belongs to: the git commit at configure time, "unknown" without one.
const std::string& tune_build_id();
// The device of a backend: the CPU's model name (/proc/cpuinfo), or the CUDA device's name;
// "" when the backend has no device in this process.
const std::string& device_name(Backend b);

// Whether a problem can have an entry (no epilogue, no scales), and the entry's key for it.
bool tunable(const GemmDesc& d) noexcept;
TuneEntry tune_key(const GemmDesc& d, Backend b, double beta, int threads);
bool same_key(const TuneEntry& x, const TuneEntry& y) noexcept;

// The file's text <-> entries. parse_tune_file returns false with *err (the reason, not the
// file name) on anything malformed; it checks neither build nor device.
bool parse_tune_file(const std::string& text, std::string* build, std::vector<TuneEntry>* out,
                     std::string* err);
std::string format_tune_file(const std::string& build, const std::vector<TuneEntry>& entries);

// Merges `winners` into the file at `path` (an entry of the same key is replaced) and writes it
// under this build. An existing file that is malformed or of another build or device is
// replaced, with *warning saying so. False with *err when the file cannot be written.
bool merge_tune_file(const std::string& path, const std::vector<TuneEntry>& winners,
                     std::string* warning, std::string* err);

// The planner's lookup: the entry of the process's cache for this problem, if any (loads the
// file on first use; see the rules above). Not checked against the registry here.
std::optional<TuneEntry> find_tuned(const GemmDesc& d, Backend b, double beta, int threads);
// The file the process reads ("" for none) and whether it was usable (false after a warning).
std::string tune_cache_path();
// Replaces GEMMKIT_TUNE_CACHE for this process ("" : none): the file is read again on the next
// plan and the plan cache is emptied. The CLI's --tune-cache and the tests use it.
void set_tune_cache_path(const std::string& path);

}  // namespace gemmkit::dispatch
