// gemmkit element conversions: host-only, bit exact, no CUDA headers, no compiler _Float16.
//
// Every encoder rounds to nearest, ties to even, directly from the double it is given (never
// through float, so there is no double rounding). Codes are returned as raw bit patterns.
//
//   format  bits  bias  max finite  min subnormal  Inf  NaN encodings
//   fp16    16    15    65504       2^-24          yes  e=31, m!=0
//   bf16    16    127   ~3.39e38    2^-133         yes  e=255, m!=0
//   e4m3    8     7     448         2^-9           no   S.1111.111 only
//   e5m2    8     15    57344       2^-16          yes  e=31, m!=0
//   e8m0    8     127   2^127       2^-127 (code 0) no  0xFF
//   e2m1    4     1     6           0.5             no  none
//
// Signs are kept, including on zero: -0.0 encodes to the sign bit alone, and a negative value
// that rounds to zero gives -0.
#pragma once
#include <cstdint>

namespace gemmkit {

// IEEE binary16. Finite values at or beyond 65520 (the tie above 65504) round to Inf.
// NaN stays NaN: the sign and the top 9 payload bits are kept, the quiet bit is set.
std::uint16_t to_f16(double x) noexcept;
float f16_to_float(std::uint16_t h) noexcept;  // exact: every fp16 value is a float

// bfloat16 (the top half of a float). Overflow gives Inf; NaN stays a quiet NaN with its sign
// and top 6 payload bits.
std::uint16_t to_bf16(double x) noexcept;
float bf16_to_float(std::uint16_t b) noexcept;  // exact

// OCP FP8 E4M3 (bias 7, no Inf; 0x7F / 0xFF are NaN; max normal 448).
//   saturate = true:  finite values whose rounded magnitude exceeds 448, and +-Inf, give +-448.
//   saturate = false: values that round beyond 448 (|x| > 464; 464 itself ties to 448) and
//                     +-Inf give NaN.
// NaN in gives 0x7F / 0xFF (the input's sign).
std::uint8_t to_e4m3(double x, bool saturate) noexcept;
float e4m3_to_float(std::uint8_t v) noexcept;  // exact

// OCP FP8 E5M2 (bias 15, IEEE-like, max normal 57344).
//   saturate = true:  values that round beyond 57344 (|x| >= 61440, the tie rounds up to even)
//                     AND +-Inf give +-57344, as the OCP saturating mode and PTX
//                     cvt.rn.satfinite do.
//   saturate = false: those values give +-Inf; +-Inf stays +-Inf.
// NaN in gives 0x7F / 0xFF (the input's sign).
std::uint8_t to_e5m2(double x, bool saturate) noexcept;
float e5m2_to_float(std::uint8_t v) noexcept;  // exact

// E8M0 scale (OCP MX): value 2^(v-127) for v in 0..254, 0xFF is NaN. Code 0 is 2^-127, which a
// float holds as a subnormal, so the decode is exact.
float e8m0_to_float(std::uint8_t v) noexcept;
// Power-of-two scale derivation: the smallest 2^e >= |x| (the exponent is rounded up, so that
// dividing by the scale never grows a value), clamped to the codes 0 (2^-127) .. 0xFE (2^127).
// The sign is ignored; 0 gives code 0; NaN and +-Inf give 0xFF.
std::uint8_t to_e8m0(double x) noexcept;

// OCP FP4 E2M1 (OCP MX v1.0, MXFP4's element; bias 1, no Inf or NaN): code S.EE.M in the low
// four bits, magnitudes 0, 0.5 (the one subnormal), 1, 1.5, 2, 3, 4, 6. Values whose rounded
// magnitude would pass 6, and +-Inf, saturate to +-6 (there is nothing else to give). NaN has no
// code: it gives +0 (quantize_fp4 carries a NaN in its group's scale instead).
std::uint8_t to_e2m1(double x) noexcept;
float e2m1_to_float(std::uint8_t v) noexcept;  // of v's low four bits; exact
// Packed e2m1, stored as int4 is (below): element i in byte i/2, the low nibble when i is even.
float e2m1_get(const void* packed, std::int64_t i) noexcept;
// Writes only element i's nibble (the low four bits of `code`); the other nibble is kept.
void e2m1_set(void* packed, std::int64_t i, std::uint8_t code) noexcept;

// Packed int4: element i lives in byte i/2, in the low nibble when i is even and the high
// nibble when i is odd; the nibble is two's complement (0x8 -> -8, 0xF -> -1).
int int4_get(const void* packed, std::int64_t i) noexcept;
// Clamps v to -8..7 and writes only element i's nibble; the other nibble of the byte is kept.
void int4_set(void* packed, std::int64_t i, int v) noexcept;

}  // namespace gemmkit
