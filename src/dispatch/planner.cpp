#include "dispatch/planner.hpp"

#include <algorithm>

#include "core/status.hpp"
#include "ledger/tile_ledger.hpp"

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
  if (opt.backend != Backend::Auto) {
    why.add([&] { return "backend " + std::string(backend_name(opt.backend)) + ": requested"; });
    return opt.backend;
  }
  if (!cuda_available()) {
    why.add([] { return std::string("backend cpu: no usable CUDA device in this process"); });
    return Backend::Cpu;
  }
  if (args != nullptr && args->d != nullptr && !is_device_pointer(args->d)) {
    why.add([] { return std::string("backend cpu: D is host memory"); });
    return Backend::Cpu;
  }
  why.add([] { return std::string("backend cuda: a CUDA device is available"); });
  return Backend::Cuda;
}

}  // namespace

const ledger::Machine& planning_machine(Backend b) {
  if (b == Backend::Cuda) {
    static const ledger::Machine* gpu = ledger::find_machine("h200-measured");
    return *gpu;
  }
  return ledger::host_machine_nominal();
}

Plan make_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args, bool with_reasons) {
  Plan p;
  const Notes note{with_reasons ? &p.reasons : nullptr};
  const Registry& reg = registry();
  if (opt.kernel != nullptr) {
    p.kernel = reg.find(opt.kernel);
    if (p.kernel == nullptr) {
      p.status = GEMMKIT_INVALID(Arg::Kernel, "no kernel named '" + std::string(opt.kernel) + "'");
      return p;
    }
    p.backend = p.kernel->backend;
    if (opt.backend != Backend::Auto && opt.backend != p.backend) {
      p.status = GEMMKIT_INVALID(
          Arg::Backend, "kernel '" + p.kernel->name + "' does not belong to the requested backend");
      p.kernel = nullptr;
      return p;
    }
    p.status = p.kernel->can_implement(d);
    note.add([&] { return "kernel " + p.kernel->name + ": requested by name"; });
    if (p.kernel->variant == ledger::Variant::SplitK) {
      const ledger::Machine& machine = planning_machine(p.backend);
      p.variant = ledger::choose_variant(d, machine, ledger::default_tile_config(d, machine));
      p.split_k = opt.split_k > 0 ? opt.split_k : 0;  // 0: the kernel's own policy
    }
    if (!p.status) p.kernel = nullptr;
    return p;
  }
  p.backend = choose_backend(opt, args, note);
  if (p.backend == Backend::Cuda && !cuda_available()) {
    p.status = GEMMKIT_ERROR(StatusCode::NotSupported, Arg::Backend,
                             "the CUDA backend was requested but no CUDA device is usable");
    return p;
  }
  // The decision tree of the ledger names the variant; production kernels of that variant
  // come first (by priority), then the data-parallel ones, then the reference path.
  const ledger::Machine& machine = planning_machine(p.backend);
  p.variant = ledger::choose_variant(d, machine, ledger::default_tile_config(d, machine));
  note.add([&] {
    return "ledger (" + machine.name +
           "): " + std::string(ledger::variant_name(p.variant.variant)) + ": " + p.variant.reason;
  });
  // Where no production kernel implements the problem, the highest ladder rung that does (the
  // rungs are registered in order), then the reference path.
  auto rank = [&](const KernelInfo* k) {
    if (k->role == KernelRole::Reference) return 3;
    if (k->role == KernelRole::Ladder) return 2;
    return k->variant == p.variant.variant ? 0 : 1;
  };
  std::vector<const KernelInfo*> cands;
  for (const auto& k : reg.all())
    if (k.backend == p.backend) cands.push_back(&k);
  std::stable_sort(cands.begin(), cands.end(), [&](const KernelInfo* x, const KernelInfo* y) {
    if (rank(x) != rank(y)) return rank(x) < rank(y);
    if (x->priority != y->priority) return x->priority > y->priority;
    return rank(x) == 2 && x > y;  // later rungs first (entries live in one vector)
  });
  for (const KernelInfo* k : cands) {
    Status s = k->can_implement(d);
    if (s) {
      p.kernel = k;
      p.status = {};
      const bool match = k->variant == p.variant.variant;
      // A split count the caller gave wins; otherwise the ledger's when it chose split-K, and
      // 0 (the kernel's own policy) when the kernel serves split-K without the tree asking.
      p.split_k = k->variant != ledger::Variant::SplitK ? 1
                  : opt.split_k > 0                     ? opt.split_k
                  : match                               ? std::max(2, p.variant.split)
                                                        : 0;
      note.add([&] {
        return "kernel " + k->name + " [" + k->config + "]: " +
               (k->role == KernelRole::Reference
                    ? std::string(
                          "the reference path: no production kernel implements this problem")
                : k->role == KernelRole::Ladder
                    ? std::string(
                          "no production kernel implements this problem: the highest ladder "
                          "rung that does")
                : match ? "implements the " + std::string(ledger::variant_name(k->variant)) +
                              " variant the ledger chose (highest priority)"
                        : "no " + std::string(ledger::variant_name(p.variant.variant)) +
                              " kernel implements it; highest-priority " +
                              std::string(ledger::variant_name(k->variant)) + " kernel that does");
      });
      if (p.split_k > 1)
        note.add([&] { return "split-K into " + std::to_string(p.split_k) + " pieces"; });
      return p;
    }
    note.add([&] { return "skipped " + k->name + ": " + to_string(s); });
  }
  p.status = GEMMKIT_UNSUPPORTED("no " + std::string(backend_name(p.backend)) +
                                 " kernel implements this problem");
  return p;
}

}  // namespace gemmkit::dispatch
