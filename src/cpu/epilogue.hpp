// The CPU epilogue (write-back): D = act(alpha * acc + bias + beta * C) for one (MR, NR) tile,
// C never read when beta == 0, in one pass over D. Later K blocks accumulate with C := D,
// beta := 1 (or, for a bf16 / fp16 D, through an f32 running sum that only the last K block
// narrows: stored.hpp, gemm_driver.hpp); bias and activation come with the last K block only.
// The activations are activation.hpp's (f32: vectorizable forms within 1e-7 * max(1, |x|) of
// core::activate, the fp64 spec; f64: core::activate itself).
// Integer accumulators are scaled in double and rounded to nearest-even with clamping, as the
// fp64 reference stores i32. The output's scale and amax (EpilogueDesc::scale_d / amax_d) and an
// fp8 D take the scalar write-back: v = act(...), amax = max |v| over the tile (folded into the
// call's one amax with an atomic max), D = round(v * s_d).
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/element.hpp"
#include "core/view.hpp"
#include "cpu/activation.hpp"
#include "cpu/isa_namespace.hpp"
#include "cpu/stored.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

template <class T>
using Scalar = std::conditional_t<std::is_integral_v<T>, double, T>;

// The fused epilogue's operands as the write-back reads them (EpilogueDesc, ScaleDesc): the
// product scaled by srow[i] * scol[j] (per-tensor scales are folded into alpha), then
// bias[bias_rows ? i : j] (stored as bias_as) added, then act. Null pointers: none.
struct EpilogueOperands {
  const void* bias = nullptr;
  Stored bias_as = Stored::Native;
  bool bias_rows = false;
  Activation act = Activation::None;
  const float* srow = nullptr;
  const float* scol = nullptr;
  const float* scale_d = nullptr;  // the last K block's D = round(v * *scale_d)
  float* amax = nullptr;           // the last K block's max |v|, folded in by fold_amax
  bool plain() const {
    return bias == nullptr && act == Activation::None && srow == nullptr && scol == nullptr &&
           !scales_output();
  }
  bool scales_output() const { return scale_d != nullptr || amax != nullptr; }
};

// max |v| with NaN sticky: once a NaN is seen the amax stays NaN.
template <class S>
inline S amax_of(S m, S v) {
  if (std::isnan(m)) return m;
  const S a = std::fabs(v);
  return std::isnan(a) || a > m ? a : m;
}
// *amax = amax_of(*amax, m), atomically: tiles of every thread fold into one value. An f64
// amax is rounded as the reference stores an f32 (past FLT_MAX: FLT_MAX or Inf, never a cast).
template <class S>
inline void fold_amax(float* amax, S ms) {
  float m;
  if constexpr (std::is_same_v<S, float>)
    m = ms;
  else
    core::store_element(DType::F32, &m, 0, double(ms));
  std::atomic_ref<float> r(*amax);
  float cur = r.load(std::memory_order_relaxed);
  for (;;) {
    const float next = amax_of(cur, m);
    if (std::isnan(cur) || next == cur) return;
    if (r.compare_exchange_weak(cur, next, std::memory_order_relaxed)) return;
  }
}

template <class T>
struct Epi {
  void* d = nullptr;  // tile origin in D, stored as d_as
  core::Strides sd;
  const void* c = nullptr;  // tile origin in C, stored as c_as (may equal d)
  core::Strides sc;
  Stored d_as = Stored::Native, c_as = Stored::Native;
  Scalar<T> alpha{1}, beta{0};
  bool read_c = false;  // beta != 0 (or a later K block)
  int mr = 0, nr = 0;   // valid rows / columns of the tile
  bool fast = false;    // full tile, D and C unit-stride along N: the vector path may store
  bool unit = false;    // D and C unit-stride along N, full tile or not
  // The fused epilogue, its pointers at the tile's first row / column; bias and act in the last
  // K block only, the scales in every one.
  EpilogueOperands ep;
  bool native() const { return d_as == Stored::Native && (!read_c || c_as == Stored::Native); }
  bool plain() const { return ep.plain(); }
};

