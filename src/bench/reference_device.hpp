// The fp64 reference on the GPU, for problems whose operands are in device memory, so that
// verifying a CUDA candidate never waits on the host reference. One thread per element of D
// runs the loop of core::reference_visit (the semantic spec) as it is written: p = 0 .. K-1 in
// order, products and sums rounded separately in fp64 (__dmul_rn / __dadd_rn: no FMA
// contraction), alpha and beta applied as it applies them, beta == 0 never reads C, alpha == 0
// or K == 0 never reads A or B. So its results are the bits of core::reference_visit.
// Inputs are widened exactly: 8- and 16-bit float codes through a table of every code built on
// the host by core::load_element; f32, f64, i8, i4 and i32 by direct reads.
#pragma once
#include <string>

#include "bench/reference_blas.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

// Expects a validated descriptor with defaulted lds and device pointers in `args` (D unused).
// False with *err when CUDA fails or gemmkit was built without CUDA (nothing is computed).
bool reference_on_device(const GemmDesc& d, const GemmArgs& args, bool want_gauge,
                         ReferenceMatrix* out, std::string* err);

}  // namespace gemmkit::bench
