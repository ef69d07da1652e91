// A user of the installed gemmkit: one 2x2 sgemm through the C++ API and the C ABI.
#include <gemmkit/gemmkit.h>
#include <gemmkit/gemm.hpp>

#include <cstdio>

int main() {
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0, 0, 0, 0};
  gemmkit::GemmDesc d{.m = 2, .n = 2, .k = 2};
  gemmkit::Status s = gemmkit::gemm(d, {.a = a, .b = b, .c = c, .d = c, .alpha = 1, .beta = 0},
                                    {.backend = gemmkit::Backend::Cpu});
  // column-major: C = [[1 3],[2 4]] * [[5 7],[6 8]] = [[23 31],[34 46]]
  if (!s.ok() || c[0] != 23 || c[1] != 34 || c[2] != 31 || c[3] != 46) {
    std::printf("C++ API: %s\n", gemmkit::to_string(s).c_str());
    return 1;
  }
  float e[4] = {0, 0, 0, 0};
  int rc = gemmkit_sgemm(GEMMKIT_COL_MAJOR, GEMMKIT_NO_TRANS, GEMMKIT_NO_TRANS, 2, 2, 2, 1.0f, a,
                         2, b, 2, 0.0f, e, 2);
  if (rc != 0 || e[3] != 46) {
    std::printf("C ABI: rc=%d\n", rc);
    return 1;
  }
  std::printf("consumer OK\n");
  return 0;
}
