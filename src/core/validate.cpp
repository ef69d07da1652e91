#include "core/validate.hpp"

#include <cstdint>
#include <string>

#include "core/status.hpp"
#include "core/view.hpp"

namespace gemmkit::core {

bool is_input_dtype(DType t) noexcept {
  switch (t) {
    case DType::F64: case DType::F32: case DType::F16: case DType::BF16:
    case DType::E4M3: case DType::E5M2: case DType::I8: case DType::I4: case DType::E2M1:
      return true;
    default:
      return false;
  }
}

bool is_output_dtype(DType t) noexcept {
  switch (t) {
    case DType::F64: case DType::F32: case DType::F16: case DType::BF16:
    case DType::E4M3: case DType::E5M2: case DType::I32:
      return true;
    default:
      return false;
  }
}

namespace {

bool valid_op(Op o) { return o == Op::NoTrans || o == Op::Trans; }
bool valid_layout(Layout l) { return l == Layout::RowMajor || l == Layout::ColMajor; }
bool is_int(DType t) { return t == DType::I8 || t == DType::I4; }
bool valid_bias_mode(BiasMode b) {
  return b == BiasMode::None || b == BiasMode::Row || b == BiasMode::Column;
}
bool valid_activation(Activation a) {
  switch (a) {
    case Activation::None: case Activation::Relu: case Activation::GeluErf:
    case Activation::GeluTanh: case Activation::Silu:
      return true;
  }
  return false;
}
bool valid_scale_mode(ScaleMode s) {
  return s == ScaleMode::None || s == ScaleMode::Tensor || s == ScaleMode::Row ||
         s == ScaleMode::Column || varies_along_k(s);
}

// A scale descriptor: fp32 but for group scales (f16 / bf16 too), zero points with groups
// only; for block and group scales K in whole blocks, a layout, an ld that fits S.
Status check_scale(const GemmDesc& d, bool is_a) {
  const ScaleDesc& s = is_a ? d.scale_a : d.scale_b;
  const Arg arg = is_a ? Arg::ScaleA : Arg::ScaleB;
  const std::string name = is_a ? "scale_a" : "scale_b";
  const bool group = s.mode == ScaleMode::Group, mx = s.mode == ScaleMode::Mx;
  if (s.mode == ScaleMode::None) return {};
  if (mx ? s.dtype != DType::E8M0
         : !(s.dtype == DType::F32 || (group && (s.dtype == DType::F16 || s.dtype == DType::BF16))))
    return GEMMKIT_INVALID(arg, name +
                                    ".dtype must be f32 (f16 or bf16 too for group scales; "
                                    "e8m0 for MX)");
  const DType op = is_a ? d.a.dtype : d.b.dtype;
  if (mx && op != DType::E4M3 && op != DType::E5M2 && op != DType::E2M1)
    return GEMMKIT_INVALID(arg,
                           name + ": MX scales go with fp8 (e4m3 / e5m2) or fp4 (e2m1) operands");
  if (s.zero_points && !group)
    return GEMMKIT_INVALID(arg, name + ": zero points come with group scales only");
  if (group && !is_int(d.b.dtype))
    return GEMMKIT_INVALID(arg, name + ": group scales dequantize integer weights (B i8 / i4)");
  if (group && s.group != 32 && s.group != 64 && s.group != 128)
    return GEMMKIT_INVALID(arg,
                           name + ".group = " + std::to_string(s.group) + " is not 32, 64 or 128");
  if (!varies_along_k(s.mode)) return {};
  // A partial last K block would silently scale a tail by another block's scale.
  const std::int64_t block = group ? s.group : mx ? kMxBlock : kScaleBlock;
  if (d.k % block != 0)
    return GEMMKIT_INVALID(arg, name + ": K = " + std::to_string(d.k) +
                                    " is not a multiple of the " +
                                    (group ? "group "
                                     : mx  ? "MX block "
                                           : "scale block ") +
                                    std::to_string(block));
  if (!valid_layout(s.layout)) return GEMMKIT_INVALID(arg, name + ".layout is not row/col");
  const Extent e = is_a ? scale_extent_a(d) : scale_extent_b(d);
  if (s.ld < min_ld(s.layout, e))
    return GEMMKIT_INVALID(arg, name + ".ld = " + std::to_string(s.ld) + " is below max(1, " +
                                    (s.layout == Layout::ColMajor ? "rows" : "cols") +
                                    ") = " + std::to_string(min_ld(s.layout, e)) + " of its " +
                                    std::to_string(e.rows) + " x " + std::to_string(e.cols) +
                                    " blocks");
  return {};
}
bool is_bias_dtype(DType t) {
  return t == DType::F32 || t == DType::BF16 || t == DType::F16 || t == DType::F64;
}

Status check_ld(const MatrixDesc& m, Extent e, Arg arg, const char* what) {
  std::int64_t need = min_ld(m.layout, e);
  if (m.ld < need)
    return GEMMKIT_INVALID(arg, std::string(what) + " = " + std::to_string(m.ld) +
                                    " is below max(1, " +
                                    (m.layout == Layout::ColMajor ? "rows" : "cols") +
                                    ") = " + std::to_string(need));
  return {};
}

// [lo, hi) byte range of an operand over all batches, for overlap checks.
struct Range {
  std::uintptr_t lo = 0, hi = 0;
};
Range byte_range(const void* p, const MatrixDesc& m, Extent e, std::int64_t batch) {
  std::int64_t elems = footprint(m.layout, e, m.ld);
  if (elems == 0 || p == nullptr) return {};
  elems += (batch - 1) * m.batch_stride;
  std::int64_t bits = dtype_bits(m.dtype);
  auto lo = reinterpret_cast<std::uintptr_t>(p);
  return {lo, lo + static_cast<std::uintptr_t>((elems * bits + 7) / 8)};
}
bool overlaps(Range x, Range y) { return x.lo < y.hi && y.lo < x.hi && x.hi && y.hi; }

}  // namespace

Status validate_desc(const GemmDesc& d) {
  // netlib order first: a problem with several bad arguments reports the first of these.
  if (!valid_op(d.trans_a)) return GEMMKIT_INVALID(Arg::TransA, "trans_a is not NoTrans/Trans");
  if (!valid_op(d.trans_b)) return GEMMKIT_INVALID(Arg::TransB, "trans_b is not NoTrans/Trans");
  if (d.m < 0) return GEMMKIT_INVALID(Arg::M, "m = " + std::to_string(d.m) + " is negative");
  if (d.n < 0) return GEMMKIT_INVALID(Arg::N, "n = " + std::to_string(d.n) + " is negative");
  if (d.k < 0) return GEMMKIT_INVALID(Arg::K, "k = " + std::to_string(d.k) + " is negative");
  // A layout must be one of the two before a leading dimension can be judged.
  for (const MatrixDesc* m : {&d.a, &d.b, &d.c, &d.d})
    if (!valid_layout(m->layout)) return GEMMKIT_INVALID(Arg::Layout, "layout is not row/col");
  if (Status s = check_ld(d.a, stored_extent_a(d), Arg::Lda, "lda"); !s) return s;
  if (Status s = check_ld(d.b, stored_extent_b(d), Arg::Ldb, "ldb"); !s) return s;
  if (Status s = check_ld(d.c, stored_extent_cd(d), Arg::Ldc, "ldc"); !s) return s;
  if (Status s = check_ld(d.d, stored_extent_cd(d), Arg::Ldd, "ldd"); !s) return s;
  if (d.batch < 0)
    return GEMMKIT_INVALID(Arg::Batch, "batch = " + std::to_string(d.batch) + " is negative");
  // Strides: 0 broadcasts an input; D must not overlap itself across batches.
  if (d.a.batch_stride < 0) return GEMMKIT_INVALID(Arg::StrideA, "batch stride of A is negative");
  if (d.b.batch_stride < 0) return GEMMKIT_INVALID(Arg::StrideB, "batch stride of B is negative");
  if (d.c.batch_stride < 0) return GEMMKIT_INVALID(Arg::StrideC, "batch stride of C is negative");
  if (d.batch > 1 && d.d.batch_stride < footprint(d.d.layout, stored_extent_cd(d), d.d.ld))
    return GEMMKIT_INVALID(Arg::StrideD,
                           "batch stride of D is smaller than one D matrix: batches would "
                           "overwrite each other");
  // Data types: what the reference (the semantic spec) defines.
  if (!is_input_dtype(d.a.dtype))
    return GEMMKIT_INVALID(Arg::DTypeA, "dtype of A cannot be an input type");
  if (!is_input_dtype(d.b.dtype))
    return GEMMKIT_INVALID(Arg::DTypeB, "dtype of B cannot be an input type");
  if (!is_output_dtype(d.c.dtype))
    return GEMMKIT_INVALID(Arg::DTypeC, "dtype of C cannot be an output type");
  if (!is_output_dtype(d.d.dtype))
    return GEMMKIT_INVALID(Arg::DTypeD, "dtype of D cannot be an output type");
  // Weight-only quantization: floating activations A against integer weights B.
  const bool weight_only = !is_int(d.a.dtype) && is_int(d.b.dtype);
  if (is_int(d.a.dtype) != is_int(d.b.dtype) &&
      !(weight_only &&
        (d.a.dtype == DType::F32 || d.a.dtype == DType::BF16 || d.a.dtype == DType::F16)))
    return GEMMKIT_INVALID(Arg::DTypeB,
                           "A and B must both be integer or both floating, or A f32 / bf16 / f16 "
                           "with integer weights B (weight-only)");
  const bool integer = is_int(d.a.dtype) && is_int(d.b.dtype);
  if (integer ? d.compute != DType::I32
              : (d.compute != DType::F32 && d.compute != DType::F64))
    return GEMMKIT_INVALID(Arg::ComputeType, integer
                                                 ? "integer inputs accumulate in i32"
                                                 : "floating inputs accumulate in f32 or f64");
  if (!integer && d.d.dtype == DType::I32)
    return GEMMKIT_INVALID(Arg::DTypeD, "an i32 output needs integer inputs");
  // The fused epilogue: modes the reference defines, on floating outputs (i32 D is exact).
  if (!valid_bias_mode(d.epilogue.bias))
    return GEMMKIT_INVALID(Arg::Epilogue, "epilogue.bias is not none/row/column");
  if (!valid_activation(d.epilogue.act))
    return GEMMKIT_INVALID(Arg::Epilogue,
                           "epilogue.act is not none/relu/gelu_erf/gelu_tanh/silu");
  // Scales: per tensor, per row of op(A), per column of op(B), per block.
  if (!valid_scale_mode(d.scale_a.mode) || d.scale_a.mode == ScaleMode::Column ||
      d.scale_a.mode == ScaleMode::Group)
    return GEMMKIT_INVALID(Arg::ScaleA,
                           "scale_a.mode is not none/tensor/row/block1x128/block128x128/mx");
  if (!valid_scale_mode(d.scale_b.mode) || d.scale_b.mode == ScaleMode::Row)
    return GEMMKIT_INVALID(
        Arg::ScaleB, "scale_b.mode is not none/tensor/column/block1x128/block128x128/group/mx");
  if (Status s = check_scale(d, true); !s) return s;
  if (Status s = check_scale(d, false); !s) return s;
  if (integer && (d.scale_a.mode != ScaleMode::None || d.scale_b.mode != ScaleMode::None))
    return GEMMKIT_INVALID(d.scale_a.mode != ScaleMode::None ? Arg::ScaleA : Arg::ScaleB,
                           "an integer GEMM (exact i32 output) takes no scales");
  if (integer && has_epilogue(d))
    return GEMMKIT_INVALID(Arg::Epilogue, "an integer GEMM takes no bias or activation");
  if (d.epilogue.bias != BiasMode::None && !is_bias_dtype(d.epilogue.bias_dtype))
    return GEMMKIT_INVALID(Arg::DTypeBias, "dtype of the bias must be f32, bf16, f16 or f64");
  return {};
}

Status validate_args(const GemmDesc& d, const GemmArgs& a) {
  if (is_empty(d)) return {};  // quick return: any pointers are fine
  const bool reads_ab = a.alpha != 0.0 && d.k > 0;
  if (reads_ab && a.a == nullptr) return GEMMKIT_INVALID(Arg::A, "A is null");
  if (reads_ab && a.b == nullptr) return GEMMKIT_INVALID(Arg::B, "B is null");
  if (a.beta != 0.0 && a.c == nullptr) return GEMMKIT_INVALID(Arg::C, "C is null and beta != 0");
  if (a.d == nullptr) return GEMMKIT_INVALID(Arg::D, "D is null");
  const Extent cd = stored_extent_cd(d);
  const Range rd = byte_range(a.d, d.d, cd, d.batch);
  if (a.d == a.c && a.c != nullptr) {
    // D may alias C exactly: the same matrix, element for element.
    if (d.c.dtype != d.d.dtype || d.c.layout != d.d.layout || d.c.ld != d.d.ld ||
        d.c.batch_stride != d.d.batch_stride)
      return GEMMKIT_INVALID(Arg::D, "D aliases C with a different dtype, layout, ld or stride");
  } else if (a.beta != 0.0 && overlaps(rd, byte_range(a.c, d.c, cd, d.batch))) {
    return GEMMKIT_INVALID(Arg::D, "D partially overlaps C");
  }
  if (reads_ab && overlaps(rd, byte_range(a.a, d.a, stored_extent_a(d), d.batch)))
    return GEMMKIT_INVALID(Arg::D, "D overlaps A");
  if (reads_ab && overlaps(rd, byte_range(a.b, d.b, stored_extent_b(d), d.batch)))
    return GEMMKIT_INVALID(Arg::D, "D overlaps B");
  // Scales: read with A and B (so only when alpha != 0 and K > 0); 1, M or N fp32 values.
  for (const bool is_a : {true, false}) {
    const ScaleMode mode = is_a ? d.scale_a.mode : d.scale_b.mode;
    const void* p = is_a ? a.scale_a : a.scale_b;
    const Arg arg = is_a ? Arg::ScaleA : Arg::ScaleB;
    if (mode == ScaleMode::None || !reads_ab) continue;
    if (p == nullptr) return GEMMKIT_INVALID(arg, is_a ? "scale_a is null" : "scale_b is null");
    const ScaleDesc& sd = is_a ? d.scale_a : d.scale_b;
    const Extent e = is_a ? scale_extent_a(d) : scale_extent_b(d);
    const bool grid = varies_along_k(mode);
    const MatrixDesc s{.dtype = sd.dtype,
                       .layout = grid ? sd.layout : Layout::ColMajor,
                       .ld = grid ? sd.ld : e.rows * e.cols};
    const Extent flat = grid ? e : Extent{e.rows * e.cols, 1};
    if (overlaps(rd, byte_range(p, s, flat, 1)))
      return GEMMKIT_INVALID(Arg::D, is_a ? "D overlaps scale_a" : "D overlaps scale_b");
    if (!is_a && sd.zero_points) {  // Z: laid out as S
      if (a.zero_b == nullptr) return GEMMKIT_INVALID(arg, "zero_b is null and zero_points set");
      if (overlaps(rd, byte_range(a.zero_b, s, flat, 1)))
        return GEMMKIT_INVALID(Arg::D, "D overlaps zero_b");
    }
  }
  if (d.epilogue.bias != BiasMode::None) {
    // M (row) or N (column) contiguous values, read by every batch entry.
    if (a.bias == nullptr)
      return GEMMKIT_INVALID(Arg::Bias, "bias is null and epilogue.bias is set");
    const std::int64_t len = d.epilogue.bias == BiasMode::Row ? d.m : d.n;
    const MatrixDesc bias{.dtype = d.epilogue.bias_dtype, .layout = Layout::ColMajor, .ld = len};
    if (overlaps(rd, byte_range(a.bias, bias, {len, 1}, 1)))
      return GEMMKIT_INVALID(Arg::D, "D overlaps the bias");
  }
  // The output's scale (read on every call, whatever alpha and K) and amax (one f32 written,
  // first of all, so it may share no byte with an operand).
  const MatrixDesc one{.dtype = DType::F32, .layout = Layout::ColMajor, .ld = 1};
  if (d.epilogue.scale_d) {
    if (a.scale_d == nullptr)
      return GEMMKIT_INVALID(Arg::ScaleD, "scale_d is null and epilogue.scale_d is set");
    if (overlaps(rd, byte_range(a.scale_d, one, {1, 1}, 1)))
      return GEMMKIT_INVALID(Arg::D, "D overlaps scale_d");
  }
  if (d.epilogue.amax_d) {
    if (a.amax_d == nullptr)
      return GEMMKIT_INVALID(Arg::AmaxD, "amax_d is null and epilogue.amax_d is set");
    const Range ra = byte_range(a.amax_d, one, {1, 1}, 1);
    const Range inputs[] = {
        rd,
        reads_ab ? byte_range(a.a, d.a, stored_extent_a(d), d.batch) : Range{},
        reads_ab ? byte_range(a.b, d.b, stored_extent_b(d), d.batch) : Range{},
        a.beta != 0.0 ? byte_range(a.c, d.c, cd, d.batch) : Range{},
        d.epilogue.scale_d ? byte_range(a.scale_d, one, {1, 1}, 1) : Range{},
    };
    for (const Range& r : inputs)
      if (overlaps(ra, r))
        return GEMMKIT_INVALID(Arg::AmaxD, "amax_d overlaps D, A, B, C or scale_d");
  }
  return {};
}

}  // namespace gemmkit::core
