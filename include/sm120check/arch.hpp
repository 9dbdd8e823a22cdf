// Which GPU architectures a patch targets, and whether it matters for a given GPU.
//
// Targets come from an explicit trailer in the patch's message ("Arch: sm_120, sm_121") and
// otherwise are inferred from the patch's added lines (sm_120, compute_120, __CUDA_ARCH__ >= 1200,
// CUDA_CAPABILITY[0] == 12, get_device_capability() >= (12, 0), getSMVersion() >= 120,
// CUDA_ARCHITECTURES 120a, ...). Architectures are handled as sets of sm numbers
// (ComputeCapability::sm(): 120 for 12.0), so ranges are understood: ">= 9" covers 12.0,
// "== 12" does not cover 9.0.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/gpu.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {

/// Sm numbers at or above this are "no upper bound" (19.9 is the highest capability parsed).
inline constexpr int kSmUnbounded = 200;

/// A half-open interval [lo, hi) of sm numbers; hi == kSmUnbounded means no upper bound.
struct ArchRange {
  int lo = 0;
  int hi = kSmUnbounded;

  bool contains(ComputeCapability cc) const noexcept { return cc.sm() >= lo && cc.sm() < hi; }
  bool empty() const noexcept { return lo >= hi; }
  friend bool operator==(const ArchRange&, const ArchRange&) = default;
};

/// Where a patch's targets come from.
enum class ArchSource {
  kNone,      ///< no evidence: the patch names no architecture
  kTrailer,   ///< an "Arch:" trailer in the message
  kInferred,  ///< rules over the added lines
};

/// "none", "trailer", "inferred".
std::string_view to_string(ArchSource source);

/// The architectures a patch (or one line) targets.
struct ArchTargets {
  /// Sorted, disjoint, non-adjacent ranges (normalised by add()); empty = no evidence.
  std::vector<ArchRange> ranges;
  ArchSource source = ArchSource::kNone;
  /// "path:line: text" of the first added line that gave a target (post-image line number,
  /// text trimmed and cut at 120 bytes), or "trailer: Arch: ..." for a trailer; "" for none.
  std::string evidence;

  bool empty() const noexcept { return ranges.empty(); }
  /// Adds `range` (ignored when empty), merging overlapping and adjacent ranges.
  void add(ArchRange range);
  /// Adds every range of `other`.
  void add(const ArchTargets& other);
  /// Names for reports: "sm_120" (one capability; up to four neighbours each by name),
  /// "sm_12x" (a whole major; several whole majors give "sm_8x", "sm_9x"), ">=sm_90",
  /// "<sm_120", "any", else ">=sm_80 <sm_95".
  std::vector<std::string> names() const;
};

/// True when some range of `targets` contains `cc`.
bool covers(const ArchTargets& targets, ComputeCapability cc);

/// The targets one line of code names, by the rules listed in docs/json.md ("arch"): sm_XY
/// tokens (sm_120, sm120, SM120, Sm120, sm_120a, sm_12x), compute_XY, comparisons of
/// __CUDA_ARCH__ (x 100: 1200 is 12.0), of getSMVersion()/sm/sm_version (x 10: 120), of a
/// major (CUDA_CAPABILITY[0], get_device_capability()[0], props.major, cc_major), of a
/// capability against a tuple ((12, 0)) or, with `in`, a list; has_device_capability(N),
/// is_device_capability(N), is_device_capability_family(N); and CMake/PyTorch arch lists
/// (CUDA_ARCHITECTURES, CUDA_ARCHS, TORCH_CUDA_ARCH_LIST: "90;120a", "9.0;12.0+PTX").
/// Comparisons joined by && / and (or chained, 9 <= cc[0] < 12) intersect; otherwise they add
/// up. Source kInferred when something was found; evidence is left empty.
ArchTargets targets_in_line(std::string_view line);

/// The targets of the first "Arch:" trailer line in `message` (a line, leading white space
/// ignored, starting with "Arch:" in any case). Items separated by commas or spaces:
/// "sm_120", "12.0", "compute_120", "sm_12x" / "12.x" (every 12.y), "sm_90+" / "9.0+" (that
/// and later), "any". Unknown items are ignored. Source kTrailer, evidence "trailer: <line>";
/// empty (kNone) when there is no such line or none of its items parse.
ArchTargets parse_arch_trailer(std::string_view message);

/// The targets of `patch`: its trailer when it has one, else the union of targets_in_line()
/// over the added lines of every hunk, where an added line whose targets equal those of a
/// removed line of the same hunk (a rewritten condition such as "if" -> "elif") is not counted.
/// `strip` is the strip level applied to new paths in the evidence.
ArchTargets infer_arch_targets(const Patch& patch, unsigned strip);

/// Whether a patch with `targets` matters for the GPU(s) in `gpu`: true when some target covers
/// the compute capability of at least one device (several devices: any of them), false when
/// there are targets and none covers any device, std::nullopt when there are no targets or no
/// device is known.
std::optional<bool> arch_relevant(const ArchTargets& targets, const GpuReport& gpu);

}  // namespace sm120check
