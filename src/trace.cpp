#include "sm120check/trace.hpp"

#include <sys/resource.h>
#include <time.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace sm120check::trace {

namespace {

struct Event {
  const char* name;
  unsigned thread;
  std::int64_t begin_ns;
  std::int64_t end_ns;
  std::int64_t faults;
};

const char* trace_path() {
  static const char* const path = [] {
    const char* p = std::getenv("SM120CHECK_TRACE");
    return p != nullptr && *p != '\0' ? p : nullptr;
  }();
  return path;
}

std::array<Event, kMaxEvents> g_events;
std::atomic<std::size_t> g_count{0};
std::atomic<unsigned> g_threads{0};

unsigned thread_number() {
  thread_local const unsigned n = g_threads.fetch_add(1);
  return n;
}

// Read once before main() so that enabled() is a plain load afterwards.
[[maybe_unused]] const bool g_enabled_at_start = trace_path() != nullptr;

}  // namespace

bool enabled() { return trace_path() != nullptr; }

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::int64_t thread_faults() {
  rusage usage{};
  if (::getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
  return usage.ru_minflt;
}

void record(const char* name, std::int64_t begin_ns, std::int64_t end_ns, std::int64_t faults) {
  const std::size_t i = g_count.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxEvents) g_events[i] = Event{name, thread_number(), begin_ns, end_ns, faults};
}

void write() {
  const char* path = trace_path();
  if (path == nullptr) return;
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return;
  const std::size_t count = g_count.load();
  const std::size_t kept = count < kMaxEvents ? count : kMaxEvents;
  std::fprintf(f, "{\"clock\":\"CLOCK_MONOTONIC\",\"dropped\":%zu,\"traceEvents\":[", count - kept);
  for (std::size_t i = 0; i < kept; ++i) {
    const Event& e = g_events[i];
    std::fprintf(f, "%s\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f",
                 i == 0 ? "" : ",", e.name, e.thread, static_cast<double>(e.begin_ns) / 1e3,
                 static_cast<double>(e.end_ns - e.begin_ns) / 1e3);
    if (e.faults >= 0) std::fprintf(f, ",\"args\":{\"faults\":%lld}", static_cast<long long>(e.faults));
    std::fputc('}', f);
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
}

}  // namespace sm120check::trace
