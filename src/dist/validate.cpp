// The tensor-parallel front door's checks (validate.hpp).
#include "dist/validate.hpp"

#include "core/status.hpp"
#include "core/validate.hpp"
#include "dist/slice.hpp"

namespace gemmkit::dist {

bool summable(DType t) noexcept {
  // NCCL sums these; fp8 sums would round at every hop, int4 is not byte-addressable.
  return t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16 ||
         t == DType::I32;
}

Status validate_tp(Tp tp, const GemmDesc& d, const GemmArgs& args, const TpOptions& o,
                   const Options& opt, int rank, int size, std::vector<Range>* shards) {
  const bool column = tp == Tp::Column;
  // The communicator: it says who this rank is and how many there are.
  if (size < 1 || rank < 0 || rank >= size)
    return GEMMKIT_INVALID(Arg::None, "comm: not a valid communicator (null or not created)");
  // The problem alone, by gemm()'s own rules (sizes, lds, dtypes, epilogue, scales). Under a
  // reduce-scatter C and D hold this rank's rows only: checked after the shards are known.
  if (Status s = core::validate_desc(d); !s) {
    const bool cd = s.arg == Arg::Ldc || s.arg == Arg::Ldd;
    if (column || o.reduce == RowReduce::AllReduce || !cd) return s;
  }
  // What this layer covers.
  if (d.batch != 1)
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::Batch,
                         "batch: tensor-parallel GEMM is batch 1");
  if (dtype_bits(d.a.dtype) % 8 != 0)  // rows of packed int4 / fp4 need not start on a byte
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::DTypeA,
                         "dtype_a: sub-byte A cannot be sharded by rows here");
  if (d.scale_a.mode != ScaleMode::None && d.scale_a.mode != ScaleMode::Tensor)
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::ScaleA,
                         "scale_a: only none or tensor scales are sharded here");
  if (d.scale_b.mode != ScaleMode::None && d.scale_b.mode != ScaleMode::Tensor &&
      d.scale_b.mode != ScaleMode::Column)
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::ScaleB,
                         "scale_b: only none, tensor or column scales are sharded here");
  if (d.epilogue.amax_d)  // each chunk would write its own amax
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::AmaxD,
                         "amax_d: not combined across chunks or ranks");
  if (!column && (d.epilogue.bias != BiasMode::None || d.epilogue.act != Activation::None ||
                  d.epilogue.scale_d))  // they apply to the sum, which no rank holds alone
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::Epilogue,
                         "epilogue: row_parallel sums partial products; no fused epilogue");
  if (!column && !summable(d.d.dtype))
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::DTypeD,
                         "dtype_d: row_parallel sums in D's dtype: f32, f64, f16, bf16 or i32");
  // The collectives move whole rows.
  if (column && !rows_packed_a(d))
    return GEMMKIT_INVALID(Arg::Lda,
                           "lda: column_parallel gathers whole rows of op(A): A must be "
                           "row-major (column-major transposed) with lda == K");
  if (!column && !rows_packed_d(d))
    return GEMMKIT_INVALID(Arg::Ldd,
                           "ldd: row_parallel reduces whole rows of D: D must be "
                           "row-major with ld == N");
  // The options.
  if (o.chunks < 1) return GEMMKIT_INVALID(Arg::None, "chunks: must be >= 1");
  if (o.reduce != RowReduce::ReduceScatter && o.reduce != RowReduce::AllReduce)
    return GEMMKIT_INVALID(Arg::None, "reduce: not a RowReduce");
  if (o.workspace == nullptr && o.workspace_bytes != 0)
    return GEMMKIT_INVALID(Arg::Workspace, "workspace: null with workspace_bytes > 0");
  const std::size_t need = column ? column_parallel_workspace(d) : row_parallel_workspace(d, o);
  if (o.workspace != nullptr && o.workspace_bytes < need)
    return GEMMKIT_ERROR(StatusCode::WorkspaceTooSmall, Arg::Workspace,
                         "workspace: " + std::to_string(o.workspace_bytes) + " bytes, " +
                             std::to_string(need) + " needed");
  // The shards: every rank's rows of M, in rank order, adding up to M.
  std::vector<Range> sh;
  if (o.m_shards.empty()) {
    sh = equal_ranges(d.m, size);
  } else {
    if (std::string why = check_sizes(o.m_shards, d.m, size); !why.empty())
      return GEMMKIT_INVALID(Arg::M, "m_shards: " + why);
    sh = ranges_of_sizes(o.m_shards);
  }
  // Pointers, aliasing and overlap, against this rank's part: column, its rows of A (C and D
  // are M x N_local); row with ReduceScatter, its rows of C and D (A is M x K_local).
  const std::int64_t mine = sh[static_cast<std::size_t>(rank)].size();
  const bool owns_all = column || o.reduce == RowReduce::AllReduce;
  GemmDesc part = d;
  part.m = mine;
  if (!owns_all)
    if (Status s = core::validate_desc(part); !s) return s;  // C and D: this rank's rows
  if (column || !owns_all)
    if (Status s = core::validate_args(part, args); !s) return s;
  const bool any = d.m > 0 && d.n > 0;
  const bool reads_ab = any && args.alpha != 0.0 && d.k > 0;
  if (reads_ab && !column && args.a == nullptr) return GEMMKIT_INVALID(Arg::A, "A is null");
  if (reads_ab && args.b == nullptr) return GEMMKIT_INVALID(Arg::B, "B is null");
  if (any && args.beta != 0.0 && args.c == nullptr && (column || owns_all || mine > 0))
    return GEMMKIT_INVALID(Arg::C, "C is null and beta != 0");
  if (any && args.d == nullptr && (column || owns_all || mine > 0))
    return GEMMKIT_INVALID(Arg::D, "D is null");
  // Whether gemm() has a kernel for the local problem (the planner; nothing launched).
  GemmDesc local = d;
  if (!owns_all) local.c = local.d = {d.d.dtype, Layout::RowMajor, d.n, 0};
  if (!column && owns_all)
    if (Status s = core::validate_args(d, args); !s) return s;
  if (Status s = can_implement(local, opt); !s) return s;
  *shards = std::move(sh);
  return {};
}

}  // namespace gemmkit::dist
