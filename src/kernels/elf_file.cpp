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
#include <functional>
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

/// Gives back the whole pages of [bytes, bytes + size) of a private file mapping that nothing
/// has written (madvise MADV_DONTNEED): a later read maps the file's page again, with the same
/// bytes (from the page cache). Used once a data section has been searched: libcublasLt.so.13's
/// 280 MB of them no longer count in the resident set while its entries are decompressed, and
/// while other files are listed at once (its peak: 446 MB -> 263 MB). Never for memory that is
/// not a file mapping (its pages would read as zeros). (Giving back each compressed payload
/// once decompressed took it to 174 MB, but cost 0.2 s of system time: not done.)
void release_pages(unsigned char* bytes, std::size_t size) {
  static const std::uintptr_t page = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::uintptr_t>(p) : std::uintptr_t{4096};
  }();
  const auto from = (reinterpret_cast<std::uintptr_t>(bytes) + page - 1) & ~(page - 1);
  const auto to = (reinterpret_cast<std::uintptr_t>(bytes) + size) & ~(page - 1);
  if (to > from) (void)::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

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
              const std::string& member, bool file_mapped, KernelListing& listing) {
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
    // Its pages are given back as the parse goes (the kernel maps those around each entry
    // header read, most of the section: 139 MB for libcublasLt.so.13), and all of them after.
    unsigned char* const start = image + r.offset;
    const auto give_back = [start](std::size_t a, std::size_t b) { release_pages(start + a, b - a); };
    std::string error = parse_fat_binaries(
        {start, static_cast<std::size_t>(r.size)}, base + r.offset, r.section, listing.fatbins,
        file_mapped ? std::function<void(std::size_t, std::size_t)>(give_back) : nullptr);
    for (std::size_t k = first; k < listing.fatbins.size(); ++k) listing.fatbins[k].member = member;
    if (!error.empty()) {
      listing.error = std::string(r.section) + ": " + error;
      return;
    }
    // count_cubin_functions() reads the compressed payloads with pread(2), not through the
    // mapping.
    if (file_mapped) release_pages(start, static_cast<std::size_t>(r.size));
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
      if (to > from) {
        // Given back as the search goes (16 MiB at a time), not only once searched:
        // libcufft.so.12's .ldata alone is 278 MB.
        unsigned char* const start = image + from;
        const auto give_back = [start](std::size_t a, std::size_t b) { release_pages(start + a, b - a); };
        find_embedded_cuda({start, static_cast<std::size_t>(to - from)}, base + from,
                           entries_left, listing.fatbins,
                           file_mapped ? std::function<void(std::size_t, std::size_t)>(give_back)
                                       : nullptr);
      }
      if (!cut) break;
      from = std::max(from, fatbin[k].offset + fatbin[k].size);
    }
  }
  for (std::size_t k = first; k < listing.fatbins.size(); ++k) listing.fatbins[k].member = member;
}

/// list_elf() of an ELF file held whole at `image`.
void list_elf_file(unsigned char* image, std::size_t size, bool file_mapped, KernelListing& listing) {
  init_libelf();
  (void)elf_errno();  // clears a code left by an earlier file: the message must be this one's
  ElfHandle e(elf_memory(reinterpret_cast<char*>(image), size));
  if (e.elf == nullptr || elf_kind(e.elf) != ELF_K_ELF) {
    listing.error = "not a valid ELF file: " + libelf_error();
    return;
  }
  listing.elf = true;
  list_elf(e.elf, image, size, 0, "", file_mapped, listing);
}

