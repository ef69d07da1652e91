// i8 x i8 -> i32 over the whole i8 range (the testbed's U[-1, 1] fill rounds i8 operands to
// -1, 0, 1, which cannot catch a sign or pairing error of the i16 pairs the VNNI kernel packs):
// every igemm kernel this CPU runs against an exact int64 reference, with odd K (the zero high
// half of the last pair), K = 1, M and N off the tile, both transposes, 1 and 2 threads and the
// extreme values -128 and 127 in whole rows and columns.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

std::vector<std::string> igemm_kernels() {
  std::vector<std::string> out = {"cpu.gemm_portable"};
  for (const dispatch::KernelInfo* k : dispatch::registry().match("cpu.igemm_*")) {
    GemmDesc probe{.m = 8, .n = 8, .k = 8};
    probe.a.dtype = probe.b.dtype = DType::I8;
    probe.c.dtype = probe.d.dtype = probe.compute = DType::I32;
    if (k->can_implement(with_default_lds(probe))) out.push_back(k->name);
  }
  return out;
}

TEST(CpuIgemm, FullRangeExactAgainstInt64) {
  const std::uint64_t seed = test::test_seed();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127);
  int c = 0;
  for (const std::string& kn : igemm_kernels())
    for (auto [m, n, k] : {std::tuple{1, 1, 1},
                           {9, 33, 1},
                           {17, 31, 7},
                           {37, 65, 255},
                           {70, 100, 1000},
                           {400, 41, 333}})
      for (int variant = 0; variant < 4; ++variant, ++c) {
        const bool ta = variant & 1, tb = variant & 2;
        const int threads = 1 + variant % 2;
        GemmDesc d{.m = m, .n = n, .k = k};
        d.trans_a = ta ? Op::Trans : Op::NoTrans;
        d.trans_b = tb ? Op::Trans : Op::NoTrans;
        d.a.dtype = d.b.dtype = DType::I8;
        d.c.dtype = d.d.dtype = d.compute = DType::I32;
        d = with_default_lds(d);
        // op(A)(i, p) and op(B)(p, j) in their stored positions (column-major storage).
        auto at = [&](std::int64_t i, std::int64_t p) {
          return ta ? p + i * d.a.ld : i + p * d.a.ld;
        };
        auto bt = [&](std::int64_t p, std::int64_t j) {
          return tb ? j + p * d.b.ld : p + j * d.b.ld;
        };
        std::vector<std::int8_t> a(d.a.ld * (ta ? m : k)), b(d.b.ld * (tb ? k : n));
        for (auto& x : a) x = static_cast<std::int8_t>(i8(rng));
        for (auto& x : b) x = static_cast<std::int8_t>(i8(rng));
        for (std::int64_t p = 0; p < k; ++p) {  // extremes: row 0 of A all -128, column 0 of B
          a[at(0, p)] = -128;                   // all -128 then 127 alternating
          b[bt(p, 0)] = p % 2 ? 127 : -128;
        }
        std::vector<std::int32_t> cmat(m * n), dmat(m * n, 12345);
        for (auto& x : cmat) x = i8(rng) * 1000;
        const GemmArgs args{.a = a.data(),
                            .b = b.data(),
                            .c = cmat.data(),
                            .d = dmat.data(),
                            .alpha = 1.0,
                            .beta = -1.0};
        const Options opt{.backend = Backend::Cpu, .kernel = kn.c_str(), .threads = threads};
        ASSERT_TRUE(gemm(d, args, opt)) << kn;
        int bad = 0;
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < m; ++i) {
            std::int64_t ref = 0;
            for (std::int64_t p = 0; p < k; ++p) ref += std::int64_t(a[at(i, p)]) * b[bt(p, j)];
            ref -= cmat[i + j * m];
            if (dmat[i + j * m] != ref && ++bad <= 3)
              ADD_FAILURE() << kn << " " << m << "x" << n << "x" << k << " variant " << variant
                            << " (" << i << ", " << j << "): " << dmat[i + j * m] << " != " << ref;
          }
      }
  EXPECT_GT(c, 0);
}

}  // namespace
}  // namespace gemmkit
