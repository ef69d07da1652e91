// Exhaustive and oracle tests of gemmkit/convert.hpp and core/element.hpp.
//
// Oracles, each independent of the library's bit manipulation:
//   * formula_value(): sign * 2^(e-bias) * (1 + m/2^M) (subnormals, specials) with std::ldexp;
//   * brute_force_rne(): scans every code of a format for the neighbours of x and picks by an
//     exact midpoint comparison (ties to the even code); no assumption about code order;
//   * the compiler's _Float16 conversion, where the compiler has one (fp16 only).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/element.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/types.hpp"

namespace gemmkit {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// Format table

struct Format {
  const char* name;
  int ebits, mbits, bias;
  bool has_inf;       // IEEE-like (e all ones: Inf / NaN); false: e4m3 (only S.1111.111 NaN)
  bool has_saturate;  // the encoder takes a saturate flag
  std::function<std::uint32_t(double, bool)> encode;
  std::function<float(std::uint32_t)> decode;

  int bits() const { return 1 + ebits + mbits; }
  std::uint32_t sign_bit() const { return 1u << (ebits + mbits); }
  std::uint32_t codes() const { return 1u << bits(); }
  // Largest finite magnitude code.
  std::uint32_t max_code() const {
    return has_inf ? (((1u << ebits) - 2) << mbits) | ((1u << mbits) - 1)
                   : (((1u << ebits) - 1) << mbits) | ((1u << mbits) - 2);
  }
  // Magnitude code of the result of an overflow.
  std::uint32_t overflow_code(bool saturate) const {
    if (saturate && has_saturate) return max_code();
    return has_inf ? ((1u << ebits) - 1) << mbits : max_code() + 1;  // Inf / NaN
  }
  bool is_nan_code(std::uint32_t c) const {
    const std::uint32_t mag = c & (sign_bit() - 1);
    const std::uint32_t e = mag >> mbits, m = mag & ((1u << mbits) - 1);
    if (has_inf) return e == (1u << ebits) - 1 && m != 0;
    return e == (1u << ebits) - 1 && m == (1u << mbits) - 1;
  }
};

const std::vector<Format>& formats() {
  static const std::vector<Format> kFormats = {
      {"f16", 5, 10, 15, true, false, [](double x, bool) -> std::uint32_t { return to_f16(x); },
       [](std::uint32_t c) { return f16_to_float(static_cast<std::uint16_t>(c)); }},
      {"bf16", 8, 7, 127, true, false, [](double x, bool) -> std::uint32_t { return to_bf16(x); },
       [](std::uint32_t c) { return bf16_to_float(static_cast<std::uint16_t>(c)); }},
      {"e4m3", 4, 3, 7, false, true,
       [](double x, bool s) -> std::uint32_t { return to_e4m3(x, s); },
       [](std::uint32_t c) { return e4m3_to_float(static_cast<std::uint8_t>(c)); }},
      {"e5m2", 5, 2, 15, true, true,
       [](double x, bool s) -> std::uint32_t { return to_e5m2(x, s); },
       [](std::uint32_t c) { return e5m2_to_float(static_cast<std::uint8_t>(c)); }},
  };
  return kFormats;
}

const Format& format(const std::string& name) {
  for (const auto& f : formats())
    if (name == f.name) return f;
  std::abort();
}

// Value of a magnitude code by the textbook formula, specials ignored: code max_code()+1 is
// the "next binade" value used as the overflow threshold.
double formula_magnitude(const Format& f, std::uint32_t mag) {
  const int e = static_cast<int>(mag >> f.mbits);
  const double m = static_cast<double>(mag & ((1u << f.mbits) - 1));
  if (e == 0) return std::ldexp(m / std::ldexp(1.0, f.mbits), 1 - f.bias);
  return std::ldexp(1.0 + m / std::ldexp(1.0, f.mbits), e - f.bias);
}

// Full decode by formula, specials included.
double formula_value(const Format& f, std::uint32_t code) {
  const double sign = (code & f.sign_bit()) ? -1.0 : 1.0;
  if (f.is_nan_code(code)) return kNaN;
  const std::uint32_t mag = code & (f.sign_bit() - 1);
  if (f.has_inf && (mag >> f.mbits) == (1u << f.ebits) - 1) return sign * kInf;
  return sign * formula_magnitude(f, mag);
}

// Brute-force round-to-nearest-even of a finite or infinite x over all finite codes plus the
// overflow threshold code (`values` = formula_magnitude of codes 0 .. max_code()+1). Returns the
// expected code, sign included. NaN inputs are tested separately.
std::uint32_t brute_force_rne(const Format& f, const std::vector<double>& values, double x,
                              bool saturate) {
  const std::uint32_t sign = std::signbit(x) ? f.sign_bit() : 0;
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return sign | f.overflow_code(saturate);
  // Neighbours of ax among all the codes, by scanning every one of them.
  const std::uint32_t top = f.max_code() + 1;
  bool have_lo = false, have_hi = false;
  std::uint32_t lo = 0, hi = 0;
  double vlo = 0, vhi = 0;
  for (std::uint32_t c = 0; c <= top; ++c) {
    const double v = values[c];
    if (v <= ax && (!have_lo || v > vlo)) have_lo = true, lo = c, vlo = v;
    if (v >= ax && (!have_hi || v < vhi)) have_hi = true, hi = c, vhi = v;
  }
  std::uint32_t pick;
  if (!have_hi) {
    pick = top;  // beyond the threshold value: overflow
  } else if (vlo == ax) {
    pick = lo;
  } else {
    const double mid = (vlo + vhi) / 2;  // exact: both have at most mbits+1 significant bits
    pick = ax < mid ? lo : ax > mid ? hi : ((lo & 1) == 0 ? lo : hi);
  }
  if (pick == top) return sign | f.overflow_code(saturate);
  return sign | pick;
}

bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// Fixed by default so that CI is reproducible; GEMMKIT_TEST_SEED overrides. Printed once.
std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const char* s = std::getenv("GEMMKIT_TEST_SEED");
    const std::uint64_t v = s ? std::strtoull(s, nullptr, 0) : 0x5eed2024u;
    std::cout << "[dtypes] seed = " << v << " (set GEMMKIT_TEST_SEED to change)\n";
    return v;
  }();
  return seed;
}

