// The progress line of a sweep on stderr, rewritten in place: current problem, done/total,
// elapsed, ETA (from the flop done so far). Silent when stderr is not a terminal or --quiet.
#pragma once
#include <string>

#include "bench/stats.hpp"

namespace gemmkit::bench {

class Progress {
 public:
  // enabled: the caller's choice (--quiet); the line also needs stderr to be a terminal.
  Progress(bool enabled, int total, double total_work);
  void start(const std::string& label);  // before a problem
  void done(double work);                // after it (work: its flop count)
  void finish();                         // clears the line
  bool active() const { return active_; }

 private:
  void draw();
  bool active_;
  int total_, done_ = 0;
  double total_work_, done_work_ = 0;
  std::string label_;
  HostTimer timer_;
};

}  // namespace gemmkit::bench
