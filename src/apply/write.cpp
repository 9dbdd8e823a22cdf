// Writing `apply`'s results (see write.hpp): check everything, stage temporaries, then rename.
// Every path is walked one component at a time with openat(O_NOFOLLOW) from the root's
// descriptor, so no symlink below the root is ever followed, whatever changes meanwhile.
#include "sm120check/write.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace detail {
namespace {
std::atomic<WriteFaultHook> g_fault_hook{nullptr};
}  // namespace

void set_write_fault_hook(WriteFaultHook hook) { g_fault_hook.store(hook); }

}  // namespace detail

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

namespace {

using Kind = FileChange::Kind;

std::string errno_text(int err) { return std::strerror(err); }

/// Calls the test hook, if any (write.hpp names the steps).
void step(std::string_view name, const std::string& path) {
  if (detail::WriteFaultHook hook = detail::g_fault_hook.load()) hook(name, path);
}

/// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// Opens directory `name` in `dir` without following a symlink; -1 with errno on failure.
int open_dir_at(int dir, const char* name) {
  return ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/// "a/b/c" -> ("a/b", "c"); "c" -> ("", "c").
std::pair<std::string, std::string> split_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {std::string(), path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

/// Longest file name (bytes) kept in a temporary's name: with ".", ".sm120check-" and six
/// characters it stays within NAME_MAX (255).
constexpr std::size_t kTempNameKept = 200;

/// A fresh name `.NAME.sm120check-XXXXXX` (see write.hpp).
std::string temp_name(const std::string& name) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random(std::random_device{}() ^
                                      (static_cast<std::uint64_t>(::getpid()) << 32));
  std::string out(1, '.');  // appended piecewise: GCC 12 warns (-Wrestrict) on "." + string
  out.append(name, 0, kTempNameKept);
  out += ".sm120check-";
  for (int i = 0; i < 6; ++i) out += kChars[random() % (sizeof kChars - 1)];
  return out;
}

/// Folders of the target, opened component by component from the root's descriptor with
/// O_NOFOLLOW. Keeps up to kMaxOpen descriptors; a descriptor returned is valid until the next
/// call of open().
class Folders {
 public:
  explicit Folders(const std::string& root) : root_(root) {
    root_fd_.reset(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root_fd_.get() < 0) {
      const int err = errno;
      throw Error(root, 0,
                  err == ENOTDIR ? "target is not a directory"
                                 : "cannot open the target directory: " + errno_text(err));
    }
  }

  /// Result of walking a folder path.
  struct Walk {
    int fd = -1;           ///< the folder, or (complete false) the deepest existing one
    bool complete = true;  ///< false when a component is missing (only without `create`)
  };

  /// Opens folder `dir` ("" for the root). A missing component ends the walk (complete false)
  /// or, with `create`, is made with mkdir (recorded in created()). Throws Error(path, ...) when a
  /// component is a symlink or not a folder, or cannot be opened or made.
  Walk open(const std::string& dir, const std::string& path, bool create) {
    if (dir.empty()) return {root_fd_.get(), true};
    if (auto it = cache_.find(dir); it != cache_.end()) return {it->second.get(), true};
    if (cache_.size() >= kMaxOpen) cache_.clear();
    Fd current;
    int at = root_fd_.get();
    std::size_t begin = 0;
    for (;;) {
      const std::size_t slash = dir.find('/', begin);
      const std::size_t end = slash == std::string::npos ? dir.size() : slash;
      const std::string part = dir.substr(begin, end - begin);
      const std::string so_far = dir.substr(0, end);
      int fd = open_dir_at(at, part.c_str());
      if (fd < 0 && errno == ENOENT) {
        if (!create) {
          Walk walk{at, false};
          if (current.get() >= 0) {  // keep the deepest existing folder open for the caller
            partial_ = std::move(current);
            walk.fd = partial_.get();
          }
          return walk;
        }
        if (::mkdirat(at, part.c_str(), 0777) == 0) {
          created_.push_back(so_far);
          step("dir-created", so_far);
        } else if (errno != EEXIST) {
          throw Error(path, 0,
                      fmt::format("cannot create folder '{}': {}", so_far, errno_text(errno)));
        }
        fd = open_dir_at(at, part.c_str());
      }
      if (fd < 0) throw refused(path, at, part, so_far, errno);
      current.reset(fd);
      at = fd;
      if (slash == std::string::npos) break;
      begin = slash + 1;
    }
    const int fd = current.get();
    cache_.emplace(dir, std::move(current));
    return {fd, true};
  }

  /// Opens existing folder `dir`; throws Error(path, ...) when it is missing (it was there when
  /// checked: something else removed it).
  int existing(const std::string& dir, const std::string& path) {
    Walk walk = open(dir, path, false);
    if (!walk.complete) throw Error(path, 0, fmt::format("folder '{}' disappeared", dir));
    return walk.fd;
  }

  /// Folders made by open(create), parents first.
  const std::vector<std::string>& created() const { return created_; }

  /// Removes the folders made (deepest first), where empty. Never throws.
  void remove_created() noexcept {
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
      try {
        auto [parent, name] = split_path(*it);
        ::unlinkat(existing(parent, *it), name.c_str(), AT_REMOVEDIR);
      } catch (...) {
      }
    }
    created_.clear();
    cache_.clear();
  }

 private:
  static constexpr std::size_t kMaxOpen = 64;

  /// The Error for an openat() of folder component `part` that failed with `err`.
  static Error refused(const std::string& path, int at, const std::string& part,
                       const std::string& so_far, int err) {
    struct stat st {};
    if ((err == ELOOP || err == ENOTDIR) &&
        ::fstatat(at, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(st.st_mode))
        return Error(path, 0,
                     fmt::format("folder '{}' is a symlink; refusing to write through it", so_far));
      if (!S_ISDIR(st.st_mode)) return Error(path, 0, fmt::format("'{}' is not a folder", so_far));
    }
    return Error(path, 0, fmt::format("cannot open folder '{}': {}", so_far, errno_text(err)));
  }

  std::string root_;
  Fd root_fd_;
  Fd partial_;
  std::unordered_map<std::string, Fd> cache_;
  std::vector<std::string> created_;
};

/// One change as the phases see it.
struct Item {
  const FileChange* change = nullptr;
  std::string path;  ///< normalised
  std::string dir;   ///< folder part of `path`, "" for the root
  std::string name;  ///< last component of `path`
  bool exists = false;
  bool skip = false;     ///< already done (write.hpp)
  bool symlink = false;  ///< kWrite: writes a symlink
  mode_t perms = 0644;   ///< kWrite of a regular file: permission bits of the result
  bool new_file = true;  ///< kWrite: no existing file whose bits `perms` copies (umask applies)
  bool backup = false;   ///< make NAME.orig
  std::string temp;      ///< staged temporary (phase 2), "" until made
  std::string backup_temp;
  /// With FileChange::before: the path's stat when phase 1 found it as planned.
  std::optional<struct stat> seen;
  bool seen_missing = false;  ///< with `seen` unset: phase 1 found the path missing, as planned
};

/// Whether two stats are of the same, unchanged file: device, inode, type and bits, size,
/// modification and change times (nanoseconds).
bool same_stat(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_mode == b.st_mode &&
         a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
         a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

/// Whether regular file `name` in `dir` (of size `size`) holds exactly `content`. False when it
/// cannot be read: the change is then written, not skipped.
bool holds(int dir, const std::string& name, std::uint64_t size, std::string_view content) {
  if (size != content.size()) return false;
  Fd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return false;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  char buffer[65536];
  std::size_t at = 0;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return at == content.size();
    const auto got = static_cast<std::size_t>(n);
    if (at + got > content.size() || std::memcmp(buffer, content.data() + at, got) != 0)
      return false;
    at += got;
  }
}

/// Target of symlink `name` in `dir`, or std::nullopt.
std::optional<std::string> read_link_at(int dir, const std::string& name) {
  std::string buffer(256, '\0');
  for (;;) {
    const ssize_t n = ::readlinkat(dir, name.c_str(), buffer.data(), buffer.size());
    if (n < 0) return std::nullopt;
    if (static_cast<std::size_t>(n) < buffer.size()) {
      buffer.resize(static_cast<std::size_t>(n));
      return buffer;
    }
    buffer.resize(buffer.size() * 2);
  }
}

/// Reads open file `fd` to its end. Throws Error(path, 0, "cannot read it" + `why` + ": ...").
std::string read_all(int fd, const std::string& path, std::string_view why) {
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path, 0, "cannot read it" + std::string(why) + ": " + errno_text(errno));
    }
    if (n == 0) return content;
    content.append(buffer, static_cast<std::size_t>(n));
  }
}