// ---------------------------------------------------------------------------------------------
// Exhaustive decode and round trip, all codes of every 8/16-bit format

class FormatTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FormatTest, DecodeEveryCodeMatchesFormula) {
  const Format& f = format(GetParam());
  int nans = 0;
  for (std::uint32_t c = 0; c < f.codes(); ++c) {
    const float got = f.decode(c);
    const double want = formula_value(f, c);
    ASSERT_TRUE(same_float(got, static_cast<float>(want)))
        << f.name << " code 0x" << std::hex << c << ": got " << got << " want " << want;
    if (!std::isnan(want)) {
      ASSERT_EQ(static_cast<double>(got), want) << f.name << " code 0x" << std::hex << c;
    } else {
      ++nans;
      ASSERT_EQ(std::signbit(got), (c & f.sign_bit()) != 0) << "NaN sign, code " << c;
    }
  }
  // NaN code counts: IEEE-like 2*(2^M - 1); e4m3 exactly two.
  EXPECT_EQ(nans, f.has_inf ? 2 * ((1 << f.mbits) - 1) : 2) << f.name;
}

TEST_P(FormatTest, DecodeThenEncodeIsIdentity) {
  const Format& f = format(GetParam());
  for (std::uint32_t c = 0; c < f.codes(); ++c) {
    const float v = f.decode(c);
    for (bool sat : {false, true}) {
      const std::uint32_t back = f.encode(v, sat);
      if (f.is_nan_code(c)) {
        ASSERT_TRUE(f.is_nan_code(back)) << f.name << " NaN code 0x" << std::hex << c;
        ASSERT_EQ(back & f.sign_bit(), c & f.sign_bit()) << f.name << " NaN sign";
      } else if (std::isinf(v) && sat && f.has_saturate) {
        ASSERT_EQ(back, (c & f.sign_bit()) | f.max_code()) << f.name << " saturated Inf";
      } else {
        ASSERT_EQ(back, c) << f.name << " code 0x" << std::hex << c << " sat " << sat;
      }
    }
  }
}

