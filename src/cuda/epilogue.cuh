// The direct-store epilogue shared by the CUDA kernels: D = alpha * acc + beta * C with BLAS
// semantics (C read only when beta != 0), f32 / f16 / bf16 output, predicated at the edges,
// element pairs stored at once where D's rows are contiguous and aligned. Accumulators arrive
// in the m16n8 fragment arrangement that mma.sync and wgmma share: for each 8-column block,
// {row g, cols 2t, 2t+1; row g+8, same cols} with g = lane / 4, t = lane % 4.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/problem.hpp"

namespace gemmkit::gpu {

using std::int64_t;

__device__ __forceinline__ float load_out(OutType t, const void* p, int64_t idx) {
  switch (t) {
    case OutType::F32:
      return static_cast<const float*>(p)[idx];
    case OutType::F16:
      return __half2float(static_cast<const __half*>(p)[idx]);
    default:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[idx]);
  }
}

__device__ __forceinline__ void store_out(OutType t, void* p, int64_t idx, float v) {
  switch (t) {
    case OutType::F32:
      static_cast<float*>(p)[idx] = v;
      break;
    case OutType::F16:
      static_cast<__half*>(p)[idx] = __float2half_rn(v);
      break;
    default:
      static_cast<__nv_bfloat16*>(p)[idx] = __float2bfloat16_rn(v);
      break;
  }
}

// alpha * acc + beta * C(row, col), reading C only when beta != 0.
__device__ __forceinline__ float epilogue_value(const Params& p, int64_t l, int64_t row,
                                                int64_t col, float acc) {
  float v = p.alpha * acc;
  if (p.read_c) {
    const int64_t idx = l * p.c.batch_stride + row * p.c.s_row + col * p.c.s_col;
    v += p.beta * load_out(p.c.type, p.c.ptr, idx);
  }
  return v;
}

// One output element, predicated on the bounds.
__device__ __forceinline__ void store_element(const Params& p, int64_t l, int64_t row, int64_t col,
                                              float acc) {
  if (row >= p.m || col >= p.n) return;
  const int64_t idx = l * p.d.batch_stride + row * p.d.s_row + col * p.d.s_col;
  store_out(p.d.type, p.d.ptr, idx, epilogue_value(p, l, row, col, acc));
}

// Elements (row, col) and (row, col + 1): one paired store when D's rows are contiguous and
// the pair is aligned, else two predicated element stores.
__device__ __forceinline__ void store_pair(const Params& p, int64_t l, int64_t row, int64_t col,
                                           float x, float y) {
  if (row >= p.m) return;
  const int64_t idx = l * p.d.batch_stride + row * p.d.s_row + col * p.d.s_col;
  const int esize = p.d.type == OutType::F32 ? 4 : 2;
  const auto addr = reinterpret_cast<std::uintptr_t>(p.d.ptr) + idx * esize;
  if (col + 1 < p.n && p.d.s_col == 1 && addr % (2 * esize) == 0) {
    const float v0 = epilogue_value(p, l, row, col, x);
    const float v1 = epilogue_value(p, l, row, col + 1, y);
    switch (p.d.type) {
      case OutType::F32:
        *reinterpret_cast<float2*>(addr) = make_float2(v0, v1);
        break;
      case OutType::F16:
        *reinterpret_cast<__half2*>(addr) = __floats2half2_rn(v0, v1);
        break;
      default:
        *reinterpret_cast<__nv_bfloat162*>(addr) = __floats2bfloat162_rn(v0, v1);
        break;
    }
    return;
  }
  store_element(p, l, row, col, x);
  store_element(p, l, row, col + 1, y);
}

// Element pairs of an output type: (x, y) as one 8- or 4-byte value and back.
template <class OutT>
struct OutPair;
template <>
struct OutPair<float> {
  using V = float2;
  __device__ static V pack(float x, float y) { return make_float2(x, y); }
  __device__ static float one(float x) { return x; }
  __device__ static float2 unpack(V v) { return v; }
};
template <>
struct OutPair<__half> {
  using V = __half2;
  __device__ static V pack(float x, float y) { return __floats2half2_rn(x, y); }
  __device__ static __half one(float x) { return __float2half_rn(x); }
  __device__ static float2 unpack(V v) { return __half22float2(v); }
};
template <>
struct OutPair<__nv_bfloat16> {
  using V = __nv_bfloat162;
  __device__ static V pack(float x, float y) { return __floats2bfloat162_rn(x, y); }
  __device__ static __nv_bfloat16 one(float x) { return __float2bfloat16_rn(x); }
  __device__ static float2 unpack(V v) { return __bfloat1622float2(v); }
};

