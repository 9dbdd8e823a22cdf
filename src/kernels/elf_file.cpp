// The ELF side of the kernel listing, through libelf (elfutils): the sections that hold fat
// binaries (include/fatbinary_section.h names them), and the functions of each uncompressed
// cubin (an ELF image itself). list_kernels() maps the file privately, so nothing is read whole
// and nothing can be written back. A file that shrinks while it is mapped (`cp` over a library
// during a scan) would raise SIGBUS on the pages past its new end; detail::MappedFile turns that
// into an Error for that file (src/tree/mapped_file.hpp).
#include <fcntl.h>
#include <signal.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <string_view>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "../tree/mapped_file.hpp"
#include "internal.hpp"
#include "sm120check/error.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check {
namespace {

// FATBIN_DATA_SECTION_NAME and FATBIN_PRELINK_DATA_SECTION_NAME of fatbinary_section.h (Linux).
constexpr std::string_view kFatbinSection = ".nv_fatbin";
constexpr std::string_view kRelFatbinSection = "__nv_relfatbin";
// FatBinary::section of a fat binary found by its header in a loaded segment (list_segments()).
constexpr std::string_view kSegment = "segment";

void init_libelf() {
  static std::once_flag once;
  std::call_once(once, [] { elf_version(EV_CURRENT); });
}

std::string libelf_error() {
  // elf_errmsg(-1) says "no error" when libelf refused without recording why (elf_memory on an
  // image whose identification bytes are cut or name an unknown class or byte order).
  const int code = elf_errno();
  const char* message = code != 0 ? elf_errmsg(code) : nullptr;
  return message != nullptr ? message
                            : "its ELF identification is cut short or names an unknown class or "
                              "byte order";
}

/// An Elf handle closed on scope exit.
struct ElfHandle {
  Elf* elf;
  explicit ElfHandle(Elf* e) : elf(e) {}
  ~ElfHandle() {
    if (elf != nullptr) elf_end(elf);
  }
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
};

/// Functions of a cubin: its ".text.NAME" sections (ptxas puts each function's SASS in one):
/// sets entry.functions and entry.function_names. Leaves them unset when the payload is not an
/// ELF image libelf accepts.
void read_functions(unsigned char* cubin, std::size_t size, KernelEntry& entry) {
  if (size < 4 || std::memcmp(cubin, "\x7f" "ELF", 4) != 0) return;
  ElfHandle e(elf_memory(reinterpret_cast<char*>(cubin), size));
  std::size_t names = 0;
  if (e.elf == nullptr || elf_kind(e.elf) != ELF_K_ELF || elf_getshdrstrndx(e.elf, &names) != 0)
    return;
  std::vector<std::string> functions, kernels;
  bool symbols = false;
  for (Elf_Scn* scn = elf_nextscn(e.elf, nullptr); scn != nullptr; scn = elf_nextscn(e.elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) return;
    const char* name = elf_strptr(e.elf, names, shdr.sh_name);
    if (name != nullptr && std::strncmp(name, ".text.", 6) == 0) functions.emplace_back(name + 6);
    if (shdr.sh_type != SHT_SYMTAB || shdr.sh_entsize == 0) continue;
    // Kernels: function symbols marked as entries (st_other 0x10, STO_CUDA_ENTRY as ptxas
    // writes it; readelf shows "[<other>: 10]"). A device-linked cubin also has .text.NAME
    // sections for device functions (libnccl's __cuda_sm70_votesync_all in its sm_70..sm_90
    // cubins only), which no launch names.
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    symbols = true;
    const std::size_t count = shdr.sh_size / shdr.sh_entsize;
    for (std::size_t k = 0; k < count; ++k) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(k), &sym) == nullptr) break;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || (sym.st_other & 0x10) == 0) continue;
      const char* symbol = elf_strptr(e.elf, shdr.sh_link, sym.st_name);
      if (symbol != nullptr) kernels.emplace_back(symbol);
    }
  }
  std::sort(functions.begin(), functions.end());
  std::sort(kernels.begin(), kernels.end());
  kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
  entry.functions = static_cast<unsigned>(functions.size());
  // Compared by module_fit: the kernels when the symbol table says which they are.
  entry.function_names = symbols ? std::move(kernels) : std::move(functions);
}

