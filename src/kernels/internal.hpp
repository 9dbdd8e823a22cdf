// What the units of src/kernels share, not part of the public interface.
#pragma once

#include <span>

namespace sm120check {

/// True when `image` starts with the fat binary magic 0xBA55ED50 (a bare .fatbin file).
bool is_bare_fat_binary(std::span<const unsigned char> image);

/// True when `bytes` starts with a fat binary header: the magic 0xBA55ED50, version 1 and
/// header size 16 (fatbin.cpp gives the layout and its sources).
bool is_fat_binary_header(std::span<const unsigned char> bytes);

}  // namespace sm120check
