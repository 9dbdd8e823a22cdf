// The catalog of fix signatures (patches/catalog, documented field by field in its README.md):
// one JSON file per known upstream fix for compute capability 12.x, with the files it touches
// upstream and in an install and the markers that tell fixed from unfixed code. The files of
// patches/catalog are built into the binary (a CMake step embeds them), so a host that has only
// the binary has the catalog; `scan --catalog DIR` adds a user's own entries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/gpu.hpp"

namespace sm120check {

/// The catalog format read here (the entries' "schema" field).
inline constexpr int kCatalogSchema = 1;

/// The projects an entry may name (its "project" field; the schema's enum).
inline constexpr std::string_view kCatalogProjects[] = {
    "sglang",       "vllm",     "flashinfer", "triton",       "flash-attention", "bitsandbytes",
    "xformers",     "llama.cpp", "pytorch",   "tensorrt-llm", "deepgemm"};

/// A marker: a fixed string found when it is a substring of one line, or a PCRE2 pattern
/// applied to each line without its newline; on the line's code only (its comments, and a
/// Python file's docstrings, blanked: sm120check/code_text.hpp) unless `comment`.
struct CatalogMarker {
  std::string text;
  bool regex = false;    ///< "pcre2" (true) or "literal" (false).
  bool comment = false;  ///< "comment": true: the marker is comment text upstream; whole lines.
};

/// A later location of a file ("moved[]").
struct CatalogMove {
  std::string upstream;                  ///< relative path in the upstream repository.
  std::optional<std::string> installed;  ///< relative to site-packages; null: not in a wheel.
  std::string by;                        ///< the PR or commit that moved it.
};

/// A file the fix touches ("files[]").
struct CatalogFile {
  std::string upstream;
  std::optional<std::string> installed;
  std::vector<CatalogMove> moved;
};

/// Where a fix lives upstream ("upstream").
struct CatalogUpstream {
  std::string repository;             ///< "https://github.com/OWNER/NAME".
  std::optional<std::int64_t> pr;     ///< pull request number.
  std::optional<std::string> commit;  ///< 40 hex digits.
  std::optional<std::string> parent;  ///< commit^, set exactly when commit is.
  std::optional<std::string> merged;  ///< "YYYY-MM-DD".
  std::string state;                  ///< "merged", "reverted" or "open".
};

/// One fix signature.
struct CatalogEntry {
  std::string id;       ///< equal to the file's stem, unique in a catalog.
  std::string project;  ///< one of kCatalogProjects.
  /// pip distribution names as written; `normalized_distributions` the same per PEP 503.
  std::vector<std::string> distributions;
  std::vector<std::string> normalized_distributions;
  /// normalized_distributions, then the other names their code ships under
  /// (distribution_aliases()), each once: the names an installed distribution is matched by.
  std::vector<std::string> matched_distributions;
  std::string title;
  CatalogUpstream upstream;
  /// The GPUs the fix matters for, as written ("12.0") and parsed.
  std::vector<std::string> compute_capabilities;
  std::vector<ComputeCapability> capabilities;
  std::string symptom;
  std::vector<CatalogFile> files;
  std::vector<CatalogMarker> fixed;    ///< present-when-fixed: all must be found.
  std::vector<CatalogMarker> unfixed;  ///< present-when-unfixed: any one found.
  std::string confirmed;
  /// Where the entry was read: "built-in:flashinfer/ID.json" or the user file's path.
  std::string source;
};

/// A catalog: entries in order (built-in ones by path, then each --catalog DIR's by path), ids
/// unique.
struct Catalog {
  std::vector<CatalogEntry> entries;
  std::size_t builtin = 0;  ///< entries that came with the binary (before any user directory).
  /// One line per built-in entry a user entry replaced: "ID: built-in entry replaced by PATH".
  std::vector<std::string> replaced;
  /// The user directories added, as given, and how many entries each gave.
  std::vector<std::pair<std::string, std::size_t>> user_dirs;

  /// The entry with `id`, or nullptr.
  const CatalogEntry* find(std::string_view id) const;
};

/// `name` normalised as PEP 503 says: lower case, every run of "-", "_" and "." one "-"
/// ("Flash_Attn" -> "flash-attn").
std::string normalize_distribution_name(std::string_view name);

/// The other PEP 503 names under which the code of distribution `normalized` is installed, in
/// the table of patches/catalog/README.md ("Distribution names"): "pytorch-triton" for "triton"
/// (the Triton wheel PyTorch's CUDA wheels depend on; same `triton` package folder),
/// "flashinfer" for "flashinfer-python" (FlashInfer's name up to 0.2.0.post2). Empty for others.
std::vector<std::string> distribution_aliases(std::string_view normalized);

/// Parses and validates one entry: `text` is the file's content, `file` names it in errors,
/// `stem` is the file name without ".json" (the id must equal it). Checks every field the
/// README lists (required, types, the schema's patterns and enums, relative normalised paths,
/// compute capabilities that parse) and that each marker compiles (PCRE2 for "pcre2").
/// Throws Error(file, line, what): for a JSON syntax error the line of nlohmann::json's byte
/// offset; else every problem of the entry, by line: the first in what(), the others in
/// Error::more(), each at the line where its key (or array element) stands, a missing field
/// at the line of its object.
CatalogEntry parse_catalog_entry(std::string_view text, const std::string& file,
                                 std::string_view stem);

/// The catalog built into the binary (patches/catalog/*/*.json at build time), validated.
/// Throws Error for a bad built-in entry (a build of a broken catalog).
Catalog builtin_catalog();

/// Adds every `*.json` of directory `dir` and of its subdirectories one level down (the
/// catalog's own `<project>/<id>.json` layout, or a flat folder), in path order; "schema.json"
/// is not an entry. An entry whose id a built-in entry has replaces it (noted in `replaced`);
/// two user entries with one id are an error. Throws Error naming the file and line of a bad
/// entry, or `dir` when it cannot be read or holds no entry.
void add_catalog_directory(Catalog& catalog, const std::string& dir);

/// Keeps only the entries whose id is in `ids` (in catalog order). Throws Error for an id the
/// catalog does not have.
void keep_only(Catalog& catalog, const std::vector<std::string>& ids);

}  // namespace sm120check
