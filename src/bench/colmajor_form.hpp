// A gemmkit problem restated as one column-major BLAS call, the form both baselines (CBLAS and
// cuBLASLt) take. A row-major stored matrix is the column-major transpose of itself with the
// same ld, so each operand's op flips with its layout; a row-major C/D computes
// D^T = op(B)^T op(A)^T instead, which swaps the roles of A and B.
#pragma once
#include <cstdint>
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

struct ColMajorForm {
  bool ok = false;
  std::string why;            // when !ok: what the column-major call cannot express
  bool swapped = false;       // first = B, second = A (C and D are row-major)
  bool trans_first = false;   // op of the first operand of the column-major call
  bool trans_second = false;
  std::int64_t m = 0, n = 0, k = 0;  // of the column-major call
  std::int64_t ld_first = 0, ld_second = 0, ld_c = 0, ld_d = 0;
  std::int64_t stride_first = 0, stride_second = 0;  // batch strides, elements
  DType dtype_first = DType::F32, dtype_second = DType::F32;

  // Pointers of the column-major call from gemmkit's A and B.
  const void* first(const void* a, const void* b) const { return swapped ? b : a; }
  const void* second(const void* a, const void* b) const { return swapped ? a : b; }
  // "TN", "NN", ... (op of first, op of second), BLAS style.
  std::string ops() const;
};

// Expects defaulted lds. Fails when C and D differ in layout or ld (one ldc in BLAS).
ColMajorForm colmajor_form(const GemmDesc& d);

}  // namespace gemmkit::bench
