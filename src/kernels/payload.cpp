// Decompressing a fat-binary entry's payload: zstd frames (flag 0x8000) through libzstd, LZ4
// blocks (flag 0x2000, a raw block without frame header: the fixture built with
// --compress-mode=speed starts with the token 0xa2, ten literals "\x7f" "ELF"...) through liblz4.
#include <lz4.h>
#include <zstd.h>

#include <climits>

#include "sm120check/kernels.hpp"

namespace sm120check {

std::optional<std::vector<unsigned char>> decompress_entry(const KernelEntry& entry,
                                                           std::span<const unsigned char> stored,
                                                           std::uint64_t limit) {
  if (!entry.compressed()) return std::vector<unsigned char>(stored.begin(), stored.end());
  if (entry.uncompressed_size == 0 || entry.uncompressed_size > limit) return std::nullopt;
  std::vector<unsigned char> out(static_cast<std::size_t>(entry.uncompressed_size));
  if (entry.compression == KernelCompression::kZstd) {
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), stored.data(), stored.size());
    if (ZSTD_isError(n) != 0) return std::nullopt;
    out.resize(n);
    return out;
  }
  if (stored.size() > INT_MAX || out.size() > INT_MAX) return std::nullopt;
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(stored.data()),
                                    reinterpret_cast<char*>(out.data()),
                                    static_cast<int>(stored.size()), static_cast<int>(out.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace sm120check
