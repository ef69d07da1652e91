// The tensor-parallel bench's verification (cli/tp_bench_run.cpp): one rank's D against the
// single-GPU gemmkit GEMM of the whole problem (GPU 0, same dtypes), element by element under
//   |d - ref| <= 2 u_out |ref| + h P u_out G + 2 (K + P + 2) u_acc G,
//   G = |alpha| sum_p |a_ip| |b_pj|  (a GEMM of |A| and |B| on GPU 0, f32 D),
// h = 1 for row-parallel (P partial sums rounded to D's dtype and summed there), 0 for column;
// u the unit roundoffs of D's dtype and of the f32 accumulator (docs/DIST.md). And over the
// whole block, the relative Frobenius error ||d - ref|| / ||ref|| <= 4 (P + 1) u_out + 1e-4,
// which catches a missing or doubled partial that the element bound's slack could pass.
// NaN or Inf where the reference is finite fails.
#pragma once
#include <cstdint>
#include <string>

#include "gemmkit/types.hpp"

namespace gemmkit::bench {

struct TpBound {
  DType dtype_d = DType::BF16;
  int gpus = 1;
  std::int64_t k = 0;  // the whole K
  bool row = false;
};
double tp_element_bound(const TpBound& b, double ref, double gauge);
double tp_frobenius_bound(const TpBound& b);

struct TpCheck {
  bool passed = true;
  std::int64_t checked = 0, mismatches = 0;
  double max_err_over_bound = 0.0;
  double rel_frobenius = 0.0;
  std::string first_failure;  // "D(i,j): got x, want y (bound b)"
};

// `got`: rows x cols of D's dtype, packed row-major, the block of the whole D at (row0, col0).
// `ref` (D's dtype) and `gauge` (f32): the whole M x N, row-major with leading dimension ld.
TpCheck tp_compare(const TpBound& b, const void* got, std::int64_t rows, std::int64_t cols,
                   std::int64_t row0, std::int64_t col0, const void* ref, const float* gauge,
                   std::int64_t ld);

// The worst of two checks (of two ranks): passed only if both passed; `tag` prefixes b's
// first failure ("rank 1: ...").
void merge_check(TpCheck* into, const TpCheck& b, const std::string& tag);

}  // namespace gemmkit::bench
