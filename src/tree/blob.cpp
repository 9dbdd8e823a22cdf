// Git blob ids (via libgit2, loaded on first use) and git's binary heuristic (see tree.hpp).
#include "../git/libgit2.hpp"
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {

std::string git_blob_id(std::string_view content) {
  const git::Libgit2& lib = git::libgit2();
  git_oid oid;
  // libgit2 wants a non-null pointer even for an empty buffer.
  const char* data = content.empty() ? "" : content.data();
  if (lib.git_odb_hash(&oid, data, content.size(), GIT_OBJECT_BLOB) != 0)
    throw Error(std::string("cannot compute git blob id: ") +
                git::last_error_message("libgit2 error"));
  char hex[GIT_OID_HEXSZ + 1];
  lib.git_oid_tostr(hex, sizeof hex, &oid);
  return std::string(hex);
}
bool looks_binary(std::string_view content) {
  constexpr std::size_t kFirstBytes = 8000;
  return content.substr(0, kFirstBytes).find('\0') != std::string_view::npos;
}

}  // namespace sm120check
