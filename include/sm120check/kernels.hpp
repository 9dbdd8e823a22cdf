// Compiled CUDA code in a file: the fat binaries an ELF shared object, executable or relocatable
// object carries (sections .nv_fatbin and __nv_relfatbin), their entries (cubin with SASS for one
// SM, PTX for one virtual architecture, LTO IR), and whether a GPU of a given compute capability
// can run them: exact SASS, a compatible cubin, only PTX the driver must JIT, or nothing (the
// CUDA runtime's "no kernel image is available for execution on the device").
//
// Sources. The ELF side goes through libelf (elfutils). The section names and the runtime wrapper
// are in the CUDA toolkit's include/fatbinary_section.h. The fat binary's own layout is not
// documented by NVIDIA; src/kernels/fatbin.cpp says field by field where each fact comes from
// (public descriptions, checked against objects built with nvcc 13.0: tests/data/kernels).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/gpu.hpp"

namespace sm120check {

/// What a fat-binary entry holds (the entry header's kind field).
enum class KernelEntryKind {
  kCubin,    ///< kind 2: an ELF cubin, SASS for one real architecture (sm_XY)
  kPtx,      ///< kind 1: PTX text for one virtual architecture (compute_XY), JIT-compiled
  kLtoIr,    ///< kind 8: NVVM IR for link-time optimisation (lto_XY); only the device linker reads it
  kUnknown,  ///< any other kind value (raw_kind says which)
};

/// "cubin", "ptx", "lto-ir", "unknown".
std::string_view to_string(KernelEntryKind kind);

/// The architecture suffix of an entry (CUDA Programming Guide, "Feature Availability":
/// architecture-specific and family-specific feature sets).
enum class ArchVariant {
  kPlain,         ///< sm_120: binary compatible within the major version
  kArchSpecific,  ///< sm_120a: runs on compute capability 12.0 only
  kFamily,        ///< sm_120f: runs on 12.y with y >= 0 (the 12.x family)
};

/// How an entry's payload is stored.
enum class KernelCompression {
  kNone,
  kLz4,   ///< entry flag 0x2000: an LZ4 block (nvcc 13.0 with --compress-mode=speed)
  kZstd,  ///< entry flag 0x8000: a zstd frame (nvcc 13.0's default, --compress-mode=size)
};

/// "none", "lz4", "zstd".
std::string_view to_string(KernelCompression compression);

/// One entry of a fat binary. Read from the entry header alone: a compressed payload is not
/// decompressed (its kind, architecture and PTX version are in the header).
struct KernelEntry {
  KernelEntryKind kind = KernelEntryKind::kUnknown;
  unsigned raw_kind = 0;  ///< the header's kind field (1 PTX, 2 cubin, 8 LTO IR)
  int sm = 0;             ///< architecture number XY: 120 for sm_120 / compute_120
  ArchVariant variant = ArchVariant::kPlain;
  /// PTX ISA version of a PTX entry (9.0 for nvcc 13.0): the header's major and minor fields.
  /// Unset for other kinds (a cubin's header holds its ELF ABI version there).
  std::optional<std::array<int, 2>> ptx_version;
  KernelCompression compression = KernelCompression::kNone;
  std::uint64_t offset = 0;             ///< of the entry header, in bytes from the file start
  std::uint64_t payload_offset = 0;     ///< of the payload (after the entry header), likewise
  std::uint64_t size = 0;               ///< payload bytes as stored (compressed size if compressed)
  std::uint64_t uncompressed_size = 0;  ///< payload bytes once decompressed (= size if not)
  /// Functions of a cubin (its ".text.NAME" sections): known for every uncompressed cubin up to
  /// kMaxCubinInspectBytes, and for compressed ones decompressed within kMaxDecompressBytes each
  /// and the file's decompression budget (kMaxDecompressTotal, kMaxDecompressRatio; smallest
  /// first: every cubin of a module is read while the budget lasts, to compare their function
  /// sets: module_fit). For a PTX entry in a module of two or more entries: its kernels (`.entry`
  /// directives), uncompressed ones always, compressed ones within the same budget. Unset
  /// otherwise. 0: no kernel (nvcc's link stub, below).
  std::optional<unsigned> functions;
  /// The kernels compared by module_fit, sorted (mangled as in the cubin): of a cubin, its
  /// function symbols marked as entries (st_other 0x10), or every ".text.NAME" NAME when it has
  /// no symbol table (a device-linked cubin has .text sections for device functions too:
  /// libnccl's __cuda_sm70_* helpers, in its sm_70 to sm_90 cubins only); of a PTX, its
  /// `.entry NAME`s. Empty when `functions` is unset or 0.
  std::vector<std::string> function_names;
  /// Why the entry cannot be loaded although its header parses, one phrase ("" when nothing is
  /// known to be wrong): a cubin payload that is empty, not an ELF image of machine EM_CUDA, an
  /// ELF for another SM than the header's (e_flags), or compressed data that does not
  /// decompress. The driver picks an entry by its header and then fails on the payload, so such
  /// an entry never fits (entry_fit) and the file is malformed (KernelListing::error).
  std::string problem;

