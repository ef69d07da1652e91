// The CPU epilogue (write-back): D = alpha * acc + beta * C for one (MR, NR) tile, C never read
// when beta == 0. Later K blocks accumulate with C := D, beta := 1. Integer accumulators are
// scaled in double and rounded to nearest-even with clamping, as the fp64 reference stores i32.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/view.hpp"
#include "cpu/isa_namespace.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

template <class T>
using Scalar = std::conditional_t<std::is_integral_v<T>, double, T>;

template <class T>
struct Epi {
  T* d = nullptr;  // tile origin in D
  core::Strides sd;
  const T* c = nullptr;  // tile origin in C (may equal d)
  core::Strides sc;
  Scalar<T> alpha{1}, beta{0};
  bool read_c = false;  // beta != 0 (or a later K block)
  int mr = 0, nr = 0;   // valid rows / columns of the tile
  bool fast = false;    // full tile, D and C unit-stride along N: the vector path may store
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

// The scalar write-back of the valid (mr, nr) corner of an (MR, NR) tile: edge tiles and
// strided outputs go through here.
template <int NR, class T>
inline void epilogue_element(const T* tile, const Epi<T>& e, int i, int j) {
  Scalar<T> v = e.alpha * static_cast<Scalar<T>>(tile[i * NR + j]);
  if (e.read_c) v += e.beta * static_cast<Scalar<T>>(e.c[i * e.sc.row + j * e.sc.col]);
  e.d[i * e.sd.row + j * e.sd.col] = finish<T>(v);
}

// Walks D along its unit stride: a column-major tile is written column by column.
template <int NR, class T>
inline void epilogue_tile(const T* tile, const Epi<T>& e) {
  if (e.sd.row == 1) {
    for (int j = 0; j < e.nr; ++j)
      for (int i = 0; i < e.mr; ++i) epilogue_element<NR>(tile, e, i, j);
  } else {
    for (int i = 0; i < e.mr; ++i)
      for (int j = 0; j < e.nr; ++j) epilogue_element<NR>(tile, e, i, j);
  }
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
