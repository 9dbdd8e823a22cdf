// The fix-signature catalog: parsing and validating entries (patches/catalog/README.md,
// schema.json), the built-in catalog, and users' --catalog directories.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <cstring>
#include <cerrno>
#include <sys/stat.h>
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog_data.hpp"
#include "sm120check/catalog.hpp"
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

using nlohmann::json;

/// The 1-based line of byte `offset` (0-based) of `text`.
std::size_t line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

/// Where a field stands in the file, for error messages: a path of keys and array indexes
/// ("files", 1, "installed") is looked up in the text, each key as `"key"` after the previous
/// step, an index n as the (n+1)-th element start ('{' or '"' at the array's level is not
/// tracked: the (n+1)-th occurrence of the next key, or of '{' / '"' when the index is last).
/// A heuristic for messages only; the line of the top-level key when in doubt.
class FieldLocator {
 public:
  explicit FieldLocator(std::string_view text) : text_(text) {}

  std::size_t line_of(const std::vector<std::string>& keys, const std::vector<int>& indexes) const {
    if (keys.empty()) return line_at(text_, text_.find('{'));  // the entry object's own line
    std::size_t at = 0;
    std::size_t found = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::string quoted = "\"" + keys[i] + "\"";
      // An index before this key: skip that many earlier occurrences of it.
      const int skip = i < indexes.size() && indexes[i] > 0 ? indexes[i] : 0;
      std::size_t pos = at;
      for (int k = 0; k <= skip; ++k) {
        pos = text_.find(quoted, k == 0 ? pos : pos + 1);
        if (pos == std::string_view::npos) return found == 0 ? 1 : line_at(text_, found);
      }
      found = pos;
      at = pos + quoted.size();
    }
    return found == 0 ? 1 : line_at(text_, found);
  }

 private:
  std::string_view text_;
};

/// Thrown inside validation: the message and where the field stands.
struct FieldError {
  std::vector<std::string> keys;  ///< the key path, for the line lookup
  std::vector<int> indexes;       ///< per key, the index of the array element before it (-1 none)
  std::string message;
};

