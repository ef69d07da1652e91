// x @ W^T as serving stacks call it: A = x (M, K) row-major, B = W^T (K, N) column-major (W's
// rows K-contiguous), C and D (M, N) row-major, f32 accumulate, packed leading dimensions. The
// first rows of A and C are a prefix of their buffers: a problem of fewer rows reads a larger
// one's first rows in place.
#pragma once
#include <cstdint>

#include "gemmkit/gemm.hpp"

namespace gemmkit::test {

inline GemmDesc xwt_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType out) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a = {in, Layout::RowMajor, 0, 0};
  d.b = {in, Layout::ColMajor, 0, 0};
  d.c = {out, Layout::RowMajor, 0, 0};
  d.d = {out, Layout::RowMajor, 0, 0};
  d.compute = DType::F32;
  return with_default_lds(d);
}

}  // namespace gemmkit::test