/// Reads regular file `name` in `dir` whole. Throws Error(path, ...).
std::string read_at(int dir, const std::string& name, const std::string& path) {
  Fd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) throw Error(path, 0, "cannot read it for the backup: " + errno_text(errno));
  return read_all(fd.get(), path, " for the backup");
}

/// Makes a fresh temporary for `name` in `dir` holding `content`: a regular file with bits
/// `perms` (`exact`: set with fchmod; else given to open(2), umask applying), written and
/// fsynced, or (`symlink`) a symlink to `content`. Returns its name. Throws Error(path, ...); no
/// temporary is left behind then.
std::string make_temp(int dir, const std::string& name, std::string_view content, bool symlink,
                      mode_t perms, bool exact, const std::string& path) {
  const std::string target(content);
  for (int attempt = 0;; ++attempt) {
    std::string temp = temp_name(name);
    if (symlink) {
      if (::symlinkat(target.c_str(), dir, temp.c_str()) == 0) return temp;
    } else {
      Fd fd(::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     exact ? 0600 : perms));
      if (fd.get() >= 0) {
        int err = 0;
        if (!write_all(fd.get(), content) || (exact && ::fchmod(fd.get(), perms) != 0) ||
            ::fsync(fd.get()) != 0 || ::close(fd.release()) != 0)
          err = errno;
        if (err == 0) return temp;
        ::unlinkat(dir, temp.c_str(), 0);
        throw Error(path, 0,
                    fmt::format("cannot write the temporary file '{}': {}", temp, errno_text(err)));
      }
    }
    if (errno != EEXIST || attempt >= 100)
      throw Error(
          path, 0,
          fmt::format("cannot create a temporary file in its folder: {}", errno_text(errno)));
  }
}

