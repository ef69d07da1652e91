// Element load/store by DType, on top of the bit conversions of gemmkit/convert.hpp.
#include "core/element.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>

#include "gemmkit/convert.hpp"

namespace gemmkit::core {
namespace {

template <class T>
T read_at(const void* base, std::int64_t index) noexcept {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + index * std::int64_t{sizeof(T)}, sizeof v);
  return v;
}

template <class T>
void write_at(void* base, std::int64_t index, T v) noexcept {
  std::memcpy(static_cast<char*>(base) + index * std::int64_t{sizeof(T)}, &v, sizeof v);
}

// v rounded to an integer (nearest, ties to even) and clamped to [lo, hi]; NaN gives 0.
std::int64_t round_clamp(double v, std::int64_t lo, std::int64_t hi) noexcept {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(lo)) return lo;
  if (v >= static_cast<double>(hi)) return hi;
  double r = std::floor(v);
  const double frac = v - r;  // exact: |v| < 2^31 here
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return static_cast<std::int64_t>(r);
}

// Round to nearest even float; |v| at or past FLT_MAX + half an ulp (2^128 - 2^103) is Inf and
// |v| in (FLT_MAX, that) is FLT_MAX. By hand, because an out-of-range double->float cast is UB.
float round_to_float(double v) noexcept {
  const double overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
  const double a = std::fabs(v);
  float f;
  if (a >= overflow) {
    f = HUGE_VALF;
  } else if (a > FLT_MAX) {
    f = FLT_MAX;
  } else {
    f = static_cast<float>(a);  // also NaN
  }
  return std::signbit(v) ? -f : f;
}

}  // namespace

double load_element(DType t, const void* base, std::int64_t index) noexcept {
  switch (t) {
    case DType::F64:
      return read_at<double>(base, index);
    case DType::F32:
      return read_at<float>(base, index);
    case DType::F16:
      return f16_to_float(read_at<std::uint16_t>(base, index));
    case DType::BF16:
      return bf16_to_float(read_at<std::uint16_t>(base, index));
    case DType::E4M3:
      return e4m3_to_float(read_at<std::uint8_t>(base, index));
    case DType::E5M2:
      return e5m2_to_float(read_at<std::uint8_t>(base, index));
    case DType::I8:
      return read_at<std::int8_t>(base, index);
    case DType::I4:
      return int4_get(base, index);
    case DType::I32:
      return read_at<std::int32_t>(base, index);
    case DType::E8M0:
      return e8m0_to_float(read_at<std::uint8_t>(base, index));
    case DType::E2M1:
      return e2m1_get(base, index);
  }
  return std::nan("");
}

void store_element(DType t, void* base, std::int64_t index, double v, bool saturate) noexcept {
  switch (t) {
    case DType::F64:
      write_at<double>(base, index, v);
      return;
    case DType::F32:
      write_at<float>(base, index, round_to_float(v));
      return;
    case DType::F16:
      write_at<std::uint16_t>(base, index, to_f16(v));
      return;
    case DType::BF16:
      write_at<std::uint16_t>(base, index, to_bf16(v));
      return;
    case DType::E4M3:
      write_at<std::uint8_t>(base, index, to_e4m3(v, saturate));
      return;
    case DType::E5M2:
      write_at<std::uint8_t>(base, index, to_e5m2(v, saturate));
      return;
    case DType::I8:
      write_at<std::int8_t>(base, index, static_cast<std::int8_t>(round_clamp(v, -128, 127)));
      return;
    case DType::I4:
      int4_set(base, index, static_cast<int>(round_clamp(v, -8, 7)));
      return;
    case DType::I32:
      write_at<std::int32_t>(base, index,
                             static_cast<std::int32_t>(round_clamp(v, INT32_MIN, INT32_MAX)));
      return;
    case DType::E8M0:
      write_at<std::uint8_t>(base, index, to_e8m0(v));
      return;
    case DType::E2M1:
      e2m1_set(base, index, to_e2m1(v));
      return;
  }
}

}  // namespace gemmkit::core
