// `gemmkit explain` lists every candidate the planner ranked (predicted time and the ledger's
// terms, or why it was refused), the choice and why: through explain_report's JSON and
// through the command's text. GEMMKIT_BIN is set by CTest to the built command.
#include <gtest/gtest.h>

#include <string>

#include "dispatch/model_json.hpp"
#include "support/run_cli.hpp"

namespace gemmkit::dispatch {
namespace {

TEST(ExplainCandidates, JsonListsEveryCandidateWithItsTerms) {
  GemmDesc d{.m = 16, .n = 16, .k = 8192};
  const ExplainReport rep = explain_report(d, {.backend = Backend::Cpu}, 0.0);
  const nlohmann::json& j = rep.json;
  ASSERT_TRUE(rep.plan.status) << j.dump(2);
  ASSERT_TRUE(j["candidates"].is_array());
  int viable = 0, refused = 0;
  for (const auto& c : j["candidates"]) {
    ASSERT_TRUE(c.contains("kernel") && c.contains("mode") && c.contains("split")) << c.dump();
    if (c["viable"].get<bool>()) {
      ++viable;
      EXPECT_GT(c["predicted_s"].get<double>(), 0) << c.dump();
      for (const char* term : {"compute", "dram", "wave_quantization", "pipeline_fill", "launch"})
        EXPECT_TRUE(c["terms_s"].contains(term)) << term << " in " << c.dump();
      EXPECT_TRUE(c.contains("waves") && c.contains("tail_efficiency")) << c.dump();
    } else {
      ++refused;
      EXPECT_FALSE(c["refused"].get<std::string>().empty()) << c.dump();  // with the reason
    }
  }
  EXPECT_GE(viable, 2);   // the portable DP and split-K kernels at least
  EXPECT_GE(refused, 1);  // dgemm, igemm, gemv refuse an f32 16x16 problem
  // The choice is the first candidate, and the reasons say why.
  EXPECT_EQ(j["kernel"], j["candidates"][0]["kernel"]);
  EXPECT_EQ(j["mode"], j["candidates"][0]["mode"]);
  bool chose = false;
  for (const auto& r : j["reasons"]) chose |= r.get<std::string>().rfind("chose ", 0) == 0;
  EXPECT_TRUE(chose) << j["reasons"].dump();
}

TEST(ExplainCandidates, TheCommandPrintsTheTableAndThePlan) {
  const auto [rc, out] = test::run_cli("explain --m 16 --n 16 --k 8192 --dtype f32 --backend cpu");
  EXPECT_EQ(rc, 0) << out;
  for (const char* part :
       {"candidates (fastest first):", "predicted", "compute", "memory", "waves", "tail",
        "refused:", "split_k", "data_parallel", "- chose ", "plan: cpu."})
    EXPECT_NE(out.find(part), std::string::npos) << "no '" << part << "' in:\n" << out;
}

TEST(ExplainCandidates, KernelsCommandPrintsTypedConfigs) {
  const auto [rc, out] = test::run_cli("kernels 'cpu.*'");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("modes=split_k"), std::string::npos) << out;
  EXPECT_NE(out.find("isa=portable"), std::string::npos) << out;
}

}  // namespace
}  // namespace gemmkit::dispatch
