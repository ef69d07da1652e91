// Rung 1, naive: one dot product per output element, read straight from the operands.
// Every element of A is read N times and every element of B M times: the memory system, not
// the FMA units, sets the speed (tutorial section 02).
#include "cpu/ladder.hpp"

namespace gemmkit::cpu {

template <class T>
void ladder_naive(const Gemm<T>& g, int) {
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t j = 0; j < g.n; ++j) {
      T acc = T(0);
      for (std::int64_t p = 0; p < g.k; ++p)
        acc += g.a[i * g.sa.row + p * g.sa.col] * g.b[p * g.sb.row + j * g.sb.col];
      store_result(g, i, j, acc);
    }
}

template void ladder_naive<float>(const Gemm<float>&, int);
template void ladder_naive<double>(const Gemm<double>&, int);

}  // namespace gemmkit::cpu
