// Work dealt to a team from a shared counter, in rounds: ticket t is item t % width of round
// t / width, and tickets are taken in increasing order. An item's round r may run only after
// its round r - 1 has finished (wait_turn, finish): the driver's streamed groups of B panels
// (items) and K blocks (rounds), where each K block adds into the D columns the block before
// wrote. A thread that runs slower takes fewer tickets; on one thread the order is plain
// round-major. Waits point only to smaller tickets, and the smallest unfinished ticket is
// always running, so the team cannot deadlock.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

namespace gemmkit::cpu {

class OrderedTickets {
 public:
  OrderedTickets(std::int64_t width, std::int64_t rounds)
      : width_(width), end_(width * rounds), finished_(new std::atomic<std::int64_t>[width]) {
    for (std::int64_t i = 0; i < width; ++i) finished_[i].store(0, std::memory_order_relaxed);
  }

  std::int64_t width() const { return width_; }
  // One past the last ticket; take() returns it (or more) once every ticket is dealt.
  std::int64_t end() const { return end_; }
  std::int64_t take() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // The next ticket for a thread of a `team` that holds t, taken now so that its work can be
  // prepared while t's runs; end() (nothing taken) when the other threads could still need
  // every ticket after t: a thread must not hold work that another one could start (two
  // tickets, two threads: one each, not both to the first thread that asks).
  std::int64_t take_ahead(std::int64_t t, int team) { return end_ - t > team ? take() : end_; }

  // Returns once round t / width of item t % width may run (its previous round has finished:
  // that ticket was taken a whole width of tickets earlier, so this rarely waits).
  void wait_turn(std::int64_t t) const {
    const std::atomic<std::int64_t>& f = finished_[t % width_];
    for (int spins = 0; f.load(std::memory_order_acquire) < t / width_; ++spins)
      if (spins > 64) std::this_thread::yield();  // the other thread may not be running
  }
  // Marks ticket t's round of its item finished: its writes are seen by the next round.
  void finish(std::int64_t t) {
    finished_[t % width_].store(t / width_ + 1, std::memory_order_release);
  }

 private:
  std::int64_t width_, end_;
  std::atomic<std::int64_t> next_{0};
  std::unique_ptr<std::atomic<std::int64_t>[]> finished_;  // rounds finished, per item
};

}  // namespace gemmkit::cpu
