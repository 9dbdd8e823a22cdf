// The fat-binary container: parse_fat_binaries() and the names of what it finds.
//
// NVIDIA documents only the wrapper (include/fatbinary_section.h: the __fatBinC_Wrapper_t in
// .nvFatBinSegment that points at the data, and the section names .nv_fatbin and
// __nv_relfatbin). The layout below is what public descriptions give, each fact checked on the
// objects of tests/data/kernels (nvcc 13.0, flags in manifest.tsv) and on the 14 libraries of
// CUDA 13 and cuDNN 9 in /usr/local/cuda/lib64 (5086 fat binaries, 17254 entries, all parsed;
// sampled payloads agree with their headers: PTX .target/.version, cubin ELF e_flags):
//   [n-eiling] github.com/n-eiling/cuda-fatbin-decompression, fatbin-decompress.h (header and
//              entry structs, flags 64-bit, debug, host Linux, compressed 0x2000 with its LZ4
//              variant);
//   [jiegec]   github.com/jiegec/fatbinary, fatbinary/src/lib.rs (same structs; field at 20 is
//              the options offset);
//   [nvopen]   github.com/GrigoryEvko/nvopen-tools, fatbin/FORMAT_SPECIFICATION.md (header
//              sizes 64/80/112, compression flag 0x8000 with ZSTD payloads);
//   [nvcc13]   our fixtures: flag 0x100000 on every entry built for an `a` target (sm_90a,
//              sm_100a, sm_120a, sm_121a, compute_120a) and on no other; 0x200000 on sm_120f
//              only; 0x2000 with --compress-mode=speed (LZ4), 0x8000 otherwise (zstd magic
//              28 b5 2f fd at the payload start); kind 8 for lto_120.
//
// Fat binary header, 16 bytes, little-endian [n-eiling]:
//   0 u32 magic 0xBA55ED50 | 4 u16 version (1) | 6 u16 header size (16) | 8 u64 size of the
//   entries that follow the header.
// Entry header, at least 64 bytes [n-eiling, jiegec, nvopen]:
//   0 u16 kind (1 PTX, 2 ELF cubin; 8 LTO IR [nvcc13]) | 2 u16 (0x0101) | 4 u32 header size
//   (the payload starts there) | 8 u64 payload size (padded to 8; the next entry follows it) |
//   16 u32 compressed size (bytes of the payload used when compressed) | 20 u32 options offset |
//   24 u16 minor | 26 u16 major (PTX: the PTX ISA version; cubin: its ELF ABI version) |
//   28 u32 arch (XY of sm_XY) | 32 u32 name offset | 36 u32 name length | 40 u64 flags |
//   48 u64 (0) | 56 u64 uncompressed size (when compressed).
#include <fmt/format.h>

#include <string.h>  // memmem (glibc, BSD)

#include <algorithm>
#include <cstring>
#include <functional>

#include "internal.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check {
namespace {

constexpr std::uint32_t kFatBinaryMagic = 0xBA55ED50;
constexpr std::size_t kFatHeaderSize = 16;
constexpr std::size_t kEntryHeaderMin = 64;

constexpr std::uint64_t kFlagLz4 = 0x2000;             // [n-eiling] FATBIN_FLAG_COMPRESS
constexpr std::uint64_t kFlagZstd = 0x8000;            // [nvopen], [nvcc13]
constexpr std::uint64_t kFlagArchSpecific = 0x100000;  // [nvcc13]: sm_XYa, compute_XYa
constexpr std::uint64_t kFlagFamily = 0x200000;        // [nvcc13]: sm_XYf, compute_XYf

template <typename T>
T load_le(const unsigned char* p) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(p[i]) << (8 * i);
  return value;
}

std::string hex(std::uint64_t value) { return fmt::format("{:#x}", value); }

