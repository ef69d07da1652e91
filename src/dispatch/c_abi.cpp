// The C ABI: CBLAS-shaped sgemm/dgemm, the full problem description (gemmkit_problem) and the
// model as JSON. No exception crosses it.
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.hpp"
#include "core/validate.hpp"
#include "dispatch/model_json.hpp"
#include "gemmkit/gemm.hpp"
#include "gemmkit/gemmkit.h"
#include "gemmkit/quantize.hpp"

namespace {

thread_local std::string g_last_error;

int report(const gemmkit::Status& s) {
  if (s.ok()) {
    g_last_error.clear();
    return 0;
  }
  g_last_error = gemmkit::to_string(s);
  if (s.code == gemmkit::StatusCode::InvalidValue && s.arg != gemmkit::Arg::None)
    return s.position();
  return -static_cast<int>(s.code);
}

// CBLAS enums that are out of range become values the front door rejects (named by position).
gemmkit::Op to_op(int t) {
  if (t == GEMMKIT_NO_TRANS) return gemmkit::Op::NoTrans;
  if (t == GEMMKIT_TRANS || t == GEMMKIT_CONJ_TRANS) return gemmkit::Op::Trans;  // real types
  return static_cast<gemmkit::Op>(0xFF);
}

template <class T>
int gemm_c(gemmkit::DType t, int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
           T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
           int64_t ldc) noexcept {
  try {
    using namespace gemmkit;
    const Layout l = layout == GEMMKIT_ROW_MAJOR   ? Layout::RowMajor
                     : layout == GEMMKIT_COL_MAJOR ? Layout::ColMajor
                                                   : static_cast<Layout>(0xFF);
    GemmDesc d{.m = m,
               .n = n,
               .k = k,
               .trans_a = to_op(transa),
               .trans_b = to_op(transb),
               .a = {t, l, lda, 0},
               .b = {t, l, ldb, 0},
               .c = {t, l, ldc, 0},
               .d = {t, l, ldc, 0},
               .batch = 1,
               .compute = t == DType::F64 ? DType::F64 : DType::F32};
    // BLAS has no "packed" default: ld = 0 is illegal here, so validate before defaults.
    if (Status s = core::validate_desc(d); !s) return report(s);
    return report(gemm(
        d, GemmArgs{a, b, c, c, static_cast<double>(alpha), static_cast<double>(beta)}, Options{}));
  } catch (...) {
    g_last_error = "unexpected exception";
    return -static_cast<int>(gemmkit::StatusCode::ExecutionFailed);
  }
}

// ---- gemmkit_problem -> GemmDesc + Options ----

gemmkit::Layout to_layout(int layout) {
  return layout == GEMMKIT_ROW_MAJOR   ? gemmkit::Layout::RowMajor
         : layout == GEMMKIT_COL_MAJOR ? gemmkit::Layout::ColMajor
                                       : static_cast<gemmkit::Layout>(0xFF);
}

// Out-of-range codes become a value the front door rejects, naming the operand's dtype.
gemmkit::DType to_dtype(int t) {
  using gemmkit::DType;
  static constexpr DType table[] = {DType::F64,  DType::F32,  DType::F16, DType::BF16,
                                    DType::E4M3, DType::E5M2, DType::I8,  DType::I4,
                                    DType::I32,  DType::E8M0, DType::E2M1};
  if (t < GEMMKIT_F64 || t > GEMMKIT_E2M1) return static_cast<DType>(0xFF);
  return table[t - GEMMKIT_F64];
}

gemmkit::MatrixDesc to_matrix(const gemmkit_matrix& m) {
  return {to_dtype(m.dtype), to_layout(m.layout), m.ld, m.batch_stride};
}

// The accumulate type gemmkit's command derives: i32 for integer inputs, f64 when A and B are
// both f64, else f32.
gemmkit::DType default_compute(gemmkit::DType a, gemmkit::DType b) {
  using gemmkit::DType;
  if (a == DType::I8 || a == DType::I4) return DType::I32;
  return a == DType::F64 && b == DType::F64 ? DType::F64 : DType::F32;
}

struct Problem {
  gemmkit::GemmDesc desc;
  gemmkit::Options opt;
};

gemmkit::Status to_problem(const gemmkit_problem* p, Problem* out) {
  using namespace gemmkit;
  if (p == nullptr) return GEMMKIT_INVALID(Arg::None, "the problem description is null");
  if (p->abi_version != GEMMKIT_ABI_VERSION)
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::None,
                         "abi_version " + std::to_string(p->abi_version) + ", this library has " +
                             std::to_string(GEMMKIT_ABI_VERSION));
  GemmDesc& d = out->desc;
  d = GemmDesc{.m = p->m,
               .n = p->n,
               .k = p->k,
               .trans_a = to_op(p->trans_a),
               .trans_b = to_op(p->trans_b),
               .a = to_matrix(p->a),
               .b = to_matrix(p->b),
               .c = to_matrix(p->c),
               .d = to_matrix(p->d),
               .batch = p->batch,
               .compute = to_dtype(p->compute)};
  if (p->compute == GEMMKIT_DTYPE_DEFAULT) d.compute = default_compute(d.a.dtype, d.b.dtype);
  Backend backend;
  switch (p->backend) {
    case GEMMKIT_BACKEND_AUTO:
      backend = Backend::Auto;
      break;
    case GEMMKIT_BACKEND_CPU:
      backend = Backend::Cpu;
      break;
    case GEMMKIT_BACKEND_CUDA:
      backend = Backend::Cuda;
      break;
    default:
      return GEMMKIT_INVALID(Arg::Backend,
                             "backend " + std::to_string(p->backend) + " is not 0, 1 or 2");
  }
  if (p->schedule < GEMMKIT_SCHEDULE_AUTO || p->schedule > GEMMKIT_SCHEDULE_STREAM_K)
    return GEMMKIT_INVALID(Arg::None, "schedule " + std::to_string(p->schedule) +
                                          " is not 0, 1, 2 or 3 (gemmkit_schedule)");
  out->opt = Options{.backend = backend,
                     .stream = p->stream,
                     .workspace = p->workspace,
                     .workspace_bytes = p->workspace_bytes,
                     .kernel = p->kernel,
                     .allow_fallback = p->allow_fallback != 0,
                     .threads = p->threads,
                     .split_k = p->split_k,
                     .schedule = static_cast<Schedule>(p->schedule),
                     .batch_invariant = p->batch_invariant != 0};
  return {};
}

