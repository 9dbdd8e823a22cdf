// SpareThreads: tasks handed to threads started ahead, spinning or asleep.
#include "sm120check/spare_threads.hpp"
#include "sm120check/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sm120check {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST(SpareThreads, NoThreadsTakesNoTask) {
  SpareThreads spares;
  EXPECT_FALSE(spares.run([] {}));
  spares.wait();  // nothing in hand: returns at once
}

TEST(SpareThreads, WaitWithASpinStillWaitsForTasksLongerThanTheSpin) {
  for (const microseconds spin : {microseconds(0), microseconds(200), microseconds(100000)}) {
    SpareThreads spares;
    spares.start(1, milliseconds(200));
    std::atomic<bool> done{false};
    ASSERT_TRUE(spares.run([&] {
      std::this_thread::sleep_for(milliseconds(20));
      done = true;
    }));
    spares.wait(spin);  // spins (or not), then sleeps until the task has returned
    EXPECT_TRUE(done.load()) << "spin " << spin.count() << " us";
    // An exception thrown by a task comes back from a spinning wait() too.
    ASSERT_TRUE(spares.run([] { throw std::runtime_error("task failed"); }));
    EXPECT_THROW(spares.wait(spin), std::runtime_error);
  }
}

TEST(SpareThreads, EachWaitingThreadTakesOneTaskAndWaitWaitsForThem) {
  SpareThreads spares;
  spares.start(2, milliseconds(200));
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> done{0};
  const auto task = [&] {
    gate.wait();
    ++done;
  };
  ASSERT_TRUE(spares.run(task));
  ASSERT_TRUE(spares.run(task));
  EXPECT_FALSE(spares.run(task)) << "two threads, both given a task: a third has none";
  release.set_value();
  spares.wait();
  EXPECT_EQ(done.load(), 2);
  // Back to waiting: each takes another.
  ASSERT_TRUE(spares.run([&] { ++done; }));
  spares.wait();
  EXPECT_EQ(done.load(), 3);
}

TEST(SpareThreads, AThreadPastItsSpinSleepsAndStillTakesATask) {
  SpareThreads spares;
  spares.start(1, microseconds(0));
  std::this_thread::sleep_for(milliseconds(20));
  std::atomic<bool> ran{false};
  ASSERT_TRUE(spares.run([&] { ran = true; }));
  spares.wait();
  EXPECT_TRUE(ran.load());
}

TEST(SpareThreads, RetiredThreadsTakeNoMoreTasks) {
  SpareThreads spares;
  spares.start(2, milliseconds(200));
  std::atomic<bool> ran{false};
  ASSERT_TRUE(spares.run([&] {
    std::this_thread::sleep_for(milliseconds(10));
    ran = true;
  }));
  spares.retire();
  EXPECT_FALSE(spares.run([] {}));
  spares.wait();  // the task in hand still finishes
  EXPECT_TRUE(ran.load());
}

TEST(SpareThreads, ATaskThatThrowsIsRethrownByWait) {
  SpareThreads spares;
  spares.start(1, milliseconds(200));
  ASSERT_TRUE(spares.run([] { throw std::runtime_error("boom"); }));
  EXPECT_THROW(spares.wait(), std::runtime_error);
  spares.wait();  // once
}

TEST(SpareThreads, DestroyedWhileSpinningOrAsleepEnds) {
  { SpareThreads spinning; spinning.start(2, milliseconds(10000)); }
  {
    SpareThreads asleep;
    asleep.start(1, microseconds(0));
    std::this_thread::sleep_for(milliseconds(5));
  }
  SUCCEED();  // (a hang here is the failure: ctest's timeout)
}

// for_each_shared(): every index once, on at most min(threads, count) lanes, the calling
// thread lane 0; the first exception comes back and the other lanes stop.
TEST(ForEachShared, EveryIndexOnceOnAtMostTheLanesAsked) {
  for (const unsigned threads : {0u, 1u, 3u, 16u}) {
    std::vector<std::atomic<int>> calls(100);
    std::vector<std::atomic<int>> by_lane(16);
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> lane0_elsewhere{false};
    for_each_shared(calls.size(), threads, [&](std::size_t lane, std::size_t i) {
      ++calls[i];
      ++by_lane[lane];
      if (lane == 0 && std::this_thread::get_id() != caller) lane0_elsewhere = true;
    });
    for (std::size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].load(), 1) << i;
    for (std::size_t lane = std::max(threads, 1u); lane < by_lane.size(); ++lane)
      EXPECT_EQ(by_lane[lane].load(), 0) << "lane " << lane << " of " << threads;
    EXPECT_FALSE(lane0_elsewhere.load());
  }
  std::atomic<int> ran{0};
  for_each_shared(2, 8, [&](std::size_t lane, std::size_t) { EXPECT_LT(lane, 2u); ++ran; });
  EXPECT_EQ(ran.load(), 2);
  EXPECT_THROW(for_each_shared(50, 4,
                               [](std::size_t, std::size_t i) {
                                 if (i == 7) throw std::runtime_error("item 7");
                               }),
               std::runtime_error);
}

}  // namespace
}  // namespace sm120check
