// A tree seen through in-memory changes (see tree.hpp: OverlayTree).
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {

Entry OverlayTree::stat(const std::string& path) const {
  if (auto it = nodes_.find(path); it != nodes_.end()) {
    Entry e;
    if (!it->second.content) return e;
    e.type = it->second.symlink ? Entry::Type::kSymlink : Entry::Type::kFile;
    e.executable = it->second.executable;
    e.size = it->second.content->size();
    return e;
  }
  Entry e = base_.stat(path);
  if (e.type != Entry::Type::kMissing) return e;
  // A directory that only written files make.
  const std::string below = path + "/";
  for (auto it = nodes_.lower_bound(below);
       it != nodes_.end() && it->first.compare(0, below.size(), below) == 0; ++it) {
    if (it->second.content) {
      e.type = Entry::Type::kDirectory;
      break;
    }
  }
  return e;
}

std::string OverlayTree::read(const std::string& path) const {
  if (auto it = nodes_.find(path); it != nodes_.end()) {
    if (!it->second.content || it->second.symlink) throw Error(path, 0, "not a regular file");
    return *it->second.content;
  }
  return base_.read(path);
}

std::string OverlayTree::read_link(const std::string& path) const {
  if (auto it = nodes_.find(path); it != nodes_.end()) {
    if (!it->second.content || !it->second.symlink) throw Error(path, 0, "not a symlink");
    return *it->second.content;
  }
  return base_.read_link(path);
}

void OverlayTree::write(const std::string& path, std::string content, bool executable,
                        bool symlink) {
  nodes_[path] = Node{std::move(content), executable, symlink};
}

void OverlayTree::remove(const std::string& path) { nodes_[path] = Node{}; }

}  // namespace sm120check
