// Discovery of installs under TARGET: one bounded walk, following a directory symlink only to a
// directory inside TARGET the walk does not reach otherwise (walked at its real path), reading
// through DiskTree (see discover.hpp and README.md, "scan").
#include "discover.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "sm120check/directory_walk.hpp"
#include "sm120check/error.hpp"

namespace sm120check::scan_detail {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return std::string(s);
}

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

/// Calls `f(line)` for each line of `text`, trimmed, as a view into `text`: no copy per line
/// (a file of 40 MB of newlines once made 40 million strings, 2.1 GB). `f` returns false to stop.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    if (!f(trim_view(text.substr(at, eol - at)))) return;
    at = eol + 1;
  }
}

/// The code point of the UTF-8 sequence at `s[at]`, and its length in bytes; length 0 when it is
/// not valid UTF-8 as Python's strict decoder reads it (overlong forms, surrogates and code
/// points past U+10FFFF refused).
std::pair<char32_t, std::size_t> utf8_at(std::string_view s, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t n = b0 >= 0xC2 && b0 <= 0xDF ? 2 : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 0;
  if (n == 0 || at + n > s.size()) return {0, 0};
  char32_t cp = b0 & (0xFF >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return {0, 0};
  return {cp, n};
}

/// Python's str.isspace() (the Unicode White_Space property and \x1c-\x1f).
bool python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

/// How one Python version's site.addpackage() decodes and splits a .pth file.
enum class PthReading {
  /// CPython up to 3.12 (Lib/site.py: `io.TextIOWrapper(io.open_code(fullname),
  /// encoding="locale")`, UTF-8 taken as the locale's): a BOM stays in the first line (U+FEFF,
  /// not whitespace); lines end at "\n", "\r\n" or "\r" (universal newlines).
  kTextIo,
  /// CPython 3.13 and later (`pth_content.decode("utf-8-sig")`, then `splitlines()`): a BOM
  /// is dropped; lines end also at \v, \f, \x1c, \x1d, \x1e, U+0085, U+2028 and U+2029.
  kSplitLines,
};

/// A line of a .pth file that site.addpackage() acts on: a view into the file's text.
struct PthLine {
  bool import = false;     ///< an "import " / "import\t" line, which site.py runs
  std::string_view text;   ///< the import line as written, or the path line right-stripped
  bool uncertain = false;  ///< read so by only one of the readings (for_each_pth_line())
  bool operator==(const PthLine& o) const { return import == o.import && text == o.text; }
};

/// Whether `bytes` is UTF-8 as Python's strict decoder reads it.
bool valid_utf8(std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = utf8_at(bytes, at).second;
    if (n == 0) return false;
    at += n;
  }
  return true;
}

/// What site.addpackage() does with one line (no line break in it): nothing for a line
/// starting "#" or of only whitespace (`line.strip() == ""`); runs one starting "import " or
/// "import\t"; else joins it, right-stripped of Python's whitespace (`line.rstrip()`: nothing
/// is stripped on the left), to the site-packages folder. `line` is valid UTF-8.
std::optional<PthLine> pth_line(std::string_view line) {
  if (line.empty() || line.front() == '#') return std::nullopt;
  std::size_t keep = 0;  // bytes up to the last code point that is not whitespace
  for (std::size_t at = 0; at < line.size();) {
    const auto [c, n] = utf8_at(line, at);
    at += std::max<std::size_t>(n, 1);
    if (!python_space(c)) keep = at;
  }
  if (keep == 0) return std::nullopt;
  if (starts_with(line, "import ") || starts_with(line, "import\t")) return PthLine{true, line, false};
  return PthLine{false, line.substr(0, keep), false};
}

/// Calls `f(const PthLine&)` for each line of .pth `bytes` that site.addpackage() acts on
/// (pth_line()), in order, as `reading` splits the file (CPython 3.12 and 3.13, Lib/site.py).
/// With no reading (the Python version is not known), each line both readings read alike
/// once, and the lines they read differently (only \v, \f, \x1c-\x1e, U+0085, U+2028, U+2029
/// and a BOM can make them differ, within a line 3.12 reads) each with PthLine::uncertain.
/// Streams: no copy of the file's lines. False, calling nothing, when `bytes` is not UTF-8
/// (CPython in a UTF-8 locale then fails to start: UnicodeDecodeError in site.py).
template <class F>
bool for_each_pth_line(std::string_view bytes, std::optional<PthReading> reading, F&& f) {
  if (!valid_utf8(bytes)) return false;
  const bool bom = starts_with(bytes, "\xEF\xBB\xBF");
  // The lines str.splitlines() makes of `segment`, a line without \n or \r.
  const auto split = [](std::string_view segment, auto&& each) {
    std::size_t start = 0;
    for (std::size_t at = 0; at < segment.size();) {
      const auto [c, n] = utf8_at(segment, at);
      at += n;
      if (c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 || c == 0x2028 ||
          c == 0x2029) {
        each(segment.substr(start, at - n - start));
        start = at;
      }
    }
    if (start < segment.size()) each(segment.substr(start));
  };
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::size_t end = bytes.find_first_of("\r\n", at);
    if (end == std::string_view::npos) end = bytes.size();
    const std::string_view segment = bytes.substr(at, end - at);
    const std::string_view split_segment = at == 0 && bom ? segment.substr(3) : segment;
    at = end + (end + 1 < bytes.size() && bytes[end] == '\r' && bytes[end + 1] == '\n' ? 2 : 1);
    if (reading == PthReading::kTextIo) {
      if (const std::optional<PthLine> l = pth_line(segment)) f(*l);
      continue;
    }
    if (reading == PthReading::kSplitLines) {
      split(split_segment, [&](std::string_view sub) {
        if (const std::optional<PthLine> l = pth_line(sub)) f(*l);
      });
      continue;
    }
    const std::optional<PthLine> old_line = pth_line(segment);
    std::vector<PthLine> new_lines;
    split(split_segment, [&](std::string_view sub) {
      if (const std::optional<PthLine> l = pth_line(sub)) new_lines.push_back(*l);
    });
    if (old_line && new_lines.size() == 1 && new_lines[0] == *old_line) {
      f(*old_line);
    } else {
      if (old_line) f(PthLine{old_line->import, old_line->text, true});
      for (const PthLine& l : new_lines) f(PthLine{l.import, l.text, true});
    }
  }
  return true;
}

/// White space and newlines from `at` on in Python source `s` skipped; `at` moved.
void skip_python_space(std::string_view s, std::size_t& at) {
  while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r' || s[at] == '\n')) ++at;
}

/// The value of the Python string literal at `s[at]` (after white space): an optional `r`, `R`,
/// `u` or `U` prefix, then one `'` or `"` (no triple quotes); escapes `\\`, `\'`, `\"`, `\n`,
/// `\t` (none in a raw string). `at` is moved past it. std::nullopt for anything else (a bytes
/// or f-string, another escape, no closing quote): such code is not read.
std::optional<std::string> python_string(std::string_view s, std::size_t& at) {
  skip_python_space(s, at);
  bool raw = false;
  if (at < s.size() && (s[at] == 'r' || s[at] == 'R' || s[at] == 'u' || s[at] == 'U')) {
    raw = s[at] == 'r' || s[at] == 'R';
    ++at;
  }
  if (at >= s.size() || (s[at] != '\'' && s[at] != '"')) return std::nullopt;
  const char quote = s[at];
  if (s.substr(at, 3) == std::string(3, quote)) return std::nullopt;
  std::string value;
  for (std::size_t k = at + 1; k < s.size(); ++k) {
    const char c = s[k];
    if (c == quote) {
      at = k + 1;
      return value;
    }
    if (c == '\n') return std::nullopt;
    if (c != '\\' || raw) {
      value += c;
      continue;
    }
    if (++k >= s.size()) return std::nullopt;
    switch (s[k]) {
      case '\\': case '\'': case '"': value += s[k]; break;
      case 'n': value += '\n'; break;
      case 't': value += '\t'; break;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

/// The Python literal `{'key': 'value', ...}` at `s[at]` (after white space), string keys and
/// values only, as Python's repr() writes a dict[str, str]: its pairs in order; `at` moved past
/// the `}`. std::nullopt when it is anything else.
std::optional<std::vector<std::pair<std::string, std::string>>> python_string_dict(std::string_view s,
                                                                                  std::size_t& at) {
  skip_python_space(s, at);
  if (at >= s.size() || s[at] != '{') return std::nullopt;
  ++at;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (;;) {
    skip_python_space(s, at);
    if (at < s.size() && s[at] == '}') return ++at, pairs;
    std::optional<std::string> key = python_string(s, at);
    skip_python_space(s, at);
    if (!key || at >= s.size() || s[at] != ':') return std::nullopt;
    std::optional<std::string> value = python_string(s, ++at);
    if (!value) return std::nullopt;
    pairs.emplace_back(std::move(*key), std::move(*value));
    skip_python_space(s, at);
    if (at < s.size() && s[at] == ',') ++at;
    else if (at >= s.size() || s[at] != '}') return std::nullopt;
  }
}

/// The Python literal set or list of strings `{'a', 'b'}` / `['a']` at `s[at]` (after white
/// space): its strings; `at` moved past it. std::nullopt when it is anything else.
std::optional<std::vector<std::string>> python_string_set(std::string_view s, std::size_t& at) {
  skip_python_space(s, at);
  if (at >= s.size() || (s[at] != '{' && s[at] != '[')) return std::nullopt;
  const char close = s[at] == '{' ? '}' : ']';
  ++at;
  std::vector<std::string> items;
  for (;;) {
    skip_python_space(s, at);
    if (at < s.size() && s[at] == close) return ++at, items;
    std::optional<std::string> item = python_string(s, at);
    if (!item) return std::nullopt;
    items.push_back(std::move(*item));
    skip_python_space(s, at);
    if (at < s.size() && s[at] == ',') ++at;
    else if (at >= s.size() || s[at] != close) return std::nullopt;
  }
}

/// Where the last top-level call `install(` of Python module text `text` opens its arguments
/// (just past the "("), or npos: the line that installs an editable finder when the module is
/// imported (scikit-build-core's and meson-python's generated modules end with one).
std::size_t last_install_call(std::string_view text) {
  const std::size_t at = text.rfind("\ninstall(");
  return at == std::string_view::npos ? at : at + 9;
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// Names through which Python code changes where a package is imported from: the import path,
/// the finders and their caches, the module table, a package's search path, and the standard
/// library's ways to run a file as a module. A .pth import line whose code, or a module it
/// imports, holds none of them is taken as not changing where packages are imported from
/// (import_path_hook_in()).
constexpr std::string_view kImportPathHooks[] = {
    "sys.path", "meta_path", "path_hooks", "path_importer_cache", "addsitedir", "sys.modules",
    "__path__", "from sys import", "spec_from_file_location", "exec_module", "SourceFileLoader",
    "runpy", "setattr(sys", "importlib.machinery"};

/// The first of kImportPathHooks that Python code `text` holds, or "".
std::string_view import_path_hook_in(std::string_view text) {
  for (std::string_view hook : kImportPathHooks)
    if (text.find(hook) != std::string_view::npos) return hook;
  return {};
}

/// What the code of a .pth import line imports, read from its text without running it.
struct ImportLineCode {
  /// The modules it imports, dotted, in order: `import a.b, c as d`, `from a import b`,
  /// `__import__('a')`, `importlib.import_module('a')`, also inside the string literals it
  /// passes to exec() (coverage's `exec('import os\n...')`).
  std::vector<std::string> modules;
  /// A construct whose code or module the text does not hold (`exec(` of something other than
  /// a string literal, `__import__(name)`); "" when none.
  std::string dynamic;
};

/// Reads .pth import line `line` (ImportLineCode). The text is searched as written, with the
/// escapes \n, \t and \r of its string literals read as line breaks, so that the code a
/// literal passed to exec() holds is searched too.
ImportLineCode read_import_line(std::string_view line) {
  std::string code;
  code.reserve(line.size());
  for (std::size_t k = 0; k < line.size(); ++k) {
    if (line[k] == '\\' && k + 1 < line.size() && (line[k + 1] == 'n' || line[k + 1] == 't' || line[k + 1] == 'r')) {
      code += line[k + 1] == 't' ? ' ' : '\n';
      ++k;
    } else {
      code += line[k];
    }
  }
  ImportLineCode out;
  const auto word_at = [&code](std::size_t at, std::string_view word) {
    return code.compare(at, word.size(), word) == 0 && (at == 0 || !identifier_char(code[at - 1])) &&
           (at + word.size() >= code.size() || !identifier_char(code[at + word.size()]));
  };
  const auto dotted = [&code](std::size_t& at) {
    while (at < code.size() && (code[at] == ' ' || code[at] == '\t')) ++at;
    const std::size_t start = at;
    while (at < code.size() && (identifier_char(code[at]) || code[at] == '.')) ++at;
    return code.substr(start, at - start);
  };
  for (std::size_t at = 0; at < code.size(); ++at) {
    if (word_at(at, "from")) {
      std::size_t k = at + 4;
      const std::string name = dotted(k);
      while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
      if (!name.empty() && name.front() != '.' && word_at(k, "import")) {
        out.modules.push_back(name);
        at = k + 5;  // past "import": its names are not modules of their own
        while (at + 1 < code.size() && code[at + 1] != '\n' && code[at + 1] != ';') ++at;
      }
    } else if (word_at(at, "import")) {
      std::size_t k = at + 6;
      for (;;) {
        const std::string name = dotted(k);
        if (name.empty()) break;
        // `import a.b` runs a/__init__.py, then a/b.py.
        for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
          out.modules.push_back(name.substr(0, dot));
        out.modules.push_back(name);
        while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
        if (word_at(k, "as")) {
          k += 2;
          dotted(k);
          while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
        }
        if (k >= code.size() || code[k] != ',') break;
        ++k;
      }
      at = k == 0 ? at : k - 1;
    }
  }
  // Calls, on the text as written (a literal's escapes are the literal's): each takes a string
  // literal, or runs what the text does not show.
  for (std::size_t at = 0; at < line.size(); ++at)
    for (std::string_view call : {"__import__(", "import_module(", "exec(", "eval(", "compile("}) {
      if (line.compare(at, call.size(), call) != 0 || (at > 0 && identifier_char(line[at - 1]))) continue;
      std::size_t k = at + call.size();
      const std::size_t literal = k;
      const std::optional<std::string> arg = python_string(line, k);
      if (!arg && out.dynamic.empty())
        out.dynamic = std::string(call) + std::string(line.substr(literal, 20)) + (line.size() > literal + 20 ? "..." : "");
      if (arg && (call == "__import__(" || call == "import_module(")) out.modules.push_back(*arg);
      break;
    }
  return out;
}

/// A module that .pth import lines of widely used tools import, whose effect on the import is
/// known from its source: the top-level packages whose import it redirects ("" for none that
/// a catalog entry could concern) and what it does, with its source.
struct StartupHook {
  std::string_view module;
  std::string_view packages;  ///< space-separated import names it redirects
  std::string_view what;
};
constexpr StartupHook kStartupHooks[] = {
    {"_virtualenv", "distutils setuptools",
     "virtualenv's start-up patch (virtualenv src/virtualenv/create/via_global_ref/_virtualenv.py): "
     "a finder first on sys.meta_path that patches distutils.dist and setuptools.dist once loaded"},
    {"_distutils_hack", "distutils",
     "setuptools' distutils shim (setuptools _distutils_hack/__init__.py, from "
     "distutils-precedence.pth): a finder on sys.meta_path serving `import distutils` from setuptools"},
    {"_numba_cuda_redirector", "numba",
     "numba-cuda's redirector (NVIDIA/numba-cuda site-packages/_numba_cuda_redirector.py): a finder "
     "first on sys.meta_path that imports numba.cuda and its submodules from numba_cuda/numba/cuda"},
};

/// Size caps on the metadata files discovery reads, in bytes; a larger file is not read and a
/// note names it. Real files are far smaller: direct_url.json (PEP 610), .egg-link, a .git file,
/// HEAD and refs hold a path or an id; a .pth, top_level.txt, a setuptools finder module and a
/// git config a few KiB; RECORD lists a distribution's files (PyTorch's: about 2 MiB).
constexpr std::uint64_t kPointerFileCap = 64u << 10;
constexpr std::uint64_t kListFileCap = 4u << 20;
constexpr std::uint64_t kRecordFileCap = 64u << 20;

/// Deepest nesting of arrays and objects read in a direct_url.json (PEP 610 uses 2).
constexpr std::size_t kJsonDepthCap = 32;

/// True when JSON `text` nests arrays and objects no deeper than `max_depth`, judged by
/// nlohmann's SAX parser, which stops at the first value deeper (a DOM parse of 50 MB of '['
/// took 3.7 GB). Syntax errors are left to the DOM parse: this returns true for them.
bool json_depth_within(std::string_view text, std::size_t max_depth) {
  struct DepthLimit final : nlohmann::json_sax<nlohmann::json> {
    std::size_t depth = 0, max;
    bool too_deep = false;
    explicit DepthLimit(std::size_t m) : max(m) {}
    bool open() {
      if (++depth <= max) return true;
      too_deep = true;
      return false;
    }
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(); }
    bool key(string_t&) override { return true; }
    bool end_object() override { return --depth, true; }
    bool start_array(std::size_t) override { return open(); }
    bool end_array() override { return --depth, true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
      return false;
    }
  } sax(max_depth);
  nlohmann::json::sax_parse(text, &sax);
  return !sax.too_deep;
}

/// Whether `name` ends with `suffix` (lower case) in any case: the metadata folder suffixes
/// ".dist-info" and ".egg-info" are matched so by importlib.metadata (CPython 3.11,
/// importlib/metadata/__init__.py, Lookup.__init__: `low = child.lower()` then
/// `low.endswith((".dist-info", ".egg-info"))`), so pip and `import` see "X-1.0.DIST-INFO".
bool ends_with_any_case(std::string_view name, std::string_view suffix) {
  if (name.size() < suffix.size()) return false;
  const std::string_view tail = name.substr(name.size() - suffix.size());
  return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

std::string mib(std::uint64_t bytes) {
  return bytes % (1u << 20) == 0 ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} KiB", bytes >> 10);
}

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "/" + b;
}

std::string parent_of(const std::string& rel) {
  const std::size_t slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool is_shared_object_name(std::string_view name) {
  return ends_with(name, ".so") || name.find(".so.") != std::string_view::npos;
}

bool is_kernel_file_name(std::string_view name) {
  return is_shared_object_name(name) || ends_with(name, ".cubin") || ends_with(name, ".ptx") ||
         ends_with(name, ".fatbin") || (name.size() > 2 && ends_with(name, ".a"));
}

std::string record_path(std::string_view line) {
  if (line.empty() || line.front() != '"') return std::string(line.substr(0, line.find(',')));
  std::string out;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] != '"') {
      out += line[i];
    } else if (i + 1 < line.size() && line[i + 1] == '"') {
      out += '"';
      ++i;
    } else {
      break;
    }
  }
  return out;
}

