// Which problems the 16-bit CUDA kernels take, and the canonical problem they run (host code;
// a .cu file only because src/cuda globs *.cu).
#include <cstdint>

#include "core/status.hpp"
#include "core/view.hpp"
#include "cuda/problem.hpp"

namespace gemmkit::gpu {

namespace {

bool is_out_type(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

OutType out_type(DType t) {
  switch (t) {
    case DType::F64:
      return OutType::F64;
    case DType::F32:
      return OutType::F32;
    case DType::F16:
      return OutType::F16;
    default:
      return OutType::BF16;
  }
}

InType in_type(DType t) {
  switch (t) {
    case DType::F64:
      return InType::F64;
    case DType::F32:
      return InType::F32;
    case DType::F16:
      return InType::F16;
    default:
      return InType::BF16;
  }
}

// 16-byte copies need the contiguous stride to be 1, every row start 16-byte aligned (the
// other stride and the batch stride multiples of `chunk` = 16 bytes of elements) and a
// 16-byte aligned base.
bool vec16_ok(const void* ptr, std::int64_t s_contig, std::int64_t s_other, std::int64_t batch,
              std::int64_t batch_stride, std::int64_t chunk) {
  return s_contig == 1 && s_other % chunk == 0 && (batch <= 1 || batch_stride % chunk == 0) &&
         reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0;
}

OperandView operand(const void* ptr, std::int64_t s_outer, std::int64_t s_k,
                    std::int64_t batch_stride, std::int64_t batch, DType t) {
  const std::int64_t chunk = 128 / dtype_bits(t);  // elements per 16 bytes
  OperandView v{ptr, s_outer, s_k, batch_stride, false};
  v.vec16 = s_k == 1 ? vec16_ok(ptr, s_k, s_outer, batch, batch_stride, chunk)
                     : vec16_ok(ptr, s_outer, s_k, batch, batch_stride, chunk);
  return v;
}

}  // namespace

Status check_16bit_problem(const GemmDesc& d) {
  const bool half_in = (d.a.dtype == DType::BF16 || d.a.dtype == DType::F16);
  if (!half_in || d.b.dtype != d.a.dtype)
    return GEMMKIT_UNSUPPORTED("the CUDA kernels take A and B both bf16 or both fp16");
  if (!is_out_type(d.c.dtype) || !is_out_type(d.d.dtype))
    return GEMMKIT_UNSUPPORTED("the CUDA kernels write f32, f16 or bf16 (C and D)");
  if (d.compute != DType::F32)
    return GEMMKIT_UNSUPPORTED("the CUDA kernels accumulate in f32 (mma.sync)");
  return {};
}

Problem make_problem(const GemmDesc& d, const GemmArgs& args, bool large_m) {
  const core::ProblemView v = core::make_view(d);
  // D column-major: run D^T = op(B)^T op(A)^T instead, so that D's rows are contiguous.
  const bool swap = large_m ? d.n > d.m : v.d.row == 1 && v.d.col != 1;
  Problem pr;
  pr.batch = d.batch;
  pr.in = in_type(d.a.dtype);
  Params& p = pr.params;
  p.m = swap ? d.n : d.m;
  p.n = swap ? d.m : d.n;
  p.k = d.k;
  // op(A)(i, q) = a[i * v.a.row + q * v.a.col]; op(B)(q, j) = b[q * v.b.row + j * v.b.col].
  const OperandView a = operand(args.a, v.a.row, v.a.col, d.a.batch_stride, d.batch, d.a.dtype);
  const OperandView b = operand(args.b, v.b.col, v.b.row, d.b.batch_stride, d.batch, d.b.dtype);
  p.a = swap ? b : a;
  p.b = swap ? a : b;
  const auto out = [&](void* ptr, core::Strides s, const MatrixDesc& m) {
    return swap ? OutputView{ptr, s.col, s.row, m.batch_stride, out_type(m.dtype)}
                : OutputView{ptr, s.row, s.col, m.batch_stride, out_type(m.dtype)};
  };
  p.c = out(const_cast<void*>(args.c), v.c, d.c);
  p.d = out(args.d, v.d, d.d);
  p.alpha = static_cast<float>(args.alpha);
  p.beta = static_cast<float>(args.beta);
  p.read_ab = args.alpha != 0.0 && d.k > 0;
  p.read_c = args.beta != 0.0;
  pr.a_kmajor = p.a.s_k == 1;
  pr.b_kmajor = p.b.s_k == 1;
  return pr;
}

}  // namespace gemmkit::gpu