  /// "sm_120a" for a cubin, "compute_120a" for PTX, "lto_120" for LTO IR, "kind_N_120" else.
  std::string arch_name() const;
  bool compressed() const noexcept { return compression != KernelCompression::kNone; }
};

/// One fat binary (one module the CUDA runtime registers; nvcc makes one per translation unit).
struct FatBinary {
  /// ".nv_fatbin", "__nv_relfatbin", "" for a bare .fatbin file; "cubin" for a bare cubin file
  /// (an ELF of machine EM_CUDA, nvcc -cubin) and "ptx" for a PTX text file (nvcc -ptx): one
  /// entry, the whole file, not in any fat binary; "segment" for one found by its header in a
  /// loaded segment of an ELF file without a section header table (list_kernels_in_memory());
  /// "embedded" for a fat binary or cubin found in the data sections of an ELF file (allocated,
  /// PROGBITS, not executable: .rodata, .data.rel.ro ..., beside its .nv_fatbin or without one:
  /// a bin2c array the library loads with cuModuleLoadData or cuModuleLoadFatBinary; a cubin is
  /// one entry of its own), or in the bytes of one without sections (then not judged).
  std::string section;
  std::string member;       ///< the static archive member (ELF object) holding it; "" if none
  /// of its header, in bytes from the file start (of a thin archive's member: from the start
  /// of the member's own file; so are its entries' offsets)
  std::uint64_t offset = 0;
  std::vector<KernelEntry> entries;  ///< in file order

  /// True when the runtime loads it: from .nv_fatbin or a bare fat binary. __nv_relfatbin holds
  /// relocatable device code kept for a later device link (nvcc -rdc), not loaded as it is; an
  /// embedded fat binary with an LTO IR entry is input for the JIT linker (nvJitLink, which
  /// alone reads LTO IR), not a module loaded as it is: CUDA 13's libcusparse.so.12 keeps 34 in
  /// .rodata (lto_50 ... lto_100 with PTX and cubins up to sm_100) for its JIT LTO routines.
  bool loaded() const noexcept;
  /// False when it has no entry at all (an empty container: nvlink's device link leaves one when
  /// nothing is linked), or when it has a cubin, every cubin of it is known to hold no function
  /// (a cubin left unread may hold some), and each PTX or LTO IR entry it has is for the SM of
  /// such a cubin (the same code for the same __CUDA_ARCH__): nothing to run.
  /// nvcc -shared with the CUDA runtime adds such a module for its default architecture (sm_75);
  /// CUDA 13's libcufft.so.12 and libcufftw.so.12 carry only that; a .cu file of host code only
  /// built with code=[sm_80,compute_80] gives one with PTX too (tests/data/kernels/hostonly.o).
  bool has_kernels() const;
};

/// The CUDA code one file carries.
struct KernelListing {
  std::string path;                ///< as given
  /// Per ELF file (archive member): .nv_fatbin, then __nv_relfatbin, then the embedded images of
  /// its data sections, each in file order.
  std::vector<FatBinary> fatbins;
  bool elf = false;                ///< the file is ELF, or an archive with ELF members
  bool archive = false;            ///< the file is a static archive (ar: lib*.a; also thin)
  /// Why the file could not be read whole, one line, e.g. ".nv_fatbin: fat binary 3 at 0x1f40:
  /// entry header at 0x2010 runs past the end of the fat binary"; empty when it was. Fat
  /// binaries before the fault are kept in `fatbins`. Also set (to the first, with how many
  /// more) when cubin entries carry a KernelEntry::problem: the file is malformed.
  std::string error;

