// The CUDA side of the harness with no CUDA types in the header: device facts for the run
// context and the rotation (L2 size), a stream, CUDA-event timing of an enqueued region,
// CUDA-graph capture and replay, and an L2 flush. Without CUDA every call fails cleanly with
// "gemmkit was built without CUDA"; on a machine with no usable GPU, query_device() says why.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "gemmkit/types.hpp"

namespace gemmkit::bench::gpu {

struct DeviceInfo {
  bool ok = false;
  std::string error;  // when !ok
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  std::int64_t free_mem_bytes = 0;
  int clock_khz = 0;      // peak SM clock (cudaDevAttrClockRate), 0 if unreadable
  int mem_clock_khz = 0;  // peak memory clock, 0 if unreadable
  int driver_version = 0;   // cudaDriverGetVersion: 13000 = 13.0
  int runtime_version = 0;  // cudaRuntimeGetVersion
  std::int64_t cublaslt_version = 0;  // cublasLtGetVersion: 130100 = 13.1.0
};

DeviceInfo query_device();

// An enqueue function issues work on the stream it is given and returns its status.
using Enqueue = std::function<Status(void* stream)>;

class Stream {
 public:
  Stream();  // creates a non-blocking stream and two events; ok() says whether it worked
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void* handle() const { return stream_; }

  // Records an event, runs `enqueue`, records another, waits: the time between the events.
  Status time_region(const Enqueue& enqueue, double* ms);
  Status synchronize();

 private:
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
  std::string error_;
};

// A captured CUDA graph of back-to-back calls, replayed as one launch.
class Graph {
 public:
  Graph() = default;
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  // Captures `enqueue` (which may enqueue many calls) on the stream in relaxed mode (host-side
  // calls such as cudaFuncSetAttribute are allowed); fails when something in it cannot be
  // captured (a synchronizing call): the harness then times both providers with events.
  Status capture(Stream& s, const Enqueue& enqueue);
  // Replays once between two events on the stream; the time of the whole replay.
  Status replay(Stream& s, double* ms);

 private:
  void* graph_ = nullptr;
  void* exec_ = nullptr;
};

// Overwrites `bytes` of device scratch (memset on the stream): evicts the L2 between calls.
Status flush_l2(Stream& s, void* scratch, std::size_t bytes);

// The device's copy bandwidth: cudaMemcpyAsync of `bytes` device to device (each byte read
// once and written once), the median of `reps` event-timed copies; bytes / s counting both.
Status copy_bandwidth(std::size_t bytes, int reps, double* bytes_per_s);

}  // namespace gemmkit::bench::gpu