/// The fat binaries of an ELF image without a section header table (`sstrip`, or e_shoff and
/// e_shnum zeroed: the sections are gone, the program headers and the bytes they load are not).
/// Such a shared object still loads its fat binaries: the CUDA runtime reaches them through the
/// address in the __fatBinC_Wrapper_t of .nvFatBinSegment (include/fatbinary_section.h), never
/// by a section name, so "no CUDA code" would be a wrong answer. Every loaded segment (PT_LOAD,
/// its bytes in the file) is searched at each 4-byte aligned offset for a fat binary header
/// (is_fat_binary_header(): magic 0xBA55ED50, version 1, header size 16; the .nv_fatbin section
/// is 8-aligned), and each one found is read alone, its 16-byte header giving its size; the
/// search goes on after it. A header whose entries do not parse is an error, like a damaged
/// .nv_fatbin section. Fat binaries found are listed, with an error that keeps the file from
/// being judged: the search also finds fat binaries that are data, not registered modules
/// (CUDA 13's libcusparse.so.12 keeps 34 with LTO IR and PTX up to compute_100 in .rodata, for
/// JIT LTO: judged, they made 12.0 read ptx-jit where its .nv_fatbin reads exact). None found:
/// no CUDA code loads. Without program headers either there is nothing to search: an error.
void list_segments(Elf* elf, unsigned char* image, std::size_t size, std::uint64_t base,
                   const std::string& member, KernelListing& listing) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0 || count == 0) {
    listing.error = "no section header table and no program headers: where a fat binary would "
                    "lie cannot be told";
    return;
  }
  struct Span {
    std::uint64_t from, to;
  };
  std::vector<Span> spans;
  for (std::size_t k = 0; k < count; ++k) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(k), &ph) == nullptr) {
      listing.error = fmt::format("no section header table, and program header {} cannot be "
                                  "read: {}",
                                  k, libelf_error());
      return;
    }
    if (ph.p_type != PT_LOAD || ph.p_filesz == 0) continue;
    if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
      listing.error = fmt::format("no section header table, and loaded segment {} ({} bytes at "
                                  "{:#x}) runs past the end of the file ({} bytes)",
                                  k, ph.p_filesz, ph.p_offset, size);
      return;
    }
    spans.push_back({ph.p_offset, ph.p_offset + ph.p_filesz});
  }
  // Segments may share pages: merged, each byte is searched once.
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.from < b.from; });
  std::vector<Span> merged;
  for (const Span& s : spans)
    if (!merged.empty() && s.from <= merged.back().to)
      merged.back().to = std::max(merged.back().to, s.to);
    else
      merged.push_back(s);
  const std::size_t first_found = listing.fatbins.size();
  for (const Span& s : merged) {
    std::uint64_t at = (s.from + 3) & ~std::uint64_t{3};
    while (at + 16 <= s.to) {
      if (!is_fat_binary_header({image + at, 16})) {
        at += 4;
        continue;
      }
      std::uint64_t body = 0;
      for (int b = 7; b >= 0; --b) body = (body << 8) | image[at + 8 + static_cast<unsigned>(b)];
      if (body > s.to - at - 16) {
        listing.error = fmt::format("no section header table: the fat binary found by its header "
                                    "at {:#x} in a loaded segment claims {} bytes of entries, "
                                    "past the segment's end at {:#x}",
                                    base + at, body, base + s.to);
        return;
      }
      if (listing.fatbins.size() >= kMaxFatBinaryEntries) {
        listing.error = fmt::format("no section header table: more than {} fat binaries found "
                                    "in the loaded segments",
                                    kMaxFatBinaryEntries);
        return;
      }
      const std::size_t first = listing.fatbins.size();
      const std::string error = parse_fat_binaries(
          {image + at, static_cast<std::size_t>(16 + body)}, base + at, kSegment, listing.fatbins);
      for (std::size_t k = first; k < listing.fatbins.size(); ++k) listing.fatbins[k].member = member;
      if (!error.empty()) {
        listing.error = "no section header table: in a loaded segment: " + error;
        return;
      }
      at = (at + 16 + body + 3) & ~std::uint64_t{3};
    }
  }
  const std::size_t found = listing.fatbins.size() - first_found;
  if (found != 0)
    listing.error = fmt::format(
        "no section header table: {} fat binar{} found by {} headers in loaded segments (listed), "
        "but which of them the CUDA runtime registers (.nv_fatbin) and which are data (fat "
        "binaries kept in .rodata for JIT LTO, as CUDA 13's libcusparse.so.12 has 34) cannot be "
        "told without the sections: not judged",
        found, found == 1 ? "y" : "ies", found == 1 ? "its" : "their");
}

