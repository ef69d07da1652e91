// gemmkit explain: which kernel the planner picks for a problem, and why.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/problem_options.hpp"
#include "core/validate.hpp"
#include "dispatch/planner.hpp"

namespace gemmkit::cli {

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<ProblemOptions>();
  CLI::App* cmd = app.add_subcommand("explain", "show the planner's choice and its reasons");
  opts->add_to(cmd);
  cmd->callback([opts] {
    const GemmDesc d = with_default_lds(opts->desc());
    Options o{.backend = opts->backend_value(),
              .kernel = opts->kernel.empty() ? nullptr : opts->kernel.c_str()};
    Status s = core::validate_desc(d);
    dispatch::Plan p;
    if (s) p = dispatch::make_plan(d, o);
    else p.status = s;
    if (opts->json) {
      nlohmann::json j{{"status", to_string(p.status)},
                       {"backend", backend_name(p.backend)},
                       {"kernel", p.kernel ? p.kernel->name : ""},
                       {"config", p.kernel ? p.kernel->config : ""},
                       {"reasons", p.reasons}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("problem: m=%lld n=%lld k=%lld batch=%lld\n", (long long)d.m, (long long)d.n,
                  (long long)d.k, (long long)d.batch);
      for (const auto& r : p.reasons) std::printf("  - %s\n", r.c_str());
      std::printf("plan: %s\n", p.status ? p.kernel->name.c_str() : to_string(p.status).c_str());
    }
    exit_code = p.status ? 0 : 1;
  });
}

}  // namespace gemmkit::cli
