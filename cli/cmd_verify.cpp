// gemmkit verify: one case against the fp64 reference through the testbed. Exit 0 on PASS.
// --check full compares every element with the fp64 reference (OpenBLAS dgemm on the host,
// the GPU reference kernel for --backend cuda); --check probe compares D against probe
// vectors and sampled entries (O(MN + NK + MK)); --check auto (the default) takes full up to
// --max-check-flop and says which it used.
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench/problem_check.hpp"
#include "bench/testbed.hpp"
#include "cli/commands.hpp"
#include "cli/problem_options.hpp"

namespace gemmkit::cli {

namespace {

struct VerifyOptions {
  ProblemOptions problem;
  std::string check = "auto";
  // Full up to 2 * 4096^3 * 1.5 flop: 4096^3 bf16 takes about 5 s on the 2-core VM with the
  // host reference (docs/bench.md), 8192^3 would take about 40 s: probes from there.
  double max_check_flop = 2.1e11;
};

}  // namespace

void add_verify_command(CLI::App& app) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand("verify", "check one GEMM against the fp64 reference");
  o->problem.add_to(cmd);
  cmd->add_option("--check", o->check,
                  "full (every element), probe (probe vectors + sampled entries) or auto (by "
                  "size: full up to --max-check-flop)")
      ->capture_default_str();
  cmd->add_option("--max-check-flop", o->max_check_flop,
                  "--check auto: full check up to this 2MNK*batch, probes above")
      ->capture_default_str();
  cmd->callback([o] {
    const ProblemOptions& opts = o->problem;
    bench::CheckPolicy policy{.max_reference_flop = o->max_check_flop};
    if (!bench::parse_check_mode(o->check, &policy.mode))
      throw CLI::ValidationError("--check", "must be full, probe or auto, not '" + o->check + "'");
    const GemmDesc desc = opts.desc();  // validated: nothing is allocated for a bad problem
    const Options opt = opts.options();
    const bench::CheckMode used = bench::resolve_check(desc, policy);
    require_memory(
        bench::verify_memory(desc, opt.backend == Backend::Cuda, used == bench::CheckMode::Full));
    const auto t0 = std::chrono::steady_clock::now();
    bench::VerifyResult r = bench::verify_case(desc, opts.alpha, opts.beta, opt, opts.seed,
                                               bench::CheckPolicy{used, 0, opts.seed});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // A result with no kernel says why: the planner's status and its kernels' reasons.
    if (r.status.code == StatusCode::NotSupported && opt.kernel == nullptr)
      if (std::string why = bench::why_no_kernel(desc, opt); !why.empty())
        r.note = "no kernel: " + why;
    const bool pass = r.disposition == bench::Disposition::Passed;
    std::string check = std::string(bench::check_mode_name(used));
    if (policy.mode == bench::CheckMode::Auto) check += " (auto)";
    if (opts.json) {
      nlohmann::json j{{"result", pass ? "PASS" : "FAIL"},
                       {"disposition", bench::disposition_name(r.disposition)},
                       {"status", to_string(r.status)},
                       {"check", check},
                       {"reference", r.cmp.reference},
                       {"metric", r.cmp.metric},
                       {"checked", r.cmp.checked},
                       {"mismatches", r.cmp.mismatches},
                       {"max_abs_err", r.cmp.max_abs_err},
                       {"max_err_over_bound", r.cmp.max_err_over_bound},
                       {"similarity_diff", r.cmp.similarity_diff},
                       {"first_failure", r.cmp.first_failure},
                       {"note", r.note},
                       {"seconds", seconds},
                       {"setup_s", r.setup_s},
                       {"gemm_s", r.gemm_s},
                       {"check_s", r.check_s},
                       {"seed", opts.seed}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf(
          "%s  %s  m=%lld n=%lld k=%lld batch=%lld  check=%s metric=%s checked=%lld "
          "mismatches=%lld max_abs_err=%.3g max_err/bound=%.3g  seed=%llu  %.2f s\n",
          pass ? "PASS" : "FAIL", std::string(bench::disposition_name(r.disposition)).c_str(),
          (long long)desc.m, (long long)desc.n, (long long)desc.k, (long long)desc.batch,
          check.c_str(), r.cmp.metric.c_str(), (long long)r.cmp.checked,
          (long long)r.cmp.mismatches, r.cmp.max_abs_err, r.cmp.max_err_over_bound,
          (unsigned long long)opts.seed, seconds);
      if (!r.cmp.reference.empty()) std::printf("  reference: %s\n", r.cmp.reference.c_str());
      if (r.cmp.metric == "similarity")
        std::printf("  similarity: 1 - 2 sum(xy) / sum(x^2 + y^2) = %.3g (passes below 1e-3)\n",
                    r.cmp.similarity_diff);
      std::printf("  seconds: setup %.2f, gemm %.2f, check %.2f\n", r.setup_s, r.gemm_s, r.check_s);
      if (!r.status.ok()) std::printf("  status: %s\n", to_string(r.status).c_str());
      if (!r.cmp.first_failure.empty())
        std::printf("  first failure: %s\n", r.cmp.first_failure.c_str());
      if (!r.note.empty()) std::printf("  note: %s\n", r.note.c_str());
    }
    exit_code = pass ? 0 : 1;
  });
}

}  // namespace gemmkit::cli
