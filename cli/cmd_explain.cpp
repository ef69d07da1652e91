// gemmkit explain: what the ledger says about a problem, which kernel the planner picks, and why.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/problem_options.hpp"
#include "core/validate.hpp"
#include "dispatch/planner.hpp"
#include "ledger/ledger.hpp"

namespace gemmkit::cli {

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<ProblemOptions>();
  CLI::App* cmd = app.add_subcommand("explain", "the ledger's view, the planner's choice and why");
  opts->add_to(cmd);
  cmd->callback([opts] {
    const GemmDesc d = with_default_lds(opts->desc());
    Options o{.backend = opts->backend_value(),
              .kernel = opts->kernel.empty() ? nullptr : opts->kernel.c_str()};
    dispatch::Plan p;
    p.status = core::validate_desc(d);
    if (p.status) p = dispatch::make_plan(d, o, nullptr, /*with_reasons=*/true);
    const ledger::Machine& machine = dispatch::planning_machine(p.backend);
    nlohmann::json j{{"status", to_string(p.status)},
                     {"backend", backend_name(p.backend)},
                     {"machine", machine.name},
                     {"kernel", p.kernel ? p.kernel->name : ""},
                     {"config", p.kernel ? p.kernel->config : ""},
                     {"variant", ledger::variant_name(p.variant.variant)},
                     {"split_k", p.split_k},
                     {"reasons", p.reasons}};
    if (p.status) {
      const ledger::ProblemLedger pl = ledger::analyze(d, opts->beta, machine);
      // A kernel's config string is read as a tile config where it is one (BMxBNxBK or
      // KEY=VALUE pairs); otherwise the ledger's default tile for the machine stands in.
      ledger::TileConfig tile = ledger::default_tile_config(d, machine);
      try {
        tile = ledger::parse_tile_config(p.kernel->config, tile);
      } catch (const std::exception&) {
      }
      const ledger::Prediction pred = ledger::predict(d, opts->beta, tile, machine);
      j["flops"] = pl.flops;
      j["min_bytes"] = pl.min_bytes;
      j["arithmetic_intensity"] = pl.arithmetic_intensity;
      j["ridge_point"] = pl.ridge_point;
      j["bound"] = pl.bound();
      j["t_floor_s"] = pl.t_floor_s;
      j["predicted_s"] = pred.total_s;
      j["limiter"] = pred.limiter;
    }
    if (opts->json) {
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("problem: m=%lld n=%lld k=%lld batch=%lld  %s x %s -> %s (acc %s)\n",
                  (long long)d.m, (long long)d.n, (long long)d.k, (long long)d.batch,
                  dtype_name(d.a.dtype).data(), dtype_name(d.b.dtype).data(),
                  dtype_name(d.d.dtype).data(), dtype_name(d.compute).data());
      if (p.status)
        std::printf("ledger (%s): %.3g FLOP, %.3g B minimum, AI %.1f FLOP/B vs ridge %.1f -> "
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