// True when every element pair (row, 2j) of `o` is one aligned pair-sized access.
__device__ __forceinline__ bool pairs_aligned(const OutputView& o) {
  const int esize = o.type == OutType::F32 ? 4 : 2;
  return o.s_col == 1 && o.s_row % 2 == 0 && o.batch_stride % 2 == 0 &&
         reinterpret_cast<std::uintptr_t>(o.ptr) % (2 * esize) == 0;
}

// True when every row of `o` starts on 16 bytes (16-bit elements): 16-byte stores of 8
// elements at columns that are multiples of 8.
__device__ __forceinline__ bool rows_16b_aligned(const OutputView& o) {
  return o.type != OutType::F32 && o.s_col == 1 && o.s_row % 8 == 0 && o.batch_stride % 8 == 0 &&
         reinterpret_cast<std::uintptr_t>(o.ptr) % 16 == 0;
}

// Transposes 4 x 4 32-bit values across a lane quad: afterwards lane t holds, in a[i], what
// lane i held in a[t]. For output pairs of blocks 4q..4q+3 (lane t: columns 2t, 2t+1 of each
// 8-column block) lane t then holds the 8 contiguous elements of block 4q+t. Two rounds of
// shfl.xor, two values each.
__device__ __forceinline__ void quad_transpose(std::uint32_t (&a)[4], int t) {
#pragma unroll
  for (int s = 1; s <= 2; s <<= 1) {
    const bool upper = (t & s) != 0;
#pragma unroll
    for (int i0 = 0; i0 < 4; ++i0) {
      if (i0 & s) continue;
      const int i1 = i0 | s;
      const std::uint32_t recv = __shfl_xor_sync(0xffffffffu, upper ? a[i0] : a[i1], s);
      if (upper)
        a[i0] = recv;
      else
        a[i1] = recv;
    }
  }
}

// The common case of store_accumulators: the warp's tile inside M x N, D (and C when read,
// of D's type) with contiguous rows and aligned pairs. Row pointers are computed once per
// row and the output type once per warp: no bounds checks, no per-element address math.
// QUADS (16-bit D, rows on 16 bytes, NI a multiple of 4): each lane quad transposes its pairs
// so that a warp's store writes 64 contiguous bytes per row instead of 16 (whole sectors).
template <class OutT, bool QUADS, int MI, int NI>
__device__ __forceinline__ void store_tile_pairs(const Params& p, int64_t l,
                                                 const float (&acc)[MI][NI][4], int64_t row0,
                                                 int64_t col0, int lane) {
  using P = OutPair<OutT>;
  static_assert(!QUADS || (sizeof(OutT) == 2 && NI % 4 == 0), "quads: 16-bit pairs, 4 blocks");
  const int g = lane / 4, t = lane % 4;
  OutT* const d = static_cast<OutT*>(p.d.ptr) + l * p.d.batch_stride + col0;
  const OutT* const c = static_cast<const OutT*>(p.c.ptr) + l * p.c.batch_stride + col0 + 2 * t;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t row = row0 + mi * 16 + g + h * 8;
      OutT* const dr = d + row * p.d.s_row;
      const auto* cr = reinterpret_cast<const typename P::V*>(c + row * p.c.s_row);
      const auto value = [&](int ni) {
        float x = p.alpha * acc[mi][ni][2 * h], y = p.alpha * acc[mi][ni][2 * h + 1];
        if (p.read_c) {
          const float2 cv = P::unpack(cr[ni * 4]);
          x += p.beta * cv.x;
          y += p.beta * cv.y;
        }
        return P::pack(x, y);
      };
      if constexpr (QUADS) {
#pragma unroll
        for (int q = 0; q < NI / 4; ++q) {
          std::uint32_t v[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const typename P::V pair = value(4 * q + i);
            v[i] = *reinterpret_cast<const std::uint32_t*>(&pair);
          }
          quad_transpose(v, t);
          *reinterpret_cast<uint4*>(dr + 32 * q + 8 * t) = make_uint4(v[0], v[1], v[2], v[3]);
        }
      } else {
        auto* dp = reinterpret_cast<typename P::V*>(dr + 2 * t);
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) dp[ni * 4] = value(ni);
      }
    }
}

