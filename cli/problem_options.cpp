#include "cli/problem_options.hpp"

#include "core/view.hpp"

namespace gemmkit::cli {

namespace {

DType dtype_or_throw(const std::string& s, const char* flag) {
  DType t;
  if (!parse_dtype(s, &t))
    throw CLI::ValidationError(flag, "unknown dtype '" + s +
                                         "' (f64 f32 f16 bf16 e4m3 e5m2 i8 i4 i32)");
  return t;
}

Layout layout_or_throw(const std::string& s, const char* flag) {
  if (s == "row" || s == "r" || s == "rowmajor") return Layout::RowMajor;
  if (s == "col" || s == "c" || s == "colmajor" || s == "column") return Layout::ColMajor;
  throw CLI::ValidationError(flag, "layout must be row or col, not '" + s + "'");
}

}  // namespace

void ProblemOptions::add_to(CLI::App* cmd, bool with_sizes) {
  if (with_sizes) {
    cmd->add_option("--m", m, "rows of op(A), C and D")->capture_default_str();
    cmd->add_option("--n", n, "columns of op(B), C and D")->capture_default_str();
    cmd->add_option("--k", k, "inner dimension")->capture_default_str();
  }
  cmd->add_option("--batch", batch, "batch count (strided, packed batches)")->capture_default_str();
  cmd->add_option("--dtype", dtype, "dtype of every operand (f64 f32 f16 bf16 e4m3 e5m2 i8 i4)")
      ->capture_default_str();
  cmd->add_option("--dtype-a", dtype_a, "dtype of A (default: --dtype)");
  cmd->add_option("--dtype-b", dtype_b, "dtype of B (default: --dtype)");
  cmd->add_option("--dtype-c", dtype_c, "dtype of C (default: --dtype, i32 for int inputs)");
  cmd->add_option("--dtype-d", dtype_d, "dtype of D (default: dtype of C)");
  cmd->add_option("--compute", compute, "accumulate type (default f32; f64 for f64; i32 for ints)");
  cmd->add_option("--layout-a", layout_a, "row or col")->capture_default_str();
  cmd->add_option("--layout-b", layout_b, "row or col")->capture_default_str();
  cmd->add_option("--layout-c", layout_c, "row or col (also D)")->capture_default_str();
  cmd->add_flag("--trans-a", trans_a, "use op(A) = A^T");
  cmd->add_flag("--trans-b", trans_b, "use op(B) = B^T");
  cmd->add_option("--lda", lda, "leading dimension of A (0: packed)");
  cmd->add_option("--ldb", ldb, "leading dimension of B (0: packed)");
  cmd->add_option("--ldc", ldc, "leading dimension of C and D (0: packed)");
  cmd->add_option("--alpha", alpha, "alpha")->capture_default_str();
  cmd->add_option("--beta", beta, "beta")->capture_default_str();
  cmd->add_option("--backend", backend, "auto, cpu or cuda")->capture_default_str();
  cmd->add_option("--kernel", kernel, "force a registered kernel by name (see `gemmkit kernels`)");
  cmd->add_option("--seed", seed, "seed of the U[-1,1] fills")->capture_default_str();
  cmd->add_flag("--json", json, "print one JSON object");
}

Backend ProblemOptions::backend_value() const {
  if (backend == "auto") return Backend::Auto;
  if (backend == "cpu") return Backend::Cpu;
  if (backend == "cuda" || backend == "gpu") return Backend::Cuda;
  throw CLI::ValidationError("--backend", "must be auto, cpu or cuda, not '" + backend + "'");
}

GemmDesc ProblemOptions::desc() const {
  const DType all = dtype_or_throw(dtype, "--dtype");
  const DType ta = dtype_a.empty() ? all : dtype_or_throw(dtype_a, "--dtype-a");
  const DType tb = dtype_b.empty() ? all : dtype_or_throw(dtype_b, "--dtype-b");
  const bool integer = ta == DType::I8 || ta == DType::I4;
  const DType default_c = integer ? DType::I32 : (ta == DType::F64 ? DType::F64 : all);
  DType tc = dtype_c.empty() ? default_c : dtype_or_throw(dtype_c, "--dtype-c");
  // fp8 inputs default to a bf16 output, as fp8 GEMMs usually produce.
  if (dtype_c.empty() && (tc == DType::E4M3 || tc == DType::E5M2)) tc = DType::BF16;
  const DType td = dtype_d.empty() ? tc : dtype_or_throw(dtype_d, "--dtype-d");
  DType tcomp = integer ? DType::I32 : (ta == DType::F64 && tb == DType::F64 ? DType::F64
                                                                               : DType::F32);
  if (!compute.empty()) tcomp = dtype_or_throw(compute, "--compute");
  const Layout lc = layout_or_throw(layout_c, "--layout-c");
  GemmDesc d{.m = m, .n = n, .k = k,
             .trans_a = trans_a ? Op::Trans : Op::NoTrans,
             .trans_b = trans_b ? Op::Trans : Op::NoTrans,
             .a = {ta, layout_or_throw(layout_a, "--layout-a"), lda, 0},
             .b = {tb, layout_or_throw(layout_b, "--layout-b"), ldb, 0},
             .c = {tc, lc, ldc, 0},
             .d = {td, lc, ldc, 0},
             .batch = batch,
             .compute = tcomp};
  return core::with_packed_batch_strides(d);  // packed batches
}

}  // namespace gemmkit::cli
