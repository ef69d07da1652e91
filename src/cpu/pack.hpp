// Pack one block of an operand into R-wide micro-panels: (rows, KC) -> ceil(rows / R) panels,
// each (KC, R) contiguous with rows past the edge zero-filled. A uses R = MR over (M, K);
// B uses R = NR over the transposed view (N, K). Every conversion happens here (pack_source.hpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu/isa_namespace.hpp"
#include "cpu/pack_source.hpp"
#include "cpu/pack_transpose.hpp"
#include "gemmkit/convert.hpp"
#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

// The 256 values of an fp8 format as floats (built once from convert.hpp's exact decoders).
template <bool E5M2>
inline const float* fp8_values() {
  static const auto table = [] {
    struct {
      float v[256];
    } t;
    for (int c = 0; c < 256; ++c)
      t.v[c] = E5M2 ? e5m2_to_float(std::uint8_t(c)) : e4m3_to_float(std::uint8_t(c));
    return t;
  }();
  return table.v;
}

// The 16 values of e2m1 (fp4): code S.EE.M, as convert.hpp's e2m1_to_float.
inline constexpr float kE2m1Values[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                          -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

template <class T, PackConvert C>
inline T load_converted(const PackSource<T>& src, std::int64_t r, std::int64_t p) {
  const std::int64_t idx = r * src.s.row + p * src.s.col;
  if constexpr (C == PackConvert::E2M1ToF32) {
    const std::uint8_t byte = static_cast<const std::uint8_t*>(src.base)[idx / 2];
    return static_cast<T>(kE2m1Values[idx % 2 == 0 ? byte & 0xF : byte >> 4]);
  } else if constexpr (C == PackConvert::E4M3ToF32 || C == PackConvert::E5M2ToF32) {
    return fp8_values<C == PackConvert::E5M2ToF32>()[static_cast<const std::uint8_t*>(
        src.base)[idx]];
  } else if constexpr (C == PackConvert::I8ToF32) {
    return static_cast<T>(static_cast<const std::int8_t*>(src.base)[idx]);
  } else if constexpr (C == PackConvert::I4ToF32 || C == PackConvert::I4ToI32) {
    return static_cast<T>(int4_get(src.base, idx));
  } else if constexpr (C == PackConvert::Copy) {
    return static_cast<const T*>(src.base)[idx];
  } else if constexpr (C == PackConvert::Bf16ToF32) {
    const std::uint32_t bits = std::uint32_t(static_cast<const std::uint16_t*>(src.base)[idx])
                               << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  } else if constexpr (C == PackConvert::F16ToF32) {
    const std::uint16_t h = static_cast<const std::uint16_t*>(src.base)[idx];
#if defined(__F16C__)
    return _cvtsh_ss(h);
#else
    return f16_to_float(h);
#endif
  } else if constexpr (C == PackConvert::I8ToI32) {
    return static_cast<T>(static_cast<const std::int8_t*>(src.base)[idx]);
  } else {
    return src.custom(src.ctx, r, p);
  }
}

// The converted element times its block scale when the source has one (Scaled).
template <class T, PackConvert C, bool Scaled>
inline T load_packed(const PackSource<T>& src, std::int64_t r, std::int64_t p) {
  if constexpr (Scaled)
    return static_cast<T>(src.scale.dequant(load_converted<T, C>(src, r, p), r, p));
  else
    return load_converted<T, C>(src, r, p);
}

template <int R, class T, PackConvert C, bool Scaled = false>
void pack_panels_as(const PackSource<T>& src, std::int64_t r0, std::int64_t rows, std::int64_t p0,
                    std::int64_t kc, T* dst) {
  // Walk the stored operand along its unit stride: rows when s.row == 1, K otherwise.
  const bool rows_contiguous = src.s.row == 1;
  if constexpr (C == PackConvert::Copy && !Scaled && kHasTransposePack<R, T>) {
    if (!rows_contiguous && src.s.col == 1)
      return pack_transpose_panels<R, T>(static_cast<const T*>(src.base) + r0 * src.s.row + p0,
                                         src.s.row, rows, kc, dst);
  }
  std::int64_t rp = 0;
  if (rows_contiguous && C == PackConvert::Copy && !Scaled) {
    // Whole panels of a unit-stride source, up to kGroup at a time, K step by K step: one
    // fixed-size copy per panel and K step, so that each K step's line of the source is read
    // as one run of kGroup * R values (a panel at a time, 4096 x 64 x 4096's streamed B panels
    // read one cache line per K step, a leading dimension apart, each a miss to DRAM).
    constexpr std::int64_t kGroup = 8;
    for (const std::int64_t full = rows / R * R; rp < full;) {
      const std::int64_t g = std::min(kGroup, (full - rp) / R);
      const T* in = static_cast<const T*>(src.base) + (r0 + rp) + p0 * src.s.col;
      T* out = dst + rp * kc;
      // Whether another whole group follows in this block: its run of each K step is then
      // fetched into L2 (prefetcht1), all of its lines, while this group's is copied. The
      // next call's panels are not: a streaming driver fetches the panels it packs next
      // between its tiles (pack_ahead.hpp), and in a team the panels after these ones are
      // often another thread's (docs/PERF.md, 4096 x 64 x 4096 on AVX2).
      const bool next_group = rp + g * R < full;
      for (std::int64_t p = 0; p < kc; ++p) {
        const char* next = reinterpret_cast<const char*>(in + p * src.s.col + g * R);
        if (next_group)
          for (std::int64_t b = 0; b < std::int64_t(sizeof(T)) * g * R; b += 64)
            __builtin_prefetch(next + b, 0, 2);
        for (std::int64_t q = 0; q < g; ++q)
          std::memcpy(out + q * R * kc + p * R, in + p * src.s.col + q * R, sizeof(T) * R);
      }
      rp += g * R;
    }
  }
  for (dst += rp * kc; rp < rows; rp += R, dst += R * kc) {
    const std::int64_t n = std::min<std::int64_t>(R, rows - rp);
    if (rows_contiguous) {
      for (std::int64_t p = 0; p < kc; ++p) {
        T* out = dst + p * R;
        for (std::int64_t i = 0; i < n; ++i)
          out[i] = load_packed<T, C, Scaled>(src, r0 + rp + i, p0 + p);
        for (std::int64_t i = n; i < R; ++i) out[i] = T(0);
      }
    } else {
      // A transpose: blocks of 16 K steps keep the R source lines in L1 while the panel is
      // written in order (writing whole R-rows of the panel per source line thrashes L1).
      constexpr std::int64_t kStep = 16;
      for (std::int64_t pb = 0; pb < kc; pb += kStep) {
        const std::int64_t pe = std::min(kc, pb + kStep);
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t p = pb; p < pe; ++p)
            dst[p * R + i] = load_packed<T, C, Scaled>(src, r0 + rp + i, p0 + p);
      }
      if (n < R)
        for (std::int64_t p = 0; p < kc; ++p)
          for (std::int64_t i = n; i < R; ++i) dst[p * R + i] = T(0);
    }
  }
}

