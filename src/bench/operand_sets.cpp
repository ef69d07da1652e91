#include "bench/operand_sets.hpp"

#include <cstdlib>
#include <cstring>

#include "bench/device_mem.hpp"

namespace gemmkit::bench {

OperandSets::~OperandSets() { release(); }

void OperandSets::release() {
  for (void* p : blocks_) {
    if (device_) device_free(p);
    else std::free(p);
  }
  blocks_.clear();
  sets_.clear();
}

void* OperandSets::alloc(std::size_t bytes, std::string* err) {
  void* p = nullptr;
  if (device_) {
    if (!device_alloc(&p, bytes, err)) return nullptr;
  } else {
    constexpr std::size_t kPage = 4096;
    p = std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage);
    if (!p) *err = "out of host memory allocating " + std::to_string(bytes) + " bytes";
  }
  if (p) blocks_.push_back(p);
  return p;
}

bool OperandSets::copy_in(void* dst, const void* src, std::size_t bytes, std::string* err) {
  if (device_) return copy_to_device(dst, src, bytes, err);
  std::memcpy(dst, src, bytes);
  return true;
}

bool OperandSets::create(const HostCase& hc, int count, bool device, std::string* err) {
  release();
  device_ = device;
  const std::vector<std::uint8_t>* src[4] = {&hc.a, &hc.b, &hc.c, &hc.d};
  for (int j = 0; j < 4; ++j) bytes_[j] = src[j]->size();
  for (int i = 0; i < count; ++i) {
    void* p[4];
    for (int j = 0; j < 4; ++j) {
      p[j] = alloc(bytes_[j], err);
      if (!p[j]) return false;
      // Set 0 from the host case; the others copy set 0 (same values, other addresses).
      const bool ok = i == 0 || !device ? copy_in(p[j], src[j]->data(), bytes_[j], err)
                                         : copy_on_device(p[j], blocks_[static_cast<std::size_t>(j)],
                                                          bytes_[j], err);
      if (!ok) return false;
    }
    sets_.push_back(OperandSet{p[0], p[1], p[2], p[3]});
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
         std::memcmp(s.c, hc.c.data(), hc.c.size()) == 0;
}

}  // namespace gemmkit::bench
