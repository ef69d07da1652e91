// The candidate: a registered gemmkit kernel, called through the public gemm() front door.
#include <vector>

#include "bench/device_mem.hpp"
#include "bench/provider.hpp"

namespace gemmkit::bench {

namespace {

class GemmkitProvider final : public Provider {
 public:
  GemmkitProvider(const GemmDesc& desc, double alpha, double beta, std::string kernel,
                  std::string config, Backend backend, int threads, int split_k, Schedule schedule,
                  bool batch_invariant, bool dynamic_schedule, int sm_count_target)
      : desc_(desc),
        alpha_(alpha),
        beta_(beta),
        kernel_(std::move(kernel)),
        config_(std::move(config)) {
    opt_.backend = backend;
    opt_.threads = threads;
    opt_.split_k = split_k;
    opt_.schedule = schedule;
    opt_.batch_invariant = batch_invariant;
    opt_.dynamic_schedule = dynamic_schedule;
    opt_.sm_count_target = sm_count_target;
    opt_.kernel = kernel_.c_str();
    opt_.allow_fallback = false;  // time the kernel asked for, or say it cannot run
    if (Status s = can_implement(desc_, opt_); !s) {
      why_ = to_string(s);
      return;
    }
    const std::size_t ws = workspace_size(desc_, opt_);
    if (ws > 0) {
      std::string err;
      if (backend == Backend::Cuda) {
        if (!device_alloc(&workspace_, ws, &err)) why_ = "workspace: " + err;
      } else {
        host_ws_.resize(ws);
        workspace_ = host_ws_.data();
      }
      opt_.workspace = workspace_;
      opt_.workspace_bytes = ws;
    }
  }
  ~GemmkitProvider() override {
    if (opt_.backend == Backend::Cuda && workspace_) device_free(workspace_);
  }
  std::string provider() const override { return "gemmkit"; }
  std::string kernel() const override { return kernel_; }
  std::string config() const override { return config_; }
  std::string unsupported() const override { return why_; }
  Status call(const OperandSet& s, void* stream) override {
    Options o = opt_;
    o.stream = stream;
    GemmArgs args{s.a, s.b, s.c, s.d, alpha_, beta_};
    args.scale_a = s.scale_a, args.scale_b = s.scale_b, args.zero_b = s.zero_b;
    args.scale_d = s.scale_d, args.amax_d = s.amax_d;
    args.bias = s.bias;
    return gemm(desc_, args, o);
  }

 private:
  GemmDesc desc_;
  double alpha_, beta_;
  std::string kernel_, config_;
  Options opt_;
  std::string why_;
  void* workspace_ = nullptr;
  std::vector<std::uint8_t> host_ws_;
};

}  // namespace

std::unique_ptr<Provider> make_gemmkit_provider(const GemmDesc& desc, double alpha, double beta,
                                                const std::string& kernel,
                                                const std::string& config, Backend backend,
                                                int threads, int split_k, Schedule schedule,
                                                bool batch_invariant, bool dynamic_schedule,
                                                int sm_count_target) {
  return std::make_unique<GemmkitProvider>(desc, alpha, beta, kernel, config, backend, threads,
                                           split_k, schedule, batch_invariant, dynamic_schedule,
                                           sm_count_target);
}

}  // namespace gemmkit::bench
