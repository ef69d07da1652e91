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

// The decode kernels take min(M, N) <= kMaxDecode.
inline constexpr std::int64_t kMaxDecode = 16;

// The row-block decode kernel (decode_rows.cu): min(M, N) <= kMaxDecode, run with the large
// side as M; the large side is cut into blocks of R rows streamed through a TMA ring, each
// block by one CTA over the full K or by a cluster of S CTAs over 1/S of K each (their sums
// added in rank order through shared memory), so nothing goes through global memory twice.
// NotSupported unless the sm90 family takes the problem, W's rows are K-contiguous on 16 bytes,
// x is K-contiguous rows on 16 bytes or packed M-major, K is a multiple of 8, and the cut has
// at least 24 rows a block (not 33-47 when K > 8192 and unsplit).
// Its stage: ~32 KiB of W in boxes of (rows rounded up to 16, 64 K), 2 to 8 of them and an
// even count (KS a multiple of 128: at least 8 k16 steps, one per consumer warp). A K-major x
// costs one bulk copy per row of x per stage, so it rounds the count up, an M-major one down.
// The kernel sizes its ring by it and the ledger its tile.
inline int decode_rows_stage_boxes(std::int64_t rows, bool k_major_x) {
  const std::int64_t box_bytes = (rows + 15) / 16 * 16 * 64 * 2;
  std::int64_t boxes = k_major_x ? (32768 + box_bytes - 1) / box_bytes : 32768 / box_bytes;
  boxes = boxes < 2 ? 2 : boxes > 8 ? 8 : boxes;
  return static_cast<int>(boxes + boxes % 2);
}

struct DecodeRowsCut {
  int rows = 0;    // R: rows of the large side a block (a multiple of 8, <= 128)
  int splits = 1;  // S: CTAs (one cluster) a block, 1 to 4
};
// The cut taken for d on the device in use; `splits` > 0 forces S (Options::split_k; more than
// 4 asks for 4).
DecodeRowsCut decode_rows_cut(const GemmDesc& d, int splits = 0);
Status decode_rows_can_implement(const GemmDesc& d);

// Workspace: none, unless args' pointers are off 16 bytes: then the decode tile's, which
// serves such a call.
std::size_t decode_rows_workspace_bytes(const GemmDesc& d, const GemmArgs* args, int sm_target = 0);

// Launches on opt.stream: any layout of C and D.
Status decode_rows_run(const GemmDesc& d, const GemmArgs& args, const Options& opt);

}  // namespace gemmkit::gemv
