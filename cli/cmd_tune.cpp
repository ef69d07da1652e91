// gemmkit tune: for each problem (a shape or a suite) time the planner's viable candidates
// (production kernel x mode x split, best predicted first), each verified through the testbed
// before it is timed; print one line per candidate and the winner, and merge the winners into
// the tuning cache (dispatch/tune_cache.hpp, docs/tune.md), which the planner then reads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "bench/progress.hpp"
#include "cli/commands.hpp"
#include "cli/problem_list.hpp"
#include "cli/problem_options.hpp"
#include "dispatch/family_fit.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/tune_cache.hpp"

namespace gemmkit::cli {

namespace {

// More candidates than this per problem are not timed: the ranking's tail is far slower
// than its head (the ledger's worst misses so far are within 2x).
constexpr int kMaxTuned = 16;

struct TuneOptions {
  ProblemOptions problem;
  std::string suite;
  double warmup_ms = 25, rep_ms = 100;
  int min_reps = 3;
  int threads = 0;
  int top = 0;  // 0: all viable, up to kMaxTuned
  std::string measurements;  // every timed candidate, for `gemmkit ledger --fit`
  bool quick = false;
  bool quiet = false;
};

Schedule schedule_of(sched::Mode m) {
  return m == sched::Mode::SplitK    ? Schedule::SplitK
         : m == sched::Mode::StreamK ? Schedule::StreamK
                                     : Schedule::DataParallel;
}

std::string plan_text(const std::string& kernel, sched::Mode mode, int split) {
  return kernel + " " + std::string(dispatch::mode_name(mode)) + " split " + std::to_string(split);
}

int run_tune(const TuneOptions& o, CLI::App* cmd) {
  Backend backend = o.problem.backend_value();
  if (backend == Backend::Auto) backend = cuda_available() ? Backend::Cuda : Backend::Cpu;
  const std::string path =
      o.problem.tune_cache.empty() ? "gemmkit-tune.json" : o.problem.tune_cache;
  if (o.top < 0) throw CLI::ValidationError("--top", "must be >= 0");
  ProblemOptions request_flags = o.problem;
  request_flags.tune_cache.clear();  // the file is this command's output, not the planner's input
  const Options request = request_flags.options();  // --split-k, --schedule, --kernel validated
  if (request.batch_invariant)
    throw CLI::ValidationError("--batch-invariant",
                               "tune measures winners for one M; a batch-invariant plan reads "
                               "no tuning cache");
  const std::vector<bench::BenchProblem> problems =
      sweep_problems(o.problem, o.suite, backend, cmd->count("--dtype") > 0);

  std::vector<const dispatch::KernelInfo*> production;
  // The production kernels the planner ranks; --kernel GLOB picks among all production
  // kernels instead (those reachable only by name included).
  for (const auto& k : dispatch::registry().all())
    if (k.backend == backend && k.role == dispatch::KernelRole::Production &&
        (o.problem.kernel.empty() ? k.planned : dispatch::glob_match(o.problem.kernel, k.name)))
      production.push_back(&k);
  if (production.empty()) {
    std::fprintf(stderr, "gemmkit tune: no %s production kernel%s\n",
                 std::string(backend_name(backend)).c_str(),
                 o.problem.kernel.empty() ? "" : (" matches '" + o.problem.kernel + "'").c_str());
    return 1;
  }

  bench::HarnessSettings hs;
  hs.backend = backend;
  hs.baseline = "none";
  hs.measure.warmup_ms = o.quick ? 5 : o.warmup_ms;
  hs.measure.rep_ms = o.quick ? 20 : o.rep_ms;
  hs.measure.min_reps = o.min_reps;
  hs.threads = o.threads;
  hs.seed = o.problem.seed;
  bench::Harness harness(hs);
  if (Status s = harness.init(); !s) {
    std::fprintf(stderr, "gemmkit tune: %s\n", to_string(s).c_str());
    return 1;
  }
  const ledger::Machine machine = dispatch::planning_machine(backend, o.threads);
  const int top = std::min(o.top > 0 ? o.top : kMaxTuned, kMaxTuned);

  double total_work = 0;
  for (const auto& p : problems) total_work += 2.0 * p.desc.m * p.desc.n * p.desc.k * p.desc.batch;
  bench::Progress progress(!o.quiet, static_cast<int>(problems.size()), total_work);
  std::vector<dispatch::TuneEntry> winners;
  std::vector<dispatch::Measurement> measured;
  int untuned = 0;
  for (const bench::BenchProblem& p : problems) {
    const GemmDesc d = with_default_lds(p.desc);
    const double work = 2.0 * d.m * d.n * d.k * d.batch;
    progress.start(p.name + " " + bench::dtypes_string(d));
    const auto say = [&](const std::string& line) {
      if (progress.active()) progress.finish();
      std::printf("%s\n", line.c_str());
    };
    const std::string head = p.name + " " + bench::dtypes_string(d) + " " +
                             bench::layouts_string(d) + (p.beta != 0.0 ? " beta!=0" : "");
    if (!p.skip.empty() || !dispatch::tunable(d)) {
      say(head + ": not tuned: " +
          (p.skip.empty() ? "problems with an epilogue or scales are not tuned" : p.skip));
      progress.done(work);
      continue;
    }
    const std::vector<dispatch::Candidate> ranked = dispatch::rank_candidates(
        d, p.beta, production, machine, request.split_k, request.schedule);
    std::vector<bench::Candidate> cands;
    std::vector<const dispatch::Candidate*> picked;  // the ranked candidate of each
    for (const dispatch::Candidate& c : ranked) {
      if (!c.status || static_cast<int>(cands.size()) >= top) continue;
      picked.push_back(&c);
      cands.push_back({.kernel = c.kernel->name,
                       .config = dispatch::to_string(c.kernel->config),
                       .own_plan = true,
                       .split_k = c.mode == sched::Mode::StreamK ? 0 : c.split,
                       .schedule = schedule_of(c.mode),
                       .predicted_ms = c.predicted_s() * 1e3});
    }
    std::vector<bench::Row> rows = harness.run(p, cands);
    const auto viable = std::count_if(ranked.begin(), ranked.end(),
                                      [](const dispatch::Candidate& c) { return c.status.ok(); });
    std::string lines = head + ": " + std::to_string(cands.size()) + " of " +
                        std::to_string(viable) + " viable candidates (" +
                        std::to_string(ranked.size() - static_cast<std::size_t>(viable)) +
                        " refused)\n";
    int best = -1;
    for (std::size_t i = 0; i < cands.size() && i < rows.size(); ++i) {
      const bench::Row& r = rows[i];
      const dispatch::Candidate* c = picked[i];
      char buf[256];
      const std::string what = plan_text(c->kernel->name, c->mode, c->split);
      if (r.disposition == bench::Disposition::Passed && r.stats.n > 0) {
        measured.push_back({.desc = d,
                            .beta = p.beta,
                            .kernel = c->kernel->name,
                            .config = c->kernel->config,
                            .mode = c->mode,
                            .split = c->split,
                            .measured_s = r.stats.median * 1e-3,
                            .origin = {}});
        std::snprintf(buf, sizeof buf, "  %-56s predicted %10.4g ms  measured %10.4g ms",
                      what.c_str(), c->predicted_s() * 1e3, r.stats.median);
        if (best < 0 || r.stats.median < rows[static_cast<std::size_t>(best)].stats.median)
          best = static_cast<int>(i);
      } else {
        std::snprintf(buf, sizeof buf, "  %-56s predicted %10.4g ms  skipped: %s%s%s", what.c_str(),
                      c->predicted_s() * 1e3,
                      std::string(bench::disposition_name(r.disposition)).c_str(),
                      r.note.empty() ? "" : ": ", r.note.c_str());
      }
      lines += std::string(buf) + "\n";
    }
    if (best < 0) {
      lines += "  winner: none (no candidate passed verification and timing)";
      ++untuned;
    } else {
      const bench::Row& r = rows[static_cast<std::size_t>(best)];
      const bench::Candidate& w = cands[static_cast<std::size_t>(best)];
      dispatch::TuneEntry e = dispatch::tune_key(d, backend, p.beta, o.threads);
      e.kernel = w.kernel;
      e.mode = w.schedule == Schedule::SplitK    ? sched::Mode::SplitK
               : w.schedule == Schedule::StreamK ? sched::Mode::StreamK
                                                 : sched::Mode::DataParallel;
      e.split = e.mode == sched::Mode::SplitK ? w.split_k : 1;
      e.measured_ms = r.stats.median;
      e.predicted_ms = w.predicted_ms;
      e.timed = static_cast<int>(cands.size());
      char buf[160];
      std::snprintf(buf, sizeof buf, ", %.4g ms", e.measured_ms);
      lines += "  winner: " + plan_text(e.kernel, e.mode, e.split) + buf;
      winners.push_back(std::move(e));
    }
    say(lines);
    progress.done(work);
  }
  progress.finish();
  if (!measured.empty()) {
    // The ranking's pick among the timed candidates against the fastest of them, and the
    // ledger's error on every timed candidate.
    const dispatch::PickCheck pc = dispatch::check_picks(measured, machine);
    std::printf("ledger (%s): the predicted-fastest candidate within 5%% of the measured fastest "
                "on %d of %d problems; median |predicted - measured| / measured %.1f%% over %zu "
                "candidates\n",
                machine.name.c_str(), pc.within_5pct, pc.problems, pc.median_error * 100,
                measured.size());
  }
  if (!o.measurements.empty()) {
    nlohmann::json j{{"format", "gemmkit-measurements"},
                     {"device", dispatch::device_name(backend)},
                     {"machine", machine.name},
                     {"build", dispatch::tune_build_id()},
                     {"rows", nlohmann::json::array()}};
    for (const dispatch::Measurement& m : measured) j["rows"].push_back(dispatch::measurement_json(m));
    std::ofstream f(o.measurements);
    if (!f || !(f << j.dump(1) << "\n")) {
      std::fprintf(stderr, "gemmkit tune: cannot write %s\n", o.measurements.c_str());
      return 2;
    }
    std::printf("measurements %s: %zu timed candidates (gemmkit ledger --fit %s)\n",
                o.measurements.c_str(), measured.size(), o.measurements.c_str());
  }
  std::string warning, err;
  if (!winners.empty()) {
    if (!dispatch::merge_tune_file(path, winners, &warning, &err)) {
      std::fprintf(stderr, "gemmkit tune: %s\n", err.c_str());
      return 2;
    }
    if (!warning.empty()) std::fprintf(stderr, "gemmkit tune: warning: %s\n", warning.c_str());
    std::printf("tune cache %s: %zu entr%s written (device %s, build %s)\n", path.c_str(),
                winners.size(), winners.size() == 1 ? "y" : "ies",
                dispatch::device_name(backend).c_str(), dispatch::tune_build_id().c_str());
  }
  return untuned > 0 ? 1 : 0;
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "time the planner's candidates (verified) and write the winners to a tuning cache");
  o->problem.add_to(cmd);
  cmd->add_option("--suite", o->suite, "shape suite (as bench --suite), or a .json path");
  cmd->add_option("--top", o->top,
                  "time the N best predicted viable candidates (0: all, at most 16)")
      ->capture_default_str();
  cmd->add_option("--warmup-ms", o->warmup_ms, "warm-up time per candidate")->capture_default_str();
  cmd->add_option("--rep-ms", o->rep_ms, "timed repetitions per candidate")->capture_default_str();
  cmd->add_option("--min-reps", o->min_reps, "timed samples at least")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all); part of the cache's key")
      ->capture_default_str();
  cmd->add_option("--measurements", o->measurements,
                  "write every timed candidate (problem, plan, median) to FILE as JSON, the input "
                  "of `gemmkit ledger --fit`");
  cmd->add_flag("--quick", o->quick, "warm-up 5 ms, repetitions 20 ms (smoke runs)");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress line");
  cmd->callback([o, cmd] { exit_code = run_tune(*o, cmd); });
}

}  // namespace gemmkit::cli