// Every pair of consecutive magnitude codes (c, c+1), 0 .. the max, where c+1 past the max is
// the overflow threshold: the exact midpoint goes to the even code, one double ulp either side
// goes to the near side. Covers zero/subnormal, subnormal/normal, binade edges and the top tie.
TEST_P(FormatTest, MidpointsRoundToEvenEveryPair) {
  const Format& f = format(GetParam());
  const std::uint32_t top = f.max_code() + 1;
  for (bool sat : {false, true}) {
    auto expect_code = [&](std::uint32_t mag, std::uint32_t sign) {
      return sign | (mag == top ? f.overflow_code(sat) : mag);
    };
    for (std::uint32_t c = 0; c < top; ++c) {
      const double lo = formula_magnitude(f, c), hi = formula_magnitude(f, c + 1);
      const double mid = (lo + hi) / 2;
      ASSERT_GT(mid, lo);
      ASSERT_LT(mid, hi);
      const std::uint32_t even = (c & 1) == 0 ? c : c + 1;
      for (std::uint32_t sign : {0u, f.sign_bit()}) {
        const double s = sign ? -1.0 : 1.0;
        ASSERT_EQ(f.encode(s * mid, sat), expect_code(even, sign))
            << f.name << " tie between codes " << c << " and " << c + 1 << " sat " << sat;
        ASSERT_EQ(f.encode(s * std::nextafter(mid, kInf), sat), expect_code(c + 1, sign))
            << f.name << " just above the midpoint of " << c << ", sat " << sat;
        ASSERT_EQ(f.encode(s * std::nextafter(mid, 0.0), sat), expect_code(c, sign))
            << f.name << " just below the midpoint of " << c << ", sat " << sat;
      }
    }
  }
}

TEST_P(FormatTest, RandomDoublesMatchBruteForceRne) {
  const Format& f = format(GetParam());
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed + f.bits() + f.mbits);
  const int emin = 1 - f.bias - f.mbits - 3, emax = (1 << f.ebits) - f.bias + 1;
  std::uniform_int_distribution<int> exp_dist(emin, emax);
  std::uniform_int_distribution<std::uint32_t> code_dist(0, f.max_code());
  const int samples = 4000;
  std::vector<double> values;
  for (std::uint32_t c = 0; c <= f.max_code() + 1; ++c) values.push_back(formula_magnitude(f, c));
  for (int i = 0; i < samples; ++i) {
    double x;
    switch (i % 4) {
      case 0:
      case 1: {  // random mantissa and exponent across the whole range and beyond
        const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
        x = std::ldexp(m, exp_dist(rng));
        break;
      }
      case 2: {  // an exact midpoint of two random neighbours
        const std::uint32_t c = code_dist(rng);
        x = (formula_magnitude(f, c) + formula_magnitude(f, c + 1)) / 2;
        break;
      }
      default: {  // a code value nudged by a few double ulps
        const std::uint32_t c = code_dist(rng);
        x = formula_magnitude(f, c);
        for (int k = static_cast<int>(rng() % 7) - 3; k != 0; k += k > 0 ? -1 : 1)
          x = std::nextafter(x, k > 0 ? kInf : 0.0);
        break;
      }
    }
    if (rng() & 1) x = -x;
    for (bool sat : {false, true}) {
      ASSERT_EQ(f.encode(x, sat), brute_force_rne(f, values, x, sat))
          << f.name << " x = " << std::hexfloat << x << " sat " << sat << " seed " << seed;
    }
  }
}

TEST_P(FormatTest, NanInGivesNanOutWithSign) {
  const Format& f = format(GetParam());
  const double nans[] = {kNaN, -kNaN, std::numeric_limits<double>::signaling_NaN(),
                         std::bit_cast<double>(std::uint64_t{0x7FF0000000000001}),
                         std::bit_cast<double>(std::uint64_t{0xFFF8000000000123})};
  for (double x : nans) {
    for (bool sat : {false, true}) {
      const std::uint32_t c = f.encode(x, sat);
      EXPECT_TRUE(f.is_nan_code(c)) << f.name << " code " << c;
      EXPECT_EQ((c & f.sign_bit()) != 0, std::signbit(x)) << f.name;
      EXPECT_TRUE(std::isnan(f.decode(c))) << f.name;
    }
  }
}

