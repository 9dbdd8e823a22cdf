// JSON rendering of `verify` and `show` results: the "sm120check.verify/3" and
// "sm120check.show/1" documents described in docs/json.md. Every string taken from a patch or a
// tree goes through sanitize_utf8(), so that the text is valid UTF-8 (and nlohmann::json::dump()
// never throws on it).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sm120check/report.hpp"

namespace sm120check {
namespace {

using json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// Emitters. The documents below are written once, as calls on an emitter: JsonTree builds the
// nlohmann value (verify_to_json() and the other public builders), JsonText writes the text
// that value's dump(2, ' ', false, replace) gives, without building it (write_verify_json(): a
// nlohmann object per hunk, then its dump and re-indentation, was a third of a one-patch run).
// Both take: begin_object() / begin_array(), key() before each member of an object, a value
// (null(), boolean(), number(), string(), value() for a ready nlohmann value), end_object() /
// end_array().

/// True for an integer type other than bool (number()'s argument).
template <class T>
constexpr bool kIsCount = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Builds a nlohmann::ordered_json value from an emitter's calls.
class JsonTree {
 public:
  void begin_object() { open(json::object()); }
  void begin_array() { open(json::array()); }
  void end_object() { stack_.pop_back(); }
  void end_array() { stack_.pop_back(); }
  JsonTree& key(std::string_view k) {
    key_ = k;
    return *this;
  }
  void null() { put(nullptr); }
  void boolean(bool b) { put(b); }
  template <class T>
  std::enable_if_t<kIsCount<T>> number(T n) {
    put(n);
  }
  /// A string from a patch or a tree: sanitize_utf8()'d.
  void string(std::string_view s) { put(sanitize_utf8(s)); }
  void value(json v) { put(std::move(v)); }

  json take() { return std::move(root_); }

 private:
  json& put(json v) {
    if (stack_.empty()) return root_ = std::move(v);
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return top.back();
    }
    return top[key_] = std::move(v);
  }
  // Pointers stay valid: a container gets members only while it is the innermost open one.
  void open(json v) { stack_.push_back(&put(std::move(v))); }

  json root_;
  std::vector<json*> stack_;
  std::string key_;
};

/// Writes, into `out`, the text that dump(2, ' ', false, error_handler_t::replace) gives for the
/// value an emitter's calls describe; strings are sanitize_utf8()'d first (so they are valid
/// UTF-8) and escaped as nlohmann escapes them.
class JsonText {
 public:
  explicit JsonText(std::string& out) : out_(out) {}

