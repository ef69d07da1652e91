// Staging of the f32 / f64 kernels: an operand tile (BLK_O, BLK_K) of the canonical problem
// (A: O = M, B: O = N) lands in shared memory as BLK_K rows of BLK_O outputs, whatever its
// arrangement in global memory, because both inner loops read along O at one k (four rows of A
// as a float4; a DMMA fragment, eight rows at each of four k). The copy is cp.async only:
//   - outer-major operands (s_outer == 1), 16-byte aligned: 16-byte chunks, zero-filled past
//     the edge of O and K;
//   - outer-major, unaligned: the same chunks, one element-sized copy per element;
//   - K-major operands (s_k == 1): one element-sized copy per element, written transposed:
//     a warp copies 8 rows x 4 k (f32) or 4 rows x 8 k (f64), so each row's reads are one
//     contiguous run and the writes fall in 32 different banks.
// Nothing outside the operand is read: never a fault, any leading dimension or offset.
#pragma once
#include <cstdint>

#include "cuda/problem.hpp"
#include "cuda/ptx/sm80_simt.cuh"

namespace gemmkit::simt {

using std::int64_t;

// BLK_K rows of kPitch elements. kPitch is 8 mod 32 banks (f32: 136 floats, f64: 132
// doubles): the transposed writes above and the DMMA fragment reads (k = lane % 4, o = lane / 4,
// half a warp at a time) are conflict-free; every row starts on 16 bytes.
template <class T, int BLK_O, int BLK_K>
struct KRowsTile {
  static constexpr int kO = BLK_O, kK = BLK_K;
  static constexpr int kPitch = BLK_O + (sizeof(T) == 4 ? 8 : 4);
  static constexpr int kElems = BLK_K * kPitch;
  static_assert(kPitch * sizeof(T) / 4 % 32 == 8, "rows 8 banks apart");
  static_assert(kPitch * sizeof(T) % 16 == 0, "rows on 16 bytes");
};

// Copies tile (o0.., k0..) of an operand into smem (the commit is the caller's). `base` is the
// operand of this CTA's batch entry; o_ext, k_ext bound the operand. KMAJOR: s_k == 1, else
// s_outer == 1 (the canonical problem always has one unit stride).
template <class Tile, int THREADS, bool KMAJOR, class T>
__device__ __forceinline__ void load_tile(T* smem, const gpu::OperandView& v, const T* base,
                                          int64_t o0, int64_t k0, int64_t o_ext, int64_t k_ext,
                                          int tid) {
  constexpr int kBytes = sizeof(T);
  const bool full = o0 + Tile::kO <= o_ext && k0 + Tile::kK <= k_ext;
  if constexpr (KMAJOR) {
    // One warp step: kLanesO rows x kLanesK k. Warp w takes the row blocks w, w + kWarps, ...
    // over the whole BLK_K: a row pointer per row block, the k steps constant offsets.
    constexpr int kLanesK = kBytes == 4 ? 4 : 8, kLanesO = 32 / kLanesK;
    constexpr int kWarps = THREADS / 32, kBlocksO = Tile::kO / kLanesO;
    static_assert(kBlocksO % kWarps == 0 && Tile::kK % kLanesK == 0, "every warp copies as much");
    const int lane = tid % 32, warp = tid / 32;
    const int k = lane / kLanesO;
#pragma unroll
    for (int j = 0; j < kBlocksO / kWarps; ++j) {
      const int o = (warp + j * kWarps) * kLanesO + lane % kLanesO;
      const bool o_in = full || o0 + o < o_ext;
      const T* row = base + (o0 + o) * v.s_outer + k0 + k;
#pragma unroll
      for (int kb = 0; kb < Tile::kK; kb += kLanesK) {
        const bool in = o_in && (full || k0 + k + kb < k_ext);
        ptx::cp_async_zfill<kBytes>(ptx::smem_addr(smem + (k + kb) * Tile::kPitch + o),
                                    in ? row + kb : base, in ? kBytes : 0);
      }
    }
  } else {
    constexpr int kVec = 16 / kBytes, kChunks = Tile::kO / kVec;  // chunks per k row
    constexpr int kRowStep = THREADS / kChunks, kSteps = Tile::kK / kRowStep;
    static_assert(THREADS % kChunks == 0 && Tile::kK % kRowStep == 0, "whole chunks a thread");
    const int o = (tid % kChunks) * kVec, k = tid / kChunks;
    const int64_t o_left = o_ext - (o0 + o);
    const int valid = o_left <= 0 ? 0 : o_left < kVec ? static_cast<int>(o_left) : kVec;
    const T* src = base + (k0 + k) * v.s_k + o0 + o;
    const int64_t step = kRowStep * v.s_k;
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int n = full || k0 + k + i * kRowStep < k_ext ? valid : 0;
      T* dst = smem + (k + i * kRowStep) * Tile::kPitch + o;
      if (v.vec16) {
        ptx::cp_async_16_zfill(ptx::smem_addr(dst), n > 0 ? src + i * step : base, n * kBytes);
      } else {
#pragma unroll
        for (int j = 0; j < kVec; ++j)
          ptx::cp_async_zfill<kBytes>(ptx::smem_addr(dst + j), j < n ? src + i * step + j : base,
                                      j < n ? kBytes : 0);
      }
    }
  }
}

}  // namespace gemmkit::simt
