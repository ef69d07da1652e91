// gemmkit public types: data types, layouts, status codes, argument positions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gemmkit {

// Element types. Sub-byte int4 and e2m1 are packed two per byte (element 2i in the low nibble).
enum class DType : std::uint8_t {
  F64,
  F32,
  F16,
  BF16,
  E4M3,  // OCP fp8 e4m3 (no Inf, max 448)
  E5M2,  // OCP fp8 e5m2 (IEEE-like)
  I8,
  I4,    // packed two per byte, sign-extended
  I32,
  E8M0,  // scale: 2^(x-127), 0xFF is NaN
  E2M1,  // OCP fp4 (MXFP4's element): +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no Inf / NaN; packed as I4
};

enum class Layout : std::uint8_t { RowMajor, ColMajor };
enum class Op : std::uint8_t { NoTrans, Trans };
enum class Backend : std::uint8_t { Auto, Cpu, Cuda };

// Storage size of one element in bits (4 for I4 and E2M1).
int dtype_bits(DType t) noexcept;
std::string_view dtype_name(DType t) noexcept;   // "f32", "bf16", "e4m3", ...
bool parse_dtype(std::string_view s, DType* out) noexcept;
std::string_view layout_name(Layout l) noexcept;  // "row" / "col"
std::string_view backend_name(Backend b) noexcept;

enum class StatusCode : std::uint8_t {
  Success = 0,
  InvalidValue,       // `arg` names the offending argument
  NotSupported,       // legal problem, no kernel for it on this backend
  MisalignedOperand,  // pointer/ld alignment forbids the fast path and fallback was refused
  WorkspaceTooSmall,
  ArchMismatch,       // the device cannot run the requested kernel
  ExecutionFailed,    // launch or runtime failure
};

// Positions of arguments, 1-based. 1..13 follow netlib's XERBLA numbering of xGEMM;
// the rest extend it for arguments the classic interface does not have.
enum class Arg : int {
  None = 0,
  TransA = 1,
  TransB = 2,
  M = 3,
  N = 4,
  K = 5,
  Alpha = 6,
  A = 7,
  Lda = 8,
  B = 9,
  Ldb = 10,
  Beta = 11,
  C = 12,
  Ldc = 13,
  D = 14,
  Ldd = 15,
  Batch = 16,
  StrideA = 17,
  StrideB = 18,
  StrideC = 19,
  StrideD = 20,
  Layout = 21,       // the CBLAS layout argument / an operand layout
  DTypeA = 22,
  DTypeB = 23,
  DTypeC = 24,
  DTypeD = 25,
  ComputeType = 26,
  Workspace = 27,
  Backend = 28,
  Kernel = 29,
  GroupCount = 30,
  Epilogue = 31,   // GemmDesc::epilogue: its bias mode or activation
  Bias = 32,       // GemmArgs::bias
  DTypeBias = 33,  // EpilogueDesc::bias_dtype
  ScaleA = 34,     // GemmDesc::scale_a / GemmArgs::scale_a
  ScaleB = 35,     // GemmDesc::scale_b / GemmArgs::scale_b
  ScaleD = 36,     // EpilogueDesc::scale_d / GemmArgs::scale_d
  AmaxD = 37,      // EpilogueDesc::amax_d / GemmArgs::amax_d
};
std::string_view arg_name(Arg a) noexcept;

struct Status {
  StatusCode code = StatusCode::Success;
  Arg arg = Arg::None;   // for InvalidValue: the offending argument
  std::string message;   // human-readable, includes file:line of the check

  bool ok() const noexcept { return code == StatusCode::Success; }
  explicit operator bool() const noexcept { return ok(); }
  int position() const noexcept { return static_cast<int>(arg); }
};

std::string_view status_string(StatusCode c) noexcept;  // "Success", "InvalidValue", ...
std::string to_string(const Status& s);                  // code, argument and message

}  // namespace gemmkit
