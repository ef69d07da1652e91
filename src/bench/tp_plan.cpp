// The tensor-parallel bench's plan (tp_plan.hpp).
#include "bench/tp_plan.hpp"

namespace gemmkit::bench {

namespace {

bool summable(DType t) { return t == DType::BF16 || t == DType::F16 || t == DType::F32; }

}  // namespace

TpSpecError check_tp_spec(const TpBenchSpec& s, int visible_gpus) {
  const std::string p = std::to_string(s.gpus);
  if (s.gpus < 1) return {"--gpus", "must be >= 1"};
  if (s.gpus > visible_gpus)
    return {"--gpus", p + (s.gpus == 1 ? " GPU" : " GPUs") + " asked, " +
                          std::to_string(visible_gpus) +
                          " visible (CUDA_VISIBLE_DEVICES / the machine)"};
  if (s.chunks < 1) return {"--chunks", "must be >= 1"};
  if (s.m < 1 || s.n < 1 || s.k < 1)
    return {s.m < 1   ? "--m"
            : s.n < 1 ? "--n"
                      : "--k",
            "the tensor-parallel bench needs M, N, K >= 1"};
  // Why: ncclAllGather and ncclReduceScatter move equal counts per rank.
  if (s.m % s.gpus != 0 && !(s.split == TpSplit::Row && s.all_reduce))
    return {"--m", "M = " + std::to_string(s.m) + " must divide by --gpus " + p +
                       " (equal shards: the NCCL baseline's collectives)"};
  if (s.split == TpSplit::Column && s.n % s.gpus != 0)
    return {"--n", "N = " + std::to_string(s.n) + " must divide by --gpus " + p +
                       " (equal column blocks)"};
  if (s.split == TpSplit::Row && s.k % s.gpus != 0)
    return {"--k",
            "K = " + std::to_string(s.k) + " must divide by --gpus " + p + " (equal K shards)"};
  if (!summable(s.dtype_ab))
    return {"--dtype", "the tensor-parallel bench runs bf16, f16 or f32 A and B, not " +
                           std::string(dtype_name(s.dtype_ab))};
  if (!summable(s.dtype_d))
    return {"--dtype-d", "the tensor-parallel bench writes bf16, f16 or f32 D, not " +
                             std::string(dtype_name(s.dtype_d))};
  return {};
}

std::string tp_split_name(TpSplit s) { return s == TpSplit::Column ? "column" : "row"; }

std::string tp_collective_name(const TpBenchSpec& s) {
  if (s.split == TpSplit::Column) return "all-gather";
  return s.all_reduce ? "all-reduce" : "reduce-scatter";
}

GemmDesc tp_desc(const TpBenchSpec& s, std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a = {s.dtype_ab, Layout::RowMajor, 0, 0};
  d.b = {s.dtype_ab, Layout::ColMajor, 0, 0};
  d.c = {s.dtype_d, Layout::RowMajor, 0, 0};
  d.d = d.c;
  d.compute = DType::F32;
  return with_default_lds(d);
}

TpRankPlan tp_rank_plan(const TpBenchSpec& s, int rank) {
  const std::int64_t p = s.gpus, r = rank;
  TpRankPlan pl;
  if (s.split == TpSplit::Column) {
    pl.a_rows0 = r * s.m / p, pl.a_rows = s.m / p;
    pl.row0 = 0, pl.rows = s.m;
    pl.col0 = r * s.n / p, pl.cols = s.n / p;
    pl.k0 = 0, pl.kr = s.k;
    pl.local = tp_desc(s, s.m, pl.cols, s.k);
  } else {
    pl.a_rows0 = 0, pl.a_rows = s.m;
    pl.row0 = s.all_reduce ? 0 : r * s.m / p, pl.rows = s.all_reduce ? s.m : s.m / p;
    pl.col0 = 0, pl.cols = s.n;
    pl.k0 = r * s.k / p, pl.kr = s.k / p;
    pl.local = tp_desc(s, s.m, s.n, pl.kr);
  }
  return pl;
}

}  // namespace gemmkit::bench
