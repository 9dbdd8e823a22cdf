// Phase timeline for speed work (issue 10): where one run's wall time goes, per thread.
//
// Off unless the environment variable SM120CHECK_TRACE names a file when the process starts;
// then every Span is recorded (name, thread, begin and end on CLOCK_MONOTONIC) and
// trace::write() puts them there in the Chrome trace event format (JSON, "X" events, times in
// microseconds; each span's minor page faults on its thread, getrusage(RUSAGE_THREAD), in its
// "args"), readable in Perfetto or chrome://tracing, and by bench/trace_timeline.py. The
// clock is the one Python's time.monotonic_ns() reads, so a harness can place the run's
// start (exec) and end (exit) on the same axis. Off, a Span costs one load and one branch.
// At most kMaxEvents spans are kept per run (the rest are counted, not stored).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sm120check::trace {

/// Spans one run keeps; later ones are dropped (and counted in the file's "dropped").
inline constexpr std::size_t kMaxEvents = 8192;

/// Whether SM120CHECK_TRACE was set (non-empty) at start-up.
bool enabled();

/// Nanoseconds on CLOCK_MONOTONIC.
std::int64_t now_ns();

/// Minor page faults of the calling thread so far (getrusage(RUSAGE_THREAD)); 0 where unknown.
std::int64_t thread_faults();

/// Records [begin, end) for `name` (a string literal: kept by pointer) on the calling thread,
/// with `faults` minor page faults taken in it (-1: not counted).
void record(const char* name, std::int64_t begin_ns, std::int64_t end_ns,
            std::int64_t faults = -1);

/// A scope recorded from construction to destruction when tracing is on.
class Span {
 public:
  explicit Span(const char* name)
      : name_(name),
        begin_(enabled() ? now_ns() : 0),
        faults_(begin_ != 0 ? thread_faults() : 0) {}
  ~Span() {
    if (begin_ != 0) record(name_, begin_, now_ns(), thread_faults() - faults_);
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

 private:
  const char* name_;
  std::int64_t begin_;
  std::int64_t faults_;
};

/// Writes the recorded spans to SM120CHECK_TRACE's file (replacing it); nothing when tracing
/// is off. Errors are ignored: a trace never changes a run's output or exit code.
void write();

}  // namespace sm120check::trace
