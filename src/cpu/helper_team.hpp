// A team whose other threads are optional: the calling thread runs the whole job alone if it
// must, and helper threads that wake in time take part of it. For short calls on a team that
// sleeps between calls (a library sharing the CPUs with its caller must not keep spinning
// threads), waking a thread goes through the kernel and, on a VM, through the hypervisor:
// 20-40 us, against a 50 us call at 128^3 f32. An OpenMP region cannot end before each of its
// threads has woken and met the others at the closing barrier, so the caller waits for the
// slowest wake-up even when it has done all the work; here it waits only for the work that a
// helper has taken.
//
// The job body(tid) is called with tid 0 on the calling thread and with tids 1..nt-1 on the
// helpers that arrive before the job closes (any of them, or none). It must share its work
// through counters, so that body(0) alone finishes it (every piece taken by someone is
// finished by its taker), and a helper arriving when nothing is left returns at once. run()
// returns once body(0) has returned and no helper is inside body: the job's state (on the
// caller's stack) is then no longer read. A call that finds the team busy with another
// caller's job runs its body(0) alone.
#pragma once
#include <atomic>
#include <cstdint>

namespace gemmkit::cpu {

class HelperTeam {
 public:
  // The process's team (its threads started on first use, up to the largest team asked for).
  static HelperTeam& get();

  template <class F>
  void run(int nt, F& body) {
    run_erased(
        nt, [](void* f, int tid) { (*static_cast<F*>(f))(tid); }, &body);
  }

 private:
  using Fn = void (*)(void*, int);
  void run_erased(int nt, Fn fn, void* ctx);
  void grow(int helpers);
  void serve(std::uint64_t seen);  // a helper thread: seen, the jobs posted before it

  std::atomic<bool> busy_{false};         // a caller's job is open
  std::atomic<std::uint64_t> posted_{0};  // jobs posted so far: the helpers wait on it
  std::atomic<bool> closed_{true};        // the current job takes no more helpers
  std::atomic<int> inside_{0};            // helpers between arrival and leaving
  std::atomic<int> next_tid_{1};
  // The current job: written while closed_ is true, read by a helper that found it open.
  Fn fn_ = nullptr;
  void* ctx_ = nullptr;
  int nt_ = 1;
  std::atomic<int> helpers_{0};  // threads started
};

}  // namespace gemmkit::cpu