// Out-of-range enum values become 0xFF, which the front door rejects naming the argument.
template <class E>
E to_enum(int v, int last) {
  return static_cast<E>(v >= 0 && v <= last ? v : 0xFF);
}

gemmkit::ScaleDesc to_scale(const gemmkit_scale& s) {
  return {.mode = to_enum<gemmkit::ScaleMode>(s.mode, GEMMKIT_SCALE_MX),
          .layout = s.layout == 0 ? gemmkit::Layout::ColMajor : to_layout(s.layout),
          .ld = s.ld,
          .group = s.group,
          .dtype = s.dtype == GEMMKIT_DTYPE_DEFAULT ? gemmkit::DType::F32 : to_dtype(s.dtype),
          .zero_points = s.zero_points != 0};
}

// The fused epilogue and scales into the descriptor and the arguments (nothing when null).
gemmkit::Status apply_fusion(const gemmkit_fusion* f, gemmkit::GemmDesc* d,
                             gemmkit::GemmArgs* args) {
  if (f == nullptr) return {};
  using namespace gemmkit;
  d->epilogue = {
      .bias = to_enum<BiasMode>(f->bias_mode, GEMMKIT_BIAS_COLUMN),
      .bias_dtype = f->bias_dtype == GEMMKIT_DTYPE_DEFAULT ? DType::F32 : to_dtype(f->bias_dtype),
      .act = to_enum<Activation>(f->activation, GEMMKIT_ACT_SILU)};
  d->scale_a = to_scale(f->scale_a);
  d->scale_b = to_scale(f->scale_b);
  if ((f->output_flags & ~(GEMMKIT_SCALE_D | GEMMKIT_AMAX_D)) != 0)
    return GEMMKIT_INVALID(Arg::Epilogue, "output_flags " + std::to_string(f->output_flags) +
                                              " has bits other than GEMMKIT_SCALE_D | _AMAX_D");
  d->epilogue.scale_d = (f->output_flags & GEMMKIT_SCALE_D) != 0;
  d->epilogue.amax_d = (f->output_flags & GEMMKIT_AMAX_D) != 0;
  if (args != nullptr) {
    args->bias = f->bias;
    args->scale_a = f->scale_a.values;
    args->scale_b = f->scale_b.values;
    args->zero_b = f->scale_b.zero;
    if (d->epilogue.scale_d) args->scale_d = f->scale_d;  // the tail is read only when flagged
    if (d->epilogue.amax_d) args->amax_d = f->amax_d;
  }
  return {};
}

