// The phrases of the verify report that every format shares (internal to src/report): the text
// report writes them with colour, the CI formats (junit.cpp, github.cpp, sarif.cpp) without, so
// that a hunk reads the same in a terminal, a JUnit failure, an annotation and a SARIF message.
// Every patch-supplied string in them is escaped for a terminal (escape_for_terminal()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sm120check/report.hpp"

namespace sm120check::report_words {

/// Words for a matcher diagnostic code (HunkMatch::diagnostic), e.g. "differs only in line
/// endings (CRLF vs LF)"; an unknown code escaped as it is.
std::string diagnostic_words(std::string_view code);

/// "@@ -OLD_START,OLD_LINES +NEW_START,NEW_LINES @@".
std::string hunk_range(std::uint32_t old_start, std::uint32_t old_lines, std::uint32_t new_start,
                       std::uint32_t new_lines);

/// "patch NUMBER/COUNT: SOURCE[:LINE]: SUBJECT" (":LINE" when the patch does not start on the
/// first line of its source, as in an mbox series), escaped.
std::string patch_title(std::size_t number, std::size_t count, const std::string& source,
                        std::size_t patch_line, const std::optional<std::string>& subject);

/// A patch path with `strip` leading components removed, or as written when it is too short.
std::string stripped(const std::string& path, unsigned strip);

/// The path shown for a file: "old -> new" for renames and copies, else the path examined in
/// the tree, else the stripped path of the side that exists. Escaped.
std::string file_label(const FileReport& file, unsigned strip);

/// A hunk's verdict: "applicable at line 17 (offset +7, fuzz 1)", "conflict: differs only in
/// ... (nearest: pre-image at line 15, 3 of 4 lines agree; line 16 differs); change absent: ...".
/// The status word in ANSI colour when `color`.
std::string hunk_verdict(const HunkMatch& m, bool color);

/// "summary: 3 patches: 1 applied, 1 applicable, 1 conflict  -> exit 2" (status words in
/// colour when `color`).
std::string summary_line(const VerifyReport& report, bool color);

/// Patch `i` of `report` as the text report writes it, without colour: its title and status,
/// then its strip level, presence, series, arch, file, hunk, evidence and marker lines (the
/// status column fitted to this patch alone).
std::string patch_block(const VerifyReport& report, std::size_t i);

/// The title of an install: "flashinfer-python 0.2.5 (distribution, ROOT)", escaped.
std::string install_title(const Install& install);

/// The title of a kernel group that is no install of the catalog, as install_title().
std::string group_title(const KernelGroup& group);

/// A fix as the scan text report writes it, without colour: "  VERDICT  ID: TITLE  [CCs,
/// relevant: ...]", then why (when not present) and up to 10 evidence lines.
std::string fix_block(const ScanReport& report, const FixResult& fix);

/// Object `i` of `group` as the scan text report describes it, without colour: its
/// architectures and how each capability runs it, or "error: WHY".
std::string object_text(const ScanReport& report, const KernelGroup& group, std::size_t i);

}  // namespace sm120check::report_words
