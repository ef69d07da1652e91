// Load and store one element of any gemmkit::DType as a double. Used by the fp64 reference GEMM
// and the test fills, so these favour obvious correctness over speed.
#pragma once
#include <cstdint>

#include "gemmkit/types.hpp"

namespace gemmkit::core {

// True for the floating-point element types (F64, F32, F16, BF16, E4M3, E5M2, E2M1) and the E8M0
// scale type (a power of two, NaN-able); false for I8, I4 and I32.
inline bool is_float_type(DType t) {
  switch (t) {
    case DType::F64:
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::E4M3:
    case DType::E5M2:
    case DType::E8M0:
    case DType::E2M1:
      return true;
    case DType::I8:
    case DType::I4:
    case DType::I32:
      return false;
  }
  return false;
}

// Element `index` of the array at `base` (I4, E2M1: packed, see gemmkit/convert.hpp), exactly.
// E8M0 loads the scale value 2^(x-127) (NaN for 0xFF).
double load_element(DType t, const void* base, std::int64_t index) noexcept;

// Writes v rounded to t into element `index` (I4, E2M1: only its nibble changes).
//   F64: exact. F32, F16, BF16: round to nearest even, overflow to Inf, NaN stays NaN.
//   E4M3, E5M2: round to nearest even; `saturate` as in to_e4m3 / to_e5m2 (it is ignored for
//     every other type).
//   I8, I32, I4: round to nearest, ties to even, then clamp to the type's range; NaN stores 0.
//   E8M0: to_e8m0 (the smallest power of two >= |v|).
//   E2M1: to_e2m1 (nearest even, saturating to +-6; NaN stores 0).
void store_element(DType t, void* base, std::int64_t index, double v,
                   bool saturate = false) noexcept;

}  // namespace gemmkit::core