/// Whether `elf`'s section header table can name its sections: an offset (e_shoff; the loader
/// ignores it, so a library with e_shoff zeroed loads the same), at least one section, and a
/// section-name table index inside the table. Without that, a fat-binary section cannot be
/// found by name, and data cannot be told from registered modules (list_segments()).
bool section_table_usable(Elf* elf) {
  GElf_Ehdr ehdr;
  std::size_t sections = 0, names = 0;
  return gelf_getehdr(elf, &ehdr) != nullptr && ehdr.e_shoff != 0 &&
         elf_getshdrnum(elf, &sections) == 0 && sections > 0 &&
         elf_getshdrstrndx(elf, &names) == 0 && names != SHN_UNDEF && names < sections;
}

/// Reads the fat-binary sections of an ELF image. `image` must stay writable and private: libelf
/// may convert data in place (it does not for the native byte order, but nothing here relies on
/// that).
/// `elf` is the ELF image at `image` (`size` bytes), lying at `base` in the file (an archive
/// member's offset, else 0); its fat binaries are appended to `listing` with file offsets, and
/// `member` names them (FatBinary::member).
void list_elf(Elf* elf, unsigned char* image, std::size_t size, std::uint64_t base,
              const std::string& member, KernelListing& listing) {
  // libelf pretends there is no section when the section header table lies past the end (a
  // file cut short): say so rather than list nothing. (e_shnum 0 with e_shoff set: more than
  // 0xff00 sections, counted in the first header, which libelf then reads.)
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf, &ehdr) == nullptr) {
    listing.error = "cannot read the ELF header: " + libelf_error();
    return;
  }
  const std::uint64_t table = std::uint64_t{ehdr.e_shnum} * ehdr.e_shentsize;
  if (ehdr.e_shoff != 0 && (ehdr.e_shoff > size || table > size - ehdr.e_shoff)) {
    listing.error = fmt::format("the section header table ({} sections at {:#x}) runs past the "
                                "end of the file ({} bytes): cut short?",
                                ehdr.e_shnum, ehdr.e_shoff, size);
    return;
  }
  std::size_t sections = 0;
  if (elf_getshdrnum(elf, &sections) != 0) {
    listing.error = "cannot read the ELF section count: " + libelf_error();
    return;
  }
  if (!section_table_usable(elf)) {
    list_segments(elf, image, size, base, member, listing);
    return;
  }
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) {
    listing.error = "cannot read the ELF section names: " + libelf_error();
    return;
  }
  struct Region {
    std::string_view section;
    std::uint64_t offset, size;
  };
  std::vector<Region> fatbin, relfatbin;
  struct Span {
    std::uint64_t from, to;
  };
  std::vector<Span> data;  // sections that can hold data the library loads itself
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) {
      listing.error = "cannot read an ELF section header: " + libelf_error();
      return;
    }
    const char* name = elf_strptr(elf, names, shdr.sh_name);
    if (name == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const bool is_fatbin = name == kFatbinSection;
    if (!is_fatbin && name != kRelFatbinSection) {
      // .rodata, .data, .data.rel.ro, .lrodata ...: allocated (in memory at run time), bytes in
      // the file, not code. Cut to the file's end (its bytes past it are not there to search).
      if (shdr.sh_type == SHT_PROGBITS && (shdr.sh_flags & SHF_ALLOC) != 0 &&
          (shdr.sh_flags & SHF_EXECINSTR) == 0 && shdr.sh_offset < size && shdr.sh_size > 0)
        data.push_back({shdr.sh_offset, shdr.sh_offset + std::min<std::uint64_t>(
                                                               shdr.sh_size, size - shdr.sh_offset)});
      continue;
    }
    if (shdr.sh_offset > size || shdr.sh_size > size - shdr.sh_offset) {
      listing.error = fmt::format("{}: section of {} bytes at {:#x} runs past the end of the "
                                  "file ({} bytes)",
                                  name, shdr.sh_size, shdr.sh_offset, size);
      return;
    }
    if (fatbin.size() + relfatbin.size() == kMaxFatBinarySections) {
      listing.error = fmt::format("more than {} sections named {} or {}", kMaxFatBinarySections,
                                  kFatbinSection, kRelFatbinSection);
      return;
    }
    (is_fatbin ? fatbin : relfatbin)
        .push_back({is_fatbin ? kFatbinSection : kRelFatbinSection, shdr.sh_offset, shdr.sh_size});
  }
  fatbin.insert(fatbin.end(), relfatbin.begin(), relfatbin.end());
  for (const Region& r : fatbin) {
    const std::size_t first = listing.fatbins.size();
    std::string error = parse_fat_binaries({image + r.offset, r.size}, base + r.offset, r.section,
                                           listing.fatbins);
    for (std::size_t k = first; k < listing.fatbins.size(); ++k) listing.fatbins[k].member = member;
    if (!error.empty()) {
      listing.error = std::string(r.section) + ": " + error;
      return;
    }
  }
  // Images embedded in the data sections, beside or instead of the fat-binary sections (a
  // library may register some modules and load others itself: TensorRT-LLM does both). Each
  // byte is searched once: the sections merged, the fat-binary sections' bytes taken out (what
  // they hold is listed above, never twice).
  std::sort(data.begin(), data.end(), [](const Span& a, const Span& b) { return a.from < b.from; });
  std::vector<Span> merged;
  for (const Span& d : data)
    if (!merged.empty() && d.from <= merged.back().to)
      merged.back().to = std::max(merged.back().to, d.to);
    else
      merged.push_back(d);
  std::sort(fatbin.begin(), fatbin.end(),
            [](const Region& a, const Region& b) { return a.offset < b.offset; });
  std::size_t entries_left = kMaxFatBinaryEntries;
  for (const FatBinary& f : listing.fatbins) entries_left -= std::min(entries_left, f.entries.size());
  const std::size_t first = listing.fatbins.size();
  std::size_t skip = 0;  // fat-binary sections ending before the span searched
  for (const Span& d : merged) {
    std::uint64_t from = d.from;
    while (skip < fatbin.size() && fatbin[skip].offset + fatbin[skip].size <= from) ++skip;
    for (std::size_t k = skip; from < d.to; ++k) {
      // The next fat-binary section overlapping [from, d.to), if any, cuts the span there.
      const bool cut = k < fatbin.size() && fatbin[k].offset < d.to;
      const std::uint64_t to = cut ? std::max(from, fatbin[k].offset) : d.to;
      if (to > from)
        find_embedded_cuda({image + from, static_cast<std::size_t>(to - from)}, base + from,
                           entries_left, listing.fatbins);
      if (!cut) break;
      from = std::max(from, fatbin[k].offset + fatbin[k].size);
    }
  }
  for (std::size_t k = first; k < listing.fatbins.size(); ++k) listing.fatbins[k].member = member;
}

