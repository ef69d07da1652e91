// The CPU driver's team barrier (src/cpu/team_barrier.hpp) on host threads: no thread leaves
// round r before every thread of the team has arrived at it, rounds reuse the one barrier, and
// threads that arrive unevenly (some yielding, some late) all pass. Teams of 1-4 threads.
#include "cpu/team_barrier.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace gemmkit::cpu {
namespace {

TEST(TeamBarrier, NoThreadLeavesARoundBeforeTheTeamArrives) {
  constexpr int kRounds = 200;
  for (int team = 1; team <= 4; ++team) {
    TeamBarrier meet(team);
    std::vector<std::atomic<int>> arrived(kRounds);
    std::atomic<int> early{0};  // a thread that left a round some thread had not reached
    std::vector<std::thread> threads;
    for (int t = 0; t < team; ++t)
      threads.emplace_back([&, t] {
        for (int r = 0; r < kRounds; ++r) {
          if ((r + t) % 5 == 0) std::this_thread::yield();  // uneven arrivals
          arrived[r].fetch_add(1);
          meet.arrive_and_wait();
          if (arrived[r].load() != team) early += 1;
        }
      });
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(early.load(), 0) << "team of " << team;
    for (int r = 0; r < kRounds; ++r) EXPECT_EQ(arrived[r].load(), team) << "round " << r;
  }
}

}  // namespace
}  // namespace gemmkit::cpu
