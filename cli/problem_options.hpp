// The problem flags shared by run, verify, bench, ledger and explain, in the spirit of
// cutlass_profiler: --m --n --k, --dtype (or --dtype-a/-b/-c/-d), --layout-a/-b/-c,
// --trans-a/--trans-b, --lda --ldb --ldc, --alpha --beta, --batch, --scale-a/--scale-b,
// --epilogue with --bias/--bias-dtype, --backend, --seed, --json.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bench/problem_check.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cli {

// A problem the command refuses before it allocates anything: main() prints the Status (the
// API's: code, argument name and netlib position, message) and exits 1.
struct ProblemError : std::runtime_error {
  Status status;
  explicit ProblemError(Status s) : std::runtime_error(to_string(s)), status(std::move(s)) {}
};

struct ProblemOptions {
  std::int64_t m = 256, n = 256, k = 256, batch = 1;
  std::string dtype = "f32";
  std::string dtype_a, dtype_b, dtype_c, dtype_d, compute;
  std::string layout_a = "col", layout_b = "col", layout_c = "col";
  bool trans_a = false, trans_b = false;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  double alpha = 1.0, beta = 0.0;
  std::string scale_a = "none", scale_b = "none";  // ScaleDesc modes (packed, column-major)
  std::int64_t group_size = 128;                   // --scale-b group
  std::string scale_dtype = "f32";                 // of group scales
  bool zero_points = false;
  bool scale_d = false, amax_d = false;  // EpilogueDesc::scale_d / amax_d
  std::string epilogue = "none";         // EpilogueDesc::bias (given or not) and ::act, by name
  std::string bias;                      // row or col; empty: col when the epilogue has a bias
  std::string bias_dtype;                // f32 bf16 f16 f64; empty: f32 (f64 under f64 compute)
  std::string backend = "auto";
  std::uint64_t seed = 1;
  bool json = false;
  std::string kernel;
  int split_k = 0;                  // Options::split_k
  std::string schedule = "auto";    // Options::schedule
  bool batch_invariant = false;     // Options::batch_invariant
  bool dynamic_schedule = false;    // Options::dynamic_schedule
  int sm_count = 0;                 // Options::sm_count_target
  // The tuning cache the planner reads (dispatch::set_tune_cache_path, applied by options());
  // empty: GEMMKIT_TUNE_CACHE. `tune` writes it instead (default gemmkit-tune.json there).
  std::string tune_cache;

  // Adds the flags to a subcommand. with_sizes=false leaves out --m/--n/--k (suites).
  // Sizes, leading dimensions and the batch count are read as text, so that a value that is
  // not a 64-bit integer is reported like any other bad argument (ProblemError from desc()).
  // with_schedule=false leaves out --split-k/--schedule/--batch-invariant (`ledger` has a
  // --split-k of its own).
  void add_to(CLI::App* cmd, bool with_sizes = true, bool with_schedule = true);
  // Turns the flags into a validated descriptor (bench::validate_problem: the API's rules
  // plus byte counts that fit 64 bits). Throws CLI::ValidationError naming the flag on a bad
  // dtype, layout, epilogue, bias or backend (--bias / --bias-dtype without a bias epilogue
  // names both flags), and ProblemError with the API's Status on a bad size, leading
  // dimension or batch count. Allocates nothing.
  GemmDesc desc() const;
  Backend backend_value() const;
  // Options from --backend, --kernel, --split-k, --schedule and --batch-invariant (the kernel
  // name points into this object). Throws CLI::ValidationError naming a bad flag, and one
  // naming --batch-invariant when --split-k or --schedule contradicts it.
  // A --tune-cache FILE is handed to the planner here, once.
  Options options() const;

 private:
  Status parse_error_;  // the first size flag that was not a 64-bit integer
  mutable std::string tune_cache_applied_;
};

// Throws ProblemError when `need` exceeds the free host or device memory.
void require_memory(const bench::MemoryNeed& need);

}  // namespace gemmkit::cli
