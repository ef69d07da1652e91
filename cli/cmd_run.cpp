// gemmkit run: one GEMM on random data with the chosen backend; prints time and GFLOP/s.
// (Rigorous figures come from `gemmkit bench`: this is the quick look.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/device_mem.hpp"
#include "bench/testbed.hpp"
#include "cli/commands.hpp"
#include "cli/problem_options.hpp"
#include "dispatch/planner.hpp"

namespace gemmkit::cli {

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<ProblemOptions>();
  auto reps = std::make_shared<int>(0);
  CLI::App* cmd = app.add_subcommand("run", "run one GEMM on random data and time it");
  opts->add_to(cmd);
  cmd->add_option("--reps", *reps, "timed calls (0: as many as fit in ~200 ms)");
  cmd->callback([opts, reps] {
    const GemmDesc desc = opts->desc();  // validated: throws before any allocation
    Options o = opts->options();
    const bool device = o.backend == Backend::Cuda ||
                        (o.backend == Backend::Auto && cuda_available());
    require_memory(bench::run_memory(desc, device));  // before the first buffer
    bench::HostCase hc = bench::HostCase::make(desc, opts->alpha, opts->beta, opts->seed);
    GemmArgs args = hc.args();
    std::vector<void*> dev;
    std::string err;
    if (device) {
      o.backend = Backend::Cuda;
      std::vector<std::uint8_t>* bufs[5] = {&hc.a, &hc.b, &hc.c, &hc.d, &hc.bias};
      for (auto* b : bufs) {
        if (b->empty()) {  // no bias
          dev.push_back(nullptr);
          continue;
        }
        void* p = nullptr;
        if (!bench::device_alloc(&p, b->size(), &err) ||
            !bench::copy_to_device(p, b->data(), b->size(), &err)) {
          std::fprintf(stderr, "gemmkit run: device buffers: %s\n", err.c_str());
          exit_code = 1;
          return;
        }
        dev.push_back(p);
      }
      args = GemmArgs{dev[0], dev[1], dev[2], dev[3], opts->alpha, opts->beta};
      args.bias = dev[4];
    }
    const dispatch::Plan plan = dispatch::make_plan(with_default_lds(hc.desc), o, &args);
    using clock = std::chrono::steady_clock;
    std::vector<double> ms;
    Status st;
    const auto t_start = clock::now();
    for (int i = 0;; ++i) {
      const auto t0 = clock::now();
      st = gemm(hc.desc, args, o);
      if (device) bench::device_synchronize(&err);
      const double t = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      if (!st) break;
      if (i > 0) ms.push_back(t);  // the first call is warm-up
      const double total = std::chrono::duration<double, std::milli>(clock::now() - t_start).count();
      if (*reps > 0 ? static_cast<int>(ms.size()) >= *reps : (total > 200 && ms.size() >= 3)) break;
    }
    for (void* p : dev) bench::device_free(p);
    if (!st) {
      std::fprintf(stderr, "gemmkit run: %s\n", to_string(st).c_str());
      exit_code = 1;
      return;
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    const double flops = 2.0 * desc.m * desc.n * desc.k * desc.batch;
    const std::string kernel = plan.launch.kernel ? plan.launch.kernel->name : "?";
    if (opts->json) {
      nlohmann::json j{{"kernel", kernel}, {"backend", backend_name(plan.backend)},
                       {"m", desc.m}, {"n", desc.n}, {"k", desc.k}, {"batch", desc.batch},
                       {"ms_median", med}, {"ms_min", ms.front()}, {"n_timed", ms.size()},
                       {"gflops", flops / (med * 1e6)}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s  m=%lld n=%lld k=%lld batch=%lld  median %.4f ms (min %.4f, n=%zu)  "
                  "%.2f GFLOP/s\n",
                  kernel.c_str(), (long long)desc.m, (long long)desc.n, (long long)desc.k,
                  (long long)desc.batch, med, ms.front(), ms.size(), flops / (med * 1e6));
    }
  });
}

}  // namespace gemmkit::cli
