#include "core/describe.hpp"

namespace gemmkit::core {

std::string dtypes_string(const GemmDesc& d) {
  std::string s;
  for (DType t : {d.a.dtype, d.b.dtype, d.c.dtype, d.d.dtype, d.compute}) {
    if (!s.empty()) s += '/';
    s += dtype_name(t);
  }
  return s;
}

}  // namespace gemmkit::core
