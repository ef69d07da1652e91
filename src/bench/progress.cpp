#include "bench/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace gemmkit::bench {

Progress::Progress(bool enabled, int total, double total_work)
    : active_(enabled && isatty(STDERR_FILENO)), total_(total), total_work_(total_work) {}

void Progress::start(const std::string& label) {
  label_ = label;
  draw();
}

void Progress::done(double work) {
  ++done_;
  done_work_ += work;
  draw();
}

void Progress::draw() {
  if (!active_) return;
  const double elapsed = timer_.elapsed_ms() / 1000.0;
  char eta[32] = "?";
  if (done_work_ > 0 && total_work_ > done_work_)
    std::snprintf(eta, sizeof eta, "%.0f s", elapsed * (total_work_ - done_work_) / done_work_);
  else if (done_ == total_)
    std::snprintf(eta, sizeof eta, "0 s");
  std::fprintf(stderr, "\r\033[K[%d/%d] %s  elapsed %.0f s  ETA %s", done_, total_,
               label_.c_str(), elapsed, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!active_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace gemmkit::bench
