// Small helpers of the patch model (see patch.hpp); the parser lives in parse.cpp.
#include <algorithm>

#include "sm120check/patch.hpp"

namespace sm120check {

std::size_t Hunk::added() const {
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [](const HunkLine& l) { return l.kind == LineKind::kAdded; }));
}

std::size_t Hunk::removed() const {
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [](const HunkLine& l) { return l.kind == LineKind::kRemoved; }));
}

std::size_t Hunk::leading_context() const {
  auto it = std::find_if(lines.begin(), lines.end(),
                         [](const HunkLine& l) { return l.kind != LineKind::kContext; });
  return static_cast<std::size_t>(it - lines.begin());
}

std::size_t Hunk::trailing_context() const {
  auto it = std::find_if(lines.rbegin(), lines.rend(),
                         [](const HunkLine& l) { return l.kind != LineKind::kContext; });
  // A hunk of context only has no edges: all of it is leading context.
  if (it == lines.rend()) return 0;
  return static_cast<std::size_t>(it - lines.rbegin());
}

std::string_view to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kModify: return "modify";
    case ChangeKind::kAdd: return "add";
    case ChangeKind::kDelete: return "delete";
    case ChangeKind::kRename: return "rename";
    case ChangeKind::kCopy: return "copy";
    case ChangeKind::kMode: return "mode";
    case ChangeKind::kBinary: return "binary";
  }
  return "modify";
}

std::optional<std::string> strip_path(std::string_view path, unsigned strip) {
  if (path == "/dev/null") return std::string(path);
  std::size_t pos = 0;
  for (unsigned i = 0; i < strip; ++i) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) return std::nullopt;
    pos = slash + 1;
    while (pos < path.size() && path[pos] == '/') ++pos;  // "a//b" is one separator, as in patch
  }
  if (pos >= path.size()) return std::nullopt;
  return std::string(path.substr(pos));
}

}  // namespace sm120check
