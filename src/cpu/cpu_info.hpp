// What this CPU offers the CPU backend: ISA extensions (checked at run time, never assumed
// from compile flags), cache sizes (for the block-size table) and core count.
#pragma once
#include <cstdint>

namespace gemmkit::cpu {

struct CpuInfo {
  bool avx2_fma = false;  // AVX2 + FMA3
  bool f16c = false;
  bool avx512 = false;       // AVX-512 F, BW, VL, DQ (what *_avx512.cpp files are built with)
  bool avx512_vnni = false;  // and VNNI (vpdpwssd: the int8 kernel, reached by a target attribute)
  std::int64_t l1d_bytes = 32 << 10;
  std::int64_t l2_bytes = 1 << 20;
  std::int64_t l3_bytes = 8 << 20;
  int cores = 1;
};

// Detected once; GEMMKIT_CPU_ISA=portable|avx2|avx512 in the environment caps the ISA (avx512:
// AVX-512 without VNNI; tests and benchmarks use it to exercise every path on one machine).
const CpuInfo& cpu_info();

// Threads a CPU kernel should use for `opt_threads` (0 = all cores) and `flops` of work: small
// problems stay on one thread, where waking a team would cost more than it saves;
// `optional_helpers`: a team whose threads other than the caller are optional (helper_team.hpp),
// which pays from a smaller size.
int choose_threads(int opt_threads, double flops, bool optional_helpers = false);

}  // namespace gemmkit::cpu
