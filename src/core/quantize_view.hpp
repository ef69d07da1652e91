// The part every quantizer (quantize.cpp, quantize_weights.cpp) shares: the source's descriptor
// checked, and element (r, p) of op(X) located in the source and in the destination operand
// (r the M index of op(A) or the N index of op(B), p the K index).
#pragma once
#include <string>

#include "core/status.hpp"
#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::core {

struct QuantizeView {
  Strides src, dst;       // of (r, p)
  std::int64_t rows = 0;  // M of op(A) or N of op(B)
  MatrixDesc source;      // src_desc with its ld defaulted
};

// `d` validated and ld-defaulted; `name` is the quantizer's, for the messages.
inline Status quantize_view(const GemmDesc& d, bool is_a, const MatrixDesc& src_desc,
                            const char* name, QuantizeView* out) {
  const Arg operand = is_a ? Arg::A : Arg::B;
  if (src_desc.dtype != DType::F32 && src_desc.dtype != DType::BF16 && src_desc.dtype != DType::F16)
    return GEMMKIT_INVALID(operand,
                           std::string("the source of ") + name + " must be f32, bf16 or f16");
  const Extent e = is_a ? stored_extent_a(d) : stored_extent_b(d);
  MatrixDesc s = src_desc;
  if (s.layout != Layout::RowMajor && s.layout != Layout::ColMajor)
    return GEMMKIT_INVALID(Arg::Layout, "the source layout is not row/col");
  if (s.ld == 0) s.ld = min_ld(s.layout, e);
  if (s.ld < min_ld(s.layout, e))
    return GEMMKIT_INVALID(is_a ? Arg::Lda : Arg::Ldb, "the source's ld is below its rows/cols");
  const Op t = is_a ? d.trans_a : d.trans_b;
  auto view = [&](Strides st) {  // strides of (r, p): op(A) as is, op(B) transposed
    const Strides o = op_strides(st, t);
    return is_a ? o : Strides{o.col, o.row};
  };
  const MatrixDesc& m = is_a ? d.a : d.b;
  *out = {view(stored_strides(s.layout, s.ld)), view(stored_strides(m.layout, m.ld)),
          is_a ? d.m : d.n, s};
  return {};
}

}  // namespace gemmkit::core
