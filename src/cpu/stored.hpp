// How the write-back stores D and reads C: as the compute type itself, or as bf16 / fp16 next
// to an f32 accumulator. Narrowing rounds to nearest, ties to even, bit for bit like
// gemmkit::to_bf16 / to_f16 (include/gemmkit/convert.hpp; tests/cpu/stored_output.cpp checks
// every bf16 / fp16 rounding boundary); widening is exact.
//   bf16: the top half of the float, rounded: (u + 0x7FFF + lsb) >> 16; overflow gives Inf;
//         NaN keeps its sign and top 6 payload bits and is made quiet (| 0x40), as to_bf16.
//   fp16: F16C's vcvtps2ph in nearest-even mode where the file is built with it (IEEE: the
//         same rounding, overflow to Inf, NaN made quiet), else to_f16 itself.
//   fp8:  to_e4m3 / to_e5m2 in their saturating mode (gemm.hpp: an fp8 D saturates), one
//         element at a time: only the scalar write-back stores fp8 (gemm_driver.hpp).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu/isa_namespace.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/types.hpp"
#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace gemmkit::cpu {

enum class Stored : std::uint8_t {
  Native,  // the compute type (f32, f64, i32)
  Bf16,
  F16,
  E4M3,
  E5M2,
};
constexpr bool is_fp8(Stored s) { return s == Stored::E4M3 || s == Stored::E5M2; }

// The storage of an output dtype (C or D) next to `compute`, or false when the write-back has
// no conversion for it (only f32 accumulators narrow).
inline bool stored_for(DType t, DType compute, Stored* out) {
  if (t == compute) return *out = Stored::Native, true;
  if (compute == DType::F32 && t == DType::BF16) return *out = Stored::Bf16, true;
  if (compute == DType::F32 && t == DType::F16) return *out = Stored::F16, true;
  if (compute == DType::F32 && t == DType::E4M3) return *out = Stored::E4M3, true;
  if (compute == DType::F32 && t == DType::E5M2) return *out = Stored::E5M2, true;
  return false;
}

inline namespace GEMMKIT_CPU_ISA {

inline std::uint16_t bf16_from_float(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

inline float float_from_bf16(std::uint16_t b) {
  const std::uint32_t u = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline std::uint16_t f16_from_float(float f) {
#if defined(__F16C__)
  return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
  return to_f16(f);
#endif
}

inline float float_from_f16(std::uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  return f16_to_float(h);
#endif
}

// Bytes of one stored element.
template <class T>
constexpr int stored_bytes(Stored s) {
  return s == Stored::Native ? int(sizeof(T)) : is_fp8(s) ? 1 : 2;
}

// Element `idx` of an output array stored as `s`, widened to T.
template <class T>
inline T load_stored(Stored s, const void* base, std::int64_t idx) {
  if constexpr (std::is_same_v<T, float>) {
    if (s == Stored::Bf16) return float_from_bf16(static_cast<const std::uint16_t*>(base)[idx]);
    if (s == Stored::F16) return float_from_f16(static_cast<const std::uint16_t*>(base)[idx]);
    if (s == Stored::E4M3) return e4m3_to_float(static_cast<const std::uint8_t*>(base)[idx]);
    if (s == Stored::E5M2) return e5m2_to_float(static_cast<const std::uint8_t*>(base)[idx]);
  }
  return static_cast<const T*>(base)[idx];
}

// Writes v into element `idx` of an output array stored as `s`, rounded to nearest even.
template <class T>
inline void store_stored(Stored s, void* base, std::int64_t idx, T v) {
  if constexpr (std::is_same_v<T, float>) {
    if (s == Stored::Bf16) {
      static_cast<std::uint16_t*>(base)[idx] = bf16_from_float(v);
      return;
    }
    if (s == Stored::F16) {
      static_cast<std::uint16_t*>(base)[idx] = f16_from_float(v);
      return;
    }
    if (is_fp8(s)) {
      static_cast<std::uint8_t*>(base)[idx] = s == Stored::E4M3 ? to_e4m3(v, true) : to_e5m2(v, true);
      return;
    }
  }
  static_cast<T*>(base)[idx] = v;
}

// A typed pointer `idx` elements past `base` in an array stored as `s`.
template <class T>
inline void* stored_at(Stored s, void* base, std::int64_t idx) {
  return static_cast<char*>(base) + idx * stored_bytes<T>(s);
}
template <class T>
inline const void* stored_at(Stored s, const void* base, std::int64_t idx) {
  return static_cast<const char*>(base) + idx * stored_bytes<T>(s);
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
