// Comments blanked per file syntax (see sm120check/code_text.hpp): a small lexer per syntax,
// each one forward pass over the bytes (a backward look only over a line's trailing blanks, a
// forward search only for a closing sequence), so the work is linear in the file's size.
#include "sm120check/code_text.hpp"

#include <array>
#include <cstring>
#include <vector>

namespace sm120check {

std::string_view to_string(CommentSyntax syntax) {
  switch (syntax) {
    case CommentSyntax::kNone:
      return "none";
    case CommentSyntax::kPython:
      return "python";
    case CommentSyntax::kCFamily:
      return "c-family";
    case CommentSyntax::kCMake:
      return "cmake";
    case CommentSyntax::kHashLine:
      return "hash-line";
    case CommentSyntax::kShell:
      return "shell";
  }
  return "?";
}

CommentSyntax comment_syntax_for(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name == "CMakeLists.txt") return CommentSyntax::kCMake;
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return CommentSyntax::kNone;
  const std::string_view ext = name.substr(dot + 1);
  if (ext == "py" || ext == "pyi") return CommentSyntax::kPython;
  for (std::string_view c : {"c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "cu",
                             "cuh", "inl", "ipp", "tpp", "C", "H"})
    if (ext == c) return CommentSyntax::kCFamily;
  if (ext == "cmake") return CommentSyntax::kCMake;
  if (ext == "sh" || ext == "bash") return CommentSyntax::kShell;
  if (ext == "yml" || ext == "yaml") return CommentSyntax::kHashLine;
  return CommentSyntax::kNone;
}

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The bytes of identifiers and numbers: ASCII letters, digits, "_", and any byte of a
/// multi-byte UTF-8 sequence (Python and C++ identifiers may hold non-ASCII letters).
constexpr auto kWordBytes = [] {
  std::array<bool, 256> t{};
  for (int u = 0; u < 256; ++u)
    t[static_cast<std::size_t>(u)] = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                                     (u >= '0' && u <= '9') || u == '_' || u >= 0x80;
  return t;
}();

bool is_word(char c) { return kWordBytes[static_cast<unsigned char>(c)]; }

class Lexer {
 public:
  explicit Lexer(std::string_view in) : s_(in), n_(in.size()) {}

  CodeText run(CommentSyntax syntax) && {
    switch (syntax) {
      case CommentSyntax::kNone:
        break;
      case CommentSyntax::kPython:
        python();
        break;
      case CommentSyntax::kCFamily:
        c_family();
        break;
      case CommentSyntax::kCMake:
        cmake();
        break;
      case CommentSyntax::kHashLine:
        hash_lines();
        break;
      case CommentSyntax::kShell:
        shell();
        break;
    }
    return std::move(out_);
  }

 private:
  /// Blanks [from, to): every byte but "\n", "\r" and NUL becomes a space. The copy is made
  /// at the first blank, so a file without comments costs no second copy.
  void blank(std::size_t from, std::size_t to) {
    if (from >= to) return;
    if (!out_.blanked) out_.text.assign(s_);
    for (std::size_t k = from; k < to; ++k) {
      char& c = out_.text[k];
      if (c != '\n' && c != '\r' && c != '\0') c = ' ';
    }
    out_.blanked = true;
  }

  /// 3 when the text starts with a UTF-8 byte order mark (EF BB BF), else 0: Python, GCC
  /// and YAML parsers read the first line after it.
  std::size_t bom_end() const { return s_.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; }

  /// The "\n" at or after `k`, or the end.
  std::size_t line_end(std::size_t k) const {
    if (k >= n_) return n_;
    const void* p = std::memchr(s_.data() + k, '\n', n_ - k);
    return p == nullptr ? n_ : static_cast<std::size_t>(static_cast<const char*>(p) - s_.data());
  }

  /// Length of a line break ("\n" or "\r\n") at `k`; 0 when there is none.
  std::size_t newline_at(std::size_t k) const {
    if (k < n_ && s_[k] == '\n') return 1;
    if (k + 1 < n_ && s_[k] == '\r' && s_[k + 1] == '\n') return 2;
    return 0;
  }

  /// One past a backslash escape at `k` (the backslash and the byte after it; "\\\r\n" whole).
  std::size_t escape_end(std::size_t k) const {
    const std::size_t nl = newline_at(k + 1);
    return std::min(n_, k + 1 + (nl != 0 ? nl : 1));
  }

  // -- Python ----------------------------------------------------------------------------------

  /// Length of a Python line break at `k`: "\n", "\r\n" or a lone "\r" (source is read with
  /// universal newlines); 0 when there is none.
  std::size_t py_newline_at(std::size_t k) const {
    if (k < n_ && s_[k] == '\r') return k + 1 < n_ && s_[k + 1] == '\n' ? 2 : 1;
    return k < n_ && s_[k] == '\n' ? 1 : 0;
  }

  /// The "\n" or "\r" at or after `k`, or the end.
  std::size_t py_line_end(std::size_t k) const {
    while (k < n_ && s_[k] != '\n' && s_[k] != '\r') ++k;
    return k;
  }