/// list_elf() of an ELF file held whole at `image`.
void list_elf_file(unsigned char* image, std::size_t size, KernelListing& listing) {
  init_libelf();
  (void)elf_errno();  // clears a code left by an earlier file: the message must be this one's
  ElfHandle e(elf_memory(reinterpret_cast<char*>(image), size));
  if (e.elf == nullptr || elf_kind(e.elf) != ELF_K_ELF) {
    listing.error = "not a valid ELF file: " + libelf_error();
    return;
  }
  listing.elf = true;
  list_elf(e.elf, image, size, 0, "", listing);
}

/// The ELF members of a static archive (ar, read by libelf: elf_begin on the archive's handle,
/// elf_next, elf_getarhdr, elf_getbase), each listed by list_elf() at its offset; the symbol
/// table ("/") and long-name table ("//") are skipped, like members that are not ELF. libelf
/// ends the walk without an error at a member header it cannot read (a size of "-1", a broken
/// "`\n" magic, a header cut short): bytes left after the last member read are an error that
/// names that header's offset (GNU ar: "malformed archive"), not a shorter listing.
void list_archive(unsigned char* image, std::size_t size, KernelListing& listing) {
  init_libelf();
  ElfHandle ar(elf_memory(reinterpret_cast<char*>(image), size));
  if (ar.elf == nullptr || elf_kind(ar.elf) != ELF_K_AR) {
    listing.error = "not a valid ar archive: " + libelf_error();
    return;
  }
  listing.archive = true;
  // elfutils' elf_memory() opens the archive as ELF_C_READ_MMAP; elf_begin() on it wants the same
  // command (another is "invalid command").
  Elf_Cmd cmd = ELF_C_READ_MMAP;
  std::size_t members = 0;
  std::uint64_t next = 8;  // where the next member header starts: after "!<arch>\n"
  while (cmd != ELF_C_NULL) {
    (void)elf_errno();  // cleared: a null member below is an error only when libelf says one
    ElfHandle m(elf_begin(-1, cmd, ar.elf));
    if (m.elf == nullptr) {
      if (const int err = elf_errno(); err != 0)
        listing.error = std::string("cannot read an archive member: ") + elf_errmsg(err);
      break;
    }
    // elf_getarhdr() gives the archive's current header: read before elf_next() moves on.
    const Elf_Arhdr* h = elf_getarhdr(m.elf);
    if (h == nullptr) {
      listing.error = "cannot read an archive member's header: " + libelf_error();
      return;
    }
    const std::string name = h->ar_name != nullptr ? h->ar_name : "";
    const auto ar_size = h->ar_size;
    if (const std::int64_t data = elf_getbase(m.elf); data >= 0 && ar_size >= 0) {
      next = static_cast<std::uint64_t>(data) + static_cast<std::uint64_t>(ar_size);
      next += next & 1;  // members start on even offsets
    }
    cmd = elf_next(m.elf);
    if (++members > kMaxArchiveMembers) {
      listing.error = fmt::format("more than {} archive members", kMaxArchiveMembers);
      return;
    }
    if (elf_kind(m.elf) != ELF_K_ELF) continue;
    const std::int64_t at = elf_getbase(m.elf);
    const auto base = static_cast<std::uint64_t>(at);
    const auto member_size = static_cast<std::uint64_t>(ar_size);
    if (at < 0 || ar_size < 0 || base > size || member_size > size - base) {
      listing.error = fmt::format("member {}: {} bytes at {} run past the end of the archive",
                                  name, ar_size, at);
      return;
    }
    listing.elf = true;
    list_elf(m.elf, image + base, static_cast<std::size_t>(member_size), base, name, listing);
    if (!listing.error.empty()) {
      listing.error = fmt::format("member {}: {}", name, listing.error);
      return;
    }
  }
  // The walk ended (elf_begin gave no member, or elf_next ELF_C_NULL, also at a header it could
  // not read): anything but a padding byte after the last member is a member left unread.
  if (listing.error.empty() && next < size && !(next + 1 == size && image[next] == '\n'))
    listing.error = fmt::format("damaged archive member header at {:#x} ({} bytes left): the "
                                "members from there on cannot be read",
                                next, size - next);
}

