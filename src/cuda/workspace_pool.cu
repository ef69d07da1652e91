#include "cuda/workspace_pool.hpp"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/status.hpp"

namespace gemmkit::gpu {

namespace {

struct Buffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

// One buffer per (device, stream) of `pool`, at least `bytes`; `zeroed`: cleared on `stream`
// when (re)allocated.
Status pooled(std::map<std::pair<int, cudaStream_t>, Buffer>& pool, std::mutex& mu,
              std::size_t bytes, cudaStream_t stream, bool zeroed, void** out) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::Workspace, "no current CUDA device");
  const std::lock_guard<std::mutex> lock(mu);
  Buffer& b = pool[{dev, stream}];
  if (b.bytes >= bytes) {
    *out = b.ptr;
    return {};
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
      capture != cudaStreamCaptureStatusNone)
    return GEMMKIT_ERROR(StatusCode::WorkspaceTooSmall, Arg::Workspace,
                         "the stream is being captured and the call needs " +
                             std::to_string(bytes) +
                             " bytes of workspace: pass Options::workspace (workspace_size)");
  // The old buffer may still be read by work queued on the stream: free it after that work.
  if (b.ptr != nullptr) {
    cudaStreamSynchronize(stream);
    cudaFree(b.ptr);
    b = {};
  }
  if (cudaError_t e = cudaMalloc(&b.ptr, bytes); e != cudaSuccess) {
    cudaGetLastError();
    b = {};
    return GEMMKIT_ERROR(StatusCode::WorkspaceTooSmall, Arg::Workspace,
                         "cannot allocate " + std::to_string(bytes) +
                             " bytes of device workspace: " + cudaGetErrorString(e));
  }
  if (zeroed && cudaMemsetAsync(b.ptr, 0, bytes, stream) != cudaSuccess) {
    cudaGetLastError();
    cudaFree(b.ptr);
    b = {};
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::Workspace,
                         "cannot clear the device counters");
  }
  b.bytes = bytes;
  *out = b.ptr;
  return {};
}

}  // namespace

Status pool_workspace(std::size_t bytes, cudaStream_t stream, void** out) {
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, Buffer> pool;
  return pooled(pool, mu, bytes, stream, false, out);
}

Status pool_counters(std::size_t bytes, cudaStream_t stream, unsigned** out) {
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, Buffer> pool;
  void* p = nullptr;
  Status s = pooled(pool, mu, bytes, stream, true, &p);
  *out = static_cast<unsigned*>(p);
  return s;
}

}  // namespace gemmkit::gpu