/// Reads the entries of one fat binary, `body` being the bytes after its header. Returns "" or
/// why it stopped.
std::string parse_entries(std::span<const unsigned char> body, std::uint64_t body_offset,
                          std::size_t& entries_left, FatBinary& fatbin) {
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::uint64_t at = body_offset + pos;
    const std::size_t left = body.size() - pos;
    if (left < kEntryHeaderMin)
      return fmt::format("entry header at {} is cut off ({} of at least {} bytes)", hex(at), left,
                         kEntryHeaderMin);
    if (entries_left == 0)
      return fmt::format("more than {} fat-binary entries in one file", kMaxFatBinaryEntries);
    --entries_left;
    const unsigned char* h = body.data() + pos;
    const std::uint32_t header_size = load_le<std::uint32_t>(h + 4);
    const std::uint64_t payload_size = load_le<std::uint64_t>(h + 8);
    if (header_size < kEntryHeaderMin || header_size > left)
      return fmt::format("entry at {}: header size {} is not between {} and the {} bytes left",
                         hex(at), header_size, kEntryHeaderMin, left);
    if (payload_size > left - header_size)
      return fmt::format("entry at {}: payload of {} bytes runs past the end of the fat binary "
                         "({} bytes left)",
                         hex(at), payload_size, left - header_size);
    KernelEntry entry;
    entry.raw_kind = load_le<std::uint16_t>(h);
    entry.kind = entry.raw_kind == 1   ? KernelEntryKind::kPtx
                 : entry.raw_kind == 2 ? KernelEntryKind::kCubin
                 : entry.raw_kind == 8 ? KernelEntryKind::kLtoIr
                                       : KernelEntryKind::kUnknown;
    const std::uint16_t minor = load_le<std::uint16_t>(h + 24);
    const std::uint16_t major = load_le<std::uint16_t>(h + 26);
    const std::uint32_t arch = load_le<std::uint32_t>(h + 28);
    const std::uint64_t flags = load_le<std::uint64_t>(h + 40);
    if (arch > 9999) return fmt::format("entry at {}: architecture {} is not an SM", hex(at), arch);
    entry.sm = static_cast<int>(arch);
    entry.variant = (flags & kFlagArchSpecific) != 0 ? ArchVariant::kArchSpecific
                    : (flags & kFlagFamily) != 0     ? ArchVariant::kFamily
                                                     : ArchVariant::kPlain;
    if (entry.kind == KernelEntryKind::kPtx) entry.ptx_version = std::array<int, 2>{major, minor};
    entry.compression = (flags & kFlagZstd) != 0  ? KernelCompression::kZstd
                        : (flags & kFlagLz4) != 0 ? KernelCompression::kLz4
                                                  : KernelCompression::kNone;
    entry.offset = at;
    entry.payload_offset = at + header_size;
    entry.size = payload_size;
    entry.uncompressed_size = payload_size;
    if (entry.compressed()) {
      const std::uint32_t compressed_size = load_le<std::uint32_t>(h + 16);
      if (compressed_size > payload_size)
        return fmt::format("entry at {}: compressed size {} exceeds its payload of {} bytes",
                           hex(at), compressed_size, payload_size);
      entry.size = compressed_size;
      entry.uncompressed_size = load_le<std::uint64_t>(h + 56);
    }
    fatbin.entries.push_back(std::move(entry));
    pos += header_size + payload_size;  // header_size >= 64: always advances
  }
  return {};
}

}  // namespace

std::string parse_fat_binaries(std::span<const unsigned char> region, std::uint64_t base,
                               std::string_view section, std::vector<FatBinary>& out) {
  return parse_fat_binaries(region, base, section, out, {});
}

std::string parse_fat_binaries(std::span<const unsigned char> region, std::uint64_t base,
                               std::string_view section, std::vector<FatBinary>& out,
                               const std::function<void(std::size_t from, std::size_t to)>&
                                   parsed) {
  std::size_t entries_left = kMaxFatBinaryEntries;
  for (const FatBinary& f : out) entries_left -= std::min(entries_left, f.entries.size());
  std::size_t pos = 0;
  std::size_t number = 0;
  std::size_t reported = 0;  // what lies before was given to `parsed`
  while (true) {
    if (parsed && pos >= reported + kSearchedStep) {
      parsed(reported, pos);
      reported = pos;
    }
    // Linkers pad input sections to their alignment (8) with zeros. A longer run of zeros is
    // no padding (a sparse section of 4 GiB took 14 s and 4.2 GB of mapped pages to skip).
    const std::size_t zeros_from = pos;
    const std::size_t zeros_end = std::min(region.size(), pos + kMaxFatBinaryPadding + 1);
    while (pos < zeros_end && region[pos] == 0) ++pos;
    if (pos - zeros_from > kMaxFatBinaryPadding)
      return fmt::format("more than {} zero bytes at {} (after fat binary {}, {} bytes left): "
                         "not padding between fat binaries; a sparse or damaged section?",
                         kMaxFatBinaryPadding, hex(base + zeros_from), number,
                         region.size() - zeros_from);
    if (pos == region.size()) return {};
    const std::uint64_t at = base + pos;
    ++number;
    const std::size_t left = region.size() - pos;
    const unsigned char* h = region.data() + pos;
    if (left < kFatHeaderSize || load_le<std::uint32_t>(h) != kFatBinaryMagic)
      return fmt::format("no fat binary at {} (fat binary {}): {}", hex(at), number,
                         left < kFatHeaderSize ? "too few bytes left for a header"
                                               : "its magic number is not 0xba55ed50");
    const std::uint16_t header_size = load_le<std::uint16_t>(h + 6);
    const std::uint64_t size = load_le<std::uint64_t>(h + 8);
    if (header_size < kFatHeaderSize || header_size > left)
      return fmt::format("fat binary {} at {}: header size {} is not between {} and the {} bytes "
                         "left",
                         number, hex(at), header_size, kFatHeaderSize, left);
    if (size > left - header_size)
      return fmt::format("fat binary {} at {}: its {} bytes of entries run past the end of {} "
                         "({} bytes left)",
                         number, hex(at), size, section.empty() ? "the file" : section,
                         left - header_size);
    FatBinary fatbin;
    fatbin.section = std::string(section);
    fatbin.offset = at;
    std::string error = parse_entries(region.subspan(pos + header_size, size),
                                      at + header_size, entries_left, fatbin);
    out.push_back(std::move(fatbin));
    if (!error.empty()) return fmt::format("fat binary {} at {}: {}", number, hex(at), error);
    pos += header_size + size;
  }
}

