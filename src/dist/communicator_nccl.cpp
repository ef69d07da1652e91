// Communicator over a caller-owned ncclComm_t, and the helpers of state_nccl.hpp.
#include <string>

#include "dist/state_nccl.hpp"

namespace gemmkit::dist {

Status nccl_error(ncclResult_t r, const char* what, const char* file, int line) {
  return core::make_status(StatusCode::ExecutionFailed, Arg::None,
                           std::string(what) + ": " + ncclGetErrorString(r), file, line);
}

Status cuda_error(cudaError_t e, const char* what, const char* file, int line) {
  return core::make_status(StatusCode::ExecutionFailed, Arg::None,
                           std::string(what) + ": " + cudaGetErrorString(e), file, line);
}

Communicator::State::~State() {
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  if (side) cudaStreamDestroy(side);
}

Status events(Communicator::State& st, std::size_t n) {
  while (st.events.size() < n) {
    cudaEvent_t e = nullptr;
    GEMMKIT_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    st.events.push_back(e);
  }
  return {};
}

Status wait(Communicator::State& st, std::size_t e, cudaStream_t from, cudaStream_t to) {
  if (Status s = events(st, e + 1); !s) return s;
  GEMMKIT_CUDA(cudaEventRecord(st.events[e], from));
  GEMMKIT_CUDA(cudaStreamWaitEvent(to, st.events[e], 0));
  return {};
}

Status joined(Communicator::State& st, cudaStream_t from, cudaStream_t to, Status e) {
  (void)wait(st, 0, from, to);
  return e;
}

Status Workspace::acquire(const TpOptions& o, std::size_t bytes, cudaStream_t s) {
  if (bytes == 0 || o.workspace) {
    p_ = o.workspace;
    return {};
  }
  GEMMKIT_CUDA(cudaMallocAsync(&p_, bytes, s));
  owned_ = true;
  s_ = s;
  return {};
}

bool built_with_nccl() noexcept { return true; }

Communicator::Communicator() noexcept = default;
Communicator::~Communicator() = default;
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;
int Communicator::rank() const noexcept { return state_ ? state_->rank : 0; }
int Communicator::size() const noexcept { return state_ ? state_->size : 0; }
int Communicator::device() const noexcept { return state_ ? state_->device : -1; }
ncclComm_t Communicator::nccl() const noexcept { return state_ ? state_->comm : nullptr; }

Status Communicator::create(ncclComm_t comm, Communicator* out) {
  if (comm == nullptr) return GEMMKIT_INVALID(Arg::None, "comm: the ncclComm_t is null");
  if (out == nullptr) return GEMMKIT_INVALID(Arg::None, "out: null");
  auto st = std::make_unique<State>();
  st->comm = comm;
  GEMMKIT_NCCL(ncclCommUserRank(comm, &st->rank));
  GEMMKIT_NCCL(ncclCommCount(comm, &st->size));
  GEMMKIT_NCCL(ncclCommCuDevice(comm, &st->device));
  DeviceGuard g(st->device);
  GEMMKIT_CUDA(g.status());
  GEMMKIT_CUDA(cudaStreamCreateWithFlags(&st->side, cudaStreamNonBlocking));
  out->state_ = std::move(st);
  return {};
}

}  // namespace gemmkit::dist
