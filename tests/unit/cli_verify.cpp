// The gemmkit command: verify accepts every problem flag, exits 0 on a correct result and 1 when
// the result is wrong (GEMMKIT_TEST_CORRUPT_RESULT perturbs the candidate's result in the
// testbed). GEMMKIT_BIN is set by CTest to the built command.
#include <gtest/gtest.h>

#include <string>

#include "support/run_cli.hpp"

namespace {

using Result = gemmkit::test::CliResult;
using gemmkit::test::run_cli;

Result run(const std::string& args, const std::string& env = "") { return run_cli(args, env); }

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

// Bad arguments in the CLI: a bad size, leading dimension or batch count is named
// with the API's Status (argument name and netlib position), exit 1, in every command that
// takes a problem, before any buffer exists (these sizes would throw bad_alloc or
// length_error if anything were allocated).
TEST(CliValidation, BadSizesAreNamedBeforeAllocation) {
  struct Bad {
    const char* flags;
    const char* named;
  };
  const Bad bad[] = {
      {"--m 8 --n 8 --k -5", "InvalidValue (argument 5: k)"},
      {"--m -1", "InvalidValue (argument 3: m)"},
      {"--m 99999999999999999999", "InvalidValue (argument 3: m)"},
      {"--n 12x", "InvalidValue (argument 4: n)"},
      {"--m 4 --n 4 --k 4 --lda 2", "InvalidValue (argument 8: lda)"},
      {"--m 4 --n 4 --k 4 --trans-b --ldb 3", "InvalidValue (argument 10: ldb)"},
      {"--m 4 --n 4 --k 4 --ldc -9", "InvalidValue (argument 13: ldc)"},
      {"--batch -3", "InvalidValue (argument 16: batch)"},
      {"--batch 99999999999999999999", "InvalidValue (argument 16: batch)"},
      // Each size fits, the bytes do not.
      {"--m 4000000000 --n 4000000000 --k 1", "InvalidValue (argument 13: ldc)"},
      {"--m 3 --n 3 --k 3 --batch 4000000000000000000", "InvalidValue (argument 17: stride_a)"},
      // Two bad arguments: the first in netlib order is named.
      {"--k -5 --m -1", "InvalidValue (argument 3: m)"},
  };
  // Every case through verify; the first three through every other command (one process
  // each: keeps the test short under the sanitizers).
  for (const char* cmd : {"verify", "run", "bench", "explain", "ledger"})
    for (const Bad& b : bad) {
      if (std::string(cmd) != "verify" && &b - bad >= 3) break;
      const Result r = run(std::string(cmd) + " --backend cpu " + b.flags);
      EXPECT_EQ(r.rc, 1) << cmd << " " << b.flags << "\n" << r.out;
      EXPECT_NE(r.out.find(b.named), std::string::npos) << cmd << " " << b.flags << "\n" << r.out;
      EXPECT_EQ(r.out.find("bad_alloc"), std::string::npos) << r.out;
    }
}

// A problem larger than the free memory is refused with the bytes needed and available.
TEST(CliValidation, ProblemsLargerThanFreeMemoryAreRefused) {
  for (const char* cmd : {"run", "verify", "bench"}) {
    const Result r = run(std::string(cmd) + " --m 100000 --n 100000 --k 100000 --backend cpu");
    EXPECT_EQ(r.rc, 1) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("the problem needs "), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find(" bytes of host memory"), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("bytes are available"), std::string::npos) << cmd << "\n" << r.out;
  }
}

// --check full|probe|auto: auto says which it used; the probe check still fails a wrong result.
TEST(CliVerify, CheckModes) {
  const std::string shape = "verify --m 40 --n 24 --k 16 --backend cpu ";
  Result r = run(shape);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("check=full (auto) metric=gauge"), std::string::npos) << r.out;
  r = run(shape + "--max-check-flop 100");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("check=probe (auto) metric=probe"), std::string::npos) << r.out;
  r = run(shape + "--check full --max-check-flop 100");
  EXPECT_NE(r.out.find("check=full metric=gauge"), std::string::npos) << r.out;
  r = run(shape + "--check probe --json");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"check\": \"probe\""), std::string::npos) << r.out;
  r = run(shape + "--check probe", "GEMMKIT_TEST_CORRUPT_RESULT=1");
  EXPECT_EQ(r.rc, 1) << r.out;
  r = run(shape + "--check sometimes");
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("--check"), std::string::npos) << r.out;
}

// A bench row without a kernel says why.
TEST(CliBench, ARowWithoutAKernelSaysWhy) {
  const Result r =
      run("bench --m 8 --n 8 --k 8 --backend cpu --baseline none --quick -q "
          "--kernel no.such.kernel");
  EXPECT_NE(r.out.find("note: no registered cpu kernel matches 'no.such.kernel'"),
            std::string::npos)
      << r.out;
}

// --epilogue, --bias, --bias-dtype: verify checks D against the fp64 reference with the bias
// and the activation (always in full), fails a perturbed result, and names bad flags; bench
// verifies the row before timing it; run calls the fused kernel.
TEST(CliVerify, EpiloguesPassAndAWrongResultFails) {
  Result r = run("verify --epilogue bias-gelu --bias col --m 300 --n 200 --k 100 --backend cpu");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check=full (auto) metric=gauge"), std::string::npos) << r.out;
  for (const char* e : {"bias", "relu", "gelu-tanh", "silu", "bias-relu", "bias-silu"})
    for (const char* rest : {"--bias row --beta 0.5", "--beta 0", "--bias-dtype bf16 --beta -1"}) {
      std::string flags = std::string("verify --m 37 --n 29 --k 41 --backend cpu --epilogue ") + e;
      if (std::string(e).rfind("bias", 0) == 0) flags += std::string(" ") + rest;
      r = run(flags);
      EXPECT_EQ(r.rc, 0) << flags << "\n" << r.out;
    }
  r = run("verify --epilogue bias-gelu --bias row --m 64 --n 32 --k 16 --backend cpu " +
          std::string("--max-check-flop 100"));
  EXPECT_NE(r.out.find("check=full (auto)"), std::string::npos) << r.out;  // never probes
  r = run("verify --epilogue bias-gelu --m 64 --n 32 --k 16 --backend cpu",
          "GEMMKIT_TEST_CORRUPT_RESULT=1");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  r = run("verify --epilogue bias-gelu --bias diagonal --backend cpu");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--bias"), std::string::npos) << r.out;
  r = run("verify --epilogue gelu --bias row --backend cpu");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--epilogue"), std::string::npos) << r.out;
  r = run("bench --m 48 --n 40 --k 32 --backend cpu --quick -q --format csv " +
          std::string("--epilogue bias-gelu --bias col"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("48x40x32 bias-gelu col f32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Passed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Incorrect"), std::string::npos) << r.out;
  r = run("run --m 64 --n 48 --k 32 --backend cpu --reps 3 --epilogue bias-silu --bias row");
  EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(CliRun, PrintsTimeAndGflops) {
  Result r = run("run --m 64 --n 48 --k 32 --backend cpu --reps 3");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
}

}  // namespace
