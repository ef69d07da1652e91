#ifndef GEMMKIT_HAVE_CUDA
#include "bench/provider.hpp"

namespace gemmkit::bench {

namespace {
class NoCublas final : public Provider {
 public:
  std::string provider() const override { return "cublas"; }
  std::string kernel() const override { return "cublasLtMatmul"; }
  std::string config() const override { return {}; }
  std::string unsupported() const override { return "gemmkit was built without CUDA"; }
  Status call(const OperandSet&, void*) override {
    return Status{StatusCode::NotSupported, Arg::Backend, "gemmkit was built without CUDA"};
  }
};
}  // namespace

std::unique_ptr<Provider> make_cublaslt_provider(const GemmDesc&, double, double, bool, int) {
  return std::make_unique<NoCublas>();
}

}  // namespace gemmkit::bench
#endif
