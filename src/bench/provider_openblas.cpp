// The CPU baseline: OpenBLAS through CBLAS, on the candidate's buffers, in column-major form.
// A weight-only problem (f32 A; i8 / i4 B with group scales, or fp8 / fp4 B with MX scales) is
// measured against sgemm on the same shape: B dequantized to an f32 twin (same layout and ld)
// at the first call (the harness's verification call), which every later call reuses.
#include <cblas.h>

#include <vector>

#include "bench/colmajor_form.hpp"
#include "bench/openblas_info.hpp"
#include "bench/provider.hpp"
#include "core/element.hpp"
#include "core/view.hpp"

namespace gemmkit::bench {

namespace {

class OpenBlasProvider final : public Provider {
 public:
  OpenBlasProvider(const GemmDesc& desc, double alpha, double beta, int threads)
      : desc_(with_default_lds(desc)), alpha_(alpha), beta_(beta) {
    const DType tb = desc_.b.dtype;
    const bool int_b = tb == DType::I8 || tb == DType::I4;
    const bool float_b = tb == DType::E4M3 || tb == DType::E5M2 || tb == DType::E2M1;
    const ScaleMode sb = desc_.scale_b.mode;
    weights_ = desc_.a.dtype == DType::F32 && desc_.batch == 1 &&
               desc_.scale_a.mode == ScaleMode::None &&
               ((int_b && (sb == ScaleMode::None || sb == ScaleMode::Group)) ||
                (float_b && (sb == ScaleMode::None || sb == ScaleMode::Mx)));
    quantized_ = desc_;
    if (weights_) {
      desc_.b.dtype = DType::F32;
      desc_.scale_b = {};
    }
    form_ = colmajor_form(desc_);
    const DType t = desc_.a.dtype;
    const bool same = desc_.b.dtype == t && desc_.c.dtype == t && desc_.d.dtype == t;
    if (desc_.epilogue.bias != BiasMode::None || desc_.epilogue.act != Activation::None) {
      why_ = "openblas: no bias or activation epilogue in CBLAS";
    } else if (!form_.ok) {
      why_ = "openblas: " + form_.why;
    } else if (!same || !((t == DType::F32 && desc_.compute == DType::F32) ||
                          (t == DType::F64 && desc_.compute == DType::F64))) {
      why_ = "openblas: no CBLAS routine for these dtypes (sgemm f32 and dgemm f64 only)";
    }
    set_openblas_threads(threads);
  }
  std::string provider() const override { return "openblas"; }
  std::string kernel() const override {
    if (weights_) return "cblas_sgemm (B as f32)";
    return desc_.a.dtype == DType::F64 ? "cblas_dgemm" : "cblas_sgemm";
  }
  std::string config() const override {
    return "colmajor " + form_.ops() + (form_.swapped ? " (D^T = B^T A^T)" : "");
  }
  std::string unsupported() const override { return why_; }
  bool reads_c_from_d() const override { return beta_ != 0.0; }
  Status call(const OperandSet& s, void*) override {
    if (!why_.empty()) return Status{StatusCode::NotSupported, Arg::None, why_};
    const auto ta = form_.trans_first ? CblasTrans : CblasNoTrans;
    const auto tb = form_.trans_second ? CblasTrans : CblasNoTrans;
    const bool f64 = desc_.a.dtype == DType::F64;
    const int esz = f64 ? 8 : 4;
    if (weights_) {
      if (twin_.empty()) dequantize(s);
      OperandSet t = s;
      t.b = twin_.data();
      return sgemm(t, ta, tb, esz);
    }
    return sgemm(s, ta, tb, esz);
  }

 private:
  // The f32 twin of a quantized B: (q - z) * s (or q * s) at every stored element.
  void dequantize(const OperandSet& s) {
    const GemmDesc& q = quantized_;
    const Extent e = stored_extent_b(q);
    twin_.assign(static_cast<std::size_t>(core::footprint(q.b.layout, e, q.b.ld)), 0.0f);
    const core::KScale ks = core::k_scale(q, s.scale_b, s.zero_b, false);
    const core::Strides st = core::op_strides(core::stored_strides(q.b.layout, q.b.ld), q.trans_b);
    for (std::int64_t j = 0; j < q.n; ++j)
      for (std::int64_t p = 0; p < q.k; ++p) {
        const std::int64_t idx = p * st.row + j * st.col;
        const double x = core::load_element(q.b.dtype, s.b, idx);
        twin_[static_cast<std::size_t>(idx)] =
            static_cast<float>(ks.base ? ks.dequant(x, j, p) : x);
      }
  }

  Status sgemm(const OperandSet& s, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int esz) {
    const bool f64 = desc_.a.dtype == DType::F64;
    for (std::int64_t l = 0; l < desc_.batch; ++l) {
      const auto* p = static_cast<const char*>(form_.first(s.a, s.b)) + l * form_.stride_first * esz;
      const auto* q =
          static_cast<const char*>(form_.second(s.a, s.b)) + l * form_.stride_second * esz;
      char* d = static_cast<char*>(s.d) + l * desc_.d.batch_stride * esz;
      const blasint m = static_cast<blasint>(form_.m), n = static_cast<blasint>(form_.n),
                    k = static_cast<blasint>(form_.k);
      if (f64) {
        cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha_, reinterpret_cast<const double*>(p),
                    static_cast<blasint>(form_.ld_first), reinterpret_cast<const double*>(q),
                    static_cast<blasint>(form_.ld_second), beta_, reinterpret_cast<double*>(d),
                    static_cast<blasint>(form_.ld_d));
      } else {
        cblas_sgemm(CblasColMajor, ta, tb, m, n, k, static_cast<float>(alpha_),
                    reinterpret_cast<const float*>(p), static_cast<blasint>(form_.ld_first),
                    reinterpret_cast<const float*>(q), static_cast<blasint>(form_.ld_second),
                    static_cast<float>(beta_), reinterpret_cast<float*>(d),
                    static_cast<blasint>(form_.ld_d));
      }
    }
    return {};
  }

  GemmDesc desc_, quantized_;
  bool weights_ = false;
  std::vector<float> twin_;
  double alpha_, beta_;
  ColMajorForm form_;
  std::string why_;
};

}  // namespace

std::unique_ptr<Provider> make_openblas_provider(const GemmDesc& desc, double alpha, double beta,
                                                 int threads) {
  return std::make_unique<OpenBlasProvider>(desc, alpha, beta, threads);
}

}  // namespace gemmkit::bench