/// The bytes decompressed at most for one file (KernelListing): kMaxDecompressTotal plus
/// kMaxDecompressRatio times the compressed bytes its entries store. Real files decompress to
/// 3 to 13 times what they store (CUDA 13 and cuDNN 9 in /usr/local/cuda/lib64), so all of
/// theirs is read; a hostile file costs at most what a real file of its size costs.
std::uint64_t decompress_budget(const KernelListing& listing) {
  std::uint64_t stored = 0;
  for (const FatBinary& f : listing.fatbins)
    for (const KernelEntry& e : f.entries)
      if (e.compressed()) stored += e.size;  // each inside the file: no overflow
  return kMaxDecompressTotal + kMaxDecompressRatio * stored;
}

/// Checks the payload of every cubin entry it reads (cubin_payload_problem(): an ELF of machine
/// EM_CUDA for the header's SM; a compressed one that does not decompress) and reads the
/// functions of the sound ones: every uncompressed cubin up to kMaxCubinInspectBytes, then the
/// compressed ones (each up to kMaxDecompressBytes, all of a file up to decompress_budget()) in
/// two rounds: first, in each module where no cubin shows a function yet, in increasing size
/// until one holds a function (the cubins of one module need not hold the same functions: code
/// under `#if __CUDA_ARCH__ >= 800` leaves the sm_75 cubin empty, and it is the smallest); then,
/// with what is left of the budget, the others, so that module_fit can compare function sets.
/// The kernels (.entry names, ptx_entry_names()) of PTX entries are read in modules that also
/// have a cubin (module_fit compares them with the cubin loaded): uncompressed ones always,
/// compressed ones in round 2 within the same budget. The entries left unread keep `functions`
/// unset. Entries with a problem make listing.error (when it is empty): the first, and how many
/// more.
void count_cubin_functions(unsigned char* image, KernelListing& listing) {
  std::uint64_t budget = decompress_budget(listing);
  std::vector<std::vector<KernelEntry*>> compressed(listing.fatbins.size());
  const auto read_ptx = [](KernelEntry& entry, std::span<const unsigned char> text) {
    std::vector<std::string> names = ptx_entry_names(
        {reinterpret_cast<const char*>(text.data()), text.size()});
    entry.functions = static_cast<unsigned>(names.size());
    entry.function_names = std::move(names);
  };
  std::vector<unsigned char> buffer;
  const auto decompress = [&](KernelEntry& entry) {
    std::size_t length = 0;
    const bool ok = decompress_entry_into(entry, {image + entry.payload_offset, entry.size},
                                          kMaxDecompressBytes, buffer, length);
    const std::span<unsigned char> payload(buffer.data(), ok ? length : 0);
    if (entry.kind == KernelEntryKind::kPtx) {
      // A PTX payload that does not decompress is the driver's failure at JIT time; here its
      // kernels stay unknown (the module is not compared).
      if (ok) read_ptx(entry, payload);
      return;
    }
    if (!ok) {
      entry.problem = fmt::format("{}-compressed cubin payload does not decompress to the {} "
                                  "bytes its header gives",
                                  to_string(entry.compression), entry.uncompressed_size);
      return;
    }
    entry.problem = cubin_payload_problem(entry, payload);
    if (entry.problem.empty()) read_functions(payload.data(), payload.size(), entry);
  };
  // Round 1: uncompressed cubins (and PTX beside a cubin), then per module the smallest
  // compressed cubins until one has a function.
  for (std::size_t k = 0; k < listing.fatbins.size(); ++k) {
    FatBinary& module = listing.fatbins[k];
    const bool has_cubin = std::any_of(module.entries.begin(), module.entries.end(),
                                       [](const KernelEntry& e) { return e.kind == KernelEntryKind::kCubin; });
    bool found = false;
    std::vector<KernelEntry*> cubins;
    for (KernelEntry& entry : module.entries) {
      if (entry.kind == KernelEntryKind::kPtx && has_cubin && module.entries.size() > 1) {
        if (entry.compressed())
          compressed[k].push_back(&entry);
        else
          read_ptx(entry, {image + entry.payload_offset, entry.size});
        continue;
      }
      if (entry.kind != KernelEntryKind::kCubin) continue;
      if (entry.compressed()) {
        compressed[k].push_back(&entry);
        cubins.push_back(&entry);
        continue;
      }
      const std::span<const unsigned char> payload(image + entry.payload_offset, entry.size);
      entry.problem = cubin_payload_problem(entry, payload);
      if (!entry.problem.empty() || entry.size > kMaxCubinInspectBytes) continue;
      read_functions(image + entry.payload_offset, entry.size, entry);
      found = found || entry.functions.value_or(0) > 0;
    }
    const auto smaller = [](const KernelEntry* a, const KernelEntry* b) {
      return a->uncompressed_size < b->uncompressed_size;
    };
    std::stable_sort(compressed[k].begin(), compressed[k].end(), smaller);
    std::stable_sort(cubins.begin(), cubins.end(), smaller);
    if (found) continue;
    for (KernelEntry* entry : cubins) {
      // Sorted: every later cubin is as large, past the same caps.
      if (entry->uncompressed_size > kMaxDecompressBytes || entry->uncompressed_size > budget)
        break;
      budget -= entry->uncompressed_size;
      decompress(*entry);
      if (entry->functions.value_or(0) > 0) break;
    }
  }
  // Round 2: the compressed cubins and PTX round 1 left unread, while the budget lasts (only
  // where there is something to compare: a module of one image needs no names).
  for (std::size_t k = 0; k < compressed.size(); ++k) {
    if (listing.fatbins[k].entries.size() < 2) continue;
    for (KernelEntry* entry : compressed[k]) {
      if (entry->functions || !entry->problem.empty()) continue;
      if (entry->uncompressed_size > kMaxDecompressBytes || entry->uncompressed_size > budget)
        break;
      budget -= entry->uncompressed_size;
      decompress(*entry);
    }
  }
  std::size_t problems = 0;
  std::string first;
  for (std::size_t k = 0; k < listing.fatbins.size(); ++k)
    for (const KernelEntry& entry : listing.fatbins[k].entries) {
      if (entry.problem.empty()) continue;
      if (problems++ == 0)
        first = fmt::format("fat binary {} at {:#x}: {} entry at {:#x}: {}", k + 1,
                            listing.fatbins[k].offset, entry.arch_name(), entry.offset,
                            entry.problem);
    }
  if (problems > 0 && listing.error.empty())
    listing.error = problems == 1 ? first
                                  : fmt::format("{} (and {} more malformed cubin entr{})", first,
                                                problems - 1, problems == 2 ? "y" : "ies");
}