TEST_P(FormatTest, SignedZeroAndUnderflowKeepSign) {
  const Format& f = format(GetParam());
  EXPECT_EQ(f.encode(0.0, false), 0u);
  EXPECT_EQ(f.encode(-0.0, false), f.sign_bit());
  EXPECT_TRUE(std::signbit(f.decode(f.sign_bit())));
  EXPECT_EQ(f.decode(f.sign_bit()), 0.0f);
  const double tiny = std::ldexp(1.0, -f.bias - f.mbits - 2);  // a quarter of the min subnormal
  EXPECT_EQ(f.encode(tiny, false), 0u);
  EXPECT_EQ(f.encode(-tiny, false), f.sign_bit());
  EXPECT_EQ(f.encode(std::numeric_limits<double>::denorm_min(), false), 0u);
  EXPECT_EQ(f.encode(-std::numeric_limits<double>::denorm_min(), false), f.sign_bit());
}

INSTANTIATE_TEST_SUITE_P(All, FormatTest, ::testing::Values("f16", "bf16", "e4m3", "e5m2"),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------------
// Anchors and corner cases by name

TEST(Fp16, KnownCodes) {
  EXPECT_EQ(to_f16(1.0), 0x3C00);
  EXPECT_EQ(to_f16(-2.0), 0xC000);
  EXPECT_EQ(to_f16(65504.0), 0x7BFF);
  EXPECT_EQ(to_f16(0x1p-24), 0x0001);  // min subnormal
  EXPECT_EQ(to_f16(0x1p-14), 0x0400);  // min normal
  EXPECT_EQ(to_f16(65519.99), 0x7BFF);
  EXPECT_EQ(to_f16(65520.0), 0x7C00);  // the top tie rounds to even: Inf
  EXPECT_EQ(to_f16(kInf), 0x7C00);
  EXPECT_EQ(to_f16(-kInf), 0xFC00);
  EXPECT_EQ(f16_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(f16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(f16_to_float(0x3555), 0x1.554p-2f);
}

// Rounding double -> float -> fp16 would round twice; the encoders round once from double.
TEST(Fp16, NoDoubleRoundingThroughFloat) {
  const double x = 1.0 + 0x1p-11 + 0x1p-40;  // just above the tie between 1 and 1 + 2^-10
  ASSERT_EQ(static_cast<double>(static_cast<float>(x)), 1.0 + 0x1p-11);  // float loses 2^-40
  EXPECT_EQ(to_f16(x), 0x3C01);
  EXPECT_EQ(to_f16(static_cast<float>(x)), 0x3C00);  // the double-rounded answer differs
  const double y = 0x1p-24 * (1.5 - 0x1p-35);        // just below a subnormal tie (1.5 ulp)
  EXPECT_EQ(to_f16(y), 0x0001);
}

TEST(Bf16, KnownCodesAndNoDoubleRounding) {
  EXPECT_EQ(to_bf16(1.0), 0x3F80);
  EXPECT_EQ(to_bf16(-1.0), 0xBF80);
  EXPECT_EQ(to_bf16(0x1p-133), 0x0001);                // min subnormal
  EXPECT_EQ(to_bf16(0x1.FEp127), 0x7F7F);              // max finite
  EXPECT_EQ(to_bf16(0x1.FFp127), 0x7F80);              // top tie: Inf
  EXPECT_EQ(to_bf16(1.0 + 0x1p-8), 0x3F80);            // tie to even
  EXPECT_EQ(to_bf16(1.0 + 0x1p-8 + 0x1p-30), 0x3F81);  // tie + tiny: up
  EXPECT_EQ(to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3F81);  // below float resolution
  EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
  EXPECT_EQ(to_bf16(1e300), 0x7F80);
  EXPECT_EQ(to_bf16(-1e300), 0xFF80);
}

TEST(E4m3, KnownCodesAndSaturation) {
  EXPECT_EQ(e4m3_to_float(0x7E), 448.0f);
  EXPECT_EQ(e4m3_to_float(0x01), 0x1p-9f);
  EXPECT_EQ(e4m3_to_float(0x08), 0x1p-6f);
  EXPECT_EQ(e4m3_to_float(0x38), 1.0f);
  EXPECT_TRUE(std::isnan(e4m3_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_float(0xFF)));
  EXPECT_EQ(e4m3_to_float(0x78), 256.0f);  // S.1111.000 is a number in e4m3, not Inf
  for (bool sat : {false, true}) {
    EXPECT_EQ(to_e4m3(448.0, sat), 0x7E);
    EXPECT_EQ(to_e4m3(-448.0, sat), 0xFE);
    EXPECT_EQ(to_e4m3(464.0, sat), 0x7E);  // tie between 448 (even) and 480: 448
    EXPECT_EQ(to_e4m3(-464.0, sat), 0xFE);
  }
  EXPECT_EQ(to_e4m3(std::nextafter(464.0, kInf), true), 0x7E);
  EXPECT_EQ(to_e4m3(std::nextafter(464.0, kInf), false), 0x7F);
  EXPECT_EQ(to_e4m3(480.0, true), 0x7E);
  EXPECT_EQ(to_e4m3(480.0, false), 0x7F);
  EXPECT_EQ(to_e4m3(-480.0, false), 0xFF);
  EXPECT_EQ(to_e4m3(1e30, true), 0x7E);
  EXPECT_EQ(to_e4m3(kInf, true), 0x7E);
  EXPECT_EQ(to_e4m3(-kInf, true), 0xFE);
  EXPECT_EQ(to_e4m3(kInf, false), 0x7F);
  EXPECT_EQ(to_e4m3(-kInf, false), 0xFF);
  EXPECT_EQ(to_e4m3(0x1p-10, false), 0x00);   // half the min subnormal: tie to 0
  EXPECT_EQ(to_e4m3(0x1.8p-9, false), 0x02);  // 1.5 min subnormals: tie to 2 (even)
}

TEST(E5m2, KnownCodesAndSaturation) {
  EXPECT_EQ(e5m2_to_float(0x7B), 57344.0f);
  EXPECT_EQ(e5m2_to_float(0x01), 0x1p-16f);
  EXPECT_EQ(e5m2_to_float(0x3C), 1.0f);
  EXPECT_TRUE(std::isinf(e5m2_to_float(0x7C)));
  EXPECT_TRUE(std::isinf(e5m2_to_float(0xFC)) && e5m2_to_float(0xFC) < 0);
  for (int c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF})
    EXPECT_TRUE(std::isnan(e5m2_to_float(static_cast<std::uint8_t>(c)))) << c;
  EXPECT_EQ(to_e5m2(57344.0, false), 0x7B);
  EXPECT_EQ(to_e5m2(std::nextafter(61440.0, 0.0), false), 0x7B);
  EXPECT_EQ(to_e5m2(61440.0, false), 0x7C);  // tie between 57344 (odd) and 65536: Inf
  EXPECT_EQ(to_e5m2(61440.0, true), 0x7B);
  EXPECT_EQ(to_e5m2(-61440.0, false), 0xFC);
  EXPECT_EQ(to_e5m2(-61440.0, true), 0xFB);
  EXPECT_EQ(to_e5m2(1e10, true), 0x7B);
  EXPECT_EQ(to_e5m2(kInf, false), 0x7C);
  EXPECT_EQ(to_e5m2(-kInf, false), 0xFC);
  EXPECT_EQ(to_e5m2(kInf, true), 0x7B);  // documented choice: saturating mode clamps Inf too
  EXPECT_EQ(to_e5m2(-kInf, true), 0xFB);
}

#if defined(__FLT16_MANT_DIG__) && defined(__x86_64__)
// A third oracle where the compiler has _Float16 (GCC >= 12 on x86-64): libgcc's
// double -> _Float16 conversion rounds once to nearest even.
TEST(Fp16, MatchesCompilerFloat16) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exp_dist(-30, 17);
  for (int i = 0; i < 200000; ++i) {
    const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
    const double x = ((rng() & 1) ? -1.0 : 1.0) * std::ldexp(m, exp_dist(rng));
    const _Float16 h = static_cast<_Float16>(x);
    std::uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    ASSERT_EQ(to_f16(x), bits) << std::hexfloat << x << " seed " << seed;
  }
}
#endif

// ---------------------------------------------------------------------------------------------
// e8m0

TEST(E8m0, EveryCode) {
  for (int c = 0; c < 256; ++c) {
    const float v = e8m0_to_float(static_cast<std::uint8_t>(c));
    if (c == 0xFF) {
      EXPECT_TRUE(std::isnan(v));
      continue;
    }
    EXPECT_EQ(static_cast<double>(v), std::ldexp(1.0, c - 127)) << c;
    EXPECT_EQ(to_e8m0(v), c) << c;                   // powers of two map to themselves
    EXPECT_EQ(to_e8m0(-static_cast<double>(v)), c);  // sign ignored
    if (c > 0 && c < 0xFE) {
      // Anything in (2^(c-128), 2^(c-127)] rounds up to code c.
      EXPECT_EQ(to_e8m0(std::nextafter(static_cast<double>(v), 0.0)), c) << c;
      EXPECT_EQ(to_e8m0(1.5 * std::ldexp(1.0, c - 128)), c) << c;
      EXPECT_EQ(to_e8m0(std::nextafter(static_cast<double>(v), kInf)), c + 1) << c;
    }
  }
}

TEST(E8m0, ClampsAndSpecials) {
  EXPECT_EQ(to_e8m0(0.0), 0);
  EXPECT_EQ(to_e8m0(-0.0), 0);
  EXPECT_EQ(to_e8m0(1e-300), 0);
  EXPECT_EQ(to_e8m0(std::numeric_limits<double>::denorm_min()), 0);
  EXPECT_EQ(to_e8m0(0x1p-200), 0);
  EXPECT_EQ(to_e8m0(0x1p127), 0xFE);
  EXPECT_EQ(to_e8m0(0x1.0000000000001p127), 0xFE);  // would be 2^128: clamped
  EXPECT_EQ(to_e8m0(1e300), 0xFE);
  EXPECT_EQ(to_e8m0(kInf), 0xFF);
  EXPECT_EQ(to_e8m0(-kInf), 0xFF);
  EXPECT_EQ(to_e8m0(kNaN), 0xFF);
  EXPECT_EQ(to_e8m0(1.0), 127);
  EXPECT_EQ(to_e8m0(3.0), 129);    // smallest 2^e >= 3 is 4
  EXPECT_EQ(to_e8m0(448.0), 136);  // 512: the MX scale for an e4m3 block with amax 448
}

// ---------------------------------------------------------------------------------------------
// int4

TEST(Int4, NibbleOrderAndSignExtension) {
  const std::uint8_t bytes[2] = {0x8F, 0x70};  // elements: 0xF, 0x8, 0x0, 0x7
  EXPECT_EQ(int4_get(bytes, 0), -1);
  EXPECT_EQ(int4_get(bytes, 1), -8);
  EXPECT_EQ(int4_get(bytes, 2), 0);
  EXPECT_EQ(int4_get(bytes, 3), 7);
  for (int nib = 0; nib < 16; ++nib) {
    const std::uint8_t lo = static_cast<std::uint8_t>(nib),
                       hi = static_cast<std::uint8_t>(nib << 4);
    const int want = nib < 8 ? nib : nib - 16;
    EXPECT_EQ(int4_get(&lo, 0), want);
    EXPECT_EQ(int4_get(&hi, 1), want);
  }
}

TEST(Int4, SetTouchesOnlyItsNibbleAndClamps) {
  for (int v = -10; v <= 10; ++v) {
    for (int i = 0; i < 4; ++i) {
      std::uint8_t buf[4] = {0xA5, 0x3C, 0x5A, 0xC3};
      std::uint8_t want[4];
      std::memcpy(want, buf, 4);
      int4_set(buf, i, v);
      const int clamped = v < -8 ? -8 : v > 7 ? 7 : v;
      EXPECT_EQ(int4_get(buf, i), clamped);
      const std::uint8_t nib = static_cast<std::uint8_t>(clamped & 0xF);
      want[i / 2] = (i % 2 == 0) ? static_cast<std::uint8_t>((want[i / 2] & 0xF0) | nib)
                                 : static_cast<std::uint8_t>((want[i / 2] & 0x0F) | (nib << 4));
      EXPECT_EQ(std::memcmp(buf, want, 4), 0) << "v " << v << " i " << i;
    }
  }
  // Large indices: byte i/2 with 64-bit arithmetic.
  std::vector<std::uint8_t> big(3000, 0);
  int4_set(big.data(), 5999, -3);
  EXPECT_EQ(big[2999], 0xD0);
  EXPECT_EQ(int4_get(big.data(), 5999), -3);
  EXPECT_EQ(int4_get(big.data(), 5998), 0);
}

// ---------------------------------------------------------------------------------------------
// load_element / store_element

constexpr DType kAllDTypes[] = {DType::F64,  DType::F32, DType::F16, DType::BF16, DType::E4M3,
                                DType::E5M2, DType::I8,  DType::I4,  DType::I32,  DType::E8M0,
                                DType::E2M1};

TEST(Element, IsFloatType) {
  for (DType t : kAllDTypes) {
    const bool is_int = t == DType::I8 || t == DType::I4 || t == DType::I32;
    EXPECT_EQ(core::is_float_type(t), !is_int) << dtype_name(t);
  }
}

// Values every type can hold exactly (E8M0: powers of two only; I4: -8..7).
std::vector<double> exact_values(DType t) {
  switch (t) {
    case DType::I4:
      return {-8, -3, -1, 0, 1, 2, 7};
    case DType::E8M0:
      return {0x1p-127, 0.25, 1, 2, 1024, 0x1p127};
    case DType::E2M1:
      return {-6, -1.5, -0.0, 0, 0.5, 3, 4, 6};
    case DType::I8:
      return {-128, -5, 0, 1, 3, 127};
    case DType::I32:
      return {-2147483648.0, -77, 0, 1, 2147483647.0};
    case DType::E4M3:
      return {-448, -1.5, -0.0, 0, 0x1p-9, 0.875, 1, 240, 448};
    case DType::E5M2:
      return {-57344, -1.5, -0.0, 0, 0x1p-16, 0.875, 1, 3072, 57344};
    case DType::F16:
      return {-65504, -1.5, -0.0, 0, 0x1p-24, 0.1005859375, 1, 2047, 65504};
    case DType::BF16:
      return {-0x1.FEp127, -1.5, -0.0, 0, 0x1p-133, 3.140625, 1, 0x1.FEp127};
    case DType::F32:
      return {-0x1.fffffep127, -1.5, -0.0, 0, 0x1p-149, 0.1f, 16777215, 0x1.fffffep127};
    case DType::F64:
      return {-1e308, -0.1, -0.0, 0, 4.9e-324, 1.0 / 3.0, 1e308};
  }
  return {};
}

TEST(Element, StoreThenLoadIsExactForRepresentableValues) {
  for (DType t : kAllDTypes) {
    const std::vector<double> vals = exact_values(t);
    const std::int64_t n = static_cast<std::int64_t>(vals.size());
    const std::int64_t bytes = (n * dtype_bits(t) + 7) / 8 + 8;
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(bytes), 0xEE);
    for (std::int64_t i = 0; i < n; ++i) core::store_element(t, buf.data(), i, vals[i]);
    for (std::int64_t i = 0; i < n; ++i) {
      const double got = core::load_element(t, buf.data(), i);
      EXPECT_EQ(got, vals[i]) << dtype_name(t) << " index " << i;
      EXPECT_EQ(std::signbit(got), std::signbit(vals[i])) << dtype_name(t) << " index " << i;
    }
    // Nothing past the last element changed.
    const std::int64_t used = (n * dtype_bits(t) + 7) / 8;
    for (std::int64_t b = used; b < bytes; ++b) EXPECT_EQ(buf[b], 0xEE) << dtype_name(t);
  }
}