// The status struct's strings live here until the next call on this thread.
thread_local std::string g_arg_name;

int fill(const gemmkit::Status& s, gemmkit_status* out, const std::string& arg_name = {}) {
  const int position = report(s);
  if (out != nullptr) {
    g_arg_name = arg_name.empty() ? std::string(gemmkit::arg_name(s.arg)) : arg_name;
    *out = gemmkit_status{.code = static_cast<int32_t>(s.code),
                          .arg = static_cast<int32_t>(s.arg),
                          .position = position,
                          .reserved = 0,
                          .arg_name = g_arg_name.c_str(),
                          .message = g_last_error.c_str()};
  }
  return position;
}

int unexpected(gemmkit_status* out, const char* what) {
  return fill(GEMMKIT_ERROR(gemmkit::StatusCode::ExecutionFailed, gemmkit::Arg::None,
                            std::string("unexpected exception: ") + what),
              out);
}

// Runs the body of an extern "C" function: no exception leaves it.
template <class F>
int guarded(gemmkit_status* status, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return unexpected(status, e.what());
  } catch (...) {
    return unexpected(status, "?");
  }
}

// A validated descriptor with defaulted lds, or the status naming the bad argument.
gemmkit::Status valid_problem(const gemmkit_problem* p, Problem* out) {
  if (gemmkit::Status s = to_problem(p, out); !s) return s;
  out->desc = gemmkit::with_default_lds(out->desc);
  return gemmkit::core::validate_desc(out->desc);
}

