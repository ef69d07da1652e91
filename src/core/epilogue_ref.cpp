#include "core/epilogue_ref.hpp"

namespace gemmkit::core {

void reference_gemm_epilogue(const GemmDesc& d, const GemmArgs& args) {
  const ProblemView v = make_view(d);
  reference_visit_epilogue(
      d, args, false, [&](std::int64_t l, std::int64_t i, std::int64_t j, double out, double) {
        store_element(d.d.dtype, args.d, l * d.d.batch_stride + i * v.d.row + j * v.d.col, out);
      });
}

}  // namespace gemmkit::core