template <class T>
inline T finish(Scalar<T> v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    v = std::nearbyint(v);
    v = std::fmin(std::fmax(v, double(std::numeric_limits<T>::min())),
                  double(std::numeric_limits<T>::max()));
    return static_cast<T>(v);
  } else {
    return v;
  }
}

// Calls f(std::integral_constant<Stored, s>{}) for the run-time `s`: a loop over a tile is
// compiled once per storage, with no switch inside it. Only f32 narrows.
template <class T, class F>
inline void with_stored(Stored s, F&& f) {
  using S = Stored;
  if constexpr (std::is_same_v<T, float>) {
    if (s == S::Bf16) return f(std::integral_constant<S, S::Bf16>{});
    if (s == S::F16) return f(std::integral_constant<S, S::F16>{});
  }
  f(std::integral_constant<S, S::Native>{});
}

// The scalar write-back of the valid (mr, nr) corner of an (MR, NR) tile: edge tiles and
// strided outputs go through here. Walks D along its unit stride: a column-major tile is
// written column by column. DA and CA are constants where epilogue_tile_as calls it.
template <int NR, class T>
__attribute__((always_inline)) inline void epilogue_elements(const T* tile, const Epi<T>& e,
                                                             Stored DA, Stored CA) {
  Scalar<T> amax{0};
  auto element = [&](int i, int j) {
    Scalar<T> a = e.alpha;
    if constexpr (!std::is_integral_v<T>) {
      if (e.ep.srow) a *= Scalar<T>(e.ep.srow[i]);
      if (e.ep.scol) a *= Scalar<T>(e.ep.scol[j]);
    }
    Scalar<T> v = a * static_cast<Scalar<T>>(tile[i * NR + j]);
    if (e.read_c)
      v += e.beta * static_cast<Scalar<T>>(load_stored<T>(CA, e.c, i * e.sc.row + j * e.sc.col));
    if constexpr (!std::is_integral_v<T>) {
      if (e.ep.bias) v += load_stored<T>(e.ep.bias_as, e.ep.bias, e.ep.bias_rows ? i : j);
      v = activate_as<T>(e.ep.act, v);
      if (e.ep.amax) amax = amax_of(amax, v);
      if (e.ep.scale_d) v *= Scalar<T>(*e.ep.scale_d);
    }
    store_stored<T>(DA, e.d, i * e.sd.row + j * e.sd.col, finish<T>(v));
  };
  if (e.sd.row == 1) {
    for (int j = 0; j < e.nr; ++j)
      for (int i = 0; i < e.mr; ++i) element(i, j);
  } else {
    for (int i = 0; i < e.mr; ++i)
      for (int j = 0; j < e.nr; ++j) element(i, j);
  }
  if constexpr (!std::is_integral_v<T>)
    if (e.ep.amax) fold_amax(e.ep.amax, amax);
}

template <int NR, class T, Stored DA, Stored CA>
inline void epilogue_tile_as(const T* tile, const Epi<T>& e) {
  epilogue_elements<NR>(tile, e, DA, CA);
}

template <int NR, class T>
inline void epilogue_tile(const T* tile, const Epi<T>& e) {
  if (is_fp8(e.d_as) || (e.read_c && is_fp8(e.c_as))) {  // rare: one loop, the stores switch
    const Stored ca = e.read_c ? e.c_as : Stored::Native;
    return epilogue_elements<NR>(tile, e, e.d_as, ca);
  }
  with_stored<T>(e.d_as, [&](auto da) {
    with_stored<T>(e.read_c ? e.c_as : Stored::Native, [&](auto ca) {
      epilogue_tile_as<NR, T, decltype(da)::value, decltype(ca)::value>(tile, e);
    });
  });
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
