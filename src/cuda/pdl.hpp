// Programmatic dependent launch, one switch for every gemmkit kernel launched with it (the
// sm90 GEMM and its split-K reduction, the decode row-block kernel, the small-N kernel): each
// such kernel waits (cudaGridDependencySynchronize) before its first global access, so only
// its launch and set-up overlap the kernel before it. GEMMKIT_PDL=0 launches them without it
// (to measure what it gives).
#pragma once
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

namespace gemmkit::gpu {

inline bool pdl_enabled() {
  static const bool pdl = [] {
    const char* e = std::getenv("GEMMKIT_PDL");
    return e == nullptr || std::string(e) != "0";
  }();
  return pdl;
}

// The launch attribute that allows it, for the `attrs` of a cudaLaunchKernelEx configuration.
inline cudaLaunchAttribute pdl_attribute() {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  return a;
}

}  // namespace gemmkit::gpu