  /// Whether `word` is a string prefix (r, u, b, f, t, br, rb, fr, rf, tr, rt, any case);
  /// `formatted` tells an f-string or t-string (never a docstring: it evaluates code), `raw`
  /// an r.
  static bool python_prefix(std::string_view word, bool& formatted, bool& raw) {
    if (word.empty() || word.size() > 2) return false;
    bool r = false, b = false, u = false, f = false;
    for (char c : word) {
      bool* flag = nullptr;
      switch (c | 0x20) {
        case 'r':
          flag = &r;
          break;
        case 'b':
          flag = &b;
          break;
        case 'u':
          flag = &u;
          break;
        case 'f':
        case 't':
          flag = &f;
          break;
        default:
          return false;
      }
      if (*flag) return false;
      *flag = true;
    }
    if (u && word.size() != 1) return false;  // "u" takes no other letter
    if (b && f) return false;
    formatted = f;
    raw = r;
    return true;
  }

  /// End of the Python string literal whose opening quote is at `q` (one past its closing
  /// quote), and whether it closes: a one-quote string ends unclosed at its line's end; a
  /// backslash escapes the next byte (in raw strings too, as the tokenizer reads them).
  std::pair<std::size_t, bool> python_string_end(std::size_t q) const {
    const char quote = s_[q];
    const bool triple = q + 2 < n_ && s_[q + 1] == quote && s_[q + 2] == quote;
    std::size_t k = q + (triple ? 3 : 1);
    while (k < n_) {
      const char c = s_[k];
      if (c == '\\') {
        k = escape_end(k);
      } else if ((c == '\n' || c == '\r') && !triple) {
        return {k, false};
      } else if (c == quote) {
        if (!triple) return {k + 1, true};
        if (k + 2 < n_ && s_[k + 1] == quote && s_[k + 2] == quote) return {k + 3, true};
        ++k;
      } else {
        ++k;
      }
    }
    return {n_, false};
  }

  /// One level of an f-string being read (python_fstring_end()): its literal text, a
  /// replacement field's code (`depth`: brackets open in it), or a format spec.
  struct FLevel {
    enum Kind : char { kText, kField, kSpec } kind;
    char quote;   // the enclosing f-string's quote
    bool triple;  // ... tripled
    bool raw;     // ... raw
    int depth = 0;
  };

  /// End of the f-string (or t-string) whose opening quote is at `q`, and whether it closes,
  /// read as Python 3.12 does (PEP 701): `{{` and `}}` are literal braces, a replacement field
  /// `{...}` is code up to its `}` at bracket depth 0 and may hold strings with any quote,
  /// f-strings included, line breaks and `#` comments (blanked here); a format spec after
  /// `:` may hold fields. A one-quote f-string ends unclosed at a line break in its text. An
  /// explicit stack, so nesting costs no recursion; every byte is read once.
  std::pair<std::size_t, bool> python_fstring_end(std::size_t q, bool raw) {
    std::vector<FLevel> stack;
    const auto open = [&](std::size_t at, bool r) {
      const char quote = s_[at];
      const bool triple = at + 2 < n_ && s_[at + 1] == quote && s_[at + 2] == quote;
      stack.push_back({FLevel::kText, quote, triple, r});
      return at + (triple ? 3 : 1);
    };
    std::size_t k = open(q, raw);
    while (k < n_) {
      FLevel& top = stack.back();
      const char c = s_[k];
      if (top.kind != FLevel::kField) {  // text or spec
        if (c == '\\') {
          const char next = k + 1 < n_ ? s_[k + 1] : '\0';
          if (top.raw || next == '{') {
            k += next == top.quote || next == '\\' ? 2 : 1;
          } else if (next == 'N' && k + 2 < n_ && s_[k + 2] == '{') {  // \N{NAME}
            std::size_t e = k + 3;
            while (e < n_ && s_[e] != '}' && s_[e] != top.quote && s_[e] != '\n' && s_[e] != '\r')
              ++e;
            k = e < n_ && s_[e] == '}' ? e + 1 : e;
          } else {
            k = escape_end(k);
          }
        } else if ((c == '\n' || c == '\r') && !top.triple) {
          return {k, false};
        } else if (c == top.quote &&
                   (!top.triple || (k + 2 < n_ && s_[k + 1] == c && s_[k + 2] == c))) {
          k += top.triple ? 3 : 1;  // the string closes (from a spec too: Python's error)
          while (stack.back().kind != FLevel::kText) stack.pop_back();
          stack.pop_back();
          if (stack.empty()) return {k, true};
        } else if (c == '{' && top.kind == FLevel::kText && k + 1 < n_ && s_[k + 1] == '{') {
          k += 2;
        } else if (c == '{') {
          stack.push_back({FLevel::kField, top.quote, top.triple, top.raw});
          ++k;
        } else if (c == '}' && top.kind == FLevel::kSpec) {
          stack.pop_back();
          ++k;
        } else if (c == '}' && k + 1 < n_ && s_[k + 1] == '}') {
          k += 2;
        } else {
          ++k;
        }
        continue;
      }
      // A replacement field: code.
      std::size_t word_end = k;
      bool formatted = false, r = false;
      if (is_word(c)) {
        while (word_end < n_ && is_word(s_[word_end])) ++word_end;
        if (word_end < n_ && (s_[word_end] == '"' || s_[word_end] == '\'') &&
            python_prefix(s_.substr(k, word_end - k), formatted, r)) {
          k = word_end;  // a prefixed string: read below
        } else {
          k = word_end;
          continue;
        }
      }
      const char d = s_[k];
      if (d == '"' || d == '\'') {
        if (formatted) {
          k = open(k, r);
        } else {
          const auto [e, closed] = python_string_end(k);
          if (!closed) return {e, false};
          k = e;
        }
      } else if (d == '#') {  // a comment: the field goes on on the next line
        const std::size_t e = py_line_end(k);
        blank(k, e);
        k = e;
      } else if (d == '(' || d == '[' || d == '{') {
        ++top.depth;
        ++k;
      } else if ((d == ')' || d == ']') && top.depth > 0) {
        --top.depth;
        ++k;
      } else if (d == '}') {
        if (top.depth > 0) {
          --top.depth;
        } else {
          stack.pop_back();
        }
        ++k;
      } else if (d == ':' && top.depth == 0) {
        top.kind = FLevel::kSpec;
        ++k;
      } else if ((d == '!' || d == '=') && k + 1 < n_ && s_[k + 1] == '=') {
        k += 2;  // "!=", "==": not a conversion or a debug "=" (no effect on the reading)
      } else {
        ++k;
      }
    }
    return {n_, false};
  }

