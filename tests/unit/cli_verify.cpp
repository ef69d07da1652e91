// The gemmkit command: verify accepts every problem flag, exits 0 on a correct result and 1 when
// the result is wrong (GEMMKIT_TEST_CORRUPT_RESULT perturbs the candidate's result in the
// testbed). GEMMKIT_BIN is set by CTest to the built command.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace {

struct Result {
  int rc;
  std::string out;
};

Result run(const std::string& args, const std::string& env = "") {
  const char* bin = std::getenv("GEMMKIT_BIN");
  EXPECT_NE(bin, nullptr) << "GEMMKIT_BIN not set";
  std::string cmd = env + " " + (bin ? bin : "gemmkit") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  Result r{-1, ""};
  if (!p) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) r.out += buf;
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(CliVerify, AcceptsEveryFlagAndPasses) {
  const std::string flags =
      "verify --m 33 --n 17 --k 9 --dtype f32 --layout-a row --layout-b col --layout-c row "
      "--trans-a --trans-b --lda 40 --ldb 20 --ldc 19 --alpha 0.5 --beta -1.5 --batch 2 "
      "--backend cpu --seed 7";
  Result r = run(flags);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  r = run(flags + " --json");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"result\": \"PASS\""), std::string::npos) << r.out;
}

TEST(CliVerify, MixedDtypesPass) {
  for (const char* d : {"--dtype bf16", "--dtype f16 --dtype-c f32", "--dtype e4m3",
                        "--dtype-a e5m2 --dtype-b e4m3 --dtype-c bf16", "--dtype i8",
                        "--dtype f64", "--dtype-a bf16 --dtype-b bf16 --dtype-c f32 --dtype-d bf16"}) {
    Result r = run(std::string("verify --m 19 --n 23 --k 29 --backend cpu ") + d);
    EXPECT_EQ(r.rc, 0) << d << "\n" << r.out;
  }
}

TEST(CliVerify, ExitsOneWhenTheResultIsWrong) {
  Result r = run("verify --m 16 --n 16 --k 16 --backend cpu", "GEMMKIT_TEST_CORRUPT_RESULT=1");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST(CliVerify, BadFlagsAreNamed) {
  Result r = run("verify --dtype f17");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--dtype"), std::string::npos) << r.out;
  r = run("verify --m 4 --n 4 --k 4 --lda 2 --backend cpu");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("lda"), std::string::npos) << r.out;
}

TEST(CliRun, PrintsTimeAndGflops) {
  Result r = run("run --m 64 --n 48 --k 32 --backend cpu --reps 3");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
}

}  // namespace
