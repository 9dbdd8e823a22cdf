// A tree's file names without opening files (see sm120check/file_names.hpp).
#include "sm120check/file_names.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sm120check/error.hpp"

namespace sm120check {

std::vector<std::string> walk_file_names(const std::string& root) {
  std::vector<std::string> files;
  std::vector<std::string> dirs{""};
  bool first = true;
  while (!dirs.empty()) {
    std::string rel = std::move(dirs.back());
    dirs.pop_back();
    const std::string full = rel.empty() ? root : root + "/" + rel;
    int fd = ::open(full.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (first)
        throw Error(root, 0, fmt::format("cannot read directory: {}", std::strerror(errno)));
      continue;
    }
    first = false;
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      ::close(fd);
      continue;
    }
    while (dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type == DT_DIR) {
        if (name != ".git") dirs.push_back(rel.empty() ? std::string(name) : rel + "/" + std::string(name));
      } else if (type == DT_REG) {
        files.push_back(rel.empty() ? std::string(name) : rel + "/" + std::string(name));
      }
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool check_listable(const std::string& root, const std::string& path, std::uint64_t max_file_size) {
  const std::string full = root + "/" + path;
  int fd = ::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                  static_cast<std::uint64_t>(st.st_size) <= max_file_size;
  ::close(fd);
  return ok;
}

}  // namespace sm120check