  /// Whether `word` opens a compound statement whose body may follow its header's `:` on the
  /// same line (a string there is a whole statement: `def f(): "doc"`). `match` is not one:
  /// its body is always an indented block, so `match: "T"` is an annotation.
  static bool compound_keyword(std::string_view word) {
    for (std::string_view k : {"def", "class", "if", "elif", "else", "while", "for", "try",
                               "except", "finally", "with", "async", "case"})
      if (word == k) return true;
    return false;
  }

  /// Whether the soft keyword `case` ending at `k` is a name instead (`case: "T"`, `case =
  /// 1`, `case.x`): what follows it on its line cannot start a pattern.
  bool soft_name(std::string_view word, std::size_t k) const {
    if (word != "case") return false;
    while (k < n_ && (s_[k] == ' ' || s_[k] == '\t')) ++k;
    return k >= n_ || std::string_view(":=.,;)]}\n\r#").find(s_[k]) != npos;
  }

  /// The column of `k`, the first token of its line: its indentation, a tab to the next
  /// multiple of 8 and a form feed back to 0, as Python's tokenizer counts it.
  std::size_t py_column(std::size_t k) const {
    std::size_t b = k;
    while (b > 0 && (s_[b - 1] == ' ' || s_[b - 1] == '\t' || s_[b - 1] == '\f')) --b;
    std::size_t col = 0;
    for (; b < k; ++b) col = s_[b] == '\t' ? (col / 8 + 1) * 8 : s_[b] == '\f' ? 0 : col + 1;
    return col;
  }

  /// Whether an `if`, `elif` or `while` whose keyword ends at `k` tests a constant false:
  /// `False` or `0`, in as many parentheses as it likes (`if (False):`), then its `:` (not a
  /// walrus). Between the tokens: blanks and explicit line joins (`if \` + `False:`), and
  /// inside the parentheses also line breaks and comments (`if (` + `False` + `):`), as
  /// Python's tokenizer joins them.
  bool py_false_test(std::size_t k) const {
    const auto skip = [&](std::size_t at, bool in_parens) {
      for (;;) {
        if (at < n_ && (s_[at] == ' ' || s_[at] == '\t' || s_[at] == '\f')) {
          ++at;
        } else if (at < n_ && s_[at] == '\\' && py_newline_at(at + 1) != 0) {
          at += 1 + py_newline_at(at + 1);
        } else if (in_parens && py_newline_at(at) != 0) {
          at += py_newline_at(at);
        } else if (in_parens && at < n_ && s_[at] == '#') {
          at = py_line_end(at);
        } else {
          return at;
        }
      }
    };
    std::size_t open = 0;
    for (k = skip(k, false); k < n_ && s_[k] == '('; k = skip(k + 1, true)) ++open;
    std::size_t e = k;
    while (e < n_ && is_word(s_[e])) ++e;
    const std::string_view word = s_.substr(k, e - k);
    if (word != "False" && word != "0") return false;
    for (e = skip(e, open > 0); open > 0 && e < n_ && s_[e] == ')'; e = skip(e + 1, open > 0))
      --open;
    return open == 0 && e < n_ && s_[e] == ':' && (e + 1 >= n_ || s_[e + 1] != '=');
  }

