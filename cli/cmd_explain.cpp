// gemmkit explain: what the ledger says about a problem, which kernel the planner picks, and why.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/problem_options.hpp"
#include "dispatch/model_json.hpp"

namespace gemmkit::cli {

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<ProblemOptions>();
  CLI::App* cmd = app.add_subcommand("explain", "the ledger's view, the planner's choice and why");
  opts->add_to(cmd);
  cmd->callback([opts] {
    const GemmDesc d = with_default_lds(opts->desc());
    Options o{.backend = opts->backend_value(),
              .kernel = opts->kernel.empty() ? nullptr : opts->kernel.c_str()};
    const dispatch::ExplainReport rep = dispatch::explain_report(d, o, opts->beta);
    const dispatch::Plan& p = rep.plan;
    const nlohmann::json& j = rep.json;
    const ledger::Machine& machine = dispatch::planning_machine(p.backend);
    if (opts->json) {
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("problem: m=%lld n=%lld k=%lld batch=%lld  %s x %s -> %s (acc %s)\n",
                  (long long)d.m, (long long)d.n, (long long)d.k, (long long)d.batch,
                  dtype_name(d.a.dtype).data(), dtype_name(d.b.dtype).data(),
                  dtype_name(d.d.dtype).data(), dtype_name(d.compute).data());
      if (p.status)
        std::printf(
            "ledger (%s): %.3g FLOP, %.3g B minimum, AI %.1f FLOP/B vs ridge %.1f -> "
            "%s-bound, floor %.3g us, predicted %.3g us (%s)\n",
            machine.name.c_str(), j["flops"].get<double>(), j["min_bytes"].get<double>(),
            j["arithmetic_intensity"].get<double>(), j["ridge_point"].get<double>(),
            j["bound"].get<std::string>().c_str(), j["t_floor_s"].get<double>() * 1e6,
            j["predicted_s"].get<double>() * 1e6, j["limiter"].get<std::string>().c_str());
      for (const auto& r : p.reasons) std::printf("  - %s\n", r.c_str());
      std::printf("plan: %s\n", p.status ? p.kernel->name.c_str() : to_string(p.status).c_str());
    }
    exit_code = p.status ? 0 : 1;
  });
}

}  // namespace gemmkit::cli
