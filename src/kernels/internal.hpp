// What the units of src/kernels share, not part of the public interface.
#pragma once

#include <cstdint>
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
/// Two linear passes (memmem); at most `entries_left` entries are added, and it is decreased by
/// as many.
std::size_t find_embedded_cuda(std::span<const unsigned char> region, std::uint64_t base,
                               std::size_t& entries_left, std::vector<FatBinary>& out);

/// The kernels a PTX text defines: the NAME of each `.entry NAME` directive (with or without
/// `.visible` / `.weak` before it; an `.extern .entry` declaration defines none), sorted and
/// without repeats. `//` and `/* */` comments and "strings" are skipped. One pass, linear in
/// the text's size.
std::vector<std::string> ptx_entry_names(std::string_view text);

}  // namespace sm120check
