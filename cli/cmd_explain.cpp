// gemmkit explain: what the ledger says about a problem, every candidate the planner ranked
// (predicted time and the ledger's terms, or why it was refused), its choice, and why.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/problem_options.hpp"
#include "cli/tp_explain.hpp"
#include "dispatch/model_json.hpp"

namespace gemmkit::cli {

namespace {

void print_candidates(const std::vector<dispatch::Candidate>& cands) {
  if (cands.empty()) return;
  std::printf("candidates (fastest first):\n");
  std::printf("  %-40s %-13s %5s %11s %11s %11s %11s %6s %5s\n", "kernel", "mode", "split",
              "predicted", "compute", "memory", "wave_q", "waves", "tail");
  for (const dispatch::Candidate& c : cands) {
    const std::string mode(dispatch::mode_name(c.mode));
    if (!c.status) {
      std::printf("  %-40s %-13s %5d refused: %s\n", c.kernel->name.c_str(), mode.c_str(), c.split,
                  to_string(c.status).c_str());
      continue;
    }
    const ledger::Prediction& p = c.prediction;
    std::printf("  %-40s %-13s %5d %8.3g us %8.3g us %8.3g us %8.3g us %6.2f %5.2f\n",
                c.kernel->name.c_str(), mode.c_str(), c.split, c.predicted_s() * 1e6,
                p.term("compute") * 1e6, p.term("dram") * 1e6, p.term("wave_quantization") * 1e6,
                c.waves, c.tail_efficiency);
  }
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<ProblemOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "the ledger's view, the planner's candidates, its choice and why");
  opts->add_to(cmd);
  auto tp = std::make_shared<TpFlags>();
  tp->add_to(cmd);
  cmd->callback([opts, tp] {
    const GemmDesc d = with_default_lds(opts->desc());
    Options o = opts->options();
    const nlohmann::json tp_json = tp->active() ? tp->predict(d, opts->beta) : nlohmann::json();
    const dispatch::ExplainReport rep = dispatch::explain_report(d, o, opts->beta);
    const dispatch::Plan& p = rep.plan;
    const nlohmann::json& j = rep.json;
    if (opts->json) {
      nlohmann::json out = j;
      if (tp->active()) out["tensor_parallel"] = tp_json;
      std::printf("%s\n", out.dump(2).c_str());
    } else {
      std::printf("problem: m=%lld n=%lld k=%lld batch=%lld  %s x %s -> %s (acc %s)\n",
                  (long long)d.m, (long long)d.n, (long long)d.k, (long long)d.batch,
                  dtype_name(d.a.dtype).data(), dtype_name(d.b.dtype).data(),
                  dtype_name(d.d.dtype).data(), dtype_name(d.compute).data());
      if (p.status)
        std::printf(
            "ledger (%s): %.3g FLOP, %.3g B minimum, AI %.1f FLOP/B vs ridge %.1f -> "
            "%s-bound, floor %.3g us, predicted %.3g us (%s)\n",
            j["machine"].get<std::string>().c_str(), j["flops"].get<double>(),
            j["min_bytes"].get<double>(), j["arithmetic_intensity"].get<double>(),
            j["ridge_point"].get<double>(), j["bound"].get<std::string>().c_str(),
            j["t_floor_s"].get<double>() * 1e6, j["predicted_s"].get<double>() * 1e6,
            j["limiter"].get<std::string>().c_str());
      if (o.batch_invariant)
        std::printf(
            "batch_invariant: the plan was ranked for M = %lld (the reference M), not "
            "%lld; the same plan serves every M; the candidates' times are for that M\n",
            (long long)kBatchInvariantM, (long long)d.m);
      print_candidates(p.candidates);
      for (const auto& r : p.reasons) std::printf("  - %s\n", r.c_str());
      if (p.tuned)
        std::printf("tuned: %s %s split %d, %.4g ms measured on %s (%s)\n", p.tuned->kernel.c_str(),
                    std::string(dispatch::mode_name(p.tuned->mode)).c_str(), p.tuned->split,
                    p.tuned->measured_ms, p.tuned->device.c_str(),
                    p.from_tune_cache ? "the plan: from the tune cache"
                                      : "not used: see the reasons above");
      if (p.status)
        std::printf("plan: %s %s split %d [%s] (%s)\n", p.launch.kernel->name.c_str(),
                    std::string(dispatch::mode_name(p.launch.mode)).c_str(), p.launch.split,
                    dispatch::to_string(p.launch.config).c_str(),
                    p.from_tune_cache ? "from the tune cache" : "not from the tune cache");
      else
        std::printf("plan: %s\n", to_string(p.status).c_str());
      if (tp->active()) print_tp(tp_json);
    }
    exit_code = p.status ? 0 : 1;
  });
}

}  // namespace gemmkit::cli