  /// `#` comments, and string literals that are a whole statement: a closed, non-f string (or
  /// several, implicitly joined, or in parentheses) at the start of a statement outside
  /// brackets, followed by the statement's end (a line break outside brackets, `;`, a
  /// comment, the end of the file). A statement starts a logical line, follows a `;`, or
  /// follows the header's `:` of a compound statement (the first `:` outside brackets that
  /// is not a lambda's or a walrus). And dead code: the body of `if False:` / `if 0:` (also
  /// `elif`, `while`, and the test in parentheses), from its first token to the end of its last: the rest of the header's logical
  /// line, or the logical lines indented deeper than the header that follow it.
  void python() {
    int depth = 0;         // open brackets
    bool start = true;     // at the start of a statement (or inside its leading "(")
    int lead = 0;          // "(" opened at the statement's start, before a string
    int closed_lead = 0;   // of those, closed after the string
    bool header = false;   // in a compound statement's header: its ":" starts a statement
    bool first = true;     // the next word is the logical line's first
    int lambdas = 0;       // lambdas in the header whose ":" has not come
    bool pending = false;  // [begin, end) is a string statement if its statement ends now
    std::size_t begin = 0, end = 0;
    // Dead code. kInline: after a dead header's ":", its body on the same line (if any);
    // kBlock: its indented block. dead_from: the body's first token (npos: none yet).
    enum class Dead { kLive, kInline, kBlock } dead = Dead::kLive;
    bool dead_header = false;      // this logical line is `if False:` and the like
    bool line_first = true;        // the next token is its logical line's first
    std::size_t line_indent = 0;   // the column of the logical line's first token
    std::size_t dead_indent = 0;   // the dead header's column
    std::size_t dead_from = npos;  // where the dead body starts
    std::size_t code_end = 0;      // one past the last token read
    bool in_token = false;         // the last step read a token (code_end is set after it)
    const auto on_token = [&](std::size_t at) {
      if (!line_first) {
        if (dead == Dead::kInline && dead_from == npos) dead_from = at;
        return;
      }
      line_first = false;
      line_indent = py_column(at);
      if (dead != Dead::kBlock) return;
      if (dead_from == npos) {
        if (line_indent > dead_indent) {
          dead_from = at;
        } else {
          dead = Dead::kLive;  // no indented body: not Python, nothing blanked
        }
      } else if (line_indent <= dead_indent) {
        blank(dead_from, code_end);
        dead = Dead::kLive;
      }
    };
    const auto settle = [&](bool statement_ends) {
      if (pending && statement_ends && closed_lead == lead) blank(begin, end);
      pending = false;
    };
    const auto new_statement = [&](bool line) {
      start = true;
      lead = closed_lead = 0;
      if (line) {
        first = true;
        header = false;
        lambdas = 0;
        dead_header = false;
      }
    };
    std::size_t i = bom_end();
    while (i < n_) {
      if (in_token) {
        code_end = i;
        in_token = false;
      }
      const char c = s_[i];
      if (c == '\n' || (c == '\r' && py_newline_at(i) == 1)) {
        if (depth == 0) {
          settle(true);
          new_statement(true);
          line_first = true;
          if (dead == Dead::kInline && dead_from != npos) {
            blank(dead_from, code_end);
            dead = Dead::kLive;
          } else if (dead == Dead::kInline) {
            dead = Dead::kBlock;
          }
        }
        ++i;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\v') {
        ++i;
        continue;
      }
      if (c == '#') {
        const std::size_t e = py_line_end(i);
        blank(i, e);
        i = e;
        continue;
      }
      if (c == '\\' && py_newline_at(i + 1) != 0) {  // explicit line joining
        i += 1 + py_newline_at(i + 1);
        continue;
      }
      in_token = true;  // a token starts here
      on_token(i);
      if (c == ';' && depth == 0) {
        settle(true);
        new_statement(true);
        ++i;
      } else if (c == '(' && start && !pending && depth == lead) {
        ++lead;  // a string statement may stand in parentheses: ("doc")
        ++depth;
        ++i;
      } else if (c == ')' && pending && closed_lead < lead) {
        ++closed_lead;
        --depth;
        ++i;
      } else if (c == ':' && depth == 0 && header && (i + 1 >= n_ || s_[i + 1] != '=')) {
        settle(false);
        if (lambdas > 0) {
          --lambdas;
          start = false;
        } else {
          header = false;
          new_statement(false);
          if (dead_header && dead == Dead::kLive) {
            dead = Dead::kInline;
            dead_from = npos;
            dead_indent = line_indent;
          }
        }
        ++i;
      } else {
        std::size_t quote = npos;
        bool formatted = false, raw = false;
        std::size_t word_end = i;
        if (c == '"' || c == '\'') {
          quote = i;
        } else if (is_word(c)) {
          while (word_end < n_ && is_word(s_[word_end])) ++word_end;
          if (word_end < n_ && (s_[word_end] == '"' || s_[word_end] == '\'') &&
              python_prefix(s_.substr(i, word_end - i), formatted, raw))
            quote = word_end;
        }
        if (quote != npos) {
          const auto [string_end, closed] =
              formatted ? python_fstring_end(quote, raw) : python_string_end(quote);
          const bool plain = closed && !formatted;
          if (pending && plain && closed_lead == 0) {
            end = string_end;
          } else if (!pending && plain && start && depth == lead) {
            pending = true;
            begin = i;
            end = string_end;
          } else {
            settle(false);
          }
          start = false;
          first = false;
          i = string_end;
          continue;
        }
        settle(false);
        start = false;
        if (word_end > i) {
          const std::string_view word = s_.substr(i, word_end - i);
          if (first && depth == 0) {
            header = compound_keyword(word) && !soft_name(word, word_end);
            dead_header = header && (word == "if" || word == "elif" || word == "while") &&
                          py_false_test(word_end);
          }
          if (header && depth == 0 && word == "lambda") ++lambdas;
          first = false;
          i = word_end;
          continue;
        }
        first = false;
        if (c == '(' || c == '[' || c == '{') ++depth;
        if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
        ++i;
      }
    }
    if (in_token) code_end = i;
    settle(true);
    if (dead != Dead::kLive && dead_from != npos) blank(dead_from, code_end);
  }

