// The decode kernels. The small-N kernel (GEMV): D = alpha * op(A) op(B) + beta * C when one side of D has
// at most kMaxSmall columns (M <= 2 tokens in x @ W^T, or N <= 2). The problem is run in the
// orientation whose M is the large side; each output row is one dot product per small column,
// computed by warps streaming the large operand's row with 16-byte loads (no tensor cores, no
// shared-memory staging, no split: the weight is read once at the memory's speed).
#pragma once
#include <cstddef>
#include <cstdint>

#include "gemmkit/gemm.hpp"

namespace gemmkit::gemv {

// At 4 and more small columns the shared-memory-free dot products are bound by the L1 reads of
// the small operand (H200, x @ W^T, 4 x 4096 x 4096: 20.3 us against the 128 x 64 wgmma tile's
// 19.3; 8 x: 27.3 us): from there the tensor-core decode tile serves.
inline constexpr std::int64_t kMaxSmall = 2;

// NotSupported unless the problem is 16-bit in (bf16 or fp16, f32 accumulation), min(M, N) <=
// kMaxSmall, and both operands have contiguous K (a single row of the small one: any
// stride); ArchMismatch unless the device is
// sm_90 (the sm90 family's check).
Status can_implement(const GemmDesc& d);

// Launches on opt.stream. Rows of the large operand on 16 bytes (leading dimension, batch
// stride multiples of 8 elements, aligned base) stream with 16-byte loads, others element by
// element; any layout of the small operand, C and D.
Status run(const GemmDesc& d, const GemmArgs& args, const Options& opt);

// The decode kernel (decode_tma.cu): min(M, N) <= kMaxDecode, run with the large side as M;
// the large operand W streamed once through a TMA ring of 128 x 64 boxes, cut evenly over
// one CTA per SM, its rows times the small columns on mma.sync. A row block shared by
// several CTAs is reduced in a fixed order by the last to finish.
inline constexpr std::int64_t kMaxDecode = 16;

// NotSupported unless the sm90 family takes the problem, min(M, N) <= kMaxDecode, and W's
// rows are K-contiguous with leading dimension and batch stride multiples of 8 elements.
Status decode_can_implement(const GemmDesc& d);

// Workspace a call may need (the partial sums of shared row blocks and their counters; or the
// decode tile's, which serves a W whose base is off 16 bytes).
std::size_t decode_workspace_bytes(const GemmDesc& d, const GemmArgs* args);

// Launches on opt.stream: any layout of the small operand, C and D.
Status decode_run(const GemmDesc& d, const GemmArgs& args, const Options& opt);

}  // namespace gemmkit::gemv
