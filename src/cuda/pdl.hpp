// Programmatic dependent launch, one switch for every gemmkit kernel launched with it (the
// sm90 GEMM and its split-K reduction, the decode row-block kernel): each such kernel waits
// (cudaGridDependencySynchronize) before its first global access, so only its launch, its
// set-up and L2 prefetches (which bring nothing into the SM) overlap the kernel before it.
// GEMMKIT_PDL=0 launches them without it (to measure what it gives).
#pragma once
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

// Whether kernels launched with it ask the L2 for the first stages of their operands before
// the dependency wait (the sm90 producer's first ring, the decode row-block kernel's weight).
// Off unless GEMMKIT_L2_PREFETCH=1: measured slower on the H200 (4 x 4096 x 4096 decode 16.9
// against 13.9 us, split-K 256 x 256 x 32768 21.6 against 19.2 us, same run); kept to find out
// why. It needs programmatic launch to overlap anything.
inline bool early_prefetch_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("GEMMKIT_L2_PREFETCH");
    return pdl_enabled() && e != nullptr && std::string(e) == "1";
  }();
  return on;
}

}  // namespace gemmkit::gpu