  // -- C, C++, CUDA ----------------------------------------------------------------------------

  /// End of a `//` comment whose text starts at `k`: the line break that ends it, after any
  /// line that ends with a backslash (blanks between it and the break allowed, as GCC and
  /// C++23 read them), which continues it.
  std::size_t c_line_comment_end(std::size_t k) const {
    for (;;) {
      const std::size_t nl = line_end(k);
      if (nl == n_) return n_;
      std::size_t b = nl;
      while (b > k && (s_[b - 1] == ' ' || s_[b - 1] == '\t' || s_[b - 1] == '\r')) --b;
      if (b == k || s_[b - 1] != '\\') return nl;
      k = nl + 1;
    }
  }

  /// End of the string or character literal opening at `q`: one past its closing quote, or
  /// its line's end when it does not close there (a backslash before the break continues it).
  std::size_t c_literal_end(std::size_t q) const {
    const char quote = s_[q];
    std::size_t k = q + 1;
    while (k < n_) {
      const char c = s_[k];
      if (c == '\\') {
        const std::size_t j = c_unsplice(k);  // a splice with blanks before its break too
        k = j != k ? j : escape_end(k);
      } else if (c == '\n') {
        return k;
      } else if (c == quote) {
        return k + 1;
      } else {
        ++k;
      }
    }
    return n_;
  }

  /// End of a raw string literal whose `"` is at `q` (R"delim( ... )delim"); an invalid
  /// delimiter (over 16 bytes, or a byte it may not hold) reads as an ordinary string.
  std::size_t c_raw_string_end(std::size_t q) const {
    std::size_t k = q + 1;
    while (k < n_ && k - (q + 1) <= 16 && s_[k] != '(') {
      const char c = s_[k];
      if (c == ' ' || c == ')' || c == '\\' || c == '\t' || c == '\v' || c == '\f' || c == '\n' ||
          c == '\r' || c == '"')
        break;
      ++k;
    }
    if (k >= n_ || s_[k] != '(' || k - (q + 1) > 16) return c_literal_end(q);
    std::string close = ")";
    close.append(s_.substr(q + 1, k - (q + 1)));
    close += '"';
    const std::size_t e = s_.find(close, k + 1);
    return e == npos ? n_ : e + close.size();
  }

  /// End of a preprocessing number starting at `k` (a digit, or "." and a digit): digits,
  /// letters, "_", ".", a sign after e/E/p/P, and "'" digit separators ("1'000").
  std::size_t pp_number_end(std::size_t k) const {
    ++k;
    while (k < n_) {
      const char c = s_[k];
      if (is_word(c) || c == '.') {
        ++k;
      } else if ((c == '+' || c == '-') &&
                 (s_[k - 1] == 'e' || s_[k - 1] == 'E' || s_[k - 1] == 'p' || s_[k - 1] == 'P')) {
        ++k;
      } else if (c == '\'' && k + 1 < n_ && is_word(s_[k + 1])) {
        k += 2;
      } else {
        break;
      }
    }
    return k;
  }

  static bool raw_prefix(std::string_view word) {
    return word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R";
  }

  /// `k` past any line splices there (a backslash, blanks as GCC allows them, a line break:
  /// translation phase 2 joins the lines before comments are found).
  std::size_t c_unsplice(std::size_t k) const {
    while (k < n_ && s_[k] == '\\') {
      std::size_t b = k + 1;
      while (b < n_ && (s_[b] == ' ' || s_[b] == '\t')) ++b;
      const std::size_t nl = newline_at(b);
      if (nl == 0) break;
      k = b + nl;
    }
    return k;
  }

  /// One past the `*/` (perhaps spliced: "*\\\n/") closing a block comment whose text
  /// starts at `k`, or the end. Each byte is read at most twice.
  std::size_t c_block_comment_end(std::size_t k) const {
    while (k < n_) {
      const void* p = std::memchr(s_.data() + k, '*', n_ - k);
      if (p == nullptr) return n_;
      const auto star = static_cast<std::size_t>(static_cast<const char*>(p) - s_.data());
      const std::size_t j = c_unsplice(star + 1);
      if (j < n_ && s_[j] == '/') return j + 1;
      k = star + 1;
    }
    return n_;
  }

