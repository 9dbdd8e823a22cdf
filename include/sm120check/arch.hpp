// Which GPU architectures a patch targets, and whether it matters for a given GPU.
//
// Targets come from an explicit trailer in the patch's message ("Arch: sm_120, sm_121") and
// otherwise are inferred from the patch's changed lines (sm_120, compute_120, __CUDA_ARCH__ >=
// 1200, CUDA_CAPABILITY[0] == 12, get_device_capability() >= (12, 0), getSMVersion() >= 120,
// CUDA_ARCHITECTURES 120a, "SM86/89/120/121" in a comment, ...), its file paths and its message.
// Architectures are handled as sets of sm numbers (ComputeCapability::sm(): 120 for 12.0), so
// ranges are understood: ">= 9" covers 12.0, "== 12" does not cover 9.0. A rewritten condition
// concerns the symmetric difference of its old and new ranges. Evidence that may miss an
// architecture the patch changes makes the targets "unsure": such a patch is never called
// irrelevant (docs/json.md, "arch").
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

/// How far a patch's targets can be trusted to name every architecture whose behaviour it changes.
enum class ArchConfidence {
  kConfident,  ///< a trailer, or targets solved from changed code with nothing in doubt
  kUnsure,     ///< ArchTargets::doubt says why the targets may miss some
};

/// "confident", "unsure".
std::string_view to_string(ArchConfidence confidence);

