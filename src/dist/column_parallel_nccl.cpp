// column_parallel (dist.hpp): all-gather the M-shards of A, then the local GEMM with this rank's
// column block of B. Under chunks > 1, chunk i + 1 is gathered on the communicator's stream
// while chunk i multiplies on the caller's: every gather is enqueued first, each GEMM waits for
// its own chunk's event.
#include "dist/slice.hpp"
#include "dist/state_nccl.hpp"
#include "dist/validate.hpp"

namespace gemmkit::dist {
namespace {

// Rows `chunk` of op(A) into the gathered buffer `all`, each piece broadcast by its owner (one
// ncclAllGather when the chunk is all of M and the shards are equal).
Status gather(const Communicator::State& st, std::span<const Range> shards, Range chunk,
              const void* mine, void* all, std::int64_t row_bytes, cudaStream_t s) {
  char* dst = static_cast<char*>(all);
  if (chunk.begin == 0 && chunk.end == shards.back().end && all_equal(shards)) {
    const std::size_t n = static_cast<std::size_t>(shards.front().size() * row_bytes);
    GEMMKIT_NCCL(ncclAllGather(mine, dst, n, ncclUint8, st.comm, s));
    return {};
  }
  GEMMKIT_NCCL(ncclGroupStart());
  for (const Piece& p : pieces_of(chunk, shards)) {
    char* to = dst + p.rows.begin * row_bytes;
    const void* from = p.rank == st.rank ? static_cast<const char*>(mine) + p.local * row_bytes
                                         : to;  // not read off the root
    const ncclResult_t r =
        ncclBroadcast(from, to, static_cast<std::size_t>(p.rows.size() * row_bytes), ncclUint8,
                      p.rank, st.comm, s);
    if (r != ncclSuccess) {
      ncclGroupEnd();
      return nccl_error(r, "ncclBroadcast", __FILE__, __LINE__);
    }
  }
  GEMMKIT_NCCL(ncclGroupEnd());
  return {};
}

}  // namespace

Status column_parallel(const Communicator& comm, const GemmDesc& desc, const GemmArgs& args,
                       const TpOptions& tp, const Options& opt) {
  Communicator::State* st = comm.state();
  const GemmDesc d = with_default_lds(desc);
  std::vector<Range> shards;
  if (Status s =
          validate_tp(Tp::Column, d, args, tp, opt, st ? st->rank : 0, st ? st->size : 0, &shards);
      !s)
    return s;
  if (d.m == 0) return {};  // the same on every rank: nothing to gather or compute
  DeviceGuard g(st->device);
  GEMMKIT_CUDA(g.status());
  cudaStream_t s = static_cast<cudaStream_t>(opt.stream);
  Call full{d, args};
  if (args.alpha == 0.0 || d.k == 0) return gemm(d, args, opt);  // A is never read
  const std::int64_t row_bytes = d.k * dtype_bits(d.a.dtype) / 8;
  Workspace ws;
  if (Status e = ws.acquire(tp, column_parallel_workspace(d), s); !e) return e;
  full.args.a = ws.get();
  const std::vector<Range> chunks = chunk_plan(d.m, tp.chunks);
  if (chunks.size() == 1) {  // no overlap: the collective, then the GEMM, on the caller's stream
    if (Status e = gather(*st, shards, chunks[0], args.a, ws.get(), row_bytes, s); !e) return e;
    return gemm(full.desc, full.args, opt);
  }
  // The GEMM shares the SMs with NCCL's kernels: tiles from a counter, not a fixed deal
  // (Options has no SM cap; see docs/DIST.md).
  Options o = opt;
  o.dynamic_schedule = true;
  if (Status e = wait(*st, 0, s, st->side); !e) return e;  // inputs and workspace are ready
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (Status e = gather(*st, shards, chunks[i], args.a, ws.get(), row_bytes, st->side); !e)
      return joined(*st, st->side, s, e);
    if (Status e = events(*st, i + 2); !e) return joined(*st, st->side, s, e);
    if (cudaError_t e = cudaEventRecord(st->events[i + 1], st->side); e != cudaSuccess)
      return joined(*st, st->side, s, cuda_error(e, "cudaEventRecord", __FILE__, __LINE__));
  }
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    GEMMKIT_CUDA(cudaStreamWaitEvent(s, st->events[i + 1], 0));
    const Call c = rows_of(full, chunks[i]);
    if (Status e = gemm(c.desc, c.args, o); !e) return joined(*st, st->side, s, e);
  }
  return {};
}

}  // namespace gemmkit::dist