  /// `k` past spaces and tabs.
  std::size_t c_blanks_end(std::size_t k) const {
    while (k < n_ && (s_[k] == ' ' || s_[k] == '\t')) ++k;
    return k;
  }

  /// `k` past spaces, tabs and line splices.
  std::size_t c_space_end(std::size_t k) const {
    for (;;) {
      const std::size_t j = c_unsplice(c_blanks_end(k));
      if (j == k) return k;
      k = j;
    }
  }

  /// The identifier starting at `k` with the line splices inside it removed (`#en\` + `dif`
  /// reads `endif`), and one past its last byte. Only its first 16 bytes are kept: longer
  /// words are no directive name, and the copy stays small.
  std::pair<std::string, std::size_t> c_spliced_word(std::size_t k) const {
    std::string word;
    std::size_t end = k;
    for (k = c_unsplice(k); k < n_ && is_word(s_[k]); k = c_unsplice(k + 1)) {
      if (word.size() < 16) word += s_[k];
      end = k + 1;
    }
    return {word, end};
  }

  /// One past the "\n" that ends the logical line holding `k` (line splices joined), or the
  /// end.
  std::size_t c_logical_line_end(std::size_t k) const {
    for (;;) {
      const std::size_t nl = line_end(k);
      if (nl == n_) return n_;
      std::size_t b = nl;
      if (b > k && s_[b - 1] == '\r') --b;
      while (b > k && (s_[b - 1] == ' ' || s_[b - 1] == '\t')) --b;
      if (b == k || s_[b - 1] != '\\') return nl + 1;
      k = nl + 1;
    }
  }

  /// Whether the `#if` whose name ends at `k` reads `#if 0`: a 0, then nothing but blanks,
  /// line splices and comments on its logical line.
  bool c_if_zero(std::size_t k) const {
    k = c_space_end(k);
    if (k >= n_ || s_[k] != '0') return false;
    k = c_unsplice(k + 1);
    if (k < n_ && (is_word(s_[k]) || s_[k] == '.' || s_[k] == '\'')) return false;
    for (;;) {
      k = c_space_end(k);
      if (k >= n_ || s_[k] == '\n' || s_[k] == '\r') return true;
      if (s_[k] != '/') return false;
      const std::size_t after = c_unsplice(k + 1);
      if (after < n_ && s_[after] == '/') return true;
      if (after >= n_ || s_[after] != '*') return false;
      k = c_block_comment_end(after + 1);
    }
  }

  /// `//` and `/* */` comments (after line splices are joined), outside literals; and the
  /// lines of an `#if 0` group (to its `#else`, `#elif` or `#endif`, nested `#if`s counted;
  /// not when the group is left open). A directive is a `#` first on its logical line,
  /// comments before it read as blanks. Line splices are joined first everywhere, as in
  /// translation phase 2: a line that a splice continues is no new line (`#define A \` +
  /// `#endif` is one line, no `#endif`), and `#\` + `if 0` or `#if \` + `0` is `#if 0`.
  /// Tokens after `#endif` or `#else` on its logical line (after a comment running over
  /// lines too) are ignored by the compiler (GCC: "extra tokens"), so blanked.
  void c_family() {
    std::size_t i = bom_end();  // GCC skips a leading byte order mark
    bool line_start = true;      // only blanks and comments since the line began
    std::size_t line_begin = 0;  // where the current line began
    int dead = 0;                // #if depth inside an "#if 0" group; 0: not in one
    std::size_t dead_from = 0;   // the first line of that group
    bool ignored_tail = false;   // after `#endif` or `#else` on this logical line
    while (i < n_) {
      const char c = s_[i];
      const std::size_t after = c == '/' ? c_unsplice(i + 1) : i + 1;
      const char next = after < n_ ? s_[after] : '\0';
      if (c == '\n') {
        line_start = true;
        ignored_tail = false;
        line_begin = ++i;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i;
        continue;
      }
      if (c == '\\') {
        const std::size_t j = c_unsplice(i);
        if (j != i) {  // a line splice: the logical line goes on
          i = j;
          continue;
        }
      }
      const bool directive = c == '#' && line_start;
      line_start = line_start && c == '/' && next == '*';
      const std::size_t token = i;
      bool comment = false;
      if (directive) {
        const auto [word, e] = c_spliced_word(c_space_end(i + 1));
        if (dead == 0) {
          if (word == "if" && c_if_zero(e)) {
            dead = 1;
            dead_from = c_logical_line_end(e);
          }
        } else if (word == "if" || word == "ifdef" || word == "ifndef") {
          ++dead;
        } else if (word == "endif" || (dead == 1 && (word == "else" || word == "elif" ||
                                                     word == "elifdef" || word == "elifndef"))) {
          if (word != "endif" || --dead == 0) {
            dead = 0;
            blank(dead_from, line_begin);
          }
        }
        ignored_tail = word == "endif" || word == "else";
        i = e;
      } else if (c == '/' && next == '/') {
        const std::size_t e = c_line_comment_end(after + 1);
        blank(i, e);
        i = e;
        comment = true;
      } else if (c == '/' && next == '*') {
        const std::size_t e = c_block_comment_end(after + 1);
        blank(i, e);
        i = e;
        comment = true;
      } else if (c == '"' || c == '\'') {
        i = c_literal_end(i);
      } else if (is_digit(c) || (c == '.' && is_digit(next))) {
        i = pp_number_end(i);
      } else if (is_word(c)) {
        std::size_t k = i;
        while (k < n_ && is_word(s_[k])) ++k;
        i = k < n_ && s_[k] == '"' && raw_prefix(s_.substr(i, k - i)) ? c_raw_string_end(k) : k;
      } else {
        ++i;
      }
      if (ignored_tail && !directive && !comment) blank(token, i);
    }
  }

