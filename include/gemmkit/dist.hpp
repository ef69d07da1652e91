// gemmkit tensor-parallel GEMM over several GPUs with NCCL (library gemmkit::gemmkit_dist).
//
// The caller owns the processes (or threads), the devices and the ncclComm_t: gemmkit never
// creates or destroys a communicator. One rank per GPU; every rank calls the same operation with
// the same M, N, alpha, beta, shards and chunks (a collective call, as NCCL's own), on the device
// of its communicator, with its own operands. Each rank's GEMM is gemmkit::gemm() on Options::
// stream; the communication runs on a stream of the Communicator and is joined back, so the
// call is stream-ordered like gemm() (nothing synchronizes the host).
//
//   column_parallel   A is sharded along M (rank r holds m_shards[r] rows of op(A); unequal
//                     shards allowed). The shards are all-gathered into an M x K buffer, then
//                     D (M x N_local) = alpha op(A) op(B_local) + beta C with the rank's column
//                     block of B (K x N_local) and of C and D. desc.m is the full M.
//   row_parallel      A and B are sharded along K (rank r holds M x K_r of op(A) and K_r x N of
//                     op(B): desc.k is the local K_r). The partial products are summed across
//                     ranks: reduce-scatter along M (rank r receives m_shards[r] rows of D and
//                     reads the same rows of C) or all-reduce (every rank receives M x N).
//                     D = alpha sum_r op(A_r) op(B_r) + beta C, beta C added once (by the rank
//                     that owns those rows; rank 0 under all-reduce).
//   chunks > 1        the local GEMM runs in that many chunks of M, the collective of one chunk
//                     overlapping the GEMM of the next (column: gather chunk i+1 while chunk i
//                     multiplies; row: reduce chunk i while chunk i+1 multiplies).
//
// BLAS semantics as gemm(): beta == 0 never reads C, alpha == 0 never reads A or B (and
// communicates nothing for column_parallel), M == 0 or N == 0 returns at once. Every argument is
// checked before anything is read or written or communicated; an illegal one returns
// InvalidValue (or NotSupported for a legal problem this layer does not cover) naming it.
//
// Layout rules (the collectives move whole rows): column_parallel needs op(A)'s rows contiguous
// and packed (A row-major not transposed, or column-major transposed, ld == K); row_parallel
// needs D row-major with ld == N. Batch 1; 1-, 2-, 4- and 8-byte A dtypes; row_parallel sums in
// D's dtype (f32, f64, f16, bf16, i32; never fp8), without a fused epilogue.
// Built without NCCL (GEMMKIT_HAVE_NCCL unset), every call returns NotSupported "built without
// NCCL". Bitwise: column_parallel's rows are computed by the same gemm() as a single-GPU call
// over fewer rows, so with Options::batch_invariant they equal the single GEMM's bits;
// row_parallel's sum changes the order of the additions (within the gauge bound).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "gemmkit/gemm.hpp"

// As nccl.h declares it, so that this header does not need nccl.h.
struct ncclComm;
typedef struct ncclComm* ncclComm_t;

namespace gemmkit::dist {

// True when this build of gemmkit_dist has NCCL.
bool built_with_nccl() noexcept;

// A caller-owned ncclComm_t with what gemmkit needs beside it: rank, size and device (asked of
// NCCL once), a communication stream and events on that device. Destroying the Communicator
// never destroys the ncclComm_t. One host thread at a time per Communicator.
class Communicator {
 public:
  Communicator() noexcept;
  ~Communicator();
  Communicator(Communicator&&) noexcept;
  Communicator& operator=(Communicator&&) noexcept;

  // InvalidValue for a null comm; NotSupported without NCCL; ExecutionFailed when NCCL or
  // CUDA fails (the message has their error string). `out` is changed only on success.
  static Status create(ncclComm_t comm, Communicator* out);

  bool valid() const noexcept { return state_ != nullptr; }
  int rank() const noexcept;
  int size() const noexcept;
  int device() const noexcept;
  ncclComm_t nccl() const noexcept;

  struct State;  // src/dist/
  State* state() const noexcept { return state_.get(); }

 private:
  std::unique_ptr<State> state_;
};

enum class RowReduce : std::uint8_t { ReduceScatter, AllReduce };

struct TpOptions {
  // Rows of M per rank, in rank order (column: of op(A); row with ReduceScatter: of C and D).
  // Empty: equal shards, the first M % P ranks one row more. Must add up to M.
  std::span<const std::int64_t> m_shards{};
  RowReduce reduce = RowReduce::ReduceScatter;  // row_parallel only
  int chunks = 1;  // >= 1; > 1 overlaps communication with the GEMM (capped at M chunks)
  // Device memory of at least workspace_size() bytes; null: allocated on Options::stream
  // (cudaMallocAsync) and freed there after the call.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// Bytes of workspace an operation needs (beyond gemm()'s own): column, the gathered M x K of A;
// row with ReduceScatter, the M x N partial sums in D's dtype; row with AllReduce, none (the
// sum runs in place in D).
std::size_t column_parallel_workspace(const GemmDesc& desc);
std::size_t row_parallel_workspace(const GemmDesc& desc, const TpOptions& tp = {});

Status column_parallel(const Communicator& comm, const GemmDesc& desc, const GemmArgs& args,
                       const TpOptions& tp = {}, const Options& opt = {});
Status row_parallel(const Communicator& comm, const GemmDesc& desc, const GemmArgs& args,
                    const TpOptions& tp = {}, const Options& opt = {});

}  // namespace gemmkit::dist
