// `gemmkit bench --gpus 1 --tp column|row` end to end on one GPU (GEMMKIT_BIN, set by CTest):
// each split verifies against the single-GPU GEMM and reports all five timings; a corrupted
// result (GEMMKIT_TEST_CORRUPT_RESULT=1) is Incorrect, exits 1 and is not timed; more GPUs than
// visible is refused naming --gpus. Skipped (77) without a GPU; each test skips without NCCL.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/gpu_test.hpp"
#include "support/run_cli.hpp"

namespace {

using Result = gemmkit::test::CliResult;
Result run(const std::string& args, const std::string& env = "") {
  return gemmkit::test::run_cli("bench " + args, env);
}

// The JSON report (stdout starts with it when the command ran).
nlohmann::json report(const Result& r) {
  const std::size_t at = r.out.find('{');
  if (at == std::string::npos) return {};
  return nlohmann::json::parse(r.out.substr(at), nullptr, false)["tensor_parallel_bench"];
}

const char* kShape = " --m 512 --n 384 --k 320 --quick --format json";

TEST(BenchTp, EachSplitVerifiesAndIsTimedOnOneGpu) {
  for (const std::string split : {"--tp column --chunks 4", "--tp row --chunks 3",
                                  "--tp row --reduce all-reduce --chunks 2 --dtype f32"}) {
    const Result r = run("--gpus 1 " + split + kShape);
    if (r.out.find("built without NCCL") != std::string::npos) GTEST_SKIP() << r.out;
    ASSERT_EQ(r.rc, 0) << split << "\n" << r.out;
    const nlohmann::json j = report(r);
    ASSERT_TRUE(j.is_object()) << r.out;
    EXPECT_EQ(j["disposition"], "Passed") << r.out;
    EXPECT_EQ(j["devices"].size(), 1u);
    EXPECT_TRUE(j["verification"]["overlapped"]["passed"].get<bool>());
    EXPECT_GT(j["verification"]["overlapped"]["checked"].get<long long>(), 0);
    for (const char* v : {"overlapped", "unchunked", "baseline", "gemm", "comm"})
      EXPECT_GT(j["times"][v]["n"].get<long long>(), 0) << v << "\n" << r.out;
    EXPECT_GT(j["times"]["overlapped"]["tflops_per_gpu"].get<double>(), 0.0);
    EXPECT_GT(j["ratio_baseline"].get<double>(), 0.0);
    EXPECT_TRUE(j["prediction"].is_object()) << r.out;
  }
}

TEST(BenchTp, TableReportsTheFigures) {
  const Result r = run("--gpus 1 --tp column --m 256 --n 256 --k 256 --quick");
  if (r.out.find("built without NCCL") != std::string::npos) GTEST_SKIP() << r.out;
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("Passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ratio_baseline"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("TFLOP/s/GPU"), std::string::npos) << r.out;
}

TEST(BenchTp, ACorruptedResultIsIncorrectAndNotTimed) {
  const Result r =
      run("--gpus 1 --tp column" + std::string(kShape), "GEMMKIT_TEST_CORRUPT_RESULT=1");
  if (r.out.find("built without NCCL") != std::string::npos) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.rc, 1) << r.out;
  const nlohmann::json j = report(r);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["disposition"], "Incorrect");
  EXPECT_FALSE(j.contains("times")) << r.out;
}

TEST(BenchTp, MoreGpusThanVisibleNamesTheFlag) {
  const Result r = run("--gpus 1000 --tp column --m 256 --n 256 --k 256");
  if (r.out.find("built without NCCL") != std::string::npos) GTEST_SKIP() << r.out;
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--gpus"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("visible"), std::string::npos) << r.out;
}

}  // namespace
