// What the CI formats (junit.cpp, github.cpp, sarif.cpp) share, internal to src/report: where
// a file patch points in the target, and the words for a file that is not applied.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sm120check/ci_report.hpp"

namespace sm120check::ci {

/// The path a file patch names in TARGET, unescaped: the path examined (target_path), else the
/// stripped path of the side that exists; std::nullopt when the path is too short to strip.
std::optional<std::string> target_file(const FileReport& file, unsigned strip);

/// The first hunk of `file` that is not applied, or nullptr.
const HunkReport* first_open_hunk(const FileReport& file);

/// The file line a hunk points a reader at (1-based; 0 when none): where it matched, else its
/// near miss (HunkMatch::closest_line), else the first place its change or old code stands,
/// else the line its header names for the pre-image.
std::size_t hunk_line(const HunkReport& hunk);

/// "conflict (fix absent)", with " (REASON)" when the file has a reason; escaped.
std::string file_verdict(const FileReport& file);

/// One line per hunk: "hunk 1 @@ -12,7 +12,15 @@  applicable at line 15 (offset +3)".
std::vector<std::string> hunk_verdicts(const FileReport& file);

/// "patch 1/3: SOURCE: SUBJECT", escaped (report_words::patch_title()).
std::string patch_name(const VerifyReport& report, std::size_t i);

/// Whether a file or patch status fails a CI check: applicable, partial, conflict, unknown and
/// error do (each makes the exit code non-zero); applied and skipped do not.
bool fails(Status status);

/// The catalog entry's "ID: TITLE" for a fix, escaped.
std::string fix_name(const ScanReport& report, const FixResult& fix);

/// The path of a file of an install (relative to its root) as the CI system sees it: the
/// prefix, the install's root (when inside TARGET) and the path; unescaped.
std::string install_file(const CiContext& context, const Install& install, const std::string& path);

/// A path relative to TARGET, or absolute outside it, as the CI system sees it; unescaped.
std::string target_path(const CiContext& context, const std::string& path);

/// Whether a fix's verdict fails a CI check: missing and unknown do, unless --only-relevant
/// skipped the fix (the exit code's rule, ScanReport::exit_code()).
bool fails(const FixResult& fix);

/// One thing of a scan that makes its exit code non-zero, for annotations and SARIF results.
struct ScanFinding {
  enum class Kind { kMissing, kUnknown, kNoKernelImage, kUnreadableObject, kIncompleteWalk };
  Kind kind = Kind::kMissing;
  std::string path;      ///< as the CI system sees it (see install_file()); "" when none
  std::size_t line = 0;  ///< 1-based; 0 when none
  std::string title;     ///< "missing: ID", escaped
  std::string message;   ///< lines: where, what, why, evidence; escaped
};

/// "missing", "unknown", "no-kernel-image", "unreadable-object", "incomplete-walk".
std::string_view to_string(ScanFinding::Kind kind);

/// Whether a finding of `kind` is an error (missing fix, no kernel image) rather than a
/// warning (the scan could not tell: unknown fix, unreadable object, incomplete walk).
bool is_error(ScanFinding::Kind kind);

/// The findings of a scan in report order: per install its failing fixes (located at the first
/// hit of a present-when-unfixed marker, else the first file searched), the shared objects with
/// no kernel image for the GPU or unreadable, then an incomplete walk.
std::vector<ScanFinding> scan_findings(const ScanReport& report, const CiContext& context);

/// A fix's details, one line each: its verdict and why, the files looked at, and its markers'
/// hits ("path:line: text", relative to the install's root), escaped.
std::string fix_details(const ScanReport& report, const FixResult& fix);

/// The judgement line of a shared object: "sm_90, sm_120 -> 12.0: exact" per capability, or its
/// error; escaped.
std::string object_details(const ScanReport& report, const KernelGroup& group, std::size_t i);

}  // namespace sm120check::ci