  // -- CMake -----------------------------------------------------------------------------------

  /// Length of a bracket opening ("[", "="s, "[") at `k`, its level (the "="s) in `level`; 0
  /// when there is none.
  std::size_t bracket_open(std::size_t k, std::size_t& level) const {
    if (k >= n_ || s_[k] != '[') return 0;
    std::size_t j = k + 1;
    while (j < n_ && s_[j] == '=') ++j;
    if (j >= n_ || s_[j] != '[') return 0;
    level = j - k - 1;
    return j - k + 1;
  }

  /// One past the bracket closing ("]", `level` "="s, "]") at or after `k`, or the end. Each
  /// run of "=" is read once.
  std::size_t bracket_close_end(std::size_t k, std::size_t level) const {
    while (k < n_) {
      const void* p = std::memchr(s_.data() + k, ']', n_ - k);
      if (p == nullptr) return n_;
      const auto at = static_cast<std::size_t>(static_cast<const char*>(p) - s_.data());
      std::size_t j = at + 1;
      while (j < n_ && s_[j] == '=') ++j;
      if (j < n_ && s_[j] == ']' && j - at - 1 == level) return j + 1;
      k = j;  // s_[j] may open the next try
    }
    return n_;
  }

  void cmake() {
    std::size_t i = 0;
    while (i < n_) {
      const char c = s_[i];
      std::size_t level = 0;
      if (c == '#') {
        const std::size_t open = bracket_open(i + 1, level);
        const std::size_t e = open != 0 ? bracket_close_end(i + 1 + open, level) : line_end(i);
        blank(i, e);
        i = e;
      } else if (c == '"') {  // a quoted argument: may span lines
        std::size_t k = i + 1;
        while (k < n_ && s_[k] != '"') k = s_[k] == '\\' ? escape_end(k) : k + 1;
        i = std::min(n_, k + 1);
      } else if (c == '[' && (i == 0 || s_[i - 1] == ' ' || s_[i - 1] == '\t' ||
                              s_[i - 1] == '\n' || s_[i - 1] == '\r' || s_[i - 1] == '(')) {
        const std::size_t open = bracket_open(i, level);  // a bracket argument
        i = open != 0 ? bracket_close_end(i + open, level) : i + 1;
      } else if (c == '\\') {
        i = escape_end(i);
      } else {
        ++i;
      }
    }
  }

  // -- shell ---------------------------------------------------------------------------------

