#include "core/reference.hpp"

namespace gemmkit::core {

void reference_gemm(const GemmDesc& d, const GemmArgs& args) {
  const ProblemView v = make_view(d);
  reference_visit(d, args, false,
                  [&](std::int64_t l, std::int64_t i, std::int64_t j, double out, double) {
                    store_element(d.d.dtype, args.d,
                                  l * d.d.batch_stride + i * v.d.row + j * v.d.col, out,
                                  /*saturate=*/true);  // an fp8 D saturates (gemm.hpp)
                  });
}

}  // namespace gemmkit::core