namespace {

/// The end (exclusive, from `at`) of the cubin whose ELF header starts at `at`, when it is a
/// little-endian ELF64 of machine EM_CUDA naming an SM in e_flags whose section and program
/// header tables lie inside `image`; 0 otherwise. A cubin ends with its section header table
/// (ptxas writes it last).
std::size_t embedded_cubin_size(std::span<const unsigned char> image, std::size_t at) {
  const std::size_t left = image.size() - at;
  const unsigned char* h = image.data() + at;
  if (left < 64 || h[4] != 2 || h[5] != 1 || load_le<std::uint16_t>(h + 18) != 190) return 0;
  if (cubin_sm(h[8], load_le<std::uint32_t>(h + 48)) < 10) return 0;
  const std::uint64_t shoff = load_le<std::uint64_t>(h + 40);
  const std::uint64_t phoff = load_le<std::uint64_t>(h + 32);
  const std::uint64_t shtable = std::uint64_t{load_le<std::uint16_t>(h + 58)} * load_le<std::uint16_t>(h + 60);
  const std::uint64_t phtable = std::uint64_t{load_le<std::uint16_t>(h + 54)} * load_le<std::uint16_t>(h + 56);
  if (shoff < 64 || shtable == 0 || shoff > left || shtable > left - shoff) return 0;
  if (phoff > left || phtable > left - phoff) return 0;
  return static_cast<std::size_t>(std::max(shoff + shtable, phoff + phtable));
}

}  // namespace

