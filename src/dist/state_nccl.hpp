// What a Communicator holds (NCCL builds only): the caller's ncclComm_t, rank / size / device
// asked of NCCL once, a communication stream and a pool of events on that device; and the
// helpers every operation uses: NCCL and CUDA errors as Status, the device guard, the fork and
// join of the two streams, the call's workspace.
#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <vector>

#include "core/status.hpp"
#include "gemmkit/dist.hpp"

namespace gemmkit::dist {

struct Communicator::State {
  ncclComm_t comm = nullptr;  // the caller's; never destroyed here
  int rank = 0, size = 0, device = 0;
  cudaStream_t side = nullptr;      // NCCL's stream under overlap
  std::vector<cudaEvent_t> events;  // grown on demand, reused by every call
  ~State();
};

Status nccl_error(ncclResult_t r, const char* what, const char* file, int line);
Status cuda_error(cudaError_t e, const char* what, const char* file, int line);

}  // namespace gemmkit::dist

#define GEMMKIT_NCCL(call)                                               \
  do {                                                                   \
    if (ncclResult_t r_ = (call); r_ != ncclSuccess)                     \
      return ::gemmkit::dist::nccl_error(r_, #call, __FILE__, __LINE__); \
  } while (0)
#define GEMMKIT_CUDA(call)                                               \
  do {                                                                   \
    if (cudaError_t e_ = (call); e_ != cudaSuccess)                      \
      return ::gemmkit::dist::cuda_error(e_, #call, __FILE__, __LINE__); \
  } while (0)

namespace gemmkit::dist {

// Makes the communicator's device current for the call, and the caller's current again after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&prev_) == cudaSuccess && prev_ != device) ok_ = cudaSetDevice(device);
  }
  ~DeviceGuard() {
    int now = -1;
    if (cudaGetDevice(&now) == cudaSuccess && now != prev_ && prev_ >= 0) cudaSetDevice(prev_);
  }
  cudaError_t status() const { return ok_; }

 private:
  int prev_ = -1;
  cudaError_t ok_ = cudaSuccess;
};

// Events 0..n-1 of the pool, created as needed (no timing).
Status events(Communicator::State& st, std::size_t n);

// `to` waits for everything enqueued on `from` so far (event `e` of the pool).
Status wait(Communicator::State& st, std::size_t e, cudaStream_t from, cudaStream_t to);

// After an error past the fork: `to` still waits for `from` (the workspace is freed on `to`);
// returns `e`.
Status joined(Communicator::State& st, cudaStream_t from, cudaStream_t to, Status e);

// The call's workspace: the caller's, or stream-ordered memory freed on the stream at the end.
class Workspace {
 public:
  Status acquire(const TpOptions& o, std::size_t bytes, cudaStream_t s);
  void* get() const { return p_; }
  ~Workspace() {
    if (owned_) cudaFreeAsync(p_, s_);
  }

 private:
  void* p_ = nullptr;
  bool owned_ = false;
  cudaStream_t s_ = nullptr;
};

}  // namespace gemmkit::dist