  void begin_object() { open('{'); }
  void begin_array() { open('['); }
  void end_object() { close('}'); }
  void end_array() { close(']'); }
  /// `k`: the schema's own names (ASCII, nothing to escape).
  JsonText& key(std::string_view k) {
    // The separator, the indentation and `"k": ` in one append (a key per value: 1800 for a
    // 7-file patch).
    char line[96];
    const std::string_view sep = separator();
    if (sep.size() + k.size() + 4 <= sizeof line) {
      char* at = std::copy(sep.begin(), sep.end(), line);
      *at++ = '"';
      at = std::copy(k.begin(), k.end(), at);
      at = std::copy_n("\": ", 3, at);
      out_.append(line, static_cast<std::size_t>(at - line));
    } else {
      out_.append(sep).append(1, '"').append(k).append("\": ");
    }
    keyed_ = true;
    return *this;
  }
  void null() { scalar("null"); }
  void boolean(bool b) { scalar(b ? "true" : "false"); }
  template <class T>
  std::enable_if_t<kIsCount<T>> number(T n) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, n);
    scalar(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  }
  void string(std::string_view s) {
    prefix();
    out_ += '"';
    // Most strings hold nothing to replace or escape: copied at once.
    std::size_t plain = 0;
    while (plain < s.size() && kPlain[static_cast<unsigned char>(s[plain])]) ++plain;
    out_.append(s.data(), plain);
    const std::string_view rest = s.substr(plain);
    if (std::all_of(rest.begin(), rest.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
      escape(rest);
    else
      escape(sanitize_utf8(rest));  // (a sequence starts at a byte under 0x80 or at `plain`)
    out_ += '"';
  }
  /// A ready value (the GPU section, the repository section), dumped at this depth.
  void value(const json& v) {
    prefix();
    const std::string text = v.dump(2, ' ', false, json::error_handler_t::replace);
    const std::size_t depth = open_.size();
    for (const char c : text) {
      out_ += c;
      if (c == '\n') out_.append(2 * depth, ' ');
    }
  }

 private:
  /// Bytes a string's text keeps as they are whatever follows: ASCII but for the control
  /// characters, '"' and '\\'.
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return t;
  }();

  /// `s` (valid UTF-8) as nlohmann's dump_escaped() writes it with ensure_ascii off: '"', '\\'
  /// and the control characters escaped (\b \t \n \f \r, else \u00xx), every other byte as is.
  void escape(std::string_view s) {
    std::size_t run = 0;  // start of the bytes not yet copied
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s.data() + run, i - run);
      run = i + 1;
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\b':
          out_ += "\\b";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\f':
          out_ += "\\f";
          break;
        case '\r':
          out_ += "\\r";
          break;
        default: {
          static constexpr char kHex[] = "0123456789abcdef";
          const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
          out_.append(u, sizeof u);
        }
      }
    }
    out_.append(s.data() + run, s.size() - run);
  }

  /// What goes before a member's key or an array's element: the separator and the
  /// indentation (the container then has a member). Empty at the top level.
  std::string_view separator() {
    if (open_.empty()) return {};
    static constexpr std::string_view kBreak =
        ",\n                                                            ";
    const bool more = open_.back();
    open_.back() = true;
    const std::size_t indent = 2 * open_.size();
    if (indent + 2 <= kBreak.size()) return kBreak.substr(more ? 0 : 1, indent + (more ? 2 : 1));
    deep_.assign(more ? ",\n" : "\n").append(indent, ' ');  // nesting deeper than 30
    return deep_;
  }
  /// Before an array's element (or the top-level value): the separator and the indentation.
  void member() { out_.append(separator()); }
  /// Before a value: an array's element starts its line; an object's member has its key.
  void prefix() {
    if (keyed_)
      keyed_ = false;
    else
      member();
  }
  void scalar(std::string_view text) {
    prefix();
    out_ += text;
  }
  void open(char bracket) {
    prefix();
    out_ += bracket;
    open_.push_back(false);
  }
  /// An empty container closes on its line ("[]", "{}"), a full one on a line of its own.
  void close(char bracket) {
    const bool full = open_.back();
    open_.pop_back();
    if (full) {
      out_ += '\n';
      out_.append(2 * open_.size(), ' ');
    }
    out_ += bracket;
  }

  std::string& out_;
  std::vector<bool> open_;  ///< per open container: whether it has a member yet
  std::string deep_;        ///< separator() past its constant's indentation
  bool keyed_ = false;      ///< a key was written; its value follows on the same line
};

// ---------------------------------------------------------------------------------------------
// The documents, over either emitter.

/// A string from a patch or a tree, or null when `text` is empty.
template <class E>
void string_or_null(E& e, std::string_view text) {
  if (text.empty())
    e.null();
  else
    e.string(text);
}

/// `n`, or null when not `known`.
template <class E, class T>
void number_or_null(E& e, bool known, T n) {
  if (known)
    e.number(n);
  else
    e.null();
}

/// A string from a patch or a tree, or null when absent.
template <class E>
void optional_string(E& e, const std::optional<std::string>& text) {
  if (text)
    e.string(*text);
  else
    e.null();
}

template <class E>
void emit_hunk(E& e, const HunkReport& hunk) {
  const HunkMatch& m = hunk.match;
  const bool found = m.status == HunkStatus::kApplied || m.status == HunkStatus::kApplicable;
  e.begin_object();
  e.key("index").number(hunk.index);
  e.key("old_start").number(hunk.old_start);
  e.key("old_lines").number(hunk.old_lines);
  e.key("new_start").number(hunk.new_start);
  e.key("new_lines").number(hunk.new_lines);
  e.key("status").string(to_string(m.status));
  number_or_null(e.key("line"), found && m.line > 0, m.line);
  number_or_null(e.key("offset"), found, m.offset);
  number_or_null(e.key("fuzz"), found, m.fuzz);
  string_or_null(e.key("kind"), m.kind == MatchKind::kNone ? "" : to_string(m.kind));
  e.key("presence").string(to_string(m.presence));
  string_or_null(e.key("presence_reason"), m.presence_reason);
  e.key("drift");
  if (m.kind == MatchKind::kDrifted) {
    e.begin_object();
    e.key("context_agree").number(m.context_agree);
    e.key("context_lines").number(m.context_lines);
    e.end_object();
  } else {
    e.null();
  }
  e.key("places").begin_array();
  for (const std::size_t line : m.places) e.number(line);
  e.end_array();
  e.key("both_images").boolean(m.both_images);
  string_or_null(e.key("diagnostic"), m.diagnostic);
  e.key("closest");
  if (m.closest_line == 0) {
    e.null();
  } else {
    e.begin_object();
    e.key("image").string(m.closest_image == Image::kPre ? "pre-image" : "post-image");
    e.key("line").number(m.closest_line);
    e.key("agree").number(m.closest_agree);
    e.key("of").number(m.closest_lines);
    e.key("first_difference").number(m.closest_differs_at);
    e.end_object();
  }
  e.end_object();
}

