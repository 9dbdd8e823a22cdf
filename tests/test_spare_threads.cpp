// SpareThreads: tasks handed to threads started ahead, spinning or asleep.
#include "sm120check/spare_threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

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

}  // namespace
}  // namespace sm120check
