// The plan of `gemmkit bench --gpus N --tp column|row` (cli/tp_bench*.cpp), host only: the
// whole problem, its checks (each names the flag it blames) and what each rank holds.
//   column   rank r: rows [rM/P, (r+1)M/P) of A (all-gathered to M x K), columns
//            [rN/P, (r+1)N/P) of B, D = M x N/P (its column block of the whole D).
//   row      rank r: columns [rK/P, (r+1)K/P) of A and the same rows of B; D = its M/P rows of
//            the sum (reduce-scatter) or all M x N (all-reduce).
// Layouts are the x @ W^T form that dist supports and LLM layers use: A row-major (M x K),
// B column-major (K x N, a column of K contiguous), D row-major; beta = 0; equal shards (the NCCL
// baseline's ncclAllGather / ncclReduceScatter need equal counts).
#pragma once
#include <cstdint>
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

enum class TpSplit : std::uint8_t { Column, Row };

struct TpBenchSpec {
  int gpus = 1;
  TpSplit split = TpSplit::Column;
  bool all_reduce = false;           // row only: ncclAllReduce instead of ncclReduceScatter
  int chunks = 4;                    // of the overlapped run; the unchunked run has 1
  std::int64_t m = 0, n = 0, k = 0;  // the whole (unsharded) problem
  DType dtype_ab = DType::BF16, dtype_d = DType::BF16;
  double alpha = 1.0;
};

// Empty `flag`: the spec can run. Otherwise the flag to blame and why.
struct TpSpecError {
  std::string flag, why;
  bool ok() const { return flag.empty(); }
};
TpSpecError check_tp_spec(const TpBenchSpec& s, int visible_gpus);

// "column" / "row"; "all-gather", "reduce-scatter" or "all-reduce".
std::string tp_split_name(TpSplit s);
std::string tp_collective_name(const TpBenchSpec& s);

// The problem in the layouts above (packed leading dimensions, f32 accumulation).
GemmDesc tp_desc(const TpBenchSpec& s, std::int64_t m, std::int64_t n, std::int64_t k);

// What rank r holds: its part of the whole problem and the GEMM it runs.
struct TpRankPlan {
  std::int64_t row0 = 0, rows = 0;       // rows of the whole D this rank's D holds
  std::int64_t col0 = 0, cols = 0;       // columns of the whole D (and of B) it holds
  std::int64_t k0 = 0, kr = 0;           // K range of its A and B
  std::int64_t a_rows0 = 0, a_rows = 0;  // rows of A it holds before any gather
  GemmDesc local;  // the GEMM of the dist call (column: M x N/P x K; row: M x N x K/P)
};
TpRankPlan tp_rank_plan(const TpBenchSpec& s, int rank);

}  // namespace gemmkit::bench
