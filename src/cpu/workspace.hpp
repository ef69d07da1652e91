// The cached packing workspace: one per calling thread (thread_local), grown on demand and
// kept for the next call, so a GEMM allocates nothing once the cache is warm. Callers on
// different threads never share one; the OpenMP team of one call indexes its per-thread
// A buffers by thread number.
#pragma once
#include <cstddef>
#include <vector>

namespace gemmkit::cpu {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& o) noexcept : p_(o.p_), cap_(o.cap_) { o.p_ = nullptr, o.cap_ = 0; }
  ~AlignedBuffer();
  // At least `bytes`, 64-byte aligned; contents are not kept when it grows.
  void* get(std::size_t bytes);

 private:
  void* p_ = nullptr;
  std::size_t cap_ = 0;
};

struct PackWorkspace {
  AlignedBuffer b;               // the packed (KC, NC) B panel, shared by the team
  std::vector<AlignedBuffer> a;  // one packed (MC, KC) A block per team thread
  AlignedBuffer partial;         // split-K partial products
  AlignedBuffer vec;             // GEMV: contiguous x and per-thread accumulators
  AlignedBuffer sum;             // the running sum between K blocks of a bf16 / fp16 D
  // Makes room for `threads` A buffers (call before the parallel region).
  void reserve_threads(int threads) {
    if (static_cast<int>(a.size()) < threads) a.resize(threads);
  }
};

PackWorkspace& thread_workspace();

}  // namespace gemmkit::cpu
