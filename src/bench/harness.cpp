#include "bench/harness.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "bench/device_mem.hpp"
#include "bench/openblas_info.hpp"
#include "bench/operand_sets.hpp"
#include "bench/rotation.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/tune_cache.hpp"
#include "gemmkit/gemm.hpp"

#ifndef GEMMKIT_GIT_COMMIT
#define GEMMKIT_GIT_COMMIT ""
#endif

namespace gemmkit::bench {

namespace {

std::int64_t logical_bytes(DType t, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  return (rows * cols * batch * dtype_bits(t) + 7) / 8;
}

std::string shell_line(const char* cmd) {
  std::string out;
  if (FILE* f = popen(cmd, "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, f)) out = buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string env_or_empty(const char* name) {
  const char* e = std::getenv(name);
  return e ? e : "";
}

std::string version_string(long long v, int major_div) {
  // 13000 -> "13.0" (CUDA: 1000*major + 10*minor); 130100 -> "13.1.0" (cuBLAS).
  if (v <= 0) return "";
  if (major_div == 1000) return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." +
         std::to_string(v % 100);
}

}  // namespace

std::string layouts_string(const GemmDesc& d) {
  const auto one = [](const char* name, Layout l, bool t) {
    return std::string(name) + "=" + std::string(layout_name(l)) + (t ? "^T" : "");
  };
  return one("A", d.a.layout, d.trans_a == Op::Trans) + " " +
         one("B", d.b.layout, d.trans_b == Op::Trans) + " " + one("C", d.c.layout, false);
}

double min_bytes(const GemmDesc& d, double beta) {
  double b = static_cast<double>(logical_bytes(d.a.dtype, d.m, d.k, d.batch)) +
             static_cast<double>(logical_bytes(d.b.dtype, d.k, d.n, d.batch)) +
             static_cast<double>(logical_bytes(d.d.dtype, d.m, d.n, d.batch));
  if (beta != 0.0) b += static_cast<double>(logical_bytes(d.c.dtype, d.m, d.n, d.batch));
  return b;
}

struct Harness::Verified {
  Disposition disposition = Disposition::NotVerified;
  double call_ms = 0;
  std::string check, note;
};

Harness::Harness(HarnessSettings s) : s_(std::move(s)) {}
Harness::~Harness() = default;

Status Harness::init() {
  if (s_.backend == Backend::Cuda) {
    device_ = gpu::query_device();
    if (!device_.ok)
      return Status{StatusCode::NotSupported, Arg::Backend, "no usable GPU: " + device_.error};
    stream_ = std::make_unique<gpu::Stream>();
    if (!stream_->ok())
      return Status{StatusCode::ExecutionFailed, Arg::None, "CUDA stream: " + stream_->error()};
    llc_ = CacheSize{device_.l2_bytes, "cudaDeviceProp::l2CacheSize"};
  } else {
    llc_ = host_llc();
  }
  if (s_.llc_bytes > 0) llc_ = CacheSize{s_.llc_bytes, "--llc-bytes"};
  ledger_machine_ = s_.ledger_machine;
  // Automatic: the planner's own machine (one model for planner, bench and explain).
  if (ledger_machine_.empty()) ledger_machine_ = dispatch::planning_machine(s_.backend).name;
  if (s_.backend == Backend::Cpu) set_openblas_threads(s_.threads);
  return {};
}

double Harness::predict(const GemmDesc& desc, double beta, const std::string& kernel) const {
  if (ledger_machine_.empty()) return std::nan("");
  try {
    const GemmDesc d = with_default_lds(desc);
    const Options o{.backend = s_.backend,
                    .kernel = kernel.empty() ? nullptr : kernel.c_str(),
                    .threads = s_.threads,
                    .split_k = s_.split_k,
                    .schedule = s_.schedule,
                    .batch_invariant = s_.batch_invariant,
                    .sm_count_target = s_.sm_count_target};
    const GemmArgs args{.beta = beta};
    const dispatch::Plan p = dispatch::make_plan(d, o, &args);
    if (!p.status) return std::nan("");
    const ledger::Machine m =
        s_.ledger_machine.empty()
            ? dispatch::planning_machine(s_.backend, o)
            : dispatch::limited_by(ledger::resolve_machine(ledger_machine_), o);
    const double ms =
        dispatch::predict_config(d, beta, p.launch.config, p.launch.mode, p.launch.split, m)
                .total_s *
            1e3;
    return std::isfinite(ms) ? ms : std::nan("");
  } catch (const std::exception&) {
    return std::nan("");  // an unknown machine or a config the ledger cannot read
  }
}

void Harness::fill_row(Row* r, const BenchProblem& p, const GemmDesc& d) const {
  r->problem = p.name;
  r->m = d.m;
  r->n = d.n;
  r->k = d.k;
  r->batch = d.batch;
  r->dtypes = dtypes_string(d);
  r->layouts = layouts_string(d);
  r->threads = s_.backend == Backend::Cpu
                   ? (s_.threads > 0 ? s_.threads
                                     : static_cast<int>(std::thread::hardware_concurrency()))
                   : 0;
}

Harness::Verified Harness::verify(Provider& p, const HostCase& hc, OperandSets& sets,
                                  const MeasureTarget& t) {
  Verified v;
  if (std::string why = p.unsupported(); !why.empty()) {
    v.note = why;
    return v;
  }
  std::string err;
  // An in-place provider (CBLAS) reads C from D: start D as a copy of C.
  std::vector<std::uint8_t> before = hc.d;
  if (p.reads_c_from_d()) {
    if (hc.c.size() != hc.d.size()) {
      v.note = p.provider() + ": computes in place, but C and D differ in size";
      return v;
    }
    before = hc.c;
  }
  if (!sets.write_d(0, before, &err)) {
    v.disposition = Disposition::Failed;
    v.note = err;
    return v;
  }
  Status st = time_one_call(p, sets[0], t, &v.call_ms);
  if (!st) {
    v.disposition = st.code == StatusCode::NotSupported ? Disposition::NotVerified
                                                        : Disposition::Failed;
    v.note = to_string(st);
    return v;
  }
  std::vector<std::uint8_t> got;
  if (!sets.read_d(0, &got, &err)) {
    v.disposition = Disposition::Failed;
    v.note = err;
    return v;
  }
  if (!sets.inputs_unchanged(hc, 0)) {
    v.disposition = Disposition::Incorrect;
    v.note = "an input buffer (A, B, C or the bias) was modified";
    return v;
  }
  CheckPolicy policy = s_.check;
  policy.seed = s_.seed;
  // A device candidate: the GPU reference computes the full check, not the host.
  const Compare c = check_result(hc, std::move(got), before, policy, sets.on_device());
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s checked=%lld mismatches=%lld max_err/bound=%.3g",
                c.metric.c_str(), static_cast<long long>(c.checked),
                static_cast<long long>(c.mismatches), c.max_err_over_bound);
  v.check = buf;
  v.disposition = c.passed ? Disposition::Passed : Disposition::Incorrect;
  if (!c.passed) v.note = c.first_failure;
  if (corrupt_result_requested()) v.note += " [GEMMKIT_TEST_CORRUPT_RESULT]";
  return v;
}

std::vector<Row> Harness::run(const BenchProblem& p, const std::vector<Candidate>& candidates) {
  std::vector<Row> rows;
  const GemmDesc d = with_default_lds(p.desc);
  const bool device = s_.backend == Backend::Cuda;
  const double flop = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) *
                      static_cast<double>(d.k) * static_cast<double>(d.batch);
  const auto base_row = [&](const std::string& provider, const std::string& kernel) {
    Row r;
    fill_row(&r, p, d);
    r.provider = provider;
    r.kernel = kernel;
    return r;
  };
  if (!p.skip.empty()) {
    Row r = base_row("gemmkit", candidates.empty() ? "" : candidates[0].kernel);
    r.note = p.skip;
    rows.push_back(r);
    return rows;
  }
  const HostCase hc = HostCase::make(d, p.alpha, p.beta, s_.seed);
  const std::int64_t per_call =
      static_cast<std::int64_t>(operand_bytes(d.a, stored_extent_a(d), d.batch) +
                                operand_bytes(d.b, stored_extent_b(d), d.batch) +
                                operand_bytes(d.d, stored_extent_cd(d), d.batch) +
                                (p.beta != 0.0 ? operand_bytes(d.c, stored_extent_cd(d), d.batch)
                                               : 0));
  const std::int64_t per_set =
      static_cast<std::int64_t>(hc.a.size() + hc.b.size() + hc.c.size() + hc.d.size());
  std::int64_t budget = s_.rotate_budget_bytes;
  if (budget <= 0)
    budget = device ? std::min<std::int64_t>(16ll << 30, device_.free_mem_bytes / 3)
                    : (2ll << 30);
  const RotationPlan plan = plan_rotation(per_call, per_set, llc_.bytes, budget, s_.warm);

