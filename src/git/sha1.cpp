// Git blob ids through Nettle's SHA-1 (Debian's libnettle, one small shared library that uses
// the CPU's SHA instructions where present: plain-tree runs never load libgit2 and its
// dependencies, and hashing every file a large patch touches stays a small part of its time).
#include "sha1.hpp"

#include <nettle/sha1.h>

#include <cstdint>
#include <string>

namespace sm120check::git {

std::string blob_sha1(std::string_view content) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  const std::string header = "blob " + std::to_string(content.size()) + '\0';
  sha1_update(&ctx, header.size(), reinterpret_cast<const std::uint8_t*>(header.data()));
  sha1_update(&ctx, content.size(), reinterpret_cast<const std::uint8_t*>(content.data()));
  std::uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * SHA1_DIGEST_SIZE, '0');
  for (std::size_t i = 0; i < SHA1_DIGEST_SIZE; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return hex;
}

}  // namespace sm120check::git
