// The CPU driver's ticket deal (src/cpu/ordered_tickets.hpp) on host threads: every ticket is
// taken exactly once, each item's rounds run one at a time and in order (a round that started
// before the previous one finished, or out of order, would add into D before the K block that
// comes first), one thread takes them round-major, and a ticket taken ahead never leaves
// another thread idle. Teams of 1-4 threads over widths of 1 (every ticket waits for the one
// before) to 7 items.
#include "cpu/ordered_tickets.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace gemmkit::cpu {
namespace {

struct Log {
  std::vector<std::vector<std::int64_t>> rounds;  // per item, the rounds in the order they ran
  std::vector<std::atomic<int>> taken;            // per ticket, times taken
  std::atomic<int> overlaps{0};                   // a round started while its item was busy
  std::vector<std::atomic<int>> busy;             // per item, rounds running now
  Log(std::int64_t width, std::int64_t rounds_n)
      : rounds(width), taken(width * rounds_n), busy(width) {}
};

// One worker of `team`: takes the next ticket ahead while it runs the current one, as the
// driver does.
void work(OrderedTickets& deal, Log& log, int worker, int team) {
  for (std::int64_t t = deal.take(); t < deal.end();) {
    const std::int64_t next = deal.take_ahead(t, team);
    const std::int64_t item = t % deal.width();
    log.taken[t] += 1;
    deal.wait_turn(t);
    if (log.busy[item].fetch_add(1) != 0) log.overlaps += 1;
    if ((t + worker) % 3 == 0) std::this_thread::yield();  // uneven workers
    log.rounds[item].push_back(t / deal.width());
    log.busy[item].fetch_sub(1);
    deal.finish(t);
    t = next < deal.end() ? next : deal.take();
  }
}

TEST(OrderedTickets, EveryTicketOnceEachItemsRoundsInOrder) {
  for (std::int64_t width : {1, 2, 3, 7})
    for (std::int64_t rounds : {1, 2, 5, 40})
      for (int threads : {1, 2, 3, 4}) {
        OrderedTickets deal(width, rounds);
        ASSERT_EQ(deal.end(), width * rounds);
        Log log(width, rounds);
        std::vector<std::thread> team;
        for (int w = 0; w < threads; ++w)
          team.emplace_back(work, std::ref(deal), std::ref(log), w, threads);
        for (std::thread& th : team) th.join();
        SCOPED_TRACE(testing::Message()
                     << "width " << width << " rounds " << rounds << " threads " << threads);
        for (std::int64_t t = 0; t < width * rounds; ++t) EXPECT_EQ(log.taken[t].load(), 1) << t;
        EXPECT_EQ(log.overlaps.load(), 0);
        for (std::int64_t i = 0; i < width; ++i) {
          ASSERT_EQ(std::int64_t(log.rounds[i].size()), rounds) << "item " << i;
          for (std::int64_t r = 0; r < rounds; ++r) EXPECT_EQ(log.rounds[i][r], r);
        }
      }
}

TEST(OrderedTickets, OneThreadTakesThemRoundMajor) {
  OrderedTickets deal(3, 4);
  for (std::int64_t expected = 0; expected < 12; ++expected) {
    const std::int64_t t = deal.take();
    ASSERT_EQ(t, expected);
    deal.wait_turn(t);  // returns at once: the item's previous round is finished
    deal.finish(t);
  }
  EXPECT_GE(deal.take(), deal.end());
}

// A ticket is taken ahead only while more tickets remain after the one held than there are
// threads: two tickets for two threads go one to each, not both to the first that asks.
TEST(OrderedTickets, TakesAheadOnlyWhatNoOtherThreadNeeds) {
  OrderedTickets two(2, 1);
  const std::int64_t first = two.take();
  EXPECT_EQ(two.take_ahead(first, 2), two.end());  // nothing taken
  EXPECT_EQ(two.take(), 1);                        // the other thread's
  OrderedTickets five(5, 1);
  const std::int64_t held = five.take();
  EXPECT_EQ(five.take_ahead(held, 2), 1);
  EXPECT_EQ(five.take(), 2);
  EXPECT_EQ(five.take_ahead(2, 2), 3);
  EXPECT_EQ(five.take_ahead(3, 2), five.end());  // 5 - 3 tickets left for 2 threads
  EXPECT_EQ(five.take_ahead(0, 1), 4);           // one thread: always ahead
}

}  // namespace
}  // namespace gemmkit::cpu