TEST(Element, StoreRoundsLikeTheConverters) {
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<double> dist(-600.0, 600.0);
  for (int i = 0; i < 2000; ++i) {
    const double v = dist(rng);
    std::uint8_t buf[8] = {};
    core::store_element(DType::F16, buf, 1, v);
    EXPECT_EQ(core::load_element(DType::F16, buf, 1), f16_to_float(to_f16(v)));
    core::store_element(DType::BF16, buf, 2, v);
    EXPECT_EQ(core::load_element(DType::BF16, buf, 2), bf16_to_float(to_bf16(v)));
    for (bool sat : {false, true}) {
      core::store_element(DType::E4M3, buf, 3, v, sat);
      const double e4 = core::load_element(DType::E4M3, buf, 3);
      const float w4 = e4m3_to_float(to_e4m3(v, sat));
      EXPECT_TRUE(std::isnan(w4) ? std::isnan(e4) : e4 == w4) << v;
      core::store_element(DType::E5M2, buf, 4, v, sat);
      EXPECT_EQ(core::load_element(DType::E5M2, buf, 4), e5m2_to_float(to_e5m2(v, sat)));
    }
    core::store_element(DType::F32, buf, 1, v);
    EXPECT_EQ(core::load_element(DType::F32, buf, 1), static_cast<double>(static_cast<float>(v)));
  }
}

