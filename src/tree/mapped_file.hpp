// A private mapping of a whole file whose reads survive the file shrinking meanwhile (a
// library copied over during `kernels`/`scan`, an index truncated under `verify`): Linux
// raises SIGBUS on a read of a page past the new end (mmap(2), "Errors"). While a thread reads
// through MappedFile::guarded(), such a read reads zeros instead and MappedFile::shrank() says
// so; the caller throws its result away. A SIGBUS anywhere else behaves as without this file.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sm120check::detail {

/// The mapping the current thread is reading, if any: [begin, end) and whether a page faulted.
struct ShrinkGuard {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  volatile sig_atomic_t faulted = 0;
};

/// The calling thread's guarded mapping (set by MappedFile::guarded()).
ShrinkGuard*& current_shrink_guard();

/// Makes `guard` the calling thread's guarded mapping for its lifetime, restoring the one before
/// on destruction: MappedFile::guarded() on its own thread, and the threads a guarded read
/// starts to read the same mapping (a file's entries decompressed at once).
class ShrinkGuardScope {
 public:
  explicit ShrinkGuardScope(ShrinkGuard* guard) : saved_(current_shrink_guard()) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    current_shrink_guard() = guard;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~ShrinkGuardScope() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    current_shrink_guard() = saved_;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ShrinkGuardScope(const ShrinkGuardScope&) = delete;
  ShrinkGuardScope& operator=(const ShrinkGuardScope&) = delete;

 private:
  ShrinkGuard* saved_;
};

/// Installs the process's SIGBUS handler once (thread-safe).
void install_sigbus_handler();

/// A private, writable (copy-on-write) mapping of the first `size` bytes of `fd`, unmapped on
/// destruction; the file is never written. Throws Error(path, 0, "cannot map: ...") when mmap
/// fails. `size` must be > 0.
class MappedFile {
 public:
  MappedFile(int fd, std::size_t size, const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }
  /// True when a guarded read found the file shorter than mapped (it read zeros there).
  bool shrank() const { return guard_.faulted != 0; }

  /// Runs `read(data(), size())` with this mapping guarded on the calling thread; returns what
  /// `read` returns. Nesting restores the outer guard.
  template <typename Read>
  auto guarded(Read&& read) {
    const ShrinkGuardScope scope(&guard_);
    return read(data_, size_);
  }

 private:
  unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  ShrinkGuard guard_;
};

}  // namespace sm120check::detail