namespace {

/// Directories the walk never enters, wherever they are.
bool skipped_everywhere(std::string_view name) {
  return name == ".git" || name == "node_modules" || name == "__pycache__" || name == ".hg" ||
         name == ".svn";
}

/// A path a catalog entry names that tells its project's checkout from others: at least two
/// components, not under .github/, and either three or more components or a first component
/// that is not a folder name every project has (csrc/X.cu, docs/X, tests/X, cmake/X).
bool distinctive(const std::string& path) {
  const std::size_t slashes = static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
  if (slashes == 0 || starts_with(path, ".github/")) return false;
  if (slashes >= 2) return true;
  static const std::set<std::string> kGeneric = {"docs",    "doc",     "tests",      "test",
                                                 "cmake",   "scripts", "csrc",       "include",
                                                 "src",     "tools",   "benchmarks", "examples",
                                                 "third_party", "3rdparty", "python"};
  return kGeneric.count(path.substr(0, path.find('/'))) == 0;
}

/// "owner/name" of a GitHub URL in any of git's spellings (https, ssh, git@host:), lower case;
/// "" when it is not one.
std::string github_repo_of(std::string url) {
  for (char& c : url) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t at = url.find("github.com");
  if (at == std::string::npos) return {};
  at += 10;
  if (at >= url.size() || (url[at] != '/' && url[at] != ':')) return {};
  std::string rest = url.substr(at + 1);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (ends_with(rest, ".git")) rest.resize(rest.size() - 4);
  if (std::count(rest.begin(), rest.end(), '/') != 1) return {};
  return rest;
}

/// The value of header `key` ("Name", "Version") in a METADATA / PKG-INFO text: RFC 822 headers
/// up to the first blank line.
std::string metadata_field(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    if (trim(line).empty()) break;
    // Header names are case-insensitive (RFC 822; importlib.metadata reads them with Python's
    // email parser): "version: 0.6.0" is the Version.
    const auto same = [](std::string_view a, std::string_view b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
      });
    };
    if (line.size() > key.size() && same(line.substr(0, key.size()), key) && line[key.size()] == ':')
      return trim(line.substr(key.size() + 1));
  }
  return {};
}

/// A version in a form where versions PEP 440 calls equal compare equal: lower case, a leading
/// "v" dropped, each release number without leading zeros and trailing ".0" release numbers
/// dropped ("0.6" and "0.6.0", "V1.02" and "1.2" are equal); the rest (pre, post, dev, local
/// segments) kept as written, lower-cased. Not a full PEP 440 normaliser: "0.6rc1" and "0.6.rc1"
/// stay apart.
std::string version_key(std::string_view version) {
  std::string v;
  for (char c : version) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t at = !v.empty() && v.front() == 'v' ? 1 : 0;
  std::vector<std::string> release;
  while (at < v.size() && std::isdigit(static_cast<unsigned char>(v[at]))) {
    std::size_t end = at;
    while (end < v.size() && std::isdigit(static_cast<unsigned char>(v[end]))) ++end;
    std::string n = v.substr(at, end - at);
    n.erase(0, std::min(n.find_first_not_of('0'), n.size() - 1));
    release.push_back(n);
    at = end;
    if (at + 1 < v.size() && v[at] == '.' && std::isdigit(static_cast<unsigned char>(v[at + 1])))
      ++at;
    else
      break;
  }
  if (release.empty()) return v;
  while (release.size() > 1 && release.back() == "0") release.pop_back();
  std::string key;
  for (const std::string& n : release) key += (key.empty() ? "" : ".") + n;
  return key + v.substr(at);
}

/// %XX decoding of a file:// URL's path.
std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// Where a pointer (a path written in a .pth, .egg-link, direct_url.json or .git file) leads.
struct Pointer {
  bool inside = false;
  std::string rel;  ///< relative to TARGET, when inside ("" = TARGET)
  std::string abs;  ///< the absolute path, when outside
  std::string note;  ///< how it was resolved, when worth saying
};

class Discoverer {
 public:
  Discoverer(const Tree& tree, const std::string& target, const Catalog& catalog,
             const ScanOptions& options, Discovery& out)
      : tree_(tree), target_(target), catalog_(catalog), options_(options), out_(out) {
    std::error_code ec;
    target_real_ = std::filesystem::canonical(target, ec).string();
    if (ec) target_real_ = std::filesystem::absolute(target, ec).lexically_normal().string();
    target_name_ = base_name(target_real_);
    rootfs_ = target_real_ != "/" && is_dir("etc") && is_dir("usr");
    for (const CatalogEntry& e : catalog_.entries) {
      for (const std::string& d : e.matched_distributions) dist_projects_[d].insert(e.project);
      std::string repo = github_repo_of(e.upstream.repository);
      if (!repo.empty()) repo_projects_[repo].insert(e.project);
      // The project's Python package folder: a distribution's import name, or the project's,
      // at the top or under python/ (SGLang, Triton).
      std::vector<std::string> names = e.normalized_distributions;
      names.push_back(e.project);
      for (std::string name : names) {
        std::replace(name.begin(), name.end(), '-', '_');
        if (name.find('.') != std::string::npos) continue;  // llama.cpp
        layout_[e.project].insert(name + "/__init__.py");
        layout_[e.project].insert("python/" + name + "/__init__.py");
        const std::string dist = normalize_distribution_name(name);
        if (std::find(e.matched_distributions.begin(), e.matched_distributions.end(), dist) !=
            e.matched_distributions.end())
          import_names_[name] = dist;
      }
      for (const CatalogFile& f : e.files) {
        if (distinctive(f.upstream)) layout_[e.project].insert(f.upstream);
        for (const CatalogMove& m : f.moved)
          if (distinctive(m.upstream)) layout_[e.project].insert(m.upstream);
      }
    }
    for (const auto& [project, paths] : layout_)
      for (const std::string& p : paths) layout_tops_.insert(p.substr(0, p.find('/')));
  }

  void run() {
    walk("", 0);
    if (options_.kernels) source_tree_objects();
    if (out_.walk.truncated)
      out_.notes.push_back(fmt::format(
          "the walk stopped after {} names (--max-entries {}): installs in directories not "
          "listed are not reported",
          out_.walk.entries, options_.max_entries));
    if (out_.walk.depth_limited > 0)
      out_.notes.push_back(fmt::format(
          "{} director{} deeper than --max-depth {} not entered", out_.walk.depth_limited,
          out_.walk.depth_limited == 1 ? "y" : "ies", options_.max_depth));
    for (const std::string& n : symlink_notes_) out_.notes.push_back(n);
    for (const std::string& s : out_.walk.outside_symlinks)
      out_.notes.push_back(fmt::format(
          "symlink {} not followed: it leads outside TARGET; the installs there are not reported "
          "(scan its target to judge them)",
          s));
    for (const std::string& n : size_notes_) out_.notes.push_back(n);
    import_order();
    editable_order();
    orphan_packages();
    redirected();
    for (FoundInstall& f : pending_) {
      ambiguous_metadata(f.install);
      unversioned(f.install);
    }
    out_.installs = std::move(pending_);
  }

 private:
  // -------------------------------------------------------------------------------------------
  // Tree access.

  bool is_dir(const std::string& rel) const {
    try {
      return tree_.stat(rel).type == Entry::Type::kDirectory;
    } catch (const Error&) {
      return false;
    }
  }

  static Entry::Type type_at(const Location& at, const std::string& rel) {
    try {
      return at.tree->stat(at.path(rel)).type;
    } catch (const Error&) {
      return Entry::Type::kMissing;
    }
  }

  /// What a metadata file left unread costs: only detail (a version, a HEAD), or a list of
  /// installs or shared objects (a .pth, RECORD, ...), which makes the walk incomplete.
  enum class Unread { kDetail, kInstallList };

