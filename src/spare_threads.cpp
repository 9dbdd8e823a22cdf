#include "sm120check/spare_threads.hpp"

#include <utility>


namespace sm120check {


SpareThreads::~SpareThreads() {
  retire();
  std::vector<std::thread> threads;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
}

void SpareThreads::start(unsigned count, std::chrono::microseconds spin) {
  for (unsigned i = 0; i < count; ++i) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (retired_) return;
    try {
      threads_.emplace_back([this, spin] { loop(spin); });
      ++waiting_;  // counted before it runs: run() may hand it a task at once
    } catch (...) {  // no thread (std::system_error), or no memory for its handle
      return;
    }
  }
}

bool SpareThreads::run(std::function<void()> task) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (retired_ || waiting_ <= queue_.size()) return false;
    queue_.push_back(std::move(task));
    queued_.store(queue_.size(), std::memory_order_release);
    ++in_hand_;
    in_hand_count_.store(in_hand_, std::memory_order_release);
    ++taken_;
  }
  wake_.notify_one();
  return true;
}

void SpareThreads::wait(std::chrono::microseconds spin) {
  // A caller asleep here wakes 35 us after the last task ends (H200 host); spinning first,
  // it sees the end within a microsecond (bench/thread_wake.c).
  spin_until(std::chrono::steady_clock::now() + spin,
             [this] { return in_hand_count_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return in_hand_ == 0; });
  if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
}

void SpareThreads::retire() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    retired_ = true;
  }
  wake_.notify_all();
}

void SpareThreads::loop(std::chrono::microseconds spin) {
  const auto until = std::chrono::steady_clock::now() + spin;
  for (;;) {
    // Spinning until `until`, then asleep below.
    spin_until(until, [this] {
      return queued_.load(std::memory_order_acquire) != 0 ||
             retired_.load(std::memory_order_relaxed);
    });
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return !queue_.empty() || retired_; });
      if (queue_.empty()) {  // retired, nothing left to take
        --waiting_;
        return;
      }
      task = std::move(queue_.back());
      queue_.pop_back();
      queued_.store(queue_.size(), std::memory_order_release);
      --waiting_;
    }
    std::exception_ptr failed;
    try {
      task();
    } catch (...) {
      failed = std::current_exception();
    }
    task = nullptr;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (failed && !failed_) failed_ = failed;
      --in_hand_;
      in_hand_count_.store(in_hand_, std::memory_order_release);
      ++waiting_;
    }
    done_.notify_all();
  }
}

}  // namespace sm120check
