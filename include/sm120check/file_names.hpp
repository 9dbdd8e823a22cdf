// The paths of a tree's files by name only: a walk that reads directories and opens no file,
// for relocation's candidates by file name (see src/verify/locate.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sm120check {

/// Every regular file under `root`, relative to it with "/" separators, sorted: directories are
/// read (readdir(3), lstat(2) only where the file system gives no type), no file is opened.
/// Like search_tree(): never follows a symlink, skips `.git` directories; unlike it, files
/// over a size limit or unreadable are listed too (check_listable() tells). Unreadable
/// directories are left out. Throws Error when `root` is not a readable directory.
std::vector<std::string> walk_file_names(const std::string& root);

/// Whether search_tree() with SearchOptions::collect_files would list `root`/`path`: a regular
/// file (not through a symlink) that opens for reading and holds at most `max_file_size` bytes.
bool check_listable(const std::string& root, const std::string& path, std::uint64_t max_file_size);

}  // namespace sm120check