/// Stages the backup of existing `name` in `dir`: a hard link (flags 0: a symlink is linked
/// itself), else a copy. Returns the temporary's name.
std::string stage_backup(int dir, const std::string& name, const std::string& path) {
  const std::string orig = name + ".orig";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = temp_name(orig);
    if (::linkat(dir, name.c_str(), dir, temp.c_str(), 0) == 0) return temp;
    if (errno != EEXIST) break;  // links not allowed here: copy
  }
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    throw Error(path, 0, "cannot examine it for the backup: " + errno_text(errno));
  if (S_ISLNK(st.st_mode)) {
    std::optional<std::string> target = read_link_at(dir, name);
    if (!target)
      throw Error(path, 0, "cannot read the symlink for the backup: " + errno_text(errno));
    return make_temp(dir, orig, *target, true, 0, false, path);
  }
  return make_temp(dir, orig, read_at(dir, name, path), false, st.st_mode & 0777, true, path);
}

/// Phase 1 for one change (see write.hpp). Fills `item` or throws Error.
void check(Folders& folders, Item& item, bool backup) {
  const FileChange& change = *item.change;
  const std::string& path = change.path;
  const bool write = change.kind == Kind::kWrite;
  if (write && change.mode && *change.mode != kModeRegular && *change.mode != kModeExecutable &&
      *change.mode != kModeSymlink)
    throw Error(path, 0, fmt::format("cannot write a file of mode {:o}", *change.mode));
  item.symlink = write && change.mode == kModeSymlink;
  if (item.symlink && (change.content.empty() || change.content.find('\0') != std::string::npos))
    throw Error(path, 0, "a symlink's target must be non-empty and hold no NUL byte");
  if (item.name.size() > NAME_MAX || (backup && item.name.size() + 5 > NAME_MAX))
    throw Error(path, 0, "file name too long");

  Folders::Walk walk = folders.open(item.dir, path, false);
  if (::faccessat(walk.fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
    throw Error(path, 0,
                fmt::format("cannot write in folder '{}': {}", item.dir.empty() ? "." : item.dir,
                            errno_text(errno)));
  if (!walk.complete) {  // a new file in new folders
    if (!write) item.skip = true;
    item.perms = change.mode == kModeExecutable ? 0755 : 0644;
    return;
  }
  struct stat st {};
  if (::fstatat(walk.fd, item.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) throw Error(path, 0, "cannot examine: " + errno_text(errno));
    if (!write) item.skip = true;
    item.perms = change.mode == kModeExecutable ? 0755 : 0644;
    return;
  }
  item.exists = true;
  const bool link = S_ISLNK(st.st_mode);
  const char* refusing = write ? "refusing to replace it" : "refusing to delete it";
  if (S_ISDIR(st.st_mode)) throw Error(path, 0, fmt::format("is a folder; {}", refusing));
  if (!link && !S_ISREG(st.st_mode))
    throw Error(path, 0, fmt::format("not a regular file; {}", refusing));
  if (link && write && !item.symlink)
    throw Error(path, 0, "is a symlink; refusing to write through it");
  if (write) {
    if (item.symlink) {
      item.skip = link && read_link_at(walk.fd, item.name) == change.content;
    } else {
      mode_t bits = st.st_mode & 0777;
      if (change.mode == kModeExecutable && (bits & S_IXUSR) == 0) bits |= (bits & 0444) >> 2;
      if (change.mode == kModeRegular) bits &= ~mode_t{0111};
      item.perms = bits;
      item.new_file = false;
      item.skip = bits == (st.st_mode & 07777) &&
                  holds(walk.fd, item.name, static_cast<std::uint64_t>(st.st_size), change.content);
    }
  }
  item.backup = backup && !item.skip;
  if (item.backup &&
      ::fstatat(walk.fd, (item.name + ".orig").c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(st.st_mode))
    throw Error(path, 0, fmt::format("cannot back it up: '{}.orig' is a folder", item.path));
}

/// Refuses two changes of the same path, a path below another's (a file where a folder must
/// be), and a change of another's NAME.orig. Linear in the paths' total length.
void check_distinct(const std::vector<Item>& items, bool backup) {
  std::unordered_map<std::string_view, const Item*> named;
  for (const Item& item : items) {
    auto [it, fresh] = named.emplace(item.path, &item);
    if (!fresh) throw Error(item.change->path, 0, "named by two changes");
  }
  for (const Item& item : items) {
    for (std::size_t slash = item.path.find('/'); slash != std::string::npos;
         slash = item.path.find('/', slash + 1))
      if (named.count(std::string_view(item.path).substr(0, slash)) != 0)
        throw Error(item.change->path, 0,
                    fmt::format("lies below '{}', which another change names as a file",
                                item.path.substr(0, slash)));
    if (backup && named.count(item.path + ".orig") != 0)
      throw Error(item.change->path, 0,
                  fmt::format("its backup '{}.orig' is named by another change", item.path));
  }
}

/// The paths of `result` for a message: "written before this: a, b; deleted: c".
std::string so_far(const WriteResult* result);

/// Error for a change whose path no longer holds what the plan read (write.hpp): `why` says
/// how; `result` (phase 3) what was already written.
Error changed(const Item& item, std::string_view why, const WriteResult* result) {
  const bool none = result == nullptr || (result->written.empty() && result->deleted.empty());
  return Error(item.change->path, 0,
               fmt::format("changed while apply ran: {}; {}", why,
                           none ? std::string("nothing was written (run apply again to plan "
                                              "from the file as it is now)")
                                : so_far(result)));
}

/// Checks that the item's path holds what FileChange::before says and records its stat in
/// item.seen (or item.seen_missing). Throws changed() when it does not, Error when it cannot
/// be examined.
void check_before(Folders& folders, Item& item, const WriteResult* result) {
  using Type = FileChange::Before::Type;
  const FileChange::Before& before = *item.change->before;
  const std::string& path = item.change->path;
  item.seen.reset();
  item.seen_missing = false;
  const Folders::Walk walk = folders.open(item.dir, path, false);
  struct stat st {};
  const bool present = walk.complete &&
                       ::fstatat(walk.fd, item.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (!present && walk.complete && errno != ENOENT)
    throw Error(path, 0, "cannot examine: " + errno_text(errno));
  if (before.type == Type::kMissing) {
    if (present) throw changed(item, "it was created after apply read the tree", result);
    item.seen_missing = true;
    return;
  }
  if (!present) throw changed(item, "it was removed after apply read it", result);
  if (before.type == Type::kSymlink) {
    if (!S_ISLNK(st.st_mode)) throw changed(item, "it is no longer the symlink apply read", result);
    const std::optional<std::string> target = read_link_at(walk.fd, item.name);
    struct stat again {};
    if (!target || ::fstatat(walk.fd, item.name.c_str(), &again, AT_SYMLINK_NOFOLLOW) != 0 ||
        !same_stat(st, again) || git_blob_id(*target) != before.blob_id)
      throw changed(item, "the symlink no longer points where apply read it", result);
    item.seen = st;
    return;
  }
  if (!S_ISREG(st.st_mode)) throw changed(item, "it is no longer the file apply read", result);
  Fd fd(::openat(walk.fd, item.name.c_str(),
                 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ELOOP)
      throw changed(item, "it is no longer the file apply read", result);
    throw Error(path, 0, "cannot read it: " + errno_text(errno));
  }
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0 || !same_stat(st, opened))
    throw changed(item, "it was replaced after apply read it", result);
  const std::string content = read_all(fd.get(), path, "");
  struct stat after {};
  if (::fstat(fd.get(), &after) != 0 || !same_stat(opened, after))
    throw changed(item, "it was being written while apply read it", result);
  if (git_blob_id(content) != before.blob_id)
    throw changed(item, "its bytes are no longer those apply read", result);
  item.seen = after;
}

/// Phase 3's check (write.hpp): the item's path is as check_before() found it, by its stat; a
/// changed stat is accepted when the path still holds the planned bytes. Throws as
/// check_before().
void recheck(Folders& folders, Item& item, const WriteResult* result) {
  if (!item.change->before) return;
  const Folders::Walk walk = folders.open(item.dir, item.change->path, false);
  struct stat st {};
  const bool present = walk.complete &&
                       ::fstatat(walk.fd, item.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (present ? (item.seen && same_stat(*item.seen, st)) : item.seen_missing) return;
  check_before(folders, item, result);  // changed stat: same bytes (a touch) still pass
}

/// Removes the item's staged temporaries (content and backup), if any. Never throws.
void remove_temporaries(Folders& folders, Item& item) noexcept {
  if (item.temp.empty() && item.backup_temp.empty()) return;
  try {
    const int dir = folders.existing(item.dir, item.path);
    if (!item.temp.empty()) ::unlinkat(dir, item.temp.c_str(), 0);
    if (!item.backup_temp.empty()) ::unlinkat(dir, item.backup_temp.c_str(), 0);
  } catch (...) {
  }
  item.temp.clear();
  item.backup_temp.clear();
}

/// Removes every staged temporary, and the folders made. Never throws.
void roll_back(Folders& folders, std::vector<Item>& items) noexcept {
  for (Item& item : items) remove_temporaries(folders, item);
  folders.remove_created();
}

std::string join(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "none" : out;
}

std::string so_far(const WriteResult* result) {
  return fmt::format("written before this: {}; deleted: {}", join(result->written),
                     join(result->deleted));
}

}  // namespace

WriteResult write_changes(const std::string& root, const std::vector<FileChange>& changes,
                          const WriteOptions& options) {
  if (root.empty()) throw Error("target path is empty");
  Folders folders(root);

  // Phase 1: check, touching nothing.
  std::vector<Item> items(changes.size());
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::string& path = changes[i].path;
    bool climbs = false;
    for (std::size_t begin = 0; begin <= path.size();) {
      std::size_t end = path.find('/', begin);
      if (end == std::string::npos) end = path.size();
      if (path.compare(begin, end - begin, "..") == 0) climbs = true;
      begin = end + 1;
    }
    std::optional<std::string> normal = normalize_relative_path(path);
    if (climbs || !normal)
      throw Error(path, 0, "not a relative path inside the target; refusing to write it");
    items[i].change = &changes[i];
    items[i].path = std::move(*normal);
    std::tie(items[i].dir, items[i].name) = split_path(items[i].path);
  }
  check_distinct(items, options.backup);
  for (Item& item : items) {
    check(folders, item, options.backup);
    if (item.change->before && !item.skip) check_before(folders, item, nullptr);
  }

  // Phase 2: stage every temporary; any failure undoes them all.
  try {
    for (Item& item : items) {
      if (item.skip) continue;
      const FileChange& change = *item.change;
      const bool write = change.kind == Kind::kWrite;
      if (item.backup && write) {
        const int dir = folders.open(item.dir, item.path, true).fd;
        item.backup_temp = stage_backup(dir, item.name, item.path);
        step("backup-staged", item.path);
      }
      if (write) {
        const int dir = folders.open(item.dir, item.path, true).fd;
        item.temp = make_temp(dir, item.name, change.content, item.symlink, item.perms,
                              !item.new_file, change.path);
        step("temp-written", item.path);
      }
    }
    // Staging took time: every path must still be as phase 1 found it before the first rename.
    for (Item& item : items)
      if (!item.skip) recheck(folders, item, nullptr);
  } catch (...) {
    roll_back(folders, items);
    throw;
  }

  // Phase 3: rename in order.
  WriteResult result;
  std::vector<std::string> synced_dirs;
  std::unordered_set<std::string> seen_dirs;
  auto touch = [&](const std::string& dir) {
    if (seen_dirs.insert(dir).second) synced_dirs.push_back(dir);
  };
  for (const std::string& made : folders.created()) touch(split_path(made).first);
  std::size_t next = 0;
  try {
    for (; next < items.size(); ++next) {
      Item& item = items[next];
      if (item.skip) continue;
      const FileChange& change = *item.change;
      const int dir = folders.existing(item.dir, item.path);
      const std::string orig = item.name + ".orig";
      step("before-rename", item.path);
      recheck(folders, item, &result);
      auto fail = [&](const char* what) {
        const int err = errno;
        return Error(
            change.path, 0,
            fmt::format("cannot {}: {} (written before this failure: {}; deleted: {})", what,
                        errno_text(err), join(result.written), join(result.deleted)));
      };
      if (change.kind == Kind::kDelete) {
        if (item.backup) {
          if (::renameat(dir, item.name.c_str(), dir, orig.c_str()) != 0)
            throw fail("rename it to its backup");
          result.backups.push_back(item.path + ".orig");
        } else if (::unlinkat(dir, item.name.c_str(), 0) != 0) {
          throw fail("delete it");
        }
        result.deleted.push_back(item.path);
        step("deleted", item.path);
      } else {
        if (!item.backup_temp.empty()) {
          if (::renameat(dir, item.backup_temp.c_str(), dir, orig.c_str()) != 0)
            throw fail("rename its backup in place");
          item.backup_temp.clear();
          result.backups.push_back(item.path + ".orig");
          step("backup-renamed", item.path);
        }
        if (::renameat(dir, item.temp.c_str(), dir, item.name.c_str()) != 0)
          throw fail("rename the new content in place");
        item.temp.clear();
        result.written.push_back(item.path);
        step("renamed", item.path);
      }
      touch(item.dir);
    }
    for (const std::string& dir : synced_dirs) {
      const int fd = folders.existing(dir, dir.empty() ? root : dir);
      if (::fsync(fd) != 0 && errno != EINVAL)
        throw Error(dir.empty() ? root : dir, 0, "cannot sync folder: " + errno_text(errno));
      step("dir-synced", dir);
    }
  } catch (...) {
    // What was renamed stays; the temporaries not yet used go.
    for (std::size_t i = next; i < items.size(); ++i) remove_temporaries(folders, items[i]);
    throw;
  }
  return result;
}

}  // namespace sm120check
