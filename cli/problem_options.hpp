// The problem flags shared by run, verify, bench, ledger and explain, in the spirit of
// cutlass_profiler: --m --n --k, --dtype (or --dtype-a/-b/-c/-d), --layout-a/-b/-c,
// --trans-a/--trans-b, --lda --ldb --ldc, --alpha --beta, --batch, --backend, --seed, --json.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::cli {

struct ProblemOptions {
  std::int64_t m = 256, n = 256, k = 256, batch = 1;
  std::string dtype = "f32";
  std::string dtype_a, dtype_b, dtype_c, dtype_d, compute;
  std::string layout_a = "col", layout_b = "col", layout_c = "col";
  bool trans_a = false, trans_b = false;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  double alpha = 1.0, beta = 0.0;
  std::string backend = "auto";
  std::uint64_t seed = 1;
  bool json = false;
  std::string kernel;

  // Adds the flags to a subcommand. with_sizes=false leaves out --m/--n/--k (suites).
  void add_to(CLI::App* cmd, bool with_sizes = true);
  // Turns the flags into a descriptor; throws CLI::ValidationError naming the flag on a
  // bad dtype, layout or backend.
  GemmDesc desc() const;
  Backend backend_value() const;
};

}  // namespace gemmkit::cli
