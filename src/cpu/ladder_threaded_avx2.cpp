// Rung 5, threaded: the simd rung with the MC loop spread over OpenMP threads. Each core
// packs its own A block into its own L2 and reuses the one packed B panel that all threads
// share; the MC loop is the one that scales here (private L2 per core, B read from L3).
#include <omp.h>

#include "cpu/cpu_info.hpp"
#include "cpu/ladder_packed.hpp"

namespace gemmkit::cpu {

template <class T>
void ladder_threaded(const Gemm<T>& g, int threads) {
  constexpr int MR = ladder::kSimdMR, NR = ladder::kSimdNR<T>;
  constexpr std::int64_t MC = 120, KC = 256, NC = 2048;
  const int nt = choose_threads(threads, 2.0 * g.m * g.n * g.k);
  std::vector<T> pb((NC + NR) * KC), pa(nt * (MC + MR) * KC);
  for (std::int64_t j0 = 0; j0 < g.n; j0 += NC) {
    const std::int64_t nc = std::min(NC, g.n - j0);
    for (std::int64_t p0 = 0; p0 < g.k; p0 += KC) {
      const std::int64_t kc = std::min(KC, g.k - p0);
      ladder::pack_b<NR>(g, p0, kc, j0, nc, pb.data());
#pragma omp parallel for num_threads(nt) schedule(static)
      for (std::int64_t i0 = 0; i0 < g.m; i0 += MC) {
        T* my_pa = pa.data() + omp_get_thread_num() * (MC + MR) * KC;
        const std::int64_t mc = std::min(MC, g.m - i0);
        ladder::pack_a<MR>(g, i0, mc, p0, kc, my_pa);
        ladder::macro_kernel<MR, NR>(g, my_pa, pb.data(), i0, mc, j0, nc, kc, p0 == 0,
                                     ladder::simd_tile<T>);
      }
    }
  }
}

template void ladder_threaded<float>(const Gemm<float>&, int);
template void ladder_threaded<double>(const Gemm<double>&, int);

}  // namespace gemmkit::cpu
