// A source file's code with its comments blanked, so that `scan` counts a catalog marker only
// where it is code: a marker that an unfixed file holds only in a comment ("# TODO: port
// _CUDNN_SM12X_SKIP_LOGGED") or a Python docstring is not the fix. One linear pass per file.
#pragma once

#include <string>
#include <string_view>

namespace sm120check {

/// The comment syntax of a file, chosen by its name (comment_syntax_for()).
enum class CommentSyntax {
  /// An unknown kind of file: nothing is blanked.
  kNone,
  /// .py, .pyi: `#` comments, and string literals that are a whole statement (docstrings, code
  /// parked in a triple-quoted string, `def f(): "doc"`); f-strings as Python 3.12 reads them
  /// (PEP 701); "\n", "\r\n" and a lone "\r" end a line. The body of an `if False:`, `if 0:`,
  /// `elif False:` or `elif 0:` (dead code: from its first token to the end of its last, on the
  /// header's line or the indented block; an `else:` after it stays code; the test may stand
  /// in parentheses and the header span lines: `if \` + `False:`, `if (` + `False` + `):`).
  kPython,
  /// C, C++, CUDA (.c .h .cc .cpp .cxx .hpp .cu .cuh ...): `//` (continued by a backslash at
  /// the line's end) and `/* */`, outside string, character and raw string literals, line
  /// splices joined first, a leading byte order mark skipped; the lines of an `#if 0` group up
  /// to its `#else`, `#elif` or `#endif` (nested `#if`s counted; an unclosed group is not
  /// blanked; directives read on logical lines: `#if \` + `0` opens one, and a `#endif` that
  /// a splice joins to the line above is none); tokens after `#endif` or `#else` on its
  /// logical line, which the compiler ignores.
  kCFamily,
  /// CMakeLists.txt, *.cmake: `#` and bracket comments `#[[ ]]`, outside quoted and bracket
  /// arguments.
  kCMake,
  /// YAML (.yml .yaml): lines whose first non-blank byte is `#` (a leading byte order mark
  /// skipped; a trailing `# ...` stays: telling it from a `#` in a plain or quoted scalar
  /// needs a parser).
  kHashLine,
  /// Shell (.sh .bash): a `#` that starts a word (first on its line, or after a blank or one of
  /// `;&|()<>`) up to the line's end, outside single, double and `$'...'` quotes and not after a
  /// backslash (`${#a}`, `$#`, `a#b`, `"#"`, `\#` are no comments); here-document bodies
  /// (`<<EOF` ... `EOF`, `<<-`, quoted delimiters) are data and stay.
  kShell,
};

/// "none", "python", "c-family", "cmake", "hash-line", "shell".
std::string_view to_string(CommentSyntax syntax);

/// The syntax of the file at `path` ("/"-separated; only its last component is looked at): by
/// extension, case-sensitive, and CMakeLists.txt by name.
CommentSyntax comment_syntax_for(std::string_view path);

/// A file's text with its comments blanked (blank_comments()).
struct CodeText {
  /// The content with every byte of a comment (for kPython also of a whole-statement string)
  /// turned into a space, except "\n", "\r" and NUL, which stay: the same size, the same lines
  /// and byte offsets, the same binary-file decision for the marker search. Empty when nothing
  /// was blanked: the content is then its own code (no copy is made).
  std::string text;
  bool blanked = false;  ///< some byte was blanked (`text` holds the result).
};

/// `content` with its comments blanked per `syntax`, in one pass, linear in its size; never
/// fails. Bytes are bytes (invalid UTF-8 is no problem; "\r\n" ends a line as "\n" does, and
/// in Python a lone "\r"). A comment left open at the end of the file (`/*` without `*/`) runs
/// to the end, as the languages read it; a string left open does not make anything a comment:
/// a Python one-quote string and a C string or character literal end at their line's end, and
/// a Python string is a whole statement only when closed. See patches/catalog/README.md
/// ("Markers count on code only").
CodeText blank_comments(std::string_view content, CommentSyntax syntax);

}  // namespace sm120check
