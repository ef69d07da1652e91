// Which operands the TMA kernels copy before the GEMM, one rule for the kernels
// (src/cuda/sm90/staging.cu) and the ledger's prediction. The TMA needs 16-byte strides and
// base: an operand without them is always copied into a padded workspace. An operand it can
// read whose rows do not start on 128 bytes (the swizzle atom) is read more slowly: on the H200
// 4097^3, 5000^3 and 3000^3 ran 23-28% longer with both operands so (ld 4104, 5000, 3000) than
// with rows padded to 128 bytes. Such an operand is copied when the copy costs less than what
// its reads would lose. Rows of a copy are padded to 128 bytes.
#pragma once
#include <cstdint>

namespace gemmkit::ledger {

inline constexpr std::int64_t kTmaStrideBytes = 16;  // strides and base the TMA can take
inline constexpr std::int64_t kTmaRowBytes = 128;    // rows of a copy start on this
// Of the GEMM's time, what one operand with rows off 128 bytes costs (half the measured loss
// with both).
inline constexpr double kTmaMisalignedShare = 0.12;
// The figures the rule uses on every machine (the H200 as measured: sustained bf16 wgmma rate,
// copy bandwidth, a copy kernel's launch), so that kernel and ledger decide alike.
inline constexpr double kStagingFlops = 700e12, kStagingBytesPerS = 3.3e12, kStagingLaunchS = 3e-6;

// Seconds of a padded copy of `bytes` (read and written once, one launch).
constexpr double staging_copy_s(double bytes) {
  return 2 * bytes / kStagingBytesPerS + kStagingLaunchS;
}

// True when an operand the TMA can read, of `bytes`, with rows off 128 bytes, is worth copying
// for a GEMM of `flops`.
constexpr bool stage_misaligned(double flops, double bytes) {
  return kTmaMisalignedShare * flops / kStagingFlops > staging_copy_s(bytes);
}

}  // namespace gemmkit::ledger
