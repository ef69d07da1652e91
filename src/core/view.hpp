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

// True for the block scale modes (ScaleMode::Block1x128, Block128x128).
constexpr bool is_block_scale(ScaleMode m) noexcept {
  return m == ScaleMode::Block1x128 || m == ScaleMode::Block128x128;
}
// True for the scale modes that vary along K (block and group scales): they scale each element
// before the product, where the others scale the product.
constexpr bool varies_along_k(ScaleMode m) noexcept {
  return is_block_scale(m) || m == ScaleMode::Group || m == ScaleMode::Mx;
}

// Where a scale that varies along K lives: for A, s(i, p) = S[(i >> rshift) * s.row + (p >>
// kshift) * s.col]; for B the same with r = j (op(B) seen transposed: s swapped). rshift 7 is the
// block of 128, 0 one scale per row / column; kshift 7 the block of 128, log2(group) for Group,
// 5 for Mx. S holds `dtype` (f32; f16 / bf16 for Group; e8m0 for Mx); Z (zero points, Group
// only) is laid out as S.
// The dequantized element is (x - z) * s.
static_assert(kScaleBlock == 128 && kMxBlock == 32, "KScale's shifts of 7 and 5");
struct KScale {
  const void* base = nullptr;
  Strides s;
  int rshift = 0, kshift = 7;
  DType dtype = DType::F32;
  const void* zero = nullptr;
  std::int64_t index(std::int64_t r, std::int64_t p) const noexcept {
    return (r >> rshift) * s.row + (p >> kshift) * s.col;
  }
  float load(const void* p, std::int64_t idx) const noexcept;  // S's or Z's dtype
  float at(std::int64_t r, std::int64_t p) const noexcept {
    const std::int64_t i = index(r, p);
    return dtype == DType::F32 ? static_cast<const float*>(base)[i] : load(base, i);
  }
  float zero_at(std::int64_t r, std::int64_t p) const noexcept {
    return zero ? load(zero, index(r, p)) : 0.0f;
  }
  double dequant(double x, std::int64_t r, std::int64_t p) const noexcept {
    return zero ? (x - zero_at(r, p)) * at(r, p) : x * at(r, p);
  }
};
// The K-varying scale of A (is_a) or of op(B)^T (element (j, p)) of a descriptor with defaulted
// lds; base null when that operand has none.
KScale k_scale(const GemmDesc& d, const void* p, const void* zero, bool is_a) noexcept;

// Requires lds already defaulted (with_default_lds).
ProblemView make_view(const GemmDesc& d) noexcept;

// `d` with packed batches when d.batch > 1: each operand's batch stride is one matrix's
// footprint (lds defaulted for the computation, left as given in the result).
GemmDesc with_packed_batch_strides(GemmDesc d) noexcept;

}  // namespace gemmkit::core
