// DirectoryWalk and list_directory_fd (see sm120check/directory_walk.hpp).
#include "sm120check/directory_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "sm120check/error.hpp"

namespace sm120check {

std::vector<Tree::DirEntry> list_directory_fd(int fd, const std::string& shown) {
  // getdents64(2) on the descriptor itself (from its first entry): no DIR stream, which would
  // take a second descriptor (a walk near the descriptor limit lists as far as it can open).
  if (::lseek(fd, 0, SEEK_SET) < 0)
    throw Error(shown, 0, std::string("cannot list: ") + std::strerror(errno));
  std::vector<char> buffer(64 << 10);
  std::vector<Tree::DirEntry> out;
  for (;;) {
    const ssize_t n = ::getdents64(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(shown, 0, std::string("cannot list: ") + std::strerror(errno));
    }
    if (n == 0) break;
    for (ssize_t at = 0; at < n;) {
      dirent64 d;  // copied out: the buffer's records are not aligned for the struct
      const char* record = buffer.data() + at;
      std::memcpy(&d, record, std::min(sizeof d, static_cast<std::size_t>(n - at)));
      if (d.d_reclen == 0) break;
      at += d.d_reclen;
      const char* name_at = record + offsetof(dirent64, d_name);
      const std::string_view name(name_at, ::strnlen(name_at, d.d_reclen - offsetof(dirent64, d_name)));
      if (name == "." || name == "..") continue;
      Tree::DirEntry entry{std::string(name), Entry::Type::kOther};
      unsigned char type = d.d_type;
      if (type == DT_UNKNOWN) {  // some file systems give no type: lstat(2) the name
        struct stat st {};
        if (::fstatat(fd, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
          type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG
                 : S_ISLNK(st.st_mode)                                ? DT_LNK
                                                                      : DT_UNKNOWN;
      }
      entry.type = type == DT_DIR   ? Entry::Type::kDirectory
                   : type == DT_REG ? Entry::Type::kFile
                   : type == DT_LNK ? Entry::Type::kSymlink
                                    : Entry::Type::kOther;
      out.push_back(std::move(entry));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Tree::DirEntry& a, const Tree::DirEntry& b) { return a.name < b.name; });
  return out;
}

DirectoryWalk::DirectoryWalk(const Tree& tree, std::string path, std::size_t depth)
    : tree_(tree), start_(std::move(path)), start_depth_(depth) {}

/// The directory at `path` of the tree, through its DirectorySource. Throws Error.
OpenFile DirectoryWalk::open_by_path(const std::string& path) const {
  const auto* source = dynamic_cast<const DirectorySource*>(&tree_);
  if (source == nullptr)
    throw Error(path, 0, "cannot list: " + tree_.name() + " is not a directory on disk");
  return source->open_directory(path);
}

DirectoryWalk::~DirectoryWalk() {
  for (Frame& f : frames_) close_frame(f);
}

std::string_view DirectoryWalk::name() const {
  return std::string_view(path_).substr(frames_.back().name_at);
}
std::size_t DirectoryWalk::depth() const { return frames_.back().depth; }
const std::vector<Tree::DirEntry>& DirectoryWalk::entries() const { return frames_.back().entries; }
const std::string& DirectoryWalk::error() const { return frames_.back().error; }
int DirectoryWalk::error_number() const { return frames_.back().error_number; }
int DirectoryWalk::fd() const { return frames_.back().dir.fd(); }

void DirectoryWalk::enter(std::size_t index) {
  Child c;
  c.index = index;
  frames_.back().children.push_back(std::move(c));
}

void DirectoryWalk::enter_path(std::string path) {
  Child c;
  c.jump = true;
  c.path = std::move(path);
  frames_.back().children.push_back(std::move(c));
}

void DirectoryWalk::close_frame(Frame& f) {
  if (f.dir.fd() < 0) return;
  f.dir = OpenFile();
  --open_;
}

/// Records `dir` (fd -1: not opened, `err` says why) as the frame's directory and lists it.
void DirectoryWalk::open_frame(Frame& f, OpenFile dir, int err) {
  if (dir.fd() < 0) {
    f.error_number = err;
    f.error = std::string("cannot list: ") + std::strerror(err);
    return;
  }
  f.dir = std::move(dir);
  ++open_;
  struct stat st {};
  if (::fstat(f.dir.fd(), &st) != 0) {
    f.error_number = errno;
    f.error = std::string("cannot list: ") + std::strerror(f.error_number);
    close_frame(f);
    return;
  }
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  try {
    f.entries = list_directory_fd(f.dir.fd(), path_);
  } catch (const Error& e) {
    f.error_number = EIO;
    f.error = e.message();
    f.entries.clear();
    close_frame(f);
  }
}

/// Closes the descriptors of the lowest frames until at most kMaxOpenDirectories are open
/// (the top frame's is always kept).
void DirectoryWalk::keep_to_limit() {
  while (open_ > kMaxOpenDirectories && lowest_ + 1 < frames_.size()) {
    close_frame(frames_[lowest_]);
    ++lowest_;
  }
}

/// Reopens frame `f` (whose descriptor was closed by keep_to_limit()) from the child just left:
/// its ".." through `child_fd`, or by path_ (restored to f's path) when the child was opened
/// by path. False, with lost_ noted, when it is not the directory first opened there.
bool DirectoryWalk::reopen(Frame& f, int child_fd, bool child_jump) {
  OpenFile dir;
  if (!child_jump && child_fd >= 0) {
    // ".." is never a symlink; O_NOFOLLOW keeps the rule of every other open.
    dir = OpenFile(::openat(child_fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  } else {
    try {
      dir = open_by_path(path_);
    } catch (const Error&) {
      dir = OpenFile();
    }
  }
  struct stat st {};
  if (dir.fd() < 0 || ::fstat(dir.fd(), &st) != 0 || st.st_dev != f.dev || st.st_ino != f.ino) {
    if (f.next_child < f.children.size())
      lost_.push_back((path_.empty() ? std::string(".") : path_) +
                      ": changed while it was walked; its remaining folders were not entered");
    f.next_child = f.children.size();
    return false;
  }
  f.dir = std::move(dir);
  ++open_;
  return true;
}

bool DirectoryWalk::next() {
  if (!started_) {
    started_ = true;
    path_ = start_;
    Frame f;
    f.depth = start_depth_;
    f.jump = true;
    const std::size_t slash = path_.rfind('/');
    f.name_at = slash == std::string::npos ? 0 : slash + 1;
    frames_.push_back(std::move(f));
    try {
      open_frame(frames_.back(), open_by_path(path_), 0);
    } catch (const Error& e) {
      frames_.back().error = e.message();
      frames_.back().error_number = ENOENT;
    }
    return true;
  }
  while (!frames_.empty()) {
    Frame& top = frames_.back();
    if (top.next_child < top.children.size() && top.dir.fd() >= 0) {
      Child c = std::move(top.children[top.next_child++]);
      Frame f;
      f.depth = top.depth + 1;
      OpenFile dir;
      int err = 0;
      if (c.jump) {
        f.jump = true;
        f.parent_path = path_;
        path_ = std::move(c.path);
        const std::size_t slash = path_.rfind('/');
        f.name_at = slash == std::string::npos ? 0 : slash + 1;
        try {
          dir = open_by_path(path_);
        } catch (const Error& e) {
          f.error = e.message();
          f.error_number = ENOENT;
        }
      } else {
        const std::string& name = top.entries[c.index].name;
        dir = OpenFile(::openat(top.dir.fd(), name.c_str(),
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        err = errno;
        if (!path_.empty()) path_ += '/';
        f.name_at = path_.size();
        path_ += name;
      }
      frames_.push_back(std::move(f));
      if (frames_.back().error.empty()) open_frame(frames_.back(), std::move(dir), err);
      keep_to_limit();
      return true;
    }
    // Leave the top frame: back to its parent's path and descriptor.
    Frame done = std::move(frames_.back());
    frames_.pop_back();
    if (frames_.empty()) {
      close_frame(done);
      break;
    }
    if (done.jump)
      path_ = std::move(done.parent_path);
    else
      path_.resize(done.name_at == 0 ? 0 : done.name_at - 1);
    Frame& parent = frames_.back();
    // Reopened even with nothing left to enter: its ".." is the way back further down.
    if (parent.dir.fd() < 0 && parent.error.empty() && reopen(parent, done.dir.fd(), done.jump))
      lowest_ = frames_.size() - 1;
    close_frame(done);
    if (lowest_ > frames_.size() - 1) lowest_ = frames_.size() - 1;
  }
  return false;
}

}  // namespace sm120check
