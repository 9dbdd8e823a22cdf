// The ELF side of the kernel listing, through libelf (elfutils): the sections that hold fat
// binaries (include/fatbinary_section.h names them), and the functions of each uncompressed
// cubin (an ELF image itself). list_kernels() maps the file privately, so nothing is read whole
// and nothing can be written back.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "internal.hpp"
#include "sm120check/error.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check {
namespace {

// FATBIN_DATA_SECTION_NAME and FATBIN_PRELINK_DATA_SECTION_NAME of fatbinary_section.h (Linux).
constexpr std::string_view kFatbinSection = ".nv_fatbin";
constexpr std::string_view kRelFatbinSection = "__nv_relfatbin";

void init_libelf() {
  static std::once_flag once;
  std::call_once(once, [] { elf_version(EV_CURRENT); });
}

std::string libelf_error() {
  const char* message = elf_errmsg(-1);
  return message != nullptr ? message : "unknown libelf error";
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

/// Functions of a cubin: its ".text.NAME" sections (ptxas puts each function's SASS in one).
/// std::nullopt when the payload is not an ELF image libelf accepts.
std::optional<unsigned> count_functions(unsigned char* cubin, std::size_t size) {
  if (size < 4 || std::memcmp(cubin, "\x7f" "ELF", 4) != 0) return std::nullopt;
  ElfHandle e(elf_memory(reinterpret_cast<char*>(cubin), size));
  std::size_t names = 0;
  if (e.elf == nullptr || elf_kind(e.elf) != ELF_K_ELF || elf_getshdrstrndx(e.elf, &names) != 0)
    return std::nullopt;
  unsigned functions = 0;
  for (Elf_Scn* scn = elf_nextscn(e.elf, nullptr); scn != nullptr; scn = elf_nextscn(e.elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) return std::nullopt;
    const char* name = elf_strptr(e.elf, names, shdr.sh_name);
    if (name != nullptr && std::strncmp(name, ".text.", 6) == 0) ++functions;
  }
  return functions;
}

/// Reads the fat-binary sections of an ELF image. `image` must stay writable and private: libelf
/// may convert data in place (it does not for the native byte order, but nothing here relies on
/// that).
void list_elf(unsigned char* image, std::size_t size, KernelListing& listing) {
  init_libelf();
  ElfHandle e(elf_memory(reinterpret_cast<char*>(image), size));
  if (e.elf == nullptr || elf_kind(e.elf) != ELF_K_ELF) {
    listing.error = "not a valid ELF file: " + libelf_error();
    return;
  }
  listing.elf = true;
  // libelf pretends there is no section when the section header table lies past the end (a
  // file cut short): say so rather than list nothing. (e_shnum 0 with e_shoff set: more than
  // 0xff00 sections, counted in the first header, which libelf then reads.)
  GElf_Ehdr ehdr;
  if (gelf_getehdr(e.elf, &ehdr) == nullptr) {
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
  std::size_t names = 0;
  if (elf_getshdrstrndx(e.elf, &names) != 0) {
    listing.error = "cannot read the ELF section names: " + libelf_error();
    return;
  }
  struct Region {
    std::string_view section;
    std::uint64_t offset, size;
  };
  std::vector<Region> fatbin, relfatbin;
  for (Elf_Scn* scn = elf_nextscn(e.elf, nullptr); scn != nullptr; scn = elf_nextscn(e.elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) {
      listing.error = "cannot read an ELF section header: " + libelf_error();
      return;
    }
    const char* name = elf_strptr(e.elf, names, shdr.sh_name);
    if (name == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const bool is_fatbin = name == kFatbinSection;
    if (!is_fatbin && name != kRelFatbinSection) continue;
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
    std::string error = parse_fat_binaries({image + r.offset, r.size}, r.offset, r.section,
                                           listing.fatbins);
    if (!error.empty()) {
      listing.error = std::string(r.section) + ": " + error;
      break;
    }
  }
}

/// Counts the functions of every uncompressed cubin of the listing, and, in a module whose
/// cubins are all compressed, of the smallest one (decompressed, up to kMaxDecompressBytes).
void count_cubin_functions(unsigned char* image, KernelListing& listing) {
  std::uint64_t budget = kMaxDecompressTotal;
  for (FatBinary& f : listing.fatbins) {
    KernelEntry* smallest = nullptr;
    bool known = false;
    for (KernelEntry& entry : f.entries) {
      if (entry.kind != KernelEntryKind::kCubin) continue;
      if (entry.compressed()) {
        if (smallest == nullptr || entry.uncompressed_size < smallest->uncompressed_size)
          smallest = &entry;
        continue;
      }
      if (entry.size > kMaxCubinInspectBytes) continue;
      entry.functions = count_functions(image + entry.payload_offset, entry.size);
      known = known || entry.functions.has_value();
    }
    if (known || smallest == nullptr || smallest->uncompressed_size > budget) continue;
    budget -= smallest->uncompressed_size;
    std::optional<std::vector<unsigned char>> cubin = decompress_entry(
        *smallest, {image + smallest->payload_offset, smallest->size}, kMaxDecompressBytes);
    if (cubin) smallest->functions = count_functions(cubin->data(), cubin->size());
  }
}

KernelListing list_image(unsigned char* image, std::size_t size, std::string path) {
  KernelListing listing;
  listing.path = std::move(path);
  const std::span<const unsigned char> view(image, size);
  if (is_bare_fat_binary(view)) {
    listing.error = parse_fat_binaries(view, 0, "", listing.fatbins);
  } else if (size >= 4 && std::memcmp(image, "\x7f" "ELF", 4) == 0) {
    list_elf(image, size, listing);
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
  const auto size = static_cast<std::size_t>(st.st_size);
  // Private and writable: libelf may convert in place; the file is never written.
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) throw Error(path, 0, std::string("cannot map: ") + std::strerror(errno));
  KernelListing listing;
  try {
    listing = list_image(static_cast<unsigned char*>(map), size, std::move(path));
  } catch (...) {
    ::munmap(map, size);
    throw;
  }
  ::munmap(map, size);
  return listing;
}

}  // namespace sm120check
