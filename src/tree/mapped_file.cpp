// See mapped_file.hpp.
#include "mapped_file.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "sm120check/error.hpp"

namespace sm120check::detail {
namespace {

// A read of a MAP_PRIVATE page that lies past the file's end (the file was truncated after mmap)
// raises SIGBUS (mmap(2), "Errors"). The readers (libelf's parsers for `kernels`, the git index
// reader for `verify`) run on the mapping, so a read cannot be checked first. Instead, while a thread reads its mapping, a SIGBUS handler replaces
// the faulting page of *that mapping* with a page of zeros (mmap MAP_FIXED over it, which Linux
// does as one system call; it is not on POSIX's async-signal-safe list but raises no signal and
// takes no user-space lock) and notes the fault; the read resumes on zeros, which the parsers
// treat as any malformed input (the ELF side is fuzzed: tests/fuzz, target kernels). The result
// is then thrown away (a kernel listing: the file reported as changed while it was read; the
// index: the repository section cannot tell). A SIGBUS anywhere else goes to
// the handler that was installed before (or the default action: the process dies as before).

thread_local ShrinkGuard* t_guard = nullptr;
struct sigaction g_previous_sigbus;
std::uintptr_t g_page_size = 4096;

void on_sigbus(int signo, siginfo_t* info, void* context) {
  ShrinkGuard* guard = t_guard;
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (guard != nullptr && address >= guard->begin && address < guard->end) {
    void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
    if (::mmap(page, g_page_size, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      guard->faulted = 1;
      return;  // the read is retried on the page of zeros
    }
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