/// A file's object; `each_hunk(e, hunk)` writes each of its hunks.
template <class E, class EachHunk>
void emit_file(E& e, const FileReport& file, EachHunk each_hunk) {
  e.begin_object();
  e.key("old_path").string(file.old_path);
  e.key("new_path").string(file.new_path);
  optional_string(e.key("target_path"), file.target_path);
  e.key("change").string(to_string(file.change));
  e.key("status").string(to_string(file.status));
  e.key("presence").string(to_string(file.presence));
  string_or_null(e.key("reason"), file.reason);
  e.key("hunks").begin_array();
  for (const HunkReport& h : file.hunks) each_hunk(e, h);
  e.end_array();
  e.key("relocated").boolean(file.relocated);
  string_or_null(e.key("relocation"), file.relocation);
  e.key("candidates").begin_array();
  for (const std::string& c : file.candidates) e.string(c);
  e.end_array();
  e.end_object();
}

template <class E>
void emit_markers(E& e, const std::vector<MarkerHits>& markers) {
  e.begin_array();
  for (const MarkerHits& m : markers) {
    e.begin_object();
    e.key("text").string(m.marker.text);
    e.key("regex").boolean(m.marker.regex);
    e.key("origin").string(to_string(m.marker.origin));
    string_or_null(e.key("file"), m.marker.file);
    e.key("hits").begin_array();
    for (const SearchHit& h : m.hits) {
      e.begin_object();
      e.key("path").string(h.path);
      e.key("line").number(h.line);
      e.key("text").string(h.text);
      e.end_object();
    }
    e.end_array();
    e.key("hit_count").number(m.total);
    if (m.error_lines > 0) {  // present only then: PCRE2 gave up on some line
      e.key("errors").begin_array();
      for (const std::string& error : m.errors) e.string(error);
      e.end_array();
      e.key("error_lines").number(m.error_lines);
    }
    e.end_object();
  }
  e.end_array();
}

template <class E>
void emit_search(E& e, const SearchResult& result) {
  e.begin_object();
  e.key("files_searched").number(result.files_searched);
  e.key("bytes_searched").number(result.bytes_searched);
  e.key("skipped_large").begin_array();
  for (const std::string& p : result.skipped_large) e.string(p);
  e.end_array();
  e.key("skipped_binary").number(result.skipped_binary);
  e.key("skipped_symlinks").number(result.skipped_symlinks);
  e.key("skipped_ignored").number(result.skipped_ignored);
  e.key("skipped_unreadable").begin_array();
  for (const std::string& p : result.skipped_unreadable) e.string(p);
  e.end_array();
  e.end_object();
}

/// A patch's object; `each_file(e, file)` writes each of its files.
template <class E, class EachFile>
void emit_patch(E& e, const PatchReport& patch, EachFile each_file) {
  e.begin_object();
  e.key("source").string(patch.source);
  optional_string(e.key("subject"), patch.subject);
  e.key("line").number(patch.patch_line);
  e.key("status").string(to_string(patch.status));
  e.key("presence").string(to_string(patch.presence));
  string_or_null(e.key("error"), patch.error);
  e.key("strip").number(patch.strip);
  e.key("strip_detected").boolean(patch.strip_detected);
  e.key("depends_on").begin_array();
  for (const std::size_t i : patch.depends_on) e.number(i + 1);
  e.end_array();
  e.key("arch").begin_object();
  e.key("targets").begin_array();
  for (const std::string& name : patch.arch.names()) e.string(name);
  e.end_array();
  e.key("source").string(to_string(patch.arch.source));
  e.key("relevant");
  if (patch.relevant)
    e.boolean(*patch.relevant);
  else
    e.null();
  string_or_null(e.key("evidence"), patch.arch.evidence);
  string_or_null(e.key("confidence"), patch.arch.empty() ? "" : to_string(patch.arch.confidence));
  string_or_null(e.key("doubt"), patch.arch.empty() ? "" : std::string_view(patch.arch.doubt));
  e.end_object();
  e.key("files").begin_array();
  for (const FileReport& f : patch.files) each_file(e, f);
  e.end_array();
  emit_markers(e.key("evidence"), patch.evidence);
  e.key("markers");
  if (patch.search)
    emit_markers(e, patch.search->markers);
  else
    e.null();
  e.key("search");
  if (patch.search)
    emit_search(e, *patch.search);
  else
    e.null();
  e.key("excluded").begin_array();
  for (const std::string& path : patch.excluded) e.string(path);
  e.end_array();
  e.end_object();
}