// Any tile of a D whose rows are contiguous (s_col == 1), at any alignment and at the edges:
// the output type resolved once, a pointer per row, pairs stored at once where the row start
// allows, single elements otherwise (a leading dimension that is not a multiple of 8, a D
// that starts off a pair boundary). C, when read, may be of another type.
template <class OutT, int MI, int NI>
__device__ __forceinline__ void store_tile_rows(const Params& p, int64_t l,
                                                const float (&acc)[MI][NI][4], int64_t row0,
                                                int64_t col0, int lane) {
  using P = OutPair<OutT>;
  const int g = lane / 4, t = lane % 4;
  OutT* const d = static_cast<OutT*>(p.d.ptr) + l * p.d.batch_stride;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t row = row0 + mi * 16 + g + h * 8;
      if (row >= p.m) continue;
      OutT* const dr = d + row * p.d.s_row;  // columns are even: pairs align with the row
      const bool paired = reinterpret_cast<std::uintptr_t>(dr) % sizeof(typename P::V) == 0;
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        const int64_t col = col0 + ni * 8 + 2 * t;
        if (col >= p.n) continue;
        const float x = epilogue_value(p, l, row, col, acc[mi][ni][2 * h]);
        if (col + 1 >= p.n) {
          dr[col] = P::one(x);
          continue;
        }
        const float y = epilogue_value(p, l, row, col + 1, acc[mi][ni][2 * h + 1]);
        if (paired) {
          *reinterpret_cast<typename P::V*>(dr + col) = P::pack(x, y);
        } else {
          dr[col] = P::one(x);
          dr[col + 1] = P::one(y);
        }
      }
    }
}

// True when the rows x cols block at (row0, col0) takes store_tile_pairs: inside M x N, D (and
// C when read, of D's type) with contiguous rows and aligned pairs.
__device__ __forceinline__ bool fast_tile(const Params& p, int64_t row0, int64_t col0, int rows,
                                          int cols) {
  return row0 + rows <= p.m && col0 + cols <= p.n && pairs_aligned(p.d) &&
         (!p.read_c || (p.c.type == p.d.type && pairs_aligned(p.c)));
}

// Stores a warp's accumulators whose top-left output is (row0, col0): mma tile (mi, ni)
// holds rows g and g + 8, columns 2t and 2t + 1 of its 16 x 8 block (g = lane/4, t = lane%4).
template <int MI, int NI>
__device__ __forceinline__ void store_accumulators(const Params& p, int64_t l,
                                                   const float (&acc)[MI][NI][4], int64_t row0,
                                                   int64_t col0, int lane) {
  if (fast_tile(p, row0, col0, 16 * MI, 8 * NI)) {
    const bool quads = NI % 4 == 0 && col0 % 8 == 0 && rows_16b_aligned(p.d);
    switch (p.d.type) {
      case OutType::F32:
        return store_tile_pairs<float, false>(p, l, acc, row0, col0, lane);
      case OutType::F16:
        return quads ? store_tile_pairs<__half, NI % 4 == 0>(p, l, acc, row0, col0, lane)
                     : store_tile_pairs<__half, false>(p, l, acc, row0, col0, lane);
      default:
        return quads ? store_tile_pairs<__nv_bfloat16, NI % 4 == 0>(p, l, acc, row0, col0, lane)
                     : store_tile_pairs<__nv_bfloat16, false>(p, l, acc, row0, col0, lane);
    }
  }
  if (p.d.s_col == 1) {
    switch (p.d.type) {
      case OutType::F32:
        return store_tile_rows<float>(p, l, acc, row0, col0, lane);
      case OutType::F16:
        return store_tile_rows<__half>(p, l, acc, row0, col0, lane);
      default:
        return store_tile_rows<__nv_bfloat16>(p, l, acc, row0, col0, lane);
    }
  }
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        store_pair(p, l, row0 + mi * 16 + g + h * 8, col0 + ni * 8 + 2 * t, acc[mi][ni][2 * h],
                   acc[mi][ni][2 * h + 1]);
}

}  // namespace gemmkit::gpu
