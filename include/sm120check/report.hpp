// Rendering of `verify` and `show` results as text (for people) and JSON (for scripts).
// The JSON shapes are documented in docs/json.md; fields may be added, none renamed.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/gpu.hpp"
#include "sm120check/kernels.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/scan.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {

/// Output format chosen by --format: text and JSON for every command; JUnit XML, GitHub Actions
/// workflow commands and SARIF 2.1.0 for `verify` and `scan` (sm120check/ci_report.hpp).
enum class OutputFormat { kText, kJson, kJunit, kGithub, kSarif };

/// "text", "json", "junit", "github", "sarif".
std::string_view format_name(OutputFormat format);

/// Schema names written in the "schema" field.
inline constexpr const char* kVerifySchema = "sm120check.verify/3";
inline constexpr const char* kShowSchema = "sm120check.show/1";
inline constexpr const char* kGpuSchema = "sm120check.gpu/1";
inline constexpr const char* kScanSchema = "sm120check.scan/1";
inline constexpr const char* kCatalogListSchema = "sm120check.catalog/1";
inline constexpr const char* kKernelsSchema = "sm120check.kernels/1";

/// Writes the human report of a verify run: one block per patch, a line per file and per hunk
/// (line found, offset, fuzz), the patch's evidence when it has some ("evidence:", then up to
/// 10 "path:line: text" lines of the verified files holding its markers and one "not in FILES:"
/// line naming the markers found in none of them), the marker search when it ran, and a summary
/// line. ANSI colour only when `color` is true.
void render_verify_text(std::ostream& out, const VerifyReport& report, bool color);

/// The last line of the verify text report, without colour: "summary: 3 patches: 1 applied,
/// 1 applicable, 1 conflict  -> exit 2".
std::string verify_summary_line(const VerifyReport& report);

/// The `tool` object of every JSON document: {"name": "sm120check", "version": VERSION,
/// "commit": the 40-hex-digit git commit the binary was built from or null when unknown,
/// "dirty": whether tracked files differed from that commit at build time (false when unknown)}.
/// The commit is what set_tool_build() was given (the CLI passes --version's; a library user
/// that sets nothing gets null).
nlohmann::ordered_json tool_to_json();

/// Sets the build identity tool_to_json() reports: `commit` as --version prints it (40 hex
/// digits, or "" when unknown) and `dirty`. Call once at start-up, before any report is
/// built; not synchronised with concurrent tool_to_json() calls.
void set_tool_build(std::string_view commit, bool dirty);

/// The "sm120check.verify/3" document (keys in the documented order).
nlohmann::ordered_json verify_to_json(const VerifyReport& report);

/// verify_to_json(`report`) with the keys of `extra` (an object) added at the end, written to
/// `sink` as dump(2, ' ', false, error_handler_t::replace) and a "\n" would write it, in pieces
/// of about 1 MiB: each hunk's object is built and written on its own, so memory does not grow
/// with the number of hunks (500k hunks: 1.85 GB with the whole document in memory).
void write_verify_json(const VerifyReport& report, const nlohmann::ordered_json& extra,
                       const std::function<void(std::string_view)>& sink);

/// The "markers" array of a search, and the "evidence" array of a patch (docs/json.md): per
/// marker its text, regex, origin, file, hits ({"path", "line", "text"}) and hit_count.
nlohmann::ordered_json markers_to_json(const std::vector<MarkerHits>& markers);

/// The "search" object: files and bytes searched, and what was skipped (docs/json.md).
nlohmann::ordered_json search_to_json(const SearchResult& result);

/// Writes the hits of `markers` the way `grep -n` does, one line each: "path:line: text"
/// (escaped for the terminal), in path and line order, a line holding several markers once.
/// Every line starts with `indent`.
void render_hits_text(std::ostream& out, const std::vector<MarkerHits>& markers,
                      std::string_view indent = {});

/// One line saying what a search skipped ("skipped: 2 over the size limit (big.bin, ...), 1
/// binary"), or "" when nothing was skipped.
std::string search_skipped_text(const SearchResult& result);

/// Writes what the parser understood, like `lsdiff -v`.
void render_show_text(std::ostream& out, const std::vector<Patch>& patches, bool color);

/// The "sm120check.show/1" document.
nlohmann::ordered_json show_to_json(const std::vector<Patch>& patches);

