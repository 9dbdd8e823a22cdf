// Rendering of `verify` and `show` results as text (for people) and JSON (for scripts).
// The JSON shapes are documented in docs/json.md; fields may be added, none renamed.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "sm120check/patch.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {

/// Output format chosen by --format.
enum class OutputFormat { kText, kJson };

/// Schema names written in the "schema" field.
inline constexpr const char* kVerifySchema = "sm120check.verify/1";
inline constexpr const char* kShowSchema = "sm120check.show/1";

/// Writes the human report of a verify run: one block per patch, a line per file and per hunk
/// (line found, offset, fuzz), and a summary line. ANSI colour only when `color` is true.
void render_verify_text(std::ostream& out, const VerifyReport& report, bool color);

/// The "sm120check.verify/1" document.
nlohmann::json verify_to_json(const VerifyReport& report);

/// Writes what the parser understood, like `lsdiff -v`.
void render_show_text(std::ostream& out, const std::vector<Patch>& patches, bool color);

/// The "sm120check.show/1" document.
nlohmann::json show_to_json(const std::vector<Patch>& patches);

}  // namespace sm120check