std::size_t find_embedded_cuda(std::span<const unsigned char> region, std::uint64_t base,
                               std::size_t& entries_left, std::vector<FatBinary>& out,
                               const std::function<void(std::size_t from, std::size_t to)>&
                                   searched) {
  static constexpr unsigned char kFatMagic[] = {0x50, 0xed, 0x55, 0xba};
  static constexpr unsigned char kElfMagic[] = {0x7f, 'E', 'L', 'F'};
  std::size_t found = 0;
  // Pass 1: fat binaries (magic, version 1, a header of 16 bytes or more, entries that parse).
  std::vector<std::pair<std::size_t, std::size_t>> covered;  // [begin, end) of each found
  // The pass in progress reads nothing before the offset it asks next() from: what lies
  // before is reported to `searched` in steps of kSearchedStep, and the rest when it ends.
  std::size_t reported = 0;
  const auto passed = [&](std::size_t before) {
    if (searched && before >= reported + kSearchedStep) {
      searched(reported, before);
      reported = before;
    }
  };
  const auto pass_done = [&] {
    if (searched && reported < region.size()) searched(reported, region.size());
    reported = 0;
  };
  // The next `magic` at or after `from` (region.size() when none): memchr(3) for its byte
  // `rare`, then a compare of the four. glibc's memmem(3) alone was 3.5 times slower over the
  // 206 MB of libcublasLt.so.13's .cask_resource and .ldata (0.13 s against 0.036 s for both
  // magics, pages in memory).
  const auto next = [&](std::size_t from, const unsigned char* magic,
                        std::size_t rare) -> std::size_t {
    const unsigned char* d = region.data();
    const std::size_t n = region.size();
    unsigned close = 0;  // false candidates in a row, each within 16 bytes of the one before
    while (from < n && n - from >= 4) {
      passed(from);
      // Candidates start in [from, n - 4]: their byte `rare` lies in [from + rare, n - 4 + rare];
      // looked for kSearchedStep of them at a time.
      const std::size_t span = std::min(n - from - 3, kSearchedStep);
      const void* p = std::memchr(d + from + rare, magic[rare], span);
      if (p == nullptr) {
        from += span;
        close = 0;
        continue;
      }
      const std::size_t at = static_cast<std::size_t>(static_cast<const unsigned char*>(p) - d) - rare;
      if (std::memcmp(d + at, magic, 4) == 0) return at;
      close = at - from < 16 ? close + 1 : 0;
      if (close == 8) {
        // False candidates close together (data full of that byte: one memchr call per byte,
        // 8 ns each): memmem over the next 4 KiB, so that the search stays as fast as memmem
        // whatever the bytes (64 MiB of 0xba: 0.02 s, not 0.5 s). Real data rarely gets here.
        close = 0;
        const std::size_t end = std::min(n, at + 1 + 4096 + 3);
        const void* q = memmem(d + at + 1, end - at - 1, magic, 4);
        if (q != nullptr) return static_cast<std::size_t>(static_cast<const unsigned char*>(q) - d);
        from = end - 3;  // the first start memmem did not look at
        continue;
      }
      from = at + 1;
    }
    return n;
  };
  for (std::size_t at = next(0, kFatMagic, 3); at < region.size() && entries_left > 0;
       at = next(at + 1, kFatMagic, 3)) {
    const std::size_t left = region.size() - at;
    const unsigned char* h = region.data() + at;
    if (left < kFatHeaderSize || load_le<std::uint16_t>(h + 4) != 1) continue;
    const std::uint16_t header_size = load_le<std::uint16_t>(h + 6);
    const std::uint64_t size = load_le<std::uint64_t>(h + 8);
    if (header_size < kFatHeaderSize || header_size > left || size == 0 || size > left - header_size)
      continue;
    FatBinary fatbin;
    fatbin.section = std::string(kEmbeddedSection);
    fatbin.offset = base + at;
    std::size_t budget = entries_left;
    if (!parse_entries(region.subspan(at + header_size, static_cast<std::size_t>(size)),
                       base + at + header_size, budget, fatbin)
             .empty() ||
        fatbin.entries.empty())
      continue;
    entries_left = budget;
    out.push_back(std::move(fatbin));
    ++found;
    covered.emplace_back(at, at + header_size + static_cast<std::size_t>(size));
    at = covered.back().second - 1;
  }
  pass_done();
  // Pass 2: cubins (ELF headers of machine EM_CUDA) outside those fat binaries.
  std::size_t c = 0;
  for (std::size_t at = next(0, kElfMagic, 0); at < region.size() && entries_left > 0;
       at = next(at + 1, kElfMagic, 0)) {
    while (c < covered.size() && covered[c].second <= at) ++c;
    if (c < covered.size() && covered[c].first <= at) {
      at = covered[c].second - 1;
      continue;
    }
    const std::size_t size = embedded_cubin_size(region, at);
    if (size == 0) continue;
    KernelEntry entry;
    entry.kind = KernelEntryKind::kCubin;
    entry.raw_kind = 2;
    entry.sm = cubin_sm(region[at + 8], load_le<std::uint32_t>(region.data() + at + 48));
    // The `-arch sm_XYa` ptxas recorded in .note.nv.tkinfo, found as text in the cubin.
    const std::string arch = fmt::format("-arch sm_{}", entry.sm);
    const auto* cubin = reinterpret_cast<const char*>(region.data() + at);
    const void* p = memmem(cubin, size, arch.data(), arch.size());
    if (p != nullptr) {
      const std::size_t after = static_cast<std::size_t>(static_cast<const char*>(p) - cubin) + arch.size();
      const char suffix = after < size ? cubin[after] : ' ';
      entry.variant = suffix == 'a'   ? ArchVariant::kArchSpecific
                      : suffix == 'f' ? ArchVariant::kFamily
                                      : ArchVariant::kPlain;
    }
    entry.offset = entry.payload_offset = base + at;
    entry.size = entry.uncompressed_size = size;
    FatBinary whole;
    whole.section = std::string(kEmbeddedSection);
    whole.offset = base + at;
    whole.entries.push_back(std::move(entry));
    out.push_back(std::move(whole));
    --entries_left;
    ++found;
    at += size - 1;
  }
  pass_done();
  std::stable_sort(out.end() - static_cast<long>(found), out.end(),
                   [](const FatBinary& a, const FatBinary& b) { return a.offset < b.offset; });
  return found;
}

