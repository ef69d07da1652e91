// Names of dtypes, layouts, backends, status codes and argument positions.
#include <array>
#include <string>

#include "gemmkit/types.hpp"

namespace gemmkit {

namespace {
struct DTypeRow {
  DType t;
  const char* name;
  int bits;
};
constexpr std::array<DTypeRow, 11> kDTypes{{
    {DType::F64, "f64", 64},
    {DType::F32, "f32", 32},
    {DType::F16, "f16", 16},
    {DType::BF16, "bf16", 16},
    {DType::E4M3, "e4m3", 8},
    {DType::E5M2, "e5m2", 8},
    {DType::I8, "i8", 8},
    {DType::I4, "i4", 4},
    {DType::I32, "i32", 32},
    {DType::E8M0, "e8m0", 8},
    {DType::E2M1, "e2m1", 4},
}};
}  // namespace

int dtype_bits(DType t) noexcept {
  for (const auto& r : kDTypes)
    if (r.t == t) return r.bits;
  return 0;
}

std::string_view dtype_name(DType t) noexcept {
  for (const auto& r : kDTypes)
    if (r.t == t) return r.name;
  return "?";
}

bool parse_dtype(std::string_view s, DType* out) noexcept {
  // Accept a few common aliases as a user of cuBLAS/torch would type them.
  struct Alias {
    const char* name;
    DType t;
  };
  static constexpr Alias kAliases[] = {
      {"fp64", DType::F64},     {"double", DType::F64}, {"fp32", DType::F32},
      {"float", DType::F32},    {"fp16", DType::F16},   {"half", DType::F16},
      {"fp8_e4m3", DType::E4M3}, {"fp8", DType::E4M3},  {"fp8_e5m2", DType::E5M2},
      {"int8", DType::I8},      {"s8", DType::I8},      {"int4", DType::I4},
      {"s4", DType::I4},        {"int32", DType::I32},  {"s32", DType::I32},
      {"fp4", DType::E2M1},     {"fp4_e2m1", DType::E2M1},
  };
  for (const auto& r : kDTypes)
    if (s == r.name) {
      *out = r.t;
      return true;
    }
  for (const auto& a : kAliases)
    if (s == a.name) {
      *out = a.t;
      return true;
    }
  return false;
}

std::string_view layout_name(Layout l) noexcept {
  return l == Layout::RowMajor ? "row" : "col";
}

std::string_view backend_name(Backend b) noexcept {
  switch (b) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "?";
}

std::string_view status_string(StatusCode c) noexcept {
  switch (c) {
    case StatusCode::Success: return "Success";
    case StatusCode::InvalidValue: return "InvalidValue";
    case StatusCode::NotSupported: return "NotSupported";
    case StatusCode::MisalignedOperand: return "MisalignedOperand";
    case StatusCode::WorkspaceTooSmall: return "WorkspaceTooSmall";
    case StatusCode::ArchMismatch: return "ArchMismatch";
    case StatusCode::ExecutionFailed: return "ExecutionFailed";
  }
  return "Unknown";
}

std::string_view arg_name(Arg a) noexcept {
  switch (a) {
    case Arg::None: return "";
    case Arg::TransA: return "transa";
    case Arg::TransB: return "transb";
    case Arg::M: return "m";
    case Arg::N: return "n";
    case Arg::K: return "k";
    case Arg::Alpha: return "alpha";
    case Arg::A: return "A";
    case Arg::Lda: return "lda";
    case Arg::B: return "B";
    case Arg::Ldb: return "ldb";
    case Arg::Beta: return "beta";
    case Arg::C: return "C";
    case Arg::Ldc: return "ldc";
    case Arg::D: return "D";
    case Arg::Ldd: return "ldd";
    case Arg::Batch: return "batch";
    case Arg::StrideA: return "stride_a";
    case Arg::StrideB: return "stride_b";
    case Arg::StrideC: return "stride_c";
    case Arg::StrideD: return "stride_d";
    case Arg::Layout: return "layout";
    case Arg::DTypeA: return "dtype_a";
    case Arg::DTypeB: return "dtype_b";
    case Arg::DTypeC: return "dtype_c";
    case Arg::DTypeD: return "dtype_d";
    case Arg::ComputeType: return "compute";
    case Arg::Workspace: return "workspace";
    case Arg::Backend: return "backend";
    case Arg::Kernel: return "kernel";
    case Arg::GroupCount: return "group_count";
    case Arg::Epilogue: return "epilogue";
    case Arg::Bias: return "bias";
    case Arg::DTypeBias: return "dtype_bias";
    case Arg::ScaleA: return "scale_a";
    case Arg::ScaleB: return "scale_b";
    case Arg::ScaleD: return "scale_d";
    case Arg::AmaxD: return "amax_d";
  }
  return "?";
}

std::string to_string(const Status& s) {
  std::string out(status_string(s.code));
  if (s.arg != Arg::None) {
    out += " (argument ";
    out += std::to_string(s.position());
    out += ": ";
    out += arg_name(s.arg);
    out += ")";
  }
  if (!s.message.empty()) {
    out += ": ";
    out += s.message;
  }
  return out;
}

}  // namespace gemmkit
