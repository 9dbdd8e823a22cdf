// What the units of src/kernels share, not part of the public interface.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/kernels.hpp"

namespace sm120check {

/// True when `image` starts with the fat binary magic 0xBA55ED50 (a bare .fatbin file).
bool is_bare_fat_binary(std::span<const unsigned char> image);

/// True when `bytes` starts with a fat binary header: the magic 0xBA55ED50, version 1 and
/// header size 16 (fatbin.cpp gives the layout and its sources).
bool is_fat_binary_header(std::span<const unsigned char> bytes);

/// The SM a cubin's ELF header names: e_flags bits 8-15 from ELF ABI version (e_ident[8]) 8 on
/// (CUDA 13's ptxas: 0x6007802 for sm_120), bits 0-7 before (0x500550 for sm_80).
int cubin_sm(unsigned abi_version, std::uint32_t e_flags);

/// What keeps the driver from loading `payload` (decompressed) as the cubin `entry`'s header
/// announces, one phrase for KernelEntry::problem; "" when it is a little-endian ELF of machine
/// EM_CUDA (190) whose e_flags name the header's SM. Reads the ELF header only.
std::string cubin_payload_problem(const KernelEntry& entry, std::span<const unsigned char> payload);

/// decompress_entry() into `buffer` (grown when too small, never shrunk, so that one allocation
/// serves a whole file), the payload's length in `length`; false where decompress_entry() gives
/// std::nullopt.
bool decompress_entry_into(const KernelEntry& entry, std::span<const unsigned char> stored,
                           std::uint64_t limit, std::vector<unsigned char>& buffer,
                           std::size_t& length);

/// parse_fat_binaries() calling `parsed` with [from, to) ranges of `region` that the parse will
/// not read again, at fat binary boundaries every kSearchedStep bytes or more (a mapped file's
/// caller gives their pages back as it goes).
std::string parse_fat_binaries(std::span<const unsigned char> region, std::uint64_t base,
                               std::string_view section, std::vector<FatBinary>& out,
                               const std::function<void(std::size_t from, std::size_t to)>& parsed);

/// decompress_entry() of a compressed `entry` into `out` (at least entry.uncompressed_size
/// bytes, which must be within `limit`), the payload's length in `length`; false where
/// decompress_entry() gives std::nullopt. Nothing is allocated.
bool decompress_entry_to(const KernelEntry& entry, std::span<const unsigned char> stored,
                         std::uint64_t limit, std::span<unsigned char> out, std::size_t& length);

/// Anonymous buffers (private mappings) that the threads of the kernel listing share, at most
/// `limit` bytes of them mapped at once: take(n) waits until n more bytes fit within the limit
/// beside those held by others, or until none is held (a request over the limit then goes
/// alone, so that every request is met). A buffer given back stays mapped for the next take()
/// it is large enough for (the smallest such), and is unmapped only to make room: a fresh
/// mapping costs a page fault per page on first use (libnccl.so.2's six payloads of 50 to 134
/// MB, each in a fresh mapping, took twice the CPU of decompressing them into one). A thread
/// must not wait for anything else while it holds a buffer (no deadlock).
class BufferPool {
 public:
  explicit BufferPool(std::uint64_t limit) : limit_(limit) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  /// A buffer of `bytes` or more, held until the Lease is destroyed. Throws std::bad_alloc when
  /// mmap fails.
  class Lease {
   public:
    Lease(BufferPool& pool, std::span<unsigned char> buffer) : pool_(&pool), buffer_(buffer) {}
    ~Lease() {
      if (pool_ != nullptr) pool_->give_back(buffer_);
    }
    Lease(Lease&& other) noexcept : pool_(other.pool_), buffer_(other.buffer_) { other.pool_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    std::span<unsigned char> bytes() const { return buffer_; }

   private:
    BufferPool* pool_;
    std::span<unsigned char> buffer_;
  };
  Lease take(std::uint64_t bytes);
  /// Bytes held now (by leases), and mapped now (held or kept for reuse).
  std::uint64_t held() const;
  std::uint64_t mapped() const;