  std::size_t entry_count() const;
};

/// Limits that keep a hostile file from costing more than a real one.
inline constexpr std::size_t kMaxFatBinaryEntries = 1u << 20;  ///< per file
/// Cubins larger than this are not opened to count their functions (`functions` stays unset).
inline constexpr std::uint64_t kMaxCubinInspectBytes = 64ull << 20;
/// A compressed cubin or PTX is decompressed to read its function names only up to this size
/// (one at a time, into one buffer: the largest of CUDA 13's libcublasLt is 16.7 MB, of its
/// libnccl.so.2 134 MB; a single payload this large needs a file storing 6 MiB or more of
/// compressed data, by the per-file budget below), and at most
/// kMaxDecompressTotal plus kMaxDecompressRatio times the compressed bytes the file's entries
/// store, per file: real libraries decompress to 3 to 13 times what they store (libcublasLt:
/// 139 MB to 1.43 GB), so theirs are read whole, while a hostile file, whose few bytes zstd may
/// turn into 64 MiB, costs no more than a real file of its size.
inline constexpr std::uint64_t kMaxDecompressBytes = 256ull << 20;
inline constexpr std::uint64_t kMaxDecompressTotal = 64ull << 20;
inline constexpr std::uint64_t kMaxDecompressRatio = 32;
/// Zero bytes skipped between or after fat binaries of one region: linkers pad to 8 bytes (the
/// 14 libraries of CUDA 13 and cuDNN 9 in /usr/local/cuda/lib64 have none between theirs); a
/// longer run is reported as an error, never scanned (a sparse section of 4 GiB reads as zeros).
inline constexpr std::size_t kMaxFatBinaryPadding = 1u << 20;
/// Sections named .nv_fatbin or __nv_relfatbin read per file (real files have one or two; a
/// hostile one could name the same bytes many times).
inline constexpr std::size_t kMaxFatBinarySections = 16;
/// Members of a static archive read; each member's .nv_fatbin and __nv_relfatbin sections count
/// against kMaxFatBinarySections per member.
inline constexpr std::size_t kMaxArchiveMembers = 1u << 16;

/// The payload of `entry` as it was before compression, from `stored` (its `size` bytes at
/// payload_offset): zstd (libzstd) or LZ4 block (liblz4); a copy when not compressed.
/// std::nullopt when the header's uncompressed size is 0 or above `limit` (bytes), or the data
/// does not decompress (never more than `limit` bytes are written).
std::optional<std::vector<unsigned char>> decompress_entry(const KernelEntry& entry,
                                                           std::span<const unsigned char> stored,
                                                           std::uint64_t limit);

/// Reads the fat binaries of one region of bytes (a section's contents, or a whole .fatbin
/// file): fat binaries follow one another, each a 16-byte header then its entries; up to
/// kMaxFatBinaryPadding zero bytes between and after them are skipped, a longer run is an error. `base` is the region's offset in the file (for the offsets
/// reported); `section` is copied into each FatBinary. Appends to `out` and returns "" on
/// success, else a one-line reason (what was read before the fault stays in `out`). Never reads
/// outside `region`; every loop advances by at least 16 bytes.
std::string parse_fat_binaries(std::span<const unsigned char> region, std::uint64_t base,
                               std::string_view section, std::vector<FatBinary>& out);

/// Lists the CUDA code in an image held in memory: an ELF file (through libelf's elf_memory), a
/// bare fat binary (starting with its magic 0xBA55ED50), a bare cubin (an ELF whose e_machine is
/// EM_CUDA, 190: its SM from e_flags, bits 8-15 from ELF ABI version 8 on, bits 0-7 before; an
/// `a`/`f` suffix from the `-arch` ptxas option its .note.nv.tkinfo records, else plain), a
/// PTX text (white space and `//` or `/* */` comments in its first 64 KiB, then `.version M.m`
/// and `.target sm_XY[a|f]`), or a static archive (`!<arch>`). A GNU thin archive
/// (`!<thin>`, `ar rcT`: members are files of their own, named by paths relative to the
/// archive's folder) is read by list_kernels_at() only; here its members are not read, an
/// error when it has any. An ELF file without
/// a section header table (stripped of it) is searched through its program headers: every
/// loaded segment at each 4-byte aligned offset for a fat binary header (magic, version 1,
/// header size 16); what is found is listed with an `error` (registered modules cannot be told
/// from fat binaries kept as data, so it is not judged), nothing found is no CUDA code; one
/// without program headers either is an error. In an ELF file with section headers (and in each
/// ELF member of an archive), fat binaries and cubins embedded in its data sections (allocated,
/// PROGBITS, not executable: .rodata, .data, .data.rel.ro ...; not .nv_fatbin or
/// __nv_relfatbin, read as above, nor .text), bin2c arrays loaded with cuModuleLoadData, are
/// listed after its fat-binary sections, section "embedded" (find_embedded_cuda in
/// src/kernels/internal.hpp), and judged like the registered modules (file_fit); code the
/// library stores compressed or encrypted itself is not seen. `path` only names it in the
/// result.
/// Never throws for bad content: a malformed ELF or fat binary is reported in `error`.
KernelListing list_kernels_in_memory(std::span<const unsigned char> image, std::string path);

/// Lists the CUDA code in file `path` (mapped read-only, never read whole). A file that is
/// none of list_kernels_in_memory()'s forms gives an empty listing (elf false, no error). Throws Error
/// when the file cannot be opened or mapped. A GNU thin archive's members are read from their
/// own files (paths relative to the folder of the archive's file: the target of its
/// /proc/self/fd link), each like a member of a normal archive; a member not read (an absolute
/// path, a file that cannot be opened) is an `error` (exit 3), never "no CUDA code".
KernelListing list_kernels(const std::string& path);

/// list_kernels() of the regular file open at descriptor `fd` (not closed here; read from
/// offset 0 with pread and mmap, so the descriptor's offset does not matter); `path` names it in
/// the result and in errors. Reads its first 4 bytes and stops there unless may_carry_cuda_code.
/// Throws Error when it cannot be examined or mapped, and when it shrinks while it is read (a
/// read past the new end would raise SIGBUS; a handler for that mapping only turns it into this
/// error: "changed while it was read"). Installs a process-wide SIGBUS handler on first use that
/// passes every other SIGBUS to the handler installed before it.
KernelListing list_kernels_at(int fd, std::string path);

/// Threads that list files and decompress fat-binary entries at once, process-wide:
/// min(hardware concurrency, 8), at least 1. Memory beyond the listings themselves: each thread
/// keeps two buffers (a payload decompressed, its compressed bytes read with pread) of at most
/// 8 MiB each; a larger payload takes a buffer from a pool shared by all threads, which keeps at
/// most 160 MiB mapped (one payload over it goes alone). So at most 8 x 16 + 160 MiB at 8
/// threads (CUDA 13 and cuDNN 9's /usr/local/cuda/lib64: 412 MB peak resident in all, against
/// 1.5 GB before). Files listed at once are mapped at once, but their pages are given back as
/// they are read (fat-binary sections as their headers are parsed, data sections every 16 MiB
/// as they are searched; the compressed payloads are read with pread, not through the mapping).
unsigned kernel_threads();

/// Runs `work(item)` once for every item in [0, count): on the calling thread and on up to
/// kernel_threads() - 1 threads started for it, fewer when threads started by other calls still
/// run (a call inside `work`, a file's entries while files are listed at once, gets only the
/// threads left), so that never more than kernel_threads() work in all. A thread whose call has
/// no item left to take helps the calls that have (not one it is inside of). `work` must be
/// safe to run concurrently for distinct items. Returns when every item has run; the first
/// exception `work` threw is rethrown then (the other items still run).
void for_each_concurrently(std::size_t count, const std::function<void(std::size_t item)>& work);

namespace detail {
/// Test-only, not a product option: kernel_threads() gives `threads` instead of its own count
/// (0 restores that). Set it while nothing runs for_each_concurrently().
void set_kernel_threads(unsigned threads);

/// Test-only, not a product option: when set, list_kernels_at() calls `hook(path)` after it has
/// mapped the file and before it reads it (a test truncates the file there). nullptr turns it off.
using KernelsMappedHook = void (*)(const std::string& path);
void set_kernels_mapped_hook(KernelsMappedHook hook);
}  // namespace detail

/// True when the first bytes of a file (at least 4; fewer gives false) may hold CUDA code: the
/// ELF magic, the fat binary magic, "!<ar" or "!<th" (a static archive of objects, or a thin
/// one), or "//", "/*", ".ver" or white space (a PTX text may start with comments and blank
/// lines). For skipping other files quickly in a directory walk.
bool may_carry_cuda_code(std::span<const unsigned char> head);

/// What the GPU can run from one entry, one module or one file, best first.
enum class KernelFit {
  kExact,       ///< a cubin for exactly the GPU's SM (sm_120, sm_120a or sm_120f on 12.0)
  kCompatible,  ///< a cubin for a lower minor of the same major (sm_120 or sm_120f on 12.1)
  kPtxJit,      ///< only PTX, which the driver JIT-compiles (slow first start, cached after)
  /// the image the driver loads (an exact or compatible cubin, else the PTX it JIT-compiles)
  /// lacks functions another cubin or PTX of the same module has (kernels defined under
  /// `#if __CUDA_ARCH__ < 1000`): launching those fails
  kPartial,
  kNone,        ///< nothing: "no kernel image is available for execution on the device"
};

/// "exact", "compatible", "ptx-jit", "partial", "none".
std::string_view to_string(KernelFit fit);

/// The first CUDA release whose toolkit and driver know PTX ISA `major`.`minor` (6.0 -> 9.0 ...
/// 8.7 -> 12.8, 8.8 -> 12.9, 9.0 -> 13.0, 9.1 -> 13.1), as CUDA's version number (13000);
/// 0 for a version the table lacks. Source: PTX ISA reference, "Release Notes" (the PTX ISA
/// version of each CUDA release).
int cuda_version_for_ptx_isa(int major, int minor);

/// What one entry gives a GPU of capability `cc`. The rules, from the CUDA Programming Guide
/// ("Binary Compatibility", "PTX Compatibility", 5.1.2 "Feature Availability") and NVIDIA's
/// "Blackwell and CUDA 12.9 Introduce Family-Specific Architecture Features" (developer blog,
/// 2025):
/// - cubin sm_XY: runs on X.z for z >= Y (same major); sm_XYa only on X.Y; sm_XYf on X.z,
///   z >= Y (the family is the major version: sm_100f runs on 10.0 and 10.3). Exact when XY is
///   the GPU's SM, compatible otherwise.
/// - PTX compute_XY: JIT on any capability >= X.Y; compute_XYa only on X.Y; compute_XYf on X.z,
///   z >= Y. With `driver_cuda_version` known (CUDA's encoding, 13000), PTX whose ISA needs a
///   later CUDA release (cuda_version_for_ptx_isa) gives kNone: the driver cannot JIT it.
/// - LTO IR and unknown kinds: kNone (the driver does not load them).
KernelFit entry_fit(const KernelEntry& entry, ComputeCapability cc, int driver_cuda_version = 0);

/// The best fit of a module's entries for `cc`, and the index of the entry giving it (-1 when
/// kNone). The driver loads one image of a module, a cubin when one fits: the GPU's own SM,
/// else the highest compatible one. When that cubin is known to hold no function while the
/// module has kernels in other entries (has_kernels(): kernels under `#if __CUDA_ARCH__ >= 800`
/// leave the sm_75 cubin empty, a 7.5 GPU loads it), the module's kernels are not in what the
/// driver loads: kNone.
/// The cubin the driver loads must also hold every function that another cubin of the module
/// holds (the NAMEs of their ".text.NAME" sections); when it lacks some, the module is kPartial
/// (`entry` still the loaded cubin) and `missing_functions` names them. Compared only when the
/// function names of every cubin of the module are known (`functions_compared`); a cubin left
/// unread (compressed past the budget, too large) leaves the fit as the entries give it.
/// PTX entries count as other images: every kernel (`.entry NAME`) a PTX of the module defines
/// must be in the loaded cubin too, even a PTX the GPU does not use (it says which kernels the
/// module exports: the sm_120 cubin lacking a kernel that the compute_90 PTX has is kPartial).
/// When no cubin fits, the driver JIT-compiles the PTX of the highest architecture that fits
/// (the first of them on a tie), and the same comparison holds for it: the compute_120 PTX
/// lacking a kernel that the sm_90 cubin or the compute_90 PTX has is kPartial (`entry` the
/// PTX); a PTX without any kernel while other images of the module have some is kNone.
struct ModuleFit {
  KernelFit fit = KernelFit::kNone;
  int entry = -1;
  std::vector<std::string> missing_functions;  ///< sorted; empty unless kPartial
  /// A cubin or PTX fits, and the names of the image loaded and of every other cubin and PTX of
  /// the module were known and compared (true also when the module has no other image: nothing
  /// to compare). False with kExact or kCompatible: a function missing from the cubin loaded
  /// would not be seen (FileFit::not_compared); false with kPtxJit is not counted there (the
  /// exit code is 1 already).
  bool functions_compared = false;
};
ModuleFit module_fit(const FatBinary& fatbin, ComputeCapability cc, int driver_cuda_version = 0);

/// The judgement of a whole file for one capability. Modules judged: the loaded ones
/// (FatBinary::loaded()) with kernels (has_kernels()); when the file has no loaded module with
/// kernels (an object built with -rdc), its __nv_relfatbin modules instead.
struct FileFit {
  ComputeCapability cc;
  /// The worst fit among the judged modules that have an image for this GPU (exact, compatible,
  /// PTX JIT, or partial: some functions missing from the cubin loaded); kNone when none has one: every launch of the file's kernels fails with "no
  /// kernel image is available". Modules without an image are counted in modules[kNone] but do
  /// not decide `fit` while another module runs: libraries ship modules built for other
  /// architectures only (CUDA 13's libcublasLt: 344 of its 1757 modules with kernels have
  /// nothing for 12.0, e.g. sm_90a-only kernels, and are never launched there). Also kNone when nothing is judged
  /// (`judged` empty: no CUDA code, or modules without a function only): read `judged` first.
  KernelFit fit = KernelFit::kNone;
  std::array<std::size_t, 5> modules{};  ///< judged modules per KernelFit value
  std::size_t skipped_without_kernels = 0;  ///< loaded modules left out: no function in them
  /// Modules left out that are not loaded as they are (FatBinary::loaded()): __nv_relfatbin
  /// ones beside a loaded module, and embedded fat binaries for the JIT linker, always.
  std::size_t skipped_relocatable = 0;
  /// Judged modules that are kExact or kCompatible whose function sets could not be compared
  /// (ModuleFit::functions_compared false: a cubin or PTX of theirs left unread). Their fit
  /// stands, but a kernel missing from the cubin loaded would not be seen: kernels_exit_code()
  /// gives 2 for them.
  std::size_t not_compared = 0;
  /// The modules judged (indexes into KernelListing::fatbins) with their fit.
  std::vector<std::pair<std::size_t, ModuleFit>> judged;
  /// True when the file was not judged because it could not be read whole (its listing has an
  /// `error`): the modules read before the fault are listed, but the modules after it are
  /// unknown, so no fit is claimed for the file (`judged` empty, `fit` kNone).
  bool not_judged = false;
};

/// Judges `listing` for a GPU of capability `cc` (see FileFit). A listing with an `error` is
/// not judged (FileFit::not_judged).
FileFit file_fit(const KernelListing& listing, ComputeCapability cc, int driver_cuda_version = 0);

/// The kernel listing of a run over several files (`sm120check kernels`, later `scan`), judged
/// for the capabilities of the GPU (probed or given).
struct KernelsReport {
  /// Files carrying CUDA code or that could not be read; a PATH given as a file is listed even
  /// without CUDA code (no fat binaries), files of a walked directory only with some.
  std::vector<KernelListing> files;
  /// For each file, its FileFit per capability of `capabilities` (same order).
  std::vector<std::vector<FileFit>> fits;
  std::vector<ComputeCapability> capabilities;  ///< ascending; empty: no GPU known, no judgement
  int driver_cuda_version = 0;                  ///< of the probed driver (13000); 0 if unknown
  std::string gpu_source;          ///< "override" (--cc), "nvml", "cuda-runtime", "none"
  std::string gpu_error;           ///< why no capability is known, when none is; else ""
  std::size_t files_examined = 0;  ///< regular files looked at (their first bytes read)
};

/// Exit codes of `sm120check kernels`, from each file's FileFit::fit per capability: 0 all exact
/// or compatible, or nothing to judge (no GPU known, no CUDA code); 1 some file's code runs on
/// the GPU only as PTX the driver must JIT; 2 some file has no kernel image for the GPU in any
/// module, or some module's loaded cubin lacks functions its other cubins or PTX have
/// (kPartial: those kernels cannot launch; also the PTX JIT-compiled when no cubin fits), or
/// some module's functions could not be compared
/// (FileFit::not_compared: whether all its kernels launch is not known); 3 a file could not be read or is malformed (an `error` in its
/// listing, e.g. a cubin entry whose payload is no cubin for its SM: KernelEntry::problem). Modules
/// without an image do not count while another module of the file has one (FileFit::fit): 0
/// does not prove every kernel launches; FileFit::modules[kNone] says how many cannot.
int kernels_exit_code(const KernelsReport& report);

}  // namespace sm120check
