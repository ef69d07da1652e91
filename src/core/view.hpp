// Element-stride views of the operands of a GemmDesc: op(A)(i, p) lives at
// a + i * a_row + p * a_col, whatever the layout and transpose. 64-bit throughout.
#pragma once
#include <cstdint>

#include "gemmkit/gemm.hpp"

namespace gemmkit::core {

struct Strides {
  std::int64_t row = 0;  // step between consecutive rows of the logical matrix
  std::int64_t col = 0;  // step between consecutive columns
};

// Strides of a stored matrix with the given layout and leading dimension.
constexpr Strides stored_strides(Layout l, std::int64_t ld) noexcept {
  return l == Layout::ColMajor ? Strides{1, ld} : Strides{ld, 1};
}

// Strides of op(X) given the stored strides and the transpose flag.
constexpr Strides op_strides(Strides s, Op op) noexcept {
  return op == Op::NoTrans ? s : Strides{s.col, s.row};
}

struct ProblemView {
  Strides a, b, c, d;  // of op(A) (M x K), op(B) (K x N), C and D (M x N)
};

// max(1, rows) for column-major, max(1, cols) for row-major.
std::int64_t min_ld(Layout l, Extent e) noexcept;

// Footprint in elements of one stored matrix (0 when it has no element).
constexpr std::int64_t footprint(Layout l, Extent e, std::int64_t ld) noexcept {
  if (e.rows == 0 || e.cols == 0) return 0;
  return l == Layout::ColMajor ? (e.cols - 1) * ld + e.rows : (e.rows - 1) * ld + e.cols;
}

// Requires lds already defaulted (with_default_lds).
ProblemView make_view(const GemmDesc& d) noexcept;

// `d` with packed batches when d.batch > 1: each operand's batch stride is one matrix's
// footprint (lds defaulted for the computation, left as given in the result).
GemmDesc with_packed_batch_strides(GemmDesc d) noexcept;

}  // namespace gemmkit::core