/// The architectures a patch (or one line) targets.
struct ArchTargets {
  /// Sorted, disjoint, non-adjacent ranges (normalised by add()); empty = no evidence.
  std::vector<ArchRange> ranges;
  ArchSource source = ArchSource::kNone;
  /// Where the targets come from (the first code line that gave one, else the first comment,
  /// string, path or message line): "path:line: text" for an added line (post-image line
  /// number), "path:line (removed): text" for a removed line (pre-image line number),
  /// "path (path)", "message: text", or "trailer: Arch: ..."; text trimmed and cut at 120
  /// bytes; "" for none.
  std::string evidence;
  /// Meaningful only with ranges: a patch without targets is never relevant or irrelevant.
  ArchConfidence confidence = ArchConfidence::kConfident;
  /// Why the targets are unsure (the first reason found, e.g. "path:line: capability test not
  /// solved: text"); "" when there is none.
  std::string doubt;

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

/// How a file's lines split into code, comments and strings.
enum class LineSyntax {
  kPlain,    ///< all code: no comment or string syntax (targets_in_line())
  kHash,     ///< "#" comments; '...', "..." and triple-quoted strings: Python, CMake, shell, YAML
  kCFamily,  ///< "//" and "/* */" comments, "..." and '.' literals: C, C++, CUDA, Jinja templates
  kProse,    ///< all text: Markdown, reStructuredText, plain text and files of unknown kind
};

/// The syntax of `path`, by its file name and extension (CMakeLists.txt is kHash).
LineSyntax syntax_for_path(std::string_view path);

/// What one line says about architectures, by the kind of evidence.
struct LineArch {
  /// Solved from code: comparisons, capability calls and lists, arch lists, compile flags
  /// (arch=compute_120a, code=sm_120a, also in strings), sm tokens outside comments and strings
  /// (not on import or #include lines).
  ArchTargets code;
  /// Named in comments, strings and prose, on import lines, or by a family name: sm tokens and
  /// lists (SM86/89/120/121, SM 8.6/8.9/12.0), "Blackwell", "Hopper", "RTX 5090", "DGX Spark".
  ArchTargets text;
  /// The first capability-looking expression in code the rules could not solve
  /// ("get_device_capability() >= min_cc", "has_device_capability(cap)"); "" for none.
  std::string unsolved;
};

/// The evidence in one line of a file of `syntax`, the line starting outside any comment or
/// string. Rules (docs/json.md, "arch"): sm_XY tokens (sm_120, sm120, SM120, Sm120, sm_120a,
/// "SM 12.0", sm_12x; sm_100f is the 10.x family; SM90+, sm90_or_later and "SM90 or later" are
/// that and later; pre-SM100 is below), "/" lists of them (SM86/89/120/121), compute_XY,
/// comparisons of __CUDA_ARCH__ (x 100: 1200 is 12.0), of getSMVersion()/sm/sm_version/arch
/// (x 10: 120), of a major (CUDA_CAPABILITY[0], get_device_capability()[0], props.major,
/// cc_major), of a capability against a tuple ((12, 0)) or, with `in`, a list;
/// has_device_capability(N), is_device_capability(N), is_device_capability_family(N);
/// capability lists (supported_compute_capability([90, 120]), supported_major_versions=[10,
/// 12]); CMake/PyTorch arch lists (CUDA_ARCHITECTURES, CUDA_ARCHS, TORCH_CUDA_ARCH_LIST: "90;120a",
/// "9.0;12.0+PTX"); family names. Comparisons joined by && / and (or chained, 9 <= cc[0] < 12)
/// intersect; otherwise they add up. Source kInferred where something was found.
LineArch arch_in_line(std::string_view line, LineSyntax syntax);

/// Every target of `line` read as code (kPlain): the union of arch_in_line()'s code and text
/// targets. Source kInferred when something was found; evidence is left empty.
ArchTargets targets_in_line(std::string_view line);

/// The targets of the first "Arch:" trailer line in `message` (a line, leading white space
/// ignored, starting with "Arch:" in any case). Items separated by commas or spaces:
/// "sm_120", "12.0", "compute_120", "sm_12x" / "12.x" (every 12.y), "sm_90+" / "9.0+" (that
/// and later), "any". Unknown items are ignored. Source kTrailer, evidence "trailer: <line>";
/// empty (kNone) when there is no such line or none of its items parse.
ArchTargets parse_arch_trailer(std::string_view message);

/// The targets of `patch`: its trailer when it has one (kConfident), else what its changes
/// concern, by the rules of docs/json.md ("arch"). Per hunk, a removed and an added code line
/// with the same targets and the same code apart from them ("if" -> "elif") cancel out. Per
/// change block (a run of changed lines), the remaining code lines with targets count: added
/// only or removed only, their union; both, with nothing else in the block changed and as many
/// on each side, pair by position and each pair concerns the symmetric difference of its ranges
/// (">= 9" -> ">= 9 and != 12" concerns 12.x), or its union when code outside the targets
/// differs; otherwise the union of both sides. Comments, strings, names, paths and the message
/// (subject and body) add their targets. kUnsure, with a doubt, when no code line gave a target,
/// a changed code line holds a capability test the rules could not solve, an added or removed
/// condition encloses unchanged code, or a hunk of a runtime file (not under tests/, docs/,
/// benchmarks/, examples/, ...) changes code with no target in its changed lines or path.
/// `strip` is the strip level applied to paths in the evidence.
ArchTargets infer_arch_targets(const Patch& patch, unsigned strip);

/// infer_arch_targets() of each of `patches` at its level of `strips` (same size), in order,
/// on up to `threads` threads (the calling one included; 0 or 1: the calling one alone): a
/// patch's targets depend on it alone, and 199 FlashInfer patches took 0.54 s on one thread
/// of the H200 host. Rethrows the first exception a patch's inference threw.
std::vector<ArchTargets> infer_arch_targets(const std::vector<Patch>& patches,
                                            const std::vector<unsigned>& strips,
                                            unsigned threads);

/// Whether a patch with `targets` matters for the GPU(s) in `gpu`: true when some target covers
/// the compute capability of at least one device (several devices: any of them); false when the
/// targets are kConfident and none covers any device; std::nullopt otherwise (no targets, unsure
/// targets that cover no device, or no device known).
std::optional<bool> arch_relevant(const ArchTargets& targets, const GpuReport& gpu);

}  // namespace sm120check