bool is_id(std::string_view s) {
  // ^[a-z0-9]+(-[a-z0-9]+)*$, at most 100 characters
  if (s.empty() || s.size() > 100 || s.front() == '-' || s.back() == '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '-') {
      if (s[i + 1] == '-') return false;
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

bool is_hex40(std::string_view s) {
  return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

bool is_distribution_name(std::string_view s) {
  // ^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

bool is_repository_url(std::string_view s) {
  constexpr std::string_view kPrefix = "https://github.com/";
  if (s.substr(0, kPrefix.size()) != kPrefix) return false;
  s.remove_prefix(kPrefix.size());
  const std::size_t slash = s.find('/');
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == s.size()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-' || c == '/';
         }) &&
         std::count(s.begin(), s.end(), '/') == 1;
}

/// A relative path with "/" separators: no leading "/", no "." or ".." component, no
/// backslash, no newline, no empty component (the schema's relpath, and normalised).
bool is_relpath(std::string_view s) {
  if (s.empty() || s.find('\\') != s.npos || s.find('\n') != s.npos || s.find('\0') != s.npos)
    return false;
  const std::optional<std::string> normal = normalize_relative_path(s);
  if (!normal || *normal != s) return false;
  for (std::size_t pos = 0; pos <= s.size();) {
    std::size_t slash = s.find('/', pos);
    if (slash == s.npos) slash = s.size();
    const std::string_view part = s.substr(pos, slash - pos);
    if (part == "." || part == "..") return false;
    pos = slash + 1;
  }
  return true;
}

/// The reason a PCRE2 pattern does not compile (with the offset), or "" when it does. The
/// same options as the marker search (src/search/search.cpp): PCRE2_MULTILINE.
std::string pcre2_error(const std::string& pattern) {
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_MULTILINE, &err, &offset, nullptr);
  if (code != nullptr) {
    pcre2_code_free(code);
    return {};
  }
  std::array<PCRE2_UCHAR, 256> buf{};
  pcre2_get_error_message(err, buf.data(), buf.size());
  return fmt::format("{} at offset {}", reinterpret_cast<const char*>(buf.data()), offset);
}

/// Validation of one parsed document, throwing FieldError.
class EntryReader {
 public:
  /// The entry, or throws the problems found (std::vector<FieldError>, every field checked:
  /// one problem per field at most, each marker and file on its own).
  CatalogEntry read(const json& doc, std::string_view stem) {
    if (!doc.is_object()) fail({}, "an entry is a JSON object");
    static const std::set<std::string> kKnown = {
        "schema", "id",      "project", "distributions", "title", "upstream", "compute_capabilities",
        "symptom", "files", "fixed",   "unfixed",       "confirmed"};
    for (const auto& [key, value] : doc.items())
      if (kKnown.count(key) == 0) problems_.push_back({{key}, {}, fmt::format("unknown field '{}'", key)});
    for (const std::string& key : kKnown)
      if (!doc.contains(key))
        problems_.push_back({{}, {}, fmt::format("required field '{}' is missing", key)});

    CatalogEntry e;
    field(doc, "schema", [&] {
      if (!doc["schema"].is_number_integer() || doc["schema"].get<long long>() != kCatalogSchema)
        fail({"schema"}, fmt::format("'schema' must be {} (this reader's format)", kCatalogSchema));
    });
    field(doc, "id", [&] {
      e.id = string(doc, "id");
      if (!is_id(e.id))
        fail({"id"}, fmt::format("'id' '{}' must be lower-case letters and digits joined by '-'", e.id));
      if (e.id != stem)
        fail({"id"}, fmt::format("'id' '{}' differs from the file name's stem '{}'", e.id, stem));
    });
    field(doc, "project", [&] {
      e.project = string(doc, "project");
      if (std::find(std::begin(kCatalogProjects), std::end(kCatalogProjects), e.project) ==
          std::end(kCatalogProjects))
        fail({"project"}, fmt::format("unknown project '{}'", e.project));
    });
    field(doc, "distributions", [&] {
      const json& dists = array(doc, "distributions");
      for (std::size_t i = 0; i < dists.size(); ++i) {
        if (!dists[i].is_string() || !is_distribution_name(dists[i].get<std::string>()))
          fail({"distributions"}, fmt::format("'distributions[{}]' is not a distribution name", i));
        e.distributions.push_back(dists[i].get<std::string>());
        e.normalized_distributions.push_back(normalize_distribution_name(e.distributions.back()));
      }
      const auto match = [&](const std::string& name) {
        if (std::find(e.matched_distributions.begin(), e.matched_distributions.end(), name) ==
            e.matched_distributions.end())
          e.matched_distributions.push_back(name);
      };
      for (const std::string& d : e.normalized_distributions) match(d);
      for (const std::string& d : e.normalized_distributions)
        for (const std::string& alias : distribution_aliases(d)) match(alias);
    });
    field(doc, "title", [&] {
      e.title = string(doc, "title");
      if (e.title.empty() || e.title.find('\n') != std::string::npos)
        fail({"title"}, "'title' must be one non-empty line");
    });
    field(doc, "upstream", [&] { read_upstream(doc, e.upstream); });
    field(doc, "compute_capabilities", [&] { read_capabilities(doc, e); });
    field(doc, "symptom", [&] {
      e.symptom = string(doc, "symptom");
      if (e.symptom.empty()) fail({"symptom"}, "'symptom' is empty");
    });
    field(doc, "files", [&] { read_files(doc, e.files); });
    field(doc, "fixed", [&] {
      e.fixed = markers(doc, "fixed");
      if (doc["fixed"].empty()) fail({"fixed"}, "'fixed' needs at least one marker");
    });
    field(doc, "unfixed", [&] { e.unfixed = markers(doc, "unfixed"); });
    field(doc, "confirmed", [&] {
      e.confirmed = string(doc, "confirmed");
      if (e.confirmed.empty()) fail({"confirmed"}, "'confirmed' is empty");
    });
    if (!problems_.empty()) throw std::move(problems_);
    return e;
  }

 private:
  std::vector<FieldError> problems_;

  /// Runs `check` of field `key` when the document has it, keeping the FieldError it throws.
  template <class F>
  void field(const json& doc, const char* key, F&& check) {
    if (doc.contains(key)) guard(check);
  }
  template <class F>
  void guard(F&& check) {
    try {
      check();
    } catch (const FieldError& err) {
      problems_.push_back(err);
    }
  }

  static void read_capabilities(const json& doc, CatalogEntry& e) {
    const json& ccs = array(doc, "compute_capabilities");
    if (ccs.empty()) fail({"compute_capabilities"}, "'compute_capabilities' is empty");
    for (std::size_t i = 0; i < ccs.size(); ++i) {
      const std::string text = ccs[i].is_string() ? ccs[i].get<std::string>() : "";
      const std::size_t dot = text.find('.');
      const bool shape = dot != std::string::npos && dot > 0 && dot + 1 < text.size() &&
                         std::all_of(text.begin(), text.end(),
                                     [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
                         text.find('.', dot + 1) == std::string::npos;
      if (!shape)
        fail({"compute_capabilities"},
             fmt::format("'compute_capabilities[{}]' must be \"MAJOR.MINOR\"", i));
      try {
        e.capabilities.push_back(parse_compute_capability(text));
      } catch (const Error& err) {
        fail({"compute_capabilities"}, err.message());
      }
      if (std::find(e.compute_capabilities.begin(), e.compute_capabilities.end(), text) !=
          e.compute_capabilities.end())
        fail({"compute_capabilities"}, fmt::format("'{}' is listed twice", text));
      e.compute_capabilities.push_back(text);
    }
  }
  [[noreturn]] static void fail(std::vector<std::string> keys, std::string message,
                                std::vector<int> indexes = {}) {
    throw FieldError{std::move(keys), std::move(indexes), std::move(message)};
  }

  static std::string string(const json& obj, const std::string& key,
                            std::vector<std::string> where = {}) {
    if (where.empty()) where = {key};
    if (!obj[key].is_string()) fail(where, fmt::format("'{}' must be a string", key));
    return obj[key].get<std::string>();
  }

  static const json& array(const json& obj, const std::string& key) {
    if (!obj[key].is_array()) fail({key}, fmt::format("'{}' must be an array", key));
    return obj[key];
  }

  void read_upstream(const json& doc, CatalogUpstream& up) {
    const json& u = doc["upstream"];
    if (!u.is_object()) fail({"upstream"}, "'upstream' must be an object");
    static const std::set<std::string> kKeys = {"repository", "pr",     "commit",
                                                "parent",     "merged", "state"};
    bool complete = true;
    for (const auto& [key, value] : u.items())
      if (kKeys.count(key) == 0)
        problems_.push_back({{"upstream", key}, {}, fmt::format("unknown field 'upstream.{}'", key)});
    for (const std::string& key : kKeys)
      if (!u.contains(key)) {
        problems_.push_back({{"upstream"}, {}, fmt::format("required field 'upstream.{}' is missing", key)});
        complete = false;
      }
    field(u, "repository", [&] {
      up.repository = string(u, "repository", {"upstream", "repository"});
      if (!is_repository_url(up.repository))
        fail({"upstream", "repository"}, "'upstream.repository' must be https://github.com/OWNER/NAME");
    });
    field(u, "pr", [&] {
      if (u["pr"].is_null()) return;
      if (!u["pr"].is_number_integer() || u["pr"].get<long long>() < 1)
        fail({"upstream", "pr"}, "'upstream.pr' must be a positive integer or null");
      up.pr = u["pr"].get<std::int64_t>();
    });
    const auto optional_text = [&](const char* key, bool (*ok)(std::string_view),
                                   const char* shape) -> std::optional<std::string> {
      if (u[key].is_null()) return std::nullopt;
      if (!u[key].is_string() || !ok(u[key].get<std::string>()))
        fail({"upstream", key}, fmt::format("'upstream.{}' must be {} or null", key, shape));
      return u[key].get<std::string>();
    };
    field(u, "commit", [&] { up.commit = optional_text("commit", is_hex40, "40 lower-case hex digits"); });
    field(u, "parent", [&] { up.parent = optional_text("parent", is_hex40, "40 lower-case hex digits"); });
    field(u, "merged", [&] { up.merged = optional_text("merged", is_date, "YYYY-MM-DD"); });
    if (complete && up.commit.has_value() != up.parent.has_value())
      problems_.push_back({{"upstream", "parent"}, {},
                           "'upstream.parent' must be set exactly when 'upstream.commit' is"});
    field(u, "state", [&] {
      up.state = string(u, "state", {"upstream", "state"});
      if (up.state != "merged" && up.state != "reverted" && up.state != "open")
        fail({"upstream", "state"}, "'upstream.state' must be merged, reverted or open");
    });
  }

  static std::optional<std::string> installed_path(const json& obj, const std::string& where,
                                                   const std::vector<std::string>& keys,
                                                   const std::vector<int>& indexes) {
    const json& v = obj["installed"];
    if (v.is_null()) return std::nullopt;
    if (!v.is_string() || !is_relpath(v.get<std::string>()))
      fail(keys, fmt::format("'{}' must be a relative, normalised path or null", where), indexes);
    return v.get<std::string>();
  }

  void read_files(const json& doc, std::vector<CatalogFile>& out) {
    const json& files = array(doc, "files");
    if (files.empty()) fail({"files"}, "'files' is empty");
    for (std::size_t i = 0; i < files.size(); ++i) guard([&] { read_file(files[i], i, out); });
  }

  static void read_file(const json& f, std::size_t i, std::vector<CatalogFile>& out) {
    {
      const int n = static_cast<int>(i);
      const std::string name = fmt::format("files[{}]", i);
      if (!f.is_object()) fail({"files"}, fmt::format("'{}' must be an object", name));
      for (const auto& [key, value] : f.items())
        if (key != "upstream" && key != "installed" && key != "moved")
          fail({"files", key}, fmt::format("unknown field '{}.{}'", name, key), {-1, n});
      if (!f.contains("upstream") || !f.contains("installed"))
        fail({"files"}, fmt::format("'{}' needs 'upstream' and 'installed'", name));
      CatalogFile file;
      if (!f["upstream"].is_string() || !is_relpath(f["upstream"].get<std::string>()))
        fail({"files", "upstream"},
             fmt::format("'{}.upstream' must be a relative, normalised path", name), {-1, n});
      file.upstream = f["upstream"].get<std::string>();
      file.installed = installed_path(f, name + ".installed", {"files", "installed"}, {-1, n});
      if (f.contains("moved")) {
        if (!f["moved"].is_array())
          fail({"files", "moved"}, fmt::format("'{}.moved' must be an array", name), {-1, n});
        for (std::size_t k = 0; k < f["moved"].size(); ++k) {
          const json& m = f["moved"][k];
          const std::string mname = fmt::format("{}.moved[{}]", name, k);
          if (!m.is_object() || !m.contains("upstream") || !m.contains("installed") ||
              !m.contains("by") || m.size() != 3)
            fail({"files", "moved"},
                 fmt::format("'{}' must be an object of 'upstream', 'installed' and 'by'", mname),
                 {-1, n});
          CatalogMove move;
          if (!m["upstream"].is_string() || !is_relpath(m["upstream"].get<std::string>()))
            fail({"files", "moved"},
                 fmt::format("'{}.upstream' must be a relative, normalised path", mname), {-1, n});
          move.upstream = m["upstream"].get<std::string>();
          move.installed = installed_path(m, mname + ".installed", {"files", "moved"}, {-1, n});
          if (!m["by"].is_string() || m["by"].get<std::string>().empty())
            fail({"files", "moved"}, fmt::format("'{}.by' must be a non-empty string", mname),
                 {-1, n});
          move.by = m["by"].get<std::string>();
          file.moved.push_back(std::move(move));
        }
      }
      out.push_back(std::move(file));
    }
  }

  std::vector<CatalogMarker> markers(const json& doc, const std::string& key) {
    const json& list = array(doc, key);
    std::vector<CatalogMarker> out;
    for (std::size_t i = 0; i < list.size(); ++i) guard([&] { read_marker(list[i], key, i, out); });
    return out;
  }

  static void read_marker(const json& m, const std::string& key, std::size_t i,
                          std::vector<CatalogMarker>& out) {
    {
      const std::string name = fmt::format("{}[{}]", key, i);
      // The line of the marker's own kind key: the (i+1)-th "literal"/"pcre2" after the list's
      // key is not exact when both kinds mix, so the list's key line is used.
      const bool flagged = m.is_object() && m.contains("comment");
      if (!m.is_object() || m.size() != (flagged ? 2u : 1u) ||
          m.contains("literal") == m.contains("pcre2"))
        fail({key}, fmt::format("'{}' must be {{\"literal\": ...}} or {{\"pcre2\": ...}}, with "
                                "\"comment\": true at most",
                                name));
      CatalogMarker marker;
      marker.regex = m.contains("pcre2");
      if (flagged) {
        if (!m["comment"].is_boolean())
          fail({key}, fmt::format("'{}.comment' must be true or false", name));
        marker.comment = m["comment"].get<bool>();
      }
      const json& v = marker.regex ? m["pcre2"] : m["literal"];
      if (!v.is_string() || v.get<std::string>().empty() ||
          v.get<std::string>().find_first_of("\r\n") != std::string::npos)
        fail({key}, fmt::format("'{}' must be a non-empty string of one line", name));
      marker.text = v.get<std::string>();
      if (marker.regex) {
        const std::string why = pcre2_error(marker.text);
        if (!why.empty())
          fail({key}, fmt::format("'{}' does not compile as PCRE2: {}", name, why));
      }
      out.push_back(std::move(marker));
    }
  }
};

/// The file name without its directory and ".json".
std::string stem_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.size() > 5 && name.substr(name.size() - 5) == ".json") name.remove_suffix(5);
  return std::string(name);
}

/// Adds `entry` to `catalog`: replacing a built-in entry of the same id (noted), refusing a
/// second user entry or a second built-in one with that id.
void insert_entry(Catalog& catalog, CatalogEntry entry, bool user) {
  for (std::size_t i = 0; i < catalog.entries.size(); ++i) {
    CatalogEntry& old = catalog.entries[i];
    if (old.id != entry.id) continue;
    if (!user || i >= catalog.builtin)
      throw Error(entry.source, 0,
                  fmt::format("entry id '{}' is also the id of {}", entry.id, old.source));
    catalog.replaced.push_back(
        fmt::format("{}: built-in entry replaced by {}", entry.id, entry.source));
    old = std::move(entry);
    return;
  }
  catalog.entries.push_back(std::move(entry));
}

}  // namespace

