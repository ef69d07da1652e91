// The write-back of the f32 / f64 kernels: D = alpha * acc + beta * C in the input's type, C
// read only when beta != 0 (Params::read_c), predicated at the edges. A thread hands over N
// consecutive columns of one row; they go out as one 16-byte access where D (and C) have
// contiguous, aligned rows and the run is inside N, else element by element at any stride.
#pragma once
#include <cstdint>

#include "cuda/problem.hpp"

namespace gemmkit::simt {

using std::int64_t;

template <class T>
struct Vec16;  // 16 bytes of T
template <>
struct Vec16<float> {
  using V = float4;
  static constexpr int kN = 4;
};
template <>
struct Vec16<double> {
  using V = double2;
  static constexpr int kN = 2;
};

// Columns col .. col + N - 1 of row `row` of batch entry l: v[j] is the accumulator of col + j.
template <class T, int N>
__device__ __forceinline__ void store_run(const gpu::Params& p, int64_t l, int64_t row, int64_t col,
                                          const T* v, T alpha, T beta) {
  static_assert(N == Vec16<T>::kN, "a run is one 16-byte vector");
  using V = typename Vec16<T>::V;
  if (row >= p.m || col >= p.n) return;
  T* d = static_cast<T*>(p.d.ptr) + l * p.d.batch_stride + row * p.d.s_row;
  const T* c = static_cast<const T*>(p.c.ptr) + l * p.c.batch_stride + row * p.c.s_row;
  const auto aligned = [](const T* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  if (col + N <= p.n && p.d.s_col == 1 && aligned(d + col) &&
      (!p.read_c || (p.c.s_col == 1 && aligned(c + col)))) {
    T out[N];
    if (p.read_c) {
      const V cv = *reinterpret_cast<const V*>(c + col);
      const T* cs = reinterpret_cast<const T*>(&cv);
#pragma unroll
      for (int j = 0; j < N; ++j) out[j] = alpha * v[j] + beta * cs[j];
    } else {
#pragma unroll
      for (int j = 0; j < N; ++j) out[j] = alpha * v[j];
    }
    *reinterpret_cast<V*>(d + col) = *reinterpret_cast<const V*>(out);
    return;
  }
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (col + j >= p.n) break;
    T x = alpha * v[j];
    if (p.read_c) x += beta * c[(col + j) * p.c.s_col];
    d[(col + j) * p.d.s_col] = x;
  }
}

}  // namespace gemmkit::simt
