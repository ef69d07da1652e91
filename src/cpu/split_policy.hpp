// When the CPU variants apply, as data the registry's can_implement and the kernels share.
#pragma once
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {

// Split count for split-K (0: data-parallel keeps the cores busy, or K is too short to pay for
// the partial buffers). Depends on the problem and the core count only, never on
// Options::threads, so results are bitwise reproducible.
int splitk_default_splits(const GemmDesc& d, int mr, int nr);

// Kernel for the (M == 1 or N == 1) streaming path.
bool is_gemv_shape(const GemmDesc& d);

}  // namespace gemmkit::cpu
