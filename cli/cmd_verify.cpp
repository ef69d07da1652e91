// gemmkit verify: one case against the fp64 reference through the testbed. Exit 0 on PASS.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench/testbed.hpp"
#include "cli/commands.hpp"
#include "cli/problem_options.hpp"

namespace gemmkit::cli {

void add_verify_command(CLI::App& app) {
  auto opts = std::make_shared<ProblemOptions>();
  CLI::App* cmd = app.add_subcommand("verify", "check one GEMM against the fp64 reference");
  opts->add_to(cmd);
  cmd->callback([opts] {
    const GemmDesc desc = opts->desc();
    Options o{.backend = opts->backend_value(),
              .kernel = opts->kernel.empty() ? nullptr : opts->kernel.c_str()};
    const bench::VerifyResult r = bench::verify_case(desc, opts->alpha, opts->beta, o, opts->seed);
    const bool pass = r.disposition == bench::Disposition::Passed;
    if (opts->json) {
      nlohmann::json j{{"result", pass ? "PASS" : "FAIL"},
                       {"disposition", bench::disposition_name(r.disposition)},
                       {"status", to_string(r.status)},
                       {"metric", r.cmp.metric},
                       {"checked", r.cmp.checked},
                       {"mismatches", r.cmp.mismatches},
                       {"max_abs_err", r.cmp.max_abs_err},
                       {"max_err_over_bound", r.cmp.max_err_over_bound},
                       {"first_failure", r.cmp.first_failure},
                       {"note", r.note},
                       {"seed", opts->seed}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s  %s  m=%lld n=%lld k=%lld batch=%lld  metric=%s checked=%lld mismatches=%lld "
                  "max_abs_err=%.3g max_err/bound=%.3g  seed=%llu\n",
                  pass ? "PASS" : "FAIL", std::string(bench::disposition_name(r.disposition)).c_str(),
                  (long long)desc.m, (long long)desc.n, (long long)desc.k, (long long)desc.batch,
                  r.cmp.metric.c_str(), (long long)r.cmp.checked, (long long)r.cmp.mismatches,
                  r.cmp.max_abs_err, r.cmp.max_err_over_bound, (unsigned long long)opts->seed);
      if (!r.status.ok()) std::printf("  status: %s\n", to_string(r.status).c_str());
      if (!r.cmp.first_failure.empty()) std::printf("  first failure: %s\n", r.cmp.first_failure.c_str());
      if (!r.note.empty()) std::printf("  note: %s\n", r.note.c_str());
    }
    exit_code = pass ? 0 : 1;
  });
}

}  // namespace gemmkit::cli
