// Read-only access to a directory tree (see tree.hpp). Nothing here writes, and no path can
// leave the root, even while the tree changes during a run: every path component is opened with
// openat(2) and O_NOFOLLOW from the descriptor of the directory above it, starting at the root's
// descriptor, so a directory swapped for a symlink between two calls is never followed by the
// kernel. A symlink met on the way (a symlinked directory, or a final symlink that read()
// follows) is read with readlinkat(2) and its target resolved the same way from the root: a
// relative target against the physical directory holding the link, an absolute one only when it
// lies under the root's real path; a target climbing above the root is refused.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sm120check/directory_walk.hpp"
#include "sm120check/error.hpp"
#include "read_filter.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

/// Longest path a DiskTree resolves, in bytes (4096 levels of 255-byte names, `scan
/// --max-depth`'s limit): its paths are opened one component at a time from a descriptor,
/// never handed whole to the kernel, so PATH_MAX does not bound them.
constexpr std::size_t kMaxTreePathLength = 4096 * 256;

/// normalize_relative_path() with `max_length` (bytes) instead of kMaxPathLength.
std::optional<std::string> normalize_with_limit(std::string_view path, std::size_t max_length);

/// realpath(3) as a std::string; std::nullopt with errno set on failure.
std::optional<std::string> real_path(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  std::string result(resolved);
  std::free(resolved);
  return result;
}

/// Closes a file descriptor when it goes out of scope.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

/// Symlinks followed while resolving one path at most (Linux's own limit is 40).
constexpr int kMaxSymlinkHops = 40;
/// Directory descriptors kept open between calls at most (all are closed when it is reached).
constexpr std::size_t kMaxCachedDirectories = 256;
/// Cached folders (and known non-folders) of a path looked up from its end, at most.
constexpr int kProbes = 16;
/// Components of a path whose every prefix folder is cached; below, only the final folder.
constexpr std::size_t kShallowComponents = 32;

/// `target` read from directory `base` (both relative to the root, "" = the root), with "." and
/// ".." applied and empty components dropped: "" for the root itself, std::nullopt when it climbs
/// above the root.
std::optional<std::string> lexically_inside(std::string_view base, std::string_view target) {
  std::vector<std::string_view> parts;
  for (std::string_view text : {base, target}) {
    while (!text.empty()) {
      const std::size_t slash = std::min(text.find('/'), text.size());
      const std::string_view part = text.substr(0, slash);
      text.remove_prefix(std::min(slash + 1, text.size()));
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (parts.empty()) return std::nullopt;
        parts.pop_back();
      } else {
        parts.push_back(part);
      }
    }
  }
  std::string joined;
  for (std::string_view part : parts) {
    if (!joined.empty()) joined += '/';
    joined += part;
  }
  return joined;
}

/// readlinkat(2) as a std::string; std::nullopt with errno set on failure.
std::optional<std::string> read_link_at(int dir, const char* name) {
  std::vector<char> buffer(256);
  for (;;) {
    ssize_t n = ::readlinkat(dir, name, buffer.data(), buffer.size());
    if (n < 0) return std::nullopt;
    if (static_cast<std::size_t>(n) < buffer.size())
      return std::string(buffer.data(), static_cast<std::size_t>(n));
    buffer.resize(buffer.size() * 2);
  }
}

class DiskTree final : public Tree, public DirectorySource {
 public:
  DiskTree(std::string root, std::string real_root, int root_fd, std::uint64_t max_file_size)
      : root_(std::move(root)),
        real_root_(std::move(real_root)),
        root_fd_(root_fd),
        max_file_size_(max_file_size) {}
  ~DiskTree() override {
    close_cached();
    ::close(root_fd_);
  }
  DiskTree(const DiskTree&) = delete;
  DiskTree& operator=(const DiskTree&) = delete;

  std::string name() const override { return root_; }
  std::uint64_t max_file_size() const override { return max_file_size_; }