/// Writes the human report of `sm120check scan`: target, GPU, catalog and walk lines, then per
/// install a header (distribution and version, or project and HEAD; kind; root) and one line per
/// fix ("VERDICT ID: title  [CCs, relevant: yes|no|unknown]"), for fixes not present the reason,
/// and up to 10 evidence lines "path:line: text" (paths relative to the install's root, text
/// cut at kMaxHitText bytes), and its kernels line (shared objects with CUDA code, counted per
/// judgement for each capability) with up to 20 object lines "path: architectures -> CC:
/// judgement"; then other distributions whose shared objects carry CUDA code, the same way; the
/// entries not installed (counted per project), the kernel totals, notes, and a summary line
/// with the exit code. Colour only when `color`.
void render_scan_text(std::ostream& out, const ScanReport& report, bool color);

/// The last line of the scan text report, without colour: "summary: 3 fixes in 2 installs:
/// 1 present, 1 missing, 1 unknown; 4 not installed  -> exit 1".
std::string scan_summary_line(const ScanReport& report);

/// The "sm120check.scan/1" document (docs/json.md), keys in the documented order; "kernels" is
/// null with --no-kernels.
nlohmann::ordered_json scan_to_json(const ScanReport& report);

/// `scan --list`: one line per entry, "ID  PROJECT  CCS  TITLE", aligned, and a count.
void render_catalog_text(std::ostream& out, const Catalog& catalog);

/// `scan --list --format json`: the "sm120check.catalog/1" document, one object per entry
/// (id, project, distributions, title, compute_capabilities, upstream, source).
nlohmann::ordered_json catalog_to_json(const Catalog& catalog);

/// The GPU section of the verify document ("gpu") and body of the gpu document: source, state,
/// devices, error, driver_version, runtime_version, probe_ms (docs/json.md).
nlohmann::ordered_json gpu_to_json(const GpuReport& gpu);

/// The "sm120check.gpu/1" document of `sm120check gpu`, with `exit_code`.
nlohmann::ordered_json gpu_document(const GpuReport& gpu, int exit_code);

/// Writes the human report of `sm120check gpu`: versions, then every field of every device, or
/// the state and error when there is none.
void render_gpu_text(std::ostream& out, const GpuReport& gpu, bool color);

/// One line per device for the verify report's header ("gpu 0: NVIDIA H200, compute capability
/// 9.0 (sm_90), ..."), or one line saying why there is none. Escaped for a terminal.
std::vector<std::string> gpu_summary_lines(const GpuReport& gpu);

/// The "sm120check.kernels/1" document of `sm120check kernels` (docs/json.md), with
/// `exit_code`.
nlohmann::ordered_json kernels_document(const KernelsReport& report, int exit_code);

/// One file of "sm120check.kernels/1" (`files[]`: path, elf, error, fat_binaries, fits), also
/// the objects of the scan document's kernel groups. `fits`: the file's FileFit per capability.
nlohmann::ordered_json kernel_file_to_json(const KernelListing& listing,
                                           const std::vector<FileFit>& fits);

/// The distinct architectures of a file, cubins then PTX then LTO IR, "; " between kinds:
/// "sm_90, sm_120; compute_120 (PTX 9.0)" (with "xN" counts when it has several fat binaries).
std::string kernel_architectures_text(const KernelListing& listing);

/// Writes the human report of `sm120check kernels`: per file, its architectures (counted over
/// its fat binaries), then one line per capability with the file's fit and the modules' counts;
/// with `entries`, every fat binary and entry too. Paths are escaped for a terminal.
void render_kernels_text(std::ostream& out, const KernelsReport& report, bool color, bool entries);

/// `text` with every ill-formed UTF-8 sequence replaced by U+FFFD (one per maximal ill-formed
/// subpart, as the Unicode standard recommends); well-formed text is returned unchanged. Every
/// string put into the JSON documents passes through it, so dump() never throws.
std::string sanitize_utf8(std::string_view text);

/// `text` made safe to write to a terminal: C0 controls, DEL and bytes that are not well-formed
/// UTF-8 become "\xNN" (e.g. ESC -> "\x1b"); C1 controls and bidirectional formatting
/// characters (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) become "\uNNNN". Everything
/// else, including a backslash, is kept. Used for every patch-supplied string in text output.
std::string escape_for_terminal(std::string_view text);

}  // namespace sm120check
