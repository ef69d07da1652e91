// The CPU ladder: five rungs, one idea each, all behind the same interface
// (a Gemm<T> view with alpha != 0 and K > 0; the wrapper handles batches and scale-only calls).
//   naive     triple loop, one dot product per output element
//   blocked   output tiles with a local accumulator, walked along K (tutorial section 03)
//   packed    BLIS MC/KC/NC loops around packed A and B micro-panels
//   simd      the packed loops with an AVX2+FMA register-blocked microkernel
//   threaded  the simd rung with the MC loop spread over OpenMP threads
#pragma once
#include <string>

#include "cpu/typed_gemm.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::cpu {

template <class T>
using LadderFn = void (*)(const Gemm<T>& g, int threads);

template <class T>
void ladder_naive(const Gemm<T>& g, int threads);
template <class T>
void ladder_blocked(const Gemm<T>& g, int threads);
template <class T>
void ladder_packed(const Gemm<T>& g, int threads);
template <class T>
void ladder_simd(const Gemm<T>& g, int threads);
template <class T>
void ladder_threaded(const Gemm<T>& g, int threads);

// A registry entry for a rung: f32 and f64 problems (all operands of one type);
// `needs_avx2` rungs answer NotSupported on a CPU without AVX2+FMA.
dispatch::KernelInfo ladder_kernel(std::string name, dispatch::KernelConfig config,
                                   std::string note, LadderFn<float> f32, LadderFn<double> f64,
                                   bool needs_avx2);

}  // namespace gemmkit::cpu