  /// Regular file `rel` of `at`, std::nullopt when it is missing, unreadable or larger than
  /// `cap` bytes; a file over the cap gets a note naming it and saying `unread_means` (what the
  /// report lacks because of it), and with Unread::kInstallList an entry in WalkStats::not_read.
  std::optional<std::string> read_at(const Location& at, const std::string& rel, std::uint64_t cap,
                                     std::string_view unread_means,
                                     Unread cost = Unread::kDetail) const {
    try {
      const Entry e = at.tree->stat(at.path(rel));
      if (e.type != Entry::Type::kFile) return std::nullopt;
      if (e.size > cap) {
        const std::string where =
            at.tree == &tree_ ? shown(at.path(rel)) : join(at.tree->name(), at.path(rel));
        size_notes_.push_back(fmt::format("{}: {} bytes, over the {} read in such a file; not read: {}",
                                          where, e.size, mib(cap), unread_means));
        if (cost == Unread::kInstallList)
          out_.walk.not_read.push_back(fmt::format("{}: {} bytes, over the {} read in such a file",
                                                   where, e.size, mib(cap)));
        return std::nullopt;
      }
      return at.tree->read(at.path(rel));
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  Location inside(const std::string& rel) const { return Location{&tree_, rel}; }

  /// A path as shown in the report: relative to TARGET when inside it ("." for TARGET).
  static std::string shown(const std::string& rel) { return rel.empty() ? "." : rel; }

  /// Resolves pointer `text`, relative paths against `base` (relative to TARGET).
  Pointer resolve(const std::string& text, const std::string& base) const {
    namespace fs = std::filesystem;
    Pointer p;
    fs::path abs;
    if (!text.empty() && text.front() == '/') {
      abs = fs::path(text).lexically_normal();
      if (rootfs_ && !within_target(abs.string())) {
        // A container's root file system: its absolute paths name its own files.
        const std::optional<std::string> rel = normalize_relative_path(text.substr(1));
        p.inside = true;
        p.rel = rel.value_or("");
        p.note = fmt::format("'{}' read inside TARGET (a root file system)", text);
        return p;
      }
    } else {
      abs = (fs::path(target_real_) / base / text).lexically_normal();
    }
    std::string a = abs.string();
    while (a.size() > 1 && a.back() == '/') a.pop_back();
    if (!within_target(a)) {
      // A path into TARGET through a symlink (or TARGET named by another path) is read inside
      // it, at its real path: one install, each file read once.
      std::error_code ec;
      const std::string real = fs::canonical(a, ec).string();
      if (!ec && within_target(real)) {
        p.note = real == target_real_
                     ? fmt::format("'{}' is TARGET by another path: read there", text)
                     : fmt::format("'{}' leads to {} inside TARGET: read there", text,
                                   relative_to_target(real));
        a = real;
      }
    }
    if (within_target(a)) {
      p.inside = true;
      p.rel = relative_to_target(a);
      return p;
    }
    p.abs = a;
    return p;
  }

  /// `abs` (within_target()) relative to TARGET ("" for TARGET itself).
  std::string relative_to_target(const std::string& abs) const {
    return abs.size() > target_real_.size()
               ? abs.substr(target_real_.size() + (target_real_ == "/" ? 0 : 1))
               : "";
  }

  /// Whether absolute path `abs` is TARGET or a folder above it ("/" included).
  bool holds_target(const std::string& abs) const {
    return abs == "/" || abs == target_real_ ||
           (starts_with(target_real_, abs) && target_real_.size() > abs.size() &&
            target_real_[abs.size()] == '/');
  }

  bool within_target(const std::string& abs) const {
    if (target_real_ == "/") return true;
    return abs == target_real_ ||
           (starts_with(abs, target_real_) && abs.size() > target_real_.size() &&
            abs[target_real_.size()] == '/');
  }

  /// A Location for `p`: inside TARGET's tree, or a tree opened at p.abs (kept in out_.outside);
  /// std::nullopt with `why` when it is not read.
  std::optional<Location> open(const Pointer& p, std::string& why) {
    if (p.inside) return inside(p.rel);
    if (options_.stay_inside) {
      why = fmt::format("{} is outside TARGET, not read (--stay-inside)", p.abs);
      return std::nullopt;
    }
    if (auto it = outside_trees_.find(p.abs); it != outside_trees_.end())
      return Location{it->second, ""};
    try {
      out_.outside.push_back(open_disk_tree(p.abs));
    } catch (const Error& e) {
      why = e.what();
      return std::nullopt;
    }
    outside_trees_[p.abs] = out_.outside.back().get();
    return Location{out_.outside.back().get(), ""};
  }

  /// Closes the tree just opened at `abs` by open() (the last of out_.outside): a directory a
  /// .pth names but no install uses keeps no descriptor (a .pth of 3000 lines would else use
  /// up the process's descriptors and leave later directories of the walk unlisted).
  void close_outside(const std::string& abs) {
    const auto it = outside_trees_.find(abs);
    if (it == outside_trees_.end() || out_.outside.empty() || out_.outside.back().get() != it->second)
      return;
    outside_trees_.erase(it);
    out_.outside.pop_back();
  }

  // -------------------------------------------------------------------------------------------
  // The walk.

  /// Walks directory `start` of TARGET (at `start_depth`) and what it asks to enter, through
  /// a DirectoryWalk: each directory opened from its parent's descriptor, so a directory costs
  /// the same at any depth.
  void walk(const std::string& start, std::size_t start_depth) {
    if (out_.walk.truncated) return;
    DirectoryWalk w(tree_, start, start_depth);
    while (w.next()) {
      const std::string& rel = w.path();
      if (!w.error().empty()) {
        if (rel.empty()) throw Error(target_, 0, w.error());
        out_.walk.unreadable.push_back(fmt::format("{}: {}", rel, w.error()));
        continue;
      }
      visit(w);
      if (out_.walk.truncated) break;
    }
    for (const std::string& lost : w.lost()) out_.walk.unreadable.push_back(lost);
  }

  /// One directory of the walk: its checkout, its site-packages, and what to enter below it.
  void visit(DirectoryWalk& w) {
    const std::string& rel = w.path();
    const std::size_t depth = w.depth();
    const std::vector<Tree::DirEntry>& list = w.entries();
    ++out_.walk.directories;
    out_.walk.entries += list.size();
    if (out_.walk.entries > options_.max_entries) out_.walk.truncated = true;
    const std::string_view name = rel.empty() ? std::string_view(target_name_) : w.name();
    bool has_git = false, has_dist_info = false, has_project_file = false;
    for (const Tree::DirEntry& e : list) {
      if (e.name == ".git" && (e.type == Entry::Type::kDirectory || e.type == Entry::Type::kFile))
        has_git = true;
      if (e.type == Entry::Type::kDirectory && ends_with_any_case(e.name, ".dist-info"))
        has_dist_info = true;
      if (e.name == "setup.py" || e.name == "pyproject.toml") has_project_file = true;
    }
    if (has_git) {
      checkout(rel);
    } else if (rel.empty() && !(name == "site-packages" || name == "dist-packages") &&
               !(has_dist_info && !has_project_file)) {
      source_tree(rel, list);  // TARGET itself only: see source_tree()
    }
    if (std::any_of(list.begin(), list.end(), [](const Tree::DirEntry& e) {
          return e.name == "pyvenv.cfg" && e.type == Entry::Type::kFile;
        }))
      venv_config(rel);
    const bool named_site = name == "site-packages" || name == "dist-packages";
    if (named_site || (has_dist_info && !has_git && !has_project_file)) {
      site_packages(rel, list);
      // A site-packages' package folders hold no other install; a folder that only holds a
      // *.dist-info (pip --target, or a stray one at TARGET's top) may hold anything below.
      if (named_site) return;
    }
    for (std::size_t k = 0; k < list.size(); ++k) {
      const Tree::DirEntry& e = list[k];
      if (e.type == Entry::Type::kFile && options_.kernels && is_kernel_file_name(e.name))
        walked_objects_.push_back(join(rel, e.name));
      if (e.type == Entry::Type::kSymlink) {
        symlink(w, e.name);
        if (out_.walk.truncated) return;
        continue;
      }
      if (e.type != Entry::Type::kDirectory || skipped_everywhere(e.name)) continue;
      if ((rootfs_ || target_real_ == "/") && rel.empty() &&
          (e.name == "proc" || e.name == "sys" || e.name == "dev"))
        continue;
      if (depth + 1 > options_.max_depth) {
        ++out_.walk.depth_limited;
        continue;
      }
      w.enter(k);
    }
  }

  /// A venv's pyvenv.cfg in `venv` (relative to TARGET). With `include-system-site-packages`
  /// true, or absent (CPython 3.11 Lib/site.py, venv(): system_site starts "true"; keys are
  /// lower-cased and stripped, values stripped, `home` is the base interpreter's folder), the
  /// venv imports the base prefix's site-packages too (after its own). A base prefix (the
  /// folder above `home`) inside TARGET is walked anyway; one outside TARGET is not read: an
  /// entry in WalkStats::not_read and a note (scan it too).
  void venv_config(const std::string& venv) {
    const std::string cfg = join(venv, "pyvenv.cfg");
    const std::optional<std::string> text =
        read_at(inside(""), cfg, kPointerFileCap, "whether it imports a base site-packages is unknown",
                Unread::kInstallList);
    if (!text) return;
    std::string system_site = "true", home;
    for_each_line(*text, [&](std::string_view line) {
      const std::size_t eq = line.find('=');
      if (eq == std::string_view::npos) return true;
      std::string key = trim(line.substr(0, eq));
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = trim(line.substr(eq + 1));
      if (key == "include-system-site-packages") {
        for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        system_site = value;
      } else if (key == "home") {
        home = value;
      }
      return true;
    });
    if (system_site != "true") return;
    if (home.empty()) {  // CPython then takes the base prefix from the interpreter: unknown here
      out_.walk.not_read.push_back(fmt::format(
          "{}: include-system-site-packages: the base interpreter's site-packages (no home line)",
          cfg));
      out_.notes.push_back(fmt::format(
          "{}: the venv imports the base interpreter's site-packages too "
          "(include-system-site-packages), and names no home: which site-packages is not known, "
          "not read",
          cfg));
      return;
    }
    Pointer base = resolve(home, venv);
    if (base.inside) return;  // the walk reaches it (a root file system: /usr/bin is TARGET/usr/bin)
    base.abs = std::filesystem::path(base.abs).parent_path().string();
    out_.walk.not_read.push_back(fmt::format(
        "{}: include-system-site-packages: the site-packages of {} (outside TARGET)", cfg, base.abs));
    out_.notes.push_back(fmt::format(
        "{}: the venv imports the base interpreter's site-packages too (include-system-site-packages, "
        "home = {}); {} is outside TARGET, not read: scan it too",
        cfg, home, base.abs));
  }

  /// Whether a Python library folder may be named `name` in a directory listed as `list`:
  /// site-packages, dist-packages, pythonX.Y (python3.12, python3.13t), or a venv's lib / lib64
  /// (beside its pyvenv.cfg).
  static bool python_library_name(const std::string& name, const std::vector<Tree::DirEntry>& list) {
    if (name == "site-packages" || name == "dist-packages") return true;
    if (name == "lib" || name == "lib64")
      return std::any_of(list.begin(), list.end(),
                         [](const Tree::DirEntry& e) { return e.name == "pyvenv.cfg"; });
    if (!starts_with(name, "python") || name.size() < 7) return false;
    return std::isdigit(static_cast<unsigned char>(name[6])) != 0;
  }

  /// Whether the walk enters directory `real_rel` (relative to TARGET, without symlinks) by
  /// itself, and if not, why.
  enum class WalkReach {
    kReached,    ///< the walk lists it
    kSkipped,    ///< a component is node_modules (skipped everywhere) or too deep
    kBelowSite,  ///< below a folder named site-packages or dist-packages (packages not walked)
    kSystem,     ///< under a root file system's proc, sys or dev, or inside a .git, .hg, .svn or
                 ///< __pycache__ folder (version control or bytecode): never walked
  };
  WalkReach walk_reaches(const std::string& real_rel) const {
    std::size_t depth = 0;
    std::string parent = base_name(target_real_);
    std::size_t at = 0;
    while (at <= real_rel.size() && !real_rel.empty()) {
      std::size_t slash = real_rel.find('/', at);
      if (slash == std::string::npos) slash = real_rel.size();
      const std::string c = real_rel.substr(at, slash - at);
      at = slash + 1;
      ++depth;
      if (parent == "site-packages" || parent == "dist-packages") return WalkReach::kBelowSite;
      if (depth == 1 && (rootfs_ || target_real_ == "/") && (c == "proc" || c == "sys" || c == "dev"))
        return WalkReach::kSystem;
      if (skipped_everywhere(c) && c != "node_modules") return WalkReach::kSystem;
      if (depth > options_.max_depth || c == "node_modules") return WalkReach::kSkipped;
      parent = c;
    }
    return WalkReach::kReached;
  }

  /// A symlink `name` met by the walk in directory `dir` (listed as `list`, at `depth`). When it
  /// leads to a directory inside TARGET (an absolute target read inside TARGET when it is a root
  /// file system) that the walk does not reach by itself (walk_reaches() kSkipped: never into a
  /// site-packages folder's packages, a root file system's proc, sys, dev, nor version-control
  /// or bytecode folders), that directory is
  /// walked at its real path, once, with a note; when the walk reaches it, nothing more is done (a Python library
  /// folder gets a note saying where it is read). A Python library folder
  /// (python_library_name()) leading outside TARGET is not followed and recorded in
  /// WalkStats::outside_symlinks (the walk is then incomplete). Any other symlink is counted in
  /// WalkStats::symlinks.
  void symlink(DirectoryWalk& w, const std::string& name) {
    namespace fs = std::filesystem;
    const std::string& dir = w.path();
    const std::vector<Tree::DirEntry>& list = w.entries();
    const std::size_t depth = w.depth();
    const std::string path = join(dir, name);
    const bool python = python_library_name(name, list);
    ++out_.walk.symlinks;
    std::string text;
    try {
      text = tree_.read_link(path);
    } catch (const Error&) {
      return;
    }
    if (text.empty()) return;
    fs::path dest = text.front() == '/' ? (rootfs_ ? fs::path(target_real_ + text) : fs::path(text))
                                        : fs::path(target_real_) / dir / text;
    std::error_code ec;
    const fs::path real = fs::canonical(dest, ec);
    if (ec || !fs::is_directory(real, ec)) {
      if (python && ec)
        symlink_notes_.push_back(fmt::format("symlink {} -> {} not followed: {}", path, text,
                                             ec.message()));
      return;  // dangling, or a file (a venv's bin/python3.12)
    }
    const std::string real_path = real.string();
    if (!within_target(real_path)) {
      if (python) out_.walk.outside_symlinks.push_back(fmt::format("{} -> {}", path, text));
      return;
    }
    const std::string real_rel =
        real_path.size() > target_real_.size()
            ? real_path.substr(target_real_.size() + (target_real_ == "/" ? 0 : 1))
            : "";
    const WalkReach reach = walk_reaches(real_rel);
    if (reach == WalkReach::kReached) {
      if (python)
        symlink_notes_.push_back(fmt::format("symlink {} -> {}: read at {}", path, text, shown(real_rel)));
      return;
    }
    if (reach != WalkReach::kSkipped) {
      if (python)
        symlink_notes_.push_back(fmt::format(
            "symlink {} -> {} not followed: {} is {}", path, text, shown(real_rel),
            reach == WalkReach::kBelowSite
                ? "inside a site-packages folder's packages"
                : "a folder never walked (a root file system's proc, sys or dev; .git, .hg, "
                  ".svn or __pycache__)"));
      return;
    }
    if (!followed_.insert(real_rel).second) return;
    --out_.walk.symlinks;
    symlink_notes_.push_back(fmt::format("symlink {} -> {} followed: read at {}", path, text,
                                         shown(real_rel)));
    if (depth + 1 > options_.max_depth) {
      ++out_.walk.depth_limited;
      return;
    }
    w.enter_path(real_rel);
  }

  // -------------------------------------------------------------------------------------------
  // Installs.

  /// The install kept under `key`, created on first use.
  FoundInstall& install_for(const std::string& key) {
    auto [it, added] = source_index_.emplace(key, pending_.size());
    if (added) pending_.emplace_back();
    return pending_[it->second];
  }

  static void add_project(Install& i, const std::string& project) {
    if (std::find(i.projects.begin(), i.projects.end(), project) == i.projects.end())
      i.projects.push_back(project);
  }

  /// Catalog projects whose distinctive paths (distinctive() files of its entries, or its
  /// package's `__init__.py`) exist at `at`.
  std::vector<std::string> layout_projects(const Location& at) const {
    std::vector<std::string> out;
    for (const auto& [project, paths] : layout_)
      for (const std::string& p : paths)
        if (type_at(at, p) == Entry::Type::kFile) {
          out.push_back(project);
          break;
        }
    return out;
  }

  /// Catalog projects a remote URL of the checkout's git config names.
  std::vector<std::string> remote_projects(const Location& git_dir) const {
    std::vector<std::string> out;
    const std::optional<std::string> config = read_at(git_dir, "config", kListFileCap,
                                                        "its remote URLs not used to name the project");
    if (!config) return out;
    for_each_line(*config, [&](std::string_view line) {
      if (!starts_with(line, "url")) return true;
      const std::size_t eq = line.find('=');
      if (eq == std::string::npos || trim(line.substr(3, eq - 3)) != "") return true;
      const auto it = repo_projects_.find(github_repo_of(trim(line.substr(eq + 1))));
      if (it == repo_projects_.end()) return true;
      for (const std::string& p : it->second)
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      return true;
    });
    return out;
  }

  /// The git directory of the checkout at `root` (`.git`, or where a `.git` file points) and
  /// its common directory (`commondir`, for worktrees). std::nullopt with `why`.
  std::optional<std::pair<Location, Location>> git_dirs(const Location& root, std::string& why) {
    Location git_dir{root.tree, root.path(".git")};
    if (type_at(root, ".git") == Entry::Type::kFile) {
      const std::optional<std::string> text = read_at(root, ".git", kPointerFileCap, "the checkout's HEAD");
      if (!text || !starts_with(*text, "gitdir:")) {
        why = ".git file without 'gitdir:'";
        return std::nullopt;
      }
      const std::optional<Location> at = follow(root, trim(text->substr(7)), why);
      if (!at) return std::nullopt;
      git_dir = *at;
    }
    Location common = git_dir;
    if (const std::optional<std::string> c = read_at(git_dir, "commondir", kPointerFileCap, "the checkout's HEAD")) {
      const std::optional<Location> at = follow(git_dir, trim(*c), why);
      if (!at) return std::nullopt;
      common = *at;
    }
    return std::make_pair(git_dir, common);
  }

  /// Follows a path written in a file of `from` (relative paths against `from`).
  std::optional<Location> follow(const Location& from, const std::string& text, std::string& why) {
    if (from.tree == &tree_) return open(resolve(text, from.prefix), why);
    // From a tree outside TARGET: relative to that tree's directory.
    namespace fs = std::filesystem;
    Pointer p;
    p.abs = text.front() == '/' ? fs::path(text).lexically_normal().string()
                                : (fs::path(from.tree->name()) / from.prefix / text).lexically_normal().string();
    while (p.abs.size() > 1 && p.abs.back() == '/') p.abs.pop_back();
    return open(p, why);
  }

  /// HEAD's commit and branch: HEAD, then the ref it names, loose or in packed-refs.
  GitHead read_head(const Location& root) {
    GitHead head;
    std::string why;
    const auto dirs = git_dirs(root, why);
    if (!dirs) {
      head.error = why;
      return head;
    }
    const auto& [git_dir, common] = *dirs;
    std::optional<std::string> text = read_at(git_dir, "HEAD", kPointerFileCap, "the checkout's HEAD");
    if (!text) {
      head.error = "no readable HEAD";
      return head;
    }
    std::string ref = trim(*text);
    for (int hops = 0; hops < 5; ++hops) {
      if (!starts_with(ref, "ref:")) {
        if (ref.size() == 40 && std::all_of(ref.begin(), ref.end(), [](char c) {
              return std::isxdigit(static_cast<unsigned char>(c));
            }))
          head.commit = ref;
        else
          head.error = "HEAD is neither a commit id nor a ref";
        return head;
      }
      const std::string name = trim(ref.substr(4));
      if (name.find("..") != std::string::npos || !starts_with(name, "refs/")) {
        head.error = "HEAD names an unusual ref";
        return head;
      }
      head.branch = starts_with(name, "refs/heads/") ? std::optional(name.substr(11)) : std::nullopt;
      if (std::optional<std::string> loose = read_at(common, name, kPointerFileCap, "the checkout's HEAD")) {
        ref = trim(*loose);
        continue;
      }
      if (std::optional<std::string> packed =
              read_at(common, "packed-refs", Tree::kDefaultMaxFileSize, "the checkout's HEAD")) {
        for_each_line(*packed, [&](std::string_view line) {
          if (line.size() > 41 && line[40] == ' ' && line.substr(41) == name)
            head.commit = std::string(line.substr(0, 40));
          return head.commit.empty();
        });
        if (!head.commit.empty()) return head;
      }
      head.error = "unborn branch " + name;  // no commit yet
      return head;
    }
    head.error = "a loop of symbolic refs";
    return head;
  }

  /// A directory holding `.git` found by the walk: an install when it is a checkout of a
  /// catalog project (by remote URL, else by layout).
  void checkout(const std::string& rel) {
    const Location root = inside(rel);
    std::vector<std::string> projects;
    std::string by;
    std::string why;
    if (const auto dirs = git_dirs(root, why)) projects = remote_projects(dirs->second);
    if (!projects.empty()) by = "remote";
    for (const std::string& p : layout_projects(root))
      if (std::find(projects.begin(), projects.end(), p) == projects.end()) {
        projects.push_back(p);
        if (by.empty()) by = "layout";
      }
    if (projects.empty()) return;
    found_trees_.push_back(rel);
    FoundInstall& f = install_for("in:" + rel);
    if (f.files.tree == nullptr) {
      f.install.kind = InstallKind::kCheckout;
      f.install.root = shown(rel);
      f.files = root;
    }
    if (f.install.identified_by.empty()) f.install.identified_by = by;
    for (const std::string& p : projects) add_project(f.install, p);
    f.install.found_by.push_back(join(rel, ".git"));
    if (!f.install.head) f.install.head = read_head(root);
  }

  /// A directory without `.git` (`rel`, its entries `list`): an install of kind kSourceTree
  /// when the layout of a catalog project stands there (layout_projects()), unless it lies
  /// inside a checkout or source tree found already (its own folders, such as SGLang's
  /// python/, match a layout too). Called for TARGET itself only: a folder deeper in TARGET
  /// without `.git` is an install when Python's path names it (an editable source), not by its
  /// layout alone (a copy no sys.path names may be test data or vendored, and is not claimed).
  /// Looked at only when an entry's name is the first component of some layout path.
  void source_tree(const std::string& rel, const std::vector<Tree::DirEntry>& list) {
    if (!std::any_of(list.begin(), list.end(), [&](const Tree::DirEntry& e) {
          return layout_tops_.count(e.name) != 0;
        }))
      return;
    for (const std::string& root : found_trees_)
      if (root.empty() || (rel.size() > root.size() && starts_with(rel, root) && rel[root.size()] == '/'))
        return;
    const Location root = inside(rel);
    const std::vector<std::string> projects = layout_projects(root);
    if (projects.empty()) return;
    found_trees_.push_back(rel);
    FoundInstall& f = install_for("in:" + rel);
    if (f.files.tree == nullptr) {  // else an editable install's source, found first
      f.install.kind = InstallKind::kSourceTree;
      f.install.root = shown(rel);
      f.files = root;
      f.install.identified_by = "layout";
    }
    for (const std::string& p : projects) add_project(f.install, p);
    f.install.found_by.push_back(rel.empty() ? "." : rel);
  }

  /// A catalog project's package folder (with __init__.py) in a site-packages walked that no
  /// install found there covers (no *.dist-info / *.egg-info of the project's distributions,
  /// no package folder import_order() took): a copy without pip's metadata (copied in, a
  /// stripped image). Judged from its files as a distribution of its import name, whose version
  /// is unknown (Install::unversioned). Its shared objects are not listed (no RECORD to say
  /// which are its own).
  void orphan_packages() {
    for (const std::string& site : sites_) {
      for (const auto& entry : import_names_) {
        // Named, not a structured binding: clang 14 (Debian 12) refuses a binding captured by a
        // lambda (C++20 P1091 came in clang 16).
        const std::string& name = entry.first;
        const std::string& dist = entry.second;
        const std::string folder = join(site, name);
        if (!is_dir(folder) || type_at(inside(folder), "__init__.py") != Entry::Type::kFile) continue;
        const std::set<std::string>& projects = dist_projects_[dist];
        const bool covered = std::any_of(pending_.begin(), pending_.end(), [&](const FoundInstall& f) {
          return f.install.kind == InstallKind::kDistribution && f.files.tree == &tree_ &&
                 f.files.prefix == site &&
                 std::any_of(f.install.projects.begin(), f.install.projects.end(),
                             [&](const std::string& p) { return projects.count(p) != 0; });
        });
        // An editable install this site-packages names for the same import name: the folder is
        // its stale copy or the source itself, which editable_order() has judged.
        const bool editable_here = std::any_of(pending_.begin(), pending_.end(), [&](const FoundInstall& f) {
          return f.install.kind == InstallKind::kEditable && f.reach.count(site) != 0 &&
                 std::find(f.packages.begin(), f.packages.end(), name) != f.packages.end();
        });
        if (covered || editable_here) continue;
        const std::size_t at = distribution(site, folder, dist, "");
        pending_[at].install.metadata_versions.clear();
        out_.notes.push_back(fmt::format(
            "{}: a package folder of {} that no *.dist-info or *.egg-info names: judged as {} "
            "of unknown version",
            shown(folder), fmt::join(projects, ", "), dist));
      }
    }
  }

  /// Sets Install::unversioned when neither a version nor a revision is known and nothing else
  /// says why.
  static void unversioned(Install& i) {
    if (!i.version.empty() || i.head) return;
    switch (i.kind) {
      case InstallKind::kDistribution:
        if (std::any_of(i.metadata_versions.begin(), i.metadata_versions.end(),
                        [](const std::string& v) { return !v.empty(); }))
          break;  // versions that differ: ambiguous_metadata() says
        i.unversioned = i.metadata_versions.empty()
                            ? "no *.dist-info or *.egg-info in " + i.root +
                                  " names it: a copy without pip's metadata"
                            : "its metadata names none: no Version: header, none in the folder's name";
        break;
      case InstallKind::kSourceTree:
        i.unversioned = "no .git and no pip metadata: a copied or unpacked source tree";
        break;
      case InstallKind::kEditable:
        i.unversioned = "no .git in the source tree and no version in what names it";
        break;
      case InstallKind::kCheckout:
        break;  // HEAD says
    }
  }

  /// The root of the source tree an editable install points at (`dir`): the nearest directory
  /// at or above it (3 levels at most) holding `.git` (unless `dir` itself holds files of
  /// `projects` that the checkout's layout does not reach: then `dir`), else the nearest where
  /// a distinctive path of `projects` exists, else `dir` itself.
  Pointer source_root(const Pointer& dir, const std::vector<std::string>& projects) {
    std::vector<Pointer> candidates{dir};
    for (int up = 0; up < 3; ++up) {
      Pointer p = candidates.back();
      if (p.inside) {
        if (p.rel.empty()) break;
        p.rel = parent_of(p.rel);
      } else {
        const std::string parent = std::filesystem::path(p.abs).parent_path().string();
        if (parent == p.abs || parent.empty()) break;
        p.abs = parent;
      }
      candidates.push_back(p);
    }
    const auto has = [&](const Pointer& p, const std::string& rel) {
      if (p.inside) return type_at(inside(p.rel), rel);
      struct stat st {};
      if (::lstat((p.abs + "/" + rel).c_str(), &st) != 0) return Entry::Type::kMissing;
      return S_ISDIR(st.st_mode) ? Entry::Type::kDirectory
             : S_ISREG(st.st_mode) ? Entry::Type::kFile
                                   : Entry::Type::kOther;
    };
    // The layout paths of `projects` that are files at the named folder itself.
    std::vector<std::string> at_dir;
    for (const std::string& project : projects)
      if (auto it = layout_.find(project); it != layout_.end())
        for (const std::string& path : it->second)
          if (has(dir, path) == Entry::Type::kFile) at_dir.push_back(path);
    const auto in_layout = [&](const std::string& path) {
      for (const std::string& project : projects)
        if (auto it = layout_.find(project); it != layout_.end() && it->second.count(path) != 0)
          return true;
      return false;
    };
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const Pointer& p = candidates[k];
      if (has(p, ".git") != Entry::Type::kDirectory && has(p, ".git") != Entry::Type::kFile)
        continue;
      if (k == 0 || at_dir.empty()) return p;
      // A checkout above the named folder is the root only where it reads the named folder's
      // files (`pip install -e python/` of a checkout whose layout is python/NAME/...): a git
      // folder above another copy of the project (its files at the checkout's own layout
      // paths) would judge code Python does not import, so the named folder is the root.
      const std::string base = p.inside ? p.rel : p.abs;
      const std::string named = dir.inside ? dir.rel : dir.abs;
      const std::string rel = base.empty()  ? named
                              : base == "/" ? named.substr(1)
                                            : named.substr(base.size() + 1);
      for (const std::string& path : at_dir)
        if (in_layout(rel + "/" + path)) return p;
      return dir;
    }
    for (const Pointer& p : candidates)
      for (const std::string& project : projects)
        if (auto it = layout_.find(project); it != layout_.end())
          for (const std::string& path : it->second)
            if (has(p, path) == Entry::Type::kFile) return p;
    return dir;
  }

  /// An editable install of `dist` (normalised; "" when only a .pth line names it) whose
  /// source is at `target_text` (as written in `found_by`, relative to `site`).
  void editable(const std::string& site, const std::string& found_by, const std::string& dist,
                const std::string& version, const std::string& target_text,
                FoundInstall::Reach how, std::size_t line_rank = 0,
                const std::vector<std::string>& packages = {}) {
    std::vector<std::string> projects;
    if (auto it = dist_projects_.find(dist); it != dist_projects_.end())
      projects.assign(it->second.begin(), it->second.end());
    Pointer named = resolve(target_text, site);
    if (named.inside) {  // through a symlink inside TARGET: where it leads (one install per tree)
      const Followed f = follow_links(named.rel);
      if (f.why.empty()) named.rel = f.rel;
    }
    const Pointer root = source_root(named, projects);
    std::string why;
    const bool already_open = outside_trees_.count(root.abs) != 0;
    const std::optional<Location> files = open(root, why);
    if (files)
      for (const std::string& p : layout_projects(*files))
        if (std::find(projects.begin(), projects.end(), p) == projects.end()) projects.push_back(p);
    if (projects.empty()) {  // a .pth line to something the catalog does not know
      if (files && !root.inside && !already_open) close_outside(root.abs);
      return;
    }
    FoundInstall& f = install_for(root.inside ? "in:" + root.rel : "out:" + root.abs);
    Install& i = f.install;
    i.kind = InstallKind::kEditable;
    if (i.root.empty()) {
      i.root = root.inside ? shown(root.rel) : root.abs;
      i.outside_target = !root.inside;
      if (files) {
        f.files = *files;
        if (type_at(*files, ".git") != Entry::Type::kMissing) i.head = read_head(*files);
      } else {
        i.unreadable = why;
      }
    }
    if (!root.note.empty() &&
        std::find(out_.notes.begin(), out_.notes.end(), root.note) == out_.notes.end())
      out_.notes.push_back(root.note);
    if (!root.inside && f.named.empty() && named.abs.size() > root.abs.size() + 1 &&
        starts_with(named.abs, root.abs))
      f.named = named.abs.substr(root.abs == "/" ? 1 : root.abs.size() + 1);
    for (const std::string& p : packages)
      if (std::find(f.packages.begin(), f.packages.end(), p) == f.packages.end())
        f.packages.push_back(p);
    if (i.distribution.empty() && !dist.empty()) i.distribution = dist;
    if (i.version.empty()) i.version = version;
    for (const std::string& p : projects) add_project(i, p);
    if (std::find(i.found_by.begin(), i.found_by.end(), found_by) == i.found_by.end())
      i.found_by.push_back(found_by);
    FoundInstall::Reach& reach = f.reach.try_emplace(site, how).first->second;
    reach = std::max(reach, how);
    if (how != FoundInstall::Reach::kUnknown) rank_line(f, site, how, line_rank);
  }

  /// Keeps `rank` (a .pth line's place in Python's order) for `f`'s way in `how` at `site`.
  static void rank_line(FoundInstall& f, const std::string& site, FoundInstall::Reach how,
                        std::size_t rank) {
    const auto [it, added] = f.line_rank.try_emplace(std::make_pair(site, how), rank);
    if (!added) it->second = std::min(it->second, rank);
  }

  /// The top-level package folders the code of `install`'s projects is imported as.
  std::set<std::string> package_names(const Install& install) const {
    std::set<std::string> names;
    for (const std::string& project : install.projects)
      if (auto it = layout_.find(project); it != layout_.end())
        for (const std::string& path : it->second)
          if (ends_with(path, "/__init__.py") && path.find('/') == path.rfind('/'))
            names.insert(path.substr(0, path.find('/')));
    return names;
  }

  /// Which of several editable installs of one package that one site-packages names `import`
  /// loads. CPython 3.11 Lib/site.py, addsitedir(): the .pth files are processed in sorted name
  /// order (`for name in sorted(names)`), each path line appended to sys.path, each import line
  /// run (setuptools' finder appends itself to sys.meta_path, after the path finder). So the
  /// earliest path line wins; with none, the earliest finder. The others get
  /// Install::not_imported (their fixes read unknown) and a note. When one of them has no
  /// known way in there (only direct_url.json or an .egg-link names it), all of them say that
  /// which copy is imported is unknown. An install import_order() already judged is left alone.
  void editable_order() {
    using Reach = FoundInstall::Reach;
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;  // (site, package)
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      const FoundInstall& f = pending_[k];
      if (f.install.kind != InstallKind::kEditable || !f.install.not_imported.empty()) continue;
      for (const auto& site_reach : f.reach)
        for (const std::string& name : package_names(f.install))
          groups[std::make_pair(site_reach.first, name)].push_back(k);
    }
    std::set<std::pair<std::string, std::vector<std::size_t>>> done;  // one per site and installs
    for (const auto& group : groups) {
      const std::string& site = group.first.first;
      const std::string& name = group.first.second;  // "flashinfer" before "flashinfer_python"
      const std::vector<std::size_t>& ks = group.second;
      if (ks.size() < 2 || !done.insert(std::make_pair(site, ks)).second) continue;
      std::string roots;
      for (std::size_t k : ks) roots += (roots.empty() ? "" : ", ") + pending_[k].install.root;
      // The winner: (path line before finder, earlier line); none when a way in is unknown.
      std::optional<std::size_t> winner;
      std::pair<int, std::size_t> best{4, 0};
      std::size_t first_finders = 0;  // each inserted at sys.meta_path[0]: the last one wins
      const auto changed = path_changing_pth_.find(site);
      bool known = changed == path_changing_pth_.end();
      for (std::size_t k : ks) {
        if (!known) break;
        const Reach how = pending_[k].reach.at(site);
        const auto rank = pending_[k].line_rank.find(std::make_pair(site, how));
        if (how == Reach::kUnknown || rank == pending_[k].line_rank.end()) {
          known = false;
          break;
        }
        if (how == Reach::kFirstFinder && ++first_finders > 1) {
          known = false;
          break;
        }
        const std::pair<int, std::size_t> key{how == Reach::kFirstFinder     ? 0
                                              : how == Reach::kFrontPathLine ? 1
                                              : how == Reach::kPathLine      ? 2
                                                                             : 3,
                                              rank->second};
        if (!winner || key < best) {
          winner = k;
          best = key;
        }
      }
      if (!known) {
        const std::string why =
            changed != path_changing_pth_.end()
                ? fmt::format("which copy Python imports is unknown: {} name editable installs of {} "
                              "({}), and {} runs an import line that may change sys.path",
                              site, name, roots, changed->second)
                : first_finders > 1
                ? fmt::format("which copy Python imports is unknown: {} name editable installs of {} "
                              "({}), and more than one of them inserts its finder first in sys.meta_path",
                              site, name, roots)
                : fmt::format(
                      "which copy Python imports is unknown: {} name editable installs of {} ({}), "
                      "and how one of them is put on the import path (a .pth path line or an "
                      "__editable__ finder) was not found",
                      site, name, roots);
        for (std::size_t k : ks)
          if (pending_[k].install.not_imported.empty()) pending_[k].install.not_imported = why;
        out_.notes.push_back(site + ": " + why);
        continue;
      }
      const std::string& imported = pending_[*winner].install.root;
      const std::string why =
          best.first == 0   ? "its scikit-build-core finder is inserted first in sys.meta_path, ahead of "
                              "sys.path and any other finder"
          : best.first == 1 ? "easy-install.pth moves its path line to sys.path's front (sys.__egginsert), "
                              "ahead of other .pth path lines and any __editable__ finder"
          : best.first == 2 ? "its .pth path line comes first: .pth files are read in name order, "
                              "and sys.path is searched before any __editable__ finder"
                            : "its __editable__ finder was installed first, and no .pth path line "
                              "names the package";
      for (std::size_t k : ks)
        if (k != *winner && pending_[k].install.not_imported.empty())
          pending_[k].install.not_imported = fmt::format(
              "Python imports {} instead (another editable install of {} named in {}: {})", imported,
              name, site, why);
      out_.notes.push_back(fmt::format(
          "{}: {} editable installs of {} ({}): Python imports {} ({}); the others' fixes read unknown",
          site, ks.size(), name, roots, imported, why));
    }
  }

