// The CPU kernels' global view: one batch entry of a GEMM with typed pointers and element
// strides (op(A)(i, p) = a[i * sa.row + p * sa.col]). Ladder rungs take this view; production
// kernels build theirs from the same for_each_batch.
#pragma once
#include <cstdint>

#include "core/validate.hpp"
#include "core/view.hpp"
#include "cpu/isa_namespace.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {

template <class T>
struct Gemm {
  std::int64_t m = 0, n = 0, k = 0;
  const T* a = nullptr;  // op(A): (M, K)
  core::Strides sa;
  const T* b = nullptr;  // op(B): (K, N)
  core::Strides sb;
  const T* c = nullptr;  // (M, N), read only when beta != 0
  core::Strides sc;
  T* d = nullptr;  // (M, N), may alias c
  core::Strides sd;
  double alpha = 1.0, beta = 0.0;

  // BLAS: alpha == 0 or K == 0 never reads A or B.
  bool reads_ab() const noexcept { return alpha != 0.0 && k > 0; }
};

inline namespace GEMMKIT_CPU_ISA {

// Calls f(Gemm<T>) for every batch entry of a validated, ld-defaulted descriptor whose A, B,
// C and D all hold T.
template <class T, class F>
void for_each_batch(const GemmDesc& desc, const GemmArgs& args, F&& f) {
  const core::ProblemView v = core::make_view(desc);
  for (std::int64_t l = 0; l < desc.batch; ++l) {
    Gemm<T> g;
    g.m = desc.m, g.n = desc.n, g.k = desc.k;
    g.a = static_cast<const T*>(args.a) + (args.a ? l * desc.a.batch_stride : 0);
    g.b = static_cast<const T*>(args.b) + (args.b ? l * desc.b.batch_stride : 0);
    g.c = static_cast<const T*>(args.c) + (args.c ? l * desc.c.batch_stride : 0);
    g.d = static_cast<T*>(args.d) + l * desc.d.batch_stride;
    g.sa = v.a, g.sb = v.b, g.sc = v.c, g.sd = v.d;
    g.alpha = args.alpha, g.beta = args.beta;
    f(g);
  }
}

// D = beta * C (beta == 0: D = 0 without reading C). The whole GEMM when alpha == 0 or K == 0.
template <class T>
void scale_only(const Gemm<T>& g) {
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t j = 0; j < g.n; ++j) {
      T v = T(0);
      if (g.beta != 0.0) v = T(g.beta) * g.c[i * g.sc.row + j * g.sc.col];
      g.d[i * g.sd.row + j * g.sd.col] = v;
    }
}

// The one-element epilogue: d = alpha * acc + beta * c (C unread when beta == 0).
template <class T>
inline void store_result(const Gemm<T>& g, std::int64_t i, std::int64_t j, T acc) {
  T v = T(g.alpha) * acc;
  if (g.beta != 0.0) v += T(g.beta) * g.c[i * g.sc.row + j * g.sc.col];
  g.d[i * g.sd.row + j * g.sd.col] = v;
}

}  // namespace GEMMKIT_CPU_ISA

// True when A, B, C, D all hold `t` and the accumulate type is `t`.
inline bool all_dtype(const GemmDesc& d, DType t) noexcept {
  return d.a.dtype == t && d.b.dtype == t && d.c.dtype == t && d.d.dtype == t && d.compute == t;
}

}  // namespace gemmkit::cpu