 private:
  void give_back(std::span<unsigned char> buffer);
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  const std::uint64_t limit_;
  std::uint64_t held_ = 0;
  std::uint64_t kept_ = 0;                        ///< bytes of `free_`
  std::vector<std::span<unsigned char>> free_;  ///< mapped, not held
};

/// A decompression buffer kept by a thread from payload to payload: at most this many bytes
/// (each of its two: the payload decompressed and the compressed bytes read from the file).
/// Payloads of more (162 of CUDA 13 and cuDNN 9's 42392 compressed entries, up to
/// libnccl.so.2's 134 MB) take a buffer from large_buffers() for the time they are read.
inline constexpr std::uint64_t kKeptBufferBytes = 8ull << 20;

/// What large_buffers() maps at most: 160 MiB, so that the largest real payload and its
/// compressed bytes (libnccl.so.2: 134 + 13 MB) go through it beside nothing else, and a few
/// smaller ones at once. (256 MiB kept mapped for reuse made the peak 551 MB on
/// /usr/local/cuda/lib64 at 8 threads; buffers unmapped after each payload cost twice the CPU
/// on libnccl.so.2, one page fault per page.)
inline constexpr std::uint64_t kLargeBufferPoolBytes = 160ull << 20;

/// kKeptBufferBytes, or the bytes detail::set_kept_buffer_bytes() gave.
std::uint64_t kept_buffer_bytes();

namespace detail {
/// Test-only: kept_buffer_bytes() gives `bytes` (0 restores kKeptBufferBytes), so that the
/// fixtures' payloads take the path of the large ones. Set it while nothing is listed.
void set_kept_buffer_bytes(std::uint64_t bytes);
}  // namespace detail

/// The process's pool of those larger buffers: kLargeBufferPoolBytes mapped at most, for all
/// kernel_threads() threads (one payload with its compressed bytes over it goes alone).
BufferPool& large_buffers();

/// FatBinary::section of code found embedded in a file's data (find_embedded_cuda).
inline constexpr std::string_view kEmbeddedSection = "embedded";

/// Fat binaries and cubins embedded as data in `region` (bin2c / xxd -i arrays that a library
/// loads itself with cuModuleLoadData / cuModuleLoadFatBinary: TensorRT-LLM's cubin/*.cubin.cpp),
/// `region` lying at file offset `base`: appended to `out` in file order, section
/// kEmbeddedSection, offsets from the file start; returns how many. A fat binary: its magic
/// 0xBA55ED50 (FATBIN_MAGIC, CUDA's include/fatbinary_section.h), version 1, a header of 16
/// bytes or more and entries that parse inside the region. A cubin (outside those): an ELF
/// header of class ELF64, little-endian, machine EM_CUDA (190), e_flags naming an SM, its
/// section header table inside the region (where it ends); one entry of its own. Every offset
/// of the region is looked at (a caller searching a whole file skips its own ELF header).
/// Two linear passes (memchr, memmem); at most `entries_left` entries are added, and it is decreased by
/// as many. When `searched` is set, each pass calls it with [from, to) ranges of `region` (in
/// steps of kSearchedStep bytes or more, the last one up to the region's end) that the pass will
/// not read again (a mapped file's caller gives their pages back as the search goes).
std::size_t find_embedded_cuda(std::span<const unsigned char> region, std::uint64_t base,
                               std::size_t& entries_left, std::vector<FatBinary>& out,
                               const std::function<void(std::size_t from, std::size_t to)>&
                                   searched = {});

/// find_embedded_cuda()'s step for `searched`: 16 MiB.
inline constexpr std::size_t kSearchedStep = 16u << 20;

/// The kernels a PTX text defines: the NAME of each `.entry NAME` directive (with or without
/// `.visible` / `.weak` before it; an `.extern .entry` declaration defines none), sorted and
/// without repeats. `//` and `/* */` comments and "strings" are skipped. One pass, linear in
/// the text's size.
std::vector<std::string> ptx_entry_names(std::string_view text);

}  // namespace sm120check
