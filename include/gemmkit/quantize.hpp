// gemmkit quantization helpers (issue 13): build the low-precision operands of a GemmDesc, and
// their scales, from f32 / bf16 / f16 values.
#pragma once
#include "gemmkit/gemm.hpp"

namespace gemmkit {

// fp8 from the amax. Quantizes op(X) of operand A (`operand` == Arg::A) or B (Arg::B) of `desc`:
//   src        the values, `src_desc` (f32, bf16 or f16; layout and ld of its own; the
//              transpose and the stored shape are the operand's, batch 1);
//   dst        the operand as `desc` describes it (desc.a / desc.b: dtype e4m3 or e5m2, layout,
//              ld); only its elements are written, never the gaps of ld;
//   scales     the operand's scale (desc.scale_a / scale_b: Tensor, Row of op(A) or Column of
//              op(B), Block1x128, Block128x128; layout and ld as in gemm.hpp): for each group
//              of elements G, s_G = amax_G / fmax (fmax 448 for e4m3, 57344 for e5m2; rounded to
//              f32), or 1 when amax_G is 0 or not finite; then x -> to_fp8(x / s_G, saturate),
//              so that x ~ q * s_G, which is what gemm() computes with these scales.
//              ScaleMode::None quantizes with s = 1 (values beyond fmax saturate) and writes no
//              scale. ScaleMode::Mx (MXFP8) writes e8m0 codes, as the OCP MX specification
//              derives them: X = 2^(floor(log2 amax) - emax), emax 8 for e4m3 and 15 for e5m2
//              (clamped to 2^-127 .. 2^127; 1 for a zero or non-finite amax), then
//              x -> to_fp8(x / X, saturate).
// NaN stays NaN (e4m3 S.1111.111, e5m2 a quiet NaN); +-Inf saturates to +-fmax.
// Returns InvalidValue naming the argument (the descriptor's, or Arg::A / Arg::B for a null or
// a source descriptor that is not f32 / bf16 / f16); writes nothing then.
Status quantize_fp8(const GemmDesc& desc, Arg operand, const MatrixDesc& src_desc, const void* src,
                    void* dst, void* scales);

}  // namespace gemmkit