/// ELF e_machine of NVIDIA CUDA (a cubin): EM_CUDA in elf.h.
constexpr unsigned kEmCuda = 190;

/// The arch suffix ptxas was given ("-arch sm_120a"), as recorded in a cubin's .note.nv.tkinfo
/// (the tool's name, version and options), for a cubin of SM `sm`: plain when not recorded.
ArchVariant cubin_variant(Elf* elf, std::size_t names, int sm) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) break;
    const char* name = elf_strptr(elf, names, shdr.sh_name);
    if (name == nullptr || std::strcmp(name, ".note.nv.tkinfo") != 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) break;
    const std::string_view text(static_cast<const char*>(data->d_buf), data->d_size);
    const std::string arch = fmt::format("-arch sm_{}", sm);
    const std::size_t at = text.find(arch);
    if (at == std::string_view::npos || at + arch.size() >= text.size()) break;
    const char suffix = text[at + arch.size()];
    return suffix == 'a' ? ArchVariant::kArchSpecific
           : suffix == 'f' ? ArchVariant::kFamily
                           : ArchVariant::kPlain;
  }
  return ArchVariant::kPlain;
}

/// A bare cubin (nvcc -cubin): one cubin entry for the whole file, if `elf` is one (e_machine
/// EM_CUDA). The SM is in e_flags: bits 8-15 from ELF ABI version 8 on (CUDA 13's ptxas:
/// 0x6007802 for sm_120), bits 0-7 before (0x500550 for sm_80). False when not a cubin.
bool list_bare_cubin(Elf* elf, std::size_t size, KernelListing& listing) {
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf, &ehdr) == nullptr || static_cast<unsigned>(ehdr.e_machine) != kEmCuda)
    return false;
  listing.elf = true;
  const unsigned abi = ehdr.e_ident[EI_ABIVERSION];
  const int sm = static_cast<int>(abi >= 8 ? (ehdr.e_flags >> 8) & 0xffu : ehdr.e_flags & 0xffu);
  if (sm < 10) {
    listing.error = fmt::format("a cubin (ELF machine EM_CUDA) whose e_flags {:#x} (ELF ABI "
                                "version {}) name no SM",
                                ehdr.e_flags, abi);
    return true;
  }
  KernelEntry entry;
  entry.kind = KernelEntryKind::kCubin;
  entry.raw_kind = 2;
  entry.sm = sm;
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) == 0) entry.variant = cubin_variant(elf, names, sm);
  entry.size = entry.uncompressed_size = size;
  FatBinary whole;
  whole.section = "cubin";
  whole.entries.push_back(entry);
  listing.fatbins.push_back(std::move(whole));
  return true;
}

