// Git blob ids (Nettle's SHA-1, see src/git/sha1.hpp) and git's binary heuristic (see tree.hpp).
#include "../git/sha1.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {

std::string git_blob_id(std::string_view content) {
  // Same ids as libgit2's git_odb_hash (tests compare them), without loading libgit2.
  return git::blob_sha1(content);
}

bool looks_binary(std::string_view content) {
  constexpr std::size_t kFirstBytes = 8000;
  return content.substr(0, kFirstBytes).find('\0') != std::string_view::npos;
}

}  // namespace sm120check
