// Training helpers (tutorial section 07): the backward pass of a linear layer.
#pragma once
#include <cstdint>

#include "gemmkit/gemm.hpp"

namespace gemmkit {

// Y = X W with X (M, K), W (K, N), Y (M, N); every matrix stored with `layout`, packed
// (ld = columns for row-major, rows for column-major), all of `dtype` (f32 or f64; f32
// accumulates in f32, f64 in f64).
struct LinearDesc {
  std::int64_t m = 0, k = 0, n = 0;
  DType dtype = DType::F32;
  Layout layout = Layout::RowMajor;
};

// Given dY = dLoss/dY (M, N), computes through two gemmkit::gemm calls
//   dX = dY W^T   (M, K)      (skipped when dx == nullptr)
//   dW = X^T dY   (K, N)      (skipped when dw == nullptr)
// For Loss = 1/2 sum Y^2, dY = Y. Errors are those of gemm() for the failing product.
Status linear_backward(const LinearDesc& d, const void* x, const void* w, const void* dy, void* dx,
                       void* dw, const Options& opt = {});

}  // namespace gemmkit
