// Rung 3, packed: BLIS's MC/KC/NC loops around packed panels (ladder_packed.hpp). Packing
// turns every operand layout into unit-stride micro-panels, so the inner kernel streams
// contiguous memory whatever the transposes; the (MR, NR) tile lives in registers.
#include "cpu/ladder_packed.hpp"

namespace gemmkit::cpu {

namespace {
constexpr int kMR = 4, kNR = 8;

template <class T>
void scalar_tile(std::int64_t kc, const T* a, const T* b, T* tile) {
  T acc[kMR][kNR] = {};  // (MR, NR)
  for (std::int64_t p = 0; p < kc; ++p, a += kMR, b += kNR)
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < kNR; ++j) acc[i][j] += a[i] * b[j];
  for (int i = 0; i < kMR; ++i)
    for (int j = 0; j < kNR; ++j) tile[i * kNR + j] = acc[i][j];
}
}  // namespace

template <class T>
void ladder_packed(const Gemm<T>& g, int) {
  ladder::packed_loops<kMR, kNR>(g, 128, 256, 2048, scalar_tile<T>);
}

template void ladder_packed<float>(const Gemm<float>&, int);
template void ladder_packed<double>(const Gemm<double>&, int);

}  // namespace gemmkit::cpu
