// Decompressing a fat-binary entry's payload: zstd frames (flag 0x8000) through libzstd, LZ4
// blocks (flag 0x2000, a raw block without frame header: the fixture built with
// --compress-mode=speed starts with the token 0xa2, ten literals "\x7f" "ELF"...) through liblz4.
// And what a cubin payload must be for the driver to load it: cubin_payload_problem().
#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "internal.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check {

bool decompress_entry_to(const KernelEntry& entry, std::span<const unsigned char> stored,
                         std::uint64_t limit, std::span<unsigned char> out, std::size_t& length) {
  length = 0;
  if (entry.uncompressed_size == 0 || entry.uncompressed_size > limit ||
      entry.uncompressed_size > out.size())
    return false;
  const auto want = static_cast<std::size_t>(entry.uncompressed_size);
  if (entry.compression == KernelCompression::kZstd) {
    // One decompression context per thread, reused (creating one per payload cost 3% of a run
    // over libcublasLt's 5737 payloads).
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> context(
        ZSTD_createDCtx(), ZSTD_freeDCtx);
    const std::size_t n =
        context != nullptr
            ? ZSTD_decompressDCtx(context.get(), out.data(), want, stored.data(), stored.size())
            : ZSTD_decompress(out.data(), want, stored.data(), stored.size());
    if (ZSTD_isError(n) != 0) return false;
    length = n;
    return true;
  }
  if (stored.size() > INT_MAX || want > INT_MAX) return false;
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(stored.data()),
                                    reinterpret_cast<char*>(out.data()),
                                    static_cast<int>(stored.size()), static_cast<int>(want));
  if (n < 0) return false;
  length = static_cast<std::size_t>(n);
  return true;
}

bool decompress_entry_into(const KernelEntry& entry, std::span<const unsigned char> stored,
                           std::uint64_t limit, std::vector<unsigned char>& buffer,
                           std::size_t& length) {
  length = 0;
  if (!entry.compressed()) {
    if (buffer.size() < stored.size()) buffer.resize(stored.size());
    std::copy(stored.begin(), stored.end(), buffer.begin());
    length = stored.size();
    return true;
  }
  if (entry.uncompressed_size == 0 || entry.uncompressed_size > limit) return false;
  // Grown, never shrunk: one allocation serves every payload of a file (a fresh vector each
  // time cost a page fault per page, 1.4 GB of them for CUDA 13's libcublasLt).
  if (buffer.size() < entry.uncompressed_size)
    buffer.resize(static_cast<std::size_t>(entry.uncompressed_size));
  return decompress_entry_to(entry, stored, limit, buffer, length);
}

std::optional<std::vector<unsigned char>> decompress_entry(const KernelEntry& entry,
                                                           std::span<const unsigned char> stored,
                                                           std::uint64_t limit) {
  std::vector<unsigned char> out;
  std::size_t length = 0;
  if (!decompress_entry_into(entry, stored, limit, out, length)) return std::nullopt;
  out.resize(length);
  return out;
}

namespace {

/// A character of a PTX identifier or directive token: [A-Za-z0-9_$%.] (PTX ISA, "Identifiers":
/// followsym is [a-zA-Z0-9_$]; `%` may start one, `.` starts a directive).
/// A table: the tokenizer looks at every byte of PTX texts of hundreds of MB (libcublasLt: 237 MB).
constexpr std::array<bool, 256> kPtxTokenChar = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                         (c >= '0' && c <= '9') || c == '_' || c == '$' ||
                                         c == '%' || c == '.';
  return table;
}();

inline bool ptx_token_char(char c) { return kPtxTokenChar[static_cast<unsigned char>(c)]; }

}  // namespace

std::vector<std::string> ptx_entry_names(std::string_view text) {
  std::vector<std::string> names;
  bool is_extern = false;   // `.extern` seen in the current statement
  bool want_name = false;   // the token after `.entry`
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      const std::size_t eol = text.find('\n', i + 2);
      i = eol == std::string_view::npos ? n : eol + 1;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
      continue;
    }
    if (c == '"') {  // a string (.file): up to its closing quote or the end of the line
      std::size_t j = i + 1;
      while (j < n && text[j] != '"' && text[j] != '\n') j += text[j] == '\\' ? std::size_t{2} : std::size_t{1};
      i = j + 1;
      continue;
    }
    if (ptx_token_char(c)) {
      std::size_t j = i;
      while (j < n && ptx_token_char(text[j])) ++j;
      const std::string_view token = text.substr(i, j - i);
      if (want_name) {
        want_name = false;
        const char first = token.front();
        if (!is_extern && first != '.' && !(first >= '0' && first <= '9') &&
            token.find('.') == std::string_view::npos)
          names.emplace_back(token);
      } else if (token == ".entry") {
        want_name = true;
      } else if (token == ".extern") {
        is_extern = true;
      }
      i = j;
      continue;
    }
    if (c == ';' || c == '{' || c == '}') is_extern = false;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') want_name = false;
    ++i;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
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
