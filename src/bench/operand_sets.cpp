#include "bench/operand_sets.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "bench/device_mem.hpp"

namespace gemmkit::bench {

namespace {

constexpr std::size_t kAlign = 4096;  // page-aligned buffers, as cudaMalloc/allocators give

std::size_t round_up(std::size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// One host arena kept between problems: the largest asked for so far.
struct HostArena {
  std::mutex mu;
  void* p = nullptr;
  std::size_t bytes = 0;
  bool in_use = false;
};
HostArena& host_arena() {
  static HostArena a;
  return a;
}

void* take_host_arena(std::size_t bytes, std::string* err) {
  HostArena& a = host_arena();
  std::lock_guard<std::mutex> lock(a.mu);
  if (a.in_use) {  // a second live OperandSets: give it its own memory
    void* p = std::aligned_alloc(kAlign, round_up(bytes));
    if (!p) *err = "out of host memory allocating " + std::to_string(bytes) + " bytes";
    return p;
  }
  if (a.bytes < bytes) {
    std::free(a.p);
    a.bytes = 0;
    a.p = std::aligned_alloc(kAlign, round_up(bytes));
    if (!a.p) {
      *err = "out of host memory allocating " + std::to_string(bytes) + " bytes";
      return nullptr;
    }
    a.bytes = bytes;
  }
  a.in_use = true;
  return a.p;
}

void give_host_arena(void* p) {
  HostArena& a = host_arena();
  std::lock_guard<std::mutex> lock(a.mu);
  if (p == a.p) a.in_use = false;
  else std::free(p);
}

}  // namespace

OperandSets::~OperandSets() { release(); }

void OperandSets::release() {
  if (arena_) {
    if (device_) device_free(arena_);
    else give_host_arena(arena_);
  }
  arena_ = nullptr;
  sets_.clear();
}

bool OperandSets::copy_in(void* dst, const void* src, std::size_t bytes, std::string* err) {
  if (device_) return copy_to_device(dst, src, bytes, err);
  std::memcpy(dst, src, bytes);
  return true;
}

bool OperandSets::create(const HostCase& hc, int count, bool device, std::string* err) {
  release();
  device_ = device;
  const std::vector<std::uint8_t>* src[kBuffers] = {&hc.a, &hc.b, &hc.c, &hc.d, &hc.bias};
  set_stride_ = 0;
  for (int j = 0; j < kBuffers; ++j) {
    bytes_[j] = src[j]->size();
    set_stride_ += round_up(bytes_[j]);
  }
  const std::size_t total = set_stride_ * static_cast<std::size_t>(count);
  if (device) {
    if (!device_alloc(&arena_, total, err)) {
      arena_ = nullptr;
      return false;
    }
  } else {
    arena_ = take_host_arena(total, err);
    if (!arena_) return false;
  }
  for (int i = 0; i < count; ++i) {
    char* base = static_cast<char*>(arena_) + set_stride_ * static_cast<std::size_t>(i);
    void* p[kBuffers];
    std::size_t off = 0;
    for (int j = 0; j < kBuffers; ++j) {
      p[j] = base + off;
      off += round_up(bytes_[j]);
    }
    sets_.push_back(OperandSet{p[0], p[1], p[2], p[3], hc.bias_ptr() ? p[4] : nullptr,
                               hc.scale_ptr(true), hc.scale_ptr(false), hc.zero_ptr()});
    if (hc.desc.epilogue.scale_d) sets_.back().scale_d = &hc.out_scale;
    if (hc.desc.epilogue.amax_d) sets_.back().amax_d = const_cast<float*>(&hc.amax);
  }
  char* base = static_cast<char*>(arena_);
  for (int j = 0; j < kBuffers; ++j) {
    if (bytes_[j] > 0 && !copy_in(base, src[j]->data(), bytes_[j], err)) return false;
    base += round_up(bytes_[j]);
  }
  return true;
}

bool OperandSets::fill_all(std::string* err) {
  for (std::size_t i = 1; i < sets_.size(); ++i) {
    char* dst = static_cast<char*>(arena_) + set_stride_ * i;
    if (device_) {
      if (!copy_on_device(dst, arena_, set_stride_, err)) return false;
    } else {
      std::memcpy(dst, arena_, set_stride_);
    }
  }
  return true;
}

bool OperandSets::write_d(int i, const std::vector<std::uint8_t>& bytes, std::string* err) {
  return copy_in(sets_[static_cast<std::size_t>(i)].d, bytes.data(), bytes.size(), err);
}

bool OperandSets::read_d(int i, std::vector<std::uint8_t>* out, std::string* err) const {
  out->resize(bytes_[3]);
  const void* d = sets_[static_cast<std::size_t>(i)].d;
  if (device_) return copy_to_host(out->data(), d, bytes_[3], err);
  std::memcpy(out->data(), d, bytes_[3]);
  return true;
}

bool OperandSets::inputs_unchanged(const HostCase& hc, int i) const {
  if (device_) return true;
  const OperandSet& s = sets_[static_cast<std::size_t>(i)];
  return std::memcmp(s.a, hc.a.data(), hc.a.size()) == 0 &&
         std::memcmp(s.b, hc.b.data(), hc.b.size()) == 0 &&
         std::memcmp(s.c, hc.c.data(), hc.c.size()) == 0 &&
         (s.bias == nullptr || std::memcmp(s.bias, hc.bias.data(), hc.bias.size()) == 0);
}

}  // namespace gemmkit::bench