/// The verify document, the keys of `extra` (an object) added at the end; `each_patch(e,
/// patch)` writes each patch.
template <class E, class EachPatch>
void emit_verify(E& e, const VerifyReport& report, const json& extra, EachPatch each_patch) {
  e.begin_object();
  e.key("schema").string(kVerifySchema);
  e.key("tool").value(tool_to_json());
  const std::optional<unsigned> strip = report.common_strip();
  e.key("target").begin_object();
  e.key("path").string(report.target);
  number_or_null(e.key("strip"), strip.has_value(), strip.value_or(0));
  e.end_object();
  e.key("series").boolean(report.series);
  e.key("gpu").value(gpu_to_json(report.gpu ? *report.gpu : unprobed_gpu()));
  e.key("patches").begin_array();
  for (const PatchReport& p : report.patches) each_patch(e, p);
  e.end_array();
  e.key("summary").begin_object();
  const Summary counts = report.summary();
  for (std::size_t i = 0; i < kStatusCount; ++i)
    e.key(to_string(static_cast<Status>(i))).number(counts[i]);
  e.key("presence").begin_object();
  const std::array<std::size_t, kPresenceCount> by_presence = report.presence_summary();
  for (std::size_t i = 0; i < kPresenceCount; ++i)
    e.key(to_string(static_cast<Presence>(i))).number(by_presence[i]);
  e.end_object();
  e.end_object();
  e.key("exit_code").number(report.exit_code());
  for (auto it = extra.begin(); it != extra.end(); ++it) e.key(it.key()).value(it.value());
  e.end_object();
}

/// A git file mode as an octal string ("100644"), or null when absent.
json mode_or_null(const std::optional<std::uint32_t>& mode) {
  if (!mode) return nullptr;
  return fmt::format("{:o}", *mode);
}

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
  JsonTree tree;
  emit_markers(tree, markers);
  return tree.take();
}

nlohmann::ordered_json search_to_json(const SearchResult& result) {
  JsonTree tree;
  emit_search(tree, result);
  return tree.take();
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

nlohmann::ordered_json verify_to_json(const VerifyReport& report) {
  JsonTree tree;
  const auto each_hunk = [](JsonTree& e, const HunkReport& h) { emit_hunk(e, h); };
  const auto each_file = [&](JsonTree& e, const FileReport& f) { emit_file(e, f, each_hunk); };
  emit_verify(tree, report, json::object(),
              [&](JsonTree& e, const PatchReport& p) { emit_patch(e, p, each_file); });
  return tree.take();
}

void write_verify_json(const VerifyReport& report, const nlohmann::ordered_json& extra,
                       const std::function<void(std::string_view)>& sink) {
  // Written in pieces of about kChunk bytes, each hunk's text as it is rendered, from one
  // buffer reserved once: grown by doubling up to a 1 MiB chunk, it touched about twice the
  // report's size in fresh pages (page faults are 2 us each on the H200 host; a 7-file
  // patch's report is 49 KB). 16 KiB pieces touch 5 pages where 64 KiB ones touched 12, for
  // three more write(2) calls on that report.
  constexpr std::size_t kChunk = std::size_t{16} << 10;
  std::string buffer;
  buffer.reserve(kChunk + (kChunk >> 2));
  JsonText text(buffer);
  const auto flush = [&] {
    if (!buffer.empty()) sink(buffer);
    buffer.clear();
  };
  const auto each_hunk = [&](JsonText& e, const HunkReport& h) {
    emit_hunk(e, h);
    if (buffer.size() >= kChunk) flush();
  };
  const auto each_file = [&](JsonText& e, const FileReport& f) { emit_file(e, f, each_hunk); };
  emit_verify(text, report, extra,
              [&](JsonText& e, const PatchReport& p) { emit_patch(e, p, each_file); });
  buffer += '\n';
  flush();
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