gemmkit::dispatch::LedgerRequest parse_request(const char* text) {
  using nlohmann::json;
  gemmkit::dispatch::LedgerRequest r;
  if (text == nullptr || *text == 0) return r;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw gemmkit::dispatch::RequestError("request", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw gemmkit::dispatch::RequestError("request", "not a JSON object");
  for (const auto& [key, v] : j.items()) {
    try {
      if (key == "machine")
        r.machine = v.get<std::string>();
      else if (key == "tile")
        r.tile = v.is_null() ? "" : v.get<std::string>();
      else if (key == "stages")
        r.stages = v.get<int>();
      else if (key == "threads")
        r.threads = v.get<int>();
      else if (key == "split_k")
        r.split_k = v.get<int>();
      else if (key == "l0k")
        r.l0k = v.get<std::int64_t>();
      else if (key == "count_reads")
        r.count_reads = v.get<bool>();
      else if (key == "ascend")
        r.ascend = v.get<bool>();
      else if (key == "variant")
        r.variant = v.get<bool>();
      else if (key == "groups")
        for (const json& g : v)
          r.groups.push_back({g.at(0).get<std::int64_t>(), g.at(1).get<std::int64_t>(),
                              g.at(2).get<std::int64_t>()});
      else
        throw gemmkit::dispatch::RequestError(key, "unknown ledger request field '" + key + "'");
    } catch (const json::exception& e) {
      throw gemmkit::dispatch::RequestError(key, key + ": " + e.what());
    }
  }
  return r;
}

thread_local std::string g_ledger_json, g_explain_json, g_kernels_json;

// The quantizers' C entries: the problem and fusion as gemmkit_gemm_fused reads them, then
// run(desc, source).
template <class Run>
int quantize_c(const gemmkit_problem* p, const gemmkit_fusion* fusion,
               const gemmkit_matrix* src_desc, gemmkit_status* status, Run&& run) noexcept {
  return guarded(status, [&] {
    Problem pr;
    if (gemmkit::Status s = to_problem(p, &pr); !s) return fill(s, status);
    if (gemmkit::Status s = apply_fusion(fusion, &pr.desc, nullptr); !s) return fill(s, status);
    if (src_desc == nullptr)
      return fill(GEMMKIT_INVALID(gemmkit::Arg::None, "src_desc is null"), status);
    return fill(run(pr.desc, to_matrix(*src_desc)), status);
  });
}

// quantize_fp8 / quantize_fp4 of operand 0 (A) or 1 (B).
using QuantizeFn = gemmkit::Status (*)(const gemmkit::GemmDesc&, gemmkit::Arg,
                                       const gemmkit::MatrixDesc&, const void*, void*, void*);
gemmkit::Status quantize_operand(QuantizeFn f, const gemmkit::GemmDesc& d, int operand,
                                 const gemmkit::MatrixDesc& src_desc, const void* src, void* dst,
                                 void* scales) {
  if (operand != 0 && operand != 1)
    return GEMMKIT_INVALID(gemmkit::Arg::None, "operand must be 0 (A) or 1 (B)");
  return f(d, operand == 0 ? gemmkit::Arg::A : gemmkit::Arg::B, src_desc, src, dst, scales);
}

}  // namespace

extern "C" {

int gemmkit_sgemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k, float alpha,
                  const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                  int64_t ldc) {
  return gemm_c(gemmkit::DType::F32, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                c, ldc);
}

int gemmkit_dgemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                  const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                  double* c, int64_t ldc) {
  return gemm_c(gemmkit::DType::F64, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                c, ldc);
}

int gemmkit_abi_version(void) { return GEMMKIT_ABI_VERSION; }

int gemmkit_gemm(const gemmkit_problem* p, const void* a, const void* b, const void* c, void* d,
                 double alpha, double beta, gemmkit_status* status) {
  return guarded(status, [&] {
    Problem pr;
    if (gemmkit::Status s = to_problem(p, &pr); !s) return fill(s, status);
    return fill(gemmkit::gemm(pr.desc, gemmkit::GemmArgs{a, b, c, d, alpha, beta}, pr.opt), status);
  });
}

int gemmkit_gemm_fused(const gemmkit_problem* p, const gemmkit_fusion* fusion, const void* a,
                       const void* b, const void* c, void* d, double alpha, double beta,
                       gemmkit_status* status) {
  return guarded(status, [&] {
    Problem pr;
    if (gemmkit::Status s = to_problem(p, &pr); !s) return fill(s, status);
    gemmkit::GemmArgs args{a, b, c, d, alpha, beta};
    if (gemmkit::Status s = apply_fusion(fusion, &pr.desc, &args); !s) return fill(s, status);
    return fill(gemmkit::gemm(pr.desc, args, pr.opt), status);
  });
}

int gemmkit_can_implement_fused(const gemmkit_problem* p, const gemmkit_fusion* fusion,
                                gemmkit_status* status) {
  return guarded(status, [&] {
    Problem pr;
    if (gemmkit::Status s = to_problem(p, &pr); !s) return fill(s, status);
    if (gemmkit::Status s = apply_fusion(fusion, &pr.desc, nullptr); !s) return fill(s, status);
    return fill(gemmkit::can_implement(pr.desc, pr.opt), status);
  });
}