  OperandSets sets;
  std::string err;
  std::vector<std::uint8_t> host_scratch;
  void* dev_scratch = nullptr;
  MeasureTarget target{device, stream_.get(), nullptr};
  bool ready = sets.create(hc, plan.sets, device, &err);
  if (ready && plan.mode == CacheMode::Flush) {
    if (device) {
      ready = device_alloc(&dev_scratch, static_cast<std::size_t>(plan.flush_bytes), &err);
      target.flush_scratch = dev_scratch;
    } else {
      host_scratch.resize(static_cast<std::size_t>(plan.flush_bytes));
      target.flush_scratch = host_scratch.data();
    }
  }
  if (!ready) {
    Row r = base_row("gemmkit", candidates.empty() ? "" : candidates[0].kernel);
    r.disposition = Disposition::Failed;
    r.note = "buffers: " + err;
    rows.push_back(r);
    if (dev_scratch) device_free(dev_scratch);
    return rows;
  }

  // The baseline first: verified once, then interleaved with every candidate.
  std::unique_ptr<Provider> base;
  if (s_.baseline == "openblas") base = make_openblas_provider(d, p.alpha, p.beta, s_.threads);
  else if (s_.baseline == "cublas")
    base = make_cublaslt_provider(d, p.alpha, p.beta, s_.cublas_fp32_reduction, s_.sm_count_target);
  Verified vb;
  Row brow;
  bool base_timed = false;
  if (base) {
    vb = verify(*base, hc, sets, target);
    brow = base_row(base->provider(), base->kernel());
    brow.config = base->config();
    brow.disposition = vb.disposition;
    brow.check = vb.check;
    brow.note = vb.note;
    brow.cache = plan.describe();
    brow.ledger_pred_ms = predict(d, p.beta, "");  // the planner's pick for this problem
  }
  Provider* paired = base && vb.disposition == Disposition::Passed ? base.get() : nullptr;
  // Sets 1.. are filled only once something is about to be timed.
  bool filled = plan.sets == 1;
  const auto fill_sets = [&]() {
    if (!filled) filled = sets.fill_all(&err);
    return filled;
  };

