// The portable microkernel: an (MR, NR) tile in plain C++ arrays. Built into every ISA file
// (the compiler vectorizes it with that file's flags) and, in gemm_portable.cpp, the oracle the
// SIMD kernels are tested against.
#pragma once
#include <cstdint>

#include "cpu/epilogue.hpp"
#include "cpu/isa_namespace.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

template <class T_, int MR, int NR>
struct PortableKernel {
  using T = T_;
  static constexpr int kMR = MR, kNR = NR;
  static void tile(std::int64_t kc, const T* a, const T* b, const Epi<T>& e) {
    // Preconditions: a is a packed (KC, MR) micro-panel, b a packed (KC, NR) micro-panel.
    alignas(64) T acc[MR * NR] = {};  // (MR, NR)
    for (std::int64_t p = 0; p < kc; ++p, a += MR, b += NR)
      for (int i = 0; i < MR; ++i)
#pragma omp simd
        for (int j = 0; j < NR; ++j) acc[i * NR + j] += a[i] * b[j];
    epilogue_tile<NR>(acc, e);
  }
};

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
