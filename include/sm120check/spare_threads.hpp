// Threads started ahead of the work they will be given, for runs of a few milliseconds.
//
// On the H200 host (a virtual machine whose idle CPUs halt), pthread_create costs its caller
// 32 us and the new thread runs 66 us after the call began (p90 80-160 us); a thread sleeping
// on a condition variable wakes 35 us after it is signalled; one spinning on an atomic flag
// sees it within 1 us (bench/thread_wake.c, medians of 200). verify's first
// pool thread, started where the files are verified, began work 0.14 ms after the main
// thread. Started ahead by a thread with time to spare, a spare thread spins (a bounded time)
// until a task comes.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sm120check {

/// Spins until `done()` is true or `deadline` passes, with a pause instruction between
/// checks (the clock read every 64 of them); returns done(). For waits expected to end within
/// tens of microseconds on hosts with cores to spare: a thread asleep on a condition variable
/// wakes 35 us after it is signalled on the H200 host, a spinning one within 1 us
/// (bench/thread_wake.c).
template <typename Done>
bool spin_until(std::chrono::steady_clock::time_point deadline, Done&& done) {
  for (unsigned n = 0; !done(); ++n) {
    if (n % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return done();
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  return true;
}

/// A few threads waiting for one task each, handed out by run(). Thread-safe.
///
/// A started thread spins (with a pause instruction) for at most the spin time given to
/// start() or until retire(), then sleeps on a condition variable; it runs the tasks it is
/// given, one after the other, until retire() or destruction. Spinning costs CPU time, so
/// start() is for hosts with cores to spare (the caller decides; see usable_cpus()).
class SpareThreads {
 public:
  SpareThreads() = default;
  SpareThreads(const SpareThreads&) = delete;
  SpareThreads& operator=(const SpareThreads&) = delete;
  /// Retires the threads, waits for the tasks in hand, joins them.
  ~SpareThreads();

  /// Starts `count` more threads, each spinning for up to `spin` before it sleeps. Never
  /// throws: a thread that cannot be started (std::system_error, std::bad_alloc) is left out
  /// with the rest.
  void start(unsigned count, std::chrono::microseconds spin);

  /// Hands `task` to a thread that is waiting for one: true when one took it (wait() waits
  /// for it), false when none waits (run it elsewhere). `task` must not throw; if it does,
  /// wait() rethrows the first exception.
  bool run(std::function<void()> task);

  /// Blocks until every task run() handed out has returned; rethrows a task's exception.
  /// Spins (a pause instruction) for up to `spin` before it sleeps: a sleeping caller wakes
  /// 35 us after the last task ends on the H200 host, a spinning one within 1 us.
  void wait(std::chrono::microseconds spin = std::chrono::microseconds(0));

  /// No more tasks will come: waiting threads stop spinning and end (tasks in hand finish).
  void retire();

  /// Tasks run() has handed out so far.
  std::size_t taken() const { return taken_.load(); }

 private:
  void loop(std::chrono::microseconds spin);

  std::mutex mutex_;
  std::condition_variable wake_;  ///< a task queued, or retired
  std::condition_variable done_;  ///< a task returned
  std::vector<std::function<void()>> queue_;
  std::atomic<std::size_t> queued_{0};  ///< queue_.size(), read while spinning
  std::atomic<bool> retired_{false};
  std::atomic<std::size_t> taken_{0};
  unsigned waiting_ = 0;   ///< threads waiting for a task (spinning or asleep)
  unsigned in_hand_ = 0;   ///< tasks queued or running
  std::atomic<unsigned> in_hand_count_{0};  ///< in_hand_, read while wait() spins
  std::exception_ptr failed_;
  std::vector<std::thread> threads_;
};

}  // namespace sm120check
