// Short names of a problem's parts, as the bench report, the tuning cache and progress lines
// print them.
#pragma once
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::core {

// The dtypes of A, B, C, D and the accumulator: "bf16/bf16/bf16/bf16/f32".
std::string dtypes_string(const GemmDesc& d);

}  // namespace gemmkit::core
