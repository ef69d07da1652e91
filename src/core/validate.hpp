// The front door's checks: one rule a line, each with its reason. Order follows netlib's
// xGEMM (transa, transb, m, n, k, lda, ldb, ldc) so the first bad argument is the one named.
#pragma once
#include "gemmkit/gemm.hpp"

namespace gemmkit::core {

// Checks what the descriptor alone decides. Expects lds already defaulted.
Status validate_desc(const GemmDesc& d);
// Checks pointers and scalars against the (valid) descriptor.
Status validate_args(const GemmDesc& d, const GemmArgs& a);

// True when the call has nothing to do: M == 0, N == 0 or batch == 0.
inline bool is_empty(const GemmDesc& d) noexcept { return d.m == 0 || d.n == 0 || d.batch == 0; }

// True when the descriptor asks for a fused epilogue: a bias, an activation, scales of A / B,
// the output's scale or its amax.
inline bool has_epilogue(const GemmDesc& d) noexcept {
  return d.epilogue.bias != BiasMode::None || d.epilogue.act != Activation::None ||
         d.scale_a.mode != ScaleMode::None || d.scale_b.mode != ScaleMode::None ||
         d.epilogue.scale_d || d.epilogue.amax_d;
}

bool is_input_dtype(DType t) noexcept;
bool is_output_dtype(DType t) noexcept;

}  // namespace gemmkit::core
