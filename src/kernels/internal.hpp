// What the units of src/kernels share, not part of the public interface.
#pragma once

#include <span>

namespace sm120check {

/// True when `image` starts with the fat binary magic 0xBA55ED50 (a bare .fatbin file).
bool is_bare_fat_binary(std::span<const unsigned char> image);

}  // namespace sm120check