  /// Which copy `import` loads where a site-packages naming an editable install also holds a
  /// package folder of its project (a stale folder an old wheel left, listed by no RECORD of
  /// the editable install). Python's order (checked with CPython 3.11 and setuptools' own
  /// finder template): sys.path holds site-packages before the path lines of its .pth files,
  /// and setuptools' __editable__ finder is appended to sys.meta_path, after the path finder.
  /// So a regular package (with __init__.py) in site-packages is imported whatever the
  /// editable install; a folder without __init__.py is a namespace portion, which loses to a
  /// regular package found later on sys.path (a .pth path line) but is what a finder-only
  /// install gets. The copy imported is judged: a site-packages folder as a distribution
  /// install of site-packages (created when no dist-info made one); the copy not imported gets
  /// Install::not_imported; when the editable install's way in is not known (direct_url.json
  /// or .egg-link alone) and the folder is a namespace portion, both say it is unknown.
  void import_order() {
    const std::size_t count = pending_.size();  // distribution() may add installs
    for (std::size_t k = 0; k < count; ++k) {
      if (pending_[k].install.kind != InstallKind::kEditable) continue;
      const std::map<std::string, FoundInstall::Reach> reach = pending_[k].reach;
      for (const auto& [site, how] : reach) {
        for (const std::string& name : package_names(pending_[k].install)) {
          const std::string folder = join(site, name);
          if (!is_dir(folder)) continue;
          const bool regular = type_at(inside(folder), "__init__.py") == Entry::Type::kFile;
          std::string dist = pending_[k].install.distribution;
          if (dist.empty()) dist = normalize_distribution_name(name);
          if (!wanted(dist)) continue;
          const std::string key = "dist:" + site + "\n" + dist;
          const auto existing = source_index_.find(key);
          const std::string source = pending_[k].install.root;
          if (const auto changed = path_changing_pth_.find(site); changed != path_changing_pth_.end()) {
            const std::string why = fmt::format(
                "which copy Python imports is unknown: {} and the editable install at {} both "
                "hold {}, and {} runs an import line that may change sys.path",
                folder, source, name, changed->second);
            pending_[k].install.not_imported = why;
            if (existing != source_index_.end()) pending_[existing->second].install.not_imported = why;
            out_.notes.push_back(folder + ": " + why);
          } else if (how == FoundInstall::Reach::kFirstFinder) {
            // scikit-build-core's finder is first in sys.meta_path: it wins over sys.path.
            if (existing != source_index_.end())
              pending_[existing->second].install.not_imported = fmt::format(
                  "Python imports the editable source {} instead (its scikit-build-core finder is "
                  "inserted first in sys.meta_path, before sys.path is searched)",
                  source);
            out_.notes.push_back(fmt::format(
                "{}: a package folder beside the editable install at {}; Python imports the source "
                "(its scikit-build-core finder is inserted first in sys.meta_path)",
                folder, source));
          } else if (how == FoundInstall::Reach::kFrontPathLine) {
            // easy-install.pth moved the source's path line before site-packages: it wins.
            if (existing != source_index_.end())
              pending_[existing->second].install.not_imported = fmt::format(
                  "Python imports the editable source {} instead (its easy-install.pth path line is "
                  "moved before site-packages: sys.__egginsert)",
                  source);
            out_.notes.push_back(fmt::format(
                "{}: a package folder beside the editable install at {}; Python imports the source "
                "(easy-install.pth moves its path line before site-packages: sys.__egginsert)",
                folder, source));
          } else if (regular || how == FoundInstall::Reach::kFinder) {
            // The site-packages copy is imported.
            std::size_t at;
            if (existing != source_index_.end()) {
              at = existing->second;
            } else {
              at = distribution(site, folder, dist, "");
              pending_[at].install.metadata_versions.clear();
            }
            pending_[k].install.not_imported = fmt::format(
                "Python imports {} instead ({}, found on sys.path before {})", folder,
                regular ? "a package folder in site-packages" : "a namespace package folder in site-packages",
                how == FoundInstall::Reach::kFinder ? "this install's __editable__ finder"
                : how == FoundInstall::Reach::kPathLine ? "this install's .pth path line"
                                                        : "any editable install's path or finder");
            out_.notes.push_back(fmt::format(
                "{}: a {}package folder in site-packages that shadows the editable install at {}: "
                "Python imports the site-packages copy; remove it (or reinstall) to use the source",
                folder, regular ? "" : "namespace (no __init__.py) ", source));
          } else if (how == FoundInstall::Reach::kPathLine) {
            // A namespace portion loses to the source's regular package.
            if (existing != source_index_.end())
              pending_[existing->second].install.not_imported = fmt::format(
                  "{} has no __init__.py: Python imports the editable source {} (a .pth path line)",
                  folder, source);
            out_.notes.push_back(fmt::format(
                "{}: a folder without __init__.py beside the editable install at {}; Python "
                "imports the source (a regular package later on sys.path wins over a namespace "
                "portion)",
                folder, source));
          } else {
            const std::string why = fmt::format(
                "which copy Python imports is unknown: {} is a folder without __init__.py (a "
                "namespace portion) and how the editable install at {} is put on the import "
                "path (a .pth path line, which wins, or an __editable__ finder, which loses) was "
                "not found",
                folder, source);
            pending_[k].install.not_imported = why;
            if (existing != source_index_.end()) pending_[existing->second].install.not_imported = why;
            out_.notes.push_back(folder + ": " + why);
          }
        }
      }
    }
  }

