// Decompressing a fat-binary entry's payload: zstd frames (flag 0x8000) through libzstd, LZ4
// blocks (flag 0x2000, a raw block without frame header: the fixture built with
// --compress-mode=speed starts with the token 0xa2, ten literals "\x7f" "ELF"...) through liblz4.
// And what a cubin payload must be for the driver to load it: cubin_payload_problem().
#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <climits>

#include "internal.hpp"
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

int cubin_sm(unsigned abi_version, std::uint32_t e_flags) {
  return static_cast<int>(abi_version >= 8 ? (e_flags >> 8) & 0xffu : e_flags & 0xffu);
}

std::string cubin_payload_problem(const KernelEntry& entry, std::span<const unsigned char> payload) {
  // ELF header fields (System V gABI): e_ident[EI_CLASS] at 4 (1: 32-bit, 2: 64-bit),
  // e_ident[EI_DATA] at 5 (1: little-endian), e_ident[EI_ABIVERSION] at 8, e_machine at 18,
  // e_flags at 36 (32-bit) or 48 (64-bit); the header is 52 or 64 bytes.
  constexpr unsigned kEmCuda = 190;  // EM_CUDA, elf.h
  if (payload.empty()) return "cubin payload is empty (0 bytes)";
  if (payload.size() < 4 || payload[0] != 0x7f || payload[1] != 'E' || payload[2] != 'L' ||
      payload[3] != 'F') {
    std::string start;
    for (std::size_t i = 0; i < std::min<std::size_t>(4, payload.size()); ++i)
      start += fmt::format("{}{:02x}", i == 0 ? "" : " ", payload[i]);
    return fmt::format("cubin payload is not an ELF image (it starts with {})", start);
  }
  const unsigned elf_class = payload.size() > 4 ? payload[4] : 0;
  const std::size_t header = elf_class == 2 ? 64 : 52;
  if ((elf_class != 1 && elf_class != 2) || payload.size() < header || payload[5] != 1)
    return fmt::format("cubin payload is not a little-endian ELF image of {} bytes or more "
                       "(class {}, {} bytes)",
                       header, elf_class, payload.size());
  const unsigned machine = static_cast<unsigned>(payload[18] | (payload[19] << 8));
  if (machine != kEmCuda)
    return fmt::format("cubin payload is an ELF image of machine {}, not EM_CUDA ({})", machine,
                       kEmCuda);
  const std::size_t at = elf_class == 2 ? 48 : 36;
  const std::uint32_t flags = static_cast<std::uint32_t>(payload[at]) |
                              static_cast<std::uint32_t>(payload[at + 1]) << 8 |
                              static_cast<std::uint32_t>(payload[at + 2]) << 16 |
                              static_cast<std::uint32_t>(payload[at + 3]) << 24;
  const int sm = cubin_sm(payload[8], flags);
  if (sm != entry.sm)
    return fmt::format("cubin payload is an ELF for sm_{} (e_flags {:#x}) under an entry header "
                       "for sm_{}",
                       sm, flags, entry.sm);
  return {};
}

}  // namespace sm120check
