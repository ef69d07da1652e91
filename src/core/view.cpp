#include "core/view.hpp"

#include <bit>

#include "gemmkit/convert.hpp"

namespace gemmkit {

Extent stored_extent_a(const GemmDesc& d) noexcept {
  return d.trans_a == Op::NoTrans ? Extent{d.m, d.k} : Extent{d.k, d.m};
}
Extent stored_extent_b(const GemmDesc& d) noexcept {
  return d.trans_b == Op::NoTrans ? Extent{d.k, d.n} : Extent{d.n, d.k};
}
Extent stored_extent_cd(const GemmDesc& d) noexcept { return Extent{d.m, d.n}; }

namespace {
std::int64_t blocks(std::int64_t x) { return (x + kScaleBlock - 1) / kScaleBlock; }
}  // namespace
Extent scale_extent_a(const GemmDesc& d) noexcept {
  switch (d.scale_a.mode) {
    case ScaleMode::Tensor:
      return {1, 1};
    case ScaleMode::Row:
      return {d.m, 1};
    case ScaleMode::Block1x128:
      return {d.m, d.k / kScaleBlock};
    case ScaleMode::Block128x128:
      return {blocks(d.m), d.k / kScaleBlock};
    case ScaleMode::Mx:
      return {d.m, d.k / kMxBlock};
    default:
      return {0, 0};
  }
}
Extent scale_extent_b(const GemmDesc& d) noexcept {
  switch (d.scale_b.mode) {
    case ScaleMode::Tensor:
      return {1, 1};
    case ScaleMode::Column:
      return {1, d.n};
    case ScaleMode::Block1x128:
      return {d.k / kScaleBlock, d.n};
    case ScaleMode::Block128x128:
      return {d.k / kScaleBlock, blocks(d.n)};
    case ScaleMode::Group:
      return {d.scale_b.group > 0 ? d.k / d.scale_b.group : 0, d.n};
    case ScaleMode::Mx:
      return {d.k / kMxBlock, d.n};
    default:
      return {0, 0};
  }
}

namespace {
// The smallest legal leading dimension of a stored rows x cols matrix: max(1, rows) for
// column-major, max(1, cols) for row-major (what BLAS calls LDA >= max(1, nrowa)).
std::int64_t packed_ld(Layout l, Extent e) noexcept {
  std::int64_t v = l == Layout::ColMajor ? e.rows : e.cols;
  return v < 1 ? 1 : v;
}
}  // namespace

GemmDesc with_default_lds(GemmDesc d) noexcept {
  if (d.a.ld == 0) d.a.ld = packed_ld(d.a.layout, stored_extent_a(d));
  if (d.b.ld == 0) d.b.ld = packed_ld(d.b.layout, stored_extent_b(d));
  if (d.c.ld == 0) d.c.ld = packed_ld(d.c.layout, stored_extent_cd(d));
  if (d.d.ld == 0) d.d.ld = packed_ld(d.d.layout, stored_extent_cd(d));
  if (d.scale_a.ld == 0 && core::varies_along_k(d.scale_a.mode))
    d.scale_a.ld = packed_ld(d.scale_a.layout, scale_extent_a(d));
  if (d.scale_b.ld == 0 && core::varies_along_k(d.scale_b.mode))
    d.scale_b.ld = packed_ld(d.scale_b.layout, scale_extent_b(d));
  return d;
}

namespace core {

std::int64_t min_ld(Layout l, Extent e) noexcept { return packed_ld(l, e); }

ProblemView make_view(const GemmDesc& d) noexcept {
  return ProblemView{
      .a = op_strides(stored_strides(d.a.layout, d.a.ld), d.trans_a),
      .b = op_strides(stored_strides(d.b.layout, d.b.ld), d.trans_b),
      .c = stored_strides(d.c.layout, d.c.ld),
      .d = stored_strides(d.d.layout, d.d.ld),
  };
}

GemmDesc with_packed_batch_strides(GemmDesc d) noexcept {
  if (d.batch <= 1) return d;
  const GemmDesc p = with_default_lds(d);
  d.a.batch_stride = footprint(p.a.layout, stored_extent_a(p), p.a.ld);
  d.b.batch_stride = footprint(p.b.layout, stored_extent_b(p), p.b.ld);
  d.c.batch_stride = footprint(p.c.layout, stored_extent_cd(p), p.c.ld);
  d.d.batch_stride = footprint(p.d.layout, stored_extent_cd(p), p.d.ld);
  return d;
}

}  // namespace core
}  // namespace gemmkit

namespace gemmkit::core {

KScale k_scale(const GemmDesc& d, const void* p, const void* zero, bool is_a) noexcept {
  const ScaleDesc& sd = is_a ? d.scale_a : d.scale_b;
  if (!varies_along_k(sd.mode)) return {};
  const Strides s = stored_strides(sd.layout, sd.ld);  // of S: (rows, cols)
  KScale b;
  b.base = p;
  // A: S_A(i-block, p-block) -> s as is. B: S_B(p-block, j-block) seen as (j-block, p-block).
  b.s = is_a ? s : Strides{s.col, s.row};
  b.rshift = sd.mode == ScaleMode::Block128x128 ? 7 : 0;
  b.kshift = sd.mode == ScaleMode::Group ? std::countr_zero(std::uint64_t(sd.group))
             : sd.mode == ScaleMode::Mx  ? 5
                                         : 7;
  b.dtype = sd.dtype;
  b.zero = sd.mode == ScaleMode::Group && sd.zero_points ? zero : nullptr;
  return b;
}

float KScale::load(const void* p, std::int64_t idx) const noexcept {
  switch (dtype) {
    case DType::F16:
      return f16_to_float(static_cast<const std::uint16_t*>(p)[idx]);
    case DType::BF16:
      return bf16_to_float(static_cast<const std::uint16_t*>(p)[idx]);
    case DType::E8M0:
      return e8m0_to_float(static_cast<const std::uint8_t*>(p)[idx]);
    default:
      return static_cast<const float*>(p)[idx];
  }
}

}  // namespace gemmkit::core
