// Git blob ids through libmd's SHA-1 (Debian's libmd, the BSD message-digest library: one small
// shared library, so plain-tree runs never load libgit2 and its 20 dependencies).
#include "sha1.hpp"

#include <sha1.h>

#include <cstdint>
#include <string>

namespace sm120check::git {

std::string blob_sha1(std::string_view content) {
  SHA1_CTX ctx;
  SHA1Init(&ctx);
  const std::string header = "blob " + std::to_string(content.size()) + '\0';
  SHA1Update(&ctx, reinterpret_cast<const std::uint8_t*>(header.data()), header.size());
  SHA1Update(&ctx, reinterpret_cast<const std::uint8_t*>(content.data()), content.size());
  char hex[SHA1_DIGEST_STRING_LENGTH];
  SHA1End(&ctx, hex);  // lower-case hex, NUL-terminated
  return std::string(hex, SHA1_DIGEST_LENGTH * 2);
}

}  // namespace sm120check::git
