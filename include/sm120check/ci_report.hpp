// Reports for CI systems (`--format junit|github|sarif`), rendered from the results of `verify`
// and `scan` as the text and JSON reports are (sm120check/report.hpp): JUnit XML, GitHub Actions
// workflow commands with a Markdown job summary, and SARIF 2.1.0. The shapes are documented in
// docs/formats.md. Every string taken from a patch or a tree is escaped for the format (and for a
// terminal first where a person reads it: escape_for_terminal()), so a hostile name can neither
// break the document nor inject a workflow command.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/patch.hpp"
#include "sm120check/report.hpp"
#include "sm120check/scan.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {

/// What the CI formats need besides a report.
struct CiContext {
  /// Put before every path inside TARGET so that the CI system, whose working directory is
  /// usually the repository's root, finds the file: see report_path_prefix(). "" or ends in "/".
  std::string path_prefix;
  /// The absolute directory relative paths start from (the working directory): SARIF's
  /// "%SRCROOT%" base; empty leaves originalUriBaseIds out.
  std::string cwd;
  /// Wall time of the run in seconds: the `time` of JUnit's <testsuites>; 0 when not measured
  /// (sm120check does not time patches or fixes one by one: their `time` is always 0).
  double seconds = 0;
};

/// The prefix that makes a path relative to TARGET a path relative to `cwd` (the directory the
/// CI system resolves paths from): "" for TARGET "." (or `cwd` itself); "dir/" for a relative
/// TARGET "dir" or "./dir/", lexically normalised; an absolute TARGET inside `cwd` made relative
/// to it; any other absolute TARGET as it is, with "/" at the end. Nothing is looked up on disk.
std::string report_path_prefix(std::string_view target, std::string_view cwd);

/// Lines of a hunk shown in a JUnit failure (the rest counted: "... N more lines").
inline constexpr std::size_t kMaxJunitHunkLines = 100;

/// The JUnit XML report of a verify run (docs/formats.md): <testsuites> with one <testsuite> per
/// patch and one <testcase> per file patch; a file that is applicable, partial, conflict or
/// unknown has a <failure> (type: its status) whose text is each hunk's verdict and, for the
/// hunks not applied, the hunk's lines (kMaxJunitHunkLines at most); a file or patch in error an
/// <error>; the files of a patch skipped by --only-relevant <skipped>. `patches` are those
/// `report` was made from, in the same order (they give the hunks' lines). UTF-8, XML 1.0.
std::string verify_to_junit(const VerifyReport& report, const std::vector<Patch>& patches,
                            const CiContext& context);

/// GitHub Actions workflow commands for a verify run, one line each: "::error file=F,line=L,
/// title=T::MESSAGE" per file patch that is not applied (::warning for unknown; file and line
/// point at the target file and the line of its first hunk not applied: where it applies, else
/// its near miss, else where its header says), per patch in error ("file=" the patch file and
/// its line), then the summary line as plain text. Properties and data escaped as GitHub's
/// toolkit does (github_escape_property(), github_escape_data()).
std::string verify_to_github(const VerifyReport& report, const CiContext& context);

/// The Markdown job summary of a verify run (for the file GITHUB_STEP_SUMMARY names): a heading,
/// a table of the patches (status, fix presence, files not applied), and per file not applied
/// its hunks' verdicts.
std::string verify_github_summary(const VerifyReport& report, const CiContext& context);

/// The SARIF 2.1.0 log of a verify run (docs/formats.md): one run whose tool.driver lists the
/// rules "verify/applicable", "verify/partial", "verify/conflict", "verify/unknown" and
/// "verify/error", and one result per file patch not applied (and per patch in error), located
/// at the target file (uri relative to the working directory under uriBaseId "%SRCROOT%",
/// or an absolute file: URI) and the line of its first hunk not applied.
nlohmann::ordered_json verify_to_sarif(const VerifyReport& report, const CiContext& context);

/// The report of a verify run in `format` (kJunit, kGithub or kSarif): verify_to_junit(),
/// verify_to_github(), or verify_to_sarif() as the JSON reports are written (indented by 2, a
/// final newline).
std::string verify_ci_report(const VerifyReport& report, const std::vector<Patch>& patches,
                             OutputFormat format, const CiContext& context);

/// The report of a scan in `format` (kJunit, kGithub or kSarif), as verify_ci_report().
std::string scan_ci_report(const ScanReport& report, OutputFormat format,
                           const CiContext& context);

/// The JUnit XML report of a scan: one <testsuite> per install (a <testcase> per catalog fix:
/// missing is a <failure>, unknown a <failure> of type unknown, fixes --only-relevant skips
/// <skipped>), one "not installed" suite whose cases are all <skipped>, one per kernel group (a
/// <testcase> per shared object with CUDA code: no kernel image for the GPU is a <failure>, an
/// unreadable object an <error>), and a "walk" suite whose one case fails when the walk was
/// incomplete.
std::string scan_to_junit(const ScanReport& report, const CiContext& context);

/// GitHub Actions workflow commands for a scan: ::error per missing fix and per shared object
/// with no kernel image for the GPU, ::warning per unknown fix, unreadable object and note of
/// an incomplete walk, then the summary line as plain text.
std::string scan_to_github(const ScanReport& report, const CiContext& context);

/// The Markdown job summary of a scan: a heading, a table of the fixes judged per install, and
/// the shared objects with no kernel image.
std::string scan_github_summary(const ScanReport& report, const CiContext& context);

/// The SARIF 2.1.0 log of a scan: rules "scan/missing", "scan/unknown", "scan/no-kernel-image",
/// "scan/unreadable-object" and "scan/incomplete-walk"; one result per missing or unknown fix
/// (at its first file, and the line of its first present-when-unfixed marker hit), per object
/// with no kernel image or unreadable, and one for an incomplete walk.
nlohmann::ordered_json scan_to_sarif(const ScanReport& report, const CiContext& context);

/// `text` as XML 1.0 character data (`attribute` false) or a double-quoted attribute value
/// (true): ill-formed UTF-8 replaced by U+FFFD; "&", "<", ">" escaped (and "\"" in attributes);
/// "\r" always, "\t" and "\n" in attributes, written as character references so that a parser
/// gives them back; characters XML 1.0 forbids (C0 controls other than tab, LF and CR; U+FFFE,
/// U+FFFF) written as the text "\xNN" / "\uFFFE".
std::string xml_escape(std::string_view text, bool attribute);

/// `text` as the data of a GitHub workflow command: "%" -> "%25", "\r" -> "%0D", "\n" -> "%0A"
/// (what @actions/core's escapeData does; the runner undoes it).
std::string github_escape_data(std::string_view text);

/// `text` as a property value of a GitHub workflow command: github_escape_data() plus
/// ":" -> "%3A" and "," -> "%2C" (@actions/core's escapeProperty); other C0 controls and DEL
/// also become "%XX" (left as they are by the runner, so they can do no harm).
std::string github_escape_property(std::string_view text);

/// `text` for a Markdown table cell or paragraph (GitHub-flavoured): ASCII punctuation that
/// Markdown or GitHub gives a meaning (\ ` * _ [ ] < > | ~ & ! # $) backslash-escaped, line
/// breaks as spaces.
std::string markdown_escape(std::string_view text);

/// `path` (bytes, "/"-separated) as a URI path: every byte but A-Z a-z 0-9 - . _ ~ / written as
/// "%XX", so that ":" in a first segment cannot read as a scheme.
std::string uri_escape_path(std::string_view path);

}  // namespace sm120check
