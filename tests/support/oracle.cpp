#include "support/oracle.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace gemmkit::test {

std::string netlib_path() {
  const char* env = std::getenv("GEMMKIT_NETLIB_BLAS");
  return env ? env : "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
}

dgemm_fn netlib_dgemm() {
  static dgemm_fn fn = [] {
    void* h = dlopen(netlib_path().c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    return h ? reinterpret_cast<dgemm_fn>(dlsym(h, "dgemm_")) : nullptr;
  }();
  return fn;
}

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("GEMMKIT_TEST_SEED");
    std::uint64_t s = env ? std::strtoull(env, nullptr, 10) : 20261129u;
    std::printf("[gemmkit] random seed %llu (set GEMMKIT_TEST_SEED to replay)\n",
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

}  // namespace gemmkit::test
