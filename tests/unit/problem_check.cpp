// bench/problem_check: what every CLI command checks before it allocates: the API's Status for bad arguments, 64-bit byte counts, free memory; and the reason
// a row without a kernel gives.
#include "bench/problem_check.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace gemmkit::bench {
namespace {

GemmDesc square(std::int64_t n) { return GemmDesc{.m = n, .n = n, .k = n}; }

TEST(ProblemCheck, NamesTheArgumentAsTheApiDoes) {
  GemmDesc d = square(8);
  d.k = -5;
  Status s = validate_problem(d);
  EXPECT_EQ(s.code, StatusCode::InvalidValue);
  EXPECT_EQ(s.arg, Arg::K);
  EXPECT_EQ(s.arg, can_implement(d).arg);  // the same as the front door
  d = square(8);
  d.a.ld = 3;
  EXPECT_EQ(validate_problem(d).arg, Arg::Lda);
  d = square(8);
  d.batch = -1;
  EXPECT_EQ(validate_problem(d).arg, Arg::Batch);
  EXPECT_TRUE(validate_problem(square(8)));
}

TEST(ProblemCheck, BytesThatWouldOverflowAreRefused) {
  GemmDesc d{.m = 4000000000, .n = 4000000000, .k = 1};  // C: 6.4e19 bytes
  Status s = validate_problem(d);
  EXPECT_EQ(s.arg, Arg::Ldc) << to_string(s);
  d = GemmDesc{.m = 1, .n = 1, .k = 1, .batch = std::int64_t{1} << 61};
  d.a.batch_stride = d.b.batch_stride = d.c.batch_stride = d.d.batch_stride = 1;
  s = validate_problem(d);
  EXPECT_EQ(s.arg, Arg::StrideA) << to_string(s);
  d = GemmDesc{.m = 1, .n = 1, .k = std::int64_t{1} << 61};  // A alone: 2^63 bytes of f32
  EXPECT_EQ(validate_problem(d).arg, Arg::Lda);
}

TEST(ProblemCheck, MemoryNeedsAndRefusal) {
  const GemmDesc d = square(100000);
  const MemoryNeed run = run_memory(d, false);
  EXPECT_EQ(run.host, 4 * 100000ll * 100000 * 4 + 4 * 64);
  EXPECT_EQ(run.device, 0);
  EXPECT_GT(verify_memory(d, false, true).host, verify_memory(d, false, false).host);
  EXPECT_GT(verify_memory(d, true, true).device, run.host);
  const std::int64_t avail = host_available_bytes();
  ASSERT_GT(avail, 0) << "/proc/meminfo unreadable";
  const Status s = check_memory(run);
  ASSERT_FALSE(s);  // 160 GB
  EXPECT_NE(s.message.find("needs 160000000256 bytes of host memory"), std::string::npos)
      << s.message;
  EXPECT_NE(s.message.find("bytes are available"), std::string::npos) << s.message;
  EXPECT_TRUE(check_memory(run_memory(square(64), false)));
}

TEST(ProblemCheck, WhyNoKernelGivesThePlannersReasons) {
  // The CPU always has a kernel (its reference path): no reason.
  EXPECT_EQ(why_no_kernel(square(64), Options{.backend = Backend::Cpu}), "");
  const std::string why = why_no_kernel(square(64), Options{.backend = Backend::Cuda});
  if (!cuda_available()) {
    EXPECT_NE(why.find("no CUDA device is usable"), std::string::npos) << why;
  } else {  // f32 inputs: no CUDA kernel takes them; the kernels say so
    EXPECT_NE(why.find("NotSupported"), std::string::npos) << why;
    EXPECT_NE(why.find("skipped "), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace gemmkit::bench
