#include "cpu/workspace.hpp"

#include <cstdlib>
#include <new>

namespace gemmkit::cpu {

AlignedBuffer::~AlignedBuffer() { std::free(p_); }

void* AlignedBuffer::get(std::size_t bytes) {
  if (bytes <= cap_) return p_;
  std::free(p_);
  cap_ = (bytes + 4095) / 4096 * 4096;
  p_ = std::aligned_alloc(64, cap_);
  if (p_ == nullptr) {
    cap_ = 0;
    throw std::bad_alloc();
  }
  return p_;
}

PackWorkspace& thread_workspace() {
  thread_local PackWorkspace ws;
  return ws;
}

}  // namespace gemmkit::cpu