int gemmkit_quantize_fp8(const gemmkit_problem* p, const gemmkit_fusion* fusion, int operand,
                         const gemmkit_matrix* src_desc, const void* src, void* dst, void* scales,
                         gemmkit_status* status) {
  return quantize_c(p, fusion, src_desc, status, [&](const auto& d, const auto& s) {
    return quantize_operand(gemmkit::quantize_fp8, d, operand, s, src, dst, scales);
  });
}
int gemmkit_quantize_fp4(const gemmkit_problem* p, const gemmkit_fusion* fusion, int operand,
                         const gemmkit_matrix* src_desc, const void* src, void* dst, void* scales,
                         gemmkit_status* status) {
  return quantize_c(p, fusion, src_desc, status, [&](const auto& d, const auto& s) {
    return quantize_operand(gemmkit::quantize_fp4, d, operand, s, src, dst, scales);
  });
}
int gemmkit_quantize_weights(const gemmkit_problem* p, const gemmkit_fusion* fusion,
                             const gemmkit_matrix* src_desc, const void* src, void* dst,
                             void* scales, void* zeros, gemmkit_status* status) {
  return quantize_c(p, fusion, src_desc, status, [&](const auto& d, const auto& s) {
    return gemmkit::quantize_weights(d, s, src, dst, scales, zeros);
  });
}

int gemmkit_can_implement(const gemmkit_problem* p, gemmkit_status* status) {
  return guarded(status, [&] {
    Problem pr;
    if (gemmkit::Status s = to_problem(p, &pr); !s) return fill(s, status);
    return fill(gemmkit::can_implement(pr.desc, pr.opt), status);
  });
}

int gemmkit_workspace_size(const gemmkit_problem* p, size_t* bytes, gemmkit_status* status) {
  return guarded(status, [&] {
    if (bytes != nullptr) *bytes = 0;
    Problem pr;
    if (gemmkit::Status s = valid_problem(p, &pr); !s) return fill(s, status);
    if (bytes != nullptr) *bytes = gemmkit::workspace_size(pr.desc, pr.opt);
    return fill({}, status);
  });
}

int gemmkit_ledger_json(const gemmkit_problem* p, double beta, const char* request,
                        const char** json, gemmkit_status* status) {
  return guarded(status, [&] {
    if (json != nullptr) *json = "";
    Problem pr;
    if (gemmkit::Status s = valid_problem(p, &pr); !s) return fill(s, status);
    gemmkit::dispatch::LedgerReport rep;
    try {
      rep = gemmkit::dispatch::ledger_report(pr.desc, beta, parse_request(request));
    } catch (const gemmkit::dispatch::RequestError& e) {
      return fill(GEMMKIT_INVALID(gemmkit::Arg::None, e.field() + ": " + e.what()), status,
                  e.field());
    }
    g_ledger_json = rep.json.dump();
    if (json != nullptr) *json = g_ledger_json.c_str();
    return fill({}, status);
  });
}

int gemmkit_explain_json(const gemmkit_problem* p, double beta, const char** json,
                         gemmkit_status* status) {
  return guarded(status, [&] {
    if (json != nullptr) *json = "";
    Problem pr;
    if (gemmkit::Status s = to_problem(p, &pr); !s) return fill(s, status);
    const gemmkit::dispatch::ExplainReport rep =
        gemmkit::dispatch::explain_report(pr.desc, pr.opt, beta);
    g_explain_json = rep.json.dump();
    if (json != nullptr) *json = g_explain_json.c_str();
    return fill(rep.plan.status, status);
  });
}

int gemmkit_kernels_json(const char* pattern, const char** json, gemmkit_status* status) {
  return guarded(status, [&] {
    if (json != nullptr) *json = "";
    g_kernels_json = gemmkit::dispatch::kernels_json(pattern ? pattern : "all").dump();
    if (json != nullptr) *json = g_kernels_json.c_str();
    return fill({}, status);
  });
}

const char* gemmkit_last_error(void) { return g_last_error.c_str(); }

const char* gemmkit_status_string(int code) {
  if (code < 0 || code > static_cast<int>(gemmkit::StatusCode::ExecutionFailed)) return "Unknown";
  return gemmkit::status_string(static_cast<gemmkit::StatusCode>(code)).data();
}

}  // extern "C"
