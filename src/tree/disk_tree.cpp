// Read-only access to a directory tree (see tree.hpp). Nothing here writes, and no path is
// allowed to leave the root: every directory component is checked with lstat(2), and a symlinked
// directory is resolved with realpath(3) and must stay inside realpath(root).
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

/// realpath(3) as a std::string; std::nullopt with errno set on failure.
std::optional<std::string> real_path(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  std::string result(resolved);
  std::free(resolved);
  return result;
}

/// True when `path` (absolute, canonical) is `root` or below it.
bool is_within(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  if (path.size() < root.size() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '/';
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

 private:
  int fd_;
};

class DiskTree final : public Tree {
 public:
  DiskTree(std::string root, std::string real_root, std::uint64_t max_file_size)
      : root_(std::move(root)), real_root_(std::move(real_root)), max_file_size_(max_file_size) {}

  std::string name() const override { return root_; }
  std::uint64_t max_file_size() const override { return max_file_size_; }

  Entry stat(const std::string& path) const override {
    Resolved r = resolve(path);
    Entry entry;
    if (r.missing) return entry;
    struct stat st {};
    if (::lstat(r.full.c_str(), &st) != 0) {
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

  std::string read(const std::string& path) const override {
    Resolved r = resolve(path);
    if (r.missing) throw Error(path, 0, "cannot read: " + errno_text(ENOENT));
    struct stat st {};
    if (::lstat(r.full.c_str(), &st) != 0)
      throw Error(path, 0, "cannot read: " + errno_text(errno));
    std::string file = r.full;
    if (S_ISLNK(st.st_mode)) {
      std::optional<std::string> target = real_path(r.full);
      if (!target) throw Error(path, 0, "cannot read through symlink: " + errno_text(errno));
      if (!is_within(*target, real_root_))
        throw Error(path, 0,
                    fmt::format("resolves outside the target through symlink '{}' (to '{}'); "
                                "refusing to read it",
                                path, *target));
      file = *target;
      if (::stat(file.c_str(), &st) != 0) throw Error(path, 0, "cannot read: " + errno_text(errno));
    }
    // Checked before open(2) too: opening a device or fifo can have side effects.
    if (!S_ISREG(st.st_mode)) throw Error(path, 0, "not a regular file; cannot read it");
    int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) throw Error(path, 0, "cannot open: " + errno_text(errno));
    FdGuard guard(fd);
    if (::fstat(fd, &st) != 0) throw Error(path, 0, "cannot examine: " + errno_text(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path, 0, "not a regular file; cannot read it");
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_file_size_) throw too_large(path, size);
    std::string content;
    content.reserve(static_cast<std::size_t>(size));
    char buffer[65536];
    for (;;) {
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error(path, 0, "cannot read: " + errno_text(errno));
      }
      if (n == 0) break;
      content.append(buffer, static_cast<std::size_t>(n));
      if (content.size() > max_file_size_) throw too_large(path, content.size());
    }
    return content;
  }

  std::string read_link(const std::string& path) const override {
    Resolved r = resolve(path);
    if (r.missing) throw Error(path, 0, "cannot read symlink: " + errno_text(ENOENT));
    std::vector<char> buffer(256);
    for (;;) {
      ssize_t n = ::readlink(r.full.c_str(), buffer.data(), buffer.size());
      if (n < 0) {
        int err = errno;
        if (err == EINVAL) throw Error(path, 0, "not a symbolic link");
        throw Error(path, 0, "cannot read symlink: " + errno_text(err));
      }
      if (static_cast<std::size_t>(n) < buffer.size())
        return std::string(buffer.data(), static_cast<std::size_t>(n));
      buffer.resize(buffer.size() * 2);
    }
  }

 private:
  /// A path with its directory components resolved inside the root.
  struct Resolved {
    std::string full;      ///< absolute path whose final component is not yet examined.
    bool missing = false;  ///< a directory component does not exist or is not a directory.
  };

  /// Directory components already checked (relative path -> resolved absolute path): a run
  /// examines many files under the same directories. Not thread-safe, like the tree itself.
  mutable std::unordered_map<std::string, std::string> dir_cache_;
  /// Components found missing or not a directory (relative path): everything below them is
  /// missing. Strip detection tries each patch path at several levels, most of which name
  /// folders the tree does not have.
  mutable std::unordered_set<std::string> not_dirs_;

  Error too_large(const std::string& path, std::uint64_t size) const {
    return Error(
        path, 0,
        fmt::format("file is {} bytes, larger than the limit of {} bytes", size, max_file_size_));
  }

  /// Walks the directory components of `path` from the real root. Throws Error when `path` is
  /// not a valid relative path, a component cannot be examined, or a symlinked directory
  /// resolves outside the root.
  Resolved resolve(const std::string& path) const {
    std::optional<std::string> normal = normalize_relative_path(path);
    if (!normal) throw Error(path, 0, "not a relative path inside the target");
    std::vector<std::string_view> parts;
    std::string_view rest = *normal;
    for (std::size_t slash; (slash = rest.find('/')) != std::string_view::npos;) {
      parts.push_back(rest.substr(0, slash));
      rest.remove_prefix(slash + 1);
    }
    Resolved r;
    std::string current = real_root_;
    std::string relative;
    for (std::string_view part : parts) {
      if (!relative.empty()) relative += '/';
      relative += part;
      if (auto known = dir_cache_.find(relative); known != dir_cache_.end()) {
        current = known->second;  // checked before in this run
        continue;
      }
      if (not_dirs_.count(relative) != 0) {
        r.missing = true;
        return r;
      }
      std::string candidate = (current == "/" ? "" : current) + "/" + std::string(part);
      struct stat st {};
      if (::lstat(candidate.c_str(), &st) != 0) {
        int err = errno;
        if (err == ENOENT || err == ENOTDIR) {
          not_dirs_.insert(relative);
          r.missing = true;
          return r;
        }
        throw Error(path, 0, fmt::format("cannot examine '{}': {}", relative, errno_text(err)));
      }
      if (S_ISLNK(st.st_mode)) {
        std::optional<std::string> target = real_path(candidate);
        if (!target) {
          int err = errno;
          if (err == ENOENT || err == ENOTDIR) {
            not_dirs_.insert(relative);
            r.missing = true;
            return r;
          }
          throw Error(path, 0,
                      fmt::format("cannot resolve symlink '{}': {}", relative, errno_text(err)));
        }
        if (!is_within(*target, real_root_))
          throw Error(path, 0,
                      fmt::format("resolves outside the target through symlink '{}' (to '{}'); "
                                  "refusing to follow it",
                                  relative, *target));
        struct stat target_st {};
        if (::stat(target->c_str(), &target_st) != 0 || !S_ISDIR(target_st.st_mode)) {
          not_dirs_.insert(relative);
          r.missing = true;
          return r;
        }
        current = *target;
        dir_cache_.emplace(relative, current);
      } else if (S_ISDIR(st.st_mode)) {
        current = std::move(candidate);
        dir_cache_.emplace(relative, current);
      } else {
        not_dirs_.insert(relative);
        r.missing = true;
        return r;
      }
    }
    r.full = (current == "/" ? "" : current) + "/" + std::string(rest);
    return r;
  }

  std::string root_;
  std::string real_root_;
  std::uint64_t max_file_size_;
};

}  // namespace

std::optional<std::string> normalize_relative_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos ||
      path.size() > kMaxPathLength)
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

std::unique_ptr<Tree> open_disk_tree(const std::string& root, std::uint64_t max_file_size) {
  if (root.empty()) throw Error("target path is empty");
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) throw Error(root, 0, "target does not exist");
    throw Error(root, 0, "cannot examine target: " + errno_text(err));
  }
  if (!S_ISDIR(st.st_mode)) throw Error(root, 0, "target is not a directory");
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) throw Error(root, 0, "cannot read target: " + errno_text(errno));
  ::closedir(dir);
  std::optional<std::string> real_root = real_path(root);
  if (!real_root) throw Error(root, 0, "cannot resolve target: " + errno_text(errno));
  return std::make_unique<DiskTree>(root, std::move(*real_root), max_file_size);
}

}  // namespace sm120check
