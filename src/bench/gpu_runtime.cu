#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "bench/gpu_runtime.hpp"

namespace gemmkit::bench::gpu {

namespace {

std::string cuda_message(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// Success, or ExecutionFailed naming the call and the CUDA error; clears the sticky error.
Status check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  cudaGetLastError();
  return Status{StatusCode::ExecutionFailed, Arg::None, cuda_message(e, what)};
}

}  // namespace

DeviceInfo query_device() {
  DeviceInfo d;
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    d.error = cuda_message(e, "cudaGetDeviceCount");
    cudaGetLastError();
    return d;
  }
  if (count == 0) {
    d.error = "no CUDA device";
    return d;
  }
  if (cudaError_t e = cudaGetDevice(&d.ordinal); e != cudaSuccess) {
    d.error = cuda_message(e, "cudaGetDevice");
    return d;
  }
  cudaDeviceProp p{};
  if (cudaError_t e = cudaGetDeviceProperties(&p, d.ordinal); e != cudaSuccess) {
    d.error = cuda_message(e, "cudaGetDeviceProperties");
    return d;
  }
  d.ok = true;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  if (cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, d.ordinal) != cudaSuccess)
    d.clock_khz = 0;
  if (cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, d.ordinal) !=
      cudaSuccess)
    d.mem_clock_khz = 0;
  cudaGetLastError();
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
    d.free_mem_bytes = static_cast<std::int64_t>(free_b);
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  d.cublaslt_version = static_cast<std::int64_t>(cublasLtGetVersion());
  cudaGetLastError();
  return d;
}

Stream::Stream() {
  cudaStream_t s = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  Status st = check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  if (st) st = check(cudaEventCreate(&a), "cudaEventCreate");
  if (st) st = check(cudaEventCreate(&b), "cudaEventCreate");
  stream_ = s;
  start_ = a;
  stop_ = b;
  if (!st) error_ = st.message;
}

Stream::~Stream() {
  if (start_) cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  if (stop_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

Status Stream::synchronize() {
  return check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize");
}

Status Stream::time_region(const Enqueue& enqueue, double* ms) {
  auto s = static_cast<cudaStream_t>(stream_);
  auto a = static_cast<cudaEvent_t>(start_), b = static_cast<cudaEvent_t>(stop_);
  if (Status st = check(cudaEventRecord(a, s), "cudaEventRecord"); !st) return st;
  Status call = enqueue(stream_);
  if (Status st = check(cudaEventRecord(b, s), "cudaEventRecord"); !st) return st;
  if (Status st = check(cudaEventSynchronize(b), "cudaEventSynchronize"); !st) return st;
  if (!call) return call;
  if (Status st = check(cudaGetLastError(), "kernel launch"); !st) return st;
  float t = 0;
  if (Status st = check(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime"); !st) return st;
  *ms = t;
  return {};
}

Graph::~Graph() {
  if (exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
  if (graph_) cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
}

Status Graph::capture(Stream& st, const Enqueue& enqueue) {
  auto s = static_cast<cudaStream_t>(st.handle());
  if (Status r = check(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed),
                       "cudaStreamBeginCapture");
      !r)
    return r;
  Status call = enqueue(st.handle());
  cudaGraph_t g = nullptr;
  // End the capture whatever happened, so the stream leaves capture mode.
  Status end = check(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
  if (g) graph_ = g;
  if (!call) return call;
  if (!end) return end;
  cudaGraphExec_t e = nullptr;
  if (Status r = check(cudaGraphInstantiate(&e, g, 0), "cudaGraphInstantiate"); !r) return r;
  exec_ = e;
  // Upload once so that the first timed replay does not pay for it.
  return check(cudaGraphUpload(e, s), "cudaGraphUpload");
}

Status Graph::replay(Stream& st, double* ms) {
  auto e = static_cast<cudaGraphExec_t>(exec_);
  if (!e) return Status{StatusCode::ExecutionFailed, Arg::None, "graph was not captured"};
  return st.time_region(
      [e](void* s) { return check(cudaGraphLaunch(e, static_cast<cudaStream_t>(s)),
                                  "cudaGraphLaunch"); },
      ms);
}

Status flush_l2(Stream& s, void* scratch, std::size_t bytes) {
  return check(cudaMemsetAsync(scratch, 0x3c, bytes, static_cast<cudaStream_t>(s.handle())),
               "cudaMemsetAsync (L2 flush)");
}

Status copy_bandwidth(std::size_t bytes, int reps, double* bytes_per_s) {
  Stream st;
  if (!st.ok()) return Status{StatusCode::ExecutionFailed, Arg::None, st.error()};
  void* src = nullptr;
  void* dst = nullptr;
  Status s = check(cudaMalloc(&src, bytes), "cudaMalloc");
  if (s) s = check(cudaMalloc(&dst, bytes), "cudaMalloc");
  if (s) s = check(cudaMemset(src, 1, bytes), "cudaMemset");
  std::vector<double> ms;
  const auto copy = [&](void* stream) {
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                 static_cast<cudaStream_t>(stream)),
                 "cudaMemcpyAsync");
  };
  for (int i = 0; s && i < reps + 1; ++i) {  // the first copy warms up
    double t = 0;
    s = st.time_region(copy, &t);
    if (s && i > 0) ms.push_back(t);
  }
  cudaFree(src);
  cudaFree(dst);
  if (!s) return s;
  std::sort(ms.begin(), ms.end());
  *bytes_per_s = 2.0 * static_cast<double>(bytes) / (ms[ms.size() / 2] * 1e-3);
  return {};
}

}  // namespace gemmkit::bench::gpu
