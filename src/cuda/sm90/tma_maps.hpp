// The tensor maps an sm90 kernel launch takes (by value, as a __grid_constant__ parameter).
#pragma once
#include <cuda.h>

namespace gemmkit::sm90 {

// A and B; an operand with batch stride 0 (broadcast over the batch) has a 2-D map.
struct TmaMaps {
  CUtensorMap a, b;
  bool a_batched = false, b_batched = false;
};

}  // namespace gemmkit::sm90
