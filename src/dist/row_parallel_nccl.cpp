// row_parallel (dist.hpp): each rank's partial product over its K shard, summed across ranks:
// reduce-scatter along M into each owner's rows of D, or all-reduce in place in D. beta C is
// added once, in the partial of the rank that owns the rows (rank 0 under all-reduce). Under
// chunks > 1 the partial of chunk i is reduced on the communicator's stream while chunk i + 1
// multiplies on the caller's.
#include "dist/slice.hpp"
#include "dist/state_nccl.hpp"
#include "dist/validate.hpp"

namespace gemmkit::dist {
namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::F64:
      return ncclFloat64;
    case DType::F16:
      return ncclFloat16;
    case DType::BF16:
      return ncclBfloat16;
    case DType::I32:
      return ncclInt32;
    default:
      return ncclFloat32;  // validate_tp admits only these and F32
  }
}

struct Plan {
  Call partial;               // M x N partial product into P (row-major, ld N), beta 0
  const GemmArgs* caller;     // the caller's C, alpha, beta
  MatrixDesc c;               // the caller's C (its rows: this rank's under reduce-scatter)
  std::vector<Range> owners;  // who adds beta C to which rows: shards, or all to rank 0
  std::vector<Range> shards;  // who receives which rows (reduce-scatter)
  bool all_reduce;
  std::int64_t row_bytes;  // of P and D
};

// The partial of rows `chunk`; beta C joins the rows this rank owns (C read at their local rows).
Status multiply(const Plan& p, const Communicator::State& st, Range chunk, const Options& o) {
  if (p.caller->beta == 0.0) {
    const Call c = rows_of(p.partial, chunk);
    return gemm(c.desc, c.args, o);
  }
  for (const Piece& piece : pieces_of(chunk, p.owners)) {
    Call c = rows_of(p.partial, piece.rows);
    if (piece.rank == st.rank) {
      c.desc.c = p.c;
      c.args.beta = p.caller->beta;
      c.args.c =
          static_cast<const char*>(p.caller->c) + row_offset_bytes(c.desc.c, false, piece.local);
    }
    if (Status s = gemm(c.desc, c.args, o); !s) return s;
  }
  return {};
}

// The sum over ranks of rows `chunk` of P.
Status reduce(const Plan& p, const Communicator::State& st, Range chunk, void* d, bool whole,
              cudaStream_t s) {
  char* part = static_cast<char*>(p.partial.args.d);
  const ncclDataType_t t = nccl_type(p.partial.desc.d.dtype);
  const std::size_t n = static_cast<std::size_t>(chunk.size() * p.partial.desc.n);
  if (p.all_reduce) {
    char* at = part + chunk.begin * p.row_bytes;
    GEMMKIT_NCCL(ncclAllReduce(at, at, n, t, ncclSum, st.comm, s));
    return {};
  }
  if (whole && all_equal(p.shards)) {
    const std::size_t each = static_cast<std::size_t>(p.shards.front().size() * p.partial.desc.n);
    GEMMKIT_NCCL(ncclReduceScatter(part, d, each, t, ncclSum, st.comm, s));
    return {};
  }
  GEMMKIT_NCCL(ncclGroupStart());
  for (const Piece& piece : pieces_of(chunk, p.shards)) {
    char* from = part + piece.rows.begin * p.row_bytes;
    void* to = piece.rank == st.rank ? static_cast<char*>(d) + piece.local * p.row_bytes
                                     : static_cast<void*>(from);  // not written off the root
    const std::size_t count = static_cast<std::size_t>(piece.rows.size() * p.partial.desc.n);
    const ncclResult_t r = ncclReduce(from, to, count, t, ncclSum, piece.rank, st.comm, s);
    if (r != ncclSuccess) {
      ncclGroupEnd();
      return nccl_error(r, "ncclReduce", __FILE__, __LINE__);
    }
  }
  GEMMKIT_NCCL(ncclGroupEnd());
  return {};
}

}  // namespace

Status row_parallel(const Communicator& comm, const GemmDesc& desc, const GemmArgs& args,
                    const TpOptions& tp, const Options& opt) {
  Communicator::State* st = comm.state();
  const GemmDesc d = with_default_lds(desc);
  Plan p{};
  if (Status s =
          validate_tp(Tp::Row, d, args, tp, opt, st ? st->rank : 0, st ? st->size : 0, &p.shards);
      !s)
    return s;
  if (d.m == 0 || d.n == 0) return {};  // the same on every rank
  DeviceGuard g(st->device);
  GEMMKIT_CUDA(g.status());
  cudaStream_t s = static_cast<cudaStream_t>(opt.stream);
  p.all_reduce = tp.reduce == RowReduce::AllReduce;
  p.caller = &args;
  p.row_bytes = d.n * dtype_bits(d.d.dtype) / 8;
  p.owners = p.all_reduce ? ranges_of_sizes(std::vector<std::int64_t>(1, d.m)) : p.shards;
  Workspace ws;
  if (Status e = ws.acquire(tp, row_parallel_workspace(d, tp), s); !e) return e;
  p.partial = {d, args};
  p.partial.desc.c = p.partial.desc.d = {d.d.dtype, Layout::RowMajor, d.n, 0};
  p.partial.args.beta = 0.0;
  p.partial.args.c = nullptr;
  p.partial.args.d = p.all_reduce ? args.d : ws.get();
  p.c = d.c;  // read only where beta C is added (multiply), at the owner's rows
  const std::vector<Range> chunks = chunk_plan(d.m, tp.chunks);
  if (chunks.size() == 1) {  // no overlap: the GEMM, then the collective, on the caller's stream
    if (Status e = multiply(p, *st, chunks[0], opt); !e) return e;
    return reduce(p, *st, chunks[0], args.d, true, s);
  }
  Options o = opt;  // the GEMM shares the SMs with NCCL's kernels (see column_parallel)
  o.dynamic_schedule = true;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (Status e = multiply(p, *st, chunks[i], o); !e) return joined(*st, st->side, s, e);
    if (Status e = wait(*st, i, s, st->side); !e) return joined(*st, st->side, s, e);
    if (Status e = reduce(p, *st, chunks[i], args.d, false, st->side); !e)
      return joined(*st, st->side, s, e);
  }
  return wait(*st, chunks.size(), st->side, s);  // the caller's stream sees the sums
}

}  // namespace gemmkit::dist
