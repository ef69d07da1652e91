#ifndef GEMMKIT_HAVE_CUDA
#include "bench/reference_device.hpp"

namespace gemmkit::bench {

bool reference_on_device(const GemmDesc&, const GemmArgs&, bool, ReferenceMatrix*,
                         std::string* err) {
  if (err) *err = "gemmkit was built without CUDA";
  return false;
}

}  // namespace gemmkit::bench
#endif