bool may_carry_cuda_code(std::span<const unsigned char> head) {
  if (head.size() < 4) return false;
  return std::memcmp(head.data(), "\x7f" "ELF", 4) == 0 || std::memcmp(head.data(), "!<ar", 4) == 0 ||
         std::memcmp(head.data(), "!<th", 4) == 0 ||
         load_le<std::uint32_t>(head.data()) == kFatBinaryMagic ||
         std::memcmp(head.data(), "//", 2) == 0 || std::memcmp(head.data(), "/*", 2) == 0 ||
         std::memcmp(head.data(), ".ver", 4) == 0 || head[0] == ' ' || head[0] == '\t' ||
         head[0] == '\n' || head[0] == '\r';
}

bool is_fat_binary_header(std::span<const unsigned char> bytes) {
  return bytes.size() >= kFatHeaderSize && load_le<std::uint32_t>(bytes.data()) == kFatBinaryMagic &&
         load_le<std::uint16_t>(bytes.data() + 4) == 1 &&
         load_le<std::uint16_t>(bytes.data() + 6) == kFatHeaderSize;
}

bool is_bare_fat_binary(std::span<const unsigned char> image) {
  return image.size() >= 4 && load_le<std::uint32_t>(image.data()) == kFatBinaryMagic;
}

std::string_view to_string(KernelEntryKind kind) {
  switch (kind) {
    case KernelEntryKind::kCubin: return "cubin";
    case KernelEntryKind::kPtx: return "ptx";
    case KernelEntryKind::kLtoIr: return "lto-ir";
    case KernelEntryKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view to_string(KernelCompression compression) {
  switch (compression) {
    case KernelCompression::kLz4: return "lz4";
    case KernelCompression::kZstd: return "zstd";
    case KernelCompression::kNone: break;
  }
  return "none";
}

std::string KernelEntry::arch_name() const {
  const char* suffix = variant == ArchVariant::kArchSpecific ? "a"
                       : variant == ArchVariant::kFamily     ? "f"
                                                             : "";
  switch (kind) {
    case KernelEntryKind::kCubin: return fmt::format("sm_{}{}", sm, suffix);
    case KernelEntryKind::kPtx: return fmt::format("compute_{}{}", sm, suffix);
    case KernelEntryKind::kLtoIr: return fmt::format("lto_{}{}", sm, suffix);
    case KernelEntryKind::kUnknown: break;
  }
  return fmt::format("kind_{}_{}{}", raw_kind, sm, suffix);
}

bool FatBinary::loaded() const noexcept {
  if (section == "__nv_relfatbin") return false;
  return section != kEmbeddedSection ||
         std::none_of(entries.begin(), entries.end(),
                      [](const KernelEntry& e) { return e.kind == KernelEntryKind::kLtoIr; });
}

bool FatBinary::has_kernels() const {
  // An empty container (a header whose size is 0): nvcc -shared compiling and linking PTX-only
  // code in one step puts one, nvlink's device link with nothing to link, before the module's
  // own in .nv_fatbin (tests/data/kernels/ptx120_cudart_static.fatbin); nothing in it launches.
  if (entries.empty()) return false;
  // A cubin whose functions are unknown (too large to read, or left compressed) may hold some.
  bool known_empty = false;
  for (const KernelEntry& e : entries) {
    if (e.kind != KernelEntryKind::kCubin) continue;
    if (!e.functions || *e.functions > 0) return true;
    known_empty = true;
  }
  if (!known_empty) return true;
  // PTX (or LTO IR) counts unless a cubin for the same SM holds no function: nvcc compiled that
  // cubin from the same code for the same __CUDA_ARCH__. Another SM's PTX may hold kernels the
  // empty cubin lacks (kernels under `#if __CUDA_ARCH__ >= 800`: CUDA 13's libcublas carries
  // modules of an empty sm_75 cubin beside compute_121 PTX).
  for (const KernelEntry& e : entries) {
    if (e.kind == KernelEntryKind::kCubin) continue;
    const bool covered = std::any_of(entries.begin(), entries.end(), [&](const KernelEntry& c) {
      return c.kind == KernelEntryKind::kCubin && c.sm == e.sm && c.functions == 0u;
    });
    if (!covered) return true;
  }
  return false;
}

std::size_t KernelListing::entry_count() const {
  std::size_t n = 0;
  for (const FatBinary& f : fatbins) n += f.entries.size();
  return n;
}

}  // namespace sm120check
