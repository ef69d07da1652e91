// Which problems the weight-only streaming path (weight_stream.hpp) takes; no ISA code here.
#pragma once
#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {

// True when the problem takes the streaming path: floating A, integer B with op(B) K-contiguous
// (an i4 B with an even ld and batch stride, so that every column starts on a byte), M <= 16,
// scales of B none / tensor / column / group, K a multiple of the group (32 without one), and
// a D (and C) of f32 / bf16 / f16 with no output scale or amax (those take the packed driver).
inline bool weight_stream_applies(const GemmDesc& d) {
  const bool int_b = d.b.dtype == DType::I8 || d.b.dtype == DType::I4;
  if (!int_b || d.a.dtype == DType::I8 || d.a.dtype == DType::I4 || d.compute != DType::F32)
    return false;
  const core::ProblemView v = core::make_view(d);
  if (v.b.row != 1 || d.m > 16 || d.m < 1) return false;
  if (d.b.dtype == DType::I4 && (v.b.col % 2 != 0 || d.b.batch_stride % 2 != 0)) return false;
  if (core::is_block_scale(d.scale_b.mode) || core::is_block_scale(d.scale_a.mode)) return false;
  for (DType t : {d.c.dtype, d.d.dtype})
    if (t == DType::E4M3 || t == DType::E5M2) return false;
  if (d.epilogue.scale_d || d.epilogue.amax_d) return false;
  const std::int64_t g = d.scale_b.mode == ScaleMode::Group ? d.scale_b.group : 32;
  return d.k % g == 0;
}

}  // namespace gemmkit::cpu
