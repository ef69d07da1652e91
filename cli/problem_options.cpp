#include "cli/problem_options.hpp"

#include <charconv>

#include "core/status.hpp"
#include "core/view.hpp"
#include "dispatch/tune_cache.hpp"

namespace gemmkit::cli {

namespace {

DType dtype_or_throw(const std::string& s, const char* flag) {
  DType t;
  if (!parse_dtype(s, &t))
    throw CLI::ValidationError(flag, "unknown dtype '" + s +
                                         "' (f64 f32 f16 bf16 e4m3 e5m2 e2m1 i8 i4 i32)");
  return t;
}

ScaleMode scale_or_throw(const std::string& s, const char* flag) {
  if (s == "none") return ScaleMode::None;
  if (s == "tensor") return ScaleMode::Tensor;
  if (s == "row") return ScaleMode::Row;
  if (s == "column" || s == "col") return ScaleMode::Column;
  if (s == "block1x128") return ScaleMode::Block1x128;
  if (s == "block128x128") return ScaleMode::Block128x128;
  if (s == "group") return ScaleMode::Group;
  if (s == "mx") return ScaleMode::Mx;
  throw CLI::ValidationError(
      flag,
      "scale must be none, tensor, row, column, block1x128, block128x128, group or mx, not '" + s +
          "'");
}

// --epilogue: "none", or an activation (relu gelu gelu-tanh silu), each optionally after
// "bias-"; "bias" alone is a bias with no activation.
struct EpilogueName {
  const char* name;
  bool bias;
  Activation act;
};
constexpr EpilogueName kEpilogues[] = {
    {"none", false, Activation::None},
    {"bias", true, Activation::None},
    {"relu", false, Activation::Relu},
    {"gelu", false, Activation::GeluErf},
    {"gelu-tanh", false, Activation::GeluTanh},
    {"silu", false, Activation::Silu},
    {"bias-relu", true, Activation::Relu},
    {"bias-gelu", true, Activation::GeluErf},
    {"bias-gelu-tanh", true, Activation::GeluTanh},
    {"bias-silu", true, Activation::Silu},
};

EpilogueName epilogue_or_throw(const std::string& s) {
  std::string names;
  for (const EpilogueName& e : kEpilogues) {
    if (s == e.name) return e;
    names += names.empty() ? e.name : std::string(", ") + e.name;
  }
  throw CLI::ValidationError("--epilogue", "must be " + names + ", not '" + s + "'");
}

Layout layout_or_throw(const std::string& s, const char* flag) {
  if (s == "row" || s == "r" || s == "rowmajor") return Layout::RowMajor;
  if (s == "col" || s == "c" || s == "colmajor" || s == "column") return Layout::ColMajor;
  throw CLI::ValidationError(flag, "layout must be row or col, not '" + s + "'");
}

// Reads a size flag as a 64-bit integer; anything else is the argument's InvalidValue.
Status parse_size(const std::string& text, Arg arg, std::int64_t* out) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const std::string name(arg_name(arg));
  if (ec == std::errc::result_out_of_range)
    return GEMMKIT_INVALID(arg, name + " = " + text + " does not fit in a 64-bit integer");
  if (ec != std::errc() || ptr != end || text.empty())
    return GEMMKIT_INVALID(arg, name + " = '" + text + "' is not an integer");
  *out = v;
  return {};
}

}  // namespace

