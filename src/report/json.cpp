// JSON rendering of `verify` and `show` results: the "sm120check.verify/3" and
// "sm120check.show/1" documents described in docs/json.md. Every string taken from a patch or a
// tree goes through sanitize_utf8() so that nlohmann::json::dump() never throws on it.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "sm120check/report.hpp"

namespace sm120check {
namespace {

using json = nlohmann::ordered_json;

/// A sanitized string value.
json str(std::string_view text) { return sanitize_utf8(text); }

/// A sanitized string value, or null when `text` is empty.
json str_or_null(std::string_view text) {
  if (text.empty()) return nullptr;
  return sanitize_utf8(text);
}

/// A sanitized string value, or null when absent.
json opt_str(const std::optional<std::string>& text) {
  if (!text) return nullptr;
  return sanitize_utf8(*text);
}

/// A git file mode as an octal string ("100644"), or null when absent.
json mode_or_null(const std::optional<std::uint32_t>& mode) {
  if (!mode) return nullptr;
  return fmt::format("{:o}", *mode);
}

json hunk_to_json(const HunkReport& hunk) {
  const HunkMatch& m = hunk.match;
  const bool found = m.status == HunkStatus::kApplied || m.status == HunkStatus::kApplicable;
  json out = json::object();
  out["index"] = hunk.index;
  out["old_start"] = hunk.old_start;
  out["old_lines"] = hunk.old_lines;
  out["new_start"] = hunk.new_start;
  out["new_lines"] = hunk.new_lines;
  out["status"] = std::string(to_string(m.status));
  out["line"] = found && m.line > 0 ? json(m.line) : json(nullptr);
  out["offset"] = found ? json(m.offset) : json(nullptr);
  out["fuzz"] = found ? json(m.fuzz) : json(nullptr);
  out["kind"] = m.kind == MatchKind::kNone ? json(nullptr) : json(std::string(to_string(m.kind)));
  out["presence"] = std::string(to_string(m.presence));
  out["presence_reason"] = str_or_null(m.presence_reason);
  if (m.kind == MatchKind::kDrifted)
    out["drift"] = {{"context_agree", m.context_agree}, {"context_lines", m.context_lines}};
  else
    out["drift"] = nullptr;
  json places = json::array();
  for (const std::size_t line : m.places) places.push_back(line);
  out["places"] = std::move(places);
  out["both_images"] = m.both_images;
  out["diagnostic"] = str_or_null(m.diagnostic);
  if (m.closest_line == 0) {
    out["closest"] = nullptr;
  } else {
    out["closest"] = {{"image", m.closest_image == Image::kPre ? "pre-image" : "post-image"},
                      {"line", m.closest_line},
                      {"agree", m.closest_agree},
                      {"of", m.closest_lines},
                      {"first_difference", m.closest_differs_at}};
  }
  return out;
}

/// A file's object; its `hunks` empty unless `with_hunks`.
json file_to_json(const FileReport& file, bool with_hunks = true) {
  json out = json::object();
  out["old_path"] = str(file.old_path);
  out["new_path"] = str(file.new_path);
  out["target_path"] = opt_str(file.target_path);
  out["change"] = std::string(to_string(file.change));
  out["status"] = std::string(to_string(file.status));
  out["presence"] = std::string(to_string(file.presence));
  out["reason"] = str_or_null(file.reason);
  json hunks = json::array();
  if (with_hunks)
    for (const HunkReport& h : file.hunks) hunks.push_back(hunk_to_json(h));
  out["hunks"] = std::move(hunks);
  out["relocated"] = file.relocated;
  out["relocation"] = str_or_null(file.relocation);
  json candidates = json::array();
  for (const std::string& c : file.candidates) candidates.push_back(str(c));
  out["candidates"] = std::move(candidates);
  return out;
}

/// A patch's object; its `files` empty unless `with_files`.
json patch_report_to_json(const PatchReport& patch, bool with_files = true) {
  json out = json::object();
  out["source"] = str(patch.source);
  out["subject"] = opt_str(patch.subject);
  out["line"] = patch.patch_line;
  out["status"] = std::string(to_string(patch.status));
  out["presence"] = std::string(to_string(patch.presence));
  out["error"] = str_or_null(patch.error);
  out["strip"] = patch.strip;
  out["strip_detected"] = patch.strip_detected;
  json needs = json::array();
  for (std::size_t i : patch.depends_on) needs.push_back(i + 1);
  out["depends_on"] = std::move(needs);
  json arch = json::object();
  json targets = json::array();
  for (const std::string& name : patch.arch.names()) targets.push_back(name);
  arch["targets"] = std::move(targets);
  arch["source"] = std::string(to_string(patch.arch.source));
  arch["relevant"] = patch.relevant ? json(*patch.relevant) : json(nullptr);
  arch["evidence"] = str_or_null(patch.arch.evidence);
  arch["confidence"] =
      patch.arch.empty() ? json(nullptr) : json(std::string(to_string(patch.arch.confidence)));
  arch["doubt"] = patch.arch.empty() ? json(nullptr) : str_or_null(patch.arch.doubt);
  out["arch"] = std::move(arch);
  json files = json::array();
  if (with_files)
    for (const FileReport& f : patch.files) files.push_back(file_to_json(f));
  out["files"] = std::move(files);
  out["evidence"] = markers_to_json(patch.evidence);
  out["markers"] = patch.search ? markers_to_json(patch.search->markers) : json(nullptr);
  out["search"] = patch.search ? search_to_json(*patch.search) : json(nullptr);
  return out;
}

json show_hunk_to_json(const Hunk& hunk) {
  json out = json::object();
  out["old_start"] = hunk.old_start;
  out["old_lines"] = hunk.old_lines;
  out["new_start"] = hunk.new_start;
  out["new_lines"] = hunk.new_lines;
  out["section"] = str_or_null(hunk.section);
  out["added"] = hunk.added();
  out["removed"] = hunk.removed();
  out["line"] = hunk.patch_line;
  return out;
}

json show_file_to_json(const FilePatch& file) {
  json out = json::object();
  out["old_path"] = str(file.old_path);
  out["new_path"] = str(file.new_path);
  out["change"] = std::string(to_string(file.change));
  out["old_mode"] = mode_or_null(file.old_mode);
  out["new_mode"] = mode_or_null(file.new_mode);
  out["similarity"] = file.similarity ? json(*file.similarity) : json(nullptr);
  out["binary"] = file.binary;
  out["binary_data"] = file.binary_data;
  out["old_blob"] = str_or_null(file.old_blob);
  out["new_blob"] = str_or_null(file.new_blob);
  out["git"] = file.git;
  out["line"] = file.patch_line;
  json hunks = json::array();
  for (const Hunk& h : file.hunks) hunks.push_back(show_hunk_to_json(h));
  out["hunks"] = std::move(hunks);
  return out;
}

}  // namespace

nlohmann::ordered_json markers_to_json(const std::vector<MarkerHits>& markers) {
  json list = json::array();
  for (const MarkerHits& m : markers) {
    json out = json::object();
    out["text"] = str(m.marker.text);
    out["regex"] = m.marker.regex;
    out["origin"] = std::string(to_string(m.marker.origin));
    out["file"] = str_or_null(m.marker.file);
    json hits = json::array();
    for (const SearchHit& h : m.hits)
      hits.push_back({{"path", str(h.path)}, {"line", h.line}, {"text", str(h.text)}});
    out["hits"] = std::move(hits);
    out["hit_count"] = m.total;
    if (m.error_lines > 0) {  // present only then: PCRE2 gave up on some line
      json errors = json::array();
      for (const std::string& e : m.errors) errors.push_back(str(e));
      out["errors"] = std::move(errors);
      out["error_lines"] = m.error_lines;
    }
    list.push_back(std::move(out));
  }
  return list;
}

nlohmann::ordered_json search_to_json(const SearchResult& result) {
  json out = json::object();
  out["files_searched"] = result.files_searched;
  out["bytes_searched"] = result.bytes_searched;
  json large = json::array(), unreadable = json::array();
  for (const std::string& p : result.skipped_large) large.push_back(str(p));
  for (const std::string& p : result.skipped_unreadable) unreadable.push_back(str(p));
  out["skipped_large"] = std::move(large);
  out["skipped_binary"] = result.skipped_binary;
  out["skipped_symlinks"] = result.skipped_symlinks;
  out["skipped_ignored"] = result.skipped_ignored;
  out["skipped_unreadable"] = std::move(unreadable);
  return out;
}

namespace {
struct ToolBuild {
  std::string commit;
  bool dirty = false;
};
ToolBuild& tool_build() {
  static ToolBuild build;
  return build;
}
}  // namespace

void set_tool_build(std::string_view commit, bool dirty) {
  tool_build() = ToolBuild{std::string(commit), dirty};
}

nlohmann::ordered_json tool_to_json() {
  const ToolBuild& build = tool_build();
  return {{"name", "sm120check"},
          {"version", SM120CHECK_VERSION},
          {"commit", build.commit.empty() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(build.commit)},
          {"dirty", !build.commit.empty() && build.dirty}};
}

namespace {

/// The verify document; its `patches` empty unless `with_patches`.
json verify_document(const VerifyReport& report, bool with_patches) {
  json doc = json::object();
  doc["schema"] = kVerifySchema;
  doc["tool"] = tool_to_json();
  std::optional<unsigned> strip = report.common_strip();
  doc["target"] = {{"path", str(report.target)}, {"strip", strip ? json(*strip) : json(nullptr)}};
  doc["series"] = report.series;
  doc["gpu"] = gpu_to_json(report.gpu ? *report.gpu : unprobed_gpu());
  json patches = json::array();
  if (with_patches)
    for (const PatchReport& p : report.patches) patches.push_back(patch_report_to_json(p));
  doc["patches"] = std::move(patches);
  json summary = json::object();
  Summary counts = report.summary();
  for (std::size_t i = 0; i < kStatusCount; ++i)
    summary[std::string(to_string(static_cast<Status>(i)))] = counts[i];
  json presence = json::object();
  const std::array<std::size_t, kPresenceCount> by_presence = report.presence_summary();
  for (std::size_t i = 0; i < kPresenceCount; ++i)
    presence[std::string(to_string(static_cast<Presence>(i)))] = by_presence[i];
  summary["presence"] = std::move(presence);
  doc["summary"] = std::move(summary);
  doc["exit_code"] = report.exit_code();
  return doc;
}

/// Writes JSON text in pieces of about kChunk bytes.
class ChunkedWriter {
 public:
  explicit ChunkedWriter(const std::function<void(std::string_view)>& sink) : sink_(sink) {}
  ~ChunkedWriter() = default;
  ChunkedWriter(const ChunkedWriter&) = delete;
  ChunkedWriter& operator=(const ChunkedWriter&) = delete;
  void add(std::string_view text) {
    buffer_ += text;
    if (buffer_.size() >= kChunk) flush();
  }
  void flush() {
    if (!buffer_.empty()) sink_(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  const std::function<void(std::string_view)>& sink_;
  std::string buffer_;
};

/// `value` as dump(2, ' ', false, replace) writes it at nesting depth `depth`: every line after
/// the first indented by 2 * depth more spaces.
std::string dump_at(const json& value, std::size_t depth) {
  const std::string text = value.dump(2, ' ', false, json::error_handler_t::replace);
  if (depth == 0) return text;
  const std::string indent(2 * depth, ' ');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

/// Writes `object` (at nesting depth `depth`, built with its array `key` empty) as if that array
/// held `count` elements: element i written by `element(i, depth + 2)`. The text around the
/// array is dump_at()'s, so the whole is byte for byte what dumping the full object gives.
void write_with_array(ChunkedWriter& out, const json& object, std::size_t depth,
                      std::string_view key, std::size_t count,
                      const std::function<void(std::size_t, std::size_t)>& element) {
  const std::string text = dump_at(object, depth);
  const std::string marker =
      "\n" + std::string(2 * (depth + 1), ' ') + "\"" + std::string(key) + "\": []";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos || count == 0) {  // (never absent: the caller built the key)
    out.add(text);
    return;
  }
  const std::size_t open = at + marker.size() - 1;  // the "]" of "[]"
  out.add(std::string_view(text).substr(0, open));
  const std::string element_indent(2 * (depth + 2), ' ');
  for (std::size_t i = 0; i < count; ++i) {
    out.add(i == 0 ? "\n" : ",\n");
    out.add(element_indent);
    element(i, depth + 2);
  }
  out.add("\n" + std::string(2 * (depth + 1), ' '));
  out.add(std::string_view(text).substr(open));
}

}  // namespace

nlohmann::ordered_json verify_to_json(const VerifyReport& report) {
  return verify_document(report, true);
}

void write_verify_json(const VerifyReport& report, const nlohmann::ordered_json& extra,
                       const std::function<void(std::string_view)>& sink) {
  json doc = verify_document(report, false);
  for (auto it = extra.begin(); it != extra.end(); ++it) doc[it.key()] = it.value();
  ChunkedWriter out(sink);
  write_with_array(out, doc, 0, "patches", report.patches.size(), [&](std::size_t i, std::size_t d) {
    const PatchReport& patch = report.patches[i];
    write_with_array(out, patch_report_to_json(patch, false), d, "files", patch.files.size(),
                     [&](std::size_t k, std::size_t fd) {
                       const FileReport& file = patch.files[k];
                       write_with_array(out, file_to_json(file, false), fd, "hunks",
                                        file.hunks.size(), [&](std::size_t h, std::size_t hd) {
                                          out.add(dump_at(hunk_to_json(file.hunks[h]), hd));
                                        });
                     });
  });
  out.add("\n");
  out.flush();
}

nlohmann::ordered_json show_to_json(const std::vector<Patch>& patches) {
  json doc = json::object();
  doc["schema"] = kShowSchema;
  doc["tool"] = tool_to_json();
  json list = json::array();
  for (const Patch& p : patches) {
    json out = json::object();
    out["source"] = str(p.source);
    out["subject"] = opt_str(p.subject);
    out["line"] = p.patch_line;
    json files = json::array();
    for (const FilePatch& f : p.files) files.push_back(show_file_to_json(f));
    out["files"] = std::move(files);
    list.push_back(std::move(out));
  }
  doc["patches"] = std::move(list);
  return doc;
}

}  // namespace sm120check