const CatalogEntry* Catalog::find(std::string_view id) const {
  for (const CatalogEntry& e : entries)
    if (e.id == id) return &e;
  return nullptr;
}

std::vector<std::string> distribution_aliases(std::string_view normalized) {
  // patches/catalog/README.md, "Distribution names": {catalog name, other name it ships under}.
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      // PyTorch's CUDA wheels depend on pytorch-triton (dist-info pytorch_triton-*, package
      // folder triton), built from Triton's sources at a pinned commit.
      {"triton", "pytorch-triton"},
      // FlashInfer was published as `flashinfer` up to 0.2.0.post2, `flashinfer-python` since.
      {"flashinfer-python", "flashinfer"},
  };
  std::vector<std::string> out;
  for (const auto& [name, alias] : kAliases)
    if (name == normalized) out.emplace_back(alias);
  return out;
}

std::string normalize_distribution_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!run) out += '-';
      run = true;
      continue;
    }
    run = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

CatalogEntry parse_catalog_entry(std::string_view text, const std::string& file,
                                 std::string_view stem) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte: 1-based offset of the byte where the parser stopped.
    const std::size_t byte = e.byte == 0 ? 0 : static_cast<std::size_t>(e.byte) - 1;
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
    const std::size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw Error(file, line_at(text, byte), "not valid JSON: " + what);
  }
  std::vector<FieldError> problems;
  try {
    CatalogEntry e = EntryReader().read(doc, stem);
    e.source = file;
    return e;
  } catch (const FieldError& err) {
    problems.push_back(err);
  } catch (std::vector<FieldError>& all) {
    problems = std::move(all);
  }
  // Every problem, in the order of their lines.
  const FieldLocator locate(text);
  std::vector<std::pair<std::size_t, std::string>> lines;
  for (const FieldError& p : problems) lines.emplace_back(locate.line_of(p.keys, p.indexes), p.message);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Error error(file, lines.front().first, lines.front().second);
  for (std::size_t k = 1; k < lines.size(); ++k)
    error.add_more(Error(file, lines[k].first, lines[k].second).what());
  throw error;
}

