// The packing hook. Packing is where a stored element becomes a compute element: every
// conversion happens there, once per element per packed panel, and the microkernel only ever
// sees the compute type. The enum names the built-in conversions (inlined into the pack loop);
// `Custom` calls a function once per element, which is where other dequantization
// (with its scales in `ctx`) plugs in without touching the loops or the microkernels.
#pragma once
#include <cstdint>

#include "core/view.hpp"
#include "gemmkit/types.hpp"

namespace gemmkit::cpu {

enum class PackConvert : std::uint8_t {
  Copy,       // stored type == compute type
  Bf16ToF32,  // bf16 bits << 16
  F16ToF32,   // F16C where the file is built with it, else the exact software path
  I8ToI32,
  E4M3ToF32,  // OCP fp8 through a 256-entry table (exact: every fp8 value is a float)
  E5M2ToF32,
  I8ToF32,  // integer weights (weight-only): their value, dequantized by the group scale
  I4ToF32,  // two a byte, low nibble first, sign-extended (convert.hpp's int4_get)
  I4ToI32,  // the same into the integer kernels (int4 x int4 -> int32, exact)
  E2M1ToF32,  // fp4, two a byte as I4, through a 16-entry table (exact)
  Custom,   // compute = custom(ctx, row, col)
};

// An operand as the packer sees it: element (r, p) at base[r * s.row + p * s.col] (in stored
// elements), r the M (or N) index and p the K index.
template <class T>
struct PackSource {
  const void* base = nullptr;
  core::Strides s;
  PackConvert convert = PackConvert::Copy;
  T (*custom)(const void* ctx, std::int64_t r, std::int64_t p) = nullptr;
  const void* ctx = nullptr;
  // Scales that vary along K (block and group scales, with group zero points): the converted
  // element (r, p) becomes scale.dequant(x, r, p) while packing (dequantize-on-pack); base
  // null: none.
  core::KScale scale = {};
};

// The conversion for a stored dtype into compute type T, or false when there is none built in.
inline bool pack_convert_for(DType stored, DType compute, PackConvert* out) {
  if (stored == compute) return *out = PackConvert::Copy, true;
  if (compute == DType::F32 && stored == DType::BF16) return *out = PackConvert::Bf16ToF32, true;
  if (compute == DType::F32 && stored == DType::F16) return *out = PackConvert::F16ToF32, true;
  if (compute == DType::I32 && stored == DType::I8) return *out = PackConvert::I8ToI32, true;
  if (compute == DType::I32 && stored == DType::I4) return *out = PackConvert::I4ToI32, true;
  if (compute == DType::F32 && stored == DType::E4M3) return *out = PackConvert::E4M3ToF32, true;
  if (compute == DType::F32 && stored == DType::E5M2) return *out = PackConvert::E5M2ToF32, true;
  if (compute == DType::F32 && stored == DType::I8) return *out = PackConvert::I8ToF32, true;
  if (compute == DType::F32 && stored == DType::I4) return *out = PackConvert::I4ToF32, true;
  if (compute == DType::F32 && stored == DType::E2M1) return *out = PackConvert::E2M1ToF32, true;
  return false;
}

}  // namespace gemmkit::cpu
