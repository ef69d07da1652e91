#include "cpu/helper_team.hpp"

#include <mutex>
#include <thread>

namespace gemmkit::cpu {

HelperTeam& HelperTeam::get() {
  static HelperTeam* const team = new HelperTeam;  // never destroyed: its threads outlive main
  return *team;
}

void HelperTeam::grow(int helpers) {
  if (helpers_.load(std::memory_order_acquire) >= helpers) return;
  static std::mutex m;
  const std::lock_guard<std::mutex> lock(m);
  for (int h = helpers_.load(std::memory_order_relaxed); h < helpers; ++h) {
    // A job posted from now on is new to it (the one its caller is about to post, too).
    std::thread([this, seen = posted_.load(std::memory_order_acquire)] { serve(seen); }).detach();
    helpers_.store(h + 1, std::memory_order_release);
  }
}

// A helper: sleeps until a job is posted, then takes a tid if the job is still open. Arriving
// (inside_) before looking at closed_, while the caller closes before looking at inside_, means
// that a helper either sees the job closed or is waited for.
void HelperTeam::serve(std::uint64_t seen) {
  for (;;) {
    posted_.wait(seen, std::memory_order_acquire);
    seen = posted_.load(std::memory_order_acquire);
    inside_.fetch_add(1, std::memory_order_seq_cst);
    if (!closed_.load(std::memory_order_seq_cst)) {
      const int tid = next_tid_.fetch_add(1, std::memory_order_relaxed);
      if (tid < nt_) fn_(ctx_, tid);
    }
    inside_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

void HelperTeam::run_erased(int nt, Fn fn, void* ctx) {
  bool idle = false;
  if (nt <= 1 || !busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) {
    fn(ctx, 0);
    return;
  }
  grow(nt - 1);
  fn_ = fn, ctx_ = ctx, nt_ = nt;
  next_tid_.store(1, std::memory_order_relaxed);
  closed_.store(false, std::memory_order_seq_cst);
  posted_.fetch_add(1, std::memory_order_release);
  posted_.notify_all();
  fn(ctx, 0);
  closed_.store(true, std::memory_order_seq_cst);
  for (int spins = 0; inside_.load(std::memory_order_seq_cst) != 0; ++spins)
    if (spins > 64) std::this_thread::yield();  // a helper still finishing what it took
  busy_.store(false, std::memory_order_release);
}

}  // namespace gemmkit::cpu
