// SHA-1 for git blob ids (Nettle), so that comparing a file with a patch's `index` line does not
// load libgit2 (about 6 ms per run, see libgit2.hpp). Not for security: git's own object naming.
#pragma once

#include <string>
#include <string_view>

namespace sm120check::git {

/// SHA-1 of "blob <size>\0<content>" as 40 lower-case hex digits (what `git hash-object`
/// prints and libgit2's git_odb_hash computes for GIT_OBJECT_BLOB).
std::string blob_sha1(std::string_view content);

}  // namespace sm120check::git