  for (const Candidate& c : candidates) {
    Row r = base_row("gemmkit", c.kernel);
    r.config = c.config;
    r.cache = plan.describe();
    r.ledger_pred_ms = c.own_plan    ? c.predicted_ms
                       : c.reference ? std::nan("")
                                     : predict(d, p.beta, c.kernel);
    // Time guard: a kernel far too slow for this size is reported, not run.
    if (c.reference && flop > s_.max_reference_flop) {
      r.note = "skipped: reference kernel above --max-reference-flop";
      rows.push_back(r);
      continue;
    }
    if (auto it = ms_per_flop_.find(c.kernel); it != ms_per_flop_.end()) {
      const double projected = it->second * flop;
      if (projected > s_.max_call_ms) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "skipped: projected %.3g ms per call > --max-call-ms %.3g",
                      projected, s_.max_call_ms);
        r.note = buf;
        rows.push_back(r);
        continue;
      }
    }
    auto cand = make_gemmkit_provider(d, p.alpha, p.beta, c.kernel, c.config, s_.backend,
                                      s_.threads, c.own_plan ? c.split_k : s_.split_k,
                                      c.own_plan ? c.schedule : s_.schedule, s_.batch_invariant,
                                      s_.dynamic_schedule, s_.sm_count_target);
    const Verified vc = verify(*cand, hc, sets, target);
    r.disposition = vc.disposition;
    r.check = vc.check;
    r.note = vc.note;
    // The time guard's evidence: this kernel's ms per flop, from its timed median when there
    // is one (below), else from the verification call (first touch included, pessimistic).
    if (vc.call_ms > 0 && flop > 0) ms_per_flop_[c.kernel] = vc.call_ms / flop;
    if (vc.disposition != Disposition::Passed) {
      rows.push_back(r);
      continue;
    }
    if (!fill_sets()) {
      r.disposition = Disposition::Failed;
      r.note = "buffers: " + err;
      rows.push_back(r);
      continue;
    }
    Measurement m = measure(*cand, paired, sets, plan, target, s_.measure, vc.call_ms,
                            vb.call_ms);
    if (!m.status) {
      r.disposition = Disposition::Failed;
      r.note = "timing: " + to_string(m.status);
      rows.push_back(r);
      continue;
    }
    r.stats = m.candidate;
    r.timing = m.describe();
    if (flop > 0) ms_per_flop_[c.kernel] = m.candidate.median / flop;
    r.ratio_baseline = m.ratio;
    if (paired && !base_timed) {
      brow.stats = m.baseline;
      brow.timing = m.describe();
      base_timed = true;
    }
    rows.push_back(r);
  }
  if (paired && !base_timed) {
    // No candidate was timed: the baseline alone, still verified and timed the same way.
    Measurement m = fill_sets() ? measure(*paired, nullptr, sets, plan, target, s_.measure,
                                          vb.call_ms, 0)
                                : Measurement{};
    if (!filled) m.status = Status{StatusCode::ExecutionFailed, Arg::None, "buffers: " + err};
    if (m.status) {
      brow.stats = m.candidate;
      brow.timing = m.describe();
    } else {
      brow.disposition = Disposition::Failed;
      brow.note = "timing: " + to_string(m.status);
    }
  }
  if (base) rows.push_back(brow);
  for (Row& r : rows) {
    if (r.stats.n == 0) continue;
    r.tflops = flop / (r.stats.median * 1e-3) / 1e12;
    r.gbps = min_bytes(d, p.beta) / (r.stats.median * 1e-3) / 1e9;
  }
  if (dev_scratch) device_free(dev_scratch);
  return rows;
}

