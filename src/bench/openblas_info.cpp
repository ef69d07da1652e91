#include "bench/openblas_info.hpp"

#include <cblas.h>

#include <cstdlib>
#include <thread>

namespace gemmkit::bench {

OpenBlasInfo openblas_info() {
  OpenBlasInfo i;
  if (const char* s = openblas_get_corename()) i.corename = s;
  if (const char* s = openblas_get_config()) i.config = s;
  i.threads = openblas_get_num_threads();
  if (const char* e = std::getenv("OPENBLAS_CORETYPE")) i.coretype_env = e;
  return i;
}

void set_openblas_threads(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  openblas_set_num_threads(threads > 0 ? threads : 1);
}

}  // namespace gemmkit::bench
