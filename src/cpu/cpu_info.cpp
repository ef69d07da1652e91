#include "cpu/cpu_info.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace gemmkit::cpu {

namespace {

CpuInfo detect() {
  CpuInfo c;
  __builtin_cpu_init();
  c.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  c.f16c = c.avx2_fma && __builtin_cpu_supports("f16c");
  c.avx512 = c.avx2_fma && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq");
  c.avx512_vnni = c.avx512 && __builtin_cpu_supports("avx512vnni");
  if (const char* cap = std::getenv("GEMMKIT_CPU_ISA")) {
    const std::string_view s(cap);
    if (s == "portable") c.avx2_fma = c.f16c = c.avx512 = false;
    if (s == "avx2") c.avx512 = false;
    if (s == "portable" || s == "avx2" || s == "avx512") c.avx512_vnni = false;
  }
  // sysconf reports 0 or -1 where the kernel does not know; keep the defaults then.
  if (long v = sysconf(_SC_LEVEL1_DCACHE_SIZE); v > 0) c.l1d_bytes = v;
  if (long v = sysconf(_SC_LEVEL2_CACHE_SIZE); v > 0) c.l2_bytes = v;
  if (long v = sysconf(_SC_LEVEL3_CACHE_SIZE); v > 0) c.l3_bytes = v;
  c.cores = std::max(1, omp_get_num_procs());
  return c;
}

}  // namespace

const CpuInfo& cpu_info() {
  static const CpuInfo info = detect();
  return info;
}

int choose_threads(int opt_threads, double flops, bool optional_helpers) {
  int nt = opt_threads > 0 ? opt_threads : omp_get_max_threads();
  // A team that must meet: about 2 MFLOP (f32) per thread before another thread pays for its
  // wake-up and the team's meeting (OMP_WAIT_POLICY=passive puts the team to sleep between calls).
  // Measured on the 2-vCPU VM with OpenBLAS's spinning workers out of the way
  // (OPENBLAS_THREAD_TIMEOUT=4), sgemm on 2 threads against 1: 128^3 (4.2 MFLOP) 89 vs 115 GFLOP/s,
  // 192^3 (14 MFLOP) 147 vs 121, 256^3 195 vs 134; with the team meeting awake (team_barrier.hpp),
  // 128^3 f32 still 61-86 us on 2 threads against 53-54 on one, f64 (counted twice: half the lanes)
  // 78-97 us against 105. (The earlier 30 MFLOP came from runs where an OpenBLAS worker still spun
  // on the second vCPU.) Since each thread of a team owns its share of the streamed groups, 128^3
  // f32 on 2 threads ran 38.9-48.6 us against 46.8-48.7 on one (four alternated rounds, AVX2
  // capped, OpenBLAS on 2 threads 30.7-52.3 us), but 46.8-58.7 against 49.2-54.1 in a later
  // session, and on a 2-vCPU Xeon (AVX2 capped) 63.8-76.1 us on 2 threads against 57.7-58.5 on one
  // (OpenBLAS on 2: 54.1-56.4): the second thread from 8 MFLOP (4 a thread).
  // A team of optional helpers (helper_team.hpp) costs the caller a wake-up call, not the wait for
  // the wake-up: about 1.25 MFLOP (f32) a thread. The 2-vCPU Zen 5 VM, AVX2 capped, 2 threads
  // against 1 (us a call, two alternated rounds): f32 80^3 23-24 against 16-17, 96^3 28-29 against
  // 24-25, 112^3 35-37 against 38-43, 128^3 47-48 against 60-61; f64 (counted twice) 80^3 30-42
  // against 30-40, 96^3 46-57 against 49-68, 112^3 66-80 against 76-103.
  const double per_thread = optional_helpers ? 1.25e6 : 4e6;
  const int by_work = static_cast<int>(std::max(1.0, flops / per_thread));
  return std::max(1, std::min(nt, by_work));
}

}  // namespace gemmkit::cpu
