// A kernel parameter's value in registers: each 32-bit word loaded once, where the caller
// asks, and kept. An empty asm the compiler cannot see through stops it from loading the
// fields again from the parameter bank where they are used, which it otherwise does: each
// is a constant-cache load on the critical path of the code that uses it. H200
// (bench/micro/sm90_timeline.cu, store_rate.cu): a 128 x 128 bf16 tile's epilogue took 1.57 us
// reading its parameters from the bank and 1.41 us through this (1.73 / 1.02 us in another run
// with the fields copied through shared memory); its stores alone take 0.35 us. In the sm90
// kernel, 128 x 128 x 64 calls went from 4.43 to 4.15 us.
#pragma once
#include <cstdint>
#include <cstring>

namespace gemmkit::gpu {

template <class P>
__device__ __forceinline__ P in_registers(const P& src) {
  static_assert(sizeof(P) % 4 == 0, "whole 32-bit words");
  constexpr int kWords = sizeof(P) / 4;
  std::uint32_t w[kWords];
  const auto* s = reinterpret_cast<const std::uint32_t*>(&src);
#pragma unroll
  for (int i = 0; i < kWords; ++i) {
    w[i] = s[i];
    asm volatile("" : "+r"(w[i]));
  }
  P out;
  memcpy(&out, w, sizeof(P));
  return out;
}

}  // namespace gemmkit::gpu
