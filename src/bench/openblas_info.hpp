// What OpenBLAS says about itself, for the run context, and its thread count.
#pragma once
#include <string>

namespace gemmkit::bench {

struct OpenBlasInfo {
  std::string corename;  // openblas_get_corename(): the kernel set it dispatched to
  std::string config;    // openblas_get_config(): version and build options
  int threads = 0;       // openblas_get_num_threads()
  std::string coretype_env;  // OPENBLAS_CORETYPE if set
};

OpenBlasInfo openblas_info();
// threads <= 0: all cores (the harness states the count it used).
void set_openblas_threads(int threads);

}  // namespace gemmkit::bench
