// Fuzz entry points: each runs one input through a part of the library and checks what its
// documentation promises. Shared by the libFuzzer binaries (fuzz_main.cpp, SM120CHECK_FUZZ=ON)
// and the test suite (test_fuzz.cpp runs the seed corpus and every saved crash through them).
//
// An entry point returns normally for every input the library may refuse (sm120check::Error)
// or accept; it throws InvariantBroken when a documented property fails, and lets any other
// exception through. Under libFuzzer both end in std::terminate, i.e. a reported crash.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace sm120check::fuzz {

/// A documented property of the library that an input broke.
class InvariantBroken : public std::logic_error {
 public:
  explicit InvariantBroken(const std::string& what) : std::logic_error(what) {}
};

/// Options byte and the two texts of a "tree" input (apply and render targets):
///   byte 0        options, as the bits of the byte XOR 0x40 (so '@' is none, 'A'..'C' fuzz
///                 1..3, 'D' ignore white space, 'H' --strict, 'P' reverse, '`' independent):
///                 bits 0-1 fuzz level (0..3), bit 2 ignore white space, bit 3 --strict (no
///                 drift search), bit 4 reverse, bit 5 --independent (no series), bit 6 colour
///                 in text output
///   then          the file's content, up to and including a line "=== patch ===\n"
///   then          the patch text
/// Without that line, the whole rest is the patch and the file is empty.
inline constexpr std::string_view kPatchSeparator = "=== patch ===\n";

/// parse_patches() over `input`; parsed hunks must agree with their headers' counts, and the
/// strip and path normalisation helpers must accept or refuse every parsed path quietly.
void parse_one(std::string_view input);

/// Parses the patch of a tree input and, for each file patch of its first patch (8 at most),
/// runs match_hunks() on the file, then apply_hunks() both ways (undo_splices() must give the
/// file back, and every hunk must be written, already or failed, once); then verify() and
/// plan_apply() on an in-memory tree holding the file at the patch's old paths (strip 1); a
/// plan without blockers, written into an overlay, must plan no further change.
void apply_one(std::string_view input);

/// Parses and verifies a tree input as apply_one() does, assesses the architectures for a
/// compute capability 12.0 device, and renders the verify and show reports as text (no control
/// byte but "\n" without colour) and JSON (dump() must not throw and must parse back).
void render_one(std::string_view input);

/// infer_arch_targets() at strip levels 0..2 over the parsed patches (or, when `input` is no
/// patch, over one synthetic file patch whose body lines are the input's lines), and
/// arch_in_line() over every input line in each syntax; ranges must come out sorted, disjoint,
/// non-adjacent and non-empty.
void arch_one(std::string_view input);

/// list_kernels_in_memory() over `input` taken as a file (ELF, bare fat binary, or anything):
/// never throws; every fat binary and entry lies inside the input, entries are at most one per
/// 64 bytes; then file_fit() for 12.0, 12.1 and 9.0 and both renderers of `kernels` (no control
/// byte but "\n" in text without colour; JSON dumps and parses back).
void kernels_one(std::string_view input);

}  // namespace sm120check::fuzz