TEST(Element, F32OverflowAndNaN) {
  float f[1];
  core::store_element(DType::F32, f, 0, 1e300);
  EXPECT_EQ(f[0], std::numeric_limits<float>::infinity());
  core::store_element(DType::F32, f, 0, -1e300);
  EXPECT_EQ(f[0], -std::numeric_limits<float>::infinity());
  const double top_tie = 0x1.fffffep127 + 0x1p103;  // FLT_MAX + half an ulp
  core::store_element(DType::F32, f, 0, std::nextafter(top_tie, 0.0));
  EXPECT_EQ(f[0], std::numeric_limits<float>::max());
  core::store_element(DType::F32, f, 0, top_tie);
  EXPECT_EQ(f[0], std::numeric_limits<float>::infinity());
  core::store_element(DType::F32, f, 0, kNaN);
  EXPECT_TRUE(std::isnan(f[0]));
  core::store_element(DType::F32, f, 0, 1.0 + 0x1p-24);  // tie: to even, 1.0
  EXPECT_EQ(f[0], 1.0f);
}

TEST(Element, IntegersRoundToNearestEvenAndSaturate) {
  struct Case {
    double v;
    std::int64_t i8, i32, i4;
  };
  const Case cases[] = {
      {2.5, 2, 2, 2},
      {3.5, 4, 4, 4},
      {-2.5, -2, -2, -2},
      {-3.5, -4, -4, -4},
      {2.4999, 2, 2, 2},
      {2.5001, 3, 3, 3},
      {-0.5, 0, 0, 0},
      {0.5, 0, 0, 0},
      {127.5, 127, 128, 7},
      {-128.5, -128, -128, -8},
      {200, 127, 200, 7},
      {-200, -128, -200, -8},
      {7.5, 8, 8, 7},
      {-8.6, -9, -9, -8},
      {3e10, 127, 2147483647, 7},
      {-3e10, -128, -2147483648LL, -8},
      {2147483646.5, 127, 2147483646, 7},
      {kInf, 127, 2147483647, 7},
      {-kInf, -128, -2147483648LL, -8},
      {kNaN, 0, 0, 0},
  };
  for (const Case& c : cases) {
    std::int8_t i8[2] = {0x11, 0x22};
    std::int32_t i32[2] = {0x11, 0x22};
    std::uint8_t i4[1] = {0xA5};
    core::store_element(DType::I8, i8, 0, c.v);
    core::store_element(DType::I32, i32, 1, c.v);
    core::store_element(DType::I4, i4, 1, c.v);
    EXPECT_EQ(core::load_element(DType::I8, i8, 0), c.i8) << c.v;
    EXPECT_EQ(i8[1], 0x22);
    EXPECT_EQ(core::load_element(DType::I32, i32, 1), c.i32) << c.v;
    EXPECT_EQ(i32[0], 0x11);
    EXPECT_EQ(core::load_element(DType::I4, i4, 1), c.i4) << c.v;
    EXPECT_EQ(i4[0] & 0xF, 0x5) << "low nibble kept";
  }
}

