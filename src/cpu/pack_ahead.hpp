// The source lines of a later pack, prefetched into L2 (prefetcht1) a slice at a time between
// the tiles of the work before it. The driver's streamed B panels (a single A block: 4096 x 64 x
// 4096 runs as 64 x 4096, its panels packed from the 64 MiB operand) read each group's K steps
// from DRAM; fetched while the previous group is multiplied, they are in L2 when packed.
#pragma once
#include <cstdint>

#include "cpu/isa_namespace.hpp"
#include "cpu/pack_source.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

template <class T>
struct PackAhead {
  const char* base = nullptr;  // the first K step's run; null: nothing to fetch
  std::int64_t step = 0;       // bytes from one K step's run to the next
  std::int64_t run = 0;        // bytes of each run
  std::int64_t kc = 0;         // K steps
  std::int64_t issued = 0;     // K steps fetched so far

  // The runs that pack_panels(src, r0, rows, p0, kc, ...) reads. Only for a plain copy of a
  // source whose rows are contiguous (one run of `rows` values a K step): the others either
  // read K-contiguous lines that the hardware prefetcher follows, or convert and are not
  // bound by the memory.
  static PackAhead of(const PackSource<T>& src, std::int64_t r0, std::int64_t rows, std::int64_t p0,
                      std::int64_t kc) {
    PackAhead a;
    if (src.s.row != 1 || src.convert != PackConvert::Copy || src.scale.base != nullptr) return a;
    a.base = reinterpret_cast<const char*>(static_cast<const T*>(src.base) + r0 + p0 * src.s.col);
    a.step = src.s.col * std::int64_t(sizeof(T));
    a.run = rows * std::int64_t(sizeof(T));
    a.kc = kc;
    return a;
  }

  // Fetches the K steps up to `part / parts` of the whole.
  void upto(std::int64_t part, std::int64_t parts) {
    if (base == nullptr) return;
    for (const std::int64_t to = kc * part / parts; issued < to; ++issued) {
      const char* at = base + issued * step;
      // Every line the run touches, from the one holding its first byte.
      for (std::int64_t b = -std::int64_t(reinterpret_cast<std::uintptr_t>(at) % 64); b < run;
           b += 64)
        __builtin_prefetch(at + b, 0, 2);
    }
  }
};

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