/// A PTX text (nvcc -ptx): `//` comment and blank lines, then `.version M.m` and, before any
/// other directive but comments, `.target sm_XY[a|f]` (maybe followed by ", debug" and the
/// like). One PTX entry for the whole file; false when the text is not PTX.
bool list_ptx(std::string_view text, KernelListing& listing) {
  std::optional<std::array<int, 2>> version;
  std::size_t at = 0;
  // A real header is within its first lines; 64 KiB of comments is more than nvcc writes.
  const std::string_view head = text.substr(0, 64u << 10);
  while (at < head.size()) {
    std::size_t eol = head.find('\n', at);
    if (eol == std::string_view::npos) eol = head.size();
    std::string_view line = head.substr(at, eol - at);
    at = eol + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (line.empty() || line.substr(0, 2) == "//") continue;
    int major = 0, minor = 0;
    char suffix = 0;
    if (!version) {
      if (std::sscanf(std::string(line).c_str(), ".version %d.%d", &major, &minor) != 2) return false;
      version = std::array<int, 2>{major, minor};
      continue;
    }
    int sm = 0;
    const std::string target(line);
    const int n = std::sscanf(target.c_str(), ".target sm_%d%c", &sm, &suffix);
    if (n < 1 || sm < 10) return false;
    KernelEntry entry;
    entry.kind = KernelEntryKind::kPtx;
    entry.raw_kind = 1;
    entry.sm = sm;
    entry.variant = n == 2 && suffix == 'a'   ? ArchVariant::kArchSpecific
                    : n == 2 && suffix == 'f' ? ArchVariant::kFamily
                                              : ArchVariant::kPlain;
    entry.ptx_version = version;
    entry.size = entry.uncompressed_size = text.size();
    FatBinary whole;
    whole.section = "ptx";
    whole.entries.push_back(entry);
    listing.fatbins.push_back(std::move(whole));
    return true;
  }
  return false;
}