/// The ELF members of a static archive (ar, read by libelf: elf_begin on the archive's handle,
/// elf_next, elf_getarhdr, elf_getbase), each listed by list_elf() at its offset; the symbol
/// table ("/") and long-name table ("//") are skipped, like members that are not ELF. libelf
/// ends the walk without an error at a member header it cannot read (a size of "-1", a broken
/// "`\n" magic, a header cut short): bytes left after the last member read are an error that
/// names that header's offset (GNU ar: "malformed archive"), not a shorter listing.
void list_archive(unsigned char* image, std::size_t size, bool file_mapped, KernelListing& listing) {
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
    list_elf(m.elf, image + base, static_cast<std::size_t>(member_size), base, name, file_mapped,
             listing);
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

/// The buffers a thread decompresses payloads with (decompress_entry_to()), kept from payload to
/// payload and file to file while a payload and its compressed bytes fit in kKeptBufferBytes
/// each; a larger one takes a buffer from large_buffers() while it is read.
struct KeptBuffers {
  std::vector<unsigned char> payload;  ///< the payload decompressed
  std::vector<unsigned char> stored;   ///< its compressed bytes, read from the file
};
thread_local KeptBuffers t_kept;

/// Reads `out.size()` bytes of the file open at `fd` from `offset` (pread(2), again after a
/// short read or EINTR); false when the file ends first or a read fails.
bool read_at(int fd, std::uint64_t offset, std::span<unsigned char> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + done, out.size() - done,
                              static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Checks the payload of every cubin entry it reads (cubin_payload_problem(): an ELF of machine
/// EM_CUDA for the header's SM; a compressed one that does not decompress) and reads the
/// functions of the sound ones: every uncompressed cubin up to kMaxCubinInspectBytes, then the
/// compressed ones (each up to kMaxDecompressBytes, all of a file up to decompress_budget()) in
/// two rounds: first, in each module where no cubin shows a function yet, in increasing size
/// until one holds a function (the cubins of one module need not hold the same functions: code
/// under `#if __CUDA_ARCH__ >= 800` leaves the sm_75 cubin empty, and it is the smallest); then,
/// with what is left of the budget, the others, so that module_fit can compare function sets.
/// The kernels (.entry names, ptx_entry_names()) of PTX entries are read in modules of two or
/// more entries (module_fit compares them with the cubin loaded, or the PTX JIT-compiled with
/// the other images): uncompressed ones always, compressed ones in round 2 within the same
/// budget. The entries left unread keep `functions`
/// unset. Entries with a problem make listing.error (when it is empty): the first, and how many
/// more.
/// When the budget covers twice what every compressed entry the rounds may read decompresses to
/// (a real file's: libcublasLt.so.13 decompresses 1.43 GB of a budget of 4.5 GB), the rounds
/// read every one of them, each once (twice at most, a cubin libelf refuses), whatever their
/// order: then they are read on kernel_threads() threads at once (for_each_concurrently(), each
/// thread into its own buffers), with the same result.
/// `image` is the whole file (entries' offsets are from its start); `fd` the descriptor it is
/// mapped from, or -1 (a copy in memory). A mapped file's compressed payloads are read with
/// pread(2) into the thread's buffers, not through the mapping: the mapping's pages would count
/// in the resident set until the file is done (140 MB for libcublasLt.so.13, for each of the
/// files listed at once); where pread comes short (the file shrank) the mapping is read, whose
/// guard then says so. Memory: per thread, KeptBuffers up to 2 x kKeptBufferBytes; beyond,
/// the larger payloads' buffers within large_buffers()' limit for the whole process.
void count_cubin_functions(unsigned char* image, int fd, KernelListing& listing) {
  init_libelf();  // before any thread reads a cubin (a bare fat binary did not need it yet)
  std::uint64_t budget = decompress_budget(listing);
  std::vector<std::vector<KernelEntry*>> compressed(listing.fatbins.size());
  std::vector<std::vector<KernelEntry*>> compressed_cubins(listing.fatbins.size());
  std::vector<bool> found(listing.fatbins.size(), false);
  const auto read_ptx = [](KernelEntry& entry, std::span<const unsigned char> text) {
    std::vector<std::string> names = ptx_entry_names(
        {reinterpret_cast<const char*>(text.data()), text.size()});
    entry.functions = static_cast<unsigned>(names.size());
    entry.function_names = std::move(names);
  };
  const auto decompress = [&](KernelEntry& entry) {
    // Compressed entries only, each within kMaxDecompressBytes (the rounds below see to it).
    const std::size_t want = static_cast<std::size_t>(entry.uncompressed_size);
    std::span<const unsigned char> stored(image + entry.payload_offset, entry.size);
    // Read from the file when mapped; stored bytes larger than any payload (not a real entry's)
    // are read through the mapping as they are.
    const bool staged = fd >= 0 && entry.size <= kMaxDecompressBytes;
    const std::uint64_t kept = kept_buffer_bytes();
    const bool large = want > kept || (staged && entry.size > kept);
    // A large payload and its compressed bytes: one buffer of the shared pool, split in two.
    std::optional<BufferPool::Lease> lease;
    if (large) lease.emplace(large_buffers().take(want + (staged ? entry.size : 0)));
    std::span<unsigned char> out, copy;
    if (large) {
      out = lease->bytes().first(want);
      copy = lease->bytes().subspan(want, staged ? entry.size : 0);
    } else {
      if (t_kept.payload.size() < want) t_kept.payload.resize(want);
      out = t_kept.payload;
      if (staged && t_kept.stored.size() < entry.size) t_kept.stored.resize(entry.size);
      if (staged) copy = std::span<unsigned char>(t_kept.stored).first(entry.size);
    }
    if (staged && read_at(fd, entry.payload_offset, copy)) stored = copy;
    std::size_t length = 0;
    const bool ok = decompress_entry_to(entry, stored, kMaxDecompressBytes, out, length);
    const std::span<unsigned char> payload(out.data(), ok ? length : 0);
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
  // The uncompressed cubins (and PTX beside another image); the compressed entries per module,
  // smallest first.
  for (std::size_t k = 0; k < listing.fatbins.size(); ++k) {
    FatBinary& module = listing.fatbins[k];
    for (KernelEntry& entry : module.entries) {
      if (entry.kind == KernelEntryKind::kPtx && module.entries.size() > 1) {
        if (entry.compressed())
          compressed[k].push_back(&entry);
        else
          read_ptx(entry, {image + entry.payload_offset, entry.size});
        continue;
      }
      if (entry.kind != KernelEntryKind::kCubin) continue;
      if (entry.compressed()) {
        compressed[k].push_back(&entry);
        compressed_cubins[k].push_back(&entry);
        continue;
      }
      const std::span<const unsigned char> payload(image + entry.payload_offset, entry.size);
      entry.problem = cubin_payload_problem(entry, payload);
      if (!entry.problem.empty() || entry.size > kMaxCubinInspectBytes) continue;
      read_functions(image + entry.payload_offset, entry.size, entry);
      found[k] = found[k] || entry.functions.value_or(0) > 0;
    }
    const auto smaller = [](const KernelEntry* a, const KernelEntry* b) {
      return a->uncompressed_size < b->uncompressed_size;
    };
    std::stable_sort(compressed[k].begin(), compressed[k].end(), smaller);
    std::stable_sort(compressed_cubins[k].begin(), compressed_cubins[k].end(), smaller);
  }
  // What the rounds may read: every compressed entry within kMaxDecompressBytes (round 1 reads
  // a module's only entry; round 2 the rest of every module of two or more).
  std::vector<KernelEntry*> all;
  std::uint64_t all_bytes = 0;
  for (const std::vector<KernelEntry*>& module : compressed)
    for (KernelEntry* entry : module)
      if (entry->uncompressed_size <= kMaxDecompressBytes) {
        all.push_back(entry);
        all_bytes += entry->uncompressed_size;  // at most 2^20 entries of 2^28 bytes each
      }
  if (all.size() > 1 && 2 * all_bytes <= budget) {
    // Largest first: the threads finish together.
    std::stable_sort(all.begin(), all.end(), [](const KernelEntry* a, const KernelEntry* b) {
      return a->uncompressed_size > b->uncompressed_size;
    });
    detail::ShrinkGuard* guard = detail::current_shrink_guard();  // the mapping's, read by all
    for_each_concurrently(all.size(), [&](std::size_t item) {
      const detail::ShrinkGuardScope scope(guard);
      decompress(*all[item]);
    });
  } else {
    // Round 1: per module the smallest compressed cubins until one has a function.
    for (std::size_t k = 0; k < listing.fatbins.size(); ++k) {
      if (found[k]) continue;
      for (KernelEntry* entry : compressed_cubins[k]) {
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

/// Where the first byte of `head` from `at` on lies that is neither white space nor inside a
/// `//` or `/* */` comment (what ptxas skips before a directive); head.size() when none does
/// (an unclosed comment included).
std::size_t skip_ptx_space(std::string_view head, std::size_t at) {
  while (at < head.size()) {
    const char c = head[at];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++at;
    } else if (head.substr(at, 2) == "//") {
      const std::size_t eol = head.find('\n', at);
      at = eol == std::string_view::npos ? head.size() : eol + 1;
    } else if (head.substr(at, 2) == "/*") {
      const std::size_t end = head.find("*/", at + 2);
      at = end == std::string_view::npos ? head.size() : end + 2;
    } else {
      break;
    }
  }
  return at;
}

/// A real PTX header is within its first lines; 64 KiB of comments is more than nvcc writes
/// (or a licence block above it).
constexpr std::size_t kMaxPtxHeadBytes = 64u << 10;

/// True when `text` starts as a PTX text: white space and comments (a licence block, blank
/// lines), then `.version`, within its first kMaxPtxHeadBytes.
bool looks_like_ptx(std::string_view text) {
  const std::string_view head = text.substr(0, kMaxPtxHeadBytes);
  return head.substr(skip_ptx_space(head, 0)).starts_with(".version");
}

/// A PTX text (nvcc -ptx): white space and comments (`//`, `/* */`), then `.version M.m` and,
/// before any other directive but comments, `.target sm_XY[a|f]` (maybe followed by ", debug"
/// and the like). One PTX entry for the whole file; false when the text is not PTX.
bool list_ptx(std::string_view text, KernelListing& listing) {
  std::optional<std::array<int, 2>> version;
  std::size_t at = 0;
  const std::string_view head = text.substr(0, kMaxPtxHeadBytes);
  while ((at = skip_ptx_space(head, at)) < head.size()) {
    std::size_t eol = head.find('\n', at);
    if (eol == std::string_view::npos) eol = head.size();
    std::string_view line = head.substr(at, eol - at);
    at = eol + 1;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
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

/// A file descriptor closed on scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// The start of a GNU thin archive (`ar rcT`): member headers as in "!<arch>\n", but the
/// members' bytes are not in it; each member is a file of its own named by its path.
constexpr std::string_view kThinArchiveMagic = "!<thin>\n";

/// The member paths of the thin archive `image`, in order, into `paths`; "" or why its headers
/// cannot be read. The layout is GNU ar's (binutils bfd/archive.c): after the magic, 60-byte
/// headers (name[16] date[12] uid[6] gid[6] mode[8] size[10] "`\n"); only the symbol table
/// ("/", "/SYM64/") and the long-name table ("//") have their `size` bytes after the header
/// (padded to even), the members have none. A member's name is "/N" (offset N into the
/// long-name table, ended by "/\n"; GNU ar writes every thin member so) or "NAME/".
std::string thin_archive_members(std::span<const unsigned char> image,
                                 std::vector<std::string>& paths) {
  const auto text = [&](std::size_t at, std::size_t n) {
    return std::string_view(reinterpret_cast<const char*>(image.data()) + at, n);
  };
  const auto trim = [](std::string_view v) {
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  std::string_view long_names;
  std::size_t at = kThinArchiveMagic.size();
  while (at < image.size()) {
    if (image.size() - at == 1 && image[at] == '\n') break;  // padding after the last header
    if (image.size() - at < 60 || text(at + 58, 2) != "`\n")
      return fmt::format("thin archive: damaged member header at {:#x}", at);
    const std::string_view name = trim(text(at, 16));
    const std::string_view size_field = trim(text(at + 48, 10));
    std::uint64_t size = 0;
    if (size_field.empty() || size_field.size() > 10 ||
        size_field.find_first_not_of("0123456789") != std::string_view::npos)
      return fmt::format("thin archive: member header at {:#x} has no decimal size", at);
    for (const char c : size_field) size = size * 10 + static_cast<unsigned>(c - '0');
    const std::size_t data = at + 60;
    if (name == "/" || name == "/SYM64/" || name == "//") {
      if (size > image.size() - data)
        return fmt::format("thin archive: the table at {:#x} ({} bytes) runs past the end", at,
                           size);
      if (name == "//") long_names = text(data, static_cast<std::size_t>(size));
      at = data + static_cast<std::size_t>(size);
      at += at & 1;
      continue;
    }
    if (paths.size() == kMaxArchiveMembers)
      return fmt::format("more than {} archive members", kMaxArchiveMembers);
    std::string_view path;
    if (name.size() > 1 && name.front() == '/' &&
        name.find_first_not_of("0123456789", 1) == std::string_view::npos) {
      std::size_t offset = 0;
      for (const char c : name.substr(1)) offset = offset * 10 + static_cast<unsigned>(c - '0');
      const std::size_t end = offset < long_names.size() ? long_names.find("/\n", offset)
                                                         : std::string_view::npos;
      if (name.size() > 11 || end == std::string_view::npos)
        return fmt::format("thin archive: member header at {:#x} names {} outside the long-name "
                           "table",
                           at, name);
      path = long_names.substr(offset, end - offset);
    } else {
      path = name.substr(0, name.find('/'));
    }
    paths.emplace_back(path);
    at = data;
  }
  return {};
}

/// The folder a thin archive's member paths are relative to: that of the file open at `fd`
/// (its /proc/self/fd link: callers may name the file relative to a folder of their own), else
/// that of `path`.
std::string thin_archive_folder(int fd, const std::string& path) {
  char target[4096];
  const std::string link = fmt::format("/proc/self/fd/{}", fd);
  const ssize_t n = fd >= 0 ? ::readlink(link.c_str(), target, sizeof target) : -1;
  std::string file = n > 0 && static_cast<std::size_t>(n) < sizeof target && target[0] == '/'
                         ? std::string(target, static_cast<std::size_t>(n))
                         : path;
  const std::size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
}

/// Lists the members of the GNU thin archive `image` (thin_archive_members()): each member
/// path, relative to `folder`, is opened and read as an archive member (list_elf(); members
/// that are not ELF are skipped), its fat binaries' offsets from the member file's start. A
/// file named twice (same device and inode) is read once. An absolute member path is not read
/// (which root it means is not known: a scanned root file system is not this one), nor one
/// whose file cannot be opened: both are an error (the listing would lack its code). With
/// `folder` unset (an image in memory) no member is read: an error when it has any.
void list_thin_archive(const unsigned char* image, std::size_t size,
                       const std::optional<std::string>& folder, KernelListing& listing) {
  listing.archive = true;
  std::vector<std::string> paths;
  listing.error = thin_archive_members({image, size}, paths);
  if (!listing.error.empty() || paths.empty()) return;
  if (!folder) {
    listing.error = fmt::format("a thin archive (ar T): its {} member{} are files of their own, "
                                "not read from an image in memory",
                                paths.size(), paths.size() == 1 ? "" : "s");
    return;
  }
  std::vector<std::pair<dev_t, ino_t>> seen;
  for (const std::string& name : paths) {
    const auto fail = [&](const std::string& why) {
      listing.error = fmt::format("thin archive member {}: {}", name, why);
    };
    if (name.empty() || name.front() == '/') {
      fail("an absolute path (or none): not read, the code it holds is not listed");
      return;
    }
    const std::string path = *folder + "/" + name;
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
    struct stat st;
    if (file.fd < 0 || ::fstat(file.fd, &st) != 0) {
      fail(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      fail(path + " is not a regular file");
      return;
    }
    const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
    seen.push_back(id);
    unsigned char head[4];
    if (st.st_size < 4 || ::pread(file.fd, head, 4, 0) != 4 ||
        std::memcmp(head, "\x7f" "ELF", 4) != 0)
      continue;  // not an object, as list_archive() skips such members
    KernelListing member;
    try {
      detail::MappedFile mapped(file.fd, static_cast<std::size_t>(st.st_size), path);
      mapped.guarded([&](unsigned char* data, std::size_t bytes) {
        init_libelf();
        (void)elf_errno();
        ElfHandle e(elf_memory(reinterpret_cast<char*>(data), bytes));
        if (e.elf == nullptr || elf_kind(e.elf) != ELF_K_ELF) {
          member.error = "not a valid ELF file: " + libelf_error();
          return;
        }
        member.elf = true;
        list_elf(e.elf, data, bytes, 0, name, true, member);
        if (member.error.empty()) count_cubin_functions(data, file.fd, member);
      });
      if (mapped.shrank()) member.error = "changed while it was read (the file shrank)";
    } catch (const Error& err) {
      member.error = err.message();
    }
    listing.elf = listing.elf || member.elf;
    for (FatBinary& f : member.fatbins) listing.fatbins.push_back(std::move(f));
    if (!member.error.empty()) {
      fail(member.error);
      return;
    }
    if (listing.entry_count() > kMaxFatBinaryEntries) {
      listing.error = fmt::format("thin archive: more than {} fat-binary entries in its members",
                                  kMaxFatBinaryEntries);
      return;
    }
  }
}

/// The listing of the file `image` (list_kernels_in_memory()); `fd` is the descriptor it was
/// mapped from (a private mapping of the file, whose pages may be given back: release_pages()),
/// -1 for a copy in memory (whose pages would read as zeros then; a thin archive's members are
/// then not read).
KernelListing list_image(unsigned char* image, std::size_t size, std::string path, int fd) {
  const bool file_mapped = fd >= 0;
  KernelListing listing;
  listing.path = std::move(path);
  const std::span<const unsigned char> view(image, size);
  if (is_bare_fat_binary(view)) {
    // Given back as parsed and after, as list_elf() does.
    const auto give_back = [image](std::size_t a, std::size_t b) { release_pages(image + a, b - a); };
    listing.error = parse_fat_binaries(
        view, 0, "", listing.fatbins,
        file_mapped ? std::function<void(std::size_t, std::size_t)>(give_back) : nullptr);
    if (file_mapped) release_pages(image, size);
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
    if (!cubin) list_elf_file(image, size, file_mapped, listing);
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
  } else if (looks_like_ptx({reinterpret_cast<const char*>(image), size})) {
    list_ptx({reinterpret_cast<const char*>(image), size}, listing);
    return listing;
  } else if (size >= 8 && std::memcmp(image, "!<arch>\n", 8) == 0) {
    list_archive(image, size, file_mapped, listing);
  } else if (size >= kThinArchiveMagic.size() &&
             std::memcmp(image, kThinArchiveMagic.data(), kThinArchiveMagic.size()) == 0) {
    // Each member was read (functions counted) from its own file.
    list_thin_archive(image, size,
                      fd >= 0 ? std::optional(thin_archive_folder(fd, listing.path)) : std::nullopt,
                      listing);
    return listing;
  } else {
    return listing;
  }
  count_cubin_functions(image, fd, listing);
  return listing;
}


std::atomic<detail::KernelsMappedHook> g_mapped_hook{nullptr};

}  // namespace

KernelListing list_kernels_in_memory(std::span<const unsigned char> image, std::string path) {
  std::vector<unsigned char> copy(image.begin(), image.end());
  return list_image(copy.data(), copy.size(), std::move(path), -1);
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
    return list_image(data, size, path, fd);
  });
  if (image.shrank())
    throw Error(path, 0, "changed while it was read (the file shrank); run again when it is still");
  return listing;
}

namespace detail {
void set_kernels_mapped_hook(KernelsMappedHook hook) { g_mapped_hook.store(hook); }
}  // namespace detail

}  // namespace sm120check