  /// The installs of packages that a .pth import line redirects (redirects_): each install
  /// reached from that site-packages (a distribution there; an editable install one of its .pth
  /// files or metadata names) one of whose top-level packages is redirected gets
  /// Install::not_imported (its fixes read unknown), whatever import_order() and
  /// editable_order() said.
  void redirected() {
    for (auto& [key, index] : source_index_) {
      FoundInstall& f = pending_[index];
      std::vector<std::string> sites;
      if (starts_with(key, "dist:")) sites.push_back(key.substr(5, key.find('\n') - 5));
      for (const auto& site_reach : f.reach) sites.push_back(site_reach.first);
      const std::set<std::string> names = package_names(f.install);
      for (const std::string& site : sites) {
        const auto it = redirects_.find(site);
        if (it == redirects_.end()) continue;
        for (const Redirect& r : it->second)
          for (const std::string& name : names)
            if (r.packages.count(name) != 0) f.install.not_imported = r.why;
      }
    }
  }

  /// A distribution installed in `site` (not editable): its files are in `site`.
  std::size_t distribution(const std::string& site, const std::string& found_by,
                           const std::string& dist, const std::string& version) {
    const std::string key = "dist:" + site + "\n" + dist;
    FoundInstall& f = install_for(key);
    Install& i = f.install;
    i.kind = InstallKind::kDistribution;
    i.root = shown(site);
    i.distribution = dist;
    if (i.version.empty()) i.version = version;
    f.files = inside(site);
    for (const std::string& p : dist_projects_[dist]) add_project(i, p);
    i.found_by.push_back(found_by);
    i.metadata_versions.push_back(version);
    return source_index_[key];
  }

  /// A distribution with several metadata folders in one site-packages (an upgrade or
  /// uninstall that stopped half-way): keeps every folder's version, leaves `version` empty
  /// when they differ (no guess: which one pip and importlib.metadata report depends on the
  /// directory's order), and says so in a note naming the folders.
  void ambiguous_metadata(Install& i) {
    if (i.kind != InstallKind::kDistribution || i.found_by.size() < 2) {
      i.metadata_versions.clear();
      return;
    }
    std::string folders;
    bool differ = false;
    for (std::size_t k = 0; k < i.found_by.size(); ++k) {
      const std::string& v = i.metadata_versions[k];
      differ = differ || version_key(v) != version_key(i.metadata_versions.front());
      const std::size_t slash = i.found_by[k].rfind('/');
      folders += fmt::format("{}{}: {}", k == 0 ? "" : "; ",
                             i.found_by[k].substr(slash == std::string::npos ? 0 : slash + 1),
                             v.empty() ? "no version" : v);
    }
    if (differ) i.version.clear();
    out_.notes.push_back(fmt::format(
        "{}: {} metadata folders of {} ({}), left by an upgrade or uninstall that did not "
        "finish: {}; its files are judged as they are",
        i.root, i.found_by.size(), i.distribution, folders,
        differ ? "the version is ambiguous (pip and importlib.metadata report whichever the "
                 "directory lists first), none is assumed"
               : "one version"));
  }

  /// "name-version" split at the first "-" of a .dist-info / .egg-info / __editable__ stem.
  static std::pair<std::string, std::string> name_and_version(std::string_view stem) {
    const std::size_t dash = stem.find('-');
    if (dash == std::string_view::npos) return {std::string(stem), ""};
    std::string_view version = stem.substr(dash + 1);
    version = version.substr(0, version.find('-'));  // egg-info: name-ver-pyX.Y
    return {std::string(stem.substr(0, dash)), std::string(version)};
  }

  bool wanted(const std::string& dist) const { return dist_projects_.count(dist) != 0; }

  /// A site-packages directory: its distributions of the catalog, their editable installs, and
  /// .pth path lines.
  void site_packages(const std::string& site, const std::vector<Tree::DirEntry>& list) {
    std::set<std::string> editable_dists;  // named by a dist-info's direct_url.json
    sites_.push_back(site);
    // Distributions first: a dist-info names its editable source in direct_url.json.
    for (const Tree::DirEntry& e : list) {
      const bool dist_info =
          ends_with_any_case(e.name, ".dist-info") && e.type == Entry::Type::kDirectory;
      const bool egg_info = ends_with_any_case(e.name, ".egg-info") &&
                            (e.type == Entry::Type::kDirectory || e.type == Entry::Type::kFile);
      if (!dist_info && !egg_info) continue;
      const std::string stem = e.name.substr(0, e.name.size() - (dist_info ? 10 : 9));
      auto [name, version] = name_and_version(stem);
      std::string dist = normalize_distribution_name(name);
      std::optional<std::size_t> install;
      bool is_editable = false;
      if (wanted(dist)) {
        const std::string dir = join(site, e.name);
        const std::string meta_path = dist_info ? join(dir, "METADATA")
                                      : e.type == Entry::Type::kDirectory ? join(dir, "PKG-INFO")
                                                                          : dir;
        if (const std::optional<std::string> meta = read_at(inside(""), meta_path, kRecordFileCap,
                    "the version is the folder name's")) {
          if (std::string n = metadata_field(*meta, "Name"); !n.empty()) name = n;
          if (std::string v = metadata_field(*meta, "Version"); !v.empty()) version = v;
        }
        dist = normalize_distribution_name(name);
        if (wanted(dist)) {
          std::optional<std::string> source;
          if (dist_info) source = editable_source(join(dir, "direct_url.json"));
          if (source) {
            editable_dists.insert(dist);
            editable(site, join(dir, "direct_url.json"), dist, version, *source,
                     FoundInstall::Reach::kUnknown, 0, top_level_names(dir));
            is_editable = true;
          } else {
            install = distribution(site, dir, dist, version);
          }
        }
      }
      // An editable install's objects are in its source tree (source_tree_objects()).
      if (options_.kernels && !is_editable)
        distribution_objects(site, list, e, dist, version, install);
    }
    for (const Tree::DirEntry& e : list) {
      if (e.type != Entry::Type::kFile) continue;
      const std::string path = join(site, e.name);
      if (ends_with(e.name, ".egg-link")) {
        const std::string dist = normalize_distribution_name(e.name.substr(0, e.name.size() - 9));
        if (!wanted(dist)) continue;
        const std::optional<std::string> text =
            read_at(inside(""), path, kPointerFileCap, "the source tree it points to is not read",
                    Unread::kInstallList);
        if (!text) continue;
        const std::string first(trim_view(std::string_view(*text).substr(0, text->find('\n'))));
        if (!first.empty()) editable(site, path, dist, "", first, FoundInstall::Reach::kUnknown);
      } else if (ends_with(e.name, ".pth")) {
        pth(site, e.name, editable_dists);
      }
    }
  }

  /// The source directory of an editable install from its direct_url.json (PEP 610:
  /// dir_info.editable true and a file:// url), or std::nullopt.
  std::optional<std::string> editable_source(const std::string& path) const {
    const std::optional<std::string> text = read_at(
        inside(""), path, kPointerFileCap,
        "the distribution is taken as installed here, an editable source it names is not read",
        Unread::kInstallList);
    if (!text) return std::nullopt;
    if (!json_depth_within(*text, kJsonDepthCap)) {
      size_notes_.push_back(fmt::format(
          "{}: nested deeper than {} levels; not read: the distribution is taken as installed "
          "here, an editable source it names is not read",
          shown(path), kJsonDepthCap));
      out_.walk.not_read.push_back(
          fmt::format("{}: nested deeper than {} levels", shown(path), kJsonDepthCap));
      return std::nullopt;
    }
    const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
    if (!doc.is_object() || !doc.contains("url") || !doc["url"].is_string() ||
        !doc.contains("dir_info") || !doc["dir_info"].is_object() ||
        doc["dir_info"].value("editable", false) != true)
      return std::nullopt;
    const std::string url = doc["url"].get<std::string>();
    if (!starts_with(url, "file://")) return std::nullopt;
    std::string path_part = url.substr(7);
    if (!starts_with(path_part, "/")) path_part = path_part.substr(std::min(path_part.find('/'), path_part.size()));  // file://host/path
    return percent_decode(path_part);
  }

