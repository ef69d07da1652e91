// Operands of the tensor-parallel GPU tests (gpu/dist_*.cpp), header-only: bf16 A (M x K
// row-major, packed), bf16 B (K x N column-major), f32 C and D (row-major); host images from a
// seed, device copies of any block of rows or columns, the single-GPU gemm() as the reference,
// and the gauge bound of a sum whose order changed.
#pragma once
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gemmkit/convert.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::test {

struct DistCase {
  std::int64_t m, n, k;
  double alpha = 1.0, beta = 0.5;
  std::vector<std::uint16_t> a, b;  // bf16
  std::vector<float> c;

  DistCase(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed)
      : m(m_), n(n_), k(k_), a(m * k), b(k * n), c(m * n) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& x : a) x = to_bf16(u(rng));
    for (auto& x : b) x = to_bf16(u(rng));
    for (auto& x : c) x = static_cast<float>(u(rng));
  }
  // The layouts above, packed, for an m x n x k block.
  static GemmDesc desc(std::int64_t m, std::int64_t n, std::int64_t k) {
    GemmDesc d{.m = m, .n = n, .k = k};
    d.a = {DType::BF16, Layout::RowMajor, 0, 0};
    d.b = {DType::BF16, Layout::ColMajor, 0, 0};
    d.c = {DType::F32, Layout::RowMajor, 0, 0};
    d.d = d.c;
    d.compute = DType::F32;
    return with_default_lds(d);
  }
  // Host blocks, packed: rows [r0, r1) x cols [k0, k1) of A; cols [n0, n1) x K [k0, k1) of B;
  // rows [r0, r1) x cols [n0, n1) of C.
  std::vector<std::uint16_t> a_block(std::int64_t r0, std::int64_t r1, std::int64_t k0,
                                     std::int64_t k1) const {
    std::vector<std::uint16_t> out;
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t p = k0; p < k1; ++p) out.push_back(a[i * k + p]);
    return out;
  }
  std::vector<std::uint16_t> b_block(std::int64_t n0, std::int64_t n1, std::int64_t k0,
                                     std::int64_t k1) const {
    std::vector<std::uint16_t> out;
    for (std::int64_t j = n0; j < n1; ++j)
      for (std::int64_t p = k0; p < k1; ++p) out.push_back(b[j * k + p]);
    return out;
  }
  std::vector<float> c_block(std::int64_t r0, std::int64_t r1, std::int64_t n0,
                             std::int64_t n1) const {
    std::vector<float> out;
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t j = n0; j < n1; ++j) out.push_back(c[i * n + j]);
    return out;
  }
  // |dD| allowed at (i, j) of the whole problem when the sum's order changed over P ranks.
  double gauge(std::int64_t i, std::int64_t j, int p) const {
    double s = 0;
    for (std::int64_t q = 0; q < k; ++q)
      s += std::fabs(double(bf16_to_float(a[i * k + q])) * bf16_to_float(b[j * k + q]));
    return (k + p + 2) * FLT_EPSILON *
           (std::fabs(alpha) * s + std::fabs(beta) * std::fabs(c[i * n + j]));
  }
};

// A device copy of a host vector, freed on destruction (on the device current at creation).
template <class T>
struct DeviceVec {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DeviceVec(const std::vector<T>& h) : n(h.size()) {
    if (cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)) == cudaSuccess && n > 0)
      cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  DeviceVec(const DeviceVec&) = delete;
  ~DeviceVec() { cudaFree(p); }
  std::vector<T> host() const {
    std::vector<T> h(n);
    if (n > 0) cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

}  // namespace gemmkit::test