// The packing routine with its hook: the conversion is picked once per block, not per element.
template <int R, class T>
void pack_panels(const PackSource<T>& src, std::int64_t r0, std::int64_t rows, std::int64_t p0,
                 std::int64_t kc, T* dst) {
  if constexpr (std::is_floating_point_v<T>) {
    if (src.scale.base != nullptr) {  // dequantize with block scales: one loop per conversion
      switch (src.convert) {
        case PackConvert::E4M3ToF32:
          return pack_panels_as<R, T, PackConvert::E4M3ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::E5M2ToF32:
          return pack_panels_as<R, T, PackConvert::E5M2ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::I8ToF32:
          return pack_panels_as<R, T, PackConvert::I8ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::I4ToF32:
          return pack_panels_as<R, T, PackConvert::I4ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::E2M1ToF32:
          return pack_panels_as<R, T, PackConvert::E2M1ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::Bf16ToF32:
          return pack_panels_as<R, T, PackConvert::Bf16ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::F16ToF32:
          return pack_panels_as<R, T, PackConvert::F16ToF32, true>(src, r0, rows, p0, kc, dst);
        case PackConvert::Copy:
          return pack_panels_as<R, T, PackConvert::Copy, true>(src, r0, rows, p0, kc, dst);
        default:
          return pack_panels_as<R, T, PackConvert::Custom, true>(src, r0, rows, p0, kc, dst);
      }
    }
  }
  switch (src.convert) {
    case PackConvert::Copy:
      return pack_panels_as<R, T, PackConvert::Copy>(src, r0, rows, p0, kc, dst);
    case PackConvert::Bf16ToF32:
      return pack_panels_as<R, T, PackConvert::Bf16ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::F16ToF32:
      return pack_panels_as<R, T, PackConvert::F16ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::I8ToI32:
      return pack_panels_as<R, T, PackConvert::I8ToI32>(src, r0, rows, p0, kc, dst);
    case PackConvert::E4M3ToF32:
      return pack_panels_as<R, T, PackConvert::E4M3ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::E5M2ToF32:
      return pack_panels_as<R, T, PackConvert::E5M2ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::I8ToF32:
      return pack_panels_as<R, T, PackConvert::I8ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::I4ToF32:
      return pack_panels_as<R, T, PackConvert::I4ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::I4ToI32:
      return pack_panels_as<R, T, PackConvert::I4ToI32>(src, r0, rows, p0, kc, dst);
    case PackConvert::E2M1ToF32:
      return pack_panels_as<R, T, PackConvert::E2M1ToF32>(src, r0, rows, p0, kc, dst);
    case PackConvert::Custom:
      return pack_panels_as<R, T, PackConvert::Custom>(src, r0, rows, p0, kc, dst);
  }
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

// The pack of kernels that multiply two K steps at once (vpdpwssd: i16 x i16 pairs summed into
// i32): (rows, KC) -> ceil(rows / R) panels of (ceil(KC / 2), R) 32-bit words, word (s, i)
// holding element (i, 2s) in its low and (i, 2s + 1) in its high 16 bits, as i16. Rows past
// the edge and the K step past an odd KC are zero. The values must fit i16 (i8 sources do).
template <int R>
void pack_pairs(const PackSource<std::int32_t>& src, std::int64_t r0, std::int64_t rows,
                std::int64_t p0, std::int64_t kc, std::int32_t* dst) {
  auto as = [&]<PackConvert C>() {
    const std::int64_t kw = (kc + 1) / 2;
    for (std::int64_t rp = 0; rp < rows; rp += R, dst += R * kw) {
      const std::int64_t n = std::min<std::int64_t>(R, rows - rp);
      for (std::int64_t s = 0; s < kw; ++s) {
        const std::int64_t p = p0 + 2 * s;
        const bool odd_tail = 2 * s + 1 == kc;
        for (std::int64_t i = 0; i < R; ++i) {
          std::uint32_t lo = 0, hi = 0;
          if (i < n) {
            lo = std::uint16_t(std::int16_t(load_converted<std::int32_t, C>(src, r0 + rp + i, p)));
            if (!odd_tail)
              hi = std::uint16_t(
                  std::int16_t(load_converted<std::int32_t, C>(src, r0 + rp + i, p + 1)));
          }
          dst[s * R + i] = std::int32_t(lo | hi << 16);
        }
      }
    }
  };
  switch (src.convert) {
    case PackConvert::I8ToI32:
      return as.template operator()<PackConvert::I8ToI32>();
    case PackConvert::I4ToI32:
      return as.template operator()<PackConvert::I4ToI32>();
    case PackConvert::Copy:
      return as.template operator()<PackConvert::Copy>();
    default:
      return as.template operator()<PackConvert::Custom>();
  }
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
