// Work shared out among a few threads started for it: the run's independent items (patches,
// groups of file patches) taken in order by whichever thread is free.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace sm120check {

/// Calls task(lane, i) once for every i in [0, count), in increasing order of i as threads
/// take them, on up to `threads` threads (0 or 1: the calling thread alone): the calling
/// thread is lane 0, the threads started here lanes 1, 2, ... (one per lane at most, and no
/// more than count). A thread that cannot be started leaves its share to the others. Returns
/// when every call has returned; rethrows the first exception a call threw (the other lanes
/// stop at their next index, so some indices may then not be called).
template <typename Task>
void for_each_shared(std::size_t count, unsigned threads, Task&& task) {
  const std::size_t lanes = std::max<std::size_t>(1, std::min<std::size_t>(threads, count));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> failed(lanes);
  const auto work = [&](std::size_t lane) {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < count;) task(lane, i);
    } catch (...) {
      failed[lane] = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t lane = 1; lane < lanes; ++lane) {
    try {
      pool.emplace_back(work, lane);
    } catch (const std::system_error&) {
      break;  // the threads started (and this one) take the rest
    }
  }
  work(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace sm120check
