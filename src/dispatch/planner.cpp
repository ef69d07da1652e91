#include "dispatch/planner.hpp"

#include <cstdio>
#include <cstdlib>

#include "core/status.hpp"

namespace gemmkit::dispatch {

namespace {

// Records a reason only when the plan is being explained: make(...) builds the string lazily.
struct Notes {
  std::vector<std::string>* out;  // null: reasons are not wanted
  template <class Make>
  void add(Make&& make) const {
    if (out) out->push_back(make());
  }
};

Backend choose_backend(const Options& opt, const GemmArgs* args, const Notes& why) {
  const Backend b = resolve_backend(opt, args);
  why.add([&] {
    if (opt.backend != Backend::Auto)
      return "backend " + std::string(backend_name(opt.backend)) + ": requested";
    if (b == Backend::Cuda) return std::string("backend cuda: a CUDA device is available");
    return std::string(cuda_available() ? "backend cpu: D is host memory"
                                        : "backend cpu: no usable CUDA device in this process");
  });
  return b;
}

std::string us(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  return buf;
}

std::string describe(const Candidate& c) {
  std::string s = c.kernel->name + " " + std::string(mode_name(c.mode));
  if (c.split != 1) s += " split " + std::to_string(c.split);
  return s;
}

LaunchPlan launch_of(const KernelInfo* k, sched::Mode mode, int split, double predicted_s = 0) {
  return LaunchPlan{
      .kernel = k, .config = k->config, .mode = mode, .split = split, .predicted_s = predicted_s};
}

// The first viable candidate becomes the plan; the notes say why it beat the next one.
bool take_best(Plan& p, const std::vector<Candidate>& ranked, const Notes& note) {
  if (ranked.empty() || !ranked.front().status) return false;
  const Candidate& best = ranked.front();
  p.launch = launch_of(best.kernel, best.mode, best.split, best.predicted_s());
  p.status = {};
  note.add([&] {
    std::string why = "chose " + describe(best) + ": predicted " + us(best.predicted_s()) + " (" +
                      best.prediction.limiter + "-bound)";
    if (ranked.size() > 1 && ranked[1].status) {
      const Candidate& next = ranked[1];
      if (next.predicted_s() <= best.predicted_s() * (1 + kTieTolerance) &&
          next.predicted_s() >= best.predicted_s() / (1 + kTieTolerance))
        why += ", tied within " + std::to_string(static_cast<int>(kTieTolerance * 100)) +
               "% with " + describe(next) + " at " + us(next.predicted_s()) + "; priority " +
               std::to_string(best.kernel->priority) +
               " >= " + std::to_string(next.kernel->priority);
      else
        why += ", fastest; next " + describe(next) + " at " + us(next.predicted_s());
    } else {
      why += ", the only viable candidate";
    }
    return why;
  });
  return true;
}

// The tuning cache's entry becomes the plan when its kernel can run it as recorded; the notes
// say which entry, and why it was not taken.
bool take_tuned(Plan& p, const TuneEntry& e, const std::vector<Candidate>& ranked,
                const Registry& reg, const GemmDesc& d, const Notes& note) {
  const auto entry = [&] {  // formatted only when the plan is explained
    char measured[96];
    std::snprintf(measured, sizeof measured, "%.4g ms measured on ", e.measured_ms);
    return "tuned: " + e.kernel + " " + std::string(mode_name(e.mode)) + " split " +
           std::to_string(e.split) + ", " + measured + e.device + " (" + tune_cache_path() + ")";
  };
  const KernelInfo* k = reg.find(e.kernel.c_str());
  std::string why;
  if (k == nullptr)
    why = "no kernel of that name is registered";
  else if (k->backend != p.backend)
    why = "the kernel belongs to another backend";
  else if (!k->config.supports(e.mode))
    why = "the kernel has no such mode";
  else if (e.mode == sched::Mode::SplitK ? e.split < 2 : e.split != 1)
    why = "the split count does not fit the mode";
  else if (Status s = k->can_implement(d); !s)
    why = to_string(s);
  if (!why.empty()) {
    note.add([&] { return entry() + ": not used: " + why; });
    return false;
  }
  double predicted = 0;
  for (const Candidate& c : ranked)
    if (c.status && c.kernel == k && c.mode == e.mode && c.split == e.split)
      predicted = c.predicted_s();
  p.launch = launch_of(k, e.mode, e.split, predicted);
  p.status = {};
  p.from_tune_cache = true;
  note.add([&] { return entry() + ": chosen from the tune cache"; });
  return true;
}

// InvalidValue naming the option that contradicts Options::batch_invariant.
Status check_batch_invariant(const Options& opt) {
  if (opt.split_k > 1)
    return GEMMKIT_INVALID(Arg::None, "Options::split_k = " + std::to_string(opt.split_k) +
                                          " contradicts Options::batch_invariant: the K pieces "
                                          "change each element's summation order");
  if (opt.schedule == Schedule::SplitK || opt.schedule == Schedule::StreamK)
    return GEMMKIT_INVALID(Arg::None,
                           "Options::schedule = " + std::string(mode_name(mode_of(opt.schedule))) +
                               " contradicts Options::batch_invariant: whole output "
                               "tiles only (data_parallel)");
  return {};
}

}  // namespace

Backend resolve_backend(const Options& opt, const GemmArgs* args) noexcept {
  if (opt.backend != Backend::Auto) return opt.backend;
  if (!cuda_available()) return Backend::Cpu;
  if (args != nullptr && args->d != nullptr && !is_device_pointer(args->d)) return Backend::Cpu;
  return Backend::Cuda;
}

const ledger::Machine& planning_machine(Backend b) {
  if (b == Backend::Cuda) {
    // Chosen by the device's name, with its SM count; without a device, the H200 as measured.
    // GEMMKIT_MACHINE (a builtin name or a .json file, e.g. one `gemmkit ledger --fit-out`
    // wrote) replaces the table's entry; one it cannot read is ignored with a warning.
    static const ledger::Machine gpu = [] {
      std::string name;
      int sms = 0;
      const bool dev = cuda_device_identity(&name, &sms);
      const bool h100 = dev && name.find("H100") != std::string::npos;
      ledger::Machine m = *ledger::find_machine(h100 ? "h100-measured" : "h200-measured");
      if (const char* env = std::getenv("GEMMKIT_MACHINE"); env != nullptr && *env != '\0') {
        try {
          m = ledger::resolve_machine(env);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "gemmkit: warning: GEMMKIT_MACHINE ignored: %s\n", e.what());
        }
      }
      if (dev && sms > 0) m.sm_count = sms;
      return m;
    }();
    return gpu;
  }
  return ledger::host_machine_nominal();
}

