// The GPU fp64 reference (bench::reference_on_device) against the host oracle
// (bench::reference_sequential, i.e. core::reference_visit): the kernel runs the oracle's loop
// in the oracle's order without FMA contraction, so every value and gauge must have the same
// bits. Small shapes: residues, both transposes, every layout, padded leading dimensions,
// batches (packed and broadcast), every input type, alpha/beta with 0, NaN in C with beta 0,
// NaN and Inf in A and B, alpha == 0 and beta == 0 with null pointers. Then verify_case on
// CUDA must say that the GPU reference judged it.
#include "bench/reference_device.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "bench/device_mem.hpp"
#include "bench/reference_blas.hpp"
#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/view.hpp"
#include "support/gpu_test.hpp"
#include "support/reference_case.hpp"

namespace gemmkit::bench {
namespace {

using Case = test::ReferenceCase;
using test::describe;
using test::make_desc;

// Device copies of A, B and C.
struct OnDevice {
  void* p[3] = {};
  ~OnDevice() {
    for (void* q : p) device_free(q);
  }
};

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// The GPU reference of hc's problem (A, B or C left null on the device when `null_*`).
::testing::AssertionResult gpu_matches_oracle(HostCase& hc, bool null_ab, bool null_c) {
  OnDevice dev;
  const std::vector<std::uint8_t>* host[3] = {&hc.a, &hc.b, &hc.c};
  std::string err;
  for (int i = 0; i < 3; ++i)
    if (!device_alloc(&dev.p[i], host[i]->size(), &err) ||
        !copy_to_device(dev.p[i], host[i]->data(), host[i]->size(), &err))
      return ::testing::AssertionFailure() << "device buffers: " << err;
  GemmArgs dargs{null_ab ? nullptr : dev.p[0],
                 null_ab ? nullptr : dev.p[1],
                 null_c ? nullptr : dev.p[2],
                 nullptr,
                 hc.alpha,
                 hc.beta};
  for (bool gauge : {true, false}) {
    ReferenceMatrix got;
    if (!reference_on_device(hc.desc, dargs, gauge, &got, &err))
      return ::testing::AssertionFailure() << "reference_on_device: " << err;
    const ReferenceMatrix want = reference_sequential(hc.desc, hc.args(), gauge);
    if (got.value.size() != want.value.size() || got.gauge.size() != want.gauge.size())
      return ::testing::AssertionFailure() << "sizes differ";
    for (std::size_t e = 0; e < want.value.size(); ++e) {
      const bool ok_v = std::isnan(want.value[e]) ? std::isnan(got.value[e])
                                                  : same_bits(got.value[e], want.value[e]);
      const bool ok_g =
          !gauge || (std::isnan(want.gauge[e]) ? std::isnan(got.gauge[e])
                                               : same_bits(got.gauge[e], want.gauge[e]));
      if (!ok_v || !ok_g)
        return ::testing::AssertionFailure()
               << "element " << e << ": gpu " << got.value[e] << " (gauge "
               << (gauge ? got.gauge[e] : 0.0) << "), oracle " << want.value[e] << " (gauge "
               << (gauge ? want.gauge[e] : 0.0) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

void expect_matches(const Case& c, std::uint64_t seed) {
  HostCase hc = HostCase::make(make_desc(c), c.alpha, c.beta, seed);
  EXPECT_TRUE(gpu_matches_oracle(hc, false, false)) << describe(c) << " seed=" << seed;
}

TEST(ReferenceDevice, ResidueShapesTransposesLayoutsAndPadding) {
  const std::int64_t sizes[] = {1, 2, 3, 7, 17, 33};
  std::uint64_t seed = 1;
  int bits = 0;
  for (std::int64_t m : sizes)
    for (std::int64_t n : sizes) {
      ++bits;
      Case c{.m = m, .n = n, .k = bits % 2 ? 17 : 65, .in = DType::BF16};
      c.ta = bits & 1 ? Op::Trans : Op::NoTrans;
      c.tb = bits & 2 ? Op::Trans : Op::NoTrans;
      c.la = bits & 4 ? Layout::RowMajor : Layout::ColMajor;
      c.lb = bits & 8 ? Layout::RowMajor : Layout::ColMajor;
      c.lc = bits & 16 ? Layout::RowMajor : Layout::ColMajor;
      c.pad = bits % 3;
      c.alpha = bits % 5 == 0 ? -0.7 : 1.0;
      c.beta = bits % 4 == 0 ? 1.3 : 0.0;
      expect_matches(c, ++seed);
    }
}

TEST(ReferenceDevice, EveryInputAndOutputType) {
  std::uint64_t seed = 100;
  for (DType in : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::E4M3, DType::E5M2,
                   DType::I8, DType::I4})
    for (DType out : {DType::F32, DType::BF16, DType::F16, DType::F64, DType::I32}) {
      const bool integer = in == DType::I8 || in == DType::I4;
      if (integer != (out == DType::I32)) continue;
      Case c{.m = 9, .n = 7, .k = 33, .la = Layout::RowMajor, .in = in, .c = out};
      c.beta = 0.5;
      expect_matches(c, ++seed);
    }
}

TEST(ReferenceDevice, BatchesPackedAndBroadcast) {
  std::uint64_t seed = 200;
  for (bool broadcast : {false, true})
    for (std::int64_t batch : {1, 3}) {
      Case c{.m = 17, .n = 3, .k = 7, .tb = Op::Trans, .lc = Layout::RowMajor, .in = DType::BF16};
      c.batch = batch;
      c.broadcast_a = broadcast;
      c.pad = 1;
      c.beta = -1.5;
      expect_matches(c, ++seed);
    }
}

TEST(ReferenceDevice, BlasSemanticsWithNullPointers) {
  // alpha == 0 and K == 0: A and B are never read (null on the device); D = beta * C.
  for (std::int64_t k : {0, 5}) {
    Case c{.m = 7, .n = 3, .k = k, .in = DType::BF16, .alpha = k == 0 ? 1.0 : 0.0, .beta = -2.0};
    HostCase hc = HostCase::make(make_desc(c), c.alpha, c.beta, 3);
    EXPECT_TRUE(gpu_matches_oracle(hc, true, false)) << describe(c);
  }
  // beta == 0: C is never read (null), and NaN in C does not propagate.
  Case c{.m = 5, .n = 6, .k = 7, .in = DType::BF16};
  HostCase hc = HostCase::make(make_desc(c), 1.0, 0.0, 4);
  for (std::int64_t i = 0; i < 30; ++i)
    core::store_element(DType::F32, hc.c.data(), i, std::nan(""));
  EXPECT_TRUE(gpu_matches_oracle(hc, false, true));
  EXPECT_TRUE(gpu_matches_oracle(hc, false, false));
}

TEST(ReferenceDevice, NaNAndInfPropagateAsTheOracleSays) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType in : {DType::F32, DType::BF16, DType::E5M2}) {
    Case c{.m = 33, .n = 17, .k = 9, .ta = Op::Trans, .in = in, .beta = 0.5};
    HostCase hc = HostCase::make(make_desc(c), 1.0, 0.5, 9);
    const core::ProblemView v = core::make_view(hc.desc);
    core::store_element(in, hc.a.data(), 4 * v.a.row + 2 * v.a.col, std::nan(""));
    core::store_element(in, hc.a.data(), 20 * v.a.row + 3 * v.a.col, inf);
    core::store_element(in, hc.b.data(), 3 * v.b.row + 5 * v.b.col, 0.0);  // Inf * 0
    core::store_element(in, hc.b.data(), 6 * v.b.row + 11 * v.b.col, -inf);
    EXPECT_TRUE(gpu_matches_oracle(hc, false, false)) << describe(c);
  }
}

// The testbed judges a CUDA candidate with the GPU reference, and the check still fails a
// wrong result.
TEST(ReferenceDevice, VerifyCaseUsesTheGpuReference) {
  GemmDesc d{.m = 130, .n = 70, .k = 64};
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = DType::BF16;
  const VerifyResult r = verify_case(d, 1.0, 0.5, Options{.backend = Backend::Cuda}, 5);
  if (r.status.code == StatusCode::NotSupported) GTEST_SKIP() << to_string(r.status);
  EXPECT_EQ(r.disposition, Disposition::Passed) << r.note << " " << r.cmp.first_failure;
  EXPECT_EQ(r.cmp.reference, "gpu: fp64 reference kernel");
  setenv("GEMMKIT_TEST_CORRUPT_RESULT", "1", 1);
  const VerifyResult bad = verify_case(d, 1.0, 0.5, Options{.backend = Backend::Cuda}, 5);
  unsetenv("GEMMKIT_TEST_CORRUPT_RESULT");
  EXPECT_EQ(bad.disposition, Disposition::Incorrect);
}

}  // namespace
}  // namespace gemmkit::bench