void ProblemOptions::add_to(CLI::App* cmd, bool with_sizes, bool with_schedule) {
  // A size flag: text parsed here; the first failure (lowest netlib position) is kept.
  const auto size = [this, cmd](const char* flag, std::int64_t* field, Arg arg, const char* help) {
    cmd->add_option_function<std::string>(
           flag,
           [this, field, arg](const std::string& text) {
             Status s = parse_size(text, arg, field);
             if (!s && (parse_error_.ok() || s.position() < parse_error_.position()))
               parse_error_ = s;
           },
           help)
        ->default_str(std::to_string(*field));
  };
  if (with_sizes) {
    size("--m", &m, Arg::M, "rows of op(A), C and D");
    size("--n", &n, Arg::N, "columns of op(B), C and D");
    size("--k", &k, Arg::K, "inner dimension");
  }
  size("--batch", &batch, Arg::Batch, "batch count (strided, packed batches)");
  cmd->add_option("--dtype", dtype,
                  "dtype of every operand (f64 f32 f16 bf16 e4m3 e5m2 e2m1 i8 i4)")
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
  size("--lda", &lda, Arg::Lda, "leading dimension of A (0: packed)");
  size("--ldb", &ldb, Arg::Ldb, "leading dimension of B (0: packed)");
  size("--ldc", &ldc, Arg::Ldc, "leading dimension of C and D (0: packed)");
  cmd->add_option("--alpha", alpha, "alpha")->capture_default_str();
  cmd->add_option("--beta", beta, "beta")->capture_default_str();
  cmd->add_option("--scale-a", scale_a,
                  "scale of A: none, tensor, row, block1x128, block128x128 (fp32), mx (e8m0 per "
                  "32: MXFP8, MXFP4 for e2m1; fp8 / fp4 A is quantized from f32 with scales from "
                  "the amax)")
      ->capture_default_str();
  cmd->add_option("--scale-b", scale_b,
                  "scale of B: none, tensor, column, block1x128, block128x128, mx, group (integer "
                  "weights B: --group-size, --scale-dtype, --zero-points)")
      ->capture_default_str();
  cmd->add_option("--group-size", group_size, "K values per group scale (32, 64, 128)")
      ->capture_default_str();
  cmd->add_option("--scale-dtype", scale_dtype, "dtype of group scales (f32, f16, bf16)")
      ->capture_default_str();
  cmd->add_flag("--zero-points", zero_points, "group zero points: w = (q - z) * s");
  cmd->add_flag("--scale-d", scale_d,
                "the output's scale: D = round(v * s_d), s_d U[0.5, 2]; an fp8 D saturates");
  cmd->add_flag("--amax-d", amax_d, "write (and check) the amax of the unscaled output");
  cmd->add_option("--epilogue", epilogue,
                  "fused epilogue D = act(alpha op(A) op(B) + bias + beta C): none, bias, relu, "
                  "gelu (erf), gelu-tanh, silu, bias-relu, bias-gelu, bias-gelu-tanh, bias-silu")
      ->capture_default_str();
  cmd->add_option("--bias", bias,
                  "a bias epilogue's vector: row (M values, bias[i] on row i) or col (N values, "
                  "bias[j] on column j; the default)");
  cmd->add_option("--bias-dtype", bias_dtype,
                  "dtype of the bias: f32 (default; f64 for an f64 accumulator), bf16, f16, f64");
  cmd->add_option("--backend", backend, "auto, cpu or cuda")->capture_default_str();
  cmd->add_option("--kernel", kernel, "force a registered kernel by name (see `gemmkit kernels`)");
  if (with_schedule) {
    cmd->add_option("--split-k", split_k,
                    "split-K pieces (0: the planner's choice; 1: none; a count the kernel cannot "
                    "run as asked is refused)")
        ->capture_default_str();
    cmd->add_option("--schedule", schedule,
                    "scheduler mode: auto, data_parallel, split_k or stream_k")
        ->capture_default_str();
    cmd->add_flag("--batch-invariant", batch_invariant,
                  "each row of D gets the same bits whatever M is: the plan of M = " +
                      std::to_string(kBatchInvariantM) +
                      ", data-parallel, M-invariant kernels (Options::batch_invariant)");
    cmd->add_flag("--dynamic-schedule", dynamic_schedule,
                  "persistent kernels take data-parallel tiles from a counter, not a fixed deal "
                  "(Options::dynamic_schedule)");
    cmd->add_option("--sm-count", sm_count,
                    "CUDA: the persistent kernels occupy at most N SMs, the rest left to other "
                    "work; 0: all (Options::sm_count_target)")
        ->capture_default_str();
  }
  cmd->add_option("--seed", seed, "seed of the U[-1,1] fills")->capture_default_str();
  cmd->add_flag("--json", json, "print one JSON object");
  cmd->add_option("--tune-cache", tune_cache,
                  "tuning cache FILE the planner reads (default: $GEMMKIT_TUNE_CACHE; tune: "
                  "the file it writes, gemmkit-tune.json)");
}

Backend ProblemOptions::backend_value() const {
  if (backend == "auto") return Backend::Auto;
  if (backend == "cpu") return Backend::Cpu;
  if (backend == "cuda" || backend == "gpu") return Backend::Cuda;
  throw CLI::ValidationError("--backend", "must be auto, cpu or cuda, not '" + backend + "'");
}

