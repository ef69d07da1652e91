// Workspace sizes of the tensor-parallel operations (dist.hpp): always compiled.
#include "gemmkit/dist.hpp"

namespace gemmkit::dist {
namespace {

std::size_t bytes(std::int64_t rows, std::int64_t cols, DType t) {
  if (rows <= 0 || cols <= 0) return 0;
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) *
         static_cast<std::size_t>(dtype_bits(t)) / 8;
}

}  // namespace

std::size_t column_parallel_workspace(const GemmDesc& d) { return bytes(d.m, d.k, d.a.dtype); }

std::size_t row_parallel_workspace(const GemmDesc& d, const TpOptions& tp) {
  return tp.reduce == RowReduce::AllReduce ? 0 : bytes(d.m, d.n, d.d.dtype);
}

}  // namespace gemmkit::dist