Catalog builtin_catalog() {
  Catalog catalog;
  for (std::size_t i = 0; i < embedded::kCatalogFileCount; ++i) {
    const embedded::CatalogFileData& f = embedded::kCatalogFiles[i];
    CatalogEntry e =
        parse_catalog_entry(f.content, "built-in:" + std::string(f.path), stem_of(f.path));
    insert_entry(catalog, std::move(e), false);
  }
  catalog.builtin = catalog.entries.size();
  return catalog;
}

void add_catalog_directory(Catalog& catalog, const std::string& dir) {
  // Checked here, not by open_disk_tree(), whose words are a scan TARGET's ("target does not
  // exist" read as if TARGET were missing).
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int err = errno;
    throw Error(dir, 0, fmt::format("--catalog: cannot open the catalog directory: {} (errno {})",
                                    std::strerror(err), err));
  }
  if (!S_ISDIR(st.st_mode))
    throw Error(dir, 0, "--catalog: not a directory (give the folder that holds the *.json entries)");
  std::unique_ptr<Tree> tree = open_disk_tree(dir, 1 << 20);
  std::vector<std::string> files;
  const auto is_json = [](const std::string& name) {
    return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 &&
           name != "schema.json";
  };
  for (const Tree::DirEntry& e : tree->list("")) {
    if (e.type == Entry::Type::kFile && is_json(e.name)) files.push_back(e.name);
    if (e.type != Entry::Type::kDirectory || e.name[0] == '.') continue;
    for (const Tree::DirEntry& sub : tree->list(e.name))
      if (sub.type == Entry::Type::kFile && is_json(sub.name))
        files.push_back(e.name + "/" + sub.name);
  }
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw Error(dir, 0, "no catalog entry (*.json) in this directory or one level below");
  const std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  for (const std::string& rel : files) {
    const std::string shown = prefix + rel;
    const std::string text = tree->read(rel);
    insert_entry(catalog, parse_catalog_entry(text, shown, stem_of(rel)), true);
  }
  catalog.user_dirs.emplace_back(dir, files.size());
}

void keep_only(Catalog& catalog, const std::vector<std::string>& ids) {
  for (const std::string& id : ids)
    if (catalog.find(id) == nullptr)
      throw Error(fmt::format("--only {}: no such entry in the catalog (see 'sm120check scan "
                              "--list')",
                              id));
  std::vector<CatalogEntry> kept;
  std::size_t builtin = 0;
  for (std::size_t i = 0; i < catalog.entries.size(); ++i) {
    if (std::find(ids.begin(), ids.end(), catalog.entries[i].id) == ids.end()) continue;
    if (i < catalog.builtin) ++builtin;
    kept.push_back(std::move(catalog.entries[i]));
  }
  catalog.entries = std::move(kept);
  catalog.builtin = builtin;
}

}  // namespace sm120check
