// The C ABI: CBLAS-shaped sgemm/dgemm. No exception crosses it.
#include <string>

#include "core/validate.hpp"
#include "gemmkit/gemm.hpp"
#include "gemmkit/gemmkit.h"

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
int gemm_c(gemmkit::DType t, int layout, int transa, int transb, int64_t m, int64_t n,
           int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
           int64_t ldc) noexcept {
  try {
    using namespace gemmkit;
    const Layout l = layout == GEMMKIT_ROW_MAJOR   ? Layout::RowMajor
                     : layout == GEMMKIT_COL_MAJOR ? Layout::ColMajor
                                                   : static_cast<Layout>(0xFF);
    GemmDesc d{.m = m, .n = n, .k = k, .trans_a = to_op(transa), .trans_b = to_op(transb),
               .a = {t, l, lda, 0}, .b = {t, l, ldb, 0}, .c = {t, l, ldc, 0},
               .d = {t, l, ldc, 0}, .batch = 1,
               .compute = t == DType::F64 ? DType::F64 : DType::F32};
    // BLAS has no "packed" default: ld = 0 is illegal here, so validate before defaults.
    if (Status s = core::validate_desc(d); !s) return report(s);
    return report(gemm(d, GemmArgs{a, b, c, c, static_cast<double>(alpha),
                                   static_cast<double>(beta)},
                       Options{}));
  } catch (...) {
    g_last_error = "unexpected exception";
    return -static_cast<int>(gemmkit::StatusCode::ExecutionFailed);
  }
}

}  // namespace

extern "C" {

int gemmkit_sgemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                  float beta, float* c, int64_t ldc) {
  return gemm_c(gemmkit::DType::F32, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                beta, c, ldc);
}

int gemmkit_dgemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  double alpha, const double* a, int64_t lda, const double* b, int64_t ldb,
                  double beta, double* c, int64_t ldc) {
  return gemm_c(gemmkit::DType::F64, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                beta, c, ldc);
}

const char* gemmkit_last_error(void) { return g_last_error.c_str(); }

const char* gemmkit_status_string(int code) {
  if (code < 0 || code > static_cast<int>(gemmkit::StatusCode::ExecutionFailed)) return "Unknown";
  return gemmkit::status_string(static_cast<gemmkit::StatusCode>(code)).data();
}

}  // extern "C"
