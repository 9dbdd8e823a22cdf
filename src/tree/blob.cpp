// Git blob ids (via libgit2) and git's binary heuristic (see tree.hpp).
#include <git2.h>

#include <mutex>

#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

std::once_flag libgit2_once;

void ensure_libgit2() {
  std::call_once(libgit2_once, [] { git_libgit2_init(); });
}

}  // namespace

std::string git_blob_id(std::string_view content) {
  ensure_libgit2();
  git_oid oid;
  // libgit2 wants a non-null pointer even for an empty buffer.
  const char* data = content.empty() ? "" : content.data();
  if (git_odb_hash(&oid, data, content.size(), GIT_OBJECT_BLOB) != 0) {
    const git_error* err = git_error_last();
    throw Error(std::string("cannot compute git blob id: ") +
                (err != nullptr && err->message != nullptr ? err->message : "libgit2 error"));
  }
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return std::string(hex);
}

bool looks_binary(std::string_view content) {
  constexpr std::size_t kFirstBytes = 8000;
  return content.substr(0, kFirstBytes).find('\0') != std::string_view::npos;
}

}  // namespace sm120check
