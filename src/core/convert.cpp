// Bit-level conversions between double/float and the narrow formats of gemmkit/convert.hpp.
//
// Encoding is one generic routine, round_magnitude(), shared by fp16, bf16, e4m3, e5m2 and e2m1: it
// rounds |x| (taken apart into an integer significand and an exponent) to the format's grid with
// round-to-nearest-even and returns the magnitude code with an unbounded exponent field. Each
// format then only decides what overflow, Inf and NaN become.
#include "gemmkit/convert.hpp"

#include <bit>
#include <cstring>

namespace gemmkit {
namespace {

std::uint64_t double_bits(double x) noexcept {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float float_from_bits(std::uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

constexpr std::uint64_t kDoubleMantMask = (std::uint64_t{1} << 52) - 1;

bool double_is_nan(std::uint64_t u) noexcept {
  return ((u >> 52) & 0x7FF) == 0x7FF && (u & kDoubleMantMask) != 0;
}
bool double_is_inf(std::uint64_t u) noexcept {
  return ((u >> 52) & 0x7FF) == 0x7FF && (u & kDoubleMantMask) == 0;
}

// Magnitude code of a finite |x| (u = bits of x, sign ignored) in a format with `mbits` mantissa
// bits and exponent bias `bias`, rounded to nearest even, subnormals included. The exponent field
// is not bounded above: a result > the format's largest finite code means overflow (the code
// just past it is the "next binade" value, so ties at the top round correctly).
std::int64_t round_magnitude(std::uint64_t u, int mbits, int bias) noexcept {
  const int dexp = static_cast<int>((u >> 52) & 0x7FF);
  std::uint64_t sig = u & kDoubleMantMask;
  if (dexp == 0 && sig == 0) return 0;
  if (dexp != 0) sig |= std::uint64_t{1} << 52;
  // |x| = sig * 2^lsb, with the leading one of sig at 2^ux.
  const int lsb = (dexp == 0 ? 1 : dexp) - 1075;
  const int ux = lsb + static_cast<int>(std::bit_width(sig)) - 1;
  const int emin = 1 - bias;            // exponent of the smallest normal
  const int e = ux > emin ? ux : emin;  // binade the result is quantised in
  const int q = e - mbits;              // exponent of one unit in the last place
  const int shift = q - lsb;            // sig / 2^shift = |x| in units of 2^q
  std::uint64_t n;                      // |x| / 2^q rounded, in [0, 2^(mbits+1)]
  if (shift <= 0) {
    n = sig << -shift;  // exact; -shift <= mbits
  } else if (shift > 54) {
    n = 0;  // sig < 2^53 < half of 2^shift
  } else {
    n = sig >> shift;
    const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (n & 1) != 0)) ++n;
  }
  // Biased exponent e + bias >= 1; the leading one of n (when normal) adds the last 1, and a
  // subnormal (n < 2^mbits) lands in exponent field 0; a carry to 2^(mbits+1) moves up a binade.
  return (static_cast<std::int64_t>(e + bias - 1) << mbits) + static_cast<std::int64_t>(n);
}

// Float bits of the finite magnitude with exponent field `ef` and mantissa `m` (mbits wide) of a
// format with bias `bias`. Every such value of the formats here is exactly a float.
std::uint32_t float_bits_of(std::uint32_t ef, std::uint32_t m, int mbits, int bias) noexcept {
  if (ef == 0) {
    if (m == 0) return 0;
    // Subnormal: m * 2^(1 - bias - mbits). Put its leading one (bit k) at the float's hidden bit.
    const int k = static_cast<int>(std::bit_width(m)) - 1;
    const int fexp = k + 1 - bias - mbits + 127;  // > 0 for every format here except e8m0
    const std::uint32_t frac = (m - (std::uint32_t{1} << k)) << (23 - k);
    return (static_cast<std::uint32_t>(fexp) << 23) | frac;
  }
  const int fexp = static_cast<int>(ef) - bias + 127;
  return (static_cast<std::uint32_t>(fexp) << 23) | (m << (23 - mbits));
}

// Shared decoder for the formats with Inf (fp16, e5m2): e all ones is Inf (m == 0) or NaN.
float decode_ieee_like(std::uint32_t code, int ebits, int mbits, int bias) noexcept {
  const std::uint32_t sign = (code >> (ebits + mbits)) & 1;
  const std::uint32_t ef = (code >> mbits) & ((1u << ebits) - 1);
  const std::uint32_t m = code & ((1u << mbits) - 1);
  std::uint32_t bits;
  if (ef == (1u << ebits) - 1) {
    bits = m == 0 ? 0x7F800000u : 0x7FC00000u | (m << (23 - mbits));  // Inf / quiet NaN
  } else {
    bits = float_bits_of(ef, m, mbits, bias);
  }
  return float_from_bits(bits | (sign << 31));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// fp16

std::uint16_t to_f16(double x) noexcept {
  const std::uint64_t u = double_bits(x);
  const auto sign = static_cast<std::uint16_t>((u >> 48) & 0x8000);
  if (double_is_nan(u)) {
    return static_cast<std::uint16_t>(sign | 0x7E00 | ((u >> 42) & 0x3FF));
  }
  if (double_is_inf(u)) return sign | 0x7C00;
  const std::int64_t c = round_magnitude(u, 10, 15);
  if (c >= 0x7C00) return sign | 0x7C00;
  return static_cast<std::uint16_t>(sign | c);
}

float f16_to_float(std::uint16_t h) noexcept { return decode_ieee_like(h, 5, 10, 15); }

// ---------------------------------------------------------------------------------------------
// bf16

std::uint16_t to_bf16(double x) noexcept {
  const std::uint64_t u = double_bits(x);
  const auto sign = static_cast<std::uint16_t>((u >> 48) & 0x8000);
  if (double_is_nan(u)) {
    return static_cast<std::uint16_t>(sign | 0x7FC0 | ((u >> 45) & 0x7F));
  }
  if (double_is_inf(u)) return sign | 0x7F80;
  const std::int64_t c = round_magnitude(u, 7, 127);
  if (c >= 0x7F80) return sign | 0x7F80;
  return static_cast<std::uint16_t>(sign | c);
}

float bf16_to_float(std::uint16_t b) noexcept {
  return float_from_bits(static_cast<std::uint32_t>(b) << 16);
}

// ---------------------------------------------------------------------------------------------
// fp8

std::uint8_t to_e4m3(double x, bool saturate) noexcept {
  const std::uint64_t u = double_bits(x);
  const auto sign = static_cast<std::uint8_t>((u >> 56) & 0x80);
  constexpr std::uint8_t kMax = 0x7E, kNaN = 0x7F;  // S.1111.110 = 448, S.1111.111 = NaN
  if (double_is_nan(u)) return sign | kNaN;
  if (double_is_inf(u)) return sign | (saturate ? kMax : kNaN);
  const std::int64_t c = round_magnitude(u, 3, 7);
  if (c > kMax) return sign | (saturate ? kMax : kNaN);
  return static_cast<std::uint8_t>(sign | c);
}

float e4m3_to_float(std::uint8_t v) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(v >> 7) << 31;
  const std::uint32_t mag = v & 0x7F;
  if (mag == 0x7F) return float_from_bits(sign | 0x7FC00000u);
  return float_from_bits(sign | float_bits_of(mag >> 3, mag & 7, 3, 7));
}

std::uint8_t to_e5m2(double x, bool saturate) noexcept {
  const std::uint64_t u = double_bits(x);
  const auto sign = static_cast<std::uint8_t>((u >> 56) & 0x80);
  constexpr std::uint8_t kMax = 0x7B, kInf = 0x7C, kNaN = 0x7F;  // 57344, Inf, NaN
  if (double_is_nan(u)) return sign | kNaN;
  if (double_is_inf(u)) return sign | (saturate ? kMax : kInf);
  const std::int64_t c = round_magnitude(u, 2, 15);
  if (c > kMax) return sign | (saturate ? kMax : kInf);
  return static_cast<std::uint8_t>(sign | c);
}

float e5m2_to_float(std::uint8_t v) noexcept { return decode_ieee_like(v, 5, 2, 15); }

// ---------------------------------------------------------------------------------------------
// e8m0

float e8m0_to_float(std::uint8_t v) noexcept {
  if (v == 0xFF) return float_from_bits(0x7FC00000u);
  if (v == 0) return float_from_bits(0x00400000u);  // 2^-127: a float subnormal
  return float_from_bits(static_cast<std::uint32_t>(v) << 23);
}

std::uint8_t to_e8m0(double x) noexcept {
  const std::uint64_t u = double_bits(x);
  if (double_is_nan(u) || double_is_inf(u)) return 0xFF;
  const int dexp = static_cast<int>((u >> 52) & 0x7FF);
  if (dexp == 0) return 0;  // zero or a double subnormal, far below 2^-127
  // |x| = 1.m * 2^(dexp-1023); round the exponent up unless |x| is a power of two.
  int e = dexp - 1023 + ((u & kDoubleMantMask) != 0 ? 1 : 0);
  if (e < -127) e = -127;
  if (e > 127) e = 127;
  return static_cast<std::uint8_t>(e + 127);
}

// ---------------------------------------------------------------------------------------------
// e2m1 (fp4): one mantissa bit, bias 1, every code finite; packed two a byte as int4

std::uint8_t to_e2m1(double x) noexcept {
  const std::uint64_t u = double_bits(x);
  if (double_is_nan(u)) return 0;
  const auto sign = static_cast<std::uint8_t>((u >> 60) & 0x8);
  constexpr std::int64_t kMax = 0x7;  // 6
  if (double_is_inf(u)) return sign | kMax;
  const std::int64_t c = round_magnitude(u, 1, 1);
  return static_cast<std::uint8_t>(sign | (c > kMax ? kMax : c));
}

float e2m1_to_float(std::uint8_t v) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(v >> 3 & 1) << 31;
  return float_from_bits(sign | float_bits_of(v >> 1 & 3, v & 1, 1, 1));
}

float e2m1_get(const void* packed, std::int64_t i) noexcept {
  const auto byte = static_cast<const std::uint8_t*>(packed)[i / 2];
  return e2m1_to_float(static_cast<std::uint8_t>(i % 2 == 0 ? byte & 0xF : byte >> 4));
}

void e2m1_set(void* packed, std::int64_t i, std::uint8_t code) noexcept {
  auto* p = static_cast<std::uint8_t*>(packed) + i / 2;
  const auto nib = static_cast<std::uint8_t>(code & 0xF);
  *p = static_cast<std::uint8_t>(i % 2 == 0 ? (*p & 0xF0) | nib : (*p & 0x0F) | (nib << 4));
}

// ---------------------------------------------------------------------------------------------
// int4

int int4_get(const void* packed, std::int64_t i) noexcept {
  const auto byte = static_cast<const std::uint8_t*>(packed)[i / 2];
  const int nib = (i % 2 == 0) ? (byte & 0xF) : (byte >> 4);
  return (nib ^ 8) - 8;  // sign-extend the 4-bit two's complement value
}

void int4_set(void* packed, std::int64_t i, int v) noexcept {
  if (v < -8) v = -8;
  if (v > 7) v = 7;
  auto* p = static_cast<std::uint8_t*>(packed) + i / 2;
  const auto nib = static_cast<std::uint8_t>(v & 0xF);
  if (i % 2 == 0) {
    *p = static_cast<std::uint8_t>((*p & 0xF0) | nib);
  } else {
    *p = static_cast<std::uint8_t>((*p & 0x0F) | (nib << 4));
  }
}

}  // namespace gemmkit