Options ProblemOptions::options() const {
  if (split_k < 0) throw CLI::ValidationError("--split-k", "must be >= 0");
  if (sm_count < 0) throw CLI::ValidationError("--sm-count", "must be >= 0 (0: every SM)");
  Schedule s = Schedule::Auto;
  if (schedule == "data_parallel")
    s = Schedule::DataParallel;
  else if (schedule == "split_k")
    s = Schedule::SplitK;
  else if (schedule == "stream_k")
    s = Schedule::StreamK;
  else if (schedule != "auto")
    throw CLI::ValidationError(
        "--schedule", "must be auto, data_parallel, split_k or stream_k, not '" + schedule + "'");
  if (!tune_cache.empty() && tune_cache != tune_cache_applied_) {
    dispatch::set_tune_cache_path(tune_cache);
    tune_cache_applied_ = tune_cache;
  }
  if (batch_invariant && split_k > 1)
    throw CLI::ValidationError("--batch-invariant",
                               "contradicts --split-k " + std::to_string(split_k) +
                                   ": K pieces change each element's summation order");
  if (batch_invariant && (s == Schedule::SplitK || s == Schedule::StreamK))
    throw CLI::ValidationError("--batch-invariant",
                               "contradicts --schedule " + schedule + ": whole output tiles only");
  return Options{.backend = backend_value(),
                 .kernel = kernel.empty() ? nullptr : kernel.c_str(),
                 .split_k = split_k,
                 .schedule = s,
                 .batch_invariant = batch_invariant,
                 .dynamic_schedule = dynamic_schedule,
                 .sm_count_target = sm_count};
}

GemmDesc ProblemOptions::desc() const {
  if (!parse_error_.ok()) throw ProblemError(parse_error_);
  const DType all = dtype_or_throw(dtype, "--dtype");
  const DType ta = dtype_a.empty() ? all : dtype_or_throw(dtype_a, "--dtype-a");
  const DType tb = dtype_b.empty() ? all : dtype_or_throw(dtype_b, "--dtype-b");
  const bool integer = ta == DType::I8 || ta == DType::I4;
  const DType default_c = integer ? DType::I32 : (ta == DType::F64 ? DType::F64 : all);
  DType tc = dtype_c.empty() ? default_c : dtype_or_throw(dtype_c, "--dtype-c");
  // fp8 and fp4 inputs default to a bf16 output, as fp8 GEMMs usually produce.
  if (dtype_c.empty() && (tc == DType::E4M3 || tc == DType::E5M2 || tc == DType::E2M1))
    tc = DType::BF16;
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
  d.scale_a.mode = scale_or_throw(scale_a, "--scale-a");
  d.scale_b.mode = scale_or_throw(scale_b, "--scale-b");
  if (d.scale_a.mode == ScaleMode::Mx) d.scale_a.dtype = DType::E8M0;
  if (d.scale_b.mode == ScaleMode::Mx) d.scale_b.dtype = DType::E8M0;
  if (d.scale_b.mode == ScaleMode::Group) {
    d.scale_b.group = group_size;
    d.scale_b.dtype = dtype_or_throw(scale_dtype, "--scale-dtype");
    d.scale_b.zero_points = zero_points;
  }
  d.epilogue.scale_d = scale_d;
  d.epilogue.amax_d = amax_d;
  const EpilogueName e = epilogue_or_throw(epilogue);
  d.epilogue.act = e.act;
  if (!e.bias && (!bias.empty() || !bias_dtype.empty()))
    throw CLI::ValidationError(!bias.empty() ? "--bias" : "--bias-dtype",
                               "needs an epilogue with a bias (--epilogue bias, bias-relu, "
                               "bias-gelu, bias-gelu-tanh or bias-silu), not --epilogue " +
                                   epilogue);
  if (e.bias) {
    if (bias.empty() || bias == "col" || bias == "column")
      d.epilogue.bias = BiasMode::Column;
    else if (bias == "row")
      d.epilogue.bias = BiasMode::Row;
    else
      throw CLI::ValidationError("--bias", "must be row or col, not '" + bias + "'");
    // The CPU kernels read a bias of the accumulate type, bf16 or f16: f32 by default, f64
    // under an f64 accumulator.
    d.epilogue.bias_dtype = tcomp == DType::F64 ? DType::F64 : DType::F32;
    if (!bias_dtype.empty()) {
      DType t;
      if (!parse_dtype(bias_dtype, &t) ||
          !(t == DType::F32 || t == DType::BF16 || t == DType::F16 || t == DType::F64))
        throw CLI::ValidationError("--bias-dtype",
                                   "must be f32, bf16, f16 or f64, not '" + bias_dtype + "'");
      d.epilogue.bias_dtype = t;
    }
  }
  // One matrix first (sizes, lds, bytes of one matrix), so that the packed batch strides are
  // computed only from sizes that fit; then the batches.
  GemmDesc one = d;
  one.batch = 1;
  if (Status s = bench::validate_problem(one); !s) throw ProblemError(s);
  d = core::with_packed_batch_strides(d);  // packed batches (nothing to do for batch <= 1)
  if (Status s = bench::validate_problem(d); !s) throw ProblemError(s);
  return d;
}

void require_memory(const bench::MemoryNeed& need) {
  if (Status s = bench::check_memory(need); !s) throw ProblemError(s);
}

}  // namespace gemmkit::cli
