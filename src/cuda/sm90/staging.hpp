// Operands for the TMA: tensor maps of A and B in the boxes the sm90 kernels load, and for an
// operand the TMA cannot address as it is (a leading dimension or batch stride that is not a
// multiple of 8 elements, a base that is not 16-byte aligned, no unit stride), or one whose row
// stride is off 128 bytes where the copy pays (ledger/tma_staging.hpp), a padded copy in the
// workspace first: the same elements, rows padded to a multiple of 64 elements (128 bytes).
// Only the padding is new; the TMA still zero-fills past the logical extent.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/problem.hpp"
#include "cuda/sm90/tma_maps.hpp"

namespace gemmkit::sm90 {

// Bytes of workspace the problem's operands need (0 when the TMA takes both as they are).
// With base pointers unknown (null in pr), they are taken to be 16-byte aligned.
std::size_t staging_bytes(const gpu::Problem& pr);

// True when every extent fits the TMA's 32-bit coordinates and the tiles the device scheduler
// counts in 32 bits (fewer than 2^31 of 128 x 64).
bool tma_extents_ok(const gpu::Problem& pr);

// Copies what needs copying into `ws` (at least staging_bytes(pr)) on `stream`, points pr's
// operand views at the copies, and encodes both tensor maps for a CTA tile of BLK_M x blk_n.
// pr.params.read_ab must be true.
Status stage_operands(gpu::Problem& pr, int blk_m, int blk_n, void* ws, TmaMaps* maps,
                      cudaStream_t stream);

}  // namespace gemmkit::sm90
