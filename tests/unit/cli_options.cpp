// The command's problem flags (cli/problem_options.cpp), parsed by the command's own code: each
// --epilogue name gives its EpilogueDesc, --bias and --bias-dtype their mode and dtype (col and
// f32 by default, f64 under an f64 accumulator), and a bad value or combination is a
// CLI::ValidationError naming the flag (both flags for a bias flag without a bias epilogue);
// --batch-invariant sets its option and refuses the flags that contradict it.
#include <gtest/gtest.h>

#include <string>

#include "cli/problem_options.hpp"

namespace gemmkit::cli {
namespace {

// Parses `flags` as a subcommand's arguments and returns desc(); throws what desc() throws.
GemmDesc parse(const std::string& flags) {
  CLI::App app;
  ProblemOptions o;
  o.add_to(&app);
  app.parse(flags, false);
  return o.desc();
}

// The message of the CLI::ValidationError that parse(flags) throws ("" when none is thrown).
std::string validation_error(const std::string& flags) {
  try {
    (void)parse(flags);
  } catch (const CLI::ValidationError& e) {
    return e.what();
  }
  return "";
}

TEST(CliOptions, NoEpilogueByDefault) {
  const EpilogueDesc e = parse("--m 8 --n 8 --k 8").epilogue;
  EXPECT_EQ(e.bias, BiasMode::None);
  EXPECT_EQ(e.act, Activation::None);
  EXPECT_FALSE(e.scale_d);
  EXPECT_FALSE(e.amax_d);
  EXPECT_EQ(parse("--epilogue none").epilogue.act, Activation::None);
}

TEST(CliOptions, EveryEpilogueNameGivesItsDesc) {
  struct Name {
    const char* name;
    BiasMode bias;
    Activation act;
  };
  const Name names[] = {
      {"none", BiasMode::None, Activation::None},
      {"bias", BiasMode::Column, Activation::None},
      {"relu", BiasMode::None, Activation::Relu},
      {"gelu", BiasMode::None, Activation::GeluErf},
      {"gelu-tanh", BiasMode::None, Activation::GeluTanh},
      {"silu", BiasMode::None, Activation::Silu},
      {"bias-relu", BiasMode::Column, Activation::Relu},
      {"bias-gelu", BiasMode::Column, Activation::GeluErf},
      {"bias-gelu-tanh", BiasMode::Column, Activation::GeluTanh},
      {"bias-silu", BiasMode::Column, Activation::Silu},
  };
  for (const Name& n : names) {
    const EpilogueDesc e = parse(std::string("--epilogue ") + n.name).epilogue;
    EXPECT_EQ(e.bias, n.bias) << n.name;
    EXPECT_EQ(e.act, n.act) << n.name;
    EXPECT_EQ(e.bias_dtype, DType::F32) << n.name;
    EXPECT_FALSE(e.scale_d || e.amax_d) << n.name;
  }
}

TEST(CliOptions, BiasModeAndDtype) {
  EXPECT_EQ(parse("--epilogue bias-gelu --bias row").epilogue.bias, BiasMode::Row);
  EXPECT_EQ(parse("--epilogue bias-gelu --bias col").epilogue.bias, BiasMode::Column);
  EXPECT_EQ(parse("--epilogue bias --bias column").epilogue.bias, BiasMode::Column);
  for (const auto& [flag, t] : {std::pair{"f32", DType::F32}, std::pair{"bf16", DType::BF16},
                                std::pair{"f16", DType::F16}, std::pair{"f64", DType::F64}}) {
    const EpilogueDesc e =
        parse(std::string("--epilogue bias-silu --bias row --bias-dtype ") + flag).epilogue;
    EXPECT_EQ(e.bias_dtype, t) << flag;
    EXPECT_EQ(e.bias, BiasMode::Row) << flag;
    EXPECT_EQ(e.act, Activation::Silu) << flag;
  }
  // An f64 accumulator takes an f64 bias unless told otherwise.
  EXPECT_EQ(parse("--dtype f64 --epilogue bias-relu").epilogue.bias_dtype, DType::F64);
  EXPECT_EQ(parse("--dtype f64 --epilogue bias-relu --bias-dtype f32").epilogue.bias_dtype,
            DType::F32);
  EXPECT_EQ(parse("--dtype bf16 --epilogue bias").epilogue.bias_dtype, DType::F32);
  // The epilogue travels with the other fusion flags.
  const EpilogueDesc e = parse("--epilogue bias-gelu-tanh --scale-d --amax-d").epilogue;
  EXPECT_TRUE(e.scale_d && e.amax_d);
  EXPECT_EQ(e.act, Activation::GeluTanh);
}

TEST(CliOptions, BadValuesNameTheFlag) {
  for (const char* bad :
       {"--epilogue gelu2", "--epilogue BIAS", "--epilogue bias_gelu", "--epilogue relu-bias"}) {
    const std::string what = validation_error(bad);
    EXPECT_NE(what.find("--epilogue"), std::string::npos) << bad << ": '" << what << "'";
  }
  std::string what = validation_error("--epilogue bias --bias diagonal");
  EXPECT_NE(what.find("--bias"), std::string::npos) << what;
  EXPECT_NE(what.find("row or col"), std::string::npos) << what;
  for (const char* t : {"i8", "e4m3", "i32", "f17"}) {
    what = validation_error(std::string("--epilogue bias-relu --bias-dtype ") + t);
    EXPECT_NE(what.find("--bias-dtype"), std::string::npos) << t << ": '" << what << "'";
  }
}

// --batch-invariant sets Options::batch_invariant; with --split-k > 1 or a split-K / stream-K
// --schedule it is a ValidationError naming --batch-invariant and the other flag.
TEST(CliOptions, BatchInvariant) {
  const auto options = [](const std::string& flags) {
    CLI::App app;
    ProblemOptions o;
    o.add_to(&app);
    app.parse(flags, false);
    return o.options();
  };
  EXPECT_FALSE(options("--m 8").batch_invariant);
  EXPECT_TRUE(options("--m 8 --batch-invariant").batch_invariant);
  EXPECT_TRUE(options("--batch-invariant --split-k 1 --schedule data_parallel").batch_invariant);
  for (const char* flags : {"--batch-invariant --split-k 2", "--batch-invariant --schedule split_k",
                            "--batch-invariant --schedule stream_k"}) {
    std::string what;
    try {
      (void)options(flags);
    } catch (const CLI::ValidationError& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("--batch-invariant"), std::string::npos) << flags << ": '" << what << "'";
    EXPECT_TRUE(what.find("--split-k") != std::string::npos ||
                what.find("--schedule") != std::string::npos)
        << flags << ": '" << what << "'";
  }
}

TEST(CliOptions, ABiasFlagNeedsABiasEpilogue) {
  for (const char* flags : {"--bias row", "--bias col --epilogue gelu", "--bias-dtype bf16",
                            "--bias-dtype f16 --epilogue silu", "--epilogue none --bias col"}) {
    const std::string what = validation_error(flags);
    EXPECT_TRUE(what.find("--bias") != std::string::npos &&
                what.find("--epilogue") != std::string::npos)
        << flags << ": '" << what << "'";
  }
}

// An integer GEMM takes no epilogue: the API's Status names it (ProblemError, exit 1).
TEST(CliOptions, AnIntegerGemmRefusesAnEpilogue) {
  try {
    (void)parse("--dtype i8 --epilogue relu");
    FAIL() << "no error";
  } catch (const ProblemError& e) {
    EXPECT_EQ(e.status.code, StatusCode::InvalidValue);
    EXPECT_NE(std::string(e.what()).find("epilogue"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gemmkit::cli
