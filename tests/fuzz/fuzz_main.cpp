// A libFuzzer binary for one entry point of fuzz_targets.hpp, chosen at build time by
// SM120CHECK_FUZZ_ENTRY (parse_one, apply_one, render_one, arch_one or kernels_one).
//
// SM120CHECK_FUZZ_INVARIANTS=warn makes a broken documented property (InvariantBroken: a
// wrong answer, not a memory error, a hang or a leak) a line on stderr ("invariant broken:
// ...") instead of a crash: for a run that should look past a known open finding
// (tests/fuzz/findings/) for other crashes. Without it (CI's pass, tests/fuzz/run.sh) a broken
// property is fatal and libFuzzer saves the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool warn = [] {
    const char* v = std::getenv("SM120CHECK_FUZZ_INVARIANTS");
    return v != nullptr && std::strcmp(v, "warn") == 0;
  }();
  try {
    sm120check::fuzz::SM120CHECK_FUZZ_ENTRY(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const sm120check::fuzz::InvariantBroken& e) {
    if (!warn) throw;
    std::fprintf(stderr, "invariant broken: %s\n", e.what());
  }
  return 0;
}
