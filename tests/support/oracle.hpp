// Test oracles and helpers shared by the test executables.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::test {

// netlib BLAS (Debian libblas3's reference build), loaded privately with dlopen so that its
// dgemm_ is not confused with OpenBLAS's in the same process. Null when not installed.
using dgemm_fn = void (*)(const char* transa, const char* transb, const int* m, const int* n,
                          const int* k, const double* alpha, const double* a, const int* lda,
                          const double* b, const int* ldb, const double* beta, double* c,
                          const int* ldc, std::size_t, std::size_t);
dgemm_fn netlib_dgemm();
// True in ASan builds, where netlib cannot be loaded privately (ASan refuses RTLD_DEEPBIND).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
std::string netlib_path();

// Seed for random tests: GEMMKIT_TEST_SEED if set, else a fixed default; printed once.
std::uint64_t test_seed();

// Names of the epilogue's activations and bias modes, for failure messages.
inline const char* act_name(Activation a) {
  switch (a) {
    case Activation::None:
      return "none";
    case Activation::Relu:
      return "relu";
    case Activation::GeluErf:
      return "gelu_erf";
    case Activation::GeluTanh:
      return "gelu_tanh";
    case Activation::Silu:
      return "silu";
  }
  return "?";
}
inline const char* bias_name(BiasMode b) {
  return b == BiasMode::None ? "none" : b == BiasMode::Row ? "row" : "column";
}

}  // namespace gemmkit::test