  /// The Python version (major, minor) of site-packages folder `site` (relative to TARGET):
  /// the last "pythonX.Y" component of its real path ("lib/python3.13t/site-packages" is 3.13);
  /// std::nullopt when none names it (Debian's /usr/lib/python3/dist-packages, a --target folder).
  std::optional<std::pair<int, int>> site_python_version(const std::string& site) const {
    std::optional<std::pair<int, int>> version;
    const std::string real = join(target_real_, site);
    std::size_t at = 0;
    while (at < real.size()) {
      std::size_t slash = real.find('/', at);
      if (slash == std::string::npos) slash = real.size();
      const std::string c = real.substr(at, slash - at);
      at = slash + 1;
      if (!starts_with(c, "python")) continue;
      const auto number = [&c](std::size_t& k) {
        int n = -1;
        for (int digits = 0; k < c.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(c[k])) != 0;
             ++k, ++digits)
          n = (n < 0 ? 0 : n * 10) + (c[k] - '0');
        return n;
      };
      std::size_t k = 6;
      const int major = number(k);
      if (major < 0 || k >= c.size() || c[k] != '.') continue;
      ++k;
      const int minor = number(k);
      if (minor >= 0) version = std::make_pair(major, minor);
    }
    return version;
  }

  /// Calls `f(const PthLine&)` for each line of .pth file `path` (`text`, in `site`) that
  /// site.addpackage() acts on, read as the Python of `site` reads it (for_each_pth_line(): 3.13
  /// changed the reading; the version from site_python_version(), both readings when it is not
  /// known). A file not UTF-8: no line, a note and an entry in WalkStats::not_read.
  template <class F>
  void for_each_pth_file_line(const std::string& site, const std::string& path, const std::string& text, F&& f) {
    const std::optional<std::pair<int, int>> version = site_python_version(site);
    std::optional<PthReading> reading;
    if (version) reading = *version >= std::make_pair(3, 13) ? PthReading::kSplitLines : PthReading::kTextIo;
    if (for_each_pth_line(text, reading, f)) return;
    out_.walk.not_read.push_back(fmt::format("{}: not UTF-8", path));
    out_.notes.push_back(fmt::format(
        "{}: not UTF-8 (Python in a UTF-8 locale then fails to start: UnicodeDecodeError in "
        "site.py); its lines are not read",
        path));
  }

  /// Records, once per .pth file `path` (in `site`), that a line some Python versions read and
  /// others do not acts (puts something on sys.path, or runs), while the Python version of
  /// `site` is not known: a note and an entry in WalkStats::not_read. `hidden`: the file's name
  /// starts with "." (CPython skips it since gh-113659: 3.13, and the 3.8 to 3.12 patch releases
  /// of early 2024, 3.12.2 and 3.11.8 among them); else its lines are read differently by 3.13.
  void uncertain_pth_line(const std::string& site, const std::string& path, bool hidden) {
    const std::string entry =
        hidden ? fmt::format("{}: a .pth named with a leading '.', which only some Python versions read", path)
               : fmt::format("{}: Python 3.13 and earlier versions read its lines differently; which "
                             "Python reads it is not known",
                             path);
    if (std::find(out_.walk.not_read.begin(), out_.walk.not_read.end(), entry) != out_.walk.not_read.end())
      return;
    out_.walk.not_read.push_back(entry);
    out_.notes.push_back(
        hidden ? fmt::format("{}: its name starts with '.': CPython 3.13 and the patch releases since early "
                             "2024 (3.12.2, 3.11.8: gh-113659) skip it, earlier ones read it, and which release "
                             "reads {} is not known: what it puts on the import path is taken as perhaps "
                             "imported",
                             path, shown(site))
               : fmt::format("{}: Python 3.13 reads its lines differently from earlier versions (a "
                             "byte-order mark, or a line break other than \\n and \\r), and the Python "
                             "version of {} is not known: what a line only one of them reads puts on the "
                             "import path is taken as perhaps imported",
                             path, shown(site)));
  }

  /// Where path `rel` of TARGET leads with each symlink on the way followed, as the kernel
  /// follows them: a link's text against the folder holding it (resolve(): an absolute one
  /// inside TARGET when TARGET is a root file system), kMaxSymlinkHops links at most. A
  /// component that does not exist ends the following.
  struct Followed {
    std::string rel;  ///< the real path, relative to TARGET, when `why` is empty
    std::string why;  ///< why the path was not followed: a link leading outside TARGET, a loop
    bool nothing = false;  ///< a link leads outside TARGET to nothing that exists
  };
  Followed follow_links(const std::string& rel) const {
    Followed f;
    std::vector<std::string> rest;  // components still to follow, the next one last
    const auto push = [&rest](const std::string& path) {
      std::vector<std::string> parts;
      std::size_t at = 0;
      while (at < path.size()) {
        std::size_t slash = path.find('/', at);
        if (slash == std::string::npos) slash = path.size();
        if (slash > at) parts.push_back(path.substr(at, slash - at));
        at = slash + 1;
      }
      rest.insert(rest.end(), parts.rbegin(), parts.rend());
    };
    push(rel);
    std::string done;
    for (int hops = 0; !rest.empty();) {
      const std::string next = join(done, rest.back());
      rest.pop_back();
      if (type_at(inside(""), next) != Entry::Type::kSymlink) {
        done = next;
        continue;
      }
      if (++hops > kMaxSymlinkHops) {
        f.why = fmt::format("over {} symlinks (a loop)", kMaxSymlinkHops);
        return f;
      }
      std::string text;
      try {
        text = tree_.read_link(next);
      } catch (const Error& e) {
        f.why = e.what();
        return f;
      }
      const Pointer p = text.empty() ? Pointer{} : resolve(text, done);
      if (text.empty() || !p.inside) {
        struct stat st {};
        f.why = fmt::format("symlink {} -> {} leads outside TARGET", next, text);
        f.nothing = text.empty() || ::stat(p.abs.c_str(), &st) != 0;
        return f;
      }
      done.clear();
      push(p.rel);
    }
    f.rel = done;
    return f;
  }

  /// Where .pth path line `line` of `found_by` (in `site`) puts sys.path, as site.addpackage()
  /// does: joined to `site` and kept only when it exists (`os.path.exists()`, which follows
  /// symlinks). Inside TARGET each symlink on the way is followed (follow_links()) and the line
  /// judged at its real path; a symlink leading outside TARGET to something that exists, a
  /// loop or an unreadable link is not followed: a note and an entry in WalkStats::not_read.
  /// std::nullopt when Python skips the line or it is not followed.
  std::optional<Pointer> path_line(const std::string& site, const std::string& found_by,
                                   const std::string& line) {
    if (line.find('\0') != std::string::npos) return std::nullopt;  // os.path.exists(): False
    Pointer p = resolve(line, site);
    if (!p.inside) {
      struct stat st {};
      if (::stat(p.abs.c_str(), &st) != 0) return std::nullopt;
      return p;
    }
    const Followed f = follow_links(p.rel);
    if (!f.why.empty()) {
      if (f.nothing) return std::nullopt;  // Python skips it too
      out_.walk.not_read.push_back(fmt::format("{}: the path line '{}': {}", found_by, line, f.why));
      out_.notes.push_back(fmt::format(
          "{}: the path line '{}' is not followed: {}; what Python imports from it is not "
          "reported (scan its target)",
          found_by, line, f.why));
      return std::nullopt;
    }
    if (!f.rel.empty() && type_at(inside(""), f.rel) == Entry::Type::kMissing) return std::nullopt;
    p.rel = f.rel;
    return p;
  }

  /// `p` written as a pointer that resolve() reads back as `p` (an absolute path).
  std::string pointer_text(const Pointer& p) const { return p.inside ? join(target_real_, p.rel) : p.abs; }

  /// Whether .pth import line `line` (of the .pth named `name`) is one whose effect on the
  /// import path is known, so that it leaves sys.path as the path lines make it: setuptools'
  /// `__editable__` finder (`import __editable___X_finder; __editable___X_finder.install()`,
  /// modelled: FoundInstall::Reach::kFinder), its `distutils-precedence.pth` (a distutils shim),
  /// virtualenv's `import _virtualenv`, setuptools' `*-nspkg.pth` namespace-package lines
  /// (`import sys, types, os;...`: they extend the `__path__` of the namespace packages they
  /// name, not sys.path) and easy-install.pth's `sys.__plen` line (its `sys.__egginsert` line
  /// is modelled where it pairs with one: egg_insert_lines()). Any other import line runs code
  /// that may change sys.path.
  static bool known_import_line(std::string_view name, std::string_view line) {
    const std::string_view code = trim_view(line);
    if (starts_with(name, "__editable__.") && starts_with(code, "import __editable___")) {
      const std::size_t semi = code.find(';');
      const std::string_view module = trim_view(code.substr(7, semi - 7));
      return semi != std::string_view::npos && ends_with(module, "_finder") &&
             trim_view(code.substr(semi + 1)) == fmt::format("{}.install()", module);
    }
    if (code == "import _virtualenv") return true;
    // easy-install.pth's first line only notes sys.path's length (its last line: egg_insert_lines()).
    if (code == "import sys; sys.__plen = len(sys.path)") return true;
    if (name == "distutils-precedence.pth")
      for (std::string_view dflt : {"local", "stdlib"})
        if (code == fmt::format("import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, "
                                "'{}') == 'local'; enabled and __import__('_distutils_hack').add_shim();",
                                dflt))
          return true;
    return ends_with(name, "-nspkg.pth") && starts_with(code, "import sys, types, os;") &&
           code.find("sys.path") == std::string_view::npos;
  }

  /// Records that .pth `path` (in `site`) runs import line `line`, which may change sys.path
  /// (import_line(): `why`): once per file, a note and an entry in WalkStats::not_read (the
  /// walk is incomplete: what Python imports is not known), and `site` in path_changing_pth_.
  void path_changing_import_line(const std::string& site, const std::string& path, std::string_view line,
                                 const std::string& why) {
    path_changing_pth_.try_emplace(site, path);
    const std::string entry =
        fmt::format("{}: runs an import line that may change sys.path (not evaluated)", path);
    if (std::find(out_.walk.not_read.begin(), out_.walk.not_read.end(), entry) != out_.walk.not_read.end())
      return;
    out_.walk.not_read.push_back(entry);
    std::string shown_line(line.substr(0, 120));
    if (line.size() > 120) shown_line += "...";
    out_.notes.push_back(fmt::format(
        "{}: Python runs its import line '{}' at start-up, which may change sys.path ({}); "
        "sm120check does not run it, so which copy "
        "of a package the Python of {} imports is not known: the installs there are reported as "
        "found, the walk is incomplete",
        path, shown_line, why, shown(site)));
  }

  /// The text of module `module` (dotted) as `site` holds it: `A/B.py` or `A/B/__init__.py`
  /// below `site`, with the path read in `file`; std::nullopt when `site` holds neither (the
  /// module is then the standard library's, or not there: see import_line()). `why` is set
  /// when the file is there but not read (over its cap).
  std::optional<std::string> site_module(const std::string& site, const std::string& module,
                                         std::string& file, std::string& why) const {
    std::string rel = module;
    std::replace(rel.begin(), rel.end(), '.', '/');
    for (const std::string& candidate : {rel + ".py", rel + "/__init__.py"}) {
      file = join(site, candidate);
      if (type_at(inside(""), file) != Entry::Type::kFile) continue;
      std::optional<std::string> text = read_at(inside(""), file, kListFileCap,
                                                "what the .pth import line naming it does is not known");
      if (!text) why = "not read (over its size cap)";
      return text;
    }
    file.clear();
    return std::nullopt;
  }

  /// Acts on import line `line` (rank `rank` in Python's order) of .pth `path`, named `name`,
  /// in `site`, which known_import_line() does not know: what it does to where packages are
  /// imported from is read from its code and from the modules it imports that `site` holds
  /// (read_import_line(), site_module()), without running anything. In this order:
  /// - a module that is an editable finder whose mapping is a literal is modelled: the install
  ///   is reported at the folder the mapping names (editables' `_editable_impl_NAME`:
  ///   `F.map_module('pkg', '/src/pkg/__init__.py')`, appended to sys.meta_path:
  ///   Reach::kFinder; scikit-build-core's `_NAME_editable` / `_editable_skbc_NAME`: the
  ///   `install({'pkg': '/src/pkg/__init__.py', ...}, ...)` call that ends it, inserted first in
  ///   sys.meta_path: Reach::kFirstFinder);
  /// - a module of kStartupHooks, or meson-python's `_NAME_editable_loader` (its `install({'pkg'},
  ///   build_dir, ...)` serves pkg from a build folder it rebuilds: not read), redirects the
  ///   packages it names: the installs of those packages reached from `site` read unknown
  ///   (redirects_), a note; the walk stays complete;
  /// - code that names an import-path hook (kImportPathHooks) in the line or in a module
  ///   `site` holds that it imports, or that the text does not show (exec() of a non-literal,
  ///   a module over its cap): path_changing_import_line() (the walk is incomplete);
  /// - any other line (coverage's a1_coverage.pth, a CA-bundle hook) is taken as not changing
  ///   where packages are imported from: a note.
  /// A module `site` does not hold is taken as the standard library's (or absent: Python
  /// prints the ImportError and goes on); its code is not searched.
  void import_line(const std::string& site, const std::string& path, const PthLine& line, std::size_t rank) {
    const ImportLineCode code = read_import_line(line.text);
    std::string shown_line(line.text.substr(0, 120));
    if (line.text.size() > 120) shown_line += "...";
    std::string unknown;  // why the line may change sys.path
    if (!code.dynamic.empty()) unknown = fmt::format("it runs code its text does not hold ({})", code.dynamic);
    if (const std::string_view hook = import_path_hook_in(line.text); unknown.empty() && !hook.empty())
      unknown = fmt::format("its code uses {}", hook);
    std::vector<std::string> redirected;  // import names it redirects
    std::vector<std::string> redirect_what;
    std::vector<std::string> searched;  // modules read
    bool modelled = false;
    for (const std::string& module : code.modules) {
      const std::string top = module.substr(0, module.find('.'));
      const auto hook = std::find_if(std::begin(kStartupHooks), std::end(kStartupHooks),
                                     [&top](const StartupHook& h) { return h.module == top; });
      if (hook != std::end(kStartupHooks)) {
        for (std::size_t at = 0; at < hook->packages.size();) {
          std::size_t end = hook->packages.find(' ', at);
          if (end == std::string_view::npos) end = hook->packages.size();
          redirected.emplace_back(hook->packages.substr(at, end - at));
          at = end + 1;
        }
        redirect_what.emplace_back(hook->what);
        continue;
      }
      const ModuleVerdict& v = module_verdict(site, module, top, rank, line.uncertain);
      if (v.file.empty()) continue;  // the standard library's, or absent
      if (unknown.empty()) unknown = v.unknown;
      modelled = modelled || v.modelled;
      redirected.insert(redirected.end(), v.redirected.begin(), v.redirected.end());
      if (!v.redirected.empty()) redirect_what.push_back(v.what);
      if (!v.modelled && v.redirected.empty()) searched.push_back(shown(v.file));
    }
    if (!unknown.empty()) return path_changing_import_line(site, path, line.text, unknown);
    if (!redirected.empty()) {
      std::sort(redirected.begin(), redirected.end());
      redirected.erase(std::unique(redirected.begin(), redirected.end()), redirected.end());
      std::string names, what;
      for (const std::string& n : redirected) names += (names.empty() ? "" : ", ") + n;
      for (const std::string& w : redirect_what) what += (what.empty() ? "" : "; ") + w;
      const std::string why = fmt::format(
          "{} runs an import line that redirects the import of {}: {}; which copy Python imports is not "
          "known",
          path, names, what);
      if (!hook_noted_.insert(path + "\n" + why).second) return;  // once per file and redirect
      redirects_[site].push_back(Redirect{std::set<std::string>(redirected.begin(), redirected.end()), why});
      const bool catalog = std::any_of(redirected.begin(), redirected.end(), [this](const std::string& n) {
        return std::any_of(layout_.begin(), layout_.end(), [&n](const auto& project) {
          return project.second.count(n + "/__init__.py") != 0;
        });
      });
      out_.notes.push_back(fmt::format(
          "{}: Python runs its import line '{}' at start-up: {}; {}; other packages are not affected", path,
          shown_line, what,
          catalog ? fmt::format("the installs of {} that {} reaches read unknown (where Python imports them "
                                "from is not read)",
                                names, shown(site))
                  : fmt::format("no catalog entry judges {}", names)));
      return;
    }
    if (modelled || !hook_noted_.insert(path).second) return;  // one note per file
    std::string modules;
    for (const std::string& m : searched) modules += (modules.empty() ? "" : ", ") + m;
    out_.notes.push_back(fmt::format(
        "{}: Python runs its import line '{}' at start-up; {} where packages are imported from "
        "(sys.path, sys.meta_path, sys.modules, ...): taken as not changing it",
        path, shown_line,
        modules.empty()
            ? fmt::format("it imports no module that {} holds, and its code names no way to change", shown(site))
            : fmt::format("neither its code nor the modules it imports from {} ({}) name a way to change",
                          shown(site), modules)));
  }

  /// What importing module `module` (dotted; top-level name `top`) from .pth import line of
  /// rank `rank` in `site` does (import_line()), once per site and module: a .pth naming one
  /// module on many lines reads it once.
  struct ModuleVerdict {
    std::string file;     ///< the module's file in `site`; "" when `site` holds none
    bool modelled = false;  ///< an editable finder whose mapping was read (editable_finder())
    std::vector<std::string> redirected;  ///< the import names it redirects
    std::string what;     ///< with `redirected`: what redirects them
    std::string unknown;  ///< why it may change sys.path; "" when it names no hook
  };
  const ModuleVerdict& module_verdict(const std::string& site, const std::string& module, const std::string& top,
                                      std::size_t rank, bool uncertain) {
    const auto [it, added] = module_verdicts_.try_emplace(site + "\n" + module);
    ModuleVerdict& v = it->second;
    if (!added) return v;
    std::string why;
    const std::optional<std::string> text = site_module(site, module, v.file, why);
    if (v.file.empty()) return v;
    if (!text) {
      v.unknown = fmt::format("it imports {}, {}", shown(v.file), why);
    } else if (editable_finder(site, v.file, *text, top, rank, uncertain)) {
      v.modelled = true;
    } else if (std::size_t at = last_install_call(*text);
               text->find("MesonpyMetaFinder") != std::string::npos && at != std::string::npos) {
      // meson-python (mesonpy/__init__.py, _editable_loader.py): install(names, build_path,
      // build_cmd, ...) ends the module and inserts its finder first in sys.meta_path.
      if (const std::optional<std::vector<std::string>> names = python_string_set(*text, at); names && !names->empty()) {
        v.redirected = *names;
        v.what = fmt::format(
            "meson-python's editable loader {} (a finder first on sys.meta_path that imports them from "
            "the build folder it rebuilds; not read)",
            shown(v.file));
      }
    }
    if (text && !v.modelled && v.redirected.empty())
      if (const std::string_view hook = import_path_hook_in(*text); !hook.empty())
        v.unknown = fmt::format("it imports {}, whose code uses {}", shown(v.file), hook);
    return v;
  }

  /// Where module text `text` (file `file` of `site`, imported as top-level `module` by a .pth
  /// import line of rank `rank`) is an editable finder whose mapping is a literal (import_line()):
  /// the installs its mapping names are reported (editable()); true when it is one (modelled,
  /// even where the mapping names no catalog project).
  bool editable_finder(const std::string& site, const std::string& file, const std::string& text,
                       const std::string& module, std::size_t rank, bool uncertain) {
    using Reach = FoundInstall::Reach;
    std::vector<std::pair<std::string, std::string>> mapping;  // top-level name -> its file or folder
    Reach how = Reach::kFinder;
    std::string dist;
    if (starts_with(module, "_editable_impl_") &&
        text.find("from editables.redirector import RedirectingFinder as F") != std::string::npos) {
      // editables (pfmoore/editables, src/editables/__init__.py, bootstrap_file()): one
      // `F.map_module(name, path)` line per package after `F.install()` (appended to sys.meta_path).
      dist = module.substr(15);
      for (std::size_t at = text.find("F.map_module("); at != std::string::npos;
           at = text.find("F.map_module(", at)) {
        at += 13;
        std::optional<std::string> name = python_string(text, at);
        skip_python_space(text, at);
        if (!name || at >= text.size() || text[at] != ',') return false;
        std::optional<std::string> target = python_string(text, ++at);
        if (!target) return false;
        mapping.emplace_back(std::move(*name), std::move(*target));
      }
    } else if (text.find("class ScikitBuildRedirectingFinder") != std::string::npos) {
      // scikit-build-core (src/scikit_build_core/build/_editable.py, editable_redirect(): the
      // resource _editable_redirect.py and `install(known_source_files, known_wheel_files, ...)`;
      // install() inserts the finder at sys.meta_path[0]): module names -> source files.
      if (starts_with(module, "_editable_skbc_")) dist = module.substr(15);
      else if (starts_with(module, "_") && ends_with(module, "_editable")) dist = module.substr(1, module.size() - 10);
      std::size_t at = last_install_call(text);
      if (at == std::string::npos) return false;
      const auto modules = python_string_dict(text, at);
      if (!modules) return false;
      for (const auto& [name, target] : *modules)
        if (name.find('.') == std::string::npos) mapping.emplace_back(name, target);
      how = Reach::kFirstFinder;
    } else {
      return false;
    }
    dist = normalize_distribution_name(dist);
    if (!wanted(dist)) dist.clear();
    for (const auto& [name, target] : mapping) {
      if (!package_name(name) || target.empty() || target.front() != '/') continue;
      // A package's file is its __init__.py: the source root holds its folder.
      std::filesystem::path where(target);
      if (where.filename() == "__init__.py") where = where.parent_path();
      editable(site, file, dist, "", where.parent_path().string(), uncertain ? Reach::kUnknown : how, rank,
               {name});
    }
    return true;
  }

  /// A .pth file: `__editable__.NAME-VER.pth` (setuptools' PEP 660 editable install: a path
  /// line, or an import of its finder module, whose MAPPING gives the package's folder), or any
  /// other .pth, whose path lines (not `import` lines) are sys.path entries. Lines are read as
  /// site.addpackage() reads them (for_each_pth_file_line(), path_line()).
  void pth(const std::string& site, const std::string& name, const std::set<std::string>& done) {
    const std::string path = join(site, name);
    const std::optional<std::string> text =
        read_at(inside(""), path, kListFileCap, "the source trees it points to are not read",
                Unread::kInstallList);
    if (!text) return;
    std::string dist, version;
    if (starts_with(name, "__editable__.")) {
      std::tie(dist, version) = name_and_version(name.substr(13, name.size() - 13 - 4));
      dist = normalize_distribution_name(dist);
      if (!wanted(dist)) return;
    }
    // A name starting with "." is skipped by site.addsitedir() since gh-113659 (3.13.0; patch
    // releases of 3.8 to 3.12 from early 2024): for 3.12 and earlier, or an unknown version,
    // whether it is read is not known.
    const bool hidden = name.front() == '.';
    if (hidden) {
      const std::optional<std::pair<int, int>> v = site_python_version(site);
      if (v && *v >= std::make_pair(3, 13)) return;
    }
    // A path line naming what an earlier line of the file named changes nothing: site.py skips
    // a path already in sys.path (known_paths, after makepath()'s normalisation). Skipped here
    // before any look at the disk, so the work is linear in the file (2 million lines "/" took
    // minutes).
    std::unordered_set<std::string> named;
    const auto repeated = [&](const PthLine& line) {
      if (line.import) return false;
      std::string key = (std::filesystem::path(site) / std::string(line.text)).lexically_normal().string();
      while (key.size() > 1 && key.back() == '/') key.pop_back();  // os.path.normpath("a/") is "a"
      key += line.uncertain ? "\n?" : "\n";
      return !named.insert(std::move(key)).second;
    };
    if (done.count(dist) != 0) {  // its dist-info's direct_url.json said where; this says how
      bool finder = false, path_line_seen = false;
      std::size_t finder_rank = 0, path_rank = 0;
      for_each_pth_file_line(site, path, *text, [&](const PthLine& line) {
        const std::size_t rank = ++pth_lines_;
        if (line.import && !known_import_line(name, line.text)) import_line(site, path, line, rank);
        if (repeated(line)) return;
        if (!line.import && !path_line(site, path, std::string(line.text))) return;  // not on sys.path
        if (line.uncertain || hidden) return uncertain_pth_line(site, path, hidden);  // the way in stays as known
        if (line.import && !finder) finder_rank = rank;
        if (!line.import && !path_line_seen) path_rank = rank;
        (line.import ? finder : path_line_seen) = true;
      });
      const FoundInstall::Reach how = path_line_seen ? FoundInstall::Reach::kPathLine
                                      : finder       ? FoundInstall::Reach::kFinder
                                                     : FoundInstall::Reach::kUnknown;
      for (FoundInstall& f : pending_)
        if (f.install.kind == InstallKind::kEditable && f.install.distribution == dist)
          if (auto it = f.reach.find(site); it != f.reach.end()) {
            it->second = std::max(it->second, how);
            if (path_line_seen) rank_line(f, site, FoundInstall::Reach::kPathLine, path_rank);
            if (finder) rank_line(f, site, FoundInstall::Reach::kFinder, finder_rank);
          }
      return;
    }
    // The classic setuptools easy-install.pth: path lines between its `sys.__plen` line and its
    // `sys.__egginsert` line are moved to the front of sys.path (egg_insert_lines()).
    const std::pair<std::size_t, std::size_t> front = egg_insert_lines(site, *text);
    std::size_t ordinal = 0;
    for_each_pth_file_line(site, path, *text, [&](PthLine line) {
      const std::size_t rank = ++pth_lines_;
      const std::size_t at = ++ordinal;
      const bool moved_first = front.first < at && at < front.second;
      if (line.import && (at == front.first || at == front.second)) return;  // modelled
      if (repeated(line)) return;
      line.uncertain = line.uncertain || hidden;
      // A line only one Python reading has: on the import path perhaps (which copy is imported:
      // unknown).
      const FoundInstall::Reach perhaps = FoundInstall::Reach::kUnknown;
      if (line.import) {
        if (line.uncertain) uncertain_pth_line(site, path, hidden);
        if (!known_import_line(name, line.text)) return import_line(site, path, line, rank);
        if (dist.empty()) return;
        // "import __editable___NAME_finder; __editable___NAME_finder.install()"
        const std::string module = trim(line.text.substr(7, line.text.find(';') - 7));
        if (module.find('/') != std::string::npos || module.empty()) return;
        const std::optional<std::string> finder =
            read_at(inside(""), join(site, module + ".py"), kListFileCap,
                    "the package folder its MAPPING names is not read", Unread::kInstallList);
        if (!finder) return;
        if (std::optional<std::pair<std::string, std::string>> package = first_mapping(*finder)) {
          std::vector<std::string> names;
          if (package_name(package->first)) names.push_back(package->first);
          editable(site, join(site, module + ".py"), dist, version,
                   std::filesystem::path(package->second).parent_path().string(),
                   line.uncertain ? perhaps : FoundInstall::Reach::kFinder, rank, names);
        }
        return;
      }
      const std::optional<Pointer> p = path_line(site, path, std::string(line.text));
      if (!p) return;
      if (line.uncertain) uncertain_pth_line(site, path, hidden);
      if (!zip_on_path(path, *p))
        editable(site, path, dist, version, pointer_text(*p),
                 line.uncertain  ? perhaps
                 : moved_first ? FoundInstall::Reach::kFrontPathLine
                                 : FoundInstall::Reach::kPathLine,
                 rank);
    });
  }

  /// Where .pth `text` (in `site`) holds the classic setuptools easy-install.pth pattern: the
  /// ordinals (1-based, in for_each_pth_line() order) of its `import sys; sys.__plen =
  /// len(sys.path)` line and of the later `import sys; new = sys.path[sys.__plen:]; del
  /// sys.path[sys.__plen:]; p = getattr(sys, '__egginsert', 0); sys.path[p:p] = new;
  /// sys.__egginsert = p + len(new)` line (setuptools' easy_install.py, PthDistributions: the
  /// path lines between them are moved to sys.path's front, before site-packages, each file's
  /// after the earlier files'). {0, 0} when the file holds no such pair, or holds either line
  /// otherwise (those lines are then unknown import lines).
  std::pair<std::size_t, std::size_t> egg_insert_lines(const std::string& site, std::string_view text) const {
    const auto same = [](std::string_view line, std::string_view want) {
      line = trim_view(line);
      if (line.size() != want.size()) return false;
      for (std::size_t k = 0; k < line.size(); ++k)
        if ((line[k] == '"' ? '\'' : line[k]) != want[k]) return false;
      return true;
    };
    static constexpr std::string_view kPlen = "import sys; sys.__plen = len(sys.path)";
    static constexpr std::string_view kInsert =
        "import sys; new = sys.path[sys.__plen:]; del sys.path[sys.__plen:]; p = getattr(sys, "
        "'__egginsert', 0); sys.path[p:p] = new; sys.__egginsert = p + len(new)";
    const std::optional<std::pair<int, int>> version = site_python_version(site);
    std::optional<PthReading> reading;
    if (version) reading = *version >= std::make_pair(3, 13) ? PthReading::kSplitLines : PthReading::kTextIo;
    std::size_t ordinal = 0, plen = 0, insert = 0;
    bool valid = true;
    for_each_pth_line(text, reading, [&](const PthLine& line) {
      ++ordinal;
      if (!line.import) return;
      if (same(line.text, kPlen)) {
        valid = valid && plen == 0;
        plen = ordinal;
      } else if (same(line.text, kInsert)) {
        valid = valid && plen != 0 && insert == 0;
        insert = ordinal;
      }
    });
    if (!valid || plen == 0 || insert == 0) return {0, 0};
    return {plen, insert};
  }

  /// A .pth path line leading to `p` (in `found_by`, path_line()) naming a regular file: a zip
  /// archive on sys.path, which Python's zipimport reads (the egg "NAME-VER-pyX.Y.egg" that
  /// easy_install wrote and named in easy-install.pth, or any .zip). Its contents are not read:
  /// an egg named for a catalog distribution is an install whose fixes read unknown ("installed
  /// as a zip archive; not read"); any other archive but an egg of another distribution goes
  /// to WalkStats::not_read, as it may hold a catalog project. False when `p` is no regular file.
  bool zip_on_path(const std::string& found_by, const Pointer& p) {
    if (p.inside) {
      if (p.rel.empty() || type_at(inside(""), p.rel) != Entry::Type::kFile) return false;
    } else {
      struct stat st {};
      if (::stat(p.abs.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    }
    const std::string where = p.inside ? shown(p.rel) : p.abs;
    const std::string file = base_name(where);
    if (ends_with_any_case(file, ".egg")) {
      auto [name, version] = name_and_version(std::string_view(file).substr(0, file.size() - 4));
      const std::string dist = normalize_distribution_name(name);
      if (!wanted(dist)) return true;  // another distribution's egg
      FoundInstall& f = install_for("zip:" + where);
      Install& i = f.install;
      i.kind = InstallKind::kDistribution;
      i.root = where;
      i.outside_target = !p.inside;
      i.distribution = dist;
      i.version = version;
      for (const std::string& project : dist_projects_[dist]) add_project(i, project);
      if (std::find(i.found_by.begin(), i.found_by.end(), found_by) == i.found_by.end())
        i.found_by.push_back(found_by);
      i.unreadable = "installed as a zip archive (an egg on sys.path); not read";
      return true;
    }
    out_.walk.not_read.push_back(fmt::format("{}: a zip archive on sys.path (a path line of {})",
                                             where, found_by));
    out_.notes.push_back(fmt::format(
        "{}: a file on sys.path (a path line of {}): a zip archive Python imports from, not "
        "read; a catalog project in it is not reported",
        where, found_by));
    return true;
  }

  /// The first key and value of `MAPPING = {'pkg': '/path/pkg', ...}` in a setuptools finder
  /// module.
  static std::optional<std::pair<std::string, std::string>> first_mapping(const std::string& text) {
    const std::size_t at = text.find("MAPPING");
    if (at == std::string::npos) return std::nullopt;
    const std::size_t open = text.find('{', at);
    const std::size_t close = text.find('}', open);
    if (open == std::string::npos || close == std::string::npos) return std::nullopt;
    const std::string body = text.substr(open + 1, close - open - 1);
    const std::size_t colon = body.find(':');
    if (colon == std::string::npos) return std::nullopt;
    std::string key = trim(body.substr(0, colon));
    if (key.size() >= 2 && (key.front() == '\'' || key.front() == '"') && key.back() == key.front())
      key = key.substr(1, key.size() - 2);
    else
      key.clear();
    const std::size_t q = body.find_first_of("'\"", colon);
    if (q == std::string::npos) return std::nullopt;
    const std::size_t end = body.find(body[q], q + 1);
    if (end == std::string::npos) return std::nullopt;
    return std::make_pair(key, body.substr(q + 1, end - q - 1));
  }

  /// Whether `name` can be a top-level import name: not empty, no "/", not "." or "..".
  static bool package_name(std::string_view name) {
    return !name.empty() && name.size() <= 255 && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos && name != "." && name != "..";
  }

  /// The names of top_level.txt in metadata folder `dir` (relative to TARGET), those that can
  /// be import names; empty when it has none.
  std::vector<std::string> top_level_names(const std::string& dir) const {
    std::vector<std::string> names;
    if (std::optional<std::string> top = read_at(inside(""), join(dir, "top_level.txt"), kListFileCap,
                                                 "the distribution's import name is taken as its package folder"))
      for_each_line(*top, [&](std::string_view line) {
        if (package_name(line)) names.emplace_back(line);
        return true;
      });
    return names;
  }

  // -------------------------------------------------------------------------------------------
  // Shared objects, for the kernel listing.

  /// The shared objects of the distribution whose metadata folder (or egg-info file) is `info`
  /// in `site` (listed as `list`): the paths its RECORD lists, else its package folders (the
  /// names of top_level.txt, else the distribution's import name: folders walked, modules
  /// "NAME.*.so" taken).
  void distribution_objects(const std::string& site, const std::vector<Tree::DirEntry>& list,
                            const Tree::DirEntry& info, const std::string& dist,
                            const std::string& version, std::optional<std::size_t> install) {
    ObjectSet set;
    KernelGroup& g = set.group;
    g.kind = InstallKind::kDistribution;
    g.distribution = dist;
    g.version = version;
    g.root = shown(site);
    set.tree = &tree_;
    set.found_install = install;
    if (install) g.projects = pending_[*install].install.projects;
    const std::string dir = join(site, info.name);
    const bool folder = info.type == Entry::Type::kDirectory;
    std::optional<std::string> record;
    if (folder && ends_with_any_case(info.name, ".dist-info"))
      record = read_at(inside(""), join(dir, "RECORD"), kRecordFileCap,
                       "its package folders are walked instead", Unread::kInstallList);
    if (record) {
      g.source = ObjectSource::kRecord;
      std::vector<std::string> outside;  // kernel files the RECORD lists outside TARGET
      // Kernel files it lists that do not exist: counted (KernelGroup::absent), not kept. A
      // path is kept only when there is a file to read, so memory follows the files on disk,
      // not the RECORD's text (4.1 million absent "x/N.so" lines once took 1.1 GB). A hash
      // per absent path tells repeats apart (8 bytes each, freed with the RECORD).
      std::vector<std::uint64_t> absent;
      for_each_line(*record, [&](std::string_view line) {
        const std::string path = record_path(line);
        if (!is_kernel_file_name(base_name(path)) || path.find('\0') != std::string::npos) return true;
        // Paths are relative to site-packages ("../../../lib/libx.so": pip's .data/data
        // scheme, installed under the prefix) or absolute; resolve() places them in TARGET.
        std::optional<std::string> p;
        if (path.front() != '/') p = normalize_relative_path(join(site, path));
        if (!p) {
          const Pointer at = resolve(path, site);
          if (!at.inside) {
            outside.push_back(path == at.abs ? path : fmt::format("{} (at {})", path, at.abs));
            return true;
          }
          if (at.rel.empty()) return true;
          p = at.rel;
        }
        bool missing = false;  // an error (EACCES) is kept: list_objects() lists it with its error
        try {
          missing = tree_.stat(*p).type == Entry::Type::kMissing;
        } catch (const Error&) {
        }
        if (missing) {
          absent.push_back(path_hash(*p));
          return true;
        }
        if (std::optional<std::string> real = object_path(*p)) {
          if (*real != *p) set.links[*p] = *real;
          set.paths.push_back(*p);
        }
        return true;
      });
      std::sort(absent.begin(), absent.end());
      g.absent = static_cast<std::size_t>(std::unique(absent.begin(), absent.end()) - absent.begin());
      if (!outside.empty()) {
        std::string listed;
        for (std::size_t k = 0; k < outside.size() && k < 3; ++k) listed += (k ? ", " : "") + outside[k];
        if (outside.size() > 3) listed += fmt::format(" and {} more", outside.size() - 3);
        out_.walk.not_read.push_back(fmt::format("{}/RECORD: {} kernel file{} outside TARGET: {}", dir,
                                                 outside.size(), outside.size() == 1 ? "" : "s", listed));
        out_.notes.push_back(fmt::format(
            "{} {}: its RECORD lists {} shared object{} or kernel file{} outside TARGET, not read: "
            "{}; {} kernels are not listed (scan the environment's prefix, or run `kernels` on {})",
            dist, version, outside.size(), outside.size() == 1 ? "" : "s", outside.size() == 1 ? "" : "s",
            listed, outside.size() == 1 ? "its" : "their", outside.size() == 1 ? "it" : "them"));
      }
    } else {
      g.source = ObjectSource::kPackageFolders;
      std::vector<std::string> names;
      if (folder)
        if (std::optional<std::string> top =
                read_at(inside(""), join(dir, "top_level.txt"), kListFileCap,
                        "the distribution's import name is taken as its package folder",
                        Unread::kInstallList))
          for_each_line(*top, [&](std::string_view line) {
            if (!line.empty() && line.find('/') == std::string::npos && line != "." && line != "..")
              names.emplace_back(line);
            return true;
          });
      if (names.empty()) {
        std::string name = dist;
        std::replace(name.begin(), name.end(), '-', '_');
        names.push_back(name);
      }
      for (const std::string& name : names)
        for (const Tree::DirEntry& e : list) {
          if (e.name == name && e.type == Entry::Type::kDirectory)
            collect_objects(inside(join(site, name)), "", 1, set.paths);
          else if (e.type == Entry::Type::kFile && starts_with(e.name, name + ".") &&
                   is_kernel_file_name(e.name))
            set.paths.push_back(join(site, e.name));
        }
    }
    std::sort(set.paths.begin(), set.paths.end());
    set.paths.erase(std::unique(set.paths.begin(), set.paths.end()), set.paths.end());
    out_.objects.push_back(std::move(set));
  }

  /// A 64-bit FNV-1a hash of `path`: absent RECORD paths are told apart by it (two distinct
  /// paths of one RECORD sharing a hash, odds about n^2 / 2^65, would be counted once).
  static std::uint64_t path_hash(std::string_view path) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : path) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  }

  /// Linux's limit on symlinks followed in one path lookup (MAXSYMLINKS, path_resolution(7)).
  static constexpr int kMaxSymlinkHops = 40;

  /// What the dynamic loader opens for shared object `path` (relative to TARGET) that a RECORD
  /// lists: `path` itself, or where its symlinks lead (a deduplicated image, `ln -s`), each link
  /// resolved like the walk's pointers (relative to its folder; an absolute one inside TARGET
  /// when TARGET is a root file system). std::nullopt, with an entry in WalkStats::not_read and
  /// a note, when a link leads outside TARGET or there are more than kMaxSymlinkHops links.
  std::optional<std::string> object_path(const std::string& path) {
    std::string at = path;
    for (int hops = 0; hops <= kMaxSymlinkHops; ++hops) {
      if (type_at(inside(""), at) != Entry::Type::kSymlink) return at;
      std::string text;
      try {
        text = tree_.read_link(at);
      } catch (const Error&) {
        return at;  // listed with its error
      }
      const Pointer p = text.empty() ? Pointer{} : resolve(text, parent_of(at));
      if (text.empty() || !p.inside) {
        ++out_.walk.symlinks;
        out_.walk.not_read.push_back(fmt::format(
            "{}: a shared object a RECORD lists, a symlink to {} outside TARGET", path,
            text.empty() ? at : p.abs));
        out_.notes.push_back(fmt::format(
            "{}: symlink to {} not followed (outside TARGET): its kernels are not listed "
            "(scan or run `kernels` on the target)",
            path, text));
        return std::nullopt;
      }
      at = p.rel;
    }
    ++out_.walk.symlinks;
    out_.walk.not_read.push_back(
        fmt::format("{}: a shared object a RECORD lists, over {} symlinks (a loop)", path, kMaxSymlinkHops));
    out_.notes.push_back(fmt::format("{}: over {} symlinks (a loop): not read", path, kMaxSymlinkHops));
    return std::nullopt;
  }

  /// The shared objects below `at`+`rel` (walked like TARGET: symlinks not followed, the same
  /// folders skipped, --max-depth counted from where this walk starts at `depth`, names
  /// counted against --max-entries), appended as paths of at.tree.
  void collect_objects(const Location& at, const std::string& rel, std::size_t depth,
                       std::vector<std::string>& paths) {
    if (out_.walk.truncated) return;
    DirectoryWalk w(*at.tree, rel.empty() ? at.prefix : at.path(rel), depth);
    while (w.next()) {
      if (!w.error().empty()) {
        out_.walk.unreadable.push_back(fmt::format("{}: {}", w.path(), w.error()));
        continue;
      }
      const std::vector<Tree::DirEntry>& list = w.entries();
      ++out_.walk.directories;
      out_.walk.entries += list.size();
      if (out_.walk.entries > options_.max_entries) out_.walk.truncated = true;
      for (std::size_t k = 0; k < list.size(); ++k) {
        const Tree::DirEntry& e = list[k];
        if (e.type == Entry::Type::kSymlink) {
          ++out_.walk.symlinks;
        } else if (e.type == Entry::Type::kFile && is_kernel_file_name(e.name)) {
          paths.push_back(join(w.path(), e.name));
        } else if (e.type == Entry::Type::kDirectory && !skipped_everywhere(e.name)) {
          if (w.depth() + 1 > options_.max_depth) {
            ++out_.walk.depth_limited;
            continue;
          }
          w.enter(k);
        }
      }
      if (out_.walk.truncated) break;
    }
    for (const std::string& lost : w.lost()) out_.walk.unreadable.push_back(lost);
  }

  /// The compiled objects of an editable install whose source root lies outside TARGET: only
  /// its own package folders are walked, never the whole tree. The root may be anything a .pth
  /// line, a finder's MAPPING or direct_url.json names ("/", a home folder, a folder above
  /// TARGET whose walk would list TARGET's objects again). Its packages: the import names of
  /// FoundInstall::packages (top_level.txt, MAPPING; a folder holding __init__.py) and of its
  /// catalog projects' layout, each at the root, under src/ or python/, or under the folder
  /// the pointer named, plus modules NAME.* beside them. A folder that is TARGET or above it is
  /// never walked. A note says what was searched.
  void package_folder_objects(const FoundInstall& f, std::vector<std::string>& paths) {
    // The catalog's names are trusted; a name only the install's metadata gives must be a
    // regular package there (a hostile top_level.txt saying "usr" under "/" is not walked).
    std::vector<std::string> names = f.packages;
    std::set<std::string> trusted;
    for (const std::string& project : f.install.projects)
      if (auto it = layout_.find(project); it != layout_.end())
        for (const std::string& path : it->second)
          if (ends_with(path, "/__init__.py") && path.find('/') == path.rfind('/')) {
            const std::string name = path.substr(0, path.find('/'));
            trusted.insert(name);
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
          }
    std::vector<std::string> bases{""};
    for (const std::string& b : {std::string("src"), std::string("python"), f.named})
      if (!b.empty() && std::find(bases.begin(), bases.end(), b) == bases.end()) bases.push_back(b);
    const std::string& root = f.install.root;
    std::vector<std::string> searched;
    for (const std::string& base : bases) {
      std::vector<Tree::DirEntry> list;
      try {
        list = f.files.tree->list(f.files.path(base));
      } catch (const Error&) {
        continue;  // no such folder
      }
      for (const std::string& name : names)
        for (const Tree::DirEntry& e : list) {
          const std::string rel = join(base, e.name);
          if (e.type == Entry::Type::kFile && starts_with(e.name, name + ".") &&
              is_kernel_file_name(e.name)) {
            paths.push_back(f.files.path(rel));
          } else if (e.type == Entry::Type::kDirectory && e.name == name &&
                     (trusted.count(name) != 0 ||
                      type_at(f.files, join(rel, "__init__.py")) == Entry::Type::kFile)) {
            std::error_code ec;
            const std::string real =
                std::filesystem::canonical(std::filesystem::path(f.files.tree->name()) / f.files.path(rel), ec)
                    .string();
            if (ec || holds_target(real)) continue;
            collect_objects(f.files, rel, 1 + static_cast<std::size_t>(std::count(rel.begin(), rel.end(), '/')),
                            paths);
            searched.push_back(rel);
          }
        }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    std::string list;
    for (const std::string& s : searched) list += (list.empty() ? "" : ", ") + s;
    out_.notes.push_back(fmt::format(
        "{}: editable source outside TARGET{}: compiled kernels are searched only in its package "
        "folders ({}), not the whole tree; scan {} to list its other build outputs",
        root,
        root == "/"           ? " (the file system's root)"
        : holds_target(root) ? " (a folder above TARGET)"
                              : "",
        list.empty() ? "none found" : list, root));
  }

  /// An ObjectSet per source tree (editable install or checkout) that was read: inside TARGET
  /// the walk's shared objects below its root (each to the innermost such root), outside it a
  /// walk of its tree.
  void source_tree_objects() {
    std::vector<std::size_t> inside_sets;  // indexes into out_.objects
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      const FoundInstall& f = pending_[k];
      if (f.install.kind == InstallKind::kDistribution || f.files.tree == nullptr) continue;
      ObjectSet set;
      KernelGroup& g = set.group;
      g.kind = f.install.kind;
      g.distribution = f.install.distribution;
      g.version = f.install.version;
      g.projects = f.install.projects;
      g.root = f.install.root;
      g.outside_target = f.install.outside_target;
      g.source = ObjectSource::kWalk;
      set.tree = f.files.tree;
      set.found_install = k;
      if (f.files.tree == &tree_) {
        inside_sets.push_back(out_.objects.size());
      } else {
        g.source = ObjectSource::kPackageFolders;
        package_folder_objects(f, set.paths);
      }
      out_.objects.push_back(std::move(set));
    }
    const auto under = [](const std::string& path, const std::string& root) {
      return root.empty() || (path.size() > root.size() && starts_with(path, root) &&
                              path[root.size()] == '/');
    };
    for (const std::string& path : walked_objects_) {
      ObjectSet* best = nullptr;
      std::size_t best_length = 0;
      for (std::size_t k : inside_sets) {
        const std::string& root = pending_[*out_.objects[k].found_install].files.prefix;
        if (under(path, root) && (best == nullptr || root.size() > best_length)) {
          best = &out_.objects[k];
          best_length = root.size();
        }
      }
      if (best != nullptr) best->paths.push_back(path);
    }
    for (std::size_t k : inside_sets) std::sort(out_.objects[k].paths.begin(), out_.objects[k].paths.end());
  }

  const Tree& tree_;
  std::string target_;
  const Catalog& catalog_;
  const ScanOptions& options_;
  Discovery& out_;
  std::string target_real_;
  std::string target_name_;  ///< the last component of target_real_
  bool rootfs_ = false;
  std::map<std::string, std::set<std::string>> dist_projects_;   ///< distribution -> projects
  std::map<std::string, std::set<std::string>> repo_projects_;   ///< owner/name -> projects
  std::map<std::string, std::set<std::string>> layout_;          ///< project -> paths
  std::set<std::string> layout_tops_;  ///< first component of every layout_ path
  /// A catalog distribution's import name ("flashinfer", "flash_attn") -> the distribution it
  /// is matched as (PEP 503: "flashinfer", "flash-attn").
  std::map<std::string, std::string> import_names_;
  /// Checkouts and source trees found by the walk (relative to TARGET): no other below them.
  std::vector<std::string> found_trees_;
  std::vector<std::string> sites_;  ///< site-packages folders read (relative to TARGET)
  std::map<std::string, const Tree*> outside_trees_;
  std::map<std::string, std::size_t> source_index_;  ///< install key -> index in pending_
  std::vector<FoundInstall> pending_;  ///< in the order found
  std::vector<std::string> symlink_notes_;
  std::set<std::string> followed_;  ///< directories walked through a symlink (TARGET paths)
  mutable std::vector<std::string> size_notes_;  ///< files over their read_at() cap
  /// Site-packages folders (as walked) one of whose .pth files runs an import line that may
  /// change sys.path (known_import_line() false) -> the first such .pth: which copy Python
  /// imports there is not claimed.
  std::map<std::string, std::string> path_changing_pth_;
  /// A .pth import line that redirects the import of some packages (import_line()): their
  /// top-level import names, and why which copy Python imports is not known.
  struct Redirect {
    std::set<std::string> packages;
    std::string why;
  };
  /// Site-packages folders (as walked) -> the redirects their .pth import lines install.
  std::map<std::string, std::vector<Redirect>> redirects_;
  std::map<std::string, ModuleVerdict> module_verdicts_;  ///< site "\n" module -> module_verdict()
  std::set<std::string> hook_noted_;  ///< .pth files whose import lines got import_line()'s note
  std::size_t pth_lines_ = 0;  ///< .pth lines (not comments) read so far: FoundInstall::line_rank
  std::vector<std::string> walked_objects_;  ///< shared objects the walk met (TARGET paths)
};

}  // namespace

Discovery discover(const Tree& target_tree, const std::string& target, const Catalog& catalog,
                   const ScanOptions& options) {
  Discovery out;
  Discoverer(target_tree, target, catalog, options, out).run();
  return out;
}

}  // namespace sm120check::scan_detail
