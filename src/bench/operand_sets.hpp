// The rotation sets of one problem: `count` copies of a HostCase's A, B, C, D and bias buffers
// (guard bands included; the bias only when the epilogue has one), carved from one arena of
// page-aligned host memory or device memory. The host arena is kept for the next problem (no
// page faults on 1+ GiB per problem), and only set 0 is filled until fill_all(): verification
// needs one set, timing needs them all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/provider.hpp"
#include "bench/testbed.hpp"

namespace gemmkit::bench {

class OperandSets {
 public:
  OperandSets() = default;
  ~OperandSets();
  OperandSets(const OperandSets&) = delete;
  OperandSets& operator=(const OperandSets&) = delete;

  // Lays out `count` sets and fills set 0 from hc. False (with *err) when memory runs out.
  bool create(const HostCase& hc, int count, bool device, std::string* err);
  // Copies set 0 into every other set (same values, other addresses).
  bool fill_all(std::string* err);
  int size() const { return static_cast<int>(sets_.size()); }
  const OperandSet& operator[](int i) const { return sets_[static_cast<std::size_t>(i)]; }
  bool on_device() const { return device_; }

  // Overwrites D of set i with `bytes` (D's full buffer), or reads it back.
  bool write_d(int i, const std::vector<std::uint8_t>& bytes, std::string* err);
  bool read_d(int i, std::vector<std::uint8_t>* out, std::string* err) const;
  // True when A, B, C and the bias of set i still equal hc's (host sets only; device: not
  // checked).
  bool inputs_unchanged(const HostCase& hc, int i) const;

 private:
  void release();
  bool copy_in(void* dst, const void* src, std::size_t bytes, std::string* err);

  bool device_ = false;
  static constexpr int kBuffers = 5;  // A, B, C, D, bias
  std::size_t bytes_[kBuffers] = {};
  std::size_t set_stride_ = 0;
  std::vector<OperandSet> sets_;
  void* arena_ = nullptr;  // device arena (host arenas live in a process-wide pool)
};

}  // namespace gemmkit::bench