nlohmann::json Harness::context() const {
  nlohmann::json c;
  c["tool"] = "gemmkit bench";
  std::string commit = shell_line("git rev-parse HEAD 2>/dev/null");
  std::string source = "git rev-parse HEAD";
  if (commit.empty()) {
    commit = GEMMKIT_GIT_COMMIT;
    source = "configure time";
  } else if (!shell_line("git status --porcelain --untracked-files=no 2>/dev/null").empty()) {
    source += " (tracked files modified)";
  }
  c["git_commit"] = commit;
  c["git_commit_source"] = source;
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  c["date_utc"] = date;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  c["hostname"] = host;
  c["backend"] = std::string(backend_name(s_.backend));
  c["baseline"] = s_.baseline;
  c["warmup_ms"] = s_.measure.warmup_ms;
  c["rep_ms"] = s_.measure.rep_ms;
  c["min_reps"] = s_.measure.min_reps;
  c["seed"] = s_.seed;
  c["fill"] = "U[-1, 1] seeded, rounded to each operand's dtype";
  char verification[160];
  std::snprintf(verification, sizeof verification,
                "testbed: fp64 reference up to %.3g flop (2MNK*batch), probe vectors + sampled "
                "entries above",
                s_.check.max_reference_flop);
  c["verification"] = verification;
  c["cache"] = {{"llc_bytes", llc_.bytes},
                {"llc_source", llc_.source},
                {"policy", s_.warm ? "warm" : "rotate sets to exceed 2x LLC, else flush"}};
  c["pair_ratio"] = "ratio_baseline = median over alternating pairs of baseline/candidate";
  c["host"] = {{"cpu_model", dispatch::device_name(Backend::Cpu)},
               {"logical_cpus", std::thread::hardware_concurrency()}};
  c["threads"] = s_.backend == Backend::Cpu
                     ? (s_.threads > 0 ? s_.threads
                                       : static_cast<int>(std::thread::hardware_concurrency()))
                     : 0;
  c["threads_pinned"] = false;
  const OpenBlasInfo ob = openblas_info();
  c["openblas"] = {{"corename", ob.corename},
                   {"config", ob.config},
                   {"threads", ob.threads},
                   {"OPENBLAS_CORETYPE", ob.coretype_env}};
  c["env"] = {{"OMP_NUM_THREADS", env_or_empty("OMP_NUM_THREADS")},
              {"OMP_WAIT_POLICY", env_or_empty("OMP_WAIT_POLICY")},
              {"OMP_PROC_BIND", env_or_empty("OMP_PROC_BIND")},
              {"OPENBLAS_NUM_THREADS", env_or_empty("OPENBLAS_NUM_THREADS")},
              {"OPENBLAS_THREAD_TIMEOUT", env_or_empty("OPENBLAS_THREAD_TIMEOUT")},
              {"GEMMKIT_LLC_BYTES", env_or_empty("GEMMKIT_LLC_BYTES")}};
  if (s_.backend == Backend::Cuda && device_.ok) {
    c["device"] = {{"name", device_.name},
                   {"compute_capability",
                    std::to_string(device_.cc_major) + "." + std::to_string(device_.cc_minor)},
                   {"sm_count", device_.sm_count},
                   {"l2_bytes", device_.l2_bytes},
                   {"global_mem_bytes", device_.global_mem_bytes},
                   {"sm_clock_khz", device_.clock_khz},
                   {"mem_clock_khz", device_.mem_clock_khz},
                   {"driver_version", version_string(device_.driver_version, 1000)},
                   {"cuda_runtime_version", version_string(device_.runtime_version, 1000)},
                   {"cublaslt_version", version_string(device_.cublaslt_version, 10000)}};
  } else {
    c["device"] = nullptr;
  }
  c["ledger_machine"] = ledger_machine_;
  return c;
}

}  // namespace gemmkit::bench