ledger::Machine limit_threads(ledger::Machine m, int threads) {
  if (m.kind == "cpu" && threads > 0 && threads < m.sm_count) {
    for (double& peak : m.peak) peak = peak * threads / m.sm_count;
    m.sm_count = threads;
  }
  return m;
}

ledger::Machine planning_machine(Backend b, int threads) {
  return limit_threads(planning_machine(b), threads);
}

ledger::Machine limit_sms(ledger::Machine m, int sms) {
  if (m.kind == "gpu" && sms > 0 && sms < m.sm_count) {
    for (double& peak : m.peak) peak = peak * sms / m.sm_count;
    m.sm_count = sms;
  }
  return m;
}

ledger::Machine limited_by(ledger::Machine m, const Options& opt) {
  return limit_sms(limit_threads(std::move(m), opt.threads), opt.sm_count_target);
}

ledger::Machine planning_machine(Backend b, const Options& opt) {
  return limited_by(planning_machine(b), opt);
}

Plan make_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args, bool with_reasons) {
  Plan p;
  const Notes note{with_reasons ? &p.reasons : nullptr};
  const Registry& reg = registry();
  const double beta = args != nullptr ? args->beta : 0.0;
  if (opt.sm_count_target < 0) {
    p.status = GEMMKIT_INVALID(Arg::None,
                               "Options::sm_count_target = " + std::to_string(opt.sm_count_target) +
                                   ": must be >= 0 (0: every SM)");
    return p;
  }
  if (opt.sm_count_target > 0)
    note.add([&] {
      return "at most " + std::to_string(opt.sm_count_target) +
             " SMs (Options::sm_count_target): ranked on that many, no tuning cache";
    });
  if (opt.batch_invariant) {
    if (p.status = check_batch_invariant(opt); !p.status) return p;
    p.planned_m = kBatchInvariantM;
    note.add([&] {
      return "batch_invariant: planned for M = " + std::to_string(kBatchInvariantM) +
             " (the reference M) instead of " + std::to_string(d.m) +
             ": data-parallel, M-invariant kernels only, no tuning cache";
    });
  }
  // The problem the ledger ranks: M replaced by the reference under batch_invariant.
  GemmDesc planned = d;
  if (opt.batch_invariant) planned.m = kBatchInvariantM;
  // Under batch_invariant, whole output tiles only (split_k > 1 and the other modes refused).
  const int forced = opt.batch_invariant ? 1 : opt.split_k;
  if (opt.split_k > 0)
    note.add([&] {
      return "split count " + std::to_string(opt.split_k) + ": requested (Options::split_k)";
    });
  const Schedule sched_req = opt.batch_invariant ? Schedule::DataParallel : opt.schedule;
  if (sched_req != Schedule::Auto && !opt.batch_invariant) {
    const bool split_mode = sched_req == Schedule::SplitK;
    if ((forced > 1 && !split_mode) || (forced == 1 && split_mode)) {
      p.status = GEMMKIT_INVALID(
          Arg::None, "Options::split_k = " + std::to_string(forced) + " contradicts Options::schedule = " +
                         std::string(mode_name(mode_of(sched_req))));
      return p;
    }
    note.add([&] {
      return "scheduler mode " + std::string(mode_name(mode_of(sched_req))) +
             ": requested (Options::schedule)";
    });
  }

  // The tuning cache's plan for d, where neither a split count nor a schedule is requested
  // (batch_invariant requests both); for a kernel named in opt, only a plan of that kernel.
  const auto take_cached = [&](const std::vector<Candidate>& ranked, const KernelInfo* named) {
    if (forced != 0 || sched_req != Schedule::Auto || opt.sm_count_target > 0) return false;
    p.tuned = find_tuned(d, p.backend, beta, opt.threads);
    if (p.tuned && named != nullptr && p.tuned->kernel != named->name) p.tuned.reset();
    return p.tuned.has_value() && take_tuned(p, *p.tuned, ranked, reg, d, note);
  };

  if (opt.kernel != nullptr) {
    const KernelInfo* k = reg.find(opt.kernel);
    if (k == nullptr) {
      p.status = GEMMKIT_INVALID(Arg::Kernel, "no kernel named '" + std::string(opt.kernel) + "'");
      return p;
    }
    p.backend = k->backend;
    if (opt.backend != Backend::Auto && opt.backend != p.backend) {
      p.status = GEMMKIT_INVALID(
          Arg::Backend, "kernel '" + k->name + "' does not belong to the requested backend");
      return p;
    }
    if (opt.batch_invariant && !k->m_invariant) {
      p.status = GEMMKIT_UNSUPPORTED(
          "kernel " + k->name +
          ": its summation order or orientation depends on M, which Options::batch_invariant "
          "forbids (`gemmkit kernels` marks the M-invariant ones)");
      return p;
    }
    if (p.status = k->can_implement(d); !p.status) return p;
    note.add([&] { return "kernel " + k->name + ": requested by name"; });
    const bool dp = k->config.supports(sched::Mode::DataParallel);
    const bool sk = k->config.supports(sched::Mode::SplitK);
    if (sched_req != Schedule::Auto && !k->config.supports(mode_of(sched_req))) {
      p.status = GEMMKIT_UNSUPPORTED("kernel " + k->name + " has no " +
                                     std::string(mode_name(mode_of(sched_req))) +
                                     " mode (Options::schedule)");
      return p;
    }
    if ((forced > 1 && !sk) || (forced == 1 && !dp)) {
      p.status = GEMMKIT_UNSUPPORTED("kernel " + k->name + " has no " +
                                     (forced > 1 ? "split-K" : "data-parallel") +
                                     " mode (Options::split_k = " + std::to_string(forced) + ")");
      return p;
    }
    // Its modes and split counts ranked by the ledger; without a count worth trying, the
    // data-parallel mode, or the split-K kernel's own policy.
    std::vector<Candidate> ranked =
        rank_candidates(planned, beta, {k}, planning_machine(p.backend, opt), forced, sched_req);
    // A tuned plan of this very kernel is taken: `gemmkit bench` names the planner's kernel,
    // and its row must run the tuned mode and split, not the ledger's best of that kernel.
    if (!take_cached(ranked, k) && !take_best(p, ranked, note)) {
      const sched::Mode m = sched_req != Schedule::Auto ? mode_of(sched_req)
                            : dp                        ? sched::Mode::DataParallel
                                                        : sched::Mode::SplitK;
      p.launch = launch_of(k, m, m == sched::Mode::SplitK ? (forced > 1 ? forced : 0) : 1);
    }
    if (with_reasons) p.candidates = std::move(ranked);
    return p;
  }

  p.backend = choose_backend(opt, args, note);
  if (p.backend == Backend::Cuda && !cuda_available()) {
    p.status = GEMMKIT_ERROR(StatusCode::NotSupported, Arg::Backend,
                             "the CUDA backend was requested but no CUDA device is usable");
    return p;
  }
  std::vector<const KernelInfo*> production, ladder;
  const KernelInfo* reference = nullptr;
  for (const auto& k : reg.all()) {
    if (k.backend != p.backend) continue;
    if (opt.batch_invariant && !k.m_invariant) {
      if (k.role == KernelRole::Production && k.planned)
        note.add([&] { return "skipped " + k.name + ": not M-invariant (batch_invariant)"; });
      continue;
    }
    if (k.role == KernelRole::Production) {
      if (!k.planned) continue;
      if (Status s = k.plan_for ? k.plan_for(planned) : Status{}; !s) {
        note.add([&k, s] { return "skipped " + k.name + ": " + s.message; });
        continue;
      }
      production.push_back(&k);
    }
    else if (k.role == KernelRole::Ladder)
      ladder.push_back(&k);
    else if (reference == nullptr)
      reference = &k;
  }
  const ledger::Machine machine = planning_machine(p.backend, opt);
  std::vector<Candidate> ranked =
      rank_candidates(planned, beta, production, machine, forced, sched_req);
  note.add([&] {
    int viable = 0;
    for (const Candidate& c : ranked) viable += c.status.ok();
    return "ledger (" + machine.name + ", " + std::to_string(machine.sm_count) +
           " workers): " + std::to_string(ranked.size()) + " candidates, " +
           std::to_string(viable) + " predicted, " + std::to_string(ranked.size() - viable) +
           " refused";
  });
  for (const Candidate& c : ranked)
    if (!c.status) note.add([&] { return "skipped " + describe(c) + ": " + to_string(c.status); });
  bool found = take_cached(ranked, nullptr);
  if (!found) found = take_best(p, ranked, note);
  if (with_reasons) p.candidates = std::move(ranked);
  if (found && opt.batch_invariant) {
    // The kernel ranked for the reference M must take this M itself: another kernel would
    // give these rows other bits.
    if (Status s = p.launch.kernel->can_implement(d); !s) {
      p.status = GEMMKIT_UNSUPPORTED("Options::batch_invariant: " + p.launch.kernel->name +
                                     ", planned for M = " + std::to_string(kBatchInvariantM) +
                                     ", refuses M = " + std::to_string(d.m) + ": " + to_string(s));
      p.launch = {};
    }
    return p;
  }
  if (found) return p;
  if (sched_req != Schedule::Auto && !opt.batch_invariant) {
    p.status = GEMMKIT_UNSUPPORTED("Options::schedule = " +
                                   std::string(mode_name(mode_of(sched_req))) + ": no " +
                                   std::string(backend_name(p.backend)) +
                                   " production kernel has this mode for this problem");
    return p;
  }
  if (forced > 1) {
    p.status = GEMMKIT_UNSUPPORTED("Options::split_k = " + std::to_string(forced) + ": no " +
                                   std::string(backend_name(p.backend)) +
                                   " kernel implements split-K for this problem");
    return p;
  }
  // Fallbacks: the highest ladder rung that implements the problem (the rungs are registered
  // in order), then the reference path.
  for (auto it = ladder.rbegin(); it != ladder.rend(); ++it) {
    const Status s = (*it)->can_implement(d);
    if (s) {
      p.launch = launch_of(*it, sched::Mode::DataParallel, 1);
      p.status = {};
      note.add([&] {
        return "kernel " + (*it)->name +
               ": no production kernel implements this problem: the highest ladder rung that does";
      });
      return p;
    }
    note.add([&] { return "skipped " + (*it)->name + ": " + to_string(s); });
  }
  if (reference != nullptr && reference->can_implement(d)) {
    p.launch = launch_of(reference, sched::Mode::DataParallel, 1);
    p.status = {};
    note.add([&] {
      return "kernel " + reference->name +
             ": the reference path: no production kernel implements this problem";
    });
    return p;
  }
  p.status =
      GEMMKIT_UNSUPPORTED("no " + std::string(opt.batch_invariant ? "M-invariant " : "") +
                          std::string(backend_name(p.backend)) + " kernel implements this problem" +
                          (opt.batch_invariant ? " (Options::batch_invariant)" : ""));
  return p;
}

}  // namespace gemmkit::dispatch