TEST(Element, E8m0StoresTheRoundedUpScale) {
  std::uint8_t s[3] = {};
  core::store_element(DType::E8M0, s, 0, 3.0);
  core::store_element(DType::E8M0, s, 1, 0.3);
  core::store_element(DType::E8M0, s, 2, kNaN);
  EXPECT_EQ(core::load_element(DType::E8M0, s, 0), 4.0);
  EXPECT_EQ(core::load_element(DType::E8M0, s, 1), 0.5);
  EXPECT_TRUE(std::isnan(core::load_element(DType::E8M0, s, 2)));
}

TEST(Element, NonSaturatingFp8OverflowAndNanStore) {
  std::uint8_t b[2] = {};
  core::store_element(DType::E4M3, b, 0, 1000.0);  // saturate defaults to false
  EXPECT_TRUE(std::isnan(core::load_element(DType::E4M3, b, 0)));
  core::store_element(DType::E4M3, b, 1, 1000.0, /*saturate=*/true);
  EXPECT_EQ(core::load_element(DType::E4M3, b, 1), 448.0);
  core::store_element(DType::E5M2, b, 0, -1e6);
  EXPECT_EQ(core::load_element(DType::E5M2, b, 0), -kInf);
  core::store_element(DType::F16, b, 0, kNaN);
  EXPECT_TRUE(std::isnan(core::load_element(DType::F16, b, 0)));
}

}  // namespace
}  // namespace gemmkit
