// gemmkit quantization helpers: build the low-precision operands of a GemmDesc, and
// their scales, from f32 / bf16 / f16 values: fp8 and fp4 (MXFP8 / MXFP4 with MX scales) from
// the amax, integer weights with group scales and zero points.
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

// fp4 (e2m1) from the amax: quantize_fp8 for an operand of dtype E2M1 (two a byte, low nibble
// first; only the operand's nibbles are written), fmax 6. With ScaleMode::Mx this is MXFP4 as
// the OCP MX v1.0 specification derives it: X = 2^(floor(log2 amax) - 2) (emax of e2m1 is 2),
// so amax / X lies in [4, 8) and the elements beyond 6 saturate; x -> to_e2m1(x / X), rounded to
// nearest even. e2m1 has no NaN: a group holding a NaN gets a NaN scale (e8m0 0xFF, or an f32
// NaN), which makes the products of that group NaN in gemm(), as a NaN element would; its
// elements are written as to_e2m1 gives them (NaN -> 0). With ScaleMode::None there is no scale
// to carry it, so a NaN in the source is refused (InvalidValue naming Arg::A / Arg::B).
// +-Inf saturates to +-6, its group's scale 1 (as quantize_fp8).
Status quantize_fp4(const GemmDesc& desc, Arg operand, const MatrixDesc& src_desc, const void* src,
                    void* dst, void* scales);

// Integer weights for the weight-only GEMM (w8a16 / w4a16: gemm.hpp's ScaleMode::Group).
// Quantizes op(B) of `desc` (B i8 or i4; scale_b Group: its group of 32 / 64 / 128 K, dtype f32 /
// f16 / bf16, layout, ld and zero_points) from `src` (f32, bf16 or f16, `src_desc` as in
// quantize_fp8) into `dst` (B as desc.b describes it; only its elements are written), the group
// scales S into `scales` and, with zero_points, the zero points Z into `zeros`, laid out as
// gemm() reads them, so that gemm() computes with w = (q - z) * s:
//   symmetric (no zero points)  s = amax / qmax with qmax 127 (i8) or 7 (i4),
//                               q = rne(x / s), in [-qmax, qmax];
//   asymmetric (zero points)    lo = min(min x, 0), hi = max(max x, 0) (0 stays exact),
//                               s = (hi - lo) / (qmax - qmin) with [qmin, qmax] = [-128, 127]
//                               or [-8, 7], z = qmin - rne(lo / s) (an integer),
//                               q = clamp(rne(x / s) + z, qmin, qmax).
// s is stored in the scale dtype rounded up (never below the exact quotient, so that no q is
// clipped in the symmetric form), q is computed from the stored s; a group of zeros gets s = 1
// (and z = 0 symmetric, z = qmin asymmetric). Values exactly q * s with a stored s round-trip
// exactly; every other x is within half a step: |x - w| <= s / 2 (in the asymmetric form too:
// hi - lo <= 15 s or 255 s, so a q clamped at qmax is still the nearest). A source value that is
// NaN or +-Inf is refused (InvalidValue naming Arg::B), and so is a scale past the range of its
// dtype (Arg::ScaleB). Errors name the argument and write nothing.
Status quantize_weights(const GemmDesc& desc, const MatrixDesc& src_desc, const void* src,
                        void* dst, void* scales, void* zeros = nullptr);

}  // namespace gemmkit