  /// The same directory through a duplicate of the root descriptor, not reopened by name: the
  /// new handle sees the directory this one opened even if TARGET was replaced since.
  std::unique_ptr<Tree> open_again() const override {
    const int fd = ::fcntl(root_fd_, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return nullptr;
    auto handle = std::make_unique<DiskTree>(root_, real_root_, fd, max_file_size_);
    handle->known_ids_ = known_ids_;
    handle->filter_ = filter_;
    return handle;
  }

  void set_known_blob_ids(std::shared_ptr<const KnownBlobIds> ids) override {
    known_ids_ = std::move(ids);
  }

  void set_filter(std::shared_ptr<const ReadFilter> filter) { filter_ = std::move(filter); }

  std::string read(const std::string& path) const override { return read_file(path, nullptr); }

  std::string read_with_blob_id(const std::string& path, std::string& blob_id) const override {
    blob_id.clear();
    return read_file(path, known_ids_ ? &blob_id : nullptr);
  }

  Entry stat(const std::string& path) const override {
    Resolved r = resolve(path, 0);
    Entry entry;
    if (r.missing) return entry;
    struct stat st {};
    if (::fstatat(r.dir, r.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      int err = errno;
      if (err == ENOENT || err == ENOTDIR) return entry;
      throw Error(path, 0, "cannot examine: " + errno_text(err));
    }
    if (S_ISLNK(st.st_mode)) {
      entry.type = Entry::Type::kSymlink;
    } else if (S_ISREG(st.st_mode)) {
      entry.type = Entry::Type::kFile;
      entry.executable = (st.st_mode & S_IXUSR) != 0;
      entry.size = static_cast<std::uint64_t>(st.st_size);
    } else if (S_ISDIR(st.st_mode)) {
      entry.type = Entry::Type::kDirectory;
    } else {
      entry.type = Entry::Type::kOther;
    }
    return entry;
  }

  /// read(); with `blob_id`, also the id known_ids_ vouches for, for a regular file at `path`
  /// itself, by its stat data once read.
  std::string read_file(const std::string& path, std::string* blob_id) const {
    std::string current = path;
    for (int hops = 0;; ++hops) {
      Resolved r = resolve(current, hops);
      hops = r.hops;
      if (r.missing) {
        if (current == path) throw Error(path, 0, "cannot read: " + errno_text(ENOENT));
        throw Error(path, 0, "cannot read through symlink: " + errno_text(ENOENT));
      }
      struct stat st {};
      if (::fstatat(r.dir, r.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int err = errno;
        if (current == path) throw Error(path, 0, "cannot read: " + errno_text(err));
        throw Error(path, 0, "cannot read through symlink: " + errno_text(err));
      }
      if (S_ISLNK(st.st_mode)) {
        if (hops >= kMaxSymlinkHops)
          throw Error(path, 0, "cannot read through symlink: " + errno_text(ELOOP));
        current = link_destination(path, r, current);
        if (current.empty()) throw Error(path, 0, "not a regular file; cannot read it");
        continue;
      }
      // Checked before open(2) too: opening a device or fifo can have side effects.
      if (!S_ISREG(st.st_mode)) throw Error(path, 0, "not a regular file; cannot read it");
      int fd = ::openat(r.dir, r.name.c_str(),
                        O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
      if (fd < 0) throw Error(path, 0, "cannot open: " + errno_text(errno));
      FdGuard guard(fd);
      std::string content = read_open_file(path, fd);
      // The stat data after the read: a write during or since it shows in them (ctime at least).
      if (blob_id != nullptr && current == path && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        *blob_id = known_ids_->id(path, st);
      // Converted after the id was taken: KnownBlobIds vouch only for files no conversion
      // applies to (index_blob_ids()), so a converted file has no id.
      if (filter_ && filter_->convert(path, content) && blob_id != nullptr) blob_id->clear();
      return content;
    }
  }

  std::vector<DirEntry> list(const std::string& path) const override {
    const OpenFile dir = open_directory(path);
    return list_directory_fd(dir.fd(), path);
  }

  OpenFile open_directory(const std::string& path) const override {
    int fd = -1;
    if (path.empty()) {
      fd = ::fcntl(root_fd_, F_DUPFD_CLOEXEC, 0);
    } else {
      Resolved r = resolve(path, 0);
      if (r.missing) throw Error(path, 0, "cannot list: " + errno_text(ENOENT));
      fd = open_subdirectory(r.dir, r.name.c_str());  // O_NOFOLLOW: a symlink is refused
    }
    if (fd < 0) throw Error(path, 0, "cannot list: " + errno_text(errno));
    return OpenFile(fd);
  }

  OpenFile open_file(const std::string& path) const override {
    Resolved r = resolve(path, 0);
    if (r.missing) throw Error(path, 0, "cannot open: " + errno_text(ENOENT));
    struct stat st {};
    if (::fstatat(r.dir, r.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      throw Error(path, 0, "cannot open: " + errno_text(errno));
    // Checked before open(2) too: opening a device or fifo can have side effects.
    if (!S_ISREG(st.st_mode)) throw Error(path, 0, "not a regular file; cannot open it");
    OpenFile file(::openat(r.dir, r.name.c_str(),
                           O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW));
    if (file.fd() < 0) throw Error(path, 0, "cannot open: " + errno_text(errno));
    if (::fstat(file.fd(), &st) != 0 || !S_ISREG(st.st_mode))
      throw Error(path, 0, "not a regular file; cannot open it");
    return file;
  }

  std::string read_link(const std::string& path) const override {
    Resolved r = resolve(path, 0);
    if (r.missing) throw Error(path, 0, "cannot read symlink: " + errno_text(ENOENT));
    std::optional<std::string> target = read_link_at(r.dir, r.name.c_str());
    if (!target) {
      int err = errno;
      if (err == EINVAL) throw Error(path, 0, "not a symbolic link");
      throw Error(path, 0, "cannot read symlink: " + errno_text(err));
    }
    return *target;
  }

 private:
  /// A path whose directory components are open: `name` in the directory `dir`.
  struct Resolved {
    int dir = -1;          ///< descriptor of the directory holding the final component.
    std::string dir_path;  ///< that directory's physical path relative to the root ("" = root).
    std::string name;      ///< the final component.
    bool missing = false;  ///< a directory component does not exist or is not a directory.
    int hops = 0;          ///< symlinks followed so far.
  };

  /// An open directory of the tree and its physical path relative to the root.
  struct Directory {
    int fd = -1;
    std::string physical;
  };

  /// Directories opened before in this run (relative path as asked -> descriptor and physical
  /// path): a run examines many files under the same directories. Not thread-safe, like the
  /// tree itself. A cached descriptor keeps naming the directory it was opened on, so a later
  /// swap of that directory for a symlink is never followed.
  mutable std::unordered_map<std::string, Directory> dir_cache_;
  /// Blob ids read_with_blob_id() may report (set_known_blob_ids()); shared by the handles.
  std::shared_ptr<const KnownBlobIds> known_ids_;
  /// The conversion read_file() applies (set_read_filter()); shared by the handles.
  std::shared_ptr<const ReadFilter> filter_;
  /// Components found missing, or not a directory (relative path as asked): everything below
  /// them is missing. Strip detection tries each patch path at several levels, most of which
  /// name folders the tree does not have.
  mutable std::unordered_set<std::string> not_dirs_;

  void close_cached() const {
    for (auto& [path, d] : dir_cache_) ::close(d.fd);
    dir_cache_.clear();
  }

  Error too_large(const std::string& path, std::uint64_t size) const {
    return Error(
        path, 0,
        fmt::format("file is {} bytes, larger than the limit of {} bytes", size, max_file_size_));
  }

  std::string read_open_file(const std::string& path, int fd) const {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error(path, 0, "cannot examine: " + errno_text(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path, 0, "not a regular file; cannot read it");
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_file_size_) throw too_large(path, size);
    // Read straight into the string, sized one byte past what fstat(2) says so that a file
    // grown since shows without a second call (a 64 KiB buffer on the stack, copied from, cost
    // a copy of every file and 16 page faults on each thread's fresh stack).
    std::string content(static_cast<std::size_t>(size) + 1, '\0');
    std::size_t got = 0;
    for (;;) {
      if (got == content.size()) content.resize(got + std::max<std::size_t>(got / 2, 65536));
      const ssize_t n = ::read(fd, content.data() + got, content.size() - got);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error(path, 0, "cannot read: " + errno_text(errno));
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
      if (got > max_file_size_) throw too_large(path, got);
    }
    content.resize(got);
    return content;
  }

  /// The path, relative to the root, that the symlink `r` points to; `shown` names the link in
  /// errors (the path as the caller asked it), `path` is the caller's path. Throws Error when the
  /// link leads outside the root.
  std::string link_destination(const std::string& path, const Resolved& r,
                               const std::string& shown) const {
    std::optional<std::string> target = read_link_at(r.dir, r.name.c_str());
    if (!target)
      throw Error(path, 0,
                  fmt::format("cannot resolve symlink '{}': {}", shown, errno_text(errno)));
    std::optional<std::string> normal;
    if (!target->empty() && target->front() == '/') {
      const std::string prefix = real_root_ == "/" ? "" : real_root_;
      if (target->compare(0, prefix.size(), prefix) == 0 &&
          (target->size() == prefix.size() || (*target)[prefix.size()] == '/'))
        normal = lexically_inside("", target->substr(prefix.size()));
    } else if (!target->empty()) {
      normal = lexically_inside(r.dir_path, *target);
    }
    if (!normal)
      throw Error(path, 0,
                  fmt::format("resolves outside the target through symlink '{}' (to '{}'); "
                              "refusing to follow it",
                              shown, *target));
    return *normal;
  }

  /// Opens directory `name` in `dir` without following a symlink. Returns -1 with errno.
  static int open_subdirectory(int dir, const char* name) {
    return ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }

  /// Opens the directory components of `path` from the root's descriptor, following symlinked
  /// directories inside the root (at most kMaxSymlinkHops in all, counting `hops` already
  /// followed). Throws Error when `path` is not a valid relative path, a component cannot be
  /// examined, or a symlinked directory resolves outside the root.
  Resolved resolve(const std::string& path, int hops) const {
    std::optional<std::string> normal = normalize_with_limit(path, kMaxTreePathLength);
    if (!normal) throw Error(path, 0, "not a relative path inside the target");
    Resolved r;
    r.hops = hops;
    std::string_view rest = *normal;
    int dir = root_fd_;
    std::string physical;  // of `dir`, relative to the root
    std::string relative;  // the components walked so far, as asked
    // Start at the deepest of the path's last directories already open (or known missing): a
    // run reads many files of one folder. Looking up every prefix from the root would cost the
    // path's depth times its length per call (a folder 2000 levels deep with a .git at each
    // level took minutes); so below kShallowComponents only the final folder is cached and
    // looked up.
    std::size_t end = normal->rfind('/');
    for (int probes = 0; probes < kProbes && end != std::string::npos && end > 0; ++probes) {
      const std::string prefix = normal->substr(0, end);
      if (not_dirs_.count(prefix) != 0) {
        r.missing = true;
        return r;
      }
      if (auto known = dir_cache_.find(prefix); known != dir_cache_.end()) {
        dir = known->second.fd;
        physical = known->second.physical;
        relative = prefix;
        rest.remove_prefix(end + 1);
        break;
      }
      end = normal->rfind('/', end - 1);
    }
    std::size_t level = static_cast<std::size_t>(std::count(relative.begin(), relative.end(), '/')) +
                        (relative.empty() ? 0 : 1);
    // The descriptor of a deep folder passed on the way down, not cached: closed once the next
    // one is open (the final folder's is cached, and so stays open).
    OpenFile held;
    for (std::size_t slash; (slash = rest.find('/')) != std::string_view::npos;) {
      const std::string part(rest.substr(0, slash));
      rest.remove_prefix(slash + 1);
      if (!relative.empty()) relative += '/';
      relative += part;
      ++level;
      const bool last = rest.find('/') == std::string_view::npos;
      const bool shallow = level <= kShallowComponents;
      if (auto known = shallow ? dir_cache_.find(relative) : dir_cache_.end();
          known != dir_cache_.end()) {
        dir = known->second.fd;
        physical = known->second.physical;
        continue;
      }
      // From here on, a component that is no directory is remembered as such.
      const auto not_a_directory = [&] {
        not_dirs_.insert(relative);
        r.missing = true;
        return r;
      };
      if (shallow && not_dirs_.count(relative) != 0) return not_a_directory();
      struct stat st {};
      if (::fstatat(dir, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int err = errno;
        if (err == ENOENT || err == ENOTDIR) return not_a_directory();
        throw Error(path, 0, fmt::format("cannot examine '{}': {}", relative, errno_text(err)));
      }
      Directory opened;
      if (S_ISLNK(st.st_mode)) {
        if (++r.hops > kMaxSymlinkHops)
          throw Error(path, 0,
                      fmt::format("cannot resolve symlink '{}': {}", relative, errno_text(ELOOP)));
        Resolved link;
        link.dir = dir;
        link.dir_path = physical;
        link.name = part;
        const std::string destination = link_destination(path, link, relative);
        // The destination's own components, symlinks included, are resolved the same way (the
        // name after it is only there to make every component of it a directory to open).
        Resolved inner;
        try {
          inner = destination.empty() ? Resolved{root_fd_, "", "-", false, r.hops}
                                      : resolve(destination + "/-", r.hops);
        } catch (const Error& e) {  // named for the path asked, not the placeholder "DEST/-"
          throw Error(path, 0, e.message());
        }
        r.hops = inner.hops;
        if (inner.missing) return not_a_directory();
        opened.fd = ::fcntl(inner.dir, F_DUPFD_CLOEXEC, 0);
        opened.physical = inner.dir_path;
        if (opened.fd < 0)
          throw Error(path, 0, fmt::format("cannot open '{}': {}", relative, errno_text(errno)));
      } else if (S_ISDIR(st.st_mode)) {
        opened.fd = open_subdirectory(dir, part.c_str());
        if (opened.fd < 0) {
          int err = errno;
          if (err == ENOENT) return not_a_directory();
          // ELOOP or ENOTDIR: swapped for a symlink or a file since fstatat(2); not followed.
          throw Error(path, 0, fmt::format("cannot open '{}': {}", relative, errno_text(err)));
        }
        opened.physical = physical.empty() ? part : physical + "/" + part;
      } else {
        return not_a_directory();
      }
      if (!shallow && !last) {  // used on the way down only
        held = OpenFile(opened.fd);
        dir = opened.fd;
        physical = std::move(opened.physical);
        continue;
      }
      if (dir_cache_.size() >= kMaxCachedDirectories) close_cached();
      dir = opened.fd;
      physical = opened.physical;
      dir_cache_.emplace(relative, std::move(opened));
    }
    r.dir = dir;
    r.dir_path = physical;
    r.name = std::string(rest);
    return r;
  }

  std::string root_;
  std::string real_root_;
  int root_fd_;
  std::uint64_t max_file_size_;
};

}  // namespace

std::vector<Tree::DirEntry> Tree::list(const std::string& path) const {
  throw Error(path, 0, "cannot list: " + name() + " is not a directory on disk");
}

OpenFile Tree::open_file(const std::string& path) const {
  throw Error(path, 0, "cannot open: " + name() + " is not a directory on disk");
}

OpenFile& OpenFile::operator=(OpenFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

OpenFile::~OpenFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> normalize_relative_path(std::string_view path) {
  return normalize_with_limit(path, kMaxPathLength);
}

namespace {
std::optional<std::string> normalize_with_limit(std::string_view path, std::size_t max_length) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos ||
      path.size() > max_length)
    return std::nullopt;
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(pos, slash - pos);
    pos = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  if (parts.empty()) return std::nullopt;
  std::string result;
  for (std::string_view part : parts) {
    if (!result.empty()) result += '/';
    result += part;
  }
  return result;
}
}  // namespace

bool set_read_filter(Tree& tree, std::shared_ptr<const ReadFilter> filter) {
  auto* disk = dynamic_cast<DiskTree*>(&tree);
  if (disk == nullptr) return false;
  disk->set_filter(std::move(filter));
  return true;
}

std::unique_ptr<Tree> open_disk_tree(const std::string& root, std::uint64_t max_file_size) {
  if (root.empty()) throw Error("target path is empty");
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) throw Error(root, 0, "target does not exist");
    throw Error(root, 0, "cannot examine target: " + errno_text(err));
  }
  if (!S_ISDIR(st.st_mode)) throw Error(root, 0, "target is not a directory");
  // TARGET itself may be a symlink (the user named it); nothing below it is followed blindly.
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(root, 0, "cannot read target: " + errno_text(errno));
  FdGuard guard(fd);
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) throw Error(root, 0, "cannot read target: " + errno_text(errno));
  ::closedir(dir);
  std::optional<std::string> real_root = real_path(root);
  if (!real_root) throw Error(root, 0, "cannot resolve target: " + errno_text(errno));
  int kept = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (kept < 0) throw Error(root, 0, "cannot open target: " + errno_text(errno));
  return std::make_unique<DiskTree>(root, std::move(*real_root), kept, max_file_size);
}

}  // namespace sm120check
