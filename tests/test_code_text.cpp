// Tests of comment blanking (src/search/code_text.cpp): the shared cases of
// tests/data/code_text/cases.json (bench/code_text.py, the Python twin catalog_check.py uses,
// is held to the same file by the ctest code_text_cases), then what a file can throw at it:
// CRLF, invalid UTF-8, NUL bytes, unterminated comments and strings, long lines.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "sm120check/code_text.hpp"

namespace sm120check {
namespace {

CommentSyntax syntax_named(const std::string& name) {
  for (CommentSyntax s : {CommentSyntax::kNone, CommentSyntax::kPython, CommentSyntax::kCFamily,
                          CommentSyntax::kCMake, CommentSyntax::kHashLine, CommentSyntax::kShell})
    if (to_string(s) == name) return s;
  ADD_FAILURE() << "no syntax " << name;
  return CommentSyntax::kNone;
}

std::string joined(const nlohmann::json& lines) {
  std::string s;
  for (std::size_t i = 0; i < lines.size(); ++i) s += (i ? "\n" : "") + lines[i].get<std::string>();
  return s;
}

/// The code of `text`: blank_comments()'s text, or `text` itself when nothing was blanked.
std::string blanked(std::string_view text, CommentSyntax syntax) {
  CodeText code = blank_comments(text, syntax);
  return code.blanked ? std::move(code.text) : std::string(text);
}

TEST(CodeText, SharedCases) {
  std::ifstream in(std::string(SM120CHECK_SOURCE_DIR) + "/tests/data/code_text/cases.json");
  ASSERT_TRUE(in) << "tests/data/code_text/cases.json";
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_GE(doc["cases"].size(), 10u);
  for (const nlohmann::json& c : doc["cases"]) {
    const std::string input = joined(c["input"]), expect = joined(c["expect"]);
    ASSERT_EQ(input.size(), expect.size()) << c["name"];
    std::string want = input;
    for (std::size_t k = 0; k < want.size(); ++k)
      if (expect[k] == '~') want[k] = ' ';
    const CodeText got = blank_comments(input, syntax_named(c["syntax"]));
    EXPECT_EQ(got.blanked, want != input) << c["name"];
    EXPECT_EQ(got.blanked ? got.text : input, want) << c["name"];
    if (!got.blanked) EXPECT_EQ(got.text, "") << c["name"];
  }
}

TEST(CodeText, SyntaxByFileName) {
  EXPECT_EQ(comment_syntax_for("flashinfer/gemm/gemm_base.py"), CommentSyntax::kPython);
  EXPECT_EQ(comment_syntax_for("torch/_C/__init__.pyi"), CommentSyntax::kPython);
  EXPECT_EQ(comment_syntax_for("flashinfer/data/csrc/tinygemm2.cu"), CommentSyntax::kCFamily);
  EXPECT_EQ(comment_syntax_for("include/flashinfer/topk.cuh"), CommentSyntax::kCFamily);
  EXPECT_EQ(comment_syntax_for("a/epilogue_helpers.h"), CommentSyntax::kCFamily);
  EXPECT_EQ(comment_syntax_for("x.cpp"), CommentSyntax::kCFamily);
  EXPECT_EQ(comment_syntax_for("ggml/src/ggml-cuda/CMakeLists.txt"), CommentSyntax::kCMake);
  EXPECT_EQ(comment_syntax_for("cmake/x.cmake"), CommentSyntax::kCMake);
  EXPECT_EQ(comment_syntax_for(".github/scripts/build-cuda.sh"), CommentSyntax::kShell);
  EXPECT_EQ(comment_syntax_for("install.bash"), CommentSyntax::kShell);
  EXPECT_EQ(comment_syntax_for(".github/workflows/python-package.yml"), CommentSyntax::kHashLine);
  EXPECT_EQ(comment_syntax_for("notes.txt"), CommentSyntax::kNone);
  EXPECT_EQ(comment_syntax_for("Makefile"), CommentSyntax::kNone);
  EXPECT_EQ(comment_syntax_for("dir.py/.hidden"), CommentSyntax::kNone);  // only the last name
  EXPECT_EQ(to_string(CommentSyntax::kCFamily), "c-family");
}

TEST(CodeText, CrlfLinesKeepTheirBreaks) {
  EXPECT_EQ(blanked("x = 1  # c\r\n\"\"\"doc\r\nmore\"\"\"\r\ny = 2\r\n", CommentSyntax::kPython),
            "x = 1     \r\n      \r\n       \r\ny = 2\r\n");
  // A backslash before "\r\n" continues a // comment, and a Python one-quote string.
  EXPECT_EQ(blanked("// a \\\r\nb\r\nint c;\r\n", CommentSyntax::kCFamily),
            "      \r\n \r\nint c;\r\n");
  EXPECT_EQ(blanked("s = 'a\\\r\n# b'  # c\r\n", CommentSyntax::kPython),
            "s = 'a\\\r\n# b'     \r\n");
}

TEST(CodeText, InvalidUtf8AndNulBytes) {
  // Invalid UTF-8 is bytes: in code it stays, in a comment it is blanked; NUL always stays (the
  // marker search then takes the file for binary, as it would the file as read).
  EXPECT_EQ(blanked("\xff\xfe = 1  # \xc3\x28 \x80\n", CommentSyntax::kPython),
            "\xff\xfe = 1" + std::string(8, ' ') + "\n");
  EXPECT_EQ(blanked(std::string("a; // x\0y\n", 10), CommentSyntax::kCFamily),
            std::string("a;     \0 \n", 10));
  // A UTF-8 byte order mark does not hide the module docstring.
  EXPECT_EQ(blanked("\xEF\xBB\xBF\"\"\"doc\"\"\"\n", CommentSyntax::kPython),
            "\xEF\xBB\xBF" + std::string(9, ' ') + "\n");
}

TEST(CodeText, UnterminatedCommentsAndStrings) {
  EXPECT_EQ(blanked("int a; /* open\nint b;", CommentSyntax::kCFamily), "int a;        \n      ");
  EXPECT_EQ(blanked("#[[ open\nset(A 1)", CommentSyntax::kCMake), "        \n        ");
  EXPECT_EQ(blanked("#[=[ x ]] ]==]", CommentSyntax::kCMake), std::string(14, ' '));
  // A string left open is code: nothing after it becomes a comment or a docstring.
  EXPECT_EQ(blanked("\"\"\"open\n# x\n", CommentSyntax::kPython), "\"\"\"open\n# x\n");
  EXPECT_EQ(blanked("set(A \"open # x\n", CommentSyntax::kCMake), "set(A \"open # x\n");
  EXPECT_EQ(blanked("auto r = R\"d(open // x\n", CommentSyntax::kCFamily),
            "auto r = R\"d(open // x\n");
  // An invalid raw-string delimiter (a space) reads as an ordinary string, closed at the line.
  EXPECT_EQ(blanked("R\"a b(\" // c\n", CommentSyntax::kCFamily), "R\"a b(\"     \n");
  // Endings at the very last byte.
  EXPECT_EQ(blanked("#", CommentSyntax::kPython), " ");
  EXPECT_EQ(blanked("/", CommentSyntax::kCFamily), "/");
  EXPECT_EQ(blanked("'\\", CommentSyntax::kPython), "'\\");
  EXPECT_EQ(blanked("\"\\", CommentSyntax::kCFamily), "\"\\");
  EXPECT_EQ(blanked("\\", CommentSyntax::kCMake), "\\");
  EXPECT_EQ(blanked("", CommentSyntax::kPython), "");
}

TEST(CodeText, RandomInputsKeepSizeLinesAndCode) {
  // Whatever the bytes, the result has the input's size, every "\n", "\r" and NUL in place,
  // and every other byte either kept or a space.
  const std::string alphabet = std::string("#/*\"'\\\n\r[]=(){};:rRbfu8 x\0\xff", 27);
  std::mt19937 rng(12);
  for (CommentSyntax s : {CommentSyntax::kPython, CommentSyntax::kCFamily, CommentSyntax::kCMake,
                          CommentSyntax::kHashLine}) {
    for (int round = 0; round < 300; ++round) {
      std::string in(std::uniform_int_distribution<std::size_t>(0, 200)(rng), ' ');
      for (char& c : in) c = alphabet[std::uniform_int_distribution<std::size_t>(0, 26)(rng)];
      const CodeText code = blank_comments(in, s);
      const std::string& out = code.blanked ? code.text : in;
      ASSERT_EQ(out.size(), in.size());
      bool changed = false;
      for (std::size_t k = 0; k < in.size(); ++k) {
        const char c = in[k];
        if (c == '\n' || c == '\r' || c == '\0')
          ASSERT_EQ(out[k], c) << to_string(s) << " " << round << " at " << k;
        else
          ASSERT_TRUE(out[k] == c || out[k] == ' ') << to_string(s) << " at " << k;
        changed = changed || out[k] != c;
      }
      ASSERT_EQ(code.blanked, changed);
    }
  }
}

TEST(CodeText, LongLinesOfOpenersAreOnePass) {
  // 8 MiB lines of what makes a lexer search ahead: quotes, backslashes, bracket openings,
  // closings of the wrong level, raw-string prefixes. Each pass reads every byte a bounded
  // number of times (a 200 MB line: 0.2-0.6 s of CPU for a whole scan, README "`scan`").
  const std::size_t n = 8u << 20;
  const auto repeat = [&](std::string_view unit) {
    std::string s;
    s.reserve(n + unit.size());
    while (s.size() < n) s += unit;
    return s;
  };
  // Python: a one-quote string of escaped quotes, left open at its line's end; a string
  // statement of 2M implicitly joined strings.
  std::string py = "x = '" + repeat("\\'") + "\n# end";
  EXPECT_EQ(blanked(py, CommentSyntax::kPython).substr(py.size() - 6), "\n     ");
  py = repeat("\"a\" ") + "\n";
  EXPECT_EQ(blanked(py, CommentSyntax::kPython), std::string(py.size() - 1, ' ') + "\n");
  // Python: f-strings nested 2M deep, left open at the line's end; a comment after.
  py = "x = f\"" + repeat("{f\"") + "\n# end";
  EXPECT_EQ(blanked(py, CommentSyntax::kPython).substr(py.size() - 6), "\n     ");
  // C: a block comment of spliced stars that never close, then code after its end.
  std::string sp = "/*" + repeat("*\\\n") + "/ int x;";
  EXPECT_EQ(blanked(sp, CommentSyntax::kCFamily).substr(sp.size() - 7), " int x;");
  // C: an "#if 0" group of 1M nested #if lines, closed.
  sp = "#if 0\n";
  for (int k = 0; k < (1 << 20); ++k) sp += "#if 1\n";
  for (int k = 0; k < (1 << 20); ++k) sp += "#endif\n";
  sp += "#endif\nint y;";
  EXPECT_EQ(blanked(sp, CommentSyntax::kCFamily).substr(sp.size() - 13), "#endif\nint y;");
  // C: raw-string openings with no closing, then a comment on the next line.
  std::string c = repeat("R\"x(") + "\n// end";
  EXPECT_EQ(blanked(c, CommentSyntax::kCFamily).substr(c.size() - 7), "\n// end");  // raw string
  c = repeat("/") + "\n";  // one // comment of 8 MiB
  EXPECT_EQ(blanked(c, CommentSyntax::kCFamily), std::string(c.size() - 1, ' ') + "\n");
  // CMake: a bracket comment of level 3 among closings of levels 0-2 and 4.
  std::string cm = "#[===[" + repeat("]]]=]]==]]====]") + "]===] set(A 1)";
  const std::string out = blanked(cm, CommentSyntax::kCMake);
  EXPECT_EQ(out.substr(out.size() - 9), " set(A 1)");
  EXPECT_EQ(out.find_first_not_of(' '), out.size() - 8);
  // CMake: a long run of "=" that opens nothing.
  cm = "[" + repeat("=") + "x # c";
  EXPECT_EQ(blanked(cm, CommentSyntax::kCMake).substr(cm.size() - 5), "x    ");
}

}  // namespace
}  // namespace sm120check