  /// One past a here-document's body that starts at `k` (the line after its `<<` operator):
  /// the line equal to `delim` (leading tabs stripped when `strip_tabs`, `<<-`; a "\r" before
  /// the "\n" ignored) ends it, and is part of it; the end of the file when none does.
  std::size_t heredoc_end(std::size_t k, std::string_view delim, bool strip_tabs) const {
    while (k < n_) {
      std::size_t b = k;
      if (strip_tabs)
        while (b < n_ && s_[b] == '\t') ++b;
      const std::size_t e = line_end(b);
      std::string_view line = s_.substr(b, e - b);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line == delim) return std::min(n_, e + 1);
      k = e + 1;
    }
    return n_;
  }

  /// A here-document operator `<<` at `k` (not `<<<`): its delimiter word (quotes removed,
  /// backslashes dropped) in `delim`, `strip_tabs` for `<<-`, and one past the word; 0 when
  /// there is no delimiter word.
  std::size_t heredoc_word(std::size_t k, std::string& delim, bool& strip_tabs) const {
    k += 2;
    strip_tabs = k < n_ && s_[k] == '-';
    if (strip_tabs) ++k;
    while (k < n_ && (s_[k] == ' ' || s_[k] == '\t')) ++k;
    delim.clear();
    while (k < n_) {
      const char c = s_[k];
      if (c == '\'' || c == '"') {
        const std::size_t close = s_.find(c, k + 1);
        const std::size_t nl = line_end(k);
        if (close == npos || close > nl) return 0;
        delim.append(s_.substr(k + 1, close - k - 1));
        k = close + 1;
      } else if (c == '\\' && k + 1 < n_ && s_[k + 1] != '\n') {
        delim += s_[k + 1];
        k += 2;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' ||
                 c == '|' || c == '(' || c == ')' || c == '<' || c == '>') {
        break;
      } else {
        delim += c;
        ++k;
      }
    }
    return delim.empty() ? 0 : k;
  }

  /// Shell comments: a `#` that starts a word, to its line's end; quotes ('...', "...",
  /// $'...') and backslash escapes read so that a `#` inside them is none; here-document
  /// bodies skipped whole after the line holding their operator.
  void shell() {
    std::size_t i = 0;
    bool word_start = true;  // the next byte would start a word
    std::vector<std::pair<std::string, bool>> heredocs;  // pending on this line: (delim, <<-)
    std::string delim;
    while (i < n_) {
      const char c = s_[i];
      if (c == '\n') {
        ++i;
        for (const auto& h : heredocs) i = heredoc_end(i, h.first, h.second);
        heredocs.clear();
        word_start = true;
      } else if (c == '#' && word_start) {
        const std::size_t e = line_end(i);
        blank(i, e);
        i = e;
      } else if (c == '(' && i + 1 < n_ && s_[i + 1] == '(') {
        i = shell_arith_end(i + 2);  // $((x << 2)), ((n<<=1)): no here-document, no comment
        word_start = false;
      } else if (c == '$' && i + 1 < n_ && s_[i + 1] == '[') {
        i = shell_arith_end(i + 2, '[', ']', 1);  // $[1<<2], bash's older arithmetic form
        word_start = false;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == ';' || c == '&' || c == '|' ||
                 c == '(' || c == ')' || c == '>') {
        word_start = true;
        ++i;
      } else if (c == '<') {
        bool strip = false;
        const std::size_t e = i + 1 < n_ && s_[i + 1] == '<' && (i + 2 >= n_ || s_[i + 2] != '<')
                                  ? heredoc_word(i, delim, strip)
                                  : 0;
        if (e != 0) {
          heredocs.emplace_back(delim, strip);
          i = e;
          word_start = false;
        } else {
          while (i < n_ && s_[i] == '<') ++i;  // "<", "<<<", "<&"
          word_start = true;
        }
      } else if (c == '\\') {
        i = escape_end(i);
        word_start = false;
      } else if (c == '\'' || (c == '$' && i + 1 < n_ && s_[i + 1] == '\'')) {
        // '...' holds no escape; $'...' does (ANSI-C quoting)
        const bool ansi = c == '$';
        std::size_t k = i + (ansi ? 2 : 1);
        while (k < n_ && s_[k] != '\'') k = ansi && s_[k] == '\\' ? escape_end(k) : k + 1;
        i = std::min(n_, k + 1);
        word_start = false;
      } else if (c == '"') {
        i = shell_double_quote_end(i);
        word_start = false;
      } else if (c == '$' && i + 1 < n_ && s_[i + 1] == '{') {
        i = shell_brace_end(i + 2);  // ${x// #/y}, ${#x}: no comment inside
        word_start = false;
      } else {
        word_start = false;
        ++i;
      }
    }
  }

  /// One past the `"` closing the double-quoted string whose `"` is at `q`, or the end.
  std::size_t shell_double_quote_end(std::size_t q) const {
    std::size_t k = q + 1;
    while (k < n_ && s_[k] != '"') k = s_[k] == '\\' ? escape_end(k) : k + 1;
    return std::min(n_, k + 1);
  }

  /// One past the closing bracket of an arithmetic expression whose text starts at `k`:
  /// `depth` brackets `open`/`close` are open there (2 after "((" or "$((", 1 after bash's
  /// older "$["), nested ones counted; the end when unclosed.
  std::size_t shell_arith_end(std::size_t k, char open = '(', char close = ')',
                              int depth = 2) const {
    for (; k < n_; ++k) {
      if (s_[k] == open) ++depth;
      if (s_[k] == close && --depth == 0) return k + 1;
    }
    return n_;
  }

  /// One past the `}` closing a parameter expansion whose text starts at `k` (after "${"):
  /// nested braces counted, quotes and backslash escapes skipped; the end when unclosed.
  std::size_t shell_brace_end(std::size_t k) const {
    int depth = 1;
    while (k < n_) {
      const char c = s_[k];
      if (c == '\\') {
        k = escape_end(k);
      } else if (c == '"') {
        k = shell_double_quote_end(k);
      } else if (c == '\'') {
        const std::size_t close = s_.find('\'', k + 1);
        k = close == npos ? n_ : close + 1;
      } else if (c == '{') {
        ++depth;
        ++k;
      } else if (c == '}') {
        ++k;
        if (--depth == 0) return k;
      } else {
        ++k;
      }
    }
    return n_;
  }

  // -- YAML ------------------------------------------------------------------------------------

  void hash_lines() {
    std::size_t i = bom_end();  // YAML allows one before the first line
    while (i < n_) {
      std::size_t k = i;
      while (k < n_ && (s_[k] == ' ' || s_[k] == '\t')) ++k;
      const std::size_t e = line_end(k);
      if (k < n_ && s_[k] == '#') blank(k, e);
      i = e + 1;
    }
  }

  std::string_view s_;
  std::size_t n_;
  CodeText out_;
};

}  // namespace

CodeText blank_comments(std::string_view content, CommentSyntax syntax) {
  return Lexer(content).run(syntax);
}

}  // namespace sm120check
