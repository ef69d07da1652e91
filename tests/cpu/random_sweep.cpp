// Seeded random sweeps on the CPU over shapes biased to tile edges,
// layouts, transposes, leading dimensions, pointer offsets of 1..15 elements, alpha/beta, and
// dtypes, for the planner's choice and for every registered CPU kernel that implements the case.
// The seed is printed; GEMMKIT_TEST_SEED replays a run.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "bench/testbed.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

std::int64_t edge_biased(std::mt19937_64& rng, std::int64_t max) {
  static constexpr std::int64_t kEdges[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 23, 24, 25,
                                            31, 32, 33, 47, 48, 49, 63, 64, 65, 95, 96, 97, 127,
                                            128, 129, 191, 192, 193, 255, 256, 257};
  std::uniform_int_distribution<int> coin(0, 3);
  if (coin(rng) != 0) {
    std::uniform_int_distribution<std::size_t> pick(0, std::size(kEdges) - 1);
    std::int64_t v = kEdges[pick(rng)];
    if (v <= max) return v;
  }
  return std::uniform_int_distribution<std::int64_t>(1, max)(rng);
}

struct Case {
  GemmDesc desc;
  double alpha, beta;
  int offset;  // elements added to every pointer
};

Case random_case(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> bit(0, 1), pad(0, 9), off(0, 15), pick(0, 5);
  static constexpr DType kTypes[][3] = {  // a/b, c/d, compute
      {DType::F32, DType::F32, DType::F32}, {DType::F64, DType::F64, DType::F64},
      {DType::F32, DType::F32, DType::F32}, {DType::BF16, DType::F32, DType::F32},
      {DType::F16, DType::F16, DType::F32}, {DType::I8, DType::I32, DType::I32}};
  const auto& t = kTypes[pick(rng)];
  Case c;
  GemmDesc& d = c.desc;
  d.m = edge_biased(rng, 260);
  d.n = edge_biased(rng, 260);
  d.k = edge_biased(rng, 300);
  d.trans_a = bit(rng) ? Op::Trans : Op::NoTrans;
  d.trans_b = bit(rng) ? Op::Trans : Op::NoTrans;
  d.a = {t[0], bit(rng) ? Layout::RowMajor : Layout::ColMajor, 0, 0};
  d.b = {t[0], bit(rng) ? Layout::RowMajor : Layout::ColMajor, 0, 0};
  d.c = {t[1], bit(rng) ? Layout::RowMajor : Layout::ColMajor, 0, 0};
  d.d = d.c;
  d.compute = t[2];
  const GemmDesc packed = with_default_lds(d);
  // Leading dimensions: packed, or padded by a few elements (often not a multiple of 8).
  if (bit(rng)) d.a.ld = packed.a.ld + pad(rng);
  if (bit(rng)) d.b.ld = packed.b.ld + pad(rng);
  if (bit(rng)) d.c.ld = d.d.ld = packed.c.ld + pad(rng);
  static constexpr double kAlpha[] = {1.0, -1.0, 0.5, 0.0, 2.25};
  static constexpr double kBeta[] = {0.0, 1.0, -0.75, 0.0, 1.5};
  c.alpha = kAlpha[std::uniform_int_distribution<int>(0, 4)(rng)];
  c.beta = kBeta[std::uniform_int_distribution<int>(0, 4)(rng)];
  if (d.a.dtype == DType::I8) c.alpha = 1.0, c.beta = c.beta == 0.0 ? 0.0 : 1.0;  // exact class
  c.offset = bit(rng) ? off(rng) : 0;
  return c;
}

// Runs `kernel` (nullptr: the planner) on copies of hc's buffers shifted by `offset` elements
// and checks the result through the testbed's comparison.
bench::Compare run_shifted(bench::HostCase& hc, int offset, const char* kernel, Status* st) {
  auto shift = [&](const std::vector<std::uint8_t>& v, const MatrixDesc& m) {
    const std::size_t bytes = static_cast<std::size_t>(offset) * dtype_bits(m.dtype) / 8;
    std::vector<std::uint8_t> out(v.size() + bytes, bench::HostCase::kSentinel);
    std::memcpy(out.data() + bytes, v.data(), v.size());
    return std::pair{out, bytes};
  };
  auto [a, oa] = shift(hc.a, hc.desc.a);
  auto [b, ob] = shift(hc.b, hc.desc.b);
  auto [c, oc] = shift(hc.c, hc.desc.c);
  auto [d, od] = shift(hc.d, hc.desc.d);
  *st = gemm(hc.desc,
             GemmArgs{a.data() + oa, b.data() + ob, c.data() + oc, d.data() + od, hc.alpha,
                      hc.beta},
             Options{.backend = Backend::Cpu, .kernel = kernel});
  std::vector<std::uint8_t> got(d.begin() + od, d.end());
  return bench::compare_to_reference(hc, got, hc.d);
}

TEST(RandomSweep, PlannerAndEveryCpuKernel) {
  const std::uint64_t seed = test::test_seed();
  std::mt19937_64 rng(seed);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    Case cs = random_case(rng);
    bench::HostCase hc = bench::HostCase::make(cs.desc, cs.alpha, cs.beta, seed + i);
    std::vector<const char*> kernels{nullptr};
    for (const auto& k : dispatch::registry().all())
      if (k.backend == Backend::Cpu && k.role != dispatch::KernelRole::Reference &&
          k.can_implement(hc.desc).ok())
        kernels.push_back(k.name.c_str());
    for (const char* kern : kernels) {
      Status st;
      const bench::Compare cmp = run_shifted(hc, cs.offset, kern, &st);
      const GemmDesc& d = hc.desc;
      ASSERT_TRUE(st.ok() && cmp.passed)
          << "case " << i << " seed " << seed << " kernel " << (kern ? kern : "(planner)")
          << ": m=" << d.m << " n=" << d.n << " k=" << d.k << " dtype=" << dtype_name(d.a.dtype)
          << "/" << dtype_name(d.d.dtype) << " ta=" << int(d.trans_a) << " tb=" << int(d.trans_b)
          << " layouts=" << layout_name(d.a.layout) << layout_name(d.b.layout)
          << layout_name(d.c.layout) << " lds=" << d.a.ld << "," << d.b.ld << "," << d.c.ld
          << " alpha=" << cs.alpha << " beta=" << cs.beta << " offset=" << cs.offset << ": "
          << to_string(st) << " " << cmp.first_failure;
      ++checked;
    }
  }
  std::printf("checked %d kernel runs over 300 random cases\n", checked);
}

}  // namespace
}  // namespace gemmkit
