// A barrier for an OpenMP team that its threads meet awake. With OMP_WAIT_POLICY=passive (what
// the bench runs under, and what a library sharing the CPUs with its caller should expect), a
// thread that reaches `omp barrier`, or the closing barrier of a parallel region, before the
// others sleeps in the kernel, and the last one to arrive must wake it: on the 2-core VM that
// round trip cost ~20-40 us of a 0.3 ms call (256^3 f32 on two threads). Here the threads
// spin, then yield, until the whole team has arrived; called last in a region, it brings the
// team to the closing barrier together, so that no one sleeps there either. A wait lasts as
// long as the slowest thread, which the OpenMP barrier would wait for too.
#pragma once
#include <atomic>
#include <thread>

namespace gemmkit::cpu {

class TeamBarrier {
 public:
  explicit TeamBarrier(int team) : team_(team) {}

  // Returns once every one of the team's threads has called it as often as this one has.
  void arrive_and_wait() {
    const int round = round_of_.fetch_add(1, std::memory_order_acq_rel) / team_;
    for (int spins = 0; round_of_.load(std::memory_order_acquire) < (round + 1) * team_; ++spins)
      if (spins > 64) std::this_thread::yield();  // the other thread may not be running
  }

 private:
  int team_;
  std::atomic<long> round_of_{0};  // arrivals so far, over every round
};

}  // namespace gemmkit::cpu
