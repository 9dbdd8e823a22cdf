// A libFuzzer binary for one entry point of fuzz_targets.hpp, chosen at build time by
// SM120CHECK_FUZZ_ENTRY (parse_one, apply_one, render_one or arch_one).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sm120check::fuzz::SM120CHECK_FUZZ_ENTRY(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
