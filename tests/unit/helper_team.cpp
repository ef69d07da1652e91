// The CPU driver's team of optional helpers (src/cpu/helper_team.hpp) on host threads: every
// piece of a job is done exactly once whether helpers arrive or not; a helper that arrives
// takes part (the team is not the caller alone); no helper is inside a job's body once run()
// has returned (the job's state lives on the caller's stack); a caller that finds the team
// busy runs its job alone; and many callers at once each get their whole job done.
#include "cpu/helper_team.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace gemmkit::cpu {
namespace {

// A job of `pieces` pieces shared through a counter, as the driver's deals share tickets.
struct Job {
  explicit Job(int pieces) : done(pieces) {}
  std::atomic<int> next{0};
  std::vector<std::atomic<int>> done;  // per piece, times done
  std::atomic<int> by_helpers{0};      // pieces a helper (tid > 0) did
  void operator()(int tid) {
    for (int i = next.fetch_add(1); i < static_cast<int>(done.size()); i = next.fetch_add(1)) {
      done[i].fetch_add(1);
      if (tid > 0) by_helpers.fetch_add(1);
    }
  }
};

void expect_each_once(const Job& job) {
  for (std::size_t i = 0; i < job.done.size(); ++i) ASSERT_EQ(job.done[i].load(), 1) << i;
}

TEST(HelperTeam, OneThreadRunsTheBodyAloneOnTheCaller) {
  Job job(100);
  int calls = 0;
  auto body = [&](int tid) {
    ++calls;
    EXPECT_EQ(tid, 0);
    job(tid);
  };
  HelperTeam::get().run(1, body);
  EXPECT_EQ(calls, 1);
  expect_each_once(job);
}

// A helper that arrives takes part: the caller holds its share back until a helper has done a
// piece (bounded wait, so a machine where no helper ever ran fails instead of hanging).
TEST(HelperTeam, AHelperTakesPart) {
  Job job(64);
  auto body = [&](int tid) {
    if (tid == 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (job.by_helpers.load() == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    }
    job(tid);
  };
  HelperTeam::get().run(2, body);
  expect_each_once(job);
  EXPECT_GT(job.by_helpers.load(), 0);
}

// The caller finishes alone while the team is busy with another caller's job.
TEST(HelperTeam, ABusyTeamLeavesTheCallerAlone) {
  std::atomic<bool> first_open{false}, second_done{false};
  Job second(50);
  std::thread owner([&] {
    auto hold = [&](int tid) {
      if (tid != 0) return;
      first_open = true;
      while (!second_done.load()) std::this_thread::yield();
    };
    HelperTeam::get().run(2, hold);
  });
  while (!first_open.load()) std::this_thread::yield();
  std::atomic<int> tids_seen{0};
  auto body = [&](int tid) {
    tids_seen.fetch_add(1);
    EXPECT_EQ(tid, 0);  // no helper for a caller that found the team busy
    second(tid);
  };
  HelperTeam::get().run(2, body);
  second_done = true;
  owner.join();
  EXPECT_EQ(tids_seen.load(), 1);
  expect_each_once(second);
}

// Slots outlive the jobs, so a helper inside a finished job's body is caught, not a crash.
struct Slot {
  std::atomic<bool> returned{false};
  std::atomic<int> late{0};
};
std::array<Slot, 8> slots;

TEST(HelperTeam, ManyCallersEachJobWholeNoHelperAfterReturn) {
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 8; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < 200; ++r) {
        Slot& slot = slots[c];
        slot.returned = false;
        Job job(1 + (r * 7 + c) % 37);
        auto body = [&](int tid) {
          job(tid);
          if (slot.returned.load()) slot.late.fetch_add(1);
        };
        HelperTeam::get().run(1 + (r + c) % 4, body);
        slot.returned = true;
        for (auto& d : job.done)
          if (d.load() != 1) failures.fetch_add(1);
      }
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (const Slot& s : slots) EXPECT_EQ(s.late.load(), 0);
}

}  // namespace
}  // namespace gemmkit::cpu
