// linear_backward: the two gradient GEMMs of Y = X W, expressed as transposes of the stored
// operands (no copies): dX = dY W^T and dW = X^T dY.
#include "gemmkit/training.hpp"

namespace gemmkit {

namespace {

MatrixDesc operand(const LinearDesc& d) {
  return MatrixDesc{.dtype = d.dtype, .layout = d.layout, .ld = 0, .batch_stride = 0};
}

}  // namespace

Status linear_backward(const LinearDesc& d, const void* x, const void* w, const void* dy, void* dx,
                       void* dw, const Options& opt) {
  const MatrixDesc m = operand(d);
  if (dx != nullptr) {
    // dX (M, K) = dY (M, N) * W^T, W stored (K, N).
    const GemmDesc g{.m = d.m,
                     .n = d.k,
                     .k = d.n,
                     .trans_a = Op::NoTrans,
                     .trans_b = Op::Trans,
                     .a = m,
                     .b = m,
                     .c = m,
                     .d = m,
                     .batch = 1,
                     .compute = d.dtype};
    if (Status s = gemm(g, GemmArgs{dy, w, nullptr, dx, 1.0, 0.0}, opt); !s) return s;
  }
  if (dw != nullptr) {
    // dW (K, N) = X^T * dY, X stored (M, K).
    const GemmDesc g{.m = d.k,
                     .n = d.n,
                     .k = d.m,
                     .trans_a = Op::Trans,
                     .trans_b = Op::NoTrans,
                     .a = m,
                     .b = m,
                     .c = m,
                     .d = m,
                     .batch = 1,
                     .compute = d.dtype};
    if (Status s = gemm(g, GemmArgs{x, dy, nullptr, dw, 1.0, 0.0}, opt); !s) return s;
  }
  return {};
}

}  // namespace gemmkit
