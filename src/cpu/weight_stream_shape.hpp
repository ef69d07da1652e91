// Which problems the weight-only streaming path (weight_stream.hpp) takes; no ISA code here.
#pragma once
#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {

// K values per dequantized run of the streaming path: the group, 32 for MX (and without one).
inline std::int64_t weight_stream_group(const GemmDesc& d) {
  return d.scale_b.mode == ScaleMode::Group ? d.scale_b.group : 32;
}

// True when the problem takes the streaming path: f32 / bf16 / f16 A, integer or fp4 (e2m1) B
// with op(B) K-contiguous (an i4 / e2m1 B with an even ld and batch stride, so that every column
// starts on a byte), M <= 16, scales of B none / tensor / column / group (integers) / MX (fp4),
// K a multiple of the group (32 without one), and
// a D (and C) of f32 / bf16 / f16 with no output scale or amax (those take the packed driver).
inline bool weight_stream_applies(const GemmDesc& d) {
  const bool int_b = d.b.dtype == DType::I8 || d.b.dtype == DType::I4;
  const bool fp4_b = d.b.dtype == DType::E2M1 && d.scale_b.mode != ScaleMode::Group;
  const bool f32_a = d.a.dtype == DType::F32 || d.a.dtype == DType::BF16 || d.a.dtype == DType::F16;
  if (!(int_b || fp4_b) || !f32_a || d.compute != DType::F32) return false;
  if (int_b && d.scale_b.mode == ScaleMode::Mx) return false;
  const core::ProblemView v = core::make_view(d);
  if (v.b.row != 1 || d.m > 16 || d.m < 1) return false;
  if (d.b.dtype != DType::I8 && (v.b.col % 2 != 0 || d.b.batch_stride % 2 != 0)) return false;
  if (core::is_block_scale(d.scale_b.mode) || core::is_block_scale(d.scale_a.mode)) return false;
  for (DType t : {d.c.dtype, d.d.dtype})
    if (t == DType::E4M3 || t == DType::E5M2) return false;
  if (d.epilogue.scale_d || d.epilogue.amax_d) return false;
  return d.k % weight_stream_group(d) == 0;
}

// True when an f32 problem with few rows takes the same streaming path with B read in place
// (no dequantization, no packing): f32 everywhere, 2 <= M <= 16 (M = 1 is the GEMV), op(B)
// K-contiguous (the packed path would transpose all of B while packing it), K a multiple of
// 32, no block scales, output scale or amax. The packed driver's alternative packs the whole of
// B, once, for a handful of rows.
inline bool f32_stream_applies(const GemmDesc& d) {
  for (DType t : {d.a.dtype, d.b.dtype, d.c.dtype, d.d.dtype, d.compute})
    if (t != DType::F32) return false;
  if (d.m < 2 || d.m > 16 || d.k % 32 != 0) return false;
  if (core::make_view(d).b.row != 1) return false;
  if (core::is_block_scale(d.scale_b.mode) || core::is_block_scale(d.scale_a.mode)) return false;
  return !d.epilogue.scale_d && !d.epilogue.amax_d;
}

}  // namespace gemmkit::cpu
