// The staged row epilogue of the sm90 kernels: for a D whose rows are contiguous but not
// stored by the aligned fast path (a leading dimension that is not a multiple of 8 elements,
// a base off 16 bytes, edge tiles). A warp's accumulators travel through a 16 x 32 f32 buffer
// of its own in shared memory, 32 columns at a time, so that each store instruction writes 32
// consecutive elements of one row (64 or 128 contiguous bytes) instead of 2-element pieces of
// eight rows, and C, when read, is read the same way. alpha is applied before staging, beta and
// C after, once per element: the same arithmetic as the direct epilogue.
#pragma once
#include <cstdint>

#include "cuda/epilogue.cuh"

namespace gemmkit::sm90 {

// f32 values of one warp's buffer: 16 rows of 32, rows 40 apart so that the quad-wise float2
// writes of the fragment arrangement are free of bank conflicts.
inline constexpr int kRowStageStride = 40;
inline constexpr int kRowStageFloats = 16 * kRowStageStride;

// acc: the warp's (16, BLK_N) accumulators, 8-column blocks of {row g, cols 2t, 2t + 1; row
// g + 8, same} (g = lane / 4, t = lane % 4); (row0, col0): the warp's first output element;
// buf: the warp's kRowStageFloats floats (8-byte aligned).
template <class OutT, int BLK_N>
__device__ __forceinline__ void store_rows_staged(const gpu::Params& p, std::int64_t l,
                                                  const float (&acc)[BLK_N / 2],
                                                  std::int64_t row0, std::int64_t col0,
                                                  int lane, float* buf) {
  using P = gpu::OutPair<OutT>;
  const int g = lane / 4, t = lane % 4;
  OutT* const d = static_cast<OutT*>(p.d.ptr) + l * p.d.batch_stride;
  const int rows = p.m - row0 < 16 ? static_cast<int>(p.m - row0) : 16;
#pragma unroll
  for (int ch = 0; ch < BLK_N / 32; ++ch) {
    __syncwarp();  // every lane has read the previous chunk
#pragma unroll
    for (int nb = 0; nb < 4; ++nb) {
      const float* v = acc + 4 * (4 * ch + nb);
      float* at = buf + g * kRowStageStride + 8 * nb + 2 * t;
      *reinterpret_cast<float2*>(at) = make_float2(p.alpha * v[0], p.alpha * v[1]);
      *reinterpret_cast<float2*>(at + 8 * kRowStageStride) =
          make_float2(p.alpha * v[2], p.alpha * v[3]);
    }
    __syncwarp();
    const std::int64_t col = col0 + 32 * ch + lane;
    if (col >= p.n) continue;
    OutT* dp = d + row0 * p.d.s_row + col;
    const float* sp = buf + lane;
    if (p.read_c) {
      std::int64_t ci = l * p.c.batch_stride + row0 * p.c.s_row + col * p.c.s_col;
      for (int r = 0; r < rows; ++r, dp += p.d.s_row, ci += p.c.s_row, sp += kRowStageStride)
        *dp = P::one(sp[0] + p.beta * gpu::load_out(p.c.type, p.c.ptr, ci));
    } else {
      for (int r = 0; r < rows; ++r, dp += p.d.s_row, sp += kRowStageStride) *dp = P::one(sp[0]);
    }
  }
}

// Any tile of the warp: the aligned fast path of gpu::store_accumulators where it applies, the
// staged rows where D's rows are contiguous, gpu::store_accumulators' element path otherwise.
template <int BLK_N>
__device__ __forceinline__ void store_warp_tile(const gpu::Params& p, std::int64_t l,
                                                const float (&acc)[BLK_N / 2], std::int64_t row0,
                                                std::int64_t col0, int lane, float* buf) {
  const auto& frag = *reinterpret_cast<const float(*)[1][BLK_N / 8][4]>(&acc);
  if (p.d.s_col != 1 || gpu::fast_tile(p, row0, col0, 16, BLK_N))
    return gpu::store_accumulators(p, l, frag, row0, col0, lane);
  if (row0 >= p.m) return;
  switch (p.d.type) {
    case gpu::OutType::F32:
      return store_rows_staged<float, BLK_N>(p, l, acc, row0, col0, lane, buf);
    case gpu::OutType::F16:
      return store_rows_staged<__half, BLK_N>(p, l, acc, row0, col0, lane, buf);
    default:
      return store_rows_staged<__nv_bfloat16, BLK_N>(p, l, acc, row0, col0, lane, buf);
  }
}

}  // namespace gemmkit::sm90
