#include "core/epilogue_ref.hpp"

namespace gemmkit::core {

void reference_gemm_epilogue(const GemmDesc& d, const GemmArgs& args) {
  const ProblemView v = make_view(d);
  double amax = 0.0;
  reference_visit_epilogue(
      d, args, false,
      [&](std::int64_t l, std::int64_t i, std::int64_t j, double out, double) {
        store_element(d.d.dtype, args.d, l * d.d.batch_stride + i * v.d.row + j * v.d.col, out,
                      /*saturate=*/true);  // an fp8 D saturates (gemm.hpp)
      },
      &amax);
  if (d.epilogue.amax_d && !is_empty(d)) store_element(DType::F32, args.amax_d, 0, amax);
}

}  // namespace gemmkit::core
