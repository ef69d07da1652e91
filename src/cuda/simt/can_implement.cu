// Which problems the f32 / f64 kernels take (host code; a .cu file only because src/cuda globs
// *.cu).
#include <string>

#include "core/status.hpp"
#include "cuda/simt/simt.hpp"

namespace gemmkit::simt {

Status can_implement(const GemmDesc& d, DType t) {
  const std::string name(dtype_name(t));
  if (d.a.dtype != t || d.b.dtype != t)
    return GEMMKIT_UNSUPPORTED("the " + name + " CUDA kernels take A and B both " + name);
  if (d.c.dtype != t || d.d.dtype != t)
    return GEMMKIT_UNSUPPORTED("the " + name + " CUDA kernels write C and D in " + name);
  if (d.compute != t)
    return GEMMKIT_UNSUPPORTED("the " + name + " CUDA kernels accumulate in " + name);
  return {};
}

}  // namespace gemmkit::simt
