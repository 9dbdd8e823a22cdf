// The threads of the kernel listing (kernel_threads(), for_each_concurrently()): one count of
// threads started, shared by the whole process, so that files listed at once and the entries
// each of them decompresses at once never run on more than kernel_threads() threads in all;
// and a list of the calls whose items are not all taken yet, which a thread whose own call has
// none left helps with (one large library listed last is then decompressed by every thread,
// not only by the one that took it).
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "internal.hpp"
#include "sm120check/cpus.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check {
namespace {

std::atomic<unsigned> g_threads_override{0};

/// One for_each_concurrently() call.
struct Call {
  std::size_t count = 0;
  const std::function<void(std::size_t)>* work = nullptr;
  std::atomic<std::size_t> next{0};  ///< the next item to take
  unsigned threads = 0;              ///< threads on its items, its caller included (g_mutex)
  std::exception_ptr failure;        ///< the first thrown (g_mutex)
};

std::mutex g_mutex;
std::condition_variable g_left;  ///< a thread stopped working on some call's items
/// Threads started by for_each_concurrently() calls and still working: with the main thread,
/// every thread that may list or decompress (a nested call's calling thread is one of them).
unsigned g_started = 0;
/// Calls not yet returned (g_mutex).
std::vector<Call*> g_calls;
/// The calls the current thread is in (as caller or on their items), outermost first: it
/// never helps one of them from inside another (that would start a second file on a thread
/// still in the middle of one).
thread_local std::vector<Call*> t_calls;

/// Runs items of `call` until none is left to take (the thread counted in call.threads).
void run_items(Call& call) {
  t_calls.push_back(&call);
  for (std::size_t item; (item = call.next.fetch_add(1)) < call.count;) {
    try {
      (*call.work)(item);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(g_mutex);
      if (!call.failure) call.failure = std::current_exception();
    }
  }
  t_calls.pop_back();
  const std::lock_guard<std::mutex> lock(g_mutex);
  --call.threads;
  g_left.notify_all();
}

/// Helps the calls with items left to take that the current thread is not in, one after
/// another, until there is none.
void help_others() {
  while (true) {
    Call* call = nullptr;
    {
      const std::lock_guard<std::mutex> lock(g_mutex);
      for (Call* c : g_calls)
        if (c->next.load() < c->count && std::find(t_calls.begin(), t_calls.end(), c) == t_calls.end()) {
          call = c;
          ++call->threads;
          break;
        }
    }
    if (call == nullptr) return;
    run_items(*call);
  }
}

}  // namespace

unsigned kernel_threads() {
  if (const unsigned forced = g_threads_override.load(); forced != 0) return forced;
  return std::clamp(usable_cpus(), 1u, 8u);
}

void for_each_concurrently(std::size_t count, const std::function<void(std::size_t item)>& work) {
  if (count == 0) return;
  Call call;
  call.count = count;
  call.work = &work;
  unsigned helpers = 0;
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    const unsigned threads = kernel_threads();
    const unsigned free = threads > 1 + g_started ? threads - 1 - g_started : 0;
    helpers = static_cast<unsigned>(std::min<std::size_t>(count - 1, free));
    g_started += helpers;
    call.threads = 1 + helpers;
    g_calls.push_back(&call);
  }
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < helpers; ++k) {
    try {
      pool.emplace_back([&call] {
        run_items(call);
        help_others();
        const std::lock_guard<std::mutex> lock(g_mutex);
        --g_started;  // free at once for another call
      });
    } catch (const std::system_error&) {  // no thread to be had: the others do its share
      const std::lock_guard<std::mutex> lock(g_mutex);
      call.threads -= helpers - k;
      g_started -= helpers - k;
      break;
    }
  }
  run_items(call);
  help_others();
  // Every item is taken; wait for the threads still on one (its own, and those that came to
  // help), after which no thread reaches `call` any more.
  std::exception_ptr failure;
  {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_left.wait(lock, [&] { return call.threads == 0; });
    g_calls.erase(std::find(g_calls.begin(), g_calls.end(), &call));
    failure = call.failure;
  }
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

BufferPool::~BufferPool() {
  for (const std::span<unsigned char> b : free_) ::munmap(b.data(), b.size());
}

BufferPool::Lease BufferPool::take(std::uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  // The smallest kept buffer of `bytes` or more that fits beside those held, if any.
  const auto reusable = [&]() -> std::size_t {
    std::size_t best = free_.size();
    for (std::size_t k = 0; k < free_.size(); ++k)
      if (free_[k].size() >= bytes && held_ + free_[k].size() <= limit_ &&
          (best == free_.size() || free_[k].size() < free_[best].size()))
        best = k;
    return best;
  };
  freed_.wait(lock, [&] {
    return held_ == 0 || (held_ <= limit_ && bytes <= limit_ - held_) || reusable() < free_.size();
  });
  if (const std::size_t k = reusable(); k < free_.size()) {
    const std::span<unsigned char> b = free_[k];
    free_.erase(free_.begin() + static_cast<long>(k));
    kept_ -= b.size();
    held_ += b.size();
    return Lease(*this, b);
  }
  // Room for a new mapping: kept buffers unmapped, largest first, until it fits (all of them
  // for a request over the limit).
  std::sort(free_.begin(), free_.end(),
            [](const auto& a, const auto& b) { return a.size() < b.size(); });
  while (!free_.empty() && held_ + kept_ + bytes > limit_) {
    ::munmap(free_.back().data(), free_.back().size());
    kept_ -= free_.back().size();
    free_.pop_back();
  }
  const auto size = static_cast<std::size_t>(bytes);
  void* p = size == 0 ? nullptr
                      : ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  held_ += size;
  return Lease(*this, {static_cast<unsigned char*>(p), size});
}

void BufferPool::give_back(std::span<unsigned char> buffer) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    held_ -= buffer.size();
    if (buffer.size() > 0 && held_ + kept_ + buffer.size() <= limit_) {
      free_.push_back(buffer);
      kept_ += buffer.size();
    } else if (buffer.size() > 0) {
      ::munmap(buffer.data(), buffer.size());  // over the limit (a request that went alone)
    }
  }
  freed_.notify_all();
}

std::uint64_t BufferPool::held() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

std::uint64_t BufferPool::mapped() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return held_ + kept_;
}

namespace {
std::atomic<std::uint64_t> g_kept_buffer_bytes{0};
}  // namespace

std::uint64_t kept_buffer_bytes() {
  const std::uint64_t forced = g_kept_buffer_bytes.load();
  return forced != 0 ? forced : kKeptBufferBytes;
}

BufferPool& large_buffers() {
  static BufferPool pool(kLargeBufferPoolBytes);
  return pool;
}

namespace detail {
void set_kernel_threads(unsigned threads) { g_threads_override.store(threads); }
void set_kept_buffer_bytes(std::uint64_t bytes) { g_kept_buffer_bytes.store(bytes); }
}  // namespace detail

}  // namespace sm120check