KernelListing list_image(unsigned char* image, std::size_t size, std::string path) {
  KernelListing listing;
  listing.path = std::move(path);
  const std::span<const unsigned char> view(image, size);
  if (is_bare_fat_binary(view)) {
    listing.error = parse_fat_binaries(view, 0, "", listing.fatbins);
  } else if (size >= 4 && std::memcmp(image, "\x7f" "ELF", 4) == 0) {
    init_libelf();
    bool cubin = false;
    bool sectionless = false;
    {
      ElfHandle e(elf_memory(reinterpret_cast<char*>(image), size));
      cubin = e.elf != nullptr && elf_kind(e.elf) == ELF_K_ELF && list_bare_cubin(e.elf, size, listing);
      sectionless = !cubin && e.elf != nullptr && elf_kind(e.elf) == ELF_K_ELF &&
                    !section_table_usable(e.elf);
    }
    if (!cubin) list_elf_file(image, size, listing);
    // Without a usable section header table and no fat binary header in its segments, kernels
    // may still be carried as data; nothing tells where data ends (list_segments()), so the
    // whole file but its own header is searched, and what is found is listed, not judged. (A
    // file with sections had its data sections searched by list_elf().)
    if (!cubin && sectionless && listing.fatbins.empty() && listing.error.empty()) {
      std::size_t entries_left = kMaxFatBinaryEntries;
      const std::size_t found = find_embedded_cuda(view.subspan(1), 1, entries_left, listing.fatbins);
      if (found > 0)
        listing.error = fmt::format(
            "no usable section header table and no fat binary header in its loaded segments: {} "
            "image{} found in its bytes (listed), not judged: data cannot be told from code "
            "without sections",
            found, found == 1 ? "" : "s");
    }
  } else if (size >= 2 && (std::memcmp(image, "//", 2) == 0 ||
                           (size >= 4 && std::memcmp(image, ".ver", 4) == 0))) {
    list_ptx({reinterpret_cast<const char*>(image), size}, listing);
    return listing;
  } else if (size >= 8 && std::memcmp(image, "!<arch>\n", 8) == 0) {
    list_archive(image, size, listing);
  } else {
    return listing;
  }
  count_cubin_functions(image, listing);
  return listing;
}

/// A file descriptor closed on scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};


std::atomic<detail::KernelsMappedHook> g_mapped_hook{nullptr};

}  // namespace

KernelListing list_kernels_in_memory(std::span<const unsigned char> image, std::string path) {
  std::vector<unsigned char> copy(image.begin(), image.end());
  return list_image(copy.data(), copy.size(), std::move(path));
}

KernelListing list_kernels(const std::string& path) {
  // O_NONBLOCK: open(2) of a FIFO without a writer would block forever; fstat refuses it next.
  // A regular file's reads and mmap ignore the flag.
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (file.fd < 0) throw Error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return list_kernels_at(file.fd, path);
}

KernelListing list_kernels_at(int fd, std::string path) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    throw Error(path, 0, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error(path, 0, "not a regular file");
  unsigned char head[4];
  if (st.st_size < 4 || ::pread(fd, head, 4, 0) != 4 || !may_carry_cuda_code(head)) {
    KernelListing empty;
    empty.path = std::move(path);
    return empty;
  }
  detail::MappedFile image(fd, static_cast<std::size_t>(st.st_size), path);
  if (detail::KernelsMappedHook hook = g_mapped_hook.load()) hook(path);
  KernelListing listing = image.guarded([&](unsigned char* data, std::size_t size) {
    return list_image(data, size, path);
  });
  if (image.shrank())
    throw Error(path, 0, "changed while it was read (the file shrank); run again when it is still");
  return listing;
}

namespace detail {
void set_kernels_mapped_hook(KernelsMappedHook hook) { g_mapped_hook.store(hook); }
}  // namespace detail

}  // namespace sm120check
