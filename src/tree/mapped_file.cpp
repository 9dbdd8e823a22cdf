// See mapped_file.hpp.
#include "mapped_file.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>

#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check::detail {
namespace {

// A read of a MAP_PRIVATE page that lies past the file's end (the file was truncated after mmap)
// raises SIGBUS (mmap(2), "Errors"). The readers (libelf's parsers for `kernels`, the git index
// reader for `verify`) run on the mapping, so a read cannot be checked first. Instead, while a
// thread reads its mapping, a SIGBUS handler replaces the faulting page of *that mapping* with a
// page of zeros (mmap MAP_FIXED over it, which Linux does as one system call; it is not on POSIX's
// async-signal-safe list but raises no signal and takes no user-space lock) and notes the fault;
// the read resumes on zeros, which the parsers treat as any malformed input (the ELF side is
// fuzzed: tests/fuzz, target kernels). The result is then thrown away (a kernel listing: the file
// reported as changed while it was read; the index: the repository section cannot tell). A SIGBUS
// anywhere else goes to the handler that was installed before (or the default action: the process
// dies as before).

thread_local ShrinkGuard* t_guard = nullptr;
struct sigaction g_previous_sigbus;
std::uintptr_t g_page_size = 4096;

// The live FileBytes mappings, for the handler: a slot is free (begin 0), claimed (begin 1,
// matching no address) or holds [begin, end). Lock-free, so the handler may read it whatever
// a thread was doing.
struct MappedRange {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
};
MappedRange g_mapped[FileBytes::kMaxMappings];
std::atomic<std::size_t> g_mapped_live{0};

/// Whether `address` lies in a live FileBytes mapping.
bool in_file_bytes(std::uintptr_t address) {
  if (g_mapped_live.load(std::memory_order_acquire) == 0) return false;
  for (const MappedRange& r : g_mapped) {
    const std::uintptr_t begin = r.begin.load(std::memory_order_acquire);
    if (begin > 1 && address >= begin && address < r.end.load(std::memory_order_acquire))
      return true;
  }
  return false;
}

/// Claims a slot for [begin, end); -1 when every slot is taken.
int register_mapping(std::uintptr_t begin, std::uintptr_t end) {
  if (g_mapped_live.fetch_add(1, std::memory_order_acq_rel) >= FileBytes::kMaxMappings) {
    g_mapped_live.fetch_sub(1, std::memory_order_acq_rel);
    return -1;
  }
  for (std::size_t i = 0; i < FileBytes::kMaxMappings; ++i) {
    std::uintptr_t free_slot = 0;
    if (!g_mapped[i].begin.compare_exchange_strong(free_slot, 1, std::memory_order_acq_rel))
      continue;
    g_mapped[i].end.store(end, std::memory_order_release);
    g_mapped[i].begin.store(begin, std::memory_order_release);
    return static_cast<int>(i);
  }
  g_mapped_live.fetch_sub(1, std::memory_order_acq_rel);  // (not reached: the count said room)
  return -1;
}

void unregister_mapping(int slot) {
  MappedRange& r = g_mapped[static_cast<std::size_t>(slot)];
  r.begin.store(1, std::memory_order_release);
  r.end.store(0, std::memory_order_release);
  r.begin.store(0, std::memory_order_release);
  g_mapped_live.fetch_sub(1, std::memory_order_acq_rel);
}

void on_sigbus(int signo, siginfo_t* info, void* context) {
  ShrinkGuard* guard = t_guard;
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (guard != nullptr && address >= guard->begin && address < guard->end) {
    void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
    if (::mmap(page, g_page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
               -1, 0) != MAP_FAILED) {
      guard->faulted = 1;
      return;  // the read is retried on the page of zeros
    }
  }
  if (in_file_bytes(address)) {  // a FileBytes mapping (read-only): zeros too
    void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
    if (::mmap(page, g_page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
        MAP_FAILED)
      return;
  }
  // Not a read of a guarded mapping: what would have happened without this handler.
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) != 0 && g_previous_sigbus.sa_sigaction != nullptr) {
    g_previous_sigbus.sa_sigaction(signo, info, context);
    return;
  }
  if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN &&
      g_previous_sigbus.sa_handler != nullptr) {
    g_previous_sigbus.sa_handler(signo);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);  // returning re-executes the read, which now kills the process
}

}  // namespace

void install_sigbus_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) g_page_size = static_cast<std::uintptr_t>(page);
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous_sigbus);
  });
}

ShrinkGuard*& current_shrink_guard() { return t_guard; }

MappedFile::MappedFile(int fd, std::size_t size, const std::string& path) : size_(size) {
  install_sigbus_handler();
  // Private and writable: libelf may convert in place; the file is never written.
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) throw Error(path, 0, std::string("cannot map: ") + std::strerror(errno));
  data_ = static_cast<unsigned char*>(map);
  guard_.begin = reinterpret_cast<std::uintptr_t>(data_);
  guard_.end = guard_.begin + size;
}

MappedFile::~MappedFile() { ::munmap(data_, size_); }

}  // namespace sm120check::detail

namespace sm120check {

std::optional<FileBytes> FileBytes::map(int fd, std::size_t size) {
  if (size == 0) return std::nullopt;
  detail::install_sigbus_handler();
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;
  const auto begin = reinterpret_cast<std::uintptr_t>(map);
  const int slot = detail::register_mapping(begin, begin + size);
  if (slot < 0) {
    ::munmap(map, size);
    return std::nullopt;
  }
  FileBytes out;
  out.map_ = static_cast<const char*>(map);
  out.map_size_ = size;
  out.slot_ = slot;
  return out;
}

FileBytes::FileBytes(FileBytes&& other) noexcept { *this = std::move(other); }

FileBytes& FileBytes::operator=(FileBytes&& other) noexcept {
  if (this == &other) return *this;
  release();
  string_ = std::move(other.string_);
  map_ = other.map_;
  map_size_ = other.map_size_;
  slot_ = other.slot_;
  other.string_.clear();
  other.map_ = nullptr;
  other.map_size_ = 0;
  other.slot_ = -1;
  return *this;
}

FileBytes::~FileBytes() { release(); }

void FileBytes::release() noexcept {
  if (map_ == nullptr) return;
  detail::unregister_mapping(slot_);  // first: the handler no longer claims the range
  ::munmap(const_cast<char*>(map_), map_size_);
  map_ = nullptr;
  map_size_ = 0;
  slot_ = -1;
}

std::string FileBytes::take_string() && {
  if (map_ == nullptr) return std::move(string_);
  std::string out(map_, map_size_);
  release();
  return out;
}

}  // namespace sm120check
